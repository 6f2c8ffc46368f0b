//! Why the impostor's normal atlas is stored as RGBA8 and not block-compressed: the
//! figures of BC3 on kit props baked as the cache bakes them.

use sylva_bake::{bake_asset, AssetSource, BakeSettings, NORMAL_FORMAT};
use sylva_cache::{ImpostorRecord, ImpostorView, TextureView};

/// The mean angle, in degrees, between the normal each covered texel of `exact`
/// holds (RGBA8 `n × ½ + ½`) and the one in `stored`; and the depth channel's mean
/// error in 8-bit steps. `albedo`'s alpha says which texels are covered.
fn normal_error(exact: &[u8], stored: &[u8], albedo: &[u8]) -> (f64, f64) {
    // The normal on the view's hemi-octahedral square (the angle between two does
    // not depend on the view's frame).
    let unit = |t: &[u8]| {
        let square = [0, 1].map(|c| f32::from(t[c]) / 127.5 - 1.0);
        sylva_impostor::octahedral::decode(square).map(f64::from)
    };
    let (mut angle, mut depth, mut covered) = (0.0, 0.0, 0usize);
    for ((a, b), albedo) in exact
        .chunks_exact(4)
        .zip(stored.chunks_exact(4))
        .zip(albedo.chunks_exact(4))
    {
        if albedo[3] == 0 {
            continue;
        }
        let (n, m) = (unit(a), unit(b));
        let cos: f64 = (0..3).map(|c| n[c] * m[c]).sum();
        angle += cos.clamp(-1.0, 1.0).acos().to_degrees();
        depth += f64::from(a[2].abs_diff(b[2]));
        covered += 1;
    }
    (angle / covered as f64, depth / covered as f64)
}

/// `rgba` (`side²` texels) through BC3 as a linear format would store it (the
/// colour fitted unweighted: alpha is depth, not coverage).
fn through_bc3(rgba: &[u8], side: u32) -> Vec<u8> {
    let side = side as usize;
    let bc3 = texpresso::Format::Bc3;
    let mut blocks = vec![0; bc3.compressed_size(side, side)];
    bc3.compress(rgba, side, side, texpresso::Params::default(), &mut blocks);
    let mut decoded = vec![0; side * side * 4];
    bc3.decompress(&blocks, side, side, &mut decoded);
    decoded
}

/// Why [`NORMAL_FORMAT`] is RGBA8: on kit props baked as the cache bakes them (a
/// tree of each kind, two bushes), BC3 would move the normals of covered texels of
/// level 0 by 7.7–11.0° on average (their facets' normals change inside a block; BC3
/// keeps one line of four colours a block), while the stored atlas holds the impostor
/// baker's normals exactly. Run with `--nocapture` to see the figures.
#[test]
fn normal_atlas_error_by_format() {
    let assets = concat!(env!("CARGO_MANIFEST_DIR"), "/../../assets/");
    for prop in [
        "conifer/pine_scots",
        "broadleaf/oak_wide",
        "bush/shrub_round",
        "bush/berry_bush",
    ] {
        let source = AssetSource {
            prop_id: prop.into(),
            path: format!("{prop}.glb"),
            bytes: std::fs::read(format!("{assets}{prop}.glb")).unwrap(),
            externals: Vec::new(),
        };
        let (baked, _) = bake_asset(&source, &BakeSettings::default()).unwrap();
        let ImpostorRecord::Baked(ImpostorView {
            cell_px,
            albedo,
            normal,
            ..
        }) = baked.asset.impostor
        else {
            panic!("{prop} has an impostor")
        };
        let blob = |i: u32| TextureView::parse(&baked.textures[i as usize].bytes).unwrap();
        let (albedo, normal) = (blob(albedo), blob(normal));
        assert_eq!(normal.format, NORMAL_FORMAT);
        let exact = normal.decode_level(0);
        let coverage = albedo.decode_level(0);
        let (bc3, bc3_depth) = normal_error(&exact, &through_bc3(&exact, normal.width), &coverage);
        println!(
            "{prop} ({cell_px}² cells): mean normal error of BC3 against the baked \
             RGBA8 {bc3:.2}°, depth {bc3_depth:.2} steps"
        );
        assert!(bc3 > 4.0, "{prop}: BC3 is within {bc3}°, reconsider it");
    }
}

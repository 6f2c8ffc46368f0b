//! How much the impostor's stored normal and depth atlases (BC5) lose against the
//! baker's exact drawing, on kit props baked as the cache bakes them, with BC3 (one
//! line of four colours a block) beside them for comparison.

use sylva_bake::impostor::draw_prop_impostor;
use sylva_bake::{bake_asset, AssetSource, BakeSettings, DEPTH_FORMAT, NORMAL_FORMAT};
use sylva_cache::{ImpostorRecord, ImpostorView, PixelFormat, TextureView};
use sylva_impostor::ImpostorSettings;

/// The mean angle, in degrees, between the normal each covered texel of `exact` holds
/// (RG, `n × ½ + ½` on the hemi-octahedral square) and the one in `stored` (RG); and
/// the mean error of `exact`'s depth (B) against `stored_depth` (R), in 8-bit steps.
/// `albedo`'s alpha says which texels are covered.
fn errors(exact: &[u8], stored: &[u8], stored_depth: &[u8], albedo: &[u8]) -> (f64, f64) {
    let unit = |t: &[u8]| {
        let square = [0, 1].map(|c| f32::from(t[c]) / 127.5 - 1.0);
        sylva_impostor::octahedral::decode(square).map(f64::from)
    };
    let (mut angle, mut depth, mut covered) = (0.0, 0.0, 0usize);
    let texels = exact
        .chunks_exact(4)
        .zip(stored.chunks_exact(4))
        .zip(stored_depth.chunks_exact(4))
        .zip(albedo.chunks_exact(4));
    for (((a, b), d), albedo) in texels {
        if albedo[3] == 0 {
            continue;
        }
        let (n, m) = (unit(a), unit(b));
        let cos: f64 = (0..3).map(|c| n[c] * m[c]).sum();
        angle += cos.clamp(-1.0, 1.0).acos().to_degrees();
        depth += f64::from(a[2].abs_diff(d[0]));
        covered += 1;
    }
    (angle / covered as f64, depth / covered as f64)
}

/// `rgba` (`side²` texels) through `format` and back.
fn through(format: PixelFormat, rgba: &[u8], side: u32) -> Vec<u8> {
    format.decode(&format.encode(rgba, side, side), side, side)
}

/// BC5 keeps a block's two channels on two independent lines of eight values, where BC3
/// fits its colour channels to one line of four: on the kit's faceted props, whose
/// facets' normals change inside a 4×4 block, BC5 moves the normals of covered texels
/// of level 0 by 2.2–3.0° on average where BC3 would by 7.4–10.4°, and the depth by
/// 0.7–1.2 steps of 255 where BC3 would by 4.5–7.1. Run with `--nocapture` to see the figures.
#[test]
fn bc5_keeps_the_impostor_normals_and_depths_far_closer_than_bc3() {
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
        let settings = BakeSettings::default();
        let (baked, _) = bake_asset(&source, &settings).unwrap();
        let ImpostorRecord::Baked(ImpostorView {
            grid,
            cell_px,
            albedo,
            normal,
            depth,
            ..
        }) = baked.asset.impostor
        else {
            panic!("{prop} has an impostor")
        };
        let blob = |i: u32| TextureView::parse(&baked.textures[i as usize].bytes).unwrap();
        let (albedo, normal, depth) = (blob(albedo), blob(normal), blob(depth));
        assert_eq!((normal.format, depth.format), (NORMAL_FORMAT, DEPTH_FORMAT));
        // The same drawing, before it was stored.
        let textures: Vec<_> = baked.asset.textures[..baked.asset.textures.len() - 3]
            .iter()
            .enumerate()
            .map(|(i, _)| {
                TextureView::parse(&baked.textures[i].bytes)
                    .unwrap()
                    .to_baked()
            })
            .collect();
        let drawing = ImpostorSettings {
            grid,
            cell_px,
            texels_per_m: None,
            ..settings.impostor.unwrap()
        };
        let (exact, _) = draw_prop_impostor(&baked.asset.parts, &textures, &drawing).unwrap();
        let exact = &exact.normal[0];
        let coverage = albedo.decode_level(0);
        let side = normal.width;
        let (bc5, bc5_depth) = errors(
            exact,
            &normal.decode_level(0),
            &depth.decode_level(0),
            &coverage,
        );
        let bc3_texels = through(PixelFormat::Bc3Srgb, exact, side);
        let bc3_depths: Vec<u8> = bc3_texels
            .chunks_exact(4)
            .flat_map(|t| [t[2], 0, 0, 255])
            .collect();
        let (bc3, bc3_depth) = errors(exact, &bc3_texels, &bc3_depths, &coverage);
        println!(
            "{prop} ({cell_px}² cells): mean normal error BC5 {bc5:.2}° (BC3 {bc3:.2}°), \
             depth BC5 {bc5_depth:.2} steps (BC3 {bc3_depth:.2})"
        );
        assert!(bc5 < bc3 / 2.0, "{prop}: BC5 {bc5}°, BC3 {bc3}°");
        assert!(
            bc5_depth < 1.5 && bc5_depth < bc3_depth / 4.0,
            "{prop}: BC5 depth {bc5_depth} steps, BC3 {bc3_depth}"
        );
    }
}

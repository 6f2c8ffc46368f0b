//! A prop's impostor, baked beside its LOD chains: `sylva-impostor` draws level 0 of
//! every part with the texels the runtime samples (each baked texture's level 0, decoded
//! from its stored blocks), and the two atlases become texture blobs of the entry.
//!
//! # Pixel formats
//! Every level of an atlas is `grid × (cell_px >> l)` texels square; with the default
//! 12 × 12 grid every level is a multiple of 4 and block compression applies.
//! - **Albedo + coverage: BC3 sRGB**, colour fitted weighted by alpha (the texels
//!   outside the silhouette do not pull its edge blocks dark), alpha interpolated at 8
//!   bits: a quarter of RGBA8.
//! - **Normal + depths: RGBA8 linear** ([`NORMAL_FORMAT`]; the normal in two channels,
//!   the depth and the shadow depth in the other two). Measured on kit props
//!   (`normal_atlas_error_by_format` below: the mean angle between the normal a
//!   covered texel of level 0 holds as baked and the one decoded), BC3 (colour fitted
//!   unweighted, as linear data would be) is off by
//!   6.7° on the Scots pine, 4.4° on the oak (128² cells), 9.5° on the round shrub
//!   and 5.9° on the granite boulder (32²), and the depth by 3–8 steps of 255
//!   (14.6°, 12.5°, 14.7° and 10.6°, and 9–13 steps, at 32² and 16²):
//!   the kit's props are faceted, a 4×4 block holds several facets' normals, and BC3
//!   stores one line of four colours a block. Under the sun that is a shading error of
//!   the order of the impostor's whole quality budget (28 dB PSNR is 4 % RMS). So the
//!   texels stay exact at four times the bytes, and the bake caps cells at 128 texels
//!   ([`crate::settings::IMPOSTOR_MAX_CELL_PX`], a tree's 8.8–15.6 texels a metre). Two
//!   BC5 blobs, the normal's two channels in one and the depths in the other, would
//!   halve that at −0.4 to +0.1 dB of the kit's quality with 64² tree cells, and keep
//!   every kit category at 28.4 dB or more with 128² (measured through texpresso's BC5
//!   and back; BENCHMARKS.md, stop 29); not taken yet, because lavapipe decodes block
//!   textures per sample: the whole-world impostor frame took 1.18 s instead of
//!   1.47 s (medians of four, dev build) with the albedo atlas alone uploaded as
//!   RGBA8, and BC5 would put the 16 other atlas reads of a fragment through that
//!   decoding unless CPU adapters get the atlases decoded at upload.
//!
//! Levels whose cells are under 4 texels are dropped ([`MIN_CELL_TEXELS`]): a 4×4
//! block there would straddle two views, and a cell of 2 texels shows nothing a
//! 4-texel cell's coarsest sample does not.

use std::time::Instant;

use sylva_cache::{
    encode_texture, BakedPart, BakedTexture, FormatError, ImpostorRecord, ImpostorView,
    PixelFormat, TextureFile,
};
use sylva_impostor::{bake_impostor, Impostor, ImpostorError, ImpostorSettings};
use sylva_impostor::{PartSource, TextureSource};

/// How the normal + depth atlas is stored (see the module's documentation for why).
pub const NORMAL_FORMAT: PixelFormat = PixelFormat::Rgba8Linear;
/// How the albedo + coverage atlas is stored.
pub const ALBEDO_FORMAT: PixelFormat = PixelFormat::Bc3Srgb;
/// The smallest cell an atlas level keeps, in texels per side: one BC block.
pub const MIN_CELL_TEXELS: u32 = 4;

/// What baking a prop's impostor did.
#[derive(Clone, Debug, PartialEq)]
pub struct ImpostorReport {
    /// Wall-clock time of the impostor bake (drawing, mips and block compression).
    pub micros: u128,
    /// The drawing's statistics; `None` when refused (the entry's record says why).
    pub stats: Option<sylva_impostor::ImpostorStats>,
}

/// The atlases of a baked impostor as blobs, and the record naming them.
pub struct BakedImpostor {
    pub record: ImpostorRecord,
    /// Albedo then normal (empty when refused); the record's indices count from
    /// `first_texture`.
    pub textures: Vec<TextureFile>,
    pub report: ImpostorReport,
}

/// Why an impostor cannot be baked at all (a refusal is not an error: see
/// [`ImpostorError::is_refusal`]).
#[derive(Debug, thiserror::Error)]
pub enum ImpostorBakeError {
    #[error("baking the impostor: {0}")]
    Impostor(#[from] ImpostorError),
    #[error("encoding an impostor atlas: {0}")]
    Format(#[from] FormatError),
}

/// Bakes the impostor of `parts` (level 0 of each) whose materials index `textures`
/// (the baked textures, before encoding). `settings` `None` means impostors are turned
/// off for this prop. The atlases' blobs take texture indices `first_texture` and
/// `first_texture + 1`.
pub fn bake_prop_impostor(
    parts: &[BakedPart],
    textures: &[BakedTexture],
    settings: Option<&ImpostorSettings>,
    first_texture: u32,
) -> Result<BakedImpostor, ImpostorBakeError> {
    let started = Instant::now();
    let Some(settings) = settings else {
        return Ok(refused(
            "no impostor: turned off in the catalog (`impostor: Some(false)`)".into(),
            started,
        ));
    };
    let sources: Vec<PartSource> = parts
        .iter()
        .map(|part| PartSource {
            vertices: &part.vertices,
            indices: part.levels.first().map_or(&[][..], |l| &l.indices),
            material: &part.material,
        })
        .collect();
    // What the runtime samples at level 0: the stored blocks decoded, not the source.
    let decoded: Vec<Vec<u8>> = textures
        .iter()
        .map(|t| t.format.decode(&t.levels[0], t.width, t.height))
        .collect();
    let texture_sources: Vec<TextureSource> = textures
        .iter()
        .zip(&decoded)
        .map(|(t, rgba8)| TextureSource {
            width: t.width,
            height: t.height,
            rgba8,
        })
        .collect();
    let (impostor, stats) = match bake_impostor(&sources, &texture_sources, settings) {
        Ok(baked) => baked,
        Err(refusal) if refusal.is_refusal() => {
            return Ok(refused(refusal.to_string(), started));
        }
        Err(error) => return Err(error.into()),
    };
    let albedo = encode_texture(&atlas(&impostor, &impostor.albedo, ALBEDO_FORMAT))?;
    let normal = encode_texture(&atlas(&impostor, &impostor.normal, NORMAL_FORMAT))?;
    let record = ImpostorRecord::Baked(ImpostorView {
        grid: impostor.grid,
        cell_px: impostor.cell_px,
        sphere: impostor.bounds,
        albedo: first_texture,
        normal: first_texture + 1,
    });
    Ok(BakedImpostor {
        record,
        textures: vec![albedo, normal],
        report: ImpostorReport {
            micros: started.elapsed().as_micros(),
            stats: Some(stats),
        },
    })
}

fn refused(reason: String, started: Instant) -> BakedImpostor {
    BakedImpostor {
        record: ImpostorRecord::Refused { reason },
        textures: Vec::new(),
        report: ImpostorReport {
            micros: started.elapsed().as_micros(),
            stats: None,
        },
    }
}

/// How many of an impostor's levels are kept: those whose cells are at least
/// [`MIN_CELL_TEXELS`] wide (level 0 always).
pub fn kept_levels(cell_px: u32, levels: usize) -> usize {
    (0..levels)
        .take_while(|&l| l == 0 || cell_px >> l >= MIN_CELL_TEXELS)
        .count()
}

/// One atlas's RGBA8 levels as a texture blob in `format`, without the levels whose
/// cells are under [`MIN_CELL_TEXELS`].
fn atlas(impostor: &Impostor, levels: &[Vec<u8>], format: PixelFormat) -> BakedTexture {
    let side = impostor.atlas_px(0);
    let kept = kept_levels(impostor.cell_px, levels.len());
    BakedTexture {
        width: side,
        height: side,
        format,
        levels: levels[..kept]
            .iter()
            .enumerate()
            .map(|(l, rgba)| {
                let px = impostor.atlas_px(l);
                format.encode(rgba, px, px)
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use sylva_cache::{ImpostorView, TextureView};

    use super::*;
    use crate::asset::bake_asset;
    use crate::key::AssetSource;
    use crate::settings::BakeSettings;

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
    /// tree of each kind, a bush, a boulder), BC3 would move the normals of covered
    /// texels of level 0 by 4.4–9.5° on average (their facets' normals change inside a
    /// block; BC3 keeps one line of four colours a block; 10–14° while trees had 32²
    /// cells, the texels being coarser than the facets), while the stored atlas holds
    /// the impostor baker's normals exactly. Run with `--nocapture` to see the figures.
    #[test]
    fn normal_atlas_error_by_format() {
        let assets = concat!(env!("CARGO_MANIFEST_DIR"), "/../../assets/");
        for prop in [
            "conifer/pine_scots",
            "broadleaf/oak_wide",
            "bush/shrub_round",
            "boulder/granite_round",
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
            let (bc3, bc3_depth) =
                normal_error(&exact, &through_bc3(&exact, normal.width), &coverage);
            println!(
                "{prop} ({cell_px}² cells): mean normal error of BC3 against the baked \
                 RGBA8 {bc3:.2}°, depth {bc3_depth:.2} steps"
            );
            assert!(bc3 > 4.0, "{prop}: BC3 is within {bc3}°, reconsider it");
        }
    }

    #[test]
    fn levels_stop_at_cells_of_one_block() {
        assert_eq!(kept_levels(64, 7), 5);
        assert_eq!(kept_levels(8, 4), 2);
        assert_eq!(kept_levels(4, 3), 1);
        assert_eq!(kept_levels(2, 2), 1, "level 0 is always kept");
    }
}

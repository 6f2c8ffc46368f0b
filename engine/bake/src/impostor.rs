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
//!   unweighted, as linear data would be) is off by 11.0° on the Scots pine, 7.7° on
//!   the oak (64² cells), 9.5° on the round shrub and 10.3° on the berry bush (32²),
//!   and the depth by 5–8 steps of 255:
//!   the kit's props are faceted, a 4×4 block holds several facets' normals, and BC3
//!   stores one line of four colours a block. Under the sun that is a shading error of
//!   the order of the impostor's whole quality budget (28 dB PSNR is 4 % RMS). So the
//!   texels stay exact at four times the bytes; the chain sizes the cells
//!   ([`crate::impostor_plan`]). Two
//!   BC5 blobs, the normal's two channels in one and the depths in the other, would
//!   halve that at −0.4 to +0.1 dB of the kit's quality with 64² tree cells, and keep
//!   every kit category at 28.4 dB or more with 128² (measured through texpresso's BC5
//!   and back); not taken, because lavapipe decodes block
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
use sylva_impostor::{PartSource, TextureSource, MIN_SIZED_CELL_PX};

use crate::impostor_plan::{plan_impostor, ChainShape, ImpostorPlan, PlanDecision};

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
    /// What the chain said the impostor should be; `None` where the catalog turns
    /// impostors off.
    pub plan: Option<ImpostorPlan>,
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

/// Bakes the impostor of `parts` (level 0 of each; the prop's bounding sphere has
/// `radius_m`) whose materials index `textures` (the baked textures, before encoding),
/// as [`plan_impostor`] plans it from the chain: cells and views within `settings`, or
/// none where the coarsest mesh has fewer than `min_density` triangles a pixel there.
/// `settings` `None` means impostors are turned off for this prop. The atlases' blobs
/// take texture indices `first_texture` and `first_texture + 1`.
pub fn bake_prop_impostor(
    parts: &[BakedPart],
    radius_m: f32,
    textures: &[BakedTexture],
    settings: Option<&ImpostorSettings>,
    min_density: f32,
    first_texture: u32,
) -> Result<BakedImpostor, ImpostorBakeError> {
    let started = Instant::now();
    let Some(settings) = settings else {
        return Ok(refused(
            "no impostor: turned off in the catalog (`impostor: Some(false)`)".into(),
            None,
            started,
        ));
    };
    let coarsest_triangles = parts
        .iter()
        .filter_map(|p| p.levels.last())
        .map(|l| l.indices.len() as u32 / 3)
        .sum();
    let shape = ChainShape {
        radius_m,
        coarsest_error_m: parts
            .iter()
            .flat_map(|p| &p.levels)
            .map(|l| l.error_m)
            .fold(0.0, f32::max),
        coarsest_triangles,
    };
    let cells = (MIN_SIZED_CELL_PX.min(settings.cell_px), settings.cell_px);
    let plan = plan_impostor(shape, cells, min_density);
    let settings = match &plan.decision {
        PlanDecision::KeepMesh { why } => {
            let reason = format!("no impostor: {why}");
            return Ok(refused(reason, Some(plan), started));
        }
        &PlanDecision::Bake { cell_px, grid, .. } => ImpostorSettings {
            cell_px,
            grid: grid.min(settings.grid),
            texels_per_m: None,
            ..*settings
        },
    };
    let settings = &settings;
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
            return Ok(refused(refusal.to_string(), Some(plan), started));
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
        error_m: impostor.error_m,
    });
    Ok(BakedImpostor {
        record,
        textures: vec![albedo, normal],
        report: ImpostorReport {
            micros: started.elapsed().as_micros(),
            stats: Some(stats),
            plan: Some(plan),
        },
    })
}

fn refused(reason: String, plan: Option<ImpostorPlan>, started: Instant) -> BakedImpostor {
    BakedImpostor {
        record: ImpostorRecord::Refused { reason },
        textures: Vec::new(),
        report: ImpostorReport {
            micros: started.elapsed().as_micros(),
            stats: None,
            plan,
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
    use super::*;

    #[test]
    fn levels_stop_at_cells_of_one_block() {
        assert_eq!(kept_levels(64, 7), 5);
        assert_eq!(kept_levels(8, 4), 2);
        assert_eq!(kept_levels(4, 3), 1);
        assert_eq!(kept_levels(2, 2), 1, "level 0 is always kept");
    }
}

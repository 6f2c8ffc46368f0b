//! A prop's impostor, baked beside its LOD chains: `sylva-impostor` draws the coarsest
//! level the runtime draws of every part with the texels the runtime samples (each baked
//! texture's level 0, decoded from its stored blocks), and its atlases become three
//! texture blobs of the entry.
//!
//! # Which level it pictures
//! The impostor takes over from the coarsest mesh, so it pictures that mesh: where they
//! change places the two agree (supersampled PSNR at the switch 28.0–33.6 dB over the
//! kit's props, against 27.5–30.1 for the four judged when drawn from level 0). Its
//! error, which the runtime's screen-error switch reads, is still measured against
//! level 0, like every level's.
//!
//! # Pixel formats
//! Every level of an atlas is `grid × (cell_px >> l)` texels square; with the default
//! 12 × 12 grid every level is a multiple of 4 and block compression applies.
//! - **Albedo + coverage: BC3 sRGB**, colour fitted weighted by alpha (the texels
//!   outside the silhouette do not pull its edge blocks dark), alpha interpolated at 8
//!   bits: a quarter of RGBA8.
//! - **Normal: BC5** ([`NORMAL_FORMAT`]; the view-frame normal's two hemi-octahedral
//!   coordinates) and **depths: BC5** ([`DEPTH_FORMAT`]; the depth towards the view and
//!   the shadow pass's): a byte a texel each, half the RGBA8 texel that held all four
//!   (three fifths of the impostor's bytes with the albedo). BC5 keeps each channel on a line of eight values per block, where BC3
//!   fits the colour channels to one line of four: on the kit's faceted props, whose
//!   facets' normals change inside a 4×4 block, BC5 moves normals by 2.2–3.0° and depths
//!   by 0.7–1.2 steps of 255 on average, BC3 by 7.4–10.4° and 4.5–7.2 steps
//!   (`tests/impostor_normal_format.rs`).
//!
//! Levels whose cells are under 4 texels are dropped ([`MIN_CELL_TEXELS`]): a 4×4
//! block there would straddle two views, and a cell of 2 texels shows nothing a
//! 4-texel cell's coarsest sample does not.

use std::time::Instant;

use sylva_cache::{
    encode_texture, BakedPart, BakedTexture, FormatError, ImpostorRecord, ImpostorView,
    PixelFormat, TextureFile,
};
use sylva_impostor::{bake_impostor_measured_against, Impostor, ImpostorError, ImpostorSettings};
use sylva_impostor::{PartSource, TextureSource, MIN_SIZED_CELL_PX};

use crate::impostor_plan::{plan_impostor, ChainShape, ImpostorPlan, PlanDecision};

/// How the normal atlas is stored: its two channels (see the module's documentation).
pub const NORMAL_FORMAT: PixelFormat = PixelFormat::Bc5;
/// How the depth atlas is stored: the depth and the shadow depth.
pub const DEPTH_FORMAT: PixelFormat = PixelFormat::Bc5;
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
    /// Albedo, normal and depth (empty when refused); the record's indices count from
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

/// Bakes the impostor of `parts` (their coarsest drawn level; the prop's bounding sphere has
/// `radius_m`) whose materials index `textures` (the baked textures, before encoding),
/// as [`plan_impostor`] plans it from the chain: cells and views within `settings`, or
/// none where the coarsest mesh has fewer than `min_density` triangles a pixel there.
/// `settings` `None` means impostors are turned off for this prop. The atlases' blobs
/// take texture indices `first_texture`, `first_texture + 1` and `first_texture + 2`.
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
    let (impostor, stats) = match draw_prop_impostor(parts, textures, &settings) {
        Ok(baked) => baked,
        Err(refusal) if refusal.is_refusal() => {
            return Ok(refused(refusal.to_string(), Some(plan), started));
        }
        Err(error) => return Err(error.into()),
    };
    let albedo = encode_texture(&atlas(&impostor, &impostor.albedo, ALBEDO_FORMAT))?;
    let normal = encode_texture(&atlas(&impostor, &impostor.normal, NORMAL_FORMAT))?;
    let depths = depth_levels(&impostor.normal);
    let depth = encode_texture(&atlas(&impostor, &depths, DEPTH_FORMAT))?;
    let record = ImpostorRecord::Baked(ImpostorView {
        grid: impostor.grid,
        cell_px: impostor.cell_px,
        sphere: impostor.bounds,
        albedo: first_texture,
        normal: first_texture + 1,
        depth: first_texture + 2,
        error_m: impostor.error_m,
    });
    Ok(BakedImpostor {
        record,
        textures: vec![albedo, normal, depth],
        report: ImpostorReport {
            micros: started.elapsed().as_micros(),
            stats: Some(stats),
            plan: Some(plan),
        },
    })
}

/// Draws the impostor of `parts` (the coarsest level the runtime draws of each: that of
/// the part with the fewest levels, as parts move between levels together) whose
/// materials index `textures`, as the runtime samples them (each texture's stored level
/// 0, decoded), with `settings`, and measures it against level 0: the atlases in RGBA8
/// before they are stored.
pub fn draw_prop_impostor(
    parts: &[BakedPart],
    textures: &[BakedTexture],
    settings: &ImpostorSettings,
) -> Result<(Impostor, sylva_impostor::ImpostorStats), ImpostorError> {
    let coarsest = parts
        .iter()
        .map(|p| p.levels.len())
        .min()
        .unwrap_or(0)
        .saturating_sub(1);
    let level = |k: usize| -> Vec<PartSource> {
        parts
            .iter()
            .map(|part| PartSource {
                vertices: &part.vertices,
                indices: part.levels.get(k).map_or(&[][..], |l| &l.indices),
                material: &part.material,
            })
            .collect()
    };
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
    bake_impostor_measured_against(&level(coarsest), &level(0), &texture_sources, settings)
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

/// The depth and shadow depth of the baker's normal texels (B, A) moved to R and G,
/// where BC5 stores its two channels.
fn depth_levels(normal: &[Vec<u8>]) -> Vec<Vec<u8>> {
    normal
        .iter()
        .map(|level| {
            level
                .chunks_exact(4)
                .flat_map(|texel| [texel[2], texel[3], 0, 255])
                .collect()
        })
        .collect()
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

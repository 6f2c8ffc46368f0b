//! The impostor baker: a prop's last level of detail, a grid of pictures of it from
//! every direction above the horizon, baked on the CPU so the bytes are the same on
//! every machine and thread count (no GPU driver decides a texel).
//!
//! # The views
//! A hemi-octahedral grid ([`octahedral`]): cell `(column, row)` of a `grid × grid`
//! atlas is the view from the direction its centre maps to. The default grid is
//! **12 × 12** (144 views): neighbouring views are 15° apart along the grid's axes
//! (180° from horizon to horizon over 12 cells), so the runtime's blend of the three
//! nearest views is never more than ~8° from one of them; 8 × 8 (22.5°) ghosts visibly
//! on branches, and 16 × 16 at the same texel density costs 78 % more bytes for 11°
//! (Unity's IMP defaults to 12, three.js and Godot to 16; "too many frames lowers
//! texel density, too few distorts"). The grid is even so that no cell centre is the
//! zenith, where a camera's "up" is undefined, and the four views nearest it are
//! symmetric about it.
//!
//! Each view is an orthographic camera on its direction looking at the centre of the
//! prop's bounding sphere, whose diameter fills the cell: `right` horizontal, `up`
//! world up projected onto the picture ([`octahedral::ViewBasis`]). Every part is drawn
//! with the triangles it is handed (the bake hands its coarsest level) by [`raster`]'s
//! fixed-arithmetic rasteriser at
//! `supersample²` samples per texel, alpha-tested as the renderer does (base colour
//! factor × vertex colour × bilinear sample of the texture's largest level, discarded
//! below the cutoff; `BLEND` at 0.5), back faces culled unless double-sided.
//!
//! # The atlases
//! Two RGBA8 atlases `grid × cell_px` texels square, each with a full chain of
//! per-cell mip levels ([`atlas`]; cells stay separate at every level, no gutter):
//! - **albedo**: sRGB colour (as every sylva texture), alpha = the fraction of the
//!   texel covered (supersampled, so silhouettes are antialiased), lifted at level 0
//!   where a part under a texel wide peaks so that the alpha test draws it as wide as
//!   it covers (a birch's trunk would otherwise vanish between its texels);
//! - **normal**: in RG the unit normal in the view's frame (its `right`, towards-camera
//!   and `up` components, [`octahedral::ViewBasis::to_view`]) on the hemi-octahedral
//!   square as `p × ½ + ½` (the runtime turns it back through the view's basis; the
//!   placement's rotation applies at draw time); in B the depth towards the camera from
//!   the picture plane through the centre, `[-radius, radius]` as `[0, 255]` (255 is
//!   the sphere's front); in A the same for the surface the shadow pass draws there,
//!   which by rend3's convention (the meshes' too) is the nearest back face of an
//!   opaque part or either face of an alpha-tested one, so an impostor's shadow starts
//!   where its mesh's would (`raster::Sample::shadow_depth`); a texel keeps its
//!   samples' mean where they lie within a texel's depth, the farthest across a jump
//!   (`atlas::Texel::shadow_depth`). Two channels hold the normal so that the texel has
//!   room for both depths.
//!
//! Empty texels touching the silhouette carry their covered neighbours' colour, normal
//! and depths at alpha 0 (a bilinear tap across the edge blends with the prop, not with
//! black); the rest are `[0, 0, 0, 0]` and [`atlas::EMPTY_NORMAL_TEXEL`].
//!
//! Mips are filtered in linear light with each texel weighted by its coverage, so
//! empty texels neither darken silhouettes nor tilt normals, and normals are
//! renormalised at every level; each level's alpha is scaled per cell so that the
//! runtime's alpha test ([`ImpostorSettings::alpha_cutoff`]) keeps as many texels as at
//! level 0.
//!
//! # Error
//! Twelve pictures of the mesh from between the views, compared with what the renderer
//! reconstructs from the atlases, give the impostor's error in metres
//! ([`Impostor::error_m`], defined in [`measure`]): a texel plus the mean distance by
//! which the reconstruction moves what each texel shows.
//!
//! # Refusals
//! A prop with no triangle of any area, smaller than [`ImpostorSettings::min_radius_m`],
//! flatter than [`ImpostorSettings::min_thickness_ratio`] or invisible from every view
//! is refused with a typed reason ([`ImpostorError::is_refusal`]); the bake keeps its
//! coarsest mesh as its last level.

pub mod atlas;
mod error;
pub mod measure;
pub mod octahedral;
pub mod raster;
mod sample;
mod source;

#[cfg(test)]
mod tests;

pub use error::ImpostorError;
pub use measure::Straying;
pub use source::{PartSource, TextureSource};
use sylva_mesh::Sphere;

use crate::atlas::{resolve, Atlases};
use crate::octahedral::{cell_centre, decode, ViewBasis};
use crate::raster::{Projection, Target};
use crate::source::Prepared;

/// How an impostor is baked.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ImpostorSettings {
    /// Views per side of the hemi-octahedral grid: even, 2 to 32.
    pub grid: u32,
    /// Texels per side of a cell at level 0 (the largest, with `texels_per_m`): a power
    /// of two, 4 to 512.
    pub cell_px: u32,
    /// When set, a cell is the smallest power of two (at least [`MIN_SIZED_CELL_PX`], at
    /// most `cell_px`) giving the bounding sphere's diameter this many texels per metre,
    /// so a bush does not spend a tree's bytes. The default, 8, is about a texel a pixel
    /// at the impostor's switch distance (155 m) on a 1440-line screen with sylva's 55°
    /// field of view; at 4 a bush, a log or a branch drawn there at two pixels a texel
    /// lost its leaf clumps and its shading across a branch (BENCHMARKS.md, impostor
    /// quality), for a quarter of the bytes.
    pub texels_per_m: Option<f32>,
    /// Samples per texel side (1 to 4): the silhouette's antialiasing.
    pub supersample: u32,
    /// The cutoff the runtime alpha-tests impostor texels at. When set, each level's
    /// alpha below level 0 is scaled per cell so that as many of its texels pass as at
    /// level 0 (otherwise alpha is the plain mean coverage, and thin branches vanish at
    /// the coarse levels). The default 0.5 is the middle of a silhouette's antialiased
    /// edge (three.js's octahedral impostors clamp at 0.4–0.5).
    pub alpha_cutoff: Option<f32>,
    /// Props whose bounding radius is smaller are refused. The default, 5 cm, refuses
    /// only grit: small props are the many ones, and at 0.25 m the kit's daisies and
    /// pebbles kept 51,000 instances of the whole-world session at their coarsest mesh
    /// from the overview, 4.9 M of its 5.3 M triangles, where an atlas of 8² cells costs
    /// 58 KB a prop.
    pub min_radius_m: f32,
    /// Props whose thinnest side of their box is below this share of their widest are
    /// refused: from the side they are a sliver less than a texel, and a flat prop's
    /// mesh is a handful of triangles anyway.
    pub min_thickness_ratio: f32,
}

impl Default for ImpostorSettings {
    /// 12 × 12 views of up to 64 texels at 8 texels per metre (a tree's atlas 768² per
    /// level, 3.1 MB per atlas with its mips; a 2 m bush's 192²), 2 × 2 samples per
    /// texel.
    fn default() -> Self {
        ImpostorSettings {
            grid: 12,
            cell_px: 64,
            texels_per_m: Some(8.0),
            supersample: 2,
            alpha_cutoff: Some(0.5),
            min_radius_m: 0.05,
            min_thickness_ratio: 0.02,
        }
    }
}

impl ImpostorSettings {
    fn check(&self) -> Result<(), ImpostorError> {
        let bad = |field, value: String, reason| {
            Err(ImpostorError::Settings {
                field,
                value,
                reason,
            })
        };
        if !(2..=32).contains(&self.grid) || !self.grid.is_multiple_of(2) {
            return bad("grid", self.grid.to_string(), "must be even, 2 to 32");
        }
        if !(4..=512).contains(&self.cell_px) || !self.cell_px.is_power_of_two() {
            return bad(
                "cell_px",
                self.cell_px.to_string(),
                "must be a power of two, 4 to 512",
            );
        }
        if let Some(density) = self.texels_per_m {
            if !(density > 0.0 && density.is_finite()) {
                return bad(
                    "texels_per_m",
                    density.to_string(),
                    "must be a finite density above 0",
                );
            }
        }
        if let Some(cutoff) = self.alpha_cutoff {
            if !(cutoff > 0.0 && cutoff <= 1.0) {
                return bad(
                    "alpha_cutoff",
                    cutoff.to_string(),
                    "must be above 0 and at most 1",
                );
            }
        }
        if !(1..=4).contains(&self.supersample) {
            return bad(
                "supersample",
                self.supersample.to_string(),
                "must be 1 to 4",
            );
        }
        if !(self.min_radius_m >= 0.0 && self.min_radius_m.is_finite()) {
            return bad(
                "min_radius_m",
                self.min_radius_m.to_string(),
                "must be a finite length, 0 or more",
            );
        }
        if !(0.0..1.0).contains(&self.min_thickness_ratio) {
            return bad(
                "min_thickness_ratio",
                self.min_thickness_ratio.to_string(),
                "must be at least 0 and below 1",
            );
        }
        Ok(())
    }

    /// Texels per side of the cells of a prop whose bounding sphere has `radius_m`.
    pub fn cell_px_for(&self, radius_m: f32) -> u32 {
        let Some(density) = self.texels_per_m else {
            return self.cell_px;
        };
        let wanted = 2.0 * radius_m * density;
        let mut px = MIN_SIZED_CELL_PX.min(self.cell_px);
        while (px as f32) < wanted && px < self.cell_px {
            px *= 2;
        }
        px
    }
}

/// The smallest cell [`ImpostorSettings::texels_per_m`] sizes: 8 texels still shows a
/// silhouette, and its mips stay whole texels.
pub const MIN_SIZED_CELL_PX: u32 = 8;

/// A baked impostor: the two atlases with their mip chains and the sphere they were
/// fitted to.
#[derive(Clone, Debug, PartialEq)]
pub struct Impostor {
    /// Views per side.
    pub grid: u32,
    /// Texels per side of a cell at level 0.
    pub cell_px: u32,
    /// The bounding sphere (prop space) each view's camera is fitted to: the cell is
    /// its diameter, centred.
    pub bounds: Sphere,
    /// RGBA8 (sRGB colour, coverage) per level, largest first; level `l` is
    /// [`Impostor::atlas_px`]`(l)` texels square, rows top to bottom.
    pub albedo: Vec<Vec<u8>>,
    /// RGBA8 (view-frame normal, depth, shadow depth) per level, laid out as `albedo`;
    /// [`Impostor::normal_texel`] reads one.
    pub normal: Vec<Vec<u8>>,
    /// How far the impostor strays from the mesh, in metres (prop space): a texel plus
    /// the mean error of the test pictures' texels ([`measure`]).
    pub error_m: f32,
}

/// One texel of the normal atlas, decoded.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NormalTexel {
    /// Unit prop-space normal.
    pub normal: [f32; 3],
    /// Towards the view's camera from the picture plane through the centre, in radii.
    pub depth: f32,
    /// The same for the surface the shadow pass draws.
    pub shadow_depth: f32,
}

impl Impostor {
    /// Texels per side of the atlas at `level`.
    pub fn atlas_px(&self, level: usize) -> u32 {
        self.grid * (self.cell_px >> level)
    }

    /// Unit vector from the prop's centre towards the camera of cell `(column, row)`.
    pub fn view_direction(&self, column: u32, row: u32) -> [f32; 3] {
        decode(cell_centre(column, row, self.grid))
    }

    /// Texel `(x, y)` of cell `(column, row)` of the normal atlas's `level`, decoded
    /// as the runtime decodes it.
    pub fn normal_texel(
        &self,
        level: usize,
        (column, row): (u32, u32),
        (x, y): (u32, u32),
    ) -> NormalTexel {
        let side = self.cell_px >> level;
        let at = (((row * side + y) * self.atlas_px(level) + column * side + x) * 4) as usize;
        let texel = &self.normal[level][at..at + 4];
        let basis = ViewBasis::of_cell(column, row, self.grid);
        decode_normal_texel([texel[0], texel[1], texel[2], texel[3]], &basis)
    }

    /// Bytes of both atlases, every level.
    pub fn bytes(&self) -> usize {
        self.albedo.iter().chain(&self.normal).map(Vec::len).sum()
    }
}

/// A normal-atlas texel of the view `basis` decoded as the runtime decodes it.
pub fn decode_normal_texel(texel: [u8; 4], basis: &ViewBasis) -> NormalTexel {
    let signed = |b: u8| f32::from(b) / 255.0 * 2.0 - 1.0;
    NormalTexel {
        normal: basis.from_view(decode([signed(texel[0]), signed(texel[1])])),
        depth: signed(texel[2]),
        shadow_depth: signed(texel[3]),
    }
}

/// What a bake did (the caller times it).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ImpostorStats {
    pub views: u32,
    /// Triangles of non-zero area drawn in every view.
    pub triangles: u64,
    /// Texels of level 0 the prop covers at all, over every cell.
    pub covered_texels: u64,
    /// Per view (row-major over the grid), the share of its cell's area covered: the
    /// silhouette's area over the square of the sphere's diameter.
    pub view_coverage: Vec<f32>,
    /// Both atlases, every level.
    pub bytes: usize,
    /// The comparison with the mesh between the views ([`measure`]).
    pub straying: Straying,
}

/// Bakes the impostor of the prop made of `parts`, whose materials index `textures`,
/// and measures it against them. Pure: plain data in, atlases out; one thread, a fixed
/// order.
pub fn bake_impostor(
    parts: &[PartSource<'_>],
    textures: &[TextureSource<'_>],
    settings: &ImpostorSettings,
) -> Result<(Impostor, ImpostorStats), ImpostorError> {
    bake_impostor_measured_against(parts, parts, textures, settings)
}

/// [`bake_impostor`] of `parts` (a LOD chain's coarsest level, say), its error measured
/// against `reference` (the same parts' finest level): what the impostor shows drawn
/// from the one, how far it strays from the other. The atlases' sphere is the drawn
/// parts'.
pub fn bake_impostor_measured_against(
    parts: &[PartSource<'_>],
    reference: &[PartSource<'_>],
    textures: &[TextureSource<'_>],
    settings: &ImpostorSettings,
) -> Result<(Impostor, ImpostorStats), ImpostorError> {
    settings.check()?;
    let prop = Prepared::new(parts, textures)?;
    let reference = Prepared::new(reference, textures)?;
    refuse_unfit(&prop, parts.len(), settings)?;
    let grid = settings.grid;
    let cell_px = settings.cell_px_for(prop.sphere.radius);
    let mut atlases = Atlases::new(grid, cell_px, settings.alpha_cutoff);
    let mut target = Target::new(cell_px * settings.supersample);
    let mut projected = Vec::new();
    let mut stats = ImpostorStats {
        views: grid * grid,
        triangles: prop.triangles,
        ..ImpostorStats::default()
    };
    let cell_texels = (cell_px * cell_px) as f32;
    for row in 0..grid {
        for column in 0..grid {
            let basis = ViewBasis::of_cell(column, row, grid);
            let projection = Projection::new(basis, prop.sphere, target.side);
            target.clear();
            for part in &prop.parts {
                target.draw(&projection, part, &prop.textures, &mut projected);
            }
            let texels = resolve(&target, settings.supersample);
            let covered = texels.iter().filter(|t| t.coverage > 0.0).count();
            stats.covered_texels += covered as u64;
            let area: f32 = texels.iter().map(|t| t.coverage).sum();
            stats.view_coverage.push(area / cell_texels);
            atlases.write_cell(column, row, texels);
        }
    }
    if stats.covered_texels == 0 {
        return Err(ImpostorError::Invisible {
            views: stats.views,
            triangles: prop.triangles,
        });
    }
    let measured = measure::Measured {
        albedo: &atlases.albedo[0],
        normal: &atlases.normal[0],
        grid,
        cell_px,
        sphere: prop.sphere,
    };
    stats.straying = measure::measure(
        &reference,
        measured,
        &measure::test_directions(grid),
        settings.supersample,
        &mut target,
        &mut projected,
    );
    let impostor = Impostor {
        grid,
        cell_px,
        bounds: prop.sphere,
        albedo: atlases.albedo,
        normal: atlases.normal,
        error_m: stats.straying.error_m,
    };
    stats.bytes = impostor.bytes();
    Ok((impostor, stats))
}

/// The refusals known before drawing: empty, too small, flat.
fn refuse_unfit(
    prop: &Prepared,
    parts: usize,
    settings: &ImpostorSettings,
) -> Result<(), ImpostorError> {
    if prop.triangles == 0 {
        return Err(ImpostorError::Empty { parts });
    }
    let radius_m = prop.sphere.radius;
    if radius_m < settings.min_radius_m {
        return Err(ImpostorError::TooSmall {
            radius_m,
            min_radius_m: settings.min_radius_m,
        });
    }
    let sides: [f32; 3] = std::array::from_fn(|i| prop.bounds.max[i] - prop.bounds.min[i]);
    let thickness_m = sides[0].min(sides[1]).min(sides[2]);
    let extent_m = sides[0].max(sides[1]).max(sides[2]);
    if thickness_m < settings.min_thickness_ratio * extent_m {
        return Err(ImpostorError::Flat {
            thickness_m,
            extent_m,
            min_ratio: settings.min_thickness_ratio,
        });
    }
    Ok(())
}

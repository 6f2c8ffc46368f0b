use std::fmt;

use meshopt::{SimplifyOptions, SimplifyVertex, VertexDataAdapter};
use serde::Serialize;
use sylva_catalog::LodLevel;

use super::wedges::Wedges;
use crate::settings::Borders;

/// One level of a chain: a triangle list into the part's shared vertices.
#[derive(Clone, Debug, PartialEq)]
pub struct Level {
    pub indices: Vec<u32>,
    pub target_ratio: f32,
    pub achieved_ratio: f32,
    pub error: f32,
}

/// Why a level has the triangles it has.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum StopReason {
    /// Within 5 % of the part's triangles of the target.
    TargetReached,
    /// The next collapses would deform the part, or move its vertex colours, more than
    /// the level's error limit.
    ErrorLimit,
    /// Only collapses moving open-edge vertices were left, and LockBorder pins them.
    BordersLocked,
    /// Only collapses across UV or colour discontinuities were left.
    Seams,
    /// Nothing left to collapse: every remaining collapse would fold or tear the mesh.
    TooFewTriangles,
    /// A level of a part faceted all over kept more triangles so that its face-normal
    /// vertices fit the vertex budget (30 % of the input's) on 95 % of its area.
    FacetBudget,
}

impl fmt::Display for StopReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            StopReason::TargetReached => "target reached",
            StopReason::ErrorLimit => "error limit",
            StopReason::BordersLocked => "borders locked",
            StopReason::Seams => "seams",
            StopReason::TooFewTriangles => "too few triangles",
            StopReason::FacetBudget => "facets kept within the vertex budget",
        })
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct LevelStats {
    pub target_ratio: f32,
    pub max_error: f32,
    pub triangles: usize,
    pub achieved_ratio: f32,
    /// Relative to the part's extent, as meshoptimizer reports it (with the colour error,
    /// weighed by `COLOR_WEIGHT`, for a part of several colours).
    pub error: f32,
    /// How far the finished level strays from the full mesh, in metres
    /// ([`super::level_deviation`]; the chain fills it in once the level is final).
    pub error_m: f32,
    pub stop: StopReason,
    /// The level was stuck on locked borders and was simplified with them free
    /// ([`Borders::LockedUnlessStuck`]).
    pub borders_freed: bool,
}

const POSITION_STRIDE: usize = 12;

/// How much a colour difference counts against moving the surface: a unit of
/// alpha-premultiplied RGB (black to white) weighs as much as a move by the part's
/// extent, so a level's `max_error` also bounds how far it may drift from its vertex
/// colours (gltfpack weighs colours the same). Without it a flat face painted with
/// vertex colours (a log's growth rings) is simplified to its rim, whose colour then
/// fills the whole face.
const COLOR_WEIGHT: f32 = 1.0;

/// A level counts as reaching its target within this share of the full mesh.
const TARGET_SLACK: f64 = 0.05;

/// What every level of one part is simplified from, prepared once per part: the full
/// mesh on its surface (indices into its wedges, see [`Wedges`]) and the wedges'
/// positions.
pub struct SimplifyInput<'a> {
    surface: Vec<u32>,
    positions: VertexDataAdapter<'a>,
    /// No vertex is locked beyond what the options say; meshoptimizer reads one flag per
    /// vertex (and crashes on an empty slice), so the array is always full length.
    locks: Vec<SimplifyVertex>,
    borders: Borders,
    /// Per wedge, its alpha-premultiplied RGB in `[0, 1]`; empty for a part of one
    /// colour, which has none to keep.
    colors: Vec<[f32; 3]>,
}

impl<'a> SimplifyInput<'a> {
    pub fn new(wedges: &'a Wedges, full: &[u32], borders: Borders) -> Self {
        let bytes = meshopt::typed_to_bytes(wedges.positions());
        let positions = VertexDataAdapter::new(bytes, POSITION_STRIDE, 0)
            .expect("positions are 12-byte strided");
        SimplifyInput {
            surface: wedges.surface_indices(full),
            positions,
            locks: vec![SimplifyVertex::None; wedges.positions().len()],
            borders,
            colors: premultiplied_colors(wedges.colors()),
        }
    }

    fn options(&self) -> SimplifyOptions {
        match self.borders {
            Borders::Free => SimplifyOptions::None,
            Borders::Locked | Borders::LockedUnlessStuck => SimplifyOptions::LockBorder,
        }
    }

    fn run(
        &self,
        target_triangles: usize,
        max_error: f32,
        options: SimplifyOptions,
    ) -> (Vec<u32>, f32) {
        let mut error = 0.0;
        let indices = if self.colors.is_empty() {
            meshopt::simplify_with_locks(
                &self.surface,
                &self.positions,
                &self.locks,
                target_triangles * 3,
                max_error,
                options,
                Some(&mut error),
            )
        } else {
            meshopt::simplify_with_attributes_and_locks(
                &self.surface,
                &self.positions,
                self.colors.as_flattened(),
                &[COLOR_WEIGHT; 3],
                std::mem::size_of::<[f32; 3]>(),
                &self.locks,
                target_triangles * 3,
                max_error,
                options,
                Some(&mut error),
            )
        };
        (indices, error)
    }

    /// Why a level simplified with `options` that stopped at `triangles`, short of
    /// `target_triangles`, stopped: the first constraint whose removal lets the
    /// simplifier go further.
    fn stop_reason(
        &self,
        options: SimplifyOptions,
        target_triangles: usize,
        triangles: usize,
    ) -> StopReason {
        let further =
            |options| self.run(target_triangles, f32::MAX, options).0.len() / 3 < triangles;
        if further(options) {
            StopReason::ErrorLimit
        } else if options.contains(SimplifyOptions::LockBorder) && further(SimplifyOptions::None) {
            StopReason::BordersLocked
        } else if further(options | SimplifyOptions::Permissive) {
            StopReason::Seams
        } else {
            StopReason::TooFewTriangles
        }
    }
}

/// `colors` as alpha-premultiplied RGB in `[0, 1]`, or nothing when they are all the
/// same.
fn premultiplied_colors(colors: &[[u8; 4]]) -> Vec<[f32; 3]> {
    if colors.windows(2).all(|pair| pair[0] == pair[1]) {
        return Vec::new();
    }
    colors
        .iter()
        .map(|&[r, g, b, a]| {
            let alpha = f32::from(a) / 255.0;
            [r, g, b].map(|c| f32::from(c) / 255.0 * alpha)
        })
        .collect()
}

/// Each of `levels` simplified from the full mesh (never from the previous level), so
/// errors do not accumulate. The levels index wedges; the facet stage then chooses
/// each corner's vertex.
pub fn simplify_levels(
    input: &SimplifyInput<'_>,
    levels: &[LodLevel],
) -> (Vec<Level>, Vec<LevelStats>) {
    let full_triangles = input.surface.len() / 3;
    levels
        .iter()
        .map(|setting| {
            let target_triangles =
                (full_triangles as f64 * f64::from(setting.ratio)).round() as usize;
            let reached = |indices: &[u32]| {
                (indices.len() / 3) as f64
                    <= target_triangles as f64 + TARGET_SLACK * full_triangles as f64
            };
            let mut options = input.options();
            let (mut indices, mut error) = if full_triangles == 0 {
                (Vec::new(), 0.0)
            } else {
                input.run(target_triangles, setting.max_error, options)
            };
            let mut borders_freed = false;
            if input.borders == Borders::LockedUnlessStuck && !reached(&indices) {
                let free = input.run(target_triangles, setting.max_error, SimplifyOptions::None);
                if free.0.len() < indices.len() {
                    (indices, error) = free;
                    options = SimplifyOptions::None;
                    borders_freed = true;
                }
            }
            // An entry records errors finite and not negative; meshoptimizer's is, for
            // any finite input, but a value past it would only mean "too coarse".
            let error = if error >= 0.0 && error.is_finite() {
                error
            } else {
                f32::MAX
            };
            let triangles = indices.len() / 3;
            let achieved_ratio = if full_triangles == 0 {
                1.0
            } else {
                (triangles as f64 / full_triangles as f64) as f32
            };
            let stop = if reached(&indices) {
                StopReason::TargetReached
            } else {
                input.stop_reason(options, target_triangles, triangles)
            };
            let level = Level {
                indices,
                target_ratio: setting.ratio,
                achieved_ratio,
                error,
            };
            let stats = LevelStats {
                target_ratio: setting.ratio,
                max_error: setting.max_error,
                triangles,
                achieved_ratio,
                error,
                error_m: 0.0,
                stop,
                borders_freed,
            };
            (level, stats)
        })
        .unzip()
}

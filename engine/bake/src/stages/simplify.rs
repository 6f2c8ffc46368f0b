use std::fmt;

use meshopt::{SimplifyOptions, SimplifyVertex, VertexDataAdapter};
use serde::Serialize;
use sylva_catalog::LodLevel;
use sylva_mesh::{Vertex, VERTEX_STRIDE};

use super::wedges::Wedges;

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
    /// The next collapses would deform the part more than the level's error limit.
    ErrorLimit,
    /// Only collapses moving open-edge vertices were left, and LockBorder pins them.
    BordersLocked,
    /// Only collapses across UV or colour discontinuities were left.
    Seams,
    /// Nothing left to collapse: every remaining collapse would fold or tear the mesh.
    TooFewTriangles,
}

impl fmt::Display for StopReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            StopReason::TargetReached => "target reached",
            StopReason::ErrorLimit => "error limit",
            StopReason::BordersLocked => "borders locked",
            StopReason::Seams => "seams",
            StopReason::TooFewTriangles => "too few triangles",
        })
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct LevelStats {
    pub target_ratio: f32,
    pub max_error: f32,
    pub triangles: usize,
    pub achieved_ratio: f32,
    /// Relative to the part's extent, as meshoptimizer reports it.
    pub error: f32,
    pub stop: StopReason,
}

/// A level counts as reaching its target within this share of the full mesh.
const TARGET_SLACK: f64 = 0.05;

/// What every level of one part is simplified from, prepared once per part: the full
/// mesh on its surface (indices into wedge representatives, see [`Wedges`]) and the
/// position view of its vertices.
pub struct SimplifyInput<'a> {
    surface: Vec<u32>,
    positions: VertexDataAdapter<'a>,
    /// No vertex is locked beyond what the options say; meshoptimizer reads one flag per
    /// vertex (and crashes on an empty slice), so the array is always full length.
    locks: Vec<SimplifyVertex>,
    lock_border: bool,
}

impl<'a> SimplifyInput<'a> {
    pub fn new(vertices: &'a [Vertex], wedges: &Wedges, full: &[u32], lock_border: bool) -> Self {
        let bytes = meshopt::typed_to_bytes(vertices);
        let positions = VertexDataAdapter::new(bytes, VERTEX_STRIDE, 0)
            .expect("the vertex layout is 36-byte strided with the position first");
        SimplifyInput {
            surface: wedges.surface_indices(full),
            positions,
            locks: vec![SimplifyVertex::None; vertices.len()],
            lock_border,
        }
    }

    fn options(&self) -> SimplifyOptions {
        if self.lock_border {
            SimplifyOptions::LockBorder
        } else {
            SimplifyOptions::None
        }
    }

    fn run(&self, target_triangles: usize, max_error: f32, options: SimplifyOptions) -> (Vec<u32>, f32) {
        let mut error = 0.0;
        let indices = meshopt::simplify_with_locks(
            &self.surface,
            &self.positions,
            &self.locks,
            target_triangles * 3,
            max_error,
            options,
            Some(&mut error),
        );
        (indices, error)
    }

    /// Why a level that stopped at `triangles` short of `target_triangles` stopped: the
    /// first constraint whose removal lets the simplifier go further.
    fn stop_reason(&self, target_triangles: usize, triangles: usize) -> StopReason {
        let further = |options| self.run(target_triangles, f32::MAX, options).0.len() / 3 < triangles;
        if further(self.options()) {
            StopReason::ErrorLimit
        } else if self.lock_border && further(SimplifyOptions::None) {
            StopReason::BordersLocked
        } else if further(self.options() | SimplifyOptions::Permissive) {
            StopReason::Seams
        } else {
            StopReason::TooFewTriangles
        }
    }
}

/// Each of `levels` simplified from the full mesh (never from the previous level), so
/// errors do not accumulate. The levels index wedge representatives, which are input
/// vertices; the facet stage then chooses each corner's normal.
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
            let (indices, error) = if full_triangles == 0 {
                (Vec::new(), 0.0)
            } else {
                input.run(target_triangles, setting.max_error, input.options())
            };
            let triangles = indices.len() / 3;
            let achieved_ratio = if full_triangles == 0 {
                1.0
            } else {
                (triangles as f64 / full_triangles as f64) as f32
            };
            let reached = triangles as f64
                <= target_triangles as f64 + TARGET_SLACK * full_triangles as f64;
            let stop = if reached {
                StopReason::TargetReached
            } else {
                input.stop_reason(target_triangles, triangles)
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
                stop,
            };
            (level, stats)
        })
        .unzip()
}

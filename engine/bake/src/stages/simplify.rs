use meshopt::{SimplifyOptions, VertexDataAdapter};
use serde::Serialize;
use sylva_catalog::LodLevel;
use sylva_mesh::{Vertex, VERTEX_STRIDE};

/// One level of a chain: a triangle list into the part's shared vertices.
#[derive(Clone, Debug, PartialEq)]
pub struct Level {
    pub indices: Vec<u32>,
    pub target_ratio: f32,
    pub achieved_ratio: f32,
    pub error: f32,
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct LevelStats {
    pub target_ratio: f32,
    pub max_error: f32,
    pub triangles: usize,
    pub achieved_ratio: f32,
    /// Relative to the part's extent, as meshoptimizer reports it.
    pub error: f32,
}

/// What every level of one part is simplified from, prepared once per part: the
/// full mesh's indices and the position view of its vertices.
pub struct SimplifyInput<'a> {
    full: &'a [u32],
    positions: VertexDataAdapter<'a>,
    options: SimplifyOptions,
}

impl<'a> SimplifyInput<'a> {
    pub fn new(vertices: &'a [Vertex], full: &'a [u32], lock_border: bool) -> Self {
        let bytes = meshopt::typed_to_bytes(vertices);
        let positions = VertexDataAdapter::new(bytes, VERTEX_STRIDE, 0)
            .expect("the vertex layout is 36-byte strided with the position first");
        let options = if lock_border {
            SimplifyOptions::LockBorder
        } else {
            SimplifyOptions::None
        };
        SimplifyInput {
            full,
            positions,
            options,
        }
    }
}

/// Each of `levels` simplified from the full mesh (never from the previous level), so
/// errors do not accumulate. meshoptimizer's simplifier only selects among the input
/// vertices, so every level indexes the same vertex buffer.
pub fn simplify_levels(
    input: &SimplifyInput<'_>,
    levels: &[LodLevel],
) -> (Vec<Level>, Vec<LevelStats>) {
    let full_triangles = input.full.len() / 3;
    levels
        .iter()
        .map(|setting| {
            let target_triangles =
                (full_triangles as f64 * f64::from(setting.ratio)).round() as usize;
            let mut error = 0.0;
            let indices = meshopt::simplify(
                input.full,
                &input.positions,
                target_triangles * 3,
                setting.max_error,
                input.options,
                Some(&mut error),
            );
            let triangles = indices.len() / 3;
            let achieved_ratio = if full_triangles == 0 {
                1.0
            } else {
                (triangles as f64 / full_triangles as f64) as f32
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
            };
            (level, stats)
        })
        .unzip()
}

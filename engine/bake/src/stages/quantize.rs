use serde::Serialize;
use sylva_mesh::{QuantizationError, Vertex, VertexQuantization};

/// Levels within this of the full mesh (metres) simplified exactly, up to the
/// deviation measurement's own rounding: no share of packing is taken of them.
pub const EXACT_LEVEL_M: f32 = 1e-4;

/// What packing the chain's vertices cost, against the f32 vertices the levels were
/// measured on.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct QuantizeStats {
    /// The largest distance a position moved, in metres.
    pub position_error_m: f32,
    /// The largest angle a normal turned, in degrees.
    pub normal_error_deg: f32,
    /// The largest change of a UV component, in UV units.
    pub uv_error: f32,
    /// `uv_error` in texels of the largest texture the part samples, at its baked size
    /// (set by the asset's bake, which knows the textures); `None` for an untextured
    /// part. UVs spanning many repeats of a texture pack coarser per texel.
    pub uv_error_texels: Option<f32>,
    /// `position_error_m` over the smallest `error_m` of the part's simplified levels
    /// that stray by more than [`EXACT_LEVEL_M`]: how much of a level's own error
    /// packing adds. `None` when every simplified level is exact.
    pub share_of_level_error: Option<f32>,
}

/// Packs positions and UVs to 16 bits over the part's ranges and normals and tangents
/// to 8 bits ([`VertexQuantization`]), returning the vertices as they come back (what
/// the cache stores and the GPU draws), the mapping and its error. `level_errors_m`
/// are the simplified levels' deviations from the full mesh.
pub fn quantize_vertices(
    vertices: &[Vertex],
    level_errors_m: &[f32],
) -> (Vec<Vertex>, VertexQuantization, QuantizeStats) {
    let (quantization, packed) = VertexQuantization::fit_and_snap(vertices);
    let error = QuantizationError::between(vertices, &packed);
    let smallest_level_error = level_errors_m
        .iter()
        .copied()
        .filter(|&e| e > EXACT_LEVEL_M)
        .min_by(f32::total_cmp);
    let stats = QuantizeStats {
        position_error_m: error.position,
        normal_error_deg: error.normal_deg,
        uv_error: error.uv,
        uv_error_texels: None,
        share_of_level_error: smallest_level_error.map(|e| error.position / e),
    };
    (packed, quantization, stats)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_error_is_measured_against_the_smallest_level_error() {
        let vertices: Vec<Vertex> = (0..10)
            .map(|i| Vertex {
                position: [i as f32 * 0.123, 0.0, 1.0 / (i as f32 + 1.0)],
                normal: [0.0, 1.0, 0.0],
                ..Vertex::default()
            })
            .collect();
        let (packed, quantization, stats) = quantize_vertices(&vertices, &[0.0, 0.02, 0.01]);
        assert_eq!(packed.len(), vertices.len());
        assert!(
            stats.position_error_m > 0.0 && stats.position_error_m < 2e-5,
            "{stats:?}"
        );
        let share = stats.share_of_level_error.unwrap();
        assert!((share - stats.position_error_m / 0.01).abs() < 1e-9);
        for (v, p) in vertices.iter().zip(&packed) {
            assert_eq!(quantization.snap(v), *p);
            assert_eq!(quantization.snap(p), *p);
        }
        assert_eq!(
            quantize_vertices(&vertices, &[0.0, EXACT_LEVEL_M])
                .2
                .share_of_level_error,
            None
        );
    }
}

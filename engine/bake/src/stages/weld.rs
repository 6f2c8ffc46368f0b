use serde::Serialize;
use sylva_mesh::Vertex;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct WeldStats {
    pub vertices_in: usize,
    pub vertices_out: usize,
}

/// Merges vertices whose 52 bytes are identical (position, normal, UV, tangent and colour, bit
/// for bit) and drops vertices no triangle uses. Vertices that differ in any attribute
/// stay apart; meshoptimizer finds attribute seams by position itself.
pub fn weld(vertices: &[Vertex], indices: &[u32]) -> (Vec<Vertex>, Vec<u32>, WeldStats) {
    let (unique, remap) = meshopt::generate_vertex_remap(vertices, Some(indices));
    let welded = meshopt::remap_vertex_buffer(vertices, unique, &remap);
    let indices = meshopt::remap_index_buffer(Some(indices), unique, &remap);
    let stats = WeldStats {
        vertices_in: vertices.len(),
        vertices_out: unique,
    };
    (welded, indices, stats)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(x: f32, nx: f32) -> Vertex {
        Vertex {
            position: [x, 0.0, 0.0],
            normal: [nx, 1.0, 0.0],
            ..Vertex::default()
        }
    }

    #[test]
    fn only_exact_duplicates_merge() {
        // 0 and 3 are identical; 1 and 4 share a position but not a normal; 5 is unused.
        let vertices = [
            v(0.0, 0.0),
            v(1.0, 0.0),
            v(2.0, 0.0),
            v(0.0, 0.0),
            v(1.0, 0.5),
            v(9.0, 0.0),
        ];
        let (welded, indices, stats) = weld(&vertices, &[0, 1, 2, 3, 4, 2]);
        assert_eq!(
            stats,
            WeldStats {
                vertices_in: 6,
                vertices_out: 4
            }
        );
        assert_eq!(indices, [0, 1, 2, 0, 3, 2]);
        assert_eq!(welded[3], v(1.0, 0.5));
    }
}

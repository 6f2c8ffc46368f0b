use serde::Serialize;
use sylva_mesh::{Vertex, PACKED_STRIDE};

use super::Level;

/// Vertex fetch overfetch of the full level (bytes fetched ÷ vertex bytes, of packed
/// vertices as the GPU reads them) before and after.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct VertexFetchStats {
    pub vertices: usize,
    pub overfetch_before: f32,
    pub overfetch_after: f32,
}

/// One vertex order for all levels: vertices renumbered in order of first use over
/// every level's indices, coarsest level first (meshoptimizer's advice for a vertex
/// buffer shared by LODs: the coarse levels, drawn most, touch a compact prefix).
/// This is meshopt_optimizeVertexFetchRemap's first-touch order, done here because
/// the meshopt 0.7 wrapper truncates its remap table. The first `input_count`
/// vertices (the input's) are ordered among themselves and stay first; the rest
/// (appended for simplified levels) follow, so level 0 indexes only the prefix.
///
/// `levels[0]` must reference every input vertex (welding guarantees it) and the
/// simplified levels every appended one.
pub fn optimize_vertex_fetch(
    vertices: &[Vertex],
    input_count: usize,
    levels: &mut [Level],
) -> (Vec<Vertex>, VertexFetchStats) {
    let overfetch = |indices: &[u32], n: usize| {
        meshopt::analyze_vertex_fetch(indices, n, PACKED_STRIDE).overfetch
    };
    let overfetch_before = levels
        .first()
        .map_or(0.0, |l| overfetch(&l.indices, vertices.len()));
    const UNUSED: u32 = u32::MAX;
    let mut remap = vec![UNUSED; vertices.len()];
    let mut reordered = Vec::with_capacity(vertices.len());
    for input in [true, false] {
        for level in levels.iter().rev() {
            for &i in &level.indices {
                let slot = &mut remap[i as usize];
                if *slot == UNUSED && ((i as usize) < input_count) == input {
                    *slot = reordered.len() as u32;
                    reordered.push(vertices[i as usize]);
                }
            }
        }
    }
    for level in levels.iter_mut() {
        for i in &mut level.indices {
            *i = remap[*i as usize];
        }
    }
    let stats = VertexFetchStats {
        vertices: reordered.len(),
        overfetch_before,
        overfetch_after: levels
            .first()
            .map_or(0.0, |l| overfetch(&l.indices, reordered.len())),
    };
    (reordered, stats)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn level(indices: &[u32]) -> Level {
        Level {
            indices: indices.to_vec(),
            target_ratio: 1.0,
            achieved_ratio: 1.0,
            error: 0.0,
        }
    }

    #[test]
    fn the_coarsest_level_gets_the_first_vertices() {
        let vertices: Vec<Vertex> = (0..5)
            .map(|i| Vertex {
                position: [i as f32, 0.0, 0.0],
                ..Vertex::default()
            })
            .collect();
        let mut levels = [level(&[0, 1, 2, 2, 3, 4]), level(&[4, 3, 0])];
        let (reordered, stats) = optimize_vertex_fetch(&vertices, 5, &mut levels);
        assert_eq!(levels[1].indices, [0, 1, 2]);
        assert_eq!(levels[0].indices, [2, 3, 4, 4, 1, 0]);
        assert_eq!(reordered[0].position[0], 4.0);
        assert_eq!(stats.vertices, 5);
    }

    #[test]
    fn appended_vertices_follow_every_input_vertex() {
        let vertices: Vec<Vertex> = (0..5)
            .map(|i| Vertex {
                position: [i as f32, 0.0, 0.0],
                ..Vertex::default()
            })
            .collect();
        let mut levels = [level(&[0, 1, 2, 2, 1, 3]), level(&[4, 3, 0])];
        let (reordered, _) = optimize_vertex_fetch(&vertices, 4, &mut levels);
        assert_eq!(levels[1].indices, [4, 0, 1]);
        assert!(levels[0].indices.iter().all(|&i| i < 4));
        assert_eq!(reordered[4].position[0], 4.0);
    }
}

use std::collections::HashMap;

use sylva_mesh::Vertex;

/// The surface a part is simplified on: vertices that share a position, UV and colour
/// are one wedge, whatever their normals. A flat-shaded mesh (each face its own three
/// vertices, no two triangles sharing an index) becomes one connected surface, so its
/// faces share edges the simplifier can collapse; UV and colour discontinuities stay
/// seams, and open edges stay borders.
#[derive(Clone, Debug)]
pub struct Wedges {
    /// Per vertex, the first vertex of its wedge (its representative).
    representative: Vec<u32>,
    /// Per representative, the vertices of its wedge in index order (empty for others).
    members: Vec<Vec<u32>>,
}

impl Wedges {
    pub fn new(vertices: &[Vertex]) -> Self {
        let mut first: HashMap<([u32; 3], [u32; 2], [u8; 4]), u32> = HashMap::new();
        let mut members = vec![Vec::new(); vertices.len()];
        let representative = vertices
            .iter()
            .enumerate()
            .map(|(i, v)| {
                let key = (v.position.map(f32::to_bits), v.uv.map(f32::to_bits), v.color);
                let rep = *first.entry(key).or_insert(i as u32);
                members[rep as usize].push(i as u32);
                rep
            })
            .collect();
        Wedges {
            representative,
            members,
        }
    }

    /// `indices` with every vertex replaced by its wedge's representative.
    pub fn surface_indices(&self, indices: &[u32]) -> Vec<u32> {
        indices
            .iter()
            .map(|&i| self.representative[i as usize])
            .collect()
    }

    /// The vertices of the wedge `representative` stands for.
    pub fn members(&self, representative: u32) -> &[u32] {
        &self.members[representative as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normals_do_not_split_a_wedge_but_uvs_do() {
        let v = |x: f32, nx: f32, u: f32| Vertex {
            position: [x, 0.0, 0.0],
            normal: [nx, 1.0, 0.0],
            uv: [u, 0.0],
            color: [255; 4],
        };
        let wedges = Wedges::new(&[v(0.0, 0.0, 0.0), v(0.0, 1.0, 0.0), v(0.0, 0.0, 0.5)]);
        assert_eq!(wedges.surface_indices(&[0, 1, 2]), [0, 0, 2]);
        assert_eq!(wedges.members(0), [0, 1]);
        assert_eq!(wedges.members(2), [2]);
    }
}

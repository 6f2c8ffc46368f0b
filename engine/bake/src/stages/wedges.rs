use std::collections::HashMap;

use sylva_mesh::Vertex;

/// The surface a part is simplified on: vertices that share a position, colour and —
/// when the part's material has a texture to read them — UV are one wedge, whatever
/// their normals. A flat-shaded mesh (each face its own three vertices, no two
/// triangles sharing an index) becomes one connected surface, so its faces share edges
/// the simplifier can collapse; UV (on textured parts) and colour discontinuities stay
/// seams, and open edges stay borders. Untextured parts' UVs are never drawn, so they
/// make no seams (exporters such as FBX2glTF write per-face UVs all the same).
///
/// The simplifier gets the wedges as a vertex buffer of their own (one position per
/// wedge): meshoptimizer treats vertices sharing a position as attribute seams, even
/// ones no triangle uses, so the input's buffer would lock every wedge.
#[derive(Clone, Debug)]
pub struct Wedges {
    /// Per vertex, its wedge.
    wedge_of: Vec<u32>,
    /// Per wedge, its first vertex (its representative).
    representatives: Vec<u32>,
    /// Per wedge, its vertices in index order.
    members: Vec<Vec<u32>>,
    /// Per wedge, its position.
    positions: Vec<[f32; 3]>,
    /// Per wedge, its colour (every member's).
    colors: Vec<[u8; 4]>,
}

/// What makes vertices one wedge: the bits of their position and UV, and their colour.
type WedgeKey = ([u32; 3], [u32; 2], [u8; 4]);

impl Wedges {
    pub fn new(vertices: &[Vertex], textured: bool) -> Self {
        let mut wedge_at: HashMap<WedgeKey, u32> = HashMap::new();
        let mut wedges = Wedges {
            wedge_of: Vec::with_capacity(vertices.len()),
            representatives: Vec::new(),
            members: Vec::new(),
            positions: Vec::new(),
            colors: Vec::new(),
        };
        for (i, v) in vertices.iter().enumerate() {
            let uv = if textured { v.uv } else { [0.0; 2] };
            let key = (v.position.map(f32::to_bits), uv.map(f32::to_bits), v.color);
            let next = wedges.representatives.len() as u32;
            let wedge = *wedge_at.entry(key).or_insert(next);
            if wedge == next {
                wedges.representatives.push(i as u32);
                wedges.members.push(Vec::new());
                wedges.positions.push(v.position);
                wedges.colors.push(v.color);
            }
            wedges.members[wedge as usize].push(i as u32);
            wedges.wedge_of.push(wedge);
        }
        wedges
    }

    /// `indices` (into the vertices) as indices into the wedges.
    pub fn surface_indices(&self, indices: &[u32]) -> Vec<u32> {
        indices.iter().map(|&i| self.wedge_of[i as usize]).collect()
    }

    /// One position per wedge, what the simplifier reads.
    pub fn positions(&self) -> &[[f32; 3]] {
        &self.positions
    }

    /// One colour per wedge.
    pub fn colors(&self) -> &[[u8; 4]] {
        &self.colors
    }

    /// The first vertex of `wedge`, whose UV and colour every member shares.
    pub fn representative(&self, wedge: u32) -> u32 {
        self.representatives[wedge as usize]
    }

    /// The vertices of `wedge`.
    pub fn members(&self, wedge: u32) -> &[u32] {
        &self.members[wedge as usize]
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
            tangent: [0.0; 4],
            color: [255; 4],
        };
        let vertices = [v(0.0, 0.0, 0.0), v(0.0, 1.0, 0.0), v(0.0, 0.0, 0.5)];
        let wedges = Wedges::new(&vertices, true);
        assert_eq!(wedges.surface_indices(&[0, 1, 2]), [0, 0, 1]);
        assert_eq!(wedges.members(0), [0, 1]);
        assert_eq!((wedges.members(1), wedges.representative(1)), (&[2][..], 2));
        assert_eq!(wedges.positions().len(), 2);
        // Without a texture, UVs are never drawn and split nothing.
        let untextured = Wedges::new(&vertices, false);
        assert_eq!(untextured.surface_indices(&[0, 1, 2]), [0, 0, 0]);
    }
}

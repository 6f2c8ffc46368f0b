//! Tangents for normal-mapped parts that the file gives none: MikkTSpace, as glTF asks
//! ("client implementations SHOULD calculate tangents using default MikkTSpace
//! algorithms"), per triangle corner, then corners of one vertex with the same tangent
//! merged again.

use std::collections::BTreeMap;

use sylva_mesh::Vertex;

/// A triangle list as MikkTSpace reads it, collecting one tangent per corner.
struct Corners<'a> {
    vertices: &'a [Vertex],
    indices: &'a [u32],
    tangents: Vec<[f32; 4]>,
}

impl Corners<'_> {
    fn vertex(&self, face: usize, corner: usize) -> &Vertex {
        &self.vertices[self.indices[face * 3 + corner] as usize]
    }
}

impl bevy_mikktspace::Geometry for Corners<'_> {
    fn num_faces(&self) -> usize {
        self.indices.len() / 3
    }

    fn num_vertices_of_face(&self, _face: usize) -> usize {
        3
    }

    fn position(&self, face: usize, corner: usize) -> [f32; 3] {
        self.vertex(face, corner).position
    }

    fn normal(&self, face: usize, corner: usize) -> [f32; 3] {
        self.vertex(face, corner).normal
    }

    fn tex_coord(&self, face: usize, corner: usize) -> [f32; 2] {
        // MikkTSpace takes v to run up the image, glTF runs it down: flipped, the
        // bitangent's sign comes out as glTF's `w` (normal maps' +Y is up).
        let [u, v] = self.vertex(face, corner).uv;
        [u, 1.0 - v]
    }

    fn set_tangent_encoded(&mut self, tangent: [f32; 4], face: usize, corner: usize) {
        self.tangents[face * 3 + corner] = tangent;
    }
}

/// `vertices` and `indices` with MikkTSpace tangents: a vertex whose corners were given
/// different tangents (a UV seam the positions do not show) is split, one copy per
/// tangent. Degenerate triangles get MikkTSpace's fallback tangent.
pub(crate) fn with_tangents(vertices: &[Vertex], indices: &[u32]) -> (Vec<Vertex>, Vec<u32>) {
    let mut corners = Corners {
        vertices,
        indices,
        tangents: vec![[1.0, 0.0, 0.0, 1.0]; indices.len()],
    };
    bevy_mikktspace::generate_tangents(&mut corners);
    let mut out = Vec::with_capacity(vertices.len());
    let mut merged: BTreeMap<(u32, [u32; 4]), u32> = BTreeMap::new();
    let indices = indices
        .iter()
        .zip(&corners.tangents)
        .map(|(&index, tangent)| {
            *merged
                .entry((index, tangent.map(f32::to_bits)))
                .or_insert_with(|| {
                    out.push(Vertex {
                        tangent: *tangent,
                        ..vertices[index as usize]
                    });
                    (out.len() - 1) as u32
                })
        })
        .collect();
    (out, indices)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A unit quad in the XY plane facing +Z, its image upright: u along +X, v (glTF,
    /// down the image) along −Y.
    fn quad() -> (Vec<Vertex>, Vec<u32>) {
        let corner = |x: f32, y: f32| Vertex {
            position: [x, y, 0.0],
            normal: [0.0, 0.0, 1.0],
            uv: [x, 1.0 - y],
            ..Vertex::default()
        };
        let vertices = vec![
            corner(0.0, 0.0),
            corner(1.0, 0.0),
            corner(1.0, 1.0),
            corner(0.0, 1.0),
        ];
        (vertices, vec![0, 1, 2, 0, 2, 3])
    }

    #[test]
    fn an_upright_quad_gets_tangent_along_u_and_bitangent_up_the_image() {
        let (vertices, indices) = quad();
        let (out, out_indices) = with_tangents(&vertices, &indices);
        assert_eq!(out.len(), 4, "one tangent per vertex: nothing to split");
        assert_eq!(out_indices, indices);
        for v in &out {
            let [x, y, z, w] = v.tangent;
            assert!(
                (x - 1.0).abs() < 1e-5 && y.abs() < 1e-5 && z.abs() < 1e-5,
                "{v:?}"
            );
            // glTF: bitangent = cross(normal, tangent) × w = +Y, the image's up.
            assert_eq!(w, 1.0);
        }
    }

    #[test]
    fn mirrored_uvs_flip_the_bitangent_sign() {
        let (mut vertices, indices) = quad();
        for v in &mut vertices {
            v.uv[0] = 1.0 - v.uv[0];
        }
        let (out, _) = with_tangents(&vertices, &indices);
        for v in &out {
            assert!((v.tangent[0] + 1.0).abs() < 1e-5, "{v:?}");
            assert_eq!(v.tangent[3], -1.0);
        }
    }

    #[test]
    fn the_same_input_gives_the_same_bits() {
        let (vertices, indices) = quad();
        let a = with_tangents(&vertices, &indices);
        let b = with_tangents(&vertices, &indices);
        assert_eq!(a, b);
    }
}

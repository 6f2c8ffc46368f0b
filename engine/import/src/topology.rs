//! Triangle topology: strips and fans to lists, and normals for files without them.

use glam::Vec3;
use gltf::json::mesh::Mode;

/// `indices` of a triangle list, strip or fan as a triangle list. Strip and fan
/// triangles that repeat a vertex (restart tricks) are dropped. `None` for modes that
/// are not triangles, `Err` for a list whose length is not a multiple of three.
pub(crate) fn triangle_list(mode: Mode, indices: Vec<u32>) -> Option<Result<Vec<u32>, String>> {
    let n = indices.len();
    let corners: Vec<[u32; 3]> = match mode {
        Mode::Triangles if !n.is_multiple_of(3) => {
            return Some(Err(format!("{n} indices do not form whole triangles")))
        }
        Mode::Triangles => return Some(Ok(indices)),
        Mode::TriangleStrip => (0..n.saturating_sub(2))
            .map(|i| {
                let (a, b, c) = (indices[i], indices[i + 1], indices[i + 2]);
                if i % 2 == 0 {
                    [a, b, c]
                } else {
                    [a, c, b]
                }
            })
            .collect(),
        Mode::TriangleFan => (1..n.saturating_sub(1))
            .map(|i| [indices[i], indices[i + 1], indices[0]])
            .collect(),
        Mode::Points | Mode::Lines | Mode::LineLoop | Mode::LineStrip => return None,
    };
    Some(Ok(corners
        .into_iter()
        .filter(|[a, b, c]| a != b && b != c && a != c)
        .flatten()
        .collect()))
}

/// Area-weighted vertex normals of an indexed triangle list; a vertex in no triangle
/// of non-zero area gets +Y.
pub(crate) fn vertex_normals(positions: &[Vec3], indices: &[u32]) -> Vec<Vec3> {
    let mut sums = vec![Vec3::ZERO; positions.len()];
    for t in indices.chunks_exact(3) {
        let [a, b, c] = [t[0], t[1], t[2]].map(|i| i as usize);
        let face = (positions[b] - positions[a]).cross(positions[c] - positions[a]);
        for v in [a, b, c] {
            sums[v] += face;
        }
    }
    sums.into_iter()
        .map(|n| n.try_normalize().unwrap_or(Vec3::Y))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strips_alternate_winding_and_drop_degenerates() {
        let list = triangle_list(Mode::TriangleStrip, vec![0, 1, 2, 3, 3, 4])
            .unwrap()
            .unwrap();
        assert_eq!(list, [0, 1, 2, 1, 3, 2]);
    }

    #[test]
    fn fans_share_the_first_vertex() {
        let list = triangle_list(Mode::TriangleFan, vec![0, 1, 2, 3])
            .unwrap()
            .unwrap();
        assert_eq!(list, [1, 2, 0, 2, 3, 0]);
    }

    #[test]
    fn lines_and_points_are_not_triangles() {
        assert!(triangle_list(Mode::Lines, vec![0, 1]).is_none());
        assert!(triangle_list(Mode::Points, vec![0]).is_none());
        assert!(triangle_list(Mode::Triangles, vec![0, 1]).unwrap().is_err());
    }

    #[test]
    fn normals_follow_the_winding() {
        let p = [Vec3::ZERO, Vec3::X, Vec3::Z];
        let n = vertex_normals(&p, &[0, 2, 1]);
        assert_eq!(n, vec![Vec3::Y; 3]);
    }
}

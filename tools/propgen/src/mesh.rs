//! Building one primitive's mesh: shared points, triangles with per-corner UVs and a
//! smoothing group, then welding into glTF vertices with area-weighted normals.
//!
//! A point used by triangles of one smoothing group gets one smooth normal; where
//! groups meet (a cut log end against its bark) the point splits into two vertices
//! with different normals: a hard edge at the same position, so the surface stays
//! closed for the baker's border detection.

use std::collections::BTreeMap;

use crate::math::V3;

/// Linear RGB in `[0, 1]`, multiplied with the material's base colour.
pub type Rgb = [f32; 3];

pub const WHITE: Rgb = [1.0, 1.0, 1.0];

/// Texture coordinates of one triangle corner.
pub type Uv = [f32; 2];

#[derive(Clone, Copy, Debug)]
struct Tri {
    points: [u32; 3],
    uvs: [Uv; 3],
    group: u32,
}

/// A surface under construction.
#[derive(Clone, Debug, Default)]
pub struct Builder {
    points: Vec<V3>,
    colors: Vec<Rgb>,
    tris: Vec<Tri>,
}

impl Builder {
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a point and returns its index.
    pub fn point(&mut self, position: V3, color: Rgb) -> u32 {
        self.points.push(position);
        self.colors.push(color);
        (self.points.len() - 1) as u32
    }

    pub fn position(&self, point: u32) -> V3 {
        self.points[point as usize]
    }

    /// Adds a triangle, counter-clockwise seen from its front.
    pub fn tri(&mut self, points: [u32; 3], uvs: [Uv; 3], group: u32) {
        self.tris.push(Tri { points, uvs, group });
    }

    /// Adds the quad `a b c d` (counter-clockwise seen from its front) as two triangles.
    pub fn quad(&mut self, points: [u32; 4], uvs: [Uv; 4], group: u32) {
        let [a, b, c, d] = points;
        let [ua, ub, uc, ud] = uvs;
        self.tri([a, b, c], [ua, ub, uc], group);
        self.tri([a, c, d], [ua, uc, ud], group);
    }

    /// Moves and recolours every point; shared points keep the surface closed.
    pub fn map_points(&mut self, mut f: impl FnMut(V3, &mut Rgb) -> V3) {
        for (p, c) in self.points.iter_mut().zip(&mut self.colors) {
            *p = f(*p, c);
        }
    }

    /// Reassigns each triangle's smoothing group from its corner positions and its
    /// current group.
    pub fn regroup(&mut self, f: impl Fn([V3; 3], u32) -> u32) {
        for t in &mut self.tris {
            t.group = f(t.points.map(|p| self.points[p as usize]), t.group);
        }
    }

    /// Appends `other`'s points and triangles; its smoothing groups are offset by
    /// `group_offset` so they can stay apart from this builder's.
    pub fn append(&mut self, other: &Builder, group_offset: u32) {
        let base = self.points.len() as u32;
        self.points.extend_from_slice(&other.points);
        self.colors.extend_from_slice(&other.colors);
        self.tris.extend(other.tris.iter().map(|t| Tri {
            points: t.points.map(|p| p + base),
            uvs: t.uvs,
            group: t.group + group_offset,
        }));
    }

    /// Welds corners into vertices and computes area-weighted normals per point and
    /// smoothing group.
    pub fn build(&self) -> Mesh {
        let mut normal_sums: BTreeMap<(u32, u32), V3> = BTreeMap::new();
        for t in &self.tris {
            let [a, b, c] = t.points.map(|p| self.points[p as usize]);
            // The cross product's length is twice the area: area weighting for free.
            let n = (b - a).cross(c - a);
            for p in t.points {
                *normal_sums.entry((p, t.group)).or_default() += n;
            }
        }

        let mut mesh = Mesh::default();
        let mut vertex_of: BTreeMap<(u32, u32, u32, u32), u32> = BTreeMap::new();
        for t in &self.tris {
            for (p, uv) in t.points.into_iter().zip(t.uvs) {
                let key = (p, t.group, uv[0].to_bits(), uv[1].to_bits());
                let index = *vertex_of.entry(key).or_insert_with(|| {
                    let normal = normal_sums[&(p, t.group)].normalize_or(V3::Y);
                    mesh.push_vertex(self.points[p as usize], normal, uv, self.colors[p as usize])
                });
                mesh.indices.push(index);
            }
        }
        mesh
    }
}

/// One primitive's vertex and index data, ready for the GLB writer.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Mesh {
    pub positions: Vec<[f32; 3]>,
    pub normals: Vec<[f32; 3]>,
    pub uvs: Vec<Uv>,
    /// Vertex colours as normalised bytes, alpha 255.
    pub colors: Vec<[u8; 4]>,
    pub indices: Vec<u32>,
}

impl Mesh {
    fn push_vertex(&mut self, p: V3, n: V3, uv: Uv, color: Rgb) -> u32 {
        self.positions.push(p.to_array());
        self.normals.push(n.to_array());
        self.uvs.push(uv);
        let byte = |c: f32| (c.clamp(0.0, 1.0) * 255.0 + 0.5) as u8;
        self.colors
            .push([byte(color[0]), byte(color[1]), byte(color[2]), 255]);
        (self.positions.len() - 1) as u32
    }

    pub fn vertex_count(&self) -> usize {
        self.positions.len()
    }

    pub fn triangle_count(&self) -> usize {
        self.indices.len() / 3
    }

    /// Whether any vertex colour differs from white (else COLOR_0 is left out).
    pub fn has_colors(&self) -> bool {
        self.colors.iter().any(|c| *c != [255; 4])
    }

    /// Component-wise minimum and maximum position.
    pub fn bounds(&self) -> ([f32; 3], [f32; 3]) {
        let mut lo = [f32::INFINITY; 3];
        let mut hi = [f32::NEG_INFINITY; 3];
        for p in &self.positions {
            for k in 0..3 {
                lo[k] = lo[k].min(p[k]);
                hi[k] = hi[k].max(p[k]);
            }
        }
        (lo, hi)
    }

    /// Tilts every normal toward `direction` by `amount` (0 keeps it, 1 replaces it):
    /// the usual trick that makes thin foliage cards shade like the volume they fake.
    pub fn bend_normals(&mut self, direction: V3, amount: f32) {
        for n in &mut self.normals {
            let v = V3 {
                x: n[0],
                y: n[1],
                z: n[2],
            };
            *n = v.lerp(direction, amount).normalize_or(direction).to_array();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::v3;

    /// A unit square in the XZ plane facing +Y and a flap folded down along its +X edge.
    fn folded(flap_group: u32) -> Builder {
        let mut b = Builder::new();
        let p = [
            b.point(v3(0.0, 0.0, 0.0), WHITE),
            b.point(v3(0.0, 0.0, 1.0), WHITE),
            b.point(v3(1.0, 0.0, 1.0), WHITE),
            b.point(v3(1.0, 0.0, 0.0), WHITE),
            b.point(v3(1.0, -1.0, 1.0), WHITE),
            b.point(v3(1.0, -1.0, 0.0), WHITE),
        ];
        let uv = [[0.0, 0.0], [0.0, 1.0], [1.0, 1.0], [1.0, 0.0]];
        b.quad([p[0], p[1], p[2], p[3]], uv, 0);
        b.quad([p[3], p[2], p[4], p[5]], uv, flap_group);
        b
    }

    #[test]
    fn one_smoothing_group_shares_vertices_and_averages_normals() {
        let mesh = folded(0).build();
        let shared: Vec<usize> = (0..mesh.vertex_count())
            .filter(|&i| mesh.positions[i] == [1.0, 0.0, 0.0])
            .collect();
        // Two UVs meet at the fold, so two vertices, but both with the same normal: the
        // area-weighted mean of one flat triangle (area ½) and two flap ones (½ each).
        assert_eq!(shared.len(), 2);
        for i in shared {
            let [x, y, z] = mesh.normals[i];
            assert!((x - 0.8944).abs() < 1e-3 && (y - 0.4472).abs() < 1e-3 && z == 0.0);
        }
    }

    #[test]
    fn different_smoothing_groups_make_a_hard_edge() {
        let mesh = folded(1).build();
        let normals: Vec<[f32; 3]> = (0..mesh.vertex_count())
            .filter(|&i| mesh.positions[i] == [1.0, 0.0, 0.0])
            .map(|i| mesh.normals[i])
            .collect();
        assert_eq!(normals, [[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]]);
    }

    #[test]
    fn identical_corners_weld_into_one_vertex() {
        let mesh = folded(0).build();
        assert_eq!(mesh.triangle_count(), 4);
        assert_eq!(mesh.vertex_count(), 8);
        assert!(!mesh.has_colors());
    }

    #[test]
    fn append_offsets_points_and_groups() {
        let mut b = folded(0);
        b.append(&folded(0), 5);
        let mesh = b.build();
        assert_eq!(mesh.triangle_count(), 8);
        assert_eq!(mesh.vertex_count(), 16);
        assert_eq!(mesh.bounds(), ([0.0, -1.0, 0.0], [1.0, 0.0, 1.0]));
    }

    #[test]
    fn colours_quantise_to_rounded_bytes() {
        let mut b = Builder::new();
        let p = [
            b.point(v3(0.0, 0.0, 0.0), [0.5, 0.0, 2.0]),
            b.point(v3(0.0, 0.0, 1.0), WHITE),
            b.point(v3(1.0, 0.0, 0.0), WHITE),
        ];
        b.tri(p, [[0.0; 2]; 3], 0);
        let mesh = b.build();
        assert_eq!(mesh.colors[0], [128, 0, 255, 255]);
        assert!(mesh.has_colors());
    }

    #[test]
    fn bent_normals_stay_unit_length() {
        let mut mesh = folded(1).build();
        mesh.bend_normals(V3::Y, 0.5);
        for [x, y, z] in mesh.normals {
            assert!(((x * x + y * y + z * z).sqrt() - 1.0).abs() < 1e-6);
            assert!(y > 0.0);
        }
    }
}

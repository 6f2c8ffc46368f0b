//! The CPU rasteriser that draws one view into one cell.
//!
//! Vertices are projected with IEEE `+ − ×` onto the cell's picture plane and snapped
//! to fixed point ([`SUBPIXEL_BITS`] fractional bits); coverage is then decided by
//! integer edge functions with a top-left fill rule (so a pixel on an edge shared by two
//! triangles is drawn once, never zero times), and barycentric weights are the integer
//! edge values over the integer area. Triangles are drawn in index order with a strict
//! depth test (the first of two equal depths stays), so the result depends on nothing
//! but the input.

use sylva_mesh::Sphere;

use crate::octahedral::{cross, dot, normalized, ViewBasis};
use crate::sample::bilinear;
use crate::source::{LinearTexture, PreparedPart};

/// Fractional bits of the fixed-point sub-pixel coordinates (1/256 of a sample).
pub const SUBPIXEL_BITS: u32 = 8;
const ONE: i64 = 1 << SUBPIXEL_BITS;
const HALF: i64 = ONE / 2;

/// What one sample of a cell holds after drawing.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Sample {
    /// Distance towards the camera from the picture plane through the centre, in units
    /// of the bounding radius (`−1` the sphere's back, `+1` its front).
    pub depth: f32,
    /// Linear RGB albedo: base colour factor × vertex colour × texture.
    pub colour: [f32; 3],
    /// Unit normal of the surface facing the camera, in the view's frame
    /// ([`ViewBasis::to_view`]).
    pub normal: [f32; 3],
    pub covered: bool,
    /// The depth of the nearest surface the renderer's shadow pass would draw from this
    /// direction, as `depth`: rend3's convention, which the meshes' shadows follow, is
    /// back faces of opaque parts and either face of alpha-tested ones (`−∞` where
    /// there is none).
    pub shadow_depth: f32,
}

const EMPTY: Sample = Sample {
    depth: f32::NEG_INFINITY,
    colour: [0.0; 3],
    normal: [0.0; 3],
    covered: false,
    shadow_depth: f32::NEG_INFINITY,
};

/// One cell's samples, `side × side`, rows top to bottom.
pub(crate) struct Target {
    pub side: u32,
    pub samples: Vec<Sample>,
}

/// A view's projection: prop space → sample coordinates of its cell.
pub(crate) struct Projection {
    pub basis: ViewBasis,
    centre: [f32; 3],
    /// Samples per metre.
    scale: f32,
    half_side: f32,
    inverse_radius: f32,
}

impl Projection {
    /// The bounding sphere fills the cell: its diameter is the cell's `side` samples.
    pub fn new(basis: ViewBasis, sphere: Sphere, side: u32) -> Self {
        let half_side = side as f32 * 0.5;
        Projection {
            basis,
            centre: sphere.center,
            scale: half_side / sphere.radius,
            half_side,
            inverse_radius: 1.0 / sphere.radius,
        }
    }

    fn project(&self, position: [f32; 3]) -> Projected {
        let q = [0, 1, 2].map(|i| position[i] - self.centre[i]);
        let x = dot(q, self.basis.right) * self.scale + self.half_side;
        let y = self.half_side - dot(q, self.basis.up) * self.scale;
        let fixed = |v: f32| (v * ONE as f32).round() as i64;
        Projected {
            x: fixed(x),
            y: fixed(y),
            depth: dot(q, self.basis.toward_camera) * self.inverse_radius,
        }
    }
}

#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Projected {
    x: i64,
    y: i64,
    depth: f32,
}

impl Target {
    pub fn new(side: u32) -> Self {
        Target {
            side,
            samples: vec![EMPTY; side as usize * side as usize],
        }
    }

    pub fn clear(&mut self) {
        self.samples.fill(EMPTY);
    }

    /// Draws every triangle of `part` seen through `projection`; `projected` is scratch.
    pub fn draw(
        &mut self,
        projection: &Projection,
        part: &PreparedPart,
        textures: &[LinearTexture],
        projected: &mut Vec<Projected>,
    ) {
        projected.clear();
        projected.extend(part.vertices.iter().map(|v| projection.project(v.position)));
        for triangle in part.indices.chunks_exact(3) {
            let corners = [triangle[0], triangle[1], triangle[2]].map(|i| i as usize);
            self.draw_triangle(projection, part, textures, projected, corners);
        }
    }

    fn draw_triangle(
        &mut self,
        projection: &Projection,
        part: &PreparedPart,
        textures: &[LinearTexture],
        projected: &[Projected],
        mut corners: [usize; 3],
    ) {
        let [a, b, c] = corners.map(|i| projected[i]);
        let area = edge(a, b, c.x, c.y);
        // Front faces wind clockwise on a y-up screen in sylva's left-handed frame (the
        // renderer's `FrontFace::Cw`); rows run down here, which makes them positive.
        let back = area < 0;
        let drawn = !back || part.double_sided;
        let masked = part.cutoff > 0.0;
        let casts = back || masked;
        if area == 0 || !(drawn || casts) {
            return;
        }
        if back {
            corners.swap(1, 2);
        }
        let [a, b, c] = corners.map(|i| projected[i]);
        let area = area.abs();
        let side = i64::from(self.side);
        let (x0, x1) = (
            first_centre_from(a.x.min(b.x).min(c.x), side),
            last_centre_to(a.x.max(b.x).max(c.x), side),
        );
        let (y0, y1) = (
            first_centre_from(a.y.min(b.y).min(c.y), side),
            last_centre_to(a.y.max(b.y).max(c.y), side),
        );
        if x0 > x1 || y0 > y1 {
            return;
        }
        let edges = [(b, c), (c, a), (a, b)];
        // A sample exactly on an edge belongs to the triangle only on its top-left
        // edges: one of any two triangles sharing the edge.
        let bias = edges.map(|(p, q)| if top_left(p, q) { 0 } else { -1 });
        let area_f = area as f32;
        let vertices = [corners[0], corners[1], corners[2]].map(|i| &part.vertices[i]);
        let depths = [a.depth, b.depth, c.depth];
        for sy in y0..=y1 {
            let py = sy * ONE + HALF;
            let row = (sy * i64::from(self.side)) as usize;
            for sx in x0..=x1 {
                let px = sx * ONE + HALF;
                let e = edges.map(|(p, q)| edge(p, q, px, py));
                if (0..3).any(|i| e[i] + bias[i] < 0) {
                    continue;
                }
                let w = e.map(|v| v as f32 / area_f);
                let depth = w[0] * depths[0] + w[1] * depths[1] + w[2] * depths[2];
                let sample = &mut self.samples[row + sx as usize];
                let nearer = drawn && depth > sample.depth;
                let casts_nearer = casts && depth > sample.shadow_depth;
                if !(nearer || casts_nearer) {
                    continue;
                }
                // An opaque back face casts whatever its material; a masked face only
                // where its alpha passes, as it is seen.
                let fragment = (nearer || masked)
                    .then(|| shade(part, textures, vertices, w))
                    .flatten();
                if casts_nearer && (!masked || fragment.is_some()) {
                    sample.shadow_depth = depth;
                }
                let (true, Some((colour, normal))) = (nearer, fragment) else {
                    continue;
                };
                let normal = match (back, normal) {
                    (_, [0.0, 0.0, 0.0]) => projection.basis.toward_camera,
                    (true, n) => n.map(|c| -c),
                    (false, n) => n,
                };
                sample.depth = depth;
                sample.colour = colour;
                sample.normal = projection.basis.to_view(normal);
                sample.covered = true;
            }
        }
    }
}

/// The first sample of a cell `side` samples wide whose centre (`i + ½`) is at or after
/// fixed-point coordinate `min` (`side` when none is).
fn first_centre_from(min: i64, side: i64) -> i64 {
    (min - HALF + ONE - 1).div_euclid(ONE).clamp(0, side)
}

/// The last sample whose centre is at or before `max` (`-1` when none is).
fn last_centre_to(max: i64, side: i64) -> i64 {
    (max - HALF).div_euclid(ONE).clamp(-1, side - 1)
}

/// `(q − p) × (s − p)`: positive when `s` lies on the inner side of edge `p → q` of a
/// positive triangle.
fn edge(p: Projected, q: Projected, sx: i64, sy: i64) -> i64 {
    (q.x - p.x) * (sy - p.y) - (q.y - p.y) * (sx - p.x)
}

/// Exactly one direction of every edge is inclusive, so a shared edge is drawn once.
fn top_left(p: Projected, q: Projected) -> bool {
    let (dx, dy) = (q.x - p.x, q.y - p.y);
    dy > 0 || (dy == 0 && dx < 0)
}

/// The fragment at barycentric weights `w`: linear albedo and unit normal, or `None`
/// when the alpha test discards it (the renderer's `albedo.a < cutoff`).
fn shade(
    part: &PreparedPart,
    textures: &[LinearTexture],
    [a, b, c]: [&sylva_mesh::Vertex; 3],
    w: [f32; 3],
) -> Option<([f32; 3], [f32; 3])> {
    let blend = |x: f32, y: f32, z: f32| w[0] * x + w[1] * y + w[2] * z;
    let uv = [0, 1].map(|i| blend(a.uv[i], b.uv[i], c.uv[i]));
    let texel = match part.texture {
        Some((t, binding)) => bilinear(&textures[t], binding, uv),
        None => [1.0; 4],
    };
    let albedo: [f32; 4] = std::array::from_fn(|i| {
        let vertex = blend(
            f32::from(a.color[i]),
            f32::from(b.color[i]),
            f32::from(c.color[i]),
        ) / 255.0;
        part.factor[i] * vertex * texel[i]
    });
    if albedo[3] < part.cutoff {
        return None;
    }
    let normal = normalized(std::array::from_fn(|i| {
        blend(a.normal[i], b.normal[i], c.normal[i])
    }));
    let normal = match part.normal_map {
        Some((t, binding, scale)) => {
            let tangent = std::array::from_fn(|i| blend(a.tangent[i], b.tangent[i], c.tangent[i]));
            mapped_normal(normal, tangent, bilinear(&textures[t], binding, uv), scale)
        }
        None => normal,
    };
    Some(([albedo[0], albedo[1], albedo[2]], normal))
}

/// Unit normal `n` bent by normal-map texel `texel` through the tangent frame of
/// `tangent` (xyz, handedness in w), as the renderer does (glTF: bitangent =
/// cross(normal, tangent) × w; Z rebuilt from X and Y, which BC5 stores); `n` itself
/// where the vertex has no tangent.
fn mapped_normal(n: [f32; 3], tangent: [f32; 4], texel: [f32; 4], scale: f32) -> [f32; 3] {
    let along = dot(n, [tangent[0], tangent[1], tangent[2]]);
    let t = normalized(std::array::from_fn(|i| tangent[i] - n[i] * along));
    if t == [0.0; 3] || n == [0.0; 3] {
        return n;
    }
    let handedness = if tangent[3] < 0.0 { -1.0 } else { 1.0 };
    let b = cross(n, t).map(|c| c * handedness);
    let (x, y) = (texel[0] * 2.0 - 1.0, texel[1] * 2.0 - 1.0);
    let z = (1.0 - x * x - y * y).max(0.0).sqrt();
    let (x, y) = (x * scale, y * scale);
    normalized(std::array::from_fn(|i| t[i] * x + b[i] * y + n[i] * z))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point(x: i64, y: i64) -> Projected {
        Projected { x, y, depth: 0.0 }
    }

    #[test]
    fn exactly_one_direction_of_an_edge_is_inclusive() {
        for (dx, dy) in [(1, 0), (0, 1), (3, -2), (-5, 7), (0, -4)] {
            let (p, q) = (point(10, 10), point(10 + dx, 10 + dy));
            assert_ne!(top_left(p, q), top_left(q, p), "({dx}, {dy})");
        }
    }

    #[test]
    fn samples_are_taken_at_their_centres_and_kept_in_the_cell() {
        // A box from 0.5 to 2.5 samples holds the centres 0.5, 1.5 and 2.5 …
        assert_eq!(first_centre_from(HALF, 3), 0);
        assert_eq!(last_centre_to(2 * ONE + HALF, 3), 2);
        // … a box just inside them only 1.5.
        assert_eq!(first_centre_from(HALF + 1, 3), 1);
        assert_eq!(last_centre_to(2 * ONE + HALF - 1, 3), 1);
        // Outside the cell: an empty range.
        assert!(first_centre_from(10 * ONE, 3) > last_centre_to(12 * ONE, 3));
        assert!(first_centre_from(-5 * ONE, 3) > last_centre_to(-ONE, 3));
    }
}

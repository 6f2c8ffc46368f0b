//! Closed surfaces from rings of points: lofts, fans, tubes along a curve and
//! ellipsoids. Every shell built here is watertight (each edge is shared by exactly
//! two triangles), so the baker's LockBorder simplification can reduce it freely.
//!
//! Rings are closed loops in `around_y` order for a loft that rises along +Y (from +X
//! toward +Z: clockwise seen from above); faces then point outward.

use crate::math::{cos_sin, V3};
use crate::mesh::{Builder, Rgb, Uv};

/// Which end of a loft a fan closes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum End {
    Start,
    Finish,
}

/// Joins consecutive rings (equal point counts) with quads. `v[i]` is ring `i`'s
/// texture row; `u` runs from 0 to `u_repeat` around each ring.
pub fn loft(b: &mut Builder, rings: &[Vec<u32>], v: &[f32], u_repeat: f32, group: u32) {
    for i in 0..rings.len().saturating_sub(1) {
        let (lower, upper) = (&rings[i], &rings[i + 1]);
        let n = lower.len();
        debug_assert_eq!(n, upper.len());
        for j in 0..n {
            let k = (j + 1) % n;
            let (u0, u1) = (u_at(j, n, u_repeat), u_at(j + 1, n, u_repeat));
            b.quad(
                [lower[j], upper[j], upper[k], lower[k]],
                [[u0, v[i]], [u0, v[i + 1]], [u1, v[i + 1]], [u1, v[i]]],
                group,
            );
        }
    }
}

fn u_at(j: usize, n: usize, u_repeat: f32) -> f32 {
    j as f32 / n as f32 * u_repeat
}

/// Closes a ring with a fan to `apex`, smoothly continuing the loft's texture.
#[allow(clippy::too_many_arguments)]
pub fn close_apex(
    b: &mut Builder,
    ring: &[u32],
    apex: u32,
    v_ring: f32,
    v_apex: f32,
    u_repeat: f32,
    end: End,
    group: u32,
) {
    let n = ring.len();
    for j in 0..n {
        let (u0, u1) = (u_at(j, n, u_repeat), u_at(j + 1, n, u_repeat));
        let um = (u0 + u1) * 0.5;
        let (a, c) = (ring[j], ring[(j + 1) % n]);
        match end {
            End::Start => b.tri(
                [apex, a, c],
                [[um, v_apex], [u0, v_ring], [u1, v_ring]],
                group,
            ),
            End::Finish => b.tri(
                [a, apex, c],
                [[u0, v_ring], [um, v_apex], [u1, v_ring]],
                group,
            ),
        }
    }
}

/// Closes a ring with a fan to `centre`, textured by `uv_of` each position (a planar
/// projection, typically); give it its own `group` for a hard rim.
pub fn close_flat(
    b: &mut Builder,
    ring: &[u32],
    centre: u32,
    end: End,
    group: u32,
    uv_of: impl Fn(V3) -> Uv,
) {
    let n = ring.len();
    let uc = uv_of(b.position(centre));
    for j in 0..n {
        let (a, c) = (ring[j], ring[(j + 1) % n]);
        let (ua, ucc) = (uv_of(b.position(a)), uv_of(b.position(c)));
        match end {
            End::Start => b.tri([centre, a, c], [uc, ua, ucc], group),
            End::Finish => b.tri([a, centre, c], [ua, uc, ucc], group),
        }
    }
}

/// A point of a parametric surface before the caller displaces and colours it.
#[derive(Clone, Copy, Debug)]
pub struct SurfacePoint {
    pub position: V3,
    /// Unit direction away from the axis (tube) or centre (ellipsoid).
    pub outward: V3,
    /// Distance of `position` from the axis (tube; 0 at cap points) or the mean radius
    /// (ellipsoid).
    pub radius: f32,
    /// Angle around the axis in turns, `[0, 1)`.
    pub turns: f32,
    /// Position along the axis, `0` at the start to `1` at the end.
    pub along: f32,
}

/// An orthonormal frame on a curve: `binormal = normal × tangent`.
#[derive(Clone, Copy, Debug)]
pub struct Frame {
    pub origin: V3,
    pub tangent: V3,
    pub normal: V3,
    pub binormal: V3,
}

impl Frame {
    /// The unit direction at `turns` around the tangent.
    pub fn direction(&self, turns: f32) -> V3 {
        let (c, s) = cos_sin(turns);
        self.normal * c + self.binormal * s
    }
}

/// Rotation-minimising frames along a polyline (parallel transport).
pub fn frames(path: &[V3]) -> Vec<Frame> {
    let last = path.len() - 1;
    let mut out: Vec<Frame> = Vec::with_capacity(path.len());
    for (i, &origin) in path.iter().enumerate() {
        let tangent = (path[(i + 1).min(last)] - path[i.saturating_sub(1)]).normalize_or(V3::Y);
        let seed = match out.last() {
            Some(previous) => previous.normal,
            None if tangent.y.abs() < 0.9 => V3::Y,
            None => V3::X,
        };
        let normal = (seed - tangent * seed.dot(tangent)).normalize_or(V3::X);
        out.push(Frame {
            origin,
            tangent,
            normal,
            binormal: normal.cross(tangent),
        });
    }
    out
}

/// How a tube's end is closed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Cap {
    /// Left open (another primitive closes it).
    Open,
    /// A smooth fan to this point: a tapered tip, or a base buried in a trunk.
    Point(V3),
    /// A flat fan with a hard rim (its own smoothing group).
    Flat,
}

/// A generalised cylinder along `path` with one radius per path point.
#[derive(Clone, Debug)]
pub struct Tube<'a> {
    pub path: &'a [V3],
    pub radii: &'a [f32],
    pub segments: usize,
    pub start: Cap,
    pub finish: Cap,
    /// Texture repeats around the tube.
    pub u_repeat: f32,
    /// Texture rows per metre along the tube.
    pub v_per_metre: f32,
    /// The side's smoothing group; flat caps use the next two.
    pub group: u32,
}

/// Builds `tube` into `b`; `surface` displaces and colours each side point. Returns
/// the side rings so callers can attach more geometry (such as a separate cap).
pub fn tube(
    b: &mut Builder,
    tube: &Tube,
    mut surface: impl FnMut(SurfacePoint) -> (V3, Rgb),
) -> Vec<Vec<u32>> {
    let frames = frames(tube.path);
    let mut lengths = vec![0.0f32];
    for w in tube.path.windows(2) {
        lengths.push(lengths[lengths.len() - 1] + (w[1] - w[0]).length());
    }
    let total = lengths[lengths.len() - 1];
    let v: Vec<f32> = lengths.iter().map(|l| l * tube.v_per_metre).collect();

    let mut rings = Vec::with_capacity(frames.len());
    for (f, (&r, &l)) in frames.iter().zip(tube.radii.iter().zip(&lengths)) {
        let ring = (0..tube.segments)
            .map(|j| {
                let turns = j as f32 / tube.segments as f32;
                let outward = f.direction(turns);
                let (p, c) = surface(SurfacePoint {
                    position: f.origin + outward * r,
                    outward,
                    radius: r,
                    turns,
                    along: l / total,
                });
                b.point(p, c)
            })
            .collect::<Vec<u32>>();
        rings.push(ring);
    }
    loft(b, &rings, &v, tube.u_repeat, tube.group);

    let ends = [
        (End::Start, tube.start, 0, -frames[0].tangent),
        (
            End::Finish,
            tube.finish,
            rings.len() - 1,
            frames[frames.len() - 1].tangent,
        ),
    ];
    for (end, cap, i, axis) in ends {
        let ring = &rings[i];
        let centre_along = if end == End::Start { 0.0 } else { 1.0 };
        match cap {
            Cap::Open => {}
            Cap::Point(tip) => {
                let (p, c) = surface(SurfacePoint {
                    position: tip,
                    outward: axis,
                    radius: 0.0,
                    turns: 0.0,
                    along: centre_along,
                });
                let apex = b.point(p, c);
                let v_apex = v[i] + (tip - frames[i].origin).dot(axis) * tube.v_per_metre;
                close_apex(b, ring, apex, v[i], v_apex, tube.u_repeat, end, tube.group);
            }
            Cap::Flat => {
                let mut centre = V3::ZERO;
                for &p in ring {
                    centre += b.position(p);
                }
                let centre = centre * (1.0 / ring.len() as f32);
                let (_, c) = surface(SurfacePoint {
                    position: centre,
                    outward: axis,
                    radius: 0.0,
                    turns: 0.0,
                    along: centre_along,
                });
                let centre_point = b.point(centre, c);
                let f = frames[i];
                let group = tube.group + if end == End::Start { 1 } else { 2 };
                close_flat(b, ring, centre_point, end, group, |p| {
                    let d = p - f.origin;
                    [0.5 + d.dot(f.normal), 0.5 + d.dot(f.binormal)]
                });
            }
        }
    }
    rings
}

/// A closed ellipsoid around `centre` with `rings` latitude bands and `segments`
/// points per ring; `surface` displaces and colours each point (`along` runs from the
/// bottom pole to the top).
pub fn ellipsoid(
    b: &mut Builder,
    centre: V3,
    radii: V3,
    rings: usize,
    segments: usize,
    group: u32,
    mut surface: impl FnMut(SurfacePoint) -> (V3, Rgb),
) {
    let mean_radius = (radii.x + radii.y + radii.z) / 3.0;
    let mut point = |b: &mut Builder, outward: V3, turns: f32, along: f32| {
        let (p, c) = surface(SurfacePoint {
            position: centre + outward.scale(radii),
            outward,
            radius: mean_radius,
            turns,
            along,
        });
        b.point(p, c)
    };
    let bottom = point(b, -V3::Y, 0.0, 0.0);
    let mut ring_points = Vec::with_capacity(rings - 1);
    let mut v = Vec::with_capacity(rings - 1);
    for i in 1..rings {
        let along = i as f32 / rings as f32;
        // Latitude from the bottom pole (-¼ turn) to the top pole (+¼ turn).
        let (cos_lat, sin_lat) = cos_sin((along - 0.5) * 0.5);
        let ring = (0..segments)
            .map(|j| {
                let turns = j as f32 / segments as f32;
                let (c, s) = cos_sin(turns);
                let outward = V3 {
                    x: c * cos_lat,
                    y: sin_lat,
                    z: s * cos_lat,
                };
                point(b, outward, turns, along)
            })
            .collect::<Vec<u32>>();
        ring_points.push(ring);
        v.push(along);
    }
    let top = point(b, V3::Y, 0.0, 1.0);
    loft(b, &ring_points, &v, 1.0, group);
    close_apex(
        b,
        &ring_points[0],
        bottom,
        v[0],
        0.0,
        1.0,
        End::Start,
        group,
    );
    let last = ring_points.len() - 1;
    close_apex(
        b,
        &ring_points[last],
        top,
        v[last],
        1.0,
        1.0,
        End::Finish,
        group,
    );
}

#[cfg(test)]
pub(crate) mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::math::v3;
    use crate::mesh::{Mesh, WHITE};

    /// Counts, per undirected edge between distinct positions, how often each
    /// direction occurs; a closed, consistently wound shell has every edge exactly
    /// once in each direction.
    pub(crate) fn assert_watertight(mesh: &Mesh) {
        let key = |i: u32| mesh.positions[i as usize].map(f32::to_bits);
        let mut edges: BTreeMap<([u32; 3], [u32; 3]), i32> = BTreeMap::new();
        for t in mesh.indices.chunks(3) {
            for (a, b) in [(t[0], t[1]), (t[1], t[2]), (t[2], t[0])] {
                let (ka, kb) = (key(a), key(b));
                assert_ne!(ka, kb, "degenerate edge");
                if ka < kb {
                    *edges.entry((ka, kb)).or_default() += 1;
                } else {
                    *edges.entry((kb, ka)).or_default() -= 1;
                }
            }
        }
        let open = edges.values().filter(|&&n| n != 0).count();
        assert_eq!(open, 0, "{open} open or inconsistently wound edges");
    }

    /// Signed volume by the divergence theorem; positive when faces point outward.
    pub(crate) fn volume(mesh: &Mesh) -> f32 {
        let p = |i: u32| {
            let [x, y, z] = mesh.positions[i as usize];
            v3(x, y, z)
        };
        mesh.indices
            .chunks(3)
            .map(|t| p(t[0]).dot(p(t[1]).cross(p(t[2]))) / 6.0)
            .sum()
    }

    fn keep(p: SurfacePoint) -> (V3, Rgb) {
        (p.position, WHITE)
    }

    #[test]
    fn ellipsoids_are_closed_and_face_outward() {
        let mut b = Builder::new();
        ellipsoid(
            &mut b,
            v3(1.0, 2.0, 3.0),
            v3(1.0, 2.0, 3.0),
            16,
            24,
            0,
            keep,
        );
        let mesh = b.build();
        assert_watertight(&mesh);
        let exact = 4.0 / 3.0 * std::f32::consts::PI * 6.0;
        assert!((volume(&mesh) - exact).abs() < exact * 0.05);
        // Smooth normals point away from the centre.
        for (p, n) in mesh.positions.iter().zip(&mesh.normals) {
            let d = v3(p[0] - 1.0, p[1] - 2.0, p[2] - 3.0);
            assert!(d.dot(v3(n[0], n[1], n[2])) > 0.0);
        }
    }

    #[test]
    fn tubes_with_caps_are_closed_and_face_outward() {
        let path = [v3(0.0, 0.0, 0.0), v3(0.3, 1.0, 0.0), v3(1.0, 1.8, 0.5)];
        for (start, finish) in [
            (Cap::Flat, Cap::Point(v3(1.5, 2.2, 0.8))),
            (Cap::Point(v3(0.0, -0.5, 0.0)), Cap::Flat),
        ] {
            let mut b = Builder::new();
            let t = Tube {
                path: &path,
                radii: &[0.3, 0.25, 0.2],
                segments: 12,
                start,
                finish,
                u_repeat: 2.0,
                v_per_metre: 1.0,
                group: 0,
            };
            let rings = tube(&mut b, &t, keep);
            assert_eq!(rings.len(), 3);
            let mesh = b.build();
            assert_watertight(&mesh);
            assert!(volume(&mesh) > 0.0);
        }
    }

    #[test]
    fn flat_caps_have_hard_rims() {
        let mut b = Builder::new();
        let t = Tube {
            path: &[v3(0.0, 0.0, 0.0), v3(0.0, 1.0, 0.0)],
            radii: &[0.5, 0.5],
            segments: 8,
            start: Cap::Flat,
            finish: Cap::Flat,
            u_repeat: 1.0,
            v_per_metre: 1.0,
            group: 0,
        };
        tube(&mut b, &t, keep);
        let mesh = b.build();
        let bottom_normals: Vec<[f32; 3]> = (0..mesh.vertex_count())
            .filter(|&i| mesh.positions[i][1] == 0.0 && mesh.positions[i][0] == 0.5)
            .map(|i| mesh.normals[i])
            .collect();
        assert!(bottom_normals.iter().any(|n| n[1] < -0.9999));
        assert!(bottom_normals.iter().any(|n| n[0] > 0.99));
    }

    #[test]
    fn parallel_transport_frames_stay_orthonormal() {
        let path: Vec<V3> = (0..20)
            .map(|i| {
                let t = i as f32 / 19.0;
                let (c, s) = cos_sin(t * 0.7);
                v3(c * 2.0, t * 3.0, s * 2.0)
            })
            .collect();
        for f in frames(&path) {
            assert!((f.normal.length() - 1.0).abs() < 1e-5);
            assert!(f.normal.dot(f.tangent).abs() < 1e-5);
            assert!((f.binormal.length() - 1.0).abs() < 1e-5);
        }
    }
}

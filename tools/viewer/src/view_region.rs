//! The ground a view shows, as a fill region: rays through a grid of pixels spanning
//! the whole view (its edges included) are cast at the terrain, and the convex hull of
//! where they land is the polygon a "fill the view" fills. What the camera sees of the
//! terrain is inside it; ground hidden behind a hill inside the hull is filled too,
//! which is what a designer filling "this valley" from a ridge expects. A view of the
//! sky alone shows no ground and gives no region.

use glam::Vec2;
use sylva_terrain::{raycast, Ray, Terrain};

/// Rays across the view's width; rows follow its aspect ratio. 48 columns put a ray at
/// least every 2.2 % of the view, so the hull misses at most a sliver at its edges.
pub const RAYS_ACROSS: usize = 48;

/// The polygon (world `x, z`, counter-clockwise seen from above, `+x` east, `+z`
/// north) of the ground seen through a `size`-pixel view whose rays `ray_through`
/// gives, or `None` when no ray meets the terrain.
pub fn visible_ground(
    terrain: &Terrain,
    size: Vec2,
    ray_through: impl Fn(Vec2) -> Ray,
) -> Option<Vec<(f32, f32)>> {
    let size = size.max(Vec2::ONE);
    let across = RAYS_ACROSS;
    let down = ((across as f32 * size.y / size.x).ceil() as usize).max(2);
    let (lowest, highest) = terrain.height_range();
    // Far enough for a ray from anywhere above the terrain to its farthest corner.
    let reach = terrain.size().length() + (highest - lowest) + 1.0;
    let mut hits = Vec::new();
    for row in 0..=down {
        for column in 0..=across {
            // Pixel centres sit at +0.5, so -0.5 and size - 0.5 are the view's edges.
            let pixel = Vec2::new(
                column as f32 / across as f32 * size.x,
                row as f32 / down as f32 * size.y,
            ) - Vec2::splat(0.5);
            if let Some(hit) = raycast(terrain, &ray_through(pixel), reach).hit {
                hits.push(Vec2::new(hit.point.x, hit.point.z));
            }
        }
    }
    let hull = convex_hull(hits);
    (hull.len() >= 3).then(|| hull.into_iter().map(|p| (p.x, p.y)).collect())
}

/// Andrew's monotone chain: the hull's corners counter-clockwise, collinear points
/// dropped.
fn convex_hull(mut points: Vec<Vec2>) -> Vec<Vec2> {
    points.sort_by(|a, b| a.x.total_cmp(&b.x).then(a.y.total_cmp(&b.y)));
    points.dedup();
    if points.len() < 3 {
        return points;
    }
    let turn = |o: Vec2, a: Vec2, b: Vec2| (a - o).perp_dot(b - o);
    let mut hull: Vec<Vec2> = Vec::with_capacity(points.len() + 1);
    for pass in [
        &points[..],
        &points.iter().rev().copied().collect::<Vec<_>>()[..],
    ] {
        let start = hull.len();
        for &p in pass {
            while hull.len() >= start + 2
                && turn(hull[hull.len() - 2], hull[hull.len() - 1], p) <= 0.0
            {
                hull.pop();
            }
            hull.push(p);
        }
        // The last point of each chain is the first of the other.
        hull.pop();
    }
    hull
}

#[cfg(test)]
mod tests {
    use glam::Vec3;
    use sylva_terrain::default_world;

    use super::*;
    use crate::camera::{pixel_ray, VFOV_DEGREES};

    fn area(polygon: &[(f32, f32)]) -> f32 {
        let n = polygon.len();
        (0..n)
            .map(|i| {
                let (a, b) = (polygon[i], polygon[(i + 1) % n]);
                a.0 * b.1 - b.0 * a.1
            })
            .sum::<f32>()
            / 2.0
    }

    fn flat(size: usize, spacing: f32) -> Terrain {
        Terrain::new(size, size, spacing, vec![10.0; size * size], 0.0).unwrap()
    }

    #[test]
    fn looking_down_on_flat_ground_gives_the_views_footprint() {
        let terrain = flat(257, 2.0);
        let (eye, height) = (Vec3::new(20.0, 110.0, -30.0), 100.0);
        let forward = Vec3::new(0.0, -1.0, 1e-4).normalize();
        let size = Vec2::new(320.0, 180.0);
        let polygon = visible_ground(&terrain, size, |p| {
            pixel_ray(eye, forward, VFOV_DEGREES, p, size)
        })
        .unwrap();
        let half_z = height * (VFOV_DEGREES.to_radians() / 2.0).tan();
        let expected = (2.0 * half_z) * (2.0 * half_z * size.x / size.y);
        let measured = area(&polygon);
        assert!(
            (measured / expected - 1.0).abs() < 0.01,
            "area {measured} m², expected {expected} m²"
        );
        let (min, max) = polygon.iter().fold(
            (Vec2::splat(f32::MAX), Vec2::splat(f32::MIN)),
            |(lo, hi), &(x, z)| (lo.min(Vec2::new(x, z)), hi.max(Vec2::new(x, z))),
        );
        let half = Vec2::new(half_z * size.x / size.y, half_z);
        let centre = Vec2::new(eye.x, eye.z);
        assert!(min.distance(centre - half) < 0.1 && max.distance(centre + half) < 0.1);
    }

    #[test]
    fn every_ground_point_in_view_is_inside_the_region() {
        let terrain = default_world();
        let eye = Vec3::new(-60.0, 90.0, -160.0);
        let forward = Vec3::new(0.3, -0.35, 1.0).normalize();
        let size = Vec2::new(320.0, 180.0);
        let ray = |p| pixel_ray(eye, forward, VFOV_DEGREES, p, size);
        let polygon = visible_ground(&terrain, size, ray).unwrap();
        assert!(area(&polygon) > 0.0, "counter-clockwise");
        // How far (x, z) is outside the polygon; 0 inside.
        let outside = |p: Vec2| {
            let n = polygon.len();
            let corners: Vec<Vec2> = polygon.iter().map(|&(x, z)| Vec2::new(x, z)).collect();
            let inside =
                (0..n).all(|i| (corners[(i + 1) % n] - corners[i]).perp_dot(p - corners[i]) >= 0.0);
            if inside {
                return 0.0;
            }
            (0..n)
                .map(|i| {
                    let (a, b) = (corners[i], corners[(i + 1) % n]);
                    let t = ((p - a).dot(b - a) / (b - a).length_squared()).clamp(0.0, 1.0);
                    p.distance(a + (b - a) * t)
                })
                .fold(f32::MAX, f32::min)
        };
        // Rays through pixels between the sampled ones land inside the hull, or within
        // the sliver between two sampled rays at its edge: under the ground seven
        // pixels span there (a pixel is 0.5 % of the distance at 180 lines).
        let mut checked = 0;
        for y in (0..180).step_by(5) {
            for x in (0..320).step_by(5) {
                let Some(hit) = raycast(&terrain, &ray(Vec2::new(x as f32, y as f32)), 2000.0).hit
                else {
                    continue;
                };
                checked += 1;
                let gap = outside(Vec2::new(hit.point.x, hit.point.z));
                let slack = 7.0 * 0.005 * hit.point.distance(eye);
                assert!(
                    gap <= slack,
                    "pixel ({x}, {y}) sees {} {gap} m outside",
                    hit.point
                );
            }
        }
        assert!(checked > 1000, "{checked} pixels saw ground");
    }

    #[test]
    fn a_view_of_the_sky_shows_no_ground() {
        let terrain = default_world();
        let eye = Vec3::new(0.0, 60.0, 0.0);
        let forward = Vec3::new(0.0, 1.0, 0.3).normalize();
        let size = Vec2::new(320.0, 180.0);
        assert_eq!(
            visible_ground(&terrain, size, |p| pixel_ray(
                eye,
                forward,
                VFOV_DEGREES,
                p,
                size
            )),
            None
        );
    }

    #[test]
    fn the_hull_drops_inner_and_collinear_points() {
        let points = [
            (0.0, 0.0),
            (2.0, 0.0),
            (1.0, 0.0),
            (2.0, 2.0),
            (0.0, 2.0),
            (1.0, 1.0),
        ]
        .map(|(x, y)| Vec2::new(x, y));
        assert_eq!(
            convex_hull(points.to_vec()),
            [(0.0, 0.0), (2.0, 0.0), (2.0, 2.0), (0.0, 2.0)].map(|(x, y)| Vec2::new(x, y))
        );
    }
}

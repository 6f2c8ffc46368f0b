//! Brute-force ray cast over every triangle of the terrain mesh: what the prototype did
//! before the analytic cast. Kept only as the reference for tests and benchmarks.

use glam::Vec3;

use crate::mesh::TerrainMesh;
use crate::raycast::{Ray, RayCast, RayHit};

/// Tests `ray` against every triangle (Möller–Trumbore) and keeps the nearest hit.
pub fn raycast_triangles(mesh: &TerrainMesh, ray: &Ray, max_distance: f32) -> RayCast {
    let mut nearest: Option<f32> = None;
    for t in 0..mesh.triangle_count() {
        if let Some(d) = intersect(ray, mesh.triangle(t)) {
            if d <= max_distance && nearest.is_none_or(|n| d < n) {
                nearest = Some(d);
            }
        }
    }
    RayCast {
        hit: nearest.map(|distance| RayHit {
            point: ray.at(distance),
            distance,
        }),
        samples: mesh.triangle_count() as u32,
    }
}

fn intersect(ray: &Ray, [a, b, c]: [Vec3; 3]) -> Option<f32> {
    let (e1, e2) = (b - a, c - a);
    let p = ray.direction.cross(e2);
    let det = e1.dot(p);
    if det.abs() < 1e-9 {
        return None;
    }
    let inv = 1.0 / det;
    let s = ray.origin - a;
    let u = s.dot(p) * inv;
    if !(0.0..=1.0).contains(&u) {
        return None;
    }
    let q = s.cross(e1);
    let v = ray.direction.dot(q) * inv;
    if v < 0.0 || u + v > 1.0 {
        return None;
    }
    let t = e2.dot(q) * inv;
    (t >= 0.0).then_some(t)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{default_world, raycast, Landmark};

    #[test]
    fn analytic_and_brute_force_casts_agree() {
        let terrain = default_world();
        let mesh = terrain.mesh();
        let eye = Vec3::new(-40.0, 120.0, -30.0);
        for landmark in Landmark::ALL {
            let p = landmark.position();
            let target = Vec3::new(p.x, terrain.sample_height(p.x, p.y), p.y);
            let ray = Ray::towards(eye, target);
            let analytic = raycast(&terrain, &ray, 2000.0).hit.unwrap();
            let brute = raycast_triangles(&mesh, &ray, 2000.0).hit.unwrap();
            // Bilinear cells and their two triangles differ slightly.
            assert!(
                analytic.point.distance(brute.point) < 1.0,
                "{landmark}: {:?} vs {:?}",
                analytic.point,
                brute.point
            );
        }
    }
}

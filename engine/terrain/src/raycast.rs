//! Analytic cursor ray cast against the height function: march the ray with steps as
//! long as its height above the ground (never shorter than [`MIN_STEP`]), then bisect
//! the first step whose end is below ground [`BISECTION_STEPS`] times. It reads the
//! heightmap a few dozen times instead of testing every triangle of the terrain mesh.

use glam::Vec3;

use crate::heightmap::Terrain;

/// Shortest march step near the surface, in metres.
pub const MIN_STEP: f32 = 0.4;
/// Bisection steps once the ray has crossed the surface.
pub const BISECTION_STEPS: u32 = 12;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ray {
    pub origin: Vec3,
    /// Unit direction.
    pub direction: Vec3,
}

impl Ray {
    /// A ray from `origin` towards `target`.
    pub fn towards(origin: Vec3, target: Vec3) -> Self {
        Self {
            origin,
            direction: (target - origin).normalize(),
        }
    }

    pub fn at(&self, distance: f32) -> Vec3 {
        self.origin + self.direction * distance
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RayHit {
    /// Where the ray meets the ground.
    pub point: Vec3,
    /// Distance along the ray.
    pub distance: f32,
}

/// The outcome of a cast and its cost.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RayCast {
    pub hit: Option<RayHit>,
    /// Height samples (or, for the reference cast, triangles) the cast examined.
    pub samples: u32,
}

/// Casts `ray` against the terrain's bilinear surface up to `max_distance` metres.
pub fn raycast(terrain: &Terrain, ray: &Ray, max_distance: f32) -> RayCast {
    let mut samples = 0;
    let Some((enter, exit)) = clip_to_bounds(terrain, ray, max_distance) else {
        return RayCast { hit: None, samples };
    };
    let mut height_above_ground = |t: f32| {
        samples += 1;
        let p = ray.at(t);
        p.y - terrain.sample_height(p.x, p.z)
    };

    let mut t = enter;
    let mut gap = height_above_ground(t);
    if gap <= 0.0 {
        // Entered through the side of the terrain block, below its surface.
        return hit(ray, t, samples);
    }
    while t < exit {
        let next = (t + gap.max(MIN_STEP)).min(exit);
        let next_gap = height_above_ground(next);
        if next_gap <= 0.0 {
            let (mut above, mut below) = (t, next);
            for _ in 0..BISECTION_STEPS {
                let mid = 0.5 * (above + below);
                if height_above_ground(mid) > 0.0 {
                    above = mid;
                } else {
                    below = mid;
                }
            }
            return hit(ray, 0.5 * (above + below), samples);
        }
        t = next;
        gap = next_gap;
    }
    RayCast { hit: None, samples }
}

fn hit(ray: &Ray, distance: f32, samples: u32) -> RayCast {
    RayCast {
        hit: Some(RayHit {
            point: ray.at(distance),
            distance,
        }),
        samples,
    }
}

/// The part `[enter, exit]` of the ray inside the terrain's bounding box, if any.
fn clip_to_bounds(terrain: &Terrain, ray: &Ray, max_distance: f32) -> Option<(f32, f32)> {
    let (low, high) = terrain.height_range();
    let (min, max) = (terrain.min_corner(), terrain.max_corner());
    let lo = Vec3::new(min.x, low, min.y);
    let hi = Vec3::new(max.x, high, max.y);
    let (mut enter, mut exit) = (0.0f32, max_distance);
    for axis in 0..3 {
        let (o, d) = (ray.origin[axis], ray.direction[axis]);
        if d.abs() < 1e-12 {
            if o < lo[axis] || o > hi[axis] {
                return None;
            }
            continue;
        }
        let (a, b) = ((lo[axis] - o) / d, (hi[axis] - o) / d);
        enter = enter.max(a.min(b));
        exit = exit.min(a.max(b));
    }
    (enter <= exit).then_some((enter, exit))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{default_world, Landmark};

    #[test]
    fn vertical_ray_hits_the_sampled_height() {
        let t = default_world();
        let p = Landmark::Meadow.position();
        let ray = Ray {
            origin: Vec3::new(p.x, 200.0, p.y),
            direction: Vec3::NEG_Y,
        };
        let cast = raycast(&t, &ray, 1000.0);
        let hit = cast.hit.expect("hits the meadow");
        assert!((hit.point.y - t.sample_height(p.x, p.y)).abs() < 1e-3);
        assert!(cast.samples <= 30, "{} samples", cast.samples);
    }

    #[test]
    fn ray_into_the_sky_misses_without_sampling() {
        let t = default_world();
        let ray = Ray {
            origin: Vec3::new(0.0, 500.0, 0.0),
            direction: Vec3::Y,
        };
        assert_eq!(
            raycast(&t, &ray, 1000.0),
            RayCast {
                hit: None,
                samples: 0
            }
        );
    }

    #[test]
    fn ray_shorter_than_the_ground_misses() {
        let t = default_world();
        let ray = Ray {
            origin: Vec3::new(0.0, 100.0, 0.0),
            direction: Vec3::NEG_Y,
        };
        assert!(raycast(&t, &ray, 50.0).hit.is_none());
    }

    #[test]
    fn hit_lies_on_the_surface() {
        let t = default_world();
        let eye = Vec3::new(0.0, 80.0, -60.0);
        for landmark in Landmark::ALL {
            let p = landmark.position();
            let target = Vec3::new(p.x, t.sample_height(p.x, p.y), p.y);
            let cast = raycast(&t, &Ray::towards(eye, target), 2000.0);
            let hit = cast.hit.unwrap_or_else(|| panic!("{landmark} missed"));
            let ground = t.sample_height(hit.point.x, hit.point.z);
            assert!(
                (hit.point.y - ground).abs() < 0.05,
                "{landmark}: {hit:?} vs {ground}"
            );
        }
    }
}

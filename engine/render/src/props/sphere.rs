//! A part's bounding sphere in prop space, and the scale an instance's transform
//! applies to it. Culling tests these spheres; slot blocks bound them.

use glam::Vec3;

/// A part's bounding sphere in prop space.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sphere {
    pub center: Vec3,
    pub radius: f32,
}

impl Sphere {
    /// The sphere of an instance placed by `model` (scale taken as its largest axis,
    /// [`sylva_buckets::scale_of`]):
    /// what culling computes slot by slot, with the scale cached beside the blocks.
    #[cfg(test)]
    pub fn transformed(self, model: &glam::Mat4) -> (Vec3, f32) {
        (
            model.transform_point3(self.center),
            self.radius * sylva_buckets::scale_of(model),
        )
    }

    /// A sphere around `positions` (centre of their box), for parts without one.
    pub fn around(positions: impl Iterator<Item = Vec3> + Clone) -> Self {
        let (min, max) = positions.clone().fold(
            (Vec3::splat(f32::INFINITY), Vec3::splat(f32::NEG_INFINITY)),
            |(lo, hi), p| (lo.min(p), hi.max(p)),
        );
        if min.x > max.x {
            return Self {
                center: Vec3::ZERO,
                radius: 0.0,
            };
        }
        let center = 0.5 * (min + max);
        let radius = positions.map(|p| p.distance(center)).fold(0.0, f32::max);
        Self { center, radius }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Mat4;

    #[test]
    fn transformed_spheres_scale_with_the_instance() {
        let sphere = Sphere {
            center: Vec3::new(0.0, 1.0, 0.0),
            radius: 2.0,
        };
        let model = Mat4::from_scale_rotation_translation(
            Vec3::splat(3.0),
            glam::Quat::IDENTITY,
            Vec3::new(10.0, 0.0, 0.0),
        );
        assert_eq!(sphere.transformed(&model), (Vec3::new(10.0, 3.0, 0.0), 6.0));
    }

    #[test]
    fn around_covers_every_point() {
        let points = [
            Vec3::new(-1.0, 0.0, 0.0),
            Vec3::new(3.0, 2.0, 0.0),
            Vec3::new(0.0, 5.0, 1.0),
        ];
        let s = Sphere::around(points.iter().copied());
        assert!(points
            .iter()
            .all(|p| p.distance(s.center) <= s.radius + 1e-6));
    }
}

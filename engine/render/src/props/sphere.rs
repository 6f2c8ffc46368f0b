//! A part's bounding sphere in prop space, and the scale an instance's transform
//! applies to it. Culling tests each instance by a sphere about its origin that holds
//! the part's; slot blocks bound those.

use glam::Vec3;

/// A part's bounding sphere in prop space.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sphere {
    pub center: Vec3,
    pub radius: f32,
}

impl Sphere {
    /// The sphere of an instance placed by `model` (scale taken as its largest axis,
    /// [`sylva_buckets::scale_of`]).
    #[cfg(test)]
    pub fn transformed(self, model: &glam::Mat4) -> (Vec3, f32) {
        (
            model.transform_point3(self.center),
            self.radius * sylva_buckets::scale_of(model),
        )
    }

    /// How far from an instance's origin, per unit of its scale, this sphere can reach
    /// however the instance is turned. Culling tests an instance by the sphere of
    /// radius `scale × reach` about its origin: it holds the instance's own sphere and
    /// needs only the origin and the scale, not the whole transform.
    pub fn reach(self) -> f32 {
        self.center.length() + self.radius
    }

    /// The sphere about the origin of an instance placed by `model` that culling tests
    /// (see [`Self::reach`]).
    #[cfg(test)]
    pub fn about_origin(self, model: &glam::Mat4) -> (Vec3, f32) {
        (
            model.w_axis.truncate(),
            self.reach() * sylva_buckets::scale_of(model),
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
        // About the origin: reaches 1 + 2 units of scale, holding the turned sphere.
        assert_eq!(
            sphere.about_origin(&model),
            (Vec3::new(10.0, 0.0, 0.0), 9.0)
        );
        let turned = Mat4::from_rotation_z(1.0) * model;
        let (center, radius) = sphere.transformed(&turned);
        let (origin, reach) = sphere.about_origin(&turned);
        assert!(center.distance(origin) + radius <= reach + 1e-4);
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

/// An axis-aligned bounding box. The empty box has `min > max` (infinities).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Aabb {
    pub min: [f32; 3],
    pub max: [f32; 3],
}

impl Aabb {
    pub const EMPTY: Aabb = Aabb {
        min: [f32::INFINITY; 3],
        max: [f32::NEG_INFINITY; 3],
    };

    pub fn of_points<'a>(points: impl IntoIterator<Item = &'a [f32; 3]>) -> Self {
        points.into_iter().fold(Self::EMPTY, |b, p| b.including(*p))
    }

    pub fn including(self, p: [f32; 3]) -> Self {
        Aabb {
            min: std::array::from_fn(|i| self.min[i].min(p[i])),
            max: std::array::from_fn(|i| self.max[i].max(p[i])),
        }
    }

    pub fn union(self, other: Aabb) -> Self {
        Aabb {
            min: std::array::from_fn(|i| self.min[i].min(other.min[i])),
            max: std::array::from_fn(|i| self.max[i].max(other.max[i])),
        }
    }

    pub fn is_empty(&self) -> bool {
        (0..3).any(|i| self.min[i] > self.max[i])
    }

    pub fn center(&self) -> [f32; 3] {
        std::array::from_fn(|i| (self.min[i] + self.max[i]) * 0.5)
    }
}

/// A bounding sphere.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sphere {
    pub center: [f32; 3],
    pub radius: f32,
}

impl Sphere {
    /// The sphere around `points` centred on their box: not the smallest sphere, but
    /// cheap, deterministic and always enclosing.
    pub fn around<'a>(points: impl IntoIterator<Item = &'a [f32; 3]> + Clone) -> Self {
        let bounds = Aabb::of_points(points.clone());
        if bounds.is_empty() {
            return Sphere {
                center: [0.0; 3],
                radius: 0.0,
            };
        }
        let center = bounds.center();
        let radius_squared = points.into_iter().fold(0.0f32, |r, p| {
            let d: f32 = (0..3)
                .map(|i| (p[i] - center[i]) * (p[i] - center[i]))
                .sum();
            r.max(d)
        });
        Sphere {
            center,
            radius: radius_squared.sqrt(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn box_and_sphere_enclose_every_point() {
        let points = [[1.0, 0.0, 0.0], [-1.0, 2.0, 0.5], [0.0, 0.0, -3.0]];
        let b = Aabb::of_points(&points);
        assert_eq!(b.min, [-1.0, 0.0, -3.0]);
        assert_eq!(b.max, [1.0, 2.0, 0.5]);
        let s = Sphere::around(&points);
        for p in &points {
            let d: f32 = (0..3).map(|i| (p[i] - s.center[i]).powi(2)).sum();
            assert!(d.sqrt() <= s.radius);
        }
        assert!(Aabb::EMPTY.is_empty());
    }
}

//! The lasso a fill region is drawn with: the pointer's ground path, kept as a point
//! every `step` metres. A path longer than a fill polygon may be keeps every other
//! point and doubles its step, so a lasso round a whole 4 km world stays a valid
//! region and costs the same to check whatever the pointer's speed.

use glam::Vec2;
use sylva_scatter::MAX_POLYGON_VERTICES;

#[derive(Clone, Debug, PartialEq)]
pub struct Lasso {
    points: Vec<Vec2>,
    step: f32,
}

impl Lasso {
    /// Starts at `at`, keeping a point every `step` metres of the path.
    pub fn start(at: Vec2, step: f32) -> Self {
        Self {
            points: vec![at],
            step: step.max(f32::MIN_POSITIVE),
        }
    }

    /// The pointer's ground point moved to `at`.
    pub fn to(&mut self, at: Vec2) {
        let last = *self.points.last().expect("a lasso has its start");
        if !at.is_finite() || last.distance(at) < self.step {
            return;
        }
        self.points.push(at);
        if self.points.len() > MAX_POLYGON_VERTICES {
            self.points = self.points.iter().copied().step_by(2).collect();
            self.step *= 2.0;
        }
    }

    pub fn points(&self) -> &[Vec2] {
        &self.points
    }

    /// The closed polygon it draws (the fill checks that it is simple and has area).
    pub fn polygon(&self) -> Vec<(f32, f32)> {
        self.points.iter().map(|p| (p.x, p.y)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn points_are_kept_a_step_apart() {
        let mut lasso = Lasso::start(Vec2::ZERO, 1.0);
        for i in 1..=40 {
            lasso.to(Vec2::new(i as f32 * 0.25, 0.0));
        }
        assert_eq!(lasso.points().len(), 11);
        assert_eq!(lasso.points()[10], Vec2::new(10.0, 0.0));
    }

    #[test]
    fn a_long_path_thins_out_to_a_valid_polygon() {
        let mut lasso = Lasso::start(Vec2::new(1000.0, 0.0), 0.5);
        // A circle of radius 1 km: 12.6 km of path, 25,000 points at the first step.
        for i in 1..50_000 {
            let angle = i as f32 / 50_000.0 * std::f32::consts::TAU;
            lasso.to(Vec2::new(angle.cos(), angle.sin()) * 1000.0);
        }
        let count = lasso.points().len();
        assert!(
            (MAX_POLYGON_VERTICES / 2..=MAX_POLYGON_VERTICES).contains(&count),
            "{count} points"
        );
        assert_eq!(lasso.polygon().len(), count);
    }

    #[test]
    fn non_finite_points_are_ignored() {
        let mut lasso = Lasso::start(Vec2::ZERO, 1.0);
        lasso.to(Vec2::new(f32::NAN, 3.0));
        lasso.to(Vec2::new(f32::INFINITY, 3.0));
        assert_eq!(lasso.points(), [Vec2::ZERO]);
    }
}

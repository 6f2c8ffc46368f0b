//! Dab spacing along a drag: the first dab where the pointer went down, then one every
//! `spacing` metres of the path the pointer's ground point travelled, however the path
//! was split into pointer moves. A fast drag gets the same dabs as a slow one.

use glam::Vec2;

/// Dabs per brush radius along a drag.
pub const DABS_PER_RADIUS: f32 = 3.0;

#[derive(Clone, Debug)]
pub struct DabSpacer {
    spacing: f32,
    /// Where the path was last seen.
    last: Vec2,
    /// Path length since the last dab.
    travelled: f32,
}

impl DabSpacer {
    /// Starts a stroke at `at` (the first dab) with dabs every `radius / 3`.
    pub fn start(at: Vec2, radius: f32) -> (Self, Vec2) {
        let spacing = if radius.is_finite() && radius > 0.0 {
            radius / DABS_PER_RADIUS
        } else {
            f32::INFINITY
        };
        let spacer = Self {
            spacing,
            last: at,
            travelled: 0.0,
        };
        (spacer, at)
    }

    /// The path continued in a straight line to `to`: appends the dabs it passed.
    pub fn drag_to(&mut self, to: Vec2, dabs: &mut Vec<Vec2>) {
        if !to.is_finite() {
            return;
        }
        if !self.spacing.is_finite() {
            self.last = to;
            return;
        }
        let from = self.last;
        let length = from.distance(to);
        // Distance along this segment of the next dab.
        let mut next = self.spacing - self.travelled;
        while next <= length {
            dabs.push(from.lerp(to, next / length));
            next += self.spacing;
        }
        self.travelled = length - (next - self.spacing);
        self.last = to;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn drag(radius: f32, path: &[Vec2]) -> Vec<Vec2> {
        let (mut spacer, first) = DabSpacer::start(path[0], radius);
        let mut dabs = vec![first];
        for &p in &path[1..] {
            spacer.drag_to(p, &mut dabs);
        }
        dabs
    }

    #[test]
    fn dabs_are_a_third_of_the_radius_apart() {
        let dabs = drag(6.0, &[Vec2::ZERO, Vec2::new(9.0, 0.0)]);
        let xs: Vec<f32> = dabs.iter().map(|d| d.x).collect();
        assert_eq!(xs, [0.0, 2.0, 4.0, 6.0, 8.0]);
    }

    #[test]
    fn small_moves_add_up_to_the_same_dabs() {
        let fine: Vec<Vec2> = (0..=90).map(|i| Vec2::new(i as f32 * 0.1, 0.0)).collect();
        let coarse = drag(6.0, &[Vec2::ZERO, Vec2::new(9.0, 0.0)]);
        let fine = drag(6.0, &fine);
        assert_eq!(fine.len(), coarse.len());
        for (a, b) in fine.iter().zip(&coarse) {
            assert!(a.abs_diff_eq(*b, 1e-3), "{a} vs {b}");
        }
    }

    #[test]
    fn spacing_follows_the_path_around_corners() {
        let dabs = drag(3.0, &[Vec2::ZERO, Vec2::new(1.5, 0.0), Vec2::new(1.5, 1.5)]);
        let expected = [(0.0, 0.0), (1.0, 0.0), (1.5, 0.5), (1.5, 1.5)];
        assert_eq!(dabs.len(), expected.len());
        for (dab, (x, z)) in dabs.iter().zip(expected) {
            assert!(dab.abs_diff_eq(Vec2::new(x, z), 1e-5), "{dab}");
        }
    }

    #[test]
    fn a_still_pointer_or_a_bad_point_adds_nothing() {
        let dabs = drag(
            3.0,
            &[Vec2::ONE, Vec2::ONE, Vec2::new(f32::NAN, 0.0), Vec2::ONE],
        );
        assert_eq!(dabs, [Vec2::ONE]);
    }
}

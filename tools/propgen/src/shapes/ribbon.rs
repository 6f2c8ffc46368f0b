//! Open strips for thin foliage: grass blades, leaves, petals. These are the only
//! open shells in the kit; they belong with double-sided materials.

use crate::math::{smoothstep, V3};
use crate::mesh::{Builder, Rgb};
use crate::shapes::{mix, shade};

/// Builds a strip along `spine`, `half_widths[i]` to each side of `spine[i]` along
/// the unit `sides[i]`; a zero half-width makes a single point (a pointed tip).
/// `u` runs across (0 → 1), `v` from 1 at the first point to 0 at the last.
pub fn ribbon(
    b: &mut Builder,
    spine: &[V3],
    half_widths: &[f32],
    sides: &[V3],
    colors: &[Rgb],
    group: u32,
) {
    let n = spine.len();
    let v = |i: usize| 1.0 - i as f32 / (n - 1) as f32;
    let level = |b: &mut Builder, i: usize| -> Vec<u32> {
        let w = half_widths[i];
        if w > 0.0 {
            vec![
                b.point(spine[i] - sides[i] * w, colors[i]),
                b.point(spine[i] + sides[i] * w, colors[i]),
            ]
        } else {
            vec![b.point(spine[i], colors[i])]
        }
    };
    let mut below = level(b, 0);
    for i in 1..n {
        let above = level(b, i);
        let (v0, v1) = (v(i - 1), v(i));
        match (below.as_slice(), above.as_slice()) {
            ([l0, r0], [l1, r1]) => b.quad(
                [*l0, *r0, *r1, *l1],
                [[0.0, v0], [1.0, v0], [1.0, v1], [0.0, v1]],
                group,
            ),
            ([l0, r0], [tip]) => b.tri([*l0, *r0, *tip], [[0.0, v0], [1.0, v0], [0.5, v1]], group),
            ([base], [l1, r1]) => {
                b.tri([*base, *r1, *l1], [[0.5, v0], [1.0, v1], [0.0, v1]], group)
            }
            _ => {}
        }
        below = above;
    }
}

/// A leaf or grass blade growing from `base`: it rises `height` metres, leans
/// `lean × height` toward `toward` (horizontal unit vector) and arches down near the
/// tip by `droop × height`. Its flat side faces the lean.
#[derive(Clone, Copy, Debug)]
pub struct Blade {
    pub base: V3,
    pub toward: V3,
    pub height: f32,
    pub lean: f32,
    pub droop: f32,
    /// Widest half-width, in metres.
    pub width: f32,
    pub levels: usize,
}

/// Builds `blade`, coloured from `root` (darkened at the very base) to `tip`.
pub fn add_blade(b: &mut Builder, blade: &Blade, root: Rgb, tip: Rgb, group: u32) {
    let side = V3::Y.cross(blade.toward).normalize_or(V3::X);
    let n = blade.levels;
    let mut spine = Vec::with_capacity(n);
    let mut widths = Vec::with_capacity(n);
    let mut colors = Vec::with_capacity(n);
    for i in 0..n {
        let s = i as f32 / (n - 1) as f32;
        let h = blade.height;
        spine.push(
            blade.base
                + V3::Y * (h * (s - blade.droop * s * s * s))
                + blade.toward * (blade.lean * h * s * s),
        );
        widths.push(blade.width * (1.0 - s * s));
        colors.push(shade(mix(root, tip, s), 0.45 + 0.55 * smoothstep(s * 3.0)));
    }
    ribbon(b, &spine, &widths, &vec![side; n], &colors, group);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::v3;

    #[test]
    fn a_blade_is_a_strip_with_a_pointed_tip() {
        let mut b = Builder::new();
        let blade = Blade {
            base: V3::ZERO,
            toward: V3::X,
            height: 0.5,
            lean: 0.3,
            droop: 0.1,
            width: 0.01,
            levels: 6,
        };
        add_blade(&mut b, &blade, [0.2, 0.5, 0.1], [0.8, 0.8, 0.3], 0);
        let mesh = b.build();
        assert_eq!(mesh.triangle_count(), 2 * 4 + 1);
        let (lo, hi) = mesh.bounds();
        assert!((hi[1] - 0.45).abs() < 1e-5);
        assert!(hi[0] > 0.14 && lo[1] == 0.0);
        // The flat side faces the lean, so the normals point along ±X.
        assert!(mesh.normals.iter().all(|n| n[0].abs() > 0.5));
    }

    #[test]
    fn ribbons_can_start_from_a_point() {
        let mut b = Builder::new();
        let spine = [V3::ZERO, v3(0.0, 0.0, 1.0), v3(0.0, 0.0, 2.0)];
        ribbon(
            &mut b,
            &spine,
            &[0.0, 0.5, 0.0],
            &[V3::X; 3],
            &[[1.0; 3]; 3],
            0,
        );
        assert_eq!(b.build().triangle_count(), 2);
    }
}

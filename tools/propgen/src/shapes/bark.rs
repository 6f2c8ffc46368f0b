//! Bark-covered limbs: trunks rising from just below the ground and branches growing
//! out of them, as closed tubes with ridged bark and baked ambient occlusion.

use crate::math::{fbm3, noise3, smoothstep, v3, V3};
use crate::mesh::{Builder, Rgb};
use crate::shapes::{mix, shade};
use crate::surface::{tube, Cap, Tube};

/// How bark looks: ridges displace the surface, the colour darkens in the crevices
/// and toward the ground.
#[derive(Clone, Copy, Debug)]
pub struct BarkStyle {
    /// Vertex colour of clean bark (multiplied with the material colour).
    pub color: Rgb,
    /// Ridge depth as a fraction of the limb radius.
    pub ridge_depth: f32,
    /// Ridges around the limb (noise frequency).
    pub ridges: f32,
    /// Dark horizontal lenticel bands, as on birch.
    pub banded: bool,
}

/// A limb's centre line with one radius per point.
#[derive(Clone, Debug)]
pub struct Limb {
    pub path: Vec<V3>,
    pub radii: Vec<f32>,
}

impl Limb {
    /// A trunk from 0.1 m below the ground to `height`, wandering sideways by about
    /// `bend` metres, tapering from `base_radius` to `top_radius` with a root flare.
    pub fn trunk(
        seed: u32,
        height: f32,
        base_radius: f32,
        top_radius: f32,
        rings: usize,
        bend: f32,
    ) -> Limb {
        let mut path = Vec::with_capacity(rings + 1);
        let mut radii = Vec::with_capacity(rings + 1);
        for i in 0..=rings {
            let t = i as f32 / rings as f32;
            let y = -0.1 + (height + 0.1) * t;
            // Sway grows with height; none at the base.
            let sway = bend * t * t;
            let q = v3(0.0, t * 2.5, 0.0);
            path.push(v3(
                sway * fbm3(seed, q, 2),
                y,
                sway * fbm3(seed ^ 0x55, q + v3(7.0, 0.0, 3.0), 2),
            ));
            let flare = (1.0 - t * 8.0).max(0.0);
            radii.push(
                base_radius
                    + (top_radius - base_radius) * t
                    + base_radius * 0.7 * flare * flare * flare,
            );
        }
        Limb { path, radii }
    }

    /// A branch from `start` along the unit `direction` for `length` metres whose tip
    /// rises by `rise` metres (negative droops), tapering from `base_radius`.
    pub fn branch(
        start: V3,
        direction: V3,
        length: f32,
        rise: f32,
        base_radius: f32,
        rings: usize,
    ) -> Limb {
        let mut path = Vec::with_capacity(rings + 1);
        let mut radii = Vec::with_capacity(rings + 1);
        for i in 0..=rings {
            let s = i as f32 / rings as f32;
            path.push(start + direction * (length * s) + V3::Y * (rise * s * s));
            radii.push(base_radius * (1.0 - 0.75 * s));
        }
        Limb { path, radii }
    }

    /// The centre line's point at `t ∈ [0, 1]` (by point index).
    pub fn point_at(&self, t: f32) -> V3 {
        let (i, f) = self.locate(t);
        self.path[i].lerp(self.path[i + 1], f)
    }

    /// The radius at `t ∈ [0, 1]` (by point index).
    pub fn radius_at(&self, t: f32) -> f32 {
        let (i, f) = self.locate(t);
        self.radii[i] + (self.radii[i + 1] - self.radii[i]) * f
    }

    /// The unit direction of the centre line at its end.
    pub fn end_direction(&self) -> V3 {
        let n = self.path.len();
        (self.path[n - 1] - self.path[n - 2]).normalize_or(V3::Y)
    }

    fn locate(&self, t: f32) -> (usize, f32) {
        let x = t.clamp(0.0, 1.0) * (self.path.len() - 1) as f32;
        let i = (x.floor() as usize).min(self.path.len() - 2);
        (i, x - i as f32)
    }
}

/// Builds `limb` into `b` as a bark tube; returns its side rings.
#[allow(clippy::too_many_arguments)]
pub fn add_limb(
    b: &mut Builder,
    limb: &Limb,
    segments: usize,
    seed: u32,
    style: &BarkStyle,
    start: Cap,
    finish: Cap,
    group: u32,
) -> Vec<Vec<u32>> {
    let length: f32 = limb.path.windows(2).map(|w| (w[1] - w[0]).length()).sum();
    let spec = Tube {
        path: &limb.path,
        radii: &limb.radii,
        segments,
        start,
        finish,
        u_repeat: 2.0,
        v_per_metre: 0.8,
        group,
    };
    tube(b, &spec, |sp| {
        let metres = sp.along * length;
        let q = sp.outward * style.ridges + v3(0.0, metres * 0.9, 0.0);
        let ridge = noise3(seed, q) * 0.7 + noise3(seed ^ 0xabc, q * 2.3) * 0.3;
        let position = sp.position + sp.outward * (sp.radius * style.ridge_depth * ridge);
        let ground = 0.45 + 0.55 * smoothstep(sp.position.y / 1.6);
        let mut color = shade(style.color, ground * (0.82 + 0.18 * ridge));
        if style.banded {
            let band = noise3(seed ^ 0x77, sp.outward * 1.2 + v3(0.0, metres * 6.0, 0.0));
            if band > 0.3 {
                color = mix(color, [0.12, 0.11, 0.1], smoothstep((band - 0.3) * 5.0));
            }
        }
        (position, color)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::surface::tests::{assert_watertight, volume};

    const STYLE: BarkStyle = BarkStyle {
        color: [0.9, 0.85, 0.8],
        ridge_depth: 0.1,
        ridges: 3.0,
        banded: true,
    };

    #[test]
    fn trunks_start_below_ground_and_taper_with_a_root_flare() {
        let trunk = Limb::trunk(1, 10.0, 0.4, 0.05, 30, 0.8);
        assert_eq!(trunk.path[0].y, -0.1);
        assert!((trunk.path[30].y - 10.0).abs() < 1e-5);
        assert!(trunk.radii[0] > 0.4 * 1.5);
        assert!(trunk.radii[10] < 0.4 && trunk.radii[30] < trunk.radii[10]);
    }

    #[test]
    fn branches_rise_or_droop_at_the_tip() {
        let up = Limb::branch(V3::ZERO, V3::X, 2.0, 0.5, 0.1, 8);
        assert!((up.point_at(1.0) - v3(2.0, 0.5, 0.0)).length() < 1e-5);
        assert!(up.end_direction().y > 0.0);
        assert!((up.radius_at(0.5) - 0.0625).abs() < 1e-6);
    }

    #[test]
    fn bark_tubes_are_closed() {
        let mut b = Builder::new();
        let trunk = Limb::trunk(2, 5.0, 0.3, 0.05, 20, 0.5);
        let top = trunk.point_at(1.0) + V3::Y * 0.3;
        add_limb(&mut b, &trunk, 12, 2, &STYLE, Cap::Flat, Cap::Point(top), 0);
        let mesh = b.build();
        assert_watertight(&mesh);
        assert!(volume(&mesh) > 0.0);
    }
}

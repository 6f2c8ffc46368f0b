//! A snag: a dead tree with a jagged broken top, broken-off branch stubs and a few
//! last clumps of dry needles.

use crate::math::{around_y, hash_all, noise3, unit, v3, Rng, V3};
use crate::mesh::{Builder, WHITE};
use crate::scene::{Material, Part};
use crate::shapes::bark::{add_limb, BarkStyle, Limb};
use crate::shapes::canopy::{add_blob, Blob};
use crate::surface::{tube, Cap, Tube};

#[derive(Clone, Copy, Debug)]
pub struct Snag {
    pub seed: u32,
    pub height: f32,
    pub trunk_radius: f32,
    pub stubs: usize,
    pub clumps: usize,
}

const WEATHERED: BarkStyle = BarkStyle {
    color: WHITE,
    ridge_depth: 0.14,
    ridges: 6.0,
    banded: false,
};

pub fn snag(p: &Snag) -> Vec<Part> {
    let mut rng = Rng::new(p.seed);
    let mut bark = Builder::new();
    let trunk = Limb::trunk(
        rng.fork(),
        p.height,
        p.trunk_radius,
        p.trunk_radius * 0.45,
        48,
        0.6,
    );
    add_broken_trunk(&mut bark, &trunk, rng.fork());

    let mut needles = Builder::new();
    let mut clumps = 0;
    for i in 0..p.stubs {
        let t = 0.3 + 0.6 * i as f32 / p.stubs as f32;
        let start = trunk.point_at(t);
        let d = (around_y(i as f32 * 0.41 + rng.range(0.0, 0.1)) + V3::Y * rng.range(-0.25, 0.2))
            .normalize_or(V3::X);
        let base_radius = trunk.radius_at(t) * 0.4;
        let long = i % 2 == 0;
        let length = if long {
            rng.range(1.2, 2.2)
        } else {
            rng.range(0.3, 0.7)
        };
        let limb = Limb::branch(start, d, length, -0.15 * length, base_radius, 6);
        // Broken stubs end flat; the long ones taper off into a twig.
        let finish = if long {
            Cap::Point(limb.point_at(1.0) + limb.end_direction() * 0.2)
        } else {
            Cap::Flat
        };
        add_limb(
            &mut bark,
            &limb,
            10,
            rng.fork(),
            &WEATHERED,
            Cap::Point(start),
            finish,
            4 + 3 * i as u32,
        );
        // The last dead needles hang in small ragged tufts along the long branches.
        for along in [0.55, 0.9] {
            if long && clumps < p.clumps {
                let size = rng.range(0.3, 0.45);
                let blob = Blob {
                    centre: limb.point_at(along) - V3::Y * (0.25 * size),
                    radii: v3(size, 0.7 * size, size),
                    seed: rng.fork(),
                    lumpiness: 0.6,
                };
                add_blob(&mut needles, &blob, 10, 20, WHITE, start, clumps as u32);
                clumps += 1;
            }
        }
    }
    vec![
        Part::new(
            "trunk",
            bark.build(),
            Material::opaque("weathered_bark", [0.52, 0.48, 0.43], 0.95),
        ),
        Part::new(
            "needles",
            needles.build(),
            Material::opaque("dry_needles", [0.3, 0.17, 0.07], 0.9),
        ),
    ]
}

/// The trunk tube whose last ring is broken into splinters (teeth up to 0.6 m) and
/// closed by a flat, pale fan: the exposed wood, with a hard rim.
fn add_broken_trunk(b: &mut Builder, trunk: &Limb, seed: u32) {
    let last = trunk.path.len() - 1;
    let top = trunk.path[last];
    let length: f32 = trunk.path.windows(2).map(|w| (w[1] - w[0]).length()).sum();
    let spec = Tube {
        path: &trunk.path,
        radii: &trunk.radii,
        segments: 28,
        start: Cap::Flat,
        finish: Cap::Flat,
        u_repeat: 2.0,
        v_per_metre: 0.8,
        group: 0,
    };
    tube(b, &spec, |sp| {
        let metres = sp.along * length;
        let ridge = noise3(seed, sp.outward * 6.0 + v3(0.0, metres * 0.9, 0.0));
        let mut position = sp.position + sp.outward * (sp.radius * 0.14 * ridge);
        let mut color = [0.8 + 0.2 * ridge; 3];
        if sp.position.y < 1.5 {
            color = color.map(|c| c * (0.55 + 0.3 * sp.position.y));
        }
        if sp.along == 1.0 {
            if sp.radius > 0.0 {
                // Splinters: a few tall teeth around the break.
                let j = (sp.turns * 28.0 + 0.5) as u32;
                let tooth = unit(hash_all(&[seed, j / 3]));
                let k = tooth * tooth;
                position += V3::Y * (0.6 * k - 0.1);
            } else {
                position = top;
            }
            color = [1.0, 0.92, 0.8];
        }
        (position, color)
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::surface::tests::assert_watertight;

    #[test]
    fn a_snag_is_closed_bark_with_some_needle_clumps() {
        let parts = snag(&Snag {
            seed: 2,
            height: 8.0,
            trunk_radius: 0.3,
            stubs: 6,
            clumps: 2,
        });
        assert_watertight(&parts[0].mesh);
        assert_watertight(&parts[1].mesh);
        let (_, hi) = parts[0].mesh.bounds();
        assert!((7.8..9.0).contains(&hi[1]), "top at {}", hi[1]);
        assert!(parts[1].mesh.triangle_count() > 0);
    }
}

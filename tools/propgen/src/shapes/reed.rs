//! A cattail clump: long arching leaves and closed stems (one part), each stem
//! carrying a closed brown seed head with a thin spike above it (a second part).

use crate::math::{around_y, noise3, v3, Rng, V3};
use crate::mesh::{Builder, WHITE};
use crate::scene::{Material, Part};
use crate::shapes::ribbon::{add_blade, Blade};
use crate::shapes::shade;
use crate::surface::{ellipsoid, tube, Cap, Tube};

#[derive(Clone, Copy, Debug)]
pub struct Cattail {
    pub seed: u32,
    pub leaves: usize,
    pub stems: usize,
    /// Tallest stem, in metres.
    pub height: f32,
}

pub fn cattail(p: &Cattail) -> Vec<Part> {
    let mut rng = Rng::new(p.seed);
    let mut green = Builder::new();
    let mut heads = Builder::new();
    for i in 0..p.leaves {
        let toward = around_y(i as f32 * 0.618 + rng.range(0.0, 0.1));
        let blade = Blade {
            base: toward * rng.range(0.0, 0.12) - V3::Y * 0.02,
            toward,
            height: p.height * rng.range(0.6, 0.95),
            lean: rng.range(0.1, 0.35),
            droop: rng.range(0.05, 0.3),
            width: rng.range(0.008, 0.012),
            levels: 10,
        };
        add_blade(&mut green, &blade, [0.6, 0.68, 0.5], [1.0, 0.95, 0.7], 0);
    }
    for i in 0..p.stems {
        let d = around_y(i as f32 * 0.31 + rng.range(0.0, 0.1));
        let base = d * rng.range(0.02, 0.1) - V3::Y * 0.02;
        let height = p.height * rng.range(0.8, 1.0);
        let lean = rng.range(0.02, 0.08);
        let path: Vec<V3> = (0..=8)
            .map(|k| {
                let s = k as f32 / 8.0;
                base + V3::Y * (height * s) + d * (lean * height * s * s)
            })
            .collect();
        let top = path[8];
        let stem = Tube {
            path: &path,
            radii: &[
                0.006, 0.0055, 0.005, 0.0048, 0.0045, 0.0042, 0.004, 0.0035, 0.003,
            ],
            segments: 6,
            start: Cap::Flat,
            finish: Cap::Point(top + V3::Y * 0.005),
            u_repeat: 1.0,
            v_per_metre: 2.0,
            group: 1 + 3 * i as u32,
        };
        tube(&mut green, &stem, |sp| {
            (sp.position, shade(WHITE, 0.6 + 0.4 * sp.along))
        });

        // The seed head sits just below the stem's tip, which pokes out as a spike.
        let head_length = rng.range(0.11, 0.16);
        let centre = path[7] - V3::Y * (head_length * 0.45);
        let seed = rng.fork();
        ellipsoid(
            &mut heads,
            centre,
            v3(0.014, head_length * 0.5, 0.014),
            10,
            12,
            i as u32,
            |sp| {
                let fuzz = 1.0 + 0.06 * noise3(seed, sp.position * 120.0);
                let q = centre + (sp.position - centre).scale(v3(fuzz, 1.0, fuzz));
                (q, shade(WHITE, 0.7 + 0.3 * sp.outward.y.max(0.0)))
            },
        );
    }
    vec![
        Part::new(
            "leaves",
            green.build(),
            Material::opaque("reed_leaf", [0.42, 0.52, 0.24], 0.85).double_sided(),
        ),
        Part::new(
            "heads",
            heads.build(),
            Material::opaque("cattail", [0.33, 0.2, 0.11], 0.95),
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::surface::tests::assert_watertight;

    #[test]
    fn cattails_carry_closed_heads_near_the_top() {
        let parts = cattail(&Cattail {
            seed: 4,
            leaves: 10,
            stems: 4,
            height: 1.5,
        });
        assert_watertight(&parts[1].mesh);
        let (lo, hi) = parts[1].mesh.bounds();
        assert!(lo[1] > 0.9 && hi[1] < 1.5);
        let (_, top) = parts[0].mesh.bounds();
        assert!(top[1] > hi[1]);
    }
}

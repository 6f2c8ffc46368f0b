//! Bushes: a cluster of leaf clumps on a few woody stems, optionally studded with
//! berries (a third part with its own material).

use crate::math::{around_y, v3, Rng, V3};
use crate::mesh::{Builder, WHITE};
use crate::scene::{Material, Part};
use crate::shapes::bark::{add_limb, BarkStyle, Limb};
use crate::shapes::canopy::{add_blob, Blob};
use crate::shapes::mix;
use crate::surface::{ellipsoid, Cap};

#[derive(Clone, Copy, Debug)]
pub struct Shrub {
    pub seed: u32,
    /// Overall height in metres.
    pub height: f32,
    /// Width over height.
    pub aspect: f32,
    pub clumps: usize,
    pub berries: usize,
    pub foliage_rgb: [f32; 3],
}

const TWIG: BarkStyle = BarkStyle {
    color: WHITE,
    ridge_depth: 0.05,
    ridges: 3.0,
    banded: false,
};

pub fn shrub(p: &Shrub) -> Vec<Part> {
    let mut rng = Rng::new(p.seed);
    let half_width = p.height * p.aspect * 0.5;
    let centre = v3(0.0, p.height * 0.5, 0.0);

    let mut stems = Builder::new();
    let mut foliage = Builder::new();
    let mut blobs = Vec::with_capacity(p.clumps);
    for i in 0..p.clumps {
        let f = i as f32 / p.clumps as f32;
        let d = around_y(f + rng.range(0.0, 0.1));
        let size = p.height * rng.range(0.32, 0.42);
        let out = half_width - size * 0.9;
        let c = if i == 0 {
            v3(0.0, p.height - size * 0.95, 0.0)
        } else {
            d * (out * rng.range(0.6, 1.0)) + V3::Y * (size * rng.range(0.75, 1.05))
        };
        let blob = Blob {
            centre: c,
            radii: v3(size, size * 0.85, size),
            seed: rng.fork(),
            lumpiness: 0.3,
        };
        let tint = mix(WHITE, [0.85, 1.0, 0.8], rng.next_f32());
        add_blob(&mut foliage, &blob, 14, 28, tint, centre, i as u32);
        let stem = Limb::branch(
            v3(0.0, -0.05, 0.0) + d * 0.05,
            c.normalize_or(V3::Y),
            c.length() * 0.8,
            0.0,
            0.03 * p.height,
            5,
        );
        let end = stem.point_at(1.0) + stem.end_direction() * 0.05;
        add_limb(
            &mut stems,
            &stem,
            7,
            rng.fork(),
            &TWIG,
            Cap::Flat,
            Cap::Point(end),
            3 * i as u32,
        );
        blobs.push(blob);
    }

    let mut parts = vec![
        Part::new(
            "stems",
            stems.build(),
            Material::opaque("twigs", [0.3, 0.22, 0.15], 0.9),
        ),
        Part::new(
            "leaves",
            foliage.build(),
            Material::opaque("foliage", p.foliage_rgb, 0.85),
        ),
    ];
    if p.berries > 0 {
        let mut berries = Builder::new();
        for i in 0..p.berries {
            let blob = &blobs[i % blobs.len()];
            let d = (around_y(rng.next_f32()) + V3::Y * rng.range(-0.2, 1.0)).normalize_or(V3::Y);
            let c = blob.surface(d);
            let r = rng.range(0.018, 0.028) * p.height;
            ellipsoid(&mut berries, c, v3(r, r, r), 5, 8, i as u32, |sp| {
                let lit = 0.6 + 0.4 * sp.outward.y;
                (sp.position, mix([0.55, 0.45, 0.5], WHITE, lit))
            });
        }
        parts.push(Part::new(
            "berries",
            berries.build(),
            Material::opaque("berry", [0.62, 0.05, 0.08], 0.8),
        ));
    }
    parts
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::surface::tests::assert_watertight;

    #[test]
    fn shrubs_have_the_requested_size_and_closed_parts() {
        let parts = shrub(&Shrub {
            seed: 3,
            height: 1.2,
            aspect: 1.4,
            clumps: 5,
            berries: 10,
            foliage_rgb: [0.2, 0.4, 0.2],
        });
        assert_eq!(parts.len(), 3);
        for part in &parts {
            assert_watertight(&part.mesh);
        }
        let (lo, hi) = parts[1].mesh.bounds();
        assert!((1.0..1.5).contains(&hi[1]), "height {}", hi[1]);
        assert!(lo[1] > -0.2);
        assert!(hi[0] - lo[0] > 1.0);
        assert_eq!(parts[2].mesh.triangle_count(), 10 * 5 * 8 * 2 - 10 * 2 * 8);
    }
}

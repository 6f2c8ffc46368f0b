//! Broadleaf trees: a trunk that carries a leader and a few limbs, each limb ending
//! in a lumpy closed leaf clump, plus one clump on the leader and one filling the
//! crown's centre.

use crate::math::{around_y, cos_sin, v3, Rng, V3};
use crate::mesh::{Builder, WHITE};
use crate::scene::{Material, Part};
use crate::shapes::bark::{add_limb, BarkStyle, Limb};
use crate::shapes::canopy::{add_blob, Blob};
use crate::shapes::mix;
use crate::surface::Cap;

#[derive(Clone, Copy, Debug)]
pub struct Broadleaf {
    pub seed: u32,
    /// Height of the leader (the trunk's continuation into the crown).
    pub leader: f32,
    pub trunk_radius: f32,
    pub bend: f32,
    pub limbs: usize,
    /// Where limbs leave the trunk, as fractions of the leader's length.
    pub limb_span: (f32, f32),
    /// Limb elevation above the horizon, in turns.
    pub limb_elevation: f32,
    /// Limb length in metres.
    pub spread: f32,
    /// Clump radius in metres; clumps are `squash` times as tall as wide.
    pub clump: f32,
    pub squash: f32,
    pub bark: BarkStyle,
    pub bark_rgb: [f32; 3],
    pub foliage_rgb: [f32; 3],
}

pub fn broadleaf(p: &Broadleaf) -> Vec<Part> {
    let mut rng = Rng::new(p.seed);
    let mut bark = Builder::new();
    let trunk = Limb::trunk(
        rng.fork(),
        p.leader,
        p.trunk_radius,
        p.trunk_radius * 0.2,
        36,
        p.bend,
    );
    let top = trunk.point_at(1.0);
    add_limb(
        &mut bark,
        &trunk,
        20,
        rng.fork(),
        &p.bark,
        Cap::Flat,
        Cap::Point(top + V3::Y * 0.3),
        0,
    );

    let mut blobs = Vec::with_capacity(p.limbs + 2);
    for i in 0..p.limbs {
        let f = i as f32 / (p.limbs - 1).max(1) as f32;
        let t = p.limb_span.0 + (p.limb_span.1 - p.limb_span.0) * f;
        let start = trunk.point_at(t);
        let (c, s) = cos_sin(p.limb_elevation + rng.range(-0.02, 0.02));
        let d = around_y(i as f32 * 0.382 + rng.range(0.0, 0.06)) * c + V3::Y * s;
        let length = p.spread * rng.range(0.85, 1.1) * (1.0 - 0.35 * f);
        let base_radius = trunk.radius_at(t) * 0.62;
        let limb = Limb::branch(start, d, length, length * 0.3, base_radius, 12);
        let end = limb.point_at(1.0);
        add_limb(
            &mut bark,
            &limb,
            10,
            rng.fork(),
            &p.bark,
            Cap::Point(start - d * base_radius),
            Cap::Point(end + limb.end_direction() * 0.15),
            3 + i as u32,
        );
        let size = p.clump * rng.range(0.85, 1.12) * (1.0 - 0.2 * f);
        blobs.push((end + d * (0.25 * size) + V3::Y * (0.35 * size), size));
    }
    blobs.push((top + V3::Y * (0.4 * p.clump), p.clump * 0.95));
    let n = blobs.len() as f32;
    let mut centre = V3::ZERO;
    for (c, _) in &blobs {
        centre += *c * (1.0 / n);
    }
    blobs.push((centre, p.clump * 1.15));

    let mut foliage = Builder::new();
    for (group, (c, size)) in blobs.into_iter().enumerate() {
        let blob = Blob {
            centre: c,
            radii: v3(size, size * p.squash, size),
            seed: rng.fork(),
            lumpiness: 0.22,
        };
        let tint = mix(WHITE, [0.86, 1.0, 0.78], rng.next_f32());
        add_blob(&mut foliage, &blob, 16, 32, tint, centre, group as u32);
    }
    vec![
        Part::new(
            "trunk",
            bark.build(),
            Material::opaque("bark", p.bark_rgb, 0.9),
        ),
        Part::new(
            "canopy",
            foliage.build(),
            Material::opaque("foliage", p.foliage_rgb, 0.82),
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::surface::tests::assert_watertight;

    #[test]
    fn crowns_are_closed_and_sit_above_a_bare_trunk() {
        let parts = broadleaf(&Broadleaf {
            seed: 5,
            leader: 7.0,
            trunk_radius: 0.3,
            bend: 0.5,
            limbs: 3,
            limb_span: (0.5, 0.8),
            limb_elevation: 0.1,
            spread: 2.5,
            clump: 1.8,
            squash: 0.8,
            bark: BarkStyle {
                color: [1.0; 3],
                ridge_depth: 0.1,
                ridges: 4.0,
                banded: false,
            },
            bark_rgb: [0.4, 0.3, 0.2],
            foliage_rgb: [0.2, 0.4, 0.1],
        });
        assert_watertight(&parts[1].mesh);
        let (lo, hi) = parts[1].mesh.bounds();
        assert!(lo[1] > 1.5, "canopy reaches down to {}", lo[1]);
        assert!(hi[1] > 8.0);
        let (trunk_lo, _) = parts[0].mesh.bounds();
        assert!(trunk_lo[1] < 0.0);
    }
}

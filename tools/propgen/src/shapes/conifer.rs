//! Conifers: a spruce of stacked closed whorls (star-edged cones with drooping branch
//! tips and a concave underside) and a pine with a tall bare trunk under a crown of
//! flattened needle clumps on upswept branches.

use crate::math::{around_y, hash_all, noise3, unit, v3, Rng, V3};
use crate::mesh::{Builder, Rgb, WHITE};
use crate::scene::{Material, Part};
use crate::shapes::bark::{add_limb, BarkStyle, Limb};
use crate::shapes::canopy::{add_blob, Blob};
use crate::shapes::{mix, shade};
use crate::surface::{close_apex, loft, Cap, End};

const BARK: BarkStyle = BarkStyle {
    color: [1.0, 0.95, 0.9],
    ridge_depth: 0.12,
    ridges: 4.0,
    banded: false,
};

pub fn bark_material() -> Material {
    Material::opaque("bark", [0.36, 0.25, 0.17], 0.92)
}

pub fn foliage_material(rgb: [f32; 3]) -> Material {
    Material::opaque("foliage", rgb, 0.85)
}

/// A spruce or fir: `whorls` closed cones from `crown_base` metres up to `height`.
#[derive(Clone, Copy, Debug)]
pub struct Spruce {
    pub seed: u32,
    pub height: f32,
    /// Radius of the lowest whorl.
    pub radius: f32,
    pub crown_base: f32,
    pub whorls: usize,
    /// Points around each whorl ring.
    pub segments: usize,
    /// Branch tips around each whorl's rim.
    pub tips: f32,
    pub trunk_radius: f32,
    pub foliage_rgb: [f32; 3],
}

pub fn spruce(p: &Spruce) -> Vec<Part> {
    let mut rng = Rng::new(p.seed);
    let mut bark = Builder::new();
    let trunk = Limb::trunk(rng.fork(), p.height - 0.4, p.trunk_radius, 0.03, 28, 0.3);
    let tip = trunk.point_at(1.0) + V3::Y * 0.3;
    add_limb(
        &mut bark,
        &trunk,
        14,
        rng.fork(),
        &BARK,
        Cap::Flat,
        Cap::Point(tip),
        0,
    );

    let mut foliage = Builder::new();
    let n = p.whorls;
    let spacing = (p.height - p.crown_base) / (n - 1) as f32;
    for i in 0..n {
        let t = i as f32 / (n - 1) as f32;
        let radius = p.radius * (1.0 - 0.82 * t) * rng.range(0.92, 1.08);
        // Small top whorls stay tall enough to overlap the next one up.
        let cone = (radius * 1.25).max(spacing * 1.7);
        // The top whorl's apex is the tree's tip; lower ones overlap the next.
        let rim = p.crown_base + (p.height - cone - p.crown_base) * t;
        let centre = trunk
            .point_at((rim + 0.1) / p.height)
            .scale(v3(1.0, 0.0, 1.0));
        let whorl = Whorl {
            seed: rng.fork(),
            base: centre + V3::Y * rim,
            radius,
            height: cone,
            segments: p.segments,
            tips: p.tips,
            color: shade(WHITE, 0.85 + 0.15 * t),
        };
        add_whorl(&mut foliage, &whorl, (i as u32) * 2);
    }
    vec![
        Part::new("trunk", bark.build(), bark_material()),
        Part::new("foliage", foliage.build(), foliage_material(p.foliage_rgb)),
    ]
}

struct Whorl {
    seed: u32,
    /// Centre of the rim.
    base: V3,
    radius: f32,
    height: f32,
    segments: usize,
    tips: f32,
    color: Rgb,
}

/// One whorl: a closed cone whose rim is star-shaped (branch tips) and drooping,
/// with a concave underside meeting the top at a hard rim. Uses smoothing groups
/// `group` (top) and `group + 1` (underside).
fn add_whorl(b: &mut Builder, w: &Whorl, group: u32) {
    const TOP_RINGS: usize = 6;
    const UNDER_RINGS: usize = 3;
    let phase = unit(hash_all(&[w.seed, 1]));
    let spike = |turns: f32| {
        let x = turns * w.tips + phase;
        1.0 - ((x - x.floor()) * 2.0 - 1.0).abs()
    };
    let droop = 0.16 * w.radius;
    // s: 0 at the rim to 1 at the apex; `lift` is the height at s above the rim.
    let ring = |b: &mut Builder, s: f32, lift: f32, shade_k: f32| -> Vec<u32> {
        (0..w.segments)
            .map(|j| {
                let turns = j as f32 / w.segments as f32;
                let k = spike(turns) * (1.0 - s);
                let r = w.radius * (1.0 - s) * (1.0 + 0.3 * k);
                let d = around_y(turns);
                let mut p = w.base + d * r + V3::Y * (lift - droop * k);
                let n = noise3(w.seed, p * 1.3);
                p += d * (0.1 * w.radius * n * (1.0 - s)) + V3::Y * (0.05 * w.radius * n);
                let tip_light = mix(WHITE, [1.1, 1.12, 0.85], k);
                let color = shade(tip_light, shade_k * (0.9 + 0.1 * n));
                b.point(p, [0, 1, 2].map(|c| w.color[c] * color[c]))
            })
            .collect()
    };

    let mut under = Vec::with_capacity(UNDER_RINGS + 1);
    for k in (1..=UNDER_RINGS).rev() {
        let s = k as f32 / (UNDER_RINGS + 1) as f32;
        under.push(ring(b, s, w.height * 0.3 * s, 0.35 + 0.1 * (1.0 - s)));
    }
    let mut top = vec![ring(b, 0.0, 0.0, 1.0)];
    under.push(top[0].clone());
    for k in 1..TOP_RINGS {
        let s = k as f32 / TOP_RINGS as f32;
        top.push(ring(b, s, w.height * s * (1.6 - 0.6 * s), 1.0 - 0.5 * s));
    }
    let under_v: Vec<f32> = (0..under.len())
        .map(|i| 0.3 * i as f32 / UNDER_RINGS as f32)
        .collect();
    let top_v: Vec<f32> = (0..top.len())
        .map(|i| 0.3 + 0.7 * i as f32 / TOP_RINGS as f32)
        .collect();
    loft(b, &under, &under_v, 1.0, group + 1);
    loft(b, &top, &top_v, 1.0, group);

    let dark = shade(w.color, 0.35);
    let under_apex = b.point(w.base + V3::Y * (w.height * 0.3), dark);
    close_apex(
        b,
        &under[0],
        under_apex,
        0.0,
        0.0,
        1.0,
        End::Start,
        group + 1,
    );
    let top_apex = b.point(w.base + V3::Y * w.height, shade(w.color, 0.6));
    let last = top.len() - 1;
    close_apex(
        b,
        &top[last],
        top_apex,
        top_v[last],
        1.0,
        1.0,
        End::Finish,
        group,
    );
}

/// A pine: tall trunk, upswept branches in the top third, each ending in a flat
/// clump of needles, plus one clump at the top.
#[derive(Clone, Copy, Debug)]
pub struct Pine {
    pub seed: u32,
    pub height: f32,
    pub trunk_radius: f32,
    pub branches: usize,
    /// Clump size multiplier.
    pub crown: f32,
}

pub fn pine(p: &Pine) -> Vec<Part> {
    let mut rng = Rng::new(p.seed);
    let mut bark = Builder::new();
    let mut needles = Builder::new();
    let trunk_height = p.height - 0.9 * p.crown;
    let trunk = Limb::trunk(rng.fork(), trunk_height, p.trunk_radius, 0.06, 40, 1.2);
    let tip = trunk.point_at(1.0) + V3::Y * 0.4;
    add_limb(
        &mut bark,
        &trunk,
        16,
        rng.fork(),
        &PINE_BARK,
        Cap::Flat,
        Cap::Point(tip),
        0,
    );

    let crown_centre = trunk.point_at(0.85);
    let color = WHITE;
    let mut group = 0;
    for i in 0..p.branches {
        let t = 0.58 + 0.36 * i as f32 / p.branches as f32;
        let start = trunk.point_at(t);
        let d =
            (around_y(i as f32 * 0.382 + rng.range(0.0, 0.08)) + V3::Y * 0.55).normalize_or(V3::Y);
        let length = p.crown * rng.range(1.2, 2.0) * (1.2 - 0.5 * (t - 0.58) / 0.36);
        let base_radius = trunk.radius_at(t) * 0.45;
        let limb = Limb::branch(start, d, length, length * 0.25, base_radius, 8);
        let end = limb.point_at(1.0);
        add_limb(
            &mut bark,
            &limb,
            8,
            rng.fork(),
            &PINE_BARK,
            Cap::Point(start - d * base_radius),
            Cap::Point(end + limb.end_direction() * 0.1),
            3 + i as u32,
        );
        let size = p.crown * rng.range(0.8, 1.1);
        let blob = Blob {
            centre: end + V3::Y * (0.25 * size),
            radii: v3(1.35 * size, 0.7 * size, 1.35 * size),
            seed: rng.fork(),
            lumpiness: 0.35,
        };
        add_blob(&mut needles, &blob, 12, 26, color, crown_centre, group);
        group += 1;
    }
    let top = Blob {
        centre: trunk.point_at(1.0) + V3::Y * (0.2 * p.crown),
        radii: v3(1.1 * p.crown, 0.7 * p.crown, 1.1 * p.crown),
        seed: rng.fork(),
        lumpiness: 0.3,
    };
    add_blob(&mut needles, &top, 12, 26, color, crown_centre, group);
    vec![
        Part::new(
            "trunk",
            bark.build(),
            Material::opaque("bark", [0.45, 0.27, 0.16], 0.9),
        ),
        Part::new(
            "needles",
            needles.build(),
            foliage_material([0.07, 0.15, 0.07]),
        ),
    ]
}

const PINE_BARK: BarkStyle = BarkStyle {
    color: [1.0, 0.95, 0.92],
    ridge_depth: 0.08,
    ridges: 5.0,
    banded: false,
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::surface::tests::assert_watertight;

    #[test]
    fn a_whorl_is_a_closed_shell_with_a_hard_rim() {
        let mut b = Builder::new();
        let w = Whorl {
            seed: 3,
            base: V3::Y,
            radius: 2.0,
            height: 2.5,
            segments: 32,
            tips: 7.0,
            color: [1.0; 3],
        };
        add_whorl(&mut b, &w, 0);
        let mesh = b.build();
        assert_watertight(&mesh);
        // The rim ring splits into top and underside vertices.
        assert!(mesh.vertex_count() > 32 * 10);
    }

    #[test]
    fn spruce_foliage_is_watertight_and_reaches_the_top() {
        let parts = spruce(&Spruce {
            seed: 1,
            height: 8.0,
            radius: 2.0,
            crown_base: 1.0,
            whorls: 5,
            segments: 24,
            tips: 6.0,
            trunk_radius: 0.2,
            foliage_rgb: [0.1, 0.2, 0.1],
        });
        assert_eq!(parts.len(), 2);
        assert_watertight(&parts[1].mesh);
        let (_, hi) = parts[1].mesh.bounds();
        assert!((7.5..8.6).contains(&hi[1]), "top at {}", hi[1]);
        assert_ne!(parts[0].material, parts[1].material);
    }
}

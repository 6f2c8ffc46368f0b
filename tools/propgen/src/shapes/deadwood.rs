//! Deadwood on the ground: bleached driftwood with worn branch stubs, and a sawn log
//! whose cut ends (annual rings in the vertex colours) are a part of their own.

use crate::math::{fbm3, v3, Rng, V3};
use crate::mesh::{Builder, Rgb, WHITE};
use crate::scene::{Material, Part};
use crate::shapes::bark::{add_limb, BarkStyle, Limb};
use crate::surface::{close_apex, loft, Cap, End};

#[derive(Clone, Copy, Debug)]
pub struct Driftwood {
    pub seed: u32,
    pub length: f32,
    pub radius: f32,
    pub branches: usize,
}

const WORN: BarkStyle = BarkStyle {
    color: WHITE,
    ridge_depth: 0.06,
    ridges: 7.0,
    banded: false,
};

/// A bent, bleached branch lying along X with rounded ends, resting on the ground.
pub fn driftwood(p: &Driftwood) -> Part {
    let mut rng = Rng::new(p.seed);
    let seed = rng.fork();
    let n = 28;
    let mut main = Limb {
        path: Vec::with_capacity(n + 1),
        radii: Vec::with_capacity(n + 1),
    };
    for i in 0..=n {
        let t = i as f32 / n as f32;
        // Rounded, worn ends: the radius falls off like a circle over the last radius.
        let e = (t.min(1.0 - t) * p.length / p.radius).min(1.0);
        let round = (1.0 - (1.0 - e) * (1.0 - e)).sqrt().max(0.3);
        let r = p.radius
            * (1.0 - 0.45 * t)
            * round
            * (1.0 + 0.15 * fbm3(seed, v3(t * 4.0, 0.0, 0.0), 2));
        main.radii.push(r);
        let wander = fbm3(seed ^ 3, v3(0.0, t * 2.0, 1.0), 2);
        main.path
            .push(v3(p.length * (t - 0.5), r * 0.85, wander * p.length * 0.12));
    }
    let mut b = Builder::new();
    let start_tip = main.path[0] - V3::X * (main.radii[0] * 0.8);
    let end_tip = main.path[n] + main.end_direction() * (main.radii[n] * 0.8);
    add_limb(
        &mut b,
        &main,
        18,
        rng.fork(),
        &WORN,
        Cap::Point(start_tip),
        Cap::Point(end_tip),
        0,
    );
    for i in 0..p.branches {
        let t = 0.3 + 0.4 * i as f32 / p.branches.max(1) as f32;
        let start = main.point_at(t);
        let side = if i % 2 == 0 { 1.0 } else { -1.0 };
        let d = (v3(rng.range(0.3, 0.8), rng.range(0.05, 0.25), side)).normalize_or(V3::Z);
        let radius = main.radius_at(t) * 0.55;
        let branch = Limb::branch(start, d, rng.range(0.4, 0.8), -0.05, radius, 8);
        let tip = branch.point_at(1.0) + branch.end_direction() * (radius * 0.3);
        add_limb(
            &mut b,
            &branch,
            10,
            rng.fork(),
            &WORN,
            Cap::Point(start),
            Cap::Point(tip),
            1 + i as u32,
        );
    }
    Part::new(
        "driftwood",
        b.build(),
        Material::opaque("driftwood", [0.8, 0.76, 0.7], 0.9),
    )
}

#[derive(Clone, Copy, Debug)]
pub struct Log {
    pub seed: u32,
    pub length: f32,
    pub radius: f32,
    /// Annual rings on the cut faces.
    pub annual_rings: usize,
}

const BARK: BarkStyle = BarkStyle {
    color: WHITE,
    ridge_depth: 0.1,
    ridges: 6.0,
    banded: false,
};

/// A sawn log standing along +Y from 0 to `length` (the kit lays it down with its
/// node rotation): a bark tube open at both ends, and the two flat cut faces as a
/// separate part sharing the tube's end positions exactly.
pub fn log(p: &Log) -> Vec<Part> {
    let mut rng = Rng::new(p.seed);
    let rings = 30;
    let limb = Limb {
        path: (0..=rings)
            .map(|i| {
                let t = i as f32 / rings as f32;
                let sway = fbm3(p.seed, v3(t * 1.5, 0.0, 0.0), 2) * 0.04;
                v3(sway, p.length * t, 0.0)
            })
            .collect(),
        radii: (0..=rings)
            .map(|i| p.radius * (1.0 - 0.08 * i as f32 / rings as f32))
            .collect(),
    };
    let mut bark = Builder::new();
    let side = add_limb(
        &mut bark,
        &limb,
        28,
        rng.fork(),
        &BARK,
        Cap::Open,
        Cap::Open,
        0,
    );

    let mut faces = Builder::new();
    for (end, ring, centre) in [
        (End::Start, &side[0], limb.path[0]),
        (End::Finish, &side[rings], limb.path[rings]),
    ] {
        let outer: Vec<V3> = ring.iter().map(|&i| bark.position(i)).collect();
        add_cut_face(&mut faces, &outer, centre, end, p.annual_rings, rng.fork());
    }
    vec![
        Part::new(
            "bark",
            bark.build(),
            Material::opaque("bark", [0.34, 0.25, 0.18], 0.92),
        ),
        Part::new(
            "cut_ends",
            faces.build(),
            Material::opaque("cut_wood", [0.82, 0.66, 0.46], 0.85),
        ),
    ]
}

/// A flat disc inside `outer` (positions, in ring order): concentric rings shrink
/// toward `centre`, coloured bark-dark at the rim, then pale sapwood and alternating
/// annual rings around a darker heart.
fn add_cut_face(b: &mut Builder, outer: &[V3], centre: V3, end: End, annual: usize, seed: u32) {
    let steps = annual + 2;
    let mut rings: Vec<Vec<u32>> = Vec::with_capacity(steps);
    let mut v = Vec::with_capacity(steps);
    for k in 0..steps {
        // f: 1 at the rim to near 0 at the heart; rings a little irregular.
        let f = 1.0 - k as f32 / steps as f32;
        let wobble = if k == 0 {
            0.0
        } else {
            0.03 * fbm3(seed, v3(k as f32, 0.0, 0.0), 1)
        };
        let color: Rgb = match k {
            0 => [0.45, 0.36, 0.3],
            1 => [1.0, 0.97, 0.9],
            _ if k % 2 == 0 => [0.78, 0.72, 0.66],
            _ => [0.95, 0.92, 0.86],
        };
        let heart = 1.0 - 0.25 * (1.0 - f) * (1.0 - f);
        rings.push(
            outer
                .iter()
                .map(|&q| {
                    // The rim reuses the bark's end positions exactly: no crack.
                    let p = if k == 0 {
                        q
                    } else {
                        centre + (q - centre) * (f + wobble * f)
                    };
                    b.point(p, color.map(|c| c * heart))
                })
                .collect(),
        );
        v.push(k as f32 / steps as f32);
    }
    let heart = b.point(centre, [0.6, 0.5, 0.42]);
    let group = if end == End::Start { 0 } else { 1 };
    // Both faces are built from the rim inward; the bottom one runs the other way.
    if end == End::Start {
        rings.reverse();
        v.reverse();
        loft(b, &rings, &v, 1.0, group);
        close_apex(b, &rings[0], heart, v[0], 1.0, 1.0, End::Start, group);
    } else {
        loft(b, &rings, &v, 1.0, group);
        let last = rings.len() - 1;
        close_apex(
            b,
            &rings[last],
            heart,
            v[last],
            1.0,
            1.0,
            End::Finish,
            group,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::surface::tests::assert_watertight;

    #[test]
    fn driftwood_lies_on_the_ground_along_x() {
        let part = driftwood(&Driftwood {
            seed: 1,
            length: 2.0,
            radius: 0.1,
            branches: 2,
        });
        let (lo, hi) = part.mesh.bounds();
        assert!(hi[0] - lo[0] > 2.0);
        assert!((-0.05..0.03).contains(&lo[1]), "rests at {}", lo[1]);
        assert!(hi[1] < 0.5);
    }

    #[test]
    fn log_bark_and_cut_ends_close_each_other() {
        let parts = log(&Log {
            seed: 2,
            length: 2.0,
            radius: 0.3,
            annual_rings: 6,
        });
        let mut whole = crate::mesh::Mesh::default();
        for part in &parts {
            let base = whole.positions.len() as u32;
            whole.positions.extend_from_slice(&part.mesh.positions);
            whole
                .indices
                .extend(part.mesh.indices.iter().map(|i| i + base));
        }
        assert_watertight(&whole);
        // Cut faces are flat, facing along the log's axis.
        assert!(parts[1].mesh.normals.iter().all(|n| n[1].abs() > 0.99));
    }
}

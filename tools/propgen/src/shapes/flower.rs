//! Flowering plants: thin closed stems with basal leaves (one part), open petals
//! (a second part) and closed flower centres (a third), each with its own material.

use crate::math::{around_y, v3, Rng, V3};
use crate::mesh::{Builder, Rgb, WHITE};
use crate::scene::{Material, Part};
use crate::shapes::ribbon::{add_blade, ribbon, Blade};
use crate::shapes::{mix, shade};
use crate::surface::{ellipsoid, tube, Cap, Tube};

#[derive(Clone, Copy, Debug)]
pub struct Flower {
    pub seed: u32,
    pub plants: usize,
    /// Tallest stem, in metres.
    pub height: f32,
    pub petals: usize,
    pub petal_length: f32,
    pub petal_width: f32,
    /// How steeply petals rise: 0 spreads them flat, 1 makes a deep cup.
    pub cup: f32,
    /// Radius of the flower centre.
    pub centre_radius: f32,
    pub petal_rgb: [f32; 3],
    pub centre_rgb: [f32; 3],
}

/// An orthonormal frame whose `up` is the flower's facing direction.
struct Head {
    origin: V3,
    x: V3,
    up: V3,
    z: V3,
}

impl Head {
    fn facing(origin: V3, up: V3) -> Self {
        let x = up.cross(V3::Z).normalize_or(V3::X);
        Head {
            origin,
            x,
            up,
            z: x.cross(up),
        }
    }

    fn place(&self, local: V3) -> V3 {
        self.origin + self.x * local.x + self.up * local.y + self.z * local.z
    }
}

pub fn flower(p: &Flower) -> Vec<Part> {
    let mut rng = Rng::new(p.seed);
    let mut green = Builder::new();
    let mut petals = Builder::new();
    let mut centres = Builder::new();
    for i in 0..p.plants {
        let lean_dir = around_y(i as f32 * 0.618 + rng.range(0.0, 0.1));
        let base = lean_dir * (rng.range(0.0, 0.09) * (i.min(1) as f32)) - V3::Y * 0.01;
        let height = p.height * rng.range(0.7, 1.0);
        let lean = rng.range(0.05, 0.2);
        let path: Vec<V3> = (0..=6)
            .map(|k| {
                let s = k as f32 / 6.0;
                base + V3::Y * (height * s) + lean_dir * (lean * height * s * s)
            })
            .collect();
        let top = path[6];
        let stem = Tube {
            path: &path,
            radii: &[0.0035, 0.003, 0.003, 0.0028, 0.0026, 0.0025, 0.0025],
            segments: 6,
            start: Cap::Flat,
            finish: Cap::Point(top + V3::Y * 0.004),
            u_repeat: 1.0,
            v_per_metre: 4.0,
            group: 3 * i as u32,
        };
        tube(&mut green, &stem, |sp| {
            (sp.position, shade(WHITE, 0.6 + 0.4 * sp.along))
        });
        for leaf in 0..3 {
            let blade = Blade {
                base: base + V3::Y * 0.005,
                toward: around_y(i as f32 * 0.618 + leaf as f32 * 0.33 + rng.range(0.0, 0.1)),
                height: height * rng.range(0.2, 0.35),
                lean: rng.range(0.6, 1.0),
                droop: rng.range(0.2, 0.4),
                width: rng.range(0.008, 0.013),
                levels: 5,
            };
            add_blade(&mut green, &blade, [0.6, 0.7, 0.6], [1.0, 1.0, 0.9], 1000);
        }

        let head = Head::facing(top, (V3::Y + lean_dir * (lean * 2.0)).normalize_or(V3::Y));
        add_petals(&mut petals, &head, p, &mut rng);
        let mut centre = Builder::new();
        let r = p.centre_radius;
        ellipsoid(
            &mut centre,
            V3::Y * (0.3 * r),
            v3(r, 0.55 * r, r),
            6,
            12,
            i as u32,
            |sp| {
                (
                    sp.position,
                    shade(WHITE, 0.65 + 0.35 * sp.outward.y.max(0.0)),
                )
            },
        );
        centre.map_points(|q, _| head.place(q));
        centres.append(&centre, 0);
    }
    vec![
        Part::new(
            "stems",
            green.build(),
            Material::opaque("stem_leaf", [0.25, 0.45, 0.16], 0.85).double_sided(),
        ),
        Part::new(
            "petals",
            petals.build(),
            Material::opaque("petal", p.petal_rgb, 0.8).double_sided(),
        ),
        Part::new(
            "centres",
            centres.build(),
            Material::opaque("flower_centre", p.centre_rgb, 0.9),
        ),
    ]
}

/// A ring of petals around the head: each a strip from near the centre outward,
/// rising by `cup`, widest in its middle, with a rounded tip.
fn add_petals(b: &mut Builder, head: &Head, p: &Flower, rng: &mut Rng) {
    const PROFILE: [f32; 6] = [0.35, 0.8, 1.0, 0.95, 0.6, 0.0];
    let phase = rng.next_f32();
    for k in 0..p.petals {
        let dir = around_y(k as f32 / p.petals as f32 + phase + rng.range(-0.01, 0.01));
        let side = V3::Y.cross(dir);
        let length = p.petal_length * rng.range(0.9, 1.1);
        let n = PROFILE.len();
        let mut spine = Vec::with_capacity(n);
        let mut colors: Vec<Rgb> = Vec::with_capacity(n);
        for i in 0..n {
            let s = i as f32 / (n - 1) as f32;
            let local = dir * (p.centre_radius * 0.6 + length * s)
                + V3::Y * (length * (p.cup * (0.5 * s + 0.8 * s * s) + 0.15 * s * (1.0 - s)));
            spine.push(head.place(local));
            colors.push(mix([0.75, 0.72, 0.6], WHITE, (s * 2.0).min(1.0)));
        }
        let widths: Vec<f32> = PROFILE.iter().map(|w| w * p.petal_width).collect();
        let sides = vec![head.place(side) - head.origin; n];
        ribbon(b, &spine, &widths, &sides, &colors, k as u32);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::surface::tests::assert_watertight;

    #[test]
    fn flowers_have_stems_petals_and_closed_centres_as_three_parts() {
        let parts = flower(&Flower {
            seed: 1,
            plants: 3,
            height: 0.4,
            petals: 12,
            petal_length: 0.03,
            petal_width: 0.005,
            cup: 0.2,
            centre_radius: 0.01,
            petal_rgb: [1.0; 3],
            centre_rgb: [1.0, 0.8, 0.1],
        });
        assert_eq!(parts.len(), 3);
        assert_watertight(&parts[2].mesh);
        assert_eq!(parts[1].mesh.triangle_count(), 3 * 12 * (2 * 4 + 1));
        let (_, hi) = parts[1].mesh.bounds();
        assert!((0.25..0.48).contains(&hi[1]), "petals reach {}", hi[1]);
        let materials: Vec<&str> = parts.iter().map(|p| p.material.name.as_str()).collect();
        assert_eq!(materials, ["stem_leaf", "petal", "flower_centre"]);
    }
}

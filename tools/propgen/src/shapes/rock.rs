//! Stones of every size, from pebbles to boulders: a noise-displaced ellipsoid with a
//! flattened base, optionally cut by fracture planes. Every point on a fracture face
//! lies exactly on its plane, and each face is its own smoothing group, so facets
//! shade flat with hard edges while the weathered rest stays smooth.

use crate::math::{around_y, cos_sin, fbm3, noise3, smoothstep, v3, Rng, V3};
use crate::mesh::{Builder, Rgb};
use crate::scene::{Material, Part};
use crate::shapes::{mix, shade};
use crate::surface::ellipsoid;

#[derive(Clone, Copy, Debug)]
pub struct Rock {
    pub seed: u32,
    /// Extents before displacement and cuts, in metres.
    pub size: V3,
    pub rings: usize,
    pub segments: usize,
    /// Displacement as a fraction of the radii.
    pub roughness: f32,
    /// Number of fracture planes.
    pub cuts: usize,
    /// Where the planes cut, as a fraction of the extent in their direction.
    pub cut_depth: f32,
    /// How much of the top grows moss or lichen, `0..1`.
    pub moss: f32,
    /// A pale quartz band across the stone.
    pub vein: bool,
}

struct Plane {
    normal: V3,
    offset: f32,
}

impl Plane {
    fn distance(&self, p: V3) -> f32 {
        p.dot(self.normal) - self.offset
    }
}

/// The stone as one part with `material`.
pub fn rock(p: &Rock, name: &str, material: Material) -> Part {
    let mut rng = Rng::new(p.seed);
    let radii = p.size * 0.5;
    let planes: Vec<Plane> = (0..p.cuts)
        .map(|i| {
            let (c, s) = cos_sin(rng.range(-0.04, 0.2));
            let normal = around_y(i as f32 / p.cuts as f32 + rng.range(0.0, 0.12)) * c + V3::Y * s;
            let reach = normal.scale(radii).length();
            Plane {
                normal,
                offset: reach * p.cut_depth * rng.range(0.9, 1.1),
            }
        })
        .collect();
    let floor = -radii.y * 0.62;
    let lift = -floor - p.size.y * 0.03;
    let (shape_seed, color_seed) = (rng.fork(), rng.fork());
    // Off-centre, so the band crosses the flank rather than the top pole.
    let vein = Plane {
        normal: v3(0.85, 0.1, 0.5).normalize_or(V3::X),
        offset: 0.45,
    };

    let mut b = Builder::new();
    ellipsoid(&mut b, V3::ZERO, radii, p.rings, p.segments, 0, |sp| {
        let d = sp.outward;
        let bumps = 0.8 * fbm3(shape_seed, d * 1.3, 4) + 0.2 * noise3(shape_seed ^ 1, d * 5.0);
        let mut q = d.scale(radii) * (1.0 + p.roughness * bumps);
        for _ in 0..3 {
            for plane in &planes {
                q = q - plane.normal * plane.distance(q).max(0.0);
            }
        }
        q.y = q.y.max(floor);
        let on_face = planes.iter().any(|plane| plane.distance(q).abs() < 1e-5);

        let rel = v3(q.x / radii.x, q.y / radii.y, q.z / radii.z);
        let speckle = 0.86 + 0.14 * noise3(color_seed, rel * 6.0);
        let ground = 0.55 + 0.45 * smoothstep((q.y - floor) / (radii.y * 0.7));
        let cavity = 0.82 + 0.18 * smoothstep(bumps * 2.0 + 0.5);
        let mut color: Rgb = [speckle * ground * cavity; 3];
        if on_face {
            color = shade(mix(color, [1.0, 0.97, 0.92], 0.2), 1.03);
        } else if p.moss > 0.0 {
            let patch = noise3(color_seed ^ 7, rel * 2.5) * 0.5 + 0.5;
            let cover =
                smoothstep((d.y - 0.55 + 0.5 * p.moss) * 3.0) * smoothstep((patch - 0.35) * 4.0);
            color = mix(color, [0.45, 0.62, 0.25], cover * p.moss);
        }
        if p.vein {
            let band = smoothstep(1.0 - vein.distance(rel).abs() * 4.0);
            color = mix(shade(color, 0.5), [1.0, 0.98, 0.95], band);
        }
        (q, color)
    });
    b.regroup(|corners, group| {
        if let Some(i) = planes
            .iter()
            .position(|plane| corners.iter().all(|&c| plane.distance(c).abs() < 1e-5))
        {
            1 + i as u32
        } else if corners.iter().all(|c| c.y == floor) {
            1 + planes.len() as u32
        } else {
            group
        }
    });
    b.map_points(|q, _| q + V3::Y * lift);
    Part::new(name, b.build(), material)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::surface::tests::{assert_watertight, volume};

    fn sample(cuts: usize) -> Part {
        rock(
            &Rock {
                seed: 11,
                size: v3(1.0, 0.8, 0.9),
                rings: 18,
                segments: 36,
                roughness: 0.15,
                cuts,
                cut_depth: 0.7,
                moss: 0.5,
                vein: cuts == 0,
            },
            "stone",
            Material::opaque("granite", [0.5; 3], 0.9),
        )
    }

    #[test]
    fn stones_are_closed_and_rest_just_below_ground() {
        for cuts in [0, 5] {
            let mesh = sample(cuts).mesh;
            assert_watertight(&mesh);
            assert!(volume(&mesh) > 0.1);
            let (lo, hi) = mesh.bounds();
            assert!((-0.05..0.0).contains(&lo[1]), "base at {}", lo[1]);
            assert!(hi[1] > 0.4);
        }
    }

    #[test]
    fn fracture_planes_make_flat_facets_with_hard_edges() {
        let smooth = sample(0).mesh;
        let cut = sample(5).mesh;
        // Hard edges split vertices: a cut stone has many more vertices per triangle.
        let ratio = |m: &crate::mesh::Mesh| m.vertex_count() as f32 / m.triangle_count() as f32;
        assert!(ratio(&cut) > ratio(&smooth) * 1.1);
        // Facet vertices share their plane's exact normal.
        let mut normals: Vec<[u32; 3]> = cut.normals.iter().map(|n| n.map(f32::to_bits)).collect();
        normals.sort();
        let most_common = normals
            .chunk_by(|a, b| a == b)
            .map(|run| run.len())
            .max()
            .unwrap();
        assert!(most_common > 20);
    }
}

//! Foliage clumps: closed, noise-displaced ellipsoids with ambient occlusion baked
//! into the vertex colours (darker underneath and toward the crown's centre).

use crate::math::{fbm3, noise3, smoothstep, v3, V3};
use crate::mesh::{Builder, Rgb};
use crate::shapes::shade;
use crate::surface::ellipsoid;

/// One clump of leaves.
#[derive(Clone, Copy, Debug)]
pub struct Blob {
    pub centre: V3,
    pub radii: V3,
    pub seed: u32,
    /// Displacement as a fraction of the radii.
    pub lumpiness: f32,
}

impl Blob {
    /// The displaced surface point in the unit direction `d` from the centre.
    pub fn surface(&self, d: V3) -> V3 {
        let big = fbm3(self.seed, d * 1.6, 3);
        let small = noise3(self.seed ^ 0x3c3c, d * 4.5);
        let k = 1.0 + self.lumpiness * (0.75 * big + 0.35 * small);
        self.centre + d.scale(self.radii) * k
    }
}

/// Builds `blob` into `b` with `rings × segments` resolution, coloured `color`
/// darkened underneath and on the side facing `crown_centre`.
pub fn add_blob(
    b: &mut Builder,
    blob: &Blob,
    rings: usize,
    segments: usize,
    color: Rgb,
    crown_centre: V3,
    group: u32,
) {
    let inward = (crown_centre - blob.centre).normalize_or(-V3::Y);
    ellipsoid(b, blob.centre, blob.radii, rings, segments, group, |sp| {
        let d = sp.outward;
        let under = 0.5 + 0.5 * smoothstep((d.y + 0.7) / 1.4);
        let hidden = 0.7 + 0.3 * smoothstep((0.6 - d.dot(inward)) / 1.2);
        let speckle = 0.88 + 0.12 * noise3(blob.seed ^ 0x99, d * 7.0 + v3(3.0, 1.0, 2.0));
        (blob.surface(d), shade(color, under * hidden * speckle))
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::surface::tests::{assert_watertight, volume};

    #[test]
    fn blobs_are_closed_lumpy_and_shaded_darker_underneath() {
        let blob = Blob {
            centre: v3(0.0, 5.0, 0.0),
            radii: v3(2.0, 1.5, 2.0),
            seed: 4,
            lumpiness: 0.25,
        };
        let mut b = Builder::new();
        add_blob(&mut b, &blob, 12, 24, [0.8, 1.0, 0.7], v3(0.0, 4.0, 0.0), 0);
        let mesh = b.build();
        assert_watertight(&mesh);
        assert!(volume(&mesh) > 10.0);
        let (lo, hi) = mesh.bounds();
        assert!(hi[1] - lo[1] > 2.0 && hi[1] - lo[1] < 4.5);
        let top = mesh.positions.iter().position(|p| p[1] == hi[1]).unwrap();
        let bottom = mesh.positions.iter().position(|p| p[1] == lo[1]).unwrap();
        assert!(mesh.colors[top][1] > mesh.colors[bottom][1]);
    }

    #[test]
    fn surface_points_lie_near_the_ellipsoid() {
        let blob = Blob {
            centre: V3::ZERO,
            radii: v3(1.0, 1.0, 1.0),
            seed: 9,
            lumpiness: 0.2,
        };
        for d in [V3::X, V3::Y, -V3::Z, v3(0.6, 0.0, 0.8)] {
            let r = blob.surface(d).length();
            assert!((0.75..1.25).contains(&r));
        }
    }
}

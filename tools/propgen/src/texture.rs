//! Procedurally drawn textures, embedded as PNG.

use crate::math::{hash_all, unit};
use crate::png::encode_rgba;

pub const GRASS_CARD_WIDTH: u32 = 64;
pub const GRASS_CARD_HEIGHT: u32 = 128;

/// A tuft of tapering grass blades on a transparent background, base at the bottom
/// row: RGB dark green at the base to straw at the tips, alpha 255 on blades and 0
/// elsewhere (the transparent texels keep a green colour so filtering never darkens
/// blade edges).
pub fn grass_card_pixels(seed: u32) -> Vec<u8> {
    let (w, h) = (GRASS_CARD_WIDTH as usize, GRASS_CARD_HEIGHT as usize);
    let mut rgba = Vec::with_capacity(w * h * 4);
    for _ in 0..w * h {
        rgba.extend_from_slice(&[70, 110, 40, 0]);
    }
    let blades = 11;
    for blade in 0..blades {
        let r = |k: u32| unit(hash_all(&[seed, blade, k]));
        let base_x = 8.0 + (w as f32 - 16.0) * (blade as f32 + r(0)) / blades as f32;
        let height = h as f32 * (0.55 + 0.43 * r(1));
        let lean = (r(2) - 0.5) * 36.0;
        let half_width = 1.6 + 1.6 * r(3);
        let tint = 0.85 + 0.3 * r(4);
        for y in 0..h {
            // t: 0 at the blade's base (bottom row) to 1 at its tip.
            let t = (h - 1 - y) as f32 / height;
            if t > 1.0 {
                continue;
            }
            let centre = base_x + lean * t * t;
            let half = half_width * (1.0 - t) + 0.35;
            let (x0, x1) = (
                (centre - half).floor() as i32,
                (centre + half).ceil() as i32,
            );
            for x in x0.max(0)..=x1.min(w as i32 - 1) {
                let d = (x as f32 + 0.5 - centre) / half;
                if d * d > 1.0 {
                    continue;
                }
                // Darker midrib, lighter edges, base-to-tip gradient.
                let shade = tint * (0.8 + 0.2 * d * d);
                let rgb = [
                    (40.0 + 120.0 * t) * shade,
                    (85.0 + 90.0 * t) * shade,
                    (25.0 + 35.0 * t) * shade,
                ];
                let i = (y * w + x as usize) * 4;
                for k in 0..3 {
                    rgba[i + k] = rgb[k].clamp(0.0, 255.0) as u8;
                }
                rgba[i + 3] = 255;
            }
        }
    }
    rgba
}

/// [`grass_card_pixels`] as a PNG file.
pub fn grass_card_png(seed: u32) -> Vec<u8> {
    encode_rgba(
        GRASS_CARD_WIDTH,
        GRASS_CARD_HEIGHT,
        &grass_card_pixels(seed),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grass_card_has_opaque_blades_on_a_transparent_background() {
        let rgba = grass_card_pixels(1);
        let opaque = rgba.chunks(4).filter(|p| p[3] == 255).count();
        let clear = rgba.chunks(4).filter(|p| p[3] == 0).count();
        assert_eq!(opaque + clear, rgba.len() / 4);
        let share = opaque as f32 / (rgba.len() / 4) as f32;
        assert!((0.1..0.6).contains(&share), "blade coverage {share}");
        // The bottom row is mostly blade, the top row mostly clear.
        let row = |y: usize| {
            rgba[y * 256..(y + 1) * 256]
                .chunks(4)
                .filter(|p| p[3] == 255)
                .count()
        };
        assert!(row(127) > row(0));
    }

    #[test]
    fn grass_card_depends_only_on_its_seed() {
        assert_eq!(grass_card_png(3), grass_card_png(3));
        assert_ne!(grass_card_pixels(3), grass_card_pixels(4));
    }
}

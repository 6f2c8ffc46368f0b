//! Baking an imported texture into the blob the cache stores: its full mip chain.
//!
//! - Colour is averaged in linear light (sRGB decoded, averaged, encoded again), each
//!   texel weighted by its alpha, so transparent texels' colour (often black) does not
//!   darken the edges of foliage cards.
//! - Alpha is averaged as is; for alpha-tested (glTF `MASK`) textures each level's alpha
//!   is then scaled so that the fraction of texels that pass the cutoff stays that of
//!   level 0 (Castaño, "Computing alpha mipmaps", 2010, as used in The Witness): plain
//!   averaging lowers coverage level by level, and foliage thins out with distance.
//!
//! Every level is filtered from the one above it, unscaled, in `f32`; only IEEE `+ − × ÷`
//! and table look-ups, so the bytes do not depend on the thread count.

use sylva_cache::format::texture::{full_chain_length, level_size};
use sylva_cache::BakedTexture;
use sylva_mesh::srgb::{decode_texel, encode_srgb};
use sylva_mesh::Texture;

/// Bisection steps when searching a level's alpha scale (2⁻¹⁶ of its range).
const SCALE_STEPS: usize = 16;
/// The largest alpha scale considered: a level whose coverage needs more is far below
/// its cutoff everywhere (a sliver of a card), and is left at 4×.
const MAX_ALPHA_SCALE: f32 = 4.0;

/// The baked form of `texture`: every level down to 1×1. `mask_cutoff` is the alpha
/// cutoff of the alpha-tested material that uses it, if any.
pub fn bake_texture(texture: &Texture, mask_cutoff: Option<f32>) -> BakedTexture {
    let (width, height) = (texture.width, texture.height);
    let mut level = Linear::decode(texture);
    let coverage = mask_cutoff.map(|cutoff| (cutoff, coverage(&texture.rgba8, cutoff)));
    let mut levels = vec![texture.rgba8.clone()];
    for l in 1..full_chain_length(width, height) {
        level = level.halved(level_size(width, l), level_size(height, l));
        let scale = coverage.map_or(1.0, |(cutoff, target)| level.alpha_scale(cutoff, target));
        levels.push(level.encode(scale));
    }
    BakedTexture {
        width,
        height,
        levels,
    }
}

/// The fraction of texels of RGBA8 `texels` an alpha test at `cutoff` keeps (glTF:
/// alpha below the cutoff is discarded).
pub fn coverage(texels: &[u8], cutoff: f32) -> f32 {
    let threshold = alpha_threshold(cutoff);
    let kept = texels.chunks_exact(4).filter(|t| t[3] >= threshold).count();
    kept as f32 / (texels.len() / 4).max(1) as f32
}

/// The smallest 8-bit alpha the shader keeps: `a / 255 >= cutoff`.
fn alpha_threshold(cutoff: f32) -> u8 {
    (0..=255u8)
        .find(|&a| f32::from(a) / 255.0 >= cutoff)
        .unwrap_or(255)
}

/// A level in linear light: RGB linear, alpha as authored, as `f32`.
struct Linear {
    width: u32,
    height: u32,
    texels: Vec<[f32; 4]>,
}

impl Linear {
    fn decode(texture: &Texture) -> Self {
        Linear {
            width: texture.width,
            height: texture.height,
            texels: texture.rgba8.chunks_exact(4).map(decode_texel).collect(),
        }
    }

    /// The next level (`width × height`): each texel the alpha-weighted mean colour and
    /// the mean alpha of the (up to) 2×2 texels above it.
    fn halved(&self, width: u32, height: u32) -> Self {
        let mut texels = Vec::with_capacity(width as usize * height as usize);
        let at = |x: u32, y: u32| self.texels[(y * self.width + x) as usize];
        for y in 0..height {
            for x in 0..width {
                let xs = [2 * x, (2 * x + 1).min(self.width - 1)];
                let ys = [2 * y, (2 * y + 1).min(self.height - 1)];
                let mut sum = [0.0f32; 4];
                let mut plain = [0.0f32; 3];
                for &sy in &ys {
                    for &sx in &xs {
                        let t = at(sx, sy);
                        for c in 0..3 {
                            sum[c] += t[c] * t[3];
                            plain[c] += t[c];
                        }
                        sum[3] += t[3];
                    }
                }
                let texel = if sum[3] > 0.0 {
                    [
                        sum[0] / sum[3],
                        sum[1] / sum[3],
                        sum[2] / sum[3],
                        sum[3] / 4.0,
                    ]
                } else {
                    [plain[0] / 4.0, plain[1] / 4.0, plain[2] / 4.0, 0.0]
                };
                texels.push(texel);
            }
        }
        Linear {
            width,
            height,
            texels,
        }
    }

    fn alpha_byte(alpha: f32, scale: f32) -> u8 {
        // Round half up, in range: `+ 0.5` then truncation.
        ((alpha * scale).clamp(0.0, 1.0) * 255.0 + 0.5) as u8
    }

    /// The fraction of this level's texels kept at `threshold` with alpha scaled.
    fn coverage_at(&self, threshold: u8, scale: f32) -> f32 {
        let kept = self
            .texels
            .iter()
            .filter(|t| Self::alpha_byte(t[3], scale) >= threshold)
            .count();
        kept as f32 / self.texels.len() as f32
    }

    /// The alpha scale whose coverage at `cutoff` is closest to `target` (coverage only
    /// grows with the scale, so bisection finds it), 1 when that is as close.
    fn alpha_scale(&self, cutoff: f32, target: f32) -> f32 {
        let threshold = alpha_threshold(cutoff);
        let (mut low, mut high) = (0.0f32, MAX_ALPHA_SCALE);
        for _ in 0..SCALE_STEPS {
            let mid = (low + high) / 2.0;
            if self.coverage_at(threshold, mid) < target {
                low = mid;
            } else {
                high = mid;
            }
        }
        let error = |s: f32| (self.coverage_at(threshold, s) - target).abs();
        let best = if error(low) < error(high) { low } else { high };
        // Coverage moves in steps: where leaving alpha alone is as close, leave it.
        if error(1.0) <= error(best) {
            1.0
        } else {
            best
        }
    }

    fn encode(&self, alpha_scale: f32) -> Vec<u8> {
        self.texels
            .iter()
            .flat_map(|t| {
                [
                    encode_srgb(t[0]),
                    encode_srgb(t[1]),
                    encode_srgb(t[2]),
                    Self::alpha_byte(t[3], alpha_scale),
                ]
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texture(width: u32, height: u32, texel: impl Fn(u32, u32) -> [u8; 4]) -> Texture {
        let rgba8 = (0..height)
            .flat_map(|y| (0..width).map(move |x| (x, y)))
            .flat_map(|(x, y)| texel(x, y))
            .collect();
        Texture {
            width,
            height,
            rgba8,
        }
    }

    /// A grass card: blades of random width and height, tapering to their tips, with
    /// soft, noisy edges over transparency: what loses coverage fastest under plain
    /// averaging.
    fn blades(size: u32) -> Texture {
        let hash = |a: u32, b: u32| {
            (a.wrapping_mul(0x9E37_79B9) ^ b.wrapping_mul(0x85EB_CA6B)).wrapping_mul(0xC2B2_AE35)
                >> 16
        };
        texture(size, size, |x, y| {
            let column = x / 8;
            let centre = (column * 8 + 4) as f32;
            let half_width = 0.5 + (hash(column, 1) % 300) as f32 / 100.0;
            let tip = size * (hash(column, 2) % 100) / 200;
            let reach = if y < tip {
                0.0
            } else {
                half_width * (y - tip) as f32 / (size - tip) as f32
            };
            let a = ((reach - (x as f32 + 0.5 - centre).abs()) / 1.5 + 0.5).clamp(0.0, 1.0);
            let noise = (hash(x, y) % 33) as f32 - 16.0;
            let alpha = if a > 0.0 {
                (a * 255.0 + noise).clamp(0.0, 255.0)
            } else {
                0.0
            };
            [40, 160, 30, alpha as u8]
        })
    }

    #[test]
    fn the_chain_runs_down_to_one_texel() {
        let baked = bake_texture(&blades(64), None);
        assert_eq!(baked.levels.len(), 7);
        for (l, level) in baked.levels.iter().enumerate() {
            let side = 64 >> l;
            assert_eq!(level.len(), side * side * 4, "level {l}");
        }
        let odd = bake_texture(&texture(5, 3, |_, _| [1, 2, 3, 4]), None);
        let sizes: Vec<usize> = odd.levels.iter().map(Vec::len).collect();
        assert_eq!(sizes, [60, 8, 4]);
        sylva_cache::encode_texture(&odd).expect("a full chain encodes");
    }

    #[test]
    fn colour_is_averaged_in_linear_light() {
        // Black and white stripes average to 50 % linear grey, which sRGB encodes as
        // 188, not the 128 an average of the bytes gives.
        let stripes = texture(2, 2, |x, _| if x == 0 { [0, 0, 0, 255] } else { [255; 4] });
        let baked = bake_texture(&stripes, None);
        assert_eq!(baked.levels[1], [188, 188, 188, 255]);
    }

    #[test]
    fn transparent_texels_do_not_darken_the_colour() {
        let edge = texture(2, 1, |x, _| {
            if x == 0 {
                [0, 0, 0, 0]
            } else {
                [200, 100, 50, 255]
            }
        });
        let baked = bake_texture(&edge, None);
        assert_eq!(&baked.levels[1][..3], [200, 100, 50]);
        assert_eq!(baked.levels[1][3], 128);
    }

    #[test]
    fn masked_levels_keep_level_zeros_coverage_within_five_percent() {
        let card = blades(256);
        let cutoff = 0.5;
        let target = coverage(&card.rgba8, cutoff);
        assert!(target > 0.1 && target < 0.5, "a sparse card: {target}");
        let kept = bake_texture(&card, Some(cutoff));
        let plain = bake_texture(&card, None);
        // Down to 8×8: below 64 texels a single texel is more than 1.5 % of a level.
        for l in 1..=5 {
            let preserved = coverage(&kept.levels[l], cutoff);
            assert!(
                (preserved - target).abs() <= 0.05 * target,
                "level {l}: {preserved} against {target}"
            );
        }
        let thinned = coverage(&plain.levels[4], cutoff);
        assert!(
            thinned < 0.8 * target,
            "plain averaging thins the card out ({thinned} against {target})"
        );
    }

    #[test]
    fn opaque_textures_keep_their_alpha() {
        let opaque = texture(4, 4, |x, y| [x as u8 * 60, y as u8 * 60, 9, 255]);
        let baked = bake_texture(&opaque, Some(0.5));
        assert!(baked
            .levels
            .iter()
            .all(|l| l.chunks(4).all(|t| t[3] == 255)));
    }
}

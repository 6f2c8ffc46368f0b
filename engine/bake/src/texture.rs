//! Baking an imported texture into the blob the cache stores: its mip chain, block
//! compressed.
//!
//! - Colour is averaged in linear light (sRGB decoded, averaged, encoded again), each
//!   texel weighted by its alpha, so transparent texels' colour (often black) does not
//!   darken the edges of foliage cards.
//! - Alpha is averaged as is; for alpha-tested (glTF `MASK`) textures each level's alpha
//!   is then scaled so that the fraction of texels that pass the cutoff stays that of
//!   level 0 (Castaño, "Computing alpha mipmaps", 2010, as used in The Witness): plain
//!   averaging lowers coverage level by level, and foliage thins out with distance.
//! - Normal maps are averaged as vectors and renormalised per level; linear data
//!   (occlusion, roughness, metallic) is averaged as is.
//! - Levels larger than [`TextureSettings::max_size`] are dropped (the chain is filtered
//!   from the full-size image, then starts at the first level that fits), like
//!   gltfpack's `-tl` or an engine's texture size limit.
//! - Textures whose sides are multiples of 4 are block compressed: BC1 for opaque colour
//!   and linear data, BC3 for colour with alpha, BC5 for normal maps (X and Y; the
//!   shader rebuilds Z). 4 or 8 bits a texel instead of 32.
//!
//! Every level is filtered from the one above it, unscaled, in `f32`; only IEEE `+ − × ÷
//! sqrt` and table look-ups, so the bytes do not depend on the thread count.

use sylva_cache::format::texture::{full_chain_length, level_size};
use sylva_cache::{BakedTexture, PixelFormat};
use sylva_mesh::srgb::{decode_texel, encode_srgb};
use sylva_mesh::{Texture, TextureKind};

/// Bisection steps when searching a level's alpha scale (2⁻¹⁶ of its range).
const SCALE_STEPS: usize = 16;
/// The largest alpha scale considered: a level whose coverage needs more is far below
/// its cutoff everywhere (a sliver of a card), and is left at 4×.
const MAX_ALPHA_SCALE: f32 = 4.0;

/// How textures are baked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TextureSettings {
    /// The largest width or height kept.
    pub max_size: u32,
    /// Alpha-tested textures keep level 0's alpha coverage at every level.
    pub coverage_mips: bool,
}

impl Default for TextureSettings {
    /// 1024²: a prop a metre or two tall fills at most a few hundred pixels of a 1080p
    /// frame at painting distance, so a 1024² map is already above one texel a pixel,
    /// and three 2048² maps (colour, normal, metallic-roughness) would cost 11 MB a prop
    /// even block compressed. Coverage-preserving mips on.
    fn default() -> Self {
        TextureSettings {
            max_size: 1024,
            coverage_mips: true,
        }
    }
}

/// The baked form of `texture`: every level from the first no larger than
/// `settings.max_size` down to 1×1. `mask_cutoff` is the alpha cutoff of the
/// alpha-tested material that uses it as its base colour, if any.
pub fn bake_texture(
    texture: &Texture,
    mask_cutoff: Option<f32>,
    settings: &TextureSettings,
) -> BakedTexture {
    let (width, height) = (texture.width, texture.height);
    let kind = texture.kind;
    let coverage = match (kind, settings.coverage_mips) {
        (TextureKind::Color, true) => {
            mask_cutoff.map(|cutoff| (cutoff, coverage(&texture.rgba8, cutoff)))
        }
        _ => None,
    };
    let first = (0..full_chain_length(width, height))
        .find(|&l| level_size(width, l).max(level_size(height, l)) <= settings.max_size)
        .unwrap_or(full_chain_length(width, height) - 1);
    let mut level = Linear::decode(texture);
    let mut rgba_levels = Vec::new();
    if first == 0 {
        rgba_levels.push(texture.rgba8.clone());
    }
    for l in 1..full_chain_length(width, height) {
        level = level.halved(level_size(width, l), level_size(height, l));
        if l >= first {
            let scale = coverage.map_or(1.0, |(cutoff, target)| level.alpha_scale(cutoff, target));
            rgba_levels.push(level.encode(scale));
        }
    }
    let (width, height) = (level_size(width, first), level_size(height, first));
    let format = pixel_format(kind, width, height, &rgba_levels[0]);
    let levels = rgba_levels
        .iter()
        .enumerate()
        .map(|(l, rgba)| format.encode(rgba, level_size(width, l), level_size(height, l)))
        .collect();
    BakedTexture {
        width,
        height,
        format,
        levels,
    }
}

/// How a texture of `kind` is stored: block compressed where its size allows (wgpu
/// wants BC textures' sides to be whole blocks), else RGBA8.
fn pixel_format(kind: TextureKind, width: u32, height: u32, level0: &[u8]) -> PixelFormat {
    let blocks = width.is_multiple_of(4) && height.is_multiple_of(4);
    match (kind, blocks) {
        (TextureKind::Color, false) => PixelFormat::Rgba8Srgb,
        (TextureKind::Normal | TextureKind::Linear, false) => PixelFormat::Rgba8Linear,
        (TextureKind::Color, true) if level0.chunks_exact(4).all(|t| t[3] == 255) => {
            PixelFormat::Bc1Srgb
        }
        (TextureKind::Color, true) => PixelFormat::Bc3Srgb,
        (TextureKind::Normal, true) => PixelFormat::Bc5,
        (TextureKind::Linear, true) => PixelFormat::Bc1Linear,
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

/// `value` in 0..=1 as the nearest byte (round half up, in range).
fn unorm_byte(value: f32) -> u8 {
    (value.clamp(0.0, 1.0) * 255.0 + 0.5) as u8
}

/// A level as filtering sees it, as `f32`: colour in linear light with alpha as
/// authored, normals as vectors in −1..1, linear data as is.
struct Linear {
    kind: TextureKind,
    width: u32,
    height: u32,
    texels: Vec<[f32; 4]>,
}

impl Linear {
    fn decode(texture: &Texture) -> Self {
        let unorm = |b: u8| f32::from(b) / 255.0;
        let texels = texture
            .rgba8
            .chunks_exact(4)
            .map(|t| match texture.kind {
                TextureKind::Color => decode_texel(t),
                TextureKind::Normal => [
                    unorm(t[0]) * 2.0 - 1.0,
                    unorm(t[1]) * 2.0 - 1.0,
                    unorm(t[2]) * 2.0 - 1.0,
                    1.0,
                ],
                TextureKind::Linear => [unorm(t[0]), unorm(t[1]), unorm(t[2]), unorm(t[3])],
            })
            .collect();
        Linear {
            kind: texture.kind,
            width: texture.width,
            height: texture.height,
            texels,
        }
    }

    /// The next level (`width × height`) from the (up to) 2×2 texels above each texel:
    /// colour the alpha-weighted mean and alpha the mean; normals the mean direction;
    /// linear data the mean.
    fn halved(&self, width: u32, height: u32) -> Self {
        let mut texels = Vec::with_capacity(width as usize * height as usize);
        let at = |x: u32, y: u32| self.texels[(y * self.width + x) as usize];
        for y in 0..height {
            for x in 0..width {
                let xs = [2 * x, (2 * x + 1).min(self.width - 1)];
                let ys = [2 * y, (2 * y + 1).min(self.height - 1)];
                let mut weighted = [0.0f32; 4];
                let mut plain = [0.0f32; 4];
                for &sy in &ys {
                    for &sx in &xs {
                        let t = at(sx, sy);
                        for c in 0..3 {
                            weighted[c] += t[c] * t[3];
                        }
                        weighted[3] += t[3];
                        for c in 0..4 {
                            plain[c] += t[c];
                        }
                    }
                }
                let mean = plain.map(|v| v / 4.0);
                let texel = match self.kind {
                    TextureKind::Color if weighted[3] > 0.0 => [
                        weighted[0] / weighted[3],
                        weighted[1] / weighted[3],
                        weighted[2] / weighted[3],
                        weighted[3] / 4.0,
                    ],
                    TextureKind::Color => [mean[0], mean[1], mean[2], 0.0],
                    TextureKind::Normal => {
                        let length =
                            (mean[0] * mean[0] + mean[1] * mean[1] + mean[2] * mean[2]).sqrt();
                        if length > 0.0 {
                            [mean[0] / length, mean[1] / length, mean[2] / length, 1.0]
                        } else {
                            [0.0, 0.0, 1.0, 1.0]
                        }
                    }
                    TextureKind::Linear => mean,
                };
                texels.push(texel);
            }
        }
        Linear {
            kind: self.kind,
            width,
            height,
            texels,
        }
    }

    /// The fraction of this level's texels kept at `threshold` with alpha scaled.
    fn coverage_at(&self, threshold: u8, scale: f32) -> f32 {
        let kept = self
            .texels
            .iter()
            .filter(|t| unorm_byte(t[3] * scale) >= threshold)
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

    /// The level as RGBA8, alpha scaled by `alpha_scale` (colour only).
    fn encode(&self, alpha_scale: f32) -> Vec<u8> {
        self.texels
            .iter()
            .flat_map(|t| match self.kind {
                TextureKind::Color => [
                    encode_srgb(t[0]),
                    encode_srgb(t[1]),
                    encode_srgb(t[2]),
                    unorm_byte(t[3] * alpha_scale),
                ],
                TextureKind::Normal => [
                    unorm_byte(t[0] * 0.5 + 0.5),
                    unorm_byte(t[1] * 0.5 + 0.5),
                    unorm_byte(t[2] * 0.5 + 0.5),
                    255,
                ],
                TextureKind::Linear => t.map(unorm_byte),
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
            kind: TextureKind::Color,
            rgba8,
        }
    }

    fn bake(texture: &Texture, mask_cutoff: Option<f32>) -> BakedTexture {
        bake_texture(texture, mask_cutoff, &TextureSettings::default())
    }

    /// Level `l` as the GPU samples it: RGBA8 texels.
    fn decoded(baked: &BakedTexture, l: usize) -> Vec<u8> {
        let (w, h) = (level_size(baked.width, l), level_size(baked.height, l));
        baked.format.decode(&baked.levels[l], w, h)
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
        let baked = bake(&blades(64), None);
        assert_eq!(baked.levels.len(), 7);
        assert_eq!(baked.format, PixelFormat::Bc3Srgb);
        for (l, level) in baked.levels.iter().enumerate() {
            let side = (64usize >> l).div_ceil(4);
            assert_eq!(level.len(), side * side * 16, "level {l}");
        }
        let odd = bake(&texture(5, 3, |_, _| [1, 2, 3, 4]), None);
        assert_eq!(odd.format, PixelFormat::Rgba8Srgb);
        let sizes: Vec<usize> = odd.levels.iter().map(Vec::len).collect();
        assert_eq!(sizes, [60, 8, 4]);
        sylva_cache::encode_texture(&odd).expect("a full chain encodes");
    }

    #[test]
    fn colour_is_averaged_in_linear_light() {
        // Black and white stripes average to 50 % linear grey, which sRGB encodes as
        // 188, not the 128 an average of the bytes gives.
        let stripes = texture(2, 2, |x, _| if x == 0 { [0, 0, 0, 255] } else { [255; 4] });
        let baked = bake(&stripes, None);
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
        let baked = bake(&edge, None);
        assert_eq!(&baked.levels[1][..3], [200, 100, 50]);
        assert_eq!(baked.levels[1][3], 128);
    }

    #[test]
    fn masked_levels_keep_level_zeros_coverage_within_five_percent() {
        let card = blades(256);
        let cutoff = 0.5;
        let target = coverage(&card.rgba8, cutoff);
        assert!(target > 0.1 && target < 0.5, "a sparse card: {target}");
        let kept = bake(&card, Some(cutoff));
        let plain = bake(&card, None);
        // Measured on the BC3 texels the GPU samples, down to 8×8: below 64 texels a
        // single texel is more than 1.5 % of a level.
        for l in 1..=5 {
            let preserved = coverage(&decoded(&kept, l), cutoff);
            assert!(
                (preserved - target).abs() <= 0.05 * target,
                "level {l}: {preserved} against {target}"
            );
        }
        let thinned = coverage(&decoded(&plain, 4), cutoff);
        assert!(
            thinned < 0.8 * target,
            "plain averaging thins the card out ({thinned} against {target})"
        );
    }

    #[test]
    fn opaque_textures_keep_their_alpha() {
        let opaque = texture(4, 4, |x, y| [x as u8 * 60, y as u8 * 60, 9, 255]);
        let baked = bake(&opaque, Some(0.5));
        assert_eq!(baked.format, PixelFormat::Bc1Srgb);
        assert!((0..baked.levels.len()).all(|l| decoded(&baked, l).chunks(4).all(|t| t[3] == 255)));
    }

    #[test]
    fn coverage_preservation_can_be_turned_off() {
        let card = blades(64);
        let off = TextureSettings {
            coverage_mips: false,
            ..TextureSettings::default()
        };
        assert_eq!(bake_texture(&card, Some(0.5), &off), bake(&card, None));
        assert_ne!(bake(&card, Some(0.5)), bake(&card, None));
    }

    #[test]
    fn levels_above_the_size_limit_are_dropped() {
        let big = texture(64, 32, |x, y| [(x * 4) as u8, (y * 8) as u8, 0, 255]);
        let limited = TextureSettings {
            max_size: 16,
            ..TextureSettings::default()
        };
        let baked = bake_texture(&big, None, &limited);
        assert_eq!((baked.width, baked.height), (16, 8));
        assert_eq!(baked.levels.len(), 5);
        // The same chain as the unlimited bake's, from its third level on.
        let full = bake(&big, None);
        assert_eq!(baked.levels[..], full.levels[2..]);
    }

    #[test]
    fn normal_maps_are_renormalised_per_level_and_stored_as_bc5() {
        // Two texels tilted 60° either way along X: their mean points straight up, at
        // half the length before renormalising.
        let tilt = |x: u32| {
            let nx = if x.is_multiple_of(2) {
                0.866f32
            } else {
                -0.866
            };
            [
                unorm_byte(nx * 0.5 + 0.5),
                128,
                unorm_byte(0.5 * 0.5 + 0.5),
                255,
            ]
        };
        let map = Texture {
            kind: TextureKind::Normal,
            ..texture(8, 8, |x, _| tilt(x))
        };
        let baked = bake(&map, None);
        assert_eq!(baked.format, PixelFormat::Bc5);
        let level1 = decoded(&baked, 1);
        for texel in level1.chunks(4) {
            let x = f32::from(texel[0]) / 127.5 - 1.0;
            let y = f32::from(texel[1]) / 127.5 - 1.0;
            // Z is rebuilt from X and Y: a unit vector has |xy| ≤ 1 and here ≈ 0.
            assert!(x.abs() < 0.03 && y.abs() < 0.03, "{texel:?}");
        }
    }

    #[test]
    fn linear_data_is_averaged_as_is() {
        let data = Texture {
            kind: TextureKind::Linear,
            ..texture(2, 2, |x, _| if x == 0 { [0, 0, 0, 255] } else { [255; 4] })
        };
        let baked = bake(&data, None);
        assert_eq!(baked.format, PixelFormat::Rgba8Linear);
        assert_eq!(baked.levels[1], [128, 128, 128, 255]);
    }
}

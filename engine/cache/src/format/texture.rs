//! Texture blob files, version 2: one baked texture each, named after the BLAKE3 hash
//! of their bytes ([`TextureId`]), so props that use the same texture share one file.
//! Little-endian throughout.
//!
//! ```text
//! header (64 bytes, see `header.rs`), magic b"SYLVATEX", version TEXTURE_FORMAT_VERSION
//! 64 width u32, height u32 (1 ..= MAX_TEXTURE_SIZE)
//! 72 pixel format u8 (PixelFormat's code), 3 zero bytes
//! 76 level count u32 (1 ..= the full mip chain's length)
//! 80 levels, largest first: level l is max(1, width >> l) × max(1, height >> l)
//!    texels, as the pixel format stores them (rows top to bottom; block formats in
//!    rows of 4×4 blocks, partial blocks padded); each level starts 16-byte aligned
//!    and is zero-padded to a multiple of 16.
//! ```

use super::{header, malformed, FormatError, BLOB_ALIGN, HEADER_SIZE};
use crate::model::TextureId;

pub const TEXTURE_MAGIC: &[u8; 8] = b"SYLVATEX";
/// Bumped on any change to the bytes a texture blob holds.
pub const TEXTURE_FORMAT_VERSION: u32 = 2;
/// Largest width or height a blob holds (the importer refuses larger images).
pub const MAX_TEXTURE_SIZE: u32 = 16_384;
/// Where the first level starts.
const LEVELS_OFFSET: usize = HEADER_SIZE + 16;

/// How a blob's texels are stored. The block formats are the BC (S3TC / RGTC) formats
/// every desktop GPU samples directly; [`TextureView::decode_level`] turns any of them
/// into RGBA8 for adapters without them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum PixelFormat {
    /// 4 bytes a texel, sRGB-encoded colour and linear alpha.
    Rgba8Srgb,
    /// 4 bytes a texel, linear.
    Rgba8Linear,
    /// BC1: 8 bytes a 4×4 block, sRGB colour (opaque textures).
    Bc1Srgb,
    /// BC1 of linear data (occlusion, roughness, metallic).
    Bc1Linear,
    /// BC3: 16 bytes a block, sRGB colour with interpolated alpha (alpha-tested cards).
    Bc3Srgb,
    /// BC5: 16 bytes a block, two linear channels (a normal map's X and Y).
    Bc5,
}

impl PixelFormat {
    const ALL: [PixelFormat; 6] = [
        PixelFormat::Rgba8Srgb,
        PixelFormat::Rgba8Linear,
        PixelFormat::Bc1Srgb,
        PixelFormat::Bc1Linear,
        PixelFormat::Bc3Srgb,
        PixelFormat::Bc5,
    ];

    /// The byte the file stores.
    pub fn code(self) -> u8 {
        Self::ALL.iter().position(|&f| f == self).unwrap() as u8
    }

    pub fn from_code(code: u8) -> Option<Self> {
        Self::ALL.get(code as usize).copied()
    }

    /// Bytes of a 4×4 block, `None` for the per-texel formats.
    pub fn block_bytes(self) -> Option<usize> {
        match self {
            PixelFormat::Rgba8Srgb | PixelFormat::Rgba8Linear => None,
            PixelFormat::Bc1Srgb | PixelFormat::Bc1Linear => Some(8),
            PixelFormat::Bc3Srgb | PixelFormat::Bc5 => Some(16),
        }
    }

    /// Colour channels are sRGB-encoded (the GPU decodes them when sampling).
    pub fn is_srgb(self) -> bool {
        matches!(
            self,
            PixelFormat::Rgba8Srgb | PixelFormat::Bc1Srgb | PixelFormat::Bc3Srgb
        )
    }

    /// Bytes of a `width × height` image.
    pub fn image_bytes(self, width: u32, height: u32) -> u64 {
        let (w, h) = (u64::from(width), u64::from(height));
        match self.block_bytes() {
            None => w * h * 4,
            Some(block) => w.div_ceil(4) * h.div_ceil(4) * block as u64,
        }
    }

    /// The codec of a block format.
    fn codec(self) -> Option<texpresso::Format> {
        match self {
            PixelFormat::Rgba8Srgb | PixelFormat::Rgba8Linear => None,
            PixelFormat::Bc1Srgb | PixelFormat::Bc1Linear => Some(texpresso::Format::Bc1),
            PixelFormat::Bc3Srgb => Some(texpresso::Format::Bc3),
            PixelFormat::Bc5 => Some(texpresso::Format::Bc5),
        }
    }

    /// `rgba` (`width × height` RGBA8 texels) stored in this format: block formats are
    /// encoded with texpresso's cluster fit (BC5 takes R and G). Deterministic: the
    /// encoder's arithmetic is IEEE `f32` and libm, in a fixed order.
    pub fn encode(self, rgba: &[u8], width: u32, height: u32) -> Vec<u8> {
        match self.codec() {
            None => rgba.to_vec(),
            Some(codec) => {
                let (w, h) = (width as usize, height as usize);
                let mut out = vec![0; codec.compressed_size(w, h)];
                // Colour fitted weighted by alpha: the (often black) colour of
                // transparent texels would otherwise pull a card's edge blocks dark.
                let params = texpresso::Params {
                    weigh_colour_by_alpha: self == PixelFormat::Bc3Srgb,
                    ..texpresso::Params::default()
                };
                codec.compress(rgba, w, h, params, &mut out);
                out
            }
        }
    }

    /// `stored` (one `width × height` image in this format) as RGBA8 texels; BC5's
    /// two channels land in R and G, with B 0 and A 255.
    pub fn decode(self, stored: &[u8], width: u32, height: u32) -> Vec<u8> {
        match self.codec() {
            None => stored.to_vec(),
            Some(codec) => {
                let (w, h) = (width as usize, height as usize);
                let mut out = vec![0; w * h * 4];
                codec.decompress(stored, w, h, &mut out);
                out
            }
        }
    }
}

/// A baked texture: its levels in `format`, largest first.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BakedTexture {
    pub width: u32,
    pub height: u32,
    pub format: PixelFormat,
    /// Level `l` holds `format.image_bytes(level_size(width, l), level_size(height, l))`
    /// bytes.
    pub levels: Vec<Vec<u8>>,
}

/// The side of mip level `level` of a texture side `size` long.
pub fn level_size(size: u32, level: usize) -> u32 {
    size.checked_shr(level as u32).unwrap_or(0).max(1)
}

/// How many levels a full mip chain of `width × height` has (down to 1×1).
pub fn full_chain_length(width: u32, height: u32) -> usize {
    (32 - width.max(height).max(1).leading_zeros()) as usize
}

/// An encoded texture blob and its content address.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TextureFile {
    pub id: TextureId,
    pub bytes: Vec<u8>,
}

/// A parsed texture blob; its levels borrow the file bytes.
#[derive(Clone, Debug, PartialEq)]
pub struct TextureView<'a> {
    pub width: u32,
    pub height: u32,
    pub format: PixelFormat,
    /// Levels, largest first, each exactly its stored bytes (upload as is).
    pub levels: Vec<&'a [u8]>,
}

impl TextureView<'_> {
    /// The mean of the texels (RGBA, `[0, 1]`, as stored: sRGB colours stay encoded),
    /// from the smallest level, which the baker box-filters down from the largest;
    /// `None` for a texture without levels.
    pub fn mean(&self) -> Option<[f32; 4]> {
        let last = self.levels.len().checked_sub(1)?;
        let (w, h) = (level_size(self.width, last), level_size(self.height, last));
        let texels = self.format.decode(self.levels[last], w, h);
        let mut sum = [0.0f64; 4];
        for texel in texels.chunks_exact(4) {
            for (s, &c) in sum.iter_mut().zip(texel) {
                *s += f64::from(c);
            }
        }
        let count = (texels.len() / 4).max(1) as f64;
        Some(sum.map(|s| (s / count / 255.0) as f32))
    }
}

fn level_bytes(format: PixelFormat, width: u32, height: u32, level: usize) -> u64 {
    format.image_bytes(level_size(width, level), level_size(height, level))
}

fn align(n: usize) -> usize {
    n.div_ceil(BLOB_ALIGN) * BLOB_ALIGN
}

fn check_size(width: u32, height: u32, levels: usize) -> Result<(), FormatError> {
    if !(1..=MAX_TEXTURE_SIZE).contains(&width) || !(1..=MAX_TEXTURE_SIZE).contains(&height) {
        return Err(malformed("texture", format!("size {width}×{height}")));
    }
    if !(1..=full_chain_length(width, height)).contains(&levels) {
        return Err(malformed(
            "texture",
            format!("{levels} levels for {width}×{height}"),
        ));
    }
    Ok(())
}

/// Writes `texture` as a blob file. Deterministic: the same texture gives the same bytes
/// (and so the same id).
pub fn encode_texture(texture: &BakedTexture) -> Result<TextureFile, FormatError> {
    let (width, height, format) = (texture.width, texture.height, texture.format);
    check_size(width, height, texture.levels.len())?;
    let mut out = header::start(TEXTURE_MAGIC, TEXTURE_FORMAT_VERSION);
    out.extend_from_slice(&width.to_le_bytes());
    out.extend_from_slice(&height.to_le_bytes());
    out.extend_from_slice(&[format.code(), 0, 0, 0]);
    out.extend_from_slice(&(texture.levels.len() as u32).to_le_bytes());
    for (l, level) in texture.levels.iter().enumerate() {
        if level.len() as u64 != level_bytes(format, width, height, l) {
            return Err(malformed(
                "texture level",
                format!(
                    "level {l} of {width}×{height} {format:?} has {} bytes",
                    level.len()
                ),
            ));
        }
        out.extend_from_slice(level);
        out.resize(align(out.len()), 0);
    }
    header::seal(&mut out);
    Ok(TextureFile {
        id: TextureId::of(&out),
        bytes: out,
    })
}

impl<'a> TextureView<'a> {
    /// Checks header, checksum, size, pixel format, level count, zero padding and that
    /// the file ends where its last level does (so a blob that parses is its own
    /// encoding), then returns views into `bytes`.
    pub fn parse(bytes: &'a [u8]) -> Result<Self, FormatError> {
        header::check(bytes, TEXTURE_MAGIC, TEXTURE_FORMAT_VERSION)?;
        let body = bytes
            .get(HEADER_SIZE..LEVELS_OFFSET)
            .ok_or(FormatError::Truncated {
                what: "the texture header",
                needed: LEVELS_OFFSET as u64,
                available: bytes.len() as u64,
            })?;
        let word = |at: usize| u32::from_le_bytes(body[at..at + 4].try_into().unwrap());
        let (width, height, count) = (word(0), word(4), word(12) as usize);
        let format = match (PixelFormat::from_code(body[8]), &body[9..12]) {
            (Some(format), [0, 0, 0]) => format,
            _ => {
                return Err(malformed(
                    "texture",
                    format!("pixel format {:?}", &body[8..12]),
                ))
            }
        };
        check_size(width, height, count)?;
        let mut levels = Vec::with_capacity(count);
        let mut at = LEVELS_OFFSET;
        for l in 0..count {
            let len = level_bytes(format, width, height, l) as usize;
            let end = at + len;
            if end > bytes.len() {
                return Err(FormatError::Truncated {
                    what: "texture level",
                    needed: end as u64,
                    available: bytes.len() as u64,
                });
            }
            levels.push(&bytes[at..end]);
            at = align(end).min(bytes.len());
            if bytes[end..at].iter().any(|&b| b != 0) {
                return Err(malformed(
                    "texture",
                    format!("padding of level {l} is not zero"),
                ));
            }
        }
        if at != bytes.len() {
            return Err(malformed(
                "texture",
                format!(
                    "{} bytes after the last level",
                    bytes.len() as i64 - at as i64
                ),
            ));
        }
        Ok(TextureView {
            width,
            height,
            format,
            levels,
        })
    }

    /// [`TextureView::parse`] of the blob that must have content address `id`: a file
    /// whose bytes hash to anything else is refused, whatever its checksum says.
    pub fn parse_as(id: TextureId, bytes: &'a [u8]) -> Result<Self, FormatError> {
        let found = TextureId::of(bytes);
        if found != id {
            return Err(FormatError::WrongTexture {
                expected: id.to_hex(),
                found: found.to_hex(),
            });
        }
        Self::parse(bytes)
    }

    /// The size of level `level`.
    pub fn level_size(&self, level: usize) -> (u32, u32) {
        (
            level_size(self.width, level),
            level_size(self.height, level),
        )
    }

    /// Level `level` as RGBA8 texels, whatever the format stores.
    pub fn decode_level(&self, level: usize) -> Vec<u8> {
        let (w, h) = self.level_size(level);
        self.format.decode(self.levels[level], w, h)
    }

    /// An owned copy, e.g. to re-encode it.
    pub fn to_baked(&self) -> BakedTexture {
        BakedTexture {
            width: self.width,
            height: self.height,
            format: self.format,
            levels: self.levels.iter().map(|l| l.to_vec()).collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    //! The blob format's guarantees, like the entry format's: a committed golden blob
    //! decodes and re-encodes to the same bytes; every truncation, every change to any
    //! single byte and any other version are refused.

    use std::path::PathBuf;

    use super::*;

    /// An 8×4 BC3 texture with its full chain (8×4, 4×2, 2×1, 1×1: two blocks, then one
    /// partial block a level).
    fn sample() -> BakedTexture {
        let format = PixelFormat::Bc3Srgb;
        let levels = (0..4)
            .map(|l| {
                let (w, h) = (level_size(8, l), level_size(4, l));
                let rgba: Vec<u8> = (0..w * h * 4)
                    .map(|i| (i * 37 + l as u32 * 11) as u8)
                    .collect();
                format.encode(&rgba, w, h)
            })
            .collect();
        BakedTexture {
            width: 8,
            height: 4,
            format,
            levels,
        }
    }

    #[test]
    fn a_texture_s_mean_is_its_smallest_level_decoded() {
        let baked = sample();
        let file = encode_texture(&baked).unwrap();
        let view = TextureView::parse(&file.bytes).unwrap();
        let texel = PixelFormat::Bc3Srgb.decode(&baked.levels[3], 1, 1);
        let expected: Vec<f32> = texel.iter().map(|&c| f32::from(c) / 255.0).collect();
        assert_eq!(view.mean().unwrap().to_vec(), expected);
        let empty = TextureView {
            levels: Vec::new(),
            ..view
        };
        assert_eq!(empty.mean(), None);
    }

    fn golden_path() -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/golden-texture-v2.sylvatex")
    }

    /// After a deliberate format change (with a new `TEXTURE_FORMAT_VERSION`), write the
    /// new golden file with `SYLVA_BLESS=1 cargo test -p sylva-cache golden`.
    #[test]
    fn the_golden_texture_decodes_and_reencodes_identically() {
        if std::env::var_os("SYLVA_BLESS").is_some() {
            std::fs::write(golden_path(), encode_texture(&sample()).unwrap().bytes).unwrap();
        }
        let golden = std::fs::read(golden_path()).expect(
            "tests/data/golden-texture-v2.sylvatex is committed; a deliberate format change writes a new golden file",
        );
        let view = TextureView::parse(&golden).unwrap();
        assert_eq!(view.to_baked(), sample());
        let file = encode_texture(&sample()).unwrap();
        assert_eq!(file.bytes, golden, "the encoder's output changed");
        assert_eq!(file.id, TextureId::of(&golden));
        let range = golden.as_ptr_range();
        for level in &view.levels {
            assert!(range.contains(&level.as_ptr()), "levels borrow the file");
            assert_eq!(
                (level.as_ptr() as usize - range.start as usize) % BLOB_ALIGN,
                0
            );
        }
    }

    #[test]
    fn every_truncation_is_refused() {
        let bytes = encode_texture(&sample()).unwrap().bytes;
        crate::format::tests::assert_every_truncation_is_refused(&bytes, |b| {
            TextureView::parse(b).map(drop)
        });
    }

    #[test]
    fn every_change_to_any_single_byte_is_detected() {
        let file = encode_texture(&sample()).unwrap();
        let mut bytes = file.bytes.clone();
        for i in 0..bytes.len() {
            for pattern in 1..=u8::MAX {
                bytes[i] ^= pattern;
                assert!(
                    TextureView::parse(&bytes).is_err(),
                    "byte {i} XOR {pattern:#04x} went unnoticed"
                );
                assert!(matches!(
                    TextureView::parse_as(file.id, &bytes),
                    Err(FormatError::WrongTexture { .. })
                ));
                bytes[i] ^= pattern;
            }
        }
        assert!(TextureView::parse_as(file.id, &bytes).is_ok());
    }

    #[test]
    fn other_versions_magics_and_entries_are_refused() {
        let mut bytes = encode_texture(&sample()).unwrap().bytes;
        bytes[8..12].copy_from_slice(&1u32.to_le_bytes());
        assert_eq!(
            TextureView::parse(&bytes).unwrap_err(),
            FormatError::UnsupportedVersion {
                found: 1,
                supported: TEXTURE_FORMAT_VERSION
            }
        );
        let entry = crate::encode(&crate::format::tests::sample()).unwrap();
        assert!(matches!(
            TextureView::parse(&entry),
            Err(FormatError::BadMagic { .. })
        ));
    }

    #[test]
    fn levels_of_the_wrong_size_or_count_are_refused_when_encoding() {
        let mut short = sample();
        short.levels[1].pop();
        let mut long = sample();
        long.levels.push(vec![0; 16]);
        let mut empty = sample();
        empty.levels.clear();
        for texture in [short, long, empty] {
            assert!(matches!(
                encode_texture(&texture),
                Err(FormatError::Malformed { .. })
            ));
        }
    }

    #[test]
    fn block_formats_round_trip_within_their_precision() {
        // A smooth gradient: BC keeps it within a few steps per channel (BC1 gets it
        // opaque: it has only 1-bit alpha).
        let (w, h) = (8u32, 8u32);
        for format in [PixelFormat::Bc1Srgb, PixelFormat::Bc3Srgb, PixelFormat::Bc5] {
            let rgba: Vec<u8> = (0..w * h)
                .flat_map(|i| {
                    let (x, y) = (i % w, i / w);
                    let alpha = match (format, x < 4) {
                        (PixelFormat::Bc1Srgb, _) | (_, true) => 255,
                        _ => 0,
                    };
                    [
                        (x * 8 + y) as u8,
                        (x * 4 + 40) as u8,
                        (200 - y * 8) as u8,
                        alpha,
                    ]
                })
                .collect();
            let stored = format.encode(&rgba, w, h);
            assert_eq!(stored.len() as u64, format.image_bytes(w, h));
            let decoded = format.decode(&stored, w, h);
            let channels = if format == PixelFormat::Bc5 { 2 } else { 3 };
            for (a, b) in rgba.chunks(4).zip(decoded.chunks(4)) {
                for c in 0..channels {
                    assert!(a[c].abs_diff(b[c]) <= 20, "{format:?}: {a:?} became {b:?}");
                }
            }
            if format == PixelFormat::Bc3Srgb {
                assert!(rgba
                    .chunks(4)
                    .zip(decoded.chunks(4))
                    .all(|(a, b)| a[3] == b[3]));
            }
        }
        for code in 0..=255u8 {
            if let Some(format) = PixelFormat::from_code(code) {
                assert_eq!(format.code(), code);
            }
        }
        assert_eq!(PixelFormat::Bc1Srgb.image_bytes(1, 1), 8);
        assert_eq!(PixelFormat::Bc5.image_bytes(5, 4), 32);
    }

    #[test]
    fn an_unknown_pixel_format_is_refused() {
        let mut bytes = encode_texture(&sample()).unwrap().bytes;
        bytes[72] = 200;
        super::header::seal(&mut bytes);
        assert!(matches!(
            TextureView::parse(&bytes),
            Err(FormatError::Malformed { .. })
        ));
    }

    #[test]
    fn a_full_chain_ends_at_one_texel() {
        assert_eq!(full_chain_length(1, 1), 1);
        assert_eq!(full_chain_length(512, 512), 10);
        assert_eq!(full_chain_length(2048, 1), 12);
        assert_eq!(full_chain_length(3, 2), 2);
        assert_eq!(level_size(3, 1), 1);
        assert_eq!(level_size(2048, 11), 1);
        assert_eq!(level_size(1, 40), 1);
    }
}

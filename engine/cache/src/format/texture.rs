//! Texture blob files, version 1: one baked texture each, named after the BLAKE3 hash
//! of their bytes ([`TextureId`]), so props that use the same texture share one file.
//! Little-endian throughout.
//!
//! ```text
//! header (64 bytes, see `header.rs`), magic b"SYLVATEX", version TEXTURE_FORMAT_VERSION
//! 64 width u32, height u32 (1 ..= MAX_TEXTURE_SIZE)
//! 72 pixel format u8 (0: RGBA8, sRGB-encoded colour, rows top to bottom), 3 zero bytes
//! 76 level count u32 (1 ..= the full mip chain's length)
//! 80 levels, largest first: level l is max(1, width >> l) × max(1, height >> l)
//!    texels; each starts 16-byte aligned and is zero-padded to a multiple of 16.
//! ```

use super::{header, malformed, FormatError, BLOB_ALIGN, HEADER_SIZE};

pub const TEXTURE_MAGIC: &[u8; 8] = b"SYLVATEX";
/// Bumped on any change to the bytes a texture blob holds.
pub const TEXTURE_FORMAT_VERSION: u32 = 1;
/// Largest width or height a blob holds (the importer refuses larger images).
pub const MAX_TEXTURE_SIZE: u32 = 16_384;
/// Where the first level starts.
const LEVELS_OFFSET: usize = HEADER_SIZE + 16;
/// The only pixel format so far.
const RGBA8_SRGB: u8 = 0;

/// A baked texture: RGBA8 levels (sRGB colour), largest first.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BakedTexture {
    pub width: u32,
    pub height: u32,
    /// Level `l` holds `level_size(width, l) × level_size(height, l) × 4` bytes.
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

/// The content address of a texture blob: BLAKE3 of its file bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TextureId(pub [u8; 32]);

impl TextureId {
    pub fn of(file_bytes: &[u8]) -> Self {
        TextureId(*blake3::hash(file_bytes).as_bytes())
    }

    pub fn to_hex(&self) -> String {
        self.0.iter().map(|b| format!("{b:02x}")).collect()
    }

    /// The blob's file inside the cache folder.
    pub fn file_name(&self) -> String {
        format!("{}.{}", self.to_hex(), crate::store::TEXTURE_EXTENSION)
    }
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
    /// RGBA8 levels, largest first, each exactly its texels' bytes (upload as is).
    pub levels: Vec<&'a [u8]>,
}

fn level_bytes(width: u32, height: u32, level: usize) -> u64 {
    u64::from(level_size(width, level)) * u64::from(level_size(height, level)) * 4
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
    let (width, height) = (texture.width, texture.height);
    check_size(width, height, texture.levels.len())?;
    let mut out = header::start(TEXTURE_MAGIC, TEXTURE_FORMAT_VERSION);
    out.extend_from_slice(&width.to_le_bytes());
    out.extend_from_slice(&height.to_le_bytes());
    out.extend_from_slice(&[RGBA8_SRGB, 0, 0, 0]);
    out.extend_from_slice(&(texture.levels.len() as u32).to_le_bytes());
    for (l, level) in texture.levels.iter().enumerate() {
        if level.len() as u64 != level_bytes(width, height, l) {
            return Err(malformed(
                "texture level",
                format!("level {l} of {width}×{height} has {} bytes", level.len()),
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
    /// Checks header, checksum, size, level count, zero padding and that the file ends
    /// where its last level does (so a blob that parses is its own encoding), then
    /// returns views into `bytes`.
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
        if body[8..12] != [RGBA8_SRGB, 0, 0, 0] {
            return Err(malformed(
                "texture",
                format!("pixel format {:?}", &body[8..12]),
            ));
        }
        check_size(width, height, count)?;
        let mut levels = Vec::with_capacity(count);
        let mut at = LEVELS_OFFSET;
        for l in 0..count {
            let len = level_bytes(width, height, l) as usize;
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

    /// An owned copy, e.g. to re-encode it.
    pub fn to_baked(&self) -> BakedTexture {
        BakedTexture {
            width: self.width,
            height: self.height,
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

    /// A 3×2 texture with its full chain (3×2, 1×1).
    fn sample() -> BakedTexture {
        BakedTexture {
            width: 3,
            height: 2,
            levels: vec![(0..24).map(|i| i * 10).collect(), vec![1, 2, 3, 4]],
        }
    }

    fn golden_path() -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/golden-texture-v1.sylvatex")
    }

    /// After a deliberate format change (with a new `TEXTURE_FORMAT_VERSION`), write the
    /// new golden file with `SYLVA_BLESS=1 cargo test -p sylva-cache golden`.
    #[test]
    fn the_golden_texture_decodes_and_reencodes_identically() {
        if std::env::var_os("SYLVA_BLESS").is_some() {
            std::fs::write(golden_path(), encode_texture(&sample()).unwrap().bytes).unwrap();
        }
        let golden = std::fs::read(golden_path()).expect(
            "tests/data/golden-texture-v1.sylvatex is committed; a deliberate format change writes a new golden file",
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
        bytes[8..12].copy_from_slice(&2u32.to_le_bytes());
        assert_eq!(
            TextureView::parse(&bytes).unwrap_err(),
            FormatError::UnsupportedVersion {
                found: 2,
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
        long.levels.push(vec![0; 4]);
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

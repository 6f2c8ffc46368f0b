//! The entry file format, version 8. Little-endian throughout.
//!
//! ```text
//! header (64 bytes, see `header.rs`), magic b"SYLVABAK", version FORMAT_VERSION
//! metadata (from byte 64)
//!   prop id, source path (strings: u32 length + UTF-8), bounds (6 × f32), sphere
//!     (4 × f32: centre, radius ≥ 0; finite)
//!   u32 texture count, then per texture the 32-byte [`TextureId`] of its blob file
//!   u32 part count, then per part:
//!     name, material (name, base colour 4 × f32, metallic, roughness, normal scale,
//!       occlusion strength f32, emissive 3 × f32, then per channel — base colour,
//!       metallic-roughness, normal, occlusion, emissive — texture u32 or u32::MAX,
//!       wrap u u8, wrap v u8; alpha mode u8, cutoff f32, double-sided u8),
//!     bounds (6 × f32), sphere (4 × f32), vertex count u32, index size u8 (2 or 4),
//!     vertex quantization (position offset 3 × f32, position scale 3 × f32, UV offset
//!       2 × f32, UV scale 2 × f32; finite, scales ≥ 0),
//!     vertex blob, u32 level count, then per level:
//!       index count u32, target ratio f32, achieved ratio f32, error f32 (relative),
//!       error_m f32 (metres; errors finite and ≥ 0), index blob
//!   impostor: kind u8, then
//!     0 (refused): the reason (string)
//!     1 (baked): grid u32 (even), cell texels u32 (a power of two), sphere (4 × f32,
//!       radius > 0), albedo, normal and depth textures u32 (three distinct indices
//!       into the texture list; their blobs are `grid × cell` texels square), error_m f32
//!       (metres, finite and ≥ 0)
//! blobs
//!   a blob reference is (offset u64, length u64) from the start of the file; each blob
//!   starts 16-byte aligned and is zero-padded to a multiple of 16.
//! ```
//!
//! Vertex blobs are the 24-byte packed layout of [`sylva_mesh::VertexQuantization`],
//! which the GPU reads as stored; index blobs are
//! u16 when the part has at most 65,535 vertices, else u32. Textures live in their own
//! content-addressed blob files ([`texture`](mod@texture)), which entries name; an
//! impostor's two atlases are such blobs too, so they load like material textures.

mod decode;
mod encode;
mod header;
mod impostor;
pub mod texture;

pub use crate::model::TextureId;
pub use decode::{Entry, LevelView, PartView};
pub use encode::encode;
pub use texture::{
    encode_texture, BakedTexture, PixelFormat, TextureFile, TextureView, TEXTURE_FORMAT_VERSION,
};

use thiserror::Error;

pub const MAGIC: &[u8; 8] = b"SYLVABAK";
/// Bumped on any change to the bytes an entry holds.
pub const FORMAT_VERSION: u32 = 8;
pub const HEADER_SIZE: usize = 64;
/// Where the checksum sits in the header (4 bytes); it covers `HEADER_SIZE..`.
pub const CHECKSUM_OFFSET: usize = 24;
/// Alignment of every blob in the file.
pub const BLOB_ALIGN: usize = 16;
/// Parts with more vertices than this use u32 indices.
pub const MAX_U16_VERTICES: usize = u16::MAX as usize;

/// The width of a part's indices.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IndexFormat {
    U16,
    U32,
}

impl IndexFormat {
    pub fn for_vertex_count(count: usize) -> Self {
        if count <= MAX_U16_VERTICES {
            IndexFormat::U16
        } else {
            IndexFormat::U32
        }
    }

    pub fn size(self) -> usize {
        match self {
            IndexFormat::U16 => 2,
            IndexFormat::U32 => 4,
        }
    }
}

/// The integrity checksum of an entry's body (every byte after the header): CRC-32,
/// hardware accelerated. A CRC detects every single-byte change and every burst of up
/// to 32 bits for certain, which is what a cache on disk meets (a torn write, a flipped
/// bit); it is not a defence against forgery, and need not be: keys, not checksums,
/// decide which entry belongs to which content.
pub fn checksum(body: &[u8]) -> u32 {
    crc32fast::hash(body)
}

/// Why bytes are not a valid entry.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum FormatError {
    #[error("not a sylva cache entry (magic {found:?})")]
    BadMagic { found: Vec<u8> },
    #[error("cache entry format version {found}; this build reads version {supported}")]
    UnsupportedVersion { found: u32, supported: u32 },
    #[error("truncated: {what} needs {needed} bytes, {available} are there")]
    Truncated {
        what: &'static str,
        needed: u64,
        available: u64,
    },
    #[error("the checksum does not match the content (the entry is corrupt)")]
    ChecksumMismatch,
    #[error("malformed {what}: {reason}")]
    Malformed { what: &'static str, reason: String },
    #[error("{what} is too large for the format ({value})")]
    TooLarge { what: &'static str, value: u64 },
    #[error("texture blob {expected} holds other bytes (they hash to {found}; it is corrupt)")]
    WrongTexture { expected: String, found: String },
    #[error("texture blob {file}: {source}")]
    Texture {
        file: String,
        source: Box<FormatError>,
    },
}

fn malformed(what: &'static str, reason: String) -> FormatError {
    FormatError::Malformed { what, reason }
}

/// An error in metres (or a relative one) as an entry may record it: finite and not
/// negative. The encoder and the parser both check it, so a writer cannot write what a
/// reader refuses.
fn check_error(what: &'static str, value: f32) -> Result<(), FormatError> {
    if value.is_finite() && value >= 0.0 {
        Ok(())
    } else {
        Err(malformed(
            what,
            format!("{value} is not a finite error of 0 or more"),
        ))
    }
}

/// A bounding sphere as an entry may record it: finite, of radius 0 or more (0 for a
/// prop without vertices).
fn check_sphere(what: &'static str, sphere: &sylva_mesh::Sphere) -> Result<(), FormatError> {
    let finite = sphere.center.iter().all(|c| c.is_finite()) && sphere.radius.is_finite();
    if finite && sphere.radius >= 0.0 {
        Ok(())
    } else {
        Err(malformed(
            what,
            format!("{sphere:?} is not a finite sphere of radius 0 or more"),
        ))
    }
}

#[cfg(test)]
mod tests;

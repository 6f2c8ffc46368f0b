//! The 64-byte header every cache file starts with (entries and texture blobs):
//!
//! ```text
//!   0  magic        8 bytes (b"SYLVABAK" for entries, b"SYLVATEX" for texture blobs)
//!   8  version      u32
//!   12 header size  u32 (64)
//!   16 file size    u64
//!   24 checksum     CRC-32 (IEEE) of bytes 64..file size, u32
//!   28 reserved     36 zero bytes
//! ```

use super::{checksum, malformed, FormatError, CHECKSUM_OFFSET, HEADER_SIZE};

/// Header bytes after the checksum, which must be zero.
pub(super) const RESERVED: std::ops::Range<usize> = CHECKSUM_OFFSET + 4..HEADER_SIZE;

/// A header with the file size and checksum still zero ([`seal`] fills them in).
pub(super) fn start(magic: &[u8; 8], version: u32) -> Vec<u8> {
    let mut out = Vec::with_capacity(HEADER_SIZE);
    out.extend_from_slice(magic);
    out.extend_from_slice(&version.to_le_bytes());
    out.extend_from_slice(&(HEADER_SIZE as u32).to_le_bytes());
    out.resize(HEADER_SIZE, 0);
    out
}

/// Writes the file size and the body's checksum into a finished file.
pub(super) fn seal(file: &mut [u8]) {
    let size = file.len() as u64;
    file[16..24].copy_from_slice(&size.to_le_bytes());
    let sum = checksum(&file[HEADER_SIZE..]);
    file[CHECKSUM_OFFSET..CHECKSUM_OFFSET + 4].copy_from_slice(&sum.to_le_bytes());
}

/// Checks magic, version, header size, reserved bytes, file size and checksum, in that
/// order, so a file of another kind or version is named as such before anything else.
pub(super) fn check(bytes: &[u8], magic: &[u8; 8], version: u32) -> Result<(), FormatError> {
    let header = bytes.get(..HEADER_SIZE).ok_or(FormatError::Truncated {
        what: "the header",
        needed: HEADER_SIZE as u64,
        available: bytes.len() as u64,
    })?;
    if &header[..8] != magic {
        return Err(FormatError::BadMagic {
            found: header[..8].to_vec(),
        });
    }
    let word = |at: usize| u32::from_le_bytes(header[at..at + 4].try_into().unwrap());
    let found = word(8);
    if found != version {
        return Err(FormatError::UnsupportedVersion {
            found,
            supported: version,
        });
    }
    let header_size = word(12);
    if header_size as usize != HEADER_SIZE || header[RESERVED].iter().any(|&b| b != 0) {
        return Err(malformed(
            "header",
            format!("size {header_size} or reserved bytes set"),
        ));
    }
    let file_size = u64::from_le_bytes(header[16..24].try_into().unwrap());
    if file_size != bytes.len() as u64 {
        return Err(FormatError::Truncated {
            what: "the file",
            needed: file_size,
            available: bytes.len() as u64,
        });
    }
    if checksum(&bytes[HEADER_SIZE..]) != word(CHECKSUM_OFFSET) {
        return Err(FormatError::ChecksumMismatch);
    }
    Ok(())
}

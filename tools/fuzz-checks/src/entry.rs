//! Bytes as a cache entry and as a texture blob: as they are (the checksum must refuse
//! almost everything), and with their checksum recomputed, so the structural checks
//! behind it are fuzzed too.

use sylva_cache::format::{checksum, CHECKSUM_OFFSET, HEADER_SIZE};
use sylva_cache::{encode, encode_texture, Entry, TextureView};

pub fn cache_entry(bytes: &[u8]) {
    check_parsed(bytes);
    if bytes.len() >= HEADER_SIZE {
        let mut sealed = bytes.to_vec();
        let sum = checksum(&sealed[HEADER_SIZE..]);
        sealed[CHECKSUM_OFFSET..CHECKSUM_OFFSET + 4].copy_from_slice(&sum.to_le_bytes());
        check_parsed(&sealed);
    }
}

/// Whatever parses has views inside the file, indices below the vertex count and
/// vertices that unpack to finite numbers, and re-encodes to an entry that parses to
/// the same content; a texture blob's every level decodes from its blocks.
fn check_parsed(bytes: &[u8]) {
    if let Ok(texture) = TextureView::parse(bytes) {
        let file = encode_texture(&texture.to_baked()).expect("a parsed blob re-encodes");
        assert_eq!(file.bytes, bytes, "a blob that parses is its own encoding");
        for level in 0..texture.levels.len() {
            let (w, h) = texture.level_size(level);
            assert_eq!(texture.decode_level(level).len(), (w * h * 4) as usize);
        }
    }
    let Ok(entry) = Entry::parse(bytes) else {
        return;
    };
    for part in &entry.parts {
        assert_eq!(part.vertices().len(), part.vertex_count as usize);
        assert!(
            part.vertices()
                .all(|v| v.position.iter().chain(&v.uv).all(|c| c.is_finite())),
            "packed vertices unpack to finite numbers"
        );
        for level in &part.levels {
            assert!(level.indices().all(|i| i < part.vertex_count));
            assert!(level.index_bytes_padded.len() >= level.index_bytes.len());
        }
    }
    let canonical = encode(&entry.to_baked()).expect("a parsed entry re-encodes");
    let reparsed = Entry::parse(&canonical).expect("a re-encoded entry parses");
    assert_eq!(
        encode(&reparsed.to_baked()).expect("it re-encodes again"),
        canonical,
        "re-encoding is stable"
    );
}

//! Real kit entries and a texture blob from the committed `cache/`: every truncation and every change to
//! any single byte is refused (the CRC guarantees the body; the header's fields are
//! each checked exactly), as meshoptimizer's codec tests hold its encoders to.

mod common;

use sylva::cache::{CacheDir, Entry, FormatError, TextureId, TextureView};

/// The committed entry of kit prop `id`.
fn kit_entry(id: &str) -> Vec<u8> {
    let cache = CacheDir::new(common::repo().join("cache"));
    let manifest = cache.read_manifest().unwrap();
    let (_, listed) = manifest.prop(id).unwrap();
    cache.read_entry(&listed.entry).unwrap()
}

/// The smallest kit entry, and one with a texture.
const PROPS: [&str; 2] = ["pebble/river_round", "grass/tuft_cards"];

#[test]
fn every_truncation_of_a_kit_entry_is_refused() {
    for id in PROPS {
        let bytes = kit_entry(id);
        Entry::parse(&bytes).unwrap();
        for len in 0..bytes.len() {
            let err = Entry::parse(&bytes[..len]).unwrap_err();
            assert!(
                matches!(err, FormatError::Truncated { .. }),
                "{id}, {len} bytes: {err}"
            );
        }
    }
}

#[test]
fn flipping_any_bit_or_a_whole_byte_of_a_kit_entry_is_detected() {
    let mut changes = 0;
    for id in PROPS {
        let mut bytes = kit_entry(id);
        for i in 0..bytes.len() {
            // One bit (which one rotates with the position) and all eight.
            for pattern in [1u8 << (i % 8), 0xFF] {
                bytes[i] ^= pattern;
                assert!(
                    Entry::parse(&bytes).is_err(),
                    "{id}: byte {i} XOR {pattern:#04x} went unnoticed"
                );
                bytes[i] ^= pattern;
                changes += 1;
            }
        }
        Entry::parse(&bytes).unwrap();
    }
    println!("{changes} single-byte changes, each refused");
}

/// The committed kit's texture blob (the grass cards' mip chain).
fn kit_texture_blob() -> (TextureId, Vec<u8>) {
    let cache = CacheDir::new(common::repo().join("cache"));
    let manifest = cache.read_manifest().unwrap();
    let (_, listed) = manifest.prop("grass/tuft_cards").unwrap();
    let id = Entry::parse(&cache.read_entry(&listed.entry).unwrap())
        .unwrap()
        .textures[0];
    (id, cache.read_texture(id).unwrap())
}

#[test]
fn every_truncation_and_every_bit_or_byte_flip_of_a_kit_texture_blob_is_refused() {
    let (id, mut bytes) = kit_texture_blob();
    TextureView::parse_as(id, &bytes).unwrap();
    for len in 0..bytes.len() {
        let err = TextureView::parse(&bytes[..len]).unwrap_err();
        assert!(
            matches!(err, FormatError::Truncated { .. }),
            "{len} bytes: {err}"
        );
    }
    for i in 0..bytes.len() {
        for pattern in [1u8 << (i % 8), 0xFF] {
            bytes[i] ^= pattern;
            assert!(
                TextureView::parse(&bytes).is_err(),
                "byte {i} XOR {pattern:#04x} went unnoticed"
            );
            bytes[i] ^= pattern;
        }
    }
    TextureView::parse_as(id, &bytes).unwrap();
}

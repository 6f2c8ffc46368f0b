//! Real kit entries and a texture blob from the kit's bake in `cache/`: every truncation and every change to
//! any single byte is refused (the CRC guarantees the body; the header's fields are
//! each checked exactly), as meshoptimizer's codec tests hold its encoders to.

use sylva_cache::{Entry, FormatError, TextureId, TextureView};

/// The baked entry of kit prop `id`.
fn kit_entry(id: &str) -> Vec<u8> {
    let cache = sylva_testkit::kit_cache();
    let manifest = cache.read_manifest().unwrap();
    let (_, listed) = manifest.prop(id).unwrap();
    cache.read_entry(&listed.entry).unwrap()
}

/// The smallest kit entry, and one with a texture.
const PROPS: [&str; 2] = ["pebble/river_round", "grass/tuft_cards"];

/// Every proper prefix of `bytes` (`what`) is refused by `parse` as truncated.
fn assert_truncations_refused(
    what: &str,
    bytes: &[u8],
    parse: impl Fn(&[u8]) -> Result<(), FormatError>,
) {
    parse(bytes).unwrap();
    for len in 0..bytes.len() {
        let err = parse(&bytes[..len]).unwrap_err();
        assert!(
            matches!(err, FormatError::Truncated { .. }),
            "{what}, {len} bytes: {err}"
        );
    }
}

/// One bit (which one rotates with the position) and all eight flipped at every byte of
/// `bytes` (`what`) are refused by `parse`; returns how many changes were tried.
fn assert_flips_detected(
    what: &str,
    mut bytes: Vec<u8>,
    parse: impl Fn(&[u8]) -> Result<(), FormatError>,
) -> usize {
    let mut changes = 0;
    for i in 0..bytes.len() {
        for pattern in [1u8 << (i % 8), 0xFF] {
            bytes[i] ^= pattern;
            assert!(
                parse(&bytes).is_err(),
                "{what}: byte {i} XOR {pattern:#04x} went unnoticed"
            );
            bytes[i] ^= pattern;
            changes += 1;
        }
    }
    parse(&bytes).unwrap();
    changes
}

fn parse_entry(bytes: &[u8]) -> Result<(), FormatError> {
    Entry::parse(bytes).map(drop)
}

#[test]
fn every_truncation_of_a_kit_entry_is_refused() {
    for id in PROPS {
        assert_truncations_refused(id, &kit_entry(id), parse_entry);
    }
}

#[test]
fn flipping_any_bit_or_a_whole_byte_of_a_kit_entry_is_detected() {
    let changes: usize = PROPS
        .iter()
        .map(|id| assert_flips_detected(id, kit_entry(id), parse_entry))
        .sum();
    println!("{changes} single-byte changes, each refused");
}

/// The baked kit's texture blob (the grass cards' mip chain).
fn kit_texture_blob() -> (TextureId, Vec<u8>) {
    let cache = sylva_testkit::kit_cache();
    let manifest = cache.read_manifest().unwrap();
    let (_, listed) = manifest.prop("grass/tuft_cards").unwrap();
    let id = Entry::parse(&cache.read_entry(&listed.entry).unwrap())
        .unwrap()
        .textures[0];
    (id, cache.read_texture(id).unwrap())
}

#[test]
fn every_truncation_and_every_bit_or_byte_flip_of_a_kit_texture_blob_is_refused() {
    let (id, bytes) = kit_texture_blob();
    let parse = |b: &[u8]| TextureView::parse_as(id, b).map(drop);
    assert_truncations_refused("the kit's blob", &bytes, |b| {
        TextureView::parse(b).map(drop)
    });
    assert_flips_detected("the kit's blob", bytes.clone(), |b| {
        TextureView::parse(b).map(drop)
    });
    assert_flips_detected("the kit's blob by name", bytes, parse);
}

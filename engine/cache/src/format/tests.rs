//! The format's guarantees: a committed golden entry decodes and re-encodes to the same
//! bytes; every truncation, every change to any single byte and any other version are
//! refused.

use std::path::PathBuf;

use sylva_mesh::{
    Aabb, AlphaMode, Material, Sphere, TextureBinding, Vertex, VertexQuantization, WrapMode,
    PACKED_STRIDE,
};

use super::*;
use crate::model::{BakedAsset, BakedLevel, BakedPart, ImpostorRecord, ImpostorView};

fn vertex(i: u32) -> Vertex {
    let f = i as f32;
    Vertex {
        position: [f, f * 0.5, -f],
        normal: [0.0, 1.0, 0.0],
        uv: [f * 0.25, 1.0 - f * 0.25],
        tangent: [1.0, 0.0, 0.0, if i.is_multiple_of(2) { 1.0 } else { -1.0 }],
        color: [i as u8, 255 - i as u8, 7, 255],
    }
}

/// A small asset: an alpha-masked card with two levels, a base colour and
/// metallic-roughness texture and a normal map, a plain part, and an impostor whose two
/// atlases are its fourth and fifth textures.
pub(crate) fn sample() -> BakedAsset {
    let card_vertices: Vec<Vertex> = (0..4).map(vertex).collect();
    let (card_quantization, card_vertices) = VertexQuantization::fit_and_snap(&card_vertices);
    let trunk_vertices: Vec<Vertex> = (0..3).map(vertex).collect();
    let (trunk_quantization, trunk_vertices) = VertexQuantization::fit_and_snap(&trunk_vertices);
    let card = BakedPart {
        name: "leaf".into(),
        material: Material {
            name: "leaf".into(),
            base_color_factor: [0.5, 0.8, 0.5, 1.0],
            base_color_texture: Some(TextureBinding {
                texture: 0,
                wrap_u: WrapMode::ClampToEdge,
                wrap_v: WrapMode::MirroredRepeat,
            }),
            metallic_factor: 0.25,
            roughness_factor: 0.75,
            metallic_roughness_texture: Some(TextureBinding {
                texture: 1,
                wrap_u: WrapMode::Repeat,
                wrap_v: WrapMode::Repeat,
            }),
            normal_texture: Some(TextureBinding {
                texture: 2,
                wrap_u: WrapMode::Repeat,
                wrap_v: WrapMode::ClampToEdge,
            }),
            normal_scale: 0.5,
            occlusion_strength: 0.8,
            emissive_factor: [0.0, 2.0, 0.5],
            alpha_mode: AlphaMode::Mask { cutoff: 0.4 },
            double_sided: true,
            ..Material::default()
        },
        bounds: Aabb {
            min: [0.0, 0.0, -3.0],
            max: [3.0, 1.5, 0.0],
        },
        sphere: Sphere {
            center: [1.5, 0.75, -1.5],
            radius: 2.25,
        },
        vertices: card_vertices,
        quantization: card_quantization,
        levels: vec![
            BakedLevel {
                indices: vec![0, 1, 2, 2, 1, 3],
                target_ratio: 1.0,
                achieved_ratio: 1.0,
                error: 0.0,
                error_m: 0.0,
            },
            BakedLevel {
                indices: vec![0, 1, 3],
                target_ratio: 0.5,
                achieved_ratio: 0.5,
                error: 0.125,
                error_m: 0.375,
            },
        ],
    };
    let trunk = BakedPart {
        name: "bark".into(),
        material: Material::default(),
        bounds: Aabb {
            min: [0.0; 3],
            max: [2.0, 1.0, 0.0],
        },
        sphere: Sphere {
            center: [1.0, 0.5, 0.0],
            radius: 1.2,
        },
        vertices: trunk_vertices,
        quantization: trunk_quantization,
        levels: vec![BakedLevel {
            indices: vec![0, 1, 2],
            target_ratio: 1.0,
            achieved_ratio: 1.0,
            error: 0.0,
            error_m: 0.0,
        }],
    };
    BakedAsset {
        prop_id: "broadleaf/oak".into(),
        source_path: "broadleaf/oak.glb".into(),
        bounds: card.bounds.union(trunk.bounds),
        sphere: Sphere {
            center: [1.5, 0.75, -1.5],
            radius: 2.5,
        },
        parts: vec![card, trunk],
        textures: vec![
            TextureId(*b"0123456789abcdef0123456789ABCDEF"),
            TextureId(*b"metallic-roughness-occlusion-map"),
            TextureId(*b"a tangent-space normal map, BC5."),
            TextureId(*b"impostor albedo atlas, BC3 sRGB."),
            TextureId(*b"impostor normal atlas, BC5......"),
            TextureId(*b"impostor depth atlas, BC5......."),
        ],
        impostor: ImpostorRecord::Baked(ImpostorView {
            grid: 12,
            cell_px: 16,
            sphere: Sphere {
                center: [1.5, 0.75, -1.5],
                radius: 2.5,
            },
            albedo: 3,
            normal: 4,
            depth: 5,
            error_m: 0.3125,
        }),
    }
}

/// `sample` with its impostor refused (and without the atlases).
fn refused_sample() -> BakedAsset {
    let mut asset = sample();
    asset.textures.truncate(3);
    asset.impostor = ImpostorRecord::refused("no impostor: too small");
    asset
}

fn golden_path(version: u32) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("tests/data/golden-v{version}.sylva"))
}

/// After a deliberate format change (with a new `FORMAT_VERSION`), write the new golden
/// file with `SYLVA_BLESS=1 cargo test -p sylva-cache golden`.
#[test]
fn the_golden_entry_decodes_and_reencodes_identically() {
    if std::env::var_os("SYLVA_BLESS").is_some() {
        std::fs::write(golden_path(FORMAT_VERSION), encode(&sample()).unwrap()).unwrap();
    }
    let golden = std::fs::read(golden_path(FORMAT_VERSION)).expect(
        "tests/data/golden-v8.sylva is committed; a deliberate format change writes a new golden file",
    );
    let entry = Entry::parse(&golden).unwrap();
    assert_eq!(entry.to_baked(), sample());
    let ImpostorRecord::Baked(view) = sample().impostor else {
        unreachable!("the sample has an impostor")
    };
    assert_eq!(entry.impostor(), Some(view));
    assert_eq!(entry.impostor_refusal(), None);
    assert_eq!(encode(&entry.to_baked()).unwrap(), golden);
    assert_eq!(
        encode(&sample()).unwrap(),
        golden,
        "the encoder's output changed"
    );
}

/// Entries of the previous versions (v4 without an impostor record, v5 without errors
/// in metres and the prop's sphere, v6 with the impostor's depths in its normal atlas,
/// v7 with f32 vertices)
/// are refused by version, not misread: the bake writes them anew.
#[test]
fn the_previous_golden_entries_are_refused_by_version() {
    for version in [4, 5, 6, 7] {
        let old = std::fs::read(golden_path(version)).unwrap();
        assert_eq!(
            Entry::parse(&old).unwrap_err(),
            FormatError::UnsupportedVersion {
                found: version,
                supported: FORMAT_VERSION
            }
        );
    }
}

#[test]
fn errors_in_metres_and_the_props_sphere_round_trip() {
    let bytes = encode(&sample()).unwrap();
    let entry = Entry::parse(&bytes).unwrap();
    assert_eq!(
        entry.sphere,
        Sphere {
            center: [1.5, 0.75, -1.5],
            radius: 2.5
        }
    );
    let errors: Vec<Vec<f32>> = entry
        .parts
        .iter()
        .map(|p| p.levels.iter().map(|l| l.error_m).collect())
        .collect();
    assert_eq!(errors, [vec![0.0, 0.375], vec![0.0]]);
    assert_eq!(entry.parts[0].levels[1].error, 0.125);
    assert_eq!(entry.impostor().map(|v| v.error_m), Some(0.3125));
}

/// An error that is negative or not a number, or a sphere that is not finite or of
/// negative radius, is refused by the encoder, and by the parser when a buggy writer
/// wrote it anyway (with a matching checksum), naming the field.
#[test]
fn impossible_errors_and_spheres_are_refused_naming_the_field() {
    let mut negative_level = sample();
    negative_level.parts[0].levels[1].error_m = -0.5;
    let mut nan_level = sample();
    nan_level.parts[0].levels[1].error = f32::NAN;
    let mut infinite_impostor = sample();
    if let ImpostorRecord::Baked(view) = &mut infinite_impostor.impostor {
        view.error_m = f32::INFINITY;
    }
    let mut negative_sphere = sample();
    negative_sphere.sphere.radius = -1.0;
    let mut nan_sphere = sample();
    nan_sphere.sphere.center[1] = f32::NAN;
    let cases = [
        (negative_level, "level error_m", 0.375f32, -0.5f32),
        (nan_level, "level error", 0.125, f32::NAN),
        (infinite_impostor, "impostor error_m", 0.3125, f32::INFINITY),
        (negative_sphere, "asset sphere", 2.5, -1.0),
        (nan_sphere, "asset sphere", 0.75, f32::NAN),
    ];
    let good = encode(&sample()).unwrap();
    for (asset, field, good_value, bad_value) in cases {
        let err = encode(&asset).unwrap_err();
        assert!(
            matches!(&err, FormatError::Malformed { what, .. } if *what == field),
            "{field}: {err}"
        );
        // The good entry with the one value replaced, resealed.
        let at = (HEADER_SIZE..good.len() - 4)
            .find(|&i| good[i..i + 4] == good_value.to_le_bytes())
            .unwrap();
        let mut bad = good.clone();
        bad[at..at + 4].copy_from_slice(&bad_value.to_le_bytes());
        let sum = checksum(&bad[HEADER_SIZE..]);
        bad[CHECKSUM_OFFSET..CHECKSUM_OFFSET + 4].copy_from_slice(&sum.to_le_bytes());
        let err = Entry::parse(&bad).unwrap_err();
        assert!(
            matches!(&err, FormatError::Malformed { what, .. } if *what == field),
            "{field}: {err}"
        );
    }
}

#[test]
fn a_refused_impostor_round_trips_with_its_reason() {
    let bytes = encode(&refused_sample()).unwrap();
    let entry = Entry::parse(&bytes).unwrap();
    assert_eq!(entry.impostor(), None);
    assert_eq!(entry.impostor_refusal(), Some("no impostor: too small"));
    assert_eq!(entry.to_baked(), refused_sample());
    assert_eq!(encode(&entry.to_baked()).unwrap(), bytes);
}

#[test]
fn impossible_impostors_are_refused_when_encoding() {
    let ImpostorRecord::Baked(good) = sample().impostor else {
        unreachable!("the sample has an impostor")
    };
    let bad = [
        ImpostorView { grid: 7, ..good },
        ImpostorView { grid: 0, ..good },
        ImpostorView {
            cell_px: 12,
            ..good
        },
        ImpostorView {
            cell_px: 2048,
            ..good
        },
        ImpostorView { albedo: 6, ..good },
        ImpostorView { normal: 3, ..good },
        ImpostorView { depth: 4, ..good },
        ImpostorView {
            sphere: Sphere {
                center: [f32::NAN, 0.0, 0.0],
                radius: 1.0,
            },
            ..good
        },
        ImpostorView {
            sphere: Sphere {
                center: [0.0; 3],
                radius: 0.0,
            },
            ..good
        },
    ];
    for view in bad {
        let mut asset = sample();
        asset.impostor = ImpostorRecord::Baked(view);
        assert!(
            matches!(
                encode(&asset),
                Err(FormatError::Malformed {
                    what: "impostor",
                    ..
                })
            ),
            "{view:?}"
        );
    }
}

/// A buggy writer's impostor record (with a matching checksum) is still refused: an
/// unknown kind, a texture index past the list.
#[test]
fn a_bad_impostor_record_with_a_matching_checksum_is_malformed() {
    let bytes = encode(&sample()).unwrap();
    // The record as the format lays it out: kind, grid, cell, sphere, albedo, normal.
    let record: Vec<u8> = [impostor::BAKED]
        .into_iter()
        .chain([12u32, 16].into_iter().flat_map(u32::to_le_bytes))
        .chain(
            [1.5f32, 0.75, -1.5, 2.5]
                .into_iter()
                .flat_map(f32::to_le_bytes),
        )
        .chain([3u32, 4].into_iter().flat_map(u32::to_le_bytes))
        .collect();
    let record = bytes
        .windows(record.len())
        .position(|w| w == record)
        .expect("the impostor record is in the metadata");
    let reseal = |mut b: Vec<u8>| {
        let sum = checksum(&b[HEADER_SIZE..]);
        b[CHECKSUM_OFFSET..CHECKSUM_OFFSET + 4].copy_from_slice(&sum.to_le_bytes());
        b
    };
    let mut kind = bytes.clone();
    kind[record] = 9;
    let mut index = bytes.clone();
    index[record + 25..record + 29].copy_from_slice(&7u32.to_le_bytes());
    for (bad, what) in [(kind, "impostor kind"), (index, "impostor")] {
        let err = Entry::parse(&reseal(bad)).unwrap_err();
        assert!(
            matches!(&err, FormatError::Malformed { what: w, .. } if *w == what),
            "{err}"
        );
    }
}

#[test]
fn a_vertex_quantization_that_is_not_finite_or_negative_is_malformed() {
    let asset = sample();
    let bytes = encode(&asset).unwrap();
    let q = asset.parts[0].quantization;
    let stored: Vec<u8> = q
        .position_offset
        .iter()
        .chain(&q.position_scale)
        .chain(&q.uv_offset)
        .chain(&q.uv_scale)
        .flat_map(|v| v.to_le_bytes())
        .collect();
    let at = bytes
        .windows(stored.len())
        .position(|w| w == stored)
        .expect("the quantization is in the metadata");
    // A NaN offset, an infinite scale, a negative UV scale.
    for (field, value) in [(0, f32::NAN), (4, f32::INFINITY), (9, -1.0)] {
        let mut bad = bytes.clone();
        bad[at + 4 * field..at + 4 * field + 4].copy_from_slice(&value.to_le_bytes());
        let sum = checksum(&bad[HEADER_SIZE..]);
        bad[CHECKSUM_OFFSET..CHECKSUM_OFFSET + 4].copy_from_slice(&sum.to_le_bytes());
        let err = Entry::parse(&bad).unwrap_err();
        assert!(
            matches!(
                &err,
                FormatError::Malformed {
                    what: "vertex quantization",
                    ..
                }
            ),
            "{err}"
        );
    }
    let mut broken = asset;
    broken.parts[1].quantization.position_scale[1] = -2.0;
    assert!(matches!(
        encode(&broken),
        Err(FormatError::Malformed {
            what: "vertex quantization",
            ..
        })
    ));
}

#[test]
fn views_borrow_aligned_blobs_of_the_file() {
    let bytes = encode(&sample()).unwrap();
    let entry = Entry::parse(&bytes).unwrap();
    let range = bytes.as_ptr_range();
    let leaf = &entry.parts[0];
    for blob in [leaf.vertex_bytes, leaf.levels[1].index_bytes] {
        assert!(
            range.contains(&blob.as_ptr()),
            "views point into the file bytes"
        );
        assert_eq!(
            (blob.as_ptr() as usize - range.start as usize) % BLOB_ALIGN,
            0
        );
    }
    assert_eq!(leaf.vertex_bytes.len(), 4 * PACKED_STRIDE);
    assert_eq!(leaf.index_format, IndexFormat::U16);
    assert_eq!(leaf.levels[1].index_bytes.len(), 6);
    assert_eq!(leaf.levels[1].index_bytes_padded.len(), 8);
    assert_eq!(leaf.levels[1].indices().collect::<Vec<_>>(), [0, 1, 3]);
    assert_eq!(leaf.vertices().nth(2), Some(sample().parts[0].vertices[2]));
}

#[test]
fn parts_past_65535_vertices_use_u32_indices() {
    let mut asset = sample();
    let vertices: Vec<Vertex> = (0..70_000).map(vertex).collect();
    (asset.parts[1].quantization, asset.parts[1].vertices) =
        VertexQuantization::fit_and_snap(&vertices);
    asset.parts[1].levels[0].indices = vec![0, 69_999, 1];
    let bytes = encode(&asset).unwrap();
    let entry = Entry::parse(&bytes).unwrap();
    assert_eq!(entry.parts[1].index_format, IndexFormat::U32);
    assert_eq!(
        entry.parts[1].levels[0].indices().collect::<Vec<_>>(),
        [0, 69_999, 1]
    );
    assert_eq!(entry.to_baked(), asset);
}

#[test]
fn every_truncation_is_refused() {
    for asset in [sample(), refused_sample()] {
        let bytes = encode(&asset).unwrap();
        assert_every_truncation_is_refused(&bytes, |b| Entry::parse(b).map(drop));
    }
}

/// Every proper prefix of `bytes` is refused by `parse` as truncated.
pub(crate) fn assert_every_truncation_is_refused(
    bytes: &[u8],
    parse: impl Fn(&[u8]) -> Result<(), FormatError>,
) {
    for len in 0..bytes.len() {
        let err = parse(&bytes[..len]).unwrap_err();
        assert!(
            matches!(err, FormatError::Truncated { .. }),
            "length {len}: {err}"
        );
    }
}

#[test]
fn every_change_to_any_single_byte_is_detected() {
    for asset in [sample(), refused_sample()] {
        let mut bytes = encode(&asset).unwrap();
        for i in 0..bytes.len() {
            for pattern in 1..=u8::MAX {
                bytes[i] ^= pattern;
                assert!(
                    Entry::parse(&bytes).is_err(),
                    "byte {i} XOR {pattern:#04x} went unnoticed"
                );
                bytes[i] ^= pattern;
            }
        }
        assert!(Entry::parse(&bytes).is_ok());
    }
}

#[test]
fn a_corrupt_body_is_a_checksum_mismatch_and_an_index_past_the_vertices_is_malformed() {
    let bytes = encode(&sample()).unwrap();
    let mut corrupt = bytes.clone();
    let last_byte = bytes.len() - 1;
    corrupt[last_byte] ^= 1;
    assert_eq!(
        Entry::parse(&corrupt).unwrap_err(),
        FormatError::ChecksumMismatch
    );
    // A bad index with a matching checksum (a buggy writer) is still refused.
    let entry = Entry::parse(&bytes).unwrap();
    let level = &entry.parts[1].levels[0];
    let offset = level.index_bytes.as_ptr() as usize - bytes.as_ptr() as usize;
    let mut bad_index = bytes.clone();
    bad_index[offset..offset + 2].copy_from_slice(&9u16.to_le_bytes());
    let sum = checksum(&bad_index[HEADER_SIZE..]);
    bad_index[CHECKSUM_OFFSET..CHECKSUM_OFFSET + 4].copy_from_slice(&sum.to_le_bytes());
    assert!(matches!(
        Entry::parse(&bad_index),
        Err(FormatError::Malformed {
            what: "indices",
            ..
        })
    ));
}

#[test]
fn other_versions_and_magics_are_refused() {
    let mut bytes = encode(&sample()).unwrap();
    bytes[8..12].copy_from_slice(&2u32.to_le_bytes());
    assert_eq!(
        Entry::parse(&bytes).unwrap_err(),
        FormatError::UnsupportedVersion {
            found: 2,
            supported: FORMAT_VERSION
        }
    );
    bytes[0] = b'X';
    assert!(matches!(
        Entry::parse(&bytes),
        Err(FormatError::BadMagic { .. })
    ));
}

#[test]
fn an_index_past_the_vertices_is_refused_when_encoding() {
    let mut asset = sample();
    asset.parts[1].levels[0].indices = vec![0, 1, 3];
    assert!(matches!(encode(&asset), Err(FormatError::Malformed { .. })));
}

#[test]
fn an_entry_recording_a_number_that_is_not_finite_is_refused() {
    let mut asset = sample();
    asset.parts[0].material.emissive_factor = [0.0, f32::NAN, 0.0];
    let file = encode(&asset).unwrap();
    assert!(matches!(
        Entry::parse(&file),
        Err(FormatError::Malformed {
            what: "emissive factor",
            ..
        })
    ));
}

//! glTF/GLB bytes through the importer and, when they import, through the baker into a
//! cache entry that must parse back.

use sylva_bake::{bake_asset, AssetSource, BakeSettings};
use sylva_cache::{encode, encode_texture, Entry, TextureView};
use sylva_impostor::ImpostorSettings;

/// External files a fuzzed `.gltf` may name: the corpus's buffers, served by name as
/// the baker serves files beside an asset.
const EXTERNAL_FILES: [(&str, &[u8]); 3] = [
    (
        "Mesh_PrimitiveMode_13.bin",
        include_bytes!("../../../tests/data/gltf/Mesh_PrimitiveMode_13.bin"),
    ),
    (
        "Mesh_PrimitiveMode_14.bin",
        include_bytes!("../../../tests/data/gltf/Mesh_PrimitiveMode_14.bin"),
    ),
    (
        "CesiumMilkTruck0.bin",
        include_bytes!("../../../tests/data/gltf/CesiumMilkTruck0.bin"),
    ),
];

/// The default bake with a small impostor for every prop (4 × 4 views of 8² texels,
/// one sample a texel): the same code paths as the default's 12 × 12 views of up to
/// 128² texels at 2 × 2 samples, far less rasterising per input.
fn fuzz_settings() -> BakeSettings {
    BakeSettings {
        impostor: Some(ImpostorSettings {
            grid: 4,
            cell_px: 8,
            texels_per_m: None,
            supersample: 1,
            ..ImpostorSettings::default()
        }),
        impostor_min_density: 0.0,
        ..BakeSettings::default()
    }
}

/// Imports `bytes` as a prop and bakes it; whatever bakes must encode to an entry
/// that parses back to the same asset.
pub fn gltf_import(bytes: &[u8]) {
    // The file list is what the baker reads before importing; it must not panic either.
    let _ = sylva_import::external_files(bytes);
    let source = AssetSource {
        prop_id: "fuzz/prop".into(),
        path: "fuzz/prop.glb".into(),
        bytes: bytes.to_vec(),
        externals: EXTERNAL_FILES
            .iter()
            .map(|(name, bytes)| ((*name).to_owned(), bytes.to_vec()))
            .collect(),
    };
    let Ok((baked, _)) = bake_asset(&source, &fuzz_settings()) else {
        return;
    };
    let entry = encode(&baked.asset).expect("an imported asset encodes");
    for texture in &baked.textures {
        let view = TextureView::parse_as(texture.id, &texture.bytes).expect("a baked blob parses");
        assert_eq!(
            encode_texture(&view.to_baked()).expect("a parsed blob re-encodes"),
            *texture,
            "the blob round-trips byte for byte"
        );
    }
    let parsed = Entry::parse(&entry).expect("an encoded entry parses");
    assert_eq!(
        encode(&parsed.to_baked()).expect("a parsed entry re-encodes"),
        entry,
        "the entry round-trips byte for byte"
    );
}

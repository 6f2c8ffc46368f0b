//! Bytes as a cache entry (checksum resealed, textures dropped: their blobs are not in
//! the input) exported as a `.glb` with placements read from the same bytes: whatever
//! exports must read back through the `gltf` crate with every level's triangles and
//! every placement where the entry and the session put them.

use std::collections::BTreeMap;
use std::sync::Arc;

use glam::{Quat, Vec3};
use sylva_cache::format::{checksum, CHECKSUM_OFFSET, HEADER_SIZE};
use sylva_cache::{encode, Entry, ImpostorRecord, PropView};
use sylva_export::{write_glb, ExportOptions, EXT_MESH_GPU_INSTANCING, KHR_MESH_QUANTIZATION};
use sylva_scatter::{Placement, PlacementId};

/// Placements an input asks for, at most: the first byte modulo this.
const MAX_PLACEMENTS: usize = 8;
/// Bytes per placement after the first byte: x, y, z, yaw and scale as f32.
const PLACEMENT_BYTES: usize = 20;

pub fn export_round_trip(bytes: &[u8]) {
    let Some((&count, rest)) = bytes.split_first() else {
        return;
    };
    let count = usize::from(count) % (MAX_PLACEMENTS + 1);
    let Some((placement_bytes, entry_bytes)) = rest.split_at_checked(count * PLACEMENT_BYTES)
    else {
        return;
    };
    if entry_bytes.len() < HEADER_SIZE {
        return;
    }
    let mut sealed = entry_bytes.to_vec();
    let sum = checksum(&sealed[HEADER_SIZE..]);
    sealed[CHECKSUM_OFFSET..CHECKSUM_OFFSET + 4].copy_from_slice(&sum.to_le_bytes());
    let Ok(entry) = Entry::parse(&sealed) else {
        return;
    };
    let untextured = encode(&untextured(&entry)).expect("a parsed entry re-encodes");
    let entry = Entry::parse(&untextured).expect("an encoded entry parses");
    let prop_id = entry.prop_id;
    let placements: Vec<Placement> = placement_bytes
        .chunks_exact(PLACEMENT_BYTES)
        .enumerate()
        .map(|(index, chunk)| placement(index, chunk, prop_id))
        .collect();
    let props = BTreeMap::from([(
        prop_id,
        PropView {
            entry: entry.clone(),
            textures: Vec::new(),
        },
    )]);
    let placement_refs: Vec<&Placement> = placements.iter().collect();
    let mut glb = Vec::new();
    let Ok(report) = write_glb(&mut glb, &props, &placement_refs, ExportOptions::default()) else {
        return;
    };
    assert_eq!(
        report.bytes,
        glb.len() as u64,
        "the report counts every byte"
    );
    read_back(&glb, &entry, report.placements);
}

/// The entry without textures: materials unbound, no impostor atlases.
fn untextured(entry: &Entry<'_>) -> sylva_cache::BakedAsset {
    let mut baked = entry.to_baked();
    baked.textures.clear();
    if let ImpostorRecord::Baked(_) = baked.impostor {
        baked.impostor = ImpostorRecord::Refused {
            reason: "its atlases are not part of the input".into(),
        };
    }
    for part in &mut baked.parts {
        let material = &mut part.material;
        material.base_color_texture = None;
        material.metallic_roughness_texture = None;
        material.normal_texture = None;
        material.occlusion_texture = None;
        material.emissive_texture = None;
    }
    baked
}

fn placement(index: usize, chunk: &[u8], prop: &str) -> Placement {
    let f = |i: usize| f32::from_le_bytes(chunk[i * 4..i * 4 + 4].try_into().unwrap());
    let prop: Arc<str> = prop.into();
    Placement {
        id: PlacementId(index as u64),
        prop: prop.clone(),
        category: prop.clone(),
        family: prop,
        position: Vec3::new(f(0), f(1), f(2)),
        rotation: Quat::from_rotation_y(f(3)),
        scale: f(4),
    }
}

/// The file parses and validates as glTF; each mesh level holds the triangles of the
/// entry's level, and the LOD 0 instancing nodes hold every exported placement.
fn read_back(glb: &[u8], entry: &Entry<'_>, placements: usize) {
    let file = ::gltf::Gltf::from_slice_without_validation(glb).expect("an exported .glb parses");
    assert_eq!(validation_errors(file.as_json()), Vec::<String>::new());
    let bin = file.blob.as_deref().unwrap_or_default();
    let buffer = |_: ::gltf::Buffer<'_>| Some(bin);
    let mut instances = 0;
    for node in file.nodes() {
        let Some(mesh) = node.mesh() else { continue };
        let level = mesh_level(node.name().unwrap_or_default());
        let exported: Vec<usize> = mesh
            .primitives()
            .map(|primitive| {
                let reader = primitive.reader(buffer);
                let indices = reader.read_indices().expect("every primitive is indexed");
                indices.into_u32().count()
            })
            .collect();
        assert_eq!(
            exported,
            level_indices(entry, level),
            "level {level} keeps its triangles"
        );
        if level == 0 {
            let extension = node
                .extension_value(EXT_MESH_GPU_INSTANCING)
                .expect("a prop node instances");
            let translation = extension["attributes"]["TRANSLATION"]
                .as_u64()
                .expect("instances have translations");
            let accessor = file
                .accessors()
                .nth(translation as usize)
                .expect("the translation accessor exists");
            instances += accessor.count();
        }
    }
    assert_eq!(
        instances, placements,
        "every exported placement is an instance"
    );
}

/// The index counts of a level's primitives: one per part with triangles whose level
/// has any.
fn level_indices(entry: &Entry<'_>, level: usize) -> Vec<usize> {
    entry
        .parts
        .iter()
        .filter(|part| part.vertex_count > 0 && part.levels.iter().any(|l| l.index_count > 0))
        .filter_map(|part| part.levels.get(level))
        .map(|l| l.index_count as usize)
        .filter(|&count| count > 0)
        .collect()
}

/// The level a prop node draws: its name ends in `LOD<level>`.
fn mesh_level(name: &str) -> usize {
    name.rsplit_once("LOD")
        .and_then(|(_, level)| level.parse().ok())
        .expect("prop nodes are named by their level")
}

/// What the `gltf` crate's validation finds, less its refusal of required extensions it
/// does not implement itself (`KHR_mesh_quantization`, which only relaxes the types
/// attributes may have).
fn validation_errors(root: &::gltf::json::Root) -> Vec<String> {
    use ::gltf::json::validation::{Error, Validate};
    let mut errors = Vec::new();
    root.validate(root, ::gltf::json::Path::new, &mut |path, error| {
        let path = path().to_string();
        let unimplemented = matches!(error, Error::Unsupported)
            && path.starts_with("extensionsRequired")
            && path.contains(KHR_MESH_QUANTIZATION);
        if !unimplemented {
            errors.push(format!("{path}: {error}"));
        }
    });
    errors
}

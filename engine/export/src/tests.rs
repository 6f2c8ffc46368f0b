use std::sync::Arc;

use glam::{Mat4, Quat, Vec3};
use sylva_cache::{
    encode, encode_texture, BakedAsset, BakedLevel, BakedPart, BakedTexture, ImpostorRecord,
    PropFiles,
};
use sylva_mesh::{Aabb, Sphere, TextureBinding, Vertex, VertexQuantization};
use sylva_scatter::PlacementId;

use super::*;

/// A prop of two parts with two LOD levels each: a quad with a base colour texture and
/// a normal map (its second level drops a triangle) and a triangle.
fn two_part_prop(id: &str) -> PropFiles {
    let vertex = |x: f32, z: f32| Vertex {
        position: [x, 1.0, z],
        normal: [0.6, 0.8, 0.0],
        uv: [x, z],
        tangent: [1.0, 0.0, 0.0, 1.0],
        color: [255, 128, 0, 255],
    };
    let quad = vec![
        vertex(0.0, 0.0),
        vertex(1.0, 0.0),
        vertex(1.0, 1.0),
        vertex(0.0, 1.0),
    ];
    let level = |indices: Vec<u32>| BakedLevel {
        indices,
        target_ratio: 1.0,
        achieved_ratio: 1.0,
        error: 0.0,
        error_m: 0.0,
    };
    let part = |name: &str, vertices: Vec<Vertex>, levels, material| {
        let (quantization, vertices) = VertexQuantization::fit_and_snap(&vertices);
        BakedPart {
            name: name.into(),
            material,
            bounds: Aabb::of_points(vertices.iter().map(|v| &v.position)),
            sphere: Sphere {
                center: [0.5, 1.0, 0.5],
                radius: 1.0,
            },
            vertices,
            quantization,
            levels,
        }
    };
    let textured = Material {
        name: "leaves".into(),
        base_color_texture: Some(TextureBinding {
            texture: 0,
            wrap_u: WrapMode::Repeat,
            wrap_v: WrapMode::ClampToEdge,
        }),
        normal_texture: Some(TextureBinding {
            texture: 1,
            wrap_u: WrapMode::Repeat,
            wrap_v: WrapMode::Repeat,
        }),
        metallic_factor: 0.0,
        roughness_factor: 0.8,
        emissive_factor: [0.0, 3.0, 1.5],
        alpha_mode: AlphaMode::Mask { cutoff: 0.4 },
        double_sided: true,
        ..Material::default()
    };
    let texture = encode_texture(&BakedTexture {
        width: 2,
        height: 1,
        format: PixelFormat::Rgba8Srgb,
        levels: vec![vec![10, 200, 30, 255, 40, 50, 60, 128]],
    })
    .unwrap();
    // A flat normal map, X and Y at 0.
    let flat = PixelFormat::Bc5.encode(&[128, 128, 255, 255].repeat(16), 4, 4);
    let normal_map = encode_texture(&BakedTexture {
        width: 4,
        height: 4,
        format: PixelFormat::Bc5,
        levels: vec![flat],
    })
    .unwrap();
    let asset = BakedAsset {
        prop_id: id.into(),
        source_path: format!("{id}.glb"),
        bounds: Aabb::of_points(quad.iter().map(|v| &v.position)),
        sphere: Sphere {
            center: [0.5, 0.5, 0.0],
            radius: 0.75,
        },
        parts: vec![
            part(
                "leaves",
                quad.clone(),
                vec![level(vec![0, 1, 2, 0, 2, 3]), level(vec![0, 1, 2])],
                textured,
            ),
            part(
                "trunk",
                quad[..3].to_vec(),
                vec![level(vec![0, 2, 1]), level(vec![0, 2, 1])],
                Material::default(),
            ),
        ],
        textures: vec![texture.id, normal_map.id],
        impostor: ImpostorRecord::refused("a test prop without an impostor"),
    };
    PropFiles {
        entry: encode(&asset).unwrap(),
        textures: vec![texture.bytes, normal_map.bytes],
    }
}

fn placement(id: u64, prop: &str, position: Vec3, yaw: f32, scale: f32) -> Placement {
    Placement {
        id: PlacementId(id),
        prop: Arc::from(prop),
        category: Arc::from("tree"),
        family: Arc::from("tree"),
        position,
        rotation: Quat::from_rotation_y(yaw) * Quat::from_rotation_x(0.1),
        scale,
    }
}

/// The JSON document and binary chunk of a `.glb`, checked for its container rules.
fn split_glb(bytes: &[u8]) -> (json::Root, &[u8]) {
    let u32_at = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap()) as usize;
    assert_eq!(&bytes[..4], b"glTF");
    assert_eq!(u32_at(4), 2);
    assert_eq!(u32_at(8), bytes.len());
    let json_len = u32_at(12);
    assert_eq!(&bytes[16..20], b"JSON");
    assert_eq!(json_len % 4, 0);
    let root: json::Root = serde_json::from_slice(&bytes[20..20 + json_len]).unwrap();
    let bin_at = 20 + json_len;
    assert_eq!(&bytes[bin_at + 4..bin_at + 8], b"BIN\0");
    let bin = &bytes[bin_at + 8..];
    assert_eq!(bin.len(), u32_at(bin_at));
    assert_eq!(bin.len() % 4, 0);
    (root, bin)
}

fn accessor_bytes<'b>(root: &json::Root, bin: &'b [u8], index: usize) -> (&'b [u8], u64) {
    let accessor = &root.accessors[index];
    let view = &root.buffer_views[accessor.buffer_view.unwrap().value()];
    let start = view.byte_offset.map_or(0, |o| o.0) + accessor.byte_offset.map_or(0, |o| o.0);
    let end = view.byte_offset.map_or(0, |o| o.0) + view.byte_length.0;
    (&bin[start as usize..end as usize], accessor.count.0)
}

fn floats(bytes: &[u8], count: usize) -> Vec<f32> {
    bytes[..count * 4]
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

fn instancing(node: &json::Node) -> Option<&serde_json::Value> {
    node.extensions
        .as_ref()?
        .others
        .get(EXT_MESH_GPU_INSTANCING)
}

fn export(
    entries: &[(&str, &PropFiles)],
    placements: &[Placement],
    options: ExportOptions<'_>,
) -> (Vec<u8>, ExportReport) {
    let props: BTreeMap<&str, PropView<'_>> = entries
        .iter()
        .map(|(id, files)| (*id, files.parse().unwrap()))
        .collect();
    let refs: Vec<&Placement> = placements.iter().collect();
    let mut out = Vec::new();
    let report = write_glb(&mut out, &props, &refs, options).unwrap();
    assert_eq!(report.bytes, out.len() as u64);
    (out, report)
}

#[test]
fn lod_meshes_share_their_parts_vertex_accessors_and_differ_by_indices() {
    let bytes = two_part_prop("tree/a");
    let placements = [placement(1, "tree/a", Vec3::new(3.0, 0.0, 4.0), 0.5, 1.0)];
    let (glb, _) = export(&[("tree/a", &bytes)], &placements, ExportOptions::default());
    let (root, _) = split_glb(&glb);
    assert_eq!(root.meshes.len(), 2, "one mesh per LOD level");
    let (lod0, lod1) = (&root.meshes[0].primitives, &root.meshes[1].primitives);
    assert_eq!(lod0.len(), 2, "every part is a primitive");
    assert_eq!(lod1.len(), 2);
    for (a, b) in lod0.iter().zip(lod1) {
        assert_eq!(a.attributes, b.attributes);
        assert_eq!(a.material, b.material);
    }
    assert_ne!(
        lod0[0].indices, lod1[0].indices,
        "an index accessor per level"
    );
    let vertex_views: std::collections::BTreeSet<_> = lod0
        .iter()
        .flat_map(|p| p.attributes.values())
        .map(|a| root.accessors[a.value()].buffer_view.unwrap())
        .collect();
    assert_eq!(vertex_views.len(), 2, "one vertex bufferView per part");
    assert_eq!(root.images.len(), 2, "each texture once");
    assert_eq!(
        root.extensions_used,
        [
            EXT_MESH_GPU_INSTANCING,
            KHR_MESH_QUANTIZATION,
            MSFT_LOD,
            KHR_MATERIALS_EMISSIVE_STRENGTH
        ]
    );
    assert_eq!(root.extensions_required, [KHR_MESH_QUANTIZATION]);
}

#[test]
fn materials_keep_their_channels_and_normal_maps_their_tangents() {
    let bytes = two_part_prop("tree/a");
    let placements = [placement(1, "tree/a", Vec3::ZERO, 0.0, 1.0)];
    let (glb, _) = export(&[("tree/a", &bytes)], &placements, ExportOptions::default());
    let (root, bin) = split_glb(&glb);
    let [leaves, plain] = [0, 1].map(|p| &root.meshes[0].primitives[p]);
    let material = &root.materials[leaves.material.unwrap().value()];
    assert_eq!(material.pbr_metallic_roughness.roughness_factor.0, 0.8);
    assert_eq!(material.pbr_metallic_roughness.metallic_factor.0, 0.0);
    assert_eq!(material.emissive_factor.0, [0.0, 1.0, 0.5]);
    let strength = material
        .extensions
        .as_ref()
        .unwrap()
        .emissive_strength
        .as_ref();
    assert_eq!(strength.unwrap().emissive_strength.0, 3.0);
    let normal = material.normal_texture.as_ref().expect("the normal map");
    let image = &root.images[root.textures[normal.index.value()].source.value()];
    let view = &root.buffer_views[image.buffer_view.unwrap().value()];
    let start = view.byte_offset.map_or(0, |o| o.0) as usize;
    let png_bytes = &bin[start..start + view.byte_length.0 as usize];
    let mut reader = png::Decoder::new(std::io::Cursor::new(png_bytes))
        .read_info()
        .unwrap();
    let mut texels = vec![0; reader.output_buffer_size().unwrap()];
    reader.next_frame(&mut texels).unwrap();
    assert!(
        texels.chunks(4).all(|t| t[2] == 255),
        "Z rebuilt for readers of RGB normal maps"
    );
    let tangents = leaves.attributes[&Valid(mesh::Semantic::Tangents)].value();
    let (tangent_bytes, count) = accessor_bytes(&root, bin, tangents);
    assert_eq!(count, 4);
    let tangent: Vec<i8> = tangent_bytes[..4].iter().map(|&b| b as i8).collect();
    assert_eq!(
        tangent,
        [-127, 0, 0, -127],
        "tangent X and handedness mirrored with the frame, 8-bit as packed"
    );
    assert!(
        !plain
            .attributes
            .contains_key(&Valid(mesh::Semantic::Tangents)),
        "no tangents without a normal map"
    );
}

#[test]
fn a_texture_blob_shared_by_props_is_one_image() {
    let (a, b) = (two_part_prop("tree/a"), two_part_prop("tree/b"));
    let placements = [
        placement(1, "tree/a", Vec3::ZERO, 0.0, 1.0),
        placement(2, "tree/b", Vec3::ONE, 0.0, 1.0),
    ];
    let (glb, _) = export(
        &[("tree/a", &a), ("tree/b", &b)],
        &placements,
        ExportOptions::default(),
    );
    let (root, _) = split_glb(&glb);
    assert_eq!(root.meshes.len(), 4, "two props of two levels");
    assert_eq!(root.images.len(), 2, "one image per shared blob");
    assert_eq!(root.textures.len(), 4, "a texture per material channel");
    assert!(root.textures.iter().all(|t| t.source.value() < 2));
}

#[test]
fn geometry_is_mirrored_into_gltfs_frame_with_its_winding_kept_facing() {
    let bytes = two_part_prop("tree/a");
    let placements = [placement(1, "tree/a", Vec3::ZERO, 0.0, 1.0)];
    let (glb, _) = export(&[("tree/a", &bytes)], &placements, ExportOptions::default());
    let (root, bin) = split_glb(&glb);
    let primitive = &root.meshes[0].primitives[0];
    let position = primitive.attributes[&Valid(mesh::Semantic::Positions)].value();
    let (vertex_bytes, count) = accessor_bytes(&root, bin, position);
    let corner = |i: usize| {
        let at = i * 32;
        Vec3::from_slice(&floats(&vertex_bytes[at..], 3))
    };
    assert_eq!(count, 4);
    assert_eq!(corner(1), Vec3::new(-1.0, 1.0, 0.0), "X mirrored");
    // Normals stay 8-bit signed, as the cache packs them: (0.6, 0.8, 0) mirrored.
    let normal = vertex_bytes[12..15]
        .iter()
        .map(|&b| b as i8)
        .collect::<Vec<_>>();
    assert_eq!(normal, [-76, 102, 0]);
    for list in [&root.extensions_used, &root.extensions_required] {
        assert!(list.iter().any(|e| e == KHR_MESH_QUANTIZATION), "{list:?}");
    }
    let accessor = &root.accessors[position];
    assert_eq!(accessor.min, Some(serde_json::json!([-1.0, 1.0, 0.0])));
    assert_eq!(accessor.max, Some(serde_json::json!([0.0, 1.0, 1.0])));
    let (index_bytes, _) = accessor_bytes(&root, bin, primitive.indices.unwrap().value());
    let first: Vec<u16> = index_bytes[..6]
        .chunks_exact(2)
        .map(|c| u16::from_le_bytes([c[0], c[1]]))
        .collect();
    assert_eq!(first, [0, 2, 1], "winding reversed with the mirror");
    // Authored (0, 1, 2) faces −y in sylva's frame ((b − a) × (c − a) points down, as
    // the terrain's up-facing triangles point up); mirrored and re-wound it still faces
    // −y under glTF's counter-clockwise rule.
    let [a, b, c] = [0, 2, 1].map(corner);
    assert!((b - a).cross(c - a).y < 0.0);
}

#[test]
fn placements_become_instancing_nodes_per_cell_whose_transforms_convert_back() {
    let bytes = two_part_prop("tree/a");
    let placements = [
        placement(1, "tree/a", Vec3::new(3.0, 1.0, 4.0), 0.5, 1.0),
        placement(2, "tree/a", Vec3::new(70.0, 2.0, 4.0), 1.5, 1.3),
        placement(3, "tree/a", Vec3::new(10.0, 3.0, 60.0), -2.0, 0.8),
        placement(4, "tree/a", Vec3::new(-5.0, 0.5, -1.0), 2.5, 1.1),
    ];
    let (glb, report) = export(&[("tree/a", &bytes)], &placements, ExportOptions::default());
    assert_eq!(report.placements, 4);
    assert_eq!(report.instancing_nodes, 3, "cells (0,0), (1,0), (-1,-1)");
    let (root, bin) = split_glb(&glb);
    let scene = &root.scenes[root.scene.unwrap().value()];
    let mut seen = Vec::new();
    for node in scene.nodes.iter().map(|n| &root.nodes[n.value()]) {
        let attributes = &instancing(node).unwrap()["attributes"];
        let read = |name: &str, width: usize| {
            let (bytes, count) =
                accessor_bytes(&root, bin, attributes[name].as_u64().unwrap() as usize);
            floats(bytes, count as usize * width)
        };
        let (t, r, s) = (
            read("TRANSLATION", 3),
            read("ROTATION", 4),
            read("SCALE", 3),
        );
        for i in 0..t.len() / 3 {
            let gltf = Mat4::from_scale_rotation_translation(
                Vec3::from_slice(&s[i * 3..]),
                Quat::from_slice(&r[i * 4..]),
                Vec3::from_slice(&t[i * 3..]),
            );
            seen.push(frame::matrix(gltf));
        }
        let lod = &node.extensions.as_ref().unwrap().others[MSFT_LOD];
        let coarser = lod["ids"][0].as_u64().unwrap() as usize;
        assert_eq!(
            instancing(&root.nodes[coarser]),
            instancing(node),
            "the LOD 1 node shares the instances"
        );
        assert_eq!(root.nodes[coarser].mesh.unwrap().value(), 1);
        assert!(!scene.nodes.iter().any(|n| n.value() == coarser));
    }
    assert_eq!(seen.len(), 4);
    for p in &placements {
        let found = seen.iter().any(|m| m.abs_diff_eq(p.transform(), 1e-6));
        assert!(found, "placement {:?} exported", p.id);
    }
}

/// Placements of two props over several cells, some of a prop the cache lacks.
fn scattered_placements() -> Vec<Placement> {
    (0..40)
        .map(|i| {
            let prop = ["tree/a", "tree/b", "rock/gone"][i % 3];
            let at = Vec3::new((i * 37 % 200) as f32 - 60.0, 1.0, (i * 53 % 170) as f32);
            placement(
                i as u64,
                prop,
                at,
                i as f32 * 0.3,
                0.8 + (i % 5) as f32 * 0.1,
            )
        })
        .collect()
}

#[test]
fn placements_handed_over_in_batches_write_the_glb_they_write_at_once() {
    let (a, b) = (two_part_prop("tree/a"), two_part_prop("tree/b"));
    let placements = scattered_placements();
    let entries = [("tree/a", &a), ("tree/b", &b)];
    let (at_once, report) = export(&entries, &placements, ExportOptions::default());
    assert_eq!(report.left_out["rock/gone"], 13);
    let props: BTreeMap<&str, PropView<'_>> = entries
        .iter()
        .map(|(id, files)| (*id, files.parse().unwrap()))
        .collect();
    let batches: Vec<Vec<&Placement>> = placements
        .chunks(7)
        .map(|batch| batch.iter().collect())
        .collect();
    let mut glb = GlbWriter::new(ExportOptions::default()).unwrap();
    for batch in &batches {
        glb.count(batch.iter().copied());
    }
    assert_eq!(glb.placed_props(), ["rock/gone", "tree/a", "tree/b"]);
    let mut out = io::Cursor::new(Vec::new());
    let mut instances = glb.write_head(&mut out, &props).unwrap();
    for batch in &batches {
        instances.write_instances(&mut out, batch).unwrap();
    }
    assert_eq!(instances.finish().unwrap(), report);
    assert!(out.into_inner() == at_once, "the same bytes");
}

#[test]
fn a_second_walk_that_differs_from_the_first_is_refused() {
    let a = two_part_prop("tree/a");
    let props = BTreeMap::from([("tree/a", a.parse().unwrap())]);
    let placements = scattered_placements();
    let refs: Vec<&Placement> = placements.iter().collect();
    let head = || {
        let mut glb = GlbWriter::new(ExportOptions::default()).unwrap();
        glb.count(refs[..20].iter().copied());
        glb.write_head(&mut io::Cursor::new(Vec::new()), &props)
            .unwrap()
    };
    let mut out = io::Cursor::new(Vec::new());
    let short = head();
    assert!(matches!(short.finish(), Err(ExportError::Uncounted { .. })));
    let mut more = head();
    assert!(matches!(
        more.write_instances(&mut out, &refs),
        Err(ExportError::Uncounted { .. })
    ));
}

#[test]
fn placements_of_props_the_cache_lacks_are_left_out_and_counted() {
    let bytes = two_part_prop("tree/a");
    let placements = [
        placement(1, "tree/a", Vec3::ZERO, 0.0, 1.0),
        placement(2, "rock/gone", Vec3::ZERO, 0.0, 1.0),
        placement(3, "rock/gone", Vec3::ONE, 0.0, 1.0),
    ];
    let (glb, report) = export(&[("tree/a", &bytes)], &placements, ExportOptions::default());
    assert_eq!(report.placements, 1);
    assert_eq!(report.props, 1);
    assert_eq!(
        report.left_out,
        BTreeMap::from([("rock/gone".to_string(), 2)])
    );
    split_glb(&glb);
}

#[test]
fn the_terrain_is_a_mesh_with_vertex_colours_facing_up() {
    let heights = (0..20).map(|i| (i % 7) as f32 * 0.5).collect();
    let terrain = sylva_terrain::Terrain::new(5, 4, 2.0, heights, -1.0)
        .unwrap()
        .mesh();
    let options = ExportOptions {
        terrain: Some(&terrain),
        ..Default::default()
    };
    let (glb, report) = export(&[], &[], options);
    assert_eq!(report.instancing_nodes, 0);
    let (root, bin) = split_glb(&glb);
    assert!(root.extensions_used.is_empty());
    let primitive = &root.meshes[0].primitives[0];
    assert!(primitive
        .attributes
        .contains_key(&Valid(mesh::Semantic::Colors(0))));
    let (positions, count) = accessor_bytes(
        &root,
        bin,
        primitive.attributes[&Valid(mesh::Semantic::Positions)].value(),
    );
    let positions = floats(positions, count as usize * 3);
    let (indices, index_count) = accessor_bytes(&root, bin, primitive.indices.unwrap().value());
    let corner = |k: usize| {
        let i = u32::from_le_bytes(indices[k * 4..k * 4 + 4].try_into().unwrap()) as usize;
        Vec3::from_slice(&positions[i * 3..])
    };
    for t in 0..index_count as usize / 3 {
        let [a, b, c] = [0, 1, 2].map(|k| corner(t * 3 + k));
        assert!(
            (b - a).cross(c - a).y > 0.0,
            "triangle {t} faces up, counter-clockwise"
        );
    }
    let mirrored_x: Vec<f32> = terrain.positions.iter().map(|p| -p[0]).collect();
    let exported_x: Vec<f32> = positions.chunks_exact(3).map(|p| p[0]).collect();
    assert_eq!(exported_x, mirrored_x);
}

#[test]
fn a_bad_cell_size_is_refused() {
    let mut out = Vec::new();
    let options = ExportOptions {
        cell_size: 0.0,
        ..Default::default()
    };
    let err = write_glb(&mut out, &BTreeMap::new(), &[], options).unwrap_err();
    assert!(matches!(err, ExportError::CellSize { .. }), "{err}");
    assert!(out.is_empty());
}

#[test]
fn an_empty_session_is_a_glb_with_no_scene_and_no_binary_chunk() {
    let (glb, report) = export(&[], &[], ExportOptions::default());
    assert_eq!(report.instancing_nodes, 0);
    let json_len = u32::from_le_bytes(glb[12..16].try_into().unwrap()) as usize;
    assert_eq!(glb.len(), 20 + json_len, "no BIN chunk");
    let root: serde_json::Value = serde_json::from_slice(&glb[20..]).unwrap();
    assert!(
        root.get("buffers").is_none()
            && root.get("nodes").is_none()
            && root.get("scenes").is_none(),
        "{root}"
    );
    // Readers that require a scene's nodes (gltf-json) read it.
    serde_json::from_value::<json::Root>(root).unwrap();
}

#[test]
fn a_vertex_position_that_is_not_finite_never_reaches_an_entry() {
    let files = two_part_prop("tree/a");
    let mut asset = files.parse().unwrap().entry.to_baked();
    asset.parts[1].vertices[0].position[2] = f32::INFINITY;
    let error = encode(&asset).unwrap_err();
    assert!(error.to_string().contains("not finite"), "{error}");
}

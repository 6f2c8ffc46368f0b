//! Import behaviour on small hand-built documents: encodings, topology, hierarchy,
//! materials, and refusals with the JSON path of the culprit.

use std::f32::consts::FRAC_1_SQRT_2;
use std::io;

use base64::Engine;
use serde_json::{json, Value};
use sylva_mesh::{AlphaMode, WrapMode};

use crate::{external_files, import, ImportError, Imported};

/// Builds a glTF document with one embedded buffer.
#[derive(Default)]
struct Doc {
    bin: Vec<u8>,
    views: Vec<Value>,
    accessors: Vec<Value>,
}

const F32: u32 = 5126;
const U8: u32 = 5121;
const U16: u32 = 5123;
const U32: u32 = 5125;
const I16: u32 = 5122;

impl Doc {
    fn view(&mut self, bytes: &[u8]) -> usize {
        while !self.bin.len().is_multiple_of(4) {
            self.bin.push(0);
        }
        self.views
            .push(json!({"buffer": 0, "byteOffset": self.bin.len(), "byteLength": bytes.len()}));
        self.bin.extend_from_slice(bytes);
        self.views.len() - 1
    }

    fn accessor(
        &mut self,
        bytes: &[u8],
        component: u32,
        kind: &str,
        count: usize,
        extra: Value,
    ) -> usize {
        let view = self.view(bytes);
        let mut a =
            json!({"bufferView": view, "componentType": component, "type": kind, "count": count});
        if let (Value::Object(a), Value::Object(extra)) = (&mut a, extra) {
            a.extend(extra);
        }
        self.accessors.push(a);
        self.accessors.len() - 1
    }

    fn floats(&mut self, values: &[f32], kind: &str, dims: usize) -> usize {
        let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        self.accessor(&bytes, F32, kind, values.len() / dims, json!({}))
    }

    fn u16s(&mut self, values: &[u16], kind: &str, dims: usize, extra: Value) -> usize {
        let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        self.accessor(&bytes, U16, kind, values.len() / dims, extra)
    }

    /// The document with `meshes` and `nodes`, plus any other top-level fields.
    fn build(self, meshes: Value, nodes: Value, extra: Value) -> Vec<u8> {
        let uri = format!(
            "data:application/octet-stream;base64,{}",
            base64::engine::general_purpose::STANDARD.encode(&self.bin)
        );
        let mut root = json!({
            "asset": {"version": "2.0"},
            "buffers": [{"byteLength": self.bin.len(), "uri": uri}],
            "bufferViews": self.views,
            "accessors": self.accessors,
            "meshes": meshes,
            "nodes": nodes,
        });
        if let (Value::Object(root), Value::Object(extra)) = (&mut root, extra) {
            root.extend(extra);
        }
        serde_json::to_vec(&root).unwrap()
    }
}

/// A unit right triangle in the XZ plane facing +Y.
const TRIANGLE: [f32; 9] = [0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0];

fn no_files(path: &str) -> io::Result<Vec<u8>> {
    Err(io::Error::new(io::ErrorKind::NotFound, path.to_owned()))
}

fn run(bytes: &[u8]) -> Result<Imported, ImportError> {
    import(bytes, &mut no_files)
}

fn one_triangle(attributes: Value, extra_primitive: Value, nodes: Value, doc: Doc) -> Vec<u8> {
    let mut primitive = json!({"attributes": attributes});
    if let (Value::Object(p), Value::Object(extra)) = (&mut primitive, extra_primitive) {
        p.extend(extra);
    }
    doc.build(json!([{"primitives": [primitive]}]), nodes, json!({}))
}

#[test]
fn quantized_attributes_decode_to_floats() {
    let mut doc = Doc::default();
    let position = doc.u16s(&[0, 0, 0, 0, 0, 2, 2, 0, 0], "VEC3", 3, json!({}));
    let n = 32767i16.to_le_bytes();
    let normals: Vec<u8> = (0..3)
        .flat_map(|_| [0, 0, n[0], n[1], 0, 0, 0, 0])
        .collect();
    let normal = doc.accessor(&normals, I16, "VEC3", 3, json!({"normalized": true}));
    doc.views[1]["byteStride"] = json!(8);
    let uv = doc.accessor(
        &[0, 0, 0, 0, 255, 0, 0, 0, 0, 255, 0, 0],
        U8,
        "VEC2",
        3,
        json!({"normalized": true}),
    );
    doc.views[2]["byteStride"] = json!(4);
    let bytes = one_triangle(
        json!({"POSITION": position, "NORMAL": normal, "TEXCOORD_0": uv}),
        json!({}),
        json!([{"mesh": 0}]),
        doc,
    );
    let part = &run(&bytes).unwrap().parts[0];
    assert_eq!(part.vertices[1].position, [0.0, 0.0, 2.0]);
    assert_eq!(part.vertices[0].normal, [0.0, 1.0, 0.0]);
    assert_eq!(part.vertices[1].uv, [1.0, 0.0]);
    assert_eq!(part.vertices[2].uv, [0.0, 1.0]);
}

#[test]
fn sparse_values_replace_the_elements_they_name() {
    let mut doc = Doc::default();
    let position = doc.floats(&TRIANGLE, "VEC3", 3);
    let indices = doc.view(&[2u8, 0, 0, 0]);
    let values = doc.view(&[0.5f32, 0.0, 0.0].map(f32::to_le_bytes).concat());
    doc.accessors[position]["sparse"] = json!({
        "count": 1,
        "indices": {"bufferView": indices, "componentType": U8},
        "values": {"bufferView": values},
    });
    let bytes = one_triangle(
        json!({"POSITION": position}),
        json!({}),
        json!([{"mesh": 0}]),
        doc,
    );
    let part = &run(&bytes).unwrap().parts[0];
    // In sylva's frame: glTF's X mirrored.
    assert_eq!(part.vertices[2].position, [-0.5, 0.0, 0.0]);
    assert_eq!(part.vertices[1].position, [0.0, 0.0, 1.0]);
}

#[test]
fn node_transforms_are_baked_into_positions_and_normals() {
    let mut doc = Doc::default();
    let position = doc.floats(&TRIANGLE, "VEC3", 3);
    let normal = doc.floats(&[0.0, 1.0, 0.0].repeat(3), "VEC3", 3);
    // Parent moves up 10; child shears the normal through a non-uniform scale and a
    // 90° turn about Z (Y up becomes -X).
    let nodes = json!([
        {"children": [1], "translation": [0.0, 10.0, 0.0]},
        {"mesh": 0, "scale": [2.0, 1.0, 1.0], "rotation": [0.0, 0.0, FRAC_1_SQRT_2, FRAC_1_SQRT_2]},
    ]);
    let bytes = one_triangle(
        json!({"POSITION": position, "NORMAL": normal}),
        json!({}),
        nodes,
        doc,
    );
    let part = &run(&bytes).unwrap().parts[0];
    let p = part.vertices[2].position;
    assert!(
        (p[0] - 0.0).abs() < 1e-6 && (p[1] - 12.0).abs() < 1e-6,
        "{p:?}"
    );
    // Y up turned to −X by the node, then mirrored into sylva's frame: +X.
    let n = part.vertices[0].normal;
    assert!((n[0] - 1.0).abs() < 1e-6 && n[1].abs() < 1e-6, "{n:?}");
}

#[test]
fn a_mirroring_transform_flips_the_winding() {
    let import = |scale: [f32; 3]| {
        let mut doc = Doc::default();
        let position = doc.floats(&TRIANGLE, "VEC3", 3);
        let bytes = one_triangle(
            json!({"POSITION": position}),
            json!({}),
            json!([{"mesh": 0, "scale": scale}]),
            doc,
        );
        run(&bytes).unwrap().parts.remove(0)
    };
    // glTF → sylva mirrors X once, so a file's own X mirror cancels it.
    let plain = import([1.0, 1.0, 1.0]);
    let mirrored = import([-1.0, 1.0, 1.0]);
    assert_eq!(plain.indices, [0, 2, 1]);
    assert_eq!(mirrored.indices, [0, 1, 2]);
    assert_eq!(mirrored.vertices[0].normal, [0.0, 1.0, 0.0]);
    assert_eq!(mirrored.vertices[2].position, [1.0, 0.0, 0.0]);
}

#[test]
fn strips_and_fans_become_lists_and_lines_are_reported() {
    let mut doc = Doc::default();
    let position = doc.floats(&[TRIANGLE.as_slice(), &[1.0, 0.0, 1.0]].concat(), "VEC3", 3);
    let meshes = json!([{"primitives": [
        {"attributes": {"POSITION": position}, "mode": 5},
        {"attributes": {"POSITION": position}, "mode": 6},
        {"attributes": {"POSITION": position}, "mode": 1},
        {"attributes": {"POSITION": position}, "mode": 0},
    ]}]);
    let bytes = doc.build(meshes, json!([{"mesh": 0}]), json!({}));
    let imported = run(&bytes).unwrap();
    assert_eq!(imported.parts.len(), 2);
    // Strip and fan orders, each triangle then mirrored into sylva's frame.
    assert_eq!(imported.parts[0].indices, [0, 2, 1, 1, 2, 3]);
    assert_eq!(imported.parts[1].indices, [1, 0, 2, 2, 0, 3]);
    assert_eq!(imported.stats.primitives, 4);
    assert_eq!(imported.stats.converted_to_lists, 2);
    let skipped: Vec<&str> = imported
        .stats
        .skipped
        .iter()
        .map(|s| s.path.as_str())
        .collect();
    assert_eq!(
        skipped,
        ["meshes[0].primitives[2]", "meshes[0].primitives[3]"]
    );
}

#[test]
fn missing_normals_are_computed_and_counted() {
    let mut doc = Doc::default();
    let position = doc.floats(&TRIANGLE, "VEC3", 3);
    let bytes = one_triangle(
        json!({"POSITION": position}),
        json!({}),
        json!([{"mesh": 0}]),
        doc,
    );
    let imported = run(&bytes).unwrap();
    assert!(imported.parts[0].generated_normals);
    assert_eq!(imported.stats.generated_normals, 1);
    assert!(imported.parts[0]
        .vertices
        .iter()
        .all(|v| v.normal == [0.0, 1.0, 0.0]));
}

#[test]
fn u8_u16_u32_and_absent_indices_give_the_same_triangles() {
    let build = |indices: Option<(u32, Vec<u8>)>| {
        let mut doc = Doc::default();
        let position = doc.floats(&TRIANGLE, "VEC3", 3);
        let extra = match indices {
            Some((component, bytes)) => {
                json!({"indices": doc.accessor(&bytes, component, "SCALAR", 3, json!({}))})
            }
            None => json!({}),
        };
        let bytes = one_triangle(
            json!({"POSITION": position}),
            extra,
            json!([{"mesh": 0}]),
            doc,
        );
        run(&bytes).unwrap().parts.remove(0).indices
    };
    // One triangle, mirrored into sylva's frame.
    let expected = vec![0, 2, 1];
    assert_eq!(build(None), expected);
    assert_eq!(build(Some((U8, vec![0, 1, 2]))), expected);
    assert_eq!(build(Some((U16, vec![0, 0, 1, 0, 2, 0]))), expected);
    assert_eq!(
        build(Some((U32, [0u32, 1, 2].map(u32::to_le_bytes).concat()))),
        expected
    );
}

#[test]
fn an_index_past_the_vertices_names_the_indices_path() {
    let mut doc = Doc::default();
    let position = doc.floats(&TRIANGLE, "VEC3", 3);
    let indices = doc.accessor(&[0, 1, 7, 0], U8, "SCALAR", 3, json!({}));
    let bytes = one_triangle(
        json!({"POSITION": position}),
        json!({"indices": indices}),
        json!([{"mesh": 0}]),
        doc,
    );
    let err = run(&bytes).unwrap_err();
    assert_eq!(
        err.to_string(),
        "meshes[0].primitives[0].indices: index 7 at position 2 is not below the vertex count 3"
    );
}

#[test]
fn an_accessor_past_its_view_is_refused() {
    let mut doc = Doc::default();
    let position = doc.floats(&TRIANGLE, "VEC3", 3);
    doc.accessors[position]["count"] = json!(4);
    let bytes = one_triangle(
        json!({"POSITION": position}),
        json!({}),
        json!([{"mesh": 0}]),
        doc,
    );
    let err = run(&bytes).unwrap_err();
    assert!(
        matches!(&err, ImportError::OutOfBounds { path, end: 48, available: 36, .. } if path == "accessors[0].bufferView"),
        "{err}"
    );
}

#[test]
fn a_huge_count_is_refused_before_allocating() {
    let mut doc = Doc::default();
    let position = doc.floats(&TRIANGLE, "VEC3", 3);
    doc.accessors[position]["count"] = json!(1u64 << 31);
    let bytes = one_triangle(
        json!({"POSITION": position}),
        json!({}),
        json!([{"mesh": 0}]),
        doc,
    );
    let err = run(&bytes).unwrap_err();
    assert!(
        matches!(&err, ImportError::TooLarge { path, count, .. } if path == "accessors[0].count" && *count == 1 << 31),
        "{err}"
    );
}

#[test]
fn cycles_and_deep_hierarchies_are_errors_not_overflows() {
    let mut doc = Doc::default();
    doc.floats(&TRIANGLE, "VEC3", 3);
    let meshes = json!([{"primitives": [{"attributes": {"POSITION": 0}}]}]);
    let cycle = json!([{"children": [1]}, {"children": [0], "mesh": 0}]);
    let scene = json!({"scenes": [{"nodes": [0]}], "scene": 0});
    let err =
        run(&Doc { ..clone_doc(&doc) }.build(meshes.clone(), cycle, scene.clone())).unwrap_err();
    assert!(matches!(err, ImportError::Hierarchy { .. }), "{err}");

    let deep: Vec<Value> = (0..10_000)
        .map(|i| json!({"children": [i + 1]}))
        .chain([json!({"mesh": 0})])
        .collect();
    let err = run(&clone_doc(&doc).build(meshes, Value::Array(deep), scene)).unwrap_err();
    assert!(err.to_string().contains("deeper than 64"), "{err}");
}

fn clone_doc(doc: &Doc) -> Doc {
    Doc {
        bin: doc.bin.clone(),
        views: doc.views.clone(),
        accessors: doc.accessors.clone(),
    }
}

#[test]
fn external_buffers_are_read_through_the_resolver_and_escapes_refused() {
    let positions: Vec<u8> = TRIANGLE.iter().flat_map(|v| v.to_le_bytes()).collect();
    let gltf = |uri: &str| {
        serde_json::to_vec(&json!({
            "asset": {"version": "2.0"},
            "buffers": [{"byteLength": 36, "uri": uri}],
            "bufferViews": [{"buffer": 0, "byteLength": 36}],
            "accessors": [{"bufferView": 0, "componentType": F32, "type": "VEC3", "count": 3}],
            "meshes": [{"primitives": [{"attributes": {"POSITION": 0}}]}],
            "nodes": [{"mesh": 0}],
        }))
        .unwrap()
    };
    let good = gltf("bin/tri%20angle.bin");
    assert_eq!(external_files(&good).unwrap(), ["bin/tri angle.bin"]);
    let mut asked = Vec::new();
    let imported = import(&good, &mut |path: &str| {
        asked.push(path.to_owned());
        Ok(positions.clone())
    })
    .unwrap();
    assert_eq!(asked, ["bin/tri angle.bin"]);
    assert_eq!(imported.parts[0].vertices.len(), 3);

    let err = import(
        &gltf("../outside.bin"),
        &mut |_: &str| -> io::Result<Vec<u8>> {
            panic!("an escaping URI must not reach the resolver")
        },
    )
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "buffers[0].uri: refusing URI `../outside.bin`: `..` leaves the asset's folder"
    );
    assert!(external_files(&gltf("/etc/passwd")).is_err());

    let err = run(&good).unwrap_err();
    assert!(matches!(err, ImportError::External { .. }), "{err}");
}

#[test]
fn materials_carry_alpha_mask_sides_texture_and_wrap_modes() {
    let texels: Vec<u8> = (0..4u8)
        .flat_map(|i| [(i % 2) * 255, (i / 2) * 255, 0, 128])
        .collect();
    let png = png_of(2, 2, &texels);
    let mut doc = Doc::default();
    let position = doc.floats(&TRIANGLE, "VEC3", 3);
    let uv = doc.floats(&[0.0, 0.0, 1.0, 0.0, 0.0, 1.0], "VEC2", 2);
    let png_view = doc.view(&png);
    let extra = json!({
        "materials": [{
            "name": "leaf",
            "alphaMode": "MASK",
            "alphaCutoff": 0.3,
            "doubleSided": true,
            "pbrMetallicRoughness": {
                "baseColorFactor": [0.5, 1.0, 0.5, 1.0],
                "baseColorTexture": {"index": 0, "extensions": {"KHR_texture_transform": {"scale": [2.0, 2.0]}}},
            },
        }],
        "textures": [{"source": 0, "sampler": 0}],
        "samplers": [{"wrapS": 33071, "wrapT": 33648}],
        "images": [{"bufferView": png_view, "mimeType": "image/png"}],
        "extensionsRequired": ["KHR_texture_transform"],
    });
    let meshes = json!([{"primitives": [
        {"attributes": {"POSITION": position, "TEXCOORD_0": uv}, "material": 0},
        {"attributes": {"POSITION": position, "TEXCOORD_0": uv}, "material": 0},
    ]}]);
    let bytes = doc.build(meshes, json!([{"mesh": 0}]), extra);
    let imported = run(&bytes).unwrap();
    let names: Vec<&str> = imported.parts.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["leaf", "leaf#2"]);
    let material = &imported.parts[0].material;
    assert_eq!(material.alpha_mode, AlphaMode::Mask { cutoff: 0.3 });
    assert!(material.double_sided);
    assert_eq!(material.base_color_factor, [0.5, 1.0, 0.5, 1.0]);
    let binding = material.base_color_texture.unwrap();
    assert_eq!(
        (binding.texture, binding.wrap_u, binding.wrap_v),
        (0, WrapMode::ClampToEdge, WrapMode::MirroredRepeat)
    );
    assert_eq!(imported.textures.len(), 1, "one image decoded once");
    let texture = &imported.textures[0];
    assert_eq!((texture.width, texture.height), (2, 2));
    assert_eq!(&texture.rgba8[4..8], &[255, 0, 0, 128]);
    assert_eq!(imported.parts[0].vertices[1].uv, [2.0, 0.0]);
}

#[test]
fn vertex_colours_become_rgba8() {
    let mut doc = Doc::default();
    let position = doc.floats(&TRIANGLE, "VEC3", 3);
    let color = doc.floats(&[1.0, 0.5, 0.0].repeat(3), "VEC3", 3);
    let bytes = one_triangle(
        json!({"POSITION": position, "COLOR_0": color}),
        json!({}),
        json!([{"mesh": 0}]),
        doc,
    );
    let part = &run(&bytes).unwrap().parts[0];
    assert_eq!(part.vertices[0].color, [255, 128, 0, 255]);
}

#[test]
fn a_float_normal_that_is_normalised_is_an_invalid_encoding() {
    let mut doc = Doc::default();
    let position = doc.floats(&TRIANGLE, "VEC3", 3);
    let uv = doc.accessor(&[0; 12], U32, "VEC2", 3, json!({}));
    let bytes = one_triangle(
        json!({"POSITION": position, "TEXCOORD_0": uv}),
        json!({}),
        json!([{"mesh": 0}]),
        doc,
    );
    let err = run(&bytes).unwrap_err();
    assert!(
        err.to_string()
            .starts_with("meshes[0].primitives[0].attributes.TEXCOORD_0: accessors[1] is 2 × U32"),
        "{err}"
    );
}

/// One triangle whose positions, normals (octahedral filter, BYTE normalised) and
/// indices are EXT_meshopt_compression streams in buffer 0, the views' own buffer 1 a
/// fallback without data. `edit` changes the document before it is written.
fn compressed_triangle(edit: impl FnOnce(&mut Value)) -> Vec<u8> {
    let positions: Vec<[f32; 3]> = TRIANGLE.chunks(3).map(|p| [p[0], p[1], p[2]]).collect();
    let normals: Vec<[i8; 4]> = meshopt::encode_filter_oct::<i8>(&[[0.0, 1.0, 0.0, 0.0]; 3], 8);
    let streams = [
        meshopt::encode_vertex_buffer(&positions).unwrap(),
        meshopt::encode_vertex_buffer(&normals).unwrap(),
        meshopt::encode_index_buffer(&[0, 1, 2], 3).unwrap(),
    ];
    let mut bin = Vec::new();
    let mut placed = Vec::new();
    for stream in &streams {
        while !bin.len().is_multiple_of(4) {
            bin.push(0);
        }
        placed.push((bin.len(), stream.len()));
        bin.extend_from_slice(stream);
    }
    let ext = |i: usize, stride: usize, mode: &str, filter: &str| {
        json!({"EXT_meshopt_compression": {
            "buffer": 0, "byteOffset": placed[i].0, "byteLength": placed[i].1,
            "byteStride": stride, "count": 3, "mode": mode, "filter": filter}})
    };
    let uri = format!(
        "data:application/octet-stream;base64,{}",
        base64::engine::general_purpose::STANDARD.encode(&bin)
    );
    let mut root = json!({
        "asset": {"version": "2.0"},
        "extensionsUsed": ["EXT_meshopt_compression"],
        "extensionsRequired": ["EXT_meshopt_compression"],
        "buffers": [
            {"byteLength": bin.len(), "uri": uri},
            {"byteLength": 60, "extensions": {"EXT_meshopt_compression": {"fallback": true}}},
        ],
        "bufferViews": [
            {"buffer": 1, "byteOffset": 0, "byteLength": 36, "byteStride": 12,
             "extensions": ext(0, 12, "ATTRIBUTES", "NONE")},
            {"buffer": 1, "byteOffset": 36, "byteLength": 12, "byteStride": 4,
             "extensions": ext(1, 4, "ATTRIBUTES", "OCTAHEDRAL")},
            {"buffer": 1, "byteOffset": 48, "byteLength": 12,
             "extensions": ext(2, 4, "TRIANGLES", "NONE")},
        ],
        "accessors": [
            {"bufferView": 0, "componentType": F32, "type": "VEC3", "count": 3},
            {"bufferView": 1, "componentType": 5120, "type": "VEC3", "count": 3, "normalized": true},
            {"bufferView": 2, "componentType": U32, "type": "SCALAR", "count": 3},
        ],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0, "NORMAL": 1}, "indices": 2}]}],
        "nodes": [{"mesh": 0}],
    });
    edit(&mut root);
    serde_json::to_vec(&root).unwrap()
}

#[test]
fn meshopt_compressed_views_decode_with_their_filters() {
    let imported = run(&compressed_triangle(|_| {})).unwrap();
    let part = &imported.parts[0];
    let positions: Vec<[f32; 3]> = part.vertices.iter().map(|v| v.position).collect();
    // In sylva's frame: glTF's X mirrored.
    assert_eq!(
        positions,
        [[0.0, 0.0, 0.0], [0.0, 0.0, 1.0], [-1.0, 0.0, 0.0]]
    );
    assert_eq!(part.indices.len(), 3);
    for v in &part.vertices {
        assert!((v.normal[1] - 1.0).abs() < 0.01, "{:?}", v.normal);
    }
    assert!(!part.generated_normals);
}

fn compressed_error(edit: impl FnOnce(&mut Value)) -> String {
    run(&compressed_triangle(edit)).unwrap_err().to_string()
}

#[test]
fn a_truncated_meshopt_stream_is_a_clear_error() {
    let err = compressed_error(|root| {
        let ext = &mut root["bufferViews"][0]["extensions"]["EXT_meshopt_compression"];
        ext["byteLength"] = json!(ext["byteLength"].as_u64().unwrap() - 4);
    });
    assert!(
        err.starts_with("bufferViews[0].extensions.EXT_meshopt_compression: the ATTRIBUTES stream")
            && err.contains("truncated or corrupt"),
        "{err}"
    );
}

#[test]
fn a_stream_decoding_past_its_declared_size_is_refused() {
    let err = compressed_error(|root| {
        root["bufferViews"][2]["extensions"]["EXT_meshopt_compression"]["count"] = json!(300);
    });
    assert!(
        err.contains("past the view's declared byteLength of 12"),
        "{err}"
    );
}

#[test]
fn a_hostile_decompressed_size_is_refused_before_allocating() {
    let err = compressed_error(|root| {
        let view = &mut root["bufferViews"][0];
        view["byteLength"] = json!(12u64 << 36);
        view["extensions"]["EXT_meshopt_compression"]["count"] = json!(1u64 << 36);
    });
    assert!(err.contains("decompressed buffer bytes"), "{err}");
}

#[test]
fn a_stream_outside_its_buffer_is_refused() {
    let err = compressed_error(|root| {
        root["bufferViews"][1]["extensions"]["EXT_meshopt_compression"]["byteOffset"] =
            json!(1u64 << 40);
    });
    assert!(err.contains("which has"), "{err}");
}

#[test]
fn a_webp_base_colour_texture_decodes_and_a_webp_bomb_is_refused_from_its_header() {
    let mut webp = Vec::new();
    image_webp::WebPEncoder::new(&mut webp)
        .encode(
            &[10, 20, 30, 255].repeat(4),
            2,
            2,
            image_webp::ColorType::Rgba8,
        )
        .unwrap();
    let textured = |image: &[u8]| {
        let uri = format!(
            "data:image/webp;base64,{}",
            base64::engine::general_purpose::STANDARD.encode(image)
        );
        let mut doc = Doc::default();
        let position = doc.floats(&TRIANGLE, "VEC3", 3);
        let uv = doc.floats(&[0.0; 6], "VEC2", 2);
        let meshes = json!([{"primitives": [{"attributes": {"POSITION": position, "TEXCOORD_0": uv}, "material": 0}]}]);
        doc.build(
            meshes,
            json!([{"mesh": 0}]),
            json!({
                "extensionsUsed": ["EXT_texture_webp"],
                "extensionsRequired": ["EXT_texture_webp"],
                "materials": [{"pbrMetallicRoughness": {"baseColorTexture": {"index": 0}}}],
                "textures": [{"extensions": {"EXT_texture_webp": {"source": 0}}}],
                "images": [{"uri": uri}],
            }),
        )
    };
    let imported = run(&textured(&webp)).unwrap();
    assert_eq!(imported.textures[0].rgba8[..4], [10, 20, 30, 255]);

    // The header of a lossless WebP says 8000 × 8000 (256 MB of pixels); the rest of
    // the file is the 2 × 2 image's.
    let mut bomb = webp.clone();
    let bits = (8000u32 - 1) | ((8000 - 1) << 14) | (u32::from(bomb[24]) & 0xF0) << 24;
    bomb[21..25].copy_from_slice(&bits.to_le_bytes());
    let err = run(&textured(&bomb)).unwrap_err().to_string();
    assert!(
        err.starts_with("material materials[0], baseColorTexture: images[0]: ")
            && err.contains("decoded image bytes"),
        "{err}"
    );
}

fn png_bytes(width: u32, height: u32, texel: [u8; 4]) -> Vec<u8> {
    png_of(width, height, &texel.repeat((width * height) as usize))
}

/// An RGBA8 PNG of `texels`.
fn png_of(width: u32, height: u32, texels: &[u8]) -> Vec<u8> {
    let mut png = Vec::new();
    let mut encoder = png::Encoder::new(&mut png, width, height);
    encoder.set_color(png::ColorType::Rgba);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder.write_header().unwrap();
    writer.write_image_data(texels).unwrap();
    writer.finish().unwrap();
    png
}

/// One textured triangle whose material is `material` over images `colour` (0) and
/// `data` (1), with `attributes` added to POSITION, NORMAL and TEXCOORD_0.
fn pbr_triangle(material: Value, attributes: impl FnOnce(&mut Doc) -> Value) -> Vec<u8> {
    let mut doc = Doc::default();
    let position = doc.floats(&TRIANGLE, "VEC3", 3);
    let normal = doc.floats(&[0.0, 1.0, 0.0].repeat(3), "VEC3", 3);
    let uv = doc.floats(&[0.0, 0.0, 0.0, 1.0, 1.0, 0.0], "VEC2", 2);
    let colour = doc.view(&png_bytes(2, 2, [200, 100, 50, 255]));
    let data = doc.view(&png_bytes(2, 2, [255, 128, 64, 255]));
    let mut attrs = json!({"POSITION": position, "NORMAL": normal, "TEXCOORD_0": uv});
    if let (Value::Object(a), Value::Object(more)) = (&mut attrs, attributes(&mut doc)) {
        a.extend(more);
    }
    let extra = json!({
        "materials": [material],
        "textures": [{"source": 0}, {"source": 1}],
        "images": [
            {"bufferView": colour, "mimeType": "image/png"},
            {"bufferView": data, "mimeType": "image/png"},
        ],
        "extensionsUsed": ["KHR_materials_emissive_strength"],
    });
    let meshes = json!([{"primitives": [{"attributes": attrs, "material": 0}]}]);
    doc.build(meshes, json!([{"mesh": 0}]), extra)
}

#[test]
fn every_pbr_channel_is_carried_with_its_factors() {
    use sylva_mesh::{Channel, TextureKind};
    let bytes = pbr_triangle(
        json!({
            "name": "painted metal",
            "pbrMetallicRoughness": {
                "baseColorTexture": {"index": 0},
                "metallicFactor": 0.75,
                "roughnessFactor": 0.25,
                "metallicRoughnessTexture": {"index": 1},
            },
            "normalTexture": {"index": 1, "scale": 0.5},
            "occlusionTexture": {"index": 1, "strength": 0.6},
            "emissiveTexture": {"index": 0},
            "emissiveFactor": [1.0, 0.5, 0.0],
            "extensions": {"KHR_materials_emissive_strength": {"emissiveStrength": 4.0}},
        }),
        |_| json!({}),
    );
    let imported = run(&bytes).unwrap();
    let material = &imported.parts[0].material;
    assert_eq!(
        (material.metallic_factor, material.roughness_factor),
        (0.75, 0.25)
    );
    assert_eq!(material.normal_scale, 0.5);
    assert_eq!(material.occlusion_strength, 0.6);
    assert_eq!(
        material.emissive_factor,
        [4.0, 2.0, 0.0],
        "strength folded in"
    );
    let channels: Vec<Channel> = material.textured_channels().map(|(c, _)| c).collect();
    assert_eq!(channels, Channel::ALL);
    // Image 1 serves three channels: as data (metallic-roughness and occlusion share
    // one decode) and as a normal map; image 0 as colour twice over, decoded once.
    let kinds: Vec<TextureKind> = imported.textures.iter().map(|t| t.kind).collect();
    assert_eq!(
        kinds,
        [TextureKind::Color, TextureKind::Linear, TextureKind::Normal]
    );
    assert_eq!(
        material.metallic_roughness_texture.unwrap().texture,
        material.occlusion_texture.unwrap().texture
    );
    assert_eq!(
        material.base_color_texture.unwrap().texture,
        material.emissive_texture.unwrap().texture
    );
    assert_eq!(
        imported.stats.generated_tangents, 1,
        "no TANGENT: MikkTSpace"
    );
    for v in &imported.parts[0].vertices {
        // The triangle lies in glTF's XZ plane facing +Y with u along +X; sylva's frame
        // mirrors X, so the tangent is −X and the frame's handedness flips: w = −1.
        assert_eq!(v.tangent, [-1.0, 0.0, 0.0, -1.0]);
    }
}

#[test]
fn authored_tangents_follow_the_node_and_each_mirror_flips_their_sign() {
    let bytes = pbr_triangle(
        json!({"pbrMetallicRoughness": {"baseColorTexture": {"index": 0}}, "normalTexture": {"index": 1}}),
        |doc| json!({"TANGENT": doc.floats(&[0.0, 0.0, 1.0, 1.0].repeat(3), "VEC4", 4)}),
    );
    let mut root: Value = serde_json::from_slice(&bytes).unwrap();
    root["nodes"][0]["scale"] = json!([-2.0, 1.0, 1.0]);
    root["nodes"][0]["rotation"] = json!([0.0, FRAC_1_SQRT_2, 0.0, FRAC_1_SQRT_2]);
    let imported = run(&serde_json::to_vec(&root).unwrap()).unwrap();
    assert_eq!(imported.stats.generated_tangents, 0);
    for v in &imported.parts[0].vertices {
        // The node's scale (X only, so +Z stays) then its turn about +Y give +X, which
        // sylva's frame mirrors to −X. Two mirrors (the node's, the frame's) keep `w`.
        let [x, y, z, w] = v.tangent;
        assert!(
            (x + 1.0).abs() < 1e-5 && y.abs() < 1e-5 && z.abs() < 1e-5,
            "{:?}",
            v.tangent
        );
        assert_eq!(w, 1.0);
    }
    let mut unmirrored = root.clone();
    unmirrored["nodes"][0]["scale"] = json!([2.0, 1.0, 1.0]);
    let imported = run(&serde_json::to_vec(&unmirrored).unwrap()).unwrap();
    assert!(
        imported.parts[0]
            .vertices
            .iter()
            .all(|v| v.tangent[3] == -1.0),
        "one mirror (the frame's) flips the bitangent"
    );
    let plain = pbr_triangle(
        json!({"pbrMetallicRoughness": {"baseColorTexture": {"index": 0}}}),
        |_| json!({}),
    );
    let imported = run(&plain).unwrap();
    assert!(
        imported.parts[0]
            .vertices
            .iter()
            .all(|v| v.tangent == [0.0; 4]),
        "no normal map, no tangents"
    );
}

#[test]
fn a_channel_on_another_uv_set_is_left_out_and_reported() {
    let bytes = pbr_triangle(
        json!({
            "pbrMetallicRoughness": {"baseColorTexture": {"index": 0}},
            "normalTexture": {"index": 1, "texCoord": 1},
        }),
        |doc| json!({"TEXCOORD_1": doc.floats(&[0.0; 6], "VEC2", 2)}),
    );
    let imported = run(&bytes).unwrap();
    assert!(imported.parts[0].material.normal_texture.is_none());
    assert!(imported.parts[0].material.base_color_texture.is_some());
    let dropped = &imported.stats.dropped_textures;
    assert_eq!(dropped.len(), 1);
    assert_eq!(dropped[0].path, "materials[0].normalTexture");
}

#[test]
fn a_missing_or_corrupt_texture_file_names_the_file_and_the_material() {
    let mut doc = Doc::default();
    let position = doc.floats(&TRIANGLE, "VEC3", 3);
    let extra = json!({
        "materials": [{"name": "bark", "normalTexture": {"index": 0}}],
        "textures": [{"source": 0}],
        "images": [{"uri": "textures/bark_normal.png"}],
    });
    let meshes = json!([{"primitives": [{"attributes": {"POSITION": position}, "material": 0}]}]);
    let bytes = doc.build(meshes, json!([{"mesh": 0}]), extra);
    let missing = run(&bytes).unwrap_err().to_string();
    assert!(
        missing.starts_with("material `bark` (materials[0]), normalTexture: ")
            && missing.contains("textures/bark_normal.png"),
        "{missing}"
    );
    let mut corrupt = |path: &str| -> io::Result<Vec<u8>> {
        assert_eq!(path, "textures/bark_normal.png");
        Ok(b"\x89PNG\r\n\x1a\nnot really".to_vec())
    };
    let corrupt = import(&bytes, &mut corrupt).unwrap_err().to_string();
    assert!(
        corrupt.starts_with("material `bark` (materials[0]), normalTexture: images[0] (`textures/bark_normal.png`): decoding the image"),
        "{corrupt}"
    );
}

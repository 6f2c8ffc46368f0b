//! Encodes a [`Prop`] as a binary glTF 2.0 file: a JSON chunk (serialised from
//! structs, so keys come out in a fixed order) and a BIN chunk, both 4-byte aligned.
//!
//! Each primitive gets one interleaved vertex buffer view (POSITION, NORMAL,
//! TEXCOORD_0 and, when not all white, COLOR_0 as normalised bytes) and one index
//! buffer view (u16 when every index fits below the u16 restart value, else u32).
//! Images are embedded through buffer views.

use serde::Serialize;

use crate::mesh::Mesh;
use crate::scene::{Material, Prop};

const ARRAY_BUFFER: u32 = 34962;
const ELEMENT_ARRAY_BUFFER: u32 = 34963;
const UNSIGNED_BYTE: u32 = 5121;
const UNSIGNED_SHORT: u32 = 5123;
const UNSIGNED_INT: u32 = 5125;
const FLOAT: u32 = 5126;
const LINEAR: u32 = 9729;
const LINEAR_MIPMAP_LINEAR: u32 = 9987;
const CLAMP_TO_EDGE: u32 = 33071;

/// The `asset.generator` string written into every file.
pub const GENERATOR: &str = "sylva-propgen";
const COPYRIGHT: &str = "CC0 1.0 Universal: dedicated to the public domain by the sylva authors";

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Root {
    asset: Asset,
    scene: usize,
    scenes: Vec<Scene>,
    nodes: Vec<Node>,
    meshes: Vec<GltfMesh>,
    materials: Vec<GltfMaterial>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    textures: Vec<Texture>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    images: Vec<Image>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    samplers: Vec<Sampler>,
    accessors: Vec<Accessor>,
    buffer_views: Vec<BufferView>,
    buffers: Vec<Buffer>,
}

#[derive(Serialize)]
struct Asset {
    version: &'static str,
    generator: &'static str,
    copyright: &'static str,
}

#[derive(Serialize)]
struct Scene {
    nodes: Vec<usize>,
}

#[derive(Serialize)]
struct Node {
    name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    mesh: Option<usize>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    children: Vec<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    translation: Option<[f32; 3]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    rotation: Option<[f32; 4]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    scale: Option<[f32; 3]>,
}

#[derive(Serialize)]
struct GltfMesh {
    name: String,
    primitives: Vec<Primitive>,
}

#[derive(Serialize)]
struct Primitive {
    attributes: Attributes,
    indices: usize,
    material: usize,
    mode: u32,
}

#[derive(Serialize)]
struct Attributes {
    #[serde(rename = "POSITION")]
    position: usize,
    #[serde(rename = "NORMAL")]
    normal: usize,
    #[serde(rename = "TEXCOORD_0")]
    texcoord: usize,
    #[serde(rename = "COLOR_0", skip_serializing_if = "Option::is_none")]
    color: Option<usize>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct GltfMaterial {
    name: String,
    pbr_metallic_roughness: Pbr,
    #[serde(skip_serializing_if = "Option::is_none")]
    alpha_mode: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    alpha_cutoff: Option<f32>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    double_sided: bool,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Pbr {
    base_color_factor: [f32; 4],
    #[serde(skip_serializing_if = "Option::is_none")]
    base_color_texture: Option<TextureRef>,
    metallic_factor: f32,
    roughness_factor: f32,
}

#[derive(Serialize)]
struct TextureRef {
    index: usize,
}

#[derive(Serialize)]
struct Texture {
    sampler: usize,
    source: usize,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Image {
    buffer_view: usize,
    mime_type: &'static str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Sampler {
    mag_filter: u32,
    min_filter: u32,
    wrap_s: u32,
    wrap_t: u32,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Accessor {
    buffer_view: usize,
    #[serde(skip_serializing_if = "is_zero")]
    byte_offset: usize,
    component_type: u32,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    normalized: bool,
    count: usize,
    #[serde(rename = "type")]
    kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    min: Option<[f32; 3]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    max: Option<[f32; 3]>,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct BufferView {
    buffer: usize,
    #[serde(skip_serializing_if = "is_zero")]
    byte_offset: usize,
    byte_length: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    byte_stride: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    target: Option<u32>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Buffer {
    byte_length: usize,
}

/// Collects the BIN chunk and the accessors and buffer views that describe it.
#[derive(Default)]
struct Bin {
    bytes: Vec<u8>,
    views: Vec<BufferView>,
    accessors: Vec<Accessor>,
}

impl Bin {
    /// Appends `data` 4-byte aligned as a new buffer view.
    fn view(&mut self, data: &[u8], stride: Option<usize>, target: Option<u32>) -> usize {
        let byte_offset = self.bytes.len();
        self.bytes.extend_from_slice(data);
        self.bytes.resize(self.bytes.len().next_multiple_of(4), 0);
        self.views.push(BufferView {
            buffer: 0,
            byte_offset,
            byte_length: data.len(),
            byte_stride: stride,
            target,
        });
        self.views.len() - 1
    }

    fn accessor(&mut self, accessor: Accessor) -> usize {
        self.accessors.push(accessor);
        self.accessors.len() - 1
    }

    fn primitive(&mut self, mesh: &Mesh) -> Attributes {
        let with_colors = mesh.has_colors();
        let stride = if with_colors { 36 } else { 32 };
        let mut data = Vec::with_capacity(mesh.vertex_count() * stride);
        for i in 0..mesh.vertex_count() {
            for f in mesh.positions[i]
                .iter()
                .chain(&mesh.normals[i])
                .chain(&mesh.uvs[i])
            {
                data.extend_from_slice(&f.to_le_bytes());
            }
            if with_colors {
                data.extend_from_slice(&mesh.colors[i]);
            }
        }
        let view = self.view(&data, Some(stride), Some(ARRAY_BUFFER));
        let count = mesh.vertex_count();
        let float = |byte_offset, kind| Accessor {
            buffer_view: view,
            byte_offset,
            component_type: FLOAT,
            normalized: false,
            count,
            kind,
            min: None,
            max: None,
        };
        let (min, max) = mesh.bounds();
        Attributes {
            position: self.accessor(Accessor {
                min: Some(min),
                max: Some(max),
                ..float(0, "VEC3")
            }),
            normal: self.accessor(float(12, "VEC3")),
            texcoord: self.accessor(float(24, "VEC2")),
            color: with_colors.then(|| {
                self.accessor(Accessor {
                    component_type: UNSIGNED_BYTE,
                    normalized: true,
                    ..float(32, "VEC4")
                })
            }),
        }
    }

    fn indices(&mut self, mesh: &Mesh) -> usize {
        // 65535 is the u16 primitive-restart value, so u16 only below it.
        let short = mesh.vertex_count() < 0xffff;
        let data: Vec<u8> = if short {
            mesh.indices
                .iter()
                .flat_map(|&i| (i as u16).to_le_bytes())
                .collect()
        } else {
            mesh.indices.iter().flat_map(|&i| i.to_le_bytes()).collect()
        };
        let view = self.view(&data, None, Some(ELEMENT_ARRAY_BUFFER));
        self.accessor(Accessor {
            buffer_view: view,
            byte_offset: 0,
            component_type: if short { UNSIGNED_SHORT } else { UNSIGNED_INT },
            normalized: false,
            count: mesh.indices.len(),
            kind: "SCALAR",
            min: None,
            max: None,
        })
    }
}

fn material(m: &Material) -> GltfMaterial {
    GltfMaterial {
        name: m.name.clone(),
        pbr_metallic_roughness: Pbr {
            base_color_factor: m.base_color,
            base_color_texture: m.texture.map(|index| TextureRef { index }),
            metallic_factor: 0.0,
            roughness_factor: m.roughness,
        },
        alpha_mode: m.alpha_cutoff.map(|_| "MASK"),
        alpha_cutoff: m.alpha_cutoff,
        double_sided: m.double_sided,
    }
}

/// The GLB bytes of `prop`.
pub fn encode(prop: &Prop) -> Vec<u8> {
    let mut bin = Bin::default();
    let meshes = prop
        .meshes
        .iter()
        .map(|m| GltfMesh {
            name: m.name.clone(),
            primitives: m
                .primitives
                .iter()
                .map(|p| Primitive {
                    attributes: bin.primitive(&p.mesh),
                    indices: bin.indices(&p.mesh),
                    material: p.material,
                    mode: 4,
                })
                .collect(),
        })
        .collect();
    let images = prop
        .images
        .iter()
        .map(|png| Image {
            buffer_view: bin.view(png, None, None),
            mime_type: "image/png",
        })
        .collect();
    let root = Root {
        asset: Asset {
            version: "2.0",
            generator: GENERATOR,
            copyright: COPYRIGHT,
        },
        scene: 0,
        scenes: vec![Scene {
            nodes: prop.roots.clone(),
        }],
        nodes: prop
            .nodes
            .iter()
            .map(|n| Node {
                name: n.name.clone(),
                mesh: n.mesh,
                children: n.children.clone(),
                translation: n.transform.translation,
                rotation: n.transform.rotation,
                scale: n.transform.scale,
            })
            .collect(),
        meshes,
        materials: prop.materials.iter().map(material).collect(),
        textures: (0..prop.images.len())
            .map(|source| Texture { sampler: 0, source })
            .collect(),
        images,
        samplers: if prop.images.is_empty() {
            Vec::new()
        } else {
            vec![Sampler {
                mag_filter: LINEAR,
                min_filter: LINEAR_MIPMAP_LINEAR,
                wrap_s: CLAMP_TO_EDGE,
                wrap_t: CLAMP_TO_EDGE,
            }]
        },
        accessors: std::mem::take(&mut bin.accessors),
        buffer_views: std::mem::take(&mut bin.views),
        buffers: vec![Buffer {
            byte_length: bin.bytes.len(),
        }],
    };
    let mut json =
        serde_json::to_vec(&root).expect("glTF JSON built from plain structs always serialises");
    json.resize(json.len().next_multiple_of(4), b' ');

    let total = 12 + 8 + json.len() + 8 + bin.bytes.len();
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(b"glTF");
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&(total as u32).to_le_bytes());
    out.extend_from_slice(&(json.len() as u32).to_le_bytes());
    out.extend_from_slice(b"JSON");
    out.extend_from_slice(&json);
    out.extend_from_slice(&(bin.bytes.len() as u32).to_le_bytes());
    out.extend_from_slice(b"BIN\0");
    out.extend_from_slice(&bin.bytes);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::v3;
    use crate::mesh::{Builder, WHITE};
    use crate::scene::{Layout, Part, Transform};

    fn triangle(color: [f32; 3]) -> Mesh {
        let mut b = Builder::new();
        let p = [
            b.point(v3(0.0, 0.0, 0.0), color),
            b.point(v3(1.0, 0.0, 0.0), WHITE),
            b.point(v3(0.0, 2.0, -1.0), WHITE),
        ];
        b.tri(p, [[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]], 0);
        b.build()
    }

    fn sample(images: Vec<Vec<u8>>) -> Vec<u8> {
        let mut card = Material::opaque("card", [0.2, 0.6, 0.1], 0.9).double_sided();
        if !images.is_empty() {
            card = card.alpha_masked(0, 0.5);
        }
        let parts = vec![
            Part::new(
                "trunk",
                triangle([0.5, 0.4, 0.3]),
                Material::opaque("bark", [0.4; 3], 0.9),
            ),
            Part::new("leaves", triangle(WHITE), card),
        ];
        encode(&Prop::assemble(
            "tree",
            Layout::OneMesh,
            Transform::default(),
            parts,
            images,
        ))
    }

    fn json(glb: &[u8]) -> serde_json::Value {
        let len = u32::from_le_bytes(glb[12..16].try_into().unwrap()) as usize;
        serde_json::from_slice(&glb[20..20 + len]).unwrap()
    }

    #[test]
    fn header_and_chunks_are_aligned_and_sized() {
        let glb = sample(vec![]);
        assert_eq!(&glb[0..4], b"glTF");
        assert_eq!(
            u32::from_le_bytes(glb[8..12].try_into().unwrap()) as usize,
            glb.len()
        );
        let json_len = u32::from_le_bytes(glb[12..16].try_into().unwrap()) as usize;
        assert_eq!(json_len % 4, 0);
        let bin_at = 20 + json_len;
        let bin_len = u32::from_le_bytes(glb[bin_at..bin_at + 4].try_into().unwrap()) as usize;
        assert_eq!(&glb[bin_at + 4..bin_at + 8], b"BIN\0");
        assert_eq!(bin_len % 4, 0);
        assert_eq!(bin_at + 8 + bin_len, glb.len());
        assert_eq!(json(&glb)["buffers"][0]["byteLength"], bin_len);
    }

    #[test]
    fn positions_carry_exact_bounds_and_colours_only_when_used() {
        let doc = json(&sample(vec![]));
        let prims = &doc["meshes"][0]["primitives"];
        let position =
            &doc["accessors"][prims[0]["attributes"]["POSITION"].as_u64().unwrap() as usize];
        assert_eq!(position["min"], serde_json::json!([0.0, 0.0, -1.0]));
        assert_eq!(position["max"], serde_json::json!([1.0, 2.0, 0.0]));
        assert!(prims[0]["attributes"]["COLOR_0"].is_number());
        assert!(prims[1]["attributes"].get("COLOR_0").is_none());
        let vertex_view = &doc["bufferViews"][position["bufferView"].as_u64().unwrap() as usize];
        assert_eq!(vertex_view["byteStride"], 36);
        assert_eq!(vertex_view["target"], ARRAY_BUFFER);
    }

    #[test]
    fn materials_are_rough_dielectrics_with_masks_when_textured() {
        let doc = json(&sample(vec![vec![1, 2, 3]]));
        let card = &doc["materials"][1];
        assert_eq!(card["alphaMode"], "MASK");
        assert_eq!(card["alphaCutoff"], 0.5);
        assert_eq!(card["doubleSided"], true);
        assert_eq!(card["pbrMetallicRoughness"]["baseColorTexture"]["index"], 0);
        assert_eq!(
            doc["materials"][0]["pbrMetallicRoughness"]["metallicFactor"],
            0.0
        );
        assert_eq!(doc["images"][0]["mimeType"], "image/png");
        let view = &doc["bufferViews"][doc["images"][0]["bufferView"].as_u64().unwrap() as usize];
        assert_eq!(view["byteLength"], 3);
        assert!(view.get("target").is_none());
    }

    #[test]
    fn encoding_is_deterministic() {
        assert_eq!(sample(vec![]), sample(vec![]));
    }
}

//! The naive path the prototype started from, kept only as the benchmarks' and tests'
//! reference: every placement part as its own rend3 object, each LOD as its own rend3
//! mesh with a private copy of the vertices. rend3 then issues a depth-prepass, a
//! forward and a shadow draw per object.

use glam::Mat4;
use rend3::types::glam as g20;
use rend3::types::{
    MaterialHandle, MeshBuilder, MeshHandle, MipmapCount, MipmapSource, Object, ObjectHandle,
    ObjectMeshKind, Texture, TextureHandle,
};
use rend3::Renderer;
use rend3_routine::pbr::{
    AlbedoComponent, AoMRTextures, MaterialComponent, NormalTexture, NormalTextureYDirection,
    PbrMaterial, Transparency,
};

use crate::convert;
use crate::error::RenderError;
use crate::props::{AlphaMode, IndexWidth, LodIndices, PartGeometry, PartMaterial, TextureLevels};

/// One part uploaded the naive way: a rend3 mesh per LOD and one material.
pub struct ObjectPart {
    meshes: Vec<MeshHandle>,
    material: MaterialHandle,
    /// Bytes of vertex data uploaded, all LOD meshes together.
    pub vertex_bytes: u64,
}

impl ObjectPart {
    /// Uploads `part` as one rend3 mesh per LOD with its own vertex copy.
    pub fn upload(renderer: &Renderer, part: &PartGeometry) -> Result<Self, RenderError> {
        part.validate(0).map_err(|e| RenderError::Mesh {
            reason: e.to_string(),
        })?;
        let mut vertices = unpack_vertices(part);
        // rend3 0.3's bitangent is cross(normal, tangent), whatever `w` says. A part
        // whose frames are all left-handed (`w` = −1, every glTF normal map in sylva's
        // mirrored frame) is the same surface with the tangent and the map's X negated.
        let mirrored =
            part.material.normal_texture.is_some() && vertices.handedness.iter().all(|&w| w < 0.0);
        if mirrored {
            for t in &mut vertices.tangents {
                *t = -*t;
            }
        }
        let meshes = part
            .lods
            .iter()
            .map(|lod| {
                let mesh =
                    MeshBuilder::new(vertices.positions.clone(), rend3::types::Handedness::Left)
                        .with_vertex_normals(vertices.normals.clone())
                        .with_vertex_tangents(vertices.tangents.clone())
                        .with_vertex_uv0(vertices.uvs.clone())
                        .with_vertex_colors(vertices.colors.clone())
                        .with_indices(decode_indices(lod))
                        .build()
                        .map_err(|e| RenderError::Mesh {
                            reason: e.to_string(),
                        })?;
                Ok(renderer.add_mesh(mesh))
            })
            .collect::<Result<Vec<_>, RenderError>>()?;
        let material = renderer.add_material(pbr_material(renderer, &part.material, mirrored));
        Ok(Self {
            vertex_bytes: (part.vertices.len() * part.lods.len()) as u64,
            meshes,
            material,
        })
    }

    /// Adds an object drawing LOD `lod` of this part at `transform`.
    pub fn add_object(&self, renderer: &Renderer, lod: usize, transform: Mat4) -> ObjectHandle {
        let mesh = self.meshes[lod.min(self.meshes.len() - 1)].clone();
        renderer.add_object(Object {
            mesh_kind: ObjectMeshKind::Static(mesh),
            material: self.material.clone(),
            transform: convert::mat4(transform),
        })
    }
}

/// `material` as rend3-routine's PBR material, its textures uploaded to rend3 as RGBA8
/// (decoded from their blocks, so the oracle does not share the plugin's upload), the
/// normal map's X negated for a `mirrored` part. rend3 0.3 has no normal scale.
fn pbr_material(renderer: &Renderer, material: &PartMaterial, mirrored: bool) -> PbrMaterial {
    let texture = |t: Option<TextureLevels>| t.map(|t| rend3_texture(renderer, t, false));
    let base_color = g20::Vec4::from(material.base_color);
    let emissive = g20::Vec3::from(material.emissive);
    PbrMaterial {
        albedo: match texture(material.base_color_texture) {
            Some(texture) => AlbedoComponent::TextureVertexValue {
                texture,
                srgb: false,
                value: base_color,
            },
            None => AlbedoComponent::ValueVertex {
                value: base_color,
                srgb: false,
            },
        },
        transparency: match material.alpha {
            AlphaMode::Opaque => Transparency::Opaque,
            AlphaMode::Mask { cutoff } => Transparency::Cutout { cutout: cutoff },
        },
        normal: match material
            .normal_texture
            .map(|t| rend3_texture(renderer, t, mirrored))
        {
            Some(t) => NormalTexture::Bicomponent(t, NormalTextureYDirection::Up),
            None => NormalTexture::None,
        },
        aomr_textures: AoMRTextures::SwizzledSplit {
            ao_texture: texture(material.occlusion_texture),
            mr_texture: texture(material.metallic_roughness_texture),
        },
        ao_factor: Some(material.occlusion_strength),
        metallic_factor: Some(material.metallic),
        roughness_factor: Some(material.roughness),
        emissive: match texture(material.emissive_texture) {
            Some(texture) => MaterialComponent::TextureValue {
                texture,
                value: emissive,
            },
            None => MaterialComponent::Value(emissive),
        },
        ..PbrMaterial::default()
    }
}

/// Level 0 of `texture` as an RGBA8 rend3 texture, red inverted if `flip_red`. Only
/// level 0: rend3 0.3's forward shader samples with `textureGrad` on derivatives taken
/// in non-uniform control flow, which lavapipe leaves undefined, so with a mip chain
/// scattered pixels read its smallest levels (a speckle of the texture's mean colour).
fn rend3_texture(renderer: &Renderer, texture: TextureLevels, flip_red: bool) -> TextureHandle {
    let mut data = texture
        .format
        .decode(texture.levels[0], texture.width, texture.height);
    if flip_red {
        for texel in data.chunks_exact_mut(4) {
            texel[0] = 255 - texel[0];
        }
    }
    renderer.add_texture_2d(Texture {
        label: Some("reference material texture".into()),
        data,
        format: if texture.format.is_srgb() {
            wgpu::TextureFormat::Rgba8UnormSrgb
        } else {
            wgpu::TextureFormat::Rgba8Unorm
        },
        size: g20::UVec2::new(texture.width, texture.height),
        mip_count: MipmapCount::ONE,
        mip_source: MipmapSource::Uploaded,
    })
}

struct Vertices {
    positions: Vec<g20::Vec3>,
    normals: Vec<g20::Vec3>,
    tangents: Vec<g20::Vec3>,
    /// Each tangent's `w`.
    handedness: Vec<f32>,
    uvs: Vec<g20::Vec2>,
    colors: Vec<[u8; 4]>,
}

fn unpack_vertices(part: &PartGeometry) -> Vertices {
    let mut out = Vertices {
        positions: Vec::new(),
        normals: Vec::new(),
        tangents: Vec::new(),
        handedness: Vec::new(),
        uvs: Vec::new(),
        colors: Vec::new(),
    };
    for v in part.quantization.unpack_all(part.vertices) {
        out.positions.push(g20::Vec3::from(v.position));
        out.normals.push(g20::Vec3::from(v.normal));
        out.uvs.push(g20::Vec2::from(v.uv));
        let [x, y, z, w] = v.tangent;
        out.tangents.push(g20::Vec3::new(x, y, z));
        out.handedness.push(w);
        out.colors.push(v.color);
    }
    out
}

fn decode_indices(lod: &LodIndices) -> Vec<u32> {
    match lod.width {
        IndexWidth::U16 => lod
            .bytes
            .chunks_exact(2)
            .map(|b| u16::from_le_bytes([b[0], b[1]]) as u32)
            .collect(),
        IndexWidth::U32 => lod
            .bytes
            .chunks_exact(4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect(),
    }
}

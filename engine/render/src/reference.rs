//! The naive path the prototype started from, kept only as the benchmarks' and tests'
//! reference: every placement part as its own rend3 object, each LOD as its own rend3
//! mesh with a private copy of the vertices. rend3 then issues a depth-prepass, a
//! forward and a shadow draw per object.

use glam::Mat4;
use rend3::types::glam as g20;
use rend3::types::{MaterialHandle, MeshBuilder, MeshHandle, Object, ObjectHandle, ObjectMeshKind};
use rend3::Renderer;
use rend3_routine::pbr::{AlbedoComponent, PbrMaterial, Transparency};

use crate::convert;
use crate::error::RenderError;
use crate::props::{AlphaMode, IndexWidth, LodIndices, PartGeometry, VERTEX_STRIDE};

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
        let vertices = decode_vertices(part.vertices);
        let meshes = part
            .lods
            .iter()
            .map(|lod| {
                let mesh =
                    MeshBuilder::new(vertices.positions.clone(), rend3::types::Handedness::Left)
                        .with_vertex_normals(vertices.normals.clone())
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
        let material = &part.material;
        let material = renderer.add_material(PbrMaterial {
            albedo: AlbedoComponent::ValueVertex {
                value: g20::Vec4::from(material.base_color),
                srgb: false,
            },
            transparency: match material.alpha {
                AlphaMode::Opaque => Transparency::Opaque,
                AlphaMode::Mask { cutoff } => Transparency::Cutout { cutout: cutoff },
            },
            roughness_factor: Some(0.9),
            metallic_factor: Some(0.0),
            ..PbrMaterial::default()
        });
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

struct Vertices {
    positions: Vec<g20::Vec3>,
    normals: Vec<g20::Vec3>,
    uvs: Vec<g20::Vec2>,
    colors: Vec<[u8; 4]>,
}

fn decode_vertices(bytes: &[u8]) -> Vertices {
    let float = |v: &[u8], i: usize| f32::from_le_bytes([v[i], v[i + 1], v[i + 2], v[i + 3]]);
    let mut out = Vertices {
        positions: Vec::new(),
        normals: Vec::new(),
        uvs: Vec::new(),
        colors: Vec::new(),
    };
    for v in bytes.chunks_exact(VERTEX_STRIDE) {
        out.positions
            .push(g20::Vec3::new(float(v, 0), float(v, 4), float(v, 8)));
        out.normals
            .push(g20::Vec3::new(float(v, 12), float(v, 16), float(v, 20)));
        out.uvs.push(g20::Vec2::new(float(v, 24), float(v, 28)));
        out.colors.push([v[32], v[33], v[34], v[35]]);
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

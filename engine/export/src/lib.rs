//! A painted world for other engines: one glTF 2.0 binary (`.glb`) and plain placement
//! lists. Pure: bake-cache entries (with their texture blobs), placements and the terrain mesh are handed in, bytes
//! go to the writer handed in; the command line does the file IO (atomically).
//!
//! The `.glb` holds, per exported prop:
//!
//! - one mesh per LOD level whose primitives are the prop's parts; every level of a
//!   part indexes the same vertex accessors (one interleaved, 32-byte-stride vertex
//!   bufferView per part) through its own index accessor. Normals and tangents stay
//!   8-bit as the cache packs them (`KHR_mesh_quantization`); positions and UVs are
//!   unpacked to f32, because a part's position range is its own while instancing
//!   applies a node's transform after the instance's, so no node can carry it;
//! - materials with every channel the cache holds (base colour, metallic-roughness,
//!   normal map with TANGENT, occlusion, emission with KHR_materials_emissive_strength
//!   past 1, alpha mode and cutoff, double-sided) and their textures (the largest
//!   level, decoded from its blocks; normal maps with Z rebuilt), each texture blob
//!   once however many props share it (PNG);
//! - per terrain cell ([`ExportOptions::cell_size`]) one node drawing LOD 0 with
//!   `EXT_mesh_gpu_instancing` (TRANSLATION, ROTATION, SCALE accessors) and `MSFT_lod`
//!   naming one node per coarser level, which share the same instance accessors.
//!   Readers without `MSFT_lod` show LOD 0.
//!
//! and, when asked, the terrain as one mesh with its biome vertex colours.
//!
//! Everything is in glTF's right-handed frame ([`frame`]). Instance data streams to the
//! writer: [`write_glb`] holds the geometry of the props, the JSON document and a
//! 16-byte sort key per placement, never a copy of the instance data; [`GlbWriter`]
//! takes placements a batch at a time (counted in a first walk, written in a second),
//! holding a count per instancing node and a sort key per placement of the batch.

pub mod frame;
mod placements;
mod writer;

use std::collections::BTreeMap;
use std::io::{self, Write};

use gltf_json as json;
use json::validation::{Checked::Valid, USize64};
use json::{accessor, buffer, material, mesh, texture, Index, Root};
use sylva_cache::{IndexFormat, PartView, PixelFormat, PropView, TextureId, TextureView};
use sylva_mesh::{
    AlphaMode, Material, TextureBinding, WrapMode, PACKED_NORMAL, PACKED_STRIDE, PACKED_TANGENT,
};
use sylva_scatter::Placement;
use sylva_terrain::TerrainMesh;
use thiserror::Error;

pub use placements::{write_placement_list, ListFormat, PlacementList};
use writer::InOrder;
pub use writer::{GlbWriter, InstanceWriter};

/// Side of the square terrain cells placements are grouped by, in metres: the size of
/// the renderer's terrain chunks (32 cells of 2 m), so an engine culls per cell.
pub const DEFAULT_CELL_SIZE: f32 = 64.0;

/// The instancing extension (per-node TRANSLATION/ROTATION/SCALE accessors).
pub const EXT_MESH_GPU_INSTANCING: &str = "EXT_mesh_gpu_instancing";
/// The LOD extension (coarser nodes named on the LOD 0 node).
pub const MSFT_LOD: &str = "MSFT_lod";
/// 8-bit normals and tangents.
pub const KHR_MESH_QUANTIZATION: &str = "KHR_mesh_quantization";
/// Bytes per exported vertex: position f32×3, normal i8×3 (and a pad byte), tangent
/// i8×4, UV f32×2, colour u8×4.
const EXPORT_STRIDE: usize = 32;
/// Emission brighter than glTF's factor allows.
pub const KHR_MATERIALS_EMISSIVE_STRENGTH: &str = "KHR_materials_emissive_strength";

/// Why an export failed.
#[derive(Debug, Error)]
pub enum ExportError {
    /// The writer failed (a full disk, a closed pipe).
    #[error(transparent)]
    Io {
        #[from]
        source: io::Error,
    },
    #[error("the export would be {bytes} bytes; a .glb holds at most 4 GiB")]
    TooLarge { bytes: u64 },
    #[error("cell size {value} is not a positive number of metres")]
    CellSize { value: f32 },
    #[error(
        "the placements handed over to write differ from those counted (instancing node of \
         prop rank {}, cell {},{})", key.0, key.1, key.2
    )]
    Uncounted { key: (u32, i32, i32) },
    #[error("encoding texture {texture} of {prop} as PNG: {reason}")]
    Png {
        prop: String,
        texture: usize,
        reason: String,
    },
}

/// What to export besides the props.
#[derive(Clone, Copy, Debug)]
pub struct ExportOptions<'a> {
    /// Side of the square cells placements are grouped into, one instancing node per
    /// (prop, cell).
    pub cell_size: f32,
    /// The terrain, exported as a mesh with its vertex colours when given.
    pub terrain: Option<&'a TerrainMesh>,
}

impl Default for ExportOptions<'_> {
    fn default() -> Self {
        ExportOptions {
            cell_size: DEFAULT_CELL_SIZE,
            terrain: None,
        }
    }
}

/// What an export wrote and what it left out.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ExportReport {
    /// Props with geometry in the file.
    pub props: usize,
    /// Placements written as instances.
    pub placements: usize,
    /// Instancing nodes in the scene: one per (prop, cell) holding placements.
    pub instancing_nodes: usize,
    /// Bytes written.
    pub bytes: u64,
    /// Placements not written, by prop id: their prop has no usable entry.
    pub left_out: BTreeMap<String, usize>,
}

/// Writes `placements` of the props in `props` (by prop id; the caller parsed their
/// cache entries and texture blobs) and optionally the terrain to `out` as one `.glb`. Placements whose
/// prop is missing from `props` (or has no triangles) are counted in
/// [`ExportReport::left_out`], the rest is exported. [`GlbWriter`] writes placements
/// handed over a batch at a time instead, in memory proportional to a batch.
pub fn write_glb<W: Write>(
    out: &mut W,
    props: &BTreeMap<&str, PropView<'_>>,
    placements: &[&Placement],
    options: ExportOptions<'_>,
) -> Result<ExportReport, ExportError> {
    let mut glb = GlbWriter::new(options)?;
    glb.count(placements.iter().copied());
    // One batch of every placement writes the instance data in file order.
    let mut out = InOrder { out, position: 0 };
    let mut glb = glb.write_head(&mut out, props)?;
    glb.write_instances(&mut out, placements)?;
    glb.finish()
}

/// The JSON document and the geometry part of the binary chunk.
#[derive(Default)]
struct Document {
    root: Root,
    bin: Vec<u8>,
    /// One sampler per (wrap S, wrap T) in use; at most nine.
    samplers: Vec<((WrapMode, WrapMode), Index<texture::Sampler>)>,
    /// The image of each texture blob written so far.
    images: BTreeMap<TextureId, Index<json::Image>>,
}

impl Document {
    fn align(&mut self) {
        self.bin.resize(self.bin.len().next_multiple_of(4), 0);
    }

    fn view(
        &mut self,
        bytes: &[u8],
        stride: Option<usize>,
        target: Option<buffer::Target>,
    ) -> Index<buffer::View> {
        self.align();
        let offset = self.bin.len() as u64;
        self.bin.extend_from_slice(bytes);
        self.view_at(offset, bytes.len() as u64, stride, target)
    }

    fn view_at(
        &mut self,
        offset: u64,
        len: u64,
        stride: Option<usize>,
        target: Option<buffer::Target>,
    ) -> Index<buffer::View> {
        self.root.push(buffer_view(offset, len, stride, target))
    }

    /// The meshes of one prop, LOD 0 first; empty when it has no triangles.
    fn prop_meshes(
        &mut self,
        id: &str,
        prop: &PropView<'_>,
    ) -> Result<Vec<Index<json::Mesh>>, ExportError> {
        let entry = &prop.entry;
        // The impostor's atlases are sylva's own far level, not material textures: other
        // engines get the meshes only.
        let atlases = entry.impostor().map(|i| i.atlases().map(|t| t as usize));
        let mut images = Vec::with_capacity(entry.textures.len());
        for (index, (texture_id, texture)) in entry.textures.iter().zip(&prop.textures).enumerate()
        {
            if atlases.is_some_and(|a| a.contains(&index)) {
                images.push(None);
                continue;
            }
            let image = match self.images.get(texture_id) {
                Some(&image) => image,
                None => {
                    let image = self.image(id, index, texture)?;
                    self.images.insert(*texture_id, image);
                    image
                }
            };
            images.push(Some(image));
        }
        let parts: Vec<_> = entry
            .parts
            .iter()
            .filter(|p| p.vertex_count > 0 && p.levels.iter().any(|l| l.index_count > 0))
            .map(|part| self.part(part, &images))
            .collect();
        // Parts of a placement move between levels together, so sylva draws as many
        // levels as the part with the fewest has (`sylva_runtime::shape_of`); so does
        // the export.
        let level_count = parts.iter().map(|p| p.levels.len()).min().unwrap_or(0);
        let mut meshes = Vec::new();
        for level in 0..level_count {
            let primitives: Vec<_> = parts
                .iter()
                .filter_map(|part| {
                    Some(mesh::Primitive {
                        attributes: part.attributes.clone(),
                        extensions: None,
                        extras: Default::default(),
                        indices: Some(part.levels[level]?),
                        material: Some(part.material),
                        mode: Valid(mesh::Mode::Triangles),
                        targets: None,
                    })
                })
                .collect();
            if primitives.is_empty() {
                break;
            }
            meshes.push(self.root.push(json::Mesh {
                extensions: None,
                extras: Default::default(),
                name: Some(format!("{id} LOD{level}")),
                primitives,
                weights: None,
            }));
        }
        Ok(meshes)
    }

    fn part(&mut self, part: &PartView<'_>, images: &[Option<Index<json::Image>>]) -> ExportedPart {
        // Mirror X of positions and normals; a mirror also turns the tangent frame over:
        // tangent X and `w` flip.
        let mut vertices = Vec::with_capacity(part.vertex_count as usize * EXPORT_STRIDE);
        let mut bounds = ([f32::INFINITY; 3], [f32::NEG_INFINITY; 3]);
        let packed = part.vertex_bytes.chunks_exact(PACKED_STRIDE);
        for (vertex, packed) in part.vertices().zip(packed) {
            // Finite: the entry's quantization was checked to unpack to finite values.
            let [x, y, z] = vertex.position;
            let position = [-x, y, z];
            for (axis, &v) in position.iter().enumerate() {
                bounds.0[axis] = bounds.0[axis].min(v);
                bounds.1[axis] = bounds.1[axis].max(v);
            }
            let negated = |byte: u8| (byte as i8).wrapping_neg() as u8;
            let normal = &packed[PACKED_NORMAL..PACKED_NORMAL + 4];
            let tangent = &packed[PACKED_TANGENT..PACKED_TANGENT + 4];
            vertices.extend(position.iter().flat_map(|v| v.to_le_bytes()));
            vertices.extend([negated(normal[0]), normal[1], normal[2], 0]);
            vertices.extend([
                negated(tangent[0]),
                tangent[1],
                tangent[2],
                negated(tangent[3]),
            ]);
            vertices.extend(vertex.uv.iter().flat_map(|v| v.to_le_bytes()));
            vertices.extend(vertex.color);
        }
        let view = self.view(
            &vertices,
            Some(EXPORT_STRIDE),
            Some(buffer::Target::ArrayBuffer),
        );
        drop(vertices);
        let count = u64::from(part.vertex_count);
        use accessor::ComponentType::{F32, I8, U8};
        use accessor::Type::{Vec2, Vec3, Vec4};
        use mesh::Semantic::{Colors, Normals, Positions, Tangents, TexCoords};
        // Tangents only where a normal map reads them (elsewhere they are zero, which
        // glTF does not allow).
        let tangents = part
            .material
            .normal_texture
            .map(|_| (Tangents, 16, I8, Vec4, true, None));
        let attributes = [
            Some((Positions, 0, F32, Vec3, false, Some(bounds))),
            Some((Normals, 12, I8, Vec3, true, None)),
            Some((TexCoords(0), 20, F32, Vec2, false, None)),
            tangents,
            Some((Colors(0), 28, U8, Vec4, true, None)),
        ]
        .into_iter()
        .flatten()
        .map(|(semantic, offset, component, type_, normalized, bounds)| {
            let accessor = self.root.push(accessor_of(
                view, offset, count, component, type_, normalized, bounds,
            ));
            (Valid(semantic), accessor)
        })
        .collect();
        let levels = part
            .levels
            .iter()
            .map(|level| {
                (level.index_count > 0).then(|| {
                    let bytes = flipped_winding(level.index_bytes, level.index_format);
                    let target = Some(buffer::Target::ElementArrayBuffer);
                    let view = self.view(&bytes, None, target);
                    let component = match level.index_format {
                        IndexFormat::U16 => accessor::ComponentType::U16,
                        IndexFormat::U32 => accessor::ComponentType::U32,
                    };
                    let count = u64::from(level.index_count);
                    self.root.push(accessor_of(
                        view,
                        0,
                        count,
                        component,
                        accessor::Type::Scalar,
                        false,
                        None,
                    ))
                })
            })
            .collect();
        let material = self.material(&part.material, images);
        ExportedPart {
            attributes,
            levels,
            material,
        }
    }

    fn image(
        &mut self,
        prop: &str,
        index: usize,
        texture: &TextureView<'_>,
    ) -> Result<Index<json::Image>, ExportError> {
        let png_error = |e: png::EncodingError| ExportError::Png {
            prop: prop.to_owned(),
            texture: index,
            reason: e.to_string(),
        };
        let mut texels = texture.decode_level(0);
        if texture.format == PixelFormat::Bc5 {
            // BC5 keeps a normal map's X and Y; other tools read Z from the image.
            for t in texels.chunks_exact_mut(4) {
                let [x, y] = [t[0], t[1]].map(|c| f32::from(c) / 127.5 - 1.0);
                let z = (1.0 - x * x - y * y).max(0.0).sqrt();
                t[2] = ((z * 0.5 + 0.5) * 255.0).round() as u8;
            }
        }
        let mut png_bytes = Vec::new();
        let mut encoder = png::Encoder::new(&mut png_bytes, texture.width, texture.height);
        encoder.set_color(png::ColorType::Rgba);
        encoder.set_depth(png::BitDepth::Eight);
        encoder
            .write_header()
            .map_err(png_error)?
            .write_image_data(&texels)
            .map_err(png_error)?;
        let view = self.view(&png_bytes, None, None);
        Ok(self.root.push(json::Image {
            buffer_view: Some(view),
            mime_type: Some(json::image::MimeType("image/png".into())),
            name: Some(format!("{prop} texture {index}")),
            uri: None,
            extensions: None,
            extras: Default::default(),
        }))
    }

    fn sampler(&mut self, wrap: (WrapMode, WrapMode)) -> Index<texture::Sampler> {
        if let Some(&(_, sampler)) = self.samplers.iter().find(|(w, _)| *w == wrap) {
            return sampler;
        }
        let mode = |w| {
            Valid(match w {
                WrapMode::Repeat => texture::WrappingMode::Repeat,
                WrapMode::ClampToEdge => texture::WrappingMode::ClampToEdge,
                WrapMode::MirroredRepeat => texture::WrappingMode::MirroredRepeat,
            })
        };
        let sampler = self.root.push(texture::Sampler {
            mag_filter: Some(Valid(texture::MagFilter::Linear)),
            min_filter: Some(Valid(texture::MinFilter::LinearMipmapLinear)),
            wrap_s: mode(wrap.0),
            wrap_t: mode(wrap.1),
            ..Default::default()
        });
        self.samplers.push((wrap, sampler));
        sampler
    }

    /// A glTF texture of blob image `binding.texture` with the binding's wrap modes.
    fn texture(
        &mut self,
        binding: TextureBinding,
        images: &[Option<Index<json::Image>>],
    ) -> Option<Index<json::Texture>> {
        let image = (*images.get(binding.texture as usize)?)?;
        let sampler = self.sampler((binding.wrap_u, binding.wrap_v));
        Some(self.root.push(json::Texture {
            name: None,
            sampler: Some(sampler),
            source: image,
            extensions: None,
            extras: Default::default(),
        }))
    }

    fn material(
        &mut self,
        m: &Material,
        images: &[Option<Index<json::Image>>],
    ) -> Index<json::Material> {
        let mut info = |binding: Option<TextureBinding>| {
            let index = self.texture(binding?, images)?;
            Some(texture::Info {
                index,
                tex_coord: 0,
                extensions: None,
                extras: Default::default(),
            })
        };
        let base_color_texture = info(m.base_color_texture);
        let metallic_roughness_texture = info(m.metallic_roughness_texture);
        let emissive_texture = info(m.emissive_texture);
        let normal_texture = info(m.normal_texture).map(|i| material::NormalTexture {
            index: i.index,
            scale: m.normal_scale,
            tex_coord: 0,
            extensions: None,
            extras: Default::default(),
        });
        let occlusion_texture = info(m.occlusion_texture).map(|i| material::OcclusionTexture {
            index: i.index,
            strength: material::StrengthFactor(m.occlusion_strength),
            tex_coord: 0,
            extensions: None,
            extras: Default::default(),
        });
        let (alpha_mode, alpha_cutoff) = match m.alpha_mode {
            AlphaMode::Opaque => (material::AlphaMode::Opaque, None),
            AlphaMode::Mask { cutoff } => (
                material::AlphaMode::Mask,
                Some(material::AlphaCutoff(cutoff)),
            ),
            AlphaMode::Blend => (material::AlphaMode::Blend, None),
        };
        // glTF's emissive factor stops at 1; brighter emission is the strength extension.
        let strength = m.emissive_factor.into_iter().fold(1.0f32, f32::max);
        let extensions = (strength > 1.0).then(|| json::extensions::material::Material {
            emissive_strength: Some(json::extensions::material::EmissiveStrength {
                emissive_strength: json::extensions::material::EmissiveStrengthFactor(strength),
            }),
            ..Default::default()
        });
        self.root.push(json::Material {
            alpha_cutoff,
            alpha_mode: Valid(alpha_mode),
            double_sided: m.double_sided,
            name: (!m.name.is_empty()).then(|| m.name.clone()),
            pbr_metallic_roughness: material::PbrMetallicRoughness {
                base_color_factor: material::PbrBaseColorFactor(m.base_color_factor),
                base_color_texture,
                metallic_factor: material::StrengthFactor(m.metallic_factor),
                roughness_factor: material::StrengthFactor(m.roughness_factor),
                metallic_roughness_texture,
                ..Default::default()
            },
            normal_texture,
            occlusion_texture,
            emissive_texture,
            emissive_factor: material::EmissiveFactor(m.emissive_factor.map(|c| c / strength)),
            extensions,
            ..Default::default()
        })
    }

    fn terrain_mesh(&mut self, terrain: &TerrainMesh) -> Index<json::Mesh> {
        let count = terrain.positions.len() as u64;
        let floats = |values: &mut dyn Iterator<Item = f32>| -> Vec<u8> {
            values.flat_map(f32::to_le_bytes).collect()
        };
        let mirrored = |v: &[f32; 3]| frame::position(glam::Vec3::from(*v)).to_array();
        let positions: Vec<[f32; 3]> = terrain.positions.iter().map(mirrored).collect();
        let bounds = positions.iter().fold(
            ([f32::INFINITY; 3], [f32::NEG_INFINITY; 3]),
            |(lo, hi), p| {
                (
                    std::array::from_fn(|i| lo[i].min(p[i])),
                    std::array::from_fn(|i| hi[i].max(p[i])),
                )
            },
        );
        let position_bytes = floats(&mut positions.iter().flatten().copied());
        let normal_bytes = floats(&mut terrain.normals.iter().flat_map(mirrored));
        let color_bytes = floats(&mut terrain.colors.iter().flatten().copied());
        let index_bytes: Vec<u8> = terrain
            .indices
            .chunks_exact(3)
            .flat_map(|t| [t[0], t[2], t[1]])
            .flat_map(u32::to_le_bytes)
            .collect();
        let target = Some(buffer::Target::ArrayBuffer);
        use accessor::ComponentType::{F32, U32};
        use accessor::Type::{Scalar, Vec3, Vec4};
        let mut attribute = |bytes: &[u8], type_, bounds| {
            let view = self.view(bytes, None, target);
            self.root
                .push(accessor_of(view, 0, count, F32, type_, false, bounds))
        };
        let mut attributes = BTreeMap::new();
        attributes.insert(
            Valid(mesh::Semantic::Positions),
            attribute(&position_bytes, Vec3, Some(bounds)),
        );
        attributes.insert(
            Valid(mesh::Semantic::Normals),
            attribute(&normal_bytes, Vec3, None),
        );
        attributes.insert(
            Valid(mesh::Semantic::Colors(0)),
            attribute(&color_bytes, Vec4, None),
        );
        let view = self.view(&index_bytes, None, Some(buffer::Target::ElementArrayBuffer));
        let indices = self.root.push(accessor_of(
            view,
            0,
            terrain.indices.len() as u64,
            U32,
            Scalar,
            false,
            None,
        ));
        let material = self.root.push(json::Material {
            name: Some("terrain".into()),
            // The renderer draws the terrain as a rough dielectric.
            pbr_metallic_roughness: material::PbrMetallicRoughness {
                metallic_factor: material::StrengthFactor(0.0),
                roughness_factor: material::StrengthFactor(0.95),
                ..Default::default()
            },
            ..Default::default()
        });
        self.root.push(json::Mesh {
            extensions: None,
            extras: Default::default(),
            name: Some("terrain".into()),
            primitives: vec![mesh::Primitive {
                attributes,
                extensions: None,
                extras: Default::default(),
                indices: Some(indices),
                material: Some(material),
                mode: Valid(mesh::Mode::Triangles),
                targets: None,
            }],
            weights: None,
        })
    }

    /// The buffer, the scene and the extension lists.
    /// `instanced` says whether instancing nodes follow, `lods` whether any names
    /// coarser levels.
    fn finish(
        &mut self,
        scene_nodes: Vec<Index<json::Node>>,
        bin_len: u64,
        (instanced, lods): (bool, bool),
    ) {
        self.root.asset = json::Asset {
            generator: Some(format!("sylva-export {}", env!("CARGO_PKG_VERSION"))),
            version: "2.0".into(),
            ..Default::default()
        };
        if bin_len > 0 {
            self.root.push(json::Buffer {
                byte_length: USize64(bin_len),
                name: None,
                uri: None,
                extensions: None,
                extras: Default::default(),
            });
        }
        // An empty scene is valid glTF, but readers such as the gltf crate require its
        // `nodes`: an export with nothing to show has no scene.
        if !scene_nodes.is_empty() {
            let scene = self.root.push(json::Scene {
                extensions: None,
                extras: Default::default(),
                name: Some("sylva".into()),
                nodes: scene_nodes,
            });
            self.root.scene = Some(scene);
        }
        if instanced {
            self.root
                .extensions_used
                .push(EXT_MESH_GPU_INSTANCING.into());
        }
        let byte_vectors = |a: &accessor::Accessor| {
            matches!(
                a.component_type,
                Valid(accessor::GenericComponentType(accessor::ComponentType::I8))
            )
        };
        if self.root.accessors.iter().any(byte_vectors) {
            for list in [
                &mut self.root.extensions_used,
                &mut self.root.extensions_required,
            ] {
                list.push(KHR_MESH_QUANTIZATION.into());
            }
        }
        if lods {
            self.root.extensions_used.push(MSFT_LOD.into());
        }
        if self.root.materials.iter().any(|m| {
            m.extensions
                .as_ref()
                .is_some_and(|e| e.emissive_strength.is_some())
        }) {
            self.root
                .extensions_used
                .push(KHR_MATERIALS_EMISSIVE_STRENGTH.into());
        }
    }
}

/// A view of `len` bytes at `offset` of the binary chunk.
fn buffer_view(
    offset: u64,
    len: u64,
    stride: Option<usize>,
    target: Option<buffer::Target>,
) -> buffer::View {
    buffer::View {
        buffer: Index::new(0),
        byte_length: USize64(len),
        byte_offset: Some(USize64(offset)),
        byte_stride: stride.map(buffer::Stride),
        name: None,
        target: target.map(Valid),
        extensions: None,
        extras: Default::default(),
    }
}

/// An accessor of `count` elements in `view` from `offset`.
#[allow(clippy::too_many_arguments)]
fn accessor_of(
    view: Index<buffer::View>,
    offset: u64,
    count: u64,
    component: accessor::ComponentType,
    type_: accessor::Type,
    normalized: bool,
    bounds: Option<([f32; 3], [f32; 3])>,
) -> accessor::Accessor {
    accessor::Accessor {
        buffer_view: Some(view),
        byte_offset: (offset > 0).then_some(USize64(offset)),
        count: USize64(count),
        component_type: Valid(accessor::GenericComponentType(component)),
        extensions: None,
        extras: Default::default(),
        type_: Valid(type_),
        min: bounds.map(|b| serde_json::json!(b.0)),
        max: bounds.map(|b| serde_json::json!(b.1)),
        name: None,
        normalized,
        sparse: None,
    }
}

struct ExportedPart {
    attributes: BTreeMap<json::validation::Checked<mesh::Semantic>, Index<accessor::Accessor>>,
    /// Index accessor per level (`None` for a level without triangles).
    levels: Vec<Option<Index<accessor::Accessor>>>,
    material: Index<json::Material>,
}

/// The triangles of `bytes` with their last two corners swapped: mirrored geometry
/// faces the same way again.
fn flipped_winding(bytes: &[u8], format: IndexFormat) -> Vec<u8> {
    let size = format.size();
    let mut out = bytes.to_vec();
    for triangle in out.chunks_exact_mut(3 * size) {
        let (b, c) = triangle[size..].split_at_mut(size);
        b.swap_with_slice(c);
    }
    out
}

#[cfg(test)]
mod tests;

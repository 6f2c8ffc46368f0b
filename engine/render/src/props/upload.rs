//! GPU copies of a prop's parts: each part's vertex buffer uploaded once, one index
//! buffer per LOD, and its material bind group; textures, with all their mip levels,
//! once per texture key however many parts use them, as BC blocks where the adapter
//! samples them and decoded to RGBA8 where it does not.

use std::collections::BTreeMap;
use std::num::NonZeroU32;

use rend3::Renderer;
use wgpu::util::{BufferInitDescriptor, DeviceExt};
use wgpu::{
    BindGroup, BindGroupDescriptor, BindGroupEntry, BindingResource, Buffer, BufferUsages,
    Extent3d, ImageCopyTexture, ImageDataLayout, IndexFormat, Origin3d, Sampler, TextureAspect,
    TextureDescriptor, TextureDimension, TextureFormat, TextureUsages, TextureViewDescriptor,
};

use super::geometry::{AlphaMode, IndexWidth, PartGeometry, PixelFormat, TextureLevels};
use super::pipelines::{PipelineKey, Pipelines};
use super::sphere::Sphere;

pub struct GpuLod {
    pub indices: Buffer,
    pub index_bytes: u64,
    pub format: IndexFormat,
    pub count: u32,
}

pub struct GpuPart {
    pub vertices: Buffer,
    pub vertex_bytes: u64,
    pub lods: Vec<GpuLod>,
    pub material: BindGroup,
    /// The keys of the shared textures the bind group samples.
    pub texture_keys: Vec<[u8; 32]>,
    pub pipeline: PipelineKey,
    /// Bounding sphere in prop space, for culling.
    pub bounds: Sphere,
}

impl GpuPart {
    /// Uploads `part`; `textures` holds every texture its material names, by key.
    pub fn upload<'a>(
        renderer: &Renderer,
        pipelines: &Pipelines,
        sampler: &Sampler,
        defaults: &'a DefaultTextures,
        textures: &'a BTreeMap<[u8; 32], BindingTexture>,
        part: &PartGeometry,
    ) -> Self {
        let device = &renderer.device;
        let vertices = device.create_buffer_init(&BufferInitDescriptor {
            label: Some("prop part vertices"),
            contents: part.vertices,
            usage: BufferUsages::VERTEX,
        });
        let lods = part
            .lods
            .iter()
            .map(|lod| GpuLod {
                indices: device.create_buffer_init(&BufferInitDescriptor {
                    label: Some("prop part lod indices"),
                    contents: lod.bytes,
                    usage: BufferUsages::INDEX,
                }),
                index_bytes: lod.bytes.len() as u64,
                format: match lod.width {
                    IndexWidth::U16 => IndexFormat::Uint16,
                    IndexWidth::U32 => IndexFormat::Uint32,
                },
                count: lod.index_count(),
            })
            .collect();
        let material = &part.material;
        let cutoff = match material.alpha {
            AlphaMode::Opaque => 0.0,
            AlphaMode::Mask { cutoff } => cutoff,
        };
        let has_normal_map = f32::from(u8::from(material.normal_texture.is_some()));
        let [er, eg, eb] = material.emissive;
        let q = &part.quantization;
        let uniform: [f32; 28] = [
            material.base_color[0],
            material.base_color[1],
            material.base_color[2],
            material.base_color[3],
            er,
            eg,
            eb,
            0.0,
            material.metallic,
            material.roughness,
            material.normal_scale,
            material.occlusion_strength,
            cutoff,
            has_normal_map,
            0.0,
            0.0,
            q.position_offset[0],
            q.position_offset[1],
            q.position_offset[2],
            0.0,
            q.position_scale[0],
            q.position_scale[1],
            q.position_scale[2],
            0.0,
            q.uv_offset[0],
            q.uv_offset[1],
            q.uv_scale[0],
            q.uv_scale[1],
        ];
        let uniform = device.create_buffer_init(&BufferInitDescriptor {
            label: Some("prop material"),
            contents: bytemuck::cast_slice(&uniform),
            usage: BufferUsages::UNIFORM,
        });
        let view = |t: Option<TextureLevels>, fallback: &'a BindingTexture| {
            BindingResource::TextureView(&t.map_or(fallback, |t| &textures[&t.key]).view)
        };
        let material_bind_group = device.create_bind_group(&BindGroupDescriptor {
            label: Some("prop material"),
            layout: &pipelines.material_layout,
            entries: &[
                BindGroupEntry {
                    binding: 0,
                    resource: uniform.as_entire_binding(),
                },
                BindGroupEntry {
                    binding: 1,
                    resource: view(material.base_color_texture, &defaults.white_srgb),
                },
                BindGroupEntry {
                    binding: 2,
                    resource: BindingResource::Sampler(sampler),
                },
                BindGroupEntry {
                    binding: 3,
                    resource: view(material.normal_texture, &defaults.white_linear),
                },
                BindGroupEntry {
                    binding: 4,
                    resource: view(material.metallic_roughness_texture, &defaults.white_linear),
                },
                BindGroupEntry {
                    binding: 5,
                    resource: view(material.occlusion_texture, &defaults.white_linear),
                },
                BindGroupEntry {
                    binding: 6,
                    resource: view(material.emissive_texture, &defaults.white_srgb),
                },
            ],
        });
        Self {
            bounds: Sphere::around(part.positions()),
            vertex_bytes: part.vertices.len() as u64,
            vertices,
            lods,
            material: material_bind_group,
            texture_keys: material.textures().map(|t| t.key).collect(),
            pipeline: PipelineKey {
                masked: matches!(material.alpha, AlphaMode::Mask { .. }),
                double_sided: material.double_sided,
            },
        }
    }
}

/// What untextured channels sample: one opaque white texel, as sRGB colour and as
/// linear data (occlusion 1, roughness and metallic × 1; the normal map slot is unused
/// when the material says it has none).
pub struct DefaultTextures {
    pub white_srgb: BindingTexture,
    pub white_linear: BindingTexture,
}

impl DefaultTextures {
    pub fn new(renderer: &Renderer) -> Self {
        let white = |format| {
            BindingTexture::upload(
                renderer,
                TextureLevels {
                    key: [0; 32],
                    width: 1,
                    height: 1,
                    format,
                    levels: &[&[255, 255, 255, 255]],
                },
                TextureUpload::Native,
            )
        };
        DefaultTextures {
            white_srgb: white(PixelFormat::Rgba8Srgb),
            white_linear: white(PixelFormat::Rgba8Linear),
        }
    }
}

/// How block-compressed textures reach the GPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TextureUpload {
    /// As stored: BC blocks, sampled by the GPU (needs `TEXTURE_COMPRESSION_BC`).
    Native,
    /// Decoded to RGBA8 on the CPU first (adapters without BC support).
    Rgba8,
}

impl TextureUpload {
    /// Blocks where `renderer`'s device has BC support, else RGBA8.
    pub fn for_renderer(renderer: &Renderer) -> Self {
        if renderer
            .features
            .contains(wgpu::Features::TEXTURE_COMPRESSION_BC)
        {
            TextureUpload::Native
        } else {
            TextureUpload::Rgba8
        }
    }
}

/// The wgpu format of `format`'s texels.
fn wgpu_format(format: PixelFormat) -> TextureFormat {
    match format {
        PixelFormat::Rgba8Srgb => TextureFormat::Rgba8UnormSrgb,
        PixelFormat::Rgba8Linear => TextureFormat::Rgba8Unorm,
        PixelFormat::Bc1Srgb => TextureFormat::Bc1RgbaUnormSrgb,
        PixelFormat::Bc1Linear => TextureFormat::Bc1RgbaUnorm,
        PixelFormat::Bc3Srgb => TextureFormat::Bc3RgbaUnormSrgb,
        PixelFormat::Bc5 => TextureFormat::Bc5RgUnorm,
    }
}

/// A sampled 2D texture; the bind group keeps what it needs alive.
pub struct BindingTexture {
    pub view: wgpu::TextureView,
    /// Bytes on the GPU, all levels.
    pub bytes: u64,
}

impl BindingTexture {
    /// Uploads every level of `texture`, as blocks or decoded as `upload` says.
    pub fn upload(renderer: &Renderer, texture: TextureLevels, upload: TextureUpload) -> Self {
        let decode = upload == TextureUpload::Rgba8 && texture.format.block_bytes().is_some();
        let stored = match (decode, texture.format.is_srgb()) {
            (false, _) => texture.format,
            (true, true) => PixelFormat::Rgba8Srgb,
            (true, false) => PixelFormat::Rgba8Linear,
        };
        let gpu = renderer.device.create_texture(&TextureDescriptor {
            label: Some("prop material texture"),
            size: Extent3d {
                width: texture.width,
                height: texture.height,
                depth_or_array_layers: 1,
            },
            mip_level_count: texture.levels.len() as u32,
            sample_count: 1,
            dimension: TextureDimension::D2,
            format: wgpu_format(stored),
            usage: TextureUsages::TEXTURE_BINDING | TextureUsages::COPY_DST,
        });
        let mut bytes = 0;
        for (level, texels) in texture.levels.iter().enumerate() {
            let (width, height) = texture.level_size(level);
            let decoded;
            let texels = if decode {
                decoded = texture.format.decode(texels, width, height);
                &decoded[..]
            } else {
                texels
            };
            bytes += texels.len() as u64;
            // Block formats copy whole blocks: rows of blocks, the level's size rounded
            // up to them.
            let (row_bytes, copy_width, copy_height) = match stored.block_bytes() {
                None => (width * 4, width, height),
                Some(block) => (
                    width.div_ceil(4) * block as u32,
                    width.div_ceil(4) * 4,
                    height.div_ceil(4) * 4,
                ),
            };
            renderer.queue.write_texture(
                ImageCopyTexture {
                    texture: &gpu,
                    mip_level: level as u32,
                    origin: Origin3d::ZERO,
                    aspect: TextureAspect::All,
                },
                texels,
                ImageDataLayout {
                    offset: 0,
                    bytes_per_row: NonZeroU32::new(row_bytes),
                    rows_per_image: None,
                },
                Extent3d {
                    width: copy_width,
                    height: copy_height,
                    depth_or_array_layers: 1,
                },
            );
        }
        Self {
            view: gpu.create_view(&TextureViewDescriptor::default()),
            bytes,
        }
    }
}

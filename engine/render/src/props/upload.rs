//! GPU copies of a prop's parts: each part's vertex buffer uploaded once, one index
//! buffer per LOD, and its material bind group; textures, with all their mip levels,
//! once per texture key however many parts use them.

use std::num::NonZeroU32;

use rend3::Renderer;
use wgpu::util::{BufferInitDescriptor, DeviceExt};
use wgpu::{
    BindGroup, BindGroupDescriptor, BindGroupEntry, BindingResource, Buffer, BufferUsages,
    Extent3d, ImageCopyTexture, ImageDataLayout, IndexFormat, Origin3d, Sampler, TextureAspect,
    TextureDescriptor, TextureDimension, TextureFormat, TextureUsages, TextureViewDescriptor,
};

use super::cull::Sphere;
use super::geometry::{AlphaMode, IndexWidth, PartGeometry, TextureRgba8};
use super::pipelines::{PipelineKey, Pipelines};

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
    /// The key of the shared texture the bind group samples, if not white.
    pub texture_key: Option<[u8; 32]>,
    pub pipeline: PipelineKey,
    /// Bounding sphere in prop space, for culling.
    pub bounds: Sphere,
}

impl GpuPart {
    pub fn upload(
        renderer: &Renderer,
        pipelines: &Pipelines,
        sampler: &Sampler,
        white: &BindingTexture,
        texture: Option<&BindingTexture>,
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
        let mut uniform = [0f32; 8];
        uniform[..4].copy_from_slice(&material.base_color);
        uniform[4] = cutoff;
        let uniform = device.create_buffer_init(&BufferInitDescriptor {
            label: Some("prop material"),
            contents: bytemuck::cast_slice(&uniform),
            usage: BufferUsages::UNIFORM,
        });
        let sampled = texture.unwrap_or(white);
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
                    resource: BindingResource::TextureView(&sampled.view),
                },
                BindGroupEntry {
                    binding: 2,
                    resource: BindingResource::Sampler(sampler),
                },
            ],
        });
        Self {
            bounds: Sphere::around(part.positions()),
            vertex_bytes: part.vertices.len() as u64,
            vertices,
            lods,
            material: material_bind_group,
            texture_key: material.texture.map(|t| t.key),
            pipeline: PipelineKey {
                masked: matches!(material.alpha, AlphaMode::Mask { .. }),
                double_sided: material.double_sided,
            },
        }
    }
}

/// A sampled 2D texture; the bind group keeps what it needs alive.
pub struct BindingTexture {
    pub view: wgpu::TextureView,
    /// Bytes on the GPU, all levels.
    pub bytes: u64,
}

impl BindingTexture {
    /// One opaque white texel: what untextured materials sample.
    pub fn white(renderer: &Renderer) -> Self {
        Self::upload(
            renderer,
            TextureRgba8 {
                key: [0; 32],
                width: 1,
                height: 1,
                levels: &[&[255, 255, 255, 255]],
            },
        )
    }

    pub fn upload(renderer: &Renderer, texture: TextureRgba8) -> Self {
        let size = Extent3d {
            width: texture.width,
            height: texture.height,
            depth_or_array_layers: 1,
        };
        let gpu = renderer.device.create_texture(&TextureDescriptor {
            label: Some("prop base colour"),
            size,
            mip_level_count: texture.levels.len() as u32,
            sample_count: 1,
            dimension: TextureDimension::D2,
            format: TextureFormat::Rgba8UnormSrgb,
            usage: TextureUsages::TEXTURE_BINDING | TextureUsages::COPY_DST,
        });
        for (level, texels) in texture.levels.iter().enumerate() {
            let (width, height) = texture.level_size(level);
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
                    bytes_per_row: NonZeroU32::new(width * 4),
                    rows_per_image: None,
                },
                Extent3d {
                    width,
                    height,
                    depth_or_array_layers: 1,
                },
            );
        }
        Self {
            view: gpu.create_view(&TextureViewDescriptor::default()),
            bytes: texture.levels.iter().map(|l| l.len() as u64).sum(),
        }
    }
}

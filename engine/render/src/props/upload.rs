//! GPU copies of a prop's parts: each part's vertex buffer uploaded once, one index
//! buffer per LOD, and its material bind group.

use std::num::NonZeroU32;

use rend3::Renderer;
use wgpu::util::{BufferInitDescriptor, DeviceExt};
use wgpu::{
    BindGroup, BindGroupDescriptor, BindGroupEntry, BindingResource, Buffer, BufferUsages,
    Extent3d, ImageDataLayout, IndexFormat, Sampler, TextureDescriptor, TextureDimension,
    TextureFormat, TextureUsages, TextureViewDescriptor,
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
        let own_texture = material
            .texture
            .map(|t| BindingTexture::upload(renderer, t));
        let texture = own_texture.as_ref().unwrap_or(white);
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
                    resource: BindingResource::TextureView(&texture.view),
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
}

impl BindingTexture {
    /// One opaque white texel: what untextured materials sample.
    pub fn white(renderer: &Renderer) -> Self {
        Self::upload(
            renderer,
            TextureRgba8 {
                width: 1,
                height: 1,
                pixels: &[255, 255, 255, 255],
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
            mip_level_count: 1,
            sample_count: 1,
            dimension: TextureDimension::D2,
            format: TextureFormat::Rgba8UnormSrgb,
            usage: TextureUsages::TEXTURE_BINDING | TextureUsages::COPY_DST,
        });
        renderer.queue.write_texture(
            gpu.as_image_copy(),
            texture.pixels,
            ImageDataLayout {
                offset: 0,
                bytes_per_row: NonZeroU32::new(texture.width * 4),
                rows_per_image: None,
            },
            size,
        );
        Self {
            view: gpu.create_view(&TextureViewDescriptor::default()),
        }
    }
}

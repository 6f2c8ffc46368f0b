//! A prop's impostor on the GPU: its three atlases (shared through the renderer's texture
//! table by blob key, like material textures), its uniform and the bind group the
//! impostor pipelines read.

use std::collections::BTreeMap;

use glam::Vec3;
use rend3::Renderer;
use wgpu::util::{BufferInitDescriptor, DeviceExt};
use wgpu::{
    BindGroup, BindGroupDescriptor, BindGroupEntry, BindingResource, BufferUsages, Sampler,
};

use super::geometry::ImpostorGeometry;
use super::pipelines::Pipelines;
use super::sphere::Sphere;
use super::upload::BindingTexture;

/// The alpha the impostor's coverage is tested at: the middle of a silhouette's
/// antialiased edge, as the baker's coverage-keeping mips assume
/// (`ImpostorSettings::alpha_cutoff`).
pub const IMPOSTOR_ALPHA_CUTOFF: f32 = 0.5;

pub struct GpuImpostor {
    pub bind_group: BindGroup,
    /// The keys of the atlases in the renderer's texture table.
    pub texture_keys: [[u8; 32]; 3],
    /// Its bounding sphere, prop space, for culling.
    pub bounds: Sphere,
}

impl GpuImpostor {
    /// Binds `impostor`'s atlases, already uploaded into `textures` by key.
    pub fn upload(
        renderer: &Renderer,
        pipelines: &Pipelines,
        sampler: &Sampler,
        textures: &BTreeMap<[u8; 32], BindingTexture>,
        impostor: &ImpostorGeometry,
    ) -> Self {
        let uniform: [f32; 12] = [
            impostor.center[0],
            impostor.center[1],
            impostor.center[2],
            impostor.radius,
            impostor.grid as f32,
            impostor.cell_px as f32,
            impostor
                .atlases()
                .iter()
                .map(|atlas| atlas.levels.len())
                .min()
                .unwrap_or(0) as f32,
            IMPOSTOR_ALPHA_CUTOFF,
            impostor.roughness,
            impostor.metallic,
            0.0,
            0.0,
        ];
        let uniform = renderer.device.create_buffer_init(&BufferInitDescriptor {
            label: Some("prop impostor"),
            contents: bytemuck::cast_slice(&uniform),
            usage: BufferUsages::UNIFORM,
        });
        let view = |key: &[u8; 32]| &textures[key].view;
        let bind_group = renderer.device.create_bind_group(&BindGroupDescriptor {
            label: Some("prop impostor"),
            layout: &pipelines.impostor_layout,
            entries: &[
                BindGroupEntry {
                    binding: 0,
                    resource: uniform.as_entire_binding(),
                },
                BindGroupEntry {
                    binding: 1,
                    resource: BindingResource::TextureView(view(&impostor.albedo.key)),
                },
                BindGroupEntry {
                    binding: 2,
                    resource: BindingResource::Sampler(sampler),
                },
                BindGroupEntry {
                    binding: 3,
                    resource: BindingResource::TextureView(view(&impostor.normal.key)),
                },
                BindGroupEntry {
                    binding: 4,
                    resource: BindingResource::TextureView(view(&impostor.depth.key)),
                },
            ],
        });
        Self {
            bind_group,
            texture_keys: impostor.atlases().map(|atlas| atlas.key),
            bounds: Sphere {
                center: Vec3::from(impostor.center),
                radius: impostor.radius,
            },
        }
    }
}

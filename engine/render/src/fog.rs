//! Aerial perspective: a full-screen pass after every opaque one (the terrain, props,
//! any rend3 object) fades each pixel towards the sky's horizon colour by the air
//! between the eye and the point the depth buffer holds there, so a 4–8 km terrain's
//! far ground melts into the horizon instead of ending in a hard line against the sky.
//! One pass for everything: no material shader needs to know about it.

use std::borrow::Cow;

use glam::{Mat4, Vec3};
use rend3::graph::{RenderGraph, RenderPassTarget, RenderPassTargets, RenderTargetHandle};
use rend3::util::bind_merge::{BindGroupBuilder, BindGroupLayoutBuilder};
use rend3::Renderer;
use sylva_terrain::Terrain;
use wgpu::util::{BufferInitDescriptor, DeviceExt};
use wgpu::{
    BindGroupLayout, BindingType, BlendComponent, BlendFactor, BlendOperation, BlendState, Buffer,
    BufferBindingType, BufferUsages, Color, ColorTargetState, ColorWrites, FragmentState,
    MultisampleState, PipelineLayoutDescriptor, PrimitiveState, RenderPipeline,
    RenderPipelineDescriptor, ShaderModuleDescriptor, ShaderSource, ShaderStages, TextureFormat,
    TextureSampleType, TextureViewDimension, VertexState,
};

use crate::sky::HORIZON;

/// The air of a world: how far and how high its haze reaches.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Fog {
    /// Distance at which ground at the floor's height is hazed by `1 − 1/e` (63 %),
    /// seen from the floor; the haze grows with the square of the distance.
    pub distance: f32,
    /// Height over which the air thins by `e`.
    pub height: f32,
    /// The terrain's lowest point, where the air is densest.
    pub floor: f32,
}

/// The side below which a terrain is hazed as if it were this large: the 512 m default
/// world's far edge stays as clear as a real afternoon's 300 m are.
const SMALLEST_HAZED_SIDE: f32 = 4096.0;

impl Fog {
    /// The haze of `terrain`, scaled with its size: a 4 km map's far edge, seen from
    /// the ground, is about three quarters hazed and its middle, a kilometre away, a
    /// tenth; an 8 km map looks the same at twice the distances.
    pub fn for_terrain(terrain: &Terrain) -> Self {
        let side = terrain.size().max_element().max(SMALLEST_HAZED_SIDE);
        Self {
            distance: 0.8 * side,
            height: 0.1 * side,
            floor: terrain.height_range().0,
        }
    }

    /// The shader's `FogData` for a camera at `eye` whose view-projection is
    /// `view_proj`.
    fn uniform(&self, view_proj: Mat4, eye: Vec3) -> [f32; 28] {
        let mut data = [0.0; 28];
        data[..16].copy_from_slice(&view_proj.inverse().to_cols_array());
        data[16..19].copy_from_slice(&eye.to_array());
        let [r, g, b] = HORIZON;
        let air = [r, g, b, 1.0, self.distance, self.height, self.floor, 0.0];
        data[20..].copy_from_slice(&air);
        data
    }
}

/// The fog pass's pipeline and its uniform.
pub struct FogRoutine {
    layout: BindGroupLayout,
    pipeline: RenderPipeline,
    uniform: Buffer,
}

impl FogRoutine {
    /// The pass for HDR colour targets of rend3-routine's base graph.
    pub fn new(renderer: &Renderer) -> Self {
        let device = &renderer.device;
        let layout = BindGroupLayoutBuilder::new()
            .append(
                ShaderStages::FRAGMENT,
                BindingType::Texture {
                    sample_type: TextureSampleType::Depth,
                    view_dimension: TextureViewDimension::D2,
                    multisampled: false,
                },
                None,
            )
            .append(
                ShaderStages::FRAGMENT,
                BindingType::Buffer {
                    ty: BufferBindingType::Uniform,
                    has_dynamic_offset: false,
                    min_binding_size: None,
                },
                None,
            )
            .build(device, Some("sylva fog"));
        let module = device.create_shader_module(&ShaderModuleDescriptor {
            label: Some("sylva fog"),
            source: ShaderSource::Wgsl(Cow::Borrowed(include_str!("fog.wgsl"))),
        });
        let pipeline_layout = device.create_pipeline_layout(&PipelineLayoutDescriptor {
            label: Some("sylva fog"),
            bind_group_layouts: &[&layout],
            push_constant_ranges: &[],
        });
        // Colour towards the haze by the fragment's alpha; the target's alpha stays.
        let blend = BlendState {
            color: BlendComponent {
                src_factor: BlendFactor::SrcAlpha,
                dst_factor: BlendFactor::OneMinusSrcAlpha,
                operation: BlendOperation::Add,
            },
            alpha: BlendComponent {
                src_factor: BlendFactor::Zero,
                dst_factor: BlendFactor::One,
                operation: BlendOperation::Add,
            },
        };
        let pipeline = device.create_render_pipeline(&RenderPipelineDescriptor {
            label: Some("sylva fog"),
            layout: Some(&pipeline_layout),
            vertex: VertexState {
                module: &module,
                entry_point: "vs_main",
                buffers: &[],
            },
            primitive: PrimitiveState::default(),
            depth_stencil: None,
            multisample: MultisampleState::default(),
            fragment: Some(FragmentState {
                module: &module,
                entry_point: "fs_main",
                targets: &[ColorTargetState {
                    format: TextureFormat::Rgba16Float,
                    blend: Some(blend),
                    write_mask: ColorWrites::COLOR,
                }],
            }),
            multiview: None,
        });
        let uniform = device.create_buffer_init(&BufferInitDescriptor {
            label: Some("sylva fog"),
            contents: bytemuck::cast_slice(&[0f32; 28]),
            usage: BufferUsages::UNIFORM | BufferUsages::COPY_DST,
        });
        Self {
            layout,
            pipeline,
            uniform,
        }
    }

    /// Hazes `color` by `fog` from the depth in `depth` (a single-sampled target that
    /// allows texture binding) drawn by a camera at `eye` whose view-projection is
    /// `view_proj`; add it after the last opaque pass, before tone mapping.
    pub fn add_to_graph<'node>(
        &'node self,
        graph: &mut RenderGraph<'node>,
        color: RenderTargetHandle,
        depth: RenderTargetHandle,
        (view_proj, eye): (Mat4, Vec3),
        fog: Fog,
    ) {
        let uniform = fog.uniform(view_proj, eye);
        let mut builder = graph.add_node("sylva fog");
        let depth = builder.add_render_target_input(depth);
        let color = builder.add_render_target_output(color);
        let rpass = builder.add_renderpass(RenderPassTargets {
            targets: vec![RenderPassTarget {
                color,
                clear: Color::BLACK,
                resolve: None,
            }],
            depth_stencil: None,
        });
        let this = builder.passthrough_ref(self);
        builder.build(
            move |pt, renderer, encoder_or_pass, temps, _ready, graph_data| {
                let this = pt.get(this);
                renderer
                    .queue
                    .write_buffer(&this.uniform, 0, bytemuck::cast_slice(&uniform));
                let depth = graph_data.get_render_target(depth);
                let bind_group = temps.add(
                    BindGroupBuilder::new()
                        .append_texture_view(depth)
                        .append_buffer(&this.uniform)
                        .build(&renderer.device, Some("sylva fog"), &this.layout),
                );
                let rpass = encoder_or_pass.get_rpass(rpass);
                rpass.set_pipeline(&this.pipeline);
                rpass.set_bind_group(0, bind_group, &[]);
                rpass.draw(0..3, 0..1);
            },
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flat(side: usize, spacing: f32) -> Terrain {
        Terrain::new(side, side, spacing, vec![5.0; side * side], 0.0).unwrap()
    }

    #[test]
    fn the_haze_scales_with_a_large_terrain_and_not_below_4_km() {
        let four = Fog::for_terrain(&flat(1025, 4.0));
        let eight = Fog::for_terrain(&flat(1025, 8.0));
        assert_eq!(eight.distance, 2.0 * four.distance);
        assert_eq!(eight.height, 2.0 * four.height);
        assert_eq!(four.floor, 5.0);
        let small = Fog::for_terrain(&flat(257, 2.0));
        assert_eq!(small.distance, four.distance);
    }
}

//! Render pipelines for instanced props: forward (opaque and alpha-masked, each single-
//! or double-sided) and shadow depth (opaque and masked).

use std::borrow::Cow;
use std::num::NonZeroU64;

use rend3::types::Handedness;
use rend3::Renderer;
use rend3_routine::common::WholeFrameInterfaces;
use wgpu::{
    BindGroupLayout, BindGroupLayoutDescriptor, BindGroupLayoutEntry, BindingType,
    BufferBindingType, ColorTargetState, ColorWrites, CompareFunction, DepthBiasState,
    DepthStencilState, Face, FragmentState, FrontFace, MultisampleState, PipelineLayout,
    PipelineLayoutDescriptor, PrimitiveState, PrimitiveTopology, RenderPipeline,
    RenderPipelineDescriptor, SamplerBindingType, ShaderModule, ShaderModuleDescriptor,
    ShaderSource, ShaderStages, StencilState, TextureFormat, TextureSampleType,
    TextureViewDimension, VertexAttribute, VertexBufferLayout, VertexState, VertexStepMode,
};

use super::geometry::PACKED_STRIDE;

/// Bytes per instance: a column-major model matrix.
pub const INSTANCE_STRIDE: u64 = 64;

/// A buffer of `instances` model matrices.
pub fn instance_buffer(
    renderer: &Renderer,
    label: &str,
    instances: usize,
    usage: wgpu::BufferUsages,
) -> wgpu::Buffer {
    renderer.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some(label),
        size: instances as u64 * INSTANCE_STRIDE,
        usage,
        mapped_at_creation: false,
    })
}
/// Bytes of the material uniform: base colour; emission; metallic, roughness, normal
/// scale, occlusion strength; alpha cutoff and whether there is a normal map; then the
/// part's vertex quantization: position offset, position scale, UV offset and scale.
pub const MATERIAL_UNIFORM_SIZE: u64 = 112;

/// The packed vertex ([`sylva_mesh::VertexQuantization`]): position, normal, tangent,
/// UV, colour.
const VERTEX_ATTRIBUTES: [VertexAttribute; 5] = wgpu::vertex_attr_array![
    0 => Unorm16x4, 1 => Snorm8x4, 3 => Snorm8x4, 2 => Unorm16x2, 4 => Unorm8x4
];
/// What an opaque shadow caster reads of a vertex: its position.
const POSITION_ATTRIBUTE: [VertexAttribute; 1] = wgpu::vertex_attr_array![0 => Unorm16x4];
const INSTANCE_ATTRIBUTES: [VertexAttribute; 4] = wgpu::vertex_attr_array![
    5 => Float32x4, 6 => Float32x4, 7 => Float32x4, 8 => Float32x4
];

/// A filterable 2D texture read by fragment shaders.
fn texture_entry(binding: u32) -> BindGroupLayoutEntry {
    BindGroupLayoutEntry {
        binding,
        visibility: ShaderStages::FRAGMENT,
        ty: BindingType::Texture {
            sample_type: TextureSampleType::Float { filterable: true },
            view_dimension: TextureViewDimension::D2,
            multisampled: false,
        },
        count: None,
    }
}

fn sampler_entry(binding: u32) -> BindGroupLayoutEntry {
    BindGroupLayoutEntry {
        binding,
        visibility: ShaderStages::FRAGMENT,
        ty: BindingType::Sampler(SamplerBindingType::Filtering),
        count: None,
    }
}

/// A uniform buffer of `bytes` at binding 0.
fn uniform_entry(visibility: ShaderStages, bytes: u64) -> BindGroupLayoutEntry {
    BindGroupLayoutEntry {
        binding: 0,
        visibility,
        ty: BindingType::Buffer {
            ty: BufferBindingType::Uniform,
            has_dynamic_offset: false,
            min_binding_size: NonZeroU64::new(bytes),
        },
        count: None,
    }
}

/// The material bind group: the uniform, the sampler and five textures (base colour 1,
/// normal 3, metallic-roughness 4, occlusion 5, emissive 6).
fn material_layout_entries() -> [BindGroupLayoutEntry; 7] {
    [
        uniform_entry(ShaderStages::VERTEX_FRAGMENT, MATERIAL_UNIFORM_SIZE),
        texture_entry(1),
        sampler_entry(2),
        texture_entry(3),
        texture_entry(4),
        texture_entry(5),
        texture_entry(6),
    ]
}

/// Bytes of an impostor's uniform: its sphere, then grid, cell texels, levels and alpha
/// cutoff, then its surface (roughness, metallic, two unused).
pub const IMPOSTOR_UNIFORM_SIZE: u64 = 48;

/// The impostor bind group: the uniform (both stages), the albedo atlas 1, the sampler 2,
/// the normal atlas 3 and the depth atlas 4.
fn impostor_layout_entries() -> [BindGroupLayoutEntry; 5] {
    [
        uniform_entry(ShaderStages::VERTEX_FRAGMENT, IMPOSTOR_UNIFORM_SIZE),
        texture_entry(1),
        sampler_entry(2),
        texture_entry(3),
        texture_entry(4),
    ]
}

/// The shared vertex buffer read for `attributes`, then the instance buffer.
fn vertex_buffers(attributes: &'static [VertexAttribute]) -> [VertexBufferLayout<'static>; 2] {
    [
        VertexBufferLayout {
            array_stride: PACKED_STRIDE as u64,
            step_mode: VertexStepMode::Vertex,
            attributes,
        },
        VertexBufferLayout {
            array_stride: INSTANCE_STRIDE,
            step_mode: VertexStepMode::Instance,
            attributes: &INSTANCE_ATTRIBUTES,
        },
    ]
}

/// Which of the pipelines a part draws with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PipelineKey {
    pub masked: bool,
    pub double_sided: bool,
}

pub struct Pipelines {
    pub material_layout: BindGroupLayout,
    pub impostor_layout: BindGroupLayout,
    pub shadow_camera_layout: BindGroupLayout,
    /// Indexed by `masked as usize * 2 + double_sided as usize`.
    forward: [RenderPipeline; 4],
    shadow_opaque: RenderPipeline,
    shadow_masked: RenderPipeline,
    impostor_forward: RenderPipeline,
    impostor_shadow: RenderPipeline,
}

impl Pipelines {
    pub fn new(renderer: &Renderer, interfaces: &WholeFrameInterfaces) -> Self {
        let device = &renderer.device;
        let material_layout = device.create_bind_group_layout(&BindGroupLayoutDescriptor {
            label: Some("prop material"),
            entries: &material_layout_entries(),
        });
        let shadow_camera_layout = device.create_bind_group_layout(&BindGroupLayoutDescriptor {
            label: Some("prop shadow camera"),
            entries: &[BindGroupLayoutEntry {
                binding: 0,
                visibility: ShaderStages::VERTEX_FRAGMENT,
                ty: BindingType::Buffer {
                    ty: BufferBindingType::Uniform,
                    has_dynamic_offset: false,
                    // The light's view-projection, the unit vector towards it (the
                    // impostors' fragments project their surface with it) and the
                    // camera's eye (far instances fade out by distance from it).
                    min_binding_size: NonZeroU64::new(96),
                },
                count: None,
            }],
        });
        let impostor_layout = device.create_bind_group_layout(&BindGroupLayoutDescriptor {
            label: Some("prop impostor"),
            entries: &impostor_layout_entries(),
        });
        let module = |label, source: &'static str| {
            device.create_shader_module(&ShaderModuleDescriptor {
                label: Some(label),
                source: ShaderSource::Wgsl(Cow::Borrowed(source)),
            })
        };
        let forward_module = module(
            "props",
            concat!(
                include_str!("dither.wgsl"),
                include_str!("frame.wgsl"),
                include_str!("material.wgsl"),
                include_str!("props.wgsl")
            ),
        );
        let impostor_module = module(
            "prop impostors",
            concat!(
                include_str!("dither.wgsl"),
                include_str!("frame.wgsl"),
                include_str!("impostor_atlas.wgsl"),
                include_str!("impostor.wgsl")
            ),
        );
        let impostor_shadow_module = module(
            "prop impostor shadows",
            concat!(
                include_str!("dither.wgsl"),
                include_str!("impostor_atlas.wgsl"),
                include_str!("impostor_shadow.wgsl")
            ),
        );
        let shadow_module = module(
            "props shadow",
            concat!(
                include_str!("dither.wgsl"),
                include_str!("material.wgsl"),
                include_str!("props_shadow.wgsl")
            ),
        );
        let layout = |label, groups: &[&BindGroupLayout]| {
            device.create_pipeline_layout(&PipelineLayoutDescriptor {
                label: Some(label),
                bind_group_layouts: groups,
                push_constant_ranges: &[],
            })
        };
        let frame = &interfaces.forward_uniform_bgl;
        let forward_layout = layout("props forward", &[frame, &material_layout]);
        let shadow_layout = layout("props shadow", &[&shadow_camera_layout, &material_layout]);
        let impostor_forward_layout = layout("prop impostors", &[frame, &impostor_layout]);
        let impostor_shadow_layout = layout(
            "prop impostor shadows",
            &[&shadow_camera_layout, &impostor_layout],
        );
        let front_face = match renderer.handedness {
            Handedness::Left => FrontFace::Cw,
            Handedness::Right => FrontFace::Ccw,
        };
        let forward = |key: PipelineKey| {
            forward_pipeline(renderer, &forward_layout, &forward_module, front_face, key)
        };
        Self {
            forward: [
                forward(PipelineKey {
                    masked: false,
                    double_sided: false,
                }),
                forward(PipelineKey {
                    masked: false,
                    double_sided: true,
                }),
                forward(PipelineKey {
                    masked: true,
                    double_sided: false,
                }),
                forward(PipelineKey {
                    masked: true,
                    double_sided: true,
                }),
            ],
            shadow_opaque: shadow_pipeline(
                renderer,
                &shadow_layout,
                &shadow_module,
                front_face,
                false,
            ),
            shadow_masked: shadow_pipeline(
                renderer,
                &shadow_layout,
                &shadow_module,
                front_face,
                true,
            ),
            impostor_forward: impostor_pipeline(
                renderer,
                &impostor_forward_layout,
                &impostor_module,
                ImpostorPass::Forward,
            ),
            impostor_shadow: impostor_pipeline(
                renderer,
                &impostor_shadow_layout,
                &impostor_shadow_module,
                ImpostorPass::Shadow,
            ),
            material_layout,
            impostor_layout,
            shadow_camera_layout,
        }
    }

    pub fn impostor_forward(&self) -> &RenderPipeline {
        &self.impostor_forward
    }

    pub fn impostor_shadow(&self) -> &RenderPipeline {
        &self.impostor_shadow
    }

    pub fn forward(&self, key: PipelineKey) -> &RenderPipeline {
        &self.forward[key.masked as usize * 2 + key.double_sided as usize]
    }

    pub fn shadow(&self, masked: bool) -> &RenderPipeline {
        if masked {
            &self.shadow_masked
        } else {
            &self.shadow_opaque
        }
    }
}

/// Filled triangles of `topology`, `cull` faces culled.
fn primitive(
    topology: PrimitiveTopology,
    front_face: FrontFace,
    cull: Option<Face>,
) -> PrimitiveState {
    PrimitiveState {
        topology,
        strip_index_format: None,
        front_face,
        cull_mode: cull,
        unclipped_depth: false,
        polygon_mode: wgpu::PolygonMode::Fill,
        conservative: false,
    }
}

/// rend3's depth targets: 32-bit float, reverse Z (nearer is greater), written.
fn reverse_z_depth(bias: DepthBiasState) -> DepthStencilState {
    DepthStencilState {
        format: TextureFormat::Depth32Float,
        depth_write_enabled: true,
        depth_compare: CompareFunction::GreaterEqual,
        stencil: StencilState::default(),
        bias,
    }
}

/// As rend3's shadow pass: casters biased towards the light.
const SHADOW_BIAS: DepthBiasState = DepthBiasState {
    constant: -2,
    slope_scale: -2.0,
    clamp: 0.0,
};

fn forward_pipeline(
    renderer: &Renderer,
    layout: &PipelineLayout,
    module: &ShaderModule,
    front_face: FrontFace,
    key: PipelineKey,
) -> RenderPipeline {
    let buffers = vertex_buffers(&VERTEX_ATTRIBUTES);
    renderer
        .device
        .create_render_pipeline(&RenderPipelineDescriptor {
            label: Some("props forward"),
            layout: Some(layout),
            vertex: VertexState {
                module,
                entry_point: "vs_main",
                buffers: &buffers,
            },
            primitive: primitive(
                PrimitiveTopology::TriangleList,
                front_face,
                (!key.double_sided).then_some(Face::Back),
            ),
            depth_stencil: Some(reverse_z_depth(DepthBiasState::default())),
            multisample: MultisampleState::default(),
            fragment: Some(FragmentState {
                module,
                entry_point: "fs_main",
                targets: &[ColorTargetState {
                    format: TextureFormat::Rgba16Float,
                    blend: None,
                    write_mask: ColorWrites::ALL,
                }],
            }),
            multiview: None,
        })
}

fn shadow_pipeline(
    renderer: &Renderer,
    layout: &PipelineLayout,
    module: &ShaderModule,
    front_face: FrontFace,
    masked: bool,
) -> RenderPipeline {
    // Opaque casters read positions only; masked ones need UVs and colours to discard.
    let buffers = vertex_buffers(if masked {
        &VERTEX_ATTRIBUTES
    } else {
        &POSITION_ATTRIBUTE
    });
    renderer
        .device
        .create_render_pipeline(&RenderPipelineDescriptor {
            label: Some(if masked {
                "props shadow masked"
            } else {
                "props shadow"
            }),
            layout: Some(layout),
            vertex: VertexState {
                module,
                entry_point: if masked {
                    "vs_shadow_masked"
                } else {
                    "vs_shadow"
                },
                buffers: &buffers,
            },
            // As rend3's shadow pass: back faces into the map, biased towards the light.
            primitive: primitive(
                PrimitiveTopology::TriangleList,
                front_face,
                (!masked).then_some(Face::Front),
            ),
            depth_stencil: Some(reverse_z_depth(SHADOW_BIAS)),
            multisample: MultisampleState::default(),
            // Both discard: masked casters by alpha and fade, opaque ones by fade.
            fragment: Some(FragmentState {
                module,
                entry_point: if masked {
                    "fs_shadow_masked"
                } else {
                    "fs_shadow"
                },
                targets: &[],
            }),
            multiview: None,
        })
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum ImpostorPass {
    Forward,
    Shadow,
}

/// Impostor quads: four strip vertices per instance made in the vertex shader from the
/// instance alone (no vertex buffer), both sides drawn.
fn impostor_pipeline(
    renderer: &Renderer,
    layout: &PipelineLayout,
    module: &ShaderModule,
    pass: ImpostorPass,
) -> RenderPipeline {
    let buffers = [VertexBufferLayout {
        array_stride: INSTANCE_STRIDE,
        step_mode: VertexStepMode::Instance,
        attributes: &INSTANCE_ATTRIBUTES,
    }];
    let shadow = pass == ImpostorPass::Shadow;
    let targets = [ColorTargetState {
        format: TextureFormat::Rgba16Float,
        blend: None,
        write_mask: ColorWrites::ALL,
    }];
    renderer
        .device
        .create_render_pipeline(&RenderPipelineDescriptor {
            label: Some(if shadow {
                "prop impostor shadows"
            } else {
                "prop impostors"
            }),
            layout: Some(layout),
            vertex: VertexState {
                module,
                entry_point: if shadow {
                    "vs_impostor_shadow"
                } else {
                    "vs_impostor"
                },
                buffers: &buffers,
            },
            primitive: primitive(PrimitiveTopology::TriangleStrip, FrontFace::Ccw, None),
            depth_stencil: Some(reverse_z_depth(if shadow {
                SHADOW_BIAS
            } else {
                DepthBiasState::default()
            })),
            multisample: MultisampleState::default(),
            fragment: Some(FragmentState {
                module,
                entry_point: if shadow {
                    "fs_impostor_shadow"
                } else {
                    "fs_impostor"
                },
                targets: if shadow { &[] } else { &targets },
            }),
            multiview: None,
        })
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_impostor_shadow_bias_counts_texels_of_rend3s_shadow_map() {
        let declared = format!(
            "let SHADOW_MAP_TEXELS: f32 = {}.0;",
            rend3::SHADOW_DIMENSIONS
        );
        assert!(include_str!("impostor_shadow.wgsl").contains(&declared));
    }
}

//! The render-graph nodes. The forward node declares the same colour and depth targets
//! as rend3's passes and clears nothing, so rend3 merges it into its render pass.

use std::ops::Range;

use rend3::graph::{
    DataHandle, DepthHandle, RenderGraph, RenderPassDepthTarget, RenderPassTarget,
    RenderPassTargets, RenderTargetHandle,
};
use wgpu::{BindGroup, Buffer, Color, RenderPass};

use super::pipelines::INSTANCE_STRIDE;
use super::upload::GpuPart;
use super::{drawn, Drawn, PropsRenderer};

impl PropsRenderer {
    /// Draws every bucket into the HDR colour and depth targets; add it after rend3's
    /// depth prepass and sky and before its forward pass.
    pub fn add_forward_node<'node>(
        &'node self,
        graph: &mut RenderGraph<'node>,
        color: RenderTargetHandle,
        resolve: Option<RenderTargetHandle>,
        depth: RenderTargetHandle,
        forward_uniform_bg: DataHandle<BindGroup>,
    ) {
        let mut builder = graph.add_node("sylva props");
        let color = builder.add_render_target_output(color);
        let resolve = builder.add_optional_render_target_output(resolve);
        let depth = builder.add_render_target_output(depth);
        let rpass = builder.add_renderpass(RenderPassTargets {
            targets: vec![RenderPassTarget {
                color,
                clear: Color::BLACK,
                resolve,
            }],
            depth_stencil: Some(RenderPassDepthTarget {
                target: DepthHandle::RenderTarget(depth),
                depth_clear: Some(0.0),
                stencil_clear: None,
            }),
        });
        let uniforms = builder.add_data_input(forward_uniform_bg);
        let this = builder.passthrough_ref(self);
        builder.build(
            move |pt, _renderer, encoder_or_pass, temps, _ready, graph_data| {
                let this = pt.get(this);
                let rpass = encoder_or_pass.get_rpass(rpass);
                let uniforms = graph_data.get_data(temps, uniforms).unwrap();
                rpass.set_bind_group(0, uniforms, &[]);
                this.draw(rpass, 0, |part| match part {
                    Some(part) => this.pipelines.forward(part.pipeline),
                    None => this.pipelines.impostor_forward(),
                });
            },
        );
    }

    /// Draws every bucket into light `index`'s shadow map; add it after rend3's own
    /// shadow rendering.
    pub fn add_shadow_node<'node>(&'node self, graph: &mut RenderGraph<'node>, index: usize) {
        let Some(camera) = self.shadow_cameras.get(index) else {
            return;
        };
        let mut builder = graph.add_node("sylva props shadow");
        let shadow = builder.add_shadow_output(index);
        let rpass = builder.add_renderpass(RenderPassTargets {
            targets: vec![],
            depth_stencil: Some(RenderPassDepthTarget {
                target: DepthHandle::Shadow(shadow),
                depth_clear: Some(0.0),
                stencil_clear: None,
            }),
        });
        let this = builder.passthrough_ref(self);
        let camera = builder.passthrough_ref(&camera.bind_group);
        builder.build(
            move |pt, _renderer, encoder_or_pass, _temps, _ready, _graph_data| {
                let this = pt.get(this);
                let camera = pt.get(camera);
                let rpass = encoder_or_pass.get_rpass(rpass);
                rpass.set_bind_group(0, camera, &[]);
                this.draw(rpass, 1 + index, |part| match part {
                    Some(part) => this.pipelines.shadow(part.pipeline.masked),
                    None => this.pipelines.impostor_shadow(),
                });
            },
        );
    }

    /// One instanced draw per bucket with instances in view `view` (0: the camera,
    /// 1 + i: light i), from the view's compact instance buffer, then one per far
    /// block's group the view sees, from the block's buffer, with the pipeline
    /// `pipeline_of` a mesh part (or, for `None`, an impostor) draws with.
    fn draw<'pass>(
        &'pass self,
        rpass: &mut RenderPass<'pass>,
        view: usize,
        pipeline_of: impl Fn(Option<&'pass GpuPart>) -> &'pass wgpu::RenderPipeline,
    ) {
        let Some(list) = self.views.get(view) else {
            return;
        };
        for (key, drawn) in self.drawable() {
            let Some(seen) = list.range(&key) else {
                continue;
            };
            bind(rpass, drawn, &pipeline_of);
            draw_instances(rpass, drawn, list.buffer(), seen);
        }
        let far = self.far.views.get(view).map_or(&[][..], Vec::as_slice);
        let mut bound = None;
        for draw in far {
            let drawn = self
                .props
                .get(&draw.key.prop)
                .and_then(|g| drawn(g, draw.key));
            let (Some(drawn), Some(buffer)) = (drawn, self.far.buffer(draw.block, draw.key.prop))
            else {
                continue;
            };
            if bound != Some(draw.key) {
                bind(rpass, drawn, &pipeline_of);
                bound = Some(draw.key);
            }
            draw_instances(rpass, drawn, buffer, draw.slots.clone());
        }
    }
}

/// Sets what `drawn` draws with: its pipeline, material or atlas, and its geometry.
fn bind<'pass>(
    rpass: &mut RenderPass<'pass>,
    drawn: Drawn<'pass>,
    pipeline_of: &impl Fn(Option<&'pass GpuPart>) -> &'pass wgpu::RenderPipeline,
) {
    match drawn {
        Drawn::Mesh { part, lod } => {
            rpass.set_pipeline(pipeline_of(Some(part)));
            rpass.set_bind_group(1, &part.material, &[]);
            rpass.set_vertex_buffer(0, part.vertices.slice(..));
            rpass.set_index_buffer(lod.indices.slice(..), lod.format);
        }
        Drawn::Impostor(impostor) => {
            rpass.set_pipeline(pipeline_of(None));
            rpass.set_bind_group(1, &impostor.bind_group, &[]);
        }
    }
}

/// One instanced draw of `drawn` (bound by [`bind`]) for the instances `slots` of
/// `instances`.
fn draw_instances<'pass>(
    rpass: &mut RenderPass<'pass>,
    drawn: Drawn<'pass>,
    instances: &'pass Buffer,
    slots: Range<u32>,
) {
    let bytes = u64::from(slots.start) * INSTANCE_STRIDE..u64::from(slots.end) * INSTANCE_STRIDE;
    let count = 0..slots.len() as u32;
    match drawn {
        Drawn::Mesh { lod, .. } => {
            rpass.set_vertex_buffer(1, instances.slice(bytes));
            rpass.draw_indexed(0..lod.count, 0, count);
        }
        Drawn::Impostor(_) => {
            rpass.set_vertex_buffer(0, instances.slice(bytes));
            rpass.draw(0..4, count);
        }
    }
}

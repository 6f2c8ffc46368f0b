//! The render-graph nodes. The forward node declares the same colour and depth targets
//! as rend3's passes and clears nothing, so rend3 merges it into its render pass.

use rend3::graph::{
    DataHandle, DepthHandle, RenderGraph, RenderPassDepthTarget, RenderPassTarget,
    RenderPassTargets, RenderTargetHandle,
};
use wgpu::{BindGroup, Color, RenderPass};

use super::pipelines::INSTANCE_STRIDE;
use super::upload::GpuPart;
use super::{Drawn, PropsRenderer};

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
    /// 1 + i: light i), from the view's compact instance buffer, with the pipeline
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
            let bytes =
                u64::from(seen.start) * INSTANCE_STRIDE..u64::from(seen.end) * INSTANCE_STRIDE;
            let instances = 0..seen.len() as u32;
            match drawn {
                Drawn::Mesh { part, lod } => {
                    rpass.set_pipeline(pipeline_of(Some(part)));
                    rpass.set_bind_group(1, &part.material, &[]);
                    rpass.set_vertex_buffer(0, part.vertices.slice(..));
                    rpass.set_vertex_buffer(1, list.buffer().slice(bytes));
                    rpass.set_index_buffer(lod.indices.slice(..), lod.format);
                    rpass.draw_indexed(0..lod.count, 0, instances);
                }
                Drawn::Impostor(impostor) => {
                    rpass.set_pipeline(pipeline_of(None));
                    rpass.set_bind_group(1, &impostor.bind_group, &[]);
                    rpass.set_vertex_buffer(0, list.buffer().slice(bytes));
                    rpass.draw(0..4, instances);
                }
            }
        }
    }
}

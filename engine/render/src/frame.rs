//! One frame: rend3's base graph with the props nodes inserted and the fog pass after
//! its forward pass, tone-mapped into the output view.

use std::sync::Arc;

use rend3::graph::{RenderGraph, RenderTargetDescriptor, RenderTargetHandle};
use rend3::types::glam as g20;
use rend3::util::output::OutputFrame;
use rend3_routine::base::BaseRenderGraphIntermediateState;
use wgpu::{
    Extent3d, TextureDescriptor, TextureDimension, TextureFormat, TextureUsages,
    TextureViewDescriptor,
};

use crate::camera::CameraView;
use crate::context::{RenderContext, OUTPUT_FORMAT, SAMPLES};
use crate::error::RenderError;
use crate::image::RgbaImage;
use crate::props::{DrawStats, PropsRenderer};
use crate::readback::read_rgba8;
use crate::scene::Scene;
use sylva_buckets::PlacementRegistry;

/// Light from the sky on faces the sun does not reach (rend3 takes the brighter of
/// this × albedo and the sunlit colour).
const AMBIENT: g20::Vec4 = g20::const_vec4!([0.22, 0.25, 0.3, 1.0]);

/// Largest frame side accepted.
pub const MAX_SIDE: u32 = 8192;

/// What a frame draws besides the scene and its props: editor overlays.
#[derive(Default)]
pub struct Overlays<'a> {
    /// Instanced props mirrored from a registry of their own (given beside them) and
    /// drawn like the scene's props but casting no shadows: editor gizmos such as a
    /// brush cursor.
    pub gizmos: Option<(&'a mut PropsRenderer, &'a PlacementRegistry)>,
    /// Adds render-graph nodes that draw over the tone-mapped output (a HUD); it gets
    /// the output target.
    #[allow(clippy::type_complexity)]
    pub hud: Option<Box<dyn FnOnce(&mut RenderGraph<'a>, RenderTargetHandle) + 'a>>,
}

/// Draws one frame into `output` (an `OUTPUT_FORMAT`-compatible view of `width`×`height`).
/// Returns what the props node drew.
pub fn draw_frame(
    context: &mut RenderContext,
    scene: &Scene,
    props: &mut PropsRenderer,
    registry: &PlacementRegistry,
    camera: CameraView,
    size: (u32, u32),
    output: OutputFrame,
) -> DrawStats {
    draw_frame_with_overlays(
        context,
        scene,
        props,
        registry,
        Overlays::default(),
        camera,
        size,
        output,
    )
}

/// [`draw_frame`] with editor overlays: gizmo props after the scene's props, and HUD
/// nodes after tone mapping. `output` must match the format the context's tone mapping
/// was created for. Returns what the scene's props node drew.
#[allow(clippy::too_many_arguments)]
pub fn draw_frame_with_overlays<'a>(
    context: &'a mut RenderContext,
    scene: &Scene,
    props: &'a mut PropsRenderer,
    registry: &PlacementRegistry,
    overlays: Overlays<'a>,
    camera: CameraView,
    (width, height): (u32, u32),
    output: OutputFrame,
) -> DrawStats {
    let renderer = context.renderer.clone();
    renderer.set_aspect_ratio(width as f32 / height as f32);
    renderer.set_camera_data(camera.to_rend3());
    scene.fit_shadows(&renderer, &camera);
    let (command_buffers, ready) = renderer.ready();
    // After `ready`: it is what registers a newly added sky texture.
    context.skybox.ready(&renderer);
    let view_proj = camera.view_proj(width as f32 / height as f32);
    let lights = scene.light_reach();
    let stats = props.prepare_frame(&renderer, &ready, registry, view_proj, camera.eye, &lights);
    let props: &'a PropsRenderer = props;
    let gizmos = overlays.gizmos.map(|(gizmos, gizmo_registry)| {
        gizmos.prepare_frame(
            &renderer,
            &ready,
            gizmo_registry,
            view_proj,
            camera.eye,
            &lights,
        );
        &*gizmos
    });

    let mut graph = RenderGraph::new();
    let base = &context.base;
    let resolution = g20::UVec2::new(width, height);
    let mut state = BaseRenderGraphIntermediateState::new(&mut graph, &ready, resolution, SAMPLES);
    // The fog pass reads depth, which rend3's own depth target does not allow (an
    // unused render target is never allocated).
    state.depth = graph.add_render_target(RenderTargetDescriptor {
        label: Some("hdr depth".into()),
        resolution,
        samples: SAMPLES,
        format: TextureFormat::Depth32Float,
        usage: TextureUsages::RENDER_ATTACHMENT | TextureUsages::TEXTURE_BINDING,
    });
    state.pre_skinning(&mut graph);
    state.pbr_pre_culling(&mut graph);
    state.create_frame_uniforms(&mut graph, base, AMBIENT);
    state.skinning(&mut graph, base);
    state.pbr_shadow_culling(&mut graph, base, &context.pbr);
    state.pbr_culling(&mut graph, base, &context.pbr);
    state.pbr_shadow_rendering(&mut graph, &context.pbr);
    for index in 0..ready.directional_light_cameras.len() {
        props.add_shadow_node(&mut graph, index);
    }
    state.pbr_prepass_rendering(&mut graph, &context.pbr, SAMPLES);
    state.skybox(&mut graph, Some(&context.skybox), SAMPLES);
    for layer in std::iter::once(props).chain(gizmos) {
        layer.add_forward_node(
            &mut graph,
            state.color,
            state.resolve,
            state.depth,
            state.forward_uniform_bg,
        );
    }
    state.pbr_forward_rendering(&mut graph, &context.pbr, SAMPLES);
    context.fog.add_to_graph(
        &mut graph,
        state.color,
        state.depth,
        (view_proj, camera.eye),
        scene.fog(),
    );
    let surface = graph.add_surface_texture();
    state.tonemapping(&mut graph, &context.tonemapping, surface);
    if let Some(hud) = overlays.hud {
        hud(&mut graph, surface);
    }
    graph.execute(&renderer, output, command_buffers, &ready);
    stats
}

/// A `width`×`height` [`OUTPUT_FORMAT`] texture to render a frame into (its view, for
/// `OutputFrame::View`) and read back with [`crate::read_rgba8`].
pub fn offscreen_target(
    renderer: &rend3::Renderer,
    width: u32,
    height: u32,
) -> (wgpu::Texture, Arc<wgpu::TextureView>) {
    let texture = renderer.device.create_texture(&TextureDescriptor {
        label: Some("headless frame"),
        size: Extent3d {
            width,
            height,
            depth_or_array_layers: 1,
        },
        mip_level_count: 1,
        sample_count: 1,
        dimension: TextureDimension::D2,
        format: OUTPUT_FORMAT,
        usage: TextureUsages::RENDER_ATTACHMENT | TextureUsages::COPY_SRC,
    });
    let view = Arc::new(texture.create_view(&TextureViewDescriptor::default()));
    (texture, view)
}

/// Draws one frame offscreen and reads it back.
pub fn render_image(
    context: &mut RenderContext,
    scene: &Scene,
    props: &mut PropsRenderer,
    registry: &PlacementRegistry,
    camera: CameraView,
    width: u32,
    height: u32,
) -> Result<(RgbaImage, DrawStats), RenderError> {
    if !(1..=MAX_SIDE).contains(&width) || !(1..=MAX_SIDE).contains(&height) {
        return Err(RenderError::FrameSize { width, height });
    }
    let (texture, view) = offscreen_target(&context.renderer, width, height);
    let device = context.renderer.device.clone();
    let stats = draw_frame(
        context,
        scene,
        props,
        registry,
        camera,
        (width, height),
        OutputFrame::View(view),
    );
    let image = read_rgba8(&device, &context.renderer.queue, &texture, width, height)?;
    Ok((image, stats))
}

//! sylva inside your own rend3 application.
//!
//! The application owns the renderer, the render graph and its own objects (here a
//! red block standing in a meadow and a sun). sylva adds two things: its props, loaded
//! from a bake cache into a [`PropsRenderer`] and placed by a painted session (a
//! [`World`]), and the render-graph nodes that draw them: one per shadow map and one
//! into rend3's colour and depth targets, so the block and the props occlude each
//! other. The frame is written to a PNG.
//!
//! ```text
//! cargo run -p sylva-embed-example -- CACHE_DIR SESSION.ron OUT.png [WIDTH HEIGHT]
//! ```

use anyhow::{Context, Result};
use glam::Vec3;
use rend3::graph::RenderGraph;
use rend3::types::{
    glam as g20, DirectionalLight, Handedness, MeshBuilder, Object, ObjectMeshKind,
};
use rend3::types::{SampleCount, TextureFormat};
use rend3::util::output::OutputFrame;
use rend3::Renderer;
use rend3_routine::base::{BaseRenderGraph, BaseRenderGraphIntermediateState};
use rend3_routine::pbr::{AlbedoComponent, PbrMaterial, PbrRoutine};
use rend3_routine::tonemapping::TonemappingRoutine;
use sylva_buckets::BucketChanges;
use sylva_cache::CacheDir;
use sylva_render::props::PropsRenderer;
use sylva_render::CameraView;
use sylva_terrain::Landmark;
use sylva_world::World;

const FORMAT: TextureFormat = TextureFormat::Rgba8UnormSrgb;

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [cache, session, out, ..] = &args[..] else {
        anyhow::bail!("usage: embed CACHE_DIR SESSION.ron OUT.png [WIDTH HEIGHT]");
    };
    let size = |i: usize, default: u32| args.get(i).map_or(Ok(default), |s| s.parse());
    let (width, height) = (size(3, 640)?, size(4, 360)?);

    // Your renderer and the routines of your render graph.
    let renderer = Renderer::new(sylva_render::create_iad()?, Handedness::Left, None)?;
    let mut base = BaseRenderGraph::new(&renderer);
    sylva_render::use_plain_samplers(&renderer, &mut base); // software drivers stay fast
    let pbr = PbrRoutine::new(&renderer, &mut renderer.data_core.lock(), &base.interfaces);
    let tonemapping = TonemappingRoutine::new(&renderer, &base.interfaces, FORMAT);

    // sylva: the placements of a painted session, and the props of a bake cache.
    let text = std::fs::read_to_string(session).with_context(|| format!("reading {session}"))?;
    let session = sylva_scatter::Session::parse(&text, session)?;
    let terrain = sylva_terrain::default_world();
    let lod = sylva_lod::LodConfig::default();
    let (mut world, _) = World::replay(terrain, &session, &lod)?;
    let mut props = PropsRenderer::new(&renderer, &base.interfaces);
    let cache = CacheDir::new(cache);
    for entry in cache.read_manifest()?.assets.values() {
        let files = cache.read_prop(&entry.entry)?;
        sylva_runtime::load_prop(
            &renderer,
            &mut props,
            &mut world,
            &entry.prop,
            &entry.entry,
            &files,
            true,
        )?;
    }

    // Your own objects: a sun, and a red block in the middle of the meadow.
    let meadow = Landmark::Meadow.position();
    let ground = world.terrain().sample_height(meadow.x, meadow.y);
    let block_at = Vec3::new(meadow.x, ground, meadow.y);
    let _sun = renderer.add_directional_light(DirectionalLight {
        color: g20::Vec3::ONE,
        intensity: 4.0,
        direction: g20::Vec3::new(0.43, -0.88, 0.2),
        distance: 120.0,
    });
    let block = renderer.add_mesh(block_mesh(Vec3::new(3.0, 4.0, 3.0)));
    let red = renderer.add_material(PbrMaterial {
        albedo: AlbedoComponent::Value(g20::Vec4::new(0.8, 0.05, 0.03, 1.0)),
        ..PbrMaterial::default()
    });
    let _block = renderer.add_object(Object {
        mesh_kind: ObjectMeshKind::Static(block),
        material: red,
        transform: g20::Mat4::from_translation(g20::Vec3::from(block_at.to_array())),
    });

    // The camera, for rend3 and for sylva's culling and LOD choice.
    let camera = CameraView::new(
        block_at + Vec3::new(-7.0, 3.5, -11.0),
        block_at + Vec3::Y * 2.0,
    );
    renderer.set_aspect_ratio(width as f32 / height as f32);
    renderer.set_camera_data(camera.to_rend3());
    // LOD switch distances are measured on the image the camera fills.
    world.set_lod_viewport(sylva_lod::Viewport {
        height_px: height as f32,
        vertical_fov_rad: camera.vfov.to_radians(),
    })?;
    world.tick_lod(camera.eye, 0.0);
    let mut changes = BucketChanges::default();
    world.registry_mut().drain_changes(&mut changes);
    props.sync(world.registry(), &changes);

    // One frame: rend3's base graph with sylva's nodes inserted.
    let (command_buffers, ready) = renderer.ready();
    let view_proj = camera.view_proj(width as f32 / height as f32);
    props.set_lod_fades(world.lod_fades().clone());
    props.prepare_frame(
        &renderer,
        &ready,
        world.registry(),
        view_proj,
        camera.eye,
        &[],
    );
    let (target, view) = sylva_render::offscreen_target(&renderer, width, height);
    let mut graph = RenderGraph::new();
    let samples = SampleCount::One;
    let state = BaseRenderGraphIntermediateState::new(
        &mut graph,
        &ready,
        g20::UVec2::new(width, height),
        samples,
    );
    state.pre_skinning(&mut graph);
    state.pbr_pre_culling(&mut graph);
    state.create_frame_uniforms(&mut graph, &base, g20::Vec4::splat(0.25));
    state.skinning(&mut graph, &base);
    state.pbr_shadow_culling(&mut graph, &base, &pbr);
    state.pbr_culling(&mut graph, &base, &pbr);
    state.pbr_shadow_rendering(&mut graph, &pbr);
    for light in 0..ready.directional_light_cameras.len() {
        props.add_shadow_node(&mut graph, light); // sylva: props cast shadows
    }
    state.pbr_prepass_rendering(&mut graph, &pbr, samples);
    state.skybox(&mut graph, None, samples);
    // sylva: props into rend3's HDR colour and depth, before rend3's forward pass.
    props.add_forward_node(
        &mut graph,
        state.color,
        state.resolve,
        state.depth,
        state.forward_uniform_bg,
    );
    state.pbr_forward_rendering(&mut graph, &pbr, samples);
    let surface = graph.add_surface_texture();
    state.tonemapping(&mut graph, &tonemapping, surface);
    graph.execute(&renderer, OutputFrame::View(view), command_buffers, &ready);

    let image =
        sylva_render::read_rgba8(&renderer.device, &renderer.queue, &target, width, height)?;
    sylva_cache::store::write_atomically(out.as_ref(), &image.to_png()?)
        .with_context(|| format!("writing {out}"))?;
    println!(
        "{out}: {width}×{height}, {} placements",
        world.registry().len()
    );
    Ok(())
}

/// A box of `size` standing on the origin, each face with its own vertices so rend3
/// computes flat normals; faces wind clockwise seen from outside in sylva's
/// left-handed frame (`(b − a) × (c − a)` points out).
fn block_mesh(size: Vec3) -> rend3::types::Mesh {
    let mut positions = Vec::new();
    let mut indices = Vec::new();
    for axis in 0..3 {
        for sign in [1.0f32, -1.0] {
            let (mut u, mut v) = (Vec3::ZERO, Vec3::ZERO);
            u[(axis + 1) % 3] = 1.0;
            v[(axis + 2) % 3] = 1.0;
            if sign < 0.0 {
                std::mem::swap(&mut u, &mut v);
            }
            let mut normal = Vec3::ZERO;
            normal[axis] = sign;
            let first = positions.len() as u32;
            for (du, dv) in [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)] {
                let p = (normal + u * du + v * dv) * 0.5 * size + Vec3::Y * size.y * 0.5;
                positions.push(g20::Vec3::from(p.to_array()));
            }
            indices.extend([0, 1, 2, 0, 2, 3].map(|i| first + i));
        }
    }
    MeshBuilder::new(positions, Handedness::Left)
        .with_indices(indices)
        .build()
        .expect("a valid box")
}

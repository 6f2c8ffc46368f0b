//! sylva: paint props onto terrain and draw tens of thousands of them cheaply, inside
//! your own rend3 application.
//!
//! Hold one [`PropsRoutine`], made from your renderer and a painted session ([`World`]),
//! and load a bake cache into it. Each frame, after `renderer.ready()`, call
//! [`PropsRoutine::update`] (LOD, fades, GPU sync, culling and upload), then
//! [`PropsRoutine::add_to_graph`] where you would call rend3-routine's
//! `BaseRenderGraph::add_to_graph`: the same graph, with sylva's shadow and forward
//! nodes inserted, so your objects and sylva's props occlude and shadow each other.
//!
//! ```no_run
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use rend3::types::{Handedness, SampleCount};
//! use rend3_routine::{base::BaseRenderGraph, pbr::PbrRoutine, tonemapping::TonemappingRoutine};
//!
//! let renderer = rend3::Renderer::new(sylva::create_iad()?, Handedness::Left, None)?;
//! let base = BaseRenderGraph::new(&renderer);
//! let pbr = PbrRoutine::new(&renderer, &mut renderer.data_core.lock(), &base.interfaces);
//! let format = rend3::types::TextureFormat::Rgba8UnormSrgb;
//! let tonemapping = TonemappingRoutine::new(&renderer, &base.interfaces, format);
//!
//! let session = sylva::Session::parse(&std::fs::read_to_string("session.ron")?, "session.ron")?;
//! let world = sylva::World::replay(sylva::default_world(), &session, &Default::default())?.0;
//! let mut props = sylva::PropsRoutine::new(&renderer, &base.interfaces, world);
//! props.load_cache(&sylva::CacheDir::new("cache"))?;
//!
//! // Each frame:
//! let camera = sylva::CameraView::new(glam::Vec3::new(0.0, 20.0, -40.0), glam::Vec3::ZERO);
//! renderer.set_camera_data(camera.to_rend3());
//! let (command_buffers, ready) = renderer.ready();
//! props.update(&ready, &camera, (1280, 720), 0.0);
//! let mut graph = rend3::graph::RenderGraph::new();
//! let (resolution, ambient) = (glam::UVec2::new(1280, 720), glam::Vec4::splat(0.25));
//! props.add_to_graph(&mut graph, &ready, &base, &pbr, None, &tonemapping, resolution, SampleCount::One, ambient);
//! # let (_target, view) = sylva::offscreen_target(&renderer, 1280, 720);
//! graph.execute(&renderer, rend3::util::output::OutputFrame::View(view), command_buffers, &ready);
//! # Ok(())
//! # }
//! ```
//!
//! The engine crates (`sylva-world`, `sylva-lod`, `sylva-render`, …) are the
//! implementation; this crate also owns the end-to-end tests in `tests/` and the
//! benchmarks in `benches/`. See ARCHITECTURE.md for the map.

#![deny(missing_docs)]

pub use sylva_cache::CacheDir;
pub use sylva_lod::{LodConfig, LodPolicy};
pub use sylva_render::{
    create_iad, offscreen_target, read_rgba8, use_plain_samplers, CameraView, RgbaImage,
};
pub use sylva_runtime::{LoadReport, PropsRoutine, RuntimeError, UpdateStats};
pub use sylva_scatter::Session;
pub use sylva_terrain::{default_world, Landmark, Terrain};
pub use sylva_world::{World, WorldError};

//! sylva: paint props onto terrain and draw tens of thousands of them cheaply, inside
//! your own rend3 application.
//!
//! Hold one [`PropsRoutine`], made from your renderer and a painted session ([`World`]),
//! and load a bake cache into it. Each frame, after `renderer.ready()`, call
//! [`PropsRoutine::update`] (LOD, fades, GPU sync, culling and upload), then
//! [`PropsRoutine::add_to_graph`] where you would call rend3-routine's
//! `BaseRenderGraph::add_to_graph`, its routines bundled in [`BaseRoutines`]: the same
//! graph, with sylva's shadow and forward nodes inserted, so your objects and sylva's
//! props occlude and shadow each other. [`PropsRoutine::watch_assets`] re-bakes an
//! assets folder on a thread as it changes; the next update draws the new props. A
//! session replayed with [`World::replay_streamed`] keeps its streamed fills (`sylva
//! fill --stream`) unmade: the routine makes their tiles around the camera on worker
//! threads, each family out to where its props are seen, and each update shows what
//! arrived ([`UpdateStats::stream`]) without waiting for any.
//!
//! ```no_run
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let renderer = rend3::Renderer::new(sylva::create_iad()?, rend3::types::Handedness::Left, None)?;
//! let format = rend3::types::TextureFormat::Rgba8UnormSrgb;
//! let routines = sylva::BaseRoutines::new(&renderer, format);
//!
//! let session = sylva::Session::parse(&std::fs::read_to_string("session.ron")?, "session.ron")?;
//! let world = sylva::World::replay_streamed(sylva::default_world(), &session, &Default::default())?.0;
//! let mut props = sylva::PropsRoutine::new(&renderer, &routines.base.interfaces, world);
//! props.load_cache(&sylva::CacheDir::new("cache"))?;
//! props.watch_assets("assets".as_ref(), "cache".as_ref()); // optional: hot reload
//!
//! // Each frame:
//! let camera = sylva::CameraView::new(glam::Vec3::new(0.0, 20.0, -40.0), glam::Vec3::ZERO);
//! renderer.set_camera_data(camera.to_rend3());
//! let (command_buffers, ready) = renderer.ready();
//! let stats = props.update(&ready, &camera, (1280, 720), 0.0);
//! if let Some(reload) = stats.reload {
//!     println!("{reload}"); // what the watcher re-baked and swapped, or why not
//! }
//! let mut graph = rend3::graph::RenderGraph::new();
//! props.add_to_graph(&mut graph, &ready, &routines, glam::UVec2::new(1280, 720));
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
pub use sylva_runtime::{
    BaseRoutines, LoadReport, PropsRoutine, Reload, RuntimeError, UpdateStats,
};
pub use sylva_scatter::Session;
pub use sylva_terrain::{default_world, Landmark, Terrain};
pub use sylva_world::stream::StreamStats;
pub use sylva_world::{World, WorldError};

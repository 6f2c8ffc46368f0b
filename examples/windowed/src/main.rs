//! sylva in a window of your own: winit, rend3 and its routines, a camera flying round
//! the meadow, and sylva's props. With `--assets DIR`, sylva watches that folder: a
//! saved asset is re-baked into CACHE_DIR on a thread and drawn from the next frame
//! after its bake; a broken one is reported and its last good version stays.
//!
//! ```text
//! cargo run -p sylva-windowed-example -- CACHE_DIR SESSION.ron [--assets DIR] [--frames N] [--size WxH]
//! ```

use std::sync::Arc;
use std::time::Instant;

use anyhow::{Context, Result};
use glam::{UVec2, Vec3};
use rend3::types::{glam as g20, DirectionalLight, Handedness, PresentMode};
use rend3::{graph::RenderGraph, util::output::OutputFrame, Renderer};
use winit::event::{Event, WindowEvent};
use winit::event_loop::{ControlFlow, EventLoop};
use winit::platform::run_return::EventLoopExtRunReturn;
use winit::{dpi::PhysicalSize, window::WindowBuilder};

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [cache, session, options @ ..] = &args[..] else {
        anyhow::bail!(
            "usage: windowed CACHE_DIR SESSION.ron [--assets DIR] [--frames N] [--size WxH]"
        );
    };
    let option = |name: &str| {
        options
            .iter()
            .position(|o| o == name)
            .map(|i| options.get(i + 1))
    };
    let frames: Option<u64> = option("--frames")
        .flatten()
        .map(|n| n.parse())
        .transpose()?;

    // Your window, renderer and routines.
    let mut event_loop = EventLoop::new();
    let size = option("--size")
        .flatten()
        .map_or("960x540", |s| s.as_str())
        .split_once('x');
    let (width, height) = size.context("--size is WIDTHxHEIGHT")?;
    let size = PhysicalSize::new(width.parse::<u32>()?, height.parse::<u32>()?);
    let window = WindowBuilder::new()
        .with_title("sylva")
        .with_inner_size(size)
        .build(&event_loop)?;
    let iad = sylva::create_iad()?;
    // SAFETY: the window outlives the surface: the surface is dropped first, below.
    let surface = Arc::new(unsafe { iad.instance.create_surface(&window) });
    let format = surface
        .get_preferred_format(&iad.adapter)
        .context("no surface format")?;
    let renderer = Renderer::new(iad, Handedness::Left, None)?;
    let routines = sylva::BaseRoutines::new(&renderer, format); // rend3-routine's, yours
    let direction = g20::Vec3::new(0.43, -0.88, 0.2);
    let sun = DirectionalLight {
        color: g20::Vec3::ONE,
        intensity: 4.0,
        direction,
        distance: 120.0,
    };
    let _sun = renderer.add_directional_light(sun);

    // sylva: a painted session, its props from the cache or from a watched assets folder.
    let text = std::fs::read_to_string(session).with_context(|| format!("reading {session}"))?;
    let session = sylva::Session::parse(&text, session)?;
    let world =
        sylva::World::replay_streamed(sylva::default_world(), &session, &Default::default())?.0;
    let mut props = sylva::PropsRoutine::new(&renderer, &routines.base.interfaces, world);
    match option("--assets") {
        Some(Some(assets)) => props.watch_assets(assets.as_ref(), cache.as_ref()),
        Some(None) => anyhow::bail!("--assets needs a folder"),
        None => println!("{:?}", props.load_cache(&sylva::CacheDir::new(cache))?),
    }

    let meadow = sylva::Landmark::Meadow.position();
    let ground = props.world().terrain().sample_height(meadow.x, meadow.y);
    let centre = Vec3::new(meadow.x, ground, meadow.y);
    let (started, mut drawn, mut slowest_ms) = (Instant::now(), 0u64, 0.0f64);
    let mut reported = (started, 0u64); // the last frame-rate line, once a second
    let mut resolution = UVec2::new(size.width, size.height);
    let configure = |resolution: UVec2| {
        let size = g20::UVec2::new(resolution.x.max(1), resolution.y.max(1));
        rend3::configure_surface(&surface, &renderer.device, format, size, PresentMode::Fifo);
    };
    configure(resolution);
    event_loop.run_return(|event, _, control_flow| match event {
        Event::WindowEvent {
            event: WindowEvent::CloseRequested,
            ..
        } => *control_flow = ControlFlow::Exit,
        Event::WindowEvent {
            event: WindowEvent::Resized(size),
            ..
        } => {
            resolution = UVec2::new(size.width, size.height);
            configure(resolution);
        }
        Event::MainEventsCleared => {
            let frame_started = Instant::now();
            let now = started.elapsed().as_secs_f64();
            // The camera circles the meadow 30 m out, 12 m up, once a minute.
            let angle = now as f32 * std::f32::consts::TAU / 60.0;
            let eye = centre + Vec3::new(30.0 * angle.cos(), 12.0, 30.0 * angle.sin());
            let camera = sylva::CameraView::new(eye, centre + Vec3::Y * 2.0);
            renderer.set_aspect_ratio(resolution.x as f32 / resolution.y.max(1) as f32);
            renderer.set_camera_data(camera.to_rend3());
            let (command_buffers, ready) = renderer.ready();
            let size = (resolution.x, resolution.y);
            if let Some(reload) = props.update(&ready, &camera, size, now).reload {
                println!("frame {drawn}: {reload}"); // failed bakes keep their last version
            }
            let mut graph = RenderGraph::new();
            props.add_to_graph(&mut graph, &ready, &routines, resolution);
            let output = OutputFrame::Surface {
                surface: surface.clone(),
            };
            graph.execute(&renderer, output, command_buffers, &ready);
            drawn += 1;
            if reported.0.elapsed().as_secs_f64() >= 1.0 {
                let fps = (drawn - reported.1) as f64 / reported.0.elapsed().as_secs_f64();
                println!("frame {drawn}, {fps:.1} fps");
                reported = (Instant::now(), drawn);
            }
            slowest_ms = slowest_ms.max(frame_started.elapsed().as_secs_f64() * 1e3);
            if frames.is_some_and(|frames| drawn >= frames) {
                *control_flow = ControlFlow::Exit;
            }
        }
        _ => {}
    });
    println!("{drawn} frames, the slowest {slowest_ms:.1} ms");
    drop(surface);
    Ok(())
}

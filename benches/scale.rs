//! How the CPU side grows with the session: 1 k, 10 k, 100 k and 1 M placements of
//! Mixed Forest filled over a 4 km world (a generated 2049² heightmap at 2 m), each
//! measured for its journal's replay (fill plus registry mirroring), an LOD tick with
//! the camera flying (every placement's level brought up to date, those near one of their
//! switches tested one by one) and standing still (the gated tick), the first dab of a
//! stroke after a preset pick (the viewer's ≤ 4 ms), and the CPU time of a whole frame
//! up to its submission (LOD tick, terrain selection, instance upload, culling, graph
//! and command recording) on the drawing thread, with the camera still and flying.
//! The LOD ticks and the frames run twice side by side: under screen-space switching
//! (each prop's own switch distances, small props culled) and under the fixed 30/90/150 m
//! bands.
//! Frames are drawn on lavapipe; the thread's CPU clock leaves out the driver's own
//! threads, and each frame's GPU work is waited for outside the measurement. A third
//! camera turns in place, so the views are culled again every frame with nothing else
//! to do. Results and the growth ratios: BENCHMARKS.md ("Open world: growth").

use std::ops::ControlFlow;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use glam::{Vec2, Vec3};
use sylva_lod::LodConfig;
use sylva_render::{
    offscreen_target, read_rgba8, CameraView, OutputFrame, RenderContext, OUTPUT_FORMAT,
};
use sylva_runtime::{level_errors_of, shape_of, Runtime};
use sylva_scatter::{
    BrushSettings, FillOrder, FillRegion, FillRequest, Session, TerrainSource,
    DEFAULT_PLACEMENT_CAP,
};
use sylva_terrain::{HeightmapScale, Terrain};
use sylva_world::World;

#[path = "../tests/common/mod.rs"]
mod common;

const SCALE: HeightmapScale = HeightmapScale {
    spacing: 2.0,
    vertical_scale: 120.0,
    base_height: 0.0,
    water_level: 12.0,
};

/// Placements asked for, and the Mixed Forest density that gives about as many on
/// this map (0.062 per m² would pass the 1,000,000 cap).
const SIZES: [(&str, f32); 4] = [
    ("1k", 0.000_06),
    ("10k", 0.000_6),
    ("100k", 0.006),
    ("1M", 0.06),
];

/// The map, also left in `target/heightmap-2049.png` for the command-line runs.
fn terrain() -> Terrain {
    let png = std::fs::read(common::heightmap::file(2049)).unwrap();
    Terrain::from_png(&png, SCALE).unwrap()
}

/// A journal with one whole-world fill at `density`.
fn journal(terrain: &Terrain, density: f32) -> Session {
    let session = Session::new(
        1,
        DEFAULT_PLACEMENT_CAP,
        TerrainSource::DefaultWorld,
        common::snapshot(),
    );
    let mut world = World::new(terrain.clone(), &session, &LodConfig::default()).unwrap();
    let name = world
        .use_preset("mixed_forest", common::preset("mixed_forest"))
        .unwrap();
    let request = FillRequest {
        preset: name,
        region: FillRegion::Whole,
        density: Some(density),
        order: FillOrder::Tiles,
        stream: false,
        replaces: None,
    };
    world
        .fill(&request, &mut |_, _| ControlFlow::Continue(()))
        .unwrap();
    world.editor().session().clone()
}

fn replay(terrain: Terrain, session: &Session) -> World {
    World::replay(terrain, session, &LodConfig::default())
        .unwrap()
        .0
}

/// The LOD policies compared: screen-space switching (the default) and the fixed bands.
fn policies() -> [(&'static str, LodConfig); 2] {
    [
        ("screen", LodConfig::default()),
        (
            "fixed_bands",
            LodConfig::fixed_bands(vec![30.0, 90.0, 150.0]),
        ),
    ]
}

/// `session` replayed under `lod`, with the kit's baked props' shapes and levels given
/// to the registry and the controller as loading them does, without a GPU.
fn replay_with_kit(terrain: Terrain, session: &Session, lod: &LodConfig) -> World {
    let mut world = World::replay(terrain, session, lod).unwrap().0;
    let cache = sylva_testkit::kit_cache();
    for entry in cache.read_manifest().unwrap().assets.values() {
        let files = cache.read_prop(&entry.entry).unwrap();
        let view = files.parse().unwrap();
        let shape = shape_of(&view.entry);
        world.set_prop_shape(&entry.prop, shape).unwrap();
        let (errors, radius) = level_errors_of(&view.entry, shape);
        world
            .describe_prop_lod(&entry.prop, errors, radius)
            .unwrap();
    }
    world
}

fn growth(c: &mut Criterion) {
    let terrain = terrain();
    for (label, density) in SIZES {
        let session = journal(&terrain, density);
        let mut world = replay(terrain.clone(), &session);
        let placed = world.editor().painter().len();
        println!("{label}: {placed} placements");
        let mut group = c.benchmark_group(format!("scale_{label}"));
        group.sample_size(10);
        group.warm_up_time(Duration::from_secs(1));
        group.bench_function("replay", |b| {
            b.iter_batched(
                || terrain.clone(),
                |terrain| replay(terrain, &session),
                BatchSize::LargeInput,
            )
        });

        // A camera 60 m above the map's centre; flying moves it 1 m per tick (past the
        // controller's 0.5 m gate) a quarter second apart (its 4 Hz cap).
        let eye = Vec3::new(0.0, terrain.sample_height(0.0, 0.0) + 60.0, 0.0);
        for (policy, lod) in policies() {
            // The world's controller and registry, ticked as the world's LOD tick does.
            let world = replay_with_kit(terrain.clone(), &session, &lod);
            let (mut controller, mut registry) = (world.lod().clone(), world.registry().clone());
            drop(world);
            let mut tick = |camera: Vec3, now: f64| controller.tick(&mut registry, camera, now);
            let mut now = 0.0;
            tick(eye, now);
            let first_step = tick(eye + Vec3::X, now + 0.25);
            println!(
                "  {policy}: a flying LOD tick tests {} of {} placements one by one; {} culled",
                first_step.tested, first_step.evaluated, first_step.culled
            );
            now += 0.25;
            group.bench_function(format!("lod_tick_flying/{policy}"), |b| {
                b.iter(|| {
                    now += 0.25;
                    tick(eye + Vec3::X * (now as f32 * 4.0 % 64.0), now)
                })
            });
            let still = eye + Vec3::X * (now as f32 * 4.0 % 64.0);
            group.bench_function(format!("lod_tick_still/{policy}"), |b| {
                b.iter(|| {
                    now += 1.0 / 60.0;
                    tick(still, now)
                })
            });
        }

        // The first dab after a pick: a Meadow stroke (a preset new to the session)
        // on open ground, taken back after each sample.
        let meadow = world
            .use_preset("meadow", common::preset("meadow"))
            .unwrap();
        let brush = BrushSettings {
            radius: 10.0,
            density_per_m2: 0.6,
        };
        group.bench_function("first_dab_after_pick", |b| {
            b.iter_custom(|iterations| {
                let mut spent = Duration::ZERO;
                for i in 0..iterations {
                    world.begin_paint(&meadow, brush).unwrap();
                    let at = Vec2::new(-300.0 + (i % 50) as f32 * 12.0, 250.0);
                    let started = Instant::now();
                    let applied = world.dab(at).unwrap();
                    spent += started.elapsed();
                    world.end_stroke();
                    // A stroke that changed nothing leaves nothing to undo: undoing then
                    // would take back the fill.
                    if !applied.edit.is_empty() {
                        world.undo().unwrap();
                    }
                }
                spent
            })
        });
        assert_eq!(
            world.editor().painter().len(),
            placed,
            "the strokes were taken back"
        );
        drop(world);
        for (policy, lod) in policies() {
            let world = World::replay(terrain.clone(), &session, &lod).unwrap().0;
            frame_cpu(&mut group, world, policy);
        }
        group.finish();
    }
}

/// A painting view: 80 m above the map's centre, looking north and down.
const FRAME: (u32, u32) = (960, 540);

fn frame_cpu(
    group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    world: World,
    policy: &str,
) {
    let mut runtime = Runtime::new(RenderContext::new(OUTPUT_FORMAT).unwrap(), world).unwrap();
    let report = runtime.load_cache(&sylva_testkit::kit_cache()).unwrap();
    assert!(report.failed.is_empty(), "{:?}", report.failed);
    let renderer = runtime.context().renderer.clone();
    let (texture, view) = offscreen_target(&renderer, FRAME.0, FRAME.1);
    let ground = runtime.world().terrain().sample_height(0.0, 0.0);
    let turned = |x: f32, yaw: f32| {
        let eye = Vec3::new(x, ground + 80.0, -60.0);
        let look = Vec3::new(60.0 * yaw.sin(), -80.0, 60.0 * yaw.cos());
        CameraView::new(eye, eye + look)
    };
    let camera = |x: f32| turned(x, 0.0);
    let mut now = 0.0;
    let frame = |runtime: &mut Runtime, camera: CameraView, now: f64| {
        let started = thread_cpu();
        let stats = runtime.draw(camera, now, FRAME, OutputFrame::View(view.clone()));
        let spent = thread_cpu() - started;
        read_rgba8(
            &renderer.device,
            &renderer.queue,
            &texture,
            FRAME.0,
            FRAME.1,
        )
        .unwrap();
        (spent, stats)
    };
    let (_, stats) = frame(&mut runtime, camera(0.0), now);
    println!(
        "  {policy}: frame view: {} instances drawn of {} ({} culled by size), {} draws",
        stats.draw.instances,
        stats.draw.instances_in_buckets,
        stats.culled_by_size,
        stats.draw.draw_calls
    );
    group.bench_function(format!("frame_cpu_still/{policy}"), |b| {
        b.iter_custom(|iterations| {
            (0..iterations)
                .map(|_| {
                    now += 1.0 / 60.0;
                    frame(&mut runtime, camera(0.0), now).0
                })
                .sum()
        })
    });
    // Turning in place by up to a degree: both views are culled again every frame, but
    // the eye stays, so the LOD tick and the terrain selection have nothing to do.
    let mut step = 0u32;
    group.bench_function(format!("frame_cpu_turning/{policy}"), |b| {
        b.iter_custom(|iterations| {
            (0..iterations)
                .map(|_| {
                    now += 1.0 / 60.0;
                    step += 1;
                    let yaw = (step % 10) as f32 * 0.002;
                    frame(&mut runtime, turned(0.0, yaw), now).0
                })
                .sum()
        })
    });
    // Flying: 1 m a frame and a quarter second apart, so every frame's LOD tick
    // evaluates (the worst case; at 60 Hz one frame in fifteen does).
    let mut x = 0.0;
    group.bench_function(format!("frame_cpu_flying/{policy}"), |b| {
        b.iter_custom(|iterations| {
            (0..iterations)
                .map(|_| {
                    now += 0.25;
                    x = (x + 1.0) % 200.0;
                    frame(&mut runtime, camera(x), now).0
                })
                .sum()
        })
    });
}

/// CPU time this thread has used.
fn thread_cpu() -> Duration {
    let mut time = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `time` is a valid timespec for the call to fill.
    let status = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut time) };
    assert_eq!(status, 0, "the thread CPU clock reads");
    Duration::new(time.tv_sec as u64, time.tv_nsec as u32)
}

criterion_group!(benches, growth);
criterion_main!(benches);

//! How the CPU side grows with the session: 1 k, 10 k, 100 k and 1 M placements of
//! Mixed Forest filled over a 4 km world (a generated 2049² heightmap at 2 m), each
//! measured for its journal's replay (fill plus registry mirroring), an LOD tick with
//! the camera flying (every placement re-evaluated) and standing still (the gated
//! tick), and the first dab of a stroke after a preset pick (the viewer's ≤ 4 ms).
//! Results and the growth ratios: BENCHMARKS.md ("Open world: growth").

use std::ops::ControlFlow;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use glam::{Vec2, Vec3};
use sylva::lod::LodConfig;
use sylva::scatter::{
    BrushSettings, FillRegion, FillRequest, Session, TerrainSource, DEFAULT_PLACEMENT_CAP,
};
use sylva::terrain::{HeightmapScale, Terrain};
use sylva::world::World;

#[path = "../tests/common/mod.rs"]
mod common;

const SCALE: HeightmapScale = HeightmapScale {
    spacing: 2.0,
    vertical_scale: 120.0,
    base_height: 0.0,
    water_level: 12.0,
};

/// Placements asked for, and the Mixed Forest density that gives about as many on
/// this map (0.062 per m² fills it to about a million).
const SIZES: [(&str, f32); 4] = [
    ("1k", 0.000_062),
    ("10k", 0.000_62),
    ("100k", 0.006_2),
    ("1M", 0.062),
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

fn growth(c: &mut Criterion) {
    let terrain = terrain();
    for (label, density) in SIZES {
        let session = journal(&terrain, density);
        let mut world = replay(terrain.clone(), &session);
        println!("{label}: {} placements", world.editor().painter().len());
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
        let mut now = 0.0;
        world.tick_lod(eye, now);
        group.bench_function("lod_tick_flying", |b| {
            b.iter(|| {
                now += 0.25;
                world.tick_lod(eye + Vec3::X * (now as f32 * 4.0 % 64.0), now)
            })
        });
        let still = eye + Vec3::X * (now as f32 * 4.0 % 64.0);
        group.bench_function("lod_tick_still", |b| {
            b.iter(|| {
                now += 1.0 / 60.0;
                world.tick_lod(still, now)
            })
        });

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
                    world.dab(at).unwrap();
                    spent += started.elapsed();
                    world.end_stroke();
                    world.undo().unwrap();
                }
                spent
            })
        });
        group.finish();
    }
}

criterion_group!(benches, growth);
criterion_main!(benches);

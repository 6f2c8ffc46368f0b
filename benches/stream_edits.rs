//! A brush dab over a Mixed Forest fill of the whole default world, stored or streamed:
//! over a streamed fill the dab is accepted against the fill's placements round it,
//! taken from the tiles streamed round the camera, or made on the spot the first time
//! a stroke comes near them and kept for the dabs after. Each iteration paints one dab of Meadow (whose ground cover
//! shares its family with the forest's) and undoes it.

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use glam::Vec2;
use sylva_lod::LodConfig;
use sylva_scatter::{FillOrder, FillRegion, FillRequest, Session, TerrainSource};
use sylva_terrain::{default_world, Landmark};
use sylva_world::World;

#[path = "../tests/common/mod.rs"]
mod common;

fn session() -> Session {
    Session::new(
        1,
        sylva_scatter::DEFAULT_PLACEMENT_CAP,
        TerrainSource::DefaultWorld,
        common::snapshot(),
    )
}

/// The forest filled over the whole world, stored or streamed, and Meadow's name.
fn forest(stream: bool) -> (World, String) {
    let mut editor = sylva_scatter::Editor::new(&session()).unwrap();
    let forest = (editor.use_preset("mixed_forest", common::preset("mixed_forest"))).unwrap();
    let meadow = editor
        .use_preset("meadow", common::preset("meadow"))
        .unwrap();
    let request = FillRequest {
        preset: forest,
        region: FillRegion::Whole,
        density: None,
        order: FillOrder::Tiles,
        stream,
        replaces: None,
    };
    let terrain = default_world();
    if stream {
        editor.record_streamed_fill(&terrain, &request).unwrap();
    } else {
        let mut go_on = |_, _| std::ops::ControlFlow::Continue(());
        editor.fill(&terrain, &request, &mut go_on).unwrap();
    }
    let journal = editor.session().clone();
    let lod = LodConfig::default();
    let (world, _) = if stream {
        World::replay_streamed(terrain, &journal, &lod).unwrap()
    } else {
        World::replay(terrain, &journal, &lod).unwrap()
    };
    (world, meadow)
}

/// One dab of `preset` at `at`, then undone.
fn dab_and_undo(world: &mut World, preset: &str, at: Vec2) {
    let brush = sylva_scatter::BrushSettings {
        radius: 6.0,
        density_per_m2: 1.0,
    };
    world.begin_paint(preset, brush).unwrap();
    world.dab(at).unwrap();
    world.end_stroke();
    world.undo().unwrap();
}

fn dab_over_forest(c: &mut Criterion) {
    let mut group = c.benchmark_group("dab_over_forest");
    group.sample_size(20);
    let meadow = Landmark::Meadow.position();
    let (mut stored, name) = forest(false);
    group.bench_function("stored", |b| {
        b.iter(|| dab_and_undo(&mut stored, &name, meadow))
    });
    let (mut streamed, name) = forest(true);
    group.bench_function("streamed_tiles_kept", |b| {
        b.iter(|| dab_and_undo(&mut streamed, &name, meadow))
    });
    // Streamed round the camera: the tiles are taken from the streamer.
    let (mut held, name) = forest(true);
    for prop in held.streamed_props() {
        held.describe_prop_lod(&prop, vec![0.0, 0.002, 0.01], 0.5)
            .unwrap();
    }
    held.start_streams(0.2, 1, sylva_world::FarPlacements::Registry)
        .unwrap();
    let eye = glam::Vec3::new(meadow.x, 20.0, meadow.y);
    while !held.update_streams(eye).unwrap().settled() {
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    group.bench_function("streamed_tiles_held", |b| {
        b.iter(|| dab_and_undo(&mut held, &name, meadow))
    });
    // A world just opened: no tile is kept yet.
    group.bench_function("streamed_tiles_made", |b| {
        b.iter_batched(
            || forest(true),
            |(mut world, name)| dab_and_undo(&mut world, &name, meadow),
            BatchSize::PerIteration,
        )
    });
    group.finish();
}

criterion_group!(benches, dab_over_forest);
criterion_main!(benches);

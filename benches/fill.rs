//! Region fill cost: the whole default world with Mixed Forest (the target is ≤ 1 s on
//! two cores), with and without mirroring into the placement registry, and a 4097²
//! heightmap (4 km at 1 m) filled to about a million placements (target ≤ 20 s).
//!
//! The 4097² map is a 16-bit PNG this bench writes to `target/heightmap-4097.png` (if
//! it is not there yet) and loads through the heightmap importer, so `sylva fill
//! --heightmap target/heightmap-4097.png --spacing 1 --vertical-scale 120
//! --water-level 12` can be timed on the same terrain (BENCHMARKS.md).

use std::ops::ControlFlow;

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use sylva_lod::LodConfig;
use sylva_scatter::{Editor, FillRegion, FillRequest, Session, TerrainSource};
use sylva_terrain::{default_world, HeightmapScale, Terrain};
use sylva_world::World;

#[path = "../tests/common/mod.rs"]
mod common;

/// Candidates per m² that fill the 4097² map with about a million placements.
const BIG_MAP_DENSITY: f32 = 0.062;
const BIG_MAP_SCALE: HeightmapScale = HeightmapScale {
    spacing: 1.0,
    vertical_scale: 120.0,
    base_height: 0.0,
    water_level: 12.0,
};

fn whole(preset: &str, density: Option<f32>) -> FillRequest {
    FillRequest {
        preset: preset.into(),
        region: FillRegion::Whole,
        density,
        order: sylva_scatter::FillOrder::Tiles,
        stream: false,
        replaces: None,
    }
}

fn go_on(_: usize, _: usize) -> ControlFlow<()> {
    ControlFlow::Continue(())
}

fn session() -> Session {
    Session::new(
        1,
        sylva_scatter::DEFAULT_PLACEMENT_CAP,
        TerrainSource::DefaultWorld,
        common::snapshot(),
    )
}

/// An empty world on `terrain` with Mixed Forest registered, and its name.
fn forest_world(terrain: &Terrain) -> (World, String) {
    let mut world = World::new(terrain.clone(), &session(), &LodConfig::default()).unwrap();
    let name = world
        .use_preset("mixed_forest", common::preset("mixed_forest"))
        .unwrap();
    (world, name)
}

fn default_world_fill(c: &mut Criterion) {
    let terrain = default_world();
    let mut group = c.benchmark_group("fill_default_world");
    group.sample_size(10);
    // Tiles (what fills do) against rows (what journals from before replay as).
    for (label, order) in [
        ("mixed_forest_editor", sylva_scatter::FillOrder::Tiles),
        ("mixed_forest_editor_rows", sylva_scatter::FillOrder::Rows),
    ] {
        group.bench_function(label, |b| {
            b.iter_batched(
                || {
                    let mut editor = Editor::new(&session()).unwrap();
                    let name = editor
                        .use_preset("mixed_forest", common::preset("mixed_forest"))
                        .unwrap();
                    (editor, name)
                },
                |(mut editor, name)| {
                    let request = FillRequest {
                        order,
                        ..whole(&name, None)
                    };
                    editor.fill(&terrain, &request, &mut go_on).unwrap();
                    editor
                },
                BatchSize::LargeInput,
            )
        });
    }
    group.bench_function("mixed_forest_world_with_registry", |b| {
        b.iter_batched(
            || forest_world(&terrain),
            |(mut world, name)| {
                world.fill(&whole(&name, None), &mut go_on).unwrap();
                world
            },
            BatchSize::LargeInput,
        )
    });
    group.finish();
}

fn big_map_fill(c: &mut Criterion) {
    let terrain = big_map();
    let mut group = c.benchmark_group("fill_4097_heightmap");
    group.sample_size(10);
    group.bench_function("mixed_forest_about_1m_placements_world", |b| {
        b.iter_batched(
            || forest_world(&terrain),
            |(mut world, name)| {
                let applied = world
                    .fill(&whole(&name, Some(BIG_MAP_DENSITY)), &mut go_on)
                    .unwrap();
                let placed = applied.report.unwrap().placed;
                assert!((800_000..1_200_000).contains(&placed), "{placed}");
                world
            },
            BatchSize::PerIteration,
        )
    });
    group.finish();
}

/// The 4097² map, read back through the heightmap importer.
fn big_map() -> Terrain {
    let png = std::fs::read(common::heightmap::file(4097)).unwrap();
    Terrain::from_png(&png, BIG_MAP_SCALE).unwrap()
}

criterion_group!(benches, default_world_fill, big_map_fill);
criterion_main!(benches);

//! The first stroke after a preset pick, as main-thread time: the viewer's way (the
//! pick starts background loads; the first dab scatters at once and its placements
//! wait for their props) side by side with loading every prop the preset can place on
//! the same thread before the dab, as the prototype did before its fix (209 ms →
//! 4 ms) — from a current cache, and from an empty one (every prop baked first).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use sylva_scatter::Preset;
use sylva_terrain::Landmark;
use sylva_viewer::cache_source::CacheSource;
use sylva_viewer::loader::PropSource;
use sylva_viewer::workspace::{open_world, TerrainChoice, Workspace, WorkspaceOptions, WorldHost};

const PRESET: &str = "mixed_forest";

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn options(folder: &Path) -> WorkspaceOptions {
    WorkspaceOptions {
        assets: repo().join("assets"),
        presets: repo().join("presets"),
        terrain: TerrainChoice::DefaultWorld,
        session: folder.join("bench.session.ron"),
        continue_session: false,
        seed: 7,
        cap: sylva_scatter::DEFAULT_PLACEMENT_CAP,
        lod: sylva_lod::LodConfig::default(),
    }
}

/// `folder` as a copy of the kit's cache, or empty.
fn fresh_cache(folder: &Path, from_committed: bool) {
    let _ = std::fs::remove_dir_all(folder);
    std::fs::create_dir_all(folder).unwrap();
    if from_committed {
        for entry in std::fs::read_dir(sylva_testkit::kit_cache().root()).unwrap() {
            let entry = entry.unwrap();
            std::fs::copy(entry.path(), folder.join(entry.file_name())).unwrap();
        }
    }
}

/// What the prototype did: load (baking if need be) every prop the preset can place,
/// then dab.
fn load_then_dab(folder: &Path, cache: &Path) {
    let mut host = open_world(&options(folder)).unwrap();
    let text = std::fs::read_to_string(repo().join(format!("presets/{PRESET}.ron"))).unwrap();
    let preset = Preset::parse(&text, PRESET).unwrap();
    let brush = preset.brush;
    let name = host.use_preset(PRESET, preset.clone()).unwrap();
    let catalog = host.editor().catalog().clone();
    let source = CacheSource::new(&repo().join("assets"), cache);
    for pick in &preset.picks {
        for &i in &catalog.category(&pick.category).unwrap().props {
            let prop = &catalog.props()[i].id;
            host.install(prop, &source.load(prop).unwrap()).unwrap();
        }
    }
    host.begin_paint(&name, brush).unwrap();
    host.dab(Landmark::Meadow.position()).unwrap();
}

fn first_stroke(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    let mut group = c.benchmark_group("first_stroke");
    group.sample_size(10);

    group.bench_function("viewer_background_loads", |b| {
        b.iter_batched(
            || {
                let source = Arc::new(CacheSource::new(
                    &repo().join("assets"),
                    sylva_testkit::kit_cache().root(),
                ));
                let world = open_world(&options(dir.path())).unwrap();
                let mut workspace = Workspace::open(options(dir.path()), world, source).unwrap();
                workspace.pick_preset_named(PRESET).unwrap();
                workspace
            },
            |mut workspace| {
                workspace.begin_stroke(false);
                workspace.stroke_to(Landmark::Meadow.position());
                workspace
            },
            BatchSize::PerIteration,
        );
    });
    for (name, from_committed) in [
        ("load_then_dab_current_cache", true),
        ("load_then_dab_empty_cache", false),
    ] {
        group.bench_function(name, |b| {
            b.iter_batched(
                || fresh_cache(&cache, from_committed),
                |()| load_then_dab(dir.path(), &cache),
                BatchSize::PerIteration,
            );
        });
    }
    group.finish();
}

criterion_group!(benches, first_stroke);
criterion_main!(benches);

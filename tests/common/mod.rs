//! Shared set-up for the end-to-end tests: the repository's own assets and presets.
#![allow(dead_code)] // The benches include this module and use a part of it each.

use std::path::PathBuf;
use std::sync::Mutex;

pub mod golden;
pub mod heightmap;
pub mod node;
pub mod stage;

use sylva_catalog::folder::read_snapshot;
use sylva_catalog::{Catalog, CatalogSnapshot};
use sylva_scatter::Preset;

/// One lavapipe device at a time: frames are CPU-bound and memory-hungry, and the other
/// tests run beside them.
pub static GPU: Mutex<()> = Mutex::new(());

pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

pub fn snapshot() -> CatalogSnapshot {
    read_snapshot(&repo().join("assets")).expect("the bundled assets folder reads")
}

pub fn catalog() -> Catalog {
    snapshot()
        .resolve()
        .expect("the bundled catalog resolves")
        .0
}

pub const PRESETS: [&str; 5] = [
    "mixed_forest",
    "cliff_and_scree",
    "beach",
    "meadow",
    "lake_shore",
];

pub fn preset(stem: &str) -> Preset {
    let path = repo().join("presets").join(format!("{stem}.ron"));
    let text = std::fs::read_to_string(&path).unwrap();
    Preset::parse(&text, &path.display().to_string()).unwrap()
}

/// A file of the glTF test corpus (`tests/data/gltf`).
pub fn gltf_file(name: &str) -> PathBuf {
    repo().join("tests/data/gltf").join(name)
}

/// Writes `assets/catalog.ron` with one category per name, each its own family, with
/// `bake` (a RON bake override's fields, e.g. `impostor_min_density: Some(0.0)`; empty
/// for none).
pub fn write_catalog(assets: &std::path::Path, categories: &[&str], bake: &str) {
    let entries: Vec<String> = categories
        .iter()
        .map(|c| format!("{c:?}: (family: {c:?}, bake: ({bake}))"))
        .collect();
    std::fs::write(
        assets.join("catalog.ron"),
        format!("(categories: {{ {} }})", entries.join(", ")),
    )
    .unwrap();
}

/// A temporary assets folder: a catalog naming `categories` (each its own family) and
/// copies of corpus files, `(category, corpus file)`.
pub fn temp_assets(categories: &[&str], files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    write_catalog(dir.path(), categories, "");
    for (category, file) in files {
        add_file(dir.path(), category, file);
    }
    dir
}

/// A temporary assets folder holding one prop: `source` (a path in the repository)
/// copied into `<category>/`, with a catalog whose only category is `category: entry`
/// (`entry` a RON category, e.g. `(family: "prop")`).
pub fn one_prop_assets(category: &str, entry: &str, source: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("catalog.ron"),
        format!("(categories: {{ {category:?}: {entry} }})"),
    )
    .unwrap();
    let folder = dir.path().join(category);
    std::fs::create_dir(&folder).unwrap();
    let source = repo().join(source);
    std::fs::copy(&source, folder.join(source.file_name().unwrap())).unwrap();
    dir
}

/// Three more copies of `<assets>/truck/CesiumMilkTruck.gltf` (`a`, `b`, `c`): the same
/// document, so the same buffer and PNG; four props sharing one texture.
pub fn add_truck_copies(assets: &std::path::Path) {
    let truck = assets.join("truck/CesiumMilkTruck.gltf");
    for copy in ["a", "b", "c"] {
        std::fs::copy(&truck, assets.join(format!("truck/{copy}.gltf"))).unwrap();
    }
}

/// Copies corpus file `file` into `<assets>/<category>/`.
pub fn add_file(assets: &std::path::Path, category: &str, file: &str) {
    let folder = assets.join(category);
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::copy(gltf_file(file), folder.join(file)).unwrap();
}

/// The default world (seed 5, the prototype's cap of 2,500) painted with
/// [`paint_busy_session`].
pub fn busy_world() -> sylva_world::World {
    let mut world = default_world(5, sylva_scatter::PROTOTYPE_PLACEMENT_CAP);
    paint_busy_session(&mut world);
    world
}

/// An empty session on the default world with the shipped assets and LOD bands.
fn default_world(seed: u32, cap: usize) -> sylva_world::World {
    let session = sylva_scatter::Session::new(
        seed,
        cap,
        sylva_scatter::TerrainSource::DefaultWorld,
        snapshot(),
    );
    let lod = sylva_lod::LodConfig::default();
    sylva_world::World::new(sylva_terrain::default_world(), &session, &lod).unwrap()
}

/// A session of the shipped presets around the meadow, the lake and the beach with
/// over 3,221 instances (the prototype's multi-stroke session).
pub fn paint_busy_session(world: &mut sylva_world::World) {
    use glam::Vec2;
    use sylva_terrain::Landmark;
    for (stem, landmark, offset, dabs) in [
        ("mixed_forest", Landmark::Meadow, Vec2::ZERO, 6),
        ("meadow", Landmark::Meadow, Vec2::new(0.0, -24.0), 5),
        ("lake_shore", Landmark::Lake, Vec2::ZERO, 4),
        ("mixed_forest", Landmark::Lake, Vec2::new(18.0, 12.0), 3),
        ("beach", Landmark::Beach, Vec2::new(-10.0, 0.0), 4),
    ] {
        let preset = preset(stem);
        let brush = preset.brush;
        let name = world.use_preset(stem, preset).unwrap();
        world.begin_paint(&name, brush).unwrap();
        for step in 0..dabs {
            world
                .dab(landmark.position() + offset + Vec2::new(5.0 * step as f32, 0.0))
                .unwrap();
        }
        world.end_stroke();
    }
}

/// Every shipped preset filled over the whole default world, in one session of about
/// 190,000 placements: the far band's measure (`benches/frames.rs`, the overview).
pub fn whole_world() -> sylva_world::World {
    let mut world = default_world(1, sylva_scatter::DEFAULT_PLACEMENT_CAP);
    for stem in [
        "mixed_forest",
        "meadow",
        "beach",
        "lake_shore",
        "cliff_and_scree",
    ] {
        let name = world.use_preset(stem, preset(stem)).unwrap();
        let request = sylva_scatter::FillRequest {
            preset: name,
            region: sylva_scatter::FillRegion::Whole,
            density: None,
            order: sylva_scatter::FillOrder::Tiles,
            stream: false,
            replaces: None,
        };
        world
            .fill(&request, &mut |_, _| std::ops::ControlFlow::Continue(()))
            .unwrap();
    }
    world
}

/// A fresh cache folder (which lives as long as the returned directory) holding the
/// bundled props baked: a copy of the repository's `cache/`, which
/// [`sylva_testkit::kit_cache`] bakes once and keeps up to date, so that a test may
/// change its copy.
pub fn baked_kit() -> (tempfile::TempDir, sylva_cache::CacheDir) {
    let dir = tempfile::tempdir().unwrap();
    sylva_testkit::copy_dir(sylva_testkit::kit_cache().root(), dir.path());
    let cache = sylva_cache::CacheDir::new(dir.path());
    (dir, cache)
}

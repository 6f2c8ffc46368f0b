//! `sylva-export` on a 100,000-placement session (the meadow preset painted over the
//! whole default world with a raised placement cap): the `.glb` (instancing nodes per
//! 64 m cell, shared LOD vertex data) beside the plain JSON and CSV placement lists, all
//! written to a sink so only the export's own work is measured. The session journal is
//! saved to `target/export-bench/session-100k.ron` for timing the `sylva export`
//! command itself (see BENCHMARKS.md).

use std::collections::BTreeMap;
use std::io;

use std::path::{Path, PathBuf};

use criterion::{criterion_group, criterion_main, Criterion};
use glam::Vec2;
use sylva_cache::{PropFiles, PropView};
use sylva_catalog::folder::read_snapshot;
use sylva_export::{write_glb, write_placement_list, ExportOptions, ListFormat};
use sylva_scatter::{BrushSettings, Editor, Placement, Preset, Session, TerrainSource};
use sylva_terrain::default_world;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

const PLACEMENTS: usize = 100_000;

/// Paints the meadow preset (24 m brush, 4 candidates/m²) on a 40 m grid over the whole
/// world, 144 dabs; the cap keeps the newest `PLACEMENTS`.
fn session_of_100k() -> Editor {
    let terrain = default_world();
    let snapshot = read_snapshot(&repo().join("assets")).unwrap();
    let session = Session::new(1, PLACEMENTS, TerrainSource::DefaultWorld, snapshot);
    let mut editor = Editor::new(&session).unwrap();
    let path = repo().join("presets/meadow.ron");
    let preset = Preset::parse(&std::fs::read_to_string(&path).unwrap(), "meadow").unwrap();
    let name = editor.use_preset("meadow", preset).unwrap();
    let brush = BrushSettings {
        radius: 24.0,
        density_per_m2: 4.0,
    };
    editor.begin_paint(&name, brush).unwrap();
    let half = terrain.size() / 2.0 - 24.0;
    let grid = |half: f32| {
        (0..)
            .map(move |i| -half + 40.0 * i as f32)
            .take_while(move |v| *v <= half)
    };
    for z in grid(half.y) {
        for x in grid(half.x) {
            editor.dab(&terrain, Vec2::new(x, z)).unwrap();
        }
    }
    editor.end_stroke();
    assert_eq!(editor.painter().len(), PLACEMENTS);
    editor
}

fn export(c: &mut Criterion) {
    let editor = session_of_100k();
    let folder = repo().join("target/export-bench");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(folder.join("session-100k.ron"), editor.session().to_ron()).unwrap();
    let placements: Vec<&Placement> = editor.painter().placements().collect();
    let cache = sylva_testkit::kit_cache();
    let files: BTreeMap<String, PropFiles> = cache
        .read_manifest()
        .unwrap()
        .assets
        .values()
        .map(|e| (e.prop.clone(), cache.read_prop(&e.entry).unwrap()))
        .collect();
    let props: BTreeMap<&str, PropView> = files
        .iter()
        .map(|(id, files)| (id.as_str(), files.parse().unwrap()))
        .collect();
    let report = write_glb(
        &mut io::sink(),
        &props,
        &placements,
        ExportOptions::default(),
    )
    .unwrap();
    println!(
        "{} placements, {} instancing nodes, {} bytes",
        report.placements, report.instancing_nodes, report.bytes
    );
    let mut group = c.benchmark_group(format!("export_{}_placements", placements.len()));
    group.sample_size(10);
    group.bench_function("glb", |b| {
        b.iter(|| {
            write_glb(
                &mut io::sink(),
                &props,
                &placements,
                ExportOptions::default(),
            )
            .unwrap()
        })
    });
    for (name, format) in [
        ("json_list", ListFormat::Json),
        ("csv_list", ListFormat::Csv),
    ] {
        group.bench_function(name, |b| {
            b.iter(|| {
                let mut out = io::BufWriter::new(io::sink());
                write_placement_list(&mut out, placements.iter().copied(), format).unwrap()
            })
        });
    }
    group.finish();
}

criterion_group!(benches, export);
criterion_main!(benches);

//! The bake: time per prop (and per triangle), one simplify level against gltfpack's
//! figure, loading from the cache against importing and simplifying, a warm no-op
//! `sylva bake`, and the GPU bytes of a shared-vertex chain against separate meshes.

use std::fs;
use std::path::PathBuf;

use criterion::{criterion_group, criterion_main, Criterion};
use sylva::bake::stages::{simplify_levels, weld, SimplifyInput};
use sylva::bake::{bake_asset, bake_folder, AssetSource, BakeOptions, BakeSettings};
use sylva::cache::{encode, BakedAsset, CacheDir, Entry};
use sylva::catalog::LodLevel;
use sylva::import::{external_files, import};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A corpus file with the external files it names, ready to bake.
fn corpus(name: &str) -> AssetSource {
    let folder = repo().join("tests/data/gltf");
    let bytes = fs::read(folder.join(name)).unwrap();
    let externals = external_files(&bytes)
        .unwrap()
        .into_iter()
        .map(|f| (f.clone(), fs::read(folder.join(&f)).unwrap()))
        .collect();
    AssetSource {
        prop_id: format!("corpus/{name}"),
        path: format!("corpus/{name}"),
        bytes,
        externals,
    }
}

const PROPS: [&str; 4] = [
    "Box.glb",
    "CesiumMilkTruck.gltf",
    "CesiumMan.glb",
    "SheenCloth.glb",
];

fn triangles(asset: &BakedAsset) -> usize {
    asset
        .parts
        .iter()
        .map(|p| p.levels[0].indices.len() / 3)
        .sum()
}

fn bake_per_prop(c: &mut Criterion) {
    let settings = BakeSettings::default();
    let mut group = c.benchmark_group("bake_asset");
    group.sample_size(10);
    for name in PROPS {
        let source = corpus(name);
        let (asset, _) = bake_asset(&source, &settings).unwrap();
        println!(
            "{name}: {} parts, {} triangles",
            asset.parts.len(),
            triangles(&asset)
        );
        group.bench_function(name, |b| b.iter(|| bake_asset(&source, &settings).unwrap()));
    }
    group.finish();
}

/// One simplification level (50 %, LockBorder) of SheenCloth, as `gltfpack -si 0.5
/// -slb` does it, after the weld its input needs.
fn simplify_one_level(c: &mut Criterion) {
    let source = corpus("SheenCloth.glb");
    let part = import(&source.bytes, &mut |_: &str| unreachable_file())
        .unwrap()
        .parts
        .remove(0);
    let (vertices, indices, _) = weld(&part.vertices, &part.indices);
    let level = [LodLevel {
        ratio: 0.5,
        max_error: 0.01,
    }];
    let input = SimplifyInput::new(&vertices, &indices, true);
    let (levels, _) = simplify_levels(&input, &level);
    println!(
        "SheenCloth 50 % LockBorder: {} → {} triangles",
        indices.len() / 3,
        levels[0].indices.len() / 3
    );
    let mut group = c.benchmark_group("simplify_one_level");
    group.sample_size(10);
    group.bench_function("SheenCloth_50pct_lock_border", |b| {
        b.iter(|| simplify_levels(&SimplifyInput::new(&vertices, &indices, true), &level))
    });
    group.finish();
}

fn unreachable_file() -> std::io::Result<Vec<u8>> {
    Err(std::io::ErrorKind::NotFound.into())
}

/// Parsing a cache entry (checksum, ranges and every index checked; views borrow the
/// bytes) against importing and simplifying the source.
fn load_vs_bake(c: &mut Criterion) {
    let settings = BakeSettings::default();
    let mut group = c.benchmark_group("load_vs_bake");
    group.sample_size(10);
    for name in ["SheenCloth.glb", "CesiumMan.glb", "Box.glb"] {
        let source = corpus(name);
        let bytes = encode(&bake_asset(&source, &settings).unwrap().0).unwrap();
        println!("{name}: entry {} bytes", bytes.len());
        group.bench_function(format!("load_from_cache/{name}"), |b| {
            b.iter(|| Entry::parse(&bytes).unwrap().parts.len())
        });
        group.bench_function(format!("load_from_cache_skipping_checksum/{name}"), |b| {
            b.iter(|| Entry::parse_skipping_checksum(&bytes).unwrap().parts.len())
        });
        group.bench_function(format!("import_and_simplify/{name}"), |b| {
            b.iter(|| bake_asset(&source, &settings).unwrap())
        });
    }
    group.finish();
}

/// `sylva bake` with nothing to do: every asset hashed, every entry read and verified.
fn warm_noop_bake(c: &mut Criterion) {
    let mut group = c.benchmark_group("warm_noop_bake");
    group.sample_size(20);
    let corpus_assets = corpus_folder();
    for (label, assets) in [
        ("assets", repo().join("assets")),
        ("corpus", corpus_assets.path().to_owned()),
    ] {
        let cache_dir = tempfile::tempdir().unwrap();
        let cache = CacheDir::new(cache_dir.path());
        let first = bake_folder(&assets, &cache, &BakeOptions::default()).unwrap();
        println!("warm no-op over {label}: {} props", first.assets.len());
        group.bench_function(label, |b| {
            b.iter(|| {
                let report = bake_folder(&assets, &cache, &BakeOptions::default()).unwrap();
                assert_eq!(report.baked(), 0);
            })
        });
    }
    group.finish();
}

/// Every corpus file as a prop of one category.
fn corpus_folder() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    fs::write(
        dir.path().join("catalog.ron"),
        r#"(categories: { "corpus": (family: "c") })"#,
    )
    .unwrap();
    let folder = dir.path().join("corpus");
    fs::create_dir_all(&folder).unwrap();
    for entry in fs::read_dir(repo().join("tests/data/gltf")).unwrap() {
        let path = entry.unwrap().path();
        fs::copy(&path, folder.join(path.file_name().unwrap())).unwrap();
    }
    dir
}

/// Bytes the GPU holds for a baked part's chain: one vertex buffer and an index
/// buffer per level, against each level as a separate mesh.
fn gpu_bytes(_: &mut Criterion) {
    for name in ["SheenCloth.glb", "CesiumMan.glb", "CesiumMilkTruck.gltf"] {
        let (asset, _) = bake_asset(&corpus(name), &BakeSettings::default()).unwrap();
        let (shared, copies, compacted) = asset.parts.iter().fold((0, 0, 0), |acc, part| {
            let bytes = chain_bytes(part);
            (acc.0 + bytes.0, acc.1 + bytes.1, acc.2 + bytes.2)
        });
        println!(
            "GPU bytes of {name}: shared chain {shared}; three meshes with their own vertex buffers {copies} \
             (shared = {:.2}×); three separately compacted meshes {compacted} (shared = {:.2}×)",
            shared as f64 / copies as f64,
            shared as f64 / compacted as f64
        );
    }
}

/// (shared chain, each level with a copy of the vertex buffer, each level with only the
/// vertices it uses).
fn chain_bytes(part: &sylva::cache::BakedPart) -> (usize, usize, usize) {
    let vertex_bytes = part.vertices.len() * 36;
    let index_size = |vertices: usize| if vertices <= 65_535 { 2 } else { 4 };
    let shared = vertex_bytes
        + part
            .levels
            .iter()
            .map(|l| l.indices.len() * index_size(part.vertices.len()))
            .sum::<usize>();
    let copies = part.levels.len() * vertex_bytes
        + part
            .levels
            .iter()
            .map(|l| l.indices.len() * index_size(part.vertices.len()))
            .sum::<usize>();
    let compacted = part
        .levels
        .iter()
        .map(|l| {
            let mut used = l.indices.clone();
            used.sort_unstable();
            used.dedup();
            used.len() * 36 + l.indices.len() * index_size(used.len())
        })
        .sum();
    (shared, copies, compacted)
}

criterion_group!(
    benches,
    gpu_bytes,
    simplify_one_level,
    load_vs_bake,
    warm_noop_bake,
    bake_per_prop
);
criterion_main!(benches);

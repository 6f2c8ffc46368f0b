//! The bake: time per prop (and per triangle), one simplify level against gltfpack's
//! figure, loading from the cache against importing and simplifying, a warm no-op
//! `sylva bake`, the GPU bytes of a shared-vertex chain against separate meshes, and
//! what meshoptimizer's codecs would save on stored entries against what they would
//! cost a load.

use std::fs;
use std::path::PathBuf;

use criterion::{criterion_group, criterion_main, Criterion};
use sylva_bake::stages::{simplify_levels, weld, SimplifyInput, Wedges};
use sylva_bake::Borders;
use sylva_bake::{bake_asset, bake_folder, AssetSource, BakeOptions, BakeSettings};
use sylva_cache::{encode, BakedAsset, CacheDir, Entry};
use sylva_catalog::LodLevel;
use sylva_import::{external_files, import};
use sylva_mesh::PACKED_STRIDE;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A corpus file with the external files it names, ready to bake.
fn corpus(name: &str) -> AssetSource {
    source(&repo().join("tests/data/gltf"), name)
}

/// A prop of the kit in `assets/`, e.g. `grass/tuft_cards.glb`.
fn kit(path: &str) -> AssetSource {
    source(&repo().join("assets"), path)
}

fn source(folder: &std::path::Path, name: &str) -> AssetSource {
    let bytes = fs::read(folder.join(name)).unwrap();
    let folder = folder.join(name).parent().unwrap().to_owned();
    let externals = external_files(&bytes)
        .unwrap()
        .into_iter()
        .map(|f| (f.clone(), fs::read(folder.join(&f)).unwrap()))
        .collect();
    AssetSource {
        prop_id: name.trim_end_matches(".glb").to_owned(),
        path: name.to_owned(),
        bytes,
        externals,
    }
}

/// The Quaternius packs in `tests/data/real`.
fn real_props() -> Vec<AssetSource> {
    ["quaternius_nature", "quaternius_simple"]
        .into_iter()
        .flat_map(|pack| {
            let folder = repo().join("tests/data/real").join(pack);
            let mut names: Vec<String> = fs::read_dir(&folder)
                .unwrap()
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .filter(|n| n.ends_with(".glb"))
                .collect();
            names.sort();
            names
                .into_iter()
                .map(move |n| source(&folder, &n))
                .collect::<Vec<_>>()
        })
        .collect()
}

/// Every prop of the kit in `assets/`.
fn kit_props() -> Vec<AssetSource> {
    let snapshot = sylva_catalog::folder::read_snapshot(&repo().join("assets")).unwrap();
    snapshot.props.iter().map(|p| kit(p)).collect()
}

fn triangles(asset: &BakedAsset) -> usize {
    asset
        .parts
        .iter()
        .map(|p| p.levels[0].indices.len() / 3)
        .sum()
}

/// The whole kit baked one prop after another on one thread, and SheenCloth alone.
fn bake_per_prop(c: &mut Criterion) {
    let settings = BakeSettings::default();
    let props = kit_props();
    let kit_triangles: usize = props
        .iter()
        .map(|p| triangles(&bake_asset(p, &settings).unwrap().0.asset))
        .sum();
    println!(
        "kit: {} props, {kit_triangles} full-detail triangles",
        props.len()
    );
    let sheen = corpus("SheenCloth.glb");
    let mut group = c.benchmark_group("bake_asset");
    group.sample_size(10);
    group.bench_function("kit_every_prop", |b| {
        b.iter(|| {
            for prop in &props {
                bake_asset(prop, &settings).unwrap();
            }
        })
    });
    group.bench_function("SheenCloth.glb", |b| {
        b.iter(|| bake_asset(&sheen, &settings).unwrap())
    });
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
    let wedges = Wedges::new(&vertices, part.material.base_color_texture.is_some());
    let input = SimplifyInput::new(&wedges, &indices, Borders::Locked);
    let (levels, _) = simplify_levels(&input, &level);
    println!(
        "SheenCloth 50 % LockBorder: {} → {} triangles",
        indices.len() / 3,
        levels[0].indices.len() / 3
    );
    let mut group = c.benchmark_group("simplify_one_level");
    group.sample_size(10);
    group.bench_function("SheenCloth_50pct_lock_border", |b| {
        b.iter(|| {
            let wedges = Wedges::new(&vertices, part.material.base_color_texture.is_some());
            let input = SimplifyInput::new(&wedges, &indices, Borders::Locked);
            simplify_levels(&input, &level)
        })
    });
    group.finish();
}

fn unreachable_file() -> std::io::Result<Vec<u8>> {
    Err(std::io::ErrorKind::NotFound.into())
}

/// Parsing a cache entry (checksum, ranges and every index checked; views borrow the
/// bytes) against importing and simplifying the source (no impostor, whose drawing
/// would dwarf both).
fn load_vs_bake(c: &mut Criterion) {
    let settings = BakeSettings {
        impostor: None,
        ..BakeSettings::default()
    };
    let mut group = c.benchmark_group("load_vs_bake");
    group.sample_size(10);
    let sources = [
        ("oak_wide", kit("broadleaf/oak_wide.glb")),
        ("tuft_cards", kit("grass/tuft_cards.glb")),
        ("pebble_river_round", kit("pebble/river_round.glb")),
        ("SheenCloth", corpus("SheenCloth.glb")),
        ("CesiumMan", corpus("CesiumMan.glb")),
    ];
    for (name, source) in sources {
        let bytes = encode(&bake_asset(&source, &settings).unwrap().0.asset).unwrap();
        println!("{name}: entry {} bytes", bytes.len());
        group.bench_function(format!("load_from_cache/{name}"), |b| {
            b.iter(|| Entry::parse(&bytes).unwrap().parts.len())
        });
        group.bench_function(format!("checksum_only/{name}"), |b| {
            b.iter(|| sylva_cache::format::checksum(&bytes[sylva_cache::format::HEADER_SIZE..]))
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

/// Bytes the GPU holds for the chains of the committed kit bake (and SheenCloth): one
/// vertex buffer and an index buffer per level, against each level as a separate mesh
/// with its own copy of the vertices, and against separately compacted meshes.
fn gpu_bytes(_: &mut Criterion) {
    let cache = sylva_testkit::kit_cache();
    let manifest = cache.read_manifest().unwrap();
    let mut kit = Vec::new();
    for listed in manifest.assets.values() {
        let bytes = cache.read_entry(&listed.entry).unwrap();
        kit.push(Entry::parse(&bytes).unwrap().to_baked());
    }
    let sheen = vec![
        bake_asset(&corpus("SheenCloth.glb"), &BakeSettings::default())
            .unwrap()
            .0
            .asset,
    ];
    for (label, assets) in [("the kit", kit), ("SheenCloth", sheen)] {
        let (shared, copies, compacted) =
            assets
                .iter()
                .flat_map(|a| &a.parts)
                .fold((0, 0, 0), |acc, part| {
                    let bytes = chain_bytes(part);
                    (acc.0 + bytes.0, acc.1 + bytes.1, acc.2 + bytes.2)
                });
        println!(
            "GPU bytes of {label}: shared chains {shared}; levels as meshes with their own vertex buffers {copies} \
             (shared = {:.2}×); levels as separately compacted meshes {compacted} (shared = {:.2}×)",
            shared as f64 / copies as f64,
            shared as f64 / compacted as f64
        );
    }
}

/// (shared chain, each level with a copy of the vertex buffer, each level with only the
/// vertices it uses).
fn chain_bytes(part: &sylva_cache::BakedPart) -> (usize, usize, usize) {
    let vertex_bytes = part.vertices.len() * PACKED_STRIDE;
    let index_size = |vertices: usize| if vertices <= 65_535 { 2 } else { 4 };
    let indices: usize = part
        .levels
        .iter()
        .map(|l| l.indices.len() * index_size(part.vertices.len()))
        .sum();
    let compacted = part
        .levels
        .iter()
        .map(|l| {
            let mut used = l.indices.clone();
            used.sort_unstable();
            used.dedup();
            used.len() * PACKED_STRIDE + l.indices.len() * index_size(used.len())
        })
        .sum();
    (
        vertex_bytes + indices,
        part.levels.len() * vertex_bytes + indices,
        compacted,
    )
}

/// A part's mesh blobs through meshoptimizer's vertex codec and its order-keeping
/// index-sequence codec (the triangle codec rotates triangles, so an entry would no
/// longer parse back to the bake byte for byte): (vertex stream, vertex count, index
/// streams with their counts).
type EncodedPart = (Vec<u8>, usize, Vec<(Vec<u8>, usize)>);

fn encoded_parts(entry: &Entry<'_>) -> Vec<EncodedPart> {
    entry
        .parts
        .iter()
        .map(|part| {
            let vertices: Vec<[u8; PACKED_STRIDE]> = part
                .vertex_bytes
                .chunks_exact(PACKED_STRIDE)
                .map(|v| v.try_into().unwrap())
                .collect();
            let levels = part
                .levels
                .iter()
                .map(|l| {
                    let indices: Vec<u32> = l.indices().collect();
                    let stream = meshopt::encode_index_sequence(&indices, vertices.len()).unwrap();
                    (stream, indices.len())
                })
                .collect();
            let stream = meshopt::encode_vertex_buffer(&vertices).unwrap();
            (stream, vertices.len(), levels)
        })
        .collect()
}

fn decoded(parts: &[EncodedPart]) -> usize {
    parts
        .iter()
        .map(|(vertices, count, levels)| {
            let v: Vec<[u8; PACKED_STRIDE]> =
                meshopt::decode_vertex_buffer(vertices, *count).unwrap();
            let i: usize = levels
                .iter()
                .map(|(stream, n)| {
                    meshopt::decode_index_sequence::<u32>(stream, *n)
                        .unwrap()
                        .len()
                })
                .sum();
            v.len() + i
        })
        .sum()
}

/// Stored entries (packed vertices, plain indices) against their mesh blobs through
/// meshoptimizer's codecs: the bytes of each over the kit and the real packs, and a
/// load as stored against a load that also decodes.
fn entry_codecs(c: &mut Criterion) {
    let settings = BakeSettings::default();
    let mut group = c.benchmark_group("entry_codecs");
    group.sample_size(20);
    for (label, sources, timed) in [
        ("kit", kit_props(), "broadleaf/oak_wide"),
        ("quaternius", real_props(), "CommonTree_1"),
    ] {
        let (mut stored, mut encoded, mut files) = (0, 0, 0);
        for source in &sources {
            let bytes = encode(&bake_asset(source, &settings).unwrap().0.asset).unwrap();
            let entry = Entry::parse(&bytes).unwrap();
            let parts = encoded_parts(&entry);
            files += bytes.len();
            stored += entry
                .parts
                .iter()
                .map(|p| {
                    p.vertex_bytes.len()
                        + p.levels.iter().map(|l| l.index_bytes.len()).sum::<usize>()
                })
                .sum::<usize>();
            encoded += parts
                .iter()
                .map(|(v, _, levels)| v.len() + levels.iter().map(|l| l.0.len()).sum::<usize>())
                .sum::<usize>();
            if source.prop_id != timed {
                continue;
            }
            group.bench_function(format!("load_as_stored/{label}"), |b| {
                b.iter(|| Entry::parse(&bytes).unwrap().parts.len())
            });
            group.bench_function(format!("load_and_decode/{label}"), |b| {
                b.iter(|| Entry::parse(&bytes).unwrap().parts.len() + decoded(&parts))
            });
        }
        println!(
            "entry codecs, {label} ({} props): entries {files} B, mesh blobs {stored} B stored, \
             {encoded} B through the codecs ({:.2}×)",
            sources.len(),
            encoded as f64 / stored as f64
        );
    }
    group.finish();
}

criterion_group!(
    benches,
    entry_codecs,
    gpu_bytes,
    simplify_one_level,
    load_vs_bake,
    warm_noop_bake,
    bake_per_prop
);
criterion_main!(benches);

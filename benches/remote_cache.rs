//! The shared cache: a clean clone filling its cache from a remote store (a real nginx
//! on 127.0.0.1, started by the bench) against baking the bundled kit itself, side by
//! side in one run. Both start from an empty cache folder every iteration.

use std::path::PathBuf;

use criterion::{criterion_group, criterion_main, Criterion};
use sylva_bake::{bake_folder, BakeOptions, Sharing};
use sylva_cache::CacheDir;
use sylva_testkit::nginx::Nginx;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Fills a fresh cache folder from the kit, with or without `remote`; returns how many
/// assets were built and fetched.
fn fill(remote: Option<&dyn sylva_cache::ObjectStore>, write: bool) -> (usize, usize) {
    let dir = tempfile::tempdir().unwrap();
    let options = BakeOptions {
        sharing: Sharing {
            remote,
            remote_write: write,
            lock: None,
        },
        ..BakeOptions::default()
    };
    let report = bake_folder(&repo().join("assets"), &CacheDir::new(dir.path()), &options).unwrap();
    (report.baked(), report.fetched())
}

fn remote_cache(c: &mut Criterion) {
    let nginx = Nginx::start();
    let store = sylva_remote::open(&format!("{}/bench", nginx.url())).unwrap();
    assert_eq!(
        fill(Some(&store), true),
        (23, 0),
        "the store is filled once"
    );

    let mut group = c.benchmark_group("remote_cache");
    group.sample_size(10);
    group.bench_function("kit_baked_locally", |b| {
        b.iter(|| assert_eq!(fill(None, false), (23, 0)))
    });
    group.bench_function("kit_fetched_from_nginx", |b| {
        b.iter(|| assert_eq!(fill(Some(&store), false), (0, 23)))
    });
    group.finish();
}

criterion_group!(benches, remote_cache);
criterion_main!(benches);

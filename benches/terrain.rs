//! Terrain LOD on a 4 km world (2049² samples, 2 m apart): building the quadtree's
//! error bounds, choosing the patches for the overview and for a ground-level camera,
//! and building their meshes, side by side with building the whole full-resolution
//! mesh (what the renderer drew before terrain LOD).

use criterion::{criterion_group, criterion_main, Criterion};
use glam::Vec3;
use sylva_render::{CameraView, TERRAIN_TOLERANCE};
use sylva_scatter::Mulberry32;
use sylva_terrain::{Terrain, TerrainLod};

/// Rolling hills and ridges at several scales with per-sample roughness, seeded.
fn four_km_world() -> Terrain {
    let side = 2049;
    let mut rng = Mulberry32::new(7);
    let heights = (0..side * side)
        .map(|i| {
            let (x, z) = ((i % side) as f32 * 2.0, (i / side) as f32 * 2.0);
            60.0 + 50.0 * (x / 610.0).sin() * (z / 480.0).cos()
                + 12.0 * (x / 97.0 + z / 131.0).sin()
                + 3.0 * (x / 23.0).sin() * (z / 17.0).sin()
                + 0.4 * rng.next_f32()
        })
        .collect();
    Terrain::new(side, side, 2.0, heights, 20.0).unwrap()
}

fn terrain_lod(c: &mut Criterion) {
    let terrain = four_km_world();
    let overview = CameraView::overview(&terrain);
    let ground = Vec3::new(100.0, terrain.sample_height(100.0, 100.0) + 2.0, 100.0);
    let lod = TerrainLod::new(&terrain);
    for (name, eye) in [("overview", overview.eye), ("ground", ground)] {
        let selection = lod.select(eye, TERRAIN_TOLERANCE);
        let triangles: usize = selection
            .iter()
            .map(|&id| lod.patch_mesh(&terrain, id).triangle_count())
            .sum();
        println!(
            "{name}: {} patches, {triangles} triangles (full resolution: {} triangles)",
            selection.len(),
            2 * 2048 * 2048
        );
    }
    let mut group = c.benchmark_group("terrain_lod_2049");
    group.sample_size(10);
    group.bench_function("error_bounds", |b| b.iter(|| TerrainLod::new(&terrain)));
    group.bench_function("select_overview", |b| {
        b.iter(|| lod.select(overview.eye, TERRAIN_TOLERANCE))
    });
    group.bench_function("overview_patch_meshes", |b| {
        b.iter(|| {
            lod.select(overview.eye, TERRAIN_TOLERANCE)
                .into_iter()
                .map(|id| lod.patch_mesh(&terrain, id).triangle_count())
                .sum::<usize>()
        })
    });
    group.bench_function("full_resolution_mesh", |b| b.iter(|| terrain.mesh()));
    group.finish();
}

criterion_group!(benches, terrain_lod);
criterion_main!(benches);

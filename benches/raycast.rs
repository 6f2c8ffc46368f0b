//! Cursor ray cast: the analytic march against `sample_height` side by side with the
//! brute-force cast over every triangle of the 131,072-triangle terrain mesh.

use criterion::{criterion_group, criterion_main, Criterion};
use glam::Vec3;
use sylva_scatter::Mulberry32;
use sylva_terrain::reference::raycast_triangles;
use sylva_terrain::{default_world, raycast, Ray, Terrain};

/// Cursor rays as a viewer sees them: from camera positions around the map to random
/// ground points, deterministic.
fn cursor_rays(terrain: &Terrain, count: usize) -> Vec<Ray> {
    let mut rng = Mulberry32::new(2024);
    let half = terrain.size() * 0.5;
    let mut coordinate = |extent: f32| (rng.next_f32() * 2.0 - 1.0) * extent * 0.9;
    (0..count)
        .map(|_| {
            let (tx, tz) = (coordinate(half.x), coordinate(half.y));
            let target = Vec3::new(tx, terrain.sample_height(tx, tz), tz);
            let eye = target
                + Vec3::new(
                    coordinate(60.0),
                    25.0 + coordinate(60.0).abs(),
                    coordinate(60.0),
                );
            Ray::towards(eye, target)
        })
        .collect()
}

fn casts(c: &mut Criterion) {
    let terrain = default_world();
    let mesh = terrain.mesh();
    let rays = cursor_rays(&terrain, 64);
    let samples: Vec<u32> = rays
        .iter()
        .map(|r| raycast(&terrain, r, 2000.0).samples)
        .collect();
    let mean = samples.iter().sum::<u32>() as f32 / samples.len() as f32;
    println!(
        "analytic cast: {mean:.1} height samples per ray (min {}, max {}) over {} rays; brute force: {} triangles per ray",
        samples.iter().min().unwrap(),
        samples.iter().max().unwrap(),
        rays.len(),
        mesh.triangle_count()
    );
    let mut group = c.benchmark_group("cursor_ray");
    let mut i = 0;
    group.bench_function("analytic", |b| {
        b.iter(|| {
            i = (i + 1) % rays.len();
            raycast(&terrain, &rays[i], 2000.0)
        })
    });
    group.sample_size(20);
    group.bench_function("brute_force_131072_triangles", |b| {
        b.iter(|| {
            i = (i + 1) % rays.len();
            raycast_triangles(&mesh, &rays[i], 2000.0)
        })
    });
    group.finish();
}

criterion_group!(benches, casts);
criterion_main!(benches);

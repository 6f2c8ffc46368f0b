//! Scatter dab cost. The prototype placed a 158-candidate Mixed Forest dab on a flat
//! meadow in 5 ms; the target is ≤ 50 µs.

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use sylva::scatter::{BrushSettings, Edit, Painter, DEFAULT_PLACEMENT_CAP};
use sylva::terrain::{default_world, Landmark};

#[path = "../tests/common/mod.rs"]
mod common;

fn dabs(c: &mut Criterion) {
    let terrain = default_world();
    let catalog = common::catalog();
    let preset = common::preset("mixed_forest");
    let at = Landmark::Meadow.position();
    let radius = preset.brush.radius;
    let area = std::f32::consts::PI * radius * radius;
    let mut group = c.benchmark_group("scatter_dab");
    for candidates in [158.0f32, 10_000.0] {
        let brush = BrushSettings {
            radius,
            density_per_m2: candidates / area,
        };
        group.bench_function(
            format!("mixed_forest_meadow_{candidates}_candidates"),
            |b| {
                b.iter_batched(
                    || (Painter::new(1, DEFAULT_PLACEMENT_CAP * 8), Edit::default()),
                    |(mut painter, mut edit)| {
                        let report = painter
                            .dab(&terrain, &catalog, &preset, at, brush, &mut edit)
                            .unwrap();
                        assert_eq!(report.candidates as f32, candidates);
                        (painter, edit)
                    },
                    BatchSize::SmallInput,
                )
            },
        );
    }
    group.finish();
}

criterion_group!(benches, dabs);
criterion_main!(benches);

//! Scatter dab cost. The prototype placed a 158-candidate Mixed Forest dab on a flat
//! meadow in 5 ms; the target is ≤ 50 µs. Beside it, the minimum-spacing check of a
//! dab's candidates among many placements: the spatial hash against a scan of every
//! placement; and a long stroke on a world already at its placement cap, where every dab
//! evicts the oldest placements, some of them the stroke's own.

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use glam::{Vec2, Vec3Swizzles};
use sylva_scatter::{
    BrushSettings, Edit, Editor, Mulberry32, Painter, Placement, Session, SpacingIndex,
    TerrainSource, PROTOTYPE_PLACEMENT_CAP,
};
use sylva_terrain::{default_world, Landmark};

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
                    || {
                        (
                            Painter::new(1, PROTOTYPE_PLACEMENT_CAP * 8),
                            Edit::default(),
                        )
                    },
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

/// 158 candidate points in the brush disc checked for a 3 m spacing against every
/// placement of a crowded world (placements painted at the meadow and kept, up to
/// `count`).
fn spacing(c: &mut Criterion) {
    let terrain = default_world();
    let catalog = common::catalog();
    let preset = common::preset("mixed_forest");
    let at = Landmark::Meadow.position();
    let mut group = c.benchmark_group("spacing_check_158_candidates");
    for count in [2_500usize, 20_000] {
        let mut painter = Painter::new(7, count);
        let mut rng = Mulberry32::new(11);
        let brush = BrushSettings {
            radius: 60.0,
            density_per_m2: 0.5,
        };
        while painter.len() < count {
            let offset = Vec2::new(rng.next_f32() - 0.5, rng.next_f32() - 0.5) * 120.0;
            painter
                .dab(
                    &terrain,
                    &catalog,
                    &preset,
                    at + offset,
                    brush,
                    &mut Edit::default(),
                )
                .unwrap();
        }
        let placements: Vec<&Placement> = painter.placements().collect();
        let mut index = SpacingIndex::default();
        for p in &placements {
            index.insert(&p.family, p.id, p.position.xz());
        }
        let family = placements[0].family.clone();
        let candidates: Vec<Vec2> = (0..158)
            .map(|_| at + Vec2::new(rng.next_f32() - 0.5, rng.next_f32() - 0.5) * 12.0)
            .collect();
        const SPACING: f32 = 3.0;
        let blocked = |any: &dyn Fn(Vec2) -> bool| candidates.iter().filter(|&&c| any(c)).count();
        let hashed = |c: Vec2| index.any_within(&family, c, SPACING);
        let scanned = |c: Vec2| {
            placements.iter().any(|p| {
                p.family == family && p.position.xz().distance_squared(c) < SPACING * SPACING
            })
        };
        assert_eq!(blocked(&hashed), blocked(&scanned));
        group.bench_function(format!("spatial_hash_among_{count}"), |b| {
            b.iter(|| blocked(&hashed))
        });
        group.bench_function(format!("scan_every_placement_among_{count}"), |b| {
            b.iter(|| blocked(&scanned))
        });
    }
    group.finish();
}

/// A 100-dab Mixed Forest stroke across the meadow on a world holding the prototype's
/// 2,500-placement cap: each dab places ~130 and evicts as many, the later ones the
/// stroke's own.
fn stroke_at_the_cap(c: &mut Criterion) {
    let terrain = default_world();
    let session = Session::new(
        3,
        PROTOTYPE_PLACEMENT_CAP,
        TerrainSource::DefaultWorld,
        common::snapshot(),
    );
    let at = Landmark::Meadow.position();
    let full_editor = || {
        let mut editor = Editor::new(&session).unwrap();
        let name = editor
            .use_preset("mixed_forest", common::preset("mixed_forest"))
            .unwrap();
        let brush = common::preset("mixed_forest").brush;
        editor.begin_paint(&name, brush).unwrap();
        let mut step = 0;
        while editor.painter().len() < PROTOTYPE_PLACEMENT_CAP {
            editor
                .dab(&terrain, at + Vec2::new(-60.0 + 4.0 * step as f32, -30.0))
                .unwrap();
            step += 1;
        }
        editor.end_stroke();
        (editor, name, brush)
    };
    let mut group = c.benchmark_group("stroke_at_the_cap");
    group.sample_size(20);
    group.bench_function("mixed_forest_100_dabs", |b| {
        b.iter_batched(
            full_editor,
            |(mut editor, name, brush)| {
                editor.begin_paint(&name, brush).unwrap();
                for step in 0..100 {
                    let x = -60.0 + 1.2 * step as f32;
                    editor.dab(&terrain, at + Vec2::new(x, 20.0)).unwrap();
                }
                editor.end_stroke();
                assert_eq!(editor.painter().len(), PROTOTYPE_PLACEMENT_CAP);
                editor
            },
            BatchSize::LargeInput,
        )
    });
    group.finish();
}

criterion_group!(benches, dabs, spacing, stroke_at_the_cap);
criterion_main!(benches);

//! The brush on the default world with the shipped presets and props: the brief's
//! acceptance figures.

use crate::common;

use glam::Vec2;
use proptest::prelude::*;
use sylva_scatter::{BrushSettings, Edit, Painter, Preset, StrokeReport, DEFAULT_PLACEMENT_CAP};
use sylva_terrain::{default_world, Landmark, Terrain};

fn dab(terrain: &Terrain, preset: &Preset, seed: u32, at: Vec2) -> (StrokeReport, Edit) {
    let mut painter = Painter::new(seed, DEFAULT_PLACEMENT_CAP);
    let mut edit = Edit::default();
    let report = painter
        .dab(
            terrain,
            &common::catalog(),
            preset,
            at,
            preset.brush,
            &mut edit,
        )
        .unwrap();
    (report, edit)
}

#[test]
fn mixed_forest_on_the_meadow_places_at_least_80_percent() {
    let terrain = default_world();
    let preset = common::preset("mixed_forest");
    for seed in 1..=32 {
        let (report, _) = dab(&terrain, &preset, seed, Landmark::Meadow.position());
        let share = report.placed as f32 / report.candidates as f32;
        assert!(share >= 0.8, "seed {seed}: {report}");
    }
}

#[test]
fn mixed_forest_on_the_cliff_is_rejected_for_slope_and_says_so() {
    let terrain = default_world();
    let preset = common::preset("mixed_forest");
    for seed in 1..=32 {
        let (report, _) = dab(&terrain, &preset, seed, Landmark::Cliff.position());
        assert!(
            report.rejected.slope as f32 > 0.3 * report.candidates as f32,
            "seed {seed}: {report}"
        );
        assert!(report.to_string().contains("slope"), "{report}");
    }
}

#[test]
fn beach_pebbles_stop_at_the_waterline() {
    let terrain = default_world();
    let preset = common::preset("beach");
    let mut lowest = f32::INFINITY;
    for seed in 1..=16 {
        let at = Landmark::Beach.position() + Vec2::new(seed as f32 * 7.0 - 60.0, 0.0);
        let (report, edit) = dab(&terrain, &preset, seed, at);
        assert!(
            report.rejected.water > 0,
            "the stroke should reach the water: {report}"
        );
        for p in edit.added.iter().filter(|p| &*p.category == "pebble") {
            assert!(
                p.position.y >= terrain.water_level(),
                "pebble under water at {}",
                p.position
            );
            lowest = lowest.min(p.position.y - terrain.water_level());
        }
    }
    assert!(
        lowest < 0.05,
        "pebbles should reach the waterline, lowest {lowest} m above it"
    );
}

#[test]
fn cliff_rocks_lean_into_the_slope() {
    let terrain = default_world();
    let preset = common::preset("cliff_and_scree");
    let (_, edit) = dab(&terrain, &preset, 5, Landmark::Cliff.position());
    let rocks: Vec<_> = edit
        .added
        .iter()
        .filter(|p| &*p.category == "rock")
        .collect();
    assert!(rocks.len() > 10);
    for rock in rocks {
        let up = rock.rotation * glam::Vec3::Y;
        assert!(
            up.y < 0.71,
            "a rock on slope ≥ 0.3 tilts at least 45°: up {up}"
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(16))]

    /// No two placements of one family are closer than the `min_spacing` of the pick
    /// that made the later one.
    #[test]
    fn family_spacing_holds_over_random_strokes(
        seed in any::<u32>(),
        preset_index in 0..common::PRESETS.len(),
        dabs in prop::collection::vec((-250.0f32..250.0, -250.0f32..250.0), 1..8),
    ) {
        let terrain = default_world();
        let catalog = common::catalog();
        let preset = common::preset(common::PRESETS[preset_index]);
        let mut painter = Painter::new(seed, DEFAULT_PLACEMENT_CAP);
        let brush = BrushSettings { radius: preset.brush.radius, density_per_m2: preset.brush.density_per_m2 * 2.0 };
        for (x, z) in dabs {
            let mut edit = Edit::default();
            painter.dab(&terrain, &catalog, &preset, Vec2::new(x, z), brush, &mut edit).unwrap();
        }
        let spacing_of = |category: &str| {
            preset.picks.iter().filter(|p| p.category == category).map(|p| p.min_spacing).fold(f32::INFINITY, f32::min)
        };
        let all: Vec<_> = painter.placements().collect();
        for (i, a) in all.iter().enumerate() {
            for b in &all[i + 1..] {
                if a.family == b.family {
                    let d = Vec2::new(a.position.x, a.position.z).distance(Vec2::new(b.position.x, b.position.z));
                    prop_assert!(d >= spacing_of(&b.category), "{} and {} are {d} m apart", a.prop, b.prop);
                }
            }
        }
    }
}

/// A fill journalled as streamed replays to the same placements as the same fill
/// stored, bit for bit, on a 4 km map (a 1025² heightmap at 4 m) as on the default
/// world, and on one thread as on two.
#[test]
fn a_streamed_fill_replays_to_the_stored_fills_digest_on_a_4_km_map_on_one_or_two_threads() {
    use sylva_scatter::{Editor, FillOrder, FillRegion, FillRequest, Session, TerrainSource};
    use sylva_terrain::HeightmapScale;

    let scale = HeightmapScale {
        spacing: 4.0,
        vertical_scale: 120.0,
        base_height: 0.0,
        water_level: 12.0,
    };
    let map = Terrain::from_png(&common::heightmap::png(1025), scale).unwrap();
    assert_eq!(map.size().x, 4096.0);
    for (terrain, density) in [(default_world(), None), (map, Some(0.02))] {
        let session = Session::new(
            5,
            DEFAULT_PLACEMENT_CAP,
            TerrainSource::DefaultWorld,
            common::snapshot(),
        );
        let journal = |stream: bool| {
            let mut editor = Editor::new(&session).unwrap();
            let preset = editor
                .use_preset("mixed_forest", common::preset("mixed_forest"))
                .unwrap();
            let request = FillRequest {
                preset,
                region: FillRegion::Whole,
                density,
                order: FillOrder::Tiles,
                stream,
                replaces: None,
            };
            if stream {
                editor.record_streamed_fill(&terrain, &request).unwrap();
                assert_eq!(editor.painter().len(), 0, "recorded, not made");
            } else {
                editor
                    .fill(&terrain, &request, &mut |_, _| {
                        std::ops::ControlFlow::Continue(())
                    })
                    .unwrap();
            }
            editor.session().clone()
        };
        let digests: Vec<String> = [false, true]
            .into_iter()
            .flat_map(|stream| {
                let journal = journal(stream);
                let terrain = &terrain;
                [1, 2].map(move |threads| {
                    let pool = rayon::ThreadPoolBuilder::new()
                        .num_threads(threads)
                        .build()
                        .unwrap();
                    pool.install(|| {
                        let (editor, _) = Editor::replay(&journal, terrain).unwrap();
                        assert!(editor.painter().len() > 10_000);
                        editor.painter().digest()
                    })
                })
            })
            .collect();
        assert!(digests.iter().all(|d| *d == digests[0]), "{digests:?}");
    }
}

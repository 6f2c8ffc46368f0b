//! Behaviour of the brush, the editor and the journal on the default world with a
//! small catalog (names only: the brush never opens prop files).

use glam::Vec2;
use proptest::prelude::*;
use sylva_catalog::{Catalog, CatalogFile, CatalogSnapshot};
use sylva_terrain::{default_world, Landmark, Terrain};

use crate::*;

fn snapshot(props: &[&str]) -> CatalogSnapshot {
    let file = CatalogFile::from_ron(
        r#"(categories: {
            "tree": (family: "tree", scale: (0.8, 1.2)),
            "grass": (family: "ground"),
            "rock": (family: "rock"),
            "empty": (family: "rock"),
        })"#,
        "catalog.ron",
    )
    .unwrap();
    CatalogSnapshot::new(file, props.iter().copied())
}

fn catalog() -> Catalog {
    snapshot(&["tree/a.glb", "tree/b.glb", "grass/a.glb", "rock/a.glb"])
        .resolve()
        .unwrap()
        .0
}

fn preset() -> Preset {
    Preset::parse(
        r#"(
            name: "Test",
            brush: (radius: 10.0, density_per_m2: 0.5),
            picks: [
                (category: "tree", weight: 1.0, slope_max: 0.1, alt_min: 1.0, min_spacing: 4.0),
                (category: "grass", weight: 4.0, slope_max: 0.2, alt_min: 0.5, min_spacing: 0.5),
                (category: "rock", weight: 1.0, slope_min: 0.3, min_spacing: 1.0, align_to_slope: true),
            ],
        )"#,
        "test.ron",
    )
    .unwrap()
}

fn brush(radius: f32, density: f32) -> BrushSettings {
    BrushSettings {
        radius,
        density_per_m2: density,
    }
}

fn dab_at(
    painter: &mut Painter,
    terrain: &Terrain,
    at: Vec2,
    b: BrushSettings,
) -> (StrokeReport, Edit) {
    let mut edit = Edit::default();
    let report = painter
        .dab(terrain, &catalog(), &preset(), at, b, &mut edit)
        .unwrap();
    (report, edit)
}

#[test]
fn a_dab_samples_density_times_area_candidates() {
    let terrain = default_world();
    let mut painter = Painter::new(1, DEFAULT_PLACEMENT_CAP);
    let (report, edit) = dab_at(
        &mut painter,
        &terrain,
        Landmark::Meadow.position(),
        brush(10.0, 0.5),
    );
    assert_eq!(report.candidates, 157); // 0.5 × π × 10²
    assert_eq!(report.placed + report.rejected.total(), report.candidates);
    assert_eq!(edit.added.len() as u32, report.placed);
    assert_eq!(painter.len() as u32, report.placed);
}

#[test]
fn same_seed_same_placements_bit_for_bit() {
    let terrain = default_world();
    let run = || {
        let mut painter = Painter::new(42, DEFAULT_PLACEMENT_CAP);
        for landmark in Landmark::ALL {
            dab_at(
                &mut painter,
                &terrain,
                landmark.position(),
                brush(12.0, 0.8),
            );
        }
        painter.digest()
    };
    assert_eq!(run(), run());
    let mut other = Painter::new(43, DEFAULT_PLACEMENT_CAP);
    dab_at(
        &mut other,
        &terrain,
        Landmark::Meadow.position(),
        brush(12.0, 0.8),
    );
    assert_ne!(run(), other.digest());
}

#[test]
fn steep_ground_is_rejected_for_slope_and_takes_rocks_tilted() {
    let terrain = default_world();
    let mut painter = Painter::new(3, DEFAULT_PLACEMENT_CAP);
    let (report, edit) = dab_at(
        &mut painter,
        &terrain,
        Landmark::Cliff.position(),
        brush(10.0, 0.5),
    );
    assert!(report.rejected.slope > 0, "{report}");
    let rocks: Vec<_> = edit
        .added
        .iter()
        .filter(|p| &*p.category == "rock")
        .collect();
    assert!(!rocks.is_empty(), "{report}");
    for rock in rocks {
        let up = rock.rotation * glam::Vec3::Y;
        let normal = terrain.normal(rock.position.x, rock.position.z);
        assert!(up.dot(normal) > 0.9999, "rock not aligned to the slope");
        assert!(terrain.slope(rock.position.x, rock.position.z) >= 0.3);
    }
}

#[test]
fn nothing_lands_in_the_water() {
    let terrain = default_world();
    let mut painter = Painter::new(9, DEFAULT_PLACEMENT_CAP);
    let (report, edit) = dab_at(
        &mut painter,
        &terrain,
        Landmark::Beach.position(),
        brush(15.0, 1.0),
    );
    assert!(report.rejected.water > 0, "{report}");
    assert!(edit
        .added
        .iter()
        .all(|p| p.position.y >= terrain.water_level()));
}

#[test]
fn candidates_off_the_map_are_out_of_bounds() {
    let terrain = default_world();
    let mut painter = Painter::new(5, DEFAULT_PLACEMENT_CAP);
    let corner = terrain.max_corner();
    let (report, _) = dab_at(&mut painter, &terrain, corner, brush(10.0, 0.5));
    assert!(
        report.rejected.out_of_bounds > report.candidates / 2,
        "{report}"
    );
}

#[test]
fn a_category_without_props_rejects_with_its_reason() {
    let terrain = default_world();
    let catalog = catalog();
    let preset = Preset::parse(
        r#"(name: "E", brush: (radius: 5.0, density_per_m2: 0.5), picks: [(category: "empty", weight: 1.0)])"#,
        "e.ron",
    )
    .unwrap();
    let mut painter = Painter::new(5, DEFAULT_PLACEMENT_CAP);
    let mut edit = Edit::default();
    let report = painter
        .dab(
            &terrain,
            &catalog,
            &preset,
            Landmark::Meadow.position(),
            brush(5.0, 0.5),
            &mut edit,
        )
        .unwrap();
    assert_eq!(report.rejected.empty_category, report.candidates);
}

#[test]
fn placement_cap_evicts_the_oldest_first() {
    let terrain = default_world();
    let mut painter = Painter::new(11, 50);
    let (first, first_edit) = dab_at(
        &mut painter,
        &terrain,
        Landmark::Meadow.position(),
        brush(10.0, 0.5),
    );
    assert!(first.placed > 50);
    assert_eq!(first.evicted, first.placed - 50);
    assert_eq!(painter.len(), 50);
    // The dab's own evicted placements never happened: its edit adds exactly the
    // survivors, in order, and removes nothing.
    let live: Vec<_> = painter.placements().map(|p| p.id).collect();
    let added: Vec<_> = first_edit.added.iter().map(|p| p.id).collect();
    assert_eq!(added, live);
    assert!(first_edit.removed.is_empty());
    let oldest = painter.placements().next().unwrap().id;
    let (_, edit) = dab_at(
        &mut painter,
        &terrain,
        Landmark::Mountains.position(),
        brush(10.0, 0.5),
    );
    assert_eq!(painter.len(), 50);
    assert_eq!(edit.removed.first().map(|p| p.id), Some(oldest));
    let ids: Vec<u64> = painter.placements().map(|p| p.id.0).collect();
    assert!(ids.windows(2).all(|w| w[0] < w[1]));
}

#[test]
fn erase_removes_only_inside_the_disc() {
    let terrain = default_world();
    let mut painter = Painter::new(2, DEFAULT_PLACEMENT_CAP);
    let at = Landmark::Meadow.position();
    dab_at(&mut painter, &terrain, at, brush(10.0, 0.5));
    let before = painter.len();
    let mut edit = Edit::default();
    let erased = painter.erase(at, 4.0, |_| true, &mut edit);
    assert!(erased > 0);
    assert_eq!(painter.len(), before - erased);
    assert!(edit
        .removed
        .iter()
        .all(|p| p.position.xz_distance(at) <= 4.0));
    assert!(painter
        .placements()
        .all(|p| p.position.xz_distance(at) > 4.0));
}

trait XzDistance {
    fn xz_distance(&self, at: Vec2) -> f32;
}

impl XzDistance for glam::Vec3 {
    fn xz_distance(&self, at: Vec2) -> f32 {
        Vec2::new(self.x, self.z).distance(at)
    }
}

fn session() -> Session {
    Session::new(
        7,
        DEFAULT_PLACEMENT_CAP,
        TerrainSource::DefaultWorld,
        snapshot(&["tree/a.glb", "tree/b.glb", "grass/a.glb", "rock/a.glb"]),
    )
}

fn paint_session(terrain: &Terrain) -> Editor {
    let mut editor = Editor::new(&session()).unwrap();
    let name = editor.use_preset("test", preset()).unwrap();
    for (i, landmark) in Landmark::ALL.into_iter().enumerate() {
        editor.begin_paint(&name, brush(10.0, 0.6)).unwrap();
        for step in 0..4 {
            let p = landmark.position() + Vec2::new(step as f32 * 3.0, i as f32);
            editor.dab(terrain, p).unwrap();
        }
        editor.end_stroke();
    }
    editor.begin_erase(5.0, None).unwrap();
    editor.dab(terrain, Landmark::Meadow.position()).unwrap();
    editor.end_stroke();
    editor.undo();
    editor.undo();
    editor.redo();
    editor
}

#[test]
fn a_journal_replays_to_the_same_bytes() {
    let terrain = default_world();
    let live = paint_session(&terrain);
    let text = live.session().to_ron();
    let parsed = Session::parse(&text, "s.ron").unwrap();
    assert_eq!(&parsed, live.session());
    let (replayed, _) = Editor::replay(&parsed, &terrain).unwrap();
    assert_eq!(replayed.painter().digest(), live.painter().digest());
    assert_eq!(replayed.painter().len(), live.painter().len());
}

#[test]
fn replay_is_identical_on_any_thread_count() {
    let terrain = default_world();
    let mut journal = session();
    journal.presets.insert("test".into(), preset());
    // 10,000+ candidates per dab, so candidates are evaluated on the thread pool.
    journal.events.push(Event::Paint {
        preset: "test".into(),
        brush: brush(40.0, 2.0),
        dabs: vec![(0.0, 0.0), (150.0, 10.0), (-100.0, -90.0)],
    });
    let digest_on = |threads| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| {
            Editor::replay(&journal, &terrain)
                .unwrap()
                .0
                .painter()
                .digest()
        })
    };
    let one = digest_on(1);
    assert_eq!(one, digest_on(2));
    assert_eq!(one, digest_on(4));
}

#[test]
fn undo_and_redo_restore_exact_states() {
    let terrain = default_world();
    let mut editor = Editor::new(&session()).unwrap();
    let name = editor.use_preset("test", preset()).unwrap();
    let empty = editor.painter().digest();
    editor.begin_paint(&name, brush(10.0, 0.5)).unwrap();
    editor.dab(&terrain, Landmark::Meadow.position()).unwrap();
    editor.end_stroke();
    let painted = editor.painter().digest();
    editor.begin_erase(6.0, None).unwrap();
    editor.dab(&terrain, Landmark::Meadow.position()).unwrap();
    editor.end_stroke();
    let erased = editor.painter().digest();
    assert_ne!(painted, erased);
    editor.undo();
    assert_eq!(editor.painter().digest(), painted);
    editor.undo();
    assert_eq!(editor.painter().digest(), empty);
    assert!(editor.undo().is_none());
    editor.redo();
    editor.redo();
    assert_eq!(editor.painter().digest(), erased);
}

/// An editor capped at 40 placements with the test preset registered, and its name.
fn editor_capped_at_40() -> (Editor, String) {
    let mut journal = session();
    journal.placement_cap = 40;
    let mut editor = Editor::new(&journal).unwrap();
    let name = editor.use_preset("test", preset()).unwrap();
    (editor, name)
}

#[test]
fn undoing_a_stroke_brings_back_what_the_cap_evicted() {
    let terrain = default_world();
    let (mut editor, name) = editor_capped_at_40();
    editor.begin_paint(&name, brush(6.0, 0.5)).unwrap();
    editor.dab(&terrain, Landmark::Meadow.position()).unwrap();
    editor.end_stroke();
    let before = editor.painter().digest();
    editor.begin_paint(&name, brush(6.0, 0.5)).unwrap();
    editor
        .dab(&terrain, Landmark::Mountains.position())
        .unwrap();
    editor.end_stroke();
    editor.undo();
    assert_eq!(editor.painter().digest(), before);
}

#[test]
fn a_stroke_overflowing_the_cap_with_its_own_placements_undoes_and_redoes_exactly() {
    let terrain = default_world();
    let (mut editor, name) = editor_capped_at_40();
    editor.begin_paint(&name, brush(6.0, 0.5)).unwrap();
    for step in 0..5 {
        let at = Landmark::Meadow.position() + Vec2::new(4.0 * step as f32, 0.0);
        editor.dab(&terrain, at).unwrap();
    }
    let report = editor.end_stroke().unwrap();
    assert!(report.evicted > 40, "{report:?}");
    let painted = editor.painter().digest();
    let live: Vec<_> = editor.painter().placements().map(|p| p.id).collect();

    // Undo removes exactly the survivors (the evicted ones never happened) and brings
    // nothing back; redo adds them again.
    let undone = editor.undo().unwrap();
    let removed: Vec<_> = undone.removed.iter().map(|p| p.id).collect();
    assert_eq!(removed, live);
    assert!(undone.added.is_empty());
    assert!(editor.painter().is_empty());
    let redone = editor.redo().unwrap();
    let added: Vec<_> = redone.added.iter().map(|p| p.id).collect();
    assert_eq!(added, live);
    assert_eq!(editor.painter().digest(), painted);
}

#[test]
fn an_edited_preset_gets_a_new_name_and_old_strokes_keep_theirs() {
    let mut editor = Editor::new(&session()).unwrap();
    assert_eq!(editor.use_preset("test", preset()).unwrap(), "test");
    assert_eq!(editor.use_preset("test", preset()).unwrap(), "test");
    let mut changed = preset();
    changed.brush.radius = 3.0;
    assert_eq!(editor.use_preset("test", changed).unwrap(), "test#2");
}

#[test]
fn journal_errors_name_the_event() {
    let terrain = default_world();
    let mut journal = session();
    journal.events.push(Event::Paint {
        preset: "missing".into(),
        brush: brush(5.0, 0.5),
        dabs: vec![(0.0, 0.0)],
    });
    let err = Editor::replay(&journal, &terrain).err().unwrap();
    assert_eq!(
        err.to_string(),
        "events[0].preset: unknown preset `missing`"
    );
}

#[test]
fn an_erase_of_huge_radius_or_at_no_place_is_refused_not_run() {
    let terrain = default_world();
    for (radius, dab, path) in [
        (1.0e9, (0.0, 0.0), "events[0].radius"),
        (f32::MAX, (0.0, 0.0), "events[0].radius"),
        (5.0, (f32::NAN, 0.0), "events[0].dab"),
        (5.0, (0.0, f32::INFINITY), "events[0].dab"),
    ] {
        let mut journal = session();
        journal.events.push(Event::Erase {
            radius,
            dabs: vec![dab],
            only_preset: None,
        });
        let err = Editor::replay(&journal, &terrain).err().unwrap();
        assert!(err.to_string().starts_with(path), "{err}");
    }
}

#[test]
fn unsupported_session_version_is_refused() {
    let text = session().to_ron().replacen("format: 1", "format: 99", 1);
    let err = Session::parse(&text, "s.ron").unwrap_err();
    assert!(
        err.to_string().contains("version 99 is not supported"),
        "{err}"
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// No two placements of one family are closer than the spacing their picks ask.
    #[test]
    fn spacing_holds_within_each_family(
        seed in any::<u32>(),
        dabs in prop::collection::vec((-200.0f32..200.0, -200.0f32..200.0, 3.0f32..20.0), 1..6),
    ) {
        let terrain = default_world();
        let mut painter = Painter::new(seed, DEFAULT_PLACEMENT_CAP);
        for (x, z, radius) in dabs {
            dab_at(&mut painter, &terrain, Vec2::new(x, z), brush(radius, 1.0));
        }
        let spacing = |category: &str| match category {
            "tree" => 4.0,
            "grass" => 0.5,
            _ => 1.0,
        };
        let all: Vec<_> = painter.placements().collect();
        for (i, a) in all.iter().enumerate() {
            for b in &all[i + 1..] {
                if a.family == b.family {
                    let d = Vec2::new(a.position.x, a.position.z).distance(Vec2::new(b.position.x, b.position.z));
                    // The later placement honoured its own pick's spacing.
                    prop_assert!(d >= spacing(&b.category), "{} {} at {d}", a.prop, b.prop);
                }
            }
        }
    }
}

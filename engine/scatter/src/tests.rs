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

/// A journal written before the cap was the user's has no `placement_cap`: it meant the
/// prototype's 2,500, and replays evicting at 2,500 to the digest it had then (pinned
/// from the build before the change).
#[test]
fn a_journal_without_a_cap_keeps_the_prototype_cap_and_its_digest() {
    let terrain = default_world();
    let mut journal = session();
    journal.presets.insert("test".into(), preset());
    journal.events.push(Event::Paint {
        preset: "test".into(),
        brush: brush(30.0, 1.0),
        dabs: vec![(-20.0, 10.0), (20.0, 10.0), (-20.0, -30.0), (20.0, -30.0)],
    });
    let text = journal.to_ron();
    let old_text: String = text
        .lines()
        .filter(|line| !line.trim_start().starts_with("placement_cap:"))
        .collect::<Vec<_>>()
        .join("\n");
    assert_ne!(text, old_text);
    let old = Session::parse(&old_text, "old.session.ron").unwrap();
    assert_eq!(old.placement_cap, 2_500);
    let (editor, outcomes) = Editor::replay(&old, &terrain).unwrap();
    assert!(outcomes[0].report.unwrap().evicted > 0);
    assert_eq!(editor.painter().len(), 2_500);
    assert_eq!(
        editor.painter().digest(),
        "6fd5595a849dff77f437df3d79e40628dc27a6015d4b422c2de35d93552abae8"
    );
}

#[test]
fn a_cap_of_zero_or_past_memory_is_refused_with_the_reason() {
    for (cap, reason) in [
        (0, "would hold nothing"),
        (MAX_PLACEMENT_CAP + 1, "past what memory allows"),
    ] {
        let mut journal = session();
        journal.placement_cap = cap;
        let err = Session::parse(&journal.to_ron(), "s.ron").unwrap_err();
        assert!(
            err.to_string().starts_with("s.ron: placement_cap: "),
            "{err}"
        );
        assert!(err.to_string().contains(reason), "{err}");
        assert!(Editor::new(&journal).is_err());
    }
    let mut journal = session();
    journal.placement_cap = MAX_PLACEMENT_CAP;
    assert!(Session::parse(&journal.to_ron(), "s.ron").is_ok());
}

fn no_progress() -> impl FnMut(usize, usize) -> std::ops::ControlFlow<()> {
    |_, _| std::ops::ControlFlow::Continue(())
}

fn fill_request(preset: &str, region: FillRegion, replaces: Option<usize>) -> FillRequest {
    FillRequest {
        preset: preset.into(),
        region,
        density: None,
        order: FillOrder::Tiles,
        stream: false,
        replaces,
    }
}

fn rect(x0: f32, z0: f32, x1: f32, z1: f32) -> FillRegion {
    FillRegion::Polygon(vec![(x0, z0), (x1, z0), (x1, z1), (x0, z1)])
}

/// An editor with the whole default world filled with the test preset.
fn filled_editor(terrain: &Terrain) -> (Editor, String) {
    let mut editor = Editor::new(&session()).unwrap();
    let name = editor.use_preset("test", preset()).unwrap();
    editor
        .fill(
            terrain,
            &fill_request(&name, FillRegion::Whole, None),
            &mut no_progress(),
        )
        .unwrap();
    (editor, name)
}

fn live(editor: &Editor) -> Vec<Placement> {
    editor.painter().placements().cloned().collect()
}

#[test]
fn a_fill_covers_the_terrain_and_its_rejections_add_up_to_its_candidates() {
    let terrain = default_world();
    let mut editor = Editor::new(&session()).unwrap();
    let name = editor.use_preset("test", preset()).unwrap();
    let applied = editor
        .fill(
            &terrain,
            &fill_request(&name, FillRegion::Whole, None),
            &mut no_progress(),
        )
        .unwrap();
    let report = applied.report.unwrap();
    // 0.5 per m² over 512 m × 512 m, give or take the rounding per cell.
    let expected = 0.5 * terrain.size().x * terrain.size().y;
    assert!(
        (report.candidates as f32 - expected).abs() < expected * 0.01,
        "{report}"
    );
    assert_eq!(report.placed + report.rejected.total(), report.candidates);
    assert_eq!(report.rejected.out_of_bounds, 0);
    assert!(
        report.rejected.water > 0 && report.rejected.spacing > 0,
        "{report}"
    );
    assert_eq!(editor.painter().len() as u32, report.placed);
    assert_eq!(applied.edit.added.len() as u32, report.placed);
    let (min, max) = (terrain.min_corner(), terrain.max_corner());
    let quarter = |p: &&Placement| (p.position.x > 0.0, p.position.z > 0.0);
    let placements = live(&editor);
    for corner in [(false, false), (false, true), (true, false), (true, true)] {
        assert!(placements.iter().filter(|p| quarter(p) == corner).count() > 100);
    }
    assert!(placements
        .iter()
        .all(|p| terrain.contains(p.position.x, p.position.z)));
    assert!(min.x < max.x);
}

#[test]
fn refilling_a_rectangle_inside_a_fill_changes_nothing_outside_it() {
    let terrain = default_world();
    let (mut editor, _) = filled_editor(&terrain);
    let before = live(&editor);
    let mut edited = preset();
    edited.picks[0].weight = 5.0;
    edited.picks[1].min_spacing = 1.5;
    let name = editor.use_preset("test", edited).unwrap();
    assert_eq!(name, "test#2");
    let (x0, z0, x1, z1) = (-40.3, -20.0, 35.0, 44.7);
    let inside = |p: &Placement| {
        p.position.x >= x0 && p.position.x <= x1 && p.position.z >= z0 && p.position.z <= z1
    };
    let applied = editor
        .fill(
            &terrain,
            &fill_request(&name, rect(x0, z0, x1, z1), Some(0)),
            &mut no_progress(),
        )
        .unwrap();
    assert!(!applied.edit.removed.is_empty() && !applied.edit.added.is_empty());
    assert!(applied
        .edit
        .removed
        .iter()
        .chain(&applied.edit.added)
        .all(inside));
    let after = live(&editor);
    let outside = |list: &[Placement]| {
        list.iter()
            .filter(|p| !inside(p))
            .cloned()
            .collect::<Vec<_>>()
    };
    assert_eq!(outside(&before), outside(&after));
    assert_ne!(before.iter().filter(|p| inside(p)).count(), 0);
    assert_ne!(
        before.iter().filter(|p| inside(p)).count(),
        after.iter().filter(|p| inside(p)).count()
    );
}

#[test]
fn refilling_a_region_with_the_same_preset_puts_back_the_same_placements() {
    let terrain = default_world();
    let (mut editor, name) = filled_editor(&terrain);
    let positions = |editor: &Editor| {
        let mut list: Vec<[u32; 3]> = editor
            .painter()
            .placements()
            .map(|p| p.position.to_array().map(f32::to_bits))
            .collect();
        list.sort_unstable();
        list
    };
    let before = positions(&editor);
    editor
        .fill(
            &terrain,
            &fill_request(&name, rect(-30.0, -30.0, 30.0, 30.0), Some(0)),
            &mut no_progress(),
        )
        .unwrap();
    assert_eq!(positions(&editor), before);
}

#[test]
fn strokes_and_erasures_after_a_fill_survive_refills() {
    let terrain = default_world();
    let (mut editor, name) = filled_editor(&terrain);
    let clearing = Landmark::Meadow.position() + Vec2::new(30.0, 0.0);
    editor.begin_erase(12.0, None).unwrap();
    editor.dab(&terrain, clearing).unwrap();
    editor.end_stroke();
    let first_of_stroke = editor.painter().next_id();
    editor.begin_paint(&name, brush(10.0, 0.8)).unwrap();
    editor.dab(&terrain, Landmark::Meadow.position()).unwrap();
    editor.end_stroke();
    let stroke: Vec<Placement> = live(&editor)
        .into_iter()
        .filter(|p| p.id >= first_of_stroke)
        .collect();
    assert!(!stroke.is_empty());
    let in_clearing = |editor: &Editor| {
        editor
            .painter()
            .placements()
            .filter(|p| Vec2::new(p.position.x, p.position.z).distance(clearing) <= 12.0)
            .count()
    };
    assert_eq!(in_clearing(&editor), 0);
    // Another region, then the whole terrain again: the stroke and the clearing stay.
    for region in [rect(100.0, 100.0, 160.0, 160.0), FillRegion::Whole] {
        let whole = region == FillRegion::Whole;
        let applied = editor
            .fill(
                &terrain,
                &fill_request(&name, region, Some(0)),
                &mut no_progress(),
            )
            .unwrap();
        assert_eq!(applied.report.unwrap().rejected.erased > 0, whole);
        for p in &stroke {
            assert_eq!(editor.painter().get(p.id), Some(p));
        }
        assert_eq!(in_clearing(&editor), 0);
    }
    // Undo the refill and the stroke, then the erasure: a re-run fills the clearing.
    editor.undo();
    editor.undo();
    editor.undo();
    editor.undo();
    assert!(in_clearing(&editor) > 0);
    editor
        .fill(
            &terrain,
            &fill_request(&name, FillRegion::Whole, Some(0)),
            &mut no_progress(),
        )
        .unwrap();
    assert!(in_clearing(&editor) > 0);
}

#[test]
fn undo_and_redo_of_a_fill_and_a_refill_are_exact() {
    let terrain = default_world();
    let mut editor = Editor::new(&session()).unwrap();
    let name = editor.use_preset("test", preset()).unwrap();
    editor.begin_paint(&name, brush(10.0, 0.5)).unwrap();
    editor.dab(&terrain, Landmark::Lake.position()).unwrap();
    editor.end_stroke();
    let painted = editor.painter().digest();
    editor
        .fill(
            &terrain,
            &fill_request(&name, FillRegion::Whole, None),
            &mut no_progress(),
        )
        .unwrap();
    let filled = editor.painter().digest();
    let mut edited = preset();
    edited.picks[1].weight = 0.5;
    let name2 = editor.use_preset("test", edited).unwrap();
    editor
        .fill(
            &terrain,
            &fill_request(&name2, rect(-100.0, -100.0, 0.0, 0.0), Some(0)),
            &mut no_progress(),
        )
        .unwrap();
    let refilled = editor.painter().digest();
    assert_ne!(filled, refilled);
    editor.undo();
    assert_eq!(editor.painter().digest(), filled);
    editor.undo();
    assert_eq!(editor.painter().digest(), painted);
    editor.redo();
    assert_eq!(editor.painter().digest(), filled);
    editor.redo();
    assert_eq!(editor.painter().digest(), refilled);
    let (replayed, _) = Editor::replay(
        &Session::parse(&editor.session().to_ron(), "s.ron").unwrap(),
        &terrain,
    )
    .unwrap();
    assert_eq!(replayed.painter().digest(), refilled);
}

#[test]
fn spacing_holds_across_cell_borders_for_every_family() {
    let terrain = default_world();
    let mut editor = Editor::new(&session()).unwrap();
    let name = editor.use_preset("test", preset()).unwrap();
    let mut request = fill_request(&name, FillRegion::Whole, None);
    // Dense enough that every family is spacing-limited across 65,536 cell borders.
    request.density = Some(3.0);
    let report = editor
        .fill(&terrain, &request, &mut no_progress())
        .unwrap()
        .report
        .unwrap();
    assert!(report.rejected.spacing > report.placed, "{report}");
    let spacing = |category: &str| match category {
        "tree" => 4.0,
        "grass" => 0.5,
        _ => 1.0,
    };
    let placements = live(&editor);
    for family in ["tree", "ground", "rock"] {
        assert!(placements.iter().any(|p| &*p.family == family), "{family}");
    }
    // Bins of 4 m, the largest spacing: neighbours are in the 3 × 3 bins around.
    let mut bins: std::collections::HashMap<(i32, i32), Vec<&Placement>> = Default::default();
    let bin = |x: f32, z: f32| ((x / 4.0).floor() as i32, (z / 4.0).floor() as i32);
    for p in &placements {
        bins.entry(bin(p.position.x, p.position.z))
            .or_default()
            .push(p);
    }
    let mut pairs = 0u64;
    for b in &placements {
        let (bx, bz) = bin(b.position.x, b.position.z);
        for dz in -1..=1 {
            for dx in -1..=1 {
                for a in bins.get(&(bx + dx, bz + dz)).into_iter().flatten() {
                    if a.id < b.id && a.family == b.family {
                        pairs += 1;
                        let d = Vec2::new(a.position.x, a.position.z)
                            .distance(Vec2::new(b.position.x, b.position.z));
                        assert!(d >= spacing(&b.category), "{} {} at {d}", a.prop, b.prop);
                    }
                }
            }
        }
    }
    assert!(pairs > 100_000, "{pairs}");
}

#[test]
fn a_fill_is_identical_on_any_thread_count() {
    let terrain = default_world();
    let digest_on = |threads| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| filled_editor(&terrain).0.painter().digest())
    };
    let one = digest_on(1);
    assert_eq!(one, digest_on(2));
    assert_eq!(one, digest_on(3));
}

#[test]
fn a_fill_takes_no_draws_from_the_brush_generator() {
    let terrain = default_world();
    let stroke_after = |fill_first: bool| {
        let mut editor = Editor::new(&session()).unwrap();
        let name = editor.use_preset("test", preset()).unwrap();
        if fill_first {
            editor
                .fill(
                    &terrain,
                    &fill_request(&name, rect(100.0, 100.0, 200.0, 200.0), None),
                    &mut no_progress(),
                )
                .unwrap();
        }
        editor.begin_paint(&name, brush(10.0, 0.5)).unwrap();
        let applied = editor.dab(&terrain, Landmark::Meadow.position()).unwrap();
        applied
            .edit
            .added
            .iter()
            .map(|p| (p.prop.clone(), p.position, p.rotation))
            .collect::<Vec<_>>()
    };
    assert_eq!(stroke_after(true), stroke_after(false));
}

#[test]
fn bad_fills_are_refused_and_change_nothing() {
    let terrain = default_world();
    let (mut editor, name) = filled_editor(&terrain);
    let digest = editor.painter().digest();
    let events = editor.session().events.len();
    let next = editor.painter().next_id();
    let mut capped = session();
    capped.placement_cap = 100;
    let mut small = Editor::new(&capped).unwrap();
    let small_name = small.use_preset("test", preset()).unwrap();
    let cases: Vec<(FillRequest, &str)> = vec![
        (
            fill_request(&name, rect(1000.0, 1000.0, 1100.0, 1100.0), None),
            "lies outside the terrain",
        ),
        (
            fill_request(
                &name,
                FillRegion::Polygon(vec![(0.0, 0.0), (10.0, 10.0), (10.0, 0.0), (0.0, 10.0)]),
                None,
            ),
            "crosses itself",
        ),
        (
            fill_request(
                &name,
                FillRegion::Polygon(vec![(0.0, 0.0), (f32::NAN, 1.0), (1.0, 0.0)]),
                None,
            ),
            "not finite",
        ),
        (
            fill_request(
                &name,
                FillRegion::Brush {
                    radius: 0.0,
                    dabs: vec![(0.0, 0.0)],
                },
                None,
            ),
            "radius",
        ),
        (fill_request(&name, FillRegion::Whole, Some(7)), "no fill 7"),
        (
            fill_request("nope", FillRegion::Whole, None),
            "unknown preset",
        ),
        (
            FillRequest {
                density: Some(-1.0),
                ..fill_request(&name, FillRegion::Whole, None)
            },
            "density",
        ),
    ];
    for (request, reason) in cases {
        let err = editor
            .fill(&terrain, &request, &mut no_progress())
            .unwrap_err();
        assert!(err.to_string().contains(reason), "{err}");
        assert_eq!(editor.painter().digest(), digest);
        assert_eq!(editor.session().events.len(), events);
        assert_eq!(editor.painter().next_id(), next);
    }
    // Past the cap: refused, and the replaced placements are back.
    small.begin_paint(&small_name, brush(4.0, 0.5)).unwrap();
    small.dab(&terrain, Landmark::Meadow.position()).unwrap();
    small.end_stroke();
    let small_digest = small.painter().digest();
    let small_next = small.painter().next_id();
    let err = small
        .fill(
            &terrain,
            &fill_request(&small_name, FillRegion::Whole, None),
            &mut no_progress(),
        )
        .unwrap_err();
    assert!(err.to_string().contains("placement cap of 100"), "{err}");
    assert_eq!(small.painter().digest(), small_digest);
    assert_eq!(small.painter().next_id(), small_next);
    // Cancelled while planning: nothing either.
    let mut cancel = |done: usize, _: usize| {
        if done > 32 {
            std::ops::ControlFlow::Break(())
        } else {
            std::ops::ControlFlow::Continue(())
        }
    };
    let err = editor
        .fill(
            &terrain,
            &fill_request(&name, FillRegion::Whole, Some(0)),
            &mut cancel,
        )
        .unwrap_err();
    assert!(err.to_string().contains("cancelled"), "{err}");
    assert_eq!(editor.painter().digest(), digest);
}

#[test]
fn a_fill_under_a_brush_mask_stays_under_it() {
    let terrain = default_world();
    let mut editor = Editor::new(&session()).unwrap();
    let name = editor.use_preset("test", preset()).unwrap();
    let dabs = vec![(-30.0, 0.0), (-20.0, 2.0), (-10.0, 4.0)];
    let region = FillRegion::Brush {
        radius: 6.0,
        dabs: dabs.clone(),
    };
    let applied = editor
        .fill(
            &terrain,
            &fill_request(&name, region, None),
            &mut no_progress(),
        )
        .unwrap();
    assert!(!applied.edit.added.is_empty());
    for p in &applied.edit.added {
        let at = Vec2::new(p.position.x, p.position.z);
        assert!(dabs
            .iter()
            .any(|&(x, z)| at.distance(Vec2::new(x, z)) <= 6.0 + 1e-4));
    }
}

/// What a placement is, ids aside: a tile made alone numbers its placements from the
/// id it is given, the whole fill from where the session stood.
fn identity(p: &Placement) -> (String, [u32; 3], [u32; 4], u32) {
    (
        p.prop.to_string(),
        p.position.to_array().map(f32::to_bits),
        p.rotation.to_array().map(f32::to_bits),
        p.scale.to_bits(),
    )
}

/// Every tile of a fill made on its own (its earlier neighbours made first, and what
/// stood before the fill), on threads in any order: together they are exactly the whole
/// fill's placements, strokes made before it included.
#[test]
fn tiles_made_alone_are_the_whole_fill_bit_for_bit() {
    use rayon::prelude::*;

    let terrain = default_world();
    let mut editor = Editor::new(&session()).unwrap();
    let name = editor.use_preset("test", preset()).unwrap();
    editor.begin_paint(&name, brush(20.0, 0.5)).unwrap();
    editor.dab(&terrain, Landmark::Meadow.position()).unwrap();
    editor.end_stroke();
    let job = editor
        .fill_job(&fill_request(&name, FillRegion::Whole, None))
        .unwrap();
    let source = TileSource::new(job.clone(), &terrain, editor.painter().placements());
    let grid = source.grid();
    assert_eq!(grid.side_cells as f32 * terrain.spacing(), MIN_TILE_M);
    let before = editor.painter().len();
    editor
        .commit_fill(&job, &job.plan(&terrain, &mut no_progress()).unwrap())
        .unwrap();
    let mut whole: Vec<_> = live(&editor)[before..].iter().map(identity).collect();

    let tiles_across = (terrain.columns() - 1).div_ceil(grid.side_cells);
    let tiles: Vec<(usize, usize)> = (0..tiles_across)
        .flat_map(|z| (0..tiles_across).map(move |x| (x, z)))
        .collect();
    let made: Vec<Vec<Placement>> = tiles
        .par_iter()
        .rev()
        .map(|&tile| source.make(&terrain, tile, 1 << 40).unwrap())
        .collect();
    let mut streamed: Vec<_> = made.iter().flatten().map(identity).collect();
    assert!(whole.len() > 10_000, "{} placements", whole.len());
    assert_eq!(streamed.len(), whole.len());
    streamed.sort();
    whole.sort();
    assert!(
        streamed == whole,
        "the tiles' placements differ from the fill's"
    );

    // A tile made again is the same.
    let meadow = source.tile_at(Landmark::Meadow.position().x, Landmark::Meadow.position().y);
    let again = source.make(&terrain, meadow, 7).unwrap();
    let index = tiles.len() - 1 - tiles.iter().position(|&t| t == meadow).unwrap();
    assert_eq!(
        again.iter().map(identity).collect::<Vec<_>>(),
        made[index].iter().map(identity).collect::<Vec<_>>()
    );
    // Named by candidate from the id given, in acceptance order.
    assert!(again[0].id.0 >= 7);
    assert!(again.windows(2).all(|pair| pair[0].id < pair[1].id));

    // Made together, sharing their earlier neighbours' making: the same, ids included.
    let block: Vec<(usize, usize)> = tiles
        .iter()
        .copied()
        .filter(|&(x, z)| x < 4 && z < 3)
        .collect();
    let first_id = |(x, z): (usize, usize)| ((z * 100 + x) as u64) << 24;
    let together = source.make_each(&terrain, &block, first_id).unwrap();
    assert_eq!(together.len(), block.len());
    for (&tile, placements) in block.iter().zip(&together) {
        let alone = source.make(&terrain, tile, first_id(tile)).unwrap();
        let named =
            |made: &[Placement]| -> Vec<_> { made.iter().map(|p| (p.id, identity(p))).collect() };
        assert!(named(placements) == named(&alone), "tile {tile:?} differs");
    }
}

/// Accepted in rows, as journals from before tiles were, the same fill makes other
/// placements: the order is part of what a journal records.
#[test]
fn a_fill_journalled_without_an_order_replays_in_rows() {
    let terrain = default_world();
    let (tiled, name) = filled_editor(&terrain);
    let mut journal = tiled.session().clone();
    assert!(journal.to_ron().contains("order: Tiles"));
    let Some(Event::Fill { order, .. }) = journal.events.last_mut() else {
        panic!("the fill is the last event");
    };
    assert_eq!(*order, FillOrder::Tiles);
    *order = FillOrder::Rows;
    let text = journal.to_ron();
    assert!(!text.contains("order"), "rows are written by omission");
    let (rows, _) = Editor::replay(&Session::parse(&text, "old.ron").unwrap(), &terrain).unwrap();
    let mut rows_request = fill_request(&name, FillRegion::Whole, None);
    rows_request.order = FillOrder::Rows;
    let mut direct = Editor::new(&session()).unwrap();
    direct.use_preset("test", preset()).unwrap();
    direct
        .fill(&terrain, &rows_request, &mut no_progress())
        .unwrap();
    assert_eq!(rows.painter().digest(), direct.painter().digest());
    assert_ne!(rows.painter().digest(), tiled.painter().digest());
}

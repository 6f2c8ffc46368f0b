//! Streamed fills in a world: erases, strokes, undo and redo over them (painted live
//! in a world that streams, the journal replays stored to the same placements the
//! streamed world shows), walks over their whole terrain, and the session's cap.

use std::collections::BTreeSet;

use glam::{Vec2, Vec3};
use sylva_lod::LodConfig;
use sylva_scatter::{
    Editor, FillOrder, FillRegion, FillRequest, Placement, Session, DEFAULT_PLACEMENT_CAP,
};
use sylva_terrain::{default_world, Landmark};

use super::{load_all, preset, session};
use crate::{FarPlacements, World};

type Key = (String, [u32; 3], [u32; 4]);

fn key(p: &Placement) -> Key {
    (
        p.prop.to_string(),
        p.position.to_array().map(f32::to_bits),
        p.rotation.to_array().map(f32::to_bits),
    )
}

/// A stroke on the meadow, then the whole world filled streamed.
fn journal() -> Session {
    journal_streaming(&[FillRegion::Whole]).unwrap()
}

/// A stroke on the meadow, then a streamed fill over each of `regions`.
fn journal_streaming(regions: &[FillRegion]) -> Result<Session, sylva_scatter::SessionError> {
    journal_capped(regions, DEFAULT_PLACEMENT_CAP)
}

fn journal_capped(
    regions: &[FillRegion],
    cap: usize,
) -> Result<Session, sylva_scatter::SessionError> {
    let terrain = default_world();
    let mut editor = Editor::new(&session(cap)).unwrap();
    let name = editor.use_preset("t", preset()).unwrap();
    let brush = sylva_scatter::BrushSettings {
        radius: 10.0,
        density_per_m2: 0.5,
    };
    editor.begin_paint(&name, brush).unwrap();
    editor.dab(&terrain, Landmark::Meadow.position()).unwrap();
    editor.end_stroke();
    for region in regions {
        let request = FillRequest {
            preset: name.clone(),
            region: region.clone(),
            density: None,
            order: FillOrder::Tiles,
            stream: true,
            replaces: None,
        };
        editor.record_streamed_fill(&terrain, &request)?;
    }
    Ok(editor.session().clone())
}

/// `journal` replayed streaming round `eye`, its tiles all made.
fn streamed(journal: &Session, eye: Vec2) -> World {
    let (mut world, _) =
        World::replay_streamed(default_world(), journal, &LodConfig::default()).unwrap();
    load_all(&mut world);
    for (prop, radius) in [("tree/a", 0.3), ("tree/b", 0.3), ("grass/a", 0.1)] {
        world
            .describe_prop_lod(prop, vec![0.0, 0.002, 0.01], radius)
            .unwrap();
    }
    world
        .start_streams(0.2, 2, FarPlacements::Registry)
        .unwrap();
    settle(&mut world, eye);
    world
}

fn settle(world: &mut World, eye: Vec2) {
    let camera = Vec3::new(eye.x, 20.0, eye.y);
    let started = std::time::Instant::now();
    while !world.update_streams(camera).unwrap().settled() {
        assert!(started.elapsed().as_secs() < 60, "tiles never came");
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
}

/// What `world` shows: its stored placements and its streamed fills' shown ones.
fn shown(world: &World) -> BTreeSet<Key> {
    (world.editor().painter().placements())
        .chain(world.streamed_placements())
        .map(key)
        .collect()
}

/// What `streamed` shows round `eye` is what `journal` replayed stored holds there:
/// every stored placement within its family's reach shows, and nothing shows that
/// is not stored.
fn assert_shows_what_is_stored(streamed: &World, journal: &Session, eye: Vec2) {
    let (stored, _) = World::replay(default_world(), journal, &LodConfig::default()).unwrap();
    let stored: BTreeSet<Key> = stored.editor().painter().placements().map(key).collect();
    let shown = shown(streamed);
    let reach = streamed.stream_reach();
    let in_reach = |(prop, position, _): &Key| {
        let family = if prop.starts_with("tree") {
            "tree"
        } else {
            "ground"
        };
        let reach = reach.iter().find(|r| &*r.family == family).unwrap();
        let at = Vec2::new(f32::from_bits(position[0]), f32::from_bits(position[2]));
        at.distance(eye) <= reach.reach_m
    };
    let extra: Vec<&Key> = shown.difference(&stored).collect();
    assert!(
        extra.is_empty(),
        "{} shown, not stored: {:?}",
        extra.len(),
        extra.first()
    );
    let missing: Vec<&Key> = stored.difference(&shown).filter(|k| in_reach(k)).collect();
    assert!(
        missing.is_empty(),
        "{} stored in reach, not shown: {:?}",
        missing.len(),
        missing.first()
    );
}

fn erase(world: &mut World, at: Vec2, radius: f32) {
    world.begin_erase(radius, None).unwrap();
    world.dab(at).unwrap();
    world.dab(at + Vec2::new(radius, 0.0)).unwrap();
    world.end_stroke();
}

#[test]
fn erases_undone_and_redone_over_a_streamed_fill_replay_stored_to_what_streamed_shows() {
    let journal = journal();
    let eye = Landmark::Meadow.position() + Vec2::new(40.0, 0.0);
    let mut world = streamed(&journal, eye);
    let full = shown(&world);
    let (a, b) = (eye + Vec2::new(-20.0, 30.0), eye + Vec2::new(25.0, -35.0));
    let under = |at: Vec2, radius: f32| {
        (full.iter())
            .filter(|(_, position, _)| {
                let p = Vec2::new(f32::from_bits(position[0]), f32::from_bits(position[2]));
                p.distance(at) <= radius || p.distance(at + Vec2::new(radius, 0.0)) <= radius
            })
            .count()
    };
    assert!(under(a, 8.0) > 10 && under(b, 8.0) > 10);

    erase(&mut world, a, 8.0);
    erase(&mut world, b, 8.0);
    assert_eq!(
        full.len() - shown(&world).len(),
        under(a, 8.0) + under(b, 8.0)
    );
    world.undo().unwrap();
    assert_eq!(full.len() - shown(&world).len(), under(a, 8.0), "b undone");
    world.redo().unwrap();
    world.undo().unwrap();
    world.undo().unwrap();
    assert_eq!(shown(&world), full, "both undone");
    // The streamed fill itself: undone, its tiles leave; redone, they stream again.
    world.undo().unwrap();
    assert_eq!(world.streamed_placements().count(), 0);
    assert_eq!(
        world.registry().len() as usize,
        world.editor().painter().len()
    );
    world.redo().unwrap();
    settle(&mut world, eye);
    assert_eq!(shown(&world), full, "the fill redone");
    world.redo().unwrap();
    assert_eq!(full.len() - shown(&world).len(), under(a, 8.0), "a redone");
    // An erase that takes nothing is no undo step, stored or streamed: the undo
    // after it takes back `a`.
    let nowhere = Landmark::Lake.position();
    assert_eq!(under(nowhere, 0.01), 0);
    erase(&mut world, nowhere, 0.01);
    world.undo().unwrap();
    assert_eq!(shown(&world), full, "a undone past the empty erase");
    world.redo().unwrap();

    // A stroke over the streamed trees and grass keeps its spacing from them, as it
    // does from the fill stored; its placements are stored.
    let stored_before = world.editor().painter().len();
    let brush = sylva_scatter::BrushSettings {
        radius: 10.0,
        density_per_m2: 0.5,
    };
    let preset = world
        .editor()
        .session()
        .presets
        .keys()
        .next()
        .unwrap()
        .clone();
    world.begin_paint(&preset, brush).unwrap();
    for step in 0..4 {
        world.dab(eye + Vec2::new(6.0 * step as f32, 12.0)).unwrap();
    }
    world.end_stroke();
    let painted_over = world.editor().painter().len() - stored_before;
    assert!(painted_over > 0, "the stroke placed nothing");

    let painted = world.editor().session().clone();
    assert_shows_what_is_stored(&world, &painted, eye);
    let replayed = streamed(&painted, eye);
    assert_eq!(shown(&replayed), shown(&world));
    assert_shows_what_is_stored(&replayed, &painted, eye);
}

#[test]
fn a_streamed_fill_near_another_of_the_same_families_is_refused_and_one_apart_is_not() {
    let disc = |x: f32, radius: f32| FillRegion::Brush {
        radius,
        dabs: vec![(x, 0.0)],
    };
    let error = journal_streaming(&[disc(-100.0, 60.0), disc(0.0, 60.0)]).unwrap_err();
    let message = error.to_string();
    assert!(
        message.contains("events[1]")
            && message.contains("family `")
            && message.contains("stored fill"),
        "{message}"
    );
    // Apart by more than the widest spacing (4 m): both stream.
    let apart = journal_streaming(&[disc(-100.0, 40.0), disc(0.0, 40.0)]).unwrap();
    let (world, _) =
        World::replay_streamed(default_world(), &apart, &LodConfig::default()).unwrap();
    assert_eq!(world.streamed_fills(), 2);
}

#[test]
fn a_walk_over_a_streamed_fill_makes_what_the_fill_stored_holds() {
    let (mut world, _) =
        World::replay_streamed(default_world(), &journal(), &LodConfig::default()).unwrap();
    erase(
        &mut world,
        Landmark::Meadow.position() + Vec2::new(40.0, 0.0),
        8.0,
    );
    let painted = world.editor().session().clone();
    let (stored, _) = World::replay(default_world(), &painted, &LodConfig::default()).unwrap();
    let stroke: BTreeSet<Key> = world.editor().painter().placements().map(key).collect();
    let fill: BTreeSet<Key> = (stored.editor().painter().placements())
        .map(key)
        .filter(|k| !stroke.contains(k))
        .collect();
    assert!(fill.len() > 10_000, "{}", fill.len());
    // The default world is one square of 16² tiles; squares of 5 cut it along tiles
    // whose earlier neighbours lie in other squares, and at its edge.
    for square in [crate::walk::WALK_SQUARE_TILES, 5] {
        let mut tiles = BTreeSet::new();
        let mut walked = BTreeSet::new();
        let walk = world.walk_streamed_fill(0).unwrap();
        for tile in walk.with_square_tiles(square) {
            let (tile, placements) = tile.unwrap();
            assert!(tiles.insert(tile), "{tile:?} twice");
            for p in &placements {
                assert!(walked.insert(key(p)), "{p:?} twice");
            }
        }
        assert_eq!(tiles.len(), 16 * 16);
        assert!(
            walked == fill,
            "squares of {square}: {} walked, {} stored",
            walked.len(),
            fill.len()
        );
    }
    world.undo().unwrap();
    world.undo().unwrap();
    assert!(world.walk_streamed_fill(0).is_none(), "the fill undone");
}

#[test]
fn the_cap_bounds_what_a_streaming_world_holds_in_its_registry() {
    let cap = 3_000;
    let journal = journal_capped(&[FillRegion::Whole], cap).unwrap();
    let eye = Landmark::Meadow.position();
    let mut world = streamed(&journal, eye);
    let stats = world.update_streams(Vec3::new(eye.x, 20.0, eye.y)).unwrap();
    let held = world.registry().len() as usize;
    // A tile is shown whole, so the last one may go a little past the cap.
    assert!((cap..cap + 1_000).contains(&held), "{held} held");
    assert!(stats.capped && stats.late_tiles > 0, "{stats:?}");
}

/// The fades, in every instance of the registry's buckets, that are under way.
fn fades_under_way(world: &World) -> usize {
    (world.registry().buckets())
        .flat_map(|(_, bucket)| bucket.transforms())
        .filter(|m| m.x_axis.w > 0.0 && m.x_axis.w < 1.0)
        .count()
}

#[test]
fn late_tiles_fade_in_over_the_ticks_after_they_arrive_and_tiles_in_time_do_not() {
    let eye = Landmark::Meadow.position();
    // Nothing was made when the camera arrived: every tile in reach is late.
    let mut world = streamed(&journal(), eye);
    let late = world.fading_in();
    assert!(late > 1_000, "{late} fading in");
    assert!(fades_under_way(&world) >= late);
    let camera = Vec3::new(eye.x, 20.0, eye.y);
    world.tick_lod(camera, 10.0);
    assert!(
        fades_under_way(&world) >= late,
        "a fade begins at its first tick"
    );
    world.tick_lod(camera, 10.2);
    assert_eq!(world.fading_in(), late, "half way");
    world.tick_lod(camera, 10.0 + crate::FADE_IN_S);
    assert_eq!((world.fading_in(), fades_under_way(&world)), (0, 0));

    // A step shorter than the passes' lead: what comes into reach was shown ahead.
    let step = eye + Vec2::new(3.0, 0.0);
    settle(&mut world, step);
    assert_eq!(world.fading_in(), 0);
    // A jump: what it lands among arrives late; a still ends the fades at once.
    let jump = eye + Vec2::new(150.0, 0.0);
    settle(&mut world, jump);
    assert!(world.fading_in() > 0);
    world.finish_fades();
    assert_eq!((world.fading_in(), fades_under_way(&world)), (0, 0));
}

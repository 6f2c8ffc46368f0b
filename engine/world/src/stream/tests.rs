use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};

use sylva_catalog::{CatalogFile, CatalogSnapshot};
use sylva_scatter::{
    BrushSettings, Editor, FillOrder, FillRegion, FillRequest, Preset, Session, TerrainSource,
    DEFAULT_PLACEMENT_CAP,
};
use sylva_terrain::{default_world, Landmark};

use super::*;

const TREE_REACH_M: f32 = 150.0;
const GROUND_REACH_M: f32 = 50.0;
const HYSTERESIS: f32 = 0.2;

fn session() -> Session {
    let file = CatalogFile::from_ron(
        r#"(categories: { "tree": (family: "tree"), "grass": (family: "ground") })"#,
        "catalog.ron",
    )
    .unwrap();
    let snapshot = CatalogSnapshot::new(file, ["tree/a.glb", "tree/b.glb", "grass/a.glb"]);
    Session::new(
        3,
        DEFAULT_PLACEMENT_CAP,
        TerrainSource::DefaultWorld,
        snapshot,
    )
}

fn preset() -> Preset {
    Preset::parse(
        r#"(name: "T", brush: (radius: 10.0, density_per_m2: 0.5), picks: [
            (category: "tree", weight: 1.0, slope_max: 0.2, min_spacing: 4.0),
            (category: "grass", weight: 3.0, min_spacing: 0.5),
        ])"#,
        "t.ron",
    )
    .unwrap()
}

/// What a placement is: its id, prop and exact numbers.
type Identity = (u64, String, [u32; 3], [u32; 4], u32);

fn identity(p: &Placement) -> Identity {
    (
        p.id.0,
        p.prop.to_string(),
        p.position.to_array().map(f32::to_bits),
        p.rotation.to_array().map(f32::to_bits),
        p.scale.to_bits(),
    )
}

/// A stroke at the meadow, then the whole default world filled: the fill's stored
/// placements, and the source its tiles stream from (what stood before the fill).
fn stored_and_source() -> (Vec<Placement>, Arc<TileSource>, Arc<Terrain>) {
    let terrain = Arc::new(default_world());
    let mut editor = Editor::new(&session()).unwrap();
    let name = editor.use_preset("t", preset()).unwrap();
    let brush = BrushSettings {
        radius: 15.0,
        density_per_m2: 0.5,
    };
    editor.begin_paint(&name, brush).unwrap();
    editor.dab(&terrain, Landmark::Meadow.position()).unwrap();
    editor.end_stroke();
    let request = FillRequest {
        preset: name,
        region: FillRegion::Whole,
        density: None,
        order: FillOrder::Tiles,
        stream: false,
        replaces: None,
    };
    let job = editor.fill_job(&request).unwrap();
    let source = Arc::new(TileSource::new(
        job.clone(),
        &terrain,
        editor.painter().placements(),
    ));
    let plan = job
        .plan(&terrain, &mut |_, _| std::ops::ControlFlow::Continue(()))
        .unwrap();
    let filled = editor.commit_fill(&job, &plan).unwrap().edit.added;
    (filled, source, terrain)
}

fn streamer(source: &Arc<TileSource>, terrain: &Arc<Terrain>, workers: usize) -> TileStreamer {
    streamer_reaching(source, terrain, workers, TREE_REACH_M)
}

fn streamer_reaching(
    source: &Arc<TileSource>,
    terrain: &Arc<Terrain>,
    workers: usize,
    tree_reach_m: f32,
) -> TileStreamer {
    let settings = StreamSettings {
        reach_m: vec![
            ("tree".into(), tree_reach_m),
            ("ground".into(), GROUND_REACH_M),
        ],
        near_m: Vec::new(),
        hysteresis: HYSTERESIS,
        workers,
    };
    TileStreamer::new(Arc::clone(source), Arc::clone(terrain), settings, 0).unwrap()
}

/// The placements a registry mirroring `changes` holds.
fn mirror(shown: &mut BTreeMap<u64, Identity>, changes: StreamChanges) {
    for id in changes.removed {
        assert!(
            shown.remove(&id.0).is_some(),
            "removed {id:?}, which was not shown"
        );
    }
    for p in changes.added {
        assert!(
            shown.insert(p.id.0, identity(&p)).is_none(),
            "added {:?} twice",
            p.id
        );
    }
}

/// Updates from `camera` until nothing is late or waiting, mirroring every change.
fn settle(streamer: &mut TileStreamer, camera: Vec3, shown: &mut BTreeMap<u64, Identity>) {
    let started = Instant::now();
    loop {
        mirror(shown, streamer.update(camera));
        if streamer.stats().settled() {
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "tiles never came"
        );
        std::thread::sleep(Duration::from_millis(2));
    }
}

fn ground_distance(p: &Placement, camera: Vec3) -> f32 {
    Vec2::new(p.position.x - camera.x, p.position.z - camera.z).length()
}

/// Streamed, the fill shows around the camera exactly the placements it stores there,
/// each family out to its reach, and nothing the stored fill does not have.
#[test]
fn streamed_tiles_show_the_stored_fills_placements_within_each_familys_reach() {
    let (stored, source, terrain) = stored_and_source();
    let mut streamer = streamer(&source, &terrain, 2);
    let camera = Vec3::new(
        Landmark::Meadow.position().x,
        30.0,
        Landmark::Meadow.position().y,
    );
    let mut shown = BTreeMap::new();
    settle(&mut streamer, camera, &mut shown);
    assert!(streamer.error().is_none());

    let made: BTreeMap<_, _> = shown
        .values()
        .map(|(_, prop, position, rotation, scale)| {
            ((prop.clone(), *position, *rotation, *scale), ())
        })
        .collect();
    let key = |p: &Placement| {
        let (_, prop, position, rotation, scale) = identity(p);
        (prop, position, rotation, scale)
    };
    for p in &stored {
        let reach = if &*p.family == "tree" {
            TREE_REACH_M
        } else {
            GROUND_REACH_M
        };
        if ground_distance(p, camera) <= reach {
            assert!(
                made.contains_key(&key(p)),
                "{p:?} is stored but not streamed"
            );
        }
    }
    let stored_keys: std::collections::BTreeSet<_> = stored.iter().map(key).collect();
    assert!(
        made.keys().all(|k| stored_keys.contains(k)),
        "a streamed placement is not stored"
    );
    let trees = shown
        .values()
        .filter(|(_, prop, ..)| prop.starts_with("tree"))
        .count();
    let grass = shown.len() - trees;
    assert!(trees > 50 && grass > 50, "{trees} trees, {grass} grass");
    assert!(shown.keys().all(|&id| streamer.owns(PlacementId(id))));
}

/// A camera that leaves drops its tiles (and cancels what it asked for on the way);
/// coming back makes them again, the same placements under the same ids.
#[test]
fn tiles_left_behind_are_dropped_and_come_back_the_same() {
    let (_, source, terrain) = stored_and_source();
    let mut streamer = streamer(&source, &terrain, 1);
    let here = Vec3::new(-150.0, 20.0, -120.0);
    let there = Vec3::new(180.0, 20.0, 160.0);
    let mut shown = BTreeMap::new();
    settle(&mut streamer, here, &mut shown);
    let first = shown.clone();
    assert!(first.len() > 100, "{}", first.len());

    // Ask for the far side and leave at once: most of it is cancelled, not made.
    mirror(&mut shown, streamer.update(there));
    mirror(&mut shown, streamer.update(here));
    settle(&mut streamer, there, &mut shown);
    let stats = streamer.stats();
    assert!(
        stats.tiles_dropped > 0 && stats.tiles_cancelled > 0,
        "{stats:?}"
    );
    assert!(
        shown.keys().all(|id| !first.contains_key(id)),
        "nothing of here is left"
    );

    settle(&mut streamer, here, &mut shown);
    assert!(
        shown == first,
        "{} placements came back, {} were there",
        shown.len(),
        first.len()
    );
}

/// Every family passes at the first update; from then on an update passes over one
/// family, the most overdue, and the others wait for the updates that follow.
#[test]
fn an_update_passes_over_one_family_and_the_others_wait() {
    let (_, source, terrain) = stored_and_source();
    let mut streamer = streamer(&source, &terrain, 1);
    let here = Vec3::new(0.0, 25.0, 0.0);
    streamer.update(here);
    assert_eq!(streamer.stats().passes_due, 0, "the first passes at once");
    let there = here + Vec3::new(200.0, 0.0, 0.0);
    streamer.update(there);
    assert_eq!(streamer.stats().passes_due, 1);
    assert!(!streamer.stats().settled());
    streamer.update(there);
    assert_eq!(streamer.stats().passes_due, 0);
}

/// Over a flight across the whole world the tiles held stay those around the camera:
/// bounded by the reach, not by the world.
#[test]
fn a_flight_holds_only_the_tiles_in_reach() {
    let (_, source, terrain) = stored_and_source();
    let tree_reach_m = 60.0;
    let mut streamer = streamer_reaching(&source, &terrain, 2, tree_reach_m);
    let tile_m = source.grid().side_cells as f32 * terrain.spacing();
    // Tiles whose nearest point is within the farthest keep distance.
    let keep =
        tree_reach_m + band_m(tree_reach_m, HYSTERESIS, tile_m) + tile_m * std::f32::consts::SQRT_2;
    let most = (std::f32::consts::PI * keep * keep / (tile_m * tile_m)).ceil() as u32;
    let world_tiles = ((terrain.columns() - 1).div_ceil(source.grid().side_cells)).pow(2) as u32;
    assert!(
        most < world_tiles / 2,
        "{most} of {world_tiles}: the test needs a larger world"
    );
    let mut shown = BTreeMap::new();
    let mut peak = 0;
    for step in 0..=40 {
        let t = step as f32 / 40.0;
        let camera = Vec3::new(-240.0 + 480.0 * t, 25.0, -200.0 + 400.0 * t);
        settle(&mut streamer, camera, &mut shown);
        peak = peak.max(streamer.stats().resident_tiles);
        for p in shown.values() {
            let (_, _, [x, _, z], ..) = p;
            let at = Vec2::new(f32::from_bits(*x), f32::from_bits(*z));
            let distance = at.distance(Vec2::new(camera.x, camera.z));
            assert!(distance <= keep, "shown {distance} m away");
        }
    }
    assert!(
        peak <= most,
        "{peak} tiles held, at most {most} within reach"
    );
    let stats = streamer.stats();
    assert!(stats.tiles_dropped > 0 && stats.tiles_made > u64::from(peak));
}

/// A camera moving a few metres a frame, with workers that keep up, never finds a tile
/// within reach unshown: passes queue tiles early enough for their shows to drain.
#[test]
fn a_camera_whose_workers_keep_up_never_meets_a_late_tile() {
    let (_, source, terrain) = stored_and_source();
    let mut streamer = streamer(&source, &terrain, 2);
    let mut shown = BTreeMap::new();
    let start = Vec3::new(-230.0, 25.0, -180.0);
    settle(&mut streamer, start, &mut shown);
    for frame in 1..=150 {
        let camera = start + Vec3::new(3.1, 0.0, 2.3) * frame as f32;
        mirror(&mut shown, streamer.update(camera));
        let late = streamer.stats().late_tiles;
        assert_eq!(late, 0, "{late} tiles late at frame {frame}");
        // The workers finish what was asked before the camera moves on.
        let started = Instant::now();
        while streamer.stats().waiting_tiles > 0 {
            assert!(
                started.elapsed() < Duration::from_secs(60),
                "tiles never came"
            );
            std::thread::sleep(Duration::from_millis(1));
            mirror(&mut shown, streamer.update(camera));
        }
    }
    assert!(streamer.stats().tiles_made > 40, "{:?}", streamer.stats());
}

/// An erase over streamed tiles takes what the same erase takes from the stored fill,
/// and the camera gone and back, the erased placements stay erased.
#[test]
fn an_erase_over_streamed_tiles_survives_the_camera_leaving_and_coming_back() {
    let (stored, source, terrain) = stored_and_source();
    let mut streamer = streamer(&source, &terrain, 2);
    let here = Vec3::new(-150.0, 20.0, -120.0);
    let there = Vec3::new(180.0, 20.0, 160.0);
    let mut shown = BTreeMap::new();
    settle(&mut streamer, here, &mut shown);
    let before = shown.clone();
    // Across a tile border, only the trees.
    let erasure = Erasure {
        center: Vec2::new(here.x + 10.0, here.z - 5.0),
        radius: 40.0,
        categories: Some(vec!["tree".into()]),
        stroke: 0,
    };
    let taken: Vec<&Placement> = stored.iter().filter(|p| erasure.takes(p)).collect();
    assert!(taken.len() > 5, "{} trees under the erase", taken.len());
    mirror(&mut shown, streamer.erase(erasure.clone()).unwrap());
    assert_eq!(before.len() - shown.len(), taken.len());
    let key = |(_, prop, position, rotation, scale): &Identity| {
        (prop.clone(), *position, *rotation, *scale)
    };
    let left: std::collections::BTreeSet<_> = shown.values().map(key).collect();
    assert!(taken.iter().all(|p| !left.contains(&key(&identity(p)))));

    settle(&mut streamer, there, &mut shown);
    settle(&mut streamer, here, &mut shown);
    assert!(streamer.stats().tiles_dropped > 0);
    // Within reach: beyond it, what shows depends on how far the workers got.
    let in_reach = |(prop, position, ..): &(String, [u32; 3], [u32; 4], u32)| {
        let reach = if prop.starts_with("tree") {
            TREE_REACH_M
        } else {
            GROUND_REACH_M
        };
        let offset = Vec2::new(
            f32::from_bits(position[0]) - here.x,
            f32::from_bits(position[2]) - here.z,
        );
        offset.length() <= reach
    };
    let left: std::collections::BTreeSet<_> = left.into_iter().filter(in_reach).collect();
    let back: std::collections::BTreeSet<_> = shown.values().map(key).filter(in_reach).collect();
    assert!(
        back == left,
        "the erase stays: {} placements came back, {} were left",
        back.len(),
        left.len()
    );

    // Undone, what it took shows again; redone, it goes again.
    let all: BTreeSet<_> = before.values().map(key).filter(in_reach).collect();
    let standing = |shown: &BTreeMap<u64, Identity>| -> BTreeSet<_> {
        shown.values().map(key).filter(in_reach).collect()
    };
    mirror(&mut shown, streamer.set_standing(0, false));
    assert!(
        standing(&shown) == all,
        "undone, the erase leaves nothing out"
    );
    assert_eq!(streamer.set_standing(0, false), StreamChanges::default());
    mirror(&mut shown, streamer.set_standing(0, true));
    assert!(standing(&shown) == left, "redone, the erase takes the same");

    let bad = Erasure {
        radius: f32::NAN,
        ..erasure
    };
    assert!(matches!(
        streamer.erase(bad),
        Err(StreamError::Erase { .. })
    ));
}

/// Tiles arriving together show over several updates, a bounded number of placements
/// each, and all of them in the end.
#[test]
fn arrivals_show_a_bounded_number_of_placements_an_update() {
    let (stored, source, terrain) = stored_and_source();
    let settings = StreamSettings {
        reach_m: vec![("tree".into(), 5_000.0), ("ground".into(), 5_000.0)],
        near_m: Vec::new(),
        hysteresis: HYSTERESIS,
        workers: 2,
    };
    let mut streamer = TileStreamer::new(source, terrain, settings, 0).unwrap();
    let camera = Vec3::new(0.0, 25.0, 0.0);
    let mut shown = BTreeMap::new();
    let mut largest = 0;
    let started = Instant::now();
    loop {
        // Let the workers finish many tiles between two updates.
        std::thread::sleep(Duration::from_millis(100));
        let changes = streamer.update(camera);
        largest = largest.max(changes.added.len());
        mirror(&mut shown, changes);
        if streamer.stats().settled() {
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "tiles never came"
        );
    }
    assert!(
        stored.len() > 4 * MIRRORED_PER_UPDATE,
        "{}: the test needs more",
        stored.len()
    );
    assert!(
        largest < 2 * MIRRORED_PER_UPDATE,
        "{largest} shown in one update"
    );
    assert_eq!(shown.len(), stored.len());
}

/// With a near distance, a family's placements past it are far: left in their tiles
/// for a renderer's blocks, not mirrored one by one. Over a flight each shown placement
/// is near or far, never both, turning far past the far radius and near again within
/// the near one, and near and far together are every placement shown.
#[test]
fn far_placements_lie_past_the_near_distance_and_turn_near_as_the_camera_comes() {
    let (_, source, terrain) = stored_and_source();
    let near_m = 40.0;
    let settings = StreamSettings {
        reach_m: vec![
            ("tree".into(), TREE_REACH_M),
            ("ground".into(), GROUND_REACH_M),
        ],
        near_m: vec![near_m],
        hysteresis: HYSTERESIS,
        workers: 2,
    };
    let mut streamer = TileStreamer::new(source, terrain, settings, 0).unwrap();
    let tile_m = streamer.tile_m;
    let mut near = BTreeMap::new();
    let mut far: BTreeMap<(usize, usize), Vec<Identity>> = BTreeMap::new();
    let (mut were_near, mut were_far) = (BTreeSet::new(), BTreeSet::new());
    let (mut turned_far, mut turned_near) = (0, 0);
    for step in 0..=20 {
        let t = step as f32 / 20.0;
        let camera = Vec3::new(-200.0 + 400.0 * t, 25.0, -150.0 + 300.0 * t);
        let started = Instant::now();
        loop {
            let changes = streamer.update(camera);
            for &tile in &changes.far_changed {
                far.insert(tile, streamer.far_placements(tile).map(identity).collect());
            }
            mirror(&mut near, changes);
            if streamer.stats().settled() {
                break;
            }
            assert!(
                started.elapsed() < Duration::from_secs(60),
                "tiles never came"
            );
            std::thread::sleep(Duration::from_millis(2));
        }
        far.retain(|_, placements| !placements.is_empty());
        let mut all: BTreeMap<u64, Identity> = near.clone();
        for placements in far.values() {
            for p in placements {
                assert!(all.insert(p.0, p.clone()).is_none(), "{p:?} near and far");
                let at = Vec2::new(f32::from_bits(p.2[0]), f32::from_bits(p.2[2]));
                let distance = at.distance(Vec2::new(camera.x, camera.z));
                assert!(
                    p.1.starts_with("tree") && distance > near_m,
                    "{p:?} far at {distance} m"
                );
            }
        }
        let shown: BTreeMap<u64, Identity> = streamer
            .placements()
            .map(|p| (p.id.0, identity(p)))
            .collect();
        assert!(all == shown, "near and far are not what shows");
        for p in near.values().filter(|p| p.1.starts_with("tree")) {
            let at = Vec2::new(f32::from_bits(p.2[0]), f32::from_bits(p.2[2]));
            let distance = at.distance(Vec2::new(camera.x, camera.z));
            // Turned far past the far radius, at near passes an eighth of the band apart.
            let band = band_m(near_m, HYSTERESIS, tile_m);
            let bound = near_m + band * 1.25 + tile_m * std::f32::consts::SQRT_2;
            assert!(distance <= bound, "near at {distance} m");
        }
        let far_count: usize = far.values().map(Vec::len).sum();
        assert!(far_count > 20, "{far_count} far at step {step}");
        let far_ids: BTreeSet<u64> = far.values().flatten().map(|p| p.0).collect();
        turned_far += far_ids.intersection(&were_near).count();
        turned_near += near.keys().filter(|id| were_far.contains(*id)).count();
        were_near.extend(near.keys().copied());
        were_far.extend(far_ids);
    }
    assert!(
        turned_far > 0 && turned_near > 0,
        "{turned_far} turned far, {turned_near} near"
    );
}

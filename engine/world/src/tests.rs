use glam::{Vec2, Vec3};
use sylva_buckets::{BucketChanges, PropShape};
use sylva_catalog::{CatalogFile, CatalogSnapshot};
use sylva_lod::LodConfig;
use sylva_scatter::{
    BrushSettings, FillOrder, FillRegion, FillRequest, Placement, Preset, Session, TerrainSource,
    DEFAULT_PLACEMENT_CAP,
};
use sylva_terrain::{default_world, Landmark};

use crate::{FarPlacements, World};

fn session(cap: usize) -> Session {
    let file = CatalogFile::from_ron(
        r#"(categories: { "tree": (family: "tree"), "grass": (family: "ground") })"#,
        "catalog.ron",
    )
    .unwrap();
    let snapshot = CatalogSnapshot::new(file, ["tree/a.glb", "tree/b.glb", "grass/a.glb"]);
    Session::new(3, cap, TerrainSource::DefaultWorld, snapshot)
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

fn paint(world: &mut World, name: &str, at: Vec2) {
    world
        .begin_paint(
            name,
            BrushSettings {
                radius: 10.0,
                density_per_m2: 0.5,
            },
        )
        .unwrap();
    world.dab(at).unwrap();
    world.end_stroke();
}

fn load_all(world: &mut World) {
    for (prop, parts) in [("tree/a", 2), ("tree/b", 2), ("grass/a", 1)] {
        world
            .set_prop_shape(
                prop,
                PropShape {
                    parts,
                    lods: 3,
                    impostor: false,
                },
            )
            .unwrap();
    }
}

fn instance_count(world: &World) -> usize {
    world
        .registry()
        .buckets()
        .map(|(_, b)| b.len() as usize)
        .sum()
}

fn expected_instances(world: &World) -> usize {
    let parts = |prop: &str| if prop.starts_with("tree") { 2 } else { 1 };
    world
        .editor()
        .painter()
        .placements()
        .map(|p| parts(&p.prop))
        .sum()
}

/// A world on the default terrain holding at most `cap` placements, with the test
/// preset registered under the returned name.
fn world_with_preset(cap: usize) -> (World, String) {
    let mut world = World::new(default_world(), &session(cap), &LodConfig::default()).unwrap();
    let name = world.use_preset("t", preset()).unwrap();
    (world, name)
}

#[test]
fn every_painted_placement_has_an_instance_per_part() {
    let (mut world, name) = world_with_preset(DEFAULT_PLACEMENT_CAP);
    load_all(&mut world);
    paint(&mut world, &name, Landmark::Meadow.position());
    assert!(world.editor().painter().len() > 50);
    assert_eq!(
        world.registry().len() as usize,
        world.editor().painter().len()
    );
    assert_eq!(instance_count(&world), expected_instances(&world));
}

#[test]
fn erase_undo_redo_and_eviction_keep_the_registry_in_step() {
    let (mut world, name) = world_with_preset(120);
    load_all(&mut world);
    let at = Landmark::Meadow.position();
    paint(&mut world, &name, at);
    paint(&mut world, &name, at + Vec2::new(15.0, 0.0));
    world.begin_erase(5.0, None).unwrap();
    world.dab(at).unwrap();
    world.end_stroke();
    world.undo().unwrap();
    world.undo().unwrap();
    world.redo().unwrap();
    assert_eq!(
        world.registry().len() as usize,
        world.editor().painter().len()
    );
    assert_eq!(instance_count(&world), expected_instances(&world));
    for placement in world.editor().painter().placements() {
        assert!(world.registry().contains(placement.id.0));
    }
}

#[test]
fn placements_painted_before_their_props_load_appear_when_they_do() {
    let (mut world, name) = world_with_preset(DEFAULT_PLACEMENT_CAP);
    paint(&mut world, &name, Landmark::Meadow.position());
    assert_eq!(instance_count(&world), 0);
    assert_eq!(
        world.registry().pending_len() as usize,
        world.editor().painter().len()
    );
    load_all(&mut world);
    assert_eq!(instance_count(&world), expected_instances(&world));
}

#[test]
fn a_replayed_journal_rebuilds_the_same_buckets() {
    let (mut live, name) = world_with_preset(DEFAULT_PLACEMENT_CAP);
    load_all(&mut live);
    for landmark in [Landmark::Meadow, Landmark::Mountains, Landmark::Lake] {
        paint(&mut live, &name, landmark.position());
    }
    let journal = live.editor().session().clone();
    let (mut replayed, _) =
        World::replay(default_world(), &journal, &LodConfig::default()).unwrap();
    load_all(&mut replayed);
    let camera = Vec3::new(0.0, 40.0, 0.0);
    live.tick_lod(camera, 1.0);
    replayed.tick_lod(camera, 1.0);
    let snapshot = |world: &mut World| {
        let mut changes = BucketChanges::default();
        world.registry_mut().drain_changes(&mut changes);
        let mut buckets: Vec<_> = world
            .registry()
            .buckets()
            .map(|(key, b)| {
                (
                    key.part,
                    key.lod,
                    world.registry().prop_name(key.prop).unwrap().to_owned(),
                    b.len(),
                )
            })
            .collect();
        buckets.sort();
        buckets
    };
    assert_eq!(snapshot(&mut live), snapshot(&mut replayed));
}

#[test]
fn fills_are_mirrored_into_the_registry_like_strokes() {
    let (mut world, name) = world_with_preset(DEFAULT_PLACEMENT_CAP);
    load_all(&mut world);
    paint(&mut world, &name, Landmark::Meadow.position());
    let request = FillRequest {
        preset: name.clone(),
        region: FillRegion::Polygon(vec![(-80.0, -80.0), (80.0, -80.0), (0.0, 90.0)]),
        density: Some(0.3),
        order: FillOrder::Tiles,
        stream: false,
        replaces: None,
    };
    let applied = world
        .fill(&request, &mut |_, _| std::ops::ControlFlow::Continue(()))
        .unwrap();
    assert!(applied.edit.added.len() > 1_000);
    assert_eq!(instance_count(&world), expected_instances(&world));
    world.undo().unwrap();
    assert_eq!(instance_count(&world), expected_instances(&world));
    world.redo().unwrap();
    assert_eq!(instance_count(&world), expected_instances(&world));
    let (replayed, _) = World::replay(
        default_world(),
        world.editor().session(),
        &LodConfig::default(),
    )
    .unwrap();
    assert_eq!(
        replayed.editor().painter().digest(),
        world.editor().painter().digest()
    );
    assert_eq!(replayed.registry().len(), world.registry().len());
}

#[test]
fn a_fills_instances_fill_buckets_in_compact_blocks_of_slots() {
    let (mut world, name) = world_with_preset(DEFAULT_PLACEMENT_CAP);
    load_all(&mut world);
    let request = FillRequest {
        preset: name,
        region: FillRegion::Whole,
        density: Some(0.05),
        order: FillOrder::Tiles,
        stream: false,
        replaces: None,
    };
    world
        .fill(&request, &mut |_, _| std::ops::ControlFlow::Continue(()))
        .unwrap();
    // The renderer culls blocks of neighbouring slots, and nodes of many blocks: 64
    // slots span tiles of a few tens of metres, not a row of the 512 m world (in the
    // fill's own row order, almost every 64 slots would span the world: 400–500 m).
    // Sparse props make wider blocks, and one where the Z-order curve jumps a quadrant
    // boundary may still be wide.
    let mut spans = Vec::new();
    for (_, bucket) in world.registry().buckets() {
        for block in bucket.transforms().chunks(64).filter(|b| b.len() == 64) {
            let xz = |m: &glam::Mat4| Vec2::new(m.w_axis.x, m.w_axis.z);
            let (lo, hi) = block.iter().fold(
                (Vec2::splat(f32::MAX), Vec2::splat(f32::MIN)),
                |(lo, hi), m| (lo.min(xz(m)), hi.max(xz(m))),
            );
            spans.push((hi - lo).max_element());
        }
    }
    spans.sort_by(f32::total_cmp);
    assert!(spans.len() > 50, "{} full blocks", spans.len());
    let median = spans[spans.len() / 2];
    let wide = spans.iter().filter(|&&s| s > 300.0).count();
    assert!(median < 120.0, "half the blocks span more than {median} m");
    assert!(
        wide * 10 <= spans.len(),
        "{wide} of {} blocks span more than 300 m",
        spans.len()
    );
}

#[test]
fn z_order_interleaves_the_tile_columns_and_rows() {
    let origin = Vec2::ZERO;
    let at = |x: f32, z: f32| crate::z_order(Vec3::new(x, 0.0, z), origin);
    assert_eq!(
        [at(0.0, 0.0), at(8.0, 0.0), at(0.0, 8.0), at(8.0, 8.0)],
        [0, 1, 2, 3]
    );
    assert_eq!(at(16.0, 0.0), 4);
    assert_eq!(at(-5.0, -5.0), 0, "clamped below the origin");
}

/// A journal with a stroke, a streamed fill and an erase over it: replayed streamed,
/// its registry holds around the camera exactly what the journal made whole holds
/// there (the erase included), each family out to its reach; stored, it holds all.
#[test]
fn a_streamed_world_holds_around_the_camera_what_the_stored_world_holds_there() {
    let terrain = default_world();
    let mut editor = sylva_scatter::Editor::new(&session(DEFAULT_PLACEMENT_CAP)).unwrap();
    let name = editor.use_preset("t", preset()).unwrap();
    let brush = BrushSettings {
        radius: 10.0,
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
        stream: true,
        replaces: None,
    };
    editor.record_streamed_fill(&terrain, &request).unwrap();
    let erased_at = Landmark::Meadow.position() + Vec2::new(30.0, 0.0);
    editor.begin_erase(12.0, None).unwrap();
    editor.dab(&terrain, erased_at).unwrap();
    editor.end_stroke();
    let journal = editor.session().clone();

    let lod = LodConfig::default();
    let (stored, _) = World::replay(default_world(), &journal, &lod).unwrap();
    let (mut streamed, _) = World::replay_streamed(default_world(), &journal, &lod).unwrap();
    assert_eq!(streamed.streamed_fills(), 1);
    assert!(streamed.registry().len() < 200, "only the stroke is stored");
    load_all(&mut streamed);
    // Trees' 1 cm error shows under a pixel past 9 m; a 0.3 m tree is culled past
    // about 560 m, a 0.1 m tuft past about 190 m (the default 1 px).
    for (prop, radius) in [("tree/a", 0.3), ("tree/b", 0.3), ("grass/a", 0.1)] {
        streamed
            .describe_prop_lod(prop, vec![0.0, 0.002, 0.01], radius)
            .unwrap();
    }
    let reach = streamed.stream_reach();
    assert_eq!(reach.len(), 2, "{reach:?}");
    streamed
        .start_streams(0.2, 2, FarPlacements::Blocks)
        .unwrap();
    let camera = Vec3::new(erased_at.x, 20.0, erased_at.y);
    let started = std::time::Instant::now();
    while !streamed.update_streams(camera).unwrap().settled() {
        assert!(started.elapsed().as_secs() < 60, "tiles never came");
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    let stats = streamed.update_streams(camera).unwrap();
    assert!(
        stats.tiles_made > 4 && stats.resident_placements > 1_000,
        "{stats:?}"
    );

    let range_of = |family: &str| reach.iter().find(|r| &*r.family == family).unwrap();
    let reach_of = |family: &str| range_of(family).reach_m;
    let key = |p: &Placement| {
        (
            p.prop.to_string(),
            p.position.to_array().map(f32::to_bits),
            p.rotation.to_array().map(f32::to_bits),
        )
    };
    let shown: std::collections::BTreeSet<_> = streamed.streamed_placements().map(key).collect();
    let stroke = streamed.editor().painter().len();
    // Far placements are left in their tiles, each past its family's near distance;
    // the registry holds the stroke and the near ones.
    let eye = Vec2::new(camera.x, camera.z);
    let mut far = std::collections::BTreeSet::new();
    // A renderer is handed the changed far tiles nearest first, a budget at a time.
    let mut changes = crate::FarChanges::default();
    changes.note(&mut streamed);
    let (mut handed, mut instances) = (Vec::new(), 0);
    let budget = crate::FarBudget {
        instances: 500,
        deadline: std::time::Instant::now() + std::time::Duration::from_secs(600),
        at_least: 0,
    };
    changes.hand_over(&streamed, camera, Some(budget), |tile, far| {
        handed.push(tile);
        instances += far.len();
    });
    let distance =
        |&(fill, tile): &crate::FarTile| streamed.streamed_tile_distance(fill, tile, eye);
    let farthest_handed = handed.iter().map(distance).fold(0.0, f32::max);
    assert!(instances >= 500 && changes.waiting() > 0, "{instances}");
    assert!(changes.nearest_waiting(&streamed, camera).unwrap() >= farthest_handed);
    changes.hand_over(&streamed, camera, None, |tile, _| handed.push(tile));
    assert_eq!(changes.waiting(), 0);
    for (fill, tile) in handed {
        for p in streamed.far_placements(fill, tile) {
            let distance = Vec2::new(p.position.x, p.position.z).distance(eye);
            assert!(
                distance > range_of(&p.family).near_m,
                "{p:?} is far at {distance} m"
            );
            assert!(far.insert(key(p)), "{p:?} twice");
        }
    }
    assert!(far.len() > 1_000 && far.is_subset(&shown), "{}", far.len());
    assert_eq!(
        streamed.registry().len() as usize,
        stroke + shown.len() - far.len()
    );
    let all_stored: std::collections::BTreeSet<_> =
        stored.editor().painter().placements().map(key).collect();
    assert!(
        shown.iter().all(|k| all_stored.contains(k)),
        "streamed but not stored"
    );
    // The fill's placements: the stroke's took the ids before them.
    let in_reach = stored.editor().painter().placements().filter(|p| {
        p.id.0 >= stroke as u64
            && Vec2::new(p.position.x, p.position.z).distance(eye) <= reach_of(&p.family)
    });
    let mut near = 0;
    for p in in_reach {
        near += 1;
        assert!(
            shown.contains(&key(p)),
            "{p:?} is stored, in reach and not streamed"
        );
    }
    assert!(near > 1_000, "{near}");
    let erased = |p: &Placement| Vec2::new(p.position.x, p.position.z).distance(erased_at) <= 12.0;
    assert!(stored.editor().painter().placements().all(|p| !erased(p)));
}

mod streamed;

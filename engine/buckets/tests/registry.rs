//! The placement registry through its public API: placing, pending, re-bakes, removal,
//! LOD moves, errors and the change log a GPU mirror reads.

// Lists of dirty runs that happen to hold one run are meant as lists.
#![allow(clippy::single_range_in_vec_init)]

mod common;

use common::{assert_placed, transform};
use glam::Mat4;
use sylva_buckets::{
    BucketChanges, BucketKey, PlacementRegistry, PropShape, RegistryError, CULLED_LEVEL,
};

const TREE: PropShape = PropShape {
    parts: 2,
    lods: 3,
    impostor: false,
};

fn registry_with_tree() -> (PlacementRegistry, sylva_buckets::PropKey) {
    let mut registry = PlacementRegistry::new();
    let pine = registry.intern("conifer/pine_tall");
    registry.set_prop_shape(pine, TREE).unwrap();
    (registry, pine)
}

#[test]
fn interning_a_name_twice_gives_the_same_key() {
    let mut registry = PlacementRegistry::new();
    let pine = registry.intern("conifer/pine_tall");
    let rock = registry.intern("rock/boulder");
    assert_ne!(pine, rock);
    assert_eq!(registry.intern("conifer/pine_tall"), pine);
    assert_eq!(registry.prop_name(rock), Ok("rock/boulder"));
}

#[test]
fn a_placement_of_a_loaded_prop_has_an_instance_in_every_part_bucket_of_its_lod() {
    let (mut registry, pine) = registry_with_tree();
    registry.insert(7, pine, transform(7), 1).unwrap();
    let location = registry.locate(7).unwrap();
    assert_eq!((location.prop, location.lod), (pine, 1));
    assert_placed(&registry, 7, &transform(7));
    let lens: Vec<_> = registry
        .buckets()
        .map(|(key, b)| (key.part, key.lod, b.len()))
        .collect();
    assert_eq!(
        lens,
        vec![
            (0, 0, 0),
            (1, 0, 0),
            (0, 1, 1),
            (1, 1, 1),
            (0, 2, 0),
            (1, 2, 0)
        ]
    );
    assert_eq!(registry.placed_per_lod()[..3], [0, 1, 0]);
}

#[test]
fn placements_of_an_unloaded_prop_wait_and_appear_when_it_loads() {
    let (mut registry, pine) = registry_with_tree();
    let fern = registry.intern("fern/small");
    registry.insert(1, pine, transform(1), 0).unwrap();
    registry.insert(2, fern, transform(2), 2).unwrap();
    registry.insert(3, fern, transform(3), 0).unwrap();
    assert_eq!(registry.locate(2), None);
    assert_eq!(registry.pending_len(), 2);
    let pine_before = registry.locate(1);

    registry
        .set_prop_shape(
            fern,
            PropShape {
                parts: 1,
                lods: 3,
                impostor: false,
            },
        )
        .unwrap();

    assert_eq!(registry.pending_len(), 0);
    assert_eq!(registry.locate(2).unwrap().lod, 2);
    assert_placed(&registry, 2, &transform(2));
    assert_placed(&registry, 3, &transform(3));
    assert_eq!(registry.locate(1), pine_before);
    assert_placed(&registry, 1, &transform(1));
}

#[test]
fn the_same_shape_again_keeps_the_buckets_as_they_are() {
    let (mut registry, pine) = registry_with_tree();
    registry.insert(1, pine, transform(1), 0).unwrap();
    let mut changes = BucketChanges::default();
    registry.drain_changes(&mut changes);

    registry.set_prop_shape(pine, TREE).unwrap();

    registry.drain_changes(&mut changes);
    assert!(changes.is_empty());
    assert_placed(&registry, 1, &transform(1));
}

#[test]
fn a_rebake_with_other_part_and_lod_counts_rebuilds_the_props_buckets() {
    let (mut registry, pine) = registry_with_tree();
    for id in 0..10 {
        registry
            .insert(id, pine, transform(id), (id % 3) as u8)
            .unwrap();
    }
    let mut changes = BucketChanges::default();
    registry.drain_changes(&mut changes);

    registry
        .set_prop_shape(
            pine,
            PropShape {
                parts: 3,
                lods: 2,
                impostor: false,
            },
        )
        .unwrap();

    for id in 0..10 {
        assert_eq!(registry.locate(id).unwrap().lod, ((id % 3) as u8).min(1));
        assert_placed(&registry, id, &transform(id));
    }
    assert_eq!(registry.placed_per_lod()[..3], [4, 6, 0]);
    registry.drain_changes(&mut changes);
    assert_eq!(
        changes.removed().len(),
        6,
        "every old bucket held instances"
    );
    let updated: Vec<_> = changes
        .updates()
        .iter()
        .map(|u| (u.key.part, u.key.lod))
        .collect();
    assert_eq!(
        updated,
        vec![(0, 0), (1, 0), (2, 0), (0, 1), (1, 1), (2, 1)]
    );
}

#[test]
fn deleting_a_prop_keeps_its_placements_pending_until_it_returns() {
    let (mut registry, pine) = registry_with_tree();
    registry.insert(1, pine, transform(1), 2).unwrap();
    registry.remove_prop_shape(pine).unwrap();
    assert_eq!(registry.locate(1), None);
    assert!(registry.contains(1));
    assert!(registry
        .bucket(BucketKey {
            prop: pine,
            part: 0,
            lod: 2
        })
        .is_none());
    assert_eq!(registry.placed_per_lod(), [0; 8]);

    registry.set_prop_shape(pine, TREE).unwrap();
    assert_eq!(registry.locate(1).unwrap().lod, 2);
    assert_placed(&registry, 1, &transform(1));
}

#[test]
fn removing_a_placement_patches_the_back_reference_of_the_instance_moved_into_its_slot() {
    let (mut registry, pine) = registry_with_tree();
    for id in 0..5 {
        registry.insert(id, pine, transform(id), 0).unwrap();
    }
    let hole = registry.locate(1).unwrap();
    registry.remove(1).unwrap();
    let refill = registry.placement_at(hole.bucket(0), hole.slot).unwrap();
    assert_eq!(refill, 4);
    for id in [0, 2, 3, 4] {
        assert_placed(&registry, id, &transform(id));
    }
    assert!(!registry.contains(1));
}

#[test]
fn removing_keeps_every_other_placement_intact_whatever_its_table_index() {
    // Remove from the front, middle and back so the placement table's own swap-remove
    // renumbers placements of other props and LODs.
    let (mut registry, pine) = registry_with_tree();
    let rock = registry.intern("rock/boulder");
    registry
        .set_prop_shape(
            rock,
            PropShape {
                parts: 1,
                lods: 2,
                impostor: false,
            },
        )
        .unwrap();
    for id in 0..30 {
        let prop = if id % 2 == 0 { pine } else { rock };
        registry
            .insert(id, prop, transform(id), (id % 4) as u8)
            .unwrap();
    }
    for removed in [0, 15, 29, 7, 8] {
        registry.remove(removed).unwrap();
    }
    for id in (0..30).filter(|id| ![0, 15, 29, 7, 8].contains(id)) {
        assert_placed(&registry, id, &transform(id));
    }
    assert_eq!(registry.len(), 25);
}

#[test]
fn undo_can_register_a_removed_id_again() {
    let (mut registry, pine) = registry_with_tree();
    registry.insert(1, pine, transform(1), 0).unwrap();
    registry.remove(1).unwrap();
    registry.insert(1, pine, transform(1), 0).unwrap();
    assert_placed(&registry, 1, &transform(1));
}

#[test]
fn set_level_moves_every_part_to_the_sibling_buckets() {
    let (mut registry, pine) = registry_with_tree();
    for id in 0..4 {
        registry.insert(id, pine, transform(id), 0).unwrap();
    }
    assert_eq!(registry.set_level(1, 2), Ok(true));
    assert_eq!(registry.locate(1).unwrap().lod, 2);
    for id in 0..4 {
        assert_placed(&registry, id, &transform(id));
    }
    assert_eq!(registry.placed_per_lod()[..3], [3, 0, 1]);
}

#[test]
fn a_level_past_the_props_coarsest_lod_moves_nothing() {
    let mut registry = PlacementRegistry::new();
    let bush = registry.intern("bush/round");
    registry
        .set_prop_shape(
            bush,
            PropShape {
                parts: 1,
                lods: 2,
                impostor: false,
            },
        )
        .unwrap();
    registry.insert(1, bush, transform(1), 1).unwrap();
    assert_eq!(registry.set_level(1, 2), Ok(false));
    assert_eq!(registry.locate(1).unwrap().lod, 1);
    assert_eq!(registry.set_level(1, 0), Ok(true));
}

#[test]
fn relevel_applies_the_chosen_levels_and_counts_what_moved() {
    let (mut registry, pine) = registry_with_tree();
    let fern = registry.intern("fern/small");
    for id in 0..6 {
        registry.insert(id, pine, transform(id), 0).unwrap();
    }
    registry.insert(6, fern, transform(6), 0).unwrap();
    assert!(registry.has_unevaluated_placements());

    // Everything left of x = -395 goes to level 1.
    let stats = registry.relevel(|_, position, level| if position.x < -395.0 { 1 } else { level });

    assert_eq!(stats.evaluated, 7);
    assert_eq!(
        stats.moved, 4,
        "ids 0..=3 are placed; the pending fern only changes level"
    );
    assert!(!registry.has_unevaluated_placements());
    for id in 0..6 {
        assert_eq!(registry.locate(id).unwrap().lod, u8::from(id < 4));
        assert_placed(&registry, id, &transform(id));
    }
    registry
        .set_prop_shape(
            fern,
            PropShape {
                parts: 1,
                lods: 3,
                impostor: false,
            },
        )
        .unwrap();
    assert_eq!(registry.locate(6).unwrap().lod, 0);
}

#[test]
fn misuse_is_refused_without_changing_anything() {
    let (mut registry, pine) = registry_with_tree();
    let mut other = PlacementRegistry::new();
    other.intern("a");
    let unknown = other.intern("b");
    registry.insert(1, pine, transform(1), 0).unwrap();

    assert_eq!(
        registry.insert(1, pine, transform(1), 0),
        Err(RegistryError::DuplicatePlacement { id: 1 })
    );
    assert_eq!(
        registry.remove(2),
        Err(RegistryError::UnknownPlacement { id: 2 })
    );
    assert_eq!(
        registry.set_level(2, 0),
        Err(RegistryError::UnknownPlacement { id: 2 })
    );
    assert_eq!(
        registry.insert(2, unknown, transform(2), 0),
        Err(RegistryError::UnknownProp { key: 1 })
    );
    assert_eq!(
        registry.set_prop_shape(unknown, TREE),
        Err(RegistryError::UnknownProp { key: 1 })
    );
    assert_eq!(
        registry.insert(2, pine, transform(2), CULLED_LEVEL + 1),
        Err(RegistryError::LevelOutOfRange {
            level: CULLED_LEVEL + 1,
            max: CULLED_LEVEL
        })
    );
    let mut broken = Mat4::IDENTITY;
    broken.w_axis.x = f32::NAN;
    assert_eq!(
        registry.insert(2, pine, broken, 0),
        Err(RegistryError::NonFiniteTransform { id: 2 })
    );
    assert_eq!(
        registry.set_prop_shape(
            pine,
            PropShape {
                parts: 0,
                lods: 3,
                impostor: false
            }
        ),
        Err(RegistryError::EmptyShape { parts: 0, lods: 3 })
    );
    assert_eq!(registry.len(), 1);
    assert_placed(&registry, 1, &transform(1));
}

#[test]
fn drained_changes_name_new_buckets_with_their_capacity_and_the_slots_to_upload() {
    let (mut registry, pine) = registry_with_tree();
    for id in 0..3 {
        registry.insert(id, pine, transform(id), 0).unwrap();
    }
    let mut changes = BucketChanges::default();
    registry.drain_changes(&mut changes);
    assert_eq!(changes.updates().len(), 2, "both parts at LOD 0");
    for update in changes.updates() {
        assert_eq!(update.reallocate_to, Some(16));
        assert_eq!(update.len, 3);
        assert_eq!(changes.dirty_runs(update), &[0..3]);
    }

    registry.set_level(0, 1).unwrap();
    registry.drain_changes(&mut changes);
    let summary: Vec<_> = changes
        .updates()
        .iter()
        .map(|u| {
            (
                u.key.part,
                u.key.lod,
                u.len,
                u.reallocate_to,
                changes.dirty_runs(u).to_vec(),
            )
        })
        .collect();
    assert_eq!(
        summary,
        vec![
            (0, 0, 2, None, vec![0..1]),
            (1, 0, 2, None, vec![0..1]),
            (0, 1, 1, Some(16), vec![0..1]),
            (1, 1, 1, Some(16), vec![0..1]),
        ]
    );
    registry.drain_changes(&mut changes);
    assert!(changes.is_empty());
}

/// A mirror that draws `len` instances per update must hear about a bucket that only
/// shrank from its end (no slot rewritten), or it keeps drawing the removed instance.
#[test]
fn removing_the_newest_placement_reports_the_shorter_buckets() {
    let (mut registry, pine) = registry_with_tree();
    for id in 0..3 {
        registry.insert(id, pine, transform(id), 0).unwrap();
    }
    let mut changes = BucketChanges::default();
    registry.drain_changes(&mut changes);
    registry.remove(2).unwrap();
    registry.drain_changes(&mut changes);
    let lens: Vec<(u16, u32)> = changes
        .updates()
        .iter()
        .map(|u| (u.key.part, u.len))
        .collect();
    assert_eq!(lens, [(0, 2), (1, 2)]);
    assert!(changes
        .updates()
        .iter()
        .all(|u| changes.dirty_runs(u).is_empty()));
    registry.drain_changes(&mut changes);
    assert!(changes.is_empty());
}

#[test]
fn a_culled_placement_has_no_instances_until_its_level_brings_it_back() {
    let mut registry = PlacementRegistry::new();
    let pine = registry.intern("conifer/pine");
    registry
        .insert(1, pine, transform(1), CULLED_LEVEL)
        .unwrap();
    assert_eq!(
        registry.pending_len(),
        1,
        "pending while the prop has no shape"
    );
    registry.set_prop_shape(pine, TREE).unwrap();
    assert_eq!((registry.culled_len(), registry.pending_len()), (1, 0));
    assert_eq!(registry.locate(1), None);
    assert!(registry.buckets().all(|(_, bucket)| bucket.is_empty()));

    assert!(registry.set_level(1, 1).unwrap());
    assert_eq!(registry.culled_len(), 0);
    assert_eq!(registry.locate(1).map(|l| l.lod), Some(1));
    assert_placed(&registry, 1, &transform(1));

    assert!(registry.set_level(1, CULLED_LEVEL).unwrap());
    assert_eq!(registry.culled_len(), 1);
    assert!(registry.buckets().all(|(_, bucket)| bucket.is_empty()));
    registry.remove_prop_shape(pine).unwrap();
    assert_eq!((registry.culled_len(), registry.pending_len()), (0, 1));
    registry.set_prop_shape(pine, TREE).unwrap();
    registry.remove(1).unwrap();
    assert_eq!((registry.culled_len(), registry.len()), (0, 0));
}

#[test]
fn a_fade_in_rides_in_every_part_instance_moves_with_its_level_and_ends_whole() {
    let (mut registry, pine) = registry_with_tree();
    registry.insert(7, pine, transform(7), 1).unwrap();
    registry.insert(8, pine, transform(8), 1).unwrap();
    registry.drain_changes(&mut BucketChanges::default());
    let fades = |registry: &PlacementRegistry, id: u64| -> Vec<f32> {
        let location = registry.locate(id).unwrap();
        (registry.buckets())
            .filter(|(key, _)| key.lod == location.lod)
            .map(|(_, bucket)| bucket.transforms()[location.slot as usize].x_axis.w)
            .collect()
    };
    registry.set_fade_in(7, 0.25).unwrap();
    assert_eq!(fades(&registry, 7), [0.25, 0.25]);
    assert_eq!(fades(&registry, 8), [0.0, 0.0]);
    let mut changes = BucketChanges::default();
    registry.drain_changes(&mut changes);
    assert_eq!(changes.updates().len(), 2, "both part buckets are dirty");
    // Moved to another level, the instances keep it; whole, it is gone.
    registry.set_level(7, 2).unwrap();
    assert_eq!(fades(&registry, 7), [0.25, 0.25]);
    registry.set_fade_in(7, 1.0).unwrap();
    assert_eq!(fades(&registry, 7), [0.0, 0.0]);
    assert_eq!(
        registry.set_fade_in(9, 0.5),
        Err(RegistryError::UnknownPlacement { id: 9 })
    );
}

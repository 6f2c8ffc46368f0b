//! When the controller re-evaluates: rate cap, camera movement, new placements, odd input.

use glam::{Mat4, Vec3};
use sylva_buckets::{Member, PlacementRegistry, PropKey, PropShape};
use sylva_lod::{FixedBands, LodConfig, LodConfigError, LodController, LodPolicy};

/// The 30, 90 and 150 m bands (±4 m) every placement shares.
fn fixed_bands() -> LodController {
    LodController::new(&LodConfig::fixed_bands(vec![30.0, 90.0, 150.0])).unwrap()
}

fn unit(prop: PropKey) -> Member {
    Member { prop, scale: 1.0 }
}

fn registry_with_row(count: u64) -> (PlacementRegistry, PropKey) {
    let mut registry = PlacementRegistry::new();
    let pine = registry.intern("conifer/pine_tall");
    registry
        .set_prop_shape(
            pine,
            PropShape {
                parts: 2,
                lods: 3,
                impostor: false,
            },
        )
        .unwrap();
    for id in 0..count {
        let position = Vec3::new(id as f32 * 2.0, 0.0, 0.0);
        registry
            .insert(id, pine, Mat4::from_translation(position), 0)
            .unwrap();
    }
    (registry, pine)
}

#[test]
fn a_still_camera_evaluates_nothing_after_the_first_tick() {
    let (mut registry, _) = registry_with_row(100);
    let mut lod = fixed_bands();
    let camera = Vec3::new(5.0, 2.0, 5.0);
    assert_eq!(lod.tick(&mut registry, camera, 0.0).evaluated, 100);
    for frame in 1..600 {
        let stats = lod.tick(&mut registry, camera, frame as f64 / 60.0);
        assert_eq!((stats.evaluated, stats.moved), (0, 0));
        assert_eq!(stats.per_lod, registry.placed_per_lod());
    }
}

#[test]
fn re_evaluation_is_capped_at_4_hz_while_the_camera_moves_every_frame() {
    let (mut registry, _) = registry_with_row(10);
    let mut lod = fixed_bands();
    let mut evaluated_at = vec![];
    for frame in 0..=120 {
        let now = frame as f64 / 60.0;
        let camera = Vec3::new(frame as f32, 0.0, 0.0);
        if lod.tick(&mut registry, camera, now).evaluated > 0 {
            evaluated_at.push(now);
        }
    }
    assert_eq!(
        evaluated_at,
        [0.0, 0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 1.75, 2.0]
    );
}

#[test]
fn camera_jitter_below_the_travel_threshold_is_not_movement() {
    let (mut registry, _) = registry_with_row(10);
    let mut lod = fixed_bands();
    lod.tick(&mut registry, Vec3::ZERO, 0.0);
    for second in 1..10 {
        let jitter = Vec3::new(0.3, -0.2, 0.1) * (second % 2) as f32;
        assert_eq!(lod.tick(&mut registry, jitter, second as f64).evaluated, 0);
    }
    assert_eq!(
        lod.tick(&mut registry, Vec3::new(0.6, 0.0, 0.0), 10.0)
            .evaluated,
        10
    );
}

#[test]
fn placements_inserted_under_a_still_camera_are_evaluated_at_the_next_allowed_tick() {
    let (mut registry, pine) = registry_with_row(1);
    let mut lod = fixed_bands();
    lod.tick(&mut registry, Vec3::ZERO, 0.0);
    registry
        .insert(
            7,
            pine,
            Mat4::from_translation(Vec3::new(500.0, 0.0, 0.0)),
            0,
        )
        .unwrap();

    assert_eq!(
        lod.tick(&mut registry, Vec3::ZERO, 0.1).evaluated,
        0,
        "rate cap"
    );
    let stats = lod.tick(&mut registry, Vec3::ZERO, 0.3);
    assert_eq!((stats.evaluated, stats.moved), (2, 1));
    assert_eq!(registry.locate(7).unwrap().lod, 2);
    assert_eq!(lod.tick(&mut registry, Vec3::ZERO, 0.6).evaluated, 0);
}

#[test]
fn level_for_starts_a_new_placement_in_its_band_so_nothing_moves_later() {
    let (mut registry, pine) = registry_with_row(1);
    let mut lod = fixed_bands();
    assert_eq!(
        lod.level_for(unit(pine), Vec3::new(500.0, 0.0, 0.0)),
        0,
        "no camera yet"
    );
    lod.tick(&mut registry, Vec3::ZERO, 0.0);

    let far = Vec3::new(0.0, 0.0, 120.0);
    let level = lod.level_for(unit(pine), far);
    assert_eq!(level, 2);
    registry
        .insert(9, pine, Mat4::from_translation(far), level)
        .unwrap();
    assert_eq!(registry.locate(9).unwrap().lod, 2);
    let stats = lod.tick(&mut registry, Vec3::ZERO, 1.0);
    assert_eq!((stats.evaluated, stats.moved), (2, 0));
}

#[test]
fn a_clock_that_goes_back_does_not_stall_evaluation() {
    let (mut registry, _) = registry_with_row(10);
    let mut lod = fixed_bands();
    lod.tick(&mut registry, Vec3::ZERO, 1_000.0);
    let stats = lod.tick(&mut registry, Vec3::new(50.0, 0.0, 0.0), 0.0);
    assert_eq!(stats.evaluated, 10);
}

#[test]
fn non_finite_cameras_and_times_are_ignored_and_do_not_freeze_later_ticks() {
    let (mut registry, _) = registry_with_row(10);
    let mut lod = fixed_bands();
    lod.tick(&mut registry, Vec3::ZERO, 0.0);
    let nan_camera = lod.tick(&mut registry, Vec3::new(f32::NAN, 0.0, 0.0), 1.0);
    assert_eq!(nan_camera.evaluated, 0);
    let nan_time = lod.tick(&mut registry, Vec3::new(20.0, 0.0, 0.0), f64::NAN);
    assert_eq!(nan_time.evaluated, 0);
    let next = lod.tick(&mut registry, Vec3::new(40.0, 0.0, 0.0), 2.0);
    assert_eq!(next.evaluated, 10);
    let too_soon = lod.tick(&mut registry, Vec3::new(80.0, 0.0, 0.0), 2.1);
    assert_eq!(too_soon.evaluated, 0, "the rate cap still holds");
}

#[test]
fn invalid_gates_are_refused() {
    let bad_rate = LodConfig {
        max_rate_hz: 0.0,
        ..LodConfig::default()
    };
    assert_eq!(
        LodController::new(&bad_rate).unwrap_err(),
        LodConfigError::BadRate { hertz: 0.0 }
    );
    let bad_travel = LodConfig {
        min_camera_travel_m: -1.0,
        ..LodConfig::default()
    };
    assert_eq!(
        LodController::new(&bad_travel).unwrap_err(),
        LodConfigError::BadCameraTravel { metres: -1.0 }
    );
    let bad_edges = LodConfig::fixed_bands(vec![90.0, 30.0]);
    assert!(matches!(
        LodController::new(&bad_edges),
        Err(LodConfigError::EdgesNotIncreasing { index: 1, .. })
    ));
}

#[test]
fn more_levels_can_be_configured() {
    let config = LodConfig {
        policy: LodPolicy::FixedBands(FixedBands {
            edges_m: vec![15.0, 30.0, 60.0, 120.0],
            hysteresis_m: 2.0,
        }),
        ..LodConfig::default()
    };
    let mut lod = LodController::new(&config).unwrap();
    let mut registry = PlacementRegistry::new();
    let fern = registry.intern("fern/tall");
    registry
        .set_prop_shape(
            fern,
            PropShape {
                parts: 1,
                lods: 5,
                impostor: false,
            },
        )
        .unwrap();
    for (id, x) in [(0, 10.0), (1, 20.0), (2, 40.0), (3, 80.0), (4, 200.0)] {
        registry
            .insert(id, fern, Mat4::from_translation(Vec3::new(x, 0.0, 0.0)), 0)
            .unwrap();
    }
    let stats = lod.tick(&mut registry, Vec3::ZERO, 0.0);
    assert_eq!(stats.per_lod[..5], [1, 1, 1, 1, 1]);
    assert_eq!(registry.locate(4).unwrap().lod, 4);
}

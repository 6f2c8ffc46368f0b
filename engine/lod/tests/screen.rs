//! Screen-space switching through the controller and a real registry: scale, stillness,
//! culling, and the settings it refuses.

use glam::{Mat4, Quat, Vec3};
use proptest::prelude::*;
use sylva_buckets::{Member, PlacementRegistry, PropKey, PropShape, CULLED_LEVEL};
use sylva_lod::{LodConfig, LodConfigError, LodController, PropLod, Viewport, Visibility};

const SHAPE: PropShape = PropShape {
    parts: 1,
    lods: 3,
    impostor: true,
};

/// A 40 cm shrub with three mesh levels and an impostor.
fn shrub() -> PropLod {
    PropLod {
        level_errors_m: vec![0.0, 0.003, 0.012, 0.03],
        radius_m: 0.4,
        visibility: Visibility::default(),
    }
}

fn placed(scale: f32, position: Vec3) -> Mat4 {
    Mat4::from_scale_rotation_translation(Vec3::splat(scale), Quat::IDENTITY, position)
}

fn described_registry(lod: &mut LodController) -> (PlacementRegistry, PropKey) {
    let mut registry = PlacementRegistry::new();
    let shrub_key = registry.intern("shrub/round");
    registry.set_prop_shape(shrub_key, SHAPE).unwrap();
    lod.set_prop(shrub_key, shrub()).unwrap();
    (registry, shrub_key)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// A placement twice the size at twice the distance is at the same level, culled
    /// included, whatever the level it started at.
    #[test]
    fn a_prop_scaled_twice_switches_twice_as_far(
        scale in 0.1f32..8.0,
        distance in 0.5f32..600.0,
        start in 0u8..=4,
    ) {
        let mut lod = LodController::default();
        let (mut registry, key) = described_registry(&mut lod);
        let direction = Vec3::new(0.6, 0.0, 0.8);
        let start = if start == 4 { CULLED_LEVEL } else { start };
        registry.insert(0, key, placed(scale, direction * distance), start).unwrap();
        registry.insert(1, key, placed(2.0 * scale, direction * 2.0 * distance), start).unwrap();
        lod.tick(&mut registry, Vec3::ZERO, 0.0);
        prop_assert_eq!(registry.level(0), registry.level(1));
    }

    /// Wherever the camera stops, evaluating again from there moves nothing: levels
    /// settle, they never flicker under a still camera. The controller evaluates every
    /// move (no travel threshold): under the default 0.5 m a stop that near the last is
    /// not evaluated, and the next evaluation rightly moves placements from there.
    #[test]
    fn no_placement_oscillates_when_the_camera_stops(
        stops in prop::collection::vec(
            ((-150.0f32..150.0, 0.0f32..40.0, -150.0f32..150.0), 0.0f32..1.0), 1..30),
        scales in prop::collection::vec(0.3f32..3.0, 64),
    ) {
        let config = LodConfig { min_camera_travel_m: 0.0, ..LodConfig::default() };
        let mut lod = LodController::new(&config).unwrap();
        let (mut registry, key) = described_registry(&mut lod);
        for (id, &scale) in (0u64..).zip(&scales) {
            let position = Vec3::new((id % 8) as f32 * 9.0, 0.0, (id / 8) as f32 * 9.0);
            registry.insert(id, key, placed(scale, position), 0).unwrap();
        }
        let mut now = 0.0;
        let mut camera = Vec3::ZERO;
        for (marker, ((x, y, z), closeness)) in (1_000u64..).zip(stops) {
            // Half the stops land right beside the placements, where switches are dense.
            let target = Vec3::new(x, y, z) * closeness;
            camera = if closeness < 0.5 { camera.lerp(target, 0.5) } else { target };
            now += 0.3;
            lod.tick(&mut registry, camera, now);
            // A new placement makes the controller evaluate again from the same spot.
            registry.insert(marker, key, placed(1.0, Vec3::splat(5e3)), 0).unwrap();
            now += 0.3;
            let again = lod.tick(&mut registry, camera, now);
            prop_assert!(again.evaluated > 0);
            prop_assert_eq!(again.moved, 1, "only the marker, out to its band");
        }
    }
}

#[test]
fn a_tiny_placement_far_away_is_culled_and_a_large_one_is_not() {
    let mut lod = LodController::default();
    let (mut registry, key) = described_registry(&mut lod);
    registry
        .insert(0, key, placed(1.0, Vec3::new(900.0, 0.0, 0.0)), 0)
        .unwrap();
    registry
        .insert(1, key, placed(10.0, Vec3::new(900.0, 0.0, 0.0)), 0)
        .unwrap();
    let stats = lod.tick(&mut registry, Vec3::ZERO, 0.0);
    assert_eq!(stats.culled, 1);
    assert_eq!(registry.level(0), Some(CULLED_LEVEL));
    assert_eq!(registry.locate(0), None, "no instance, no shadow");
    assert_eq!(registry.locate(1).map(|at| at.lod), Some(3), "the impostor");

    // Walking up to it brings it back.
    let stats = lod.tick(&mut registry, Vec3::new(899.0, 0.5, 0.0), 1.0);
    assert_eq!(stats.culled, 0);
    assert_eq!(registry.locate(0).map(|at| at.lod), Some(0));
}

#[test]
fn describing_a_prop_relevels_its_placements_under_a_still_camera() {
    let mut lod = LodController::default();
    let mut registry = PlacementRegistry::new();
    let key = registry.intern("shrub/round");
    registry.set_prop_shape(key, SHAPE).unwrap();
    registry
        .insert(0, key, placed(1.0, Vec3::new(30.0, 0.0, 0.0)), 0)
        .unwrap();
    lod.tick(&mut registry, Vec3::ZERO, 0.0);
    assert_eq!(registry.level(0), Some(0), "undescribed: kept as it is");
    assert_eq!(lod.tick(&mut registry, Vec3::ZERO, 1.0).evaluated, 0);

    lod.set_prop(key, shrub()).unwrap();
    let stats = lod.tick(&mut registry, Vec3::ZERO, 2.0);
    assert_eq!((stats.evaluated, stats.moved), (1, 1));
    assert_eq!(
        registry.level(0),
        Some(3),
        "0.03 m shows under 1 px past 28 m"
    );
}

#[test]
fn a_taller_viewport_or_a_tighter_tolerance_switches_farther() {
    let mut lod = LodController::default();
    let (mut registry, key) = described_registry(&mut lod);
    let reference_edge = lod.prop_switches(key).unwrap().edge_m(0, 1.0);
    lod.set_viewport(Viewport {
        height_px: 2160.0,
        ..Viewport::REFERENCE
    })
    .unwrap();
    let tall_edge = lod.prop_switches(key).unwrap().edge_m(0, 1.0);
    assert!((tall_edge / reference_edge - 2.0).abs() < 1e-5);
    lod.set_tolerance_px(2.0).unwrap();
    let loose_edge = lod.prop_switches(key).unwrap().edge_m(0, 1.0);
    assert!((loose_edge / reference_edge - 1.0).abs() < 1e-5);

    let member = Member {
        prop: key,
        scale: 1.0,
    };
    registry
        .insert(0, key, placed(1.0, Vec3::X * 5.0), 0)
        .unwrap();
    lod.tick(&mut registry, Vec3::ZERO, 0.0);
    assert_eq!(
        lod.level_for(member, Vec3::X * 5.0),
        registry.level(0).unwrap()
    );
}

#[test]
fn bad_settings_are_refused_naming_the_field() {
    let mut lod = LodController::default();
    let (_, key) = described_registry(&mut lod);
    for tolerance in [0.0, -1.0, f32::NAN] {
        let error = lod.set_tolerance_px(tolerance).unwrap_err();
        assert!(matches!(error, LodConfigError::BadTolerance { .. }));
        assert!(error.to_string().contains("tolerance"), "{error}");
    }
    let negative_size = PropLod {
        visibility: Visibility {
            min_size_px: -1.0,
            max_distance_m: None,
        },
        ..shrub()
    };
    let error = lod.set_prop(key, negative_size).unwrap_err();
    assert!(error.to_string().contains("min_size_px"), "{error}");
    let no_distance = PropLod {
        visibility: Visibility {
            min_size_px: 1.0,
            max_distance_m: Some(0.0),
        },
        ..shrub()
    };
    let error = lod.set_prop(key, no_distance).unwrap_err();
    assert!(error.to_string().contains("max_distance_m"), "{error}");
    let flat = Viewport {
        height_px: 0.0,
        ..Viewport::REFERENCE
    };
    assert!(matches!(
        lod.set_viewport(flat),
        Err(LodConfigError::BadViewport { .. })
    ));
    let config = LodConfig {
        policy: sylva_lod::LodPolicy::ScreenError(sylva_lod::ScreenError {
            tolerance_px: -2.0,
            ..Default::default()
        }),
        ..LodConfig::default()
    };
    assert!(matches!(
        LodController::new(&config),
        Err(LodConfigError::BadTolerance { pixels: -2.0 })
    ));
    assert_eq!(
        lod.prop_switches(key).unwrap().levels(),
        4,
        "the refused description left the last one in place"
    );
}

#[test]
fn a_prop_fades_out_over_its_cull_band_and_each_placement_fades_at_its_own_scale() {
    let mut controller = LodController::default();
    let key = PlacementRegistry::new().intern("grass/tuft");
    let lod = PropLod {
        level_errors_m: vec![0.0, 0.01],
        radius_m: 0.1,
        visibility: Visibility::default(),
    };
    controller.set_prop(key, lod).unwrap();
    let f = controller.fades().clone();
    let switches = controller.prop_switches(key).unwrap();
    let (edge, cull) = (switches.edge_m(0, 1.0), switches.cull_m(1.0));
    // Level 1 (the last) draws alone from past the switch's fade to the cull's.
    let (near, far) = f.steady(key, 1, 2, (1.0, 1.0));
    assert_eq!((near, far), (edge * 1.05, cull * 0.95));
    // Across the cull band its pixels go, none left at the far end.
    let shares = [0.9, 0.95, 1.0, 1.05, 1.2].map(|k| f.coarser_share(key, 1, 1.0, cull * k));
    assert_eq!(shares[0], 0.0);
    assert!((shares[2] - 0.5).abs() < 1e-4, "{shares:?}");
    assert!(shares[3] > 0.9999 && shares[4] == 1.0, "{shares:?}");
    // Twice the size fades twice as far.
    let twice = f.coarser_share(key, 1, 2.0, 2.0 * cull);
    assert!((twice - 0.5).abs() < 1e-4);
    // Steady spans shrink to what holds for every scale of a block.
    let (near, far) = f.steady(key, 1, 2, (1.0, 2.0));
    assert_eq!((near, far), (2.0 * edge * 1.05, cull * 0.95));
    assert_eq!(f.hard().steady(key, 1, 2, (1.0, 2.0)), (0.0, f32::INFINITY));
}

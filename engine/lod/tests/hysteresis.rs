//! Hysteresis at the band edges, through the controller and a real registry.

use glam::{Mat4, Vec3};
use sylva_buckets::{Member, PlacementRegistry, PropKey, PropShape};
use sylva_lod::{LodConfig, LodController};

/// The 30, 90 and 150 m bands (±4 m) every placement shares.
fn fixed_bands() -> LodController {
    LodController::new(&LodConfig::fixed_bands(vec![30.0, 90.0, 150.0])).unwrap()
}

const TREE: PropShape = PropShape {
    parts: 2,
    lods: 3,
    impostor: false,
};

fn registry_with(positions: &[Vec3]) -> (PlacementRegistry, PropKey) {
    let mut registry = PlacementRegistry::new();
    let pine = registry.intern("conifer/pine_tall");
    registry.set_prop_shape(pine, TREE).unwrap();
    for (id, &position) in (0u64..).zip(positions) {
        registry
            .insert(id, pine, Mat4::from_translation(position), 0)
            .unwrap();
    }
    (registry, pine)
}

fn lods(registry: &PlacementRegistry, count: u64) -> Vec<u8> {
    (0..count)
        .map(|id| registry.locate(id).unwrap().lod)
        .collect()
}

/// Points on a circle of `radius` around the origin, every 10 degrees.
fn circle(radius: f32) -> impl Iterator<Item = Vec3> {
    (0..36).map(move |step| {
        let angle = (step as f32 * 10.0).to_radians();
        Vec3::new(radius * angle.cos(), 0.0, radius * angle.sin())
    })
}

#[test]
fn a_camera_oscillating_3_m_around_the_band_edges_moves_nothing_after_the_first_tick() {
    // On the edge circles every camera-to-placement distance stays within edge ± 3 m;
    // the others sit well inside a band.
    let positions: Vec<Vec3> = [10.0, 30.0, 60.0, 90.0, 150.0]
        .into_iter()
        .flat_map(circle)
        .collect();
    let (mut registry, _) = registry_with(&positions);
    let mut lod = fixed_bands();

    let first = lod.tick(&mut registry, Vec3::new(-3.0, 0.0, 0.0), 0.0);
    assert!(
        first.moved > 0,
        "the first tick sorts the placements into bands"
    );

    let mut evaluations = 0;
    for frame in 1..=2_000 {
        let t = frame as f64 / 60.0;
        // Up to 3 m from the centre, along a direction that turns, so the camera sweeps
        // towards and away from every placement.
        let reach = 3.0 * (t * 2.1).sin() as f32;
        let heading = (t * 0.37) as f32;
        let camera = reach * Vec3::new(heading.cos(), 0.0, heading.sin());
        let stats = lod.tick(&mut registry, camera, t);
        assert_eq!(stats.moved, 0, "frame {frame}: camera at {camera}");
        evaluations += u32::from(stats.evaluated > 0);
    }
    assert!(
        evaluations > 100,
        "the oscillation must be evaluated: {evaluations}"
    );
}

#[test]
fn crossing_a_band_edge_by_5_m_moves_exactly_the_placements_past_the_hysteresis() {
    let (mut registry, pine) = registry_with(&[]);
    let mut lod = fixed_bands();
    lod.tick(&mut registry, Vec3::ZERO, 0.0);
    let distances = [28.5, 29.5, 29.9, 30.5, 88.5, 89.5, 89.9, 90.5];
    for (id, x) in (0..).zip(distances) {
        let position = Vec3::new(x, 0.0, 0.0);
        let transform = Mat4::from_translation(position);
        registry
            .insert(
                id,
                pine,
                transform,
                lod.level_for(
                    Member {
                        prop: pine,
                        scale: 1.0,
                    },
                    position,
                ),
            )
            .unwrap();
    }
    assert_eq!(lods(&registry, 8), [0, 0, 0, 1, 1, 1, 1, 2]);

    // Back 5 m: distances grow by 5. Only those now past edge + 4 m go coarser.
    let stats = lod.tick(&mut registry, Vec3::new(-5.0, 0.0, 0.0), 1.0);
    assert_eq!(stats.moved, 4);
    assert_eq!(lods(&registry, 8), [0, 1, 1, 1, 1, 2, 2, 2]);

    // Returning to the start is inside every hysteresis margin: nothing moves back.
    let stats = lod.tick(&mut registry, Vec3::ZERO, 2.0);
    assert_eq!((stats.evaluated, stats.moved), (8, 0));

    // Forward 5 m: distances shrink by 5. Only those now inside edge - 4 m go finer.
    let stats = lod.tick(&mut registry, Vec3::new(5.0, 0.0, 0.0), 3.0);
    assert_eq!(stats.moved, 6);
    assert_eq!(lods(&registry, 8), [0, 0, 0, 0, 1, 1, 1, 1]);
}

#[test]
fn distance_is_measured_in_3d_from_the_camera() {
    let (mut registry, _) = registry_with(&[Vec3::ZERO]);
    let mut lod = fixed_bands();
    let stats = lod.tick(&mut registry, Vec3::new(0.0, 100.0, 0.0), 0.0);
    assert_eq!(stats.moved, 1);
    assert_eq!(
        registry.locate(0).unwrap().lod,
        2,
        "100 m straight above is far"
    );
}

#[test]
fn a_prop_with_fewer_lods_than_bands_sits_at_its_coarsest_beyond_them() {
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
    for (id, x) in [(0, 10.0), (1, 60.0), (2, 200.0)] {
        registry
            .insert(id, bush, Mat4::from_translation(Vec3::new(x, 0.0, 0.0)), 0)
            .unwrap();
    }
    let mut lod = fixed_bands();
    let stats = lod.tick(&mut registry, Vec3::ZERO, 0.0);
    assert_eq!(lods(&registry, 3), [0, 1, 1]);
    assert_eq!(stats.moved, 2);
    assert_eq!(stats.per_lod[..3], [1, 2, 0]);

    // The far bush comes from 200 m to 60 m: band 2 to band 1, the same LOD for this
    // prop, so it does not move. Only the near one (now 130 m away) does.
    let stats = lod.tick(&mut registry, Vec3::new(140.0, 0.0, 0.0), 1.0);
    assert_eq!(stats.moved, 1);
    assert_eq!(lods(&registry, 3), [1, 1, 1]);
}

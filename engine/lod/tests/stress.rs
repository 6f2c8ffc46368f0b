//! The prototype's stress test, in sylva: a camera orbiting through the band edges moves
//! placements between LOD buckets well over 1,274 times, and every instance still holds
//! exactly its placement's transform.

use glam::{Mat4, Quat, Vec3};
use sylva_buckets::{PlacementRegistry, PropKey, PropShape};
use sylva_lod::{LodConfig, LodController};

/// The 30, 90 and 150 m bands (±4 m) every placement shares.
fn fixed_bands() -> LodController {
    LodController::new(&LodConfig::fixed_bands(vec![30.0, 90.0, 150.0])).unwrap()
}

const PLACEMENTS: u64 = 1_500;
const TICKS: u32 = 600;

/// SplitMix64, seeded: the same scene every run.
struct Rng(u64);

impl Rng {
    fn unit(&mut self) -> f32 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        ((z ^ (z >> 31)) >> 40) as f32 / (1u64 << 24) as f32
    }
}

fn bits(m: &Mat4) -> [u32; 16] {
    m.to_cols_array().map(f32::to_bits)
}

/// Every placement's instances, in every part bucket, hold its transform bit for bit and
/// name it as their owner; the per-LOD counts add up.
fn assert_every_transform_identical(registry: &PlacementRegistry, transforms: &[Mat4]) {
    for (id, expected) in (0u64..).zip(transforms) {
        let location = registry.locate(id).unwrap();
        let parts = registry.prop_shape(location.prop).unwrap().unwrap().parts;
        for part in 0..parts {
            let key = location.bucket(part);
            let stored = registry.bucket(key).unwrap().transforms()[location.slot as usize];
            assert_eq!(bits(&stored), bits(expected), "placement {id}, {key:?}");
            assert_eq!(registry.placement_at(key, location.slot), Some(id));
        }
    }
    let placed: u32 = registry.placed_per_lod().iter().sum();
    assert_eq!(placed as usize, transforms.len());
}

#[test]
fn an_orbiting_camera_moving_placements_over_1274_times_leaves_every_transform_identical() {
    let mut registry = PlacementRegistry::new();
    let props: Vec<PropKey> = [
        (
            "conifer/pine_tall",
            PropShape {
                parts: 2,
                lods: 3,
                impostor: false,
            },
        ),
        (
            "rock/boulder",
            PropShape {
                parts: 1,
                lods: 2,
                impostor: false,
            },
        ),
        (
            "fern/tall",
            PropShape {
                parts: 3,
                lods: 4,
                impostor: false,
            },
        ),
    ]
    .into_iter()
    .map(|(name, shape)| {
        let key = registry.intern(name);
        registry.set_prop_shape(key, shape).unwrap();
        key
    })
    .collect();

    let mut rng = Rng(1274);
    let transforms: Vec<Mat4> = (0..PLACEMENTS)
        .map(|_| {
            let radius = 150.0 * rng.unit().sqrt();
            let angle = rng.unit() * std::f32::consts::TAU;
            Mat4::from_scale_rotation_translation(
                Vec3::splat(0.6 + rng.unit()),
                Quat::from_rotation_y(rng.unit() * std::f32::consts::TAU),
                Vec3::new(
                    radius * angle.cos(),
                    rng.unit() * 10.0,
                    radius * angle.sin(),
                ),
            )
        })
        .collect();
    for (id, transform) in (0u64..).zip(&transforms) {
        let prop = props[(id % 3) as usize];
        registry.insert(id, prop, *transform, 0).unwrap();
    }

    let mut lod = fixed_bands();
    let mut cumulative_moves = 0;
    for tick in 0..TICKS {
        // A quarter-second apart: every tick may evaluate. The orbit's radius swings
        // between 20 m and 140 m, so the bands sweep back and forth over the scene.
        let t = tick as f64 * 0.25;
        let radius = 80.0 + 60.0 * (t * 0.3).sin() as f32;
        let angle = (t * 0.5) as f32;
        let camera = Vec3::new(radius * angle.cos(), 2.0, radius * angle.sin());
        let stats = lod.tick(&mut registry, camera, t);
        assert_eq!(stats.evaluated as u64, PLACEMENTS);
        cumulative_moves += stats.moved;
        if tick % 50 == 0 {
            assert_every_transform_identical(&registry, &transforms);
        }
    }

    println!("{cumulative_moves} cumulative LOD moves");
    assert!(cumulative_moves >= 1_274, "only {cumulative_moves} moves");
    assert_every_transform_identical(&registry, &transforms);
}

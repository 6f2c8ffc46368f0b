//! LOD controller benchmarks over 100,000 placements of three props of different sizes
//! and scales: an evaluating tick (camera flying, camera teleporting) and a still-camera
//! frame, under screen-space switching (each prop's own switch distances, small props
//! culled) and under the fixed 30/90/150 m bands, side by side. Results: BENCHMARKS.md.

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion};
use glam::{Mat4, Quat, Vec3};
use sylva_buckets::{PlacementRegistry, PropKey, PropShape};
use sylva_lod::{LodConfig, LodController, PropLod, TickStats, Visibility};

const PLACEMENTS: u64 = 100_000;
/// The default world is 512 m square.
const WORLD_M: f32 = 512.0;

fn unit(state: &mut u64) -> f32 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    ((z ^ (z >> 31)) >> 40) as f32 / (1u64 << 24) as f32
}

/// The three props: a 16 m tree, a 1 m boulder and a 40 cm fern, each with its levels'
/// errors in metres (an impostor last) and its bounding radius, as a bake measures them.
const PROPS: [(&str, u16, [f32; 4], f32); 3] = [
    ("conifer/pine_tall", 2, [0.0, 0.04, 0.15, 0.3], 8.0),
    ("rock/boulder", 1, [0.0, 0.008, 0.03, 0.02], 0.6),
    ("fern/tall", 3, [0.0, 0.004, 0.012, 0.008], 0.2),
];

/// 100,000 placements of the three props (2, 1 and 3 parts; 3 LODs and an impostor),
/// scaled 0.7–1.3, spread over the world, and `lod` told of each prop.
fn scene(lod: &mut LodController) -> PlacementRegistry {
    let mut registry = PlacementRegistry::new();
    let props: Vec<PropKey> = PROPS
        .into_iter()
        .map(|(name, parts, errors, radius_m)| {
            let key = registry.intern(name);
            registry
                .set_prop_shape(
                    key,
                    PropShape {
                        parts,
                        lods: 3,
                        impostor: true,
                    },
                )
                .unwrap();
            let description = PropLod {
                level_errors_m: errors.to_vec(),
                radius_m,
                visibility: Visibility::default(),
            };
            lod.set_prop(key, description).unwrap();
            key
        })
        .collect();
    let mut state = 42;
    for id in 0..PLACEMENTS {
        let position = Vec3::new(
            unit(&mut state) * WORLD_M,
            unit(&mut state) * 40.0,
            unit(&mut state) * WORLD_M,
        );
        let rotation = Quat::from_rotation_y(unit(&mut state) * std::f32::consts::TAU);
        let scale = Vec3::splat(0.7 + 0.6 * unit(&mut state));
        let transform = Mat4::from_scale_rotation_translation(scale, rotation, position);
        registry
            .insert(id, props[(id % 3) as usize], transform, 0)
            .unwrap();
    }
    registry
}

/// Runs `ticks` evaluating ticks untimed and prints how many placements were tested one
/// by one (the rest had proofs of keeping their levels) and moved per tick: the
/// work the timed ticks of the same scenario do.
fn report_work(name: &str, ticks: u32, mut tick: impl FnMut() -> TickStats) {
    let (mut tested, mut moved) = (0, 0);
    for _ in 0..ticks {
        let stats = tick();
        tested += u64::from(stats.tested);
        moved += u64::from(stats.moved);
    }
    let ticks = u64::from(ticks);
    println!(
        "{name}: {} placements tested and {} moved per tick",
        tested / ticks,
        moved / ticks
    );
}

/// The policies compared: screen-space switching (the default) and the fixed bands.
fn policies() -> [(&'static str, LodConfig); 2] {
    [
        ("screen", LodConfig::default()),
        (
            "fixed_bands",
            LodConfig::fixed_bands(vec![30.0, 90.0, 150.0]),
        ),
    ]
}

fn lod_tick(c: &mut Criterion) {
    for (policy, config) in policies() {
        ticks(c, policy, &config);
    }
}

fn ticks(c: &mut Criterion, policy: &str, config: &LodConfig) {
    let mut group = c.benchmark_group(format!("lod_tick_100k/{policy}"));
    group.warm_up_time(Duration::from_secs(1));
    group.measurement_time(Duration::from_secs(5));

    // Flying at 12 m/s around the middle of the world: 3 m between evaluations, every
    // placement's level brought up to date (those near one of their switches tested one
    // by one), a few hundred crossing one.
    let mut lod = LodController::new(config).unwrap();
    let mut registry = scene(&mut lod);
    let mut now = 0.0;
    let mut flying = || {
        now += 0.25;
        let angle = (now * 3.0 / 150.0) as f32; // 3 m of arc on a 150 m circle
        let camera = Vec3::new(
            256.0 + 150.0 * angle.cos(),
            20.0,
            256.0 + 150.0 * angle.sin(),
        );
        let stats = lod.tick(&mut registry, camera, now);
        assert_eq!(u64::from(stats.evaluated), PLACEMENTS);
        stats
    };
    flying(); // sorts the scene into its bands
    report_work(&format!("{policy}: camera_flying"), 400, &mut flying);
    group.bench_function("camera_flying", |b| b.iter(&mut flying));

    // The worst case: the camera jumps between opposite corners every tick, so the
    // placements near either corner change LOD every time.
    let mut lod = LodController::new(config).unwrap();
    let mut registry = scene(&mut lod);
    let corners = [Vec3::new(40.0, 2.0, 40.0), Vec3::new(470.0, 2.0, 470.0)];
    let mut now = 0.0;
    let mut teleporting = || {
        now += 0.25;
        let camera = corners[(now * 4.0) as usize % 2];
        let stats = lod.tick(&mut registry, camera, now);
        assert_eq!(u64::from(stats.evaluated), PLACEMENTS);
        stats
    };
    teleporting();
    report_work(
        &format!("{policy}: camera_teleporting"),
        40,
        &mut teleporting,
    );
    group.bench_function("camera_teleporting", |b| b.iter(&mut teleporting));

    // A still camera at 60 frames per second: nothing to evaluate.
    let mut lod = LodController::new(config).unwrap();
    let mut registry = scene(&mut lod);
    let camera = Vec3::new(256.0, 20.0, 256.0);
    lod.tick(&mut registry, camera, 0.0);
    let mut now = 0.0;
    group.bench_function("still_camera_frame", |b| {
        b.iter(|| {
            now += 1.0 / 60.0;
            let stats = lod.tick(&mut registry, black_box(camera), now);
            debug_assert_eq!(stats.evaluated, 0);
            black_box(stats)
        })
    });
    group.finish();
}

criterion_group!(benches, lod_tick);
criterion_main!(benches);

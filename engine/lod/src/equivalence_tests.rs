//! The controller's proof-skipping relevel gives exactly the levels of evaluating every
//! placement with the same rule (`registry.relevel` with `next_level` on each), tick
//! after tick, under fixed bands and under screen-space switching with per-prop
//! distances, scales and culling: two registries receive the same operations (inserts,
//! removals, level writes, prop shapes loaded, re-baked and deleted, props described
//! anew, tolerance changes, camera steps and jumps), one levelled by
//! [`LodController::tick`], the other by the per-placement pass whenever the controller
//! evaluated. An evaluation spread over ticks ends with the same levels, the operations
//! made meanwhile applied after it.

use glam::{Mat4, Quat, Vec3};
use proptest::prelude::*;
use sylva_buckets::{DistanceLevels, PlacementRegistry, PropKey, PropShape, MAX_LODS};

use crate::bands::LodBands;
use crate::{
    FixedBands, LodConfig, LodController, LodPolicy, PropLod, ScreenError, Viewport, Visibility,
};

const PROPS: usize = 3;

#[derive(Debug, Clone)]
enum Op {
    /// `level: None` starts it where the controller's `level_for` says.
    Insert {
        position: Vec3,
        scale: f32,
        prop: usize,
        level: Option<u8>,
    },
    /// Describes a prop for screen-space switching anew (as a re-bake does).
    Describe {
        prop: usize,
        lod: PropLod,
    },
    Tolerance(f32),
    /// Removes the live placement of rank `pick % live`.
    Remove {
        pick: usize,
    },
    SetLevel {
        pick: usize,
        level: u8,
    },
    /// `lods: None` deletes the prop's shape: its placements go pending; with an
    /// impostor where the levels allow one more.
    Shape {
        prop: usize,
        lods: Option<u8>,
        impostor: bool,
    },
    MoveCamera(Vec3),
    JumpCamera(Vec3),
    /// Lets time pass and ticks the controller.
    Tick {
        seconds: f64,
    },
    /// A relevel outside the controller's gates, wherever the camera is.
    Relevel,
    /// The same by other bands than the controller's, as a caller with two rules would.
    RelevelByOtherBands,
}

/// Positions on multiples of 32 m, in the open, and very far out.
fn position() -> impl Strategy<Value = Vec3> {
    let open = (-250.0f32..250.0, -20.0f32..80.0, -250.0f32..250.0);
    let on_border = (
        -8i32..8,
        -1.0e-3f32..1.0e-3,
        -20.0f32..80.0,
        -250.0f32..250.0,
    );
    prop_oneof![
        6 => open.prop_map(|(x, y, z)| Vec3::new(x, y, z)),
        2 => on_border.prop_map(|(k, e, y, z)| Vec3::new(k as f32 * 32.0 + e, y, z)),
        1 => (-1.0e7f32..1.0e7, -1.0e7f32..1.0e7).prop_map(|(x, z)| Vec3::new(x, 0.0, z)),
    ]
}

fn op() -> impl Strategy<Value = Op> {
    let step = (-3.0f32..3.0, -1.0f32..1.0, -3.0f32..3.0).prop_map(|(x, y, z)| Vec3::new(x, y, z));
    let jump = (-300.0f32..300.0, -10.0f32..90.0, -300.0f32..300.0)
        .prop_map(|(x, y, z)| Vec3::new(x, y, z));
    prop_oneof![
        8 => (position(), scale(), 0..PROPS, prop::option::weighted(0.5, 0..=MAX_LODS))
            .prop_map(|(position, scale, prop, level)| Op::Insert { position, scale, prop, level }),
        1 => (0..PROPS, prop_lod()).prop_map(|(prop, lod)| Op::Describe { prop, lod }),
        1 => (0.3f32..3.0).prop_map(Op::Tolerance),
        2 => any::<usize>().prop_map(|pick| Op::Remove { pick }),
        1 => (any::<usize>(), 0..MAX_LODS).prop_map(|(pick, level)| Op::SetLevel { pick, level }),
        1 => (0..PROPS, prop::option::weighted(0.8, 1..=MAX_LODS), any::<bool>())
            .prop_map(|(prop, lods, impostor)| Op::Shape { prop, lods, impostor }),
        6 => step.prop_map(Op::MoveCamera),
        1 => jump.prop_map(Op::JumpCamera),
        6 => prop_oneof![Just(0.05), Just(0.3)].prop_map(|seconds| Op::Tick { seconds }),
        1 => Just(Op::Relevel),
        1 => Just(Op::RelevelByOtherBands),
    ]
}

/// Mostly around 1, now and then far from it.
fn scale() -> impl Strategy<Value = f32> {
    prop_oneof![4 => 0.7f32..1.4, 1 => 0.05f32..20.0]
}

/// Errors (level 0's 0, the others in any order), radius and visibility of a prop with
/// 1 to `MAX_LODS` levels: switches from centimetres to hundreds of metres out.
fn prop_lod() -> impl Strategy<Value = PropLod> {
    (
        prop::collection::vec(0.0f32..0.3, 0..usize::from(MAX_LODS)),
        0.0f32..20.0,
        prop_oneof![Just(0.0f32), 0.5f32..4.0],
        prop::option::weighted(0.3, 5.0f32..300.0),
    )
        .prop_map(|(errors, radius_m, min_size_px, max_distance_m)| PropLod {
            level_errors_m: std::iter::once(0.0).chain(errors).collect(),
            radius_m,
            visibility: Visibility {
                min_size_px,
                max_distance_m,
            },
        })
}

/// Fixed bands or screen-space switching.
fn config() -> impl Strategy<Value = LodConfig> {
    prop_oneof![fixed_config(), screen_config()]
}

fn screen_config() -> impl Strategy<Value = LodConfig> {
    (0.3f32..3.0, 0.0f32..0.25, 100.0f32..3000.0).prop_map(|(tolerance_px, hysteresis, height)| {
        LodConfig {
            policy: LodPolicy::ScreenError(ScreenError {
                tolerance_px,
                hysteresis,
                viewport: Viewport {
                    height_px: height,
                    ..Viewport::REFERENCE
                },
            }),
            ..LodConfig::default()
        }
    })
}

/// Strictly increasing edges, the first above the hysteresis.
fn fixed_config() -> impl Strategy<Value = LodConfig> {
    (
        prop::collection::vec(1.0f32..60.0, 0..(MAX_LODS as usize)),
        0.0f32..1.0,
    )
        .prop_map(|(gaps, hysteresis_share)| {
            let edges_m: Vec<f32> = gaps
                .iter()
                .scan(0.0, |edge, gap| {
                    *edge += gap;
                    Some(*edge)
                })
                .collect();
            let first = edges_m.first().copied().unwrap_or(1.0);
            LodConfig {
                policy: LodPolicy::FixedBands(FixedBands {
                    edges_m,
                    hysteresis_m: first * hysteresis_share * 0.99,
                }),
                ..LodConfig::default()
            }
        })
}

struct Twins {
    fast: PlacementRegistry,
    reference: PlacementRegistry,
    keys: Vec<(PropKey, PropKey)>,
    live: Vec<u64>,
    next_id: u64,
}

impl Twins {
    fn new() -> Self {
        let mut fast = PlacementRegistry::new();
        let mut reference = PlacementRegistry::new();
        let keys = (0..PROPS)
            .map(|prop| {
                let name = format!("prop/{prop}");
                (fast.intern(&name), reference.intern(&name))
            })
            .collect();
        let mut twins = Self {
            fast,
            reference,
            keys,
            live: vec![],
            next_id: 0,
        };
        // Props 0 and 1 start loaded, prop 2 pending.
        twins.shape(0, Some(3), true);
        twins.shape(1, Some(MAX_LODS), false);
        twins
    }

    fn shape(&mut self, prop: usize, lods: Option<u8>, impostor: bool) {
        let (fast, reference) = self.keys[prop];
        match lods {
            Some(lods) => {
                let shape = PropShape {
                    parts: 2,
                    lods,
                    impostor: impostor && lods < MAX_LODS,
                };
                self.fast.set_prop_shape(fast, shape).unwrap();
                self.reference.set_prop_shape(reference, shape).unwrap();
            }
            None => {
                self.fast.remove_prop_shape(fast).unwrap();
                self.reference.remove_prop_shape(reference).unwrap();
            }
        }
    }

    fn pick(&self, pick: usize) -> Option<u64> {
        (!self.live.is_empty()).then(|| self.live[pick % self.live.len()])
    }

    /// A pass outside the controller on both registries, then the check.
    fn relevel_both(&mut self, rule: &impl DistanceLevels, camera: Vec3) {
        let stats = self.fast.relevel_by_distance(camera, rule);
        let moved = relevel_every_placement(&mut self.reference, rule, camera);
        assert_eq!(stats.moved, moved);
        self.assert_same_levels();
    }

    fn assert_same_levels(&self) {
        assert_eq!(self.fast.len(), self.reference.len());
        for &id in &self.live {
            assert_eq!(
                self.fast.level(id),
                self.reference.level(id),
                "placement {id}"
            );
            assert_eq!(
                self.fast.locate(id).map(|at| (at.prop, at.lod)),
                self.reference.locate(id).map(|at| (at.prop, at.lod)),
                "placement {id}"
            );
        }
        assert_eq!(self.fast.placed_per_lod(), self.reference.placed_per_lod());
    }
}

/// The pass without proofs: every placement, one by one.
fn relevel_every_placement(
    registry: &mut PlacementRegistry,
    rule: &impl DistanceLevels,
    camera: Vec3,
) -> u32 {
    registry
        .relevel(|member, position, level| {
            rule.next_level(member, level, position.distance_squared(camera))
        })
        .moved
}

fn run(config: &LodConfig, spread: u32, ops: &[Op]) {
    let other_bands = LodBands::new(&[10.0, 50.0], 2.0).unwrap();
    let mut lod = LodController::new(config).unwrap();
    lod.spread_evaluations(spread);
    let mut twins = Twins::new();
    describe_grass_and_tree(&mut lod, &twins);
    let mut camera = Vec3::new(0.0, 20.0, 0.0);
    let mut now = 0.0;
    for op in ops {
        match *op {
            Op::Insert {
                position,
                scale,
                prop,
                level,
            } => {
                let (fast, reference) = twins.keys[prop];
                let member = sylva_buckets::Member { prop: fast, scale };
                let level = level.unwrap_or_else(|| lod.level_for(member, position));
                let id = twins.next_id;
                twins.next_id += 1;
                let transform = Mat4::from_scale_rotation_translation(
                    Vec3::splat(scale),
                    Quat::from_rotation_y(position.x),
                    position,
                );
                twins.fast.insert(id, fast, transform, level).unwrap();
                twins
                    .reference
                    .insert(id, reference, transform, level)
                    .unwrap();
                twins.live.push(id);
            }
            Op::Remove { pick } => {
                if let Some(id) = twins.pick(pick) {
                    twins.fast.remove(id).unwrap();
                    twins.reference.remove(id).unwrap();
                    twins.live.retain(|&live| live != id);
                }
            }
            Op::SetLevel { pick, level } => {
                if let Some(id) = twins.pick(pick) {
                    let moved = twins.fast.set_level(id, level).unwrap();
                    let reference_moved = twins.reference.set_level(id, level).unwrap();
                    // Mid-evaluation the placement may not have its new level yet.
                    if !lod.is_evaluating() {
                        assert_eq!(reference_moved, moved);
                    }
                }
            }
            Op::Shape {
                prop,
                lods,
                impostor,
            } => twins.shape(prop, lods, impostor),
            Op::Describe {
                prop,
                lod: ref description,
            } => lod
                .set_prop(twins.keys[prop].0, description.clone())
                .unwrap(),
            Op::Tolerance(pixels) => lod.set_tolerance_px(pixels).unwrap(),
            Op::MoveCamera(step) => camera += step,
            Op::JumpCamera(to) => camera = to,
            Op::Tick { seconds } => {
                now += seconds;
                let stats = lod.tick(&mut twins.fast, camera, now);
                if stats.evaluated > 0 {
                    let moved = relevel_every_placement(&mut twins.reference, lod.rule(), camera);
                    if !stats.evaluating {
                        assert_eq!(stats.moved, moved);
                    }
                    assert!(stats.tested <= stats.evaluated);
                }
                if !stats.evaluating {
                    twins.assert_same_levels();
                }
            }
            Op::Relevel => {
                lod.finish_evaluation(&mut twins.fast);
                let rule = lod.rule().clone();
                twins.relevel_both(&rule, camera);
            }
            Op::RelevelByOtherBands => {
                lod.finish_evaluation(&mut twins.fast);
                twins.relevel_both(&other_bands, camera);
            }
        }
    }
    lod.finish_evaluation(&mut twins.fast);
    twins.assert_same_levels();
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn proof_skipping_gives_the_levels_of_evaluating_every_placement(
        config in config(),
        ops in prop::collection::vec(op(), 1..400),
    ) {
        run(&config, 1, &ops);
    }

    #[test]
    fn an_evaluation_spread_over_ticks_ends_with_the_levels_of_evaluating_at_once(
        config in config(),
        spread in 2u32..6,
        ops in prop::collection::vec(op(), 1..400),
    ) {
        run(&config, spread, &ops);
    }
}

/// Props 0 and 1 described for screen-space switching: a grass tuft (switches at
/// metres, culled past ~120 m) and a tree (switches at tens of metres, never culled in
/// range).
fn describe_grass_and_tree(lod: &mut LodController, twins: &Twins) {
    for (prop, errors, radius_m) in [(0, [0.0, 0.004, 0.02], 0.2), (1, [0.0, 0.05, 0.3], 8.0)] {
        let description = PropLod {
            level_errors_m: errors.to_vec(),
            radius_m,
            visibility: Visibility::default(),
        };
        lod.set_prop(twins.keys[prop].0, description).unwrap();
    }
}

/// 20,000 placements over 512 m, a camera flying at 12 m/s with a jump now and then: the
/// same levels as evaluating every placement after every tick, and a flying tick tests
/// a small share of the placements.
fn fly(config: &LodConfig) -> u32 {
    let mut lod = LodController::new(config).unwrap();
    let mut twins = Twins::new();
    describe_grass_and_tree(&mut lod, &twins);
    let mut state = 7u64;
    let mut unit = || {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 40) as f32 / (1u64 << 24) as f32
    };
    for id in 0..20_000 {
        let position = Vec3::new(unit() * 512.0, unit() * 40.0, unit() * 512.0);
        let scale = 0.7 + 0.7 * unit();
        let transform =
            Mat4::from_scale_rotation_translation(Vec3::splat(scale), Quat::IDENTITY, position);
        let (fast, reference) = twins.keys[id as usize % 2];
        twins.fast.insert(id, fast, transform, 0).unwrap();
        twins.reference.insert(id, reference, transform, 0).unwrap();
        twins.live.push(id);
    }
    let mut flying_tests = vec![];
    for tick in 0..200u32 {
        let now = f64::from(tick) * 0.25;
        let angle = tick as f32 * 3.0 / 150.0;
        let mut camera = Vec3::new(
            256.0 + 150.0 * angle.cos(),
            20.0,
            256.0 + 150.0 * angle.sin(),
        );
        if tick % 50 == 25 {
            camera = Vec3::new(unit() * 512.0, 30.0, unit() * 512.0);
        }
        let stats = lod.tick(&mut twins.fast, camera, now);
        assert_eq!(stats.evaluated, 20_000);
        assert_eq!(
            stats.moved,
            relevel_every_placement(&mut twins.reference, lod.rule(), camera)
        );
        twins.assert_same_levels();
        if tick > 0 && tick % 50 != 25 && tick % 50 != 26 {
            flying_tests.push(stats.tested);
        }
    }
    *flying_tests.iter().max().unwrap()
}

#[test]
fn a_flying_camera_tests_the_placements_near_the_band_edges_only() {
    let most = fly(&LodConfig::fixed_bands(vec![30.0, 90.0]));
    assert!(
        most < 20_000 / 10,
        "a flying tick tested {most} of 20,000 placements"
    );
}

#[test]
fn a_flying_camera_tests_the_placements_near_each_props_switches_only() {
    let most = fly(&LodConfig::default());
    assert!(
        most < 20_000 / 10,
        "a flying tick tested {most} of 20,000 placements"
    );
}

/// `keeps_level` is exactly where `next_level` keeps a level, at the range's ends too,
/// for fixed bands and for screen-space switching at several scales.
#[test]
fn the_kept_range_of_every_level_keeps_it_and_its_outside_does_not() {
    let fixed = LodController::new(&LodConfig::fixed_bands(vec![30.0, 90.0])).unwrap();
    let mut screen = LodController::new(&LodConfig::default()).unwrap();
    let twins = Twins::new();
    describe_grass_and_tree(&mut screen, &twins);
    for lod in [&fixed, &screen] {
        for (prop, scale) in [(0, 1.0), (0, 0.3), (1, 2.5), (2, 1.0)] {
            let member = sylva_buckets::Member {
                prop: twins.keys[prop].0,
                scale,
            };
            check_kept_ranges(lod.rule(), member);
        }
    }
}

fn check_kept_ranges(rule: &impl DistanceLevels, member: sylva_buckets::Member) {
    for level in 0..=sylva_buckets::CULLED_LEVEL {
        let kept = rule.keeps_level(member, level);
        let (start, end) = (*kept.start(), *kept.end());
        for distance_sq in [start, end, (start + end.min(1e9)) / 2.0] {
            if kept.contains(&distance_sq) {
                assert_eq!(rule.next_level(member, level, distance_sq), level);
            }
        }
        if start > 0.0 && start.is_finite() {
            assert_ne!(rule.next_level(member, level, start.next_down()), level);
        }
        if end.is_finite() {
            assert_ne!(rule.next_level(member, level, end.next_up()), level);
        }
    }
}

//! Instance bucket benchmarks: swap-remove cost across bucket sizes (1k to 1M) and LOD
//! move throughput. Results and the command that reproduces them: BENCHMARKS.md.

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use glam::{Mat4, Quat, Vec3};
use sylva_buckets::{Bucket, PlacementRegistry, PropShape};

const SIZES: [u32; 4] = [1_000, 10_000, 100_000, 1_000_000];
/// Removals timed back to back before the bucket is refilled (untimed) to its size.
const BATCH: u32 = 256;

/// SplitMix64: deterministic slots and transforms.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u32) -> u32 {
        (self.next() % u64::from(n)) as u32
    }
}

fn transform(n: u32) -> Mat4 {
    let f = n as f32;
    Mat4::from_scale_rotation_translation(
        Vec3::splat(1.0),
        Quat::from_rotation_y(f),
        Vec3::new(f, 0.0, -f),
    )
}

/// A bucket of `size` instances with owners 0..size, and the owner → slot map.
fn filled(size: u32) -> (Bucket, Vec<u32>) {
    let mut bucket = Bucket::new();
    let slot_of = (0..size)
        .map(|owner| bucket.push(owner, transform(owner)))
        .collect();
    (bucket, slot_of)
}

/// Times removals by owner (slot map look-up, swap-remove, back-reference patch) of
/// slots drawn from `0..window(size)`, refilling the bucket between batches.
fn time_removals(size: u32, window: u32, iters: u64) -> Duration {
    let (mut bucket, mut slot_of) = filled(size);
    let mut rng = Rng(u64::from(size));
    let mut victims = Vec::with_capacity(BATCH as usize);
    let mut total = Duration::ZERO;
    let mut remaining = iters;
    while remaining > 0 {
        let batch = remaining.min(u64::from(BATCH)) as u32;
        victims.clear();
        victims.extend((0..batch).map(|_| bucket.owners()[rng.below(window) as usize]));
        victims.sort_unstable();
        victims.dedup();
        let start = Instant::now();
        for &owner in &victims {
            let slot = slot_of[owner as usize];
            if let Some(refilled_by) = bucket.swap_remove(slot) {
                slot_of[refilled_by as usize] = slot;
            }
        }
        total += start.elapsed();
        for &owner in &victims {
            slot_of[owner as usize] = bucket.push(owner, transform(owner));
        }
        remaining -= u64::from(batch);
    }
    // Duplicate victims in a batch are dropped, so a few iterations time nothing: at
    // most a fraction of a percent with these windows.
    black_box(&bucket);
    total
}

fn bucket_remove(c: &mut Criterion) {
    let mut group = c.benchmark_group("bucket_remove");
    group.warm_up_time(Duration::from_secs(1));
    group.measurement_time(Duration::from_secs(3));
    for size in SIZES {
        // The same 512 slots at every size: isolates the algorithm's cost from the
        // cache misses that any random access into 64 MB pays.
        group.bench_with_input(BenchmarkId::new("hot_slots", size), &size, |b, &size| {
            b.iter_custom(|iters| time_removals(size, 512, iters));
        });
        group.bench_with_input(BenchmarkId::new("any_slot", size), &size, |b, &size| {
            b.iter_custom(|iters| time_removals(size, size, iters));
        });
    }
    // The order-preserving removal swap-remove avoids, for contrast.
    for size in [SIZES[0], SIZES[3]] {
        group.sample_size(10);
        group.bench_with_input(
            BenchmarkId::new("vec_remove_baseline", size),
            &size,
            |b, &size| {
                let mut transforms: Vec<Mat4> = (0..size).map(transform).collect();
                let mut rng = Rng(7);
                b.iter(|| {
                    let removed = transforms.remove(rng.below(512) as usize);
                    transforms.push(removed);
                });
            },
        );
    }
    group.finish();
}

const MOVE_PLACEMENTS: u32 = 100_000;

fn lod_moves(c: &mut Criterion) {
    let mut group = c.benchmark_group("lod_moves");
    group.warm_up_time(Duration::from_secs(1));
    group.measurement_time(Duration::from_secs(3));
    group.throughput(Throughput::Elements(u64::from(MOVE_PLACEMENTS)));

    // One Bucket::move_to per instance: everything across, then everything back.
    group.bench_function("bucket_move_to", |b| {
        let (mut near, _) = filled(MOVE_PLACEMENTS);
        let mut far = Bucket::new();
        let mut rng = Rng(3);
        b.iter(|| {
            while !near.is_empty() {
                let slot = rng.below(near.len());
                black_box(near.move_to(slot, &mut far));
            }
            std::mem::swap(&mut near, &mut far);
        });
    });

    // Placements of a 2-part prop, all moved to the other LOD by one relevel pass per
    // iteration: bucket moves for both parts, slot map and counters included.
    group.bench_function("registry_relevel_2_parts", |b| {
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
        for id in 0..MOVE_PLACEMENTS {
            registry
                .insert(u64::from(id), pine, transform(id), 0)
                .unwrap();
        }
        let mut target = 0;
        b.iter(|| {
            target = 1 - target;
            let stats = registry.relevel(|_, _, _| target);
            assert_eq!(stats.moved, MOVE_PLACEMENTS);
        });
    });
    group.finish();
}

criterion_group!(benches, bucket_remove, lod_moves);
criterion_main!(benches);

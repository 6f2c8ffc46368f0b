//! LOD moves allocate nothing while the destination buckets have room: counted by a
//! global allocator (this test binary's alone).

mod common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use common::{assert_placed, transform};
use std::ops::RangeInclusive;

use glam::Vec3;
use sylva_buckets::{Bucket, DistanceLevels, Member, PlacementRegistry, PropShape};

thread_local! {
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
}

struct CountingAllocator;

// SAFETY: forwards every call unchanged to the system allocator; counting has no effect
// on the memory handed out.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.with(|count| count.set(count.get() + 1));
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.with(|count| count.set(count.get() + 1));
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: CountingAllocator = CountingAllocator;

/// Allocations made on this thread while running `work`.
fn allocations_during(work: impl FnOnce()) -> u64 {
    let before = ALLOCATIONS.with(Cell::get);
    work();
    ALLOCATIONS.with(Cell::get) - before
}

#[test]
fn bucket_move_allocates_nothing_when_the_destination_has_room() {
    let mut near = Bucket::new();
    let mut far = Bucket::new();
    for owner in 0..64 {
        near.push(owner, transform(u64::from(owner)));
    }
    // Give `far` room for all of them.
    for owner in 0..64 {
        far.push(owner, transform(0));
    }
    while !far.is_empty() {
        far.swap_remove(0);
    }

    let allocations = allocations_during(|| {
        for round in 0..10 {
            let (source, destination) = if round % 2 == 0 {
                (&mut near, &mut far)
            } else {
                (&mut far, &mut near)
            };
            while !source.is_empty() {
                source.move_to(source.len() / 2, destination);
            }
        }
    });

    assert_eq!(allocations, 0);
    assert_eq!(near.len(), 64);
}

#[test]
fn registry_lod_moves_and_relevel_passes_allocate_nothing_once_buckets_have_grown() {
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
    for id in 0..100 {
        registry.insert(id, pine, transform(id), 0).unwrap();
    }
    // Warm-up: every LOD's buckets grow to hold all 100, the relevel list to 100
    // entries, the proofs' schedule to its largest.
    for level in [1, 2, 0] {
        registry.relevel(|_, _, _| level);
    }
    let rounds = |registry: &mut PlacementRegistry| {
        for round in 0..30u64 {
            for id in 0..100 {
                registry.set_level(id, ((id + round) % 3) as u8).unwrap();
            }
            registry.relevel(|_, position, _| if position.x < -300.0 { 2 } else { 1 });
            let camera = Vec3::new(round as f32 * 40.0 - 600.0, 0.0, 0.0);
            registry.relevel_by_distance(camera, &TwoBands);
        }
    };
    rounds(&mut registry);
    rounds(&mut registry);

    let allocations = allocations_during(|| rounds(&mut registry));

    assert_eq!(allocations, 0);
    for id in 0..100 {
        assert_placed(&registry, id, &transform(id));
    }
}

/// Level 0 within 200 m, level 1 beyond, no hysteresis.
struct TwoBands;

impl DistanceLevels for TwoBands {
    fn next_level(&self, member: Member, level: u8, distance_sq: f32) -> u8 {
        match self.keeps_level(member, level).contains(&distance_sq) {
            true => level,
            false => u8::from(distance_sq >= 200.0 * 200.0),
        }
    }

    fn keeps_level(&self, _: Member, level: u8) -> RangeInclusive<f32> {
        match level {
            0 => 0.0..=200.0 * 200.0,
            1 => 200.0 * 200.0..=f32::INFINITY,
            _ => f32::INFINITY..=0.0,
        }
    }

    fn revision(&self) -> u64 {
        0
    }
}

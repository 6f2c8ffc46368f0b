//! Helpers shared by the registry's integration tests.

// Each test crate compiles this module and uses a subset of it.
#![allow(dead_code)]

use glam::{Mat4, Quat, Vec3};
use sylva_buckets::PlacementRegistry;

/// A transform distinct for every `n`, like a scatter result.
pub fn transform(n: u64) -> Mat4 {
    let f = n as f32;
    Mat4::from_scale_rotation_translation(
        Vec3::splat(0.5 + (n % 7) as f32 * 0.25),
        Quat::from_rotation_y(f * 0.37),
        Vec3::new(f * 1.5 - 400.0, (n % 11) as f32, 250.0 - f * 0.75),
    )
}

/// The exact bits of a transform: "identical" in these tests means bit for bit.
pub fn bits(m: &Mat4) -> [u32; 16] {
    m.to_cols_array().map(f32::to_bits)
}

/// Asserts that `id`'s instances sit at one slot of every part bucket of its LOD, hold
/// `expected` bit for bit, and name `id` as their owner.
pub fn assert_placed(registry: &PlacementRegistry, id: u64, expected: &Mat4) {
    let location = registry
        .locate(id)
        .unwrap_or_else(|| panic!("placement {id} is not placed"));
    let shape = registry.prop_shape(location.prop).unwrap().unwrap();
    for part in 0..shape.parts_at(location.lod) {
        let key = location.bucket(part);
        let bucket = registry.bucket(key).unwrap();
        let stored = bucket.transforms()[location.slot as usize];
        assert_eq!(
            bits(&stored),
            bits(expected),
            "transform of {id} in {key:?}"
        );
        assert_eq!(
            registry.placement_at(key, location.slot),
            Some(id),
            "owner in {key:?}"
        );
    }
}

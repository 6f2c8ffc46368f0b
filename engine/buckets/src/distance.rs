//! What a distance LOD rule is to the registry: the level a placement goes to at a
//! squared distance, and the squared distances over which it keeps one, which is what
//! lets the registry skip placements it can prove staying.

use std::ops::RangeInclusive;

use crate::PropKey;

/// What a distance rule knows of a placement besides its distance and level: its prop,
/// and its scale (the longest axis of its transform, as [`scale_of`] measures it).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Member {
    pub prop: PropKey,
    pub scale: f32,
}

/// A transform's scale as the LOD rules and the renderer's culling see it: the length of
/// its longest axis.
pub fn scale_of(transform: &glam::Mat4) -> f32 {
    transform
        .x_axis
        .truncate()
        .length()
        .max(transform.y_axis.truncate().length())
        .max(transform.z_axis.truncate().length())
}

/// How a placement's level follows its squared distance from the camera, for
/// [`crate::PlacementRegistry::relevel_by_distance`].
pub trait DistanceLevels {
    /// The level `member`, now at `level` and `distance_sq` (squared metres) from the
    /// camera, goes to; `level` itself to stay. [`crate::CULLED_LEVEL`] takes it out of
    /// the buckets.
    fn next_level(&self, member: Member, level: u8, distance_sq: f32) -> u8;

    /// Squared distances over which `member` at `level` stays there: `next_level(member,
    /// level, d)` returns `level` for every `d` in the range. It may be narrower than the
    /// truth (empty for a level that is always re-banded), never wider: the registry
    /// skips the placements it proves inside it.
    fn keeps_level(&self, member: Member, level: u8) -> RangeInclusive<f32>;

    /// A number that changes whenever the answers for every prop may have changed (the
    /// viewport, the tolerance): proofs made under another revision are dropped.
    fn revision(&self) -> u64;

    /// A number that changes whenever the answers for `prop` alone may have changed
    /// (its switch distances described anew): proofs of its placements are dropped and
    /// the others kept. The default, for rules that treat every prop alike, never
    /// changes.
    fn prop_revision(&self, prop: PropKey) -> u64 {
        let _ = prop;
        0
    }
}

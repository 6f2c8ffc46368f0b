//! The buckets of one baked prop: one per (part, lod), edited in lockstep, and one for
//! its impostor level if it has one.
//!
//! Every placement has every part, so the part buckets of one LOD always receive the same
//! pushes and swap-removes in the same order. That makes a placement's slot the same in
//! each of them: the registry keeps one slot per placement, not one per part. The
//! impostor level is a level with a single "part", the whole prop.

use glam::Mat4;

use crate::{Bucket, Moved, PropShape};

/// The part buckets of one LOD level.
#[derive(Debug, Clone)]
pub(crate) struct LodLevel {
    parts: Vec<Bucket>,
}

impl LodLevel {
    fn new(parts: u16) -> Self {
        Self {
            parts: vec![Bucket::new(); usize::from(parts)],
        }
    }

    pub(crate) fn parts(&self) -> &[Bucket] {
        &self.parts
    }

    pub(crate) fn parts_mut(&mut self) -> &mut [Bucket] {
        &mut self.parts
    }

    /// Live placements at this level (the length of every part bucket).
    pub(crate) fn len(&self) -> u32 {
        self.parts[0].len()
    }

    pub(crate) fn push(&mut self, owner: u32, transform: Mat4) -> u32 {
        let slot = self.len();
        for bucket in &mut self.parts {
            let part_slot = bucket.push(owner, transform);
            debug_assert_eq!(part_slot, slot, "part buckets out of lockstep");
        }
        slot
    }

    /// Swap-removes `slot` from every part; returns the owner moved into it, if any.
    pub(crate) fn swap_remove(&mut self, slot: u32) -> Option<u32> {
        let mut refilled_by = None;
        for bucket in &mut self.parts {
            let part_refill = bucket.swap_remove(slot);
            debug_assert!(refilled_by.is_none() || refilled_by == part_refill);
            refilled_by = part_refill;
        }
        refilled_by
    }

    /// Records that the owner of `slot` now has index `owner` in the registry's table.
    pub(crate) fn reassign_owner(&mut self, slot: u32, owner: u32) {
        for bucket in &mut self.parts {
            bucket.reassign_owner(slot, owner);
        }
    }

    /// Carries the placement at `slot` into `destination`, whose part count may differ
    /// (a mesh level and the impostor): pushed there first, then swap-removed here. The
    /// transform travels by value (see [`Bucket::move_to`] for why that matters).
    fn move_to(&mut self, slot: u32, destination: &mut LodLevel) -> Moved {
        let first = &self.parts[0];
        let carry: Mat4 = first.transforms()[slot as usize];
        let owner = first.owners()[slot as usize];
        let new_slot = destination.push(owner, carry);
        let refilled_by = self.swap_remove(slot);
        Moved {
            new_slot,
            refilled_by,
        }
    }
}

/// All buckets of one baked prop.
#[derive(Debug, Clone)]
pub(crate) struct PropBuckets {
    shape: PropShape,
    levels: Vec<LodLevel>,
}

impl PropBuckets {
    /// Precondition: `shape` was validated (at least one part and one LOD).
    pub(crate) fn new(shape: PropShape) -> Self {
        Self {
            shape,
            levels: (0..shape.levels())
                .map(|lod| LodLevel::new(shape.parts_at(lod)))
                .collect(),
        }
    }

    pub(crate) fn shape(&self) -> PropShape {
        self.shape
    }

    pub(crate) fn levels(&self) -> &[LodLevel] {
        &self.levels
    }

    pub(crate) fn levels_mut(&mut self) -> &mut [LodLevel] {
        &mut self.levels
    }

    pub(crate) fn level_mut(&mut self, lod: u8) -> &mut LodLevel {
        &mut self.levels[usize::from(lod)]
    }

    /// Moves the placement at `slot` of LOD `from` to LOD `to`.
    ///
    /// Precondition: `from != to`, both below the prop's level count.
    pub(crate) fn move_between(&mut self, slot: u32, from: u8, to: u8) -> Moved {
        let [source, destination] = self
            .levels
            .get_disjoint_mut([usize::from(from), usize::from(to)])
            .expect("two distinct LODs of this prop");
        source.move_to(slot, destination)
    }
}

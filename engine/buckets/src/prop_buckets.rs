//! The buckets of one baked prop: one per (part, lod), edited in lockstep.
//!
//! Every placement has every part, so the part buckets of one LOD always receive the same
//! pushes and swap-removes in the same order. That makes a placement's slot the same in
//! each of them: the registry keeps one slot per placement, not one per part.

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

    /// Carries the placement at `slot`, every part of it, into `destination`.
    fn move_to(&mut self, slot: u32, destination: &mut LodLevel) -> Moved {
        let mut outcome = None;
        for (source, target) in self.parts.iter_mut().zip(&mut destination.parts) {
            let part_outcome = source.move_to(slot, target);
            debug_assert!(outcome.is_none() || outcome == Some(part_outcome));
            outcome = Some(part_outcome);
        }
        outcome.expect("a prop shape has at least one part")
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
            levels: (0..shape.lods)
                .map(|_| LodLevel::new(shape.parts))
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
    /// Precondition: `from != to`, both below the prop's LOD count.
    pub(crate) fn move_between(&mut self, slot: u32, from: u8, to: u8) -> Moved {
        let [source, destination] = self
            .levels
            .get_disjoint_mut([usize::from(from), usize::from(to)])
            .expect("two distinct LODs of this prop");
        source.move_to(slot, destination)
    }
}

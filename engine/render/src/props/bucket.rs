//! What the renderer keeps of one registry bucket: its live count and the bounds of its
//! slots, block by block ([`SlotBlocks`]), brought up to date from the registry's change
//! log (only blocks with dirty slots are recomputed). The instances themselves stay in
//! the registry, their one owner: each cull writes the ones a view draws into that
//! view's instance buffer ([`super::cull::VisibleList::upload`]).

use std::ops::Range;

use glam::Mat4;

use super::blocks::SlotBlocks;

#[derive(Default)]
pub struct BucketBounds {
    /// Live instances, in slots `0..count`.
    pub count: usize,
    /// Where the live slots' instances stand, block by block, for culling.
    pub blocks: SlotBlocks,
}

impl BucketBounds {
    /// Takes `live` as the live count and brings the blocks holding `dirty` slots of
    /// `transforms` (the bucket's dense array) up to date.
    pub fn update(&mut self, transforms: &[Mat4], dirty: &[Range<u32>], live: usize) {
        self.count = live;
        self.blocks.update(transforms, dirty, live);
    }
}

//! The registry's placements, one row each, stored as columns (structure of arrays) and
//! kept dense by swap-remove.
//!
//! The LOD pass reads only positions, scales and `levels`: the positions and scales sit
//! in the rows' level proofs (`proofs.rs`), and the levels in a
//! column of their own.

use rustc_hash::FxHashMap;

use glam::Mat4;

use crate::distance::{scale_of, Member};
use crate::proofs::LevelProofs;
use crate::PropKey;

#[derive(Debug, Default, Clone)]
pub(crate) struct PlacementTable {
    pub(crate) ids: Vec<u64>,
    pub(crate) props: Vec<PropKey>,
    /// The placement's own transform: the source every bucket entry is copied from, kept
    /// for placements whose prop is not loaded and for rebuilding after a re-bake.
    pub(crate) transforms: Vec<Mat4>,
    /// The distance level the LOD controller last chose; the bucket LOD is this clamped to
    /// the prop's coarsest LOD. Kept for pending placements too, so they arrive at the
    /// right LOD when their prop loads. Written only through [`Self::set_level`], which
    /// keeps `proofs`' copy.
    pub(crate) levels: Vec<u8>,
    /// The placement's slot in every part bucket of its LOD; meaningful only while its
    /// prop has a shape.
    pub(crate) slots: Vec<u32>,
    /// Ids are the world's own (counters and streamed tile numbers), so a fast hash.
    index_of_id: FxHashMap<u64, u32>,
    /// The rows grouped by where they stand, with the translation of `transforms`, for
    /// the LOD pass.
    pub(crate) proofs: LevelProofs,
}

impl PlacementTable {
    pub(crate) fn len(&self) -> u32 {
        self.ids.len() as u32
    }

    pub(crate) fn index_of(&self, id: u64) -> Option<u32> {
        self.index_of_id.get(&id).copied()
    }

    /// Appends a row and returns its index; the caller fills in `slots` if the prop is
    /// loaded. Precondition: `id` is not in the table.
    pub(crate) fn push(&mut self, id: u64, prop: PropKey, transform: Mat4, level: u8) -> u32 {
        let index = self.len();
        let translation = transform.w_axis;
        self.ids.push(id);
        self.props.push(prop);
        self.transforms.push(transform);
        self.levels.push(level);
        self.slots.push(0);
        self.index_of_id.insert(id, index);
        let member = Member {
            prop,
            scale: scale_of(&transform),
        };
        self.proofs
            .push(index, member, translation.truncate(), level);
        index
    }

    /// Sets row `index`'s level and returns the one it had.
    pub(crate) fn set_level(&mut self, index: u32, level: u8) -> u8 {
        self.proofs.note_level(index, level);
        std::mem::replace(&mut self.levels[index as usize], level)
    }

    /// Removes row `index` by moving the last row into it. Returns true when a row was
    /// moved, i.e. another placement now has index `index` and its bucket back-references
    /// must be updated.
    pub(crate) fn swap_remove(&mut self, index: u32) -> bool {
        let i = index as usize;
        self.index_of_id.remove(&self.ids[i]);
        self.ids.swap_remove(i);
        self.props.swap_remove(i);
        self.transforms.swap_remove(i);
        self.levels.swap_remove(i);
        self.slots.swap_remove(i);
        self.proofs.swap_remove(index);
        match self.ids.get(i) {
            Some(&moved_id) => {
                self.index_of_id.insert(moved_id, index);
                true
            }
            None => false,
        }
    }
}

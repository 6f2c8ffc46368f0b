//! One instance bucket: the dense instance transforms of one (prop, part, lod), in the
//! layout a GPU instance buffer takes, with a back-reference from every slot to its owner.

use std::ops::Range;

use glam::Mat4;

use crate::dirty::DirtySlots;

/// The GPU instance layout: four column vectors, 64 bytes, column-major.
const _: () = assert!(std::mem::size_of::<Mat4>() == 64);

/// The capacity of a bucket's first allocation; later ones double it.
pub const FIRST_CAPACITY: u32 = 16;

/// Dense instance transforms plus an owner back-reference per slot.
///
/// Slots `0..len()` hold live instances, packed. The owner is an index chosen by whoever
/// keeps the owner → slot map (the registry uses its dense placement index); the bucket
/// never looks inside it, it only reports which owner moved so the map can be patched.
///
/// Every change is logged for a GPU mirror: the slots written and whether the capacity
/// grew, drained with [`Bucket::drain_changes`].
#[derive(Debug, Default, Clone)]
pub struct Bucket {
    transforms: Vec<Mat4>,
    owners: Vec<u32>,
    /// The capacity a GPU mirror must allocate. Tracked here rather than read from the
    /// `Vec`s, whose allocator may hand out more than was asked for.
    capacity: u32,
    dirty: DirtySlots,
    /// Set when the capacity grew since the last drain.
    grown: bool,
    /// The live count at the last drain: a mirror draws `len` instances, so a bucket
    /// that only shrank (its last slots removed, nothing rewritten) must report too.
    drained_len: u32,
}

/// Where [`Bucket::move_to`] left things.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Moved {
    /// The carried instance's slot in the destination bucket.
    pub new_slot: u32,
    /// The owner whose instance the source's swap-remove moved into the vacated slot, if
    /// any: its owner → slot entry must now point at that slot.
    pub refilled_by: Option<u32>,
}

impl Bucket {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn len(&self) -> u32 {
        self.transforms.len() as u32
    }

    pub fn is_empty(&self) -> bool {
        self.transforms.is_empty()
    }

    /// How many instances fit before the next reallocation (0 before the first push).
    pub fn capacity(&self) -> u32 {
        self.capacity
    }

    /// The live instances, slot order: what a GPU mirror uploads and draws.
    pub fn transforms(&self) -> &[Mat4] {
        &self.transforms
    }

    /// The owner of each live slot.
    pub fn owners(&self) -> &[u32] {
        &self.owners
    }

    /// Appends an instance and returns its slot. Amortised O(1): a full bucket doubles its
    /// capacity (the first allocation holds [`FIRST_CAPACITY`]).
    ///
    /// Precondition: the bucket holds fewer than `u32::MAX` instances.
    pub fn push(&mut self, owner: u32, transform: Mat4) -> u32 {
        let slot = self.len();
        debug_assert!(
            slot < u32::MAX,
            "a bucket holds at most u32::MAX - 1 instances"
        );
        if slot == self.capacity {
            self.grow();
        }
        self.transforms.push(transform);
        self.owners.push(owner);
        self.dirty.mark(slot);
        slot
    }

    /// Sets the free `w` of the first column of the transform at `slot` (a placement's
    /// matrix is affine, so it carries a draw's fade: see
    /// [`crate::PlacementRegistry::set_fade_in`]), marking the slot dirty.
    ///
    /// Precondition: `slot < len()`.
    pub fn set_fade(&mut self, slot: u32, fade: f32) {
        self.transforms[slot as usize].x_axis.w = fade;
        self.dirty.mark(slot);
    }

    /// Removes the instance at `slot` by moving the last instance into it. O(1) whatever
    /// the bucket's size. Returns the owner of the instance that now sits at `slot`, if one
    /// was moved there (none when `slot` was the last one).
    ///
    /// Precondition: `slot < len()`.
    pub fn swap_remove(&mut self, slot: u32) -> Option<u32> {
        debug_assert!(slot < self.len(), "slot {slot} of {}", self.len());
        let index = slot as usize;
        self.transforms.swap_remove(index);
        self.owners.swap_remove(index);
        let refilled_by = self.owners.get(index).copied();
        if refilled_by.is_some() {
            self.dirty.mark(slot);
        }
        refilled_by
    }

    /// Carries the instance at `slot` into `destination` (a sibling LOD bucket), then
    /// swap-removes it here. Allocates nothing unless `destination` is full.
    ///
    /// The transform travels in `carry`, a value owned by this call alone: nothing the
    /// swap-remove touches can overwrite it. (The prototype read it into a scratch matrix
    /// that the swap-remove reused and so delivered the wrong transform about 1/len of the
    /// time.)
    ///
    /// Precondition: `slot < len()`.
    pub fn move_to(&mut self, slot: u32, destination: &mut Bucket) -> Moved {
        debug_assert!(slot < self.len(), "slot {slot} of {}", self.len());
        let index = slot as usize;
        let carry: Mat4 = self.transforms[index];
        let owner = self.owners[index];
        let refilled_by = self.swap_remove(slot);
        let new_slot = destination.push(owner, carry);
        Moved {
            new_slot,
            refilled_by,
        }
    }

    /// Points `slot`'s back-reference at `owner`, for when the owner's index changed
    /// because its own table swap-removed another entry. The transform is untouched, so
    /// there is nothing to upload.
    ///
    /// Precondition: `slot < len()`.
    pub fn reassign_owner(&mut self, slot: u32, owner: u32) {
        debug_assert!(slot < self.len(), "slot {slot} of {}", self.len());
        self.owners[slot as usize] = owner;
    }

    /// Whether [`Self::drain_changes`] has anything to report.
    pub fn has_changes(&self) -> bool {
        self.grown || !self.dirty.is_empty() || self.drained_len != self.len()
    }

    /// Hands a GPU mirror what changed since the last drain, and forgets it.
    ///
    /// Appends the runs of live slots written since then to `dirty_runs` (increasing,
    /// disjoint) and returns `Some(new_capacity)` if the bucket grew: the mirror then
    /// allocates that many instances, copies the live range it already had from its old
    /// buffer, drops the old one, and uploads the dirty runs. Every live slot not in a run
    /// is unchanged since the previous drain.
    pub fn drain_changes(&mut self, dirty_runs: &mut Vec<Range<u32>>) -> Option<u32> {
        self.dirty.drain_into(self.len(), dirty_runs);
        self.drained_len = self.len();
        std::mem::take(&mut self.grown).then_some(self.capacity)
    }

    fn grow(&mut self) {
        let new_capacity = if self.capacity == 0 {
            FIRST_CAPACITY
        } else {
            self.capacity.saturating_mul(2)
        };
        let extra = (new_capacity - self.capacity) as usize;
        self.transforms.reserve_exact(extra);
        self.owners.reserve_exact(extra);
        self.dirty.grow_to(new_capacity);
        self.capacity = new_capacity;
        self.grown = true;
    }
}

#[cfg(test)]
mod tests {
    use glam::{Quat, Vec3};

    use super::*;

    /// A transform that differs from every other one the tests make.
    fn distinct(n: u32) -> Mat4 {
        Mat4::from_scale_rotation_translation(
            Vec3::splat(1.0 + n as f32 * 0.01),
            Quat::from_rotation_y(n as f32 * 0.1),
            Vec3::new(n as f32, 0.5 * n as f32, -(n as f32)),
        )
    }

    fn filled(count: u32) -> Bucket {
        let mut bucket = Bucket::new();
        for owner in 0..count {
            assert_eq!(bucket.push(owner, distinct(owner)), owner);
        }
        bucket
    }

    #[test]
    fn capacity_starts_at_the_first_allocation_and_doubles() {
        let mut bucket = Bucket::new();
        assert_eq!(bucket.capacity(), 0);
        let mut seen = vec![];
        for owner in 0..100 {
            bucket.push(owner, distinct(owner));
            if seen.last() != Some(&bucket.capacity()) {
                seen.push(bucket.capacity());
            }
        }
        assert_eq!(seen, vec![16, 32, 64, 128]);
    }

    #[test]
    fn swap_remove_moves_the_last_instance_into_the_hole_and_names_its_owner() {
        let mut bucket = filled(5);
        assert_eq!(bucket.swap_remove(1), Some(4));
        assert_eq!(bucket.owners(), &[0, 4, 2, 3]);
        assert_eq!(bucket.transforms()[1], distinct(4));
    }

    #[test]
    fn swap_remove_of_the_last_slot_moves_nothing() {
        let mut bucket = filled(3);
        assert_eq!(bucket.swap_remove(2), None);
        assert_eq!(bucket.owners(), &[0, 1]);
    }

    #[test]
    fn move_carries_the_transform_of_a_slot_that_is_not_the_last() {
        // The prototype's bug delivered the source's last transform instead of the carried
        // one whenever the moved slot was not the last: exercise exactly that case, for
        // every slot of the source.
        for moved_slot in 0..7 {
            let mut source = filled(8);
            let mut destination = filled(3);
            let moved = source.move_to(moved_slot, &mut destination);
            assert_eq!(moved.new_slot, 3);
            assert_eq!(moved.refilled_by, Some(7));
            assert_eq!(destination.transforms()[3], distinct(moved_slot));
            assert_eq!(destination.owners()[3], moved_slot);
            assert_eq!(source.transforms()[moved_slot as usize], distinct(7));
            assert_eq!(source.owners()[moved_slot as usize], 7);
        }
    }

    #[test]
    fn move_of_the_last_slot_refills_nothing() {
        let mut source = filled(4);
        let mut destination = Bucket::new();
        let moved = source.move_to(3, &mut destination);
        assert_eq!(
            moved,
            Moved {
                new_slot: 0,
                refilled_by: None
            }
        );
        assert_eq!(destination.transforms(), &[distinct(3)]);
    }

    #[test]
    fn drain_reports_growth_once_and_the_slots_written() {
        let mut bucket = filled(20);
        let mut runs = vec![];
        assert_eq!(bucket.drain_changes(&mut runs), Some(32));
        assert_eq!(runs, vec![0..20]);
        assert!(!bucket.has_changes());

        runs.clear();
        bucket.swap_remove(5);
        bucket.push(99, distinct(99));
        assert_eq!(bucket.drain_changes(&mut runs), None);
        assert_eq!(runs, vec![5..6, 19..20]);
    }

    #[test]
    fn removing_the_last_slot_leaves_nothing_to_upload() {
        let mut bucket = filled(4);
        bucket.drain_changes(&mut vec![]);
        bucket.swap_remove(3);
        let mut runs = vec![];
        assert_eq!(bucket.drain_changes(&mut runs), None);
        assert_eq!(runs, vec![]);
        assert_eq!(bucket.len(), 3);
    }
}

//! Which slots of a bucket changed since a GPU mirror last caught up.
//!
//! A bitset rather than a list of ranges: marking a slot is O(1) and never allocates
//! (the set is sized with the bucket's capacity), however many edits pile up between two
//! drains. The drain turns the bits into maximal runs, scanning only the words between the
//! lowest and highest slot marked since the last drain.

use std::ops::Range;

const WORD_BITS: u32 = u64::BITS;

#[derive(Debug, Default, Clone)]
pub(crate) struct DirtySlots {
    words: Vec<u64>,
    /// Lowest slot marked since the last drain (meaningless while `marked_end == 0`).
    marked_start: u32,
    /// One past the highest slot marked since the last drain; 0 when nothing is marked.
    marked_end: u32,
}

impl DirtySlots {
    /// Makes room for slots `0..capacity`; marks already set are kept.
    pub(crate) fn grow_to(&mut self, capacity: u32) {
        self.words.resize(capacity.div_ceil(WORD_BITS) as usize, 0);
    }

    /// Precondition: `slot` is below the capacity given to [`Self::grow_to`].
    pub(crate) fn mark(&mut self, slot: u32) {
        self.words[(slot / WORD_BITS) as usize] |= 1 << (slot % WORD_BITS);
        if self.marked_end == 0 {
            self.marked_start = slot;
            self.marked_end = slot + 1;
        } else {
            self.marked_start = self.marked_start.min(slot);
            self.marked_end = self.marked_end.max(slot + 1);
        }
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.marked_end == 0
    }

    /// Appends the maximal runs of marked slots below `live_len` to `runs`, in increasing
    /// order, and clears every mark. Marks at or past `live_len` are dropped: those slots
    /// hold no instance any more, so there is nothing to upload for them.
    pub(crate) fn drain_into(&mut self, live_len: u32, runs: &mut Vec<Range<u32>>) {
        if self.marked_end == 0 {
            return;
        }
        let first_run_of_this_drain = runs.len();
        let end = self.marked_end.min(live_len);
        let first_word = self.marked_start / WORD_BITS;
        let last_word = (self.marked_end - 1) / WORD_BITS;
        for word_index in first_word..=last_word {
            let base = word_index * WORD_BITS;
            let mut bits = std::mem::take(&mut self.words[word_index as usize]);
            if base >= end {
                continue;
            }
            if end - base < WORD_BITS {
                bits &= (1u64 << (end - base)) - 1;
            }
            while bits != 0 {
                let run_start = bits.trailing_zeros();
                let run_len = (!(bits >> run_start)).trailing_zeros();
                let run_end = run_start + run_len;
                bits = if run_end >= WORD_BITS {
                    0
                } else {
                    bits & (u64::MAX << run_end)
                };
                let run = base + run_start..base + run_end;
                match runs[first_run_of_this_drain..].last_mut() {
                    Some(last) if last.end == run.start => last.end = run.end,
                    _ => runs.push(run),
                }
            }
        }
        self.marked_start = 0;
        self.marked_end = 0;
    }
}

#[cfg(test)]
// Lists of dirty runs that happen to hold one run are meant as lists.
#[allow(clippy::single_range_in_vec_init)]
mod tests {
    use super::*;

    fn drained(dirty: &mut DirtySlots, live_len: u32) -> Vec<Range<u32>> {
        let mut runs = Vec::new();
        dirty.drain_into(live_len, &mut runs);
        runs
    }

    fn with_capacity(capacity: u32) -> DirtySlots {
        let mut dirty = DirtySlots::default();
        dirty.grow_to(capacity);
        dirty
    }

    #[test]
    fn marks_coalesce_into_maximal_runs_across_word_boundaries() {
        let mut dirty = with_capacity(256);
        for slot in [3, 4, 5, 62, 63, 64, 65, 130, 200] {
            dirty.mark(slot);
        }
        assert_eq!(
            drained(&mut dirty, 256),
            vec![3..6, 62..66, 130..131, 200..201]
        );
    }

    #[test]
    fn a_full_word_is_one_run() {
        let mut dirty = with_capacity(192);
        for slot in 64..128 {
            dirty.mark(slot);
        }
        assert_eq!(drained(&mut dirty, 192), vec![64..128]);
    }

    #[test]
    fn drain_clears_the_marks() {
        let mut dirty = with_capacity(64);
        dirty.mark(7);
        assert_eq!(drained(&mut dirty, 64), vec![7..8]);
        assert!(dirty.is_empty());
        assert_eq!(drained(&mut dirty, 64), vec![]);
    }

    #[test]
    fn marks_past_the_live_length_are_dropped_not_reported_later() {
        let mut dirty = with_capacity(128);
        for slot in [10, 11, 12, 70, 100] {
            dirty.mark(slot);
        }
        assert_eq!(drained(&mut dirty, 12), vec![10..12]);
        assert_eq!(drained(&mut dirty, 128), vec![]);
    }

    #[test]
    fn runs_of_one_drain_never_merge_with_runs_already_in_the_list() {
        let mut dirty = with_capacity(64);
        dirty.mark(0);
        let mut runs = vec![0..0];
        dirty.drain_into(64, &mut runs);
        assert_eq!(runs, vec![0..0, 0..1]);
    }

    #[test]
    fn growing_keeps_existing_marks() {
        let mut dirty = with_capacity(16);
        dirty.mark(15);
        dirty.grow_to(1024);
        dirty.mark(1000);
        assert_eq!(drained(&mut dirty, 1024), vec![15..16, 1000..1001]);
    }
}

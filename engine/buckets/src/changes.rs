//! What a GPU mirror of the registry's buckets must do to catch up: filled by
//! [`crate::PlacementRegistry::drain_changes`], reused from frame to frame so draining
//! allocates nothing once the vectors have grown to their working size.

use std::ops::Range;

use crate::{Bucket, BucketKey};

/// The changes to every bucket since the previous drain. Apply them in this order:
/// 1. drop the GPU buffers of [`Self::removed`] buckets (a key the mirror never saw can be
///    ignored; a removed key may reappear among the updates as a new, empty-born bucket);
/// 2. for each of [`Self::updates`]: reallocate if asked, then upload its dirty runs.
#[derive(Debug, Default, Clone)]
pub struct BucketChanges {
    removed: Vec<BucketKey>,
    updates: Vec<BucketUpdate>,
    dirty_runs: Vec<Range<u32>>,
}

/// One bucket's changes since the previous drain.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BucketUpdate {
    pub key: BucketKey,
    /// Live instances now: draw this many.
    pub len: u32,
    /// `Some(capacity)` when the bucket grew: allocate a buffer of that many instances,
    /// copy the live range of the old buffer (if any) into it, then drop the old one.
    pub reallocate_to: Option<u32>,
    runs: Range<usize>,
}

impl BucketChanges {
    pub fn removed(&self) -> &[BucketKey] {
        &self.removed
    }

    pub fn updates(&self) -> &[BucketUpdate] {
        &self.updates
    }

    /// The slot runs of `update`'s bucket to upload from its transforms: increasing and
    /// disjoint. Every other live slot is unchanged since the previous drain.
    pub fn dirty_runs(&self, update: &BucketUpdate) -> &[Range<u32>] {
        &self.dirty_runs[update.runs.clone()]
    }

    pub fn is_empty(&self) -> bool {
        self.removed.is_empty() && self.updates.is_empty()
    }

    pub(crate) fn clear(&mut self) {
        self.removed.clear();
        self.updates.clear();
        self.dirty_runs.clear();
    }

    pub(crate) fn take_removed(&mut self, removed: &mut Vec<BucketKey>) {
        self.removed.append(removed);
    }

    /// Drains `bucket`'s change log into an update, if it has anything to report.
    /// Called for buckets whose [`Bucket::has_changes`] holds.
    pub(crate) fn record(&mut self, key: BucketKey, bucket: &mut Bucket) {
        let first_run = self.dirty_runs.len();
        let reallocate_to = bucket.drain_changes(&mut self.dirty_runs);
        let runs = first_run..self.dirty_runs.len();
        self.updates.push(BucketUpdate {
            key,
            len: bucket.len(),
            reallocate_to,
            runs,
        });
    }
}

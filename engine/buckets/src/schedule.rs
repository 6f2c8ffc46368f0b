//! When each placement's LOD proof runs out: a calendar of the camera's odometer in
//! slots of [`SLOT_M`], a ring of [`SLOTS`] of them ahead (8 km of travel) and a heap for
//! the readings beyond, so scheduling a placement and taking those due cost O(1) each
//! (a heap operation only for one whose slack reaches past the ring, which no switch
//! short of the horizon gives). A slot's entries sit in chunks of a cache line from one
//! pool, so taking a slot reads them nearly contiguously and a warm calendar allocates
//! nothing. An entry comes out with its whole slot, up to a slot early: testing a
//! placement early is always sound, late never.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Metres of odometer per slot.
const SLOT_M: f64 = 0.5;

/// Slots in the ring: 8 km of travel ahead. An empty slot costs a step of the take.
const SLOTS: u64 = 16_384;

/// Rows a chunk holds: with its length and link, a 64-byte cache line.
const CHUNK_ROWS: usize = 14;

/// The end of a chain of chunks.
const NONE: u32 = u32::MAX;

#[derive(Debug, Clone, Copy)]
struct Chunk {
    rows: [u32; CHUNK_ROWS],
    len: u32,
    /// The next chunk of the same slot (or of the free list).
    next: u32,
}

#[derive(Debug, Clone)]
pub(crate) struct Schedule {
    /// Slot `s` (absolute) of the window `[next_slot, next_slot + SLOTS)` is the chain of
    /// chunks starting at `ring[s % SLOTS]`, the one being filled first.
    ring: Vec<u32>,
    chunks: Vec<Chunk>,
    /// The first free chunk, chained through `next`.
    free: u32,
    /// Entries due past the window, by slot.
    later: BinaryHeap<Reverse<(u64, u32)>>,
    /// Entries due at a reading already taken: they come out at the next take.
    overdue: Vec<u32>,
    /// The first slot not taken yet.
    next_slot: u64,
    /// Entries held, stale ones included.
    len: usize,
}

impl Default for Schedule {
    fn default() -> Self {
        Self {
            ring: vec![NONE; SLOTS as usize],
            chunks: Vec::new(),
            free: NONE,
            later: BinaryHeap::new(),
            overdue: Vec::new(),
            next_slot: 0,
            len: 0,
        }
    }
}

/// The slot an odometer reading (finite, non-negative metres) falls in.
pub(crate) fn slot_of(odometer: f64) -> u64 {
    (odometer.max(0.0) / SLOT_M) as u64
}

impl Schedule {
    /// Forgets every entry and starts again at the odometer reading `odometer`.
    pub(crate) fn restart_at(&mut self, odometer: f64) {
        self.ring.fill(NONE);
        // Every chunk is free again, chained in order.
        let count = self.chunks.len() as u32;
        for (chunk, next) in self.chunks.iter_mut().zip(1..) {
            chunk.next = if next < count { next } else { NONE };
        }
        self.free = if count > 0 { 0 } else { NONE };
        self.later.clear();
        self.overdue.clear();
        self.next_slot = slot_of(odometer);
        self.len = 0;
    }

    /// Entries held, stale ones included.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Schedules `row` for the odometer reading `due` (a reading already passed means
    /// the next take).
    pub(crate) fn push(&mut self, row: u32, due: f64) {
        let slot = slot_of(due);
        if slot < self.next_slot {
            self.overdue.push(row);
        } else if slot < self.next_slot + SLOTS {
            self.link(slot, row);
        } else {
            self.later.push(Reverse((slot, row)));
        }
        self.len += 1;
    }

    /// Adds `row` to slot `slot`'s first chunk, or to a new chunk at the head of its chain
    /// when that one is full.
    fn link(&mut self, slot: u64, row: u32) {
        let head = self.ring[(slot % SLOTS) as usize];
        if let Some(chunk) = self.chunks.get_mut(head as usize) {
            if (chunk.len as usize) < CHUNK_ROWS {
                chunk.rows[chunk.len as usize] = row;
                chunk.len += 1;
                return;
            }
        }
        let mut chunk = Chunk {
            rows: [0; CHUNK_ROWS],
            len: 1,
            next: head,
        };
        chunk.rows[0] = row;
        let index = if self.free == NONE {
            self.chunks.push(chunk);
            self.chunks.len() as u32 - 1
        } else {
            let index = self.free;
            self.free = self.chunks[index as usize].next;
            self.chunks[index as usize] = chunk;
            index
        };
        self.ring[(slot % SLOTS) as usize] = index;
    }

    /// Moves into `out` every entry whose slot the odometer has reached, and returns the
    /// last slot taken.
    pub(crate) fn take_due(&mut self, odometer: f64, out: &mut Vec<u32>) -> u64 {
        let last = slot_of(odometer);
        let before = out.len();
        out.append(&mut self.overdue);
        if last >= self.next_slot {
            let end = last.min(self.next_slot + SLOTS - 1);
            for slot in self.next_slot..=end {
                let mut index = std::mem::replace(&mut self.ring[(slot % SLOTS) as usize], NONE);
                while index != NONE {
                    let chunk = &mut self.chunks[index as usize];
                    out.extend_from_slice(&chunk.rows[..chunk.len as usize]);
                    let next = std::mem::replace(&mut chunk.next, self.free);
                    self.free = index;
                    index = next;
                }
            }
            while let Some(&Reverse((slot, row))) = self.later.peek() {
                if slot > last {
                    break;
                }
                self.later.pop();
                out.push(row);
            }
            self.next_slot = last + 1;
            // Bring what is now inside the window into the ring.
            while let Some(&Reverse((slot, row))) = self.later.peek() {
                if slot >= self.next_slot + SLOTS {
                    break;
                }
                self.later.pop();
                self.link(slot, row);
            }
        }
        self.len -= out.len() - before;
        last.max(self.next_slot.saturating_sub(1))
    }
}

const _: () = assert!(
    std::mem::size_of::<Chunk>() == 64,
    "a chunk is a cache line"
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_come_out_with_their_slot_never_after_it() {
        let mut schedule = Schedule::default();
        for (row, due) in [(0, 0.2), (1, 0.7), (2, 10.0), (3, 9_000.0), (4, 63.9)] {
            schedule.push(row, due);
        }
        let mut out = vec![];
        schedule.take_due(0.0, &mut out);
        assert_eq!(out, [0], "the first slot, 0.2 m early");
        out.clear();
        schedule.take_due(9.9, &mut out);
        assert_eq!(out, [1]);
        out.clear();
        schedule.take_due(100.0, &mut out);
        out.sort_unstable();
        assert_eq!(out, [2, 4], "a jump takes every slot passed");
        out.clear();
        schedule.push(5, 50.0);
        assert_eq!(schedule.len(), 2, "3 waits, and 5 is due at once");
        schedule.take_due(100.0, &mut out);
        assert_eq!(out, [5]);
        out.clear();
        schedule.take_due(8_999.9, &mut out);
        assert!(out.is_empty());
        schedule.take_due(9_000.2, &mut out);
        assert_eq!((out, schedule.len()), (vec![3], 0));
    }

    #[test]
    fn a_slot_holds_more_entries_than_a_chunk_and_far_ones_wait_in_the_heap() {
        let mut schedule = Schedule::default();
        for row in 0..40 {
            schedule.push(row, 3.2);
        }
        schedule.push(40, 20_010.0);
        let mut out = vec![];
        schedule.take_due(3.0, &mut out);
        out.sort_unstable();
        assert_eq!(out, (0..40).collect::<Vec<_>>());
        out.clear();
        schedule.take_due(19_999.0, &mut out);
        assert!(out.is_empty());
        // The freed chunks serve again, for the far entry and 40 more in its slot.
        let chunks = schedule.chunks.len();
        for row in 0..40 {
            schedule.push(row, 20_010.0);
        }
        assert_eq!(schedule.chunks.len(), chunks);
        schedule.take_due(20_010.0, &mut out);
        assert_eq!((out.len(), schedule.len()), (41, 0));
    }
}

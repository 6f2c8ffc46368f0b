//! When each LOD cell is next checked: a calendar of the camera's odometer in slots of
//! [`SLOT_M`], a ring of [`SLOTS`] of them ahead (8 km of travel) and a heap for the
//! readings beyond, so scheduling a cell and taking the cells due cost O(1) each (a
//! heap operation only for a cell whose slack reaches past the ring, which no switch
//! short of the horizon gives). A cell comes out with its whole slot, up to a slot
//! early: checking a cell early is always sound, late never.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Metres of odometer per slot.
const SLOT_M: f64 = 0.5;

/// Slots in the ring: 8 km of travel ahead. An empty slot costs a step of the take.
const SLOTS: u64 = 16_384;

#[derive(Debug, Clone)]
pub(crate) struct Schedule {
    /// Slot `s` (absolute) of the window `[next_slot, next_slot + SLOTS)` is
    /// `ring[s % SLOTS]`.
    ring: Vec<Vec<u32>>,
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
            ring: vec![Vec::new(); SLOTS as usize],
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
    /// Forgets every entry and starts again at odometer 0.
    pub(crate) fn clear(&mut self) {
        self.ring.iter_mut().for_each(Vec::clear);
        self.later.clear();
        self.overdue.clear();
        self.next_slot = 0;
        self.len = 0;
    }

    /// Entries held, stale ones included.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Schedules `cell` for the odometer reading `due` (a reading already passed means
    /// the next take).
    pub(crate) fn push(&mut self, cell: u32, due: f64) {
        let slot = slot_of(due);
        if slot < self.next_slot {
            self.overdue.push(cell);
        } else if slot < self.next_slot + SLOTS {
            self.ring[(slot % SLOTS) as usize].push(cell);
        } else {
            self.later.push(Reverse((slot, cell)));
        }
        self.len += 1;
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
                out.append(&mut self.ring[(slot % SLOTS) as usize]);
            }
            while let Some(&Reverse((slot, cell))) = self.later.peek() {
                if slot > last {
                    break;
                }
                self.later.pop();
                out.push(cell);
            }
            self.next_slot = last + 1;
            // Bring what is now inside the window into the ring.
            while let Some(&Reverse((slot, cell))) = self.later.peek() {
                if slot >= self.next_slot + SLOTS {
                    break;
                }
                self.later.pop();
                self.ring[(slot % SLOTS) as usize].push(cell);
            }
        }
        self.len -= out.len() - before;
        last.max(self.next_slot.saturating_sub(1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_come_out_with_their_slot_never_after_it() {
        let mut schedule = Schedule::default();
        for (cell, due) in [(0, 0.2), (1, 0.7), (2, 10.0), (3, 9_000.0), (4, 63.9)] {
            schedule.push(cell, due);
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
}

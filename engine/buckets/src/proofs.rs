//! Per placement, how long its level provably holds, and a calendar of when each proof
//! runs out, so a distance relevel tests only the placements that may have changed.
//!
//! A placement's proof is its *slack*: how far the camera may move before its distance
//! could leave the range the rule keeps its level over. The camera's odometer (the
//! distance it travelled between passes) bounds its distance from any earlier position
//! by the triangle inequality, so a placement tested at reading `o` with slack `s` keeps
//! its level until the odometer passes `o + s`, and is scheduled for then
//! (`schedule.rs`). A flying camera's pass therefore costs the placements within a
//! step of one of their own switch distances — a thin annulus around each switch, per
//! prop and scale — whatever the world's size; a still camera's costs nothing; a new
//! rule revision tests every placement in row order and files every proof again; a
//! jump that makes a large share due at once, or a prop described anew, finds the rows
//! due (and the prop's own) in one scan of the rows and files only theirs again.
//!
//! A pass may be spread over several steps ([`LevelProofs::begin`], then
//! [`LevelProofs::advance`]): it lists its due rows at its start and tests them, a
//! share a step, all from the camera and odometer reading it began at, so it ends with
//! the levels it would have given at once. Rows pushed meanwhile are not in it (they
//! are tested at the next pass); a row given a level from outside leaves it (the level
//! was given after the pass, in effect); a row swap-removed into another index takes
//! its place in the list with it.
//!
//! Invariants, kept by [`LevelProofs::push`], [`LevelProofs::swap_remove`] and
//! [`LevelProofs::note_level`] (the table calls them for every row it writes):
//! - a row's `levels` entry is the table's level for it;
//! - a row's `holds_until` is an odometer reading up to which, under the last pass's
//!   rule revision, its level is kept for every camera within that much travel of its
//!   last test; a row given a level from outside a pass, or new, holds until now;
//! - every row with a finite `holds_until` has an entry in the schedule no later than
//!   it (entries for rows since re-proven or moved are stale: a stale entry costs an
//!   early test, which is always sound), or is `due` in the pass under way;
//! - a row is `due` only while a pass is under way and lists its index.

use glam::{DVec3, Vec3};

use crate::distance::{DistanceLevels, Member};
use crate::schedule::{slot_of, Schedule};
use crate::{PropKey, CULLED_LEVEL};

/// A placement's squared distance is computed in f32 (a subtraction, a square and a sum
/// per axis: within a relative 2⁻²¹ of the truth, more than twice over) and its proof in
/// f64; a placement counts as inside a range only with this margin to spare, so its f32
/// distance is inside too.
const RELATIVE_MARGIN: f64 = 1e-6;
/// The same for squared distances so small that f32 rounds them absolutely
/// (subnormals).
const ABSOLUTE_MARGIN: f64 = 1e-36;

/// A pass that finds more than a quarter of the rows due, and more than this many, tests
/// every row in order instead: reading the columns front to back beats following the
/// calendar's scattered rows.
const FULL_PASS_MIN_DUE: usize = 1_024;

/// What a pass reads and writes of a row, in one 32-byte record: the calendar hands
/// out rows in no spatial order, so each costs one cache line, not one per column.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Proof {
    /// The odometer reading up to which the level provably holds.
    holds_until: f64,
    /// The placement's origin.
    position: Vec3,
    /// What the rule sees of it: its prop and scale.
    member: Member,
    /// Its level: the table's, kept beside the proof made for it.
    level: u8,
    /// Listed by the pass under way, and not tested by it yet.
    due: bool,
}

const _: () = assert!(std::mem::size_of::<Proof>() == 32, "a proof is half a line");

#[derive(Debug, Default, Clone)]
pub(crate) struct LevelProofs {
    /// Per row.
    rows: Vec<Proof>,
    /// Rows by the odometer reading at which their proof runs out.
    schedule: Schedule,
    /// The distance the camera has travelled between passes; it only grows, so every
    /// reading stays comparable whatever passes came between.
    odometer: f64,
    /// The rows a pass takes from the schedule, kept for its allocation.
    due_now: Vec<u32>,
    last_pass: Option<LastPass>,
    /// The pass under way, while one is spread over steps.
    spread: Option<Spread>,
    /// By prop index: the rule's revision for the prop at the last pass, and whether it
    /// changed since (scratch of a pass). As long as the largest prop index pushed.
    prop_revisions: Vec<u64>,
    prop_changed: Vec<bool>,
}

/// A pass under way: where it tests from, and the rows it listed.
#[derive(Debug, Clone)]
struct Spread {
    camera: Vec3,
    camera_f64: DVec3,
    odometer: f64,
    /// Row indices: those still `due` are tested, the others skipped.
    rows: Vec<u32>,
    /// How many of `rows` are looked at already.
    next: usize,
    /// How many rows a step tests.
    per_step: usize,
}

/// Where the last pass was made, and under which revision of the rule.
#[derive(Debug, Clone)]
struct LastPass {
    camera: DVec3,
    revision: u64,
}

impl LevelProofs {
    /// Row `row` (the next one: rows are pushed in order) of `member` at `position` and
    /// `level`: tested at the next pass.
    pub(crate) fn push(&mut self, row: u32, member: Member, position: Vec3, level: u8) {
        debug_assert_eq!(row as usize, self.rows.len());
        let props = member.prop.index() as usize + 1;
        if self.prop_revisions.len() < props {
            self.prop_revisions.resize(props, 0);
            self.prop_changed.resize(props, false);
        }
        self.rows.push(Proof {
            holds_until: self.odometer,
            position,
            member,
            level,
            due: false,
        });
        self.schedule_row(row);
    }

    /// Row `row` is now at `level`: unless a pass chose it (and proved it), it is tested
    /// at the next one, and not by the pass under way.
    pub(crate) fn note_level(&mut self, row: u32, level: u8) {
        let r = row as usize;
        let proof = &mut self.rows[r];
        if proof.level != level || proof.due {
            proof.level = level;
            proof.due = false;
            proof.holds_until = self.odometer;
            self.schedule_row(row);
        }
    }

    /// Mirrors the table's swap-remove of `row`: the last row, if another, takes its
    /// index, and is scheduled there (and listed there by the pass under way, if it is
    /// due in it).
    pub(crate) fn swap_remove(&mut self, row: u32) {
        let r = row as usize;
        self.rows.swap_remove(r);
        if r < self.rows.len() {
            self.schedule_row(row);
            if self.rows[r].due {
                let spread = self.spread.as_mut().expect("a due row is in a pass");
                spread.rows.push(row);
            }
        }
    }

    /// Puts `row` in the schedule at its `holds_until`, unless it holds for ever.
    fn schedule_row(&mut self, row: u32) {
        let due = self.rows[row as usize].holds_until;
        if due.is_finite() {
            self.schedule.push(row, due);
            self.drop_stale_entries();
        }
    }

    /// Rebuilds the schedule from the rows' `holds_until` once stale entries outnumber the
    /// rows, so it stays within twice their count, in its own allocation.
    fn drop_stale_entries(&mut self) {
        if self.schedule.len() <= 2 * self.rows.len() + 64 {
            return;
        }
        self.schedule.restart_at(self.odometer);
        for (proof, row) in self.rows.iter().zip(0u32..) {
            if proof.holds_until.is_finite() {
                self.schedule.push(row, proof.holds_until);
            }
        }
    }

    /// Every row with what a rule sees of it and its position, in row order.
    pub(crate) fn rows(&self) -> impl Iterator<Item = (u32, Member, Vec3)> + '_ {
        (0u32..)
            .zip(&self.rows)
            .map(|(row, proof)| (row, proof.member, proof.position))
    }

    /// Pushes `(row, level)` onto `changes` for every row whose level `rule` changes for
    /// a camera at `camera`, testing only the rows whose proof the camera's travel used
    /// up under the same rule revision, every row otherwise. Returns the rows tested.
    ///
    /// The levels are exactly those testing every row would give: a row not tested is
    /// inside its level's kept range.
    #[cfg(test)]
    pub(crate) fn relevel(
        &mut self,
        camera: Vec3,
        rule: &impl DistanceLevels,
        changes: &mut Vec<(u32, u8)>,
    ) -> u32 {
        self.begin(camera, rule, 1, changes)
    }

    /// [`Self::relevel`] spread over `steps` steps: this one and as many calls of
    /// [`Self::advance`], which test the rows it lists from `camera` a share at a time.
    /// A pass under way is finished first, by `rule`. Returns the rows tested now.
    pub(crate) fn begin(
        &mut self,
        camera: Vec3,
        rule: &impl DistanceLevels,
        steps: u32,
        changes: &mut Vec<(u32, u8)>,
    ) -> u32 {
        let finished = self.finish(rule, changes);
        if !camera.is_finite() {
            // No distance is then below or above a kept range: every row stays.
            return finished;
        }
        let revision = rule.revision();
        let camera_f64 = camera.as_dvec3();
        let mut due_now = std::mem::take(&mut self.due_now);
        let last_slot = match self.last_pass.as_ref() {
            Some(last) if last.revision == revision => {
                self.odometer += last.camera.distance(camera_f64);
                Some(self.schedule.take_due(self.odometer, &mut due_now))
            }
            _ => None,
        };
        let props_changed = self.note_prop_revisions(rule);
        match last_slot {
            Some(last_slot)
                if !props_changed
                    && due_now.len() <= FULL_PASS_MIN_DUE.max(self.rows.len() / 4) =>
            {
                // In row order, each row once however many entries it had; a stale
                // entry (the row was removed, or re-proven past this pass) dropped.
                due_now.sort_unstable();
                due_now.dedup();
                due_now.retain(|&row| {
                    (self.rows.get(row as usize))
                        .is_some_and(|proof| slot_of(proof.holds_until) <= last_slot)
                });
            }
            Some(last_slot) => {
                // One scan of the rows for those due or of a prop described anew. The
                // others' entries lie past the slots taken, still in the schedule.
                due_now.clear();
                due_now.extend((0u32..).zip(&self.rows).filter_map(|(row, proof)| {
                    let retest = slot_of(proof.holds_until) <= last_slot
                        || self.prop_changed[proof.member.prop.index() as usize];
                    retest.then_some(row)
                }));
            }
            None => {
                // A new rule revision: every row tested, every proof filed again.
                self.schedule.restart_at(self.odometer);
                due_now.clear();
                due_now.extend(0..self.rows.len() as u32);
            }
        }
        for &row in &due_now {
            self.rows[row as usize].due = true;
        }
        let per_step = if steps <= 1 {
            usize::MAX
        } else {
            due_now.len().div_ceil(steps as usize)
        };
        self.spread = Some(Spread {
            camera,
            camera_f64,
            odometer: self.odometer,
            rows: due_now,
            next: 0,
            per_step,
        });
        self.last_pass = Some(LastPass {
            camera: camera_f64,
            revision,
        });
        finished + self.advance(rule, changes)
    }

    /// Tests the next share of the pass under way (nothing if none is), by `rule`:
    /// the rule it began with. Returns the rows tested.
    pub(crate) fn advance(
        &mut self,
        rule: &impl DistanceLevels,
        changes: &mut Vec<(u32, u8)>,
    ) -> u32 {
        let Some(mut spread) = self.spread.take() else {
            return 0;
        };
        let mut pass = Pass {
            camera: spread.camera,
            camera_f64: spread.camera_f64,
            rule,
            odometer: spread.odometer,
            changes,
            tested: 0,
        };
        while (pass.tested as usize) < spread.per_step {
            let Some(&row) = spread.rows.get(spread.next) else {
                break;
            };
            spread.next += 1;
            let Some(proof) = self.rows.get_mut(row as usize) else {
                continue;
            };
            if !proof.due {
                continue;
            }
            proof.due = false;
            self.test(row, &mut pass);
            self.schedule_row(row);
        }
        let tested = pass.tested;
        if spread.next < spread.rows.len() {
            self.spread = Some(spread);
        } else {
            spread.rows.clear();
            self.due_now = spread.rows;
        }
        tested
    }

    /// Tests what the pass under way has left, by `rule` (the rule it began with).
    pub(crate) fn finish(
        &mut self,
        rule: &impl DistanceLevels,
        changes: &mut Vec<(u32, u8)>,
    ) -> u32 {
        let mut tested = 0;
        while self.spread.is_some() {
            tested += self.advance(rule, changes);
        }
        tested
    }

    /// Whether a pass is under way.
    pub(crate) fn under_way(&self) -> bool {
        self.spread.is_some()
    }

    /// Gives up the pass under way: the rows it has not tested keep their levels and are
    /// tested at the next pass.
    pub(crate) fn abandon(&mut self) {
        let Some(mut spread) = self.spread.take() else {
            return;
        };
        for &row in &spread.rows[spread.next..] {
            let Some(proof) = self.rows.get_mut(row as usize) else {
                continue;
            };
            if proof.due {
                proof.due = false;
                proof.holds_until = self.odometer;
                self.schedule_row(row);
            }
        }
        spread.rows.clear();
        self.due_now = spread.rows;
    }

    /// Notes the rule's revision for every prop pushed so far, marking in
    /// `prop_changed` those that changed since the last pass; true if any did.
    fn note_prop_revisions(&mut self, rule: &impl DistanceLevels) -> bool {
        let mut any = false;
        for (index, (seen, changed)) in
            (0u32..).zip(self.prop_revisions.iter_mut().zip(&mut self.prop_changed))
        {
            let revision = rule.prop_revision(PropKey(index));
            *changed = revision != *seen;
            any |= *changed;
            *seen = revision;
        }
        any
    }

    /// Tests row `row` from `pass`'s camera: records a change of level, and proves the
    /// level it is left at for as far as the camera may go.
    fn test(&mut self, row: u32, pass: &mut Pass<'_, impl DistanceLevels>) {
        let proof = &mut self.rows[row as usize];
        let (member, position, level) = (proof.member, proof.position, proof.level);
        pass.tested += 1;
        let chosen = pass
            .rule
            .next_level(member, level, position.distance_squared(pass.camera));
        let level = if chosen == level {
            level
        } else {
            debug_assert!(chosen <= CULLED_LEVEL, "level {chosen} out of range");
            let clamped = chosen.min(CULLED_LEVEL);
            pass.changes.push((row, clamped));
            proof.level = clamped;
            clamped
        };
        let distance = position.as_dvec3().distance(pass.camera_f64);
        let kept = pass.rule.keeps_level(member, level);
        proof.holds_until = pass.odometer + slack(*kept.start(), *kept.end(), distance);
    }
}

/// How far the camera may move while a placement at `distance` stays inside the kept
/// squared distances `[low, high]` with the f32 margins: 0 when it is not inside now (or
/// either is NaN). Shrunk a little, so f64 rounding in the distances and the odometer
/// cannot stretch it.
fn slack(low: f32, high: f32, distance: f64) -> f64 {
    let (low, high) = (f64::from(low), f64::from(high));
    // No squared distance is below 0: a range from 0 holds whatever the margin.
    let from_low = if low <= 0.0 {
        f64::INFINITY
    } else {
        distance
            - ((low + ABSOLUTE_MARGIN) / (1.0 - RELATIVE_MARGIN))
                .max(0.0)
                .sqrt()
    };
    let from_high = ((high - ABSOLUTE_MARGIN) / (1.0 + RELATIVE_MARGIN))
        .max(0.0)
        .sqrt()
        - distance;
    let slack = from_low.min(from_high);
    if slack.is_nan() || slack <= 0.0 {
        return 0.0;
    }
    (slack * (1.0 - 1e-9) - 1e-6).max(0.0)
}

/// One relevel's camera and rule, the odometer reading it is made at, and what it found.
struct Pass<'a, R> {
    camera: Vec3,
    camera_f64: DVec3,
    rule: &'a R,
    odometer: f64,
    changes: &'a mut Vec<(u32, u8)>,
    tested: u32,
}

#[cfg(test)]
mod tests {
    use std::ops::RangeInclusive;

    use super::*;
    use crate::PropKey;

    /// Stays while `d²` is in `[100, 400]`, else goes to level 1 (level 1 always stays).
    struct Ring;

    impl DistanceLevels for Ring {
        fn next_level(&self, _: Member, level: u8, distance_sq: f32) -> u8 {
            if level == 1 || (100.0..=400.0).contains(&distance_sq) {
                level
            } else {
                1
            }
        }

        fn keeps_level(&self, _: Member, level: u8) -> RangeInclusive<f32> {
            if level == 1 {
                0.0..=f32::INFINITY
            } else {
                100.0..=400.0
            }
        }

        fn revision(&self) -> u64 {
            0
        }
    }

    const MEMBER: Member = Member {
        prop: PropKey(0),
        scale: 1.0,
    };

    fn proofs_of(rows: &[(Vec3, u8)]) -> LevelProofs {
        let mut proofs = LevelProofs::default();
        for (row, &(position, level)) in (0..).zip(rows) {
            proofs.push(row, MEMBER, position, level);
        }
        proofs
    }

    /// `count` rows at level 0, `distance` m out along x, a millimetre apart along z.
    fn in_a_row(count: usize, distance: f32) -> LevelProofs {
        let rows: Vec<_> = (0..count)
            .map(|i| (Vec3::new(distance, 0.0, i as f32 * 1e-3), 0))
            .collect();
        proofs_of(&rows)
    }

    #[test]
    fn a_row_is_not_tested_until_the_camera_travelled_its_slack() {
        let mut proofs = proofs_of(&[
            (Vec3::new(12.0, 0.0, 0.0), 0),
            (Vec3::new(15.0, 0.0, 0.0), 0),
            (Vec3::new(500.0, 0.0, 0.0), 1),
        ]);
        let mut changes = vec![];
        let tested = proofs.relevel(Vec3::ZERO, &Ring, &mut changes);
        assert_eq!(
            (tested, changes.len()),
            (3, 0),
            "a first pass tests every row"
        );
        assert!((4.99..5.0).contains(&proofs.rows[1].holds_until));
        assert_eq!(proofs.rows[2].holds_until, f64::INFINITY, "kept anywhere");

        // 1 m of travel: nothing is due, nothing is looked at.
        let tested = proofs.relevel(Vec3::new(-1.0, 0.0, 0.0), &Ring, &mut changes);
        assert_eq!(tested, 0);
        // 2 m more: the row at 12 m (2 m of slack) is due, 15 m out, and stays; the row
        // at 15 m has 2 m of its 5 left.
        let tested = proofs.relevel(Vec3::new(-3.0, 0.0, 0.0), &Ring, &mut changes);
        assert_eq!((tested, changes.len()), (1, 0));
        // 3 m more: the row at 15 m is 21 m out and leaves level 0.
        let tested = proofs.relevel(Vec3::new(-6.0, 0.0, 0.0), &Ring, &mut changes);
        assert_eq!((tested, changes), (1, vec![(1, 1)]));
    }

    #[test]
    fn a_new_row_and_a_level_given_from_outside_are_tested_at_the_next_pass() {
        let mut proofs = proofs_of(&[(Vec3::new(15.0, 0.0, 0.0), 0)]);
        let mut changes = vec![];
        proofs.relevel(Vec3::ZERO, &Ring, &mut changes);
        proofs.push(1, MEMBER, Vec3::new(-700.0, 0.0, 0.0), 0);
        let tested = proofs.relevel(Vec3::ZERO, &Ring, &mut changes);
        assert_eq!((tested, changes), (1, vec![(1, 1)]));

        // Level 1 holds anywhere; given back level 0 from outside, row 1 is re-banded.
        let mut changes = vec![];
        proofs.note_level(1, 0);
        let tested = proofs.relevel(Vec3::ZERO, &Ring, &mut changes);
        assert_eq!((tested, changes), (1, vec![(1, 1)]));
        // A level a pass chose is proven by it: noting it again changes nothing.
        proofs.note_level(1, 1);
        assert_eq!(proofs.relevel(Vec3::ZERO, &Ring, &mut vec![]), 0);
    }

    #[test]
    fn a_swap_remove_moves_the_last_row_with_its_proof_and_schedules_it() {
        let mut proofs = proofs_of(&[
            (Vec3::new(15.0, 0.0, 0.0), 0),
            (Vec3::new(100.0, 0.0, 0.0), 1),
            (Vec3::new(12.0, 0.0, 0.0), 0),
        ]);
        let mut changes = vec![];
        proofs.relevel(Vec3::ZERO, &Ring, &mut changes);
        let (moved, kept) = (proofs.rows[2], proofs.rows[1]);
        proofs.swap_remove(0);
        assert_eq!(proofs.rows, [moved, kept]);
        assert_eq!(kept.holds_until, f64::INFINITY);
        // Its slack (2 m) used up, the moved row is tested under its new index.
        let tested = proofs.relevel(Vec3::new(-2.5, 0.0, 0.0), &Ring, &mut changes);
        assert_eq!((tested, changes.len()), (1, 0));
        proofs.swap_remove(1);
        assert_eq!(proofs.rows.len(), 1);
        assert_eq!(proofs.rows[0].position, moved.position);
    }

    #[test]
    fn a_jump_past_most_proofs_tests_every_row() {
        let mut proofs = in_a_row(2_000, 12.0);
        let mut changes = vec![];
        proofs.relevel(Vec3::ZERO, &Ring, &mut changes);
        let tested = proofs.relevel(Vec3::new(1_000.0, 0.0, 0.0), &Ring, &mut changes);
        assert_eq!((tested, changes.len()), (2_000, 2_000));
        assert!(proofs.rows.iter().all(|p| p.holds_until == f64::INFINITY));
    }

    /// [`Ring`], with prop 1's own revision `prop_1`.
    struct RingDescribed {
        prop_1: u64,
    }

    impl DistanceLevels for RingDescribed {
        fn next_level(&self, member: Member, level: u8, distance_sq: f32) -> u8 {
            Ring.next_level(member, level, distance_sq)
        }

        fn keeps_level(&self, member: Member, level: u8) -> RangeInclusive<f32> {
            Ring.keeps_level(member, level)
        }

        fn revision(&self) -> u64 {
            0
        }

        fn prop_revision(&self, prop: PropKey) -> u64 {
            if prop == PropKey(1) {
                self.prop_1
            } else {
                0
            }
        }
    }

    #[test]
    fn a_prop_described_anew_retests_its_own_rows_only() {
        let mut proofs = LevelProofs::default();
        for row in 0..6 {
            let member = Member {
                prop: PropKey(row % 2),
                scale: 1.0,
            };
            proofs.push(row, member, Vec3::new(15.0, 0.0, row as f32 * 0.1), 0);
        }
        let mut changes = vec![];
        let rule = RingDescribed { prop_1: 0 };
        assert_eq!(proofs.relevel(Vec3::ZERO, &rule, &mut changes), 6);
        assert_eq!(proofs.relevel(Vec3::ZERO, &rule, &mut changes), 0);
        let rule = RingDescribed { prop_1: 7 };
        assert_eq!(proofs.relevel(Vec3::ZERO, &rule, &mut changes), 3);
        assert_eq!(proofs.relevel(Vec3::ZERO, &rule, &mut changes), 0);
        assert!(changes.is_empty());
    }

    #[test]
    fn a_pass_spread_over_steps_tests_a_share_a_step_from_where_it_began() {
        let mut proofs = in_a_row(10, 15.0);
        let mut changes = vec![];
        assert_eq!(proofs.begin(Vec3::ZERO, &Ring, 3, &mut changes), 4);
        assert!(proofs.under_way());
        // Row 2 (tested) leaves and row 9 (not yet) takes its index with it; row 5, given
        // a level from outside, leaves the pass.
        proofs.swap_remove(2);
        proofs.note_level(5, 0);
        assert_eq!(proofs.advance(&Ring, &mut changes), 4, "rows 4, 6, 7, 8");
        assert!(proofs.under_way());
        assert_eq!(proofs.advance(&Ring, &mut changes), 1, "row 9, now 2");
        assert!(!proofs.under_way());
        // All from the camera the pass began at: 15 m out, level 0 stays.
        assert!(changes.is_empty());
        let proven = |p: &Proof| (4.9..5.0).contains(&p.holds_until);
        assert!((0..9).filter(|&r| r != 5).all(|r| proven(&proofs.rows[r])));
        assert!(!proven(&proofs.rows[5]));
        assert_eq!(
            proofs.relevel(Vec3::ZERO, &Ring, &mut changes),
            1,
            "row 5 is tested at the next pass"
        );
    }

    #[test]
    fn an_abandoned_pass_leaves_its_rows_to_the_next() {
        let mut proofs = in_a_row(6, 25.0);
        let mut changes = vec![];
        assert_eq!(proofs.begin(Vec3::ZERO, &Ring, 2, &mut changes), 3);
        proofs.abandon();
        assert!(!proofs.under_way() && proofs.rows.iter().all(|p| !p.due));
        let mut changes = vec![];
        assert_eq!(proofs.relevel(Vec3::ZERO, &Ring, &mut changes), 3);
        assert_eq!(changes, [(3, 1), (4, 1), (5, 1)]);
    }

    #[test]
    fn a_nan_camera_changes_nothing() {
        let mut proofs = proofs_of(&[(Vec3::new(50.0, 0.0, 0.0), 0)]);
        let mut changes = vec![];
        let tested = proofs.relevel(Vec3::NAN, &Ring, &mut changes);
        assert_eq!((tested, changes.len()), (0, 0));
    }

    #[test]
    fn slack_is_the_travel_left_inside_the_range_and_nothing_outside_it() {
        let close = |a: f64, b: f64| (a - b).abs() < 1e-4;
        assert!(close(slack(100.0, 400.0, 15.0), 5.0));
        assert!(close(slack(100.0, 400.0, 12.0), 2.0));
        assert_eq!(slack(0.0, f32::INFINITY, 1e9), f64::INFINITY);
        assert_eq!(slack(100.0, 400.0, 9.99), 0.0);
        assert_eq!(
            slack(100.0, 400.0, 20.0),
            0.0,
            "no margin left for f32 rounding"
        );
        assert_eq!(slack(100.0, 400.0, f64::NAN), 0.0);
        assert_eq!(slack(f32::INFINITY, 0.0, 15.0), 0.0, "an empty range");
    }
}

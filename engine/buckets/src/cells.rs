//! The placement table's rows grouped by prop and scale class in square cells of the
//! ground plane, each holding its members' positions and scales side by side and bounds
//! on their positions, scales and levels, so a distance relevel can prove a whole cell
//! keeps its levels from two distances and the squared-distance range the rule keeps
//! those levels over, and stream only the positions of the cells it cannot prove. One
//! prop and a narrow range of scales per cell keep that range as wide as the prop's own
//! switch distances allow.
//!
//! Each cell is checked again only once the camera may have moved far enough to change
//! one of its members: a check notes the cell's *slack*, how far the camera can move
//! before the cell's distance bounds could leave its kept range, and schedules the
//! next check for when the camera's odometer (the distance it travelled between
//! evaluations, which bounds its distance from any earlier position by the triangle
//! inequality) has grown by that much (`schedule.rs`). So a flying camera's pass costs
//! the cells whose slack ran out, those near one of their switches, not every cell in
//! view; a new rule revision checks every cell once.
//!
//! Invariants, kept by [`PlacementCells::push`], [`PlacementCells::swap_remove`] and
//! [`PlacementCells::note_level`] (the table calls them for every row it writes):
//! - a row is a member of exactly the cell of its prop and scale class that its `(x, z)`
//!   falls in;
//! - a cell's box holds every member's position, its scale range every member's scale
//!   and its level mask has every member's level bit. They may be wider than needed
//!   (removals do not shrink them); a relevel that tests a cell's members tightens them;
//! - a cell's cached kept range, when set, is the rule's for its current bounds at the
//!   last full pass's rule revision;
//! - a cell's `due` is its latest entry in the schedule: when the odometer reaches it the
//!   cell is checked; until then its bounds are the same or narrower than at its last
//!   check, which proved them inside its kept range for every camera within its slack of
//!   that check's, by the same rule revision. Bounds that grow make the cell due at once.

use std::collections::HashMap;
use std::ops::RangeInclusive;

use glam::{DVec3, Vec3};

use crate::schedule::{slot_of, Schedule};
use crate::{PropKey, CULLED_LEVEL};

/// Side of a cell, in metres (Godot's Terrain3D groups instances in cells of 32 m too).
/// A cell straddling a band's hysteresis margin is tested whole, so smaller cells test
/// fewer placements and larger ones cost fewer cell checks; at the densities sylva paints
/// (0.06–0.4 per m²) a cell holds 60–400 placements.
pub(crate) const CELL_M: f32 = 32.0;

/// Scale classes per doubling of scale: a cell holds placements whose scales differ by
/// less than `2^(1/4)`, so the scaled switch distances of its members spread by less
/// than 19 % and a cell straddles a switch over a narrow band of distances.
const SCALE_CLASSES_PER_OCTAVE: f32 = 4.0;

fn scale_class(scale: f32) -> i32 {
    // `as` saturates (and maps NaN to 0): odd scales share an end class, still bounded.
    (scale.log2() * SCALE_CLASSES_PER_OCTAVE).floor() as i32
}

/// What a distance rule knows of a placement besides its distance and level: its prop,
/// and its scale (the longest axis of its transform, as [`scale_of`] measures it).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Member {
    pub prop: PropKey,
    pub scale: f32,
}

/// A transform's scale as the LOD rules and the renderer's culling see it: the length of
/// its longest axis.
pub fn scale_of(transform: &glam::Mat4) -> f32 {
    transform
        .x_axis
        .truncate()
        .length()
        .max(transform.y_axis.truncate().length())
        .max(transform.z_axis.truncate().length())
}

/// How a placement's level follows its squared distance from the camera, for
/// [`crate::PlacementRegistry::relevel_by_distance`].
pub trait DistanceLevels {
    /// The level `member`, now at `level` and `distance_sq` (squared metres) from the
    /// camera, goes to; `level` itself to stay. [`CULLED_LEVEL`] takes it out of the
    /// buckets.
    fn next_level(&self, member: Member, level: u8, distance_sq: f32) -> u8;

    /// Squared distances over which `member` at `level` stays there: `next_level(member,
    /// level, d)` returns `level` for every `d` in the range. It may be narrower than the
    /// truth (empty for a level that is always re-banded), never wider: the registry
    /// skips the placements it proves inside it. Neither end may decrease as
    /// `member.scale` grows (a larger placement switches no nearer): the registry bounds a
    /// cell's members by its smallest and largest scale.
    fn keeps_level(&self, member: Member, level: u8) -> RangeInclusive<f32>;

    /// A number that changes whenever any answer of the rule may have changed (a prop's
    /// switch distances, the viewport): proofs made under another revision are dropped.
    fn revision(&self) -> u64;
}

#[derive(Debug, Clone)]
struct Cell {
    /// The prop of every member.
    prop: PropKey,
    /// Placement rows in this cell, in no particular order.
    members: Vec<u32>,
    /// The members' positions (placement origins), in the order of `members`: the one
    /// copy of them, so the relevel reads a cell's positions contiguously.
    positions: Vec<Vec3>,
    /// The members' scales, in the order of `members`.
    scales: Vec<f32>,
    min: Vec3,
    max: Vec3,
    min_scale: f32,
    max_scale: f32,
    /// Bit `l` set when a member may be at level `l`.
    levels: u16,
    /// The squared distances over which every member stays at its level, for the bounds
    /// above; `None` until computed for them.
    kept: Option<(f64, f64)>,
    /// The odometer reading at which the cell is next checked.
    due: f64,
    /// The pass that last checked it, so a cell scheduled twice is checked once.
    checked_in: u32,
}

impl Cell {
    fn empty(prop: PropKey) -> Self {
        Self {
            prop,
            members: Vec::new(),
            positions: Vec::new(),
            scales: Vec::new(),
            min: Vec3::splat(f32::INFINITY),
            max: Vec3::splat(f32::NEG_INFINITY),
            min_scale: f32::INFINITY,
            max_scale: f32::NEG_INFINITY,
            levels: 0,
            kept: None,
            due: f64::INFINITY,
            checked_in: 0,
        }
    }

    /// The squared-distance range over which every member stays put: the intersection of
    /// the rule's ranges of the levels in the mask, each taken at the scale that narrows
    /// it most (the rule's ends grow with scale). Cached until the bounds change.
    fn kept(&mut self, rule: &impl DistanceLevels) -> (f64, f64) {
        if let Some(kept) = self.kept {
            return kept;
        }
        let (prop, levels) = (self.prop, self.levels);
        let largest = Member {
            prop,
            scale: self.max_scale,
        };
        let smallest = Member {
            prop,
            scale: self.min_scale,
        };
        let kept = (0..=CULLED_LEVEL)
            .filter(|&level| levels & level_bit(level) != 0)
            .fold((f64::NEG_INFINITY, f64::INFINITY), |(low, high), level| {
                let start = *rule.keeps_level(largest, level).start();
                let end = *rule.keeps_level(smallest, level).end();
                // No squared distance is below 0: a range from 0 holds whatever the
                // margin.
                let start = if start <= 0.0 {
                    f64::NEG_INFINITY
                } else {
                    f64::from(start)
                };
                (low.max(start), high.min(f64::from(end)))
            });
        self.kept = Some(kept);
        kept
    }

    /// Squared distances from `camera` to the nearest and the farthest point of the box,
    /// in f64 from the f32 corners: exact to a relative 2⁻⁵⁰.
    fn distance_sq_bounds(&self, camera: DVec3) -> (f64, f64) {
        let (min, max) = (self.min.as_dvec3(), self.max.as_dvec3());
        let near = (min - camera).max(camera - max).max(DVec3::ZERO);
        let far = (camera - min).abs().max((max - camera).abs());
        (near.length_squared(), far.length_squared())
    }
}

/// A placement's squared distance is computed in f32 (a subtraction, a square and a sum
/// per axis: within a relative 2⁻²¹ of the truth, more than twice over) and the cell's
/// bounds in f64; a cell counts as inside a range only with this margin to spare, so the
/// f32 distance of every member is inside too.
const RELATIVE_MARGIN: f64 = 1e-6;
/// The same for squared distances so small that f32 rounds them absolutely
/// (subnormals).
const ABSOLUTE_MARGIN: f64 = 1e-36;

/// Whether every placement kept over the squared distances `kept` (f64 bounds) provably
/// stays at its level between `near_sq` and `far_sq`. NaN bounds (a NaN camera) prove
/// nothing.
fn holds(kept: (f64, f64), near_sq: f64, far_sq: f64) -> bool {
    let (low, high) = kept;
    near_sq * (1.0 - RELATIVE_MARGIN) - ABSOLUTE_MARGIN >= low
        && far_sq * (1.0 + RELATIVE_MARGIN) + ABSOLUTE_MARGIN <= high
}

#[derive(Debug, Default, Clone)]
pub(crate) struct PlacementCells {
    cells: Vec<Cell>,
    cell_at: HashMap<(i32, i32, PropKey, i32), u32>,
    /// Per row: its cell, and its index in that cell's `members`.
    cell_of_row: Vec<u32>,
    member_of_row: Vec<u32>,
    /// Cells by the odometer reading at which they are due (an entry for a cell since
    /// rescheduled later is stale and skipped).
    schedule: Schedule,
    /// The distance the camera travelled between the passes since the last full one.
    odometer: f64,
    /// The cells a pass takes from the schedule, kept for its allocation.
    due_now: Vec<u32>,
    /// Passes made, to tell a cell checked in this one.
    passes: u32,
    last_pass: Option<LastPass>,
}

/// Where the last pass was made, and under which revision of the rule.
#[derive(Debug, Clone)]
struct LastPass {
    camera: DVec3,
    revision: u64,
}

impl PlacementCells {
    /// Row `row` (the next one: rows are pushed in order) of `member` at `position` and
    /// `level`.
    pub(crate) fn push(&mut self, row: u32, member: Member, position: Vec3, level: u8) {
        debug_assert_eq!(row as usize, self.cell_of_row.len());
        // `as` saturates, so a placement a long way out shares an edge cell: its box
        // still holds it, only less tightly.
        let key = (
            (position.x / CELL_M).floor() as i32,
            (position.z / CELL_M).floor() as i32,
            member.prop,
            scale_class(member.scale),
        );
        let cells = &mut self.cells;
        let cell_index = *self.cell_at.entry(key).or_insert_with(|| {
            cells.push(Cell::empty(member.prop));
            cells.len() as u32 - 1
        });
        let cell = &mut self.cells[cell_index as usize];
        self.cell_of_row.push(cell_index);
        self.member_of_row.push(cell.members.len() as u32);
        cell.members.push(row);
        cell.positions.push(position);
        cell.scales.push(member.scale);
        cell.min = cell.min.min(position);
        cell.max = cell.max.max(position);
        cell.min_scale = cell.min_scale.min(member.scale);
        cell.max_scale = cell.max_scale.max(member.scale);
        cell.levels |= level_bit(level);
        cell.kept = None;
        self.watch(cell_index);
    }

    /// Row `row` is now at `level`.
    pub(crate) fn note_level(&mut self, row: u32, level: u8) {
        let cell_index = self.cell_of_row[row as usize];
        let cell = &mut self.cells[cell_index as usize];
        if cell.levels & level_bit(level) == 0 {
            cell.levels |= level_bit(level);
            cell.kept = None;
            self.watch(cell_index);
        }
    }

    /// Cell `cell_index`'s bounds grew: its last check's proof no longer covers it, so
    /// the next pass checks it.
    fn watch(&mut self, cell_index: u32) {
        let cell = &mut self.cells[cell_index as usize];
        if cell.due > self.odometer {
            cell.due = self.odometer;
            self.schedule.push(cell_index, cell.due);
            self.drop_stale_entries();
        }
    }

    /// Rebuilds the schedule from the cells' `due` once stale entries (left behind by
    /// cells made due early) outnumber the cells, so it stays within twice their count,
    /// in its own allocation.
    fn drop_stale_entries(&mut self) {
        if self.schedule.len() <= 2 * self.cells.len() + 64 {
            return;
        }
        // Due readings already passed come out at the next take all the same.
        let odometer = self.odometer;
        self.schedule.clear();
        for (cell, index) in self.cells.iter().zip(0u32..) {
            if cell.due.is_finite() {
                self.schedule.push(index, (cell.due - odometer).max(0.0));
            }
        }
        // The schedule restarted at 0: the cells' readings move with it.
        for cell in &mut self.cells {
            cell.due -= odometer;
        }
        self.odometer = 0.0;
    }

    /// Mirrors the table's swap-remove of `row`: the last row, if another, takes its
    /// index.
    pub(crate) fn swap_remove(&mut self, row: u32) {
        let r = row as usize;
        let last = self.cell_of_row.len() - 1;
        self.leave_cell(r);
        if r != last {
            let cell = self.cell_of_row[last] as usize;
            let member = self.member_of_row[last] as usize;
            self.cells[cell].members[member] = row;
        }
        self.cell_of_row.swap_remove(r);
        self.member_of_row.swap_remove(r);
    }

    fn leave_cell(&mut self, r: usize) {
        let cell = &mut self.cells[self.cell_of_row[r] as usize];
        let member = self.member_of_row[r] as usize;
        cell.members.swap_remove(member);
        cell.positions.swap_remove(member);
        cell.scales.swap_remove(member);
        if let Some(&moved_row) = cell.members.get(member) {
            self.member_of_row[moved_row as usize] = member as u32;
        }
        if cell.members.is_empty() {
            let (members, positions, scales) = (
                std::mem::take(&mut cell.members),
                std::mem::take(&mut cell.positions),
                std::mem::take(&mut cell.scales),
            );
            *cell = Cell {
                members,
                positions,
                scales,
                due: cell.due,
                ..Cell::empty(cell.prop)
            };
        }
    }

    /// Every row with what a rule sees of it and its position, cell by cell.
    pub(crate) fn rows(&self) -> impl Iterator<Item = (u32, Member, Vec3)> + '_ {
        self.cells.iter().flat_map(|cell| {
            let prop = cell.prop;
            cell.members
                .iter()
                .zip(&cell.scales)
                .zip(&cell.positions)
                .map(move |((&row, &scale), &position)| (row, Member { prop, scale }, position))
        })
    }

    /// Pushes `(row, level)` onto `changes` for every row whose level (`levels[row]`, the
    /// table's column) `rule` changes for a camera at `camera`, testing only the rows of
    /// cells whose bounds do not prove them staying; tightens the bounds of the cells it
    /// tests. Checks the cells due by the camera's odometer under the same rule
    /// revision, every cell otherwise. Returns the rows tested.
    ///
    /// The levels are exactly those testing every row would give: a cell not checked
    /// has all its rows inside their levels' kept ranges.
    pub(crate) fn relevel(
        &mut self,
        levels: &[u8],
        camera: Vec3,
        rule: &impl DistanceLevels,
        changes: &mut Vec<(u32, u8)>,
    ) -> u32 {
        if !camera.is_finite() {
            // No distance is then below or above a kept range: every row stays.
            return 0;
        }
        let revision = rule.revision();
        let pass = Pass {
            levels,
            camera,
            camera_f64: camera.as_dvec3(),
            rule,
        };
        let mut tested = 0;
        match self.last_pass.as_ref() {
            Some(last) if last.revision == revision => {
                self.odometer += last.camera.distance(pass.camera_f64);
                self.passes = self.passes.wrapping_add(1);
                // Everything due first: a cell rescheduled with no slack is due again at
                // this reading, and is checked at the next pass, not again in this one.
                let mut due_now = std::mem::take(&mut self.due_now);
                let last_slot = self.schedule.take_due(self.odometer, &mut due_now);
                for &cell_index in &due_now {
                    let cell = &mut self.cells[cell_index as usize];
                    let stale = slot_of(cell.due) > last_slot || cell.due.is_infinite();
                    if stale || cell.checked_in == self.passes {
                        continue;
                    }
                    cell.checked_in = self.passes;
                    tested += pass.check(cell, changes);
                    self.schedule_next(cell_index, &pass);
                }
                due_now.clear();
                self.due_now = due_now;
            }
            _ => {
                self.schedule.clear();
                self.odometer = 0.0;
                for cell_index in 0..self.cells.len() as u32 {
                    let cell = &mut self.cells[cell_index as usize];
                    cell.kept = None;
                    tested += pass.check(cell, changes);
                    self.schedule_next(cell_index, &pass);
                }
            }
        }
        self.last_pass = Some(LastPass {
            camera: pass.camera_f64,
            revision,
        });
        tested
    }

    /// Schedules cell `cell_index`, just checked from `pass`'s camera, for when the
    /// camera may have moved by its slack.
    fn schedule_next(&mut self, cell_index: u32, pass: &Pass<'_, impl DistanceLevels>) {
        let cell = &mut self.cells[cell_index as usize];
        let slack = if cell.members.is_empty() {
            // An empty cell is due again only when a push makes it so.
            f64::INFINITY
        } else {
            let (near_sq, far_sq) = cell.distance_sq_bounds(pass.camera_f64);
            slack(cell.kept(pass.rule), near_sq.sqrt(), far_sq.sqrt())
        };
        cell.due = self.odometer + slack;
        if cell.due.is_finite() {
            self.schedule.push(cell_index, cell.due);
        }
    }
}

/// How far the camera may move while every member of a cell at distances `[near, far]`
/// stays inside the kept squared distances `kept` with [`holds`]' margins: 0 when the
/// cell does not hold now. Shrunk a little, so f64 rounding in the distances and the
/// odometer cannot stretch it.
fn slack(kept: (f64, f64), near: f64, far: f64) -> f64 {
    let (low, high) = kept;
    let from_low = if low == f64::NEG_INFINITY {
        f64::INFINITY
    } else {
        near - ((low + ABSOLUTE_MARGIN) / (1.0 - RELATIVE_MARGIN))
            .max(0.0)
            .sqrt()
    };
    let from_high = ((high - ABSOLUTE_MARGIN) / (1.0 + RELATIVE_MARGIN))
        .max(0.0)
        .sqrt()
        - far;
    let slack = from_low.min(from_high);
    if slack.is_nan() || slack <= 0.0 {
        return 0.0;
    }
    (slack * (1.0 - 1e-9) - 1e-6).max(0.0)
}

/// One relevel's camera and rule.
struct Pass<'a, R> {
    levels: &'a [u8],
    camera: Vec3,
    camera_f64: DVec3,
    rule: &'a R,
}

impl<R: DistanceLevels> Pass<'_, R> {
    /// Tests `cell`'s members unless its bounds prove them staying; returns how many it
    /// tested.
    fn check(&self, cell: &mut Cell, changes: &mut Vec<(u32, u8)>) -> u32 {
        let (near_sq, far_sq) = cell.distance_sq_bounds(self.camera_f64);
        if cell.members.is_empty() || holds(cell.kept(self.rule), near_sq, far_sq) {
            return 0;
        }
        let (mut min, mut max, mut mask) = (Vec3::INFINITY, Vec3::NEG_INFINITY, 0);
        let (mut min_scale, mut max_scale) = (f32::INFINITY, f32::NEG_INFINITY);
        let prop = cell.prop;
        for ((&row, &position), &scale) in
            cell.members.iter().zip(&cell.positions).zip(&cell.scales)
        {
            let level = self.levels[row as usize];
            let member = Member { prop, scale };
            let chosen =
                self.rule
                    .next_level(member, level, position.distance_squared(self.camera));
            let chosen = if chosen == level {
                level
            } else {
                debug_assert!(chosen <= CULLED_LEVEL, "level {chosen} out of range");
                let clamped = chosen.min(CULLED_LEVEL);
                changes.push((row, clamped));
                clamped
            };
            min = min.min(position);
            max = max.max(position);
            min_scale = min_scale.min(scale);
            max_scale = max_scale.max(scale);
            mask |= level_bit(chosen);
        }
        (cell.min, cell.max, cell.levels) = (min, max, mask);
        (cell.min_scale, cell.max_scale, cell.kept) = (min_scale, max_scale, None);
        cell.members.len() as u32
    }
}

fn level_bit(level: u8) -> u16 {
    1 << level.min(CULLED_LEVEL)
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn a_cell_inside_its_levels_ranges_is_not_tested() {
        let mut cells = PlacementCells::default();
        let (xs, zs, levels) = ([12.0, 14.0, 15.0], [1.0, 2.0, 3.0], [0, 0, 1]);
        for row in 0..3 {
            let position = Vec3::new(xs[row], 0.0, zs[row]);
            cells.push(row as u32, MEMBER, position, levels[row]);
        }
        let mut changes = vec![];
        let tested = cells.relevel(&levels, Vec3::ZERO, &Ring, &mut changes);
        assert_eq!((tested, changes.len()), (0, 0));

        // From 3 m further out, the row at 12 m is 9 m away and leaves level 0.
        let camera = Vec3::new(3.0, 0.0, 0.0);
        let tested = cells.relevel(&levels, camera, &Ring, &mut changes);
        assert_eq!((tested, changes), (3, vec![(0, 1)]));
    }

    #[test]
    fn a_swap_remove_moves_the_last_row_into_the_hole_of_its_own_cell() {
        let mut cells = PlacementCells::default();
        let positions = [
            Vec3::ZERO,
            Vec3::new(100.0, 0.0, 0.0),
            Vec3::new(1.0, 0.0, 1.0),
        ];
        for (row, position) in (0..).zip(positions) {
            cells.push(row, MEMBER, position, 0);
        }
        cells.swap_remove(0);
        // Row 2 is now row 0, still in the first cell; row 1 stays alone in its own.
        assert_eq!(cells.cell_of_row, [0, 1]);
        assert_eq!(cells.cells[0].members, [0]);
        assert_eq!(cells.cells[1].members, [1]);
        assert_eq!(cells.member_of_row, [0, 0]);
        cells.swap_remove(1);
        assert!(cells.cells[1].members.is_empty());
        assert_eq!(
            cells.cells[1].levels, 0,
            "an emptied cell forgets its bounds"
        );
    }

    #[test]
    fn a_cell_is_checked_again_once_the_camera_travelled_its_slack() {
        let mut cells = PlacementCells::default();
        // A level-1 placement 500 m out (kept anywhere: never due) and a level-0 one
        // 15 m out, 5 m inside either end of its range.
        let positions = [Vec3::new(500.0, 0.0, 0.0), Vec3::new(15.0, 0.0, 0.0)];
        let levels = [1, 0];
        for (row, (position, level)) in (0..).zip(positions.into_iter().zip(levels)) {
            cells.push(row, MEMBER, position, level);
        }
        let mut changes = vec![];
        cells.relevel(&levels, Vec3::ZERO, &Ring, &mut changes);
        let (far_cell, near_cell) = (cells.cell_of_row[0], cells.cell_of_row[1]);
        assert_eq!(cells.cells[far_cell as usize].due, f64::INFINITY);
        let due = cells.cells[near_cell as usize].due;
        assert!((4.99..5.0).contains(&due), "{due}");

        // 3 m of travel: nothing is due, nothing is looked at.
        let tested = cells.relevel(&levels, Vec3::new(-3.0, 0.0, 0.0), &Ring, &mut changes);
        assert_eq!((tested, cells.cells[near_cell as usize].due), (0, due));
        // 3 m more: the near cell is due, tested, and leaves level 0 (21 m out).
        let tested = cells.relevel(&levels, Vec3::new(-6.0, 0.0, 0.0), &Ring, &mut changes);
        assert_eq!((tested, changes), (1, vec![(1, 1)]));

        // A new placement's cell is due at the next pass, wherever the camera is.
        cells.push(2, MEMBER, Vec3::new(-700.0, 0.0, 0.0), 0);
        let levels = [1, 1, 0];
        let mut changes = vec![];
        let tested = cells.relevel(&levels, Vec3::new(-6.0, 0.0, 0.0), &Ring, &mut changes);
        assert_eq!((tested, changes), (1, vec![(2, 1)]));
    }

    #[test]
    fn a_nan_camera_proves_nothing() {
        let kept_for = |levels| {
            let mut cell = Cell::empty(MEMBER.prop);
            (cell.levels, cell.min_scale, cell.max_scale) = (levels, 1.0, 1.0);
            cell.kept(&Ring)
        };
        assert!(holds(kept_for(0b10), 0.0, 1e9));
        assert!(!holds(kept_for(0b10), f64::NAN, f64::NAN));
        assert!(!holds(kept_for(0b01), 99.99, 200.0));
        assert!(holds(kept_for(0b11), 101.0, 399.0));
        assert!(
            !holds(kept_for(0b11), 101.0, 400.0),
            "no margin left for f32 rounding"
        );
    }
}

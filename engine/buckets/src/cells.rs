//! The placement table's rows grouped in square cells of the ground plane, each holding
//! its members' positions side by side and bounds on their positions and levels, so a
//! distance relevel can prove a whole cell keeps its levels from two distances and a
//! table look-up, and stream only the positions of the cells it cannot prove.
//!
//! A full pass checks every cell. It also notes which cells it could prove for every
//! camera within [`REACH_M`] of its own (by the triangle inequality, such a camera is
//! within that much of each member's distance); until the camera leaves that reach, the
//! next passes check only the others, the *watched* cells, and any cell whose bounds grew
//! since. So a flying camera's pass costs the cells near a band edge, and one full pass
//! every [`REACH_M`] of travel.
//!
//! Invariants, kept by [`PlacementCells::push`], [`PlacementCells::swap_remove`] and
//! [`PlacementCells::note_level`] (the table calls them for every row it writes):
//! - a row is a member of exactly the cell its `(x, z)` falls in;
//! - a cell's box holds every member's position and its level mask has every member's
//!   level bit. Both may be wider than needed (removals do not shrink them); a relevel
//!   that tests a cell's members tightens them;
//! - a cell not watched has had the same or narrower bounds since the last full pass,
//!   which proved them inside its levels' kept ranges for every camera within
//!   [`REACH_M`] of that pass's, by the same rule.

use std::collections::HashMap;
use std::ops::RangeInclusive;

use glam::{DVec3, Vec3};

use crate::MAX_LODS;

/// Side of a cell, in metres (Godot's Terrain3D groups instances in cells of 32 m too).
/// A cell straddling a band's hysteresis margin is tested whole, so smaller cells test
/// fewer placements and larger ones cost fewer cell checks; at the densities sylva paints
/// (0.06–0.4 per m²) a cell holds 60–400 placements.
pub(crate) const CELL_M: f32 = 32.0;

/// How far the camera may move from a full pass's before the next full pass. Farther
/// means fewer full passes but more cells watched in between (those within this of a
/// band's margin).
pub(crate) const REACH_M: f64 = 32.0;

/// How a placement's level follows its squared distance from the camera, for
/// [`crate::PlacementRegistry::relevel_by_distance`].
pub trait DistanceLevels {
    /// The level a placement at `level`, `distance_sq` (squared metres) from the camera,
    /// goes to; `level` itself to stay.
    fn next_level(&self, level: u8, distance_sq: f32) -> u8;

    /// Squared distances over which a placement at `level` stays there: `next_level(level,
    /// d)` returns `level` for every `d` in the range. It may be narrower than the truth
    /// (empty for a level that is always re-banded), never wider: the registry skips the
    /// placements it proves inside it.
    fn keeps_level(&self, level: u8) -> RangeInclusive<f32>;
}

#[derive(Debug, Clone)]
struct Cell {
    /// Placement rows in this cell, in no particular order.
    members: Vec<u32>,
    /// The members' positions (placement origins), in the order of `members`: the one
    /// copy of them, so the relevel reads a cell's positions contiguously.
    positions: Vec<Vec3>,
    min: Vec3,
    max: Vec3,
    /// Bit `l` set when a member may be at level `l`.
    levels: u8,
    /// In [`PlacementCells::watched`].
    watched: bool,
}

impl Cell {
    fn empty() -> Self {
        Self {
            members: Vec::new(),
            positions: Vec::new(),
            min: Vec3::splat(f32::INFINITY),
            max: Vec3::splat(f32::NEG_INFINITY),
            levels: 0,
            watched: false,
        }
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

/// The squared-distance range over which every placement of a level mask stays put, for
/// each of the 256 masks: the intersection of the rule's ranges of the levels in it.
struct KeptRanges {
    per_mask: [(f64, f64); 256],
    /// The rule's own ranges, to tell whether the rule changed since the last full pass.
    per_level: [(f32, f32); MAX_LODS as usize],
}

/// A placement's squared distance is computed in f32 (a subtraction, a square and a sum
/// per axis: within a relative 2⁻²¹ of the truth, more than twice over) and the cell's
/// bounds in f64; a cell counts as inside a range only with this margin to spare, so the
/// f32 distance of every member is inside too.
const RELATIVE_MARGIN: f64 = 1e-6;
/// The same for squared distances so small that f32 rounds them absolutely
/// (subnormals).
const ABSOLUTE_MARGIN: f64 = 1e-36;

impl KeptRanges {
    fn new(rule: &impl DistanceLevels) -> Self {
        let per_level: [(f32, f32); MAX_LODS as usize] = std::array::from_fn(|level| {
            let kept = rule.keeps_level(level as u8);
            (*kept.start(), *kept.end())
        });
        let per_mask = std::array::from_fn(|mask| {
            per_level
                .iter()
                .enumerate()
                .filter(|(level, _)| mask & (1 << level) != 0)
                .fold(
                    (f64::NEG_INFINITY, f64::INFINITY),
                    |(low, high), (_, &(start, end))| {
                        // No squared distance is below 0: a range from 0 holds whatever
                        // the margin.
                        let start = if start <= 0.0 {
                            f64::NEG_INFINITY
                        } else {
                            f64::from(start)
                        };
                        (low.max(start), high.min(f64::from(end)))
                    },
                )
        });
        Self {
            per_mask,
            per_level,
        }
    }

    /// Whether every placement at a level of `mask` between `near_sq` and `far_sq` (f64
    /// bounds) provably stays at its level. NaN bounds (a NaN camera) prove nothing.
    fn holds(&self, mask: u8, near_sq: f64, far_sq: f64) -> bool {
        let (low, high) = self.per_mask[usize::from(mask)];
        near_sq * (1.0 - RELATIVE_MARGIN) - ABSOLUTE_MARGIN >= low
            && far_sq * (1.0 + RELATIVE_MARGIN) + ABSOLUTE_MARGIN <= high
    }
}

#[derive(Debug, Default, Clone)]
pub(crate) struct PlacementCells {
    cells: Vec<Cell>,
    cell_at: HashMap<(i32, i32), u32>,
    /// Per row: its cell, and its index in that cell's `members`.
    cell_of_row: Vec<u32>,
    member_of_row: Vec<u32>,
    /// The cells the next pass within reach of the last full one checks.
    watched: Vec<u32>,
    last_full_pass: Option<FullPass>,
}

/// Where the last full pass was made, and by which rule.
#[derive(Debug, Clone)]
struct FullPass {
    camera: DVec3,
    kept: [(f32, f32); MAX_LODS as usize],
}

impl PlacementCells {
    /// Row `row` (the next one: rows are pushed in order) at `position` and `level`.
    pub(crate) fn push(&mut self, row: u32, position: Vec3, level: u8) {
        debug_assert_eq!(row as usize, self.cell_of_row.len());
        // `as` saturates, so a placement a long way out shares an edge cell: its box
        // still holds it, only less tightly.
        let key = (
            (position.x / CELL_M).floor() as i32,
            (position.z / CELL_M).floor() as i32,
        );
        let cells = &mut self.cells;
        let cell_index = *self.cell_at.entry(key).or_insert_with(|| {
            cells.push(Cell::empty());
            cells.len() as u32 - 1
        });
        let cell = &mut self.cells[cell_index as usize];
        self.cell_of_row.push(cell_index);
        self.member_of_row.push(cell.members.len() as u32);
        cell.members.push(row);
        cell.positions.push(position);
        cell.min = cell.min.min(position);
        cell.max = cell.max.max(position);
        cell.levels |= level_bit(level);
        self.watch(cell_index);
    }

    /// Row `row` is now at `level`.
    pub(crate) fn note_level(&mut self, row: u32, level: u8) {
        let cell_index = self.cell_of_row[row as usize];
        let cell = &mut self.cells[cell_index as usize];
        if cell.levels & level_bit(level) == 0 {
            cell.levels |= level_bit(level);
            self.watch(cell_index);
        }
    }

    /// Cell `cell_index`'s bounds grew: the last full pass's proof no longer covers it.
    fn watch(&mut self, cell_index: u32) {
        let cell = &mut self.cells[cell_index as usize];
        if !cell.watched {
            cell.watched = true;
            self.watched.push(cell_index);
        }
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
        if let Some(&moved_row) = cell.members.get(member) {
            self.member_of_row[moved_row as usize] = member as u32;
        }
        if cell.members.is_empty() {
            let (members, positions) = (
                std::mem::take(&mut cell.members),
                std::mem::take(&mut cell.positions),
            );
            *cell = Cell {
                members,
                positions,
                ..Cell::empty()
            };
        }
    }

    /// Every row with its position, cell by cell.
    pub(crate) fn rows(&self) -> impl Iterator<Item = (u32, Vec3)> + '_ {
        self.cells.iter().flat_map(|cell| {
            cell.members
                .iter()
                .copied()
                .zip(cell.positions.iter().copied())
        })
    }

    /// Pushes `(row, level)` onto `changes` for every row whose level (`levels[row]`, the
    /// table's column) `rule` changes for a camera at `camera`, testing only the rows of
    /// cells whose bounds do not prove them staying; tightens the bounds of the cells it
    /// tests. Checks the watched cells only while the camera is within [`REACH_M`] of
    /// the last full pass's and the rule is the same, all of them otherwise. Returns the
    /// rows tested.
    ///
    /// The levels are exactly those testing every row would give: a skipped cell's rows
    /// all lie inside their levels' kept ranges.
    pub(crate) fn relevel(
        &mut self,
        levels: &[u8],
        camera: Vec3,
        rule: &impl DistanceLevels,
        changes: &mut Vec<(u32, u8)>,
    ) -> u32 {
        let kept = KeptRanges::new(rule);
        let pass = Pass {
            levels,
            camera,
            camera_f64: camera.as_dvec3(),
            rule,
            kept: &kept,
        };
        let within_reach = self.last_full_pass.as_ref().is_some_and(|last| {
            last.kept == kept.per_level && last.camera.distance(pass.camera_f64) <= REACH_M
        });
        let mut tested = 0;
        if within_reach {
            for &cell_index in &self.watched {
                tested += pass.check(&mut self.cells[cell_index as usize], changes).0;
            }
            return tested;
        }
        self.watched.clear();
        // Grown a little, so f64 rounding in the distances cannot shrink the reach.
        let reach = REACH_M * (1.0 + 1e-9);
        for (cell, cell_index) in self.cells.iter_mut().zip(0u32..) {
            cell.watched = false;
            if cell.members.is_empty() {
                continue;
            }
            let (cell_tested, near_sq, far_sq) = pass.check(cell, changes);
            tested += cell_tested;
            // A tested cell's bounds only narrowed: the distances from before still bound
            // it.
            let near = (near_sq.sqrt() - reach).max(0.0);
            let far = far_sq.sqrt() + reach;
            if !kept.holds(cell.levels, near * near, far * far) {
                cell.watched = true;
                self.watched.push(cell_index);
            }
        }
        self.last_full_pass = Some(FullPass {
            camera: pass.camera_f64,
            kept: kept.per_level,
        });
        tested
    }
}

/// One relevel's camera and rule.
struct Pass<'a, R> {
    levels: &'a [u8],
    camera: Vec3,
    camera_f64: DVec3,
    rule: &'a R,
    kept: &'a KeptRanges,
}

impl<R: DistanceLevels> Pass<'_, R> {
    /// Tests `cell`'s members unless its bounds prove them staying; returns how many it
    /// tested and the cell's squared distance bounds from the camera (before tightening).
    fn check(&self, cell: &mut Cell, changes: &mut Vec<(u32, u8)>) -> (u32, f64, f64) {
        let (near_sq, far_sq) = cell.distance_sq_bounds(self.camera_f64);
        if cell.members.is_empty() || self.kept.holds(cell.levels, near_sq, far_sq) {
            return (0, near_sq, far_sq);
        }
        let (mut min, mut max, mut mask) = (Vec3::INFINITY, Vec3::NEG_INFINITY, 0);
        for (&row, &position) in cell.members.iter().zip(&cell.positions) {
            let level = self.levels[row as usize];
            let chosen = self
                .rule
                .next_level(level, position.distance_squared(self.camera));
            let chosen = if chosen == level {
                level
            } else {
                debug_assert!(chosen < MAX_LODS, "level {chosen} out of range");
                let clamped = chosen.min(MAX_LODS - 1);
                changes.push((row, clamped));
                clamped
            };
            min = min.min(position);
            max = max.max(position);
            mask |= level_bit(chosen);
        }
        (cell.min, cell.max, cell.levels) = (min, max, mask);
        (cell.members.len() as u32, near_sq, far_sq)
    }
}

fn level_bit(level: u8) -> u8 {
    1 << level.min(MAX_LODS - 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Stays while `d²` is in `[100, 400]`, else goes to level 1 (level 1 always stays).
    struct Ring;

    impl DistanceLevels for Ring {
        fn next_level(&self, level: u8, distance_sq: f32) -> u8 {
            if level == 1 || (100.0..=400.0).contains(&distance_sq) {
                level
            } else {
                1
            }
        }

        fn keeps_level(&self, level: u8) -> RangeInclusive<f32> {
            if level == 1 {
                0.0..=f32::INFINITY
            } else {
                100.0..=400.0
            }
        }
    }

    #[test]
    fn a_cell_inside_its_levels_ranges_is_not_tested() {
        let mut cells = PlacementCells::default();
        let (xs, zs, levels) = ([12.0, 14.0, 15.0], [1.0, 2.0, 3.0], [0, 0, 1]);
        for row in 0..3 {
            let position = Vec3::new(xs[row], 0.0, zs[row]);
            cells.push(row as u32, position, levels[row]);
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
            cells.push(row, position, 0);
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
    fn within_reach_of_the_last_full_pass_only_watched_cells_are_checked() {
        let mut cells = PlacementCells::default();
        // A level-1 placement 500 m out (kept anywhere) and a level-0 one 15 m out,
        // 5 m inside its range's far end.
        let positions = [Vec3::new(500.0, 0.0, 0.0), Vec3::new(15.0, 0.0, 0.0)];
        let levels = [1, 0];
        for (row, (position, level)) in (0..).zip(positions.into_iter().zip(levels)) {
            cells.push(row, position, level);
        }
        let mut changes = vec![];
        cells.relevel(&levels, Vec3::ZERO, &Ring, &mut changes);
        let near_cell = cells.cell_of_row[1];
        assert_eq!(cells.watched, [near_cell]);

        // 10 m on, the near cell is tested; a new placement makes its cell watched too.
        cells.push(2, Vec3::new(-700.0, 0.0, 0.0), 1);
        let levels = [1, 0, 1];
        let camera = Vec3::new(-10.0, 0.0, 0.0);
        let tested = cells.relevel(&levels, camera, &Ring, &mut changes);
        assert_eq!((tested, changes), (1, vec![(1, 1)]));
        assert_eq!(cells.watched, [near_cell, cells.cell_of_row[2]]);

        // Out of reach: a full pass, which watches nothing now that both are at level 1.
        let levels = [1, 1, 1];
        cells.relevel(&levels, Vec3::new(40.0, 0.0, 0.0), &Ring, &mut vec![]);
        assert!(cells.watched.is_empty());
    }

    #[test]
    fn a_nan_camera_proves_nothing() {
        let kept = KeptRanges::new(&Ring);
        assert!(kept.holds(0b10, 0.0, 1e9));
        assert!(!kept.holds(0b10, f64::NAN, f64::NAN));
        assert!(!kept.holds(0b01, 99.99, 200.0));
        assert!(kept.holds(0b11, 101.0, 399.0));
        assert!(
            !kept.holds(0b11, 101.0, 400.0),
            "no margin left for f32 rounding"
        );
    }
}

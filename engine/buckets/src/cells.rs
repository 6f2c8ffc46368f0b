//! The placement table's rows grouped in square cells of the ground plane, each with
//! bounds on its members' positions and levels, so a distance relevel can prove a whole
//! cell keeps its levels from two distances and a table look-up, and test only the
//! placements of the cells it cannot prove.
//!
//! Invariants, kept by [`PlacementCells::push`], [`PlacementCells::swap_remove`] and
//! [`PlacementCells::note_level`] (the table calls them for every row it writes):
//! - a row is a member of exactly the cell its `(x, z)` falls in;
//! - a cell's box holds every member's position and its level mask has every member's
//!   level bit. Both may be wider than needed (removals do not shrink them); a relevel
//!   that tests a cell's members tightens them.

use std::collections::HashMap;
use std::ops::RangeInclusive;

use glam::{DVec3, Vec3};

use crate::MAX_LODS;

/// Side of a cell, in metres (Godot's Terrain3D groups instances in cells of 32 m too).
/// A cell straddling a band's hysteresis margin is tested whole, so smaller cells test
/// fewer placements and larger ones cost fewer cell checks; at the densities sylva paints
/// (0.06–0.4 per m²) a cell holds 60–400 placements.
pub(crate) const CELL_M: f32 = 32.0;

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
    min: Vec3,
    max: Vec3,
    /// Bit `l` set when a member may be at level `l`.
    levels: u8,
}

impl Cell {
    fn empty() -> Self {
        Self {
            members: Vec::new(),
            min: Vec3::splat(f32::INFINITY),
            max: Vec3::splat(f32::NEG_INFINITY),
            levels: 0,
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
struct KeptRanges([(f64, f64); 256]);

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
        let per_level: [(f64, f64); MAX_LODS as usize] = std::array::from_fn(|level| {
            let kept = rule.keeps_level(level as u8);
            // No squared distance is below 0: a range from 0 holds whatever the margin.
            let start = f64::from(*kept.start());
            let start = if start <= 0.0 {
                f64::NEG_INFINITY
            } else {
                start
            };
            (start, f64::from(*kept.end()))
        });
        Self(std::array::from_fn(|mask| {
            per_level
                .iter()
                .enumerate()
                .filter(|(level, _)| mask & (1 << level) != 0)
                .fold(
                    (f64::NEG_INFINITY, f64::INFINITY),
                    |(low, high), (_, &(start, end))| (low.max(start), high.min(end)),
                )
        }))
    }

    /// Whether every placement at a level of `mask` between `near_sq` and `far_sq` (f64
    /// bounds) provably stays at its level. NaN bounds (a NaN camera) prove nothing.
    fn holds(&self, mask: u8, near_sq: f64, far_sq: f64) -> bool {
        let (low, high) = self.0[usize::from(mask)];
        near_sq * (1.0 - RELATIVE_MARGIN) - ABSOLUTE_MARGIN >= low
            && far_sq * (1.0 + RELATIVE_MARGIN) + ABSOLUTE_MARGIN <= high
    }
}

/// The placement table's position and level columns, as [`PlacementCells::relevel`]
/// reads them.
pub(crate) struct Columns<'a> {
    pub(crate) xs: &'a [f32],
    pub(crate) ys: &'a [f32],
    pub(crate) zs: &'a [f32],
    pub(crate) levels: &'a [u8],
}

#[derive(Debug, Default, Clone)]
pub(crate) struct PlacementCells {
    cells: Vec<Cell>,
    cell_at: HashMap<(i32, i32), u32>,
    /// Per row: its cell, and its index in that cell's `members`.
    cell_of_row: Vec<u32>,
    member_of_row: Vec<u32>,
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
        cell.min = cell.min.min(position);
        cell.max = cell.max.max(position);
        cell.levels |= level_bit(level);
    }

    /// Row `row` is now at `level`.
    pub(crate) fn note_level(&mut self, row: u32, level: u8) {
        let cell = self.cell_of_row[row as usize];
        self.cells[cell as usize].levels |= level_bit(level);
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
        if let Some(&moved_row) = cell.members.get(member) {
            self.member_of_row[moved_row as usize] = member as u32;
        }
        if cell.members.is_empty() {
            let members = std::mem::take(&mut cell.members);
            *cell = Cell {
                members,
                ..Cell::empty()
            };
        }
    }

    /// Pushes `(row, level)` onto `changes` for every row whose level `rule` changes for
    /// a camera at `camera`, testing only the rows of cells whose bounds do not prove
    /// them staying; tightens the bounds of the cells it tests. Returns the rows tested.
    ///
    /// The levels are exactly those testing every row would give: a skipped cell's rows
    /// all lie inside their levels' kept ranges.
    pub(crate) fn relevel(
        &mut self,
        columns: &Columns<'_>,
        camera: Vec3,
        rule: &impl DistanceLevels,
        changes: &mut Vec<(u32, u8)>,
    ) -> u32 {
        let kept = KeptRanges::new(rule);
        let camera_f64 = camera.as_dvec3();
        let mut tested = 0;
        for cell in &mut self.cells {
            if cell.members.is_empty() {
                continue;
            }
            let (near_sq, far_sq) = cell.distance_sq_bounds(camera_f64);
            if kept.holds(cell.levels, near_sq, far_sq) {
                continue;
            }
            tested += cell.members.len() as u32;
            let (mut min, mut max, mut levels) = (Vec3::INFINITY, Vec3::NEG_INFINITY, 0);
            for &row in &cell.members {
                let r = row as usize;
                let position = Vec3::new(columns.xs[r], columns.ys[r], columns.zs[r]);
                let level = columns.levels[r];
                let chosen = rule.next_level(level, position.distance_squared(camera));
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
                levels |= level_bit(chosen);
            }
            (cell.min, cell.max, cell.levels) = (min, max, levels);
        }
        tested
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

    fn columns<'a>(xs: &'a [f32], zs: &'a [f32], levels: &'a [u8]) -> Columns<'a> {
        Columns {
            xs,
            ys: &GROUND[..xs.len()],
            zs,
            levels,
        }
    }

    static GROUND: [f32; 3] = [0.0; 3];

    #[test]
    fn a_cell_inside_its_levels_ranges_is_not_tested() {
        let mut cells = PlacementCells::default();
        let (xs, zs, levels) = ([12.0, 14.0, 15.0], [1.0, 2.0, 3.0], [0, 0, 1]);
        for row in 0..3 {
            let position = Vec3::new(xs[row], 0.0, zs[row]);
            cells.push(row as u32, position, levels[row]);
        }
        let mut changes = vec![];
        let tested = cells.relevel(&columns(&xs, &zs, &levels), Vec3::ZERO, &Ring, &mut changes);
        assert_eq!((tested, changes.len()), (0, 0));

        // From 3 m further out, the row at 12 m is 9 m away and leaves level 0.
        let camera = Vec3::new(3.0, 0.0, 0.0);
        let tested = cells.relevel(&columns(&xs, &zs, &levels), camera, &Ring, &mut changes);
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

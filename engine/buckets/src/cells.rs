//! The placement table's rows grouped by prop and scale class in square cells of the
//! ground plane, each holding its members' positions and scales side by side and bounds
//! on their positions, scales and levels, so a distance relevel can prove a whole cell
//! keeps its levels from two distances and the squared-distance range the rule keeps
//! those levels over, and stream only the positions of the cells it cannot prove. One prop and a narrow range of
//! scales per cell keep that range as wide as the prop's own switch distances allow.
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
//! - a row is a member of exactly the cell of its prop and scale class that its `(x, z)`
//!   falls in;
//! - a cell's box holds every member's position, its scale range every member's scale
//!   and its level mask has every member's level bit. They may be wider than needed
//!   (removals do not shrink them); a relevel that tests a cell's members tightens them;
//! - a cell's cached kept range, when set, is the rule's for its current bounds at the
//!   last full pass's rule revision;
//! - a cell not watched has had the same or narrower bounds since the last full pass,
//!   which proved them inside its levels' kept ranges for every camera within
//!   [`REACH_M`] of that pass's, by the same rule revision.

use std::collections::HashMap;
use std::ops::RangeInclusive;

use glam::{DVec3, Vec3};

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

/// How far the camera may move from a full pass's before the next full pass. Farther
/// means fewer full passes but more cells watched in between (those within this of a
/// band's margin).
pub(crate) const REACH_M: f64 = 32.0;

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
    /// In [`PlacementCells::watched`].
    watched: bool,
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
            watched: false,
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
    /// The cells the next pass within reach of the last full one checks.
    watched: Vec<u32>,
    last_full_pass: Option<FullPass>,
}

/// Where the last full pass was made, and under which revision of the rule.
#[derive(Debug, Clone)]
struct FullPass {
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
                watched: cell.watched,
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
    /// tests. Checks the watched cells only while the camera is within [`REACH_M`] of
    /// the last full pass's and the rule's revision is the same, all of them otherwise.
    /// Returns the rows tested.
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
        let revision = rule.revision();
        let pass = Pass {
            levels,
            camera,
            camera_f64: camera.as_dvec3(),
            rule,
        };
        let same_rule = self
            .last_full_pass
            .as_ref()
            .is_some_and(|last| last.revision == revision);
        let within_reach = same_rule
            && self
                .last_full_pass
                .as_ref()
                .is_some_and(|last| last.camera.distance(pass.camera_f64) <= REACH_M);
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
            if !same_rule {
                cell.kept = None;
            }
            if cell.members.is_empty() {
                continue;
            }
            let (cell_tested, near_sq, far_sq) = pass.check(cell, changes);
            tested += cell_tested;
            // A tested cell's bounds only narrowed: the distances from before still bound
            // it.
            let near = (near_sq.sqrt() - reach).max(0.0);
            let far = far_sq.sqrt() + reach;
            if !holds(cell.kept(rule), near * near, far * far) {
                cell.watched = true;
                self.watched.push(cell_index);
            }
        }
        self.last_full_pass = Some(FullPass {
            camera: pass.camera_f64,
            revision,
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
}

impl<R: DistanceLevels> Pass<'_, R> {
    /// Tests `cell`'s members unless its bounds prove them staying; returns how many it
    /// tested and the cell's squared distance bounds from the camera (before tightening).
    fn check(&self, cell: &mut Cell, changes: &mut Vec<(u32, u8)>) -> (u32, f64, f64) {
        let (near_sq, far_sq) = cell.distance_sq_bounds(self.camera_f64);
        if cell.members.is_empty() || holds(cell.kept(self.rule), near_sq, far_sq) {
            return (0, near_sq, far_sq);
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
        (cell.members.len() as u32, near_sq, far_sq)
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
    fn within_reach_of_the_last_full_pass_only_watched_cells_are_checked() {
        let mut cells = PlacementCells::default();
        // A level-1 placement 500 m out (kept anywhere) and a level-0 one 15 m out,
        // 5 m inside its range's far end.
        let positions = [Vec3::new(500.0, 0.0, 0.0), Vec3::new(15.0, 0.0, 0.0)];
        let levels = [1, 0];
        for (row, (position, level)) in (0..).zip(positions.into_iter().zip(levels)) {
            cells.push(row, MEMBER, position, level);
        }
        let mut changes = vec![];
        cells.relevel(&levels, Vec3::ZERO, &Ring, &mut changes);
        let near_cell = cells.cell_of_row[1];
        assert_eq!(cells.watched, [near_cell]);

        // 10 m on, the near cell is tested; a new placement makes its cell watched too.
        cells.push(2, MEMBER, Vec3::new(-700.0, 0.0, 0.0), 1);
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

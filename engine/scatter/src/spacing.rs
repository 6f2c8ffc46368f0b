//! Spatial hash of placements per spacing family, for minimum-spacing checks and the
//! erase brush. Distances are horizontal (x, z).

use std::sync::Arc;

use glam::Vec2;
use rustc_hash::FxHashMap;

use crate::angle::floor;
use crate::placement::PlacementId;

/// Side of a hash cell in metres: near typical spacings, so a query touches few cells.
const CELL: f32 = 4.0;

#[derive(Clone, Copy, Debug, PartialEq)]
struct Entry {
    id: PlacementId,
    at: Vec2,
}

#[derive(Clone, Debug, Default)]
struct FamilyGrid {
    family: Arc<str>,
    cells: FxHashMap<(i32, i32), Vec<Entry>>,
}

#[derive(Clone, Debug, Default)]
pub struct SpacingIndex {
    // Few families (a handful per catalog): a linear scan beats hashing their names.
    grids: Vec<FamilyGrid>,
}

fn cell_of(at: Vec2) -> (i32, i32) {
    (floor(at.x / CELL) as i32, floor(at.y / CELL) as i32)
}

/// Cells overlapping the square around the disc (`at`, `radius`).
fn cells_around(at: Vec2, radius: f32) -> impl Iterator<Item = (i32, i32)> {
    let (lo, hi) = (
        cell_of(at - Vec2::splat(radius)),
        cell_of(at + Vec2::splat(radius)),
    );
    (lo.1..=hi.1).flat_map(move |z| (lo.0..=hi.0).map(move |x| (x, z)))
}

impl SpacingIndex {
    fn grid(&self, family: &str) -> Option<&FamilyGrid> {
        self.grids.iter().find(|g| &*g.family == family)
    }

    /// Whether a placement of `family` lies closer than `radius` to `at`.
    pub fn any_within(&self, family: &str, at: Vec2, radius: f32) -> bool {
        if radius <= 0.0 {
            return false;
        }
        let Some(grid) = self.grid(family) else {
            return false;
        };
        let r2 = radius * radius;
        cells_around(at, radius).any(|cell| {
            grid.cells
                .get(&cell)
                .is_some_and(|entries| entries.iter().any(|e| e.at.distance_squared(at) < r2))
        })
    }

    pub fn insert(&mut self, family: &Arc<str>, id: PlacementId, at: Vec2) {
        let index = match self.grids.iter().position(|g| g.family == *family) {
            Some(i) => i,
            None => {
                self.grids.push(FamilyGrid {
                    family: family.clone(),
                    cells: FxHashMap::default(),
                });
                self.grids.len() - 1
            }
        };
        self.grids[index]
            .cells
            .entry(cell_of(at))
            .or_default()
            .push(Entry { id, at });
    }

    /// Removes an entry inserted with the same family and position.
    pub fn remove(&mut self, family: &str, id: PlacementId, at: Vec2) {
        let Some(grid) = self.grids.iter_mut().find(|g| &*g.family == family) else {
            return;
        };
        let cell = cell_of(at);
        if let Some(entries) = grid.cells.get_mut(&cell) {
            if let Some(i) = entries.iter().position(|e| e.id == id) {
                entries.swap_remove(i);
            }
            if entries.is_empty() {
                grid.cells.remove(&cell);
            }
        }
    }

    /// Ids of placements of any family within `radius` of `at` (unordered).
    pub fn within(&self, at: Vec2, radius: f32) -> Vec<PlacementId> {
        let r2 = radius * radius;
        let mut found = Vec::new();
        for grid in &self.grids {
            for cell in cells_around(at, radius) {
                if let Some(entries) = grid.cells.get(&cell) {
                    found.extend(
                        entries
                            .iter()
                            .filter(|e| e.at.distance_squared(at) <= r2)
                            .map(|e| e.id),
                    );
                }
            }
        }
        found
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spacing_is_per_family() {
        let mut index = SpacingIndex::default();
        let tree: Arc<str> = "tree".into();
        index.insert(&tree, PlacementId(1), Vec2::new(10.0, 10.0));
        assert!(index.any_within("tree", Vec2::new(12.0, 10.0), 3.0));
        assert!(!index.any_within("tree", Vec2::new(13.5, 10.0), 3.0));
        assert!(!index.any_within("rock", Vec2::new(10.0, 10.0), 3.0));
    }

    #[test]
    fn neighbours_across_cell_edges_are_found() {
        let mut index = SpacingIndex::default();
        let rock: Arc<str> = "rock".into();
        index.insert(&rock, PlacementId(1), Vec2::new(3.99, -0.01));
        assert!(index.any_within("rock", Vec2::new(4.01, 0.01), 0.1));
    }

    #[test]
    fn removed_entries_no_longer_block() {
        let mut index = SpacingIndex::default();
        let rock: Arc<str> = "rock".into();
        index.insert(&rock, PlacementId(7), Vec2::ZERO);
        index.remove("rock", PlacementId(7), Vec2::ZERO);
        assert!(!index.any_within("rock", Vec2::ZERO, 5.0));
        assert!(index.within(Vec2::ZERO, 5.0).is_empty());
    }

    #[test]
    fn within_collects_every_family() {
        let mut index = SpacingIndex::default();
        let (a, b): (Arc<str>, Arc<str>) = ("a".into(), "b".into());
        index.insert(&a, PlacementId(1), Vec2::new(1.0, 0.0));
        index.insert(&b, PlacementId(2), Vec2::new(0.0, -2.0));
        index.insert(&b, PlacementId(3), Vec2::new(0.0, -9.0));
        let mut ids = index.within(Vec2::ZERO, 2.0);
        ids.sort();
        assert_eq!(ids, [PlacementId(1), PlacementId(2)]);
    }
}

//! One tile of a fill made on its own, away from the session: what a streamed fill
//! generates around a camera instead of storing every placement.
//!
//! A fill accepted in [`crate::FillOrder::Tiles`] settles a tile from the tiles of its
//! cone and the placements that stood before the fill (see `fill.rs`). A [`TileSource`]
//! holds exactly that: the fill's job and those earlier placements of the families the
//! fill places, by tile. [`TileSource::make`] plans the cone, accepts it against the
//! earlier placements nearby in a painter of its own and keeps what lands in the tile:
//! the placements the whole fill makes there, bit for bit. It takes `&self`, so worker
//! threads make tiles side by side.

use glam::Vec2;
use rustc_hash::{FxHashMap, FxHashSet};
use sylva_terrain::Terrain;

use crate::editor::FillJob;
use crate::fill::{FillError, TileGrid};
use crate::painter::{Edit, Painter, MAX_PLACEMENT_CAP};
use crate::placement::{Placement, PlacementId};

/// What a fill's tiles are made from.
#[derive(Clone, Debug)]
pub struct TileSource {
    job: FillJob,
    grid: TileGrid,
    /// Terrain cells' side in metres and the terrain's lowest corner: where tiles are.
    cell_m: f32,
    origin: Vec2,
    /// Placements live before the fill, of the families its picks place, by tile.
    before: FxHashMap<(usize, usize), Vec<Placement>>,
}

impl TileSource {
    /// The tiles of `job` on `terrain`, accepted against `before`: the placements live
    /// when the fill ran (those of other families are left out: spacing is kept within
    /// a family).
    pub fn new<'a>(
        job: FillJob,
        terrain: &Terrain,
        before: impl IntoIterator<Item = &'a Placement>,
    ) -> Self {
        let families: FxHashSet<&str> = job.families().collect();
        let mut source = Self {
            grid: job.tiles(terrain),
            cell_m: terrain.spacing(),
            origin: terrain.min_corner(),
            before: FxHashMap::default(),
            job: job.clone(),
        };
        for placement in before {
            if families.contains(&*placement.family) {
                let tile = source.tile_at(placement.position.x, placement.position.z);
                source
                    .before
                    .entry(tile)
                    .or_default()
                    .push(placement.clone());
            }
        }
        source
    }

    pub fn grid(&self) -> TileGrid {
        self.grid
    }

    pub fn job(&self) -> &FillJob {
        &self.job
    }

    /// The tile holding world `(x, z)` (points west or south of the terrain clamp to its
    /// first column or row). A placement's own tile is the one its candidate was drawn
    /// in, which rounding can put a hair past this near a border.
    pub fn tile_at(&self, x: f32, z: f32) -> (usize, usize) {
        let cell = ((Vec2::new(x, z) - self.origin) / self.cell_m)
            .floor()
            .max(Vec2::ZERO);
        self.grid.tile_of(cell.x as usize, cell.y as usize)
    }

    /// The placements the fill makes in `tile`, in the order it accepts them, numbered
    /// from `first_id`.
    pub fn make(
        &self,
        terrain: &Terrain,
        tile: (usize, usize),
        first_id: u64,
    ) -> Result<Vec<Placement>, FillError> {
        let plan = self.job.plan_tile(terrain, tile)?;
        // A tile is at least as wide as any spacing, so what stood before the fill
        // reaches the cone's candidates only from the cone's tiles and their neighbours.
        let mut near: FxHashSet<(usize, usize)> = FxHashSet::default();
        for (x, z) in self.grid.cone(tile) {
            for nz in z.saturating_sub(1)..=z + 1 {
                for nx in x.saturating_sub(1)..=x + 1 {
                    near.insert((nx, nz));
                }
            }
        }
        let mut standing: Vec<&Placement> = near
            .iter()
            .filter_map(|tile| self.before.get(tile))
            .flatten()
            .collect();
        // Acceptance only asks whether a placement is near; the order is for repeatability.
        standing.sort_by_key(|p| p.id);
        let mut painter = Painter::holding(MAX_PLACEMENT_CAP, standing.into_iter().cloned());
        let catalog = self.job.catalog();
        painter.fill(catalog, &plan.cone, |_, _| false, &mut Edit::default())?;
        let mut own = Edit::default();
        painter.fill(catalog, &plan.tile, |_, _| false, &mut own)?;
        let mut made = own.added;
        for (placement, id) in made.iter_mut().zip(first_id..) {
            placement.id = PlacementId(id);
        }
        Ok(made)
    }
}

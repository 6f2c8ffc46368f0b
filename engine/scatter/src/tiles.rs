//! One tile of a fill made on its own, away from the session: what a streamed fill
//! generates around a camera instead of storing every placement.
//!
//! A fill accepted in [`crate::FillOrder::Tiles`] settles a tile from what stood before
//! the fill and what its earlier neighbours made (see `fill.rs`). A [`TileSource`] holds
//! the fill's job and those earlier placements of the families the fill places, by tile.
//! [`TileSource::make_after`] plans the tile's candidates and accepts them, in a painter
//! of its own, against what stood before nearby and what its earlier neighbours made:
//! the placements the whole fill makes there, bit for bit. A streamer keeps what tiles
//! made and hands it to their later neighbours, so each tile is planned once;
//! [`TileSource::make`] does the same for one tile from nothing. Both take `&self`, so
//! worker threads make tiles side by side.

use glam::Vec2;
use rustc_hash::{FxHashMap, FxHashSet};
use sylva_terrain::Terrain;

use crate::editor::FillJob;
use crate::fill::{FillError, TileGrid};
use crate::painter::{Painter, MAX_PLACEMENT_CAP};
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
        let families: FxHashSet<String> = job.families().map(str::to_owned).collect();
        let mut source = Self {
            grid: job.tiles(terrain),
            cell_m: terrain.spacing(),
            origin: terrain.min_corner(),
            before: FxHashMap::default(),
            job,
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

    /// The placements the fill makes in `tile`, in the order it accepts them, each
    /// numbered `first_id` plus the index of its candidate in the tile, once its earlier neighbours ([`TileGrid::earlier`]) have made
    /// theirs: `earlier` holds everything they made of the families that matter (spacing
    /// is kept within a family, so a family's placements need only that family's), in any
    /// order. Only the families `wanted` takes are accepted and returned.
    pub fn make_after(
        &self,
        terrain: &Terrain,
        tile: (usize, usize),
        earlier: &[&Placement],
        first_id: u64,
        wanted: impl Fn(&str) -> bool,
    ) -> Result<Vec<Placement>, FillError> {
        let plan = self.job.plan_tile(terrain, tile)?;
        let catalog = self.job.catalog();
        // A tile is at least as wide as any spacing: only placements in it and its
        // neighbours can be near its candidates.
        let (x, z) = tile;
        let standing = (z.saturating_sub(1)..=z + 1)
            .flat_map(|nz| (x.saturating_sub(1)..=x + 1).map(move |nx| (nx, nz)))
            .filter_map(|near| self.before.get(&near))
            .flatten()
            .chain(earlier.iter().copied())
            .filter(|p| wanted(&p.family))
            .cloned();
        let mut painter = Painter::holding(MAX_PLACEMENT_CAP, standing);
        let candidates = (plan.candidates.iter().enumerate())
            .filter(|(_, c)| wanted(&catalog.categories()[c.category].family));
        let made = painter.accept_each(catalog, candidates);
        // Numbered by candidate, so a tile made with fewer families (whose others then
        // accept differently) names the ones it keeps as a full making does.
        Ok(made
            .into_iter()
            .map(|(index, mut placement)| {
                placement.id = PlacementId(first_id + index as u64);
                placement
            })
            .collect())
    }

    /// The placements the fill makes in `tile`, numbered from `first_id`, its earlier
    /// neighbours (and theirs, three tiles out at most) made here first.
    pub fn make(
        &self,
        terrain: &Terrain,
        tile: (usize, usize),
        first_id: u64,
    ) -> Result<Vec<Placement>, FillError> {
        let mut made: FxHashMap<(usize, usize), Vec<Placement>> = FxHashMap::default();
        self.make_into(terrain, tile, first_id, &mut made)?;
        Ok(made.remove(&tile).unwrap_or_default())
    }

    /// The placements the fill makes in each of `tiles`, in order, each numbered from
    /// `first_id` of its tile: [`TileSource::make`] for each, the earlier neighbours
    /// they share made once.
    pub fn make_each(
        &self,
        terrain: &Terrain,
        tiles: &[(usize, usize)],
        first_id: impl Fn((usize, usize)) -> u64,
    ) -> Result<Vec<Vec<Placement>>, FillError> {
        let mut made: FxHashMap<(usize, usize), Vec<Placement>> = FxHashMap::default();
        for &tile in tiles {
            if !made.contains_key(&tile) {
                self.make_into(terrain, tile, 0, &mut made)?;
            }
        }
        // Made from 0, ids are the candidates' indices in their tile.
        Ok(tiles
            .iter()
            .map(|&tile| {
                let first = first_id(tile);
                let mut placements = made.get(&tile).cloned().unwrap_or_default();
                for p in &mut placements {
                    p.id = PlacementId(first + p.id.0);
                }
                placements
            })
            .collect())
    }

    fn make_into(
        &self,
        terrain: &Terrain,
        tile: (usize, usize),
        first_id: u64,
        made: &mut FxHashMap<(usize, usize), Vec<Placement>>,
    ) -> Result<(), FillError> {
        let earlier: Vec<(usize, usize)> = TileGrid::earlier(tile).collect();
        for &neighbour in &earlier {
            if !made.contains_key(&neighbour) {
                self.make_into(terrain, neighbour, 0, made)?;
            }
        }
        let around: Vec<&Placement> = earlier.iter().flat_map(|n| &made[n]).collect();
        let placements = self.make_after(terrain, tile, &around, first_id, |_| true)?;
        made.insert(tile, placements);
        Ok(())
    }
}

//! Streamed fills' tiles made on the calling thread, where an edit needs them at once:
//! an erase asks whether it takes anything the stored fill would have held, and a
//! stroke or a stored fill is accepted against what the streamed fills place round it,
//! as it is against the stored fill's placements.
//!
//! A tile made here is the one its streamer makes, ids included, so a tile the
//! streamer holds made with every family is taken from it; others are made and kept
//! (a stroke's dabs ask for the same ones over and over) up to a bound.

use std::sync::Arc;

use glam::Vec2;
use rustc_hash::FxHashMap;
use sylva_scatter::{FillError, Placement, TileSource};
use sylva_terrain::Terrain;

use crate::stream::{first_id, tile_counts, TileStreamer};

/// Tiles kept at most; past it, the store starts afresh.
const KEPT_TILES: usize = 256;

/// Rounding can put a placement a hair past the tile its candidate was drawn in.
const TILE_EDGE_M: f32 = 0.5;

/// A tile of a streamed fill: the fill's number and the tile.
type FillTile = (usize, (usize, usize));

/// Tiles made here, by streamed fill and tile.
#[derive(Default)]
pub(crate) struct SpotTiles {
    made: FxHashMap<FillTile, Arc<Vec<Placement>>>,
}

impl SpotTiles {
    /// The tiles of streamed fill `fill` (made from `source`) that may hold a placement
    /// inside the box `low..=high`, each whole, erases not applied: those `streamer`
    /// holds made with every family taken from it, the others made here or kept.
    pub(crate) fn within(
        &mut self,
        fill: usize,
        (source, streamer): (&TileSource, Option<&TileStreamer>),
        terrain: &Terrain,
        (low, high): (Vec2, Vec2),
    ) -> Result<Vec<Arc<Vec<Placement>>>, FillError> {
        let counts = tile_counts(source, terrain);
        if counts.0 == 0 || counts.1 == 0 {
            return Ok(Vec::new());
        }
        let margin = Vec2::splat(TILE_EDGE_M);
        let (low, high) = (low - margin, high + margin);
        let first = source.tile_at(low.x, low.y);
        let last = source.tile_at(high.x, high.y);
        let mut tiles = Vec::new();
        let mut to_make = Vec::new();
        for z in first.1..=last.1.min(counts.1 - 1) {
            for x in first.0..=last.0.min(counts.0 - 1) {
                let tile = (x, z);
                let held = streamer.and_then(|streamer| streamer.made_whole(tile));
                match (held, self.made.get(&(fill, tile))) {
                    (Some(placements), _) => tiles.push(Arc::new(placements)),
                    (None, Some(kept)) => tiles.push(Arc::clone(kept)),
                    (None, None) => to_make.push(tile),
                }
            }
        }
        if to_make.is_empty() {
            return Ok(tiles);
        }
        if self.made.len() + to_make.len() > KEPT_TILES {
            self.made.clear();
        }
        let made = source.make_each(terrain, &to_make, |tile| first_id(fill, counts.0, tile))?;
        for (tile, placements) in to_make.into_iter().zip(made) {
            let placements = Arc::new(placements);
            self.made.insert((fill, tile), Arc::clone(&placements));
            tiles.push(placements);
        }
        Ok(tiles)
    }
}

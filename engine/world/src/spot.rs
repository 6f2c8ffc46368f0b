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
        for z in first.1..=last.1.min(counts.1 - 1) {
            for x in first.0..=last.0.min(counts.0 - 1) {
                let held = streamer.and_then(|streamer| streamer.made_whole((x, z)));
                match held {
                    Some(placements) => tiles.push(Arc::new(placements)),
                    None => tiles.push(self.tile(fill, source, terrain, counts.0, (x, z))?),
                }
            }
        }
        Ok(tiles)
    }

    fn tile(
        &mut self,
        fill: usize,
        source: &TileSource,
        terrain: &Terrain,
        tiles_across: usize,
        tile: (usize, usize),
    ) -> Result<Arc<Vec<Placement>>, FillError> {
        if let Some(made) = self.made.get(&(fill, tile)) {
            return Ok(Arc::clone(made));
        }
        if self.made.len() >= KEPT_TILES {
            self.made.clear();
        }
        let first = first_id(fill, tiles_across, tile);
        let made = Arc::new(source.make(terrain, tile, first)?);
        self.made.insert((fill, tile), Arc::clone(&made));
        Ok(made)
    }
}

//! A streamed fill's tiles made one after another over the whole terrain, a square of
//! [`WALK_SQUARE_TILES`]² tiles at a time: what an export writes from, in memory
//! proportional to a square of tiles, whatever the size of the fill or the terrain.
//!
//! A tile is accepted after its earlier neighbours ([`TileGrid::earlier`]), which are
//! at most two tiles away once theirs are counted; each square is made with the
//! neighbours round it that it needs ([`TileSource::make_each`]), which are dropped
//! with it: the squares beside it make them again, the same placements, ids included.

use sylva_scatter::{FillError, Placement, TileSource};
use sylva_terrain::Terrain;

use crate::stream::{first_id, tile_counts};

/// Tiles along each side of the squares a walk makes at once.
pub(crate) const WALK_SQUARE_TILES: usize = 16;

/// Every tile of one streamed fill, square by square in rows of squares from the
/// terrain's lowest corner, and row by row within a square.
pub struct FillWalk<'a> {
    source: &'a TileSource,
    terrain: &'a Terrain,
    fill: usize,
    /// Tiles across and along.
    counts: (usize, usize),
    /// Whether a standing erase took a placement.
    erased: Box<dyn Fn(&Placement) -> bool + 'a>,
    /// The square's tiles not handed out yet, last first, with their placements
    /// (erases not applied).
    square: Vec<((usize, usize), Vec<Placement>)>,
    /// Tiles along each side of a square.
    square_tiles: usize,
    /// The next square to make, counting across then along.
    next_square: usize,
    failed: bool,
}

impl<'a> FillWalk<'a> {
    pub(crate) fn new(
        source: &'a TileSource,
        terrain: &'a Terrain,
        fill: usize,
        erased: Box<dyn Fn(&Placement) -> bool + 'a>,
    ) -> Self {
        Self {
            source,
            terrain,
            fill,
            counts: tile_counts(source, terrain),
            erased,
            square: Vec::new(),
            square_tiles: WALK_SQUARE_TILES,
            next_square: 0,
            failed: false,
        }
    }

    /// The same walk in squares of `tiles`² tiles.
    #[cfg(test)]
    pub(crate) fn with_square_tiles(mut self, tiles: usize) -> Self {
        self.square_tiles = tiles;
        self
    }

    /// Makes the next square's tiles; false when there is none.
    fn make_square(&mut self) -> Result<bool, FillError> {
        let side = self.square_tiles;
        let across = self.counts.0.div_ceil(side);
        let along = self.counts.1.div_ceil(side);
        if self.next_square >= across * along {
            return Ok(false);
        }
        let (sx, sz) = (self.next_square % across, self.next_square / across);
        self.next_square += 1;
        let span = |start: usize, count: usize| start * side..((start + 1) * side).min(count);
        let tiles: Vec<(usize, usize)> = span(sz, self.counts.1)
            .flat_map(|z| span(sx, self.counts.0).map(move |x| (x, z)))
            .collect();
        let (fill, tiles_across) = (self.fill, self.counts.0);
        let made = (self.source).make_each(self.terrain, &tiles, |tile| {
            first_id(fill, tiles_across, tile)
        })?;
        self.square = tiles.into_iter().zip(made).rev().collect();
        Ok(true)
    }
}

impl Iterator for FillWalk<'_> {
    /// A tile and the placements it shows (standing erases applied), or the error
    /// that ends the walk.
    type Item = Result<((usize, usize), Vec<Placement>), FillError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        if self.square.is_empty() {
            match self.make_square() {
                Ok(true) => {}
                Ok(false) => return None,
                Err(error) => {
                    self.failed = true;
                    return Some(Err(error));
                }
            }
        }
        let (tile, mut placements) = self.square.pop()?;
        placements.retain(|p| !(self.erased)(p));
        Some(Ok((tile, placements)))
    }
}

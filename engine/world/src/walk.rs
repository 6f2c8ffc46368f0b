//! A streamed fill's tiles made one after another over the whole terrain, row by row,
//! holding at most three rows: what an export writes from, in memory proportional to a
//! row of tiles rather than to the fill.
//!
//! A tile is accepted after its earlier neighbours ([`TileGrid::earlier`]): an even
//! row's tiles need only tiles of their own row, an odd row's need the even rows on
//! both sides of it and their own row's earlier tiles. So row `z` is made once the
//! even rows round it are, and the row before it is dropped once `z` is handed out.

use std::collections::BTreeMap;

use sylva_scatter::{FillError, Placement, TileGrid, TileSource};
use sylva_terrain::Terrain;

use crate::stream::{first_id, tile_counts};

/// Every tile of one streamed fill, in rows from the terrain's lowest corner.
pub struct FillWalk<'a> {
    source: &'a TileSource,
    terrain: &'a Terrain,
    fill: usize,
    /// Tiles across and along.
    counts: (usize, usize),
    /// Whether a standing erase took a placement.
    erased: Box<dyn Fn(&Placement) -> bool + 'a>,
    /// Rows made, by row: per column, the tile's placements (erases not applied).
    rows: BTreeMap<usize, Vec<Vec<Placement>>>,
    /// The next row to hand out.
    next: usize,
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
            rows: BTreeMap::new(),
            next: 0,
            failed: false,
        }
    }

    /// Makes row `z` (an even row, or an odd one whose even neighbours are made).
    fn make_row(&mut self, z: usize) -> Result<(), FillError> {
        let across = self.counts.0;
        let mut row: Vec<Vec<Placement>> = vec![Vec::new(); across];
        // Even columns first: on an even row they need nothing, on an odd one only the
        // even rows round them; odd columns then see them.
        for x in (0..across).step_by(2).chain((1..across).step_by(2)) {
            let tile = (x, z);
            let earlier: Vec<&Placement> = TileGrid::earlier(tile)
                .filter(|&(nx, _)| nx < across)
                .flat_map(|(nx, nz)| {
                    if nz == z {
                        row[nx].iter()
                    } else {
                        self.rows.get(&nz).map_or([].iter(), |r| r[nx].iter())
                    }
                })
                .collect();
            let first = first_id(self.fill, across, tile);
            let made = self
                .source
                .make_after(self.terrain, tile, &earlier, first, |_| true)?;
            row[x] = made;
        }
        self.rows.insert(z, row);
        Ok(())
    }

    /// Readies row `z` to be handed out: makes it, first the even row after it for an
    /// odd one, and drops the rows before it (the rows after see only `z` on).
    fn ready_row(&mut self, z: usize) -> Result<(), FillError> {
        if z % 2 == 1 && z + 1 < self.counts.1 && !self.rows.contains_key(&(z + 1)) {
            self.make_row(z + 1)?;
        }
        if !self.rows.contains_key(&z) {
            self.make_row(z)?;
        }
        self.rows.retain(|&row, _| row >= z);
        Ok(())
    }
}

impl Iterator for FillWalk<'_> {
    /// A tile and the placements it shows (standing erases applied), or the error
    /// that ends the walk.
    type Item = Result<((usize, usize), Vec<Placement>), FillError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed || self.counts.0 == 0 {
            return None;
        }
        let (x, z) = (self.next % self.counts.0, self.next / self.counts.0);
        if z >= self.counts.1 {
            return None;
        }
        if x == 0 {
            if let Err(error) = self.ready_row(z) {
                self.failed = true;
                return Some(Err(error));
            }
        }
        self.next += 1;
        let placements = self.rows[&z][x]
            .iter()
            .filter(|p| !(self.erased)(p))
            .cloned()
            .collect();
        Some(Ok(((x, z), placements)))
    }
}

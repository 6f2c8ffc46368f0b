//! Filling a region with a preset: the whole terrain, a polygon (a lasso) or the area
//! under a brush stroke, at the preset's density or a given one.
//!
//! Candidates are drawn per terrain cell, from a generator seeded with the session
//! seed, the preset's name and the cell's column and row, so what a cell draws never
//! depends on the region, on other cells, on the session's brush generator or on the
//! thread count: re-filling one region redraws exactly its cells and leaves the rest
//! alone, and a fill takes nothing from the session's Mulberry32 stream (strokes after
//! it draw what they would have drawn without it). Cells are evaluated in parallel
//! with the brush's own candidate evaluation; the painter then accepts the candidates
//! in the fill's [`FillOrder`] against its one spacing index, so spacing holds across
//! every cell border and the result is the same on any thread count.
//!
//! # Tiles and phases
//! Fills accept in [`FillOrder::Tiles`]: cells group into square tiles at least as wide
//! as the largest spacing the preset asks for, aligned to the terrain's first cell (so
//! a tile is the same whatever the region), and tiles are accepted in four phases by
//! the parity of their column and row: even-even, odd-even, even-odd, odd-odd, each
//! phase's tiles south to north and west to east, each tile's cells likewise, each
//! cell's draws in order. Two tiles of one phase lie a whole tile apart, at least any
//! spacing, so neither sees the other's placements: a tile's outcome depends only on
//! what was there before the fill and on its neighbours of earlier phases, whose own
//! outcomes reach at most three tiles out. A tile can therefore be made alone, once its
//! earlier neighbours ([`TileGrid::earlier`]) are, with the placements the whole fill
//! makes there (`tiles.rs`). Journals from before keep [`FillOrder::Rows`] (rows south to north, columns
//! west to east), in which a cell depends on every cell accepted before it.

use std::ops::{ControlFlow, RangeInclusive};

use glam::Vec2;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use sylva_catalog::Catalog;
use sylva_terrain::Terrain;
use thiserror::Error;

use crate::angle::floor;
use crate::candidate::{bind_picks, Candidate, Draws, Placer, UnknownCategory};
use crate::preset::{Preset, MAX_DENSITY, MAX_RADIUS};
use crate::report::StrokeReport;
use crate::rng::Mulberry32;

/// Most vertices a fill polygon may have (its self-intersection check is quadratic).
pub const MAX_POLYGON_VERTICES: usize = 4_096;
/// Most dabs a brush-mask region may have.
pub const MAX_MASK_DABS: usize = 10_000;
/// Most candidates one fill may draw (density × area of the cells it covers): about
/// 50 bytes each are held until the fill is accepted.
pub const MAX_FILL_CANDIDATES: f64 = 32_000_000.0;
/// Rows (or tiles) of cells evaluated between two progress reports.
const BAND_UNITS: usize = 16;
/// The narrowest tile side in metres, rounded up to whole terrain cells: wide enough
/// that a tile holds many candidates, narrow enough to stream around a camera.
pub const MIN_TILE_M: f32 = 32.0;

/// Where a fill places: world `(x, z)` metres.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum FillRegion {
    /// The whole terrain.
    Whole,
    /// A simple polygon (a lasso), its vertices in order; it closes by itself.
    Polygon(Vec<(f32, f32)>),
    /// The area under a brush stroke: the union of discs of `radius` at `dabs`.
    Brush { radius: f32, dabs: Vec<(f32, f32)> },
}

/// What a fill does, as its journal event records it.
#[derive(Clone, Debug, PartialEq)]
pub struct FillRequest {
    /// A preset registered in the session.
    pub preset: String,
    pub region: FillRegion,
    /// Candidates per square metre; the preset's brush density when `None`.
    pub density: Option<f32>,
    /// The order candidates are accepted in; [`FillOrder::Tiles`] for new fills.
    pub order: FillOrder,
    /// Made tile by tile around the camera where the session is streamed, instead of
    /// stored (tiles order only); replay makes it like any other fill.
    pub stream: bool,
    /// Re-runs an earlier fill (its number, counting from 0 in journal order) over this
    /// region: that fill's placements inside the region leave first, and the new ones
    /// join it. Other fills, strokes and everything outside the region stay.
    pub replaces: Option<usize>,
}

/// The order a fill accepts its candidates in (see the module's documentation).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum FillOrder {
    /// Rows of cells south to north: a cell depends on every cell before it. What
    /// journals from before tiles recorded.
    Rows,
    /// Tiles in four phases: a tile depends only on the tiles within three of it.
    #[default]
    Tiles,
}

impl FillOrder {
    /// How a journal's fill event without an order was accepted.
    pub fn journalled_before_tiles() -> Self {
        FillOrder::Rows
    }

    /// Whether this is the order of journals from before tiles (written by omission).
    pub fn is_rows(&self) -> bool {
        *self == FillOrder::Rows
    }
}

#[derive(Debug, Clone, PartialEq, Error)]
pub enum FillError {
    #[error("fill density {density} per m² is outside (0, {MAX_DENSITY}]")]
    Density { density: f32 },
    #[error("the fill region has a coordinate that is not finite")]
    NotFinite,
    #[error("a fill polygon needs 3 to {MAX_POLYGON_VERTICES} vertices; this one has {count}")]
    PolygonVertices { count: usize },
    #[error("the fill polygon encloses no area")]
    PolygonArea,
    #[error(
        "the fill polygon crosses itself: edge {first} ({}) and edge {second} ({})",
        edge_text(.first_edge), edge_text(.second_edge)
    )]
    SelfIntersecting {
        first: usize,
        second: usize,
        first_edge: [(f32, f32); 2],
        second_edge: [(f32, f32); 2],
    },
    #[error("a fill brush mask needs a radius in (0, {MAX_RADIUS}] m; it has {radius}")]
    MaskRadius { radius: f32 },
    #[error("a fill brush mask needs 1 to {MAX_MASK_DABS} dabs; it has {count}")]
    MaskDabs { count: usize },
    #[error(
        "the fill region ({:.1}, {:.1}) to ({:.1}, {:.1}) lies outside the terrain, which \
         spans ({:.1}, {:.1}) to ({:.1}, {:.1})",
        .region[0].x, .region[0].y, .region[1].x, .region[1].y,
        .terrain[0].x, .terrain[0].y, .terrain[1].x, .terrain[1].y
    )]
    OutsideTerrain {
        region: [Vec2; 2],
        terrain: [Vec2; 2],
    },
    #[error(
        "the fill would draw {candidates:.0} candidates, more than {MAX_FILL_CANDIDATES:.0}; \
         lower the density or fill a smaller region"
    )]
    TooManyCandidates { candidates: f64 },
    #[error(
        "the fill would place more than the placement cap of {cap} allows ({live} placements \
         were live; it had placed {placed} with {unplaced} candidates to go); nothing was \
         changed: lower the density, fill a smaller region or raise the cap"
    )]
    Cap {
        cap: usize,
        live: usize,
        placed: usize,
        unplaced: usize,
    },
    #[error("pick {index} names category `{category}`, which the catalog does not have")]
    UnknownCategory { index: usize, category: String },
    #[error("the fill was cancelled")]
    Cancelled,
}

fn edge_text(edge: &[(f32, f32); 2]) -> String {
    let [(x0, z0), (x1, z1)] = edge;
    format!("({x0}, {z0}) to ({x1}, {z1})")
}

/// A fill's candidates, evaluated but not yet accepted: everything that does not
/// depend on the placements already there. Planning needs no painter, so it can run
/// away from the thread that owns the session.
#[derive(Clone, Debug)]
pub struct FillPlan {
    /// Candidates that passed every test but spacing, in cell order.
    pub(crate) candidates: Vec<Candidate>,
    /// Candidates drawn inside the region and the rejections found so far.
    pub(crate) report: StrokeReport,
    pub(crate) area: Area,
}

impl FillPlan {
    /// Candidates drawn inside the region.
    pub fn candidates(&self) -> u32 {
        self.report.candidates
    }

    pub fn area(&self) -> &Area {
        &self.area
    }
}

/// A checked region clipped to the terrain: a bounding box and an exact inside test.
#[derive(Clone, Debug)]
pub struct Area {
    region: FillRegion,
    min: Vec2,
    max: Vec2,
}

impl Area {
    /// Checks `region` and clips its bounds to `terrain`.
    pub fn new(region: &FillRegion, terrain: &Terrain) -> Result<Self, FillError> {
        let (tmin, tmax) = (terrain.min_corner(), terrain.max_corner());
        let (min, max) = match region {
            FillRegion::Whole => (tmin, tmax),
            FillRegion::Polygon(points) => {
                check_polygon(points)?;
                bounds(points.iter().map(|&(x, z)| Vec2::new(x, z)))
            }
            FillRegion::Brush { radius, dabs } => {
                if !(radius.is_finite() && *radius > 0.0 && *radius <= MAX_RADIUS) {
                    return Err(FillError::MaskRadius { radius: *radius });
                }
                if dabs.is_empty() || dabs.len() > MAX_MASK_DABS {
                    return Err(FillError::MaskDabs { count: dabs.len() });
                }
                if dabs.iter().any(|&(x, z)| !(x.is_finite() && z.is_finite())) {
                    return Err(FillError::NotFinite);
                }
                let (lo, hi) = bounds(dabs.iter().map(|&(x, z)| Vec2::new(x, z)));
                (lo - Vec2::splat(*radius), hi + Vec2::splat(*radius))
            }
        };
        let (clipped_min, clipped_max) = (min.max(tmin), max.min(tmax));
        if clipped_min.x >= clipped_max.x || clipped_min.y >= clipped_max.y {
            return Err(FillError::OutsideTerrain {
                region: [min, max],
                terrain: [tmin, tmax],
            });
        }
        Ok(Self {
            region: region.clone(),
            min: clipped_min,
            max: clipped_max,
        })
    }

    /// The region's bounding box on the terrain, lowest corner first.
    pub fn bounds(&self) -> (Vec2, Vec2) {
        (self.min, self.max)
    }

    /// Whether world `(x, z)` lies in the region (and on the terrain).
    pub fn contains(&self, x: f32, z: f32) -> bool {
        if x < self.min.x || x > self.max.x || z < self.min.y || z > self.max.y {
            return false;
        }
        match &self.region {
            FillRegion::Whole => true,
            FillRegion::Polygon(points) => polygon_contains(points, x, z),
            FillRegion::Brush { radius, dabs } => {
                let r2 = radius * radius;
                dabs.iter().any(|&(cx, cz)| {
                    let (dx, dz) = (x - cx, z - cz);
                    dx * dx + dz * dz <= r2
                })
            }
        }
    }
}

/// Evaluates the candidates of a fill of `preset` over `region` at `density` per m²,
/// in `order`. `progress` hears (units done, units in all: rows or tiles) after every
/// band of them and cancels the fill by answering `ControlFlow::Break`.
#[allow(clippy::too_many_arguments)]
pub fn plan(
    terrain: &Terrain,
    catalog: &Catalog,
    preset: &Preset,
    region: &FillRegion,
    density: f32,
    seed: u32,
    order: FillOrder,
    progress: &mut dyn FnMut(usize, usize) -> ControlFlow<()>,
) -> Result<FillPlan, FillError> {
    let cells = Cells::new(terrain, preset, region, density)?;
    let units = match order {
        FillOrder::Rows => cells.rows.clone().map(Unit::Row).collect(),
        FillOrder::Tiles => cells.tiles.phase_order(cells.tile_span()),
    };
    plan_units(terrain, catalog, preset, &cells, seed, &units, progress)
}

/// The candidates of one tile of a fill in [`FillOrder::Tiles`] (a tile's column and
/// row in `TileGrid::new(terrain, preset)`), in acceptance order: accepted after what
/// stood before the fill and what its earlier neighbours ([`TileGrid::earlier`]) made,
/// they make exactly the placements the whole fill makes from the tile's cells.
pub fn plan_tile(
    terrain: &Terrain,
    catalog: &Catalog,
    preset: &Preset,
    region: &FillRegion,
    density: f32,
    seed: u32,
    tile: (usize, usize),
) -> Result<FillPlan, FillError> {
    let cells = Cells::of_tile(terrain, preset, region, density, tile)?;
    let (columns, rows) = cells.tile_span();
    let own = if columns.contains(&tile.0) && rows.contains(&tile.1) {
        vec![Unit::Tile(tile.0, tile.1)]
    } else {
        Vec::new()
    };
    let mut go_on = |_, _| ControlFlow::Continue(());
    plan_units(terrain, catalog, preset, &cells, seed, &own, &mut go_on)
}

/// Checks a streamed fill's density and region (its candidates are not counted: it is
/// never made whole).
pub fn check_streamed(
    terrain: &Terrain,
    region: &FillRegion,
    density: f32,
) -> Result<Area, FillError> {
    if !(density.is_finite() && density > 0.0 && density <= MAX_DENSITY) {
        return Err(FillError::Density { density });
    }
    Area::new(region, terrain)
}

/// A fill's checked settings and the cells it covers.
struct Cells {
    area: Area,
    density: f32,
    columns: RangeInclusive<usize>,
    rows: RangeInclusive<usize>,
    tiles: TileGrid,
}

impl Cells {
    fn new(
        terrain: &Terrain,
        preset: &Preset,
        region: &FillRegion,
        density: f32,
    ) -> Result<Self, FillError> {
        let area = check_streamed(terrain, region, density)?;
        let cells = Self::covering(terrain, preset, area, density);
        let expected = f64::from(density * terrain.spacing() * terrain.spacing())
            * cells.columns.clone().count() as f64
            * cells.rows.clone().count() as f64;
        if expected > MAX_FILL_CANDIDATES {
            return Err(FillError::TooManyCandidates {
                candidates: expected,
            });
        }
        Ok(cells)
    }

    /// The cells of `area`, uncounted.
    fn covering(terrain: &Terrain, preset: &Preset, area: Area, density: f32) -> Self {
        let spacing = terrain.spacing();
        let origin = terrain.min_corner();
        let cell_of =
            |v: f32, o: f32, last: usize| (floor((v - o) / spacing).max(0.0) as usize).min(last);
        let (last_column, last_row) = (terrain.columns() - 2, terrain.rows() - 2);
        let columns =
            cell_of(area.min.x, origin.x, last_column)..=cell_of(area.max.x, origin.x, last_column);
        let rows =
            cell_of(area.min.y, origin.y, last_row)..=cell_of(area.max.y, origin.y, last_row);
        Self {
            area,
            density,
            columns,
            rows,
            tiles: TileGrid::new(terrain, preset),
        }
    }

    /// The fill's cells in `tile`: what planning it needs, however large the fill
    /// (whose candidates are counted only there).
    fn of_tile(
        terrain: &Terrain,
        preset: &Preset,
        region: &FillRegion,
        density: f32,
        (x, z): (usize, usize),
    ) -> Result<Self, FillError> {
        let area = check_streamed(terrain, region, density)?;
        let whole = Self::covering(terrain, preset, area, density);
        let side = whole.tiles.side_cells;
        let clip = |all: &RangeInclusive<usize>, t: usize| {
            *all.start().max(&(t * side))..=*all.end().min(&((t + 1) * side - 1))
        };
        Ok(Self {
            columns: clip(&whole.columns, x),
            rows: clip(&whole.rows, z),
            ..whole
        })
    }

    /// The tiles the cells touch: columns and rows of tiles.
    fn tile_span(&self) -> (RangeInclusive<usize>, RangeInclusive<usize>) {
        let side = self.tiles.side_cells;
        (
            self.columns.start() / side..=self.columns.end() / side,
            self.rows.start() / side..=self.rows.end() / side,
        )
    }

    /// The cells of `unit` inside the fill's, in acceptance order.
    fn of(&self, unit: Unit) -> impl Iterator<Item = (usize, usize)> {
        let (columns, rows) = match unit {
            Unit::Row(row) => (self.columns.clone(), row..=row),
            Unit::Tile(x, z) => {
                let side = self.tiles.side_cells;
                let clip = |range: &RangeInclusive<usize>, t: usize| {
                    (t * side).max(*range.start())..=((t + 1) * side - 1).min(*range.end())
                };
                (clip(&self.columns, x), clip(&self.rows, z))
            }
        };
        rows.flat_map(move |row| columns.clone().map(move |column| (column, row)))
    }
}

/// What a fill evaluates as one piece of work: a row of cells or a tile.
#[derive(Clone, Copy, Debug)]
enum Unit {
    Row(usize),
    Tile(usize, usize),
}

/// Square tiles of terrain cells, at least as wide as the largest spacing a preset asks
/// for and [`MIN_TILE_M`], aligned to the terrain's first cell.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TileGrid {
    /// Terrain cells per tile side.
    pub side_cells: usize,
}

impl TileGrid {
    pub fn new(terrain: &Terrain, preset: &Preset) -> Self {
        let widest = preset.widest_spacing().max(MIN_TILE_M);
        Self {
            side_cells: (widest / terrain.spacing()).ceil().max(1.0) as usize,
        }
    }

    /// The tile holding terrain cell (`column`, `row`).
    pub fn tile_of(&self, column: usize, row: usize) -> (usize, usize) {
        (column / self.side_cells, row / self.side_cells)
    }

    /// The phase a tile is accepted in, 0 to 3: even-even, odd-even, even-odd, odd-odd.
    pub fn phase((x, z): (usize, usize)) -> u8 {
        (x % 2 + 2 * (z % 2)) as u8
    }

    /// The neighbours of `tile` (the eight round it, on the terrain) accepted in an
    /// earlier phase: the only tiles of the fill whose placements its own see.
    pub fn earlier(tile: (usize, usize)) -> impl Iterator<Item = (usize, usize)> {
        let (x, z) = tile;
        let phase = Self::phase(tile);
        (z.saturating_sub(1)..=z + 1)
            .flat_map(move |nz| (x.saturating_sub(1)..=x + 1).map(move |nx| (nx, nz)))
            .filter(move |&neighbour| Self::phase(neighbour) < phase)
    }

    /// The tiles of `span` (columns and rows of tiles) in acceptance order.
    fn phase_order(
        &self,
        (columns, rows): (RangeInclusive<usize>, RangeInclusive<usize>),
    ) -> Vec<Unit> {
        (0..4u8)
            .flat_map(|phase| {
                let columns = columns.clone();
                rows.clone().flat_map(move |z| {
                    columns
                        .clone()
                        .filter(move |&x| Self::phase((x, z)) == phase)
                        .map(move |x| Unit::Tile(x, z))
                })
            })
            .collect()
    }
}

/// Evaluates the candidates of `cells` unit by unit, in parallel a band at a time.
fn plan_units(
    terrain: &Terrain,
    catalog: &Catalog,
    preset: &Preset,
    cells: &Cells,
    seed: u32,
    units: &[Unit],
    progress: &mut dyn FnMut(usize, usize) -> ControlFlow<()>,
) -> Result<FillPlan, FillError> {
    let picks = bind_picks(preset, catalog).map_err(|UnknownCategory { index, category }| {
        FillError::UnknownCategory { index, category }
    })?;
    let spacing = terrain.spacing();
    let origin = terrain.min_corner();
    let per_cell = cells.density * spacing * spacing;
    let placer = Placer {
        terrain,
        catalog,
        picks: &picks,
    };
    let salt = name_salt(&preset.name);
    let area = &cells.area;
    let unit_of = |unit: Unit| {
        let mut out = UnitOutcome::default();
        for (column, row) in cells.of(unit) {
            let mut rng = Mulberry32::new(cell_seed(seed, salt, column as u32, row as u32));
            // Stochastic rounding keeps the expected count right at any density.
            let whole = floor(per_cell);
            let extra = rng.next_f32() < per_cell - whole;
            let count = whole as usize + extra as usize;
            let x0 = origin.x + column as f32 * spacing;
            let z0 = origin.y + row as f32 * spacing;
            for _ in 0..count {
                let draws = Draws::next(&mut rng);
                let (x, z) = (x0 + draws.spot.0 * spacing, z0 + draws.spot.1 * spacing);
                if !area.contains(x, z) {
                    continue;
                }
                out.report.candidates += 1;
                match placer.evaluate_at(x, z, &draws) {
                    Ok(candidate) => out.passed.push(candidate),
                    Err(reason) => out.report.rejected.count(reason),
                }
            }
        }
        out
    };
    let mut plan = FillPlan {
        candidates: Vec::new(),
        report: StrokeReport::default(),
        area: area.clone(),
    };
    for (band, chunk) in units.chunks(BAND_UNITS).enumerate() {
        let outcomes: Vec<UnitOutcome> = chunk.par_iter().map(|&unit| unit_of(unit)).collect();
        for unit in outcomes {
            plan.report += unit.report;
            plan.candidates.extend(unit.passed);
        }
        let done = (band * BAND_UNITS + chunk.len()).min(units.len());
        if progress(done, units.len()).is_break() {
            return Err(FillError::Cancelled);
        }
    }
    Ok(plan)
}

#[derive(Default)]
struct UnitOutcome {
    /// Candidates and rejections.
    report: StrokeReport,
    passed: Vec<Candidate>,
}

/// The seed of one terrain cell's generator: the session seed, a salt from the
/// preset's name (two presets filling one cell do not draw the same points) and the
/// cell, mixed with MurmurHash3's finaliser.
pub fn cell_seed(seed: u32, salt: u32, column: u32, row: u32) -> u32 {
    let mut h = fmix32(seed ^ 0x9E37_79B9);
    for value in [salt, column, row] {
        h = fmix32(h.wrapping_add(value).wrapping_mul(0x85EB_CA6B) ^ h.rotate_left(13));
    }
    h
}

fn fmix32(mut h: u32) -> u32 {
    h ^= h >> 16;
    h = h.wrapping_mul(0x85EB_CA6B);
    h ^= h >> 13;
    h = h.wrapping_mul(0xC2B2_AE35);
    h ^ (h >> 16)
}

/// FNV-1a of the preset's name: a preset edited under the same name keeps its
/// candidate positions, so re-running its fill moves nothing that still qualifies.
fn name_salt(name: &str) -> u32 {
    name.bytes()
        .fold(0x811C_9DC5, |h, b| (h ^ b as u32).wrapping_mul(0x0100_0193))
}

fn bounds(points: impl Iterator<Item = Vec2>) -> (Vec2, Vec2) {
    points.fold(
        (Vec2::splat(f32::INFINITY), Vec2::splat(f32::NEG_INFINITY)),
        |(lo, hi), p| (lo.min(p), hi.max(p)),
    )
}

fn check_polygon(points: &[(f32, f32)]) -> Result<(), FillError> {
    let n = points.len();
    if !(3..=MAX_POLYGON_VERTICES).contains(&n) {
        return Err(FillError::PolygonVertices { count: n });
    }
    if points
        .iter()
        .any(|&(x, z)| !(x.is_finite() && z.is_finite()))
    {
        return Err(FillError::NotFinite);
    }
    let edge = |i: usize| [points[i], points[(i + 1) % n]];
    for first in 0..n {
        // Neighbouring edges share a vertex; every other pair must not touch.
        for second in first + 2..n {
            if first == 0 && second == n - 1 {
                continue;
            }
            if segments_touch(edge(first), edge(second)) {
                return Err(FillError::SelfIntersecting {
                    first,
                    second,
                    first_edge: edge(first),
                    second_edge: edge(second),
                });
            }
        }
    }
    let twice_area: f64 = (0..n)
        .map(|i| {
            let [(x0, z0), (x1, z1)] = edge(i);
            x0 as f64 * z1 as f64 - x1 as f64 * z0 as f64
        })
        .sum();
    if twice_area.abs() < 1e-6 {
        return Err(FillError::PolygonArea);
    }
    Ok(())
}

/// Whether two closed segments share a point, in exact f64 arithmetic on f32 inputs.
fn segments_touch(a: [(f32, f32); 2], b: [(f32, f32); 2]) -> bool {
    let p = |(x, z): (f32, f32)| (x as f64, z as f64);
    let (a0, a1, b0, b1) = (p(a[0]), p(a[1]), p(b[0]), p(b[1]));
    let cross = |o: (f64, f64), u: (f64, f64), v: (f64, f64)| {
        (u.0 - o.0) * (v.1 - o.1) - (u.1 - o.1) * (v.0 - o.0)
    };
    let within = |o: (f64, f64), u: (f64, f64), v: (f64, f64)| {
        v.0 >= o.0.min(u.0) && v.0 <= o.0.max(u.0) && v.1 >= o.1.min(u.1) && v.1 <= o.1.max(u.1)
    };
    let (d1, d2) = (cross(b0, b1, a0), cross(b0, b1, a1));
    let (d3, d4) = (cross(a0, a1, b0), cross(a0, a1, b1));
    if ((d1 > 0.0 && d2 < 0.0) || (d1 < 0.0 && d2 > 0.0))
        && ((d3 > 0.0 && d4 < 0.0) || (d3 < 0.0 && d4 > 0.0))
    {
        return true;
    }
    (d1 == 0.0 && within(b0, b1, a0))
        || (d2 == 0.0 && within(b0, b1, a1))
        || (d3 == 0.0 && within(a0, a1, b0))
        || (d4 == 0.0 && within(a0, a1, b1))
}

/// Even-odd crossing test.
fn polygon_contains(points: &[(f32, f32)], x: f32, z: f32) -> bool {
    let mut inside = false;
    let mut previous = points[points.len() - 1];
    for &current in points {
        let ((x0, z0), (x1, z1)) = (previous, current);
        if (z0 > z) != (z1 > z) && x < x0 + (z - z0) / (z1 - z0) * (x1 - x0) {
            inside = !inside;
        }
        previous = current;
    }
    inside
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bow_tie_crosses_itself_and_a_square_does_not() {
        let square = [(0.0, 0.0), (10.0, 0.0), (10.0, 10.0), (0.0, 10.0)];
        assert!(check_polygon(&square).is_ok());
        let bow_tie = [(0.0, 0.0), (10.0, 10.0), (10.0, 0.0), (0.0, 10.0)];
        assert!(matches!(
            check_polygon(&bow_tie),
            Err(FillError::SelfIntersecting {
                first: 0,
                second: 2,
                ..
            })
        ));
        let flat = [(0.0, 0.0), (5.0, 0.0), (10.0, 0.0)];
        assert!(check_polygon(&flat).is_err());
    }

    #[test]
    fn polygon_inside_test_is_even_odd() {
        // An L shape: its notch is outside.
        let l = [
            (0.0, 0.0),
            (10.0, 0.0),
            (10.0, 4.0),
            (4.0, 4.0),
            (4.0, 10.0),
            (0.0, 10.0),
        ];
        assert!(polygon_contains(&l, 2.0, 2.0));
        assert!(polygon_contains(&l, 2.0, 8.0));
        assert!(!polygon_contains(&l, 8.0, 8.0));
        assert!(!polygon_contains(&l, -1.0, 2.0));
    }

    #[test]
    fn cell_seeds_differ_by_cell_seed_and_salt() {
        let base = cell_seed(1, 2, 3, 4);
        assert_eq!(base, cell_seed(1, 2, 3, 4));
        for other in [
            cell_seed(2, 2, 3, 4),
            cell_seed(1, 3, 3, 4),
            cell_seed(1, 2, 4, 3),
            cell_seed(1, 2, 3, 5),
        ] {
            assert_ne!(base, other);
        }
    }
}

//! A streamed fill: its tiles made around the camera on worker threads and dropped
//! behind it, instead of every placement stored.
//!
//! Each spacing family the fill places has a reach: how far from the camera its
//! placements are kept (for a renderer, where its props stop being seen). A tile is
//! wanted with the families whose reach its nearest point lies within, and keeps a
//! family until the camera is `1 + hysteresis` times its reach away, so a camera
//! wavering at a reach neither makes nor drops tiles over and over.
//!
//! A tile is made once its earlier neighbours are ([`TileSource::make_after`]), from
//! what they made: a tile asked for with some families makes its earlier neighbours
//! ask for them too, a wave that reaches at most three tiles beyond the reach; those
//! support tiles are held while needed and not shown.
//!
//! Families place independently (spacing is kept within a family), so a tile holds
//! the families it was made with and is made again only with those it lacks, its
//! placements of the others kept.
//!
//! [`TileStreamer::update`] never waits: it takes (a bounded number of) the tiles the
//! workers finished, shows them and asks for the later neighbours they unblock; then
//! each family whose camera has moved its step since its last pass is passed over:
//! the tiles within its reach asked for, nearest first, those left cancelled or
//! dropped. A family's step grows with its reach (an eighth of its hysteresis band),
//! so trees reaching kilometres are passed over every few hundred metres and grass
//! every few, and a pass touches only the tiles round the family's old and new
//! camera. A tile within a family's reach and not back yet is late and shows once it
//! is. A tile made again (the camera gone and back) is the same, ids included (making
//! is deterministic and ids follow from the tile), less what erases over it took:
//! each [`Erasure`] is kept by the tiles it touches and hides what it takes whenever
//! they are made, while their later neighbours still accept against it, as the stored
//! fill's did before the erase.

use std::collections::{BinaryHeap, VecDeque};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;

use glam::{Vec2, Vec3};
use rustc_hash::FxHashMap;
use sylva_scatter::{FillError, Placement, PlacementId, TileGrid, TileSource};
use sylva_terrain::Terrain;
use thiserror::Error;

/// Placement ids of streamed tiles: the top bit set, so they never meet a session's
/// own (which count from 0), then the streamed fill's number, the tile and the
/// placement's place in it.
pub const STREAMED_ID_BIT: u64 = 1 << 63;
const FILL_BITS: u32 = 8;
const TILE_BITS: u32 = 31;
const ORDINAL_BITS: u32 = 24;
const _: () = assert!(1 + FILL_BITS + TILE_BITS + ORDINAL_BITS == 64);

/// The most streamed fills one world holds.
pub const MAX_STREAMED_FILLS: usize = 1 << FILL_BITS;

#[derive(Debug, Error, Clone, PartialEq)]
pub enum StreamError {
    #[error("family `{family}` has a reach of {reach_m} m; a reach is a positive number")]
    Reach { family: String, reach_m: f32 },
    #[error("hysteresis {hysteresis} is outside [0, 1]")]
    Hysteresis { hysteresis: f32 },
    #[error(
        "an erase needs a finite centre and a positive radius; it has {center:?} and {radius} m"
    )]
    Erase { center: [f32; 2], radius: f32 },
    #[error("a world streams at most {MAX_STREAMED_FILLS} fills")]
    TooManyFills,
    #[error("the terrain has {tiles} tiles of this fill, more than streamed ids number")]
    TooManyTiles { tiles: usize },
}

/// How a streamed fill is kept around the camera.
#[derive(Clone, Debug, PartialEq)]
pub struct StreamSettings {
    /// Per spacing family the fill places, in metres; families not listed are not
    /// streamed (nothing shows them).
    pub reach_m: Vec<(Arc<str>, f32)>,
    /// A held family is dropped only past `reach × (1 + hysteresis)`.
    pub hysteresis: f32,
    /// Worker threads making tiles (at least one).
    pub workers: usize,
}

/// What one [`TileStreamer::update`] changed, for a registry to mirror.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StreamChanges {
    pub added: Vec<Placement>,
    pub removed: Vec<PlacementId>,
}

/// Counts since the streamer began, and the state after the last update.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StreamStats {
    /// Tiles made (the camera gone and back counts again).
    pub tiles_made: u64,
    /// Tiles dropped out of reach.
    pub tiles_dropped: u64,
    /// Tiles asked for and given up before they came back (out of reach, or asked
    /// again with more families); a worker skips them unless it already began.
    pub tiles_cancelled: u64,
    /// Tiles within some family's reach at its last pass that are not made with it
    /// yet, and tiles made whose families within reach wait to be shown.
    pub late_tiles: u32,
    /// Placements held after the last update: shown, made a little beyond reach, or
    /// made for later neighbours (erased ones included).
    pub resident_placements: u64,
    /// Tiles held after the last update.
    pub resident_tiles: u32,
}

/// A tile as held.
struct Held {
    /// What it made, of the families it was made with, erases not applied: its later
    /// neighbours accept against all of it.
    placements: Arc<Vec<Placement>>,
    made_with: u32,
    /// Families that show (in reach), less what erases take.
    shown: u32,
    /// Families waiting in the show queue.
    queued: u32,
}

/// A tile asked of the workers and not back yet.
struct Pending {
    families: u32,
    cancelled: Arc<AtomicBool>,
}

/// One tile for a worker to make, nearest first, with what its earlier neighbours made.
struct Job {
    tile: (usize, usize),
    families: u32,
    distance_m: f32,
    cancelled: Arc<AtomicBool>,
    earlier: Vec<Arc<Vec<Placement>>>,
}

impl PartialEq for Job {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other).is_eq()
    }
}
impl Eq for Job {}
impl PartialOrd for Job {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Job {
    /// The nearest job is the heap's greatest.
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        other
            .distance_m
            .total_cmp(&self.distance_m)
            .then_with(|| other.tile.cmp(&self.tile))
    }
}

struct Made {
    tile: (usize, usize),
    families: u32,
    outcome: Result<Vec<Placement>, FillError>,
}

/// The workers' shared queue, and whether it is closed.
#[derive(Default)]
struct Queue {
    jobs: Mutex<(BinaryHeap<Job>, bool)>,
    ready: Condvar,
}

/// Makes one fill's tiles around the camera.
pub struct TileStreamer {
    settings: StreamSettings,
    /// Tiles across and along the terrain.
    tiles: (usize, usize),
    tile_m: f32,
    origin: Vec2,
    fill_number: u64,
    held: FxHashMap<(usize, usize), Held>,
    pending: FxHashMap<(usize, usize), Pending>,
    queue: Arc<Queue>,
    made: Receiver<Made>,
    workers: Vec<JoinHandle<()>>,
    stats: StreamStats,
    /// The first tile error a worker met; tiles that fail stay empty.
    error: Option<FillError>,
    /// Every erase made over the fill, in order, and by tile the ones that touch it.
    erasures: Vec<Erasure>,
    erasures_by_tile: FxHashMap<(usize, usize), Vec<usize>>,
    /// Per tile, the families it must be made with: those whose reach (a little
    /// stretched) holds it at their last pass, and those its later neighbours need.
    demand: FxHashMap<(usize, usize), u32>,
    /// Per tile, the families within whose reach it lay at their last pass, not made.
    late: FxHashMap<(usize, usize), u32>,
    /// Per family, where the camera was at its last pass.
    passed_at: Vec<Option<Vec2>>,
    /// Where the camera was at the last update.
    eye: Vec2,
    /// Placements held, all tiles together.
    resident: u64,
    /// Tiles to ask for at the end of this update, once their earlier neighbours are.
    to_ask: Vec<(usize, usize)>,
    /// Tiles and families a pass found within their show radius, shown over the
    /// updates that follow as the arrivals budget allows.
    to_show: VecDeque<((usize, usize), u32)>,
}

/// The most placements one update shows: a batch of tiles arriving or coming into a
/// family's show radius together is mirrored over several frames instead of stalling
/// one (they show beyond the reach, where nothing draws them yet).
const SHOWN_PER_UPDATE: usize = 8_000;

/// How far beyond a family's reach its support wave goes: three tiles' diagonals
/// (a tile's earlier neighbours are at most three phases deep).
const SUPPORT_TILES: f32 = 3.0 * std::f32::consts::SQRT_2;

/// A rectangle of tiles, inclusive.
#[derive(Clone, Copy)]
struct TileRange {
    x: (usize, usize),
    z: (usize, usize),
}

impl TileRange {
    fn tiles(self) -> impl Iterator<Item = (usize, usize)> {
        (self.z.0..=self.z.1).flat_map(move |z| (self.x.0..=self.x.1).map(move |x| (x, z)))
    }

    fn union(self, other: Self) -> Self {
        TileRange {
            x: (self.x.0.min(other.x.0), self.x.1.max(other.x.1)),
            z: (self.z.0.min(other.z.0), self.z.1.max(other.z.1)),
        }
    }
}

/// A family's distances for one pass.
#[derive(Clone, Copy)]
struct Radii {
    /// Shown within (its reach plus the step its passes are apart, so whatever comes
    /// within its reach before the next pass already shows).
    show: f32,
    /// Asked within.
    ask: f32,
    /// Kept until past.
    keep: f32,
}

/// An erase over a streamed fill: what it took stays taken whenever its tiles are made.
#[derive(Clone, Debug, PartialEq)]
pub struct Erasure {
    pub center: Vec2,
    pub radius: f32,
    /// Only these categories; every one when `None`.
    pub categories: Option<Vec<Arc<str>>>,
}

impl Erasure {
    /// Whether this erase takes `placement` (the brush's own test: its base within the
    /// radius, horizontally).
    pub fn takes(&self, placement: &Placement) -> bool {
        let at = Vec2::new(placement.position.x, placement.position.z);
        at.distance_squared(self.center) <= self.radius * self.radius
            && self
                .categories
                .as_ref()
                .is_none_or(|names| names.contains(&placement.category))
    }
}

impl TileStreamer {
    /// Streams `source` on `terrain` as the world's streamed fill number `fill_number`.
    pub fn new(
        source: Arc<TileSource>,
        terrain: Arc<Terrain>,
        settings: StreamSettings,
        fill_number: usize,
    ) -> Result<Self, StreamError> {
        for (family, reach_m) in &settings.reach_m {
            if !(reach_m.is_finite() && *reach_m > 0.0) {
                return Err(StreamError::Reach {
                    family: family.to_string(),
                    reach_m: *reach_m,
                });
            }
        }
        let hysteresis = settings.hysteresis;
        if !(0.0..=1.0).contains(&hysteresis) {
            return Err(StreamError::Hysteresis { hysteresis });
        }
        if fill_number >= MAX_STREAMED_FILLS {
            return Err(StreamError::TooManyFills);
        }
        let side = source.grid().side_cells;
        let tiles = (
            (terrain.columns() - 1).div_ceil(side),
            (terrain.rows() - 1).div_ceil(side),
        );
        if tiles.0 * tiles.1 >= 1 << TILE_BITS {
            return Err(StreamError::TooManyTiles {
                tiles: tiles.0 * tiles.1,
            });
        }
        let families = settings.reach_m.len();
        let queue = Arc::new(Queue::default());
        let (sender, made) = channel();
        let workers = (0..settings.workers.max(1))
            .map(|_| {
                let (queue, source, terrain) = (
                    Arc::clone(&queue),
                    Arc::clone(&source),
                    Arc::clone(&terrain),
                );
                let (sender, families) = (sender.clone(), settings.reach_m.clone());
                let tiles_across = tiles.0;
                std::thread::spawn(move || {
                    let context = WorkContext {
                        source: &source,
                        terrain: &terrain,
                        families: &families,
                        fill_number,
                        tiles_across,
                    };
                    work(&queue, &context, &sender)
                })
            })
            .collect();
        Ok(Self {
            tile_m: side as f32 * terrain.spacing(),
            origin: terrain.min_corner(),
            settings,
            tiles,
            fill_number: fill_number as u64,
            held: FxHashMap::default(),
            pending: FxHashMap::default(),
            queue,
            made,
            workers,
            stats: StreamStats::default(),
            error: None,
            erasures: Vec::new(),
            erasures_by_tile: FxHashMap::default(),
            demand: FxHashMap::default(),
            late: FxHashMap::default(),
            passed_at: vec![None; families],
            eye: Vec2::ZERO,
            resident: 0,
            to_ask: Vec::new(),
            to_show: VecDeque::new(),
        })
    }

    pub fn stats(&self) -> StreamStats {
        self.stats
    }

    /// The first error a tile met (the fill's cap is not one: a streamed fill has none).
    pub fn error(&self) -> Option<&FillError> {
        self.error.as_ref()
    }

    /// Whether a placement id is one of this streamer's.
    pub fn owns(&self, id: PlacementId) -> bool {
        id.0 & STREAMED_ID_BIT != 0
            && (id.0 >> (TILE_BITS + ORDINAL_BITS)) & ((1 << FILL_BITS) - 1) == self.fill_number
    }

    /// Every placement shown now.
    pub fn placements(&self) -> impl Iterator<Item = &Placement> {
        self.held
            .iter()
            .flat_map(move |(&tile, held)| self.visible(tile, &held.placements, held.shown))
    }

    /// The placements of `placements` (tile `tile`'s) of the families `bits` sets that
    /// no erase takes.
    fn visible<'a>(
        &'a self,
        tile: (usize, usize),
        placements: &'a [Placement],
        bits: u32,
    ) -> impl Iterator<Item = &'a Placement> {
        let families = &self.settings.reach_m;
        let erasures: &[usize] = self.erasures_by_tile.get(&tile).map_or(&[], Vec::as_slice);
        placements.iter().filter(move |p| {
            bits & family_bit(families, &p.family) != 0
                && !erasures.iter().any(|&i| self.erasures[i].takes(p))
        })
    }

    /// Erases what `erasure` takes from the fill: hidden now in the tiles held, and in
    /// every tile it touches whenever that tile is made again.
    pub fn erase(&mut self, erasure: Erasure) -> Result<StreamChanges, StreamError> {
        let radius = erasure.radius;
        if !(radius.is_finite() && radius > 0.0 && erasure.center.is_finite()) {
            return Err(StreamError::Erase {
                center: erasure.center.into(),
                radius,
            });
        }
        let mut changes = StreamChanges::default();
        let center = erasure.center;
        let touched: Vec<(usize, usize)> = self
            .range_within(center, radius)
            .tiles()
            .filter(|&tile| self.distance_to(tile, center) <= radius)
            .collect();
        for &tile in &touched {
            if let Some(held) = self.held.get(&tile) {
                changes.removed.extend(
                    self.visible(tile, &held.placements, held.shown)
                        .filter(|p| erasure.takes(p))
                        .map(|p| p.id),
                );
            }
        }
        let index = self.erasures.len();
        self.erasures.push(erasure);
        for tile in touched {
            self.erasures_by_tile.entry(tile).or_default().push(index);
        }
        Ok(changes)
    }

    /// Takes what the workers made, asks for what the camera at `camera` now wants,
    /// cancels and drops what it no longer does, and says what changed. Never waits.
    pub fn update(&mut self, camera: Vec3) -> StreamChanges {
        let mut changes = StreamChanges::default();
        self.eye = Vec2::new(camera.x, camera.z);
        self.show_queued(&mut changes);
        self.take_made(&mut changes);
        for family in 0..self.settings.reach_m.len() {
            let step = self.step(family);
            let due = self.passed_at[family].is_none_or(|at| at.distance(self.eye) >= step);
            if due {
                self.pass(family, &mut changes);
            }
        }
        self.ask_waiting();
        self.stats.resident_tiles = self.held.len() as u32;
        self.stats.resident_placements = self.resident;
        let queued_in_reach = self.to_show.iter().filter(|&&(tile, bit)| {
            let reach = self.settings.reach_m[bit.trailing_zeros() as usize].1;
            self.distance_to(tile, self.eye) <= reach
        });
        self.stats.late_tiles = (self.late.len() + queued_in_reach.count()) as u32;
        changes
    }

    /// How far the camera moves between two passes over `family`: a quarter tile, or
    /// an eighth of the family's hysteresis band where that is longer.
    fn step(&self, family: usize) -> f32 {
        let reach = self.settings.reach_m[family].1;
        (self.tile_m / 4.0).max(reach * self.settings.hysteresis / 8.0)
    }

    fn radii(&self, family: usize) -> Radii {
        let reach = self.settings.reach_m[family].1;
        let hysteresis = self.settings.hysteresis;
        let ask = reach * (1.0 + hysteresis / 2.0);
        Radii {
            show: (reach + self.step(family)).min(ask),
            ask,
            keep: reach * (1.0 + hysteresis),
        }
    }

    /// Passes over `family` from the camera where it is now: asks for the tiles within
    /// its reach (and their support), shows those made, hides and drops those left,
    /// cancels those asked and no longer needed. Touches only the tiles round the
    /// family's last pass and this one.
    fn pass(&mut self, family: usize, changes: &mut StreamChanges) {
        let bit = 1u32 << family;
        let eye = self.eye;
        let radii = self.radii(family);
        let reach = self.settings.reach_m[family].1;
        let margin = SUPPORT_TILES * self.tile_m;
        // Kept reaches past asked (hysteresis ≥ 0).
        let extent = radii.keep + margin;
        let region = match self.passed_at[family].replace(eye) {
            Some(before) => self
                .range_within(before, extent)
                .union(self.range_within(eye, extent)),
            None => self.range_within(eye, extent),
        };
        // What this family wanted before goes; what it wants now comes.
        for tile in region.tiles() {
            for map in [&mut self.demand, &mut self.late] {
                if let Some(bits) = map.get_mut(&tile) {
                    *bits &= !bit;
                    if *bits == 0 {
                        map.remove(&tile);
                    }
                }
            }
        }
        let mut by_phase: [Vec<(usize, usize)>; 4] = Default::default();
        for tile in self.range_within(eye, radii.ask).tiles() {
            let distance = self.distance_to(tile, eye);
            if distance > radii.ask {
                continue;
            }
            *self.demand.entry(tile).or_default() |= bit;
            by_phase[usize::from(TileGrid::phase(tile))].push(tile);
            let made = self
                .held
                .get(&tile)
                .is_some_and(|held| held.made_with & bit != 0);
            if distance <= reach && !made {
                *self.late.entry(tile).or_default() |= bit;
            }
        }
        // A tile not made with the family needs its earlier neighbours made with it.
        for phase in (1..4).rev() {
            for tile in std::mem::take(&mut by_phase[phase]) {
                if self.made_with(tile) & bit != 0 {
                    continue;
                }
                for neighbour in self.earlier(tile).collect::<Vec<_>>() {
                    let bits = self.demand.entry(neighbour).or_default();
                    if *bits & bit == 0 {
                        *bits |= bit;
                        by_phase[usize::from(TileGrid::phase(neighbour))].push(neighbour);
                    }
                }
            }
        }
        for tile in region.tiles() {
            let demanded = self.demand.get(&tile).copied().unwrap_or(0);
            if demanded & bit != 0 {
                self.to_ask.push(tile);
            }
            if let Some(pending) = self.pending.get(&tile) {
                if pending.families & demanded == 0 {
                    pending.cancelled.store(true, Ordering::Relaxed);
                    self.pending.remove(&tile);
                    self.stats.tiles_cancelled += 1;
                }
            }
            let Some(held) = self.held.get(&tile) else {
                continue;
            };
            let distance = self.distance_to(tile, eye);
            let (made_with, shown) = (held.made_with, held.shown);
            if shown & bit != 0 && distance > radii.keep {
                changes
                    .removed
                    .extend(self.visible(tile, &held.placements, bit).map(|p| p.id));
                self.held.get_mut(&tile).expect("held").shown &= !bit;
            } else if shown & bit == 0 && made_with & bit != 0 && distance <= radii.show {
                let held = self.held.get_mut(&tile).expect("held");
                if held.queued & bit == 0 {
                    held.queued |= bit;
                    self.to_show.push_back((tile, bit));
                }
            }
            if made_with & bit != 0 && distance > radii.keep && demanded & bit == 0 {
                self.forget(tile, bit);
            }
        }
    }

    /// Shows the queued tiles' families still held, unshown and within their keep
    /// distance, until [`SHOWN_PER_UPDATE`] placements have been added.
    fn show_queued(&mut self, changes: &mut StreamChanges) {
        while changes.added.len() < SHOWN_PER_UPDATE {
            let Some((tile, bit)) = self.to_show.pop_front() else {
                break;
            };
            let family = bit.trailing_zeros() as usize;
            let within = self.distance_to(tile, self.eye) <= self.radii(family).keep;
            let Some(held) = self.held.get_mut(&tile) else {
                continue;
            };
            held.queued &= !bit;
            let held = &self.held[&tile];
            if held.made_with & bit == 0 || held.shown & bit != 0 || !within {
                continue;
            }
            changes
                .added
                .extend(self.visible(tile, &held.placements, bit).cloned());
            self.held.get_mut(&tile).expect("held").shown |= bit;
        }
    }

    /// Forgets `tile`'s placements of the families `bits` sets (hidden already); drops
    /// the tile when it is left with none.
    fn forget(&mut self, tile: (usize, usize), bits: u32) {
        let families = &self.settings.reach_m;
        let held = self.held.get_mut(&tile).expect("held");
        let kept = held.made_with & !bits;
        let before = held.placements.len();
        if kept == 0 {
            self.held.remove(&tile);
            self.stats.tiles_dropped += 1;
        } else {
            let placements: Vec<Placement> = held
                .placements
                .iter()
                .filter(|p| kept & family_bit(families, &p.family) != 0)
                .cloned()
                .collect();
            held.placements = Arc::new(placements);
            held.made_with = kept;
            held.shown &= kept;
        }
        let after = self.held.get(&tile).map_or(0, |held| held.placements.len());
        self.resident -= (before - after) as u64;
    }

    fn made_with(&self, tile: (usize, usize)) -> u32 {
        self.held.get(&tile).map_or(0, |held| held.made_with)
    }

    /// Asks the workers for the tiles waiting to be asked whose earlier neighbours are
    /// made with what they lack, nearest first.
    fn ask_waiting(&mut self) {
        let mut jobs = Vec::new();
        let mut waiting = std::mem::take(&mut self.to_ask);
        waiting.sort_unstable();
        waiting.dedup();
        for tile in waiting {
            let lacking = self.demand.get(&tile).copied().unwrap_or(0) & !self.made_with(tile);
            let asked = self
                .pending
                .get(&tile)
                .map_or(0, |pending| pending.families);
            if lacking == 0 || lacking & !asked == 0 {
                continue;
            }
            let earlier: Option<Vec<Arc<Vec<Placement>>>> = self
                .earlier(tile)
                .map(|neighbour| {
                    self.held
                        .get(&neighbour)
                        .filter(|held| lacking & !held.made_with == 0)
                        .map(|held| Arc::clone(&held.placements))
                })
                .collect();
            let Some(earlier) = earlier else {
                // Asked again when the neighbour it waits for comes back.
                continue;
            };
            if let Some(superseded) = self.pending.get(&tile) {
                superseded.cancelled.store(true, Ordering::Relaxed);
                self.stats.tiles_cancelled += 1;
            }
            let cancelled = Arc::new(AtomicBool::new(false));
            self.pending.insert(
                tile,
                Pending {
                    families: lacking,
                    cancelled: Arc::clone(&cancelled),
                },
            );
            jobs.push(Job {
                tile,
                families: lacking,
                distance_m: self.distance_to(tile, self.eye),
                cancelled,
                earlier,
            });
        }
        if !jobs.is_empty() {
            let mut queue = self.queue.jobs.lock().unwrap_or_else(|e| e.into_inner());
            queue.0.extend(jobs);
            self.queue.ready.notify_all();
        }
    }

    /// Installs the tiles the workers finished, until [`SHOWN_PER_UPDATE`] placements
    /// have been added, that are still wanted as they were asked: shows them where their
    /// families reach, and queues the later neighbours that waited for them.
    fn take_made(&mut self, changes: &mut StreamChanges) {
        while changes.added.len() < SHOWN_PER_UPDATE {
            let Ok(made) = self.made.try_recv() else {
                break;
            };
            let tile = made.tile;
            let Some(pending) = self.pending.get(&tile) else {
                continue;
            };
            if pending.families != made.families || pending.cancelled.load(Ordering::Relaxed) {
                continue;
            }
            self.pending.remove(&tile);
            self.stats.tiles_made += 1;
            let mut placements = match made.outcome {
                Ok(placements) => placements,
                Err(error) => {
                    self.error.get_or_insert(error);
                    Vec::new()
                }
            };
            let shown = self.showing(tile) & made.families;
            changes
                .added
                .extend(self.visible(tile, &placements, shown).cloned());
            self.resident += placements.len() as u64;
            let (made_with, shown, queued) = match self.held.remove(&tile) {
                Some(old) => {
                    // Unshared unless a queued job still reads it.
                    match Arc::try_unwrap(old.placements) {
                        Ok(own) => placements.extend(own),
                        Err(shared) => placements.extend(shared.iter().cloned()),
                    }
                    placements.sort_unstable_by_key(|p| p.id);
                    (old.made_with | made.families, old.shown | shown, old.queued)
                }
                None => (made.families, shown, 0),
            };
            self.held.insert(
                tile,
                Held {
                    placements: Arc::new(placements),
                    made_with,
                    shown,
                    queued,
                },
            );
            if let Some(late) = self.late.get_mut(&tile) {
                *late &= !made.families;
                if *late == 0 {
                    self.late.remove(&tile);
                }
            }
            let later: Vec<(usize, usize)> = self.later(tile).collect();
            self.to_ask.extend(later);
            let earlier: Vec<(usize, usize)> = self.earlier(tile).collect();
            for neighbour in earlier {
                self.release_support(neighbour, made.families, changes);
            }
        }
    }

    /// Takes back the families `bits` sets from `tile`'s demand where only its later
    /// neighbours asked for them and none of those still waits to be made with them,
    /// and forgets them where they are beyond their keep distance: a support tile
    /// goes once what it supported is made.
    fn release_support(&mut self, tile: (usize, usize), bits: u32, changes: &mut StreamChanges) {
        let Some(&demanded) = self.demand.get(&tile) else {
            return;
        };
        for family in 0..self.settings.reach_m.len() {
            let bit = 1u32 << family;
            if bits & demanded & bit == 0 {
                continue;
            }
            let radii = self.radii(family);
            let direct =
                self.passed_at[family].is_some_and(|at| self.distance_to(tile, at) <= radii.ask);
            let supporting = self.later(tile).any(|later| {
                self.demand.get(&later).is_some_and(|&d| d & bit != 0)
                    && self.made_with(later) & bit == 0
            });
            if direct || supporting {
                continue;
            }
            let left = self.demand.get_mut(&tile).expect("demanded");
            *left &= !bit;
            if *left == 0 {
                self.demand.remove(&tile);
            }
            let Some(held) = self.held.get(&tile) else {
                continue;
            };
            if held.made_with & bit == 0 || self.distance_to(tile, self.eye) <= radii.keep {
                continue;
            }
            if held.shown & bit != 0 {
                changes
                    .removed
                    .extend(self.visible(tile, &held.placements, bit).map(|p| p.id));
            }
            self.forget(tile, bit);
        }
    }

    /// The families whose show radius holds `tile` from the camera now.
    fn showing(&self, tile: (usize, usize)) -> u32 {
        let distance = self.distance_to(tile, self.eye);
        (0..self.settings.reach_m.len())
            .filter(|&family| distance <= self.radii(family).show)
            .fold(0, |bits, family| bits | 1 << family)
    }

    /// `tile`'s earlier neighbours on the terrain.
    fn earlier(&self, tile: (usize, usize)) -> impl Iterator<Item = (usize, usize)> {
        let (across, along) = self.tiles;
        TileGrid::earlier(tile).filter(move |&(x, z)| x < across && z < along)
    }

    /// `tile`'s later neighbours on the terrain: those it is an earlier one of.
    fn later(&self, (x, z): (usize, usize)) -> impl Iterator<Item = (usize, usize)> {
        let (across, along) = self.tiles;
        let phase = TileGrid::phase((x, z));
        (z.saturating_sub(1)..=(z + 1).min(along - 1))
            .flat_map(move |nz| {
                (x.saturating_sub(1)..=(x + 1).min(across - 1)).map(move |nx| (nx, nz))
            })
            .filter(move |&neighbour| TileGrid::phase(neighbour) > phase)
    }

    /// The horizontal distance from `eye` to `tile`'s nearest point.
    fn distance_to(&self, (x, z): (usize, usize), eye: Vec2) -> f32 {
        let low = self.origin + Vec2::new(x as f32, z as f32) * self.tile_m;
        let high = low + Vec2::splat(self.tile_m);
        (eye.clamp(low, high) - eye).length()
    }

    /// The terrain's tiles the square around `eye` of half-side `radius_m` touches.
    fn range_within(&self, eye: Vec2, radius_m: f32) -> TileRange {
        let to_tile = |v: f32, o: f32, count: usize| {
            (((v - o) / self.tile_m).floor().max(0.0) as usize).min(count - 1)
        };
        TileRange {
            x: (
                to_tile(eye.x - radius_m, self.origin.x, self.tiles.0),
                to_tile(eye.x + radius_m, self.origin.x, self.tiles.0),
            ),
            z: (
                to_tile(eye.y - radius_m, self.origin.y, self.tiles.1),
                to_tile(eye.y + radius_m, self.origin.y, self.tiles.1),
            ),
        }
    }
}

impl Drop for TileStreamer {
    fn drop(&mut self) {
        {
            let mut queue = self.queue.jobs.lock().unwrap_or_else(|e| e.into_inner());
            queue.1 = true;
            self.queue.ready.notify_all();
        }
        for worker in self.workers.drain(..) {
            let _ = worker.join();
        }
    }
}

/// The bit of `family` among the settings' families (0 when not streamed).
fn family_bit(families: &[(Arc<str>, f32)], family: &str) -> u32 {
    families
        .iter()
        .position(|(name, _)| &**name == family)
        .map_or(0, |index| 1 << index)
}

/// What every worker shares.
struct WorkContext<'a> {
    source: &'a TileSource,
    terrain: &'a Terrain,
    families: &'a [(Arc<str>, f32)],
    fill_number: usize,
    tiles_across: usize,
}

/// A worker: makes the nearest job not cancelled until the queue closes.
fn work(queue: &Queue, context: &WorkContext<'_>, made: &Sender<Made>) {
    loop {
        let job = {
            let mut jobs = queue.jobs.lock().unwrap_or_else(|e| e.into_inner());
            loop {
                if jobs.1 {
                    return;
                }
                match jobs.0.pop() {
                    Some(job) if job.cancelled.load(Ordering::Relaxed) => continue,
                    Some(job) => break job,
                    None => {
                        jobs = queue.ready.wait(jobs).unwrap_or_else(|e| e.into_inner());
                    }
                }
            }
        };
        let (x, z) = job.tile;
        let tile_index = (z * context.tiles_across + x) as u64;
        let first_id = STREAMED_ID_BIT
            | (context.fill_number as u64) << (TILE_BITS + ORDINAL_BITS)
            | tile_index << ORDINAL_BITS;
        let earlier: Vec<&Placement> = job.earlier.iter().flat_map(|made| made.iter()).collect();
        let outcome = context
            .source
            // Only the families asked for: a far tile holds its trees, not its grass.
            .make_after(context.terrain, job.tile, &earlier, first_id, |family| {
                job.families & family_bit(context.families, family) != 0
            });
        let sent = made.send(Made {
            tile: job.tile,
            families: job.families,
            outcome,
        });
        if sent.is_err() {
            return;
        }
    }
}

#[cfg(test)]
mod tests;

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
//! [`TileStreamer::update`] never waits: it takes the tiles the workers finished,
//! asks for the ones wanted a little beyond the reach whose neighbours are ready
//! (nearest first), cancels the ones no longer wanted before a worker starts them,
//! drops what is out of reach and returns what changed. A tile within reach and not
//! back yet is counted as late and shows once it is. A tile made again (the camera gone
//! and back) is the same, ids included (making is deterministic and ids follow from
//! the tile), less what erases over it took: each [`Erasure`] is kept by the tiles it
//! touches and hides what it takes whenever they are made, while their later
//! neighbours still accept against it, as the stored fill's did before the erase.

use std::collections::BinaryHeap;
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
    /// Tiles in some family's reach at the last full pass that were not made yet.
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
    /// Where the last full pass was made: passes run when the camera moved a quarter
    /// tile since, or tiles came back.
    last_pass: Option<Vec2>,
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
            last_pass: None,
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
            .tiles_within(center, radius)
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
        let came_back = self.take_made(&mut changes);
        let eye = Vec2::new(camera.x, camera.z);
        let moved = self
            .last_pass
            .is_none_or(|last| last.distance(eye) >= self.tile_m / 4.0);
        if came_back || moved {
            self.last_pass = Some(eye);
            let demand = self.demand(eye);
            self.drop_beyond(eye, &demand, &mut changes);
            self.show_and_ask(eye, &demand, &mut changes);
        }
        self.stats.resident_tiles = self.held.len() as u32;
        self.stats.resident_placements = self
            .held
            .values()
            .map(|held| held.placements.len() as u64)
            .sum();
        changes
    }

    /// Per tile, the families it must be made with: those whose reach, a little
    /// stretched, holds it, and those its later neighbours need made first.
    fn demand(&self, eye: Vec2) -> FxHashMap<(usize, usize), u32> {
        let ask = 1.0 + self.settings.hysteresis / 2.0;
        let farthest = self.farthest(ask);
        let mut demand: FxHashMap<(usize, usize), u32> = FxHashMap::default();
        for tile in self.tiles_within(eye, farthest) {
            let asked = self.families_within(tile, eye, ask);
            if asked != 0 {
                demand.insert(tile, asked);
            }
        }
        for phase in (1..4u8).rev() {
            let needy: Vec<((usize, usize), u32)> = demand
                .iter()
                .filter(|(&tile, _)| TileGrid::phase(tile) == phase)
                .map(|(&tile, &need)| (tile, need))
                .collect();
            for (tile, need) in needy {
                let made_with = self.held.get(&tile).map_or(0, |held| held.made_with);
                let target = need | made_with;
                if target & !made_with == 0 {
                    continue;
                }
                for neighbour in self.earlier(tile) {
                    *demand.entry(neighbour).or_default() |= target;
                }
            }
        }
        demand
    }

    /// Hides held families farther than `1 + hysteresis` times their reach, forgets
    /// those no tile needs either, drops tiles left with none, and cancels asked tiles
    /// no longer needed.
    fn drop_beyond(
        &mut self,
        eye: Vec2,
        demand: &FxHashMap<(usize, usize), u32>,
        changes: &mut StreamChanges,
    ) {
        let keep = 1.0 + self.settings.hysteresis;
        let tiles: Vec<(usize, usize)> = self.held.keys().copied().collect();
        let families = self.settings.reach_m.clone();
        for tile in tiles {
            let in_reach = self.families_within(tile, eye, keep);
            let needed = in_reach | demand.get(&tile).copied().unwrap_or(0);
            let held = &self.held[&tile];
            let (made_with, shown) = (held.made_with, held.shown);
            let hidden = shown & !in_reach;
            if hidden != 0 {
                changes
                    .removed
                    .extend(self.visible(tile, &held.placements, hidden).map(|p| p.id));
            }
            let kept = made_with & needed;
            let held = self.held.get_mut(&tile).expect("listed above");
            held.shown &= in_reach;
            if kept == 0 {
                self.held.remove(&tile);
                self.stats.tiles_dropped += 1;
            } else if kept != made_with {
                let placements: Vec<Placement> = held
                    .placements
                    .iter()
                    .filter(|p| kept & family_bit(&families, &p.family) != 0)
                    .cloned()
                    .collect();
                held.placements = Arc::new(placements);
                held.made_with = kept;
                held.shown &= kept;
            }
        }
        let stats = &mut self.stats;
        self.pending.retain(|tile, pending| {
            let needed = demand
                .get(tile)
                .is_some_and(|&need| need & pending.families != 0);
            if !needed {
                pending.cancelled.store(true, Ordering::Relaxed);
                stats.tiles_cancelled += 1;
            }
            needed
        });
    }

    /// Shows what came into reach over tiles held, counts the tiles in reach not made
    /// yet, and asks the workers for the tiles whose earlier neighbours are ready.
    fn show_and_ask(
        &mut self,
        eye: Vec2,
        demand: &FxHashMap<(usize, usize), u32>,
        changes: &mut StreamChanges,
    ) {
        let mut late = 0;
        let mut jobs = Vec::new();
        for (&tile, &need) in demand {
            let wanted = self.families_within(tile, eye, 1.0);
            let (made_with, shown) = self
                .held
                .get(&tile)
                .map_or((0, 0), |held| (held.made_with, held.shown));
            let newly_shown = wanted & made_with & !shown;
            if newly_shown != 0 {
                let held = &self.held[&tile];
                changes
                    .added
                    .extend(self.visible(tile, &held.placements, newly_shown).cloned());
                self.held.get_mut(&tile).expect("held").shown |= newly_shown;
            }
            late += u32::from(wanted & !made_with != 0);
            let target = need | made_with;
            if target & !made_with == 0 {
                continue;
            }
            let pending = self
                .pending
                .get(&tile)
                .map_or(0, |pending| pending.families);
            if target & !pending == 0 {
                continue;
            }
            let earlier: Option<Vec<Arc<Vec<Placement>>>> = self
                .earlier(tile)
                .map(|neighbour| {
                    self.held
                        .get(&neighbour)
                        .filter(|held| target & !held.made_with == 0)
                        .map(|held| Arc::clone(&held.placements))
                })
                .collect();
            let Some(earlier) = earlier else {
                // Its earlier neighbours are not made yet (with these families).
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
                    families: target,
                    cancelled: Arc::clone(&cancelled),
                },
            );
            jobs.push(Job {
                tile,
                families: target,
                distance_m: self.distance_to(tile, eye),
                cancelled,
                earlier,
            });
        }
        if !jobs.is_empty() {
            let mut queue = self.queue.jobs.lock().unwrap_or_else(|e| e.into_inner());
            queue.0.extend(jobs);
            self.queue.ready.notify_all();
        }
        self.stats.late_tiles = late;
    }

    /// Installs the tiles the workers finished that are still wanted as they were
    /// asked; returns whether any came back.
    fn take_made(&mut self, changes: &mut StreamChanges) -> bool {
        let mut any = false;
        while let Ok(made) = self.made.try_recv() {
            let Some(pending) = self.pending.get(&made.tile) else {
                continue;
            };
            if pending.families != made.families || pending.cancelled.load(Ordering::Relaxed) {
                continue;
            }
            self.pending.remove(&made.tile);
            any = true;
            let placements = match made.outcome {
                Ok(placements) => placements,
                Err(error) => {
                    self.error.get_or_insert(error);
                    Vec::new()
                }
            };
            self.stats.tiles_made += 1;
            // What showed keeps showing (the same ids); what newly came into reach
            // shows at the pass that follows.
            let shown = match self.held.remove(&made.tile) {
                Some(old) => {
                    changes.removed.extend(
                        self.visible(made.tile, &old.placements, old.shown)
                            .map(|p| p.id),
                    );
                    old.shown & made.families
                }
                None => 0,
            };
            changes
                .added
                .extend(self.visible(made.tile, &placements, shown).cloned());
            self.held.insert(
                made.tile,
                Held {
                    placements: Arc::new(placements),
                    made_with: made.families,
                    shown,
                },
            );
        }
        any
    }

    /// The farthest any family's reach, times `stretch`, goes.
    fn farthest(&self, stretch: f32) -> f32 {
        self.settings
            .reach_m
            .iter()
            .map(|(_, reach)| reach * stretch)
            .fold(0.0, f32::max)
    }

    /// `tile`'s earlier neighbours on the terrain.
    fn earlier(&self, tile: (usize, usize)) -> impl Iterator<Item = (usize, usize)> {
        let (across, along) = self.tiles;
        TileGrid::earlier(tile).filter(move |&(x, z)| x < across && z < along)
    }

    /// The families whose reach, times `stretch`, holds `tile`'s nearest point.
    fn families_within(&self, tile: (usize, usize), eye: Vec2, stretch: f32) -> u32 {
        let distance = self.distance_to(tile, eye);
        (0u32..)
            .zip(&self.settings.reach_m)
            .filter(|(_, (_, reach))| distance <= reach * stretch)
            .fold(0, |bits, (family, _)| bits | 1 << family)
    }

    /// The horizontal distance from `eye` to `tile`'s nearest point.
    fn distance_to(&self, (x, z): (usize, usize), eye: Vec2) -> f32 {
        let low = self.origin + Vec2::new(x as f32, z as f32) * self.tile_m;
        let high = low + Vec2::splat(self.tile_m);
        (eye.clamp(low, high) - eye).length()
    }

    /// The terrain's tiles whose square around `eye` of half-side `radius_m` touches.
    fn tiles_within(&self, eye: Vec2, radius_m: f32) -> impl Iterator<Item = (usize, usize)> {
        let to_tile = |v: f32, o: f32, count: usize| {
            (((v - o) / self.tile_m).floor().max(0.0) as usize).min(count - 1)
        };
        let (x0, x1) = (
            to_tile(eye.x - radius_m, self.origin.x, self.tiles.0),
            to_tile(eye.x + radius_m, self.origin.x, self.tiles.0),
        );
        let (z0, z1) = (
            to_tile(eye.y - radius_m, self.origin.y, self.tiles.1),
            to_tile(eye.y + radius_m, self.origin.y, self.tiles.1),
        );
        (z0..=z1).flat_map(move |z| (x0..=x1).map(move |x| (x, z)))
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
            .make_after(context.terrain, job.tile, &earlier, first_id)
            .map(|mut placements| {
                // Only the families asked for: a far tile holds its trees, not its grass.
                placements.retain(|p| job.families & family_bit(context.families, &p.family) != 0);
                placements
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

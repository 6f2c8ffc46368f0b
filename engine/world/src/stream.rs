//! A streamed fill: its tiles made around the camera on worker threads and dropped
//! behind it, instead of every placement stored.
//!
//! Each spacing family the fill places has a reach: how far from the camera its
//! placements are kept (for a renderer, where its props stop being seen). A tile is
//! wanted with the families whose reach its nearest point lies within, and keeps a
//! family until the camera is `1 + hysteresis` times its reach away, so a camera
//! wavering at a reach neither makes nor drops tiles over and over.
//!
//! [`TileStreamer::update`] never waits: it takes the tiles the workers finished,
//! asks for the ones newly wanted (nearest first), cancels the ones no longer wanted
//! before a worker starts them, drops what is out of reach and returns what changed.
//! A tile not back yet is counted as late and shows once it is. A tile is made with
//! every family wanted or held there; it shows the wanted ones and keeps them all
//! while in reach, so a family coming into reach over a tile already held is not
//! remade but shown. A tile made again (the camera gone and back) is the same, ids
//! included ([`TileSource::make`] is deterministic and its ids follow from the tile),
//! less what erases over it took: each [`Erasure`] is kept by the tiles it touches and
//! applied to them whenever they are made.

use std::collections::BinaryHeap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;

use glam::{Vec2, Vec3};
use rustc_hash::FxHashMap;
use sylva_scatter::{FillError, Placement, PlacementId, TileSource};
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
    /// Tiles in some family's reach at the last update that were not back yet.
    pub late_tiles: u32,
    /// Placements held after the last update (shown, or made a little beyond reach).
    pub resident_placements: u64,
    /// Tiles held after the last update.
    pub resident_tiles: u32,
}

/// A tile as held: every placement it was made with, and which families show.
struct Held {
    placements: Vec<Placement>,
    /// Bit `f` set: family `f` of the settings shows.
    shown: u32,
    /// Families it was made with.
    made_with: u32,
}

/// A tile asked of the workers and not back yet.
struct Pending {
    families: u32,
    cancelled: Arc<AtomicBool>,
}

/// One tile for a worker to make, nearest first.
struct Job {
    tile: (usize, usize),
    families: u32,
    distance_m: f32,
    cancelled: Arc<AtomicBool>,
}

impl PartialEq for Job {
    fn eq(&self, other: &Self) -> bool {
        self.distance_m.total_cmp(&other.distance_m).is_eq() && self.tile == other.tile
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

/// The workers' shared queue.
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
    /// Every erase made over the fill, in order, and by tile the ones that touch it:
    /// applied to a tile whenever it is made.
    erasures: Vec<Erasure>,
    erasures_by_tile: FxHashMap<(usize, usize), Vec<usize>>,
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
                std::thread::spawn(move || {
                    work(&queue, &source, &terrain, &sender, &families, fill_number)
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
        let families = &self.settings.reach_m;
        self.held
            .values()
            .flat_map(move |held| of_families(&held.placements, families, held.shown))
    }

    /// Erases what `erasure` takes from the fill: now from the tiles held, and from
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
        let index = self.erasures.len();
        let eye = erasure.center;
        let tiles: Vec<(usize, usize)> = self
            .tiles_within(eye, erasure.radius)
            .filter(|&tile| self.distance_to(tile, eye) <= erasure.radius)
            .collect();
        let families = &self.settings.reach_m;
        for tile in tiles {
            self.erasures_by_tile.entry(tile).or_default().push(index);
            if let Some(held) = self.held.get_mut(&tile) {
                held.placements.retain(|p| {
                    let taken = erasure.takes(p);
                    if taken && held.shown & family_bit(families, &p.family) != 0 {
                        changes.removed.push(p.id);
                    }
                    !taken
                });
            }
        }
        self.erasures.push(erasure);
        Ok(changes)
    }

    /// Takes what the workers made, asks for what the camera at `camera` now wants,
    /// cancels and drops what it no longer does, and says what changed. Never waits.
    pub fn update(&mut self, camera: Vec3) -> StreamChanges {
        let mut changes = StreamChanges::default();
        self.take_made(&mut changes);
        let eye = Vec2::new(camera.x, camera.z);
        let h = self.settings.hysteresis;
        self.drop_beyond(eye, 1.0 + h, &mut changes);
        let farthest = self
            .settings
            .reach_m
            .iter()
            .map(|(_, reach)| reach * (1.0 + h / 2.0))
            .fold(0.0, f32::max);
        let mut late = 0;
        let mut jobs = Vec::new();
        for tile in self.tiles_within(eye, farthest) {
            // Asked for a little beyond the reach, so that a tile is back by the time
            // the camera comes within it.
            let asked = self.families_within(tile, eye, 1.0 + h / 2.0);
            if asked == 0 {
                continue;
            }
            let wanted = self.families_within(tile, eye, 1.0);
            let (made_with, shown) = self
                .held
                .get(&tile)
                .map_or((0, 0), |held| (held.made_with, held.shown));
            let newly_shown = wanted & made_with & !shown;
            if newly_shown != 0 {
                let held = self.held.get_mut(&tile).expect("made with something");
                held.shown |= newly_shown;
                changes.added.extend(
                    of_families(&held.placements, &self.settings.reach_m, newly_shown).cloned(),
                );
            }
            late += u32::from(wanted & !made_with != 0);
            let missing = asked & !made_with;
            let pending = self
                .pending
                .get(&tile)
                .map_or(0, |pending| pending.families);
            if missing & !pending == 0 {
                continue;
            }
            if let Some(superseded) = self.pending.get(&tile) {
                superseded.cancelled.store(true, Ordering::Relaxed);
                self.stats.tiles_cancelled += 1;
            }
            let families = asked | made_with | pending;
            let cancelled = Arc::new(AtomicBool::new(false));
            self.pending.insert(
                tile,
                Pending {
                    families,
                    cancelled: Arc::clone(&cancelled),
                },
            );
            jobs.push(Job {
                tile,
                families,
                distance_m: self.distance_to(tile, eye),
                cancelled,
            });
        }
        if !jobs.is_empty() {
            let mut queue = self.queue.jobs.lock().unwrap_or_else(|e| e.into_inner());
            queue.0.extend(jobs);
            self.queue.ready.notify_all();
        }
        self.stats.late_tiles = late;
        self.stats.resident_tiles = self.held.len() as u32;
        self.stats.resident_placements = self
            .held
            .values()
            .map(|held| held.placements.len() as u64)
            .sum();
        changes
    }

    /// Hides and forgets the families of held tiles farther than `stretch` times their
    /// reach, drops tiles left with none, and cancels asked tiles no family keeps.
    fn drop_beyond(&mut self, eye: Vec2, stretch: f32, changes: &mut StreamChanges) {
        let keeps: FxHashMap<(usize, usize), u32> = self
            .held
            .keys()
            .chain(self.pending.keys())
            .map(|&tile| (tile, self.families_within(tile, eye, stretch)))
            .collect();
        let families = &self.settings.reach_m;
        let held_before = self.held.len();
        self.held.retain(|tile, held| {
            let kept = keeps[tile] & held.made_with;
            let hidden = held.shown & !kept;
            changes
                .removed
                .extend(of_families(&held.placements, families, hidden).map(|p| p.id));
            if kept != held.made_with {
                held.placements
                    .retain(|p| kept & family_bit(families, &p.family) != 0);
                held.made_with = kept;
                held.shown &= kept;
            }
            kept != 0
        });
        self.stats.tiles_dropped += (held_before - self.held.len()) as u64;
        let stats = &mut self.stats;
        self.pending.retain(|tile, pending| {
            let kept = keeps[tile] & pending.families != 0;
            if !kept {
                pending.cancelled.store(true, Ordering::Relaxed);
                stats.tiles_cancelled += 1;
            }
            kept
        });
    }

    /// Installs the tiles the workers finished that are still wanted as they were asked.
    fn take_made(&mut self, changes: &mut StreamChanges) {
        let families = &self.settings.reach_m;
        while let Ok(made) = self.made.try_recv() {
            let Some(pending) = self.pending.get(&made.tile) else {
                continue;
            };
            if pending.families != made.families || pending.cancelled.load(Ordering::Relaxed) {
                continue;
            }
            self.pending.remove(&made.tile);
            let mut placements = match made.outcome {
                Ok(placements) => placements,
                Err(error) => {
                    self.error.get_or_insert(error);
                    Vec::new()
                }
            };
            if let Some(indices) = self.erasures_by_tile.get(&made.tile) {
                let erasures = &self.erasures;
                placements.retain(|p| !indices.iter().any(|&i| erasures[i].takes(p)));
            }
            self.stats.tiles_made += 1;
            // What showed keeps showing (its ids are the same); what newly came into
            // reach shows at the pass that follows.
            let shown = match self.held.remove(&made.tile) {
                Some(old) => {
                    changes
                        .removed
                        .extend(of_families(&old.placements, families, old.shown).map(|p| p.id));
                    old.shown & made.families
                }
                None => 0,
            };
            changes
                .added
                .extend(of_families(&placements, families, shown).cloned());
            self.held.insert(
                made.tile,
                Held {
                    placements,
                    shown,
                    made_with: made.families,
                },
            );
        }
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

/// The placements in `placements` of the families whose bits `bits` sets.
fn of_families<'a>(
    placements: &'a [Placement],
    families: &'a [(Arc<str>, f32)],
    bits: u32,
) -> impl Iterator<Item = &'a Placement> {
    placements
        .iter()
        .filter(move |p| bits != 0 && bits & family_bit(families, &p.family) != 0)
}

/// The bit of `family` among the settings' families (0 when not streamed).
fn family_bit(families: &[(Arc<str>, f32)], family: &str) -> u32 {
    families
        .iter()
        .position(|(name, _)| &**name == family)
        .map_or(0, |index| 1 << index)
}

/// A worker: makes the nearest job not cancelled until the queue closes.
fn work(
    queue: &Queue,
    source: &TileSource,
    terrain: &Terrain,
    made: &Sender<Made>,
    families: &[(Arc<str>, f32)],
    fill_number: usize,
) {
    let tiles_across = (terrain.columns() - 1).div_ceil(source.grid().side_cells);
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
        let tile_index = (z * tiles_across + x) as u64;
        let first_id = STREAMED_ID_BIT
            | (fill_number as u64) << (TILE_BITS + ORDINAL_BITS)
            | tile_index << ORDINAL_BITS;
        let outcome = source
            .make(terrain, job.tile, first_id)
            .map(|mut placements| {
                // Only the families asked for: a far tile holds its trees, not its grass.
                placements.retain(|p| job.families & family_bit(families, &p.family) != 0);
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

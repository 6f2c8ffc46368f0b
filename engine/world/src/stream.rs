//! A streamed fill: its tiles made around the camera on worker threads and dropped
//! behind it, instead of every placement stored.
//!
//! Each spacing family the fill places has a reach: how far from the camera its
//! placements are kept (for a renderer, where its props stop being seen). A tile is
//! wanted with the families whose reach its nearest point lies within, and keeps a
//! family until the camera is `1 + hysteresis` times its reach away (two tiles past
//! it at least), so a camera wavering at a reach neither makes nor drops tiles over
//! and over.
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
//! A family may also have a near distance, past which every one of its props draws at
//! its last level (an impostor, or its coarsest mesh): there its placements need no
//! LOD of their own, so they are far, left in their tiles for a renderer to draw as one
//! instance block a tile ([`TileStreamer::far_placements`]), where a forest seen to
//! the horizon would otherwise put millions of placements in the registry and the LOD
//! schedule. A tile turns near within the near distance and far again past `1 +
//! hysteresis` times it (two tiles past it at least), over near passes as frequent as
//! the near distance asks.
//!
//! [`TileStreamer::update`] never waits: it takes (a bounded number of) the tiles the
//! workers finished, shows them and asks for the later neighbours they unblock; then
//! each family whose camera has moved its step since its last pass is passed over:
//! the tiles within its reach asked for, those nearest to turning late first (its
//! distance less the farthest reach it is asked for), those left cancelled or
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

/// How far past its reach a streamed family is kept by default, as a share of the reach.
pub const DEFAULT_STREAM_HYSTERESIS: f32 = 0.2;

/// The most streamed fills one world holds.
pub const MAX_STREAMED_FILLS: usize = 1 << FILL_BITS;

#[derive(Debug, Error, Clone, PartialEq)]
pub enum StreamError {
    #[error("family `{family}` has a reach of {reach_m} m; a reach is a positive number")]
    Reach { family: String, reach_m: f32 },
    #[error("family `{family}` is near to {near_m} m; a near distance is 0 or more")]
    Near { family: String, near_m: f32 },
    #[error("{near} near distances for {families} families")]
    NearCount { near: usize, families: usize },
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
    #[error("making the tiles under an erase: {0}")]
    Tile(#[from] FillError),
}

/// How a streamed fill is kept around the camera.
#[derive(Clone, Debug, PartialEq)]
pub struct StreamSettings {
    /// Per spacing family the fill places, in metres; families not listed are not
    /// streamed (nothing shows them).
    pub reach_m: Vec<(Arc<str>, f32)>,
    /// Per family of `reach_m`, in its order: within this distance its placements are
    /// near, each mirrored into the registry for its own LOD; beyond it, out to the
    /// reach, they are far, where every one of them draws at its prop's last level, and
    /// are left in their tiles for a renderer to draw a tile's far placements as one
    /// block ([`TileStreamer::far_placements`]). A family not listed is near to its
    /// reach.
    pub near_m: Vec<f32>,
    /// A held family is dropped only past `reach × (1 + hysteresis)`, and turns far
    /// again only past `near × (1 + hysteresis)`; each band two tiles wide at least,
    /// so that passes a step apart have room to ask for and show what comes.
    pub hysteresis: f32,
    /// Worker threads making tiles (at least one).
    pub workers: usize,
}

/// What one [`TileStreamer::update`] changed, for a registry to mirror.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StreamChanges {
    /// Near placements shown.
    pub added: Vec<Placement>,
    /// Near placements hidden.
    pub removed: Vec<PlacementId>,
    /// Those of `added` that arrive late (in reach and not shown when they should have
    /// been): a renderer fades them in rather than popping them.
    pub arrived_late: Vec<PlacementId>,
    /// Tiles whose far placements changed (a tile may repeat): read them again with
    /// [`TileStreamer::far_placements`].
    pub far_changed: Vec<(usize, usize)>,
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
    /// yet, and tiles made whose families within reach wait to be shown at all (a far
    /// tile waiting to turn near is shown meanwhile).
    pub late_tiles: u32,
    /// Tiles asked for and not taken back yet, and families queued to show: zero once
    /// the streamer has done all that the camera where it stands asks of it.
    pub waiting_tiles: u32,
    /// Families whose pass is due and waits for a later update: an update passes over
    /// one family (the most overdue), every family at the first.
    pub passes_due: u32,
    /// Placements held after the last update: shown, made a little beyond reach, or
    /// made for later neighbours (erased ones included).
    pub resident_placements: u64,
    /// Tiles held after the last update.
    pub resident_tiles: u32,
    /// Whether the registry is at the session's cap: tiles in reach wait to be shown
    /// (and are late) until the camera leaves others behind, and no more are asked for.
    pub capped: bool,
}

impl StreamStats {
    /// Whether nothing is late or waiting: every family has passed from where the camera
    /// is, and every tile it asks for is made and shown, also those a little beyond
    /// reach, so what shows no longer depends on how fast the workers were.
    pub fn settled(&self) -> bool {
        self.passes_due == 0 && (self.capped || self.late_tiles == 0 && self.waiting_tiles == 0)
    }
}

/// What one make of a tile placed: the families it was made with, and their placements
/// grouped by family, so reading one family's (a far tile's trees among its grass) skips
/// the others'.
struct Batch {
    families: u32,
    /// In family order; within a family, in the order they were made.
    placements: Arc<Vec<Placement>>,
    /// Per family, where its placements begin; then where the last one's end.
    starts: Vec<u32>,
}

impl Batch {
    /// Groups `placements`, made with the families `families` sets, by family.
    fn new(families: u32, mut placements: Vec<Placement>, family_list: &[(Arc<str>, f32)]) -> Self {
        // Stable: the make order stays within a family. A family not listed sorts last.
        placements.sort_by_key(|p| placement_family_bit(family_list, p).trailing_zeros());
        let starts = starts_of(&placements, family_list);
        Self {
            families,
            placements: Arc::new(placements),
            starts,
        }
    }

    /// Its placements of the families `bits` sets.
    fn of(&self, bits: u32) -> impl Iterator<Item = &Placement> {
        let bits = bits & self.families;
        self.starts
            .windows(2)
            .enumerate()
            .filter(move |&(family, _)| bits & 1 << family != 0)
            .flat_map(|(_, range)| &self.placements[range[0] as usize..range[1] as usize])
    }
}

/// Where each family's placements begin in `placements` (grouped by family), and where
/// the last one's end.
fn starts_of(placements: &[Placement], families: &[(Arc<str>, f32)]) -> Vec<u32> {
    let mut starts = vec![0u32; families.len() + 1];
    for p in placements {
        let bit = placement_family_bit(families, p);
        if bit != 0 {
            starts[bit.trailing_zeros() as usize + 1] += 1;
        }
    }
    for family in 0..families.len() {
        starts[family + 1] += starts[family];
    }
    starts
}

/// A tile as held.
struct Held {
    /// What it made, one batch per make, erases not applied: its later neighbours accept
    /// against all of it. Kept apart, so a tile made again with more families takes its
    /// new batch without copying the old ones.
    batches: Vec<Batch>,
    /// The families its batches hold.
    made_with: u32,
    /// Families that show (in reach), less what erases take.
    shown: u32,
    /// Of those shown, the families shown near (one by one); the others are far.
    near: u32,
    /// Families waiting in the show queue.
    queued: u32,
}

/// A tile asked of the workers and not back yet.
struct Pending {
    families: u32,
    cancelled: Arc<AtomicBool>,
}

/// One tile for a worker to make, most urgent first, with what its earlier neighbours
/// made.
struct Job {
    tile: (usize, usize),
    families: u32,
    /// How far the camera is from making it late: its distance less the farthest reach
    /// of the families asked (a rock tile at 1.3 km is due before a grass tile at 1 km
    /// when rocks reach farther than grass).
    slack_m: f32,
    cancelled: Arc<AtomicBool>,
    earlier: Vec<Arc<Vec<Placement>>>,
}

impl Held {
    /// Placements held, erased ones included.
    fn len(&self) -> usize {
        self.batches
            .iter()
            .map(|batch| batch.placements.len())
            .sum()
    }
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
    /// The most urgent job is the heap's greatest.
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        other
            .slack_m
            .total_cmp(&self.slack_m)
            .then_with(|| other.tile.cmp(&self.tile))
    }
}

struct Made {
    tile: (usize, usize),
    families: u32,
    outcome: Result<Batch, FillError>,
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
    /// Every erase made over the fill, in order, whether each stands (an undone one
    /// does not), and by tile the ones that touch it.
    erasures: Vec<Erasure>,
    standing: Vec<bool>,
    erasures_by_tile: FxHashMap<(usize, usize), Vec<usize>>,
    /// Per tile, the families it must be made with: those whose reach (a little
    /// stretched) holds it at their last pass, and those its later neighbours need.
    demand: FxHashMap<(usize, usize), u32>,
    /// Per tile, the families within whose reach it lay at their last pass, not made.
    late: FxHashMap<(usize, usize), u32>,
    /// Per family, where the camera was at its last pass, and at its last near pass.
    passed_at: Vec<Option<Vec2>>,
    near_passed_at: Vec<Option<Vec2>>,
    /// Where the camera was at the last update.
    eye: Vec2,
    /// Placements held, all tiles together.
    resident: u64,
    /// Tiles to ask for at the end of this update, once their earlier neighbours are.
    to_ask: Vec<(usize, usize)>,
    /// Tiles and families a pass found within their show radius, shown over the
    /// updates that follow as the arrivals budget allows.
    to_show: VecDeque<((usize, usize), u32)>,
    /// Near placements the registry takes before the session's cap.
    room: usize,
    /// Whether it streams every family the fill places (else no tile is made whole).
    streams_all: bool,
}

/// The most near placements one update adds to or takes from the registry before it
/// stops taking tiles (a tile is mirrored whole, so one tile may go past it): tiles
/// arriving or turning near or far together are mirrored over several frames instead
/// of stalling one. They wait beyond the reach, or shown far, or near a little past
/// the far radius, so nothing is missing meanwhile.
const MIRRORED_PER_UPDATE: usize = 2_000;

/// The most far placements one update changes before it stops taking tiles, counted
/// whole per tile and family: a renderer builds each changed tile's block again.
const FAR_CHANGED_PER_UPDATE: usize = 16_384;

/// What an update has mirrored so far, against [`MIRRORED_PER_UPDATE`],
/// [`FAR_CHANGED_PER_UPDATE`] and the registry's room.
struct Budget {
    /// Far placements in the tiles and families changed.
    far: usize,
    /// Placements the registry takes before the session's cap.
    room: usize,
}

impl Budget {
    /// Whether the update may still take another tile.
    fn open(&self, changes: &StreamChanges) -> bool {
        changes.added.len() + changes.removed.len() < MIRRORED_PER_UPDATE
            && self.far < FAR_CHANGED_PER_UPDATE
            && !self.full(changes)
    }

    /// Whether the near placements shown fill the registry's room.
    fn full(&self, changes: &StreamChanges) -> bool {
        changes.added.len() >= self.room.saturating_add(changes.removed.len())
    }

    /// Notes that `tile`'s far placements changed: the renderer builds its whole block
    /// again, all of its far families.
    fn far_changed(&mut self, changes: &mut StreamChanges, tile: (usize, usize), held: &Held) {
        changes.far_changed.push(tile);
        let far = held.shown & !held.near;
        self.far += (held.batches.iter())
            .filter(|batch| batch.families & far != 0)
            .map(|batch| batch.placements.len())
            .sum::<usize>();
    }
}

/// Side, in tiles, of the blocks a pass skips whole when nothing in them can change.
const QUIET_BLOCK_TILES: usize = 16;

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
    /// Shown within: its reach plus twice the step its passes are apart, one step for
    /// the camera to reach the next pass (a frame's travel past it at most) and one for
    /// the shows it queues to drain, so that a tile made in time shows before the
    /// camera brings it within reach.
    show: f32,
    /// Asked within.
    ask: f32,
    /// Kept until past.
    keep: f32,
    /// Shown near within: its near distance plus twice the step its near passes are
    /// apart, as for `show`; ∞ for a family with no far field.
    near: f32,
    /// Shown far again only past.
    far: f32,
}

/// One dab of an erase over a streamed fill: what it took stays taken whenever its
/// tiles are made, until its stroke is undone.
#[derive(Clone, Debug, PartialEq)]
pub struct Erasure {
    pub center: Vec2,
    pub radius: f32,
    /// Only these categories; every one when `None`.
    pub categories: Option<Vec<Arc<str>>>,
    /// The erase stroke it is a dab of: a stroke's dabs are undone and redone together.
    pub stroke: usize,
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
        if settings.near_m.len() > settings.reach_m.len() {
            return Err(StreamError::NearCount {
                near: settings.near_m.len(),
                families: settings.reach_m.len(),
            });
        }
        for ((family, _), &near_m) in settings.reach_m.iter().zip(&settings.near_m) {
            if near_m.is_nan() || near_m < 0.0 {
                return Err(StreamError::Near {
                    family: family.to_string(),
                    near_m,
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
        let tiles = tile_counts(&source, &terrain);
        if tiles.0 * tiles.1 >= 1 << TILE_BITS {
            return Err(StreamError::TooManyTiles {
                tiles: tiles.0 * tiles.1,
            });
        }
        let families = settings.reach_m.len();
        let streams_all = (source.job().families())
            .all(|family| settings.reach_m.iter().any(|(f, _)| &**f == family));
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
        let tile_m = side as f32 * terrain.spacing();
        // Sized once for the tiles the farthest family may hold: a map growing while
        // flying stalls the frame that rehashes it.
        let widest = (settings.reach_m.iter())
            .map(|&(_, reach)| reach + band_m(reach, hysteresis, tile_m))
            .fold(0.0, f32::max)
            + SUPPORT_TILES * tile_m;
        let within = (std::f32::consts::PI * (widest / tile_m).powi(2)).ceil() as usize;
        let capacity = within.min(tiles.0 * tiles.1);
        Ok(Self {
            tile_m,
            origin: terrain.min_corner(),
            settings,
            tiles,
            fill_number: fill_number as u64,
            held: FxHashMap::with_capacity_and_hasher(capacity, Default::default()),
            pending: FxHashMap::default(),
            queue,
            made,
            workers,
            stats: StreamStats::default(),
            error: None,
            erasures: Vec::new(),
            standing: Vec::new(),
            erasures_by_tile: FxHashMap::default(),
            demand: FxHashMap::with_capacity_and_hasher(capacity, Default::default()),
            late: FxHashMap::default(),
            passed_at: vec![None; families],
            near_passed_at: vec![None; families],
            eye: Vec2::ZERO,
            resident: 0,
            to_ask: Vec::new(),
            to_show: VecDeque::new(),
            room: usize::MAX,
            streams_all,
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

    /// Every placement `tile` holds, erased ones included, when it is held made with
    /// every family of the fill: what making it again would give.
    pub fn made_whole(&self, tile: (usize, usize)) -> Option<Vec<Placement>> {
        let all = (1u32 << self.settings.reach_m.len()) - 1;
        let held = self.held.get(&tile).filter(|held| held.made_with == all)?;
        self.streams_all.then(|| {
            (held.batches.iter())
                .flat_map(|batch| batch.placements.iter().cloned())
                .collect()
        })
    }

    /// The far placements `tile` shows now: none when it holds none.
    pub fn far_placements(&self, tile: (usize, usize)) -> impl Iterator<Item = &Placement> {
        self.held
            .get(&tile)
            .into_iter()
            .flat_map(move |held| self.shows(tile, held, held.shown & !held.near))
    }

    /// The tiles showing far placements now.
    pub fn far_tiles(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        self.held
            .iter()
            .filter(|(_, held)| held.shown & !held.near != 0)
            .map(|(&tile, _)| tile)
    }

    /// Every placement shown near now (a registry mirroring the changes holds them).
    pub fn near_placements(&self) -> impl Iterator<Item = &Placement> {
        self.held
            .iter()
            .flat_map(move |(&tile, held)| self.shows(tile, held, held.near))
    }

    /// Every placement shown now, near and far.
    pub fn placements(&self) -> impl Iterator<Item = &Placement> {
        self.held
            .iter()
            .flat_map(move |(&tile, held)| self.shows(tile, held, held.shown))
    }

    /// `held`'s (tile `tile`'s) placements of the families `bits` sets that no erase
    /// takes.
    fn shows<'a>(
        &'a self,
        tile: (usize, usize),
        held: &'a Held,
        bits: u32,
    ) -> impl Iterator<Item = &'a Placement> {
        held.batches
            .iter()
            .filter(move |batch| batch.families & bits != 0)
            .flat_map(move |batch| self.visible(tile, batch, bits))
    }

    /// The placements of `batch` (tile `tile`'s) of the families `bits` sets that no
    /// erase takes.
    fn visible<'a>(
        &'a self,
        tile: (usize, usize),
        batch: &'a Batch,
        bits: u32,
    ) -> impl Iterator<Item = &'a Placement> {
        batch.of(bits).filter(move |p| !self.erased(tile, p))
    }

    /// Whether a standing erase takes `placement` of tile `tile`.
    fn erased(&self, tile: (usize, usize), placement: &Placement) -> bool {
        let erasures: &[usize] = self.erasures_by_tile.get(&tile).map_or(&[], Vec::as_slice);
        erasures
            .iter()
            .any(|&i| self.standing[i] && self.erasures[i].takes(placement))
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
                    self.shows(tile, held, held.near)
                        .filter(|p| erasure.takes(p))
                        .map(|p| p.id),
                );
                let far = held.shown & !held.near;
                if self.shows(tile, held, far).any(|p| erasure.takes(p)) {
                    changes.far_changed.push(tile);
                }
            }
        }
        let index = self.erasures.len();
        self.erasures.push(erasure);
        self.standing.push(true);
        for tile in touched {
            self.erasures_by_tile.entry(tile).or_default().push(index);
        }
        Ok(changes)
    }

    /// Undoes (`stands` false) or redoes the erase stroke `stroke`: what its dabs took,
    /// and no other standing erase does, shows again in the tiles held, or goes again.
    pub fn set_standing(&mut self, stroke: usize, stands: bool) -> StreamChanges {
        let mut changes = StreamChanges::default();
        let flipped: Vec<usize> = (0..self.erasures.len())
            .filter(|&i| self.erasures[i].stroke == stroke && self.standing[i] != stands)
            .collect();
        if flipped.is_empty() {
            return changes;
        }
        let mut tiles: Vec<(usize, usize)> = (self.erasures_by_tile.iter())
            .filter(|(tile, indices)| {
                self.held.contains_key(tile) && indices.iter().any(|i| flipped.contains(i))
            })
            .map(|(&tile, _)| tile)
            .collect();
        tiles.sort_unstable();
        // Per tile, the placements the flipped dabs take, whether near, and whether
        // hidden before the flip.
        let mut touched: Vec<((usize, usize), Placement, bool, bool)> = Vec::new();
        for &tile in &tiles {
            let held = &self.held[&tile];
            for (bits, near) in [(held.near, true), (held.shown & !held.near, false)] {
                let taken = (held.batches.iter())
                    .filter(|batch| batch.families & bits != 0)
                    .flat_map(|batch| batch.of(bits))
                    .filter(|p| flipped.iter().any(|&i| self.erasures[i].takes(p)));
                for p in taken {
                    touched.push((tile, p.clone(), near, self.erased(tile, p)));
                }
            }
        }
        for &i in &flipped {
            self.standing[i] = stands;
        }
        for (tile, placement, near, hidden_before) in touched {
            let hidden = self.erased(tile, &placement);
            if hidden == hidden_before {
                continue;
            }
            match (near, hidden) {
                (true, true) => changes.removed.push(placement.id),
                (true, false) => changes.added.push(placement),
                (false, _) => changes.far_changed.push(tile),
            }
        }
        changes
    }

    /// How many more near placements the registry takes before the session's cap, for
    /// the next updates (unbounded until set): a tile whose would pass it waits, late.
    pub fn set_room(&mut self, room: usize) {
        self.room = room;
    }

    /// Takes what the workers made, asks for what the camera at `camera` now wants,
    /// cancels and drops what it no longer does, and says what changed. Never waits.
    pub fn update(&mut self, camera: Vec3) -> StreamChanges {
        let mut changes = StreamChanges::default();
        self.eye = Vec2::new(camera.x, camera.z);
        let mut budget = Budget {
            far: 0,
            room: self.room,
        };
        self.show_queued(&mut changes, &mut budget);
        self.take_made(&mut changes, &mut budget);
        // One family's pass an update, the most overdue (a family's first at once): the
        // passes of far-reaching families cost milliseconds each and would add up on
        // one frame. The others wait a frame or a few, well within the two steps a
        // tile is asked for ahead of its show radius.
        let families = 0..self.settings.reach_m.len();
        let first: Vec<usize> = (families.clone())
            .filter(|&family| self.passed_at[family].is_none())
            .collect();
        let overdue: Vec<(usize, f32)> = families
            .filter_map(|family| {
                let travelled = self.passed_at[family]?.distance(self.eye) / self.step(family);
                (travelled >= 1.0).then_some((family, travelled))
            })
            .collect();
        let due = first.len() + overdue.len();
        let passing = if first.is_empty() {
            let most = overdue.iter().max_by(|a, b| a.1.total_cmp(&b.1));
            most.map(|&(family, _)| family).into_iter().collect()
        } else {
            first
        };
        self.stats.passes_due = (due - passing.len()) as u32;
        for family in passing {
            self.pass(family, &mut changes);
        }
        for family in 0..self.settings.reach_m.len() {
            let near_step = self.near_step(family);
            let near_due = self.near_m(family).is_finite()
                && self.near_passed_at[family].is_none_or(|at| at.distance(self.eye) >= near_step);
            if near_due {
                self.pass_near(family);
            }
        }
        // At the cap, tiles made would only wait in memory.
        self.stats.capped = budget.full(&changes);
        if !self.stats.capped {
            self.ask_waiting();
        }
        self.stats.resident_tiles = self.held.len() as u32;
        self.stats.resident_placements = self.resident;
        // A tile queued to turn near is shown far meanwhile: not late.
        let unshown_in_reach = self.to_show.iter().filter(|&&(tile, bit)| {
            let reach = self.settings.reach_m[bit.trailing_zeros() as usize].1;
            let shown = self
                .held
                .get(&tile)
                .is_some_and(|held| held.shown & bit != 0);
            !shown && self.distance_to(tile, self.eye) <= reach
        });
        self.stats.late_tiles = (self.late.len() + unshown_in_reach.count()) as u32;
        self.stats.waiting_tiles = (self.pending.len() + self.to_show.len()) as u32;
        changes
    }

    /// How far the camera moves between two passes over `family`: an eighth of its
    /// hysteresis band.
    fn step(&self, family: usize) -> f32 {
        let reach = self.settings.reach_m[family].1;
        band_m(reach, self.settings.hysteresis, self.tile_m) / 8.0
    }

    /// Where `family`'s placements turn far: ∞ when it has no far field (none given,
    /// or not nearer than its reach).
    fn near_m(&self, family: usize) -> f32 {
        let reach = self.settings.reach_m[family].1;
        match self.settings.near_m.get(family) {
            Some(&near) if near < reach => near,
            _ => f32::INFINITY,
        }
    }

    /// How far the camera moves between two near passes over `family`: an eighth of
    /// its near hysteresis band.
    fn near_step(&self, family: usize) -> f32 {
        band_m(self.near_m(family), self.settings.hysteresis, self.tile_m) / 8.0
    }

    fn radii(&self, family: usize) -> Radii {
        let reach = self.settings.reach_m[family].1;
        let (step, near_step) = (self.step(family), self.near_step(family));
        let near_m = self.near_m(family);
        Radii {
            show: reach + 2.0 * step,
            ask: reach + 4.0 * step,
            keep: reach + 8.0 * step,
            near: near_m + 2.0 * near_step,
            far: near_m + 8.0 * near_step,
        }
    }

    /// Passes over `family` from the camera where it is now: asks for the tiles within
    /// its reach (and their support), shows those made, hides and drops those left,
    /// cancels those asked and no longer needed. Touches only the tiles round the
    /// family's last pass and this one that lie near one of its radii
    /// ([`TileStreamer::active_tiles`]): elsewhere nothing changed.
    fn pass(&mut self, family: usize, changes: &mut StreamChanges) {
        let bit = 1u32 << family;
        let eye = self.eye;
        let radii = self.radii(family);
        let reach = self.settings.reach_m[family].1;
        let before = self.passed_at[family].replace(eye);
        // The support wave reaches out from the ask radius (its tiles are looked at as
        // far as it goes); the other radii only decide for the tiles they cross.
        let support = SUPPORT_TILES * self.tile_m;
        let bands = [
            (reach, 0.0),
            (radii.show, 0.0),
            (radii.ask, support),
            (radii.keep, 0.0),
        ];
        let active = self.active_tiles(before, &bands);
        let mut by_phase: [Vec<(usize, usize)>; 4] = Default::default();
        let mut beyond: [Vec<(usize, usize)>; 4] = Default::default();
        for &tile in &active {
            take_bits(&mut self.late, tile, bit);
            let distance = self.distance_to(tile, eye);
            let phase = usize::from(TileGrid::phase(tile));
            if distance > radii.ask {
                beyond[phase].push(tile);
                continue;
            }
            *self.demand.entry(tile).or_default() |= bit;
            by_phase[phase].push(tile);
            if distance <= reach && self.made_with(tile) & bit == 0 {
                *self.late.entry(tile).or_default() |= bit;
            }
        }
        // Beyond the ask radius a tile keeps the family only while it supports a later
        // neighbour still waiting to be made with it: later phases first, so a chain of
        // support goes at once.
        for phase in (0..4).rev() {
            for &tile in &beyond[phase] {
                let demanded = self.demand.get(&tile).copied().unwrap_or(0);
                if demanded & bit != 0 && !self.supports(tile, bit) {
                    take_bits(&mut self.demand, tile, bit);
                }
            }
        }
        // A tile not made with the family needs its earlier neighbours made with it.
        for phase in (1..4).rev() {
            for tile in std::mem::take(&mut by_phase[phase]) {
                if self.made_with(tile) & bit != 0 {
                    continue;
                }
                for neighbour in earlier_within(self.tiles, tile) {
                    let bits = self.demand.entry(neighbour).or_default();
                    if *bits & bit == 0 {
                        *bits |= bit;
                        by_phase[usize::from(TileGrid::phase(neighbour))].push(neighbour);
                    }
                }
            }
        }
        for tile in active {
            let demanded = self.demand.get(&tile).copied().unwrap_or(0);
            let asked = match self.pending.get(&tile) {
                Some(pending) if pending.families & demanded == 0 => {
                    pending.cancelled.store(true, Ordering::Relaxed);
                    self.pending.remove(&tile);
                    self.stats.tiles_cancelled += 1;
                    0
                }
                Some(pending) => pending.families,
                None => 0,
            };
            let distance = self.distance_to(tile, eye);
            let held = self.held.get_mut(&tile);
            let made_with = held.as_ref().map_or(0, |held| held.made_with);
            if demanded & bit != 0 && (made_with | asked) & bit == 0 {
                self.to_ask.push(tile);
            }
            let Some(held) = held else {
                continue;
            };
            let shown = held.shown;
            if shown & bit != 0 && distance > radii.keep {
                self.hide(tile, bit, changes);
            } else if shown & bit == 0
                && made_with & bit != 0
                && distance <= radii.show
                && held.queued & bit == 0
            {
                held.queued |= bit;
                self.to_show.push_back((tile, bit));
            }
            if made_with & bit != 0 && distance > radii.keep && demanded & bit == 0 {
                self.forget(tile, bit);
            }
        }
    }

    /// The tiles a pass from `before` (none: the first pass) to the camera now must
    /// look at, for `bands` of (radius, margin past it): those within the farthest
    /// radius and its margin of either camera, less those whose distances from both
    /// cameras stay inside every radius or past every radius and its margin, so that
    /// nothing a pass decides about them can have changed. Whole blocks of tiles are
    /// ruled out first.
    fn active_tiles(&self, before: Option<Vec2>, bands: &[(f32, f32)]) -> Vec<(usize, usize)> {
        let eye = self.eye;
        let extent = bands.iter().map(|&(r, m)| r + m).fold(0.0, f32::max);
        let Some(before) = before else {
            return self.range_within(eye, extent).tiles().collect();
        };
        // Whether some radius, or the margin past it, meets [nearest, farthest].
        let crossed = |nearest: f32, farthest: f32| {
            bands
                .iter()
                .any(|&(r, m)| r + m >= nearest && r <= farthest)
        };
        let region = self
            .range_within(before, extent)
            .union(self.range_within(eye, extent));
        let mut active = Vec::new();
        for block_z in (region.z.0..=region.z.1).step_by(QUIET_BLOCK_TILES) {
            for block_x in (region.x.0..=region.x.1).step_by(QUIET_BLOCK_TILES) {
                let block = TileRange {
                    x: (block_x, (block_x + QUIET_BLOCK_TILES - 1).min(region.x.1)),
                    z: (block_z, (block_z + QUIET_BLOCK_TILES - 1).min(region.z.1)),
                };
                let (low, high) = self.span(block);
                let nearest =
                    distance_to_box(before, low, high).min(distance_to_box(eye, low, high));
                let farthest =
                    farthest_in_box(before, low, high).max(farthest_in_box(eye, low, high));
                if !crossed(nearest, farthest) {
                    continue;
                }
                active.extend(block.tiles().filter(|&tile| {
                    let (old, new) = (self.distance_to(tile, before), self.distance_to(tile, eye));
                    crossed(old.min(new), old.max(new))
                }));
            }
        }
        active
    }

    /// The corners of the ground `range` covers.
    fn span(&self, range: TileRange) -> (Vec2, Vec2) {
        let low = self.origin + Vec2::new(range.x.0 as f32, range.z.0 as f32) * self.tile_m;
        let high =
            self.origin + Vec2::new(range.x.1 as f32 + 1.0, range.z.1 as f32 + 1.0) * self.tile_m;
        (low, high)
    }

    /// Passes over `family`'s far field from the camera where it is now: queues to
    /// turn far its near tiles beyond its far radius, and to turn near its far tiles
    /// within its near radius ([`TileStreamer::show_queued`] turns them). Touches only
    /// the tiles round the family's last near pass and this one.
    fn pass_near(&mut self, family: usize) {
        let bit = 1u32 << family;
        let eye = self.eye;
        let radii = self.radii(family);
        // A tile turns near within `near` of a camera at most a step from the last
        // near pass's.
        let extent = radii.far + 2.0 * self.near_step(family);
        let region = match self.near_passed_at[family].replace(eye) {
            Some(before) => self
                .range_within(before, extent)
                .union(self.range_within(eye, extent)),
            None => self.range_within(eye, extent),
        };
        for tile in region.tiles() {
            let distance = self.distance_to(tile, eye);
            let Some(held) = self.held.get_mut(&tile) else {
                continue;
            };
            if held.shown & bit == 0 {
                continue;
            }
            let near = held.near & bit != 0;
            let turns = if near {
                distance > radii.far
            } else {
                distance <= radii.near
            };
            if turns && held.queued & bit == 0 {
                held.queued |= bit;
                self.to_show.push_back((tile, bit));
            }
        }
    }

    /// Hides `tile`'s placements of the family `bit` is, near or far.
    fn hide(&mut self, tile: (usize, usize), bit: u32, changes: &mut StreamChanges) {
        let held = &self.held[&tile];
        if held.near & bit != 0 {
            changes
                .removed
                .extend(self.shows(tile, held, bit).map(|p| p.id));
        } else {
            changes.far_changed.push(tile);
        }
        let held = self.held.get_mut(&tile).expect("held");
        held.shown &= !bit;
        held.near &= !bit;
    }

    /// Shows the queued tiles' families still held, made and within their keep
    /// distance, near where their near radius holds them and far elsewhere, and turns
    /// near or far those shown that crossed their near or far radius; while the
    /// update's budget is open.
    fn show_queued(&mut self, changes: &mut StreamChanges, budget: &mut Budget) {
        while budget.open(changes) {
            let Some((tile, bit)) = self.to_show.pop_front() else {
                break;
            };
            let radii = self.radii(bit.trailing_zeros() as usize);
            let distance = self.distance_to(tile, self.eye);
            let Some(held) = self.held.get_mut(&tile) else {
                continue;
            };
            held.queued &= !bit;
            if held.made_with & bit == 0 || distance > radii.keep {
                continue;
            }
            let (shown, was_near) = (held.shown & bit != 0, held.near & bit != 0);
            let near = distance <= radii.near || (was_near && distance <= radii.far);
            if shown && near == was_near {
                continue;
            }
            held.shown |= bit;
            if near {
                held.near |= bit;
            } else {
                held.near &= !bit;
            }
            let held = &self.held[&tile];
            if shown || !near {
                budget.far_changed(changes, tile, held);
            }
            if near {
                changes.added.extend(self.shows(tile, held, bit).cloned());
                // Made in time but shown only now, within reach: it pops unless faded.
                let reach = self.settings.reach_m[bit.trailing_zeros() as usize].1;
                if !shown && distance <= reach {
                    (changes.arrived_late).extend(self.shows(tile, held, bit).map(|p| p.id));
                }
            } else if was_near {
                changes
                    .removed
                    .extend(self.shows(tile, held, bit).map(|p| p.id));
            }
        }
    }

    /// Forgets `tile`'s placements of the families `bits` sets (hidden already); drops
    /// the tile when it is left with none.
    fn forget(&mut self, tile: (usize, usize), bits: u32) {
        let families = &self.settings.reach_m;
        let held = self.held.get_mut(&tile).expect("held");
        let kept = held.made_with & !bits;
        let before = held.len();
        if kept == 0 {
            self.held.remove(&tile);
            self.stats.tiles_dropped += 1;
        } else {
            held.batches.retain(|batch| batch.families & kept != 0);
            let keeps = |p: &Placement| kept & placement_family_bit(families, p) != 0;
            for batch in &mut held.batches {
                if batch.families & bits == 0 {
                    continue;
                }
                batch.families &= kept;
                match Arc::get_mut(&mut batch.placements) {
                    Some(own) => own.retain(keeps),
                    // A queued job still reads the old ones.
                    None => {
                        let placements = batch.placements.iter().filter(|p| keeps(p)).cloned();
                        batch.placements = Arc::new(placements.collect());
                    }
                }
                batch.starts = starts_of(&batch.placements, families);
            }
            held.made_with = kept;
            held.shown &= kept;
            held.near &= kept;
        }
        let after = self.held.get(&tile).map_or(0, Held::len);
        self.resident -= (before - after) as u64;
    }

    /// The farthest reach of the families `bits` sets.
    fn farthest_reach(&self, bits: u32) -> f32 {
        (self.settings.reach_m.iter().enumerate())
            .filter(|&(family, _)| bits & 1 << family != 0)
            .map(|(_, &(_, reach))| reach)
            .fold(0.0, f32::max)
    }

    fn made_with(&self, tile: (usize, usize)) -> u32 {
        self.held.get(&tile).map_or(0, |held| held.made_with)
    }

    /// Asks the workers for the tiles waiting to be asked whose earlier neighbours are
    /// made with what they lack, most urgent first.
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
            let neighbours: Option<Vec<&Held>> = self
                .earlier(tile)
                .map(|neighbour| {
                    self.held
                        .get(&neighbour)
                        .filter(|held| lacking & !held.made_with == 0)
                })
                .collect();
            let Some(neighbours) = neighbours else {
                // Asked again when the neighbour it waits for comes back.
                continue;
            };
            let earlier: Vec<Arc<Vec<Placement>>> = (neighbours.iter())
                .flat_map(|held| &held.batches)
                .map(|batch| Arc::clone(&batch.placements))
                .collect();
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
                slack_m: self.distance_to(tile, self.eye) - self.farthest_reach(lacking),
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

    /// Installs the tiles the workers finished that are still wanted as they were asked,
    /// while the update's budget is open: shows them where their families reach, and
    /// queues the later neighbours that waited for them.
    fn take_made(&mut self, changes: &mut StreamChanges, budget: &mut Budget) {
        while budget.open(changes) {
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
            let batch = match made.outcome {
                Ok(batch) => batch,
                Err(error) => {
                    self.error.get_or_insert(error);
                    Batch::new(made.families, Vec::new(), &self.settings.reach_m)
                }
            };
            let (shown, near) = self.showing(tile);
            let (shown, near) = (shown & made.families, near & made.families);
            changes
                .added
                .extend(self.visible(tile, &batch, near).cloned());
            let late = self.late.get(&tile).copied().unwrap_or(0) & near;
            changes
                .arrived_late
                .extend(self.visible(tile, &batch, late).map(|p| p.id));
            self.resident += batch.placements.len() as u64;
            match self.held.get_mut(&tile) {
                Some(held) => {
                    held.batches.push(batch);
                    held.made_with |= made.families;
                    held.shown |= shown;
                    held.near |= near;
                }
                None => {
                    let held = Held {
                        batches: vec![batch],
                        made_with: made.families,
                        shown,
                        near,
                        queued: 0,
                    };
                    self.held.insert(tile, held);
                }
            }
            if shown & !near != 0 {
                budget.far_changed(changes, tile, &self.held[&tile]);
            }
            take_bits(&mut self.late, tile, made.families);
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
            if direct || self.supports(tile, bit) {
                continue;
            }
            take_bits(&mut self.demand, tile, bit);
            let Some(held) = self.held.get(&tile) else {
                continue;
            };
            if held.made_with & bit == 0 || self.distance_to(tile, self.eye) <= radii.keep {
                continue;
            }
            if held.shown & bit != 0 {
                self.hide(tile, bit, changes);
            }
            self.forget(tile, bit);
        }
    }

    /// Whether one of `tile`'s later neighbours asks for the family `bit` is and is not
    /// made with it yet: `tile` is then made with it first.
    fn supports(&self, tile: (usize, usize), bit: u32) -> bool {
        self.later(tile).any(|later| {
            self.demand.get(&later).is_some_and(|&d| d & bit != 0)
                && self.made_with(later) & bit == 0
        })
    }

    /// The families whose show radius holds `tile` from the camera now, and those
    /// whose near radius does.
    fn showing(&self, tile: (usize, usize)) -> (u32, u32) {
        let distance = self.distance_to(tile, self.eye);
        let (mut shown, mut near) = (0, 0);
        for family in 0..self.settings.reach_m.len() {
            let radii = self.radii(family);
            if distance <= radii.show {
                shown |= 1 << family;
                if distance <= radii.near {
                    near |= 1 << family;
                }
            }
        }
        (shown, near)
    }

    /// `tile`'s earlier neighbours on the terrain.
    fn earlier(&self, tile: (usize, usize)) -> impl Iterator<Item = (usize, usize)> {
        earlier_within(self.tiles, tile)
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
    /// How far `tile` is from `eye`: from its nearest point.
    pub fn tile_distance(&self, tile: (usize, usize), eye: Vec2) -> f32 {
        self.distance_to(tile, eye)
    }

    fn distance_to(&self, (x, z): (usize, usize), eye: Vec2) -> f32 {
        let low = self.origin + Vec2::new(x as f32, z as f32) * self.tile_m;
        distance_to_box(eye, low, low + Vec2::splat(self.tile_m))
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

/// The distance from `eye` to the nearest point of the box from `low` to `high`.
fn distance_to_box(eye: Vec2, low: Vec2, high: Vec2) -> f32 {
    (eye.clamp(low, high) - eye).length()
}

/// The distance from `eye` to the farthest point of the box from `low` to `high`.
fn farthest_in_box(eye: Vec2, low: Vec2, high: Vec2) -> f32 {
    (eye - low).abs().max((eye - high).abs()).length()
}

/// The bit of `family` among the settings' families (0 when not streamed).
fn family_bit(families: &[(Arc<str>, f32)], family: &str) -> u32 {
    families
        .iter()
        .position(|(name, _)| &**name == family)
        .map_or(0, |index| 1 << index)
}

/// [`family_bit`] of a placement's family, by the shared name first: a fill's
/// placements share their family's name with the settings'.
fn placement_family_bit(families: &[(Arc<str>, f32)], placement: &Placement) -> u32 {
    families
        .iter()
        .position(|(name, _)| Arc::ptr_eq(name, &placement.family))
        .map_or_else(
            || family_bit(families, &placement.family),
            |index| 1 << index,
        )
}

/// Clears `bits` from `tile`'s entry in `map`, dropping the entry once none is left.
fn take_bits(map: &mut FxHashMap<(usize, usize), u32>, tile: (usize, usize), bits: u32) {
    if let Some(left) = map.get_mut(&tile) {
        *left &= !bits;
        if *left == 0 {
            map.remove(&tile);
        }
    }
}

/// `tile`'s earlier neighbours within a terrain `tiles` across and along.
fn earlier_within(
    (across, along): (usize, usize),
    tile: (usize, usize),
) -> impl Iterator<Item = (usize, usize)> {
    TileGrid::earlier(tile).filter(move |&(x, z)| x < across && z < along)
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
        let first_id = first_id(context.fill_number, context.tiles_across, job.tile);
        let earlier: Vec<&Placement> = job.earlier.iter().flat_map(|made| made.iter()).collect();
        let outcome = context
            .source
            // Only the families asked for: a far tile holds its trees, not its grass.
            .make_after(context.terrain, job.tile, &earlier, first_id, |family| {
                job.families & family_bit(context.families, family) != 0
            })
            // Held until the camera leaves: no room left over from growing.
            .map(|mut placements| {
                placements.shrink_to_fit();
                Batch::new(job.families, placements, context.families)
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

/// How many tiles of `source`'s fill lie across and along `terrain`.
pub(crate) fn tile_counts(source: &TileSource, terrain: &Terrain) -> (usize, usize) {
    let side = source.grid().side_cells;
    (
        (terrain.columns() - 1).div_ceil(side),
        (terrain.rows() - 1).div_ceil(side),
    )
}

/// The id of the first placement of `tile` of streamed fill `fill_number`, on a terrain
/// `tiles_across` tiles wide.
pub(crate) fn first_id(fill_number: usize, tiles_across: usize, (x, z): (usize, usize)) -> u64 {
    let tile_index = (z * tiles_across + x) as u64;
    STREAMED_ID_BIT
        | (fill_number as u64) << (TILE_BITS + ORDINAL_BITS)
        | tile_index << ORDINAL_BITS
}

/// The hysteresis band past a distance of `metres`: `hysteresis` times it, and two
/// tiles at least, so that passes an eighth of it apart leave a quarter of it to ask
/// for a tile before it is shown and another to show it before it is within reach.
fn band_m(metres: f32, hysteresis: f32, tile_m: f32) -> f32 {
    (metres * hysteresis).max(2.0 * tile_m)
}

#[cfg(test)]
mod tests;

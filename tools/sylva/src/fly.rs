//! `sylva fly`: a camera flown over a session headless, in real time, its streamed
//! fills made around it; prints what a frame's CPU work cost and what was held.
//!
//! A frame is what a renderer's frame does on the CPU before drawing: the streamed
//! fills' update (take the tiles made, ask for new ones, drop the far ones, mirror the
//! near placements into the placement registry), the far tiles' instance blocks built
//! again where they changed (the matrices a renderer uploads; there is no GPU here),
//! and the LOD tick. Its cost is the CPU time the frame's thread spent on it; the wall
//! time is printed beside it, and is longer by whatever kept the thread off its core
//! (on a virtual machine, the host's other guests too). Frames are paced to `--fps`, so
//! the workers making tiles race a camera moving at its real speed; the camera waits
//! at its start until the tiles around it are made, as a game's loading screen does,
//! and from then on a tile within its family's reach not made yet is late.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use glam::{Vec2, Vec3};
use rustc_hash::FxHashMap;
use serde::Serialize;
use sylva_lod::LodConfig;
use sylva_runtime::{level_errors_of, shape_of};
use sylva_world::stream::DEFAULT_STREAM_HYSTERESIS;
use sylva_world::{FarBudget, FarChanges, FarPlacements, FarTile, World};

use crate::folders::Folders;
use crate::world;

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum Path {
    /// West to east across the terrain's middle.
    Line,
    /// A circle round the terrain's centre, a third of its width across.
    Ring,
}

/// Where a family's placements past its last LOD switch go ([`FarPlacements`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum Far {
    /// Per-tile blocks drawn at their last levels, out of the LOD's way, as the
    /// runtime draws them (its far tiles).
    Blocks,
    /// The placement registry with the near ones: the comparison.
    Registry,
}

#[derive(clap::Args)]
pub struct Args {
    /// Session journal (RON or JSON); its streamed fills are made around the camera.
    session: PathBuf,
    #[arg(long, value_enum, default_value = "line")]
    path: Path,
    /// Metres a second.
    #[arg(long, default_value_t = 100.0)]
    speed: f32,
    /// Seconds of flight.
    #[arg(long, default_value_t = 60.0)]
    seconds: f32,
    /// Metres above the ground.
    #[arg(long, default_value_t = 30.0)]
    height: f32,
    /// Frames a second the flight is paced to.
    #[arg(long, default_value_t = 60.0)]
    fps: f32,
    /// Threads making tiles (default: the cores less one, at least one).
    #[arg(long)]
    workers: Option<usize>,
    /// A held family is dropped past this share beyond its reach.
    #[arg(long, default_value_t = DEFAULT_STREAM_HYSTERESIS)]
    hysteresis: f32,
    /// Where placements past their prop's last LOD switch go.
    #[arg(long, value_enum, default_value = "blocks")]
    far: Far,
    /// Frames each LOD evaluation's tests are spread over (1: all on the frame that
    /// evaluates). At 60 frames a second, 15 frames lie between two 4 Hz evaluations.
    #[arg(long, default_value_t = 8)]
    lod_spread: u32,
    #[command(flatten)]
    folders: Folders,
    /// Print the result as JSON.
    #[arg(long)]
    json: bool,
}

#[derive(Serialize)]
struct Output {
    frames: usize,
    frame_cpu_ms_p50: f64,
    frame_cpu_ms_p99: f64,
    frame_cpu_ms_max: f64,
    /// The frames' wall time at its 99th percentile: their CPU time and any time the
    /// thread waited for a core.
    frame_wall_ms_p99: f64,
    /// The two parts of a frame's CPU time, each at its own 99th percentile: the
    /// streams' update and mirroring, and the LOD tick.
    stream_ms_p99: f64,
    lod_ms_p99: f64,
    peak_resident_placements: u64,
    /// Of those, at most how many were near (in the registry, each with its own LOD)
    /// and how many far (in tiles' instance blocks).
    peak_near_placements: u64,
    peak_far_placements: u64,
    /// At most how many changed far tiles waited after a frame for the next frames'
    /// budgets, and how far the nearest of them was, at most, in metres.
    peak_far_tiles_waiting: usize,
    far_waiting_nearest_m: f32,
    peak_rss_mb: f64,
    cells_generated: u64,
    cells_dropped: u64,
    cells_cancelled: u64,
    /// Frames × tiles within a family's reach that were not made yet, summed.
    late_cells: u64,
    /// Seconds the camera waited at its start for the tiles round it.
    loading_s: f64,
    streamed_fills: usize,
    stored_placements: usize,
    /// Per spacing family, metres out to which its placements exist.
    reach_m: Vec<(String, f32)>,
    /// Per spacing family, metres past which its placements are far.
    near_m: Vec<(String, f32)>,
}

pub fn run(args: Args) -> Result<()> {
    if !(args.speed.is_finite() && args.speed >= 0.0) {
        bail!("--speed {}: metres a second, 0 or more", args.speed);
    }
    if !(args.seconds.is_finite() && args.seconds > 0.0 && args.fps.is_finite() && args.fps > 0.0) {
        bail!("--seconds and --fps are positive numbers");
    }
    let (session, terrain) = world::load_session(&args.session)?;
    let (mut world, _) = World::replay_streamed(terrain, &session, &LodConfig::default())
        .with_context(|| format!("replaying {}", args.session.display()))?;
    describe_props(&mut world, &args.folders)?;
    let workers = args.workers.unwrap_or_else(|| {
        std::thread::available_parallelism().map_or(1, |n| n.get().saturating_sub(1).max(1))
    });
    let far_placements = match args.far {
        Far::Blocks => FarPlacements::Blocks,
        Far::Registry => FarPlacements::Registry,
    };
    world.start_streams(args.hysteresis, workers, far_placements)?;
    world.spread_lod_evaluations(args.lod_spread);
    let reach = world.stream_reach();
    let reach_m: Vec<(String, f32)> = reach
        .iter()
        .map(|r| (r.family.to_string(), r.reach_m))
        .collect();
    let near_m: Vec<(String, f32)> = reach
        .iter()
        .map(|r| (r.family.to_string(), r.near_m))
        .collect();
    let flight = Flight::new(&world, args.path, args.speed, args.height);

    let mut far = FarBlocks::default();
    let loading = Instant::now();
    let start = flight.at(&world, 0.0);
    while !world.update_streams(start)?.settled() {
        far.rebuild(&mut world, start, None);
        std::thread::sleep(Duration::from_millis(5));
    }
    far.rebuild(&mut world, start, None);
    // What loaded before the flight is whole when it begins.
    world.finish_fades();
    let loading_s = loading.elapsed().as_secs_f64();

    let frame = Duration::from_secs_f32(1.0 / args.fps);
    let frames = (args.seconds * args.fps).ceil() as usize;
    let (mut cpu_ms, mut wall_ms) = (Vec::with_capacity(frames), Vec::with_capacity(frames));
    let (mut stream_ms, mut lod_ms) = (Vec::with_capacity(frames), Vec::with_capacity(frames));
    let (mut late_cells, mut peak_resident, mut last) = (0u64, 0u64, Default::default());
    let (mut peak_near, mut peak_far) = (0u64, 0u64);
    let (mut peak_waiting, mut waiting_nearest) = (0, 0.0f32);
    let flying = Instant::now();
    for index in 0..frames {
        let t = index as f32 / args.fps;
        let camera = flight.at(&world, t);
        let (began, began_cpu) = (Instant::now(), thread_cpu_ms());
        let stats = world.update_streams(camera)?;
        far.rebuild(&mut world, camera, Some(FarBudget::for_frame(began)));
        let streamed = thread_cpu_ms() - began_cpu;
        world.tick_lod(camera, f64::from(t));
        let total = thread_cpu_ms() - began_cpu;
        wall_ms.push(began.elapsed().as_secs_f64() * 1e3);
        cpu_ms.push(total);
        stream_ms.push(streamed);
        lod_ms.push(total - streamed);
        late_cells += u64::from(stats.late_tiles);
        peak_resident = peak_resident.max(stats.resident_placements);
        peak_near = peak_near.max(u64::from(world.registry().len()));
        peak_far = peak_far.max(far.instances);
        peak_waiting = peak_waiting.max(far.changes.waiting());
        if let Some(nearest) = far.changes.nearest_waiting(&world, camera) {
            waiting_nearest = waiting_nearest.max(nearest);
        }
        last = stats;
        // Paced: the next frame starts at its time, as a display's would.
        let next = frame * (index as u32 + 1);
        if let Some(rest) = next.checked_sub(flying.elapsed()) {
            std::thread::sleep(rest);
        }
    }
    let percentile = |times: &mut Vec<f64>, p: f64| {
        times.sort_by(f64::total_cmp);
        times[((times.len() - 1) as f64 * p).round() as usize]
    };
    let output = Output {
        frames,
        frame_cpu_ms_p50: percentile(&mut cpu_ms, 0.5),
        frame_cpu_ms_p99: percentile(&mut cpu_ms, 0.99),
        frame_cpu_ms_max: percentile(&mut cpu_ms, 1.0),
        frame_wall_ms_p99: percentile(&mut wall_ms, 0.99),
        stream_ms_p99: percentile(&mut stream_ms, 0.99),
        lod_ms_p99: percentile(&mut lod_ms, 0.99),
        peak_resident_placements: peak_resident,
        peak_near_placements: peak_near,
        peak_far_placements: peak_far,
        peak_far_tiles_waiting: peak_waiting,
        far_waiting_nearest_m: waiting_nearest,
        peak_rss_mb: peak_rss_mb()?,
        cells_generated: last.tiles_made,
        cells_dropped: last.tiles_dropped,
        cells_cancelled: last.tiles_cancelled,
        late_cells,
        loading_s,
        streamed_fills: world.streamed_fills(),
        stored_placements: world.editor().painter().len(),
        reach_m,
        near_m,
    };
    if args.json {
        println!("{}", serde_json::to_string(&output)?);
    } else {
        println!(
            "{} frames: CPU {:.2} ms p50, {:.2} ms p99 ({:.2} ms wall); {} placements held at most, {:.0} MB \
             peak RSS; {} tiles made, {} dropped, {} cancelled, {} late",
            output.frames,
            output.frame_cpu_ms_p50,
            output.frame_cpu_ms_p99,
            output.frame_wall_ms_p99,
            output.peak_resident_placements,
            output.peak_rss_mb,
            output.cells_generated,
            output.cells_dropped,
            output.cells_cancelled,
            output.late_cells
        );
    }
    Ok(())
}

/// The far tiles' instances, as the runtime keeps them: gathered again when a tile
/// changes, nearest the camera first and within a frame's [`FarBudget`]
/// ([`FarChanges`]). The matrices stand for the upload.
#[derive(Default)]
struct FarBlocks {
    changes: FarChanges,
    /// Instances per (streamed fill, tile).
    blocks: FxHashMap<FarTile, u64>,
    /// All blocks together.
    instances: u64,
}

impl FarBlocks {
    /// Gathers the changed tiles' instances nearest `eye` first, within the frame's
    /// budget, or all of them without one.
    fn rebuild(&mut self, world: &mut World, eye: Vec3, budget: Option<FarBudget>) {
        self.changes.note(world);
        let (blocks, instances) = (&mut self.blocks, &mut self.instances);
        self.changes
            .hand_over(world, eye, budget, |tile, matrices| {
                std::hint::black_box(&matrices);
                let count = matrices.len() as u64;
                let before = if count == 0 {
                    blocks.remove(&tile)
                } else {
                    blocks.insert(tile, count)
                };
                *instances = *instances + count - before.unwrap_or(0);
            });
    }
}

/// Gives every baked prop its shape and LOD description, so each family's reach is
/// where its props stop being drawn. Nothing is uploaded: there is no GPU here.
fn describe_props(world: &mut World, folders: &Folders) -> Result<()> {
    let cache = folders.cache_dir();
    let manifest = cache
        .read_manifest()
        .with_context(|| format!("reading the cache {}", folders.cache.display()))?;
    for entry in manifest.assets.values() {
        let files = cache.read_prop(&entry.entry)?;
        let view = files
            .parse()
            .with_context(|| format!("{}: {}", entry.prop, entry.entry))?;
        let mut shape = shape_of(&view.entry);
        shape.impostor = view.entry.impostor().is_some();
        world.set_prop_shape(&entry.prop, shape)?;
        let (errors, radius) = level_errors_of(&view.entry, shape);
        world.describe_prop_lod(&entry.prop, errors, radius)?;
    }
    Ok(())
}

/// Where the camera is at each moment.
struct Flight {
    path: Path,
    speed: f32,
    height: f32,
    min: Vec2,
    max: Vec2,
}

impl Flight {
    fn new(world: &World, path: Path, speed: f32, height: f32) -> Self {
        let terrain = world.terrain();
        Self {
            path,
            speed,
            height,
            min: terrain.min_corner(),
            max: terrain.max_corner(),
        }
    }

    /// The camera `t` seconds in, `height` above the ground.
    fn at(&self, world: &World, t: f32) -> Vec3 {
        let centre = (self.min + self.max) / 2.0;
        let size = self.max - self.min;
        let ground = match self.path {
            Path::Line => {
                // Back and forth across the middle, a margin in from the edges.
                let (west, east) = (self.min.x + size.x * 0.05, self.max.x - size.x * 0.05);
                let span = east - west;
                let travelled = (self.speed * t) % (2.0 * span);
                let x = west
                    + if travelled <= span {
                        travelled
                    } else {
                        2.0 * span - travelled
                    };
                Vec2::new(x, centre.y)
            }
            Path::Ring => {
                let radius = size.min_element() / 3.0;
                let angle = self.speed * t / radius;
                centre + radius * Vec2::new(angle.cos(), angle.sin())
            }
        };
        let terrain = world.terrain();
        let floor = terrain
            .sample_height(ground.x, ground.y)
            .max(terrain.water_level());
        Vec3::new(ground.x, floor + self.height, ground.y)
    }
}

/// CPU time the calling thread has used, in milliseconds.
#[cfg(unix)]
fn thread_cpu_ms() -> f64 {
    let mut time = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: writes one timespec it is given; the clock exists on every Unix Rust
    // supports.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut time) };
    time.tv_sec as f64 * 1e3 + time.tv_nsec as f64 / 1e6
}

/// Without a thread clock, the time since the first call: the wall time.
#[cfg(not(unix))]
fn thread_cpu_ms() -> f64 {
    static START: std::sync::OnceLock<Instant> = std::sync::OnceLock::new();
    START.get_or_init(Instant::now).elapsed().as_secs_f64() * 1e3
}

/// The process's peak resident memory (`VmHWM` of `/proc/self/status`), MB.
fn peak_rss_mb() -> Result<f64> {
    let status =
        std::fs::read_to_string("/proc/self/status").context("reading /proc/self/status")?;
    let kb: f64 = status
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
        .context("no VmHWM in /proc/self/status")?;
    Ok(kb / 1024.0)
}

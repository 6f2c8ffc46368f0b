//! Fills planned off the frame's thread: a worker evaluates the fill's candidates (the
//! slow part, in parallel) while the window keeps drawing and painting; the workspace
//! accepts the finished plan between frames, in one step, so a fill is either wholly
//! in the session or not at all. Cancelling stops the worker after its current band
//! of tiles and discards whatever it planned.

use std::ops::ControlFlow;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, TryRecvError};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use sylva_scatter::{FillError, FillJob, FillPlan};
use sylva_terrain::Terrain;

/// Tiles planned and tiles in all, written by the worker, read by the HUD.
#[derive(Default)]
struct Shared {
    done: AtomicUsize,
    total: AtomicUsize,
    cancelled: AtomicBool,
    /// How long planning took, once it has finished.
    planned_micros: AtomicU64,
}

/// A fill being planned on its own thread.
pub struct FillTask {
    job: FillJob,
    /// What is filled, for the HUD: `the view`, `the lasso`.
    what: String,
    shared: Arc<Shared>,
    outcome: Receiver<Result<FillPlan, FillError>>,
    started: Instant,
}

/// A fill's progress as the HUD shows it.
#[derive(Clone, Debug, PartialEq)]
pub struct FillProgress {
    pub what: String,
    pub preset: String,
    /// Rows of terrain cells planned, and in all (0 of 0 until the worker starts).
    pub done: usize,
    pub total: usize,
    /// Since the fill started.
    pub elapsed: Duration,
    /// How long the worker took to plan it, once it has.
    pub planned_in: Option<Duration>,
}

impl FillProgress {
    /// Rows planned so far, 0 to 1.
    pub fn fraction(&self) -> f32 {
        if self.total == 0 {
            0.0
        } else {
            self.done as f32 / self.total as f32
        }
    }
}

impl FillTask {
    /// Starts planning `job` on `terrain` (the session's) on a new thread.
    pub fn start(job: FillJob, terrain: Arc<Terrain>, what: impl Into<String>) -> Self {
        let shared = Arc::new(Shared::default());
        let (send, outcome) = mpsc::channel();
        let worker_job = job.clone();
        let worker_shared = Arc::clone(&shared);
        thread::Builder::new()
            .name("sylva-fill".into())
            .spawn(move || {
                let mut progress = |done: usize, total: usize| {
                    worker_shared.done.store(done, Ordering::Relaxed);
                    worker_shared.total.store(total, Ordering::Relaxed);
                    if worker_shared.cancelled.load(Ordering::Relaxed) {
                        ControlFlow::Break(())
                    } else {
                        ControlFlow::Continue(())
                    }
                };
                let started = Instant::now();
                let outcome = worker_job.plan(&terrain, &mut progress);
                let micros = started.elapsed().as_micros().max(1) as u64;
                worker_shared
                    .planned_micros
                    .store(micros, Ordering::Relaxed);
                // The receiver is gone when the fill was cancelled; nothing to tell.
                let _ = send.send(outcome);
            })
            .expect("the fill thread starts");
        Self {
            job,
            what: what.into(),
            shared,
            outcome,
            started: Instant::now(),
        }
    }

    pub fn job(&self) -> &FillJob {
        &self.job
    }

    pub fn progress(&self) -> FillProgress {
        FillProgress {
            what: self.what.clone(),
            preset: self.job.request.preset.clone(),
            done: self.shared.done.load(Ordering::Relaxed),
            total: self.shared.total.load(Ordering::Relaxed),
            elapsed: self.started.elapsed(),
            planned_in: match self.shared.planned_micros.load(Ordering::Relaxed) {
                0 => None,
                micros => Some(Duration::from_micros(micros)),
            },
        }
    }

    /// The plan once the worker has finished; never blocks.
    pub fn poll(&self) -> Option<Result<FillPlan, FillError>> {
        match self.outcome.try_recv() {
            Ok(outcome) => Some(outcome),
            Err(TryRecvError::Empty) => None,
            Err(TryRecvError::Disconnected) => Some(Err(FillError::Cancelled)),
        }
    }
}

impl Drop for FillTask {
    /// A task dropped before it finished (cancelled, or the window closed) stops its
    /// worker at the next band of tiles.
    fn drop(&mut self) {
        self.shared.cancelled.store(true, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use sylva_catalog::{CatalogFile, CatalogSnapshot};
    use sylva_scatter::{
        Editor, FillOrder, FillRegion, FillRequest, Preset, Session, TerrainSource,
        DEFAULT_PLACEMENT_CAP,
    };
    use sylva_terrain::default_world;

    use super::*;

    fn job(density: f32) -> FillJob {
        let file = CatalogFile::from_ron(
            r#"(categories: { "grass": (family: "ground") })"#,
            "catalog.ron",
        )
        .unwrap();
        let snapshot = CatalogSnapshot::new(file, ["grass/tuft.glb"]);
        let session = Session::new(
            5,
            DEFAULT_PLACEMENT_CAP,
            TerrainSource::DefaultWorld,
            snapshot,
        );
        let mut editor = Editor::new(&session).unwrap();
        let preset = Preset::parse(
            r#"(name: "lawn", brush: (radius: 5.0, density_per_m2: 0.5),
                picks: [(category: "grass", weight: 1.0, min_spacing: 0.5)])"#,
            "lawn.ron",
        )
        .unwrap();
        let name = editor.use_preset("lawn", preset).unwrap();
        let request = FillRequest {
            preset: name,
            region: FillRegion::Whole,
            density: Some(density),
            order: FillOrder::Tiles,
            stream: false,
            replaces: None,
        };
        editor.fill_job(&request).unwrap()
    }

    fn wait(task: &FillTask) -> Result<FillPlan, FillError> {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            if let Some(outcome) = task.poll() {
                return outcome;
            }
            assert!(Instant::now() < deadline, "the fill never finished");
            thread::sleep(Duration::from_millis(2));
        }
    }

    #[test]
    fn a_fill_planned_on_the_worker_is_the_plan_made_in_place() {
        let terrain = Arc::new(default_world());
        let job = job(0.05);
        let task = FillTask::start(job.clone(), Arc::clone(&terrain), "the world");
        let planned = wait(&task).unwrap();
        let in_place = job
            .plan(&terrain, &mut |_, _| ControlFlow::Continue(()))
            .unwrap();
        assert_eq!(planned.candidates(), in_place.candidates());
        let progress = task.progress();
        assert_eq!((progress.done, progress.total), (256, 256));
        assert_eq!(progress.fraction(), 1.0);
        assert_eq!(progress.preset, "lawn");
        assert!(progress.planned_in.unwrap() <= progress.elapsed);
    }

    #[test]
    fn a_dropped_task_stops_its_worker_early() {
        let terrain = Arc::new(default_world());
        // Dense enough to take far longer than one band of tiles.
        let job = job(4.0);
        let task = FillTask::start(job, terrain, "the world");
        let shared = Arc::clone(&task.shared);
        drop(task);
        let deadline = Instant::now() + Duration::from_secs(60);
        // The worker drops its side of `shared` when it returns.
        while Arc::strong_count(&shared) > 1 {
            assert!(Instant::now() < deadline, "the worker kept going");
            thread::sleep(Duration::from_millis(2));
        }
        let done = shared.done.load(Ordering::Relaxed);
        let total = shared.total.load(Ordering::Relaxed);
        assert!(
            done < total || total == 0,
            "planned {done} of {total} tiles"
        );
    }
}

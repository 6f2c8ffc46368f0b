//! The baker's watcher on an assets folder, on a thread of its own: each debounced pass
//! re-bakes what changed into the cache and is reported to the drawing thread as a
//! [`WatchPass`], which it applies between frames, so a frame never waits for a bake.
//! The watcher and its bake threads run at a lower scheduling priority than the drawing
//! thread (and the driver's), so on a machine with few cores the frames stay fluid
//! while a bake runs; the bake takes the time they leave.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{channel, Receiver};
use std::sync::Arc;
use std::thread::JoinHandle;

use sylva_bake::{watch, FolderError, FolderReport, Sharing, Status, WatchOptions};
use sylva_cache::{CacheDir, ObjectStore};

/// What one bake pass did, as the viewer needs it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WatchPass {
    /// Props whose entry was (re-)baked or fetched from the remote cache.
    pub baked: Vec<String>,
    /// Props whose bake failed, with why; their last good entry stays.
    pub failed: Vec<(String, String)>,
    /// Why the whole pass failed (e.g. an unreadable catalog), if it did.
    pub error: Option<String>,
}

impl WatchPass {
    /// The pass a folder bake's result makes.
    pub fn of(result: &Result<FolderReport, FolderError>) -> Self {
        let report = match result {
            Ok(report) => report,
            Err(error) => {
                return Self {
                    error: Some(error.to_string()),
                    ..Self::default()
                }
            }
        };
        let mut pass = Self::default();
        for asset in &report.assets {
            match &asset.status {
                Status::Baked { .. } | Status::Fetched { .. } => {
                    pass.baked.push(asset.prop_id.clone())
                }
                Status::Failed { error, .. } => pass
                    .failed
                    .push((asset.prop_id.clone(), format!("{}: {error}", asset.path))),
                Status::Current | Status::StillFailing => {}
            }
        }
        pass
    }
}

/// The running watcher; dropping it stops the thread (within about 100 ms).
pub struct Watcher {
    stop: Arc<AtomicBool>,
    passes: Receiver<WatchPass>,
    thread: Option<JoinHandle<()>>,
}

impl Watcher {
    /// Watches `assets`, baking into `cache` what `remote` (read only) does not hold;
    /// the first pass runs at once.
    pub fn start(assets: &Path, cache: &Path, remote: Option<Arc<dyn ObjectStore>>) -> Self {
        let stop = Arc::new(AtomicBool::new(false));
        let (sender, passes) = channel();
        let (assets, cache) = (assets.to_owned(), CacheDir::new(cache));
        let flag = stop.clone();
        let thread = std::thread::Builder::new()
            .name("sylva bake watcher".into())
            .spawn(move || {
                lower_this_threads_priority();
                // The bake's parallel stages run on threads of the same low priority.
                let pool = rayon::ThreadPoolBuilder::new()
                    .thread_name(|i| format!("sylva bake {i}"))
                    .start_handler(|_| lower_this_threads_priority())
                    .build();
                let on_pass = |result: &Result<FolderReport, FolderError>| {
                    let _ = sender.send(WatchPass::of(result));
                };
                let sharing = Sharing {
                    remote: remote.as_deref().map(|r| r as _),
                    ..Sharing::default()
                };
                let watch_folder = || {
                    watch(
                        &assets,
                        &cache,
                        WatchOptions::default(),
                        sharing,
                        &flag,
                        on_pass,
                    )
                };
                // Without a pool of its own (the system refused threads) the bake runs
                // on the global one.
                let outcome = match &pool {
                    Ok(pool) => pool.install(watch_folder),
                    Err(_) => watch_folder(),
                };
                if let Err(error) = outcome {
                    let _ = sender.send(WatchPass {
                        error: Some(error.to_string()),
                        ..WatchPass::default()
                    });
                }
            })
            .expect("the system can start a thread");
        Self {
            stop,
            passes,
            thread: Some(thread),
        }
    }

    /// Passes finished since the last call; never blocks.
    pub fn poll(&self) -> Vec<WatchPass> {
        self.passes.try_iter().collect()
    }
}

impl Drop for Watcher {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// Lowers the calling thread's scheduling priority to nice 10, where the system allows
/// it (Linux, which schedules threads on their own nice values); elsewhere it does
/// nothing.
fn lower_this_threads_priority() {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: `gettid` has no preconditions, and `setpriority` on the caller's own
        // thread id only changes that thread's nice value (an error leaves it as it was).
        unsafe {
            let thread = libc::gettid();
            libc::setpriority(libc::PRIO_PROCESS, thread as libc::id_t, 10);
        }
    }
}

//! Keeping a cache current while artists work: watch the assets folder, debounce the
//! events, run the incremental bake. Editors' atomic saves, renames, deletes and bursts
//! all come down to "something changed": one incremental pass bakes exactly the assets
//! whose content differs from their entry, so no event needs interpreting. A failing
//! asset is not retried until its content changes; nothing stops the loop but `stop`.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use notify::event::{AccessKind, AccessMode, EventKind, ModifyKind};
use notify::{RecursiveMode, Watcher};
use sylva_cache::{CacheDir, CacheKey};
use thiserror::Error;

use crate::debounce::Debouncer;
use crate::folder::{bake_folder, BakeOptions, FolderError, FolderReport, Sharing, Status};

#[derive(Clone, Copy, Debug)]
pub struct WatchOptions {
    /// Bake this long after the last event of a burst…
    pub quiet: Duration,
    /// …or this long after its first event, if events keep coming.
    pub longest: Duration,
}

impl Default for WatchOptions {
    fn default() -> Self {
        WatchOptions {
            quiet: Duration::from_millis(200),
            longest: Duration::from_secs(2),
        }
    }
}

#[derive(Debug, Error)]
pub enum WatchError {
    #[error("watching {path}: {source}")]
    Notify { path: String, source: notify::Error },
    #[error("the file watcher stopped")]
    Disconnected,
}

/// Bakes `assets` into `cache` now and after every debounced burst of changes, calling
/// `on_pass` with each pass's result, until `stop` is set (checked at least every
/// 100 ms). Each pass shares through `sharing` (a remote cache is tried afresh every
/// pass, so one that was down is used again once it is back).
pub fn watch(
    assets: &Path,
    cache: &CacheDir,
    options: WatchOptions,
    sharing: Sharing<'_>,
    stop: &AtomicBool,
    mut on_pass: impl FnMut(&Result<FolderReport, FolderError>),
) -> Result<(), WatchError> {
    let (sender, events) = mpsc::channel();
    let mut watcher = notify::recommended_watcher(sender).map_err(|source| WatchError::Notify {
        path: assets.display().to_string(),
        source,
    })?;
    watcher
        .watch(assets, RecursiveMode::Recursive)
        .map_err(|source| WatchError::Notify {
            path: assets.display().to_string(),
            source,
        })?;

    let mut failures: BTreeMap<String, CacheKey> = BTreeMap::new();
    let mut pass = |failures: &mut BTreeMap<String, CacheKey>| {
        let options = BakeOptions {
            known_failures: failures.clone(),
            sharing,
            ..BakeOptions::default()
        };
        let result = bake_folder(assets, cache, &options);
        if let Ok(report) = &result {
            remember_failures(report, failures);
        }
        on_pass(&result);
    };
    pass(&mut failures);

    let idle = Duration::from_millis(100);
    let mut debouncer = Debouncer::new(options.quiet, options.longest);
    while !stop.load(Ordering::Relaxed) {
        match events.recv_timeout(debouncer.wait(Instant::now(), idle)) {
            Ok(Ok(event)) if changes_content(&event.kind) => debouncer.event(Instant::now()),
            Ok(Ok(_)) | Err(mpsc::RecvTimeoutError::Timeout) => {}
            // The watcher lost events (e.g. a queue overflow): treat as a change.
            Ok(Err(_)) => debouncer.event(Instant::now()),
            Err(mpsc::RecvTimeoutError::Disconnected) => return Err(WatchError::Disconnected),
        }
        if debouncer.fire(Instant::now()) {
            pass(&mut failures);
        }
    }
    Ok(())
}

/// Reads (our own included) and metadata changes are not content changes.
fn changes_content(kind: &EventKind) -> bool {
    match kind {
        EventKind::Access(AccessKind::Close(AccessMode::Write)) => true,
        EventKind::Access(_) | EventKind::Modify(ModifyKind::Metadata(_)) => false,
        _ => true,
    }
}

fn remember_failures(report: &FolderReport, failures: &mut BTreeMap<String, CacheKey>) {
    for asset in &report.assets {
        match &asset.status {
            Status::Failed { key: Some(key), .. } => {
                failures.insert(asset.path.clone(), *key);
            }
            Status::StillFailing => {}
            _ => {
                failures.remove(&asset.path);
            }
        }
    }
    failures.retain(|path, _| report.assets.iter().any(|a| &a.path == path));
}

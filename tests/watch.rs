//! `watch` on a temporary folder: drops, edits, atomic saves, renames, deletes, bursts
//! and broken files. Each test polls for the expected state with a generous timeout.

use crate::common;

use std::collections::BTreeMap;
use std::fs;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use common::temp_assets;
use sylva_bake::{check_folder, watch, Status, WatchOptions};
use sylva_cache::CacheDir;

/// A watcher running on its own thread; stopped when dropped.
struct Watching {
    assets: PathBuf,
    cache: CacheDir,
    stop: Arc<AtomicBool>,
    passes: Arc<AtomicUsize>,
    /// Every entry file a pass baked, in order.
    baked: Arc<Mutex<Vec<String>>>,
    /// Paths that failed in some pass.
    failed: Arc<Mutex<Vec<String>>>,
    thread: Option<JoinHandle<()>>,
    _dirs: (tempfile::TempDir, tempfile::TempDir),
}

fn start(assets: tempfile::TempDir) -> Watching {
    start_with(
        assets,
        WatchOptions {
            quiet: Duration::from_millis(100),
            longest: Duration::from_secs(5),
        },
    )
}

fn start_with(assets: tempfile::TempDir, options: WatchOptions) -> Watching {
    let out = tempfile::tempdir().unwrap();
    let cache = CacheDir::new(out.path().join("cache"));
    let stop = Arc::new(AtomicBool::new(false));
    let passes = Arc::new(AtomicUsize::new(0));
    let baked = Arc::new(Mutex::new(Vec::new()));
    let failed = Arc::new(Mutex::new(Vec::new()));
    let thread = {
        let (path, cache, stop) = (assets.path().to_owned(), cache.clone(), stop.clone());
        let (passes, baked, failed) = (passes.clone(), baked.clone(), failed.clone());
        thread::spawn(move || {
            watch(
                &path,
                &cache,
                options,
                Default::default(),
                &stop,
                |result| {
                    for asset in &result.as_ref().unwrap().assets {
                        match &asset.status {
                            Status::Baked { entry, .. } => {
                                baked.lock().unwrap().push(entry.clone())
                            }
                            Status::Failed { .. } => {
                                failed.lock().unwrap().push(asset.path.clone())
                            }
                            _ => {}
                        }
                    }
                    passes.fetch_add(1, Ordering::SeqCst);
                },
            )
            .unwrap()
        })
    };
    let watching = Watching {
        assets: assets.path().to_owned(),
        cache,
        stop,
        passes,
        baked,
        failed,
        thread: Some(thread),
        _dirs: (assets, out),
    };
    watching.wait_until("the first pass", |w| w.passes.load(Ordering::SeqCst) >= 1);
    watching
}

impl Watching {
    /// Waits for `done`, failing past a deadline that only guards against a watcher
    /// that never gets there: five hundred bakes take 23–35 s on two loaded cores.
    fn wait_until(&self, what: &str, done: impl Fn(&Watching) -> bool) {
        let deadline = Instant::now() + Duration::from_secs(180);
        while !done(self) {
            assert!(Instant::now() < deadline, "timed out waiting for {what}");
            thread::sleep(Duration::from_millis(50));
        }
    }

    /// Waits until the cache is the exact bake of the folder and lists `path`'s entry
    /// (or no entry for `path` when `present` is false); returns the entry.
    fn wait_current(&self, path: &str, present: bool) -> Option<String> {
        self.wait_until(
            &format!("a current cache with {path} present: {present}"),
            |w| {
                let manifest = w.cache.read_manifest().unwrap();
                manifest.assets.contains_key(path) == present
                    && check_folder(&w.assets, &w.cache).is_ok_and(|f| f.is_empty())
            },
        );
        let manifest = self.cache.read_manifest().unwrap();
        manifest.assets.get(path).map(|e| e.entry.clone())
    }

    fn times_baked(&self, entry: &str) -> usize {
        self.baked
            .lock()
            .unwrap()
            .iter()
            .filter(|e| *e == entry)
            .count()
    }

    /// Entries baked more than once, with their count.
    fn baked_twice(&self) -> BTreeMap<String, usize> {
        let mut counts = BTreeMap::new();
        for entry in self.baked.lock().unwrap().iter() {
            *counts.entry(entry.clone()).or_insert(0) += 1;
        }
        counts.retain(|_, n| *n > 1);
        counts
    }

    fn file(&self, path: &str) -> PathBuf {
        self.assets.join(path)
    }
}

impl Drop for Watching {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

const QUAD: &str = "quad/Mesh_PrimitiveMode_13.gltf";

fn quad_folder() -> tempfile::TempDir {
    temp_assets(
        &["box", "quad"],
        &[
            ("quad", "Mesh_PrimitiveMode_13.gltf"),
            ("quad", "Mesh_PrimitiveMode_13.bin"),
        ],
    )
}

/// The original quad glTF with an `extras` mark: new content, same geometry.
fn marked_quad(mark: &str) -> String {
    let mut text = fs::read_to_string(common::gltf_file("Mesh_PrimitiveMode_13.gltf")).unwrap();
    let start = text.find("\"meshes\"").unwrap();
    text.insert_str(start, &format!("\"extras\": {{\"edit\": \"{mark}\"}},\n  "));
    text
}

#[test]
fn a_dropped_file_is_baked() {
    let w = start(quad_folder());
    w.wait_current(QUAD, true);
    fs::create_dir_all(w.file("box")).unwrap();
    fs::copy(common::gltf_file("Box.glb"), w.file("box/Box.glb")).unwrap();
    let entry = w.wait_current("box/Box.glb", true).unwrap();
    assert_eq!(w.times_baked(&entry), 1);
}

#[test]
fn a_modified_file_is_rebaked_once() {
    let w = start(quad_folder());
    let before = w.wait_current(QUAD, true).unwrap();
    fs::write(w.file(QUAD), marked_quad("edit")).unwrap();
    w.wait_until("a new entry", |w| {
        w.cache.read_manifest().unwrap().assets[QUAD].entry != before
    });
    let after = w.wait_current(QUAD, true).unwrap();
    assert_eq!(w.times_baked(&after), 1);
    assert!(
        !w.cache.entry_files().unwrap().contains(&before),
        "the old entry is removed"
    );
}

#[test]
fn an_editors_atomic_save_is_rebaked_once() {
    let w = start(quad_folder());
    let before = w.wait_current(QUAD, true).unwrap();
    let temporary = w.file("quad/.Mesh_PrimitiveMode_13.gltf.swp");
    fs::write(&temporary, marked_quad("saved")).unwrap();
    fs::rename(&temporary, w.file(QUAD)).unwrap();
    w.wait_until("a new entry", |w| {
        w.cache.read_manifest().unwrap().assets[QUAD].entry != before
    });
    let after = w.wait_current(QUAD, true).unwrap();
    assert_eq!(w.times_baked(&after), 1);
}

#[test]
fn a_renamed_file_moves_to_its_new_name() {
    let w = start(quad_folder());
    w.wait_current(QUAD, true);
    fs::rename(w.file(QUAD), w.file("quad/Renamed.gltf")).unwrap();
    let entry = w.wait_current("quad/Renamed.gltf", true).unwrap();
    w.wait_current(QUAD, false);
    assert_eq!(w.times_baked(&entry), 1);
}

#[test]
fn a_deleted_file_loses_its_entry() {
    let w = start(quad_folder());
    let entry = w.wait_current(QUAD, true).unwrap();
    fs::remove_file(w.file(QUAD)).unwrap();
    w.wait_current(QUAD, false);
    assert!(!w.cache.entry_files().unwrap().contains(&entry));
}

#[test]
fn a_burst_of_fifty_writes_bakes_the_final_content_once() {
    let w = start(quad_folder());
    w.wait_current(QUAD, true);
    let passes_before = w.passes.load(Ordering::SeqCst);
    for i in 0..50 {
        fs::write(w.file(QUAD), marked_quad(&format!("v{i}"))).unwrap();
    }
    fs::write(w.file(QUAD), marked_quad("final")).unwrap();
    let entry = w.wait_current(QUAD, true).unwrap();
    assert_eq!(w.times_baked(&entry), 1);
    let passes = w.passes.load(Ordering::SeqCst) - passes_before;
    assert!(
        passes <= 3,
        "a burst is debounced into few passes, not {passes}"
    );
}

#[test]
fn a_broken_file_neither_stops_the_watcher_nor_is_retried_until_it_changes() {
    let w = start(quad_folder());
    let good = fs::read(w.file(QUAD)).unwrap();
    w.wait_current(QUAD, true);
    fs::write(w.file(QUAD), b"{ not json").unwrap();
    w.wait_until("the failure", |w| w.failed.lock().unwrap().len() == 1);
    // An unrelated change makes a pass; the unchanged broken file is not retried.
    fs::create_dir_all(w.file("box")).unwrap();
    fs::copy(common::gltf_file("Box.glb"), w.file("box/Box.glb")).unwrap();
    w.wait_until("the box", |w| {
        w.cache
            .read_manifest()
            .unwrap()
            .assets
            .contains_key("box/Box.glb")
    });
    assert_eq!(w.failed.lock().unwrap().len(), 1);
    fs::write(w.file(QUAD), good).unwrap();
    w.wait_current(QUAD, true);
}

#[test]
fn five_hundred_files_copied_in_at_once_are_each_baked_exactly_once() {
    let kit_pebble = common::repo().join("assets/pebble/river_round.glb");
    let w = start(temp_assets(&["pebble"], &[]));
    let bytes = fs::read(kit_pebble).unwrap();
    fs::create_dir_all(w.file("pebble")).unwrap();
    for i in 0..500 {
        fs::write(w.file(&format!("pebble/copy_{i:03}.glb")), &bytes).unwrap();
    }
    w.wait_until("500 entries", |w| {
        w.cache.read_manifest().unwrap().assets.len() == 500
    });
    w.wait_current("pebble/copy_499.glb", true);
    assert_eq!(w.baked_twice(), BTreeMap::new(), "an entry was baked twice");
    let manifest = w.cache.read_manifest().unwrap();
    for listed in manifest.assets.values() {
        assert_eq!(w.times_baked(&listed.entry), 1, "{}", listed.prop);
    }
}

#[test]
fn an_editor_saving_every_50_ms_ends_current_and_no_content_is_baked_twice() {
    // A short longest wait, so passes run while the saves go on and meet half-written
    // files.
    let options = WatchOptions {
        quiet: Duration::from_millis(100),
        longest: Duration::from_millis(400),
    };
    let w = start_with(quad_folder(), options);
    w.wait_current(QUAD, true);
    let passes_before = w.passes.load(Ordering::SeqCst);
    for i in 0..60 {
        fs::write(w.file(QUAD), marked_quad(&format!("save {i}"))).unwrap();
        thread::sleep(Duration::from_millis(50));
    }
    let entry = w.wait_current(QUAD, true).unwrap();
    assert_eq!(w.times_baked(&entry), 1, "the final content is baked once");
    assert_eq!(
        w.baked_twice(),
        BTreeMap::new(),
        "a content was baked twice"
    );
    let passes = w.passes.load(Ordering::SeqCst) - passes_before;
    assert!(passes >= 3, "passes ran during the saves ({passes})");
}

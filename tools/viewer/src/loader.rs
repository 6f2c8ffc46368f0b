//! Loading props off the interaction's critical path. A worker thread asks a
//! [`PropSource`] for each requested prop (reading, and where needed baking, it) and
//! hands the cache entry back; the main thread only enqueues requests and, between
//! frames, installs what arrived. A prop has at most one load in flight: a second
//! request (a stroke that starts while the preset's preload is still running) joins
//! it instead of starting another.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Instant;

/// A prop as a source delivers it: a bake cache entry and its texture blobs, checked.
#[derive(Clone, Debug, PartialEq)]
pub struct LoadedProp {
    /// The entry's file name in the cache (`<key>.sylva`).
    pub entry: String,
    /// The entry's and its texture blobs' bytes (the renderer uploads straight from
    /// them).
    pub files: sylva_cache::PropFiles,
    /// Geometry revision: goes up each time the prop's baked content changes.
    pub revision: u64,
    /// Whether the source baked it because the cache had no current entry.
    pub baked: bool,
}

/// Where props come from. Called on the loader's worker thread.
pub trait PropSource: Send + Sync {
    /// Reads (baking first if needed) prop `id` (`<category>/<stem>`).
    fn load(&self, id: &str) -> Result<LoadedProp, String>;
}

/// One finished load.
#[derive(Debug)]
pub struct LoadOutcome {
    pub prop: Arc<str>,
    pub result: Result<LoadedProp, String>,
    /// Worker time spent on it.
    pub micros: u64,
}

/// What a request did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Request {
    /// A new load started.
    Started,
    /// A load of this prop was already in flight; the request shares it.
    Joined,
    /// The prop is already loaded (or failed; a changed file reloads it).
    Done,
}

/// Counts for the HUD and the run summary.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct LoadCounters {
    pub started: u32,
    pub joined: u32,
    pub finished: u32,
    pub failed: u32,
    /// Worker time spent loading, all props.
    pub worker_micros: u64,
}

/// Owns the worker; dropping it lets the worker finish its current prop and stop.
pub struct PropLoader {
    jobs: Option<Sender<Arc<str>>>,
    outcomes: Receiver<LoadOutcome>,
    in_flight: BTreeSet<Arc<str>>,
    done: BTreeSet<Arc<str>>,
    counters: LoadCounters,
    worker: Option<JoinHandle<()>>,
}

impl PropLoader {
    pub fn new(source: Arc<dyn PropSource>) -> Self {
        let (jobs, job_queue) = channel::<Arc<str>>();
        let (outcome_sender, outcomes) = channel();
        let worker = std::thread::Builder::new()
            .name("sylva prop loader".into())
            .spawn(move || {
                for prop in job_queue {
                    let started = Instant::now();
                    let result = source.load(&prop);
                    let micros = started.elapsed().as_micros() as u64;
                    let outcome = LoadOutcome {
                        prop,
                        result,
                        micros,
                    };
                    if outcome_sender.send(outcome).is_err() {
                        break;
                    }
                }
            })
            .expect("the system can start a thread");
        Self {
            jobs: Some(jobs),
            outcomes,
            in_flight: BTreeSet::new(),
            done: BTreeSet::new(),
            counters: LoadCounters::default(),
            worker: Some(worker),
        }
    }

    /// Asks for `prop`; never blocks.
    pub fn request(&mut self, prop: &str) -> Request {
        if self.in_flight.contains(prop) {
            self.counters.joined += 1;
            return Request::Joined;
        }
        if self.done.contains(prop) {
            return Request::Done;
        }
        self.start(prop);
        Request::Started
    }

    /// Loads `prop` again even if it was loaded (its file changed).
    pub fn reload(&mut self, prop: &str) -> Request {
        self.done.remove(prop);
        self.request(prop)
    }

    fn start(&mut self, prop: &str) {
        let prop: Arc<str> = prop.into();
        self.in_flight.insert(prop.clone());
        self.counters.started += 1;
        if let Some(jobs) = &self.jobs {
            // The worker only stops when `jobs` is dropped, so this cannot fail while
            // `self` lives; if it did, the prop would simply stay in flight.
            let _ = jobs.send(prop);
        }
    }

    /// Loads finished since the last call; never blocks.
    pub fn poll(&mut self) -> Vec<LoadOutcome> {
        let mut finished = Vec::new();
        while let Ok(outcome) = self.outcomes.try_recv() {
            self.in_flight.remove(&outcome.prop);
            self.done.insert(outcome.prop.clone());
            self.counters.finished += 1;
            self.counters.worker_micros += outcome.micros;
            if outcome.result.is_err() {
                self.counters.failed += 1;
            }
            finished.push(outcome);
        }
        finished
    }

    pub fn in_flight(&self) -> usize {
        self.in_flight.len()
    }

    pub fn counters(&self) -> LoadCounters {
        self.counters
    }
}

impl Drop for PropLoader {
    fn drop(&mut self) {
        self.jobs = None;
        if let Some(worker) = self.worker.take() {
            let _ = worker.join();
        }
    }
}

/// Per-prop state for the HUD: loading, loaded at a revision, or failed.
#[derive(Clone, Debug, PartialEq)]
pub enum PropStatus {
    Loading,
    Loaded {
        revision: u64,
        /// Baked on demand rather than read from a current cache entry.
        baked: bool,
    },
    /// The last load failed; `revision` is what is still drawn, if anything.
    Failed {
        error: String,
        revision: Option<u64>,
    },
}

/// The status of every prop requested so far, by id.
pub type PropStatuses = BTreeMap<Arc<str>, PropStatus>;

#[cfg(test)]
mod tests {
    use std::sync::{Condvar, Mutex};
    use std::time::Duration;

    use super::*;

    /// A source whose loads wait for the test to open a gate, counting calls.
    #[derive(Default)]
    struct GatedSource {
        open: Mutex<bool>,
        opened: Condvar,
        calls: Mutex<Vec<String>>,
    }

    impl GatedSource {
        fn open(&self) {
            *self.open.lock().unwrap() = true;
            self.opened.notify_all();
        }
    }

    impl PropSource for GatedSource {
        fn load(&self, id: &str) -> Result<LoadedProp, String> {
            self.calls.lock().unwrap().push(id.to_owned());
            let mut open = self.open.lock().unwrap();
            while !*open {
                open = self.opened.wait(open).unwrap();
            }
            if id.starts_with("broken") {
                return Err(format!("{id}: not a glTF file"));
            }
            Ok(LoadedProp {
                entry: format!("{id}.sylva"),
                files: Default::default(),
                revision: 1,
                baked: false,
            })
        }
    }

    fn wait_for(loader: &mut PropLoader, count: usize) -> Vec<LoadOutcome> {
        let mut all = Vec::new();
        for _ in 0..500 {
            all.extend(loader.poll());
            if all.len() >= count {
                return all;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        panic!("only {} of {count} loads finished", all.len());
    }

    #[test]
    fn a_second_request_joins_the_load_in_flight() {
        let source = Arc::new(GatedSource::default());
        let mut loader = PropLoader::new(source.clone());
        assert_eq!(loader.request("tree/a"), Request::Started);
        assert_eq!(loader.request("tree/a"), Request::Joined);
        assert_eq!(loader.request("tree/b"), Request::Started);
        assert_eq!(loader.in_flight(), 2);
        source.open();
        let outcomes = wait_for(&mut loader, 2);
        assert_eq!(outcomes.len(), 2);
        assert_eq!(*source.calls.lock().unwrap(), ["tree/a", "tree/b"]);
        assert_eq!(loader.request("tree/a"), Request::Done);
        let counters = loader.counters();
        assert_eq!(
            (counters.started, counters.joined, counters.finished),
            (2, 1, 2)
        );
        assert_eq!(loader.in_flight(), 0);
    }

    #[test]
    fn requests_return_at_once_while_the_worker_is_busy() {
        let source = Arc::new(GatedSource::default());
        let mut loader = PropLoader::new(source.clone());
        let started = Instant::now();
        for i in 0..100 {
            loader.request(&format!("rock/{i}"));
        }
        assert!(started.elapsed() < Duration::from_millis(50));
        assert!(
            loader.poll().is_empty(),
            "nothing finishes while the gate is shut"
        );
        source.open();
        wait_for(&mut loader, 100);
    }

    #[test]
    fn failures_are_reported_and_a_reload_tries_again() {
        let source = Arc::new(GatedSource::default());
        source.open();
        let mut loader = PropLoader::new(source.clone());
        loader.request("broken/x");
        let outcome = wait_for(&mut loader, 1).remove(0);
        assert_eq!(outcome.result.unwrap_err(), "broken/x: not a glTF file");
        assert_eq!(loader.counters().failed, 1);
        assert_eq!(loader.request("broken/x"), Request::Done);
        assert_eq!(loader.reload("broken/x"), Request::Started);
        wait_for(&mut loader, 1);
    }
}

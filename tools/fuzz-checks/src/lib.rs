//! The checks behind the fuzz targets. Each function takes arbitrary bytes, feeds them
//! to one of sylva's input loaders and checks what comes out; an error is a fine answer
//! to bad bytes, while a panic, an abort, a hang or a runaway allocation is a bug.
//!
//! `fuzz/` runs these under libFuzzer (`fuzz/run.sh`); `tests/fuzz_corpus.rs` replays
//! every committed corpus file through them in the normal test suite, so a fixed crash
//! stays fixed without libFuzzer.

mod catalog;
mod entry;
mod export;
mod gltf;
mod lock;
mod preset;
mod session;

pub use catalog::catalog;
pub use entry::cache_entry;
pub use export::export_round_trip;
pub use gltf::gltf_import;
pub use lock::lockfile;
pub use preset::preset;
pub use session::session;

/// A check: arbitrary bytes in; returns, or panics on a bug.
pub type Check = fn(&[u8]);

/// The fuzz targets by name (the folder names under `fuzz/corpus/`) and their checks.
pub const TARGETS: [(&str, Check); 7] = [
    ("gltf_import", gltf_import),
    ("cache_entry", cache_entry),
    ("preset", preset),
    ("session", session),
    ("lockfile", lockfile),
    ("catalog", catalog),
    ("export_round_trip", export_round_trip),
];

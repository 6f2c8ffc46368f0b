//! What the test suites share.
//!
//! - [`kit_cache`]: the repository's `cache/`, the bake of the bundled `assets/`. The
//!   cache is not committed (`sylva.lock` is), so the first test that needs it bakes
//!   it, incrementally: a current cache costs one read of its entries.
//! - [`nginx`]: a real nginx WebDAV server for the remote cache's tests.
//! - [`copy_dir`]: a folder copied for a test that changes files.
//! - [`Xvfb`]: an X display for window tests.
//! - [`meadow_session`]: a journal painted around the meadow.

pub mod nginx;
mod session;
mod xvfb;

pub use session::meadow_session;
pub use xvfb::Xvfb;

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use sylva_bake::{bake_folder, BakeOptions};
use sylva_cache::CacheDir;

/// The repository root.
pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The repository's `cache/`, brought up to date with `assets/` once per process (the
/// same incremental bake as `sylva bake`, without writing the lockfile). Panics with
/// the asset's reason if any does not bake.
pub fn kit_cache() -> CacheDir {
    static BAKED: OnceLock<()> = OnceLock::new();
    let cache = CacheDir::new(repo().join("cache"));
    BAKED.get_or_init(|| {
        let report = bake_folder(&repo().join("assets"), &cache, &BakeOptions::default())
            .expect("the bundled assets folder bakes");
        assert_eq!(
            report.failed(),
            0,
            "a bundled asset does not bake: {report:?}"
        );
    });
    cache
}

/// Copies folder `from` to `to` (created), recursively.
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

//! The `--assets` and `--cache` options of every command that bakes or loads props.

use std::path::PathBuf;

use sylva_cache::CacheDir;

#[derive(clap::Args)]
pub struct Folders {
    /// The assets folder holding catalog.ron and the props.
    #[arg(long, default_value = "assets")]
    pub assets: PathBuf,
    /// The bake cache folder (committed: CI checks it with `sylva check`).
    #[arg(long, default_value = "cache")]
    pub cache: PathBuf,
}

impl Folders {
    pub fn cache_dir(&self) -> CacheDir {
        CacheDir::new(&self.cache)
    }
}

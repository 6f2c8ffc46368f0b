//! The `--assets` and `--cache` options of every command that bakes or loads props, and
//! the options of the commands that edit a session.

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

/// What `paint` and `fill` share: the assets folder a new session takes its catalog
/// from, where the journal goes, and the report's format.
#[derive(clap::Args)]
pub struct EditOutput {
    /// The assets folder holding catalog.ron and the props (for a new session).
    #[arg(long, default_value = "assets")]
    pub assets: PathBuf,
    /// Also write the session journal with this edit here.
    #[arg(long)]
    pub save: Option<PathBuf>,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
}

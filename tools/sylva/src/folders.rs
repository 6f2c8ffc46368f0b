//! The `--assets` and `--cache` options of every command that bakes or loads props, and
//! the options of the commands that edit a session.

use std::path::{Path, PathBuf};

use anyhow::{bail, Result};
use sylva_cache::{CacheDir, LOCK_FILE};
use sylva_remote::RemoteStore;

#[derive(clap::Args)]
pub struct Folders {
    /// The assets folder holding catalog.ron and the props.
    #[arg(long, default_value = "assets")]
    pub assets: PathBuf,
    /// The bake cache folder (not committed: `sylva.lock` records what it holds).
    #[arg(long, default_value = "cache")]
    pub cache: PathBuf,
}

impl Folders {
    pub fn cache_dir(&self) -> CacheDir {
        CacheDir::new(&self.cache)
    }
}

/// The lockfile of `assets` unless `lock` names one: `sylva.lock` in the folder that
/// holds the assets folder (the repository root for `assets/`).
pub fn lock_path(assets: &Path, lock: Option<&Path>) -> PathBuf {
    match lock {
        Some(lock) => lock.to_owned(),
        None => assets.parent().unwrap_or(Path::new("")).join(LOCK_FILE),
    }
}

/// The remote cache options of every command that bakes.
#[derive(clap::Args)]
pub struct Remote {
    /// A remote cache of baked entries: `http(s)://host/prefix` (WebDAV) or
    /// `s3://bucket/prefix`; default `$SYLVA_REMOTE_CACHE`. Credentials come from the
    /// environment only (`SYLVA_REMOTE_AUTHORIZATION`, `AWS_*`).
    #[arg(long, value_name = "URL")]
    pub remote: Option<String>,
    /// Also upload to the remote cache what it lacks (CI writes, artists read).
    #[arg(long)]
    pub remote_write: bool,
}

/// The options of `bake` and `watch`: the remote cache and the lockfile.
#[derive(clap::Args)]
pub struct Shared {
    #[command(flatten)]
    pub remote: Remote,
    /// The lockfile a whole bake rewrites when it changes [default: sylva.lock beside
    /// the assets folder].
    #[arg(long, value_name = "FILE")]
    pub lock: Option<PathBuf>,
}

impl Shared {
    pub fn lock_path(&self, assets: &Path) -> PathBuf {
        lock_path(assets, self.lock.as_deref())
    }
}

impl Remote {
    /// What a bake shares through: `store` (opened by [`Remote::open`]) and `lock`.
    pub fn sharing<'a>(
        &self,
        store: &'a Option<RemoteStore>,
        lock: Option<&'a Path>,
    ) -> sylva_bake::Sharing<'a> {
        sylva_bake::Sharing {
            remote: store.as_ref().map(|r| r as _),
            remote_write: self.remote_write,
            lock,
        }
    }

    /// The remote store named by `--remote` or the environment, if any.
    pub fn open(&self) -> Result<Option<RemoteStore>> {
        let store = sylva_remote::open_configured(self.remote.as_deref())?;
        if self.remote_write && store.is_none() {
            bail!(
                "--remote-write needs a remote cache: --remote URL or {}",
                sylva_remote::REMOTE_ENV
            );
        }
        Ok(store)
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

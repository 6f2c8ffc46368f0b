//! Verifying the lockfile: without any cache, every asset's sources and settings are
//! hashed and compared with its record (new, stale with the reason, gone); with a
//! cache folder or a remote store, every locked file must be there and hash right;
//! with `rebake`, every asset is baked afresh in memory and must produce exactly the
//! files the lockfile records (the bake is deterministic and the lock current).

use std::fmt;
use std::path::Path;

use rayon::prelude::*;
use sylva_cache::remote::{content_path, key_path};
use sylva_cache::{CacheDir, CacheKey, Hash, LockedAsset, LockedFile, Lockfile, ObjectStore};
use sylva_catalog::folder::read_snapshot;

use crate::asset::bake_asset;
use crate::folder::FolderError;
use crate::key::{key_of, settings_hash};
use crate::settings::BakeSettings;
use crate::source::{read_source, AssetError};

/// What changed since an asset was locked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Staleness {
    Source,
    Settings,
    SourceAndSettings,
    /// Sources and settings are as locked; the format or baker version is not.
    Versions,
}

impl Staleness {
    pub fn says(self) -> &'static str {
        match self {
            Staleness::Source => "its source changed",
            Staleness::Settings => "its settings changed",
            Staleness::SourceAndSettings => "its source and its settings changed",
            Staleness::Versions => "the baker or the cache format changed",
        }
    }
}

/// Something that keeps the lockfile from being the bake of the assets folder, or a
/// store from holding what it locks.
#[derive(Debug)]
pub enum LockFinding {
    /// An asset the lockfile does not list.
    New { path: String },
    /// An asset whose record does not match its sources, settings or versions.
    Stale { path: String, why: Staleness },
    /// A record whose asset is gone.
    Gone { path: String },
    /// An asset whose sources cannot be read.
    Unreadable { path: String, error: AssetError },
    /// A locked file missing from `place` (a cache folder or a remote store).
    Missing {
        path: String,
        file: String,
        place: String,
    },
    /// A locked file in `place` whose bytes are not the ones locked.
    Different {
        path: String,
        file: String,
        place: String,
    },
    /// The remote store failed; what it holds was not checked.
    Unreachable { place: String, reason: String },
    /// A fresh bake does not produce the locked file.
    Rebaked { path: String, file: String },
    /// A fresh bake failed.
    RebakeFailed { path: String, error: AssetError },
}

impl LockFinding {
    /// One word for scripts (`--json`'s `kind`).
    pub fn kind(&self) -> &'static str {
        match self {
            LockFinding::New { .. } => "new",
            LockFinding::Stale { .. } => "stale",
            LockFinding::Gone { .. } => "gone",
            LockFinding::Unreadable { .. } => "unreadable",
            LockFinding::Missing { .. } => "missing",
            LockFinding::Different { .. } => "different",
            LockFinding::Unreachable { .. } => "unreachable",
            LockFinding::Rebaked { .. } | LockFinding::RebakeFailed { .. } => "not reproduced",
        }
    }

    /// The asset the finding is about, when it is about one.
    pub fn path(&self) -> Option<&str> {
        match self {
            LockFinding::New { path }
            | LockFinding::Stale { path, .. }
            | LockFinding::Gone { path }
            | LockFinding::Unreadable { path, .. }
            | LockFinding::Missing { path, .. }
            | LockFinding::Different { path, .. }
            | LockFinding::Rebaked { path, .. }
            | LockFinding::RebakeFailed { path, .. } => Some(path),
            LockFinding::Unreachable { .. } => None,
        }
    }
}

impl fmt::Display for LockFinding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LockFinding::New { path } => write!(f, "new: {path} is not in the lockfile"),
            LockFinding::Stale { path, why } => {
                write!(f, "stale: {path}: {} since it was locked", why.says())
            }
            LockFinding::Gone { path } => {
                write!(
                    f,
                    "gone: the lockfile lists {path}, which is not in the assets"
                )
            }
            LockFinding::Unreadable { path, error } => write!(f, "unreadable: {path}: {error}"),
            LockFinding::Missing { path, file, place } => {
                write!(f, "missing: {path}'s {file} is not in {place}")
            }
            LockFinding::Different { path, file, place } => write!(
                f,
                "different: {path}'s {file} in {place} is not the file locked"
            ),
            LockFinding::Unreachable { place, reason } => {
                write!(f, "unreachable: {place}: {reason}")
            }
            LockFinding::Rebaked { path, file } => write!(
                f,
                "not reproduced: a fresh bake of {path} does not write the locked {file}"
            ),
            LockFinding::RebakeFailed { path, error } => {
                write!(f, "not reproduced: a fresh bake of {path} failed: {error}")
            }
        }
    }
}

/// Where else the locked files are checked.
#[derive(Default)]
pub struct LockCheck<'a> {
    /// A cache folder that must hold every locked file.
    pub cache: Option<&'a CacheDir>,
    /// A remote store that must hold every locked file and key record.
    pub remote: Option<&'a dyn ObjectStore>,
    /// Bake every asset afresh in memory and compare with the lock.
    pub rebake: bool,
}

/// Everything that keeps `lock` from being the bake of `assets` (and the stores
/// `check` names from holding it); empty when current.
pub fn check_lock(
    assets: &Path,
    lock: &Lockfile,
    check: &LockCheck<'_>,
) -> Result<Vec<LockFinding>, FolderError> {
    let snapshot = read_snapshot(assets)?;
    let (catalog, _) = snapshot.resolve()?;
    let mut findings: Vec<LockFinding> = catalog
        .props()
        .par_iter()
        .flat_map_iter(|prop| {
            let path = prop.file.clone();
            let category = &catalog.categories()[prop.category].name;
            let settings = BakeSettings::for_prop(&snapshot.file, category, &prop.id);
            let source = match read_source(assets, prop) {
                Ok(source) => source,
                Err(error) => return vec![LockFinding::Unreadable { path, error }],
            };
            let Some(locked) = lock.assets.get(&path) else {
                return vec![LockFinding::New { path }];
            };
            let (source_hash, settings_hash) = (source.source_hash(), settings_hash(&settings));
            let why = match (
                source_hash == locked.source,
                settings_hash == locked.settings,
            ) {
                (false, false) => Some(Staleness::SourceAndSettings),
                (false, true) => Some(Staleness::Source),
                (true, false) => Some(Staleness::Settings),
                (true, true) if Hash::from(key_of(source_hash, settings_hash)) != locked.key => {
                    Some(Staleness::Versions)
                }
                (true, true) => None,
            };
            if let Some(why) = why {
                return vec![LockFinding::Stale { path, why }];
            }
            let mut found = Vec::new();
            if let Some(cache) = check.cache {
                found.extend(in_cache(&path, locked, cache));
            }
            if check.rebake {
                found.extend(rebaked(&path, locked, || bake_asset(&source, &settings)));
            }
            found
        })
        .collect();
    for path in lock.assets.keys() {
        if !catalog.props().iter().any(|p| &p.file == path) {
            findings.push(LockFinding::Gone { path: path.clone() });
        }
    }
    if let Some(remote) = check.remote {
        findings.extend(on_remote(lock, remote));
    }
    Ok(findings)
}

/// The locked files `cache` lacks or holds other bytes for.
fn in_cache(path: &str, locked: &LockedAsset, cache: &CacheDir) -> Vec<LockFinding> {
    let place = cache.root().display().to_string();
    let textures = locked
        .textures
        .iter()
        .map(|t| (sylva_cache::TextureId(t.hash.0).file_name(), t));
    [(locked.entry_file(), &locked.entry)]
        .into_iter()
        .chain(textures)
        .filter_map(|(file, expected)| {
            let finding = |found: fn(String, String, String) -> LockFinding| {
                Some(found(path.to_owned(), file.clone(), place.clone()))
            };
            match cache.read_entry(&file) {
                Err(_) => finding(|path, file, place| LockFinding::Missing { path, file, place }),
                Ok(bytes) if !expected.matches(&bytes) => {
                    finding(|path, file, place| LockFinding::Different { path, file, place })
                }
                Ok(_) => None,
            }
        })
        .collect()
}

/// The locked files a fresh bake does not reproduce.
fn rebaked(
    path: &str,
    locked: &LockedAsset,
    bake: impl FnOnce() -> Result<(crate::BakedProp, crate::AssetReport), AssetError>,
) -> Vec<LockFinding> {
    let files = bake().and_then(|(baked, _)| Ok(baked.files()?));
    let files = match files {
        Ok(files) => files,
        Err(error) => {
            return vec![LockFinding::RebakeFailed {
                path: path.to_owned(),
                error,
            }]
        }
    };
    let mut found = Vec::new();
    if LockedFile::of(&files.entry) != locked.entry {
        found.push(LockFinding::Rebaked {
            path: path.to_owned(),
            file: locked.entry_file(),
        });
    }
    let fresh: Vec<LockedFile> = files.textures.iter().map(|t| LockedFile::of(t)).collect();
    if fresh != locked.textures {
        found.push(LockFinding::Rebaked {
            path: path.to_owned(),
            file: "texture blobs".into(),
        });
    }
    found
}

/// The locked files and key records `remote` lacks or holds other bytes for; one
/// `Unreachable` when it fails (nothing more is asked of it).
fn on_remote(lock: &Lockfile, remote: &dyn ObjectStore) -> Vec<LockFinding> {
    let place = remote.describe();
    let mut found = Vec::new();
    let mut asked = std::collections::BTreeSet::new();
    for (path, locked) in &lock.assets {
        let record = format!("{}\n", locked.entry.hash);
        let key = CacheKey(locked.key.0);
        let objects = [(key_path(key), None, record.as_bytes().to_vec())]
            .into_iter()
            .chain(
                [&locked.entry]
                    .into_iter()
                    .chain(&locked.textures)
                    .map(|file| (content_path(file.hash), Some(*file), Vec::new())),
            );
        for (object, file, record) in objects {
            if !asked.insert(object.clone()) {
                continue;
            }
            let answer = match remote.get(&object) {
                Ok(answer) => answer,
                Err(e) => {
                    found.push(LockFinding::Unreachable {
                        place,
                        reason: e.to_string(),
                    });
                    return found;
                }
            };
            let (path, place, file_name) = (path.clone(), place.clone(), object.clone());
            match answer {
                None => found.push(LockFinding::Missing {
                    path,
                    file: file_name,
                    place,
                }),
                Some(bytes) => {
                    let right = match file {
                        Some(file) => file.matches(&bytes),
                        None => bytes == record,
                    };
                    if !right {
                        found.push(LockFinding::Different {
                            path,
                            file: file_name,
                            place,
                        });
                    }
                }
            }
        }
    }
    found
}

//! Sharing baked entries through a remote content-addressed store, the way Bazel's
//! remote cache does: `cas/<BLAKE3>` holds files by the hash of their bytes (entries
//! and texture blobs), `ac/<key>` holds the hash of the entry a bake key produced.
//! Nothing fetched is trusted: every file's bytes must hash to the name it was asked
//! for (and to the lockfile's record where there is one) and the entry must parse,
//! before anything is written to the local cache. Uploads put the content first and
//! the `ac/` record last, so a reader never finds a record naming a missing file.
//!
//! The transport is behind [`ObjectStore`] (blocking calls); `sylva-remote` implements
//! it over HTTP WebDAV and S3. A [`RemotePass`] is one bake's use of the store: the
//! first transport failure (server down, refused, broken) turns the remote off for
//! the rest of that pass with one warning, so a bake never waits on a dead server
//! asset after asset.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;

use thiserror::Error;

use crate::format::{Entry, TextureId};
use crate::lock::{Hash, LockedAsset};
use crate::model::CacheKey;
use crate::prop::PropFiles;
use crate::store::CacheDir;

/// Prefix of every object sylva writes; bumped with the layout below it.
const LAYOUT: &str = "sylva/v1";

/// Why a remote call failed (a missing object is not a failure: it is `None`).
#[derive(Debug, Clone, PartialEq, Error)]
#[error("{location}: {reason}")]
pub struct RemoteError {
    /// The store and object, without credentials.
    pub location: String,
    pub reason: String,
}

/// A blocking object store: the few calls the shared cache needs.
pub trait ObjectStore: Send + Sync {
    /// The object's bytes; `Ok(None)` when it does not exist.
    fn get(&self, path: &str) -> Result<Option<Vec<u8>>, RemoteError>;
    /// Whether the object exists.
    fn exists(&self, path: &str) -> Result<bool, RemoteError>;
    /// Writes the object whole (a reader sees the old object, the new one, or none).
    fn put(&self, path: &str, bytes: &[u8]) -> Result<(), RemoteError>;
    /// Where the store is, for messages (never with credentials).
    fn describe(&self) -> String;
}

/// The object holding a file by its content hash.
pub fn content_path(hash: Hash) -> String {
    format!("{LAYOUT}/cas/{hash}")
}

/// The object holding the entry hash a bake key produced.
pub fn key_path(key: CacheKey) -> String {
    format!("{LAYOUT}/ac/{}", key.to_hex())
}

/// What a fetch found.
#[derive(Debug)]
pub enum Fetched {
    /// The entry and its blobs, every one verified.
    Files(PropFiles),
    /// The store does not hold this key (or a blob it needs).
    Absent,
    /// The store answered with something that is not what it was asked for (a
    /// flipped byte, a truncated file, a record that names another entry): refused,
    /// nothing kept.
    Refused { reason: String },
    /// The remote is off for this pass (it failed before, or just now).
    Unavailable,
}

/// One bake pass's use of a remote store: whether it may write, whether it has
/// failed, and what it did.
pub struct RemotePass<'a> {
    store: &'a dyn ObjectStore,
    write: bool,
    off: AtomicBool,
    warnings: Mutex<Vec<String>>,
    uploaded: AtomicUsize,
}

impl<'a> RemotePass<'a> {
    /// A pass over `store`; `write` allows uploads.
    pub fn new(store: &'a dyn ObjectStore, write: bool) -> Self {
        RemotePass {
            store,
            write,
            off: AtomicBool::new(false),
            warnings: Mutex::new(Vec::new()),
            uploaded: AtomicUsize::new(0),
        }
    }

    pub fn writes(&self) -> bool {
        self.write
    }

    pub fn describe(&self) -> String {
        self.store.describe()
    }

    /// Whether a failure turned the remote off for this pass.
    pub fn is_off(&self) -> bool {
        self.off.load(Ordering::Relaxed)
    }

    /// Files uploaded so far (entries, blobs and key records).
    pub fn uploaded(&self) -> usize {
        self.uploaded.load(Ordering::Relaxed)
    }

    /// The warnings of this pass: one per failure that turned the remote off.
    pub fn warnings(&self) -> Vec<String> {
        self.warnings
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// Turns the remote off for the rest of the pass; the first failure is the one
    /// reported.
    fn fail(&self, error: RemoteError, doing: &str) {
        if !self.off.swap(true, Ordering::Relaxed) {
            self.warnings
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push(format!(
                    "remote cache {}: {doing} failed ({error}); going on without it",
                    self.store.describe()
                ));
        }
    }

    fn get(&self, path: &str) -> Result<Option<Vec<u8>>, ()> {
        if self.is_off() {
            return Err(());
        }
        self.store.get(path).map_err(|e| self.fail(e, "a download"))
    }

    /// The bake of `key`, verified: the entry's hash is `locked`'s when the lockfile
    /// records this key, else the one the store's `ac/` record names; each blob the
    /// entry names comes from `local` when it holds the right bytes, else from the
    /// store, and must hash to its name. Nothing is written anywhere.
    pub fn fetch(&self, key: CacheKey, locked: Option<&LockedAsset>, local: &CacheDir) -> Fetched {
        let locked = locked.filter(|l| l.key == Hash::from(key));
        let entry_hash = match locked {
            Some(locked) => locked.entry.hash,
            None => match self.get(&key_path(key)) {
                Err(()) => return Fetched::Unavailable,
                Ok(None) => return Fetched::Absent,
                Ok(Some(record)) => {
                    let text = String::from_utf8_lossy(&record);
                    match Hash::from_hex(text.trim()) {
                        Some(hash) => hash,
                        None => {
                            return Fetched::Refused {
                                reason: format!("its key record {} is not a hash", key_path(key)),
                            }
                        }
                    }
                }
            },
        };
        let entry = match self.get(&content_path(entry_hash)) {
            Err(()) => return Fetched::Unavailable,
            Ok(None) => return Fetched::Absent,
            Ok(Some(bytes)) => bytes,
        };
        if Hash::of(&entry) != entry_hash {
            return Fetched::Refused {
                reason: format!(
                    "the entry {} ({} bytes) does not hash to its name",
                    content_path(entry_hash),
                    entry.len()
                ),
            };
        }
        let ids = match Entry::parse(&entry) {
            Ok(parsed) => parsed.textures,
            Err(e) => {
                return Fetched::Refused {
                    reason: format!("the entry {} does not parse: {e}", content_path(entry_hash)),
                }
            }
        };
        if let Some(locked) = locked {
            let listed: Vec<Hash> = locked.textures.iter().map(|t| t.hash).collect();
            let named: Vec<Hash> = ids.iter().map(|&id| Hash::from(id)).collect();
            if listed != named {
                return Fetched::Refused {
                    reason: "the entry names other texture blobs than the lockfile".into(),
                };
            }
        }
        let mut textures = Vec::with_capacity(ids.len());
        for id in ids {
            if let Ok(bytes) = local.read_texture(id) {
                if TextureId::of(&bytes) == id {
                    textures.push(bytes);
                    continue;
                }
            }
            let path = content_path(id.into());
            match self.get(&path) {
                Err(()) => return Fetched::Unavailable,
                Ok(None) => return Fetched::Absent,
                Ok(Some(bytes)) if TextureId::of(&bytes) != id => {
                    return Fetched::Refused {
                        reason: format!(
                            "the texture blob {path} ({} bytes) does not hash to its name",
                            bytes.len()
                        ),
                    }
                }
                Ok(Some(bytes)) => textures.push(bytes),
            }
        }
        Fetched::Files(PropFiles { entry, textures })
    }

    /// Uploads the bake of `key` unless this pass only reads or the store has its key
    /// record already: blobs and entry first (each unless present), the key record last. `replace` re-sends objects the store already has (after a
    /// fetch refused them: the store holds bad bytes under a good name). Returns
    /// whether everything was uploaded; a failure turns the remote off with a warning.
    pub fn upload(&self, key: CacheKey, files: &PropFiles, replace: bool) -> bool {
        if !self.write || self.is_off() {
            return false;
        }
        if !replace {
            match self.store.exists(&key_path(key)) {
                Ok(true) => return true,
                Ok(false) => {}
                Err(e) => {
                    self.fail(e, "an upload");
                    return false;
                }
            }
        }
        let entry_hash = Hash::of(&files.entry);
        let contents = files
            .textures
            .iter()
            .map(|t| (content_path(Hash::of(t)), t.as_slice()))
            .chain([(content_path(entry_hash), files.entry.as_slice())]);
        for (path, bytes) in contents {
            let present = !replace
                && match self.store.exists(&path) {
                    Ok(present) => present,
                    Err(e) => {
                        self.fail(e, "an upload");
                        return false;
                    }
                };
            if !present && !self.put(&path, bytes) {
                return false;
            }
        }
        self.put(&key_path(key), format!("{entry_hash}\n").as_bytes())
    }

    fn put(&self, path: &str, bytes: &[u8]) -> bool {
        if self.is_off() {
            return false;
        }
        match self.store.put(path, bytes) {
            Ok(()) => {
                self.uploaded.fetch_add(1, Ordering::Relaxed);
                true
            }
            Err(e) => {
                self.fail(e, "an upload");
                false
            }
        }
    }
}

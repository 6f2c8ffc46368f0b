//! `sylva.lock`: the committed record of a bake. Per asset it holds what the entry
//! depends on (the hashes of its sources and of its settings, and the format and baker
//! versions) and what the bake produced (the BLAKE3 hash and size of the entry and of
//! every texture blob it names). It is small, sorted by asset path and written the
//! same way by every bake, so a review shows exactly which assets a change re-baked,
//! and `sylva check` can say what is stale without any cache on disk.

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::format::{TextureId, FORMAT_VERSION, TEXTURE_FORMAT_VERSION};
use crate::model::CacheKey;

/// The lockfile's name, in the folder that holds the assets folder.
pub const LOCK_FILE: &str = "sylva.lock";
/// Bumped when the lockfile's shape changes.
pub const LOCK_VERSION: u32 = 1;

/// The versions an entry's bytes depend on besides its sources and settings.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Versions {
    /// The entry file format.
    pub format: u32,
    /// The texture blob format.
    pub texture_format: u32,
    /// The baker's own version (its stages and their parameters).
    pub baker: u32,
}

impl Versions {
    /// This build's versions, given the baker's.
    pub fn current(baker: u32) -> Self {
        Versions {
            format: FORMAT_VERSION,
            texture_format: TEXTURE_FORMAT_VERSION,
            baker,
        }
    }
}

/// A 32-byte BLAKE3 hash, written as 64 lowercase hex digits.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Hash(pub [u8; 32]);

impl Hash {
    pub fn of(bytes: &[u8]) -> Self {
        Hash(*blake3::hash(bytes).as_bytes())
    }

    pub fn to_hex(&self) -> String {
        self.0.iter().map(|b| format!("{b:02x}")).collect()
    }

    /// Parses 64 hex digits (either case); anything else is `None`.
    pub fn from_hex(text: &str) -> Option<Self> {
        let text = text.as_bytes();
        if text.len() != 64 {
            return None;
        }
        let mut out = [0u8; 32];
        for (byte, pair) in out.iter_mut().zip(text.chunks_exact(2)) {
            let digit = |c: u8| (c as char).to_digit(16);
            *byte = (digit(pair[0])? * 16 + digit(pair[1])?) as u8;
        }
        Some(Hash(out))
    }
}

impl fmt::Debug for Hash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_hex())
    }
}

impl fmt::Display for Hash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_hex())
    }
}

impl From<CacheKey> for Hash {
    fn from(key: CacheKey) -> Self {
        Hash(key.0)
    }
}

impl From<TextureId> for Hash {
    fn from(id: TextureId) -> Self {
        Hash(id.0)
    }
}

impl Serialize for Hash {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_hex())
    }
}

impl<'de> Deserialize<'de> for Hash {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        Hash::from_hex(&text).ok_or_else(|| {
            serde::de::Error::custom(format!("`{text}` is not a hash of 64 hex digits"))
        })
    }
}

/// A file the bake produced: its content hash and size.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LockedFile {
    pub hash: Hash,
    pub bytes: u64,
}

impl LockedFile {
    pub fn of(bytes: &[u8]) -> Self {
        LockedFile {
            hash: Hash::of(bytes),
            bytes: bytes.len() as u64,
        }
    }

    /// Whether `bytes` are this file.
    pub fn matches(&self, bytes: &[u8]) -> bool {
        bytes.len() as u64 == self.bytes && Hash::of(bytes) == self.hash
    }
}

/// One asset's line in the lockfile.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LockedAsset {
    /// `<category>/<file stem>`.
    pub prop: String,
    /// BLAKE3 of the prop id, the asset's path and bytes and every file beside it
    /// that it reads.
    pub source: Hash,
    /// BLAKE3 of the bake settings the catalog gives the prop.
    pub settings: Hash,
    /// The content key (source, settings and versions): the entry is `<key>.sylva`.
    pub key: Hash,
    pub entry: LockedFile,
    /// The texture blobs the entry names, in its order (`<hash>.sylvatex`).
    pub textures: Vec<LockedFile>,
}

impl LockedAsset {
    /// The entry's file name in a cache folder.
    pub fn entry_file(&self) -> String {
        CacheKey(self.key.0).file_name()
    }
}

/// The whole lockfile.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Lockfile {
    pub version: u32,
    pub versions: Versions,
    /// Asset path relative to the assets folder → what its bake depends on and made.
    pub assets: BTreeMap<String, LockedAsset>,
}

#[derive(Debug, Clone, PartialEq, Error)]
#[error("lockfile: {message}")]
pub struct LockError {
    pub message: String,
}

impl Lockfile {
    pub fn new(versions: Versions) -> Self {
        Lockfile {
            version: LOCK_VERSION,
            versions,
            assets: BTreeMap::new(),
        }
    }

    pub fn parse(text: &str) -> Result<Self, LockError> {
        let lock: Lockfile = ron::from_str(text).map_err(|e| LockError {
            message: e.to_string(),
        })?;
        if lock.version != LOCK_VERSION {
            return Err(LockError {
                message: format!("version {} where {LOCK_VERSION} is expected", lock.version),
            });
        }
        Ok(lock)
    }

    /// The text every bake writes: one field a line, assets sorted by path, so two
    /// bakes of the same assets write the same bytes and a diff names what changed.
    pub fn to_ron(&self) -> String {
        let config = ron::ser::PrettyConfig::new()
            .indentor("  ".to_owned())
            .depth_limit(4);
        let mut text = ron::ser::to_string_pretty(self, config)
            .expect("the lockfile holds only strings, numbers, lists and maps");
        text.push('\n');
        text
    }

    /// The lock's entry files, texture blob files and their sizes, each once.
    pub fn files(&self) -> BTreeMap<String, LockedFile> {
        let mut files = BTreeMap::new();
        for asset in self.assets.values() {
            files.insert(asset.entry_file(), asset.entry);
            for texture in &asset.textures {
                files.insert(TextureId(texture.hash.0).file_name(), *texture);
            }
        }
        files
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Lockfile {
        let mut lock = Lockfile::new(Versions::current(7));
        lock.assets.insert(
            "rock/a.glb".into(),
            LockedAsset {
                prop: "rock/a".into(),
                source: Hash::of(b"source"),
                settings: Hash::of(b"settings"),
                key: Hash::of(b"key"),
                entry: LockedFile::of(b"entry"),
                textures: vec![LockedFile::of(b"blob")],
            },
        );
        lock
    }

    #[test]
    fn round_trips_through_its_text() {
        let lock = sample();
        let text = lock.to_ron();
        assert_eq!(Lockfile::parse(&text).unwrap(), lock);
        assert_eq!(text, Lockfile::parse(&text).unwrap().to_ron());
        assert!(text.contains(&Hash::of(b"entry").to_hex()));
    }

    #[test]
    fn a_malformed_hash_an_unknown_field_or_version_is_refused() {
        let text = sample().to_ron();
        let short = text.replacen(&Hash::of(b"source").to_hex(), "abc", 1);
        assert!(Lockfile::parse(&short)
            .unwrap_err()
            .message
            .contains("64 hex digits"));
        let version = text.replacen("version: 1", "version: 2", 1);
        assert!(Lockfile::parse(&version)
            .unwrap_err()
            .message
            .contains("version 2"));
        let extra = text.replacen("prop:", "colour: 3, prop:", 1);
        assert!(Lockfile::parse(&extra).is_err());
    }

    #[test]
    fn hashes_parse_back_from_hex() {
        let hash = Hash::of(b"x");
        assert_eq!(Hash::from_hex(&hash.to_hex()), Some(hash));
        assert_eq!(Hash::from_hex(&hash.to_hex().to_uppercase()), Some(hash));
        assert_eq!(Hash::from_hex("zz"), None);
        assert_eq!(Hash::from_hex(&"g".repeat(64)), None);
    }

    #[test]
    fn files_match_only_their_own_bytes() {
        let file = LockedFile::of(b"entry");
        assert!(file.matches(b"entry"));
        assert!(!file.matches(b"entrx"));
        assert!(!file.matches(b"entr"));
    }
}

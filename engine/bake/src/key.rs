//! Cache keys: what an entry's bytes depend on, hashed.

use sylva_cache::{CacheKey, Hash, Versions, FORMAT_VERSION, TEXTURE_FORMAT_VERSION};

use crate::settings::BakeSettings;

/// Bumped whenever the baker's output for the same input and settings changes (a new
/// stage, a different meshoptimizer, a fixed bug), so every entry re-bakes.
pub const BAKER_VERSION: u32 = 16;

/// An asset's source: its file and the files beside it that it reads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AssetSource {
    /// `<category>/<file stem>`.
    pub prop_id: String,
    /// Relative to the assets folder, `/`-separated.
    pub path: String,
    pub bytes: Vec<u8>,
    /// (path relative to the asset's own folder as the file names it, bytes).
    pub externals: Vec<(String, Vec<u8>)>,
}

impl AssetSource {
    /// BLAKE3 over the prop id and path and every source byte (each piece
    /// length-prefixed): what the lockfile records as the asset's source.
    pub fn source_hash(&self) -> Hash {
        let mut h = blake3::Hasher::new();
        h.update(b"sylva asset source");
        for piece in [self.prop_id.as_bytes(), self.path.as_bytes(), &self.bytes] {
            prefixed(&mut h, piece);
        }
        h.update(&(self.externals.len() as u64).to_le_bytes());
        for (name, bytes) in &self.externals {
            prefixed(&mut h, name.as_bytes());
            prefixed(&mut h, bytes);
        }
        Hash(*h.finalize().as_bytes())
    }

    /// The content key: the format and baker versions, [`AssetSource::source_hash`]
    /// and [`settings_hash`]. An entry is named after it.
    pub fn key(&self, settings: &BakeSettings) -> CacheKey {
        key_of(self.source_hash(), settings_hash(settings))
    }
}

/// BLAKE3 over every bake setting: what the lockfile records as the asset's settings.
pub fn settings_hash(settings: &BakeSettings) -> Hash {
    let mut h = blake3::Hasher::new();
    h.update(b"sylva bake settings");
    settings.hash_into(&mut h);
    Hash(*h.finalize().as_bytes())
}

/// The key of a source and settings at this build's versions.
pub fn key_of(source: Hash, settings: Hash) -> CacheKey {
    let mut h = blake3::Hasher::new();
    h.update(b"sylva bake key");
    h.update(&FORMAT_VERSION.to_le_bytes());
    h.update(&TEXTURE_FORMAT_VERSION.to_le_bytes());
    h.update(&BAKER_VERSION.to_le_bytes());
    h.update(&source.0);
    h.update(&settings.0);
    CacheKey(*h.finalize().as_bytes())
}

/// This build's versions, as the lockfile records them.
pub fn versions() -> Versions {
    Versions::current(BAKER_VERSION)
}

fn prefixed(h: &mut blake3::Hasher, bytes: &[u8]) {
    h.update(&(bytes.len() as u64).to_le_bytes());
    h.update(bytes);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_input_changes_the_key() {
        let source = AssetSource {
            prop_id: "rock/a".into(),
            path: "rock/a.gltf".into(),
            bytes: b"{}".to_vec(),
            externals: vec![("a.bin".into(), vec![1, 2])],
        };
        let settings = BakeSettings::default();
        let key = source.key(&settings);
        assert_eq!(key, source.clone().key(&settings));
        let mut external = source.clone();
        external.externals[0].1[0] = 9;
        let mut path = source.clone();
        path.path = "rock/b.gltf".into();
        let lock = BakeSettings {
            lock_border: crate::settings::Borders::Free,
            ..BakeSettings::default()
        };
        assert_eq!(
            external.key(&settings),
            key_of(external.source_hash(), settings_hash(&settings))
        );
        assert_ne!(external.source_hash(), source.source_hash());
        assert_ne!(settings_hash(&lock), settings_hash(&settings));
        for other in [
            external.key(&settings),
            path.key(&settings),
            source.key(&lock),
        ] {
            assert_ne!(other, key);
        }
    }
}

//! `manifest.ron`: which entry holds each asset's bake, for the runtime's lookups and
//! hot reload. Sorted by asset path, so the same bake writes the same text.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::file_name::is_plain_file_name;

/// The manifest's file name inside the cache folder.
pub const MANIFEST_FILE: &str = "manifest.ron";
/// Bumped when the manifest's shape changes.
pub const MANIFEST_VERSION: u32 = 1;

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    pub version: u32,
    /// Asset path relative to the assets folder (`conifer/pine.glb`) → its entry.
    pub assets: BTreeMap<String, ManifestEntry>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ManifestEntry {
    /// `<category>/<file stem>`.
    pub prop: String,
    /// The entry file inside the cache folder (`<key>.sylva`).
    pub entry: String,
    /// Hex of the content key: source bytes, bake settings, format and baker versions.
    pub key: String,
    /// Starts at 1 and increments each time the asset's baked content changes; the
    /// runtime swaps geometry in place when it sees a new revision.
    pub revision: u64,
    /// Files beside the asset it reads (external buffers and images), relative to
    /// the assets folder.
    pub sources: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Error)]
#[error("manifest: {message}")]
pub struct ManifestError {
    pub message: String,
}

impl Manifest {
    pub fn new() -> Self {
        Manifest {
            version: MANIFEST_VERSION,
            assets: BTreeMap::new(),
        }
    }

    pub fn parse(text: &str) -> Result<Self, ManifestError> {
        let manifest: Manifest = ron::from_str(text).map_err(|e| ManifestError {
            message: e.to_string(),
        })?;
        if manifest.version != MANIFEST_VERSION {
            return Err(ManifestError {
                message: format!(
                    "version {} where {MANIFEST_VERSION} is expected",
                    manifest.version
                ),
            });
        }
        if let Some((path, entry)) = manifest
            .assets
            .iter()
            .find(|(_, e)| !is_plain_file_name(&e.entry))
        {
            return Err(ManifestError {
                message: format!(
                    "assets[{path:?}].entry: `{}` is not a file name inside the cache folder",
                    entry.entry
                ),
            });
        }
        Ok(manifest)
    }

    pub fn to_ron(&self) -> String {
        let config = ron::ser::PrettyConfig::new().indentor("  ".to_owned());
        let mut text = ron::ser::to_string_pretty(self, config)
            .expect("the manifest holds only strings, numbers and maps");
        text.push('\n');
        text
    }

    /// The entry of prop `id` and its asset path.
    pub fn prop(&self, id: &str) -> Option<(&str, &ManifestEntry)> {
        self.assets
            .iter()
            .find(|(_, e)| e.prop == id)
            .map(|(path, e)| (path.as_str(), e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_finds_props() {
        let mut m = Manifest::new();
        m.assets.insert(
            "rock/a.glb".into(),
            ManifestEntry {
                prop: "rock/a".into(),
                entry: "00ff.sylva".into(),
                key: "00ff".into(),
                revision: 3,
                sources: vec!["rock/a.bin".into()],
            },
        );
        let text = m.to_ron();
        assert_eq!(Manifest::parse(&text).unwrap(), m);
        assert_eq!(m.prop("rock/a").unwrap().0, "rock/a.glb");
        assert!(m.prop("rock/b").is_none());
    }

    #[test]
    fn unknown_fields_and_versions_are_refused() {
        assert!(Manifest::parse("(version: 1, assets: {}, extra: 2)").is_err());
        assert!(Manifest::parse("(version: 9, assets: {})").is_err());
    }

    #[test]
    fn an_entry_name_leaving_the_cache_folder_is_refused() {
        for name in ["../../etc/passwd", "/etc/passwd", "sub/x.sylva", ".."] {
            let text = format!(
                r#"(version: 1, assets: {{ "a.glb": (prop: "rock/a", entry: "{name}", key: "00", revision: 1, sources: []) }})"#
            );
            let err = Manifest::parse(&text).unwrap_err();
            assert!(err.message.contains("not a file name"), "{name}: {err}");
        }
    }
}

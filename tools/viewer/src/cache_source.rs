//! The viewer's [`PropSource`]: a prop's entry and texture blobs in the bake cache,
//! baked on the spot (and written to the cache) when the cache has no intact entry (or
//! blob) for the prop's current content. Runs on the loader's worker thread, never on the frame's.
//!
//! It never writes the manifest: that stays the baker's (`sylva bake`, or the watcher
//! the viewer runs with `--watch`). Entries are named by their content key, so an
//! entry the watcher writes at the same time has the same bytes, and both writes are
//! atomic. The revision of content the manifest does not know yet is the manifest's
//! revision plus one, which is what the next bake pass records.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use sylva_bake::{bake_asset, keep_fetched, read_source, BakeSettings};
use sylva_cache::{CacheDir, Fetched, RemotePass};
use sylva_catalog::folder::read_snapshot;
use sylva_remote::RemoteStore;

use crate::loader::{LoadedProp, PropSource};

pub struct CacheSource {
    assets: PathBuf,
    cache: CacheDir,
    remote: Option<Arc<RemoteStore>>,
}

impl CacheSource {
    pub fn new(assets: &Path, cache: &Path) -> Self {
        Self {
            assets: assets.to_owned(),
            cache: CacheDir::new(cache),
            remote: None,
        }
    }

    /// Fetches from `remote` (verified, read only) what the cache lacks before baking.
    pub fn with_remote(self, remote: Option<Arc<RemoteStore>>) -> Self {
        Self { remote, ..self }
    }

    /// The prop's files from the remote cache, kept in the local one; `None` when the
    /// remote has no good copy (or is unreachable).
    fn fetch(&self, key: sylva_cache::CacheKey, name: &str) -> Option<sylva_cache::PropFiles> {
        let remote = self.remote.as_deref()?;
        match RemotePass::new(remote, false).fetch(key, None, &self.cache) {
            Fetched::Files(files) => keep_fetched(&self.cache, name, &files)
                .is_ok()
                .then_some(files),
            _ => None,
        }
    }
}

impl PropSource for CacheSource {
    fn load(&self, id: &str) -> Result<LoadedProp, String> {
        // The folder as it is now: a prop added while the viewer runs is found.
        let snapshot = read_snapshot(&self.assets).map_err(|e| e.to_string())?;
        let (catalog, _) = snapshot.resolve().map_err(|e| e.to_string())?;
        let prop = catalog
            .prop(id)
            .ok_or_else(|| format!("{id}: no such prop in {}", self.assets.display()))?;
        let category = &catalog.categories()[prop.category].name;
        let settings = BakeSettings::for_prop(&snapshot.file, category, id);
        let source = read_source(&self.assets, prop).map_err(|e| e.to_string())?;
        let key = source.key(&settings);
        let name = key.file_name();
        let cached = self
            .cache
            .read_prop(&name)
            .ok()
            .filter(|files| files.parse().is_ok());
        let (files, baked) = match cached.or_else(|| self.fetch(key, &name)) {
            Some(files) => (files, false),
            None => {
                let (baked, _) =
                    bake_asset(&source, &settings).map_err(|e| format!("{}: {e}", prop.file))?;
                let files = baked.files().map_err(|e| format!("{}: {e}", prop.file))?;
                baked
                    .write(&self.cache, &name, &files.entry)
                    .map_err(|e| e.to_string())?;
                (files, true)
            }
        };
        let manifest = self.cache.read_manifest().unwrap_or_default();
        let revision = match manifest.prop(id) {
            Some((_, known)) if known.key == key.to_hex() => known.revision,
            Some((_, known)) => known.revision + 1,
            None => 1,
        };
        Ok(LoadedProp {
            entry: name,
            revision,
            baked,
            files,
        })
    }
}

#[cfg(test)]
mod tests {
    use std::fs;

    use super::*;

    fn repo() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
    }

    #[test]
    fn a_current_entry_is_read_from_the_kit_cache() {
        let kit = sylva_testkit::kit_cache();
        let source = CacheSource::new(&repo().join("assets"), kit.root());
        let oak = source.load("broadleaf/oak_wide").unwrap();
        assert!(!oak.baked, "the kit cache is current");
        let entry = sylva_cache::Entry::parse(&oak.files.entry).unwrap();
        assert_eq!(entry.parts.len(), 2, "trunk and leaves");
        assert!(
            entry.parts.iter().all(|p| p.levels.len() >= 3),
            "LOD chains"
        );
        let manifest = kit.read_manifest().unwrap();
        let (_, known) = manifest.prop("broadleaf/oak_wide").unwrap();
        assert_eq!(
            (oak.entry.as_str(), oak.revision),
            (known.entry.as_str(), known.revision)
        );
    }

    #[test]
    fn a_prop_missing_from_the_cache_is_baked_and_its_entry_written() {
        let cache = tempfile::tempdir().unwrap();
        let source = CacheSource::new(&repo().join("assets"), cache.path());
        let rock = source.load("rock/slab_flat").unwrap();
        assert!(rock.baked);
        assert_eq!(rock.revision, 1);
        assert_eq!(
            fs::read(cache.path().join(&rock.entry)).unwrap(),
            rock.files.entry
        );
        let again = source.load("rock/slab_flat").unwrap();
        assert!(
            !again.baked,
            "the second load reads the entry the first wrote"
        );
    }

    #[test]
    fn unknown_and_broken_props_are_clear_errors() {
        let dir = tempfile::tempdir().unwrap();
        let assets = dir.path().join("assets");
        fs::create_dir_all(assets.join("rock")).unwrap();
        fs::write(
            assets.join("catalog.ron"),
            r#"(categories: { "rock": (family: "rock") })"#,
        )
        .unwrap();
        fs::write(assets.join("rock/bad.glb"), b"not a glb").unwrap();
        let source = CacheSource::new(&assets, &dir.path().join("cache"));
        let missing = source.load("rock/none").unwrap_err();
        assert!(missing.contains("rock/none: no such prop"), "{missing}");
        let broken = source.load("rock/bad").unwrap_err();
        assert!(broken.contains("rock/bad.glb"), "{broken}");
    }
}

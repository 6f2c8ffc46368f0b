//! Verifying a committed bake for CI: every asset is baked afresh in memory and its
//! entry must be in the manifest under the current key and equal byte for byte, and so
//! must every texture blob it names.

use std::collections::BTreeSet;
use std::fmt;
use std::path::Path;
use std::sync::Mutex;

use rayon::prelude::*;
use sylva_cache::CacheDir;
use sylva_catalog::folder::read_snapshot;

use crate::asset::bake_asset;
use crate::folder::{textures_named, FolderError};
use crate::settings::BakeSettings;
use crate::source::{read_source, source_files, AssetError};

/// Something that makes the cache not current.
#[derive(Debug)]
pub enum Finding {
    /// An asset the manifest does not list.
    Missing { path: String },
    /// The manifest lists the asset under another key (other content or settings) or
    /// with other sources.
    Stale { path: String },
    /// The manifest's entry file is not there.
    EntryMissing { path: String, entry: String },
    /// The entry file's bytes are not what a fresh bake writes.
    Different { path: String, entry: String },
    /// A texture blob the asset's entry names is not there.
    TextureMissing { path: String, texture: String },
    /// A texture blob's bytes are not what a fresh bake writes.
    TextureDifferent { path: String, texture: String },
    /// The asset does not bake at all.
    Failed { path: String, error: AssetError },
    /// The manifest lists an asset that is gone.
    Orphaned { path: String },
    /// An entry file no manifest line refers to, or a texture blob no listed entry names.
    Unreferenced { entry: String },
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Finding::Missing { path } => write!(f, "missing: {path} is not in the manifest"),
            Finding::Stale { path } => write!(
                f,
                "stale: {path} changed since it was baked (or its settings did)"
            ),
            Finding::EntryMissing { path, entry } => {
                write!(f, "missing: {path}'s entry {entry} is not in the cache")
            }
            Finding::Different { path, entry } => write!(
                f,
                "different: {path}'s entry {entry} is not what a fresh bake writes"
            ),
            Finding::TextureMissing { path, texture } => {
                write!(f, "missing: {path}'s texture {texture} is not in the cache")
            }
            Finding::TextureDifferent { path, texture } => write!(
                f,
                "different: {path}'s texture {texture} is not what a fresh bake writes"
            ),
            Finding::Failed { path, error } => write!(f, "failed: {path}: {error}"),
            Finding::Orphaned { path } => {
                write!(f, "orphaned: the manifest lists {path}, which is gone")
            }
            Finding::Unreferenced { entry } => {
                write!(f, "unreferenced: {entry} belongs to no asset")
            }
        }
    }
}

/// Everything that keeps `cache` from being the bake of `assets`; empty when current.
pub fn check_folder(assets: &Path, cache: &CacheDir) -> Result<Vec<Finding>, FolderError> {
    let snapshot = read_snapshot(assets)?;
    let (catalog, _) = snapshot.resolve()?;
    let manifest = cache.read_manifest()?;
    // The blobs the fresh bakes name: a corrupt entry on disk cannot say which are its.
    let fresh_names = Mutex::new(BTreeSet::new());
    let mut findings: Vec<Finding> = catalog
        .props()
        .par_iter()
        .filter_map(|prop| {
            let path = prop.file.clone();
            let category = &catalog.categories()[prop.category].name;
            let settings = BakeSettings::for_prop(&snapshot.file, category, &prop.id);
            let fresh = read_source(assets, prop).and_then(|source| {
                let (baked, _) = bake_asset(&source, &settings)?;
                Ok((
                    source.key(&settings),
                    source_files(&source),
                    baked.files()?.entry,
                    baked.textures,
                ))
            });
            let (key, sources, bytes, textures) = match fresh {
                Ok(fresh) => fresh,
                Err(error) => return Some(Finding::Failed { path, error }),
            };
            fresh_names
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .extend(textures.iter().map(|t| t.id.file_name()));
            let Some(listed) = manifest.assets.get(&path) else {
                return Some(Finding::Missing { path });
            };
            if listed.key != key.to_hex()
                || listed.entry != key.file_name()
                || listed.sources != sources
                || *listed.prop != *prop.id
            {
                return Some(Finding::Stale { path });
            }
            match cache.read_entry(&listed.entry) {
                Err(_) => Some(Finding::EntryMissing {
                    path,
                    entry: listed.entry.clone(),
                }),
                Ok(on_disk) if on_disk != bytes => Some(Finding::Different {
                    path,
                    entry: listed.entry.clone(),
                }),
                Ok(_) => textures.into_iter().find_map(|texture| {
                    let name = texture.id.file_name();
                    match cache.read_texture(texture.id) {
                        Err(_) => Some(Finding::TextureMissing {
                            path: path.clone(),
                            texture: name,
                        }),
                        Ok(on_disk) if on_disk != texture.bytes => {
                            Some(Finding::TextureDifferent {
                                path: path.clone(),
                                texture: name,
                            })
                        }
                        Ok(_) => None,
                    }
                }),
            }
        })
        .collect();
    for path in manifest.assets.keys() {
        if !catalog.props().iter().any(|p| &p.file == path) {
            findings.push(Finding::Orphaned { path: path.clone() });
        }
    }
    for entry in cache.entry_files()? {
        if !manifest.assets.values().any(|e| e.entry == entry) {
            findings.push(Finding::Unreferenced { entry });
        }
    }
    let mut named = textures_named(cache, &manifest);
    named.extend(fresh_names.into_inner().unwrap_or_else(|e| e.into_inner()));
    for entry in cache.texture_files()? {
        if !named.contains(&entry) {
            findings.push(Finding::Unreferenced { entry });
        }
    }
    Ok(findings)
}

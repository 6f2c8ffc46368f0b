//! Reading an asset and the files it names from the assets folder.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use sylva_cache::FormatError;
use sylva_catalog::Prop;
use sylva_import::{external_files, ImportError};
use thiserror::Error;

use crate::key::AssetSource;

/// Why one asset did not bake.
#[derive(Debug, Error)]
pub enum AssetError {
    #[error("reading {path}: {source}")]
    Read { path: PathBuf, source: io::Error },
    #[error(transparent)]
    Import(#[from] ImportError),
    #[error("encoding the entry: {0}")]
    Format(#[from] FormatError),
    #[error(transparent)]
    Store(#[from] sylva_cache::StoreError),
}

/// Reads `prop`'s file and every external file it names (relative to its folder).
/// Fails only when a file cannot be read.
pub fn read_source(assets: &Path, prop: &Prop) -> Result<AssetSource, AssetError> {
    let read = |path: PathBuf| fs::read(&path).map_err(|source| AssetError::Read { path, source });
    let file = assets.join(&prop.file);
    let bytes = read(file.clone())?;
    let folder = file.parent().unwrap_or(assets);
    // A document that does not parse names no files; importing it reports why.
    let names = external_files(&bytes).unwrap_or_default();
    let externals = names
        .into_iter()
        .map(|name| Ok((name.clone(), read(folder.join(&name))?)))
        .collect::<Result<_, AssetError>>()?;
    Ok(AssetSource {
        prop_id: prop.id.to_string(),
        path: prop.file.clone(),
        bytes,
        externals,
    })
}

/// The external files of `source` relative to the assets folder, for the manifest.
pub fn source_files(source: &AssetSource) -> Vec<String> {
    let folder = source
        .path
        .rsplit_once('/')
        .map_or("", |(folder, _)| folder);
    source
        .externals
        .iter()
        .map(|(name, _)| match folder {
            "" => name.clone(),
            f => format!("{f}/{name}"),
        })
        .collect()
}

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
    #[error("refusing {path}: it resolves to {resolved}, outside {folder}")]
    OutsideFolder {
        path: PathBuf,
        resolved: PathBuf,
        folder: PathBuf,
    },
    #[error("refusing {path}: not a regular file")]
    NotAFile { path: PathBuf },
    #[error(transparent)]
    Import(#[from] ImportError),
    #[error("encoding the entry or a texture: {0}")]
    Format(#[from] FormatError),
    #[error(transparent)]
    Store(#[from] sylva_cache::StoreError),
    #[error(transparent)]
    Impostor(#[from] crate::impostor::ImpostorBakeError),
}

/// Reads `prop`'s file and every external file it names (relative to its folder).
/// Every file must be a regular file inside its folder once symlinks are resolved: the
/// asset inside `assets`, the files it names inside the asset's own folder.
pub fn read_source(assets: &Path, prop: &Prop) -> Result<AssetSource, AssetError> {
    let file = assets.join(&prop.file);
    let bytes = read_inside(assets, &file)?;
    let folder = file.parent().unwrap_or(assets);
    // A document that does not parse names no files; importing it reports why.
    let names = external_files(&bytes).unwrap_or_default();
    // A named file that is not there is left to the importer, whose error says which
    // element (which material's texture, which buffer) wanted it.
    let mut externals = Vec::new();
    for name in names {
        match read_inside(folder, &folder.join(&name)) {
            Ok(bytes) => externals.push((name, bytes)),
            Err(AssetError::Read { source, .. }) if source.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return Err(e),
        }
    }
    Ok(AssetSource {
        prop_id: prop.id.to_string(),
        path: prop.file.clone(),
        bytes,
        externals,
    })
}

/// The bytes of `path`, a regular file that, symlinks resolved, lies inside `folder`.
/// The importer already refuses URIs with `..` or absolute paths; this refuses links
/// that lead out of the folder (and FIFOs, devices or folders under a file's name).
fn read_inside(folder: &Path, path: &Path) -> Result<Vec<u8>, AssetError> {
    let read_error = |source| AssetError::Read {
        path: path.to_owned(),
        source,
    };
    let resolved = fs::canonicalize(path).map_err(read_error)?;
    let folder = fs::canonicalize(folder).map_err(|source| AssetError::Read {
        path: folder.to_owned(),
        source,
    })?;
    if !resolved.starts_with(&folder) {
        return Err(AssetError::OutsideFolder {
            path: path.to_owned(),
            resolved,
            folder,
        });
    }
    if !fs::metadata(&resolved).map_err(read_error)?.is_file() {
        return Err(AssetError::NotAFile {
            path: path.to_owned(),
        });
    }
    fs::read(&resolved).map_err(read_error)
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

//! The assets folder: its catalog snapshot, with warnings for files that match nothing.

use std::path::Path;

use anyhow::Result;
use sylva_catalog::folder::read_snapshot;
use sylva_catalog::{Catalog, CatalogSnapshot};

/// Reads the folder's catalog and prop files.
pub fn snapshot(assets: &Path) -> Result<CatalogSnapshot> {
    Ok(read_snapshot(assets)?)
}

/// Resolves a snapshot, warning on stderr about files and overrides that match nothing.
pub fn resolve(snapshot: &CatalogSnapshot) -> Result<Catalog> {
    let (catalog, resolution) = snapshot.resolve()?;
    for file in &resolution.unassigned_files {
        eprintln!("warning: {file} is in no catalog category and is ignored");
    }
    for id in &resolution.unused_overrides {
        eprintln!("warning: catalog override for `{id}` matches no prop file");
    }
    Ok(catalog)
}

//! Reading an assets folder from disk: `catalog.ron` and the files in each category
//! folder. The one place this crate touches the file system.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use thiserror::Error;

use crate::file::{CatalogFile, CatalogFileError};
use crate::resolved::CatalogSnapshot;

/// The catalog file inside the assets folder.
pub const CATALOG_FILE: &str = "catalog.ron";

#[derive(Debug, Error)]
pub enum FolderError {
    #[error("reading {path}: {source}")]
    Io { path: PathBuf, source: io::Error },
    #[error(transparent)]
    Catalog(#[from] CatalogFileError),
}

/// Reads `<assets>/catalog.ron` and lists every file in its category folders. A
/// category without a folder simply has no props yet.
pub fn read_snapshot(assets: &Path) -> Result<CatalogSnapshot, FolderError> {
    let io = |path: &Path| {
        let path = path.to_owned();
        move |source| FolderError::Io { path, source }
    };
    let catalog_path = assets.join(CATALOG_FILE);
    let text = fs::read_to_string(&catalog_path).map_err(io(&catalog_path))?;
    let file = CatalogFile::from_ron(&text, &catalog_path.display().to_string())?;
    let mut paths = Vec::new();
    for category in file.categories.keys() {
        let folder = assets.join(category);
        let entries = match fs::read_dir(&folder) {
            Ok(entries) => entries,
            Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
            Err(e) => return Err(io(&folder)(e)),
        };
        for entry in entries {
            let entry = entry.map_err(io(&folder))?;
            let is_file = entry.file_type().map_err(io(&entry.path()))?.is_file();
            if let (true, Some(name)) = (is_file, entry.file_name().to_str()) {
                paths.push(format!("{category}/{name}"));
            }
        }
    }
    Ok(CatalogSnapshot::new(file, paths.iter().map(String::as_str)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_prop_files_of_known_categories() {
        let dir = std::env::temp_dir().join(format!("sylva-folder-test-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(dir.join("rock")).unwrap();
        fs::create_dir_all(dir.join("unknown")).unwrap();
        fs::write(
            dir.join(CATALOG_FILE),
            r#"(categories: { "rock": (family: "rock"), "tree": (family: "tree") })"#,
        )
        .unwrap();
        fs::write(dir.join("rock/b.glb"), b"").unwrap();
        fs::write(dir.join("rock/a.gltf"), b"").unwrap();
        fs::write(dir.join("rock/notes.txt"), b"").unwrap();
        fs::write(dir.join("unknown/x.glb"), b"").unwrap();
        let snapshot = read_snapshot(&dir).unwrap();
        assert_eq!(snapshot.props, ["rock/a.gltf", "rock/b.glb"]);
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_missing_catalog_names_its_path() {
        let err = read_snapshot(Path::new("/nonexistent/assets")).unwrap_err();
        assert!(
            err.to_string().contains("/nonexistent/assets/catalog.ron"),
            "{err}"
        );
    }
}

//! The preset picker's view of `presets/`: every `.ron` and `.json` preset file (not
//! the JSON Schema, not hidden editor files), sorted by name, each parsed or with its
//! error. [`PresetFolder::rescan`] polls modification times and sizes and re-reads
//! only what changed, so new and edited presets appear while the viewer runs.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use sylva_scatter::Preset;
use thiserror::Error;

#[derive(Debug, Error)]
#[error("reading preset folder {path}: {source}")]
pub struct PresetFolderError {
    pub path: PathBuf,
    pub source: io::Error,
}

/// What identifies a version of a file without reading it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Stamp {
    modified: Option<SystemTime>,
    len: u64,
}

#[derive(Clone, Debug)]
pub struct PresetEntry {
    /// File stem: the name sessions and scripts use.
    pub stem: String,
    pub path: PathBuf,
    /// The preset, or why the file is not one (with file, line and field).
    pub preset: Result<Preset, String>,
    /// Starts at 1 and goes up each time the file changes.
    pub version: u32,
    stamp: Stamp,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PresetChange {
    Added(String),
    Changed(String),
    Removed(String),
}

#[derive(Debug)]
pub struct PresetFolder {
    root: PathBuf,
    entries: Vec<PresetEntry>,
}

impl PresetFolder {
    /// Reads every preset of `root`.
    pub fn open(root: &Path) -> Result<Self, PresetFolderError> {
        let mut folder = Self {
            root: root.to_owned(),
            entries: Vec::new(),
        };
        folder.rescan()?;
        Ok(folder)
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    pub fn entries(&self) -> &[PresetEntry] {
        &self.entries
    }

    /// The entry with file stem `stem` and its index in the list.
    pub fn find(&self, stem: &str) -> Option<(usize, &PresetEntry)> {
        self.entries
            .iter()
            .enumerate()
            .find(|(_, e)| e.stem == stem)
    }

    /// Re-reads files whose time or size changed, adds new ones, drops deleted ones.
    pub fn rescan(&mut self) -> Result<Vec<PresetChange>, PresetFolderError> {
        let error = |source| PresetFolderError {
            path: self.root.clone(),
            source,
        };
        let mut found: Vec<(String, PathBuf, Stamp)> = Vec::new();
        for item in fs::read_dir(&self.root).map_err(error)? {
            let item = item.map_err(error)?;
            let path = item.path();
            let Some(stem) = preset_stem(&path) else {
                continue;
            };
            // A file deleted between listing and stat is simply not there.
            let Ok(metadata) = item.metadata() else {
                continue;
            };
            if metadata.is_file() {
                let stamp = Stamp {
                    modified: metadata.modified().ok(),
                    len: metadata.len(),
                };
                found.push((stem, path, stamp));
            }
        }
        found.sort_by(|a, b| a.0.cmp(&b.0).then_with(|| a.1.cmp(&b.1)));
        found.dedup_by(|a, b| a.0 == b.0);

        let mut changes = Vec::new();
        let mut entries = Vec::with_capacity(found.len());
        for (stem, path, stamp) in found {
            let previous = self
                .entries
                .iter()
                .position(|e| e.stem == stem && e.path == path)
                .map(|i| self.entries.swap_remove(i));
            match previous {
                Some(entry) if entry.stamp == stamp => entries.push(entry),
                Some(entry) => {
                    changes.push(PresetChange::Changed(stem.clone()));
                    entries.push(PresetEntry {
                        preset: read_preset(&path),
                        version: entry.version + 1,
                        stem,
                        path,
                        stamp,
                    });
                }
                None => {
                    changes.push(PresetChange::Added(stem.clone()));
                    entries.push(PresetEntry {
                        preset: read_preset(&path),
                        version: 1,
                        stem,
                        path,
                        stamp,
                    });
                }
            }
        }
        for gone in self.entries.drain(..) {
            changes.push(PresetChange::Removed(gone.stem));
        }
        self.entries = entries;
        Ok(changes)
    }
}

/// The stem of a preset file: `.ron` or `.json`, neither hidden nor a `.schema.json`.
fn preset_stem(path: &Path) -> Option<String> {
    let name = path.file_name()?.to_str()?;
    if name.starts_with('.') || name.ends_with(".schema.json") {
        return None;
    }
    let (stem, extension) = name.rsplit_once('.')?;
    matches!(extension, "ron" | "json").then(|| stem.to_owned())
}

fn read_preset(path: &Path) -> Result<Preset, String> {
    let text = fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    Preset::parse(&text, &path.display().to_string()).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    const GOOD: &str = r#"(name: "G", brush: (radius: 5.0, density_per_m2: 0.5),
        picks: [(category: "grass", weight: 1.0)])"#;

    fn write(dir: &Path, name: &str, text: &str, seconds: u64) {
        let path = dir.join(name);
        fs::write(&path, text).unwrap();
        let time = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000 + seconds);
        fs::File::options()
            .write(true)
            .open(&path)
            .unwrap()
            .set_modified(time)
            .unwrap();
    }

    #[test]
    fn lists_presets_sorted_and_skips_the_schema_and_hidden_files() {
        let dir = tempfile::tempdir().unwrap();
        write(dir.path(), "b.ron", GOOD, 0);
        write(
            dir.path(),
            "a.json",
            r#"{"name": "A", "brush": {"radius": 5.0, "density_per_m2": 0.5}, "picks": [{"category": "x", "weight": 1.0}]}"#,
            0,
        );
        write(dir.path(), "preset.schema.json", "{}", 0);
        write(dir.path(), ".b.ron.swp", "junk", 0);
        write(dir.path(), "notes.txt", "junk", 0);
        let folder = PresetFolder::open(dir.path()).unwrap();
        let stems: Vec<&str> = folder.entries().iter().map(|e| e.stem.as_str()).collect();
        assert_eq!(stems, ["a", "b"]);
        assert!(folder.entries().iter().all(|e| e.preset.is_ok()));
        assert_eq!(folder.find("b").unwrap().0, 1);
    }

    #[test]
    fn new_edited_and_deleted_files_are_picked_up() {
        let dir = tempfile::tempdir().unwrap();
        write(dir.path(), "a.ron", GOOD, 0);
        let mut folder = PresetFolder::open(dir.path()).unwrap();
        assert_eq!(folder.rescan().unwrap(), []);

        write(dir.path(), "a.ron", &GOOD.replace("5.0", "7.0"), 10);
        write(dir.path(), "b.ron", GOOD, 10);
        let changes = folder.rescan().unwrap();
        assert_eq!(
            changes,
            [
                PresetChange::Changed("a".into()),
                PresetChange::Added("b".into())
            ]
        );
        let a = &folder.entries()[0];
        assert_eq!(
            (a.version, a.preset.as_ref().unwrap().brush.radius),
            (2, 7.0)
        );

        fs::remove_file(dir.path().join("a.ron")).unwrap();
        assert_eq!(
            folder.rescan().unwrap(),
            [PresetChange::Removed("a".into())]
        );
        assert_eq!(folder.entries().len(), 1);
    }

    #[test]
    fn a_broken_preset_is_listed_with_its_error() {
        let dir = tempfile::tempdir().unwrap();
        write(
            dir.path(),
            "bad.ron",
            &GOOD.replace("radius: 5.0", "radius: -1.0"),
            0,
        );
        let folder = PresetFolder::open(dir.path()).unwrap();
        let error = folder.entries()[0].preset.as_ref().unwrap_err();
        assert!(
            error.contains("bad.ron") && error.contains("brush.radius"),
            "{error}"
        );
    }

    #[test]
    fn a_missing_folder_is_an_error_naming_it() {
        let error = PresetFolder::open(Path::new("/no/such/presets")).unwrap_err();
        assert!(error.to_string().contains("/no/such/presets"));
    }
}

//! Session files on disk: atomic writes (temporary file in the same folder, fsync,
//! rename), so a crash mid-save leaves the old file whole; and the autosave beside the
//! session file, rewritten after every completed stroke, so a crash loses at most the
//! stroke being painted.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use sylva_scatter::{Session, SessionError};
use thiserror::Error;

#[derive(Debug, Error)]
pub enum SessionFileError {
    #[error("writing {path}: {source}")]
    Write { path: PathBuf, source: io::Error },
    #[error("reading {path}: {source}")]
    Read { path: PathBuf, source: io::Error },
    #[error(transparent)]
    Parse(#[from] SessionError),
}

/// Writes `bytes` to `path` through a temporary file beside it, fsync and a rename (then
/// an fsync of the folder): readers, and a viewer killed at any moment, see the old file
/// or the new one, never half of one.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), SessionFileError> {
    sylva_cache::store::write_atomically(path, bytes).map_err(|source| SessionFileError::Write {
        path: path.to_owned(),
        source,
    })
}

/// Writes a session journal as RON, atomically.
pub fn save(session: &Session, path: &Path) -> Result<(), SessionFileError> {
    write_atomically(path, session.to_ron().as_bytes())
}

/// Reads a session journal (RON, or JSON by extension).
pub fn load(path: &Path) -> Result<Session, SessionFileError> {
    let text = fs::read_to_string(path).map_err(|source| SessionFileError::Read {
        path: path.to_owned(),
        source,
    })?;
    Ok(Session::parse(&text, &path.display().to_string())?)
}

/// The autosave of `session_path`: `a/b.session.ron` autosaves to
/// `a/b.session.autosave.ron`.
pub fn autosave_path(session_path: &Path) -> PathBuf {
    let stem = session_path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "session".into());
    let extension = session_path
        .extension()
        .map(|e| e.to_string_lossy().into_owned())
        .unwrap_or_else(|| "ron".into());
    session_path.with_file_name(format!("{stem}.autosave.{extension}"))
}

/// Rewrites the autosave whenever the journal has grown since the last write.
#[derive(Debug)]
pub struct Autosave {
    path: PathBuf,
    saved_events: Option<usize>,
    writes: u32,
}

impl Autosave {
    pub fn new(path: PathBuf) -> Self {
        Self {
            path,
            saved_events: None,
            writes: 0,
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Autosaves go to `path` from now on (a session opened in place of the last
    /// one); the count of writes goes on.
    pub fn move_to(&mut self, path: PathBuf) {
        self.path = path;
        self.saved_events = None;
    }

    /// Autosaves written so far.
    pub fn writes(&self) -> u32 {
        self.writes
    }

    /// Writes `session` if its journal differs in length from the last autosave
    /// (events are only ever appended). Returns whether it wrote.
    pub fn after_change(&mut self, session: &Session) -> Result<bool, SessionFileError> {
        if self.saved_events == Some(session.events.len()) {
            return Ok(false);
        }
        save(session, &self.path)?;
        self.saved_events = Some(session.events.len());
        self.writes += 1;
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use sylva_catalog::{CatalogFile, CatalogSnapshot};
    use sylva_scatter::{Event, TerrainSource};

    use super::*;

    fn session() -> Session {
        let file = CatalogFile::from_ron(r#"(categories: { "tree": (family: "tree") })"#, "c.ron")
            .unwrap();
        Session::new(
            7,
            100,
            TerrainSource::DefaultWorld,
            CatalogSnapshot::new(file, ["tree/a.glb"]),
        )
    }

    #[test]
    fn saved_sessions_load_back_and_leave_no_temporary() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("deep/er/run.session.ron");
        let mut s = session();
        s.events.push(Event::Undo);
        save(&s, &path).unwrap();
        assert_eq!(load(&path).unwrap(), s);
        let files: Vec<_> = fs::read_dir(path.parent().unwrap()).unwrap().collect();
        assert_eq!(files.len(), 1);
    }

    #[test]
    fn a_failed_write_keeps_what_was_there_and_leaves_no_temporary() {
        let dir = tempfile::tempdir().unwrap();
        // A non-empty folder under the session's name: the final rename must fail.
        let path = dir.path().join("run.session.ron");
        fs::create_dir(&path).unwrap();
        fs::write(path.join("keep"), b"kept").unwrap();
        assert!(save(&session(), &path).is_err());
        assert_eq!(fs::read(path.join("keep")).unwrap(), b"kept");
        let files: Vec<_> = fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(files.len(), 1, "the temporary file is removed");
    }

    #[test]
    fn autosave_writes_only_when_the_journal_grew() {
        let dir = tempfile::tempdir().unwrap();
        let mut autosave = Autosave::new(autosave_path(&dir.path().join("a.session.ron")));
        assert!(autosave.path().ends_with("a.session.autosave.ron"));
        let mut s = session();
        assert!(autosave.after_change(&s).unwrap());
        assert!(!autosave.after_change(&s).unwrap());
        s.events.push(Event::Undo);
        assert!(autosave.after_change(&s).unwrap());
        assert_eq!(autosave.writes(), 2);
        assert_eq!(load(autosave.path()).unwrap(), s);
    }

    #[test]
    fn loading_garbage_names_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bad.session.ron");
        fs::write(&path, "(format: 1, seed: oops)").unwrap();
        let error = load(&path).unwrap_err().to_string();
        assert!(error.contains("bad.session.ron"), "{error}");
        assert!(load(&dir.path().join("missing.ron")).is_err());
    }
}

//! The cache folder on disk: entries (`<key>.sylva`), the texture blobs they name
//! (`<BLAKE3 of the blob>.sylvatex`) and `manifest.ron`. Every write
//! goes through a temporary file in the same folder, fsync and rename, so a reader (or
//! a bake interrupted at any point) sees the old file or the new one, never half.

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use thiserror::Error;

pub use crate::file_name::{is_plain_file_name, ENTRY_EXTENSION, TEXTURE_EXTENSION};
use crate::format::{Entry, TextureFile, TextureId};
use crate::manifest::{Manifest, ManifestError, MANIFEST_FILE};
use crate::prop::PropFiles;

/// Temporary files start with this; they are never entries.
const TEMP_PREFIX: &str = ".tmp-";

#[derive(Debug, Error)]
pub enum StoreError {
    #[error("{path}: {source}")]
    Io { path: PathBuf, source: io::Error },
    #[error("{path}: {source}")]
    Manifest {
        path: PathBuf,
        source: ManifestError,
    },
    #[error(
        "{root}: refusing file name `{name}`: a cache file is a plain name inside the cache folder"
    )]
    FileName { root: PathBuf, name: String },
}

/// A cache folder.
#[derive(Clone, Debug)]
pub struct CacheDir {
    root: PathBuf,
}

impl CacheDir {
    pub fn new(root: impl Into<PathBuf>) -> Self {
        CacheDir { root: root.into() }
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    pub fn manifest_path(&self) -> PathBuf {
        self.root.join(MANIFEST_FILE)
    }

    /// The manifest; an empty one when the folder or file does not exist yet.
    pub fn read_manifest(&self) -> Result<Manifest, StoreError> {
        let path = self.manifest_path();
        match fs::read_to_string(&path) {
            Ok(text) => {
                Manifest::parse(&text).map_err(|source| StoreError::Manifest { path, source })
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(Manifest::new()),
            Err(source) => Err(StoreError::Io { path, source }),
        }
    }

    pub fn write_manifest(&self, manifest: &Manifest) -> Result<(), StoreError> {
        self.write(MANIFEST_FILE, manifest.to_ron().as_bytes())
    }

    /// The bytes of entry file `name` (as the manifest names it).
    pub fn read_entry(&self, name: &str) -> Result<Vec<u8>, StoreError> {
        let path = self.path_of(name)?;
        fs::read(&path).map_err(|source| StoreError::Io { path, source })
    }

    pub fn write_entry(&self, name: &str, bytes: &[u8]) -> Result<(), StoreError> {
        self.write(name, bytes)
    }

    /// Entry files present, sorted (temporary files and names the cache would never
    /// write excluded).
    pub fn entry_files(&self) -> Result<Vec<String>, StoreError> {
        self.files_ending_in(ENTRY_EXTENSION)
    }

    /// Texture blob files present, sorted, like [`CacheDir::entry_files`].
    pub fn texture_files(&self) -> Result<Vec<String>, StoreError> {
        self.files_ending_in(TEXTURE_EXTENSION)
    }

    /// The bytes of texture blob `id` (unchecked: [`crate::TextureView::parse_as`] checks).
    pub fn read_texture(&self, id: TextureId) -> Result<Vec<u8>, StoreError> {
        self.read_entry(&id.file_name())
    }

    /// Writes a texture blob unless the folder holds these very bytes already (a blob's
    /// name is its content's hash, so props sharing it write it once).
    pub fn write_texture(&self, texture: &TextureFile) -> Result<(), StoreError> {
        let name = texture.id.file_name();
        if self
            .read_entry(&name)
            .is_ok_and(|on_disk| on_disk == texture.bytes)
        {
            return Ok(());
        }
        self.write(&name, &texture.bytes)
    }

    /// Entry `name` and every texture blob it names, in the entry's order. An entry that
    /// does not parse comes back without textures: parsing the files reports why.
    pub fn read_prop(&self, name: &str) -> Result<PropFiles, StoreError> {
        let entry = self.read_entry(name)?;
        let ids = Entry::parse(&entry).map(|e| e.textures).unwrap_or_default();
        let textures = ids
            .into_iter()
            .map(|id| self.read_texture(id))
            .collect::<Result<_, _>>()?;
        Ok(PropFiles { entry, textures })
    }

    fn files_ending_in(&self, extension: &str) -> Result<Vec<String>, StoreError> {
        let entries = match fs::read_dir(&self.root) {
            Ok(entries) => entries,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(source) => return Err(self.io_error(&self.root, source)),
        };
        let mut names = Vec::new();
        for entry in entries {
            let entry = entry.map_err(|e| self.io_error(&self.root, e))?;
            let name = entry.file_name().to_string_lossy().into_owned();
            let matches = Path::new(&name).extension().is_some_and(|e| e == extension);
            if matches && !name.starts_with(TEMP_PREFIX) && is_plain_file_name(&name) {
                names.push(name);
            }
        }
        names.sort();
        Ok(names)
    }

    /// Deletes temporary files older than `age`: left by a bake that was killed
    /// mid-write (a live write finishes within milliseconds). Returns their names.
    pub fn remove_stale_temporaries(&self, age: Duration) -> Result<Vec<String>, StoreError> {
        let entries = match fs::read_dir(&self.root) {
            Ok(entries) => entries,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(source) => return Err(self.io_error(&self.root, source)),
        };
        let mut removed = Vec::new();
        for entry in entries {
            let entry = entry.map_err(|e| self.io_error(&self.root, e))?;
            let name = entry.file_name().to_string_lossy().into_owned();
            let stale = entry
                .metadata()
                .and_then(|m| m.modified())
                .is_ok_and(|t| t.elapsed().is_ok_and(|elapsed| elapsed >= age));
            if name.starts_with(TEMP_PREFIX) && is_plain_file_name(&name) && stale {
                self.remove_entry(&name)?;
                removed.push(name);
            }
        }
        removed.sort();
        Ok(removed)
    }

    pub fn remove_entry(&self, name: &str) -> Result<(), StoreError> {
        let path = self.path_of(name)?;
        match fs::remove_file(&path) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => {
                Err(StoreError::Io { path, source: e })
            }
            _ => Ok(()),
        }
    }

    fn io_error(&self, path: &Path, source: io::Error) -> StoreError {
        StoreError::Io {
            path: path.to_owned(),
            source,
        }
    }

    fn write(&self, name: &str, bytes: &[u8]) -> Result<(), StoreError> {
        let path = self.path_of(name)?;
        write_atomically(&path, bytes).map_err(|source| StoreError::Io { path, source })
    }

    /// The path of file `name` inside the folder. Names come from manifests, which are
    /// data: anything but a plain file name (a separator, `..`, an absolute path, a
    /// drive) is refused, so the cache never reads, writes or deletes outside its folder.
    fn path_of(&self, name: &str) -> Result<PathBuf, StoreError> {
        if is_plain_file_name(name) {
            Ok(self.root.join(name))
        } else {
            Err(StoreError::FileName {
                root: self.root.clone(),
                name: name.to_owned(),
            })
        }
    }
}

/// The bytes of `path`, which must be a regular file once symlinks are followed: a path
/// that comes from data (a session's heightmap) must not make a reader block on a FIFO
/// or read `/dev/zero` until memory runs out.
pub fn read_regular_file(path: &Path) -> io::Result<Vec<u8>> {
    if !fs::metadata(path)?.is_file() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "not a regular file",
        ));
    }
    fs::read(path)
}

/// Writes `bytes` to `path` through a temporary file in the same folder: write, fsync,
/// rename over `path`, fsync the folder. Creates the folder if needed.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> io::Result<()> {
    write_atomically_with(path, |file| file.write_all(bytes))
}

/// [`write_atomically`] for output that streams: `write` fills a buffered temporary
/// file, which replaces `path` only when `write` and the flush succeed; on any error
/// (the writer's own, a full disk) the temporary file is removed and `path` is left
/// as it was. Creates the folder if needed.
pub fn write_atomically_with<T, E: From<io::Error>>(
    path: &Path,
    write: impl FnOnce(&mut io::BufWriter<fs::File>) -> Result<T, E>,
) -> Result<T, E> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let folder = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    fs::create_dir_all(folder)?;
    let name = path
        .file_name()
        .ok_or_else(|| io::Error::other("a file path needs a file name"))?;
    let temporary = folder.join(format!(
        "{TEMP_PREFIX}{}-{}-{}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed),
        name.to_string_lossy()
    ));
    let result: Result<T, E> = (|| {
        let mut file = io::BufWriter::new(fs::File::create(&temporary)?);
        let value = write(&mut file)?;
        let file = file.into_inner().map_err(io::IntoInnerError::into_error)?;
        file.sync_all()?;
        fs::rename(&temporary, path)?;
        fs::File::open(folder)?.sync_all()?;
        Ok(value)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&temporary);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encode;
    use crate::prop::tests::two_textures;

    #[test]
    fn writes_replace_whole_files_and_leave_no_temporaries() {
        let dir = tempfile::tempdir().unwrap();
        let cache = CacheDir::new(dir.path().join("cache"));
        assert_eq!(cache.read_manifest().unwrap(), Manifest::new());
        cache.write_entry("a.sylva", b"first").unwrap();
        cache.write_entry("a.sylva", b"second").unwrap();
        cache.write_entry("b.sylva", b"x").unwrap();
        assert_eq!(cache.read_entry("a.sylva").unwrap(), b"second");
        assert_eq!(cache.entry_files().unwrap(), ["a.sylva", "b.sylva"]);
        let all: Vec<_> = fs::read_dir(cache.root()).unwrap().collect();
        assert_eq!(all.len(), 2, "no temporary file is left behind");
        cache.remove_entry("a.sylva").unwrap();
        cache.remove_entry("a.sylva").unwrap();
        assert_eq!(cache.entry_files().unwrap(), ["b.sylva"]);
    }

    #[test]
    fn only_regular_files_are_read() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("map.png"), b"png").unwrap();
        std::os::unix::fs::symlink(dir.path().join("map.png"), dir.path().join("link.png"))
            .unwrap();
        assert_eq!(
            read_regular_file(&dir.path().join("link.png")).unwrap(),
            b"png"
        );
        for refused in [Path::new("/dev/zero"), dir.path()] {
            let err = read_regular_file(refused).unwrap_err();
            assert_eq!(err.kind(), io::ErrorKind::InvalidInput, "{refused:?}");
        }
    }

    #[test]
    fn names_that_could_leave_the_folder_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let cache = CacheDir::new(dir.path().join("cache"));
        fs::write(dir.path().join("outside.sylva"), b"keep").unwrap();
        for name in [
            "../outside.sylva",
            "..",
            ".",
            "",
            "sub/x.sylva",
            "/etc/passwd",
            "a\\b.sylva",
            "C:x.sylva",
            "x.sylva\0",
        ] {
            let refused = |e: StoreError| matches!(e, StoreError::FileName { .. });
            assert!(
                refused(cache.read_entry(name).unwrap_err()),
                "read {name:?}"
            );
            assert!(
                refused(cache.write_entry(name, b"x").unwrap_err()),
                "write {name:?}"
            );
            assert!(
                refused(cache.remove_entry(name).unwrap_err()),
                "remove {name:?}"
            );
        }
        assert_eq!(fs::read(dir.path().join("outside.sylva")).unwrap(), b"keep");
        assert!(!cache.root().exists(), "nothing was written");
    }

    #[test]
    fn a_leftover_temporary_is_not_an_entry_and_is_swept_once_stale() {
        let dir = tempfile::tempdir().unwrap();
        let cache = CacheDir::new(dir.path());
        let leftover = dir.path().join(".tmp-1-0-x.sylva");
        fs::write(&leftover, b"half").unwrap();
        fs::write(dir.path().join(".tmp-1-1-y.sylva"), b"in flight").unwrap();
        assert!(cache.entry_files().unwrap().is_empty());
        let an_hour_ago = std::time::SystemTime::now() - Duration::from_secs(3600);
        fs::File::options()
            .write(true)
            .open(&leftover)
            .unwrap()
            .set_modified(an_hour_ago)
            .unwrap();
        let removed = cache
            .remove_stale_temporaries(Duration::from_secs(60))
            .unwrap();
        assert_eq!(removed, [".tmp-1-0-x.sylva"]);
        assert!(
            dir.path().join(".tmp-1-1-y.sylva").exists(),
            "a fresh temporary may be a live write"
        );
    }

    #[test]
    fn a_prop_reads_back_with_its_blobs_and_shared_blobs_are_written_once() {
        let dir = tempfile::tempdir().unwrap();
        let cache = CacheDir::new(dir.path());
        let (mut asset, files) = two_textures();
        // The second texture used twice: one file, listed twice.
        asset.textures.push(files[1].id);
        cache
            .write_entry("a.sylva", &encode(&asset).unwrap())
            .unwrap();
        for file in files.iter().chain(&files) {
            cache.write_texture(file).unwrap();
        }
        assert_eq!(cache.texture_files().unwrap().len(), 2);
        let read = cache.read_prop("a.sylva").unwrap();
        let view = read.parse().unwrap();
        assert_eq!(view.textures.len(), 3);
        assert_eq!(view.textures[0].levels[0], [9; 4]);
        assert_eq!(view.textures[2].levels[0], [200; 4]);
    }

    #[test]
    fn a_missing_blob_is_refused_with_its_name() {
        let dir = tempfile::tempdir().unwrap();
        let cache = CacheDir::new(dir.path());
        let (asset, files) = two_textures();
        cache
            .write_entry("a.sylva", &encode(&asset).unwrap())
            .unwrap();
        cache.write_texture(&files[0]).unwrap();
        let err = cache.read_prop("a.sylva").unwrap_err().to_string();
        assert!(err.contains(&files[1].id.file_name()), "{err}");
    }
}

//! The bake cache. One file per baked asset ("entry"), named after its content key;
//! `manifest.ron` maps asset paths to entries for the runtime's hot reload.
//!
//! - [`format`](mod@format): the entry and texture blob file formats. Pure bytes in,
//!   bytes out: [`encode`] writes a [`BakedAsset`], [`encode_texture`] a [`BakedTexture`]
//!   as a blob named by its BLAKE3 hash ([`TextureId`]), so props sharing a texture
//!   share one file; [`Entry::parse`] and [`TextureView::parse`] check magic, version,
//!   checksum and every range, then hand out views whose vertex, index and texel slices
//!   borrow the file bytes (no copy), 16-byte aligned in the file for direct GPU upload.
//! - [`prop`]: an entry with the texture blobs it names ([`PropFiles`]), parsed together.
//! - [`manifest`]: asset path → entry, key, sources and a per-prop geometry revision.
//! - [`lock`]: `sylva.lock`, the committed record of a bake: per asset the hashes of
//!   its sources and settings and of every file its bake produced.
//! - [`remote`]: sharing entries through a remote content-addressed store, every
//!   fetched file verified by its hash before it is kept.
//! - [`store`]: the cache directory on disk, with atomic writes (temp file, fsync,
//!   rename) so a reader never sees half an entry.

mod file_name;
pub mod format;
pub mod lock;
pub mod manifest;
mod model;
pub mod prop;
pub mod remote;
pub mod store;

pub use format::{
    encode, encode_texture, BakedTexture, Entry, FormatError, IndexFormat, LevelView, PartView,
    PixelFormat, TextureFile, TextureId, TextureView, FORMAT_VERSION, TEXTURE_FORMAT_VERSION,
};
pub use lock::{Hash, LockError, LockedAsset, LockedFile, Lockfile, Versions, LOCK_FILE};
pub use manifest::{Manifest, ManifestEntry, ManifestError, MANIFEST_FILE};
pub use model::{BakedAsset, BakedLevel, BakedPart, CacheKey, ImpostorRecord, ImpostorView};
pub use prop::{PropFiles, PropView};
pub use remote::{Fetched, ObjectStore, RemoteError, RemotePass};
pub use store::{CacheDir, StoreError};

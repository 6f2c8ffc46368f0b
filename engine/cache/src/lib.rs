//! The bake cache. One file per baked asset ("entry"), named after its content key;
//! `manifest.ron` maps asset paths to entries for the runtime's hot reload.
//!
//! - [`format`](mod@format): the entry file format. Pure bytes in, bytes out: [`encode`] writes a
//!   [`BakedAsset`]; [`Entry::parse`] checks magic, version, checksum and every range,
//!   then hands out views whose vertex, index and texture slices borrow the file bytes
//!   (no copy), each blob 16-byte aligned in the file for direct GPU upload.
//! - [`manifest`]: asset path → entry, key, sources and a per-prop geometry revision.
//! - [`store`]: the cache directory on disk, with atomic writes (temp file, fsync,
//!   rename) so a reader never sees half an entry.

pub mod format;
pub mod manifest;
mod model;
pub mod store;

pub use format::{
    encode, Entry, FormatError, IndexFormat, LevelView, PartView, TextureView, FORMAT_VERSION,
};
pub use manifest::{Manifest, ManifestEntry, ManifestError, MANIFEST_FILE};
pub use model::{BakedAsset, BakedLevel, BakedPart, CacheKey};
pub use store::{CacheDir, StoreError};

use std::path::Path;

use anyhow::{Context, Result};

/// Writes `bytes` to `path` through a temporary file in the same folder, fsync and a
/// rename (then an fsync of the folder), so readers, and a process killed at any
/// moment, see the old file or the new one, never half of one.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<()> {
    sylva_cache::store::write_atomically(path, bytes)
        .with_context(|| format!("writing {}", path.display()))
}

use std::fs;
use std::path::Path;

use anyhow::{Context, Result};
use sylva_scatter::Preset;

/// Reads and validates a preset file.
pub fn load(path: &Path) -> Result<Preset> {
    let text =
        fs::read_to_string(path).with_context(|| format!("reading preset {}", path.display()))?;
    Ok(Preset::parse(&text, &path.display().to_string())?)
}

/// The name a preset file goes by in sessions: its file stem.
pub fn name_of(path: &Path) -> String {
    path.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "preset".into())
}

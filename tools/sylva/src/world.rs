//! Building the terrain a command or session asks for, and naming places on it.

use std::fs;
use std::path::Path;

use anyhow::{bail, Context, Result};
use glam::Vec2;
use sylva_cache::store::read_regular_file;
use sylva_scatter::{Session, TerrainSource};
use sylva_terrain::{default_world, Landmark, Terrain};

/// Loads the terrain of `source`; heightmap paths are relative to `base`, the session's
/// folder (the viewer writes absolute paths for maps outside it). A heightmap must be a
/// regular file: a journal naming `/dev/zero` or a FIFO is refused, not read forever.
pub fn load(source: &TerrainSource, base: &Path) -> Result<Terrain> {
    match source {
        TerrainSource::DefaultWorld => Ok(default_world()),
        TerrainSource::Heightmap { file, scale } => {
            let path = base.join(file);
            let bytes = read_regular_file(&path)
                .with_context(|| format!("reading heightmap {}", path.display()))?;
            Terrain::from_png(&bytes, *scale)
                .with_context(|| format!("loading heightmap {}", path.display()))
        }
    }
}

/// Reads the session journal at `path` and loads the terrain it names.
pub fn load_session(path: &Path) -> Result<(Session, Terrain)> {
    let text = fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let session = Session::parse(&text, &path.display().to_string())?;
    let terrain = load(&session.terrain, path.parent().unwrap_or(Path::new(".")))?;
    Ok((session, terrain))
}

/// Parses `meadow` (a landmark of the default world) or `X,Z` (world metres).
pub fn parse_place(text: &str) -> Result<Vec2> {
    if let Ok(landmark) = text.parse::<Landmark>() {
        return Ok(landmark.position());
    }
    let Some((x, z)) = text.split_once(',') else {
        bail!("`{text}` is neither a landmark (meadow, cliff, beach, lake, mountains) nor X,Z");
    };
    let parse = |s: &str| {
        s.trim()
            .parse::<f32>()
            .ok()
            .filter(|v| v.is_finite())
            .with_context(|| format!("`{s}` in `{text}` is not a number"))
    };
    Ok(Vec2::new(parse(x)?, parse(z)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn places_are_landmarks_or_coordinates() {
        assert_eq!(parse_place("cliff").unwrap(), Landmark::Cliff.position());
        assert_eq!(parse_place("12.5, -40").unwrap(), Vec2::new(12.5, -40.0));
        assert!(parse_place("12.5").is_err());
        assert!(parse_place("a,b").is_err());
        assert!(parse_place("nan,1").is_err());
    }
}

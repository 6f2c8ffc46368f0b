//! Building the terrain a command or session asks for, and naming places on it.

use std::fs;
use std::path::{Component, Path, PathBuf};

use anyhow::{bail, Context, Result};
use glam::Vec2;
use sylva_scatter::TerrainSource;
use sylva_terrain::{default_world, Landmark, Terrain};

/// Loads the terrain of `source`; heightmap paths are relative to `base`, the session's
/// folder.
pub fn load(source: &TerrainSource, base: &Path) -> Result<Terrain> {
    match source {
        TerrainSource::DefaultWorld => Ok(default_world()),
        TerrainSource::Heightmap { file, scale } => {
            let path = inside(base, file)?;
            let bytes =
                fs::read(&path).with_context(|| format!("reading heightmap {}", path.display()))?;
            Terrain::from_png(&bytes, *scale)
                .with_context(|| format!("loading heightmap {}", path.display()))
        }
    }
}

/// `file` as a regular file inside `base` once symlinks are resolved. A journal is data
/// that may come from anyone: it must not make `sylva` read `/dev/zero` or another
/// folder's files.
fn inside(base: &Path, file: &str) -> Result<PathBuf> {
    let relative = Path::new(file);
    let plain = relative
        .components()
        .all(|c| matches!(c, Component::Normal(_) | Component::CurDir));
    if !plain {
        bail!("heightmap `{file}`: must be a path inside the session's folder");
    }
    let base = fs::canonicalize(base).with_context(|| format!("reading {}", base.display()))?;
    let path = base.join(relative);
    let resolved =
        fs::canonicalize(&path).with_context(|| format!("reading heightmap {}", path.display()))?;
    if !resolved.starts_with(&base) {
        bail!(
            "heightmap `{file}`: resolves to {}, outside the session's folder",
            resolved.display()
        );
    }
    if !fs::metadata(&resolved)?.is_file() {
        bail!("heightmap `{file}`: not a regular file");
    }
    Ok(resolved)
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

    #[test]
    fn heightmaps_outside_the_sessions_folder_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let (session, elsewhere) = (dir.path().join("session"), dir.path().join("elsewhere"));
        fs::create_dir_all(&session).unwrap();
        fs::create_dir_all(&elsewhere).unwrap();
        fs::write(elsewhere.join("secret.png"), b"x").unwrap();
        fs::write(session.join("map.png"), b"x").unwrap();
        std::os::unix::fs::symlink(elsewhere.join("secret.png"), session.join("link.png")).unwrap();
        fs::create_dir(session.join("folder.png")).unwrap();
        for file in [
            "../elsewhere/secret.png",
            "/dev/zero",
            "link.png",
            "folder.png",
            "missing.png",
        ] {
            assert!(inside(&session, file).is_err(), "{file} was accepted");
        }
        assert_eq!(
            inside(&session, "./map.png").unwrap(),
            fs::canonicalize(session.join("map.png")).unwrap()
        );
    }
}

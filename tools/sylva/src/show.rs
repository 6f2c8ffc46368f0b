//! Drawing sessions: a runtime with the session's placements and the cache's props,
//! and the cameras the command line names.

use std::path::Path;

use anyhow::{bail, Context, Result};
use glam::Vec3;
use sylva_cache::CacheDir;
use sylva_lod::LodConfig;
use sylva_render::{CameraView, RenderContext, OUTPUT_FORMAT};
use sylva_runtime::{LoadReport, Runtime};
use sylva_scatter::Session;
use sylva_terrain::{Landmark, Terrain};
use sylva_world::World;

/// Replays `session` on `terrain` with LODs switched by `lod` (the runtime makes its
/// streamed fills around the camera, [`Runtime::settle_streams`]), and loads every baked prop of
/// `cache`.
pub fn open(
    terrain: Terrain,
    session: &Session,
    cache: &CacheDir,
    impostors: bool,
    lod: &LodConfig,
) -> Result<(Runtime, LoadReport)> {
    let (world, _) =
        World::replay_streamed(terrain, session, lod).context("replaying the session")?;
    let context = RenderContext::new(OUTPUT_FORMAT)?;
    let mut runtime = Runtime::new(context, world)?;
    runtime.set_impostors(impostors);
    let report = runtime
        .load_cache(cache)
        .with_context(|| format!("loading baked props from {}", cache.root().display()))?;
    for failure in &report.failed {
        eprintln!("warning: {failure}");
    }
    Ok((runtime, report))
}

/// `overview`, a landmark (`meadow`, `cliff`, …) or `EX,EY,EZ,TX,TY,TZ` (eye and target
/// in world metres).
pub fn parse_camera(text: &str, terrain: &Terrain) -> Result<CameraView> {
    if text == "overview" {
        return Ok(CameraView::overview(terrain));
    }
    if let Ok(landmark) = text.parse::<Landmark>() {
        return Ok(CameraView::landmark(terrain, landmark));
    }
    let numbers: Vec<f32> = text
        .split(',')
        .map(|n| n.trim().parse::<f32>().ok().filter(|v| v.is_finite()))
        .collect::<Option<_>>()
        .with_context(|| format!("`{text}`: camera numbers must be finite"))?;
    let [ex, ey, ez, tx, ty, tz] = numbers[..] else {
        bail!("`{text}` is neither overview, a landmark, nor EX,EY,EZ,TX,TY,TZ");
    };
    let (eye, target) = (Vec3::new(ex, ey, ez), Vec3::new(tx, ty, tz));
    if eye.distance(target) < 1e-3 {
        bail!("`{text}`: the eye and the target are the same point");
    }
    Ok(CameraView::new(eye, target))
}

/// Writes `png` bytes, creating the folder.
pub fn write_png(path: &Path, png: &[u8]) -> Result<()> {
    crate::files::write_atomically(path, png)
}

#[cfg(test)]
mod tests {
    use super::*;
    use sylva_terrain::default_world;

    #[test]
    fn cameras_are_named_or_numbered() {
        let terrain = default_world();
        assert_eq!(
            parse_camera("overview", &terrain).unwrap(),
            CameraView::overview(&terrain)
        );
        assert_eq!(
            parse_camera("cliff", &terrain).unwrap(),
            CameraView::landmark(&terrain, Landmark::Cliff)
        );
        let c = parse_camera("0,50,-100, 0,0,0", &terrain).unwrap();
        assert_eq!(
            (c.eye, c.target),
            (Vec3::new(0.0, 50.0, -100.0), Vec3::ZERO)
        );
        assert!(parse_camera("1,2,3", &terrain).is_err());
        assert!(parse_camera("1,2,3,1,2,3", &terrain).is_err());
    }
}

//! sylva-propgen: the deterministic generator of sylva's CC0 prop kit.
//!
//! Every prop in [`kit::KIT`] is built from seeded noise and simple solids (closed
//! tubes, ellipsoids, whorls, fracture-cut stones, a few open cards), with authored
//! normals, UVs and baked vertex colours, and encoded as a GLB. The bytes depend only
//! on this code: geometry uses IEEE `+ − × ÷ sqrt` and integer hashing, never the
//! platform's libm, and the JSON is written from structs in a fixed key order.
//!
//! `cargo run -p sylva-propgen` rewrites `assets/`; the root package's
//! `tests/prop_kit.rs` checks that the committed files match byte for byte.

pub mod glb;
pub mod kit;
pub mod math;
pub mod mesh;
pub mod png;
pub mod scene;
pub mod shapes;
pub mod surface;
pub mod texture;

use std::path::{Path, PathBuf};

use thiserror::Error;

/// One generated file.
#[derive(Clone, Debug)]
pub struct GeneratedAsset {
    /// `<category>/<stem>.glb`, relative to the assets folder.
    pub relative_path: String,
    pub bytes: Vec<u8>,
    pub primitives: Vec<PrimitiveSummary>,
    /// World-space extents (x, y, z) in metres.
    pub size: [f32; 3],
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PrimitiveSummary {
    pub mesh: String,
    pub material: String,
    pub triangles: usize,
}

#[derive(Debug, Error)]
pub enum PropgenError {
    #[error("cannot write {path}: {source}")]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// Builds and encodes every prop of the kit, in kit order.
pub fn generate_all() -> Vec<GeneratedAsset> {
    kit::KIT
        .iter()
        .map(|entry| {
            let prop = (entry.build)();
            let (lo, hi) = prop.world_bounds();
            let primitives = prop
                .meshes
                .iter()
                .flat_map(|m| {
                    m.primitives.iter().map(|p| PrimitiveSummary {
                        mesh: m.name.clone(),
                        material: prop.materials[p.material].name.clone(),
                        triangles: p.mesh.triangle_count(),
                    })
                })
                .collect();
            GeneratedAsset {
                relative_path: entry.relative_path(),
                bytes: glb::encode(&prop),
                primitives,
                size: [hi.x - lo.x, hi.y - lo.y, hi.z - lo.z],
            }
        })
        .collect()
}

/// Generates the kit into `assets_dir` (creating category folders as needed) and
/// returns what it wrote. Files not in the kit are left alone.
pub fn write_all(assets_dir: &Path) -> Result<Vec<GeneratedAsset>, PropgenError> {
    let assets = generate_all();
    for asset in &assets {
        let path = assets_dir.join(&asset.relative_path);
        let write = |path: &Path| {
            if let Some(dir) = path.parent() {
                std::fs::create_dir_all(dir)?;
            }
            std::fs::write(path, &asset.bytes)
        };
        write(&path).map_err(|source| PropgenError::Write { path, source })?;
    }
    Ok(assets)
}

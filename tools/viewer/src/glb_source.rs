//! A [`PropSource`] that reads props straight from their glTF files in the assets
//! folder: every triangle primitive of the default scene, with its node transforms
//! applied, becomes one part with a single (full) LOD. It lets the viewer draw the
//! bundled props without a bake; the baked cache, with its LOD chains, replaces it
//! where one exists.

use std::path::{Path, PathBuf};

use glam::{Mat3, Mat4, Vec3};
use gltf::mesh::Mode;
use sylva_render::props::{AlphaMode, IndexWidth, VERTEX_STRIDE};

use crate::loader::{LoadedProp, OwnedPart, PropGeometry, PropSource};

pub struct GlbSource {
    assets: PathBuf,
}

impl GlbSource {
    pub fn new(assets: &Path) -> Self {
        Self {
            assets: assets.to_owned(),
        }
    }

    /// The file of prop `<category>/<stem>`: `.glb`, else `.gltf`.
    fn file_of(&self, id: &str) -> Result<PathBuf, String> {
        ["glb", "gltf"]
            .iter()
            .map(|extension| self.assets.join(format!("{id}.{extension}")))
            .find(|path| path.is_file())
            .ok_or_else(|| {
                format!(
                    "{id}: no {id}.glb or {id}.gltf in {}",
                    self.assets.display()
                )
            })
    }
}

impl PropSource for GlbSource {
    fn load(&self, id: &str) -> Result<LoadedProp, String> {
        let path = self.file_of(id)?;
        let geometry = read_glb(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        Ok(LoadedProp {
            geometry,
            revision: 1,
        })
    }
}

/// Reads every triangle primitive of a glTF file's default scene as a part.
pub fn read_glb(path: &Path) -> Result<PropGeometry, String> {
    let (document, buffers, images) = gltf::import(path).map_err(|e| e.to_string())?;
    let scene = document
        .default_scene()
        .or_else(|| document.scenes().next())
        .ok_or("the file has no scene")?;
    let mut parts = Vec::new();
    let mut stack: Vec<(gltf::Node, Mat4)> = scene.nodes().map(|n| (n, Mat4::IDENTITY)).collect();
    while let Some((node, parent)) = stack.pop() {
        let transform = parent * Mat4::from_cols_array_2d(&node.transform().matrix());
        if let Some(mesh) = node.mesh() {
            for primitive in mesh.primitives() {
                parts.push(read_primitive(&primitive, transform, &buffers, &images)?);
            }
        }
        stack.extend(node.children().map(|child| (child, transform)));
    }
    if parts.is_empty() {
        return Err("the scene has no triangle meshes".into());
    }
    Ok(PropGeometry { parts })
}

fn read_primitive(
    primitive: &gltf::Primitive,
    transform: Mat4,
    buffers: &[gltf::buffer::Data],
    images: &[gltf::image::Data],
) -> Result<OwnedPart, String> {
    let mesh_index = primitive.index();
    if primitive.mode() != Mode::Triangles {
        return Err(format!(
            "primitive {mesh_index}: mode {:?} (only triangle lists are drawn)",
            primitive.mode()
        ));
    }
    let reader = primitive.reader(|buffer| buffers.get(buffer.index()).map(|d| &d.0[..]));
    let positions: Vec<[f32; 3]> = reader
        .read_positions()
        .ok_or_else(|| format!("primitive {mesh_index} has no POSITION"))?
        .collect();
    let count = positions.len();
    let normals: Vec<[f32; 3]> = reader
        .read_normals()
        .map_or_else(|| vec![[0.0, 1.0, 0.0]; count], Iterator::collect);
    let uvs: Vec<[f32; 2]> = reader
        .read_tex_coords(0)
        .map_or_else(|| vec![[0.0; 2]; count], |t| t.into_f32().collect());
    let colors: Vec<[u8; 4]> = reader
        .read_colors(0)
        .map_or_else(|| vec![[255; 4]; count], |c| c.into_rgba_u8().collect());
    if normals.len() != count || uvs.len() != count || colors.len() != count {
        return Err(format!(
            "primitive {mesh_index}: attribute counts differ from POSITION's {count}"
        ));
    }
    let indices: Vec<u32> = reader
        .read_indices()
        .map_or_else(|| (0..count as u32).collect(), |i| i.into_u32().collect());
    if let Some(bad) = indices.iter().find(|&&i| i as usize >= count) {
        return Err(format!(
            "primitive {mesh_index}: index {bad} is past its {count} vertices"
        ));
    }

    let normal_matrix = Mat3::from_mat4(transform).inverse().transpose();
    let mut vertices = Vec::with_capacity(count * VERTEX_STRIDE);
    for i in 0..count {
        let p = transform.transform_point3(Vec3::from(positions[i]));
        let n = (normal_matrix * Vec3::from(normals[i])).normalize_or(Vec3::Y);
        for value in p.to_array().into_iter().chain(n.to_array()).chain(uvs[i]) {
            vertices.extend_from_slice(&value.to_le_bytes());
        }
        vertices.extend_from_slice(&colors[i]);
    }
    let index_width = if count <= usize::from(u16::MAX) {
        IndexWidth::U16
    } else {
        IndexWidth::U32
    };
    let mut index_bytes = Vec::with_capacity(indices.len() * index_width.bytes());
    for &i in &indices {
        match index_width {
            IndexWidth::U16 => index_bytes.extend_from_slice(&(i as u16).to_le_bytes()),
            IndexWidth::U32 => index_bytes.extend_from_slice(&i.to_le_bytes()),
        }
    }

    let material = primitive.material();
    let pbr = material.pbr_metallic_roughness();
    let texture = match pbr.base_color_texture() {
        Some(info) => {
            let image = images
                .get(info.texture().source().index())
                .ok_or_else(|| format!("primitive {mesh_index}: missing base colour image"))?;
            Some(rgba8(image).map_err(|e| format!("primitive {mesh_index}: {e}"))?)
        }
        None => None,
    };
    let alpha = match material.alpha_mode() {
        gltf::material::AlphaMode::Mask => AlphaMode::Mask {
            cutoff: material.alpha_cutoff().unwrap_or(0.5),
        },
        gltf::material::AlphaMode::Opaque | gltf::material::AlphaMode::Blend => AlphaMode::Opaque,
    };
    Ok(OwnedPart {
        vertices,
        lods: vec![index_bytes],
        index_width,
        base_color: pbr.base_color_factor(),
        texture,
        alpha,
        double_sided: material.double_sided(),
    })
}

fn rgba8(image: &gltf::image::Data) -> Result<(u32, u32, Vec<u8>), String> {
    use gltf::image::Format;
    let pixels = match image.format {
        Format::R8G8B8A8 => image.pixels.clone(),
        Format::R8G8B8 => image
            .pixels
            .chunks_exact(3)
            .flat_map(|p| [p[0], p[1], p[2], 255])
            .collect(),
        Format::R8 => image.pixels.iter().flat_map(|&v| [v, v, v, 255]).collect(),
        Format::R8G8 => image
            .pixels
            .chunks_exact(2)
            .flat_map(|p| [p[0], p[0], p[0], p[1]])
            .collect(),
        other => {
            return Err(format!(
                "base colour image format {other:?} is not supported"
            ))
        }
    };
    Ok((image.width, image.height, pixels))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn assets() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../assets")
    }

    #[test]
    fn bundled_props_load_with_a_part_per_primitive() {
        let source = GlbSource::new(&assets());
        let oak = source.load("broadleaf/oak_wide").unwrap();
        assert_eq!(oak.geometry.parts.len(), 2, "trunk and leaves");
        for (i, part) in oak.geometry.parts().iter().enumerate() {
            part.validate(i).unwrap();
        }
        let cards = source.load("grass/tuft_cards").unwrap();
        let part = &cards.geometry.parts[0];
        assert!(matches!(part.alpha, AlphaMode::Mask { .. }));
        let (w, h, pixels) = part.texture.as_ref().unwrap();
        assert_eq!(pixels.len(), (w * h * 4) as usize);
    }

    #[test]
    fn node_transforms_are_applied() {
        // The log is authored standing (y from 0 to 2.8 m); its root node lays it on
        // its side, centred on the origin, raised by its radius.
        let log = read_glb(&assets().join("log/cut_log.glb")).unwrap();
        let extent = |part: &OwnedPart, axis: usize| {
            part.vertices
                .chunks_exact(VERTEX_STRIDE)
                .map(|v| {
                    let at = axis * 4;
                    f32::from_le_bytes([v[at], v[at + 1], v[at + 2], v[at + 3]])
                })
                .fold((f32::MAX, f32::MIN), |(lo, hi), x| (lo.min(x), hi.max(x)))
        };
        for part in &log.parts {
            let (x0, x1) = extent(part, 0);
            let (y0, y1) = extent(part, 1);
            assert!(
                (x0 + 1.4).abs() < 0.05 && (x1 - 1.4).abs() < 0.05,
                "x {x0}..{x1}"
            );
            assert!(y0 > -0.05 && y1 < 0.7, "y {y0}..{y1}");
        }
    }

    #[test]
    fn missing_and_broken_files_are_clear_errors() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("rock")).unwrap();
        std::fs::write(dir.path().join("rock/bad.glb"), b"not a glb").unwrap();
        let source = GlbSource::new(dir.path());
        let missing = source.load("rock/none").unwrap_err();
        assert!(missing.contains("no rock/none.glb"), "{missing}");
        let broken = source.load("rock/bad").unwrap_err();
        assert!(broken.contains("bad.glb"), "{broken}");
    }
}

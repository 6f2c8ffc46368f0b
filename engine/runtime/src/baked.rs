//! A cache entry seen by the renderer and the registry: its parts as GPU-ready
//! geometry (slices of the entry's and its texture blobs' bytes, no conversion pass)
//! and its shape.

use sylva_buckets::PropShape;
use sylva_cache::{Entry, IndexFormat, PropView};
use sylva_mesh::{AlphaMode as BakedAlpha, Channel, Material, BLEND_AS_MASK_CUTOFF};
use sylva_render::props::{
    AlphaMode, ImpostorGeometry, IndexWidth, LodIndices, PartGeometry, PartMaterial, TextureLevels,
};

/// The (parts, LODs, impostor) a baked entry gives the registry. Parts of one prop share
/// a level count: the coarsest any part has, since a placement's parts move together;
/// the impostor, where the bake made one, is the level after.
pub fn shape_of(entry: &Entry) -> PropShape {
    let lods = entry
        .parts
        .iter()
        .map(|p| p.levels.len())
        .min()
        .unwrap_or(0);
    PropShape {
        parts: entry.parts.len().min(u16::MAX as usize) as u16,
        lods: lods.min(u8::MAX as usize) as u8,
        impostor: entry.impostor().is_some(),
    }
}

/// What screen-space LOD switching needs of a baked prop drawn with `shape`: per drawable
/// level the largest error any part shows there in metres (the impostor's measured one
/// last, where it is drawn), and the radius of the prop's bounding sphere.
pub fn level_errors_of(entry: &Entry, shape: PropShape) -> (Vec<f32>, f32) {
    let mut errors: Vec<f32> = (0..usize::from(shape.lods))
        .map(|level| {
            entry
                .parts
                .iter()
                .filter_map(|part| part.levels.get(level))
                .map(|l| l.error_m)
                .fold(0.0, f32::max)
        })
        .collect();
    if shape.impostor {
        if let Some(impostor) = entry.impostor() {
            errors.push(impostor.error_m);
        }
    }
    (errors, entry.sphere.radius)
}

/// The prop's impostor as the props renderer draws it, its atlases borrowed from the
/// blobs; `None` where the bake made none.
pub fn impostor_of<'a>(prop: &'a PropView<'_>) -> Option<ImpostorGeometry<'a>> {
    let impostor = prop.entry.impostor()?;
    let (roughness, metallic) = mean_surface(prop);
    Some(ImpostorGeometry {
        grid: impostor.grid,
        cell_px: impostor.cell_px,
        center: impostor.sphere.center,
        radius: impostor.sphere.radius,
        albedo: texture_levels(prop, impostor.albedo as usize)?,
        normal: texture_levels(prop, impostor.normal as usize)?,
        depth: texture_levels(prop, impostor.depth as usize)?,
        roughness,
        metallic,
    })
}

/// The perceptual roughness and metallic of `prop`'s parts, each part's factor times its
/// metallic-roughness texture's mean (green and blue), weighted by its finest level's
/// triangles: what an impostor, whose atlas keeps neither, is shaded with.
fn mean_surface(prop: &PropView<'_>) -> (f32, f32) {
    let (mut roughness, mut metallic, mut weight) = (0.0f64, 0.0f64, 0.0f64);
    for part in &prop.entry.parts {
        let Some(finest) = part.levels.first() else {
            continue;
        };
        let index = match finest.index_format {
            IndexFormat::U16 => 2,
            IndexFormat::U32 => 4,
        };
        let triangles = (finest.index_bytes.len() / index / 3) as f64;
        let material = &part.material;
        let texture_mean = material
            .texture(Channel::MetallicRoughness)
            .and_then(|binding| prop.textures.get(binding.texture as usize)?.mean())
            .unwrap_or([1.0; 4]);
        roughness += triangles * f64::from(material.roughness_factor * texture_mean[1]);
        metallic += triangles * f64::from(material.metallic_factor * texture_mean[2]);
        weight += triangles;
    }
    if weight == 0.0 {
        // glTF's defaults.
        return (1.0, 1.0);
    }
    ((roughness / weight) as f32, (metallic / weight) as f32)
}

/// Texture `index` of the entry, borrowed from its blob.
fn texture_levels<'a>(prop: &'a PropView<'_>, index: usize) -> Option<TextureLevels<'a>> {
    let (id, t) = (prop.entry.textures.get(index)?, prop.textures.get(index)?);
    Some(TextureLevels {
        key: id.0,
        width: t.width,
        height: t.height,
        format: t.format,
        levels: &t.levels,
    })
}

/// Every part of `prop` as geometry the props renderer uploads directly; parts whose
/// textures are one blob share one GPU texture (the blob's content address is the key).
pub fn geometry_of<'a>(prop: &'a PropView<'_>) -> Vec<PartGeometry<'a>> {
    prop.entry
        .parts
        .iter()
        .map(|part| {
            let material = &part.material;
            PartGeometry {
                vertices: part.vertex_bytes,
                quantization: part.quantization,
                lods: part
                    .levels
                    .iter()
                    .map(|level| LodIndices {
                        bytes: level.index_bytes,
                        width: match level.index_format {
                            IndexFormat::U16 => IndexWidth::U16,
                            IndexFormat::U32 => IndexWidth::U32,
                        },
                    })
                    .collect(),
                material: part_material(prop, material),
            }
        })
        .collect()
}

/// A part's baked material as the props renderer draws it, its textures borrowed from
/// the blobs (a binding the entry cannot resolve draws untextured).
fn part_material<'a>(prop: &'a PropView<'_>, material: &Material) -> PartMaterial<'a> {
    let texture =
        |channel: Channel| texture_levels(prop, material.texture(channel)?.texture as usize);
    PartMaterial {
        base_color: material.base_color_factor,
        base_color_texture: texture(Channel::BaseColor),
        metallic: material.metallic_factor,
        roughness: material.roughness_factor,
        metallic_roughness_texture: texture(Channel::MetallicRoughness),
        normal_texture: texture(Channel::Normal),
        normal_scale: material.normal_scale,
        occlusion_texture: texture(Channel::Occlusion),
        occlusion_strength: material.occlusion_strength,
        emissive: material.emissive_factor,
        emissive_texture: texture(Channel::Emissive),
        alpha: match material.alpha_mode {
            BakedAlpha::Opaque => AlphaMode::Opaque,
            BakedAlpha::Mask { cutoff } => AlphaMode::Mask { cutoff },
            BakedAlpha::Blend => AlphaMode::Mask {
                cutoff: BLEND_AS_MASK_CUTOFF,
            },
        },
        double_sided: material.double_sided,
    }
}

//! One primitive of one mesh instance into a part in prop space.

use glam::{Mat3, Vec3};
use gltf::json::mesh::{Mode, Primitive, Semantic};
use gltf::json::validation::Checked;
use sylva_mesh::Vertex;

use crate::accessor::{Accessors, Use};
use crate::error::ImportError;
use crate::hierarchy::MeshInstance;
use crate::material::PrimitiveMaterial;
use crate::tangents::with_tangents;
use crate::topology::{triangle_list, vertex_normals};

/// A primitive's geometry in prop space.
pub(crate) struct Geometry {
    pub vertices: Vec<Vertex>,
    pub indices: Vec<u32>,
    pub generated_normals: bool,
    /// The material has a normal map and the file gave no TANGENT: MikkTSpace made them.
    pub generated_tangents: bool,
    pub converted_to_list: bool,
}

/// Why a primitive made no part (it is reported, not an error).
pub(crate) type Skip = String;

pub(crate) fn geometry(
    primitive: &Primitive,
    path: &str,
    instance: &MeshInstance,
    material: &PrimitiveMaterial,
    accessors: &mut Accessors<'_>,
) -> Result<Result<Geometry, Skip>, ImportError> {
    let Checked::Valid(mode) = primitive.mode else {
        return Err(ImportError::invalid(
            format!("{path}.mode"),
            "is not a glTF primitive mode",
        ));
    };
    if !matches!(
        mode,
        Mode::Triangles | Mode::TriangleStrip | Mode::TriangleFan
    ) {
        return Ok(Err(format!("{mode:?} are not triangles")));
    }
    let attribute = |s: Semantic| {
        primitive
            .attributes
            .get(&Checked::Valid(s.clone()))
            .map(|a| (a.value(), format!("{path}.attributes.{}", s.to_string())))
    };
    let Some((position_index, position_path)) = attribute(Semantic::Positions) else {
        return Ok(Err("no POSITION attribute".into()));
    };
    let positions = accessors.floats(position_index, Use::Position, &position_path)?;
    let count = positions.values.len() / 3;
    let mut read = |s: Semantic, usage: Use| -> Result<Option<Vec<f32>>, ImportError> {
        let Some((index, path)) = attribute(s) else {
            return Ok(None);
        };
        let floats = accessors.floats(index, usage, &path)?;
        if floats.values.len() / floats.dims != count {
            return Err(ImportError::invalid(
                path,
                format!(
                    "has {} elements but POSITION has {count}",
                    floats.values.len() / floats.dims
                ),
            ));
        }
        Ok(Some(if usage == Use::Color && floats.dims == 3 {
            floats
                .values
                .chunks_exact(3)
                .flat_map(|c| [c[0], c[1], c[2], 1.0])
                .collect()
        } else {
            floats.values
        }))
    };
    let normals = read(Semantic::Normals, Use::Normal)?;
    let normal_mapped = material.material.normal_texture.is_some();
    let tangents = match normal_mapped {
        true => read(Semantic::Tangents, Use::Tangent)?,
        false => None,
    };
    let uvs = read(Semantic::TexCoords(material.uv_set), Use::TexCoord)?;
    let colors = read(Semantic::Colors(0), Use::Color)?;

    let raw_indices = match primitive.indices {
        Some(i) => {
            let indices_path = format!("{path}.indices");
            let indices = accessors.indices(i.value(), &indices_path)?;
            if let Some((position, &index)) = indices
                .iter()
                .enumerate()
                .find(|(_, &v)| v as usize >= count)
            {
                return Err(ImportError::VertexIndex {
                    path: indices_path,
                    position,
                    index,
                    vertex_count: count,
                });
            }
            indices
        }
        None => (0..count as u32).collect(),
    };
    let Some(list) = triangle_list(mode, raw_indices) else {
        return Ok(Err(format!("{mode:?} are not triangles")));
    };
    let mut indices =
        list.map_err(|reason| ImportError::invalid(format!("{path}.indices"), reason))?;
    if indices.is_empty() {
        return Ok(Err("no triangles".into()));
    }

    let world = instance.world;
    let normal_matrix = Mat3::from_mat4(world).inverse().transpose();
    if world.determinant() < 0.0 {
        for t in indices.chunks_exact_mut(3) {
            t.swap(1, 2);
        }
    }
    let positions: Vec<Vec3> = positions
        .values
        .chunks_exact(3)
        .map(|p| world.transform_point3(Vec3::new(p[0], p[1], p[2])))
        .collect();
    if let Some(i) = positions.iter().position(|p| !p.is_finite()) {
        return Err(ImportError::invalid(
            position_path,
            format!("vertex {i} is not finite in prop space"),
        ));
    }
    let generated_normals = normals.is_none();
    let normals: Vec<Vec3> = match normals {
        Some(n) => n
            .chunks_exact(3)
            .map(|n| {
                (normal_matrix * Vec3::new(n[0], n[1], n[2]))
                    .try_normalize()
                    .unwrap_or(Vec3::Y)
            })
            .collect(),
        None => vertex_normals(&positions, &indices),
    };
    // Tangents are directions: the node's linear part carries them; a mirroring node
    // flips the bitangent, so `w` flips with it.
    let linear = Mat3::from_mat4(world);
    let handedness = world.determinant().signum();
    let tangent = |i: usize| match &tangents {
        Some(t) => {
            let xyz = (linear * Vec3::new(t[4 * i], t[4 * i + 1], t[4 * i + 2]))
                .try_normalize()
                .unwrap_or(Vec3::X);
            let w = if t[4 * i + 3] < 0.0 { -1.0 } else { 1.0 };
            [xyz.x, xyz.y, xyz.z, w * handedness]
        }
        None => [0.0; 4],
    };
    let vertices: Vec<Vertex> = (0..count)
        .map(|i| Vertex {
            position: positions[i].to_array(),
            normal: normals[i].to_array(),
            tangent: tangent(i),
            uv: uvs.as_ref().map_or([0.0; 2], |uv| {
                material.transform_uv([uv[2 * i], uv[2 * i + 1]])
            }),
            color: colors.as_ref().map_or([255; 4], |c| {
                std::array::from_fn(|k| (c[4 * i + k].clamp(0.0, 1.0) * 255.0).round() as u8)
            }),
        })
        .collect();
    let generated_tangents = normal_mapped && tangents.is_none();
    let (vertices, indices) = match generated_tangents {
        true => with_tangents(&vertices, &indices),
        false => (vertices, indices),
    };
    Ok(Ok(Geometry {
        vertices,
        indices,
        generated_normals,
        generated_tangents,
        converted_to_list: mode != Mode::Triangles,
    }))
}

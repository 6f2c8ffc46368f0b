//! glTF 2.0 import: a `.gltf` or `.glb` file's bytes in, **parts** out. Every triangle
//! primitive of every mesh instance in the scene becomes its own part, in prop space
//! (the node's world transform baked into positions, its inverse transpose into
//! normals), with its material and the asset's decoded textures.
//!
//! The crate never opens a file: the caller hands in the main file's bytes and a
//! [`Resolver`] for external URIs, which only ever sees normalised paths inside the
//! asset's folder. The document is read with gltf-json without its validation, and
//! checked here instead: every reference, count, offset and stride against the real
//! data, before allocating, and everything decoded against allowances proportional to
//! the input's size (see [`budget`]). Errors name the JSON path of the offending element.

pub mod accessor;
pub mod budget;
mod compression;
mod container;
mod error;
pub mod hierarchy;
pub mod image;
mod material;
mod primitive;
mod sources;
mod tangents;
mod topology;
mod uri;

#[cfg(test)]
mod tests;

use std::collections::BTreeMap;

pub use container::IgnoredExtension;
pub use error::ImportError;
pub use sources::Resolver;
use sylva_mesh::{Material, Texture, Vertex};

/// An imported asset: its parts and the textures their materials use.
#[derive(Clone, Debug, PartialEq)]
pub struct Imported {
    pub parts: Vec<ImportedPart>,
    pub textures: Vec<Texture>,
    pub stats: ImportStats,
}

/// One primitive of one mesh instance, in prop space.
#[derive(Clone, Debug, PartialEq)]
pub struct ImportedPart {
    /// Unique within the asset: the material name (else the node's, else the mesh's),
    /// with `#2`, `#3` … appended to repeats.
    pub name: String,
    /// JSON path of the source primitive, e.g. `meshes[0].primitives[1]`.
    pub source: String,
    pub material: Material,
    pub vertices: Vec<Vertex>,
    /// A triangle list; every index is below `vertices.len()`.
    pub indices: Vec<u32>,
    /// The file had no normals; they were computed from the triangles.
    pub generated_normals: bool,
}

/// What the import did besides producing parts.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ImportStats {
    /// Primitives met in the scene (one per primitive per mesh instance).
    pub primitives: usize,
    /// Triangle strips and fans converted to lists.
    pub converted_to_lists: usize,
    /// Parts whose normals were computed because the file had none.
    pub generated_normals: usize,
    /// Primitives that made no part, and why (points, lines, no POSITION …).
    pub skipped: Vec<Skipped>,
    /// Extensions the file uses that change no geometry and whose data was left out.
    pub ignored_extensions: Vec<IgnoredExtension>,
    /// Material texture channels left out, and why (a second UV set …).
    pub dropped_textures: Vec<Skipped>,
    /// Parts whose tangents were generated (MikkTSpace) for their normal map.
    pub generated_tangents: usize,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Skipped {
    pub path: String,
    pub reason: String,
}

/// Imports a `.gltf` or `.glb` file from its bytes; `resolve` reads the files its
/// URIs name.
pub fn import(bytes: &[u8], resolve: &mut Resolver<'_>) -> Result<Imported, ImportError> {
    let mut container = container::parse(bytes)?;
    let owned_buffers = sources::load_buffers(&container.root, container.bin, resolve)?;
    let mut buffers: Vec<&[u8]> = owned_buffers.iter().map(|b| &**b).collect();
    // What the decoding allowances grow with: the file and the buffers it loaded
    // (those from URIs; the GLB chunk is part of the file).
    let loaded: usize = owned_buffers
        .iter()
        .filter(|b| matches!(b, std::borrow::Cow::Owned(_)))
        .map(|b| b.len())
        .sum();
    let input_bytes = (bytes.len() + loaded) as u64;
    let decompressed = compression::decompress_views(
        &mut container.root,
        &buffers,
        &mut budget::Allowance::decompressed_bytes(input_bytes),
    )?;
    buffers.extend(decompressed.iter().map(Vec::as_slice));
    let root = &container.root;
    let mut accessors = accessor::Accessors::new(root, &buffers, input_bytes);
    let mut materials = material::Materials::new(root, &buffers, input_bytes);
    let mut stats = ImportStats {
        ignored_extensions: container.ignored.clone(),
        ..ImportStats::default()
    };
    let mut parts = Vec::new();
    let mut name_uses: BTreeMap<String, usize> = BTreeMap::new();

    for instance in hierarchy::mesh_instances(root)? {
        let mesh = &root.meshes[instance.mesh];
        let node = &root.nodes[instance.node];
        for (p, primitive) in mesh.primitives.iter().enumerate() {
            stats.primitives += 1;
            let path = format!("meshes[{}].primitives[{p}]", instance.mesh);
            let material = materials.get(
                primitive.material.map(|m| m.value()),
                &format!("{path}.material"),
                resolve,
            )?;
            let geometry = match primitive::geometry(
                primitive,
                &path,
                &instance,
                &material,
                &mut accessors,
            )? {
                Ok(geometry) => geometry,
                Err(reason) => {
                    stats.skipped.push(Skipped { path, reason });
                    continue;
                }
            };
            stats.converted_to_lists += usize::from(geometry.converted_to_list);
            stats.generated_normals += usize::from(geometry.generated_normals);
            stats.generated_tangents += usize::from(geometry.generated_tangents);
            let base = [
                Some(&material.material.name),
                node.name.as_ref(),
                mesh.name.as_ref(),
            ]
            .into_iter()
            .flatten()
            .find(|n| !n.is_empty())
            .map_or("part", String::as_str);
            let uses = name_uses.entry(base.to_owned()).or_insert(0);
            *uses += 1;
            let name = match *uses {
                1 => base.to_owned(),
                n => format!("{base}#{n}"),
            };
            parts.push(ImportedPart {
                name,
                source: path,
                material: material.material,
                vertices: geometry.vertices,
                indices: geometry.indices,
                generated_normals: geometry.generated_normals,
            });
        }
    }
    stats.dropped_textures = materials.dropped;
    Ok(Imported {
        parts,
        textures: materials.textures,
        stats,
    })
}

/// The files beside the asset that `bytes` refers to (buffers and images), as the
/// normalised relative paths [`import`] will ask its resolver for, in order of first
/// mention. Parses the document only; decodes nothing.
pub fn external_files(bytes: &[u8]) -> Result<Vec<String>, ImportError> {
    sources::external_files(&container::parse(bytes)?.root)
}

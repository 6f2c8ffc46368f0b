//! Walking the scene's node hierarchy into mesh instances with world transforms. The
//! walk is iterative with a depth bound, and a node reached twice (a cycle, or a
//! node with two parents) is an error, so no file can overflow the stack or loop.

use glam::{Mat4, Quat, Vec3};
use gltf::json::Root;

use crate::error::{element, ImportError};

/// glTF is right-handed (+Y up, +Z forward, −X right); sylva's frame is left-handed
/// (+Y up, +Z forward, +X right). Mirroring X maps one onto the other without turning
/// the asset around; the mirror flips every triangle's winding back to front-facing.
pub const GLTF_TO_SYLVA: Mat4 = Mat4::from_cols_array(&[
    -1.0, 0.0, 0.0, 0.0, //
    0.0, 1.0, 0.0, 0.0, //
    0.0, 0.0, 1.0, 0.0, //
    0.0, 0.0, 0.0, 1.0,
]);

/// Deepest node nesting accepted.
pub const MAX_NODE_DEPTH: usize = 64;

/// A mesh placed in the scene by a node.
pub(crate) struct MeshInstance {
    pub node: usize,
    pub mesh: usize,
    /// Node to prop space (sylva's left-handed frame).
    pub world: Mat4,
}

/// The mesh instances of the default scene (or the first scene, or, without scenes,
/// every root node) in depth-first order.
pub(crate) fn mesh_instances(root: &Root) -> Result<Vec<MeshInstance>, ImportError> {
    let roots = scene_roots(root)?;
    let mut visited = vec![false; root.nodes.len()];
    let mut instances = Vec::new();
    // (node, parent transform, depth, path of the reference)
    let mut stack: Vec<(usize, Mat4, usize, String)> = roots
        .into_iter()
        .rev()
        .map(|(node, path)| (node, GLTF_TO_SYLVA, 1, path))
        .collect();
    while let Some((index, parent, depth, path)) = stack.pop() {
        let node = element(&root.nodes, index, "node", &path)?;
        let here = format!("nodes[{index}]");
        if depth > MAX_NODE_DEPTH {
            return Err(ImportError::Hierarchy {
                path: here,
                reason: format!("nodes nest deeper than {MAX_NODE_DEPTH} levels"),
            });
        }
        if std::mem::replace(&mut visited[index], true) {
            return Err(ImportError::Hierarchy {
                path,
                reason: format!("node {index} is reached twice (a cycle or two parents)"),
            });
        }
        let world = parent * local_transform(node, &here)?;
        if let Some(mesh) = node.mesh {
            element(&root.meshes, mesh.value(), "mesh", &format!("{here}.mesh"))?;
            instances.push(MeshInstance {
                node: index,
                mesh: mesh.value(),
                world,
            });
        }
        for (i, child) in node
            .children
            .as_deref()
            .unwrap_or_default()
            .iter()
            .enumerate()
            .rev()
        {
            stack.push((
                child.value(),
                world,
                depth + 1,
                format!("{here}.children[{i}]"),
            ));
        }
    }
    Ok(instances)
}

fn scene_roots(root: &Root) -> Result<Vec<(usize, String)>, ImportError> {
    let scene = match root.scene {
        Some(s) => Some((
            element(&root.scenes, s.value(), "scene", "scene")?,
            s.value(),
        )),
        None => root.scenes.first().map(|s| (s, 0)),
    };
    if let Some((scene, s)) = scene {
        return Ok(scene
            .nodes
            .iter()
            .enumerate()
            .map(|(i, n)| (n.value(), format!("scenes[{s}].nodes[{i}]")))
            .collect());
    }
    let mut is_child = vec![false; root.nodes.len()];
    for node in &root.nodes {
        for child in node.children.iter().flatten() {
            if let Some(flag) = is_child.get_mut(child.value()) {
                *flag = true;
            }
        }
    }
    Ok((0..root.nodes.len())
        .filter(|&n| !is_child[n])
        .map(|n| (n, format!("nodes[{n}]")))
        .collect())
}

fn local_transform(node: &gltf::json::Node, here: &str) -> Result<Mat4, ImportError> {
    let transform = match node.matrix {
        Some(m) => Mat4::from_cols_array(&m),
        None => {
            let t = node.translation.unwrap_or([0.0; 3]);
            let r = node.rotation.map_or([0.0, 0.0, 0.0, 1.0], |q| q.0);
            let s = node.scale.unwrap_or([1.0; 3]);
            Mat4::from_scale_rotation_translation(
                Vec3::from(s),
                Quat::from_array(r).normalize(),
                Vec3::from(t),
            )
        }
    };
    if !transform.is_finite() {
        return Err(ImportError::invalid(
            here,
            "the node's transform is not finite",
        ));
    }
    Ok(transform)
}

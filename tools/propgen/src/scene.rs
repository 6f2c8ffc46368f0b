//! What one prop file holds before encoding: materials, meshes with their primitives,
//! a node tree and embedded PNG images.

use crate::math::V3;
use crate::mesh::Mesh;

#[derive(Clone, Debug, PartialEq)]
pub struct Prop {
    pub materials: Vec<Material>,
    pub meshes: Vec<PropMesh>,
    pub nodes: Vec<Node>,
    /// The scene's root nodes.
    pub roots: Vec<usize>,
    /// PNG files; image `i` is also texture `i`.
    pub images: Vec<Vec<u8>>,
}

/// A glTF metallic-roughness material (metallic 0).
#[derive(Clone, Debug, PartialEq)]
pub struct Material {
    pub name: String,
    pub base_color: [f32; 4],
    pub roughness: f32,
    /// Index of the base colour texture (and image).
    pub texture: Option<usize>,
    /// `alphaMode: MASK` with this cutoff.
    pub alpha_cutoff: Option<f32>,
    pub double_sided: bool,
}

impl Material {
    pub fn opaque(name: &str, rgb: [f32; 3], roughness: f32) -> Self {
        Material {
            name: name.to_owned(),
            base_color: [rgb[0], rgb[1], rgb[2], 1.0],
            roughness,
            texture: None,
            alpha_cutoff: None,
            double_sided: false,
        }
    }

    /// For open cards seen from both sides.
    pub fn double_sided(self) -> Self {
        Material {
            double_sided: true,
            ..self
        }
    }

    /// Textured with image `texture`, alpha-tested at `cutoff`.
    pub fn alpha_masked(self, texture: usize, cutoff: f32) -> Self {
        Material {
            texture: Some(texture),
            alpha_cutoff: Some(cutoff),
            ..self
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct PropMesh {
    pub name: String,
    pub primitives: Vec<Primitive>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Primitive {
    pub mesh: Mesh,
    /// Index into [`Prop::materials`].
    pub material: usize,
}

/// Translation, rotation (unit quaternion `[x, y, z, w]`) and scale; `None` parts are
/// the identity and are left out of the file.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Transform {
    pub translation: Option<[f32; 3]>,
    pub rotation: Option<[f32; 4]>,
    pub scale: Option<[f32; 3]>,
}

impl Transform {
    /// Applies scale, then rotation, then translation to `p`, as glTF does.
    pub fn apply(&self, p: V3) -> V3 {
        let [sx, sy, sz] = self.scale.unwrap_or([1.0; 3]);
        let p = p.scale(V3 {
            x: sx,
            y: sy,
            z: sz,
        });
        let p = match self.rotation {
            Some([x, y, z, w]) => {
                let q = V3 { x, y, z };
                let t = q.cross(p) * 2.0;
                p + t * w + q.cross(t)
            }
            None => p,
        };
        let [tx, ty, tz] = self.translation.unwrap_or([0.0; 3]);
        p + V3 {
            x: tx,
            y: ty,
            z: tz,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    pub name: String,
    pub mesh: Option<usize>,
    pub children: Vec<usize>,
    pub transform: Transform,
}

/// One part of a prop: a mesh, its material and a name for the mesh or node.
pub struct Part {
    pub name: String,
    pub mesh: Mesh,
    pub material: Material,
}

impl Part {
    pub fn new(name: &str, mesh: Mesh, material: Material) -> Self {
        Part {
            name: name.to_owned(),
            mesh,
            material,
        }
    }
}

/// How a prop's parts are laid out in the file: importers must handle both.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// One node holding one mesh with a primitive per part.
    OneMesh,
    /// A root node whose children each hold a single-primitive mesh.
    SiblingNodes,
}

impl Prop {
    /// Assembles `parts` under one root node named `name` carrying `transform`.
    pub fn assemble(
        name: &str,
        layout: Layout,
        transform: Transform,
        parts: Vec<Part>,
        images: Vec<Vec<u8>>,
    ) -> Self {
        let materials: Vec<Material> = parts.iter().map(|p| p.material.clone()).collect();
        let mut prop = Prop {
            materials,
            meshes: Vec::new(),
            nodes: Vec::new(),
            roots: vec![0],
            images,
        };
        match layout {
            Layout::OneMesh => {
                prop.meshes.push(PropMesh {
                    name: name.to_owned(),
                    primitives: parts
                        .into_iter()
                        .enumerate()
                        .map(|(material, p)| Primitive {
                            mesh: p.mesh,
                            material,
                        })
                        .collect(),
                });
                prop.nodes.push(Node {
                    name: name.to_owned(),
                    mesh: Some(0),
                    children: Vec::new(),
                    transform,
                });
            }
            Layout::SiblingNodes => {
                prop.nodes.push(Node {
                    name: name.to_owned(),
                    mesh: None,
                    children: (1..=parts.len()).collect(),
                    transform,
                });
                for (i, p) in parts.into_iter().enumerate() {
                    prop.meshes.push(PropMesh {
                        name: p.name.clone(),
                        primitives: vec![Primitive {
                            mesh: p.mesh,
                            material: i,
                        }],
                    });
                    prop.nodes.push(Node {
                        name: p.name,
                        mesh: Some(i),
                        children: Vec::new(),
                        transform: Transform::default(),
                    });
                }
            }
        }
        prop
    }
}

impl Prop {
    /// World-space bounds `(min, max)` of every mesh instanced by the scene's nodes.
    pub fn world_bounds(&self) -> (V3, V3) {
        let mut lo = V3 {
            x: f32::INFINITY,
            y: f32::INFINITY,
            z: f32::INFINITY,
        };
        let mut hi = -lo;
        let mut stack: Vec<(usize, Vec<Transform>)> =
            self.roots.iter().map(|&r| (r, Vec::new())).collect();
        while let Some((index, mut chain)) = stack.pop() {
            let node = &self.nodes[index];
            chain.push(node.transform);
            if let Some(mesh) = node.mesh {
                for primitive in &self.meshes[mesh].primitives {
                    for &[x, y, z] in &primitive.mesh.positions {
                        let p = chain.iter().rev().fold(V3 { x, y, z }, |p, t| t.apply(p));
                        lo = V3 {
                            x: lo.x.min(p.x),
                            y: lo.y.min(p.y),
                            z: lo.z.min(p.z),
                        };
                        hi = V3 {
                            x: hi.x.max(p.x),
                            y: hi.y.max(p.y),
                            z: hi.z.max(p.z),
                        };
                    }
                }
            }
            stack.extend(node.children.iter().map(|&c| (c, chain.clone())));
        }
        (lo, hi)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::{quat_axis_turns, v3};

    fn parts() -> Vec<Part> {
        ["bark", "foliage"]
            .iter()
            .map(|n| Part::new(n, Mesh::default(), Material::opaque(n, [0.5; 3], 0.9)))
            .collect()
    }

    #[test]
    fn one_mesh_layout_puts_every_part_in_one_mesh() {
        let prop = Prop::assemble(
            "tree",
            Layout::OneMesh,
            Transform::default(),
            parts(),
            vec![],
        );
        assert_eq!(prop.nodes.len(), 1);
        assert_eq!(prop.meshes.len(), 1);
        assert_eq!(prop.meshes[0].primitives.len(), 2);
        assert_eq!(prop.meshes[0].primitives[1].material, 1);
    }

    #[test]
    fn sibling_layout_gives_each_part_its_own_node_under_one_root() {
        let prop = Prop::assemble(
            "tree",
            Layout::SiblingNodes,
            Transform::default(),
            parts(),
            vec![],
        );
        assert_eq!(prop.roots, [0]);
        assert_eq!(prop.nodes[0].children, [1, 2]);
        assert_eq!(prop.nodes[2].name, "foliage");
        assert_eq!(prop.meshes[1].primitives[0].material, 1);
    }

    #[test]
    fn world_bounds_apply_the_node_transforms() {
        let mesh = Mesh {
            positions: vec![[0.0, 0.0, 0.0], [1.0, 2.0, 3.0]],
            ..Mesh::default()
        };
        let part = Part::new("box", mesh, Material::opaque("m", [1.0; 3], 0.9));
        let t = Transform {
            translation: Some([0.0, 1.0, 0.0]),
            scale: Some([2.0; 3]),
            ..Transform::default()
        };
        let prop = Prop::assemble("p", Layout::SiblingNodes, t, vec![part], vec![]);
        let (lo, hi) = prop.world_bounds();
        assert_eq!((lo, hi), (v3(0.0, 1.0, 0.0), v3(2.0, 5.0, 6.0)));
    }

    #[test]
    fn transforms_scale_then_rotate_then_translate() {
        let t = Transform {
            translation: Some([0.0, 1.0, 0.0]),
            rotation: Some(quat_axis_turns(V3::Z, 0.25)),
            scale: Some([2.0, 1.0, 1.0]),
        };
        let p = t.apply(v3(1.0, 0.0, 0.0));
        assert!((p - v3(0.0, 3.0, 0.0)).length() < 1e-6);
    }
}

//! The terrain as rend3 objects, one per quadtree patch the camera needs
//! ([`sylva_terrain::TerrainLod`]): patches are built when a camera first needs them
//! and dropped when it no longer does, so memory and triangles follow the view, not the
//! heightmap's size.

use std::collections::BTreeMap;

use glam::Vec3;
use rend3::types::glam as g20;
use rend3::types::{MaterialHandle, MeshBuilder, MeshHandle, Object, ObjectHandle, ObjectMeshKind};
use rend3::Renderer;
use rend3_routine::pbr::{AlbedoComponent, PbrMaterial};
use serde::Serialize;
use sylva_terrain::{PatchId, Terrain, TerrainLod, TerrainMesh};

use crate::camera::CameraView;
use crate::convert::srgb_byte;

/// The angle a patch's height error may subtend at the eye, in radians: 0.9 mrad is
/// a pixel of a 1080-line frame under the 55° field of view, so a patch changes step
/// where the change is at most about a pixel.
pub const TERRAIN_TOLERANCE: f32 = 0.0009;

/// How far the eye moves before the patches are chosen again, in metres.
const RESELECT_DISTANCE: f32 = 1.0;

/// What the terrain draws for the current camera.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct TerrainStats {
    /// Patches (rend3 objects) in use.
    pub patches: usize,
    /// Triangles of those patches, skirts included.
    pub triangles: u64,
    /// Patches built by the last update.
    pub built: usize,
}

struct Patch {
    _mesh: MeshHandle,
    _object: ObjectHandle,
    triangles: u64,
}

pub(crate) struct TerrainLayer {
    lod: TerrainLod,
    material: MaterialHandle,
    patches: BTreeMap<PatchId, Patch>,
    selected_at: Option<Vec3>,
    stats: TerrainStats,
}

impl TerrainLayer {
    pub(crate) fn new(renderer: &Renderer, terrain: &Terrain) -> Self {
        let material = renderer.add_material(PbrMaterial {
            albedo: AlbedoComponent::Vertex { srgb: true },
            roughness_factor: Some(0.95),
            metallic_factor: Some(0.0),
            reflectance: rend3_routine::pbr::MaterialComponent::Value(0.2),
            ..PbrMaterial::default()
        });
        Self {
            lod: TerrainLod::new(terrain),
            material,
            patches: BTreeMap::new(),
            selected_at: None,
            stats: TerrainStats::default(),
        }
    }

    /// Chooses the patches for `camera` (when its eye has moved since the last choice)
    /// and builds the ones not yet on the GPU. `terrain` must be the one this layer
    /// was made for.
    pub(crate) fn update(
        &mut self,
        renderer: &Renderer,
        terrain: &Terrain,
        camera: &CameraView,
    ) -> TerrainStats {
        self.stats.built = 0;
        let moved = self
            .selected_at
            .is_none_or(|at| at.distance_squared(camera.eye) > RESELECT_DISTANCE.powi(2));
        if !moved {
            return self.stats;
        }
        let selection = self.lod.select(camera.eye, TERRAIN_TOLERANCE);
        let mut patches = BTreeMap::new();
        for id in selection {
            let patch = match self.patches.remove(&id) {
                Some(patch) => patch,
                None => {
                    self.stats.built += 1;
                    self.build(renderer, terrain, id)
                }
            };
            patches.insert(id, patch);
        }
        // Patches left in the old map are no longer needed: dropping their handles
        // frees them in rend3.
        self.patches = patches;
        self.selected_at = Some(camera.eye);
        self.stats.patches = self.patches.len();
        self.stats.triangles = self.patches.values().map(|p| p.triangles).sum();
        self.stats
    }

    fn build(&self, renderer: &Renderer, terrain: &Terrain, id: PatchId) -> Patch {
        let mesh = self.lod.patch_mesh(terrain, id);
        let triangles = mesh.triangle_count() as u64;
        let mesh = renderer.add_mesh(to_rend3(mesh));
        let object = renderer.add_object(Object {
            mesh_kind: ObjectMeshKind::Static(mesh.clone()),
            material: self.material.clone(),
            transform: g20::Mat4::IDENTITY,
        });
        Patch {
            _mesh: mesh,
            _object: object,
            triangles,
        }
    }
}

fn to_rend3(mesh: TerrainMesh) -> rend3::types::Mesh {
    let positions = mesh.positions.iter().map(|&p| g20::Vec3::from(p)).collect();
    let normals = mesh.normals.iter().map(|&n| g20::Vec3::from(n)).collect();
    let colors = mesh
        .colors
        .iter()
        .map(|&[r, g, b, a]| {
            [
                srgb_byte(r),
                srgb_byte(g),
                srgb_byte(b),
                (a * 255.0).round() as u8,
            ]
        })
        .collect();
    MeshBuilder::new(positions, rend3::types::Handedness::Left)
        .with_vertex_normals(normals)
        .with_vertex_colors(colors)
        .with_indices(mesh.indices)
        .build()
        // Patch meshes index only their own vertices and come with a normal and a
        // colour per vertex: rend3's validation cannot fail on them.
        .expect("terrain patches are valid rend3 meshes")
}

use std::sync::Arc;

use glam::{Mat4, Quat, Vec3};
use serde::{Deserialize, Serialize};

/// Identity of a placement: unique within a session and increasing in creation order,
/// which is also the FIFO eviction order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct PlacementId(pub u64);

/// One prop instance standing on the terrain.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Placement {
    pub id: PlacementId,
    /// Catalog prop id, e.g. `conifer/pine_tall`.
    pub prop: Arc<str>,
    pub category: Arc<str>,
    /// Spacing family of the category.
    pub family: Arc<str>,
    /// Base of the prop, on the ground.
    pub position: Vec3,
    pub rotation: Quat,
    pub scale: f32,
}

impl Placement {
    /// Model matrix: scale, then rotate, then translate.
    pub fn transform(&self) -> Mat4 {
        Mat4::from_scale_rotation_translation(Vec3::splat(self.scale), self.rotation, self.position)
    }

    /// Appends the exact bytes that identify this placement, for session digests.
    pub fn write_identity(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.id.0.to_le_bytes());
        out.extend_from_slice(&(self.prop.len() as u32).to_le_bytes());
        out.extend_from_slice(self.prop.as_bytes());
        let numbers = self
            .position
            .to_array()
            .into_iter()
            .chain(self.rotation.to_array())
            .chain([self.scale]);
        for n in numbers {
            out.extend_from_slice(&n.to_bits().to_le_bytes());
        }
    }
}

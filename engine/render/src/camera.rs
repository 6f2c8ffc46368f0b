use glam::{Mat4, Vec3};
use rend3::types::{Camera, CameraProjection};

use crate::convert;

/// Nearest distance drawn, in metres; rend3's projection has no far plane.
const NEAR: f32 = 0.3;

/// Where the camera is and what it looks at, in world space.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CameraView {
    pub eye: Vec3,
    pub target: Vec3,
    /// Vertical field of view in degrees.
    pub vfov: f32,
}

impl CameraView {
    pub fn new(eye: Vec3, target: Vec3) -> Self {
        Self {
            eye,
            target,
            vfov: 55.0,
        }
    }

    /// The world-to-view matrix of sylva's left-handed, y-up frame.
    pub fn view_matrix(&self) -> Mat4 {
        glam::camera::lh::view::look_at_mat4(self.eye, self.target, Vec3::Y)
    }

    pub(crate) fn to_rend3(self) -> Camera {
        Camera {
            projection: CameraProjection::Perspective {
                vfov: self.vfov,
                near: NEAR,
            },
            view: convert::mat4(self.view_matrix()),
        }
    }
}

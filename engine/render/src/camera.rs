use glam::{Mat4, Vec3};
use rend3::types::{Camera, CameraProjection};
use sylva_terrain::{Landmark, Terrain};

use crate::convert;

/// Where the camera is and what it looks at, in world space.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CameraView {
    /// Where the camera is.
    pub eye: Vec3,
    /// The point it looks at.
    pub target: Vec3,
    /// Vertical field of view in degrees.
    pub vfov: f32,
}

impl CameraView {
    /// Nearest distance drawn, in metres; rend3's projection has no far plane.
    pub const NEAR: f32 = 0.3;

    /// A camera at `eye` looking at `target` with a 55° vertical field of view.
    pub fn new(eye: Vec3, target: Vec3) -> Self {
        Self {
            eye,
            target,
            vfov: 55.0,
        }
    }

    /// The whole default-sized world from high in the south.
    pub fn overview(terrain: &Terrain) -> Self {
        let size = terrain.size();
        let target = Vec3::new(0.0, 0.0, -0.05 * size.y);
        Self::new(Vec3::new(0.0, 0.55 * size.y, -0.85 * size.y), target)
    }

    /// A close-up of a landmark of the default world, from the side that shows what
    /// grows there (the cliff face looks west, the shores look at the water).
    pub fn landmark(terrain: &Terrain, landmark: Landmark) -> Self {
        let at = landmark.position();
        let target = Vec3::new(at.x, terrain.sample_height(at.x, at.y), at.y);
        let offset = match landmark {
            Landmark::Cliff => Vec3::new(-34.0, 10.0, -12.0),
            Landmark::Beach => Vec3::new(-14.0, 9.0, -26.0),
            Landmark::Lake => Vec3::new(-26.0, 9.0, -16.0),
            Landmark::Meadow | Landmark::Mountains => Vec3::new(-20.0, 13.0, -28.0),
        };
        // Never below the ground at the eye.
        let mut eye = target + offset;
        eye.y = eye.y.max(terrain.sample_height(eye.x, eye.z) + 2.0);
        Self::new(eye, target)
    }

    /// The world-to-view matrix of sylva's left-handed, y-up frame.
    pub fn view_matrix(&self) -> Mat4 {
        glam::camera::lh::view::look_at_mat4(self.eye, self.target, Vec3::Y)
    }

    /// World to clip space for a frame of `aspect` (width ÷ height), as rend3 computes it.
    pub fn view_proj(&self, aspect: f32) -> Mat4 {
        let manager = rend3::managers::CameraManager::new(
            self.to_rend3(),
            rend3::types::Handedness::Left,
            Some(aspect),
        );
        convert::from_mat4(manager.view_proj())
    }

    /// The rend3 camera of this view (`Renderer::set_camera_data`).
    pub fn to_rend3(self) -> Camera {
        Camera {
            projection: CameraProjection::Perspective {
                vfov: self.vfov,
                near: Self::NEAR,
            },
            view: convert::mat4(self.view_matrix()),
        }
    }
}

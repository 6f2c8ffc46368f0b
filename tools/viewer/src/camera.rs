//! The camera controller: orbit around a point on the ground, or fly freely. Pure:
//! held keys arrive as axes, mouse drags as pixels, time as the frame's `dt`, and the
//! ground as a height function. Keyboard motion is speed × dt (metres per second,
//! radians per second), so it covers the same distance at any frame rate; mouse drags
//! are already absolute and are not scaled by time.

use glam::{Vec2, Vec3};
use sylva_render::CameraView;
use sylva_terrain::Ray;

/// Vertical field of view of the viewer's camera, in degrees.
pub const VFOV_DEGREES: f32 = 55.0;
/// Nearest allowed orbit distance and eye height above the ground, in metres.
const MIN_DISTANCE: f32 = 2.0;
/// Farthest orbit distance on a small world; larger worlds allow 1.5 × their extent.
const MAX_DISTANCE: f32 = 1500.0;
const MIN_CLEARANCE: f32 = 1.0;
/// Height above the ground up to which flying goes at the base travel speed; higher
/// up it goes faster in proportion, so crossing a 4 km world from the air takes seconds.
const FLY_BASE_HEIGHT: f32 = 50.0;
/// Pitch limits (radians, positive looks down): never straight down or up.
const MAX_PITCH: f32 = 1.5;
const MIN_ORBIT_PITCH: f32 = 0.05;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CameraMode {
    /// Turns around a target on the ground; moving slides the target.
    Orbit,
    /// Moves the eye along the view direction.
    Fly,
}

/// How fast the camera responds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CameraSpeeds {
    /// Keyboard travel in metres per second at an orbit distance of 100 m (orbit
    /// travel scales with distance) or flat (fly).
    pub travel_m_per_s: f32,
    /// Keyboard turning in radians per second.
    pub turn_rad_per_s: f32,
    /// Mouse-drag turning in radians per pixel.
    pub drag_rad_per_px: f32,
    /// Orbit distance factor per wheel line (zoom in below 1).
    pub zoom_per_line: f32,
}

impl Default for CameraSpeeds {
    fn default() -> Self {
        Self {
            travel_m_per_s: 40.0,
            turn_rad_per_s: 1.2,
            drag_rad_per_px: 0.005,
            zoom_per_line: 0.85,
        }
    }
}

/// What the user asks of the camera during one frame.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct CameraInput {
    /// Held keys as axes in `[-1, 1]`: forward (+) / back, right (+) / left,
    /// up (+) / down, and keyboard yaw (+ turns right) and pitch (+ looks down).
    pub forward: f32,
    pub right: f32,
    pub up: f32,
    pub yaw: f32,
    pub pitch: f32,
    /// Mouse drag this frame, in pixels (+x turns right, +y looks down).
    pub drag_px: Vec2,
    /// Wheel lines this frame (+ zooms in).
    pub wheel_lines: f32,
}

#[derive(Clone, Debug, PartialEq)]
pub struct CameraController {
    mode: CameraMode,
    /// Orbit centre (orbit mode) — kept on the ground.
    target: Vec3,
    /// Eye position (fly mode); derived from the target in orbit mode.
    eye: Vec3,
    /// Heading in radians: 0 looks north (+z), π/2 east (+x).
    yaw: f32,
    /// Radians below the horizon the camera looks.
    pitch: f32,
    /// Eye to target, orbit mode.
    distance: f32,
    /// Farthest orbit distance: scales with the world ([`CameraController::fit_world`]).
    max_distance: f32,
    speeds: CameraSpeeds,
}

impl CameraController {
    /// Orbiting `target` from `distance` metres, looking along `yaw` and `pitch`
    /// (radians).
    pub fn orbit(target: Vec3, distance: f32, yaw: f32, pitch: f32) -> Self {
        let mut camera = Self {
            mode: CameraMode::Orbit,
            target,
            eye: Vec3::ZERO,
            yaw,
            pitch: pitch.clamp(MIN_ORBIT_PITCH, MAX_PITCH),
            distance: distance.clamp(MIN_DISTANCE, MAX_DISTANCE),
            max_distance: MAX_DISTANCE,
            speeds: CameraSpeeds::default(),
        };
        camera.eye = camera.orbit_eye();
        camera
    }

    /// Lets the orbit back away to see a world `extent` metres across as a whole.
    pub fn fit_world(mut self, extent: f32) -> Self {
        if extent.is_finite() {
            self.max_distance = MAX_DISTANCE.max(1.5 * extent);
        }
        self
    }

    pub fn mode(&self) -> CameraMode {
        self.mode
    }

    pub fn eye(&self) -> Vec3 {
        self.eye
    }

    /// Unit vector the camera looks along.
    pub fn forward(&self) -> Vec3 {
        let (sin_yaw, cos_yaw) = self.yaw.sin_cos();
        let (sin_pitch, cos_pitch) = self.pitch.sin_cos();
        Vec3::new(sin_yaw * cos_pitch, -sin_pitch, cos_yaw * cos_pitch)
    }

    /// Switches between orbit and fly, keeping the eye and view direction.
    pub fn set_mode(&mut self, mode: CameraMode, ground: impl Fn(f32, f32) -> f32) {
        if mode == self.mode {
            return;
        }
        if mode == CameraMode::Orbit {
            // Orbit the ground point ahead, at the current distance.
            self.pitch = self.pitch.max(MIN_ORBIT_PITCH);
            let ahead = self.eye + self.forward() * self.distance;
            self.target = Vec3::new(ahead.x, ground(ahead.x, ahead.z), ahead.z);
            self.distance = self
                .eye
                .distance(self.target)
                .clamp(MIN_DISTANCE, self.max_distance);
            self.eye = self.orbit_eye();
        }
        self.mode = mode;
    }

    /// Advances the camera by one frame of `dt` seconds.
    pub fn update(&mut self, input: &CameraInput, dt: f32, ground: impl Fn(f32, f32) -> f32) {
        let dt = if dt.is_finite() {
            dt.clamp(0.0, 0.25)
        } else {
            0.0
        };
        let s = self.speeds;
        self.yaw += input.yaw * s.turn_rad_per_s * dt + input.drag_px.x * s.drag_rad_per_px;
        self.yaw = self.yaw.rem_euclid(std::f32::consts::TAU);
        let min_pitch = match self.mode {
            CameraMode::Orbit => MIN_ORBIT_PITCH,
            CameraMode::Fly => -MAX_PITCH,
        };
        self.pitch = (self.pitch
            + input.pitch * s.turn_rad_per_s * dt
            + input.drag_px.y * s.drag_rad_per_px)
            .clamp(min_pitch, MAX_PITCH);
        match self.mode {
            CameraMode::Orbit => self.update_orbit(input, dt, &ground),
            CameraMode::Fly => self.update_fly(input, dt, &ground),
        }
    }

    fn update_orbit(&mut self, input: &CameraInput, dt: f32, ground: &impl Fn(f32, f32) -> f32) {
        if input.wheel_lines.is_finite() {
            self.distance = (self.distance * self.speeds.zoom_per_line.powf(input.wheel_lines))
                .clamp(MIN_DISTANCE, self.max_distance);
        }
        // Travel over the ground, faster when far away.
        let travel = self.speeds.travel_m_per_s * (self.distance / 100.0).max(0.2) * dt;
        let (sin_yaw, cos_yaw) = self.yaw.sin_cos();
        let ahead = Vec2::new(sin_yaw, cos_yaw);
        let right = Vec2::new(cos_yaw, -sin_yaw);
        let step = (ahead * input.forward + right * input.right) * travel;
        let (x, z) = (self.target.x + step.x, self.target.z + step.y);
        self.target = Vec3::new(x, ground(x, z), z);
        // Rising backs away from the target, sinking closes in.
        self.distance =
            (self.distance * (1.0 + input.up * dt)).clamp(MIN_DISTANCE, self.max_distance);
        self.eye = self.orbit_eye();
        self.lift_above(ground);
    }

    fn update_fly(&mut self, input: &CameraInput, dt: f32, ground: &impl Fn(f32, f32) -> f32) {
        let height = self.eye.y - ground(self.eye.x, self.eye.z);
        let travel = self.speeds.travel_m_per_s * (height / FLY_BASE_HEIGHT).max(1.0) * dt;
        let forward = self.forward();
        let right = Vec3::Y.cross(forward).normalize_or_zero();
        let wheel = if input.wheel_lines.is_finite() {
            input.wheel_lines * 2.0
        } else {
            0.0
        };
        self.eye += forward * (input.forward * travel + wheel)
            + right * (input.right * travel)
            + Vec3::Y * (input.up * travel);
        self.lift_above(ground);
    }

    /// Keeps the eye at least [`MIN_CLEARANCE`] above the ground.
    fn lift_above(&mut self, ground: &impl Fn(f32, f32) -> f32) {
        let floor = ground(self.eye.x, self.eye.z) + MIN_CLEARANCE;
        if self.eye.y < floor {
            self.eye.y = floor;
        }
    }

    fn orbit_eye(&self) -> Vec3 {
        self.target - self.forward() * self.distance
    }

    /// What rend3 is told about the camera. The target is the orbit centre (in fly
    /// mode, the point as far ahead), which also sizes the sun's shadow box.
    pub fn view(&self) -> CameraView {
        let mut view = CameraView::new(self.eye, self.eye + self.forward() * self.distance);
        view.vfov = VFOV_DEGREES;
        view
    }

    /// The world-space ray through pixel `(x, y)` (origin top left) of a `size` view.
    pub fn ray_through(&self, pixel: Vec2, size: Vec2) -> Ray {
        pixel_ray(self.eye, self.forward(), VFOV_DEGREES, pixel, size)
    }
}

/// The ray from `eye` through pixel `pixel` (pixel centres at +0.5) of a `size` view
/// looking along `forward` with a vertical field of view of `vfov_degrees`, in sylva's
/// left-handed, y-up frame.
pub fn pixel_ray(eye: Vec3, forward: Vec3, vfov_degrees: f32, pixel: Vec2, size: Vec2) -> Ray {
    let size = size.max(Vec2::ONE);
    let ndc = Vec2::new(
        2.0 * (pixel.x + 0.5) / size.x - 1.0,
        1.0 - 2.0 * (pixel.y + 0.5) / size.y,
    );
    let tan_half = (vfov_degrees.to_radians() * 0.5).tan();
    let right = Vec3::Y.cross(forward).normalize_or_zero();
    let up = forward.cross(right);
    let direction =
        forward + right * (ndc.x * tan_half * size.x / size.y) + up * (ndc.y * tan_half);
    Ray {
        origin: eye,
        direction: direction.normalize(),
    }
}

#[cfg(test)]
mod tests {
    use glam::Vec4Swizzles;

    use super::*;

    fn flat(_: f32, _: f32) -> f32 {
        0.0
    }

    fn camera() -> CameraController {
        CameraController::orbit(Vec3::ZERO, 50.0, 0.3, 0.6)
    }

    #[test]
    fn orbit_eye_is_distance_from_the_target_looking_at_it() {
        let c = camera();
        assert!((c.eye().distance(Vec3::ZERO) - 50.0).abs() < 1e-3);
        let towards_target = (Vec3::ZERO - c.eye()).normalize();
        assert!(towards_target.abs_diff_eq(c.forward(), 1e-5));
    }

    #[test]
    fn yaw_zero_looks_north_and_positive_yaw_turns_east() {
        let mut c = CameraController::orbit(Vec3::ZERO, 10.0, 0.0, 0.1);
        assert!(c.forward().z > 0.9);
        c.update(
            &CameraInput {
                yaw: 1.0,
                ..Default::default()
            },
            0.2,
            flat,
        );
        assert!(c.forward().x > 0.0, "turning right from north faces east");
    }

    #[test]
    fn keyboard_motion_is_frame_rate_independent() {
        let input = CameraInput {
            forward: 1.0,
            right: 0.5,
            yaw: 1.0,
            pitch: 0.3,
            ..Default::default()
        };
        for mode in [CameraMode::Orbit, CameraMode::Fly] {
            let mut one_frame = camera();
            one_frame.set_mode(mode, flat);
            let mut ten_frames = one_frame.clone();
            one_frame.update(&input, 0.1, flat);
            for _ in 0..10 {
                ten_frames.update(&input, 0.01, flat);
            }
            assert!(
                one_frame.eye().abs_diff_eq(ten_frames.eye(), 0.5),
                "{mode:?}: {:?} vs {:?}",
                one_frame.eye(),
                ten_frames.eye()
            );
            assert!((one_frame.yaw - ten_frames.yaw).abs() < 1e-4);
        }
    }

    #[test]
    fn travel_speed_is_metres_per_second() {
        let mut c = camera();
        c.set_mode(CameraMode::Fly, flat);
        c.pitch = 0.0;
        let before = c.eye();
        c.update(
            &CameraInput {
                forward: 1.0,
                ..Default::default()
            },
            0.25,
            flat,
        );
        let moved = c.eye().distance(before);
        assert!((moved - 40.0 * 0.25).abs() < 1e-3, "{moved}");
    }

    #[test]
    fn flying_high_goes_faster_in_proportion_to_the_height() {
        let mut low = CameraController::orbit(Vec3::ZERO, 10.0, 0.0, 0.0);
        low.set_mode(CameraMode::Fly, flat);
        low.pitch = 0.0;
        low.eye.y = 10.0;
        let mut high = low.clone();
        high.eye.y = 500.0;
        let input = CameraInput {
            forward: 1.0,
            ..Default::default()
        };
        let (low_start, high_start) = (low.eye(), high.eye());
        low.update(&input, 0.25, flat);
        high.update(&input, 0.25, flat);
        let ratio = high.eye().distance(high_start) / low.eye().distance(low_start);
        assert!((ratio - 10.0).abs() < 1e-3, "{ratio}");
    }

    #[test]
    fn a_large_world_lets_the_orbit_back_away_to_see_all_of_it() {
        let zoom_out = CameraInput {
            wheel_lines: -500.0,
            ..Default::default()
        };
        let mut small = camera();
        small.update(&zoom_out, 0.016, flat);
        assert_eq!(small.distance, MAX_DISTANCE);
        let mut large = camera().fit_world(4096.0);
        large.update(&zoom_out, 0.016, flat);
        assert_eq!(large.distance, 1.5 * 4096.0);
    }

    #[test]
    fn a_huge_or_broken_dt_does_not_fling_the_camera() {
        let mut c = camera();
        let before = c.clone();
        c.update(
            &CameraInput {
                forward: 1.0,
                ..Default::default()
            },
            f32::NAN,
            flat,
        );
        assert_eq!(c, before);
        c.update(
            &CameraInput {
                forward: 1.0,
                ..Default::default()
            },
            1000.0,
            flat,
        );
        assert!(c.target.distance(before.target) < 40.0);
    }

    #[test]
    fn the_eye_stays_above_the_ground() {
        let mut c = CameraController::orbit(Vec3::ZERO, 10.0, 0.0, 0.1);
        c.set_mode(CameraMode::Fly, flat);
        let hill = |_: f32, _: f32| 30.0;
        c.update(&CameraInput::default(), 0.016, hill);
        assert!(c.eye().y >= 31.0 - 1e-4);
    }

    #[test]
    fn wheel_zooms_the_orbit_within_limits() {
        let mut c = camera();
        c.update(
            &CameraInput {
                wheel_lines: 2.0,
                ..Default::default()
            },
            0.016,
            flat,
        );
        assert!((c.distance - 50.0 * 0.85 * 0.85).abs() < 1e-3);
        c.update(
            &CameraInput {
                wheel_lines: 500.0,
                ..Default::default()
            },
            0.016,
            flat,
        );
        assert_eq!(c.distance, MIN_DISTANCE);
    }

    #[test]
    fn switching_modes_keeps_the_view() {
        let mut c = camera();
        let (eye, forward) = (c.eye(), c.forward());
        c.set_mode(CameraMode::Fly, flat);
        assert!(c.eye().abs_diff_eq(eye, 1e-4) && c.forward().abs_diff_eq(forward, 1e-5));
        c.set_mode(CameraMode::Orbit, flat);
        assert!(c.eye().abs_diff_eq(eye, 1e-2), "{:?} vs {eye:?}", c.eye());
        assert!(c.target.y.abs() < 1e-4, "orbit target is on the ground");
    }

    /// The pixel ray agrees with the projection rend3 draws with (infinite reverse-Z
    /// perspective, left-handed look-at).
    #[test]
    fn pixel_rays_pass_through_what_is_drawn_at_that_pixel() {
        let c = camera();
        let size = Vec2::new(640.0, 360.0);
        let view = c.view().view_matrix();
        let projection = glam::camera::lh::proj::directx::perspective_infinite_reverse(
            VFOV_DEGREES.to_radians(),
            size.x / size.y,
            0.3,
        );
        for pixel in [
            Vec2::new(0.0, 0.0),
            Vec2::new(320.0, 180.0),
            Vec2::new(600.0, 40.0),
        ] {
            let ray = c.ray_through(pixel, size);
            let point = ray.at(37.0);
            let clip = projection * view * point.extend(1.0);
            let ndc = clip.xy() / clip.w;
            let drawn_at = Vec2::new(
                (ndc.x + 1.0) * 0.5 * size.x - 0.5,
                (1.0 - ndc.y) * 0.5 * size.y - 0.5,
            );
            assert!(drawn_at.abs_diff_eq(pixel, 0.01), "{pixel} → {drawn_at}");
        }
    }
}

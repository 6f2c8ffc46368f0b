//! What rend3 itself draws: the terrain (rend3 meshes with biome vertex colours, at the
//! level of detail the camera needs), the sun with its shadows, the sky, and the haze
//! the fog pass fades the ground into it with.

use glam::Vec3;
use rend3::types::glam as g20;
use rend3::types::{
    DirectionalLight, DirectionalLightChange, DirectionalLightHandle, TextureHandle,
};
use rend3::Renderer;
use sylva_terrain::Terrain;

use crate::camera::CameraView;
use crate::context::RenderContext;
use crate::convert;
use crate::error::RenderError;
use crate::fog::Fog;
use crate::props::LightReach;
use crate::sky::sky_texture;
use crate::terrain::{TerrainLayer, TerrainStats};

/// Direction the sunlight travels (a unit vector) unless [`Scene::set_sun`] says
/// otherwise: from the west-south-west (bearing 245°), 62° up, so shadows fall sideways
/// in views from the south and the eastern cliff's west face is lit. Above 45° on
/// purpose: rend3's shadow box is a cube centred on the camera whose depth along the
/// light equals its side, and ground past its far face reads as shadowed. Under a lower
/// sun that leaves a band of false shadow downwind, from about half the side away;
/// under a higher one a large enough cube (see [`Scene::fit_shadows`]) reaches the
/// ground beneath everything it covers.
pub const SUN_DIRECTION: Vec3 = Vec3::new(0.426, -0.883, 0.197);

/// The direction sunlight travels from a sun `elevation_deg` above the horizon at
/// compass bearing `bearing_deg` (clockwise from north, +Z; east is +X).
pub fn sun_direction(elevation_deg: f32, bearing_deg: f32) -> Result<Vec3, RenderError> {
    if !(1.0..=90.0).contains(&elevation_deg) {
        return Err(RenderError::SunElevation { elevation_deg });
    }
    let (elevation, bearing) = (elevation_deg.to_radians(), bearing_deg.to_radians());
    let toward_sun = Vec3::new(
        elevation.cos() * bearing.sin(),
        elevation.sin(),
        elevation.cos() * bearing.cos(),
    );
    Ok(-toward_sun)
}

/// The rend3-side world. Dropping it removes the terrain, sun and sky. Call
/// [`Scene::update_terrain`] before each frame: the terrain draws only the patches the
/// last camera it was given needs.
pub struct Scene {
    terrain: TerrainLayer,
    sun: DirectionalLightHandle,
    /// Direction the sunlight travels, a unit vector.
    sun_direction: Vec3,
    _sky: TextureHandle,
    /// The terrain's lowest point: nothing below it receives a shadow.
    floor: f32,
    /// The terrain's haze.
    fog: Fog,
}

impl Scene {
    /// Adds the terrain, the sun and the sky of `terrain` to `context`'s renderer.
    pub fn new(context: &mut RenderContext, terrain: &Terrain) -> Result<Self, RenderError> {
        let renderer = &context.renderer;
        let terrain_layer = TerrainLayer::new(renderer, terrain);
        let sun = renderer.add_directional_light(DirectionalLight {
            color: g20::Vec3::new(1.0, 0.95, 0.86),
            intensity: 4.0,
            direction: convert::vec3(SUN_DIRECTION.normalize()),
            distance: 250.0,
        });
        let sky = renderer.add_texture_cube(sky_texture());
        context.skybox.set_background_texture(Some(sky.clone()));
        Ok(Self {
            terrain: terrain_layer,
            sun,
            sun_direction: SUN_DIRECTION.normalize(),
            _sky: sky,
            floor: terrain.height_range().0,
            fog: Fog::for_terrain(terrain),
        })
    }

    /// Brings the terrain's patches in line with `camera` (`terrain` is the one the
    /// scene was made for); returns what it draws.
    pub fn update_terrain(
        &mut self,
        renderer: &Renderer,
        terrain: &Terrain,
        camera: &CameraView,
    ) -> TerrainStats {
        self.terrain.update(renderer, terrain, camera)
    }

    /// Moves the sun: its light travels along `direction` (see [`sun_direction`]); its
    /// shadows follow from the next frame.
    pub fn set_sun(&mut self, renderer: &Renderer, direction: Vec3) {
        self.sun_direction = direction.normalize();
        renderer.update_directional_light(
            &self.sun,
            DirectionalLightChange {
                direction: Some(convert::vec3(self.sun_direction)),
                ..Default::default()
            },
        );
    }

    /// Direction the sunlight travels.
    pub fn sun(&self) -> Vec3 {
        self.sun_direction
    }

    /// The haze of the terrain, scaled with its size.
    pub fn fog(&self) -> Fog {
        self.fog
    }

    /// How far each directional light's shadows reach, in rend3's light order.
    pub fn light_reach(&self) -> [LightReach; 1] {
        [LightReach {
            direction: self.sun_direction,
            floor: self.floor,
        }]
    }

    /// Sizes the sun's shadow box for `camera`. rend3 centres a cube of side `distance`
    /// on the camera; ground beyond its far face reads as shadowed, so the cube must
    /// reach past what the camera looks at and down to the lowest ground under what it
    /// covers, while staying small for sharp close-ups.
    pub fn fit_shadows(&self, renderer: &Renderer, camera: &CameraView) {
        renderer.update_directional_light(
            &self.sun,
            DirectionalLightChange {
                distance: Some(shadow_box_side(camera, self.sun_direction, self.floor)),
                ..Default::default()
            },
        );
    }
}

/// The side of the sun's shadow cube for `camera` over ground no lower than `floor`:
/// three times the distance it looks over, and at least what keeps the cube's far face
/// under the ground: a point `h` above the floor needs a side of `2h / (sin θ − cos θ)`
/// for the sun `θ` above the horizon (ground at the edge of the cube's footprint along
/// the light is then still inside its depth).
fn shadow_box_side(camera: &CameraView, sun: Vec3, floor: f32) -> f32 {
    let sin = -sun.y;
    let cos = (1.0 - sin * sin).max(0.0).sqrt();
    let height = (camera.eye.y - floor).max(0.0);
    // Under a sun below 45° no cube reaches under everything it covers.
    let under_ground = if sin > cos {
        2.0 * height / (sin - cos)
    } else {
        0.0
    };
    let reach = camera.eye.distance(camera.target);
    (reach * 3.0)
        .max(under_ground)
        .clamp(MIN_SHADOW_DISTANCE, MAX_SHADOW_DISTANCE)
}

/// Shadow cube sides, in metres: 2048 texels over 120 m is 6 cm a texel; over 1,600 m,
/// enough to cover the whole world from an overview, 80 cm.
const MIN_SHADOW_DISTANCE: f32 = 120.0;
const MAX_SHADOW_DISTANCE: f32 = 1600.0;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_sun_stands_62_degrees_up_at_bearing_245() {
        let direction = sun_direction(62.0, 245.0).unwrap();
        assert!(
            direction.distance(SUN_DIRECTION.normalize()) < 0.01,
            "{direction}"
        );
    }

    #[test]
    fn a_sun_at_or_below_the_horizon_or_past_the_zenith_is_refused() {
        for elevation_deg in [0.0, -10.0, 90.5, f32::NAN] {
            assert!(
                matches!(
                    sun_direction(elevation_deg, 0.0),
                    Err(RenderError::SunElevation { .. })
                ),
                "{elevation_deg}"
            );
        }
        assert!(sun_direction(1.0, 0.0).unwrap().y < 0.0);
    }

    #[test]
    fn a_low_sun_keeps_the_shadow_box_sized_by_what_the_camera_looks_over() {
        let camera = CameraView::new(Vec3::new(0.0, 30.0, 0.0), Vec3::new(0.0, 20.0, 100.0));
        let low = sun_direction(12.0, 200.0).unwrap();
        let side = shadow_box_side(&camera, low, 0.0);
        let reach = camera.eye.distance(camera.target);
        assert!((side - 3.0 * reach).abs() < 1e-3, "{side}");
    }
}

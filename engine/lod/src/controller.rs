//! The LOD controller: decides when to re-evaluate and applies the bands to the registry.

use glam::Vec3;
use sylva_buckets::{PlacementRegistry, MAX_LODS};

use crate::bands::LodBands;
use crate::fade::LodFades;
use crate::LodConfigError;

/// How the controller behaves. The defaults are the prototype's.
#[derive(Debug, Clone, PartialEq)]
pub struct LodConfig {
    /// Band edges in metres, strictly increasing: LOD k covers `[edge[k-1], edge[k])`,
    /// the last LOD everything beyond. At most [`MAX_LODS`]` - 1` edges.
    pub edges_m: Vec<f32>,
    /// Margin each side of every edge: a placement goes finer only when closer than
    /// `edge - hysteresis`, coarser only when farther than `edge + hysteresis`.
    pub hysteresis_m: f32,
    /// Re-evaluations per second, at most.
    pub max_rate_hz: f64,
    /// Camera movement since the last evaluation below which the camera counts as still.
    /// It filters jitter; a switch then happens at most this late, well inside the
    /// hysteresis margin.
    pub min_camera_travel_m: f32,
}

impl Default for LodConfig {
    fn default() -> Self {
        Self {
            edges_m: vec![30.0, 90.0, 150.0],
            hysteresis_m: 4.0,
            max_rate_hz: 4.0,
            min_camera_travel_m: 0.5,
        }
    }
}

/// What one [`LodController::tick`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TickStats {
    /// Placements evaluated: all of them on an evaluating tick, 0 on a gated one.
    pub evaluated: u32,
    /// Of those, the placements whose distance was computed: the members of the ground
    /// cells whose bounds could not prove every member keeping its level.
    pub tested: u32,
    /// Placements whose instances moved to another LOD's buckets.
    pub moved: u32,
    /// Placed placements per LOD after the tick (index = LOD).
    pub per_lod: [u32; MAX_LODS as usize],
}

#[derive(Debug, Clone, Copy)]
struct Evaluation {
    camera: Vec3,
    at_s: f64,
}

/// Moves placements between LOD levels as the camera moves, by 3D distance from the
/// camera to the placement's origin.
///
/// Re-evaluation is capped at `max_rate_hz` and happens only when the camera moved more
/// than `min_camera_travel_m` since the last one, or when placements were inserted since
/// (they are evaluated even under a still camera). Otherwise a tick costs a time compare
/// and one squared-distance compare.
#[derive(Debug, Clone)]
pub struct LodController {
    bands: LodBands,
    fades: LodFades,
    min_interval_s: f64,
    min_camera_travel_sq: f32,
    last_evaluation: Option<Evaluation>,
}

impl Default for LodController {
    fn default() -> Self {
        Self::new(&LodConfig::default()).expect("the default configuration is valid")
    }
}

impl LodController {
    pub fn new(config: &LodConfig) -> Result<Self, LodConfigError> {
        let bands = LodBands::new(&config.edges_m, config.hysteresis_m)?;
        if !(config.max_rate_hz.is_finite() && config.max_rate_hz > 0.0) {
            return Err(LodConfigError::BadRate {
                hertz: config.max_rate_hz,
            });
        }
        let travel = config.min_camera_travel_m;
        if !(travel.is_finite() && travel >= 0.0) {
            return Err(LodConfigError::BadCameraTravel { metres: travel });
        }
        Ok(Self {
            bands,
            fades: LodFades::new(&config.edges_m, config.hysteresis_m),
            min_interval_s: 1.0 / config.max_rate_hz,
            min_camera_travel_sq: travel * travel,
            last_evaluation: None,
        })
    }

    /// Call once a frame with the camera's world position and the time in seconds (any
    /// origin; it should not go backwards, and if it does the next camera movement
    /// re-evaluates at once). A tick with a non-finite camera position or time does
    /// nothing.
    pub fn tick(
        &mut self,
        registry: &mut PlacementRegistry,
        camera: Vec3,
        now_s: f64,
    ) -> TickStats {
        if !self.is_due(registry, camera, now_s) {
            return TickStats {
                per_lod: registry.placed_per_lod(),
                ..TickStats::default()
            };
        }
        let relevel = registry.relevel_by_distance(camera, &self.bands);
        self.last_evaluation = Some(Evaluation {
            camera,
            at_s: now_s,
        });
        TickStats {
            evaluated: relevel.evaluated,
            tested: relevel.tested,
            moved: relevel.moved,
            per_lod: registry.placed_per_lod(),
        }
    }

    /// How renderers cross-fade the levels across each edge (the hysteresis bands).
    pub fn fades(&self) -> &LodFades {
        &self.fades
    }

    /// The level a new placement at `position` should start at: its band as seen from the
    /// camera of the last evaluation (level 0 before the first). Passing it to
    /// `PlacementRegistry::insert` keeps a new far placement from showing at full detail
    /// until the next evaluation.
    pub fn level_for(&self, position: Vec3) -> u8 {
        self.last_evaluation.map_or(0, |last| {
            self.bands.band_for(position.distance_squared(last.camera))
        })
    }

    fn is_due(&self, registry: &PlacementRegistry, camera: Vec3, now_s: f64) -> bool {
        if !(camera.is_finite() && now_s.is_finite()) {
            return false;
        }
        let Some(last) = self.last_evaluation else {
            return true;
        };
        let elapsed_s = now_s - last.at_s;
        let clock_went_back = elapsed_s < 0.0;
        if elapsed_s < self.min_interval_s && !clock_went_back {
            return false;
        }
        registry.has_unevaluated_placements()
            || camera.distance_squared(last.camera) > self.min_camera_travel_sq
    }
}

//! What the controller is told: the policy that places switch distances, the viewport
//! they are measured on, and per prop the errors and size that screen-space switching
//! turns into distances. Plain data, checked by [`LodController::new`] and its setters.
//!
//! [`LodController::new`]: crate::LodController::new

pub use sylva_catalog::Visibility;

use crate::LodConfigError;

/// How the controller behaves. The default switches by screen-space error.
#[derive(Debug, Clone, PartialEq)]
pub struct LodConfig {
    pub policy: LodPolicy,
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
            policy: LodPolicy::ScreenError(ScreenError::default()),
            max_rate_hz: 4.0,
            min_camera_travel_m: 0.5,
        }
    }
}

impl LodConfig {
    /// The same distance bands for every prop (`edges_m`, ±4 m), nothing culled: the
    /// comparison for screen-space switching.
    pub fn fixed_bands(edges_m: Vec<f32>) -> Self {
        Self {
            policy: LodPolicy::FixedBands(FixedBands {
                edges_m,
                hysteresis_m: 4.0,
            }),
            ..Self::default()
        }
    }

    /// Every placement at its full mesh: no simpler level, no impostor, nothing culled.
    /// The reference other policies are measured against.
    pub fn full_detail() -> Self {
        Self {
            policy: LodPolicy::FixedBands(FixedBands {
                edges_m: Vec::new(),
                hysteresis_m: 0.0,
            }),
            ..Self::default()
        }
    }
}

/// Where placements switch level.
#[derive(Debug, Clone, PartialEq)]
pub enum LodPolicy {
    /// Per prop and per placement: each level is kept until the next one's error
    /// projects within the tolerance, and a placement smaller on screen than its prop's
    /// minimum size is culled (Godot's automatic LODs, Nanite's pixel error, Unreal's
    /// screen size and cull distance).
    ScreenError(ScreenError),
    /// The same distance bands for every placement whatever its size.
    FixedBands(FixedBands),
}

/// Distance bands in metres shared by every prop.
#[derive(Debug, Clone, PartialEq)]
pub struct FixedBands {
    /// Band edges, strictly increasing: level k covers `[edge[k-1], edge[k])`, the last
    /// level everything beyond. At most `MAX_LODS - 1` edges.
    pub edges_m: Vec<f32>,
    /// Margin each side of every edge: a placement goes finer only when closer than
    /// `edge - hysteresis`, coarser only when farther than `edge + hysteresis`.
    pub hysteresis_m: f32,
}

/// Screen-space switching: one quality knob, in pixels of the viewport.
#[derive(Debug, Clone, PartialEq)]
pub struct ScreenError {
    /// The largest error, in pixels of the viewport, a level may show: a level gives
    /// way to the next once the next one's error projects to at most this.
    pub tolerance_px: f32,
    /// Each switch distance `d` fades and switches over `[d(1 − h), d(1 + h)]`: a
    /// share of the distance, so it means the same for a pebble and a tree.
    pub hysteresis: f32,
    /// The viewport distances are measured on; a taller image or a narrower field of
    /// view switches farther.
    pub viewport: Viewport,
}

impl Default for ScreenError {
    fn default() -> Self {
        Self {
            tolerance_px: 1.0,
            hysteresis: 0.05,
            viewport: Viewport::REFERENCE,
        }
    }
}

/// The image a camera fills: its height in pixels and its vertical field of view.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Viewport {
    pub height_px: f32,
    pub vertical_fov_rad: f32,
}

impl Viewport {
    /// 1080 lines at 60° vertical field of view.
    pub const REFERENCE: Viewport = Viewport {
        height_px: 1080.0,
        vertical_fov_rad: std::f32::consts::FRAC_PI_3,
    };

    /// Pixels one metre covers, seen face on from one metre away; at distance `d` a
    /// length `l` covers `l × pixels_per_metre_at_1m / d` pixels.
    pub fn pixels_per_metre_at_1m(self) -> f32 {
        self.height_px / (2.0 * (0.5 * self.vertical_fov_rad).tan())
    }

    pub(crate) fn check(self) -> Result<Self, LodConfigError> {
        let fov_ok = self.vertical_fov_rad > 0.0 && self.vertical_fov_rad < std::f32::consts::PI;
        if self.height_px.is_finite() && self.height_px >= 1.0 && fov_ok {
            Ok(self)
        } else {
            Err(LodConfigError::BadViewport {
                height_px: self.height_px,
                vertical_fov_rad: self.vertical_fov_rad,
            })
        }
    }
}

impl ScreenError {
    pub(crate) fn check(&self) -> Result<(), LodConfigError> {
        let tolerance = self.tolerance_px;
        if !(tolerance.is_finite() && tolerance > 0.0) {
            return Err(LodConfigError::BadTolerance { pixels: tolerance });
        }
        if !(0.0..=0.25).contains(&self.hysteresis) {
            return Err(LodConfigError::BadRelativeHysteresis {
                share: self.hysteresis,
            });
        }
        self.viewport.check()?;
        Ok(())
    }
}

/// What screen-space switching needs of one prop, from its bake and its catalog entry.
#[derive(Debug, Clone, PartialEq)]
pub struct PropLod {
    /// Per drawable level, finest first (its mesh levels, then its impostor if it has
    /// one), the largest distance in metres (prop space) its surface strays from the
    /// full mesh; level 0's is 0.
    pub level_errors_m: Vec<f32>,
    /// The radius of the prop's bounding sphere, in metres (prop space).
    pub radius_m: f32,
    /// When it is too small or too far to draw (the catalog's, resolved per prop).
    pub visibility: Visibility,
}

impl PropLod {
    pub(crate) fn check(&self) -> Result<(), LodConfigError> {
        let levels = self.level_errors_m.len();
        if levels == 0 || levels > usize::from(sylva_buckets::MAX_LODS) {
            return Err(LodConfigError::BadPropLevels {
                levels,
                max: sylva_buckets::MAX_LODS,
            });
        }
        for (level, &error) in self.level_errors_m.iter().enumerate() {
            if !(error.is_finite() && error >= 0.0) {
                return Err(LodConfigError::BadLevelError { level, error });
            }
        }
        if !(self.radius_m.is_finite() && self.radius_m >= 0.0) {
            return Err(LodConfigError::BadRadius {
                radius: self.radius_m,
            });
        }
        check_visibility(&self.visibility)
    }
}

/// A resolved visibility the controller can use: the catalog refuses bad overrides, but
/// a description may come from elsewhere.
fn check_visibility(visibility: &Visibility) -> Result<(), LodConfigError> {
    let size = visibility.min_size_px;
    if !(size.is_finite() && size >= 0.0) {
        return Err(LodConfigError::BadMinSize { pixels: size });
    }
    if let Some(distance) = visibility.max_distance_m {
        if !(distance.is_finite() && distance > 0.0) {
            return Err(LodConfigError::BadMaxDistance { metres: distance });
        }
    }
    Ok(())
}

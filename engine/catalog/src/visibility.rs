//! When a category's or a prop's placements are too small or too far to draw: the LOD
//! controller culls a placement whose bounding sphere covers fewer pixels across than
//! `min_size_px`, or that is farther than `max_distance_m`, fading it out over its last
//! few metres. A prop's override wins over its category's, which wins over the default.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The minimum size on screen, in pixels across, of a prop with no override: a pixel,
/// below which a prop is a flicker, not a shape (Godot's automatic LODs switch at the
/// same pixel). Culling at 1.5 px loses 0.2 dB on the Mixed Forest overview against the
/// full-detail reference; at 1 px nothing (BENCHMARKS.md, "LOD by screen-space error").
pub const DEFAULT_MIN_SIZE_PX: f32 = 1.0;

/// `visibility: (min_size_px: Some(2.0), max_distance_m: Some(300.0))` in the catalog.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct VisibilityOverride {
    /// Culled when its bounding sphere covers fewer pixels across than this; 0 never
    /// culls by size (default 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_size_px: Option<f32>,
    /// Culled farther than this many metres, whatever its size (default: no limit).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_distance_m: Option<f32>,
}

/// A prop's resolved visibility.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Visibility {
    pub min_size_px: f32,
    pub max_distance_m: Option<f32>,
}

impl Default for Visibility {
    fn default() -> Self {
        Self {
            min_size_px: DEFAULT_MIN_SIZE_PX,
            max_distance_m: None,
        }
    }
}

impl VisibilityOverride {
    pub fn is_empty(&self) -> bool {
        *self == Self::default()
    }

    /// `base` with the fields this override sets replaced.
    pub fn over(&self, base: Visibility) -> Visibility {
        Visibility {
            min_size_px: self.min_size_px.unwrap_or(base.min_size_px),
            max_distance_m: self.max_distance_m.or(base.max_distance_m),
        }
    }

    /// The first field out of range, and why.
    pub(crate) fn problem(&self) -> Option<(&'static str, String)> {
        if let Some(size) = self.min_size_px.filter(|s| !(s.is_finite() && *s >= 0.0)) {
            return Some((
                "min_size_px",
                format!("{size} is not a finite number of pixels ≥ 0"),
            ));
        }
        if let Some(distance) = self.max_distance_m.filter(|d| !(d.is_finite() && *d > 0.0)) {
            return Some((
                "max_distance_m",
                format!("{distance} is not a finite number of metres > 0"),
            ));
        }
        None
    }
}

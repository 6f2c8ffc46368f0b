use thiserror::Error;

/// Why an LOD configuration was refused.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum LodConfigError {
    #[error("{levels} distance bands exceed the maximum of {max} LOD levels")]
    TooManyBands { levels: usize, max: u8 },
    #[error("band edge {index} must be a positive finite distance in metres, got {edge}")]
    BadEdge { index: usize, edge: f32 },
    #[error("band edge {index} ({edge} m) must be farther than the edge before it ({previous} m)")]
    EdgesNotIncreasing {
        index: usize,
        edge: f32,
        previous: f32,
    },
    #[error("hysteresis must be a finite, non-negative number of metres, got {hysteresis}")]
    BadHysteresis { hysteresis: f32 },
    #[error(
        "hysteresis of {hysteresis} m would keep placements from ever returning inside the first edge ({first_edge} m)"
    )]
    HysteresisSwallowsFirstBand { hysteresis: f32, first_edge: f32 },
    #[error("the re-evaluation rate must be a positive finite number of hertz, got {hertz}")]
    BadRate { hertz: f64 },
    #[error(
        "the camera travel threshold must be a finite, non-negative number of metres, got {metres}"
    )]
    BadCameraTravel { metres: f32 },
    #[error("the LOD tolerance must be a positive, finite number of pixels, got {pixels}")]
    BadTolerance { pixels: f32 },
    #[error(
        "the relative hysteresis must be between 0 and 0.25 of a switch distance, got {share}"
    )]
    BadRelativeHysteresis { share: f32 },
    #[error(
        "a viewport needs at least 1 pixel of height and a field of view between 0 and π, got {height_px} px at {vertical_fov_rad} rad"
    )]
    BadViewport {
        height_px: f32,
        vertical_fov_rad: f32,
    },
    #[error("a prop has 1 to {max} drawable levels, got {levels}")]
    BadPropLevels { levels: usize, max: u8 },
    #[error("level {level}'s error must be a finite, non-negative number of metres, got {error}")]
    BadLevelError { level: usize, error: f32 },
    #[error("a bounding radius must be a finite, non-negative number of metres, got {radius}")]
    BadRadius { radius: f32 },
    #[error("min_size_px must be a finite, non-negative number of pixels, got {pixels}")]
    BadMinSize { pixels: f32 },
    #[error("max_distance_m must be a positive, finite number of metres, got {metres}")]
    BadMaxDistance { metres: f32 },
}

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
}

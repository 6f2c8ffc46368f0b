use thiserror::Error;

/// Why a heightmap could not be built or loaded.
#[derive(Debug, Error, PartialEq)]
pub enum TerrainError {
    #[error("a heightmap needs at least 2×2 samples, got {columns}×{rows}")]
    TooSmall { columns: usize, rows: usize },
    #[error("heightmap of {columns}×{rows} samples needs {expected} heights, got {actual}")]
    SizeMismatch {
        columns: usize,
        rows: usize,
        expected: usize,
        actual: usize,
    },
    #[error("sample spacing must be a positive finite number of metres, got {spacing}")]
    BadSpacing { spacing: f32 },
    #[error("vertical scale must be a finite number, got {scale}")]
    BadVerticalScale { scale: f32 },
    #[error("height at sample ({column}, {row}) is not finite: {value}")]
    NonFiniteHeight {
        column: usize,
        row: usize,
        value: f32,
    },
    #[error("water level must be finite, got {level}")]
    BadWaterLevel { level: f32 },
    #[error("heightmap image is not a valid PNG: {reason}")]
    Png { reason: String },
    #[error(
        "heightmap image must be greyscale (8 or 16 bit), got {color_type} at {bit_depth} bit"
    )]
    UnsupportedPixelFormat { color_type: String, bit_depth: u8 },
    #[error("heightmap image of {columns}×{rows} exceeds the limit of {limit} samples per side")]
    TooLarge {
        columns: usize,
        rows: usize,
        limit: usize,
    },
}

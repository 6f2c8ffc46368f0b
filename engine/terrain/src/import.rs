//! User heightmaps: 16-bit (or 8-bit) greyscale PNG images and raw 16-bit samples.

use serde::{Deserialize, Serialize};

use crate::error::TerrainError;
use crate::heightmap::Terrain;

/// The largest image side accepted, so a small file cannot ask for gigabytes.
pub const MAX_SIDE: usize = 8193;

/// How image values map to metres.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct HeightmapScale {
    /// Metres between neighbouring samples.
    pub spacing: f32,
    /// Height of the brightest value above the darkest, in metres.
    pub vertical_scale: f32,
    /// Height of the darkest value, in metres.
    pub base_height: f32,
    pub water_level: f32,
}

impl Terrain {
    /// Loads a greyscale PNG (16-bit, or 8-bit) whose first row is the southern edge.
    pub fn from_png(bytes: &[u8], scale: HeightmapScale) -> Result<Self, TerrainError> {
        let png_error = |e: png::DecodingError| TerrainError::Png {
            reason: e.to_string(),
        };
        let mut decoder = png::Decoder::new(std::io::Cursor::new(bytes));
        // Keep 16-bit samples as they are; expand palettes and sub-byte depths.
        decoder.set_transformations(png::Transformations::EXPAND);
        let mut reader = decoder.read_info().map_err(png_error)?;
        let info = reader.info();
        let (columns, rows) = (info.width as usize, info.height as usize);
        if columns > MAX_SIDE || rows > MAX_SIDE {
            return Err(TerrainError::TooLarge {
                columns,
                rows,
                limit: MAX_SIDE,
            });
        }
        let (color, depth) = reader.output_color_type();
        if color != png::ColorType::Grayscale {
            return Err(TerrainError::UnsupportedPixelFormat {
                color_type: format!("{color:?}"),
                bit_depth: depth as u8,
            });
        }
        let buffer_size = reader.output_buffer_size().ok_or(TerrainError::TooLarge {
            columns,
            rows,
            limit: MAX_SIDE,
        })?;
        let mut pixels = vec![0; buffer_size];
        let frame = reader.next_frame(&mut pixels).map_err(png_error)?;
        let pixels = &pixels[..frame.buffer_size()];
        let normalised: Vec<f32> = match depth {
            png::BitDepth::Sixteen => pixels
                .chunks_exact(2)
                .map(|p| u16::from_be_bytes([p[0], p[1]]) as f32 / 65535.0)
                .collect(),
            _ => pixels.iter().map(|&p| p as f32 / 255.0).collect(),
        };
        Self::from_normalised(columns, rows, normalised, scale)
    }

    /// Loads raw little-endian 16-bit samples, row-major, first row southern.
    pub fn from_raw16(
        bytes: &[u8],
        columns: usize,
        rows: usize,
        scale: HeightmapScale,
    ) -> Result<Self, TerrainError> {
        if columns > MAX_SIDE || rows > MAX_SIDE {
            return Err(TerrainError::TooLarge {
                columns,
                rows,
                limit: MAX_SIDE,
            });
        }
        if bytes.len() != columns * rows * 2 {
            return Err(TerrainError::SizeMismatch {
                columns,
                rows,
                expected: columns * rows,
                actual: bytes.len() / 2,
            });
        }
        let normalised = bytes
            .chunks_exact(2)
            .map(|p| u16::from_le_bytes([p[0], p[1]]) as f32 / 65535.0)
            .collect();
        Self::from_normalised(columns, rows, normalised, scale)
    }

    fn from_normalised(
        columns: usize,
        rows: usize,
        mut values: Vec<f32>,
        scale: HeightmapScale,
    ) -> Result<Self, TerrainError> {
        if !scale.vertical_scale.is_finite() || !scale.base_height.is_finite() {
            return Err(TerrainError::BadVerticalScale {
                scale: scale.vertical_scale + scale.base_height,
            });
        }
        for v in &mut values {
            *v = scale.base_height + *v * scale.vertical_scale;
        }
        Terrain::new(columns, rows, scale.spacing, values, scale.water_level)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SCALE: HeightmapScale = HeightmapScale {
        spacing: 1.0,
        vertical_scale: 100.0,
        base_height: -10.0,
        water_level: 0.0,
    };

    fn encode_png(width: u32, height: u32, depth: png::BitDepth, data: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        let mut encoder = png::Encoder::new(&mut out, width, height);
        encoder.set_color(png::ColorType::Grayscale);
        encoder.set_depth(depth);
        encoder
            .write_header()
            .unwrap()
            .write_image_data(data)
            .unwrap();
        out
    }

    #[test]
    fn loads_a_16_bit_png_with_scale() {
        let samples: [u16; 4] = [0, 65535, 32768, 0];
        let data: Vec<u8> = samples.iter().flat_map(|s| s.to_be_bytes()).collect();
        let t = Terrain::from_png(&encode_png(2, 2, png::BitDepth::Sixteen, &data), SCALE).unwrap();
        assert_eq!(t.heights()[0], -10.0);
        assert_eq!(t.heights()[1], 90.0);
        assert!((t.heights()[2] - 40.0).abs() < 0.01);
    }

    #[test]
    fn loads_an_8_bit_png() {
        let t = Terrain::from_png(
            &encode_png(2, 2, png::BitDepth::Eight, &[0, 255, 0, 0]),
            SCALE,
        )
        .unwrap();
        assert_eq!(t.heights()[1], 90.0);
    }

    #[test]
    fn rejects_colour_images_and_garbage() {
        let mut out = Vec::new();
        let mut encoder = png::Encoder::new(&mut out, 1, 1);
        encoder.set_color(png::ColorType::Rgb);
        encoder
            .write_header()
            .unwrap()
            .write_image_data(&[1, 2, 3])
            .unwrap();
        assert!(matches!(
            Terrain::from_png(&out, SCALE),
            Err(TerrainError::UnsupportedPixelFormat { .. })
        ));
        assert!(matches!(
            Terrain::from_png(b"not a png", SCALE),
            Err(TerrainError::Png { .. })
        ));
    }

    #[test]
    fn raw_samples_must_match_the_stated_size() {
        let bytes = [0u8, 0, 255, 255, 0, 0, 0, 0];
        let t = Terrain::from_raw16(&bytes, 2, 2, SCALE).unwrap();
        assert_eq!(t.heights()[1], 90.0);
        assert!(matches!(
            Terrain::from_raw16(&bytes, 3, 2, SCALE),
            Err(TerrainError::SizeMismatch { .. })
        ));
    }
}

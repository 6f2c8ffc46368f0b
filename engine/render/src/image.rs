use crate::error::RenderError;

/// An 8-bit RGBA image, rows top to bottom, sRGB.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RgbaImage {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// `width × height × 4` bytes.
    pub pixels: Vec<u8>,
}

/// How two images differ.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ImageDiff {
    /// Pixels whose largest channel difference exceeds the tolerance.
    pub differing_pixels: usize,
    /// Largest channel difference anywhere.
    pub max_channel_difference: u8,
    /// Mean absolute channel difference over all pixels and channels.
    pub mean_difference: f32,
}

impl RgbaImage {
    /// The image as a PNG file.
    pub fn to_png(&self) -> Result<Vec<u8>, RenderError> {
        let png_error = |e: png::EncodingError| RenderError::Png {
            reason: e.to_string(),
        };
        let mut out = Vec::new();
        let mut encoder = png::Encoder::new(&mut out, self.width, self.height);
        encoder.set_color(png::ColorType::Rgba);
        encoder.set_depth(png::BitDepth::Eight);
        encoder
            .write_header()
            .map_err(png_error)?
            .write_image_data(&self.pixels)
            .map_err(png_error)?;
        Ok(out)
    }

    /// Decodes an 8-bit RGBA PNG (other colour types are expanded to it).
    pub fn from_png(bytes: &[u8]) -> Result<Self, RenderError> {
        let png_error = |e: png::DecodingError| RenderError::Png {
            reason: e.to_string(),
        };
        let mut decoder = png::Decoder::new(std::io::Cursor::new(bytes));
        decoder.set_transformations(png::Transformations::EXPAND | png::Transformations::ALPHA);
        let mut reader = decoder.read_info().map_err(png_error)?;
        let size = reader.output_buffer_size().ok_or(RenderError::Png {
            reason: "image too large".into(),
        })?;
        let mut pixels = vec![0; size];
        let info = reader.next_frame(&mut pixels).map_err(png_error)?;
        if info.color_type != png::ColorType::Rgba || info.bit_depth != png::BitDepth::Eight {
            return Err(RenderError::Png {
                reason: format!(
                    "expected 8-bit RGBA, got {:?} {:?}",
                    info.color_type, info.bit_depth
                ),
            });
        }
        pixels.truncate(info.buffer_size());
        Ok(Self {
            width: info.width,
            height: info.height,
            pixels,
        })
    }

    /// Compares with `other` (same size required), counting pixels off by more than
    /// `tolerance` in any channel.
    pub fn diff(&self, other: &RgbaImage, tolerance: u8) -> Option<ImageDiff> {
        if (self.width, self.height) != (other.width, other.height) {
            return None;
        }
        let (mut differing, mut max, mut sum) = (0, 0u8, 0u64);
        for (a, b) in self
            .pixels
            .chunks_exact(4)
            .zip(other.pixels.chunks_exact(4))
        {
            let worst = a
                .iter()
                .zip(b)
                .map(|(x, y)| x.abs_diff(*y))
                .max()
                .unwrap_or(0);
            sum += a
                .iter()
                .zip(b)
                .map(|(x, y)| x.abs_diff(*y) as u64)
                .sum::<u64>();
            max = max.max(worst);
            if worst > tolerance {
                differing += 1;
            }
        }
        Some(ImageDiff {
            differing_pixels: differing,
            max_channel_difference: max,
            mean_difference: sum as f32 / self.pixels.len().max(1) as f32,
        })
    }

    /// The peak signal-to-noise ratio of `self` against `reference` over every pixel's
    /// colour channels, in dB (∞ for identical images); `None` for different sizes.
    pub fn psnr(&self, reference: &RgbaImage) -> Option<f64> {
        if (self.width, self.height) != (reference.width, reference.height) {
            return None;
        }
        let squared: u64 = self
            .pixels
            .chunks_exact(4)
            .zip(reference.pixels.chunks_exact(4))
            .flat_map(|(a, b)| a[..3].iter().zip(&b[..3]))
            .map(|(x, y)| u64::from(x.abs_diff(*y)).pow(2))
            .sum();
        let samples = 3 * (self.pixels.len() / 4).max(1);
        let mse = squared as f64 / samples as f64;
        Some(10.0 * (255.0f64 * 255.0 / mse).log10())
    }

    /// A picture of where `self` and `other` differ: red where channels differ by more
    /// than `tolerance`, the dimmed image elsewhere.
    pub fn diff_image(&self, other: &RgbaImage, tolerance: u8) -> RgbaImage {
        let pixels = self
            .pixels
            .chunks_exact(4)
            .zip(other.pixels.chunks_exact(4))
            .flat_map(|(a, b)| {
                let worst = a
                    .iter()
                    .zip(b)
                    .map(|(x, y)| x.abs_diff(*y))
                    .max()
                    .unwrap_or(0);
                if worst > tolerance {
                    [255, 0, 0, 255]
                } else {
                    [a[0] / 3, a[1] / 3, a[2] / 3, 255]
                }
            })
            .collect();
        RgbaImage {
            width: self.width,
            height: self.height,
            pixels,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn image(pixels: Vec<u8>) -> RgbaImage {
        RgbaImage {
            width: 2,
            height: 1,
            pixels,
        }
    }

    #[test]
    fn png_round_trip() {
        let a = image(vec![1, 2, 3, 255, 200, 100, 50, 255]);
        assert_eq!(RgbaImage::from_png(&a.to_png().unwrap()).unwrap(), a);
    }

    #[test]
    fn diff_counts_pixels_beyond_tolerance() {
        let a = image(vec![10, 10, 10, 255, 10, 10, 10, 255]);
        let b = image(vec![12, 10, 10, 255, 40, 10, 10, 255]);
        let d = a.diff(&b, 3).unwrap();
        assert_eq!(d.differing_pixels, 1);
        assert_eq!(d.max_channel_difference, 30);
        assert_eq!(a.diff_image(&b, 3).pixels[4..8], [255, 0, 0, 255]);
    }

    #[test]
    fn psnr_is_over_colour_channels_and_infinite_for_equal_images() {
        let a = image(vec![10, 10, 10, 255, 10, 10, 10, 255]);
        let b = image(vec![10, 10, 10, 0, 10, 10, 16, 255]);
        assert_eq!(a.psnr(&a), Some(f64::INFINITY));
        // One channel of six off by 6: MSE 6, so 10·log10(255² / 6) dB; alpha ignored.
        let expected = 10.0 * (255.0f64 * 255.0 / 6.0).log10();
        assert!((a.psnr(&b).unwrap() - expected).abs() < 1e-9);
        let wider = RgbaImage {
            width: 1,
            height: 2,
            pixels: a.pixels.clone(),
        };
        assert_eq!(a.psnr(&wider), None);
    }
}

//! Decoding a texture's image (PNG, JPEG or WebP, the last for EXT_texture_webp) to
//! RGBA8, each format with its maintained pure-Rust decoder (`png`, `zune-jpeg`,
//! `image-webp`), the ones the `image` crate itself wraps. The header is read first and
//! the decoded size charged to the import's allowance, so a small file declaring a huge
//! image is refused before any pixel buffer exists.

use std::io::Cursor;

use sylva_mesh::{Texture, TextureKind};
use zune_core::bytestream::ZCursor;
use zune_core::colorspace::ColorSpace;
use zune_core::options::DecoderOptions;

use crate::budget::Allowance;
use crate::error::ImportError;

/// Widest and tallest image accepted.
pub const MAX_IMAGE_SIDE: u32 = 8192;

/// An image decoded to 8-bit channels, `channels` of them a pixel: grey, grey and
/// alpha, RGB or RGBA.
struct Decoded {
    width: u32,
    height: u32,
    channels: usize,
    pixels: Vec<u8>,
}

pub(crate) fn decode(
    bytes: &[u8],
    kind: TextureKind,
    path: &str,
    pixel_bytes: &mut Allowance,
) -> Result<Texture, ImportError> {
    let error = |reason: String| ImportError::Image {
        path: path.to_owned(),
        reason,
    };
    let mut charge = |width: u32, height: u32| {
        if width == 0 || height == 0 || width > MAX_IMAGE_SIDE || height > MAX_IMAGE_SIDE {
            return Err(error(format!(
                "{width} × {height} pixels: sides of 1 to {MAX_IMAGE_SIDE} are accepted"
            )));
        }
        pixel_bytes.charge(u64::from(width) * u64::from(height) * 4, path)
    };
    let mut decoding = Decoding {
        charge: &mut charge,
        error: &error,
    };
    let decoded = if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        decode_png(bytes, &mut decoding)?
    } else if bytes.starts_with(&[0xff, 0xd8, 0xff]) {
        decode_jpeg(bytes, &mut decoding)?
    } else if bytes.len() >= 12 && &bytes[..4] == b"RIFF" && &bytes[8..12] == b"WEBP" {
        decode_webp(bytes, &mut decoding)?
    } else {
        return Err(error(
            "not a PNG, JPEG or WebP image (the formats glTF textures may use)".to_owned(),
        ));
    };
    Ok(Texture {
        width: decoded.width,
        height: decoded.height,
        kind,
        rgba8: rgba8(&decoded),
    })
}

/// What a decoder is handed: the allowance's charge for an image of the given sides,
/// and the error naming the image for a decoder's reason.
struct Decoding<'a> {
    charge: &'a mut dyn FnMut(u32, u32) -> Result<(), ImportError>,
    error: &'a dyn Fn(String) -> ImportError,
}

impl Decoding<'_> {
    fn failed(&self, reason: impl std::fmt::Display) -> ImportError {
        (self.error)(reason.to_string())
    }
}

/// PNG of any colour type and depth: palettes, low depths and `tRNS` expanded, 16-bit
/// channels rounded to 8.
fn decode_png(bytes: &[u8], decoding: &mut Decoding) -> Result<Decoded, ImportError> {
    let mut decoder = png::Decoder::new(Cursor::new(bytes));
    decoder.set_transformations(png::Transformations::EXPAND);
    decoder.set_limits(png::Limits {
        bytes: max_decoded_bytes(),
    });
    let mut reader = decoder.read_info().map_err(|e| decoding.failed(e))?;
    let (width, height) = (reader.info().width, reader.info().height);
    (decoding.charge)(width, height)?;
    let size = reader
        .output_buffer_size()
        .ok_or_else(|| decoding.failed("the image's size overflows"))?;
    let mut buffer = vec![0; size];
    let frame = reader
        .next_frame(&mut buffer)
        .map_err(|e| decoding.failed(e))?;
    buffer.truncate(frame.buffer_size());
    let channels = frame.color_type.samples();
    let pixels = match frame.bit_depth {
        png::BitDepth::Sixteen => buffer
            .chunks_exact(2)
            .map(|be| eight_bits(u16::from_be_bytes([be[0], be[1]])))
            .collect(),
        _ => buffer,
    };
    Ok(Decoded {
        width,
        height,
        channels,
        pixels,
    })
}

/// A 16-bit channel to the nearest 8-bit value.
fn eight_bits(value: u16) -> u8 {
    ((u32::from(value) + 128) / 257) as u8
}

/// Baseline and progressive JPEG, grey or colour (YCbCr and CMYK converted to RGB).
fn decode_jpeg(bytes: &[u8], decoding: &mut Decoding) -> Result<Decoded, ImportError> {
    let options = DecoderOptions::default()
        .set_strict_mode(false)
        .set_max_width(MAX_IMAGE_SIDE as usize)
        .set_max_height(MAX_IMAGE_SIDE as usize);
    let mut decoder = zune_jpeg::JpegDecoder::new_with_options(ZCursor::new(bytes), options);
    decoder.decode_headers().map_err(|e| decoding.failed(e))?;
    let info = decoder.info().expect("the headers are decoded");
    (decoding.charge)(u32::from(info.width), u32::from(info.height))?;
    let colour = match decoder.input_colorspace().expect("the headers are decoded") {
        ColorSpace::Luma => ColorSpace::Luma,
        _ => ColorSpace::RGB,
    };
    decoder.set_options(options.jpeg_set_out_colorspace(colour));
    let pixels = decoder.decode().map_err(|e| decoding.failed(e))?;
    Ok(Decoded {
        width: u32::from(info.width),
        height: u32::from(info.height),
        channels: colour.num_components(),
        pixels,
    })
}

/// Lossy and lossless WebP; of an animation, the first frame.
fn decode_webp(bytes: &[u8], decoding: &mut Decoding) -> Result<Decoded, ImportError> {
    let mut decoder =
        image_webp::WebPDecoder::new(Cursor::new(bytes)).map_err(|e| decoding.failed(e))?;
    decoder.set_memory_limit(max_decoded_bytes());
    let (width, height) = decoder.dimensions();
    (decoding.charge)(width, height)?;
    let size = decoder
        .output_buffer_size()
        .ok_or_else(|| decoding.failed("the image's size overflows"))?;
    let mut pixels = vec![0; size];
    decoder
        .read_image(&mut pixels)
        .map_err(|e| decoding.failed(e))?;
    Ok(Decoded {
        width,
        height,
        channels: if decoder.has_alpha() { 4 } else { 3 },
        pixels,
    })
}

/// The most bytes a decoder may allocate: an RGBA image of the largest accepted sides.
fn max_decoded_bytes() -> usize {
    4 * MAX_IMAGE_SIDE as usize * MAX_IMAGE_SIDE as usize
}

/// `decoded`'s pixels as RGBA8: grey spread over RGB, opaque where there is no alpha.
fn rgba8(decoded: &Decoded) -> Vec<u8> {
    let pixel = |p: &[u8]| -> [u8; 4] {
        match *p {
            [y] => [y, y, y, 255],
            [y, a] => [y, y, y, a],
            [r, g, b] => [r, g, b, 255],
            [r, g, b, a] => [r, g, b, a],
            _ => unreachable!("a pixel has 1 to 4 channels"),
        }
    };
    decoded
        .pixels
        .chunks_exact(decoded.channels)
        .flat_map(pixel)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 16 × 8 baseline and progressive JPEGs of one gradient, and an 8 × 8 grey one
    /// (written by Pillow at quality 95).
    const COLOUR_JPEG: &[u8] = include_bytes!("../tests/data/colour.jpg");
    const PROGRESSIVE_JPEG: &[u8] = include_bytes!("../tests/data/progressive.jpg");
    const GREY_JPEG: &[u8] = include_bytes!("../tests/data/grey.jpg");

    fn decoded(bytes: &[u8]) -> Result<Texture, ImportError> {
        let mut allowance = Allowance::pixel_bytes(1 << 20);
        decode(bytes, TextureKind::Color, "image", &mut allowance)
    }

    fn texel(texture: &Texture, x: u32, y: u32) -> [u8; 4] {
        let at = ((y * texture.width + x) * 4) as usize;
        texture.rgba8[at..at + 4].try_into().unwrap()
    }

    fn png(
        width: u32,
        height: u32,
        colour: png::ColorType,
        depth: png::BitDepth,
        data: &[u8],
    ) -> Vec<u8> {
        let mut out = Vec::new();
        let mut encoder = png::Encoder::new(&mut out, width, height);
        encoder.set_color(colour);
        encoder.set_depth(depth);
        let mut writer = encoder.write_header().unwrap();
        writer.write_image_data(data).unwrap();
        writer.finish().unwrap();
        out
    }

    #[test]
    fn jpegs_decode_to_opaque_rgba_grey_spread_over_rgb() {
        for bytes in [COLOUR_JPEG, PROGRESSIVE_JPEG] {
            let texture = decoded(bytes).unwrap();
            assert_eq!((texture.width, texture.height), (16, 8));
            // Pillow reads (77, 96, 126) at (5, 3): the gradient (80, 96, 128) through
            // chroma subsampling.
            let [r, g, b, a] = texel(&texture, 5, 3);
            for (got, want) in [(r, 77), (g, 96), (b, 126)] {
                assert!(got.abs_diff(want) <= 2, "{:?}", [r, g, b]);
            }
            assert_eq!(a, 255);
        }
        let grey = decoded(GREY_JPEG).unwrap();
        let [r, g, b, a] = texel(&grey, 5, 3);
        assert!(
            r == g && g == b && r.abs_diff(160) <= 2 && a == 255,
            "{:?}",
            [r, g, b, a]
        );
    }

    #[test]
    fn pngs_of_every_colour_type_decode_to_rgba8() {
        use png::{BitDepth, ColorType};
        let cases: [(ColorType, BitDepth, Vec<u8>, [u8; 4]); 4] = [
            (
                ColorType::Grayscale,
                BitDepth::Eight,
                vec![200],
                [200, 200, 200, 255],
            ),
            (
                ColorType::GrayscaleAlpha,
                BitDepth::Eight,
                vec![10, 20],
                [10, 10, 10, 20],
            ),
            (
                ColorType::Rgb,
                BitDepth::Eight,
                vec![1, 2, 3],
                [1, 2, 3, 255],
            ),
            // 16-bit channels round to the nearest 8-bit value: 0x8080 is 128, 0x017f is 1.
            (
                ColorType::Rgba,
                BitDepth::Sixteen,
                vec![0x80, 0x80, 0x01, 0x7f, 0xff, 0xff, 0, 0],
                [128, 1, 255, 0],
            ),
        ];
        for (colour, depth, data, want) in cases {
            let texture = decoded(&png(1, 1, colour, depth, &data)).unwrap();
            assert_eq!(texel(&texture, 0, 0), want, "{colour:?} {depth:?}");
        }
    }

    #[test]
    fn every_prefix_and_flipped_byte_of_an_image_is_an_error_or_an_image() {
        let mut webp = Vec::new();
        image_webp::WebPEncoder::new(&mut webp)
            .encode(
                &[9, 8, 7, 255].repeat(4),
                2,
                2,
                image_webp::ColorType::Rgba8,
            )
            .unwrap();
        let png = png(
            2,
            1,
            png::ColorType::Rgb,
            png::BitDepth::Eight,
            &[1, 2, 3, 4, 5, 6],
        );
        for bytes in [COLOUR_JPEG, PROGRESSIVE_JPEG, &png, &webp] {
            assert!(decoded(bytes).is_ok());
            for end in 0..bytes.len() {
                let _ = decoded(&bytes[..end]);
            }
            for at in 0..bytes.len() {
                let mut flipped = bytes.to_vec();
                flipped[at] ^= 0x5a;
                if let Ok(texture) = decoded(&flipped) {
                    assert_eq!(
                        texture.rgba8.len(),
                        (texture.width * texture.height * 4) as usize
                    );
                }
            }
        }
    }

    #[test]
    fn other_formats_and_oversized_sides_are_refused_by_name() {
        let err = decoded(b"GIF89a....").unwrap_err().to_string();
        assert!(err.contains("not a PNG, JPEG or WebP image"), "{err}");
        let wide = png(
            MAX_IMAGE_SIDE + 1,
            1,
            png::ColorType::Grayscale,
            png::BitDepth::Eight,
            &vec![0; MAX_IMAGE_SIDE as usize + 1],
        );
        let err = decoded(&wide).unwrap_err().to_string();
        assert!(err.contains("sides of 1 to 8192"), "{err}");
    }
}

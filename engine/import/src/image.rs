//! Decoding a base colour image (PNG or JPEG) to RGBA8, with size limits.

use image::{ImageFormat, ImageReader, Limits};
use sylva_mesh::Texture;

use crate::error::ImportError;

/// Widest and tallest image accepted.
pub const MAX_IMAGE_SIDE: u32 = 8192;

pub(crate) fn decode(bytes: &[u8], path: &str) -> Result<Texture, ImportError> {
    let error = |reason: String| ImportError::Image {
        path: path.to_owned(),
        reason,
    };
    let format = image::guess_format(bytes).map_err(|e| error(e.to_string()))?;
    if !matches!(format, ImageFormat::Png | ImageFormat::Jpeg) {
        return Err(error(format!(
            "{format:?} images are not supported, only PNG and JPEG"
        )));
    }
    let mut limits = Limits::default();
    limits.max_image_width = Some(MAX_IMAGE_SIDE);
    limits.max_image_height = Some(MAX_IMAGE_SIDE);
    limits.max_alloc = Some(4 * u64::from(MAX_IMAGE_SIDE) * u64::from(MAX_IMAGE_SIDE));
    let mut reader = ImageReader::with_format(std::io::Cursor::new(bytes), format);
    reader.limits(limits);
    let rgba = reader
        .decode()
        .map_err(|e| error(e.to_string()))?
        .into_rgba8();
    Ok(Texture {
        width: rgba.width(),
        height: rgba.height(),
        rgba8: rgba.into_raw(),
    })
}

//! Decoding a texture's image (PNG, JPEG or WebP, the last for EXT_texture_webp) to
//! RGBA8. The header is read first and
//! the decoded size charged to the import's allowance, so a small file declaring a huge
//! image is refused before any pixel buffer exists.

use image::{ImageFormat, ImageReader, Limits};
use sylva_mesh::{Texture, TextureKind};

use crate::budget::Allowance;
use crate::error::ImportError;

/// Widest and tallest image accepted.
pub const MAX_IMAGE_SIDE: u32 = 8192;

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
    let format = image::guess_format(bytes).map_err(|e| error(e.to_string()))?;
    if !matches!(
        format,
        ImageFormat::Png | ImageFormat::Jpeg | ImageFormat::WebP
    ) {
        return Err(error(format!(
            "{format:?} images are not supported, only PNG, JPEG and WebP"
        )));
    }
    let reader = || {
        let mut reader = ImageReader::with_format(std::io::Cursor::new(bytes), format);
        reader.limits(limits());
        reader
    };
    let (width, height) = reader()
        .into_dimensions()
        .map_err(|e| error(e.to_string()))?;
    pixel_bytes.charge(u64::from(width) * u64::from(height) * 4, path)?;
    let rgba = reader()
        .decode()
        .map_err(|e| error(e.to_string()))?
        .into_rgba8();
    Ok(Texture {
        width: rgba.width(),
        height: rgba.height(),
        kind,
        rgba8: rgba.into_raw(),
    })
}

fn limits() -> Limits {
    let mut limits = Limits::default();
    limits.max_image_width = Some(MAX_IMAGE_SIDE);
    limits.max_image_height = Some(MAX_IMAGE_SIDE);
    limits.max_alloc = Some(4 * u64::from(MAX_IMAGE_SIDE) * u64::from(MAX_IMAGE_SIDE));
    limits
}

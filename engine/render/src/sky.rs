//! The sky: a small cube map rend3 draws behind everything, and its horizon colour,
//! which the fog pass fades distant ground towards so the two meet without a seam.

use glam::Vec3;
use rend3::types::glam as g20;
use rend3::types::{MipmapCount, MipmapSource, Texture, TextureFormat};

use crate::convert::srgb_byte;

/// A small cube map: pale haze at the horizon, blue overhead, dim below.
pub(crate) fn sky_texture() -> Texture {
    const SIDE: u32 = 32;
    let mut data = Vec::with_capacity((SIDE * SIDE * 4 * 6) as usize);
    for face in 0..6 {
        for y in 0..SIDE {
            for x in 0..SIDE {
                let (u, v) = (
                    (x as f32 + 0.5) / SIDE as f32 * 2.0 - 1.0,
                    (y as f32 + 0.5) / SIDE as f32 * 2.0 - 1.0,
                );
                // Cube face directions in the +X, −X, +Y, −Y, +Z, −Z order.
                let direction = match face {
                    0 => Vec3::new(1.0, -v, -u),
                    1 => Vec3::new(-1.0, -v, u),
                    2 => Vec3::new(u, 1.0, v),
                    3 => Vec3::new(u, -1.0, -v),
                    4 => Vec3::new(u, -v, 1.0),
                    _ => Vec3::new(-u, -v, -1.0),
                }
                .normalize();
                let [r, g, b] = sky_color(direction.y);
                data.extend_from_slice(&[srgb_byte(r), srgb_byte(g), srgb_byte(b), 255]);
            }
        }
    }
    Texture {
        label: Some("sky".into()),
        data,
        format: TextureFormat::Rgba8UnormSrgb,
        size: g20::UVec2::splat(SIDE),
        mip_count: MipmapCount::ONE,
        mip_source: MipmapSource::Uploaded,
    }
}

/// The sky's colour at the horizon (linear): pale haze, what the fog fades to.
pub(crate) const HORIZON: [f32; 3] = [0.62, 0.72, 0.82];

fn sky_color(up: f32) -> [f32; 3] {
    let horizon = HORIZON;
    let zenith = [0.18, 0.34, 0.62];
    let ground = [0.30, 0.32, 0.33];
    let (from, to, t) = if up >= 0.0 {
        (horizon, zenith, up.sqrt())
    } else {
        (horizon, ground, (-up).sqrt())
    };
    [0, 1, 2].map(|i| from[i] + (to[i] - from[i]) * t)
}

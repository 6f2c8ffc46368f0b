//! Bilinear sampling of a base-colour texture's largest level in linear light, with
//! glTF's wrap modes. The views are supersampled (see the crate docs), so level 0 with
//! a bilinear filter is what a GPU's trilinear filter would pick at the sizes drawn.

use sylva_mesh::{TextureBinding, WrapMode};

use crate::source::LinearTexture;

/// The texel at `uv` (`(0, 0)` the top-left corner of the image, as glTF).
pub(crate) fn bilinear(texture: &LinearTexture, binding: TextureBinding, uv: [f32; 2]) -> [f32; 4] {
    let (x0, x1, fx) = taps(uv[0], texture.width, binding.wrap_u);
    let (y0, y1, fy) = taps(uv[1], texture.height, binding.wrap_v);
    let at = |x: usize, y: usize| texture.texels[y * texture.width as usize + x];
    let (a, b, c, d) = (at(x0, y0), at(x1, y0), at(x0, y1), at(x1, y1));
    std::array::from_fn(|i| {
        let top = a[i] + (b[i] - a[i]) * fx;
        let bottom = c[i] + (d[i] - c[i]) * fx;
        top + (bottom - top) * fy
    })
}

/// The two texel columns (or rows) either side of coordinate `t` and the weight of the
/// second: texel centres sit at `(i + 0.5) / size`.
fn taps(t: f32, size: u32, wrap: WrapMode) -> (usize, usize, f32) {
    let position = t * size as f32 - 0.5;
    let floor = position.floor();
    let fraction = if floor.is_finite() {
        position - floor
    } else {
        0.0
    };
    // Saturating: a huge or NaN coordinate lands on some texel rather than panicking.
    let first = floor as i64;
    let wrap = |i: i64| wrapped(i, i64::from(size), wrap) as usize;
    (wrap(first), wrap(first.saturating_add(1)), fraction)
}

fn wrapped(i: i64, size: i64, mode: WrapMode) -> i64 {
    match mode {
        WrapMode::ClampToEdge => i.clamp(0, size - 1),
        WrapMode::Repeat => i.rem_euclid(size),
        WrapMode::MirroredRepeat => {
            let m = i.rem_euclid(2 * size);
            if m < size {
                m
            } else {
                2 * size - 1 - m
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn binding(wrap: WrapMode) -> TextureBinding {
        TextureBinding {
            texture: 0,
            wrap_u: wrap,
            wrap_v: wrap,
        }
    }

    /// 2×1: a black texel then a white one.
    fn ramp() -> LinearTexture {
        LinearTexture {
            width: 2,
            height: 1,
            texels: vec![[0.0, 0.0, 0.0, 1.0], [1.0, 1.0, 1.0, 1.0]],
        }
    }

    #[test]
    fn texel_centres_return_their_texel_and_midpoints_blend() {
        let t = ramp();
        let clamp = binding(WrapMode::ClampToEdge);
        assert_eq!(bilinear(&t, clamp, [0.25, 0.5])[0], 0.0);
        assert_eq!(bilinear(&t, clamp, [0.75, 0.5])[0], 1.0);
        assert_eq!(bilinear(&t, clamp, [0.5, 0.5])[0], 0.5);
        assert_eq!(bilinear(&t, clamp, [-3.0, 0.5])[0], 0.0);
    }

    #[test]
    fn wrap_modes_follow_gltf() {
        let t = ramp();
        // Just past the right edge: repeat blends into the first texel again.
        assert_eq!(bilinear(&t, binding(WrapMode::Repeat), [1.0, 0.5])[0], 0.5);
        assert_eq!(
            bilinear(&t, binding(WrapMode::ClampToEdge), [1.0, 0.5])[0],
            1.0
        );
        assert_eq!(
            bilinear(&t, binding(WrapMode::MirroredRepeat), [1.0, 0.5])[0],
            1.0
        );
        assert_eq!(
            bilinear(&t, binding(WrapMode::MirroredRepeat), [1.25, 0.5])[0],
            1.0
        );
        assert_eq!(bilinear(&t, binding(WrapMode::Repeat), [1.25, 0.5])[0], 0.0);
        for uv in [[f32::NAN, 0.5], [f32::INFINITY, 0.5], [1e30, -1e30]] {
            bilinear(&t, binding(WrapMode::Repeat), uv);
        }
    }
}

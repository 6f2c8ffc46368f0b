//! Values crossing into rend3's types. rend3 re-exports its own glam (0.20); sylva's
//! core uses a newer one. Matrices and vectors cross between them here, as column
//! arrays, and nowhere else. Linear colours become the sRGB bytes rend3's textures and
//! vertex colours hold here too.

use rend3::types::glam as g20;

pub fn mat4(m: glam::Mat4) -> g20::Mat4 {
    g20::Mat4::from_cols_array(&m.to_cols_array())
}

pub fn vec3(v: glam::Vec3) -> g20::Vec3 {
    g20::Vec3::from(v.to_array())
}

pub fn from_mat4(m: g20::Mat4) -> glam::Mat4 {
    glam::Mat4::from_cols_array(&m.to_cols_array())
}

/// Linear `[0, 1]` to an sRGB-encoded byte.
pub(crate) fn srgb_byte(linear: f32) -> u8 {
    let l = linear.clamp(0.0, 1.0);
    let s = if l <= 0.003_130_8 {
        l * 12.92
    } else {
        1.055 * l.powf(1.0 / 2.4) - 0.055
    };
    (s * 255.0).round() as u8
}

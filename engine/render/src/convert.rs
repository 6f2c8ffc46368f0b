//! rend3 re-exports its own glam (0.20); sylva's core uses a newer one. Matrices and
//! vectors cross between them here, as column arrays, and nowhere else.

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

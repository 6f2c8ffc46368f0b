//! sylva's frame is left-handed (+Y up, +Z forward, +X right: rend3's
//! `Handedness::Left`); glTF's is right-handed (+Y up, +Z forward, −X right). The
//! importer maps glTF onto sylva by mirroring X (`sylva_import::GLTF_TO_SYLVA`); the
//! export mirrors X again, which is its own inverse. A model matrix `M` in sylva's
//! frame is `C·M·C` in glTF's, with `C = diag(−1, 1, 1)`: the translation's X
//! negated, a rotation about axis `v` becomes one by the same angle about
//! `(vx, −vy, −vz)`, scales stay. Mirroring reverses every triangle's winding, so
//! triangles are written with their last two corners swapped.

use glam::{Mat4, Quat, Vec3};

/// The mirror between the two frames (its own inverse).
pub const MIRROR_X: Mat4 = Mat4::from_cols_array(&[
    -1.0, 0.0, 0.0, 0.0, //
    0.0, 1.0, 0.0, 0.0, //
    0.0, 0.0, 1.0, 0.0, //
    0.0, 0.0, 0.0, 1.0,
]);

/// A point or direction of sylva's frame in glTF's.
pub fn position(v: Vec3) -> Vec3 {
    Vec3::new(-v.x, v.y, v.z)
}

/// A rotation of sylva's frame in glTF's: `C·R·C` as a quaternion.
pub fn rotation(q: Quat) -> Quat {
    Quat::from_xyzw(q.x, -q.y, -q.z, q.w)
}

/// A model matrix of sylva's frame in glTF's.
pub fn matrix(m: Mat4) -> Mat4 {
    MIRROR_X * m * MIRROR_X
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placement_parts_convert_like_the_whole_matrix() {
        let rotation_in_sylva = Quat::from_euler(glam::EulerRot::YXZ, 1.1, 0.3, -0.2);
        let (translation, scale) = (Vec3::new(12.5, 3.0, -40.0), 1.7);
        let sylva = Mat4::from_scale_rotation_translation(
            Vec3::splat(scale),
            rotation_in_sylva,
            translation,
        );
        let parts = Mat4::from_scale_rotation_translation(
            Vec3::splat(scale),
            rotation(rotation_in_sylva),
            position(translation),
        );
        assert!(
            parts.abs_diff_eq(matrix(sylva), 1e-6),
            "{parts} vs {}",
            matrix(sylva)
        );
        assert!(
            matrix(matrix(sylva)).abs_diff_eq(sylva, 1e-6),
            "the mirror is its own inverse"
        );
    }

    #[test]
    fn a_point_on_a_prop_lands_where_sylva_draws_it() {
        let sylva = Mat4::from_scale_rotation_translation(
            Vec3::splat(2.0),
            Quat::from_rotation_y(0.7),
            Vec3::new(5.0, 1.0, 9.0),
        );
        let local = Vec3::new(0.3, 1.2, -0.4);
        let drawn = sylva.transform_point3(local);
        let exported = matrix(sylva).transform_point3(position(local));
        assert!(position(exported).abs_diff_eq(drawn, 1e-5));
    }
}

//! Prop families. Each builder returns the parts of one prop (mesh + material); the
//! kit chooses the file layout and node transform.

pub mod bark;
pub mod broadleaf;
pub mod canopy;
pub mod conifer;
pub mod deadwood;
pub mod flower;
pub mod grass;
pub mod reed;
pub mod ribbon;
pub mod rock;
pub mod shrub;
pub mod snag;

use crate::mesh::Rgb;

/// Linear blend from `a` (t = 0) to `b` (t = 1).
pub fn mix(a: Rgb, b: Rgb, t: f32) -> Rgb {
    [0, 1, 2].map(|k| a[k] + (b[k] - a[k]) * t)
}

/// `c` scaled by `k`.
pub fn shade(c: Rgb, k: f32) -> Rgb {
    c.map(|x| x * k)
}

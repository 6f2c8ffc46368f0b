//! The distance LOD controller for sylva.
//!
//! Each frame, [`LodController::tick`] may re-evaluate every placement of a
//! [`sylva_buckets::PlacementRegistry`] against distance bands (default 0–30 m, 30–90 m,
//! 90–150 m and beyond, the last band a prop's impostor where it has one) with
//! hysteresis at every edge (default ±4 m), and move the ones that changed band to their
//! LOD's buckets. The registry's ground cells let it test one by one only the
//! placements of cells that straddle a band's hysteresis margin; the levels are those
//! testing every placement gives. Distance is 3D, camera to placement origin: a camera
//! high above a forest sees it as far away, as its screen size says.
//!
//! Re-evaluation is capped in rate (default 4 Hz) and gated on real camera movement, so a
//! still camera costs O(1) a frame. The caller passes time in: no clocks inside.

mod bands;
mod controller;
#[cfg(test)]
mod equivalence_tests;
mod error;
mod fade;

pub use controller::{LodConfig, LodController, TickStats};
pub use error::LodConfigError;
pub use fade::LodFades;

//! The LOD controller for sylva.
//!
//! Each frame, [`LodController::tick`] may re-evaluate every placement of a
//! [`sylva_buckets::PlacementRegistry`] and move the ones whose level changed to their
//! LOD's buckets. By default levels switch by screen-space error ([`LodPolicy::ScreenError`]):
//! each prop's levels give way at the distance where the next one's baked error projects
//! within a tolerance in pixels (1 px on the viewport by default), scaled by each
//! placement's scale, and a placement whose bounding sphere covers fewer pixels than its
//! prop's minimum size is culled: it leaves the buckets and casts no shadow. Every switch
//! has a hysteresis of a few percent of its distance, across which the two levels
//! cross-fade ([`LodFades`]). [`LodPolicy::FixedBands`] keeps the same distance bands
//! for every placement instead (30, 90 and 150 m, ±4 m), for comparison.
//!
//! The registry keeps, per placement, how far the camera may travel before its level
//! could change, and tests one by one only the placements whose travel ran out: those
//! near one of their own switches. The levels are those testing every placement gives. Distance is
//! 3D, camera to placement origin: a camera high above a forest sees it as far away, as
//! its screen size says.
//!
//! Re-evaluation is capped in rate (default 4 Hz) and gated on real camera movement, so a
//! still camera costs O(1) a frame. The caller passes time in: no clocks inside.

mod bands;
mod config;
mod controller;
#[cfg(test)]
mod equivalence_tests;
mod error;
mod fade;
mod screen;

pub use config::{FixedBands, LodConfig, LodPolicy, PropLod, ScreenError, Viewport, Visibility};
pub use controller::{LodController, TickStats};
pub use error::LodConfigError;
pub use fade::LodFades;
pub use screen::{PropSwitches, Switches};

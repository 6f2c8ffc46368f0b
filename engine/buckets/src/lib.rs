//! Instance buckets for sylva: the data between the scatter brush and the GPU.
//!
//! - [`Bucket`]: the dense instance transforms of one (prop, part, lod) in GPU instance
//!   layout (column-major `Mat4`, 64 bytes), an owner back-reference per slot, amortised
//!   O(1) push with capacity doubling, O(1) swap-remove, allocation-free moves between
//!   sibling LOD buckets through a dedicated carry, and a change log (dirty slot runs,
//!   growth) drained by a GPU mirror.
//! - [`PlacementRegistry`]: placements by id, their props interned to [`PropKey`]s; it
//!   gives each placed placement an instance in every part bucket of its prop at its
//!   LOD, keeps pending the placements whose prop is not loaded, and re-levels them by
//!   distance from a camera ([`PlacementRegistry::relevel_by_distance`], which tests
//!   only the placements whose last proof of staying ran out, against a
//!   [`DistanceLevels`] rule) or by any rule ([`PlacementRegistry::relevel`]).
//! - [`BucketChanges`]: what a GPU mirror must reallocate, upload or free.
//!
//! Pure CPU data: no GPU types, no IO, no clocks. See ARCHITECTURE.md for the invariants.

mod bucket;
mod changes;
mod dirty;
mod distance;
mod error;
mod placements;
mod proofs;
mod prop;
mod prop_buckets;
mod prop_table;
mod registry;
mod schedule;

pub use bucket::{Bucket, Moved, FIRST_CAPACITY};
pub use changes::{BucketChanges, BucketUpdate};
pub use distance::{scale_of, DistanceLevels, Member};
pub use error::RegistryError;
pub use prop::{BucketKey, PropKey, PropShape, CULLED_LEVEL, MAX_LODS};
pub use registry::{InstanceLocation, PlacementRegistry, RelevelStats, MAX_PLACEMENTS};

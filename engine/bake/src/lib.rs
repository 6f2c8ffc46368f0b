//! The baker. Imported parts become meshoptimizer LOD chains in which every level of a
//! part indexes one shared vertex buffer ([`chain`], built from the named [`stages`]);
//! textures become content-addressed blobs ([`texture`]), and so do the two atlases
//! of each prop's impostor ([`impostor`]);
//! [`key`] says what an entry depends on; [`folder`] bakes an assets folder into a
//! cache folder incrementally and in parallel, [`check`] verifies a committed bake,
//! [`watch()`] keeps one current; [`lockcheck`] verifies the lockfile without a cache;
//! [`shard`] splits a bake across a CI matrix.

pub mod asset;
pub mod chain;
pub mod check;
pub mod debounce;
pub mod folder;
pub mod impostor;
pub mod impostor_plan;
pub mod key;
pub mod lockcheck;
pub mod settings;
pub mod shard;
pub mod source;
pub mod stages;
pub mod texture;
pub mod watch;

pub use asset::{bake_asset, AssetReport, BakedProp};
pub use chain::{build_chain, ChainStats};
pub use check::{check_folder, Finding};
pub use folder::{
    bake_folder, keep_fetched, AssetOutcome, BakeOptions, EntrySummary, FolderError, FolderReport,
    ImpostorSummary, PartSummary, Sharing, SphereSummary, Status, TextureSummary,
};
pub use impostor::{ImpostorReport, ALBEDO_FORMAT, DEPTH_FORMAT, NORMAL_FORMAT};
pub use key::{settings_hash, AssetSource, BAKER_VERSION};
pub use lockcheck::{check_lock, LockCheck, LockFinding, Staleness};
pub use settings::{BakeSettings, Borders};
pub use shard::{Shard, ShardError};
pub use source::{read_source, AssetError};
pub use watch::{watch, WatchError, WatchOptions};

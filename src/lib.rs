//! sylva: paint props onto terrain and draw tens of thousands of them cheaply.
//!
//! This facade re-exports the engine crates; it owns the end-to-end tests in `tests/`
//! and the benchmarks in `benches/`. See ARCHITECTURE.md for the map.

pub use sylva_bake as bake;
pub use sylva_buckets as buckets;
pub use sylva_cache as cache;
pub use sylva_catalog as catalog;
pub use sylva_export as export;
pub use sylva_import as import;
pub use sylva_lod as lod;
pub use sylva_mesh as mesh;
pub use sylva_render as render;
pub use sylva_runtime as runtime;
pub use sylva_scatter as scatter;
pub use sylva_terrain as terrain;
pub use sylva_world as world;

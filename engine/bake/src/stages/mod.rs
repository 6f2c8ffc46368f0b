//! The named stages of a part's LOD chain, in order. Each takes the previous stage's
//! output and returns its result with a stats struct (the CLI prints them, tests assert
//! them). Positions, normals, UVs and colours are never changed by any stage: they only
//! merge exact duplicates, reorder vertices and choose triangles.

mod simplify;
mod vertex_cache;
mod vertex_fetch;
mod weld;

pub use simplify::{simplify_levels, Level, LevelStats, SimplifyInput};
pub use vertex_cache::{optimize_vertex_cache, VertexCacheStats};
pub use vertex_fetch::{optimize_vertex_fetch, VertexFetchStats};
pub use weld::{weld, WeldStats};

//! The named stages of a part's LOD chain, in order. Each takes the previous stage's
//! output and returns its result with a stats struct (the CLI prints them, tests assert
//! them). The input vertices are never changed by any stage: they only merge exact
//! duplicates, reorder vertices and choose triangles; the facet stage may append
//! face-normal vertices after them, which only the simplified levels use. Once the
//! chain is built, [`level_deviation`] measures how far each level strays from the full
//! mesh, in metres, and [`quantize_vertices`] packs the vertices for the cache and the
//! GPU, measuring what that moved against those deviations.

mod deviation;
mod facets;
mod quantize;
mod simplify;
mod vertex_cache;
mod vertex_fetch;
mod wedges;
mod weld;

pub use deviation::level_deviation;
pub use facets::{face_normal, own_budget, shade_corners, FacetStats};
pub use quantize::{quantize_vertices, QuantizeStats, EXACT_LEVEL_M};
pub use simplify::{simplify_levels, Level, LevelStats, SimplifyInput, StopReason};
pub use vertex_cache::{optimize_vertex_cache, VertexCacheStats};
pub use vertex_fetch::{optimize_vertex_fetch, VertexFetchStats};
pub use wedges::Wedges;
pub use weld::{weld, WeldStats};

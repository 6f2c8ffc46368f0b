use serde::Serialize;

/// Average cache miss ratio (transformed vertices per triangle) before and after, for
/// a 16-entry FIFO cache.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct VertexCacheStats {
    pub acmr_before: f32,
    pub acmr_after: f32,
}

/// Reorders triangles for the post-transform vertex cache.
pub fn optimize_vertex_cache(indices: &[u32], vertex_count: usize) -> (Vec<u32>, VertexCacheStats) {
    let acmr = |i: &[u32]| meshopt::analyze_vertex_cache(i, vertex_count, 16, 0, 0).acmr;
    let optimized = meshopt::optimize_vertex_cache(indices, vertex_count);
    let stats = VertexCacheStats {
        acmr_before: acmr(indices),
        acmr_after: acmr(&optimized),
    };
    (optimized, stats)
}

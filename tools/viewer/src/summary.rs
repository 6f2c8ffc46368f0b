//! The JSON summary a run prints when it ends: what was painted (placement count and
//! the digest `sylva replay` reproduces), the first-stroke latencies, ray cast and
//! frame times, loads and draws.

use serde::Serialize;

use crate::loader::LoadCounters;
use crate::timing::Stats;

#[derive(Clone, Debug, Serialize)]
pub struct RunSummary {
    pub adapter: String,
    pub window: [u32; 2],
    pub frames: usize,
    pub strokes: u32,
    pub placements: usize,
    /// BLAKE3 of every placement, as `sylva replay` prints it.
    pub digest: String,
    /// Session files written by `save` steps and Ctrl+S.
    pub saved: Vec<String>,
    pub autosave: String,
    pub autosaves: u32,
    /// Main-thread milliseconds of the first dab after each preset pick.
    pub first_stroke_ms: Vec<f64>,
    /// Microseconds per pointer ray cast.
    pub raycast_us: Stats,
    /// Main-thread milliseconds per frame.
    pub frame_ms: Stats,
    pub loads: LoadCounters,
    pub draw: DrawFigures,
    /// Geometry revision of each loaded prop.
    pub revisions: std::collections::BTreeMap<String, u64>,
    pub screenshots: Vec<String>,
    /// Everything reported as an error during the run.
    pub errors: Vec<String>,
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct DrawFigures {
    pub instances: usize,
    pub draw_calls: usize,
    pub triangles: u64,
    pub instances_per_lod: Vec<usize>,
}

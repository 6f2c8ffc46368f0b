//! The JSON summary a run prints when it ends: what was painted (placement count and
//! the digest `sylva replay` reproduces), the first-stroke latencies, ray cast and
//! frame times, loads and draws.

use serde::Serialize;

use sylva_render::props::DrawStats;

use crate::loader::LoadCounters;
use crate::timing::Stats;

#[derive(Clone, Debug, Serialize)]
pub struct RunSummary {
    pub adapter: String,
    pub window: [u32; 2],
    pub frames: usize,
    pub strokes: u32,
    /// Fills accepted (cancelled and refused ones not counted).
    pub fills: u32,
    pub placements: usize,
    /// BLAKE3 of every placement, as `sylva replay` prints it.
    pub digest: String,
    /// Session files written by `save` steps and Ctrl+S.
    pub saved: Vec<String>,
    /// Session files opened by `open` steps and Ctrl+O.
    pub opened: Vec<String>,
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
    /// Bake watch passes applied (`--watch`).
    pub watch_passes: u32,
    pub screenshots: Vec<Screenshot>,
    /// Everything reported as an error during the run.
    pub errors: Vec<String>,
}

/// A screenshot and what its frame drew.
#[derive(Clone, Debug, Serialize)]
pub struct Screenshot {
    pub path: String,
    #[serde(flatten)]
    pub draw: DrawFigures,
    /// Geometry revision of each loaded prop at that frame.
    pub revisions: std::collections::BTreeMap<String, u64>,
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct DrawFigures {
    pub instances: usize,
    pub draw_calls: usize,
    pub triangles: u64,
    pub instances_per_lod: Vec<usize>,
}

impl From<&DrawStats> for DrawFigures {
    fn from(draw: &DrawStats) -> Self {
        Self {
            instances: draw.instances,
            draw_calls: draw.draw_calls,
            triangles: draw.triangles,
            instances_per_lod: draw.instances_per_lod.clone(),
        }
    }
}

//! The scatter brush and region fill. A dab samples `density × area` candidate points in the brush
//! disc, reads height and slope at each, keeps the preset picks whose predicates pass,
//! draws one by weight, and accepts it if no placement of the same spacing family is
//! closer than the pick's `min_spacing`. Every random number comes from one seeded
//! Mulberry32, so `(seed, events)` replays a session bit for bit; every rejected
//! candidate is counted under its reason. A fill (`fill.rs`) scatters a preset over a
//! region with the same evaluation and spacing, drawing per terrain cell from seeds of
//! its own, so it is deterministic per cell and on any thread count.
//!
//! Pure: terrain, catalog and presets are handed in; nothing here touches files or GPUs.

mod angle;
mod candidate;
mod editor;
mod fill;
mod painter;
mod placement;
mod preset;
mod report;
mod rng;
mod session;
mod spacing;
mod tiles;

pub use editor::{Applied, Editor, FillJob, Step, StreamedEdit};
pub use fill::{
    cell_seed, plan as plan_fill, plan_tile as plan_fill_tile, Area, FillError, FillOrder,
    FillPlan, FillRegion, FillRequest, TileGrid, MAX_FILL_CANDIDATES, MAX_MASK_DABS,
    MAX_POLYGON_VERTICES, MIN_TILE_M,
};
pub use painter::{
    check_cap, BrushError, CapError, Edit, Painter, BYTES_PER_PLACEMENT, DEFAULT_PLACEMENT_CAP,
    MAX_PLACEMENT_CAP, PROTOTYPE_PLACEMENT_CAP,
};
pub use placement::{Placement, PlacementId};
pub use preset::{
    preset_schema, BrushSettings, Pick, Preset, PresetError, MAX_DENSITY, MAX_RADIUS, MAX_SPACING,
};
pub use report::{Rejection, Rejections, StrokeReport};
pub use rng::Mulberry32;
pub use session::{preset_hash, Event, Session, SessionError, TerrainSource, SESSION_FORMAT};
pub use spacing::SpacingIndex;
pub use tiles::TileSource;

#[cfg(test)]
mod tests;

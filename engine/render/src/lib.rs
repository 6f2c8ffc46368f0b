//! The GPU edge of sylva, on rend3 0.3: the terrain as a rend3 mesh with biome colours,
//! baked prop parts and instance buckets mirrored on the GPU and drawn by a custom
//! render-graph node (one instanced draw per non-empty bucket, sharing rend3's depth and
//! shadow maps), distance haze over everything opaque, and headless frames read back to
//! images.
//!
//! It holds no placement or LOD logic: callers hand it parts and bucket contents.
//!
//! An application with its own rend3 renderer and render graph uses
//! [`props::PropsRenderer`] directly: [`create_iad`] and [`use_plain_samplers`] to set
//! up (optional), `PropsRenderer::set_prop` / `sync` to feed it, `prepare_frame` each
//! frame, and `add_shadow_node` / `add_forward_node` to put its draws in the graph
//! (`examples/embed` is the whole recipe).

#![warn(missing_docs)]

mod camera;
mod context;
mod convert;
mod error;
mod fog;
mod frame;
mod image;
/// The instanced-props plugin: GPU parts and buckets, culling, render-graph nodes.
pub mod props;
mod readback;
/// The naive one-object-per-placement path, kept for benchmarks and tests.
pub mod reference;
mod scene;
mod sky;
mod terrain;

pub use camera::CameraView;
pub use context::{create_iad, use_plain_samplers, RenderContext, OUTPUT_FORMAT};
pub use error::RenderError;
pub use fog::{Fog, FogRoutine};
pub use frame::{
    draw_frame, draw_frame_with_overlays, offscreen_target, render_image, Overlays, MAX_SIDE,
};
pub use image::{ImageDiff, RgbaImage};
pub use readback::read_rgba8;
pub use rend3::util::output::OutputFrame;
pub use scene::{sun_direction, Scene, SUN_DIRECTION};
pub use terrain::{TerrainStats, TERRAIN_TOLERANCE};

//! The GPU edge of sylva, on rend3 0.3: the terrain as a rend3 mesh with biome colours,
//! baked prop parts and instance buckets mirrored on the GPU and drawn by a custom
//! render-graph node (one instanced draw per non-empty bucket, sharing rend3's depth and
//! shadow maps), and headless frames read back to images.
//!
//! It holds no placement or LOD logic: callers hand it parts and bucket contents.

mod camera;
mod context;
mod convert;
mod error;
mod frame;
mod image;
pub mod props;
mod readback;
pub mod reference;
mod scene;
mod terrain;

pub use camera::CameraView;
pub use context::{RenderContext, OUTPUT_FORMAT};
pub use error::RenderError;
pub use frame::{draw_frame, draw_frame_with_overlays, render_image, Overlays, MAX_SIDE};
pub use image::{ImageDiff, RgbaImage};
pub use readback::read_rgba8;
pub use rend3::util::output::OutputFrame;
pub use scene::{Scene, SUN_DIRECTION};
pub use terrain::{TerrainStats, TERRAIN_TOLERANCE};

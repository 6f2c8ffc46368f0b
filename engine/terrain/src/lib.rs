//! CPU terrain for sylva: a heightmap with world scale, bilinear sampling, slope and
//! normals, a biome classifier for vertex colours, the default world with named
//! landmarks, user heightmaps from 16-bit images, and the analytic cursor ray cast.
//!
//! Pure data and arithmetic: no GPU types, no file IO (callers hand in bytes).

mod biome;
mod default_world;
mod error;
mod heightmap;
mod import;
mod lod;
mod mesh;
mod noise;
mod raycast;
pub mod reference;

pub use biome::{classify, Biome};
pub use default_world::{default_world, Landmark, UnknownLandmark};
pub use error::TerrainError;
pub use heightmap::Terrain;
pub use import::HeightmapScale;
pub use lod::{PatchId, TerrainLod, PATCH_CELLS};
pub use mesh::TerrainMesh;
pub use raycast::{raycast, Ray, RayCast, RayHit, BISECTION_STEPS, MIN_STEP};

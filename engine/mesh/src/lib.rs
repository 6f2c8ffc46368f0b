//! The plain data a prop is made of, shared by the importer, the baker, the cache
//! format and the renderer: the fixed GPU vertex layout, PBR materials, RGBA8 textures and
//! bounds. No logic beyond conversions; no dependencies.

mod bounds;
mod material;
pub mod srgb;
mod vertex;

pub use bounds::{Aabb, Sphere};
pub use material::{
    AlphaMode, Channel, Material, Texture, TextureBinding, TextureKind, WrapMode,
    BLEND_AS_MASK_CUTOFF,
};
pub use vertex::{Vertex, VERTEX_STRIDE};

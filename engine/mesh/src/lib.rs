//! The plain data a prop is made of, shared by the importer, the baker, the cache
//! format and the renderer: vertices (the bake's f32 working form and the packed form the cache stores and the GPU reads), PBR materials, RGBA8 textures and
//! bounds. No logic beyond conversions; no dependencies.

mod bounds;
mod material;
mod packed;
pub mod srgb;
mod vertex;

pub use bounds::{Aabb, Sphere};
pub use material::{
    AlphaMode, Channel, Material, Texture, TextureBinding, TextureKind, WrapMode,
    BLEND_AS_MASK_CUTOFF,
};
pub use packed::{
    QuantizationError, VertexQuantization, PACKED_COLOR, PACKED_NORMAL, PACKED_POSITION,
    PACKED_STRIDE, PACKED_TANGENT, PACKED_UV,
};
pub use vertex::{Vertex, VERTEX_STRIDE};

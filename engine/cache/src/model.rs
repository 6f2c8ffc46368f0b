use sylva_mesh::{Aabb, Material, Sphere, Vertex};

use crate::format::TextureId;

/// A baked asset as the baker produces it; [`crate::encode`] writes it.
#[derive(Clone, Debug, PartialEq)]
pub struct BakedAsset {
    /// `<category>/<file stem>`.
    pub prop_id: String,
    /// The source file relative to the assets folder, `/`-separated.
    pub source_path: String,
    /// Union of the parts' boxes, in prop space.
    pub bounds: Aabb,
    pub parts: Vec<BakedPart>,
    /// The texture blobs its materials index (`TextureBinding::texture`).
    pub textures: Vec<TextureId>,
}

/// A part with its LOD chain: one vertex buffer shared by every level, one index
/// buffer per level.
#[derive(Clone, Debug, PartialEq)]
pub struct BakedPart {
    pub name: String,
    pub material: Material,
    pub bounds: Aabb,
    pub sphere: Sphere,
    pub vertices: Vec<Vertex>,
    /// Level 0 is the full mesh; each index is below `vertices.len()`.
    pub levels: Vec<BakedLevel>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct BakedLevel {
    /// A triangle list into the part's shared vertices.
    pub indices: Vec<u32>,
    /// The triangle ratio asked for (1 for level 0).
    pub target_ratio: f32,
    /// Triangles of this level ÷ triangles of level 0.
    pub achieved_ratio: f32,
    /// meshoptimizer's simplification error, relative to the part's extent.
    pub error: f32,
}

/// The content key of an entry: BLAKE3 of everything its bytes depend on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct CacheKey(pub [u8; 32]);

impl CacheKey {
    pub fn to_hex(&self) -> String {
        self.0.iter().map(|b| format!("{b:02x}")).collect()
    }

    /// The entry file of this key inside the cache folder.
    pub fn file_name(&self) -> String {
        format!("{}.{}", self.to_hex(), crate::store::ENTRY_EXTENSION)
    }
}

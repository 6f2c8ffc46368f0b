use sylva_mesh::{Aabb, Material, Sphere, Vertex, VertexQuantization};

use crate::file_name::{ENTRY_EXTENSION, TEXTURE_EXTENSION};

/// A baked asset as the baker produces it; [`crate::encode`] writes it.
#[derive(Clone, Debug, PartialEq)]
pub struct BakedAsset {
    /// `<category>/<file stem>`.
    pub prop_id: String,
    /// The source file relative to the assets folder, `/`-separated.
    pub source_path: String,
    /// Union of the parts' boxes, in prop space.
    pub bounds: Aabb,
    /// A sphere (prop space) holding every vertex of every part: what the runtime
    /// culls with and measures its distance to.
    pub sphere: Sphere,
    pub parts: Vec<BakedPart>,
    /// The texture blobs its materials index (`TextureBinding::texture`), and its
    /// impostor's atlases.
    pub textures: Vec<TextureId>,
    /// The prop's last level of detail: its impostor, or why it has none.
    pub impostor: ImpostorRecord,
}

/// A prop's impostor as its entry records it.
#[derive(Clone, Debug, PartialEq)]
pub enum ImpostorRecord {
    Baked(ImpostorView),
    /// No impostor (the prop is too small, flat or empty for one, or the catalog turns
    /// it off): the runtime keeps the coarsest mesh as the last level.
    Refused {
        /// Why, for people (what `sylva bake` prints).
        reason: String,
    },
}

impl ImpostorRecord {
    /// A record without an impostor.
    pub fn refused(reason: impl Into<String>) -> Self {
        ImpostorRecord::Refused {
            reason: reason.into(),
        }
    }
}

/// A baked impostor: a `grid × grid` hemi-octahedral atlas of views (see
/// `sylva-impostor`), each `cell_px` texels square at level 0, in two texture blobs of
/// the entry, `grid × cell_px` texels square, each level's cells `cell_px >> level`
/// texels.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ImpostorView {
    /// Views per side of the grid (even).
    pub grid: u32,
    /// Texels per side of a view at level 0 (a power of two).
    pub cell_px: u32,
    /// The bounding sphere (prop space) every view's orthographic camera is fitted to:
    /// a cell is its diameter, centred on its centre.
    pub sphere: Sphere,
    /// Index into the entry's textures (and `PropView::textures`) of the albedo atlas:
    /// sRGB colour and coverage.
    pub albedo: u32,
    /// Index of the normal atlas: the view-frame normal on the hemi-octahedral square
    /// (RG).
    pub normal: u32,
    /// Index of the depth atlas: the depth towards the camera (R) and the depth of what
    /// the shadow pass draws there (G), `[-radius, radius]` as `[0, 1]`
    /// (`sylva_impostor`'s layout keeps all four channels in one texel).
    pub depth: u32,
    /// How far, in metres (prop space), the impostor's silhouette and surface stray from
    /// level 0's (it pictures the coarsest level), measured at the atlas's cell
    /// resolution (`sylva_impostor::measure`): the runtime may switch to the impostor
    /// where this projects to under a pixel.
    pub error_m: f32,
}

impl ImpostorView {
    /// The texture indices of its albedo, normal and depth atlases.
    pub fn atlases(&self) -> [u32; 3] {
        [self.albedo, self.normal, self.depth]
    }
}

/// A part with its LOD chain: one vertex buffer shared by every level, one index
/// buffer per level.
#[derive(Clone, Debug, PartialEq)]
pub struct BakedPart {
    pub name: String,
    pub material: Material,
    pub bounds: Aabb,
    pub sphere: Sphere,
    /// Every vertex is one [`VertexQuantization::snap`] gives back, so the entry's
    /// packed vertices parse back to exactly these.
    pub vertices: Vec<Vertex>,
    /// How the entry packs `vertices`.
    pub quantization: VertexQuantization,
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
    /// meshoptimizer's simplification error, relative to the part's extent (with the
    /// colour error, for a part of several vertex colours).
    pub error: f32,
    /// How far, in metres (prop space), this level's surface strays from level 0's: the
    /// symmetric Hausdorff distance sampled at level 0's vertices and at the edge
    /// midpoints and centroids of both levels' triangles (0 for level 0; see
    /// `sylva_bake::stages::level_deviation`). The runtime may switch to this level where
    /// this projects to under a pixel.
    pub error_m: f32,
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
        format!("{}.{}", self.to_hex(), ENTRY_EXTENSION)
    }
}

/// The content address of a texture blob: BLAKE3 of its file bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TextureId(pub [u8; 32]);

impl TextureId {
    pub fn of(file_bytes: &[u8]) -> Self {
        TextureId(*blake3::hash(file_bytes).as_bytes())
    }

    pub fn to_hex(&self) -> String {
        self.0.iter().map(|b| format!("{b:02x}")).collect()
    }

    /// The blob's file inside the cache folder.
    pub fn file_name(&self) -> String {
        format!("{}.{}", self.to_hex(), TEXTURE_EXTENSION)
    }
}

//! The plain data a prop arrives in: per part, one interleaved buffer of packed
//! vertices shared by every LOD, one index buffer per LOD, and a material. Borrowed, so
//! a baked cache entry uploads straight from its file bytes.

pub use sylva_cache::PixelFormat;
pub use sylva_mesh::{VertexQuantization, PACKED_STRIDE};
use thiserror::Error;

/// The width of a LOD's indices.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IndexWidth {
    /// 16-bit indices.
    U16,
    /// 32-bit indices.
    U32,
}

impl IndexWidth {
    /// Bytes per index.
    pub fn bytes(self) -> usize {
        match self {
            IndexWidth::U16 => 2,
            IndexWidth::U32 => 4,
        }
    }
}

/// One LOD's triangle list.
#[derive(Clone, Copy, Debug)]
pub struct LodIndices<'a> {
    /// Little-endian indices into the part's vertices, three per triangle.
    pub bytes: &'a [u8],
    /// Their width.
    pub width: IndexWidth,
}

/// How a part's alpha is used.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum AlphaMode {
    /// Alpha ignored.
    Opaque,
    /// Fragments with alpha below `cutoff` are discarded (foliage cards).
    Mask {
        /// The alpha below which fragments are discarded.
        cutoff: f32,
    },
}

/// A texture with its mip levels, stored as `format` says (rows top to bottom).
#[derive(Clone, Copy, Debug)]
pub struct TextureLevels<'a> {
    /// Names the texels: parts whose textures have the same key share one GPU texture
    /// (the bake cache's content address of the texture blob).
    pub key: [u8; 32],
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// How the levels are stored; block formats are decoded to RGBA8 on adapters
    /// without BC support.
    pub format: PixelFormat,
    /// Level `l` is `format.image_bytes(max(1, width >> l), max(1, height >> l))` bytes,
    /// largest first; at least one level.
    pub levels: &'a [&'a [u8]],
}

impl TextureLevels<'_> {
    /// The size of mip level `level`.
    pub fn level_size(&self, level: usize) -> (u32, u32) {
        let side = |s: u32| s.checked_shr(level as u32).unwrap_or(0).max(1);
        (side(self.width), side(self.height))
    }
}

/// What a part is drawn with: glTF's metallic-roughness model, as rend3-routine shades
/// it.
#[derive(Clone, Copy, Debug)]
pub struct PartMaterial<'a> {
    /// Linear RGBA factor.
    pub base_color: [f32; 4],
    /// Base colour texture (sRGB), multiplied with the factor and the vertex colour.
    pub base_color_texture: Option<TextureLevels<'a>>,
    /// Metalness factor, 0 (dielectric) to 1.
    pub metallic: f32,
    /// Perceptual roughness factor, 0 to 1.
    pub roughness: f32,
    /// Roughness in G, metallic in B (linear), multiplied with the factors.
    pub metallic_roughness_texture: Option<TextureLevels<'a>>,
    /// Tangent-space normal map: X and Y in R and G (Z rebuilt), +Y up.
    pub normal_texture: Option<TextureLevels<'a>>,
    /// Scales the normal map's X and Y.
    pub normal_scale: f32,
    /// Ambient occlusion in R.
    pub occlusion_texture: Option<TextureLevels<'a>>,
    /// How much of the occlusion texture applies (0 none, 1 all).
    pub occlusion_strength: f32,
    /// Linear RGB emission.
    pub emissive: [f32; 3],
    /// Emission texture (sRGB), multiplied with the factor.
    pub emissive_texture: Option<TextureLevels<'a>>,
    /// Alpha handling.
    pub alpha: AlphaMode,
    /// Draw back faces too (no culling).
    pub double_sided: bool,
}

impl<'a> PartMaterial<'a> {
    /// A plain material: `base_color`, dielectric, rough, no textures, opaque.
    pub fn plain(base_color: [f32; 4]) -> Self {
        PartMaterial {
            base_color,
            base_color_texture: None,
            metallic: 0.0,
            roughness: 1.0,
            metallic_roughness_texture: None,
            normal_texture: None,
            normal_scale: 1.0,
            occlusion_texture: None,
            occlusion_strength: 1.0,
            emissive: [0.0; 3],
            emissive_texture: None,
            alpha: AlphaMode::Opaque,
            double_sided: false,
        }
    }

    /// Every texture the material samples.
    pub fn textures(&self) -> impl Iterator<Item = TextureLevels<'a>> {
        [
            self.base_color_texture,
            self.metallic_roughness_texture,
            self.normal_texture,
            self.occlusion_texture,
            self.emissive_texture,
        ]
        .into_iter()
        .flatten()
    }
}

/// One part of a prop as the props renderer uploads it.
#[derive(Clone, Debug)]
pub struct PartGeometry<'a> {
    /// Packed vertices, [`PACKED_STRIDE`] bytes each, shared by every LOD.
    pub vertices: &'a [u8],
    /// How the vertex shader unpacks their positions and UVs.
    pub quantization: VertexQuantization,
    /// Finest first.
    pub lods: Vec<LodIndices<'a>>,
    /// Its material.
    pub material: PartMaterial<'a>,
}

/// Why a part was refused (named by its index in the prop and its LOD).
#[derive(Debug, Clone, PartialEq, Error)]
#[allow(missing_docs)] // The fields are named by the messages.
pub enum GeometryError {
    #[error("part {part}: vertex data of {bytes} bytes is not a whole number of {PACKED_STRIDE}-byte vertices")]
    VertexBytes { part: usize, bytes: usize },
    #[error("part {part}: has no LOD")]
    NoLod { part: usize },
    #[error("part {part}, LOD {lod}: {bytes} index bytes do not make whole triangles")]
    IndexBytes {
        part: usize,
        lod: usize,
        bytes: usize,
    },
    #[error("part {part}, LOD {lod}: index {index} is past the {vertices} vertices")]
    IndexOutOfRange {
        part: usize,
        lod: usize,
        index: u32,
        vertices: usize,
    },
    #[error(
        "part {part}: level {level} of a {width}×{height} texture needs {expected} bytes, got {actual}"
    )]
    TextureBytes {
        part: usize,
        level: usize,
        width: u32,
        height: u32,
        expected: usize,
        actual: usize,
    },
    #[error("the impostor has {reason}")]
    Impostor { reason: String },
    #[error("part {part}: a {width}×{height} texture with {levels} mip levels")]
    TextureLevels {
        part: usize,
        width: u32,
        height: u32,
        levels: usize,
    },
}

impl PartGeometry<'_> {
    /// Vertices in the part.
    pub fn vertex_count(&self) -> usize {
        self.vertices.len() / PACKED_STRIDE
    }

    /// Vertex positions, unpacked.
    pub fn positions(&self) -> impl Iterator<Item = glam::Vec3> + Clone + '_ {
        self.quantization
            .unpack_all(self.vertices)
            .map(|v| glam::Vec3::from(v.position))
    }

    /// Checks the data the GPU would otherwise read out of bounds.
    pub fn validate(&self, part: usize) -> Result<(), GeometryError> {
        if !self.vertices.len().is_multiple_of(PACKED_STRIDE) || !self.quantization.is_valid() {
            return Err(GeometryError::VertexBytes {
                part,
                bytes: self.vertices.len(),
            });
        }
        if self.lods.is_empty() {
            return Err(GeometryError::NoLod { part });
        }
        let vertices = self.vertex_count();
        for (lod, level) in self.lods.iter().enumerate() {
            if !level.bytes.len().is_multiple_of(3 * level.width.bytes()) {
                return Err(GeometryError::IndexBytes {
                    part,
                    lod,
                    bytes: level.bytes.len(),
                });
            }
            let max = match level.width {
                IndexWidth::U16 => level
                    .bytes
                    .chunks_exact(2)
                    .map(|b| u16::from_le_bytes([b[0], b[1]]) as u32)
                    .max(),
                IndexWidth::U32 => level
                    .bytes
                    .chunks_exact(4)
                    .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                    .max(),
            };
            if let Some(index) = max.filter(|&m| m as usize >= vertices) {
                return Err(GeometryError::IndexOutOfRange {
                    part,
                    lod,
                    index,
                    vertices,
                });
            }
        }
        for t in self.material.textures() {
            check_texture(&t, part)?;
        }
        Ok(())
    }
}

/// Checks a texture's size, level count and bytes per level; errors name `part`.
fn check_texture(t: &TextureLevels, part: usize) -> Result<(), GeometryError> {
    let full_chain = (32 - t.width.max(t.height).leading_zeros()) as usize;
    if t.width == 0 || t.height == 0 || !(1..=full_chain).contains(&t.levels.len()) {
        return Err(GeometryError::TextureLevels {
            part,
            width: t.width,
            height: t.height,
            levels: t.levels.len(),
        });
    }
    for (level, bytes) in t.levels.iter().enumerate() {
        let (w, h) = t.level_size(level);
        let expected = t.format.image_bytes(w, h) as usize;
        if bytes.len() != expected {
            return Err(GeometryError::TextureBytes {
                part,
                level,
                width: t.width,
                height: t.height,
                expected,
                actual: bytes.len(),
            });
        }
    }
    Ok(())
}

/// A prop's impostor, its last level: a `grid × grid` hemi-octahedral atlas of
/// orthographic views of the whole prop (sylva-impostor's layout), each `cell_px`
/// texels square at level 0, fitted to the bounding sphere `center`, `radius`.
#[derive(Clone, Copy, Debug)]
pub struct ImpostorGeometry<'a> {
    /// Views per side of the grid (even).
    pub grid: u32,
    /// Texels per side of a view at level 0 (a power of two).
    pub cell_px: u32,
    /// The sphere's centre, prop space.
    pub center: [f32; 3],
    /// The sphere's radius.
    pub radius: f32,
    /// sRGB colour and coverage.
    pub albedo: TextureLevels<'a>,
    /// The view-frame normal on the hemi-octahedral square, in R and G.
    pub normal: TextureLevels<'a>,
    /// The depth towards the view (R) and the shadow pass's (G), `[-radius, radius]` as
    /// `[0, 1]`.
    pub depth: TextureLevels<'a>,
    /// The perceptual roughness it is shaded with (the atlas keeps none): its parts'
    /// mean.
    pub roughness: f32,
    /// The metallic it is shaded with, likewise.
    pub metallic: f32,
}

impl<'a> ImpostorGeometry<'a> {
    /// Albedo, normal and depth.
    pub fn atlases(&self) -> [&TextureLevels<'a>; 3] {
        [&self.albedo, &self.normal, &self.depth]
    }

    /// Checks the layout and the atlases; `part` is the prop's part count, so
    /// texture errors name the impostor as the part after the last.
    pub fn validate(&self, part: usize) -> Result<(), GeometryError> {
        let side = self.grid.checked_mul(self.cell_px);
        let bad = |reason: String| Err(GeometryError::Impostor { reason });
        if self.grid < 2 || !self.grid.is_multiple_of(2) || !self.cell_px.is_power_of_two() {
            return bad(format!(
                "a {}-view grid of {}-texel cells (an even grid and a power of two)",
                self.grid, self.cell_px
            ));
        }
        if !(self.radius > 0.0
            && self.radius.is_finite()
            && self.center.iter().all(|c| c.is_finite()))
        {
            return bad(format!("a bounding sphere of radius {}", self.radius));
        }
        if !((0.0..=1.0).contains(&self.roughness) && (0.0..=1.0).contains(&self.metallic)) {
            return bad(format!(
                "roughness {} and metallic {} (each 0 to 1)",
                self.roughness, self.metallic
            ));
        }
        for atlas in self.atlases() {
            if Some(atlas.width) != side || Some(atlas.height) != side {
                return bad(format!(
                    "a {}×{} atlas for {} views of {} texels",
                    atlas.width, atlas.height, self.grid, self.cell_px
                ));
            }
            check_texture(atlas, part)?;
        }
        Ok(())
    }
}

impl LodIndices<'_> {
    /// Indices in the level (three per triangle).
    pub fn index_count(&self) -> u32 {
        (self.bytes.len() / self.width.bytes()) as u32
    }
}

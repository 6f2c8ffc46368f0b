//! What the baker is handed: plain parts and textures, borrowed, checked once and
//! prepared for drawing (textures decoded to linear light, the bounding sphere of what
//! the parts draw).

use sylva_mesh::srgb::decode_texel;
use sylva_mesh::{Aabb, AlphaMode, Material, Sphere, TextureBinding, Vertex, BLEND_AS_MASK_CUTOFF};

use crate::octahedral::cross;
use crate::ImpostorError;

/// One part of a prop at its finest level: a triangle list over its vertices.
#[derive(Clone, Copy, Debug)]
pub struct PartSource<'a> {
    pub vertices: &'a [Vertex],
    pub indices: &'a [u32],
    pub material: &'a Material,
}

/// A texture's largest level: `width × height` RGBA8 texels (sRGB colour for base
/// colour, data for normal maps), rows top to bottom; materials index them by
/// `TextureBinding::texture`.
#[derive(Clone, Copy, Debug)]
pub struct TextureSource<'a> {
    pub width: u32,
    pub height: u32,
    pub rgba8: &'a [u8],
}

/// A texture in linear light (alpha as authored), as the drawing samples it.
pub(crate) struct LinearTexture {
    pub width: u32,
    pub height: u32,
    pub texels: Vec<[f32; 4]>,
}

/// A part as the drawing sees it.
pub(crate) struct PreparedPart<'a> {
    pub vertices: &'a [Vertex],
    /// The triangles of non-zero area (the others no view sees), so every corner drawn
    /// lies in the bounding sphere.
    pub indices: Vec<u32>,
    /// Linear RGBA multiplier.
    pub factor: [f32; 4],
    pub texture: Option<(usize, TextureBinding)>,
    /// The tangent-space normal map: an index into the prepared textures (decoded as
    /// linear data, not colour), its binding and its scale.
    pub normal_map: Option<(usize, TextureBinding, f32)>,
    /// Fragments whose alpha is below it are discarded (0 for opaque materials).
    pub cutoff: f32,
    pub double_sided: bool,
}

pub(crate) struct Prepared<'a> {
    pub parts: Vec<PreparedPart<'a>>,
    pub textures: Vec<LinearTexture>,
    /// Around every vertex the parts draw.
    pub sphere: Sphere,
    pub bounds: Aabb,
    /// Triangles of non-zero area.
    pub triangles: u64,
}

impl<'a> Prepared<'a> {
    pub fn new(
        parts: &[PartSource<'a>],
        textures: &[TextureSource<'_>],
    ) -> Result<Self, ImpostorError> {
        let mut prepared = Vec::with_capacity(parts.len());
        let mut drawn = Vec::new();
        let mut triangles = 0u64;
        // Normal maps are prepared after the colour textures, each source once, decoded
        // as data: by first use.
        let mut normal_maps: Vec<u32> = Vec::new();
        for (p, part) in parts.iter().enumerate() {
            check_part(p, part, textures.len())?;
            let mut indices = Vec::with_capacity(part.indices.len());
            for triangle in part.indices.chunks_exact(3) {
                let corners = [0, 1, 2].map(|i| part.vertices[triangle[i] as usize].position);
                if has_area(corners) {
                    triangles += 1;
                    drawn.extend(corners);
                    indices.extend_from_slice(triangle);
                }
            }
            let material = part.material;
            prepared.push(PreparedPart {
                vertices: part.vertices,
                indices,
                factor: material.base_color_factor,
                texture: material
                    .base_color_texture
                    .map(|binding| (binding.texture as usize, binding)),
                normal_map: material.normal_texture.map(|binding| {
                    let first_use = normal_maps.iter().position(|&t| t == binding.texture);
                    let k = first_use.unwrap_or_else(|| {
                        normal_maps.push(binding.texture);
                        normal_maps.len() - 1
                    });
                    (textures.len() + k, binding, material.normal_scale)
                }),
                cutoff: match material.alpha_mode {
                    AlphaMode::Opaque => 0.0,
                    AlphaMode::Mask { cutoff } => cutoff,
                    AlphaMode::Blend => BLEND_AS_MASK_CUTOFF,
                },
                double_sided: material.double_sided,
            });
        }
        let colours = textures
            .iter()
            .enumerate()
            .map(|(t, texture)| LinearTexture::decode(t, texture));
        let normals = normal_maps
            .iter()
            .map(|&t| LinearTexture::data(t as usize, &textures[t as usize]));
        Ok(Prepared {
            parts: prepared,
            textures: colours.chain(normals).collect::<Result<_, _>>()?,
            sphere: Sphere::around(&drawn),
            bounds: Aabb::of_points(&drawn),
            triangles,
        })
    }
}

fn check_part(p: usize, part: &PartSource, textures: usize) -> Result<(), ImpostorError> {
    if !part.indices.len().is_multiple_of(3) {
        return Err(ImpostorError::PartialTriangle {
            part: p,
            indices: part.indices.len(),
        });
    }
    if let Some(&index) = part
        .indices
        .iter()
        .find(|&&i| i as usize >= part.vertices.len())
    {
        return Err(ImpostorError::IndexOutOfRange {
            part: p,
            index,
            vertices: part.vertices.len(),
        });
    }
    if let Some(vertex) = part
        .vertices
        .iter()
        .position(|v| v.position.iter().any(|c| !c.is_finite()))
    {
        return Err(ImpostorError::NonFinitePosition { part: p, vertex });
    }
    let material = part.material;
    match [material.base_color_texture, material.normal_texture]
        .into_iter()
        .flatten()
        .find(|binding| binding.texture as usize >= textures)
    {
        Some(binding) => Err(ImpostorError::MissingTexture {
            part: p,
            texture: binding.texture,
            textures,
        }),
        None => Ok(()),
    }
}

/// Whether a triangle's corners span an area (the cross product of two edges is not
/// zero), so that some view sees it.
fn has_area([a, b, c]: [[f32; 3]; 3]) -> bool {
    let e = [0, 1, 2].map(|i| b[i] - a[i]);
    let f = [0, 1, 2].map(|i| c[i] - a[i]);
    cross(e, f).iter().any(|&c| c != 0.0)
}

impl LinearTexture {
    /// A colour texture: sRGB decoded to linear light.
    fn decode(t: usize, texture: &TextureSource) -> Result<Self, ImpostorError> {
        Self::with(t, texture, decode_texel)
    }

    /// A data texture (a normal map): each byte over 255.
    fn data(t: usize, texture: &TextureSource) -> Result<Self, ImpostorError> {
        Self::with(t, texture, |texel| {
            std::array::from_fn(|i| f32::from(texel[i]) / 255.0)
        })
    }

    fn with(
        t: usize,
        texture: &TextureSource,
        decode: impl Fn(&[u8]) -> [f32; 4],
    ) -> Result<Self, ImpostorError> {
        let texels = texture.width as usize * texture.height as usize;
        if texels == 0 || texture.rgba8.len() != texels * 4 {
            return Err(ImpostorError::TextureSize {
                texture: t,
                width: texture.width,
                height: texture.height,
                bytes: texture.rgba8.len(),
            });
        }
        Ok(LinearTexture {
            width: texture.width,
            height: texture.height,
            texels: texture.rgba8.chunks_exact(4).map(decode).collect(),
        })
    }
}

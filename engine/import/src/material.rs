//! Materials of primitives: base colour factor and texture (decoded once per image),
//! sampler wrap modes, alpha mode and cutoff, double-sidedness, and the UV set and
//! KHR_texture_transform the base colour texture reads through.

use std::collections::BTreeMap;

use gltf::json::material::AlphaMode as JsonAlphaMode;
use gltf::json::texture::WrappingMode;
use gltf::json::validation::Checked;
use gltf::json::Root;
use sylva_mesh::{AlphaMode, Material, Texture, TextureBinding, WrapMode};

use crate::budget::Allowance;
use crate::error::{element, ImportError};
use crate::sources::{load_uri, Resolver};

/// A primitive's material and how its UVs feed the base colour texture.
#[derive(Clone)]
pub(crate) struct PrimitiveMaterial {
    pub material: Material,
    /// The TEXCOORD set the base colour texture reads (0 without a texture).
    pub uv_set: u32,
    /// KHR_texture_transform as `[[a, b, offset_u], [c, d, offset_v]]`.
    pub uv_transform: Option<[[f32; 3]; 2]>,
}

impl PrimitiveMaterial {
    pub fn transform_uv(&self, uv: [f32; 2]) -> [f32; 2] {
        match self.uv_transform {
            None => uv,
            Some([r0, r1]) => [
                r0[0] * uv[0] + r0[1] * uv[1] + r0[2],
                r1[0] * uv[0] + r1[1] * uv[1] + r1[2],
            ],
        }
    }
}

/// Converts materials on first use and decodes each image once.
pub(crate) struct Materials<'a> {
    root: &'a Root,
    buffers: &'a [&'a [u8]],
    converted: BTreeMap<Option<usize>, PrimitiveMaterial>,
    texture_of_image: BTreeMap<usize, u32>,
    /// Every decoded image is charged here before it is decoded.
    pixel_bytes: Allowance,
    pub textures: Vec<Texture>,
}

impl<'a> Materials<'a> {
    /// `input_bytes`: the size of the file and of every buffer it loaded.
    pub fn new(root: &'a Root, buffers: &'a [&'a [u8]], input_bytes: u64) -> Self {
        Materials {
            root,
            buffers,
            converted: BTreeMap::new(),
            texture_of_image: BTreeMap::new(),
            pixel_bytes: Allowance::pixel_bytes(input_bytes),
            textures: Vec::new(),
        }
    }

    /// The material `index` (glTF's default material for `None`); `path` names the
    /// reference.
    pub fn get(
        &mut self,
        index: Option<usize>,
        path: &str,
        resolve: &mut Resolver<'_>,
    ) -> Result<PrimitiveMaterial, ImportError> {
        if let Some(done) = self.converted.get(&index) {
            return Ok(done.clone());
        }
        let converted = match index {
            None => PrimitiveMaterial {
                material: Material::default(),
                uv_set: 0,
                uv_transform: None,
            },
            Some(i) => self.convert(i, path, resolve)?,
        };
        self.converted.insert(index, converted.clone());
        Ok(converted)
    }

    fn convert(
        &mut self,
        index: usize,
        path: &str,
        resolve: &mut Resolver<'_>,
    ) -> Result<PrimitiveMaterial, ImportError> {
        let m = element(&self.root.materials, index, "material", path)?;
        let here = format!("materials[{index}]");
        let alpha_mode = match m.alpha_mode {
            Checked::Valid(JsonAlphaMode::Opaque) => AlphaMode::Opaque,
            Checked::Valid(JsonAlphaMode::Blend) => AlphaMode::Blend,
            Checked::Valid(JsonAlphaMode::Mask) => AlphaMode::Mask {
                cutoff: m.alpha_cutoff.map_or(0.5, |c| c.0),
            },
            Checked::Invalid => {
                return Err(ImportError::invalid(
                    format!("{here}.alphaMode"),
                    "is not OPAQUE, MASK or BLEND",
                ))
            }
        };
        let mut converted = PrimitiveMaterial {
            material: Material {
                name: m.name.clone().unwrap_or_default(),
                base_color_factor: m.pbr_metallic_roughness.base_color_factor.0,
                base_color_texture: None,
                alpha_mode,
                double_sided: m.double_sided,
            },
            uv_set: 0,
            uv_transform: None,
        };
        if let Some(info) = &m.pbr_metallic_roughness.base_color_texture {
            let info_path = format!("{here}.pbrMetallicRoughness.baseColorTexture");
            converted.material.base_color_texture =
                Some(self.binding(info.index.value(), &info_path, resolve)?);
            converted.uv_set = info.tex_coord;
            if let Some(t) = info
                .extensions
                .as_ref()
                .and_then(|e| e.texture_transform.as_ref())
            {
                let (sin, cos) = t.rotation.0.sin_cos();
                let ([sx, sy], [ox, oy]) = (t.scale.0, t.offset.0);
                converted.uv_transform =
                    Some([[cos * sx, sin * sy, ox], [-sin * sx, cos * sy, oy]]);
                converted.uv_set = t.tex_coord.unwrap_or(info.tex_coord);
            }
        }
        Ok(converted)
    }

    fn binding(
        &mut self,
        texture_index: usize,
        path: &str,
        resolve: &mut Resolver<'_>,
    ) -> Result<TextureBinding, ImportError> {
        let texture = element(&self.root.textures, texture_index, "texture", path)?;
        let here = format!("textures[{texture_index}]");
        let (wrap_u, wrap_v) = match texture.sampler {
            None => (WrapMode::Repeat, WrapMode::Repeat),
            Some(s) => {
                let sampler = element(&self.root.samplers, s.value(), "sampler", &here)?;
                let sampler_path = format!("samplers[{}]", s.value());
                (
                    wrap(&sampler.wrap_s, &sampler_path, "wrapS")?,
                    wrap(&sampler.wrap_t, &sampler_path, "wrapT")?,
                )
            }
        };
        // EXT_texture_webp names its own image; `source` is then a fallback or absent.
        let image = texture
            .extensions
            .as_ref()
            .and_then(|e| e.others.get("EXT_texture_webp"))
            .and_then(|webp| webp.get("source"))
            .and_then(|source| source.as_u64())
            .map_or(texture.source.value(), |source| source as usize);
        let texture = match self.texture_of_image.get(&image) {
            Some(&t) => t,
            None => {
                let decoded = self.decode_image(image, &format!("{here}.source"), resolve)?;
                let t = self.textures.len() as u32;
                self.textures.push(decoded);
                self.texture_of_image.insert(image, t);
                t
            }
        };
        Ok(TextureBinding {
            texture,
            wrap_u,
            wrap_v,
        })
    }

    fn decode_image(
        &mut self,
        index: usize,
        path: &str,
        resolve: &mut Resolver<'_>,
    ) -> Result<Texture, ImportError> {
        let image = element(&self.root.images, index, "image", path)?;
        let here = format!("images[{index}]");
        match (&image.uri, image.buffer_view) {
            (Some(uri), _) => {
                let (bytes, media_type) = load_uri(uri, &format!("{here}.uri"), resolve)?;
                if media_type.is_none() {
                    // A file beside the asset: more input (a data URI is in the file).
                    self.pixel_bytes.add_input(bytes.len() as u64);
                }
                crate::image::decode(&bytes, &here, &mut self.pixel_bytes)
            }
            (None, Some(view)) => {
                let bytes = self.view_bytes(view.value(), &format!("{here}.bufferView"))?;
                crate::image::decode(bytes, &here, &mut self.pixel_bytes)
            }
            (None, None) => Err(ImportError::invalid(here, "has neither uri nor bufferView")),
        }
    }

    fn view_bytes(&self, index: usize, path: &str) -> Result<&'a [u8], ImportError> {
        let view = element(&self.root.buffer_views, index, "buffer view", path)?;
        let view_path = format!("bufferViews[{index}]");
        let buffer = *element(self.buffers, view.buffer.value(), "buffer", &view_path)?;
        let start = view.byte_offset.map_or(0, |o| o.0);
        let end = start.saturating_add(view.byte_length.0);
        buffer
            .get(start as usize..end as usize)
            .ok_or(ImportError::OutOfBounds {
                path: view_path,
                within: format!("buffers[{}]", view.buffer.value()),
                start,
                end,
                available: buffer.len() as u64,
            })
    }
}

fn wrap(mode: &Checked<WrappingMode>, path: &str, field: &str) -> Result<WrapMode, ImportError> {
    match mode {
        Checked::Valid(WrappingMode::Repeat) => Ok(WrapMode::Repeat),
        Checked::Valid(WrappingMode::ClampToEdge) => Ok(WrapMode::ClampToEdge),
        Checked::Valid(WrappingMode::MirroredRepeat) => Ok(WrapMode::MirroredRepeat),
        Checked::Invalid => Err(ImportError::invalid(
            format!("{path}.{field}"),
            "is not a glTF wrap mode",
        )),
    }
}

//! Materials of primitives: every metallic-roughness channel (base colour, metallic and
//! roughness, normal map, occlusion, emission with KHR_materials_emissive_strength),
//! sampler wrap modes, alpha mode and cutoff, double-sidedness, and the UV set and
//! KHR_texture_transform the part's textures read through. Each image is decoded once
//! per kind of texel it is used for (colour, normal, linear data).
//!
//! A part has one UV set: that of its first textured channel in [`Channel::ALL`]'s order
//! (the base colour's, in practice). A channel reading another set or transform is left
//! out and reported, not guessed at.

use std::collections::BTreeMap;

use gltf::json::extensions::texture::TextureTransform;
use gltf::json::material::AlphaMode as JsonAlphaMode;
use gltf::json::texture::WrappingMode;
use gltf::json::validation::Checked;
use gltf::json::Root;
use sylva_mesh::{AlphaMode, Channel, Material, Texture, TextureBinding, TextureKind, WrapMode};

use crate::budget::Allowance;
use crate::error::{element, ImportError};
use crate::sources::{load_uri, Resolver};
use crate::Skipped;

/// A primitive's material and how its UVs feed its textures.
#[derive(Clone)]
pub(crate) struct PrimitiveMaterial {
    pub material: Material,
    /// The TEXCOORD set every texture reads (0 without a texture).
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

/// How a texture reference maps the part's UVs: its set and its transform.
#[derive(Clone, Copy, PartialEq)]
struct UvMapping {
    set: u32,
    transform: Option<[[f32; 3]; 2]>,
}

impl UvMapping {
    fn new(tex_coord: u32, transform: Option<&TextureTransform>) -> Self {
        match transform {
            None => UvMapping {
                set: tex_coord,
                transform: None,
            },
            Some(t) => {
                let (sin, cos) = t.rotation.0.sin_cos();
                let ([sx, sy], [ox, oy]) = (t.scale.0, t.offset.0);
                UvMapping {
                    set: t.tex_coord.unwrap_or(tex_coord),
                    transform: Some([[cos * sx, sin * sy, ox], [-sin * sx, cos * sy, oy]]),
                }
            }
        }
    }
}

/// One texture reference of a material, before its image is decoded.
struct Reference {
    channel: Channel,
    texture: usize,
    mapping: UvMapping,
}

/// KHR_texture_transform on a normal or occlusion texture, which gltf-json leaves in the
/// extension map.
fn untyped_transform(
    others: &serde_json::Map<String, serde_json::Value>,
    path: &str,
) -> Result<Option<TextureTransform>, ImportError> {
    others
        .get("KHR_texture_transform")
        .map(|value| {
            serde_json::from_value(value.clone()).map_err(|e| {
                ImportError::invalid(
                    format!("{path}.extensions.KHR_texture_transform"),
                    e.to_string(),
                )
            })
        })
        .transpose()
}

/// Converts materials on first use and decodes each image once per kind.
pub(crate) struct Materials<'a> {
    root: &'a Root,
    buffers: &'a [&'a [u8]],
    converted: BTreeMap<Option<usize>, PrimitiveMaterial>,
    texture_of_image: BTreeMap<(usize, TextureKind), u32>,
    /// Every decoded image is charged here before it is decoded.
    pixel_bytes: Allowance,
    pub textures: Vec<Texture>,
    /// Texture channels left out because they read another UV set or transform.
    pub dropped: Vec<Skipped>,
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
            dropped: Vec::new(),
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
        let pbr = &m.pbr_metallic_roughness;
        let emissive_strength = m
            .extensions
            .as_ref()
            .and_then(|e| e.emissive_strength.as_ref())
            .map_or(1.0, |s| s.emissive_strength.0);
        let mut material = Material {
            name: m.name.clone().unwrap_or_default(),
            base_color_factor: pbr.base_color_factor.0,
            metallic_factor: pbr.metallic_factor.0,
            roughness_factor: pbr.roughness_factor.0,
            normal_scale: m.normal_texture.as_ref().map_or(1.0, |n| n.scale),
            occlusion_strength: m.occlusion_texture.as_ref().map_or(1.0, |o| o.strength.0),
            emissive_factor: m.emissive_factor.0.map(|c| c * emissive_strength),
            alpha_mode,
            double_sided: m.double_sided,
            ..Material::default()
        };

        let info = |channel: Channel, info: &Option<gltf::json::texture::Info>| {
            info.as_ref().map(|i| Reference {
                channel,
                texture: i.index.value(),
                mapping: UvMapping::new(
                    i.tex_coord,
                    i.extensions
                        .as_ref()
                        .and_then(|e| e.texture_transform.as_ref()),
                ),
            })
        };
        let mut references: Vec<Reference> = [
            info(Channel::BaseColor, &pbr.base_color_texture),
            info(Channel::MetallicRoughness, &pbr.metallic_roughness_texture),
        ]
        .into_iter()
        .flatten()
        .collect();
        // Normal and occlusion textures keep KHR_texture_transform in their extension map.
        let untyped = |channel: Channel,
                       index: usize,
                       tex_coord: u32,
                       others: Option<&serde_json::Map<String, serde_json::Value>>|
         -> Result<Reference, ImportError> {
            let path = format!("{here}.{}", channel.gltf_name());
            let transform = others
                .map(|o| untyped_transform(o, &path))
                .transpose()?
                .flatten();
            Ok(Reference {
                channel,
                texture: index,
                mapping: UvMapping::new(tex_coord, transform.as_ref()),
            })
        };
        if let Some(n) = &m.normal_texture {
            let others = n.extensions.as_ref().map(|e| &e.others);
            references.push(untyped(
                Channel::Normal,
                n.index.value(),
                n.tex_coord,
                others,
            )?);
        }
        if let Some(o) = &m.occlusion_texture {
            let others = o.extensions.as_ref().map(|e| &e.others);
            references.push(untyped(
                Channel::Occlusion,
                o.index.value(),
                o.tex_coord,
                others,
            )?);
        }
        references.extend(info(Channel::Emissive, &m.emissive_texture));
        references.sort_by_key(|r| r.channel);

        let mapping = references.first().map(|r| r.mapping);
        for reference in &references {
            let channel_path = match reference.channel {
                Channel::BaseColor | Channel::MetallicRoughness => {
                    format!(
                        "{here}.pbrMetallicRoughness.{}",
                        reference.channel.gltf_name()
                    )
                }
                _ => format!("{here}.{}", reference.channel.gltf_name()),
            };
            if Some(reference.mapping) != mapping {
                self.dropped.push(Skipped {
                    path: channel_path,
                    reason: "reads another UV set or transform than the part's other textures"
                        .into(),
                });
                continue;
            }
            let binding = self
                .binding(
                    reference.texture,
                    reference.channel.kind(),
                    &channel_path,
                    resolve,
                )
                .map_err(|source| ImportError::MaterialTexture {
                    material: match &m.name {
                        Some(name) if !name.is_empty() => format!("`{name}` ({here})"),
                        _ => here.clone(),
                    },
                    channel: reference.channel.gltf_name(),
                    source: Box::new(source),
                })?;
            *material.texture_mut(reference.channel) = Some(binding);
        }
        let mapping = mapping.unwrap_or(UvMapping {
            set: 0,
            transform: None,
        });
        Ok(PrimitiveMaterial {
            material,
            uv_set: mapping.set,
            uv_transform: mapping.transform,
        })
    }

    fn binding(
        &mut self,
        texture_index: usize,
        kind: TextureKind,
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
        let texture = match self.texture_of_image.get(&(image, kind)) {
            Some(&t) => t,
            None => {
                let decoded = self.decode_image(image, kind, &format!("{here}.source"), resolve)?;
                let t = self.textures.len() as u32;
                self.textures.push(decoded);
                self.texture_of_image.insert((image, kind), t);
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
        kind: TextureKind,
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
                // A file's errors name it; a data URI is the file itself.
                let named = match media_type {
                    None => format!("{here} (`{uri}`)"),
                    Some(_) => here,
                };
                crate::image::decode(&bytes, kind, &named, &mut self.pixel_bytes)
            }
            (None, Some(view)) => {
                let bytes = self.view_bytes(view.value(), &format!("{here}.bufferView"))?;
                crate::image::decode(bytes, kind, &here, &mut self.pixel_bytes)
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

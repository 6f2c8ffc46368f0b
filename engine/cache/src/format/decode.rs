use sylva_mesh::{
    Aabb, AlphaMode, Channel, Material, Sphere, TextureBinding, Vertex, VertexQuantization,
    WrapMode, PACKED_STRIDE,
};

use super::impostor::{check_impostor, BAKED, REFUSED};
use super::{
    check_error, check_sphere, header, malformed, FormatError, IndexFormat, TextureId, BLOB_ALIGN,
    FORMAT_VERSION, HEADER_SIZE, MAGIC,
};
use crate::model::{BakedAsset, BakedLevel, BakedPart, ImpostorRecord, ImpostorView};

/// A parsed entry. Vertex and index bytes borrow the file bytes.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry<'a> {
    pub prop_id: &'a str,
    pub source_path: &'a str,
    pub bounds: Aabb,
    /// Holds every vertex of every part (prop space).
    pub sphere: Sphere,
    /// The texture blobs its materials index, by content address.
    pub textures: Vec<TextureId>,
    pub parts: Vec<PartView<'a>>,
    /// Read through [`Entry::impostor`] and [`Entry::impostor_refusal`].
    impostor: ImpostorRecord,
}

/// A part: one vertex buffer shared by all of its levels.
#[derive(Clone, Debug, PartialEq)]
pub struct PartView<'a> {
    pub name: &'a str,
    pub material: Material,
    pub bounds: Aabb,
    pub sphere: Sphere,
    pub vertex_count: u32,
    pub index_format: IndexFormat,
    /// How `vertex_bytes` map back to prop space (the shaders apply it).
    pub quantization: VertexQuantization,
    /// `vertex_count × PACKED_STRIDE` bytes of packed vertices
    /// ([`sylva_mesh::VertexQuantization`]); upload as is.
    pub vertex_bytes: &'a [u8],
    pub levels: Vec<LevelView<'a>>,
}

/// One LOD level: a private index buffer into the part's vertices.
#[derive(Clone, Debug, PartialEq)]
pub struct LevelView<'a> {
    pub index_count: u32,
    pub target_ratio: f32,
    pub achieved_ratio: f32,
    /// meshoptimizer's error, relative to the part's extent.
    pub error: f32,
    /// How far the level strays from level 0, in metres (see
    /// [`crate::BakedLevel::error_m`]).
    pub error_m: f32,
    pub index_format: IndexFormat,
    /// `index_count × index size` bytes; upload as is.
    pub index_bytes: &'a [u8],
    /// `index_bytes` followed by its zero padding up to a multiple of 4 bytes, for
    /// APIs (wgpu) that copy whole 4-byte words.
    pub index_bytes_padded: &'a [u8],
}

impl PartView<'_> {
    /// The vertices unpacked, as the shaders see them.
    pub fn vertices(&self) -> impl ExactSizeIterator<Item = Vertex> + '_ {
        self.quantization.unpack_all(self.vertex_bytes)
    }
}

impl LevelView<'_> {
    pub fn indices(&self) -> impl ExactSizeIterator<Item = u32> + '_ {
        let format = self.index_format;
        self.index_bytes
            .chunks_exact(format.size())
            .map(move |c| match format {
                IndexFormat::U16 => u32::from(u16::from_le_bytes([c[0], c[1]])),
                IndexFormat::U32 => u32::from_le_bytes([c[0], c[1], c[2], c[3]]),
            })
    }

    pub fn triangle_count(&self) -> u32 {
        self.index_count / 3
    }
}

impl<'a> Entry<'a> {
    /// Checks magic, version, size, checksum and every range and index, then returns
    /// views into `bytes`.
    pub fn parse(bytes: &'a [u8]) -> Result<Self, FormatError> {
        header::check(bytes, MAGIC, FORMAT_VERSION)?;
        let mut r = Reader {
            bytes,
            at: HEADER_SIZE,
        };
        r.entry()
    }

    /// The prop's impostor, `None` when it has none (then
    /// [`Entry::impostor_refusal`] says why and the coarsest mesh is the last level).
    pub fn impostor(&self) -> Option<ImpostorView> {
        match &self.impostor {
            ImpostorRecord::Baked(view) => Some(*view),
            ImpostorRecord::Refused { .. } => None,
        }
    }

    /// Why the prop has no impostor; `None` when it has one.
    pub fn impostor_refusal(&self) -> Option<&str> {
        match &self.impostor {
            ImpostorRecord::Baked(_) => None,
            ImpostorRecord::Refused { reason } => Some(reason),
        }
    }

    /// The impostor record as stored: baked or refused.
    pub fn impostor_record(&self) -> &ImpostorRecord {
        &self.impostor
    }

    /// An owned copy, e.g. to re-encode it.
    pub fn to_baked(&self) -> BakedAsset {
        BakedAsset {
            impostor: self.impostor.clone(),
            prop_id: self.prop_id.to_owned(),
            source_path: self.source_path.to_owned(),
            bounds: self.bounds,
            sphere: self.sphere,
            textures: self.textures.clone(),
            parts: self
                .parts
                .iter()
                .map(|p| BakedPart {
                    name: p.name.to_owned(),
                    material: p.material.clone(),
                    bounds: p.bounds,
                    sphere: p.sphere,
                    vertices: p.vertices().collect(),
                    quantization: p.quantization,
                    levels: p
                        .levels
                        .iter()
                        .map(|l| BakedLevel {
                            indices: l.indices().collect(),
                            target_ratio: l.target_ratio,
                            achieved_ratio: l.achieved_ratio,
                            error: l.error,
                            error_m: l.error_m,
                        })
                        .collect(),
                })
                .collect(),
        }
    }
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize, what: &'static str) -> Result<&'a [u8], FormatError> {
        let end = self.at.checked_add(n).filter(|&e| e <= self.bytes.len());
        let Some(end) = end else {
            return Err(FormatError::Truncated {
                what,
                needed: (self.at as u64).saturating_add(n as u64),
                available: self.bytes.len() as u64,
            });
        };
        let out = &self.bytes[self.at..end];
        self.at = end;
        Ok(out)
    }

    fn array<const N: usize>(&mut self, what: &'static str) -> Result<[u8; N], FormatError> {
        let mut out = [0; N];
        out.copy_from_slice(self.take(N, what)?);
        Ok(out)
    }

    fn u8(&mut self, what: &'static str) -> Result<u8, FormatError> {
        Ok(self.array::<1>(what)?[0])
    }

    fn u32(&mut self, what: &'static str) -> Result<u32, FormatError> {
        self.array(what).map(u32::from_le_bytes)
    }

    fn u64(&mut self, what: &'static str) -> Result<u64, FormatError> {
        self.array(what).map(u64::from_le_bytes)
    }

    fn f32(&mut self, what: &'static str) -> Result<f32, FormatError> {
        self.array(what).map(f32::from_le_bytes)
    }

    /// A number that must be finite (material factors: a NaN colour would draw wrong
    /// silently, and cannot be written as glTF).
    fn finite_f32(&mut self, what: &'static str) -> Result<f32, FormatError> {
        let value = self.f32(what)?;
        if !value.is_finite() {
            return Err(malformed(what, format!("{value} is not a finite number")));
        }
        Ok(value)
    }

    fn f32s<const N: usize>(&mut self, what: &'static str) -> Result<[f32; N], FormatError> {
        let mut out = [0.0; N];
        for v in &mut out {
            *v = self.f32(what)?;
        }
        Ok(out)
    }

    fn finite_f32s<const N: usize>(&mut self, what: &'static str) -> Result<[f32; N], FormatError> {
        let mut out = [0.0; N];
        for v in &mut out {
            *v = self.finite_f32(what)?;
        }
        Ok(out)
    }

    fn str(&mut self, what: &'static str) -> Result<&'a str, FormatError> {
        let len = self.u32(what)? as usize;
        std::str::from_utf8(self.take(len, what)?).map_err(|e| malformed(what, e.to_string()))
    }

    fn sphere(&mut self, what: &'static str) -> Result<Sphere, FormatError> {
        let [x, y, z, radius] = self.f32s(what)?;
        Ok(Sphere {
            center: [x, y, z],
            radius,
        })
    }

    fn aabb(&mut self, what: &'static str) -> Result<Aabb, FormatError> {
        Ok(Aabb {
            min: self.f32s(what)?,
            max: self.f32s(what)?,
        })
    }

    /// A blob reference whose length must be `expected`: its bytes, and the bytes
    /// up to the next 4-byte boundary inside its zero padding.
    fn blob(
        &mut self,
        what: &'static str,
        expected: u64,
    ) -> Result<(&'a [u8], &'a [u8]), FormatError> {
        let offset = self.u64(what)?;
        let len = self.u64(what)?;
        if len != expected {
            return Err(malformed(
                what,
                format!("{len} bytes where {expected} were expected"),
            ));
        }
        if offset % BLOB_ALIGN as u64 != 0 || offset < HEADER_SIZE as u64 {
            return Err(malformed(
                what,
                format!("offset {offset} is not a 16-byte aligned body offset"),
            ));
        }
        let padded = len.div_ceil(4) * 4;
        let end = offset.saturating_add(padded);
        if end > self.bytes.len() as u64 {
            return Err(FormatError::Truncated {
                what,
                needed: end,
                available: self.bytes.len() as u64,
            });
        }
        let (offset, len, padded) = (offset as usize, len as usize, padded as usize);
        Ok((
            &self.bytes[offset..offset + len],
            &self.bytes[offset..offset + padded],
        ))
    }

    fn entry(&mut self) -> Result<Entry<'a>, FormatError> {
        let prop_id = self.str("prop id")?;
        let source_path = self.str("source path")?;
        let bounds = self.aabb("asset bounds")?;
        let sphere = self.sphere("asset sphere")?;
        check_sphere("asset sphere", &sphere)?;
        let texture_count = self.u32("texture count")?;
        let mut textures = Vec::new();
        for _ in 0..texture_count {
            textures.push(TextureId(self.array("texture id")?));
        }
        let part_count = self.u32("part count")?;
        let mut parts = Vec::new();
        for _ in 0..part_count {
            parts.push(self.part(texture_count)?);
        }
        let impostor = self.impostor(texture_count)?;
        Ok(Entry {
            prop_id,
            source_path,
            bounds,
            sphere,
            textures,
            parts,
            impostor,
        })
    }

    fn impostor(&mut self, texture_count: u32) -> Result<ImpostorRecord, FormatError> {
        match self.u8("impostor kind")? {
            BAKED => {
                let grid = self.u32("impostor grid")?;
                let cell_px = self.u32("impostor cell")?;
                let sphere = self.sphere("impostor sphere")?;
                let view = ImpostorView {
                    grid,
                    cell_px,
                    sphere,
                    albedo: self.u32("impostor albedo")?,
                    normal: self.u32("impostor normal")?,
                    depth: self.u32("impostor depth")?,
                    error_m: self.f32("impostor error_m")?,
                };
                check_impostor(&view, texture_count as usize)?;
                Ok(ImpostorRecord::Baked(view))
            }
            REFUSED => Ok(ImpostorRecord::Refused {
                reason: self.str("impostor refusal")?.to_owned(),
            }),
            kind => Err(malformed("impostor kind", format!("code {kind}"))),
        }
    }

    fn part(&mut self, texture_count: u32) -> Result<PartView<'a>, FormatError> {
        let name = self.str("part name")?;
        let material = self.material(texture_count)?;
        let bounds = self.aabb("part bounds")?;
        let sphere = self.sphere("part sphere")?;
        let vertex_count = self.u32("vertex count")?;
        let index_format = match self.u8("index size")? {
            2 => IndexFormat::U16,
            4 => IndexFormat::U32,
            other => return Err(malformed("index size", format!("{other} bytes"))),
        };
        if index_format != IndexFormat::for_vertex_count(vertex_count as usize) {
            return Err(malformed(
                "index size",
                format!("{index_format:?} for {vertex_count} vertices"),
            ));
        }
        let quantization = VertexQuantization {
            position_offset: self.f32s("vertex quantization")?,
            position_scale: self.f32s("vertex quantization")?,
            uv_offset: self.f32s("vertex quantization")?,
            uv_scale: self.f32s("vertex quantization")?,
        };
        if !quantization.is_valid() {
            return Err(malformed(
                "vertex quantization",
                format!("{quantization:?} is not finite with scales ≥ 0"),
            ));
        }
        let (vertex_bytes, _) =
            self.blob("vertices", u64::from(vertex_count) * PACKED_STRIDE as u64)?;
        let level_count = self.u32("level count")?;
        let mut levels = Vec::new();
        for _ in 0..level_count {
            let index_count = self.u32("index count")?;
            if index_count % 3 != 0 {
                return Err(malformed(
                    "level",
                    format!("{index_count} indices are not whole triangles"),
                ));
            }
            let [target_ratio, achieved_ratio] = self.f32s("level ratios")?;
            let error = self.f32("level error")?;
            check_error("level error", error)?;
            let error_m = self.f32("level error_m")?;
            check_error("level error_m", error_m)?;
            let (index_bytes, index_bytes_padded) = self.blob(
                "indices",
                u64::from(index_count) * index_format.size() as u64,
            )?;
            let level = LevelView {
                index_count,
                target_ratio,
                achieved_ratio,
                error,
                error_m,
                index_format,
                index_bytes,
                index_bytes_padded,
            };
            if let Some(i) = largest_index(index_bytes, index_format).filter(|&i| i >= vertex_count)
            {
                return Err(malformed(
                    "indices",
                    format!("index {i} is past the part's {vertex_count} vertices"),
                ));
            }
            levels.push(level);
        }
        Ok(PartView {
            name,
            material,
            bounds,
            sphere,
            vertex_count,
            index_format,
            quantization,
            vertex_bytes,
            levels,
        })
    }

    fn material(&mut self, texture_count: u32) -> Result<Material, FormatError> {
        let name = self.str("material name")?.to_owned();
        let base_color_factor = self.finite_f32s("base colour")?;
        let [metallic_factor, roughness_factor, normal_scale, occlusion_strength] =
            self.finite_f32s("material factors")?;
        let emissive_factor = self.finite_f32s("emissive factor")?;
        let mut material = Material {
            name,
            base_color_factor,
            metallic_factor,
            roughness_factor,
            normal_scale,
            occlusion_strength,
            emissive_factor,
            ..Material::default()
        };
        for channel in Channel::ALL {
            let texture = self.u32("texture index")?;
            let wrap_u = wrap(self.u8("wrap mode")?)?;
            let wrap_v = wrap(self.u8("wrap mode")?)?;
            *material.texture_mut(channel) = match texture {
                u32::MAX => None,
                t if t < texture_count => Some(TextureBinding {
                    texture: t,
                    wrap_u,
                    wrap_v,
                }),
                t => {
                    return Err(malformed(
                        "material",
                        format!("{} {t} of {texture_count}", channel.gltf_name()),
                    ))
                }
            };
        }
        let mode = self.u8("alpha mode")?;
        let cutoff = self.finite_f32("alpha cutoff")?;
        let alpha_mode = match mode {
            0 => AlphaMode::Opaque,
            1 => AlphaMode::Mask { cutoff },
            2 => AlphaMode::Blend,
            m => return Err(malformed("alpha mode", format!("code {m}"))),
        };
        let double_sided = match self.u8("double sided")? {
            0 => false,
            1 => true,
            d => return Err(malformed("double sided", format!("code {d}"))),
        };
        material.alpha_mode = alpha_mode;
        material.double_sided = double_sided;
        Ok(material)
    }
}

/// The largest index of a level (a plain maximum the compiler vectorises: checking every
/// index is a good part of loading an entry).
fn largest_index(bytes: &[u8], format: IndexFormat) -> Option<u32> {
    match format {
        IndexFormat::U16 => bytes
            .chunks_exact(2)
            .map(|c| u16::from_le_bytes([c[0], c[1]]))
            .max()
            .map(u32::from),
        IndexFormat::U32 => bytes
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .max(),
    }
}

fn wrap(code: u8) -> Result<WrapMode, FormatError> {
    match code {
        0 => Ok(WrapMode::Repeat),
        1 => Ok(WrapMode::ClampToEdge),
        2 => Ok(WrapMode::MirroredRepeat),
        c => Err(malformed("wrap mode", format!("code {c}"))),
    }
}

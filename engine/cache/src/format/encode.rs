use sylva_mesh::{AlphaMode, Channel, Material, Vertex, WrapMode};

use super::impostor::{check_impostor, BAKED, REFUSED};
use super::{
    check_error, check_sphere, header, FormatError, IndexFormat, BLOB_ALIGN, FORMAT_VERSION,
    HEADER_SIZE, MAGIC,
};
use crate::model::{BakedAsset, ImpostorRecord};

/// Writes `asset` as an entry file. Deterministic: the same asset gives the same bytes.
pub fn encode(asset: &BakedAsset) -> Result<Vec<u8>, FormatError> {
    // Metadata first with blob references as placeholders, then the blobs; the
    // placeholders are patched once the metadata size (and so the blob offsets) is known.
    let mut meta = Writer::default();
    let mut blobs: Vec<Vec<u8>> = Vec::new();
    let mut blob_slots: Vec<usize> = Vec::new();
    let mut blob = |meta: &mut Writer, bytes: Vec<u8>| {
        blob_slots.push(meta.bytes.len());
        meta.u64(0);
        meta.u64(bytes.len() as u64);
        blobs.push(bytes);
    };

    meta.str(&asset.prop_id)?;
    meta.str(&asset.source_path)?;
    meta.floats(&asset.bounds.min);
    meta.floats(&asset.bounds.max);
    check_sphere("asset sphere", &asset.sphere)?;
    meta.floats(&asset.sphere.center);
    meta.floats(&[asset.sphere.radius]);
    meta.count(asset.textures.len(), "texture count")?;
    for texture in &asset.textures {
        meta.bytes.extend_from_slice(&texture.0);
    }
    meta.count(asset.parts.len(), "part count")?;
    for part in &asset.parts {
        meta.str(&part.name)?;
        material(&mut meta, &part.material)?;
        meta.floats(&part.bounds.min);
        meta.floats(&part.bounds.max);
        meta.floats(&part.sphere.center);
        meta.floats(&[part.sphere.radius]);
        meta.count(part.vertices.len(), "vertex count")?;
        let format = IndexFormat::for_vertex_count(part.vertices.len());
        meta.bytes.push(format.size() as u8);
        let q = &part.quantization;
        if !q.is_valid() {
            return Err(FormatError::Malformed {
                what: "vertex quantization",
                reason: format!("part `{}`: {q:?}", part.name),
            });
        }
        let finite = |v: &Vertex| v.position.iter().chain(&v.uv).all(|c| c.is_finite());
        if let Some(i) = part.vertices.iter().position(|v| !finite(v)) {
            return Err(FormatError::Malformed {
                what: "vertices",
                reason: format!(
                    "vertex {i} of part `{}` has a position or UV that is not finite",
                    part.name
                ),
            });
        }
        meta.floats(&q.position_offset);
        meta.floats(&q.position_scale);
        meta.floats(&q.uv_offset);
        meta.floats(&q.uv_scale);
        blob(
            &mut meta,
            part.vertices.iter().flat_map(|v| q.pack(v)).collect(),
        );
        meta.count(part.levels.len(), "level count")?;
        for level in &part.levels {
            if let Some(&i) = level
                .indices
                .iter()
                .find(|&&i| i as usize >= part.vertices.len())
            {
                return Err(FormatError::Malformed {
                    what: "part",
                    reason: format!(
                        "index {i} of part `{}` is past its {} vertices",
                        part.name,
                        part.vertices.len()
                    ),
                });
            }
            check_error("level error", level.error)?;
            check_error("level error_m", level.error_m)?;
            meta.count(level.indices.len(), "index count")?;
            meta.floats(&[
                level.target_ratio,
                level.achieved_ratio,
                level.error,
                level.error_m,
            ]);
            let indices = match format {
                IndexFormat::U16 => level
                    .indices
                    .iter()
                    .flat_map(|&i| (i as u16).to_le_bytes())
                    .collect(),
                IndexFormat::U32 => level
                    .indices
                    .iter()
                    .flat_map(|&i| i.to_le_bytes())
                    .collect(),
            };
            blob(&mut meta, indices);
        }
    }
    impostor(&mut meta, &asset.impostor, asset.textures.len())?;

    let mut offset = align(HEADER_SIZE + meta.bytes.len());
    for (slot, bytes) in blob_slots.iter().zip(&blobs) {
        meta.bytes[*slot..*slot + 8].copy_from_slice(&(offset as u64).to_le_bytes());
        offset = align(offset + bytes.len());
    }
    let file_size = offset;
    let mut out = header::start(MAGIC, FORMAT_VERSION);
    out.reserve(file_size - HEADER_SIZE);
    out.extend_from_slice(&meta.bytes);
    for bytes in &blobs {
        out.resize(align(out.len()), 0);
        out.extend_from_slice(bytes);
    }
    out.resize(file_size, 0);
    header::seal(&mut out);
    Ok(out)
}

fn align(n: usize) -> usize {
    n.div_ceil(BLOB_ALIGN) * BLOB_ALIGN
}

fn material(meta: &mut Writer, m: &Material) -> Result<(), FormatError> {
    meta.str(&m.name)?;
    meta.floats(&m.base_color_factor);
    meta.floats(&[
        m.metallic_factor,
        m.roughness_factor,
        m.normal_scale,
        m.occlusion_strength,
    ]);
    meta.floats(&m.emissive_factor);
    for channel in Channel::ALL {
        let (texture, wrap_u, wrap_v) = match m.texture(channel) {
            Some(b) => (b.texture, wrap_code(b.wrap_u), wrap_code(b.wrap_v)),
            None => (u32::MAX, 0, 0),
        };
        meta.u32(texture);
        meta.bytes.extend_from_slice(&[wrap_u, wrap_v]);
    }
    let (mode, cutoff) = match m.alpha_mode {
        AlphaMode::Opaque => (0, 0.0),
        AlphaMode::Mask { cutoff } => (1, cutoff),
        AlphaMode::Blend => (2, 0.0),
    };
    meta.bytes.push(mode);
    meta.floats(&[cutoff]);
    meta.bytes.push(u8::from(m.double_sided));
    Ok(())
}

fn impostor(
    meta: &mut Writer,
    record: &ImpostorRecord,
    texture_count: usize,
) -> Result<(), FormatError> {
    match record {
        ImpostorRecord::Baked(view) => {
            check_impostor(view, texture_count)?;
            meta.bytes.push(BAKED);
            meta.u32(view.grid);
            meta.u32(view.cell_px);
            meta.floats(&view.sphere.center);
            meta.floats(&[view.sphere.radius]);
            meta.u32(view.albedo);
            meta.u32(view.normal);
            meta.u32(view.depth);
            meta.floats(&[view.error_m]);
        }
        ImpostorRecord::Refused { reason } => {
            meta.bytes.push(REFUSED);
            meta.str(reason)?;
        }
    }
    Ok(())
}

pub(super) fn wrap_code(w: WrapMode) -> u8 {
    match w {
        WrapMode::Repeat => 0,
        WrapMode::ClampToEdge => 1,
        WrapMode::MirroredRepeat => 2,
    }
}

#[derive(Default)]
struct Writer {
    bytes: Vec<u8>,
}

impl Writer {
    fn u32(&mut self, v: u32) {
        self.bytes.extend_from_slice(&v.to_le_bytes());
    }

    fn u64(&mut self, v: u64) {
        self.bytes.extend_from_slice(&v.to_le_bytes());
    }

    fn floats(&mut self, values: &[f32]) {
        for v in values {
            self.bytes.extend_from_slice(&v.to_le_bytes());
        }
    }

    fn count(&mut self, n: usize, what: &'static str) -> Result<(), FormatError> {
        let n = u32::try_from(n).map_err(|_| FormatError::TooLarge {
            what,
            value: n as u64,
        })?;
        self.u32(n);
        Ok(())
    }

    fn str(&mut self, s: &str) -> Result<(), FormatError> {
        self.count(s.len(), "string length")?;
        self.bytes.extend_from_slice(s.as_bytes());
        Ok(())
    }
}

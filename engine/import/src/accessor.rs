//! Decoding accessors into plain numbers. Every count, offset and stride is checked
//! against the real buffer sizes before anything is allocated, and every decoded value
//! is charged to an allowance set by the input's size, so a small file cannot make the
//! importer allocate much.

use gltf::json::accessor::{ComponentType, Type};
use gltf::json::validation::Checked;
use gltf::json::Root;

use crate::budget::Allowance;
use crate::error::{element, ImportError};

/// Most elements one accessor may have.
pub const MAX_ACCESSOR_ELEMENTS: u64 = 1 << 22;

/// What an accessor is read as: each semantic allows its own encodings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Use {
    Position,
    Normal,
    Tangent,
    TexCoord,
    Color,
}

/// A decoded float accessor: `values.len() == count × dims`.
pub(crate) struct Floats {
    pub values: Vec<f32>,
    pub dims: usize,
}

/// Reads accessors of one document, charging every decoded value to one allowance.
pub(crate) struct Accessors<'a> {
    root: &'a Root,
    buffers: &'a [&'a [u8]],
    values: Allowance,
}

/// Where an accessor's (or a sparse block's) bytes are: a slice of its view and the
/// distance between elements.
struct Strided<'a> {
    bytes: &'a [u8],
    stride: usize,
}

impl Strided<'_> {
    fn element(&self, i: usize, size: usize) -> &[u8] {
        &self.bytes[i * self.stride..i * self.stride + size]
    }
}

impl<'a> Accessors<'a> {
    /// `input_bytes`: the size of the file and of every buffer it loaded.
    pub fn new(root: &'a Root, buffers: &'a [&'a [u8]], input_bytes: u64) -> Self {
        Accessors {
            root,
            buffers,
            values: Allowance::values(input_bytes),
        }
    }

    /// Reads accessor `index` as floats for `usage`, dequantising normalised integers.
    pub fn floats(&mut self, index: usize, usage: Use, path: &str) -> Result<Floats, ImportError> {
        let accessor = element(&self.root.accessors, index, "accessor", path)?;
        let here = format!("accessors[{index}]");
        let component = valid(&accessor.component_type, &here, "componentType")?.0;
        let dims = dimensions(*valid(&accessor.type_, &here, "type")?);
        let normalized = accessor.normalized;
        if !allowed(usage, component, normalized, dims) {
            return Err(ImportError::invalid(
                path,
                format!(
                    "{here} is {dims} × {component:?}{} which is not an allowed encoding for {usage:?}",
                    if normalized { " normalised" } else { "" }
                ),
            ));
        }
        let read = |bytes: &[u8]| read_float(component, normalized, bytes);
        let values = self.decode(index, component, dims, &here, read)?;
        Ok(Floats { values, dims })
    }

    /// Reads accessor `index` as vertex indices.
    pub fn indices(&mut self, index: usize, path: &str) -> Result<Vec<u32>, ImportError> {
        let accessor = element(&self.root.accessors, index, "accessor", path)?;
        let here = format!("accessors[{index}]");
        let component = valid(&accessor.component_type, &here, "componentType")?.0;
        let dims = dimensions(*valid(&accessor.type_, &here, "type")?);
        let integer = matches!(
            component,
            ComponentType::U8 | ComponentType::U16 | ComponentType::U32
        );
        if !integer || dims != 1 || accessor.normalized {
            return Err(ImportError::invalid(
                path,
                format!("{here}: indices must be unsigned byte, short or int scalars"),
            ));
        }
        self.decode(index, component, 1, &here, |bytes| {
            read_uint(component, bytes)
        })
    }

    /// Decodes the dense data (zeros without a view) and applies the sparse block.
    fn decode<T: Copy + Default>(
        &mut self,
        index: usize,
        component: ComponentType,
        dims: usize,
        here: &str,
        read: impl Fn(&[u8]) -> T,
    ) -> Result<Vec<T>, ImportError> {
        let accessor = &self.root.accessors[index];
        let count = accessor.count.0;
        self.charge(count, dims, &format!("{here}.count"))?;
        let size = component_size(component);
        let element_size = size * dims;
        let count = count as usize;

        let dense = match accessor.buffer_view {
            Some(view) => Some(self.strided(
                view.value(),
                accessor.byte_offset.map_or(0, |o| o.0),
                element_size,
                count,
                true,
                &format!("{here}.bufferView"),
            )?),
            None if accessor.sparse.is_none() => {
                return Err(ImportError::invalid(
                    here,
                    "has neither a bufferView nor sparse values",
                ))
            }
            None => None,
        };
        let mut out = Vec::with_capacity(count * dims);
        match &dense {
            Some(data) => {
                for i in 0..count {
                    let bytes = data.element(i, element_size);
                    out.extend(bytes.chunks_exact(size).map(&read));
                }
            }
            None => out.resize(count * dims, T::default()),
        }

        if let Some(sparse) = &accessor.sparse {
            let sparse_count = sparse.count.0;
            let path = format!("{here}.sparse");
            if sparse_count > count as u64 {
                return Err(ImportError::invalid(
                    &path,
                    format!("{sparse_count} sparse values for {count} elements"),
                ));
            }
            self.charge(sparse_count, dims, &format!("{path}.count"))?;
            let sparse_count = sparse_count as usize;
            let index_type = valid(
                &sparse.indices.component_type,
                &path,
                "indices.componentType",
            )?
            .0;
            if !matches!(
                index_type,
                ComponentType::U8 | ComponentType::U16 | ComponentType::U32
            ) {
                return Err(ImportError::invalid(
                    format!("{path}.indices.componentType"),
                    "sparse indices must be unsigned",
                ));
            }
            let index_size = component_size(index_type);
            let indices = self.strided(
                sparse.indices.buffer_view.value(),
                sparse.indices.byte_offset.0,
                index_size,
                sparse_count,
                false,
                &format!("{path}.indices.bufferView"),
            )?;
            let values = self.strided(
                sparse.values.buffer_view.value(),
                sparse.values.byte_offset.0,
                element_size,
                sparse_count,
                false,
                &format!("{path}.values.bufferView"),
            )?;
            for k in 0..sparse_count {
                let target = read_uint(index_type, indices.element(k, index_size)) as usize;
                if target >= count {
                    return Err(ImportError::invalid(
                        format!("{path}.indices"),
                        format!(
                            "sparse index {target} at position {k} is not below the count {count}"
                        ),
                    ));
                }
                let bytes = values.element(k, element_size);
                for (slot, chunk) in out[target * dims..(target + 1) * dims]
                    .iter_mut()
                    .zip(bytes.chunks_exact(size))
                {
                    *slot = read(chunk);
                }
            }
        }
        Ok(out)
    }

    fn charge(&mut self, count: u64, dims: usize, path: &str) -> Result<(), ImportError> {
        if count > MAX_ACCESSOR_ELEMENTS {
            return Err(ImportError::TooLarge {
                path: path.to_owned(),
                count,
                limit: MAX_ACCESSOR_ELEMENTS,
            });
        }
        self.values.charge(count * dims as u64, path)
    }

    /// The bytes of `count` elements of `element_size` at `offset` into buffer view
    /// `view`, after checking they lie inside the view and the view inside its buffer.
    /// `strided` views may interleave (the view's `byteStride`); sparse blocks may not.
    fn strided(
        &self,
        view_index: usize,
        offset: u64,
        element_size: usize,
        count: usize,
        strided: bool,
        path: &str,
    ) -> Result<Strided<'a>, ImportError> {
        let view = element(&self.root.buffer_views, view_index, "buffer view", path)?;
        let view_path = format!("bufferViews[{view_index}]");
        let buffer = *element(self.buffers, view.buffer.value(), "buffer", &view_path)?;
        let view_start = view.byte_offset.map_or(0, |o| o.0);
        let view_end = view_start.saturating_add(view.byte_length.0);
        if view_end > buffer.len() as u64 {
            return Err(ImportError::OutOfBounds {
                path: view_path,
                within: format!("buffers[{}]", view.buffer.value()),
                start: view_start,
                end: view_end,
                available: buffer.len() as u64,
            });
        }
        let view_bytes = &buffer[view_start as usize..view_end as usize];
        let stride = match view.byte_stride {
            Some(s) if strided => s.0,
            _ => element_size,
        };
        if stride < element_size {
            return Err(ImportError::invalid(
                format!("{view_path}.byteStride"),
                format!("stride {stride} is shorter than the {element_size}-byte element"),
            ));
        }
        let end = if count == 0 {
            offset
        } else {
            (stride as u64)
                .checked_mul(count as u64 - 1)
                .and_then(|e| e.checked_add(offset))
                .and_then(|e| e.checked_add(element_size as u64))
                .unwrap_or(u64::MAX)
        };
        if end > view_bytes.len() as u64 {
            return Err(ImportError::OutOfBounds {
                path: path.to_owned(),
                within: view_path,
                start: offset,
                end,
                available: view_bytes.len() as u64,
            });
        }
        Ok(Strided {
            bytes: &view_bytes[offset as usize..end as usize],
            stride,
        })
    }
}

fn valid<'t, T>(value: &'t Checked<T>, path: &str, field: &str) -> Result<&'t T, ImportError> {
    match value {
        Checked::Valid(v) => Ok(v),
        Checked::Invalid => Err(ImportError::invalid(
            format!("{path}.{field}"),
            "is not a value glTF defines",
        )),
    }
}

fn dimensions(t: Type) -> usize {
    match t {
        Type::Scalar => 1,
        Type::Vec2 => 2,
        Type::Vec3 => 3,
        Type::Vec4 | Type::Mat2 => 4,
        Type::Mat3 => 9,
        Type::Mat4 => 16,
    }
}

fn component_size(c: ComponentType) -> usize {
    match c {
        ComponentType::I8 | ComponentType::U8 => 1,
        ComponentType::I16 | ComponentType::U16 => 2,
        ComponentType::U32 | ComponentType::F32 => 4,
    }
}

/// The encodings glTF 2.0 and KHR_mesh_quantization allow for each attribute.
fn allowed(usage: Use, c: ComponentType, normalized: bool, dims: usize) -> bool {
    use ComponentType::*;
    let float = c == F32 && !normalized;
    let small_int = matches!(c, I8 | U8 | I16 | U16);
    match usage {
        Use::Position => dims == 3 && (float || small_int),
        Use::Normal => dims == 3 && (float || (matches!(c, I8 | I16) && normalized)),
        Use::Tangent => dims == 4 && (float || (matches!(c, I8 | I16) && normalized)),
        Use::TexCoord => dims == 2 && (float || small_int),
        Use::Color => (dims == 3 || dims == 4) && (float || (matches!(c, U8 | U16) && normalized)),
    }
}

fn read_float(c: ComponentType, normalized: bool, b: &[u8]) -> f32 {
    match (c, normalized) {
        (ComponentType::F32, _) => f32::from_le_bytes([b[0], b[1], b[2], b[3]]),
        (ComponentType::I8, false) => b[0] as i8 as f32,
        (ComponentType::I8, true) => (b[0] as i8 as f32 / 127.0).max(-1.0),
        (ComponentType::U8, false) => b[0] as f32,
        (ComponentType::U8, true) => b[0] as f32 / 255.0,
        (ComponentType::I16, false) => i16::from_le_bytes([b[0], b[1]]) as f32,
        (ComponentType::I16, true) => (i16::from_le_bytes([b[0], b[1]]) as f32 / 32767.0).max(-1.0),
        (ComponentType::U16, false) => u16::from_le_bytes([b[0], b[1]]) as f32,
        (ComponentType::U16, true) => u16::from_le_bytes([b[0], b[1]]) as f32 / 65535.0,
        (ComponentType::U32, _) => u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as f32,
    }
}

fn read_uint(c: ComponentType, b: &[u8]) -> u32 {
    match c {
        ComponentType::U8 | ComponentType::I8 => b[0] as u32,
        ComponentType::U16 | ComponentType::I16 => u16::from_le_bytes([b[0], b[1]]) as u32,
        ComponentType::U32 | ComponentType::F32 => u32::from_le_bytes([b[0], b[1], b[2], b[3]]),
    }
}

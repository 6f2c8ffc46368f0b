//! `EXT_meshopt_compression`: buffer views whose bytes are a meshoptimizer stream in
//! another buffer. Each is decoded once, before any accessor is read, with the decoders
//! of the meshoptimizer library (the `meshopt` crate's bindings; its safe wrappers fix
//! the element size at compile time, glTF gives it at run time), and the view is
//! pointed at the decoded bytes. Every size is checked against the file before
//! allocating and the decoded bytes are charged to an allowance.

use gltf::json::buffer::Stride;
use gltf::json::validation::USize64;
use gltf::json::{Index, Root};
use serde::Deserialize;

use crate::budget::Allowance;
use crate::error::{element, ImportError};

pub(crate) const EXTENSION: &str = "EXT_meshopt_compression";

/// The extension object on a buffer view.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Compressed {
    buffer: u32,
    #[serde(default)]
    byte_offset: u64,
    byte_length: u64,
    byte_stride: u64,
    count: u64,
    mode: String,
    #[serde(default)]
    filter: Option<String>,
}

/// Whether buffer `index` is a fallback the extension marks as having no data of its
/// own (every view of it is compressed elsewhere).
pub(crate) fn is_fallback(root: &Root, index: usize) -> bool {
    root.buffers[index]
        .extensions
        .as_ref()
        .and_then(|e| e.others.get(EXTENSION))
        .and_then(|v| v.get("fallback"))
        .and_then(|v| v.as_bool())
        .unwrap_or(false)
}

/// Decodes every compressed view of `root` and points it at its decoded bytes, which
/// are returned: view `k` of the result becomes buffer `buffers.len() + k`.
pub(crate) fn decompress_views(
    root: &mut Root,
    buffers: &[&[u8]],
    decoded_bytes: &mut Allowance,
) -> Result<Vec<Vec<u8>>, ImportError> {
    let mut decoded = Vec::new();
    for v in 0..root.buffer_views.len() {
        let path = format!("bufferViews[{v}].extensions.{EXTENSION}");
        let Some(value) = root.buffer_views[v]
            .extensions
            .as_ref()
            .and_then(|e| e.others.get(EXTENSION))
        else {
            continue;
        };
        let ext: Compressed = serde_json::from_value(value.clone())
            .map_err(|e| ImportError::invalid(&path, e.to_string()))?;
        let view = &root.buffer_views[v];
        let declared = view.byte_length.0;
        let bytes = decode_view(&ext, declared, buffers, &path, decoded_bytes)?;
        let view = &mut root.buffer_views[v];
        view.buffer = Index::new((buffers.len() + decoded.len()) as u32);
        view.byte_offset = Some(USize64(0));
        view.byte_length = USize64(bytes.len() as u64);
        if ext.mode == "ATTRIBUTES" {
            view.byte_stride = Some(Stride(ext.byte_stride as usize));
        }
        decoded.push(bytes);
    }
    Ok(decoded)
}

fn decode_view(
    ext: &Compressed,
    declared: u64,
    buffers: &[&[u8]],
    path: &str,
    decoded_bytes: &mut Allowance,
) -> Result<Vec<u8>, ImportError> {
    let stride = ext.byte_stride;
    let stride_ok = match ext.mode.as_str() {
        "ATTRIBUTES" => stride.is_multiple_of(4) && (4..=256).contains(&stride),
        "TRIANGLES" | "INDICES" => stride == 2 || stride == 4,
        other => {
            return Err(ImportError::invalid(
                format!("{path}.mode"),
                format!("`{other}` is not ATTRIBUTES, TRIANGLES or INDICES"),
            ))
        }
    };
    if !stride_ok {
        return Err(ImportError::invalid(
            format!("{path}.byteStride"),
            format!("{stride} is not a valid stride for mode {}", ext.mode),
        ));
    }
    if ext.mode != "ATTRIBUTES" && ext.filter.as_deref().is_some_and(|f| f != "NONE") {
        return Err(ImportError::invalid(
            format!("{path}.filter"),
            format!("filters apply to ATTRIBUTES only, not {}", ext.mode),
        ));
    }
    if ext.mode == "TRIANGLES" && !ext.count.is_multiple_of(3) {
        return Err(ImportError::invalid(
            format!("{path}.count"),
            format!("{} indices are not whole triangles", ext.count),
        ));
    }
    let size = ext.count.saturating_mul(stride);
    if size > declared {
        return Err(ImportError::invalid(
            format!("{path}.count"),
            format!(
                "{} elements of {stride} bytes decode to {size} bytes, past the view's declared byteLength of {declared}",
                ext.count
            ),
        ));
    }
    let buffer = *element(
        buffers,
        ext.buffer as usize,
        "buffer",
        &format!("{path}.buffer"),
    )?;
    let end = ext.byte_offset.saturating_add(ext.byte_length);
    if end > buffer.len() as u64 {
        return Err(ImportError::OutOfBounds {
            path: format!("{path}.byteLength"),
            within: format!("buffers[{}]", ext.buffer),
            start: ext.byte_offset,
            end,
            available: buffer.len() as u64,
        });
    }
    let stream = &buffer[ext.byte_offset as usize..end as usize];
    decoded_bytes.charge(size, path)?;
    let (count, stride) = (ext.count as usize, stride as usize);
    let mut out = vec![0u8; size as usize];
    // SAFETY: `out` holds `count × stride` bytes, what each decoder writes at most; the
    // decoders read only `stream.len()` bytes of `stream` and reject malformed input.
    let status = unsafe {
        let (dst, src) = (out.as_mut_ptr().cast(), stream.as_ptr());
        match ext.mode.as_str() {
            "ATTRIBUTES" => {
                meshopt::ffi::meshopt_decodeVertexBuffer(dst, count, stride, src, stream.len())
            }
            "TRIANGLES" => {
                meshopt::ffi::meshopt_decodeIndexBuffer(dst, count, stride, src, stream.len())
            }
            _ => meshopt::ffi::meshopt_decodeIndexSequence(dst, count, stride, src, stream.len()),
        }
    };
    if status != 0 {
        return Err(ImportError::invalid(
            path,
            format!(
                "the {} stream of {} bytes does not decode to {count} elements of {stride} bytes (meshoptimizer error {status}): it is truncated or corrupt",
                ext.mode,
                stream.len()
            ),
        ));
    }
    apply_filter(ext.filter.as_deref(), &mut out, count, stride, path)?;
    Ok(out)
}

/// Undoes the encoding filter in place (the decoders' output is the filtered data).
fn apply_filter(
    filter: Option<&str>,
    out: &mut [u8],
    count: usize,
    stride: usize,
    path: &str,
) -> Result<(), ImportError> {
    let bad = |reason: String| Err(ImportError::invalid(format!("{path}.filter"), reason));
    let ptr = out.as_mut_ptr().cast();
    match filter.unwrap_or("NONE") {
        "NONE" => {}
        // SAFETY (all three): `out` holds `count × stride` bytes and the stride is one
        // the filter is defined for.
        "OCTAHEDRAL" if stride == 4 || stride == 8 => unsafe {
            meshopt::ffi::meshopt_decodeFilterOct(ptr, count, stride)
        },
        "QUATERNION" if stride == 8 => unsafe {
            meshopt::ffi::meshopt_decodeFilterQuat(ptr, count, stride)
        },
        "EXPONENTIAL" => unsafe { meshopt::ffi::meshopt_decodeFilterExp(ptr, count, stride) },
        "COLOR" if stride == 4 || stride == 8 => unsafe {
            meshopt::ffi::meshopt_decodeFilterColor(ptr, count, stride)
        },
        name @ ("OCTAHEDRAL" | "QUATERNION" | "COLOR") => {
            return bad(format!(
                "{name} is not defined for a stride of {stride} bytes"
            ))
        }
        other => return bad(format!("unknown filter `{other}`")),
    }
    Ok(())
}

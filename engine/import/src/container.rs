//! The outer layers of a file: the GLB container (parsed here, strictly, so a lying
//! length field is an error rather than an overflow) and the JSON document.

use gltf::json::Root;

use crate::error::ImportError;

const GLB_MAGIC: &[u8; 4] = b"glTF";
const CHUNK_JSON: u32 = 0x4E4F_534A;
const CHUNK_BIN: u32 = 0x004E_4942;

/// A parsed file: the JSON document and, for GLB, the embedded binary chunk.
#[derive(Debug)]
pub(crate) struct Container<'a> {
    pub root: Root,
    pub bin: Option<&'a [u8]>,
}

/// Extensions whose data is read (`KHR_mesh_quantization`, `KHR_texture_transform` on
/// the base colour texture) or only affects shading the renderer does not do.
const SUPPORTED_EXTENSIONS: [&str; 2] = ["KHR_mesh_quantization", "KHR_texture_transform"];
const IGNORABLE_EXTENSION_PREFIX: &str = "KHR_materials_";

pub(crate) fn parse(bytes: &[u8]) -> Result<Container<'_>, ImportError> {
    let (json, bin) = if bytes.starts_with(GLB_MAGIC) {
        split_glb(bytes)?
    } else {
        (bytes, None)
    };
    let root: Root = gltf::json::deserialize::from_slice(json).map_err(|e| ImportError::Json {
        line: e.line(),
        column: e.column(),
        message: e.to_string(),
    })?;
    for (i, name) in root.extensions_required.iter().enumerate() {
        let known = SUPPORTED_EXTENSIONS.contains(&name.as_str())
            || name.starts_with(IGNORABLE_EXTENSION_PREFIX);
        if !known {
            return Err(ImportError::UnsupportedExtension {
                path: format!("extensionsRequired[{i}]"),
                name: name.clone(),
            });
        }
    }
    Ok(Container { root, bin })
}

fn container_error(reason: impl Into<String>) -> ImportError {
    ImportError::Container {
        reason: reason.into(),
    }
}

fn read_u32(bytes: &[u8], at: usize) -> Option<u32> {
    let word = bytes.get(at..at.checked_add(4)?)?;
    Some(u32::from_le_bytes([word[0], word[1], word[2], word[3]]))
}

/// Splits a GLB file into its JSON chunk and optional BIN chunk.
fn split_glb(bytes: &[u8]) -> Result<(&[u8], Option<&[u8]>), ImportError> {
    let (Some(version), Some(length)) = (read_u32(bytes, 4), read_u32(bytes, 8)) else {
        return Err(container_error(format!(
            "the 12-byte header is cut short at {} bytes",
            bytes.len()
        )));
    };
    if version != 2 {
        return Err(container_error(format!(
            "version {version}, only version 2 exists"
        )));
    }
    let length = length as usize;
    if length > bytes.len() {
        return Err(container_error(format!(
            "the header declares {length} bytes but the file has {}",
            bytes.len()
        )));
    }
    let body = &bytes[..length];
    let (json_type, json) = chunk(body, 12)?;
    if json_type != CHUNK_JSON {
        return Err(container_error("the first chunk is not JSON"));
    }
    let after_json = 20 + json.len();
    if after_json >= body.len() {
        return Ok((json, None));
    }
    let (bin_type, bin) = chunk(body, after_json)?;
    Ok((json, (bin_type == CHUNK_BIN).then_some(bin)))
}

/// The chunk starting at `at`: its type and data.
fn chunk(body: &[u8], at: usize) -> Result<(u32, &[u8]), ImportError> {
    let (Some(length), Some(kind)) = (read_u32(body, at), read_u32(body, at + 4)) else {
        return Err(container_error(format!(
            "the chunk header at byte {at} is cut short"
        )));
    };
    let start = at + 8;
    let end = start + length as usize;
    body.get(start..end)
        .map(|data| (kind, data))
        .ok_or_else(|| {
            container_error(format!(
                "the chunk at byte {at} declares {length} bytes but only {} remain",
                body.len().saturating_sub(start)
            ))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn glb(json: &[u8], bin: Option<&[u8]>) -> Vec<u8> {
        let mut json = json.to_vec();
        while !json.len().is_multiple_of(4) {
            json.push(b' ');
        }
        let mut out = Vec::new();
        let total = 12 + 8 + json.len() + bin.map_or(0, |b| 8 + b.len());
        out.extend_from_slice(b"glTF");
        out.extend_from_slice(&2u32.to_le_bytes());
        out.extend_from_slice(&(total as u32).to_le_bytes());
        out.extend_from_slice(&(json.len() as u32).to_le_bytes());
        out.extend_from_slice(&CHUNK_JSON.to_le_bytes());
        out.extend_from_slice(&json);
        if let Some(bin) = bin {
            out.extend_from_slice(&(bin.len() as u32).to_le_bytes());
            out.extend_from_slice(&CHUNK_BIN.to_le_bytes());
            out.extend_from_slice(bin);
        }
        out
    }

    const MINIMAL: &[u8] = br#"{"asset":{"version":"2.0"}}"#;

    #[test]
    fn glb_chunks_are_split() {
        let file = glb(MINIMAL, Some(&[1, 2, 3, 4]));
        let container = parse(&file).unwrap();
        assert_eq!(container.bin, Some(&[1u8, 2, 3, 4][..]));
    }

    #[test]
    fn every_truncation_of_a_glb_is_an_error() {
        let file = glb(MINIMAL, Some(&[1, 2, 3, 4]));
        for cut in 0..file.len() {
            assert!(parse(&file[..cut]).is_err(), "cut at {cut}");
        }
    }

    #[test]
    fn a_header_length_below_the_header_size_is_an_error() {
        let mut file = glb(MINIMAL, None);
        file[8..12].copy_from_slice(&3u32.to_le_bytes());
        assert!(matches!(parse(&file), Err(ImportError::Container { .. })));
    }

    #[test]
    fn an_unknown_required_extension_is_named() {
        let json = br#"{"asset":{"version":"2.0"},"extensionsRequired":["KHR_mesh_quantization","EXT_meshopt_compression"]}"#;
        let err = parse(json).unwrap_err();
        assert_eq!(
            err.to_string(),
            "extensionsRequired[1]: extension `EXT_meshopt_compression` is required but not supported"
        );
    }

    #[test]
    fn bad_json_reports_line_and_column() {
        let err = parse(b"{\n  \"asset\": {\"version\": \"2.0\"},\n  oops\n}").unwrap_err();
        assert!(matches!(err, ImportError::Json { line: 3, .. }), "{err}");
    }
}

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
    /// Extensions the file uses that change no geometry and that sylva does not read.
    pub ignored: Vec<IgnoredExtension>,
}

/// An extension the file uses whose data sylva leaves out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IgnoredExtension {
    pub name: String,
    /// What of the file is left out.
    pub ignored: &'static str,
    /// The file lists it in `extensionsRequired`.
    pub required: bool,
}

/// Extensions whose data is read: quantised attributes, the base colour texture's
/// transform, meshoptimizer-compressed buffers, WebP images.
const SUPPORTED_EXTENSIONS: [&str; 4] = [
    "KHR_mesh_quantization",
    "KHR_texture_transform",
    crate::compression::EXTENSION,
    "EXT_texture_webp",
];

/// Extensions that change no geometry: what they add is left out, with a warning.
fn ignorable(name: &str) -> Option<&'static str> {
    if name.starts_with("KHR_materials_") {
        return Some("material properties beyond base colour and alpha");
    }
    Some(match name {
        "KHR_lights_punctual" => "lights",
        "EXT_lights_image_based" => "image-based lights",
        "KHR_xmp_json_ld" | "KHR_xmp" => "metadata",
        "KHR_animation_pointer" => "animations",
        _ => return None,
    })
}

/// Geometry compressions sylva does not decode, with the command that rewrites the
/// file without them.
fn undecodable(name: &str) -> Option<&'static str> {
    match name {
        "KHR_draco_mesh_compression" => Some(
            "Draco is not decoded (no maintained Rust decoder); convert the file with \
             `npx @gltf-transform/cli decompress in.glb out.glb` (or re-export it with \
             `gltfpack -i in.glb -o out.glb -c` for meshopt compression, which sylva reads)",
        ),
        _ => None,
    }
}

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
        let path = format!("extensionsRequired[{i}]");
        if let Some(advice) = undecodable(name) {
            return Err(ImportError::UndecodableExtension {
                path,
                name: name.clone(),
                advice,
            });
        }
        let known = SUPPORTED_EXTENSIONS.contains(&name.as_str()) || ignorable(name).is_some();
        if !known {
            return Err(ImportError::UnsupportedExtension {
                path,
                name: name.clone(),
            });
        }
    }
    let mut ignored: Vec<IgnoredExtension> = Vec::new();
    for name in root.extensions_used.iter().chain(&root.extensions_required) {
        if let Some(what) = ignorable(name) {
            if !ignored.iter().any(|i| &i.name == name) {
                ignored.push(IgnoredExtension {
                    name: name.clone(),
                    ignored: what,
                    required: root.extensions_required.contains(name),
                });
            }
        }
    }
    Ok(Container { root, bin, ignored })
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
        let json = br#"{"asset":{"version":"2.0"},"extensionsRequired":["KHR_mesh_quantization","EXT_mesh_features"]}"#;
        let err = parse(json).unwrap_err();
        assert_eq!(
            err.to_string(),
            "extensionsRequired[1]: extension `EXT_mesh_features` is required but not supported"
        );
    }

    #[test]
    fn required_extensions_that_change_no_geometry_are_ignored_by_name() {
        let json = br#"{"asset":{"version":"2.0"},"extensionsUsed":["KHR_lights_punctual","KHR_materials_clearcoat","KHR_texture_transform"],"extensionsRequired":["KHR_lights_punctual"]}"#;
        let container = parse(json).unwrap();
        let names: Vec<(&str, bool)> = container
            .ignored
            .iter()
            .map(|i| (i.name.as_str(), i.required))
            .collect();
        assert_eq!(
            names,
            [
                ("KHR_lights_punctual", true),
                ("KHR_materials_clearcoat", false)
            ]
        );
    }

    #[test]
    fn draco_is_refused_with_the_command_that_converts_the_file() {
        let json =
            br#"{"asset":{"version":"2.0"},"extensionsRequired":["KHR_draco_mesh_compression"]}"#;
        let err = parse(json).unwrap_err().to_string();
        assert!(err.contains("gltf-transform/cli decompress"), "{err}");
        assert!(err.starts_with("extensionsRequired[0]: "), "{err}");
    }

    #[test]
    fn bad_json_reports_line_and_column() {
        let err = parse(b"{\n  \"asset\": {\"version\": \"2.0\"},\n  oops\n}").unwrap_err();
        assert!(matches!(err, ImportError::Json { line: 3, .. }), "{err}");
    }
}

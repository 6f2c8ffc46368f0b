use std::io;

use thiserror::Error;

/// Why a glTF/GLB file was refused. `path` is the JSON path of the offending element,
/// e.g. `meshes[0].primitives[1].attributes.POSITION`, as gltf-json's validation names it.
#[derive(Debug, Error)]
pub enum ImportError {
    #[error("GLB container: {reason}")]
    Container { reason: String },
    #[error("JSON line {line}, column {column}: {message}")]
    Json {
        line: usize,
        column: usize,
        message: String,
    },
    #[error("{path}: extension `{name}` is required but not supported")]
    UnsupportedExtension { path: String, name: String },
    #[error("{path}: extension `{name}` is required: {advice}")]
    UndecodableExtension {
        path: String,
        name: String,
        advice: &'static str,
    },
    #[error("{path}: refers to {kind} {index}, but the file has {count}")]
    MissingElement {
        path: String,
        kind: &'static str,
        index: usize,
        count: usize,
    },
    #[error("{path}: {reason}")]
    Invalid { path: String, reason: String },
    #[error("{path}: refusing URI `{uri}`: {reason}")]
    UriRefused {
        path: String,
        uri: String,
        reason: &'static str,
    },
    #[error("{path}: reading `{uri}`: {source}")]
    External {
        path: String,
        uri: String,
        source: io::Error,
    },
    #[error("{path}: needs bytes {start}..{end} of {within}, which has {available}")]
    OutOfBounds {
        path: String,
        within: String,
        start: u64,
        end: u64,
        available: u64,
    },
    #[error("{path}: {count} elements exceed the import limit of {limit}")]
    TooLarge {
        path: String,
        count: u64,
        limit: u64,
    },
    #[error("{path}: needs {needed} {what}, more than a file of {input_bytes} bytes may decode ({allowed})")]
    OverBudget {
        path: String,
        what: &'static str,
        needed: u64,
        allowed: u64,
        input_bytes: u64,
    },
    #[error(
        "{path}: index {index} at position {position} is not below the vertex count {vertex_count}"
    )]
    VertexIndex {
        path: String,
        position: usize,
        index: u32,
        vertex_count: usize,
    },
    #[error("{path}: {reason}")]
    Hierarchy { path: String, reason: String },
    #[error("{path}: decoding the image: {reason}")]
    Image { path: String, reason: String },
    /// A material's texture could not be read: names the material and the file.
    #[error("material {material}, {channel}: {source}")]
    MaterialTexture {
        material: String,
        channel: &'static str,
        source: Box<ImportError>,
    },
}

impl ImportError {
    pub(crate) fn invalid(path: impl Into<String>, reason: impl Into<String>) -> Self {
        ImportError::Invalid {
            path: path.into(),
            reason: reason.into(),
        }
    }
}

/// Looks up `index` in `items`, or names the missing element.
pub(crate) fn element<'a, T>(
    items: &'a [T],
    index: usize,
    kind: &'static str,
    path: &str,
) -> Result<&'a T, ImportError> {
    items.get(index).ok_or_else(|| ImportError::MissingElement {
        path: path.to_owned(),
        kind,
        index,
        count: items.len(),
    })
}

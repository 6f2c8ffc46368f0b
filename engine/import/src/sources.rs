//! The bytes behind a document: buffers and images, from the GLB binary chunk, from
//! `data:` URIs, or from files beside the asset through the caller's resolver.

use std::borrow::Cow;
use std::io;

use gltf::json::Root;

use crate::error::ImportError;
use crate::uri::{self, Target};

/// Reads a file beside the asset: given a normalised relative path (`/`-separated, no
/// `..`), returns its bytes. The importer never opens files itself.
pub type Resolver<'r> = dyn FnMut(&str) -> io::Result<Vec<u8>> + 'r;

/// Bytes named by `uri`, read through `resolve` when external.
pub(crate) fn load_uri(
    uri: &str,
    path: &str,
    resolve: &mut Resolver<'_>,
) -> Result<(Vec<u8>, Option<String>), ImportError> {
    let refused = |reason| ImportError::UriRefused {
        path: path.to_owned(),
        uri: uri.to_owned(),
        reason,
    };
    match uri::parse(uri).map_err(refused)? {
        Target::Embedded { bytes, media_type } => Ok((bytes, Some(media_type))),
        Target::External(file) => {
            resolve(&file)
                .map(|bytes| (bytes, None))
                .map_err(|source| ImportError::External {
                    path: path.to_owned(),
                    uri: uri.to_owned(),
                    source,
                })
        }
    }
}

/// Every buffer's bytes, each checked to hold at least its declared `byteLength` and
/// cut to it.
pub(crate) fn load_buffers<'a>(
    root: &Root,
    bin: Option<&'a [u8]>,
    resolve: &mut Resolver<'_>,
) -> Result<Vec<Cow<'a, [u8]>>, ImportError> {
    let mut buffers = Vec::with_capacity(root.buffers.len());
    for (i, buffer) in root.buffers.iter().enumerate() {
        let path = format!("buffers[{i}]");
        let bytes: Cow<'a, [u8]> = match (&buffer.uri, bin) {
            (Some(uri), _) => Cow::Owned(load_uri(uri, &format!("{path}.uri"), resolve)?.0),
            (None, Some(bin)) if i == 0 => Cow::Borrowed(bin),
            // Its views are compressed elsewhere; it has no bytes of its own.
            (None, _) if crate::compression::is_fallback(root, i) => {
                buffers.push(Cow::Borrowed(&[][..]));
                continue;
            }
            (None, _) => {
                return Err(ImportError::invalid(
                    path,
                    "has no uri and is not the GLB binary chunk",
                ))
            }
        };
        let declared = buffer.byte_length.0;
        if declared > bytes.len() as u64 {
            return Err(ImportError::OutOfBounds {
                path: format!("{path}.byteLength"),
                within: path,
                start: 0,
                end: declared,
                available: bytes.len() as u64,
            });
        }
        buffers.push(match bytes {
            Cow::Borrowed(b) => Cow::Borrowed(&b[..declared as usize]),
            Cow::Owned(mut b) => {
                b.truncate(declared as usize);
                Cow::Owned(b)
            }
        });
    }
    Ok(buffers)
}

/// The external files a document names (buffers and images), normalised, in order of
/// first mention. A URI that would leave the asset's folder is an error.
pub(crate) fn external_files(root: &Root) -> Result<Vec<String>, ImportError> {
    let buffers = root
        .buffers
        .iter()
        .enumerate()
        .filter_map(|(i, b)| Some((format!("buffers[{i}].uri"), b.uri.as_deref()?)));
    let images = root
        .images
        .iter()
        .enumerate()
        .filter_map(|(i, m)| Some((format!("images[{i}].uri"), m.uri.as_deref()?)));
    let mut files: Vec<String> = Vec::new();
    for (path, uri) in buffers.chain(images) {
        let target = uri::parse(uri).map_err(|reason| ImportError::UriRefused {
            path,
            uri: uri.to_owned(),
            reason,
        })?;
        if let Target::External(file) = target {
            if !files.contains(&file) {
                files.push(file);
            }
        }
    }
    Ok(files)
}

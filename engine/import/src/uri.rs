//! URIs inside a glTF file: embedded `data:` URIs, and relative references to files
//! beside the asset. A reference that could leave the asset's folder is refused.

use base64::Engine;
use percent_encoding::percent_decode_str;

/// What a URI points at.
#[derive(Debug, PartialEq)]
pub(crate) enum Target {
    /// The bytes of a base64 `data:` URI and its media type.
    Embedded { bytes: Vec<u8>, media_type: String },
    /// A file relative to the asset's folder, `/`-separated, percent-decoded, without
    /// `.` segments.
    External(String),
}

/// Why a URI is refused.
pub(crate) type Refusal = &'static str;

pub(crate) fn parse(uri: &str) -> Result<Target, Refusal> {
    if let Some(rest) = uri.strip_prefix("data:") {
        return embedded(rest);
    }
    relative_path(uri).map(Target::External)
}

fn embedded(rest: &str) -> Result<Target, Refusal> {
    let (header, data) = rest
        .split_once(',')
        .ok_or("a data URI needs a comma before its data")?;
    let media_type = header
        .strip_suffix(";base64")
        .ok_or("only base64 data URIs are allowed in glTF")?;
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(data)
        .map_err(|_| "the data URI is not valid base64")?;
    Ok(Target::Embedded {
        bytes,
        media_type: media_type.to_owned(),
    })
}

/// A URI that is a relative path staying inside the asset's folder, normalised.
pub(crate) fn relative_path(uri: &str) -> Result<String, Refusal> {
    if has_scheme(uri) {
        return Err("only relative paths and data URIs are allowed");
    }
    let decoded = percent_decode_str(uri)
        .decode_utf8()
        .map_err(|_| "the percent-decoded path is not UTF-8")?;
    if decoded.is_empty() {
        return Err("the path is empty");
    }
    if decoded.contains(['\\', '\0', '?', '#']) {
        return Err("the path contains a backslash, NUL, query or fragment");
    }
    if decoded.starts_with('/') || has_scheme(&decoded) {
        return Err("absolute paths leave the asset's folder");
    }
    let mut segments = Vec::new();
    for segment in decoded.split('/') {
        match segment {
            "" | "." => continue,
            ".." => return Err("`..` leaves the asset's folder"),
            s => segments.push(s),
        }
    }
    if segments.is_empty() {
        return Err("the path names no file");
    }
    Ok(segments.join("/"))
}

/// `scheme:` per RFC 3986 (which also catches Windows drive letters like `C:`).
fn has_scheme(uri: &str) -> bool {
    let Some((scheme, _)) = uri.split_once(':') else {
        return false;
    };
    let mut chars = scheme.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn data_uris_decode() {
        assert_eq!(
            parse("data:application/octet-stream;base64,AQID").unwrap(),
            Target::Embedded {
                bytes: vec![1, 2, 3],
                media_type: "application/octet-stream".into()
            }
        );
        assert!(parse("data:text/plain,hello").is_err());
        assert!(parse("data:;base64,@@").is_err());
    }

    #[test]
    fn relative_paths_are_normalised_and_decoded() {
        assert_eq!(relative_path("a.bin").unwrap(), "a.bin");
        assert_eq!(
            relative_path("./tex/My%20Bark.png").unwrap(),
            "tex/My Bark.png"
        );
    }

    #[test]
    fn paths_leaving_the_folder_are_refused() {
        for uri in [
            "../secret.bin",
            "tex/../../x.bin",
            "%2E%2E/x.bin",
            "/etc/passwd",
            "%2Fetc%2Fpasswd",
            "C:/windows/x.bin",
            "C:%5Cwindows",
            "file:///etc/passwd",
            "https://example.com/a.bin",
            "a\\..\\b.bin",
            "",
            ".",
        ] {
            assert!(relative_path(uri).is_err(), "{uri} was accepted");
        }
    }
}

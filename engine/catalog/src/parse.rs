//! The loader every sylva data file (catalog, preset, session) goes through: RON or
//! JSON into a typed value, with errors that name the source, the field path and,
//! where the format knows it, the line and column.

use serde::de::DeserializeOwned;
use thiserror::Error;

#[derive(Debug, Clone, PartialEq, Error)]
#[error("{source_name}{}: {path}: {message}", location(*.line, *.column))]
pub struct ParseError {
    /// Usually the file path.
    pub source_name: String,
    /// Field path of the problem, e.g. `picks[2].slope_min`; `(document)` when the
    /// text itself is malformed.
    pub path: String,
    pub line: usize,
    pub column: usize,
    pub message: String,
}

fn location(line: usize, column: usize) -> String {
    if line == 0 {
        String::new()
    } else {
        format!(":{line}:{column}")
    }
}

/// The text format of a data file, chosen by its extension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Ron,
    Json,
}

impl Format {
    /// `.json` files are JSON; everything else is RON.
    pub fn of_path(path: &str) -> Self {
        if path.to_ascii_lowercase().ends_with(".json") {
            Format::Json
        } else {
            Format::Ron
        }
    }
}

/// Parses `text` in `format`, naming `source_name` in errors.
pub fn parse<T: DeserializeOwned>(
    text: &str,
    format: Format,
    source_name: &str,
) -> Result<T, ParseError> {
    match format {
        Format::Ron => parse_ron(text, source_name),
        Format::Json => parse_json(text, source_name),
    }
}

fn parse_ron<T: DeserializeOwned>(text: &str, source_name: &str) -> Result<T, ParseError> {
    let error = |path: String, span: ron::error::Span, message: String| ParseError {
        source_name: source_name.to_owned(),
        path,
        line: span.start.line,
        column: span.start.col,
        message,
    };
    let mut de = ron::Deserializer::from_str(text)
        .map_err(|e| error("(document)".into(), e.span, e.code.to_string()))?;
    let value = serde_path_to_error::deserialize(&mut de).map_err(|e| {
        let path = e.path().to_string();
        let spanned = de.span_error(e.into_inner());
        error(path, spanned.span, spanned.code.to_string())
    })?;
    de.end().map_err(|e| {
        let spanned = de.span_error(e);
        error("(document)".into(), spanned.span, spanned.code.to_string())
    })?;
    Ok(value)
}

fn parse_json<T: DeserializeOwned>(text: &str, source_name: &str) -> Result<T, ParseError> {
    let error = |path: String, e: serde_json::Error| ParseError {
        source_name: source_name.to_owned(),
        path,
        line: e.line(),
        column: e.column(),
        message: strip_json_location(&e.to_string()),
    };
    let mut de = serde_json::Deserializer::from_str(text);
    let value = serde_path_to_error::deserialize(&mut de)
        .map_err(|e| error(e.path().to_string(), e.into_inner()))?;
    de.end().map_err(|e| error("(document)".into(), e))?;
    Ok(value)
}

/// serde_json appends " at line L column C"; the error already carries both.
fn strip_json_location(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(i) => message[..i].to_owned(),
        None => message.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Debug, Deserialize, PartialEq)]
    #[serde(deny_unknown_fields)]
    struct Inner {
        value: f32,
    }

    #[derive(Debug, Deserialize, PartialEq)]
    #[serde(deny_unknown_fields)]
    struct Outer {
        items: Vec<Inner>,
    }

    #[test]
    fn ron_type_error_names_path_and_line() {
        let text = "(\n  items: [\n    (value: 1.0),\n    (value: \"x\"),\n  ],\n)";
        let err = parse::<Outer>(text, Format::Ron, "f.ron").unwrap_err();
        assert_eq!(err.path, "items[1].value");
        assert_eq!(err.line, 4);
        assert!(err.to_string().starts_with("f.ron:4:"), "{err}");
    }

    #[test]
    fn json_unknown_field_names_path() {
        let text = r#"{"items": [{"value": 1, "extra": 2}]}"#;
        let err = parse::<Outer>(text, Format::Json, "f.json").unwrap_err();
        assert_eq!(err.path, "items[0].extra");
        assert!(err.message.contains("unknown field `extra`"), "{err}");
        assert!(!err.message.contains(" at line "), "{err}");
    }

    #[test]
    fn trailing_garbage_is_an_error() {
        assert!(parse::<Outer>("(items: []) junk", Format::Ron, "f").is_err());
        assert!(parse::<Outer>(r#"{"items": []} junk"#, Format::Json, "f").is_err());
    }

    #[test]
    fn format_follows_the_extension() {
        assert_eq!(Format::of_path("a/b.JSON"), Format::Json);
        assert_eq!(Format::of_path("a/b.ron"), Format::Ron);
    }
}

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::bake::BakeOverride;
use crate::parse::{parse, Format, ParseError};
use crate::visibility::VisibilityOverride;

/// `assets/catalog.ron` as written by hand.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CatalogFile {
    /// Category name → its settings. A category's props are the `.glb`/`.gltf` files in
    /// `assets/<category>/`.
    pub categories: BTreeMap<String, CategoryEntry>,
    /// Overrides for single props, keyed by prop id (`<category>/<file stem>`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub props: BTreeMap<String, PropOverride>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CategoryEntry {
    /// Spacing family: a placement keeps `min_spacing` from placements of its family.
    pub family: String,
    /// Uniform scale range of the category's props, multiplied with the pick's.
    #[serde(default)]
    pub scale: ScaleRange,
    /// Bake settings of the category's props.
    #[serde(default, skip_serializing_if = "BakeOverride::is_empty")]
    pub bake: BakeOverride,
    /// When the category's props are too small or too far to draw.
    #[serde(default, skip_serializing_if = "VisibilityOverride::is_empty")]
    pub visibility: VisibilityOverride,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PropOverride {
    /// Replaces the category's scale range for this prop.
    #[serde(default)]
    pub scale: Option<ScaleRange>,
    /// Relative chance of this prop within its category (default 1).
    #[serde(default)]
    pub weight: Option<f32>,
    /// Bake settings of this prop, over its category's.
    #[serde(default, skip_serializing_if = "BakeOverride::is_empty")]
    pub bake: BakeOverride,
    /// When this prop is too small or too far to draw, over its category's.
    #[serde(default, skip_serializing_if = "VisibilityOverride::is_empty")]
    pub visibility: VisibilityOverride,
}

/// An inclusive range of uniform scale factors, `(min, max)`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ScaleRange(pub f32, pub f32);

impl Default for ScaleRange {
    fn default() -> Self {
        ScaleRange(1.0, 1.0)
    }
}

impl ScaleRange {
    /// The scale at `t` in `[0, 1)` through the range.
    pub fn lerp(self, t: f32) -> f32 {
        self.0 + (self.1 - self.0) * t
    }

    pub fn is_valid(self) -> bool {
        self.0.is_finite() && self.1.is_finite() && self.0 > 0.0 && self.0 <= self.1
    }
}

/// Why the catalog file was refused.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum CatalogFileError {
    #[error(transparent)]
    Parse(#[from] ParseError),
    #[error("{source_name}: {path}: {message}")]
    Invalid {
        source_name: String,
        /// Where in the document the problem is, e.g. `categories.conifer.scale`.
        path: String,
        message: String,
    },
}

impl CatalogFile {
    /// Parses RON text; `source_name` (usually the file path) prefixes every error.
    pub fn from_ron(text: &str, source_name: &str) -> Result<Self, CatalogFileError> {
        let file: CatalogFile = parse(text, Format::Ron, source_name)?;
        file.validate()
            .map_err(|(path, message)| CatalogFileError::Invalid {
                source_name: source_name.to_owned(),
                path,
                message,
            })?;
        Ok(file)
    }

    fn validate(&self) -> Result<(), (String, String)> {
        for (name, category) in &self.categories {
            if name.is_empty() || name.contains(['/', '\\']) {
                return Err((
                    format!("categories.{name}"),
                    "a category name is a folder name: non-empty, without slashes".into(),
                ));
            }
            if category.family.is_empty() {
                return Err((
                    format!("categories.{name}.family"),
                    "must not be empty".into(),
                ));
            }
            if !category.scale.is_valid() {
                return Err((
                    format!("categories.{name}.scale"),
                    format!(
                        "{:?} is not a range of positive scales with min ≤ max",
                        category.scale
                    ),
                ));
            }
            if let Some((field, message)) = category.bake.problem() {
                return Err((format!("categories.{name}.bake.{field}"), message));
            }
            if let Some((field, message)) = category.visibility.problem() {
                return Err((format!("categories.{name}.visibility.{field}"), message));
            }
        }
        for (id, o) in &self.props {
            if let Some(scale) = o.scale.filter(|s| !s.is_valid()) {
                return Err((
                    format!("props.{id}.scale"),
                    format!("{scale:?} is not a range of positive scales with min ≤ max"),
                ));
            }
            if let Some(weight) = o.weight.filter(|w| !(w.is_finite() && *w >= 0.0)) {
                return Err((
                    format!("props.{id}.weight"),
                    format!("{weight} is not a finite weight ≥ 0"),
                ));
            }
            if let Some((field, message)) = o.bake.problem() {
                return Err((format!("props.{id}.bake.{field}"), message));
            }
            if let Some((field, message)) = o.visibility.problem() {
                return Err((format!("props.{id}.visibility.{field}"), message));
            }
            let category = id
                .split_once('/')
                .map_or(id.as_str(), |(category, _)| category);
            if !self.categories.contains_key(category) {
                return Err((
                    format!("props.{id}"),
                    format!("names category `{category}`, which the catalog does not define"),
                ));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = r#"(
        categories: {
            "conifer": (family: "tree", scale: (0.8, 1.2)),
            "pebble": (family: "pebble"),
        },
        props: { "conifer/pine": (weight: Some(2.0)) },
    )"#;

    #[test]
    fn parses_categories_with_defaults() {
        let file = CatalogFile::from_ron(GOOD, "catalog.ron").unwrap();
        assert_eq!(file.categories["pebble"].scale, ScaleRange(1.0, 1.0));
        assert_eq!(file.props["conifer/pine"].weight, Some(2.0));
    }

    #[test]
    fn unknown_field_names_its_path() {
        let text = r#"(categories: { "rock": (family: "rock", colour: 3) })"#;
        let CatalogFileError::Parse(err) = CatalogFile::from_ron(text, "catalog.ron").unwrap_err()
        else {
            panic!("expected a parse error")
        };
        assert_eq!(err.path, "categories.rock.colour");
        assert!(err.to_string().starts_with("catalog.ron:1:"), "{err}");
    }

    #[test]
    fn bake_overrides_parse_per_category_and_prop() {
        let text = r#"(
            categories: { "grass": (family: "g", bake: (lock_border: Some(false))) },
            props: { "grass/tuft": (bake: (
                levels: Some([(ratio: 0.4, max_error: 0.05)]),
                parts: { "blade": (lock_border: Some(true)) },
            )) },
        )"#;
        let file = CatalogFile::from_ron(text, "c.ron").unwrap();
        assert_eq!(file.categories["grass"].bake.lock_border, Some(false));
        let tuft = &file.props["grass/tuft"].bake;
        assert_eq!(tuft.levels.as_ref().unwrap()[0].ratio, 0.4);
        assert_eq!(tuft.parts["blade"].lock_border, Some(true));
    }

    #[test]
    fn levels_must_get_coarser() {
        let text = r#"(categories: { "rock": (family: "rock", bake: (levels: Some([
            (ratio: 0.5, max_error: 0.01), (ratio: 0.6, max_error: 0.01),
        ]))) })"#;
        let err = CatalogFile::from_ron(text, "c.ron").unwrap_err();
        assert!(
            matches!(&err, CatalogFileError::Invalid { path, .. } if path == "categories.rock.bake.levels[1].ratio"),
            "{err}"
        );
        let unknown = r#"(categories: { "rock": (family: "rock", bake: (lod: 3)) })"#;
        assert!(CatalogFile::from_ron(unknown, "c.ron").is_err());
    }

    #[test]
    fn impostor_density_must_be_a_finite_density() {
        let text = r#"(categories: { "rock": (family: "rock", bake: (impostor_min_density: Some(-0.1))) })"#;
        let err = CatalogFile::from_ron(text, "c.ron").unwrap_err();
        assert!(
            matches!(&err, CatalogFileError::Invalid { path, .. } if path == "categories.rock.bake.impostor_min_density"),
            "{err}"
        );
        let zero = r#"(categories: { "rock": (family: "rock", bake: (impostor_min_density: Some(0.0))) })"#;
        let file = CatalogFile::from_ron(zero, "c.ron").unwrap();
        assert_eq!(file.categories["rock"].bake.impostor_min_density, Some(0.0));
    }

    #[test]
    fn inverted_scale_range_is_rejected() {
        let text = r#"(categories: { "rock": (family: "rock", scale: (2.0, 1.0)) })"#;
        let err = CatalogFile::from_ron(text, "c.ron").unwrap_err();
        assert!(
            matches!(&err, CatalogFileError::Invalid { path, .. } if path == "categories.rock.scale"),
            "{err}"
        );
    }

    #[test]
    fn bad_visibility_and_unknown_categories_name_their_field() {
        let cases = [
            (
                r#"(categories: { "rock": (family: "rock", visibility: (min_size_px: Some(-1.0))) })"#,
                "categories.rock.visibility.min_size_px",
            ),
            (
                r#"(categories: { "rock": (family: "rock") }, props: { "rock/a": (visibility: (max_distance_m: Some(0.0))) })"#,
                "props.rock/a.visibility.max_distance_m",
            ),
            (
                r#"(categories: { "rock": (family: "rock") }, props: { "rocks/a": (weight: Some(1.0)) })"#,
                "props.rocks/a",
            ),
        ];
        for (text, expected) in cases {
            match CatalogFile::from_ron(text, "catalog.ron").unwrap_err() {
                CatalogFileError::Invalid { path, message, .. } => {
                    assert_eq!(path, expected, "{message}")
                }
                other => panic!("{other}"),
            }
        }
    }
}

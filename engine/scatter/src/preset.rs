//! Presets are flat data: brush defaults plus weighted picks of catalog categories with
//! their slope and altitude predicates. A preset written by hand, by a tool or by a
//! language model is a drop-in file swap; `preset.schema.json` describes the format.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use sylva_catalog::parse::{parse, Format, ParseError};
use sylva_catalog::{Catalog, ScaleRange};
use thiserror::Error;

/// Largest brush radius a preset may ask for, in metres.
pub const MAX_RADIUS: f32 = 200.0;
/// Largest candidate density a preset may ask for, per square metre.
pub const MAX_DENSITY: f32 = 50.0;
/// Largest spacing a pick may ask for, in metres.
pub const MAX_SPACING: f32 = 100.0;

/// A scatter preset.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Preset {
    /// Shown in the preset picker and reports.
    #[schemars(length(min = 1))]
    pub name: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub description: String,
    /// Brush settings used until the painter changes them.
    pub brush: BrushSettings,
    /// What may be placed, and where. A candidate point takes one pick, drawn by weight
    /// among the picks whose predicates hold there.
    #[schemars(length(min = 1))]
    pub picks: Vec<Pick>,
}

/// Brush size and candidate density.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BrushSettings {
    /// Brush disc radius in metres.
    #[schemars(range(min = 0.1, max = 200.0))]
    pub radius: f32,
    /// Candidate points sampled per square metre of the disc on each dab.
    #[schemars(range(min = 0.0001, max = 50.0))]
    pub density_per_m2: f32,
}

/// One weighted choice of a catalog category with the conditions it needs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Pick {
    /// A category of `assets/catalog.ron` (a folder of props).
    #[schemars(length(min = 1))]
    pub category: String,
    /// Relative chance among the picks that pass at a point.
    #[schemars(range(min = 0.0))]
    pub weight: f32,
    /// Lowest slope accepted, as `1 − normal.y`: 0 flat, 0.13 ≈ 30°, 0.29 ≈ 45°, 0.5 = 60°.
    #[serde(default)]
    #[schemars(range(min = 0.0, max = 1.0))]
    pub slope_min: f32,
    /// Steepest slope accepted, on the same scale.
    #[serde(default = "one")]
    #[schemars(range(min = 0.0, max = 1.0))]
    pub slope_max: f32,
    /// Lowest altitude accepted, in metres above the water level.
    #[serde(default = "altitude_floor")]
    pub alt_min: f32,
    /// Highest altitude accepted, in metres above the water level.
    #[serde(default = "altitude_ceiling")]
    pub alt_max: f32,
    /// Distance in metres to keep from placements of the same spacing family.
    #[serde(default)]
    #[schemars(range(min = 0.0, max = 100.0))]
    pub min_spacing: f32,
    /// Tilt the prop's up axis to the ground normal (rocks on slopes) instead of
    /// keeping it vertical (trees).
    #[serde(default)]
    pub align_to_slope: bool,
    /// Uniform scale range, multiplied with the category's.
    #[serde(default)]
    pub scale: ScaleRange,
}

fn one() -> f32 {
    1.0
}

/// "No lower bound": deeper than any terrain.
fn altitude_floor() -> f32 {
    -10_000.0
}

/// "No upper bound": higher than any terrain.
fn altitude_ceiling() -> f32 {
    10_000.0
}

#[derive(Debug, Clone, PartialEq, Error)]
pub enum PresetError {
    #[error(transparent)]
    Parse(#[from] ParseError),
    #[error("{source_name}: {path}: {value} is invalid: {rule}")]
    Invalid {
        source_name: String,
        /// Field path, e.g. `picks[2].slope_min`.
        path: String,
        value: String,
        rule: &'static str,
    },
    #[error("{source_name}: picks[{index}].category: unknown category `{category}` (the catalog has: {known})")]
    UnknownCategory {
        source_name: String,
        index: usize,
        category: String,
        known: String,
    },
}

impl Preset {
    /// Parses and validates a preset; `.json` sources are JSON, others RON.
    pub fn parse(text: &str, source_name: &str) -> Result<Self, PresetError> {
        let preset: Preset = parse(text, Format::of_path(source_name), source_name)?;
        preset.validate(source_name)?;
        Ok(preset)
    }

    /// The widest spacing any of its picks keeps, in metres: how far from a candidate
    /// another placement can stop it.
    pub fn widest_spacing(&self) -> f32 {
        (self.picks.iter()).fold(0.0, |widest, pick| widest.max(pick.min_spacing))
    }

    /// Checks every rule the types cannot express.
    pub fn validate(&self, source_name: &str) -> Result<(), PresetError> {
        let invalid = |path: String, value: String, rule| PresetError::Invalid {
            source_name: source_name.to_owned(),
            path,
            value,
            rule,
        };
        if self.name.trim().is_empty() {
            return Err(invalid(
                "name".into(),
                format!("{:?}", self.name),
                "must not be empty",
            ));
        }
        let b = self.brush;
        if !(b.radius.is_finite() && b.radius > 0.0 && b.radius <= MAX_RADIUS) {
            return Err(invalid(
                "brush.radius".into(),
                b.radius.to_string(),
                "must be in (0, 200] metres",
            ));
        }
        if !(b.density_per_m2.is_finite()
            && b.density_per_m2 > 0.0
            && b.density_per_m2 <= MAX_DENSITY)
        {
            return Err(invalid(
                "brush.density_per_m2".into(),
                b.density_per_m2.to_string(),
                "must be in (0, 50] per square metre",
            ));
        }
        if self.picks.is_empty() {
            return Err(invalid(
                "picks".into(),
                "[]".into(),
                "needs at least one pick",
            ));
        }
        for (i, pick) in self.picks.iter().enumerate() {
            pick.validate(|field, value, rule| {
                invalid(format!("picks[{i}].{field}"), value, rule)
            })?;
        }
        if self.picks.iter().all(|p| p.weight == 0.0) {
            return Err(invalid(
                "picks[*].weight".into(),
                "0".into(),
                "at least one pick needs a weight above 0",
            ));
        }
        Ok(())
    }

    /// Checks that every pick names a category of `catalog`.
    pub fn check_categories(
        &self,
        catalog: &Catalog,
        source_name: &str,
    ) -> Result<(), PresetError> {
        for (index, pick) in self.picks.iter().enumerate() {
            if catalog.category(&pick.category).is_none() {
                return Err(PresetError::UnknownCategory {
                    source_name: source_name.to_owned(),
                    index,
                    category: pick.category.clone(),
                    known: catalog.category_names().join(", "),
                });
            }
        }
        Ok(())
    }
}

impl Pick {
    fn validate(
        &self,
        invalid: impl Fn(&'static str, String, &'static str) -> PresetError,
    ) -> Result<(), PresetError> {
        let finite_in = |v: f32, lo: f32, hi: f32| v.is_finite() && v >= lo && v <= hi;
        if self.category.trim().is_empty() {
            return Err(invalid(
                "category",
                format!("{:?}", self.category),
                "must name a catalog category",
            ));
        }
        if !finite_in(self.weight, 0.0, f32::MAX) {
            return Err(invalid(
                "weight",
                self.weight.to_string(),
                "must be a finite number ≥ 0",
            ));
        }
        if !finite_in(self.slope_min, 0.0, 1.0) {
            return Err(invalid(
                "slope_min",
                self.slope_min.to_string(),
                "must be in [0, 1]",
            ));
        }
        if !finite_in(self.slope_max, 0.0, 1.0) {
            return Err(invalid(
                "slope_max",
                self.slope_max.to_string(),
                "must be in [0, 1]",
            ));
        }
        if self.slope_min > self.slope_max {
            return Err(invalid(
                "slope_min",
                self.slope_min.to_string(),
                "must not exceed slope_max",
            ));
        }
        for (field, v) in [("alt_min", self.alt_min), ("alt_max", self.alt_max)] {
            if !finite_in(v, -10_000.0, 10_000.0) {
                return Err(invalid(
                    field,
                    v.to_string(),
                    "must be in [-10000, 10000] metres",
                ));
            }
        }
        if self.alt_min > self.alt_max {
            return Err(invalid(
                "alt_min",
                self.alt_min.to_string(),
                "must not exceed alt_max",
            ));
        }
        if !finite_in(self.min_spacing, 0.0, MAX_SPACING) {
            return Err(invalid(
                "min_spacing",
                self.min_spacing.to_string(),
                "must be in [0, 100] metres",
            ));
        }
        if !self.scale.is_valid() {
            return Err(invalid(
                "scale",
                format!("({}, {})", self.scale.0, self.scale.1),
                "must be a range of positive scales with min ≤ max",
            ));
        }
        Ok(())
    }
}

/// The JSON Schema of the preset format, for editors and generators.
pub fn preset_schema() -> serde_json::Value {
    serde_json::to_value(schemars::schema_for!(Preset)).expect("a schema is plain JSON")
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = r#"(
        name: "Test",
        brush: (radius: 8.0, density_per_m2: 0.5),
        picks: [
            (category: "conifer", weight: 2.0, slope_max: 0.15, min_spacing: 4.0),
            (category: "rock", weight: 1.0, slope_min: 0.3, align_to_slope: true, scale: (0.5, 1.5)),
        ],
    )"#;

    fn error_of(text: &str) -> PresetError {
        Preset::parse(text, "test.ron").unwrap_err()
    }

    #[test]
    fn parses_with_defaults() {
        let p = Preset::parse(GOOD, "test.ron").unwrap();
        assert_eq!(p.picks[0].slope_min, 0.0);
        assert_eq!(p.picks[0].slope_max, 0.15);
        assert_eq!(p.picks[0].alt_min, -10_000.0);
        assert!(p.picks[1].align_to_slope);
        assert_eq!(p.picks[1].scale, ScaleRange(0.5, 1.5));
    }

    #[test]
    fn json_presets_load_too() {
        let text = r#"{"name": "J", "brush": {"radius": 5, "density_per_m2": 1},
                       "picks": [{"category": "grass", "weight": 1}]}"#;
        let p = Preset::parse(text, "j.json").unwrap();
        assert_eq!(p.picks[0].category, "grass");
    }

    #[test]
    fn unknown_field_is_named() {
        let err = error_of(&GOOD.replace("min_spacing: 4.0", "min_spacing: 4.0, colour: 1"));
        assert!(
            matches!(&err, PresetError::Parse(e) if e.path == "picks[0].colour"),
            "{err}"
        );
        assert!(err.to_string().contains("colour"));
    }

    #[test]
    fn wrong_type_is_named() {
        let err = error_of(&GOOD.replace("weight: 2.0", "weight: \"heavy\""));
        assert!(
            matches!(&err, PresetError::Parse(e) if e.path == "picks[0].weight"),
            "{err}"
        );
    }

    #[test]
    fn inverted_slope_range_is_named() {
        let err = error_of(&GOOD.replace("slope_min: 0.3", "slope_min: 0.3, slope_max: 0.2"));
        assert_eq!(
            err.to_string(),
            "test.ron: picks[1].slope_min: 0.3 is invalid: must not exceed slope_max"
        );
    }

    #[test]
    fn negative_weight_is_named() {
        let err = error_of(&GOOD.replace("weight: 1.0", "weight: -1.0"));
        assert!(
            matches!(&err, PresetError::Invalid { path, .. } if path == "picks[1].weight"),
            "{err}"
        );
    }

    #[test]
    fn missing_required_field_is_named() {
        let err = error_of(&GOOD.replace("weight: 2.0, ", ""));
        assert!(err.to_string().contains("weight"), "{err}");
    }

    #[test]
    fn out_of_range_brush_is_named() {
        let err = error_of(&GOOD.replace("radius: 8.0", "radius: 0.0"));
        assert!(
            matches!(&err, PresetError::Invalid { path, .. } if path == "brush.radius"),
            "{err}"
        );
    }

    #[test]
    fn unknown_category_is_named_with_the_known_ones() {
        let file = sylva_catalog::CatalogFile::from_ron(
            r#"(categories: { "conifer": (family: "tree") })"#,
            "catalog.ron",
        )
        .unwrap();
        let (catalog, _) = Catalog::resolve(&file, []).unwrap();
        let preset = Preset::parse(GOOD, "test.ron").unwrap();
        let err = preset.check_categories(&catalog, "test.ron").unwrap_err();
        assert_eq!(
            err.to_string(),
            "test.ron: picks[1].category: unknown category `rock` (the catalog has: conifer)"
        );
    }

    #[test]
    fn schema_names_every_pick_field() {
        let schema = preset_schema().to_string();
        for field in [
            "slope_min",
            "alt_max",
            "min_spacing",
            "align_to_slope",
            "density_per_m2",
        ] {
            assert!(schema.contains(field), "{field} missing from schema");
        }
    }
}

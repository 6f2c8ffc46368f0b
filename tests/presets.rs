//! The shipped presets and their schema.

use crate::common;

use sylva_scatter::{preset_schema, Preset, PresetError};

#[test]
fn every_shipped_preset_validates_against_the_catalog() {
    let catalog = common::catalog();
    for stem in common::PRESETS {
        let preset = common::preset(stem);
        preset.check_categories(&catalog, stem).unwrap();
    }
}

#[test]
fn every_pick_category_of_every_preset_has_a_prop() {
    let catalog = common::catalog();
    for stem in common::PRESETS {
        for pick in common::preset(stem).picks {
            let category = catalog.category(&pick.category).unwrap();
            assert!(
                !category.props.is_empty(),
                "{stem}: category `{}` has no prop in assets/",
                pick.category
            );
        }
    }
}

#[test]
fn the_committed_schema_is_current() {
    let path = common::repo().join("presets/preset.schema.json");
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    let generated = serde_json::to_string_pretty(&preset_schema()).unwrap() + "\n";
    assert!(
        committed == generated,
        "presets/preset.schema.json is stale: run `cargo run -p sylva-cli -- schema --out presets/preset.schema.json`"
    );
}

#[test]
fn json_presets_are_a_drop_in_swap() {
    let ron = common::preset("beach");
    let json = serde_json::to_string(&ron).unwrap();
    assert_eq!(Preset::parse(&json, "beach.json").unwrap(), ron);
}

/// Each malformation of the brief, applied to a shipped preset, and the field the
/// error must name.
#[test]
fn malformed_presets_are_rejected_naming_the_field() {
    let text = std::fs::read_to_string(common::repo().join("presets/mixed_forest.ron")).unwrap();
    let catalog = common::catalog();
    let cases = [
        (
            "unknown field",
            text.replacen("min_spacing: 4.5", "min_spacing: 4.5, height: 3.0", 1),
            "picks[0].height",
        ),
        (
            "wrong type",
            text.replacen("weight: 0.7", "weight: \"a lot\"", 1),
            "picks[0].weight",
        ),
        (
            "slope_min > slope_max",
            text.replacen("slope_max: 0.12", "slope_min: 0.5, slope_max: 0.12", 1),
            "picks[0].slope_min",
        ),
        (
            "negative weight",
            text.replacen("weight: 0.7", "weight: -0.7", 1),
            "picks[0].weight",
        ),
        (
            "unknown category",
            text.replacen("\"conifer\"", "\"palm\"", 1),
            "picks[0].category",
        ),
    ];
    for (what, bad, field) in cases {
        assert_ne!(bad, text, "{what}: the mutation did not apply");
        let error = match Preset::parse(&bad, "mixed_forest.ron") {
            Ok(preset) => preset
                .check_categories(&catalog, "mixed_forest.ron")
                .unwrap_err(),
            Err(e) => e,
        };
        let message = error.to_string();
        assert!(
            message.contains(field),
            "{what}: `{message}` does not name {field}"
        );
        if what == "unknown category" {
            assert!(matches!(error, PresetError::UnknownCategory { .. }));
        }
    }
}

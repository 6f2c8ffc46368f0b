//! Shared set-up for the end-to-end tests: the repository's own assets and presets.
#![allow(dead_code)] // Each test binary uses a different part of this module.

use std::path::PathBuf;

use sylva::catalog::folder::read_snapshot;
use sylva::catalog::{Catalog, CatalogSnapshot};
use sylva::scatter::Preset;

pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

pub fn snapshot() -> CatalogSnapshot {
    read_snapshot(&repo().join("assets")).expect("the bundled assets folder reads")
}

pub fn catalog() -> Catalog {
    snapshot()
        .resolve()
        .expect("the bundled catalog resolves")
        .0
}

pub const PRESETS: [&str; 5] = [
    "mixed_forest",
    "cliff_and_scree",
    "beach",
    "meadow",
    "lake_shore",
];

pub fn preset(stem: &str) -> Preset {
    let path = repo().join("presets").join(format!("{stem}.ron"));
    let text = std::fs::read_to_string(&path).unwrap();
    Preset::parse(&text, &path.display().to_string()).unwrap()
}

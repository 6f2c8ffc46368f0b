//! The impostor record of an entry: its codes and the checks the encoder and the parser
//! share.

use super::texture::MAX_TEXTURE_SIZE;
use super::{check_error, malformed, FormatError};
use crate::model::ImpostorView;

/// The record's first byte: a refusal (its reason follows as a string).
pub(super) const REFUSED: u8 = 0;
/// The record's first byte: a baked impostor (grid, cell, sphere, two texture indices,
/// error in metres).
pub(super) const BAKED: u8 = 1;

/// A baked impostor's fields are possible: an even grid, a power-of-two cell, an atlas
/// no larger than a texture may be, a finite sphere of positive radius, two distinct
/// textures of the entry and a finite error of 0 or more.
pub(super) fn check_impostor(view: &ImpostorView, texture_count: usize) -> Result<(), FormatError> {
    let bad = |reason: String| Err(malformed("impostor", reason));
    let ImpostorView {
        grid,
        cell_px,
        sphere,
        albedo,
        normal,
        error_m,
    } = *view;
    if grid == 0 || !grid.is_multiple_of(2) {
        return bad(format!("a grid of {grid} views (must be even)"));
    }
    if !cell_px.is_power_of_two() {
        return bad(format!(
            "cells of {cell_px} texels (must be a power of two)"
        ));
    }
    if u64::from(grid) * u64::from(cell_px) > u64::from(MAX_TEXTURE_SIZE) {
        return bad(format!(
            "{grid} cells of {cell_px} texels are past a texture's size"
        ));
    }
    let finite = sphere.center.iter().all(|c| c.is_finite()) && sphere.radius.is_finite();
    if !finite || sphere.radius <= 0.0 {
        return bad(format!("sphere {sphere:?}"));
    }
    for (what, index) in [("albedo", albedo), ("normal", normal)] {
        if index as usize >= texture_count {
            return bad(format!("{what} atlas {index} of {texture_count} textures"));
        }
    }
    if albedo == normal {
        return bad(format!("albedo and normal are both texture {albedo}"));
    }
    check_error("impostor error_m", error_m)
}

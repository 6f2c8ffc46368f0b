//! The impostor record of an entry: its codes and the checks the encoder and the parser
//! share.

use super::texture::MAX_TEXTURE_SIZE;
use super::{check_error, malformed, FormatError};
use crate::model::ImpostorView;

/// The record's first byte: a refusal (its reason follows as a string).
pub(super) const REFUSED: u8 = 0;
/// The record's first byte: a baked impostor (grid, cell, sphere, three texture indices,
/// error in metres).
pub(super) const BAKED: u8 = 1;

/// A baked impostor's fields are possible: an even grid, a power-of-two cell, an atlas
/// no larger than a texture may be, a finite sphere of positive radius, three distinct
/// textures of the entry and a finite error of 0 or more.
pub(super) fn check_impostor(view: &ImpostorView, texture_count: usize) -> Result<(), FormatError> {
    let bad = |reason: String| Err(malformed("impostor", reason));
    let ImpostorView {
        grid,
        cell_px,
        sphere,
        albedo,
        normal,
        depth,
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
    let atlases = [("albedo", albedo), ("normal", normal), ("depth", depth)];
    for (what, index) in atlases {
        if index as usize >= texture_count {
            return bad(format!("{what} atlas {index} of {texture_count} textures"));
        }
    }
    for (i, (what, index)) in atlases.iter().enumerate() {
        if let Some((other, _)) = atlases[i + 1..].iter().find(|(_, j)| j == index) {
            return bad(format!("{what} and {other} are both texture {index}"));
        }
    }
    check_error("impostor error_m", error_m)
}

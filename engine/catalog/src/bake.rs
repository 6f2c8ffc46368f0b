//! Bake settings as written in `assets/catalog.ron`: optional, per category and per
//! prop, every field defaulting to the level above (prop → category → baker defaults).

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Most simplified levels below the full mesh.
pub const MAX_LOD_LEVELS: usize = 7;

/// `bake: (...)` of a category or prop. Empty fields inherit.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BakeOverride {
    /// The simplified levels below the full mesh, coarser and coarser.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub levels: Option<Vec<LodLevel>>,
    /// Whether simplification pins every vertex on an open edge (meshoptimizer's
    /// LockBorder). Open shells such as leaf cards barely simplify with it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lock_border: Option<bool>,
    /// The largest width or height a baked texture keeps (1024 unless set): larger
    /// levels of the mip chain are dropped.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_texture_size: Option<u32>,
    /// Whether alpha-tested textures' mips keep level 0's alpha coverage (on unless set
    /// to false; off only to compare).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub coverage_mips: Option<bool>,
    /// Whether the prop gets an impostor, a camera-facing picture of it drawn as its
    /// last level of detail (on unless set to false; off, its coarsest mesh is the last
    /// level).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub impostor: Option<bool>,
    /// Props whose coarsest mesh has fewer triangles per pixel of their square, where
    /// the impostor would take over, keep that mesh instead of an impostor (the
    /// baker's measured crossover, 0.3, unless set; 0 gives every prop one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub impostor_min_density: Option<f32>,
    /// Per part, by part name (the material name, or the node's).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub parts: BTreeMap<String, PartBakeOverride>,
}

/// One simplified level.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LodLevel {
    /// Target triangles as a fraction of the full mesh, in (0, 1).
    pub ratio: f32,
    /// Largest simplification error allowed, relative to the part's extent; the level
    /// stops short of `ratio` rather than exceed it.
    pub max_error: f32,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PartBakeOverride {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lock_border: Option<bool>,
}

impl BakeOverride {
    pub fn is_empty(&self) -> bool {
        *self == BakeOverride::default()
    }

    /// The first problem found, as (field path below `bake`, message).
    pub(crate) fn problem(&self) -> Option<(String, String)> {
        if let Some(size) = self.max_texture_size {
            if !(4..=16_384).contains(&size) {
                return Some((
                    "max_texture_size".into(),
                    format!("{size} is not a texture side from 4 to 16384"),
                ));
            }
        }
        if let Some(density) = self.impostor_min_density {
            if !(density.is_finite() && density >= 0.0) {
                return Some((
                    "impostor_min_density".into(),
                    format!("{density} is not a finite density ≥ 0"),
                ));
            }
        }
        let levels = self.levels.as_deref()?;
        if levels.is_empty() || levels.len() > MAX_LOD_LEVELS {
            return Some((
                "levels".into(),
                format!("{} levels; 1 to {MAX_LOD_LEVELS} are allowed", levels.len()),
            ));
        }
        let mut previous = 1.0;
        for (i, level) in levels.iter().enumerate() {
            if !(level.ratio > 0.0 && level.ratio < previous) {
                return Some((
                    format!("levels[{i}].ratio"),
                    format!(
                        "{} must be in (0, {previous}): each level coarser than the one before",
                        level.ratio
                    ),
                ));
            }
            if !(level.max_error.is_finite() && level.max_error >= 0.0) {
                return Some((
                    format!("levels[{i}].max_error"),
                    format!("{} is not a finite error ≥ 0", level.max_error),
                ));
            }
            previous = level.ratio;
        }
        None
    }
}

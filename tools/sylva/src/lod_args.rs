//! The LOD options `render` and `demo` share: screen-space switching with its one
//! quality knob, or the fixed bands and the full-detail reference to compare with.

use anyhow::{Context, Result};
use sylva_lod::{LodConfig, LodController, LodPolicy, ScreenError};

#[derive(clap::Args, Clone, Debug, Default)]
pub struct LodArgs {
    /// The largest error an LOD level may show, in pixels of the image: each prop keeps
    /// a level until the next one's baked error projects within this (default 1).
    #[arg(long, value_name = "PIXELS", allow_hyphen_values = true)]
    pub lod_error_px: Option<f32>,
    /// Switch every placement at the same distances instead (metres, comma-separated,
    /// ±4 m), whatever its size, and cull nothing: the comparison for screen-space LOD.
    #[arg(
        long,
        value_name = "M,M,…",
        value_delimiter = ',',
        conflicts_with_all = ["lod_error_px", "full_detail"]
    )]
    pub fixed_bands: Option<Vec<f32>>,
    /// Draw every placement at its full mesh: no simpler level, no impostor, nothing
    /// culled. The reference the LOD policies are measured against.
    #[arg(long, conflicts_with = "lod_error_px")]
    pub full_detail: bool,
}

impl LodArgs {
    /// The LOD controller's configuration these options ask for, checked.
    pub fn config(&self) -> Result<LodConfig> {
        let config = if self.full_detail {
            LodConfig::full_detail()
        } else if let Some(edges) = &self.fixed_bands {
            LodConfig::fixed_bands(edges.clone())
        } else {
            LodConfig {
                policy: LodPolicy::ScreenError(ScreenError {
                    tolerance_px: self.lod_error_px.unwrap_or(1.0),
                    ..ScreenError::default()
                }),
                ..LodConfig::default()
            }
        };
        LodController::new(&config).context("--lod-error-px / --fixed-bands")?;
        Ok(config)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_tolerances_and_bands_are_refused_with_the_reason() {
        let args = LodArgs {
            lod_error_px: Some(0.0),
            ..LodArgs::default()
        };
        let error = format!("{:#}", args.config().unwrap_err());
        assert!(error.contains("tolerance"), "{error}");
        let args = LodArgs {
            fixed_bands: Some(vec![90.0, 30.0]),
            ..LodArgs::default()
        };
        let error = format!("{:#}", args.config().unwrap_err());
        assert!(error.contains("farther than the edge before"), "{error}");
    }
}

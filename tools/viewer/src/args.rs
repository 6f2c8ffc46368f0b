//! The viewer's command line, shared by `sylva-viewer` and `sylva view`.

use std::path::PathBuf;
use std::str::FromStr;

use sylva_lod::{LodConfig, LodPolicy, ScreenError};
use sylva_scatter::{check_cap, DEFAULT_PLACEMENT_CAP};
use sylva_terrain::HeightmapScale;

use crate::workspace::{TerrainChoice, WorkspaceOptions};

/// Window size in physical pixels, written `WIDTHxHEIGHT`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WindowSize {
    pub width: u32,
    pub height: u32,
}

impl FromStr for WindowSize {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        let parse = |s: &str| {
            s.trim()
                .parse::<u32>()
                .ok()
                .filter(|v| (64..=8192).contains(v))
        };
        text.split_once(['x', 'X'])
            .and_then(|(w, h)| Some((parse(w)?, parse(h)?)))
            .map(|(width, height)| Self { width, height })
            .ok_or_else(|| format!("`{text}` is not WIDTHxHEIGHT with sides of 64 to 8192 pixels"))
    }
}

#[derive(clap::Args, Clone, Debug)]
pub struct ViewArgs {
    /// The assets folder: catalog.ron and the props.
    #[arg(long, default_value = "assets")]
    pub assets: PathBuf,
    /// The bake cache: props load from it, and are baked into it first if missing.
    #[arg(long, default_value = "cache")]
    pub cache: PathBuf,
    /// Run the baker's watcher on the assets folder: re-baked props swap in place.
    #[arg(long)]
    pub watch: bool,
    /// A remote cache to fetch baked entries from before baking a prop
    /// (`http(s)://…` WebDAV or `s3://…`); default `$SYLVA_REMOTE_CACHE`. Read only.
    #[arg(long, value_name = "URL")]
    pub remote: Option<String>,
    /// The preset folder (RON or JSON presets; new and edited files are picked up).
    #[arg(long, default_value = "presets")]
    pub presets: PathBuf,
    /// Session file to continue (replayed if it exists); saves go here and autosaves
    /// beside it. Without it a new session is saved to out/viewer.session.ron.
    #[arg(long)]
    pub session: Option<PathBuf>,
    /// Paint on a 16-bit (or 8-bit) greyscale PNG instead of the default world.
    #[arg(long)]
    pub heightmap: Option<PathBuf>,
    /// Metres between heightmap samples.
    #[arg(long, default_value_t = 2.0)]
    pub spacing: f32,
    /// Metres from the heightmap's darkest to its brightest value.
    #[arg(long, default_value_t = 100.0)]
    pub vertical_scale: f32,
    /// Height of the heightmap's darkest value, in metres.
    #[arg(long, default_value_t = 0.0, allow_hyphen_values = true)]
    pub base_height: f32,
    /// Water level of the heightmap terrain, in metres.
    #[arg(long, default_value_t = 0.0, allow_hyphen_values = true)]
    pub water_level: f32,
    /// Seed of a new session.
    #[arg(long, default_value_t = 1)]
    pub seed: u32,
    /// Most placements a new session holds (a continued one keeps its own); past it
    /// the oldest go first.
    #[arg(long, default_value_t = DEFAULT_PLACEMENT_CAP, value_parser = parse_cap)]
    pub cap: usize,
    /// Play recorded input from this file, then exit with a JSON summary.
    #[arg(long)]
    pub script: Option<PathBuf>,
    /// Write the last frame to this PNG and exit (after the script, or once every
    /// prop has loaded).
    #[arg(long)]
    pub screenshot: Option<PathBuf>,
    /// Window size, WIDTHxHEIGHT.
    #[arg(long, default_value = "1280x720")]
    pub size: WindowSize,
    /// The largest error an LOD level may show, in pixels of the window: each prop
    /// keeps a level until the next one's baked error projects within this (a slider
    /// on the HUD changes it live).
    #[arg(long, default_value_t = 1.0, value_parser = parse_lod_error)]
    pub lod_error_px: f32,
}

fn parse_lod_error(text: &str) -> Result<f32, String> {
    let pixels = text
        .parse::<f32>()
        .map_err(|_| format!("`{text}` is not a number of pixels"))?;
    if pixels.is_finite() && pixels > 0.0 {
        Ok(pixels)
    } else {
        Err(format!(
            "the LOD tolerance must be a positive number of pixels, got {text}"
        ))
    }
}

fn parse_cap(text: &str) -> Result<usize, String> {
    let cap = text
        .parse::<usize>()
        .map_err(|_| format!("`{text}` is not a placement count"))?;
    check_cap(cap).map_err(|e| e.to_string())?;
    Ok(cap)
}

/// Where a new session is saved when no `--session` is given.
pub const DEFAULT_SESSION: &str = "out/viewer.session.ron";

impl ViewArgs {
    /// Scripted and screenshot runs end by themselves and report a JSON summary.
    pub fn prints_summary(&self) -> bool {
        self.script.is_some() || self.screenshot.is_some()
    }

    pub fn workspace_options(&self) -> WorkspaceOptions {
        let terrain = match &self.heightmap {
            Some(path) => TerrainChoice::Heightmap {
                path: path.clone(),
                scale: HeightmapScale {
                    spacing: self.spacing,
                    vertical_scale: self.vertical_scale,
                    base_height: self.base_height,
                    water_level: self.water_level,
                },
            },
            None => TerrainChoice::DefaultWorld,
        };
        WorkspaceOptions {
            assets: self.assets.clone(),
            presets: self.presets.clone(),
            terrain,
            session: self
                .session
                .clone()
                .unwrap_or_else(|| PathBuf::from(DEFAULT_SESSION)),
            continue_session: self.session.is_some(),
            seed: self.seed,
            cap: self.cap,
            lod: LodConfig {
                policy: LodPolicy::ScreenError(ScreenError {
                    tolerance_px: self.lod_error_px,
                    ..ScreenError::default()
                }),
                ..LodConfig::default()
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn window_sizes_parse_within_limits() {
        assert_eq!(
            "640x360".parse::<WindowSize>().unwrap(),
            WindowSize {
                width: 640,
                height: 360
            }
        );
        for bad in ["640", "0x360", "640x", "axb", "99999x10"] {
            assert!(bad.parse::<WindowSize>().is_err(), "{bad}");
        }
    }

    #[test]
    fn the_cap_is_the_users_and_zero_or_too_much_is_refused() {
        use clap::Parser;
        #[derive(Parser)]
        struct Cli {
            #[command(flatten)]
            view: ViewArgs,
        }
        assert_eq!(Cli::parse_from(["v"]).view.cap, 1_000_000);
        assert_eq!(
            Cli::parse_from(["v", "--cap", "50000"])
                .view
                .workspace_options()
                .cap,
            50_000
        );
        for (bad, reason) in [
            ("0", "would hold nothing"),
            ("99999999999", "past what memory allows"),
            ("x", "not a placement count"),
        ] {
            let err = Cli::try_parse_from(["v", "--cap", bad])
                .err()
                .unwrap()
                .to_string();
            assert!(err.contains(reason), "{err}");
        }
    }

    #[test]
    fn only_an_explicit_session_is_continued() {
        use clap::Parser;
        #[derive(Parser)]
        struct Cli {
            #[command(flatten)]
            view: ViewArgs,
        }
        let plain = Cli::parse_from(["v"]).view.workspace_options();
        assert!(!plain.continue_session);
        assert_eq!(plain.session, PathBuf::from(DEFAULT_SESSION));
        let named = Cli::parse_from(["v", "--session", "a.ron", "--heightmap", "h.png"])
            .view
            .workspace_options();
        assert!(named.continue_session);
        assert!(matches!(named.terrain, TerrainChoice::Heightmap { .. }));
    }
}

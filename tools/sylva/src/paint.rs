use std::path::PathBuf;

use anyhow::Result;
use serde::Serialize;
use sylva_scatter::{
    check_cap, BrushSettings, Editor, Session, StrokeReport, TerrainSource, DEFAULT_PLACEMENT_CAP,
};
use sylva_terrain::default_world;

use crate::folders::EditOutput;
use crate::{assets, files, presets, world};

#[derive(clap::Args)]
pub struct Args {
    /// Preset file (RON or JSON).
    #[arg(long)]
    preset: PathBuf,
    /// Where: a landmark (meadow, cliff, beach, lake, mountains) or X,Z in metres.
    #[arg(long, allow_hyphen_values = true)]
    at: String,
    /// Brush radius in metres (default: the preset's).
    #[arg(long)]
    radius: Option<f32>,
    /// Candidates per square metre (default: the preset's).
    #[arg(long)]
    density: Option<f32>,
    #[arg(long, default_value_t = 1)]
    seed: u32,
    /// Most placements the session holds; past it the oldest go first.
    #[arg(long, default_value_t = DEFAULT_PLACEMENT_CAP)]
    cap: usize,
    #[command(flatten)]
    output: EditOutput,
}

#[derive(Serialize)]
struct Output<'a> {
    preset: &'a str,
    at: [f32; 2],
    radius: f32,
    density_per_m2: f32,
    #[serde(flatten)]
    report: StrokeReport,
}

pub fn run(args: Args) -> Result<()> {
    let preset = presets::load(&args.preset)?;
    let at = world::parse_place(&args.at)?;
    let brush = BrushSettings {
        radius: args.radius.unwrap_or(preset.brush.radius),
        density_per_m2: args.density.unwrap_or(preset.brush.density_per_m2),
    };
    check_cap(args.cap)?;
    let terrain = default_world();
    let session = Session::new(
        args.seed,
        args.cap,
        TerrainSource::DefaultWorld,
        assets::snapshot(&args.output.assets)?,
    );
    assets::resolve(&session.catalog)?;
    let mut editor = Editor::new(&session)?;
    let name = editor.use_preset(&presets::name_of(&args.preset), preset.clone())?;
    editor.begin_paint(&name, brush)?;
    editor.dab(&terrain, at)?;
    let report = editor.end_stroke().unwrap_or_default();
    if let Some(path) = &args.output.save {
        files::write_atomically(path, editor.session().to_ron().as_bytes())?;
    }
    if args.output.json {
        let output = Output {
            preset: &preset.name,
            at: at.to_array(),
            radius: brush.radius,
            density_per_m2: brush.density_per_m2,
            report,
        };
        println!("{}", serde_json::to_string(&output)?);
    } else {
        println!(
            "{} at ({:.1}, {:.1}), radius {} m: {report}",
            preset.name, at.x, at.y, brush.radius
        );
    }
    Ok(())
}

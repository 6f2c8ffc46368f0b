//! The scripted demo session: every shipped preset painted where it belongs.

use std::path::PathBuf;

use anyhow::{Context, Result};
use glam::Vec2;
use sylva_scatter::{Editor, Session, StrokeReport, TerrainSource, DEFAULT_PLACEMENT_CAP};
use sylva_terrain::{default_world, Landmark};

use crate::{assets, files, presets};

#[derive(clap::Args)]
pub struct Args {
    /// Folder for the session journal (and, later, renders).
    #[arg(long, default_value = "out")]
    out: PathBuf,
    #[arg(long, default_value = "assets")]
    assets: PathBuf,
    #[arg(long, default_value = "presets")]
    presets: PathBuf,
    #[arg(long, default_value_t = 2024)]
    seed: u32,
}

/// Each preset file stem, the landmark it is painted at and the stroke's direction:
/// five dabs 3 m apart along it.
const SCRIPT: [(&str, Landmark, Vec2); 6] = [
    ("mixed_forest", Landmark::Meadow, Vec2::new(1.0, 0.0)),
    ("mixed_forest", Landmark::Mountains, Vec2::new(1.0, 0.0)),
    ("meadow", Landmark::Meadow, Vec2::new(0.0, -1.0)),
    ("cliff_and_scree", Landmark::Cliff, Vec2::new(0.0, 1.0)),
    ("beach", Landmark::Beach, Vec2::new(1.0, 0.0)),
    ("lake_shore", Landmark::Lake, Vec2::new(0.0, 1.0)),
];

pub fn run(args: Args) -> Result<()> {
    let terrain = default_world();
    let session = Session::new(
        args.seed,
        DEFAULT_PLACEMENT_CAP,
        TerrainSource::DefaultWorld,
        assets::snapshot(&args.assets)?,
    );
    assets::resolve(&session.catalog)?;
    let mut editor = Editor::new(&session)?;
    let mut total = StrokeReport::default();
    for (stem, landmark, direction) in SCRIPT {
        let path = args.presets.join(format!("{stem}.ron"));
        let preset = presets::load(&path)?;
        let brush = preset.brush;
        let name = editor.use_preset(stem, preset.clone())?;
        editor.begin_paint(&name, brush)?;
        // Start one brush radius before the landmark so the stroke is centred on it.
        let start = landmark.position() - direction * 6.0;
        for step in 0..5 {
            editor.dab(&terrain, start + direction * (3.0 * step as f32))?;
        }
        let report = editor.end_stroke().context("the stroke was open")?;
        println!("{:<16} at {:<9} {report}", preset.name, landmark.name());
        total += report;
    }
    println!("{:<16} {:<12} {total}", "session", "");
    println!(
        "{} placements, digest {}",
        editor.painter().len(),
        editor.painter().digest()
    );
    let journal = args.out.join("demo.session.ron");
    files::write_atomically(&journal, editor.session().to_ron().as_bytes())?;
    println!("session journal: {}", journal.display());
    Ok(())
}

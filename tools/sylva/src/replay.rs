use std::fs;
use std::path::PathBuf;

use anyhow::{Context, Result};
use serde::Serialize;
use sylva_scatter::{Editor, Session};

use crate::world;

#[derive(clap::Args)]
pub struct Args {
    /// Session journal (RON or JSON).
    session: PathBuf,
    /// Print the result as JSON.
    #[arg(long)]
    json: bool,
}

#[derive(Serialize)]
struct Output {
    events: usize,
    placements: usize,
    /// BLAKE3 of every placement's exact bytes, in creation order.
    digest: String,
}

pub fn run(args: Args) -> Result<()> {
    let text = fs::read_to_string(&args.session)
        .with_context(|| format!("reading {}", args.session.display()))?;
    let session = Session::parse(&text, &args.session.display().to_string())?;
    let base = args.session.parent().unwrap_or(std::path::Path::new("."));
    let terrain = world::load(&session.terrain, base)?;
    let (editor, _) = Editor::replay(&session, &terrain)
        .with_context(|| format!("replaying {}", args.session.display()))?;
    let output = Output {
        events: session.events.len(),
        placements: editor.painter().len(),
        digest: editor.painter().digest(),
    };
    if args.json {
        println!("{}", serde_json::to_string(&output)?);
    } else {
        println!(
            "{}: {} events, {} placements, digest {}",
            args.session.display(),
            output.events,
            output.placements,
            output.digest
        );
    }
    Ok(())
}

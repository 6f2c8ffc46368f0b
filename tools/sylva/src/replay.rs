use std::path::PathBuf;

use anyhow::{Context, Result};
use serde::Serialize;
use sylva_scatter::Editor;

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
    let (session, terrain) = world::load_session(&args.session)?;
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

//! `sylva view`: the viewer window (the `sylva-viewer` library).

use anyhow::{Context, Result};
use sylva_viewer::ViewArgs;

pub fn run(args: &ViewArgs) -> Result<()> {
    let summary = sylva_viewer::run(args).context("running the viewer")?;
    if args.prints_summary() {
        println!("{}", serde_json::to_string_pretty(&summary)?);
    }
    Ok(())
}

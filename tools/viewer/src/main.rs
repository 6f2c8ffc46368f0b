//! `sylva-viewer`: paint presets onto terrain in a window (see `sylva-viewer --help`).

use std::process::ExitCode;

use anyhow::Context;
use clap::Parser;
use sylva_viewer::ViewArgs;

#[derive(Parser)]
#[command(
    name = "sylva-viewer",
    version,
    about = "Paint props onto terrain with presets; scripted runs print a JSON summary."
)]
struct Cli {
    #[command(flatten)]
    view: ViewArgs,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(&cli.view) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error:#}");
            ExitCode::FAILURE
        }
    }
}

fn run(args: &ViewArgs) -> anyhow::Result<()> {
    let summary = sylva_viewer::run(args).context("running the viewer")?;
    if args.prints_summary() {
        println!("{}", serde_json::to_string_pretty(&summary)?);
    }
    Ok(())
}

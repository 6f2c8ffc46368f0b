//! `sylva`: the command line of the sylva prop scatterer.

mod assets;
mod demo;
mod files;
mod paint;
mod presets;
mod replay;
mod view;
mod world;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "sylva",
    version,
    about = "Paint props onto terrain; bake and draw them."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Paint one dab of a preset and print the stroke report.
    Paint(paint::Args),
    /// Replay a session journal and print its placement count and digest.
    Replay(replay::Args),
    /// Paint a scripted session with every preset at its landmark.
    Demo(demo::Args),
    /// Open the viewer: paint presets in a window (scripted runs print a JSON summary).
    View(Box<sylva_viewer::ViewArgs>),
    /// Print the JSON Schema of the preset format.
    Schema {
        /// Write it to this file instead of standard output.
        #[arg(long)]
        out: Option<PathBuf>,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Paint(args) => paint::run(args),
        Command::Replay(args) => replay::run(args),
        Command::Demo(args) => demo::run(args),
        Command::View(args) => view::run(&args),
        Command::Schema { out } => schema(out),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error:#}");
            ExitCode::FAILURE
        }
    }
}

fn schema(out: Option<PathBuf>) -> anyhow::Result<()> {
    let text = serde_json::to_string_pretty(&sylva_scatter::preset_schema())? + "\n";
    match out {
        Some(path) => files::write_atomically(&path, text.as_bytes()),
        None => {
            print!("{text}");
            Ok(())
        }
    }
}

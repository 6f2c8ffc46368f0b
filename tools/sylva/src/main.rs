//! `sylva`: the command line of the sylva prop scatterer.

mod assets;
mod bake;
mod check;
mod demo;
mod export;
mod files;
mod fill;
mod fly;
mod folders;
mod impostor;
mod lod_args;
mod lods;
mod paint;
mod presets;
mod render;
mod replay;
mod show;
mod view;
mod watch;
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
    /// Fill a region (the whole terrain, a rectangle, a polygon) with a preset.
    Fill(fill::Args),
    /// Replay a session journal and print its placement count and digest.
    Replay(replay::Args),
    /// Fly a camera over a session headless, its streamed fills made around it, and
    /// print the frames' CPU cost and what was held.
    Fly(fly::Args),
    /// Bake, paint a scripted session with every preset at its landmark, render it.
    Demo(demo::Args),
    /// Draw a session offscreen to PNG and print the frame statistics.
    Render(render::Args),
    /// Draw one baked prop at each of its LOD levels side by side, to PNG.
    Lods(lods::Args),
    /// The impostors stored in the cache (views, cell size, bytes; `--out` writes the atlases).
    Impostor(impostor::Args),
    /// Write a session as one glTF binary (GPU instancing, LODs) or a placement list.
    Export(export::Args),
    /// Bake the props of the assets folder into LOD chains in the cache folder.
    Bake(bake::Args),
    /// Bake on every change to the assets folder.
    Watch(watch::Args),
    /// Exit 0 only if the cache is current and a fresh bake reproduces it exactly.
    Check(check::Args),
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
    die_quietly_when_the_reader_goes_away();
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Paint(args) => paint::run(args),
        Command::Fill(args) => fill::run(args),
        Command::Replay(args) => replay::run(args),
        Command::Fly(args) => fly::run(args),
        Command::Demo(args) => demo::run(args),
        Command::Render(args) => render::run(args),
        Command::Lods(args) => lods::run(args),
        Command::Impostor(args) => impostor::run(args),
        Command::Export(args) => export::run(args),
        Command::Bake(args) => bake::run(args),
        Command::Watch(args) => watch::run(args),
        Command::Check(args) => check::run(args),
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

/// `sylva bake | head -1`: when the reader of our output goes away, a Unix tool stops
/// quietly. Rust ignores SIGPIPE, so every later write would fail and `println!` would
/// panic instead; restoring the default disposition ends the process at that write.
/// Files are written atomically, so stopping at any point leaves old or new files.
fn die_quietly_when_the_reader_goes_away() {
    #[cfg(unix)]
    // SAFETY: sets one signal's disposition at start-up, before any other thread exists.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
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

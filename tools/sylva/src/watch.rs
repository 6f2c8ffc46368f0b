//! `sylva watch`: bake on every change to the assets folder until interrupted.

use std::sync::atomic::AtomicBool;
use std::time::Duration;

use anyhow::Result;
use sylva_bake::{watch, WatchOptions};

use crate::bake::{self, print_changes};
use crate::folders::{Folders, Shared};

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    folders: Folders,
    #[command(flatten)]
    shared: Shared,
    /// Bake this many milliseconds after the last change of a burst.
    #[arg(long, default_value_t = 200)]
    quiet_ms: u64,
}

pub fn run(args: Args) -> Result<()> {
    let options = WatchOptions {
        quiet: Duration::from_millis(args.quiet_ms),
        ..WatchOptions::default()
    };
    let never = AtomicBool::new(false);
    let remote = args.shared.remote.open()?;
    let lock = args.shared.lock_path(&args.folders.assets);
    let sharing = args.shared.remote.sharing(&remote, Some(&lock));
    let cache = args.folders.cache_dir();
    println!(
        "watching {} (Ctrl-C to stop)",
        args.folders.assets.display()
    );
    watch(
        &args.folders.assets,
        &cache,
        options,
        sharing,
        &never,
        |result| match result {
            Ok(report) => {
                for warning in &report.warnings {
                    println!("warning: {warning}");
                }
                let quiet = report.baked() == 0
                    && report.fetched() == 0
                    && report.removed_entries.is_empty()
                    && report.failed() == 0;
                if !quiet {
                    print_changes(report);
                    if let Err(e) = bake::fail_on_broken(report) {
                        println!("{e}");
                    }
                    println!(
                        "{} built, {} fetched, {} current, {} failed",
                        report.baked(),
                        report.fetched(),
                        report.current(),
                        report.failed()
                    );
                }
            }
            Err(e) => println!("error: {e} (watching on)"),
        },
    )?;
    Ok(())
}

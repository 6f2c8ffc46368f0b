//! `sylva watch`: bake on every change to the assets folder until interrupted.

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use anyhow::Result;
use sylva_bake::{watch, Sharing, WatchOptions};

use crate::bake::{self, print_changes};
use crate::folders::{lock_path, Folders, Remote};

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    folders: Folders,
    #[command(flatten)]
    remote: Remote,
    /// The lockfile each pass rewrites when it changes [default: sylva.lock beside the
    /// assets folder].
    #[arg(long, value_name = "FILE")]
    lock: Option<PathBuf>,
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
    let remote = args.remote.open()?;
    let lock = lock_path(&args.folders.assets, args.lock.as_deref());
    let sharing = Sharing {
        remote: remote.as_ref().map(|r| r as _),
        remote_write: args.remote.remote_write,
        lock: Some(&lock),
    };
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

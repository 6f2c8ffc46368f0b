//! `sylva check`: for CI, is the committed cache exactly what a fresh bake writes?

use std::path::PathBuf;

use anyhow::{bail, Result};
use sylva_bake::check_folder;
use sylva_cache::CacheDir;

#[derive(clap::Args)]
pub struct Args {
    #[arg(long, default_value = "assets")]
    assets: PathBuf,
    #[arg(long, default_value = "cache")]
    cache: PathBuf,
}

pub fn run(args: Args) -> Result<()> {
    let findings = check_folder(&args.assets, &CacheDir::new(&args.cache))?;
    if findings.is_empty() {
        println!(
            "{} is current: a fresh bake reproduces it byte for byte",
            args.cache.display()
        );
        return Ok(());
    }
    for finding in &findings {
        println!("{finding}");
    }
    bail!(
        "{} is not current ({} problems); run `sylva bake` and commit the cache",
        args.cache.display(),
        findings.len()
    )
}

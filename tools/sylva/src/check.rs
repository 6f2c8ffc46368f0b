//! `sylva check`: for CI, is the committed cache exactly what a fresh bake writes?

use anyhow::{bail, Result};
use sylva_bake::check_folder;

use crate::folders::Folders;

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    folders: Folders,
}

pub fn run(args: Args) -> Result<()> {
    let findings = check_folder(&args.folders.assets, &args.folders.cache_dir())?;
    if findings.is_empty() {
        println!(
            "{} is current: a fresh bake reproduces it byte for byte",
            args.folders.cache.display()
        );
        return Ok(());
    }
    for finding in &findings {
        println!("{finding}");
    }
    bail!(
        "{} is not current ({} problems); run `sylva bake` and commit the cache",
        args.folders.cache.display(),
        findings.len()
    )
}

//! `sylva check`: for CI and review, is the lockfile the bake of the assets folder?
//! Without a cache it hashes sources and settings; `--cache` and `--remote` also check
//! that a store holds every locked file; `--rebake` bakes afresh and compares.

use std::path::PathBuf;

use anyhow::{bail, Context, Result};
use serde_json::json;
use sylva_bake::{check_lock, LockCheck};
use sylva_cache::{CacheDir, Lockfile};

use crate::folders::lock_path;

#[derive(clap::Args)]
pub struct Args {
    /// The assets folder holding catalog.ron and the props.
    #[arg(long, default_value = "assets")]
    assets: PathBuf,
    /// The lockfile [default: sylva.lock beside the assets folder].
    #[arg(long, value_name = "FILE")]
    lock: Option<PathBuf>,
    /// Also check that this cache folder holds every locked file, byte for byte.
    #[arg(long, value_name = "DIR")]
    cache: Option<PathBuf>,
    /// Also check that this remote cache holds every locked file and key record
    /// (`http(s)://…` or `s3://…`; `$SYLVA_REMOTE_CACHE` is not read here).
    #[arg(long, value_name = "URL")]
    remote: Option<String>,
    /// Also bake every asset afresh in memory: each must write exactly the locked files.
    #[arg(long)]
    rebake: bool,
    /// Print the findings as JSON.
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args) -> Result<()> {
    let lock_file = lock_path(&args.assets, args.lock.as_deref());
    let text = std::fs::read_to_string(&lock_file)
        .with_context(|| format!("reading {} (`sylva bake` writes it)", lock_file.display()))?;
    let lock = Lockfile::parse(&text).with_context(|| lock_file.display().to_string())?;
    let cache = args.cache.as_ref().map(CacheDir::new);
    let remote = args.remote.as_deref().map(sylva_remote::open).transpose()?;
    let check = LockCheck {
        cache: cache.as_ref(),
        remote: remote.as_ref().map(|r| r as _),
        rebake: args.rebake,
    };
    let findings = check_lock(&args.assets, &lock, &check)?;
    if args.json {
        let listed: Vec<_> = findings
            .iter()
            .map(|f| json!({"kind": f.kind(), "path": f.path(), "message": f.to_string()}))
            .collect();
        let report = json!({
            "lock": lock_file,
            "assets": lock.assets.len(),
            "current": findings.is_empty(),
            "findings": listed,
        });
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        for finding in &findings {
            println!("{finding}");
        }
    }
    if findings.is_empty() {
        if !args.json {
            let mut checked = vec!["its sources and settings".to_owned()];
            checked.extend(
                args.cache
                    .iter()
                    .map(|c| format!("{} holds its files", c.display())),
            );
            checked.extend(
                remote
                    .iter()
                    .map(|r| format!("{} holds its files", sylva_cache::ObjectStore::describe(r))),
            );
            if args.rebake {
                checked.push("a fresh bake writes its files byte for byte".into());
            }
            println!(
                "{} is current ({} assets): {}",
                lock_file.display(),
                lock.assets.len(),
                checked.join("; ")
            );
        }
        return Ok(());
    }
    bail!(
        "{} is not current ({} findings); run `sylva bake` and commit sylva.lock",
        lock_file.display(),
        findings.len()
    )
}

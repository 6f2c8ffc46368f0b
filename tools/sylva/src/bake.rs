//! `sylva bake`: bring the cache up to date with the assets folder.

use std::io::{IsTerminal, Write};
use std::time::Instant;

use anyhow::{bail, Result};
use serde_json::{json, Value};
use sylva_bake::impostor_plan::PlanDecision;
use sylva_bake::{
    bake_folder, AssetOutcome, BakeOptions, Borders, ChainStats, FolderReport, ImpostorSummary,
    Shard, Status,
};

use crate::folders::{Folders, Shared};

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    folders: Folders,
    #[command(flatten)]
    shared: Shared,
    /// Bake only share I of N of the assets (1 ≤ I ≤ N, split by path), for a CI
    /// matrix: nothing is removed and the lockfile is not written.
    #[arg(long, value_name = "I/N")]
    shard: Option<Shard>,
    /// Print the report as JSON.
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args) -> Result<()> {
    let started = Instant::now();
    let progress = |done: usize, total: usize| {
        eprint!("\rbaking {done}/{total}");
        if done == total {
            eprint!("\r\x1b[K");
        }
        let _ = std::io::stderr().flush();
    };
    let remote = args.shared.remote.open()?;
    let lock = args.shared.lock_path(&args.folders.assets);
    let options = BakeOptions {
        progress: std::io::stderr().is_terminal().then_some(&progress as _),
        sharing: args.shared.remote.sharing(&remote, Some(&lock)),
        shard: args.shard,
        ..BakeOptions::default()
    };
    let report = bake_folder(&args.folders.assets, &args.folders.cache_dir(), &options)?;
    for warning in &report.warnings {
        eprintln!("warning: {warning}");
    }
    if args.json {
        println!("{}", serde_json::to_string_pretty(&to_json(&report))?);
    } else {
        print_report(&report);
        println!(
            "{} built, {} fetched, {} current, {} failed, {} uploaded, {} entries removed in {} ms{}",
            report.baked(),
            report.fetched(),
            report.current(),
            report.failed(),
            report.uploaded,
            report.removed_entries.len(),
            started.elapsed().as_millis(),
            match (args.shard, report.lock_written) {
                (Some(shard), _) => format!(" (shard {shard})"),
                (None, true) => format!("; {} written", lock.display()),
                (None, false) => String::new(),
            }
        );
    }
    fail_on_broken(&report)
}

/// A non-zero exit when any asset did not bake (the others still did).
pub fn fail_on_broken(report: &FolderReport) -> Result<()> {
    match report.failed() {
        0 => Ok(()),
        n => bail!("{n} of {} assets did not bake", report.assets.len()),
    }
}

/// Prints every asset's outcome.
pub fn print_report(report: &FolderReport) {
    print_outcomes(report, |_| true);
}

/// Prints what a pass changed or failed on, leaving out assets that were current.
pub fn print_changes(report: &FolderReport) {
    print_outcomes(report, |status| !matches!(status, Status::Current));
}

fn print_outcomes(report: &FolderReport, shown: impl Fn(&Status) -> bool) {
    for asset in report.assets.iter().filter(|a| shown(&a.status)) {
        print_asset(asset);
    }
    for path in &report.removed_assets {
        println!("removed  {path} (its source is gone)");
    }
    for (path, reason) in &report.refused {
        println!("refused  {path}'s remote copy: {reason}; baked instead");
    }
}

fn print_asset(asset: &AssetOutcome) {
    let label = match &asset.status {
        Status::Current => "current ",
        Status::Baked { .. } => "baked   ",
        Status::Fetched { .. } => "fetched ",
        Status::Failed { error, .. } => {
            println!("FAILED   {}: {error}", asset.path);
            return;
        }
        Status::StillFailing => {
            println!("FAILED   {}: unchanged since it last failed", asset.path);
            return;
        }
    };
    let Some(summary) = &asset.summary else {
        return;
    };
    let time = match &asset.status {
        Status::Baked { micros, .. } | Status::Fetched { micros, .. } => {
            format!(", {:.1} ms", *micros as f64 / 1000.0)
        }
        _ => String::new(),
    };
    println!(
        "{label} {}: {} parts, {} bytes ({} GPU), sphere r {:.3} m{time}",
        asset.path,
        summary.parts.len(),
        summary.bytes,
        summary.gpu.total,
        summary.sphere.radius
    );
    let stages = match &asset.status {
        Status::Baked { report, .. } => &report.parts[..],
        _ => &[],
    };
    for (i, part) in summary.parts.iter().enumerate() {
        let triangles: Vec<String> = part.triangles.iter().map(u32::to_string).collect();
        let errors: Vec<String> = part.error_m.iter().map(|e| format!("{e:.3}")).collect();
        println!(
            "           {:<16} {:>7} vertices, triangles per LOD {}, error per LOD {} m",
            part.name,
            part.vertices,
            triangles.join(" / "),
            errors.join(" / ")
        );
        if let Some(stats) = stages.get(i) {
            print_stages(stats);
        }
        let material = &part.material;
        let channels: Vec<&str> = material.textures.iter().map(|t| t.channel).collect();
        println!(
            "             material {:?}: {}, metallic {:.2}, roughness {:.2}{}, textures: {}",
            material.name,
            material.alpha,
            material.metallic,
            material.roughness,
            if material.emissive.iter().any(|&c| c > 0.0) {
                ", emissive"
            } else {
                ""
            },
            if channels.is_empty() {
                "none".to_owned()
            } else {
                channels.join(", ")
            }
        );
    }
    for texture in &summary.textures {
        println!(
            "           texture {}×{} {}, {} levels, {} bytes: {}",
            texture.width,
            texture.height,
            texture.format,
            texture.levels,
            texture.bytes,
            texture.file
        );
    }
    let impostor_time = match &asset.status {
        Status::Baked { report, .. } => {
            format!(" in {:.1} ms", report.impostor.micros as f64 / 1000.0)
        }
        _ => String::new(),
    };
    match &summary.impostor {
        ImpostorSummary::Baked {
            grid,
            cell_px,
            levels,
            bytes,
            error_m,
            texel_m,
        } => println!(
            "           impostor {grid}×{grid} views of {cell_px}² texels, {levels} levels, {bytes} bytes, error {error_m:.3} m ({:.2} texels){impostor_time}",
            error_m / texel_m
        ),
        ImpostorSummary::Refused { reason } => println!(
            "           impostor: none, the coarsest mesh is the last level ({reason}){impostor_time}"
        ),
    }
    if let Status::Baked {
        report, replaced, ..
    } = &asset.status
    {
        if let Some(plan) = &report.impostor.plan {
            let why = match &plan.decision {
                PlanDecision::Bake { why, .. } | PlanDecision::KeepMesh { why } => why,
            };
            println!("           impostor plan: {why}");
        }
        if let Some(reason) = replaced {
            println!("           replaced: {reason}");
        }
        for skipped in &report.import.skipped {
            println!("           skipped {}: {}", skipped.path, skipped.reason);
        }
        for dropped in &report.import.dropped_textures {
            println!(
                "           warning: {} left out: {}",
                dropped.path, dropped.reason
            );
        }
        if report.import.generated_tangents > 0 {
            println!(
                "           tangents generated (MikkTSpace) for {} normal-mapped parts",
                report.import.generated_tangents
            );
        }
        for ignored in &report.import.ignored_extensions {
            println!(
                "           warning: {}{} ignored: its {} are not imported",
                ignored.name,
                if ignored.required { " (required)" } else { "" },
                ignored.ignored
            );
        }
    }
}

/// What each stage did to a part, on one line.
fn print_stages(stats: &ChainStats) {
    let levels: Vec<String> = stats
        .levels
        .iter()
        .map(|l| {
            format!(
                "{:.2} of {:.2} (error {:.4} of {:.2}, {:.3} m, {})",
                l.achieved_ratio, l.target_ratio, l.error, l.max_error, l.error_m, l.stop
            )
        })
        .collect();
    println!(
        "             weld {}→{}, ACMR {:.2}→{:.2}, levels {}, overfetch {:.2}→{:.2}, packed ±{:.2} mm{}{}{}{}{}",
        stats.weld.vertices_in,
        stats.weld.vertices_out,
        stats.vertex_cache.acmr_before,
        stats.vertex_cache.acmr_after,
        levels.join(", "),
        stats.vertex_fetch.overfetch_before,
        stats.vertex_fetch.overfetch_after,
        stats.quantize.position_error_m * 1000.0,
        stats
            .quantize
            .share_of_level_error
            .map_or(String::new(), |share| format!(
                " ({:.1} % of the finest level's error)",
                share * 100.0
            )),
        stats
            .quantize
            .uv_error_texels
            .map_or(String::new(), |texels| format!(", UVs ±{texels:.3} texel")),
        match stats.lock_border {
            Borders::Locked => ", LockBorder",
            Borders::LockedUnlessStuck if stats.levels.iter().any(|l| l.borders_freed) => {
                ", LockBorder (freed where stuck)"
            }
            Borders::LockedUnlessStuck => ", LockBorder",
            Borders::Free => "",
        },
        if stats.generated_normals {
            ", normals computed"
        } else {
            ""
        },
        if stats.facets.faceted {
            format!(
                ", faceted (+{} face-normal vertices)",
                stats.facets.appended_vertices
            )
        } else {
            String::new()
        },
    );
}

fn to_json(report: &FolderReport) -> Value {
    let assets: Vec<Value> = report
        .assets
        .iter()
        .map(|a| {
            let mut value = json!({"path": a.path, "prop": a.prop_id, "summary": a.summary});
            match &a.status {
                Status::Current => value["status"] = json!("current"),
                Status::Baked {
                    report,
                    entry,
                    micros,
                    replaced,
                } => {
                    value["entry"] = json!(entry);
                    value["status"] = json!("baked");
                    value["micros"] = json!(micros);
                    value["replaced"] = json!(replaced);
                    value["stages"] = json!(report.parts);
                    let drawn = report.impostor.stats.as_ref();
                    value["impostor"] = json!({
                        "micros": report.impostor.micros,
                        "plan": report.impostor.plan,
                        "triangles": drawn.map(|s| s.triangles),
                        "covered_texels": drawn.map(|s| s.covered_texels),
                        "error_m": drawn.map(|s| s.straying.error_m),
                        "straying": drawn.map(|s| json!({
                            "texel_m": s.straying.texel_m,
                            "mean_m": s.straying.mean_m,
                            "median_m": s.straying.median_m,
                            "p90_m": s.straying.p90_m,
                            "max_m": s.straying.max_m,
                            "views": s.straying.views,
                            "both": s.straying.both,
                            "mesh_only": s.straying.mesh_only,
                            "impostor_only": s.straying.impostor_only,
                        })),
                    });
                    value["import"] = json!({
                        "primitives": report.import.primitives,
                        "converted_to_lists": report.import.converted_to_lists,
                        "generated_normals": report.import.generated_normals,
                        "generated_tangents": report.import.generated_tangents,
                        "skipped": report.import.skipped.iter()
                            .map(|s| json!({"path": s.path, "reason": s.reason}))
                            .collect::<Vec<_>>(),
                        "dropped_textures": report.import.dropped_textures.iter()
                            .map(|s| json!({"path": s.path, "reason": s.reason}))
                            .collect::<Vec<_>>(),
                        "ignored_extensions": report.import.ignored_extensions.iter()
                            .map(|i| json!({"name": i.name, "ignored": i.ignored, "required": i.required}))
                            .collect::<Vec<_>>(),
                    });
                }
                Status::Fetched { entry, micros } => {
                    value["entry"] = json!(entry);
                    value["status"] = json!("fetched");
                    value["micros"] = json!(micros);
                }
                Status::Failed { error, .. } => {
                    value["status"] = json!("failed");
                    value["error"] = json!(error.to_string());
                }
                Status::StillFailing => value["status"] = json!("still failing"),
            }
            value
        })
        .collect();
    json!({
        "assets": assets,
        "built": report.baked(),
        "fetched": report.fetched(),
        "uploaded": report.uploaded,
        "current": report.current(),
        "failed": report.failed(),
        "removed_entries": report.removed_entries,
        "removed_assets": report.removed_assets,
        "refused": report.refused.iter()
            .map(|(path, reason)| json!({"path": path, "reason": reason}))
            .collect::<Vec<_>>(),
        "warnings": report.warnings,
        "lock_written": report.lock_written,
    })
}

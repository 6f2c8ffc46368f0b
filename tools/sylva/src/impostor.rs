//! `sylva impostor`: bakes the impostor of baked props from the cache (their level 0
//! and textures, as the cache holds them) and reports time and bytes; with `--out`, the
//! albedo atlas (over grey, so coverage shows) and the normal atlas side by side in one
//! PNG, at `--level`. Nothing is written to the cache: impostors are not part of its entries yet.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::{bail, Context, Result};
use serde::Serialize;
use sylva_cache::PropView;
use sylva_impostor::{bake_impostor, Impostor, ImpostorSettings, PartSource, TextureSource};
use sylva_mesh::Vertex;
use sylva_render::RgbaImage;

use crate::folders::Folders;
use crate::show;

#[derive(clap::Args)]
pub struct Args {
    /// The prop (`<category>/<file stem>`); every prop in the cache when left out.
    #[arg(long)]
    prop: Option<String>,
    /// PNG of the prop's atlases: albedo over grey, then normals.
    #[arg(long, requires = "prop")]
    out: Option<PathBuf>,
    /// The mip level `--out` shows (0 is the largest).
    #[arg(long, default_value_t = 0, requires = "out")]
    level: usize,
    /// Views per side of the hemi-octahedral grid.
    #[arg(long, default_value_t = ImpostorSettings::default().grid)]
    grid: u32,
    /// Texels per side of every view at level 0 (by default sized to the prop: 4 texels
    /// per metre of its bounding sphere's diameter, 8 to 64).
    #[arg(long)]
    cell_px: Option<u32>,
    #[command(flatten)]
    folders: Folders,
    /// Print one JSON object per prop.
    #[arg(long)]
    json: bool,
}

#[derive(Serialize)]
pub struct PropImpostor {
    pub prop: String,
    /// Wall-clock time of the bake alone (reading the cache excluded).
    pub bake_ms: f64,
    /// Why there is none, when refused.
    pub refused: Option<String>,
    pub views: u32,
    /// Texels per side of a view at level 0.
    pub cell_px: u32,
    pub triangles: u64,
    pub bytes: usize,
    pub covered_texels: u64,
    pub radius_m: f32,
}

pub fn run(args: Args) -> Result<()> {
    let sized = ImpostorSettings::default();
    let settings = ImpostorSettings {
        grid: args.grid,
        cell_px: args.cell_px.unwrap_or(sized.cell_px),
        texels_per_m: sized.texels_per_m.filter(|_| args.cell_px.is_none()),
        ..sized
    };
    let cache = args.folders.cache_dir();
    let manifest = cache.read_manifest()?;
    let props: Vec<String> = match &args.prop {
        Some(prop) => vec![prop.clone()],
        None => manifest.assets.values().map(|e| e.prop.clone()).collect(),
    };
    for prop in props {
        let (_, listed) = manifest.prop(&prop).with_context(|| {
            format!(
                "no prop `{prop}` in {} (props are `<category>/<file stem>`; `sylva bake` bakes them)",
                cache.root().display()
            )
        })?;
        let files = cache.read_prop(&listed.entry)?;
        let view = files
            .parse()
            .with_context(|| format!("cache entry {}", listed.entry))?;
        let (report, impostor) = bake_prop(&prop, &view, &settings)?;
        if let (Some(out), Some(impostor)) = (&args.out, &impostor) {
            if args.level >= impostor.albedo.len() {
                bail!(
                    "{prop}'s atlases have {} levels; --level {} is not one",
                    impostor.albedo.len(),
                    args.level
                );
            }
            show::write_png(out, &atlas_picture(impostor, args.level).to_png()?)?;
        } else if args.out.is_some() {
            bail!(
                "{prop}: {}",
                report.refused.as_deref().unwrap_or("no impostor")
            );
        }
        print(&report, args.json)?;
    }
    Ok(())
}

/// Bakes one prop's impostor; a refusal is a report, not an error.
fn bake_prop(
    prop: &str,
    view: &PropView,
    settings: &ImpostorSettings,
) -> Result<(PropImpostor, Option<Impostor>)> {
    let finest: Vec<(Vec<Vertex>, Vec<u32>)> = view
        .entry
        .parts
        .iter()
        .map(|part| {
            let indices = part.levels.first().map(|l| l.indices().collect());
            (part.vertices().collect(), indices.unwrap_or_default())
        })
        .collect();
    let parts: Vec<PartSource> = view
        .entry
        .parts
        .iter()
        .zip(&finest)
        .map(|(part, (vertices, indices))| PartSource {
            vertices,
            indices,
            material: &part.material,
        })
        .collect();
    // The baker samples RGBA8: block-compressed blobs are decoded first.
    let decoded: Vec<Vec<u8>> = view.textures.iter().map(|t| t.decode_level(0)).collect();
    let textures: Vec<TextureSource> = view
        .textures
        .iter()
        .zip(&decoded)
        .map(|(t, rgba8)| TextureSource {
            width: t.width,
            height: t.height,
            rgba8,
        })
        .collect();
    let start = Instant::now();
    let baked = bake_impostor(&parts, &textures, settings);
    let bake_ms = start.elapsed().as_secs_f64() * 1e3;
    let mut report = PropImpostor {
        prop: prop.to_owned(),
        bake_ms,
        refused: None,
        views: 0,
        cell_px: 0,
        triangles: 0,
        bytes: 0,
        covered_texels: 0,
        radius_m: 0.0,
    };
    match baked {
        Ok((impostor, stats)) => {
            report.views = stats.views;
            report.cell_px = impostor.cell_px;
            report.triangles = stats.triangles;
            report.bytes = stats.bytes;
            report.covered_texels = stats.covered_texels;
            report.radius_m = impostor.bounds.radius;
            Ok((report, Some(impostor)))
        }
        Err(refusal) if refusal.is_refusal() => {
            report.refused = Some(refusal.to_string());
            Ok((report, None))
        }
        Err(error) => Err(error).with_context(|| format!("baking the impostor of {prop}")),
    }
}

fn print(report: &PropImpostor, json: bool) -> Result<()> {
    if json {
        println!("{}", serde_json::to_string(report)?);
    } else if let Some(reason) = &report.refused {
        println!("{}: {reason} ({:.1} ms)", report.prop, report.bake_ms);
    } else {
        println!(
            "{}: {} triangles × {} views of {}² in {:.1} ms, {} bytes ({:.2} MB), {} texels covered, radius {:.2} m",
            report.prop,
            report.triangles,
            report.views,
            report.cell_px,
            report.bake_ms,
            report.bytes,
            report.bytes as f64 / 1e6,
            report.covered_texels,
            report.radius_m
        );
    }
    Ok(())
}

/// One level of both atlases side by side: albedo composited over mid grey, then the
/// normal atlas's RGB (its alpha is depth, not coverage).
fn atlas_picture(impostor: &Impostor, level: usize) -> RgbaImage {
    let side = impostor.atlas_px(level);
    let mut pixels = Vec::with_capacity((side * side * 8) as usize);
    let (albedo, normal) = (&impostor.albedo[level], &impostor.normal[level]);
    for y in 0..side {
        let row = (y * side * 4) as usize..((y + 1) * side * 4) as usize;
        for texel in albedo[row.clone()].chunks_exact(4) {
            let a = u32::from(texel[3]);
            let over_grey = |c: u8| ((u32::from(c) * a + 96 * (255 - a) + 127) / 255) as u8;
            pixels.extend([
                over_grey(texel[0]),
                over_grey(texel[1]),
                over_grey(texel[2]),
                255,
            ]);
        }
        for texel in normal[row].chunks_exact(4) {
            pixels.extend([texel[0], texel[1], texel[2], 255]);
        }
    }
    RgbaImage {
        width: side * 2,
        height: side,
        pixels,
    }
}

//! `sylva impostor`: the impostors `sylva bake` stored in the cache, per prop: views,
//! cell size, levels and bytes, or why the prop has none; with `--out`, the albedo
//! atlas (over grey, so coverage shows) and the normal atlas side by side in one PNG,
//! at `--level`, decoded from their blobs as an adapter without BC would.

use std::path::PathBuf;

use anyhow::{bail, Context, Result};
use serde::Serialize;
use sylva_cache::{ImpostorView, PropView, TextureView};
use sylva_impostor::decode_normal_texel;
use sylva_impostor::octahedral::ViewBasis;
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
    #[command(flatten)]
    folders: Folders,
    /// Print one JSON object per prop.
    #[arg(long)]
    json: bool,
}

#[derive(Serialize)]
pub struct PropImpostor {
    pub prop: String,
    /// Why there is none, when refused.
    pub refused: Option<String>,
    /// Views per side of the grid.
    pub grid: u32,
    /// Texels per side of a view at level 0.
    pub cell_px: u32,
    /// Mip levels of each atlas.
    pub levels: usize,
    /// How each atlas stores its texels.
    pub albedo_format: Option<String>,
    pub normal_format: Option<String>,
    pub depth_format: Option<String>,
    /// The atlases' stored texels, every level.
    pub bytes: usize,
    pub radius_m: f32,
    /// How far the impostor strays from the mesh, metres (measured by the bake).
    pub error_m: f32,
}

pub fn run(args: Args) -> Result<()> {
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
        let report = describe(&prop, &view);
        if let Some(out) = &args.out {
            let Some(impostor) = view.entry.impostor() else {
                bail!(
                    "{prop}: {}",
                    report.refused.as_deref().unwrap_or("no impostor")
                );
            };
            if args.level >= report.levels {
                bail!(
                    "{prop}'s atlases have {} levels; --level {} is not one",
                    report.levels,
                    args.level
                );
            }
            let picture = atlas_picture(&view, &impostor, args.level);
            show::write_png(out, &picture.to_png()?)?;
        }
        print(&report, args.json)?;
    }
    Ok(())
}

/// What the entry of `prop` holds of its impostor.
fn describe(prop: &str, view: &PropView) -> PropImpostor {
    let mut report = PropImpostor {
        prop: prop.to_owned(),
        refused: view.entry.impostor_refusal().map(str::to_owned),
        grid: 0,
        cell_px: 0,
        levels: 0,
        albedo_format: None,
        normal_format: None,
        depth_format: None,
        bytes: 0,
        radius_m: 0.0,
        error_m: 0.0,
    };
    if let Some(impostor) = view.entry.impostor() {
        let (albedo, normal) = atlases(view, &impostor);
        let depth = &view.textures[impostor.depth as usize];
        report.grid = impostor.grid;
        report.cell_px = impostor.cell_px;
        report.levels = albedo.levels.len();
        report.albedo_format = Some(format!("{:?}", albedo.format));
        report.normal_format = Some(format!("{:?}", normal.format));
        report.depth_format = Some(format!("{:?}", depth.format));
        report.bytes = [albedo, normal, depth]
            .iter()
            .flat_map(|t| &t.levels)
            .map(|l| l.len())
            .sum();
        report.radius_m = impostor.sphere.radius;
        report.error_m = impostor.error_m;
    }
    report
}

fn atlases<'v, 'a>(
    view: &'v PropView<'a>,
    impostor: &ImpostorView,
) -> (&'v TextureView<'a>, &'v TextureView<'a>) {
    (
        &view.textures[impostor.albedo as usize],
        &view.textures[impostor.normal as usize],
    )
}

fn print(report: &PropImpostor, json: bool) -> Result<()> {
    if json {
        println!("{}", serde_json::to_string(report)?);
    } else if let Some(reason) = &report.refused {
        println!("{}: {reason}", report.prop);
    } else {
        println!(
            "{}: {}×{} views of {}², {} levels ({} / {} / {}), {} bytes ({:.2} MB), radius {:.2} m, error {:.3} m",
            report.prop,
            report.grid,
            report.grid,
            report.cell_px,
            report.levels,
            report.albedo_format.as_deref().unwrap_or_default(),
            report.normal_format.as_deref().unwrap_or_default(),
            report.depth_format.as_deref().unwrap_or_default(),
            report.bytes,
            report.bytes as f64 / 1e6,
            report.radius_m,
            report.error_m
        );
    }
    Ok(())
}

/// One level of both atlases side by side: albedo composited over mid grey, then the
/// normal atlas's normals in prop space as `n × ½ + ½` (each texel decoded through its
/// view's basis as the runtime does; its depths are not shown) where the albedo atlas
/// has coverage, mid grey where it has none.
fn atlas_picture(view: &PropView, impostor: &ImpostorView, level: usize) -> RgbaImage {
    let (albedo, normal) = atlases(view, impostor);
    let (side, _) = albedo.level_size(level);
    let cell = (side / impostor.grid).max(1);
    let (albedo, normal) = (albedo.decode_level(level), normal.decode_level(level));
    let mut pixels = Vec::with_capacity((side * side * 8) as usize);
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
        let coverage = albedo[row.clone()].chunks_exact(4).map(|t| t[3]);
        for (x, (texel, coverage)) in normal[row].chunks_exact(4).zip(coverage).enumerate() {
            if coverage == 0 {
                pixels.extend([128, 128, 128, 255]);
                continue;
            }
            let basis = ViewBasis::of_cell(x as u32 / cell, y / cell, impostor.grid);
            let texel = [texel[0], texel[1], texel[2], texel[3]];
            let n = decode_normal_texel(texel, &basis).normal;
            let byte = |c: f32| ((c * 0.5 + 0.5).clamp(0.0, 1.0) * 255.0 + 0.5) as u8;
            pixels.extend([byte(n[0]), byte(n[1]), byte(n[2]), 255]);
        }
    }
    RgbaImage {
        width: side * 2,
        height: side,
        pixels,
    }
}

//! `sylva fill`: fill a region of a new or saved session with a preset and print the
//! stroke-style report.

use std::io::{IsTerminal, Write};
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{bail, Context, Result};
use serde::Serialize;
use sylva_scatter::{
    check_cap, preset_hash, Area, Editor, FillOrder, FillRegion, FillRequest, Session,
    StrokeReport, TerrainSource, DEFAULT_PLACEMENT_CAP,
};
use sylva_terrain::HeightmapScale;

use crate::folders::EditOutput;
use crate::{assets, files, presets, world};

#[derive(clap::Args)]
pub struct Args {
    /// Preset file (RON or JSON).
    #[arg(long)]
    preset: PathBuf,
    /// `whole`, `rect:X0,Z0,X1,Z1` or `polygon:X,Z;X,Z;…` (world metres).
    #[arg(long, default_value = "whole", allow_hyphen_values = true)]
    region: String,
    /// Candidates per square metre (default: the preset's brush density).
    #[arg(long)]
    density: Option<f32>,
    /// Re-run this earlier fill of the session (0 is its first) over the region.
    #[arg(long)]
    replaces: Option<usize>,
    /// Record the fill without making it: a streamed session makes its tiles around the
    /// camera; `sylva replay` (and everything that stores placements) makes it whole.
    #[arg(long, conflicts_with = "replaces")]
    stream: bool,
    /// Continue this session journal (its terrain, seed and cap); else a new session on
    /// the default world.
    #[arg(long)]
    session: Option<PathBuf>,
    /// Paint a new session on this 16-bit (or 8-bit) greyscale PNG instead of the
    /// default world.
    #[arg(long, conflicts_with = "session")]
    heightmap: Option<PathBuf>,
    /// Metres between heightmap samples.
    #[arg(long, default_value_t = 2.0)]
    spacing: f32,
    /// Metres from the heightmap's darkest to its brightest value.
    #[arg(long, default_value_t = 100.0)]
    vertical_scale: f32,
    /// Height of the heightmap's darkest value, in metres.
    #[arg(long, default_value_t = 0.0, allow_hyphen_values = true)]
    base_height: f32,
    /// Water level of the heightmap terrain, in metres.
    #[arg(long, default_value_t = 0.0, allow_hyphen_values = true)]
    water_level: f32,
    /// Seed of a new session.
    #[arg(long, default_value_t = 1)]
    seed: u32,
    /// Most placements a new session holds.
    #[arg(long)]
    cap: Option<usize>,
    #[command(flatten)]
    output: EditOutput,
}

#[derive(Serialize)]
struct Output<'a> {
    preset: &'a str,
    region: &'a str,
    density_per_m2: f32,
    /// Placements of the re-run fill that made way.
    replaced: usize,
    placements: usize,
    digest: String,
    #[serde(flatten)]
    report: StrokeReport,
}

pub fn run(args: Args) -> Result<()> {
    let preset = presets::load(&args.preset)?;
    let region = parse_region(&args.region)?;
    let (session, terrain) = match &args.session {
        Some(path) => {
            let (session, terrain) = world::load_session(path)?;
            if let Some(cap) = args.cap.filter(|&cap| cap != session.placement_cap) {
                bail!(
                    "--cap {cap}: {} keeps the cap it was painted with ({}), or its replay \
                     would change",
                    path.display(),
                    session.placement_cap
                );
            }
            (session, terrain)
        }
        None => {
            let cap = args.cap.unwrap_or(DEFAULT_PLACEMENT_CAP);
            check_cap(cap)?;
            let source = match &args.heightmap {
                // Absolute, so the saved journal finds it wherever it is written.
                Some(path) => TerrainSource::Heightmap {
                    file: std::path::absolute(path)?.to_string_lossy().into_owned(),
                    scale: HeightmapScale {
                        spacing: args.spacing,
                        vertical_scale: args.vertical_scale,
                        base_height: args.base_height,
                        water_level: args.water_level,
                    },
                },
                None => TerrainSource::DefaultWorld,
            };
            let terrain = world::load(&source, Path::new("."))?;
            let session = Session::new(
                args.seed,
                cap,
                source,
                assets::snapshot(&args.output.assets)?,
            );
            (session, terrain)
        }
    };
    assets::resolve(&session.catalog)?;
    let (mut editor, _) = Editor::replay(&session, &terrain).context("replaying the session")?;
    let name = editor.use_preset(&presets::name_of(&args.preset), preset.clone())?;
    let request = FillRequest {
        preset: name,
        region,
        density: args.density,
        order: FillOrder::Tiles,
        stream: args.stream,
        replaces: args.replaces,
    };
    if args.stream {
        return record_streamed(&args, &mut editor, &terrain, &request, &preset.name);
    }
    let density = editor.fill_job(&request)?.density();
    let started = Instant::now();
    let mut bar = |done: usize, total: usize| {
        eprint!(
            "\rfilling {:>3}% ({done}/{total} tiles)",
            done * 100 / total.max(1)
        );
        if done == total {
            eprint!("\r\x1b[K");
        }
        let _ = std::io::stderr().flush();
        ControlFlow::Continue(())
    };
    let mut quiet = |_: usize, _: usize| ControlFlow::Continue(());
    let progress: &mut dyn FnMut(usize, usize) -> ControlFlow<()> =
        if std::io::stderr().is_terminal() {
            &mut bar
        } else {
            &mut quiet
        };
    let applied = editor.fill(&terrain, &request, progress)?;
    let mut report = applied.report.unwrap_or_default();
    // The whole fill, planning included, as the user waited for it.
    report.micros = started.elapsed().as_micros() as u64;
    if let Some(path) = &args.output.save {
        files::write_atomically(path, editor.session().to_ron().as_bytes())?;
    }
    let output = Output {
        preset: &preset.name,
        region: &args.region,
        density_per_m2: density,
        replaced: applied.edit.removed.len(),
        placements: editor.painter().len(),
        digest: editor.painter().digest(),
        report,
    };
    if args.output.json {
        println!("{}", serde_json::to_string(&output)?);
    } else {
        let replaced = match output.replaced {
            0 => String::new(),
            n => format!(", replacing {n}"),
        };
        println!(
            "{} over {} at {density} per m²{replaced}: {report}",
            preset.name, args.region
        );
        println!("{} placements, digest {}", output.placements, output.digest);
    }
    Ok(())
}

#[derive(Serialize)]
struct StreamedOutput<'a> {
    preset: &'a str,
    region: &'a str,
    density_per_m2: f32,
    stream: bool,
    /// The side of the square tiles it is made in, metres.
    tile_m: f32,
    /// Candidates it would draw made whole: density × the area of the cells it covers.
    candidates: f64,
    preset_hash: String,
}

/// `fill --stream`: journals the fill and says what it covers.
fn record_streamed(
    args: &Args,
    editor: &mut Editor,
    terrain: &sylva_terrain::Terrain,
    request: &FillRequest,
    preset_name: &str,
) -> Result<()> {
    let job = editor.record_streamed_fill(terrain, request)?;
    if let Some(path) = &args.output.save {
        files::write_atomically(path, editor.session().to_ron().as_bytes())?;
    }
    let (min, max) = Area::new(&request.region, terrain)?.bounds();
    let output = StreamedOutput {
        preset: preset_name,
        region: &args.region,
        density_per_m2: job.density(),
        stream: true,
        tile_m: job.tiles(terrain).side_cells as f32 * terrain.spacing(),
        candidates: f64::from(job.density()) * f64::from((max.x - min.x) * (max.y - min.y)),
        preset_hash: preset_hash(job.preset()),
    };
    if args.output.json {
        println!("{}", serde_json::to_string(&output)?);
    } else {
        println!(
            "{preset_name} over {} at {} per m², streamed in {} m tiles: about {:.0} \
             candidates, made around the camera (replay makes them all)",
            args.region, output.density_per_m2, output.tile_m, output.candidates
        );
    }
    Ok(())
}

/// `whole`, `rect:X0,Z0,X1,Z1` or `polygon:X,Z;X,Z;…`.
pub fn parse_region(text: &str) -> Result<FillRegion> {
    let numbers = |list: &str| -> Result<Vec<f32>> {
        list.split(',')
            .map(|n| {
                n.trim()
                    .parse::<f32>()
                    .ok()
                    .filter(|v| v.is_finite())
                    .with_context(|| format!("`{n}` in `{text}` is not a finite number"))
            })
            .collect()
    };
    if text == "whole" {
        return Ok(FillRegion::Whole);
    }
    if let Some(rest) = text.strip_prefix("rect:") {
        let [x0, z0, x1, z1] = numbers(rest)?[..] else {
            bail!("`{text}`: a rectangle is rect:X0,Z0,X1,Z1");
        };
        let (x0, x1) = (x0.min(x1), x0.max(x1));
        let (z0, z1) = (z0.min(z1), z0.max(z1));
        return Ok(FillRegion::Polygon(vec![
            (x0, z0),
            (x1, z0),
            (x1, z1),
            (x0, z1),
        ]));
    }
    if let Some(rest) = text.strip_prefix("polygon:") {
        let points = rest
            .split(';')
            .map(|point| match numbers(point)?[..] {
                [x, z] => Ok((x, z)),
                _ => bail!("`{point}` in `{text}` is not X,Z"),
            })
            .collect::<Result<Vec<_>>>()?;
        return Ok(FillRegion::Polygon(points));
    }
    bail!("`{text}` is not whole, rect:X0,Z0,X1,Z1 or polygon:X,Z;X,Z;…")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regions_are_whole_rectangles_or_polygons() {
        assert_eq!(parse_region("whole").unwrap(), FillRegion::Whole);
        assert_eq!(
            parse_region("rect:10,-5,-10,5").unwrap(),
            FillRegion::Polygon(vec![(-10.0, -5.0), (10.0, -5.0), (10.0, 5.0), (-10.0, 5.0)])
        );
        assert_eq!(
            parse_region("polygon:0,0; 10,0; 5,8").unwrap(),
            FillRegion::Polygon(vec![(0.0, 0.0), (10.0, 0.0), (5.0, 8.0)])
        );
        for bad in [
            "",
            "rect:1,2,3",
            "polygon:1,2;3",
            "rect:a,b,c,d",
            "circle:1",
        ] {
            assert!(parse_region(bad).is_err(), "{bad}");
        }
    }
}

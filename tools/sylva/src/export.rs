//! `sylva export`: a session's placements and the baked props they use as one glTF 2.0
//! binary (instanced per terrain cell, LODs linked), or as a plain placement list.
//! Streamed fills are made tile by tile over the whole terrain, in memory proportional
//! to a square of tiles: a list is written as they come; a binary counts them in a
//! first walk (which sizes its instancing nodes) and writes each tile's instance data
//! where its nodes' accessors say in a second.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Instant;

use anyhow::{bail, Context, Result};
use serde::Serialize;
use sylva_cache::CacheDir;
use sylva_export::{ExportOptions, GlbWriter, ListFormat, PlacementList, DEFAULT_CELL_SIZE};
use sylva_lod::LodConfig;
use sylva_scatter::Placement;
use sylva_world::World;

use crate::world;

#[derive(clap::Args)]
pub struct Args {
    /// Session journal to export.
    session: PathBuf,
    /// File to write: the .glb, or the placement list with --placements.
    #[arg(long)]
    out: PathBuf,
    /// Write the plain placement list (prop id, position, rotation quaternion, scale,
    /// in glTF's frame) in this format instead of the .glb.
    #[arg(long, value_enum)]
    placements: Option<ListArg>,
    /// Add the terrain as a mesh with its biome vertex colours.
    #[arg(long)]
    terrain: bool,
    /// Side in metres of the terrain cells instancing nodes are split by.
    #[arg(long, default_value_t = DEFAULT_CELL_SIZE)]
    cell_size: f32,
    /// The bake cache the props are read from (as baked; `sylva bake` updates it).
    #[arg(long, default_value = "cache")]
    cache: PathBuf,
    /// Print the result as JSON.
    #[arg(long)]
    json: bool,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum ListArg {
    Json,
    Csv,
}

#[derive(Serialize)]
struct Output {
    out: String,
    /// `glb`, `json` or `csv`.
    format: &'static str,
    placements: usize,
    props: usize,
    instancing_nodes: usize,
    bytes: u64,
    export_ms: f64,
    /// Props whose placements were not exported, with the reason and their count.
    left_out: Vec<LeftOut>,
}

#[derive(Serialize)]
struct LeftOut {
    prop: String,
    placements: usize,
    reason: String,
}

pub fn run(args: Args) -> Result<()> {
    let (session, terrain) = world::load_session(&args.session)?;
    let (world, _) = World::replay_streamed(terrain, &session, &LodConfig::default())
        .with_context(|| format!("replaying {}", args.session.display()))?;
    let started = Instant::now();
    let output = match args.placements {
        Some(format) => {
            let (format, name) = match format {
                ListArg::Json => (ListFormat::Json, "json"),
                ListArg::Csv => (ListFormat::Csv, "csv"),
            };
            let (count, bytes) = write(&args.out, |w| {
                let mut list = PlacementList::begin(w, format)?;
                for placement in world.editor().painter().placements() {
                    list.write(placement)?;
                }
                for_each_streamed_tile(&world, |placements| {
                    placements.iter().try_for_each(|p| list.write(p))?;
                    Ok(())
                })?;
                Ok(list.finish()?)
            })?;
            Output {
                out: args.out.display().to_string(),
                format: name,
                placements: count,
                props: 0,
                instancing_nodes: 0,
                bytes,
                export_ms: started.elapsed().as_secs_f64() * 1000.0,
                left_out: Vec::new(),
            }
        }
        None => export_glb(&args, &world, started)?,
    };
    if args.json {
        println!("{}", serde_json::to_string(&output)?);
    } else {
        print(&output);
    }
    if !output.left_out.is_empty() {
        let count: usize = output.left_out.iter().map(|l| l.placements).sum();
        bail!(
            "{count} placements of {} props were left out (listed above); the rest is in {}",
            output.left_out.len(),
            output.out
        );
    }
    Ok(())
}

/// Hands every tile of the session's streamed fills to `each`, one at a time.
fn for_each_streamed_tile(
    world: &World,
    mut each: impl FnMut(&[Placement]) -> Result<()>,
) -> Result<()> {
    for fill in 0..world.streamed_fills() {
        for tile in world.walk_streamed_fill(fill).into_iter().flatten() {
            let (_, placements) = tile.context("making a streamed fill's tile")?;
            each(&placements)?;
        }
    }
    Ok(())
}

/// The `.glb` of `world`: its stored placements and its streamed fills' tiles, walked
/// twice (counted, then written).
fn export_glb(args: &Args, world: &World, started: Instant) -> Result<Output> {
    let stored: Vec<&Placement> = world.editor().painter().placements().collect();
    let mesh = args.terrain.then(|| world.terrain().mesh());
    let options = ExportOptions {
        cell_size: args.cell_size,
        terrain: mesh.as_ref(),
    };
    let mut glb = GlbWriter::new(options)?;
    glb.count(stored.iter().copied());
    for_each_streamed_tile(world, |placements| {
        glb.count(placements);
        Ok(())
    })?;
    let cache = CacheDir::new(&args.cache);
    let manifest = cache.read_manifest()?;
    let mut reasons = BTreeMap::new();
    let mut files = BTreeMap::new();
    for id in glb.placed_props() {
        if files.contains_key(id) || reasons.contains_key(id) {
            continue;
        }
        match manifest.prop(id) {
            None => {
                reasons.insert(id.to_owned(), "not in the cache".to_owned());
            }
            Some((_, entry)) => match cache.read_prop(&entry.entry) {
                Ok(prop_files) => {
                    files.insert(id.to_owned(), prop_files);
                }
                Err(e) => {
                    reasons.insert(id.to_owned(), e.to_string());
                }
            },
        }
    }
    let mut props = BTreeMap::new();
    for (id, prop_files) in &files {
        match prop_files.parse() {
            Ok(prop) => {
                props.insert(id.as_str(), prop);
            }
            Err(e) => {
                reasons.insert(id.clone(), format!("entry refused: {e}"));
            }
        }
    }
    let (report, _) = write(&args.out, |w| {
        let mut instances = glb.write_head(w, &props)?;
        instances.write_instances(w, &stored)?;
        for_each_streamed_tile(world, |placements| {
            let batch: Vec<&Placement> = placements.iter().collect();
            Ok(instances.write_instances(w, &batch)?)
        })?;
        Ok(instances.finish()?)
    })?;
    let left_out = report
        .left_out
        .iter()
        .map(|(prop, &count)| LeftOut {
            prop: prop.clone(),
            placements: count,
            reason: reasons
                .get(prop)
                .cloned()
                .unwrap_or_else(|| "no triangles".to_owned()),
        })
        .collect();
    Ok(Output {
        out: args.out.display().to_string(),
        format: "glb",
        placements: report.placements,
        props: report.props,
        instancing_nodes: report.instancing_nodes,
        bytes: report.bytes,
        export_ms: started.elapsed().as_secs_f64() * 1000.0,
        left_out,
    })
}

/// Streams into `path` atomically and returns what `fill` returned and the file's size.
fn write<T>(
    path: &std::path::Path,
    fill: impl FnOnce(&mut std::io::BufWriter<std::fs::File>) -> Result<T>,
) -> Result<(T, u64)> {
    let value = sylva_cache::store::write_atomically_with(path, fill)
        .with_context(|| format!("writing {}", path.display()))?;
    let bytes = std::fs::metadata(path)?.len();
    Ok((value, bytes))
}

fn print(o: &Output) {
    if o.format != "glb" {
        let (out, n, bytes, ms) = (&o.out, o.placements, o.bytes, o.export_ms);
        println!(
            "{out}: {n} placements as a {} list, {bytes} bytes in {ms:.0} ms",
            o.format
        );
        return;
    }
    println!(
        "{}: {} placements of {} props in {} instancing nodes, {} bytes in {:.0} ms",
        o.out, o.placements, o.props, o.instancing_nodes, o.bytes, o.export_ms
    );
    for l in &o.left_out {
        println!(
            "  left out: {} ({} placements): {}",
            l.prop, l.placements, l.reason
        );
    }
}

//! The demo: bake the bundled props (if the cache is not current), fill the default
//! world's biomes with the shipped presets (forest on the meadows and foothills, a
//! meadow in a clearing erased from it, scree on the cliff, pebbles on the beach, reeds
//! at the lake), paint strokes of every preset on top, render an overview and a
//! close-up of every landmark, and print bake, fill, stroke, bucket and frame
//! statistics.

use std::path::PathBuf;

use std::ops::ControlFlow;

use anyhow::{Context, Result};
use glam::Vec2;
use sylva_scatter::{
    Editor, FillOrder, FillRegion, FillRequest, Session, StrokeReport, TerrainSource,
    DEFAULT_PLACEMENT_CAP,
};
use sylva_terrain::{default_world, Landmark};

use std::time::Instant;

use sylva_bake::{bake_folder, BakeOptions};
use sylva_render::CameraView;

use crate::folders::{Folders, Remote};
use crate::lod_args::LodArgs;
use crate::{assets, bake, files, presets, render, show};

#[derive(clap::Args)]
pub struct Args {
    /// Folder for the session journal and the rendered PNGs.
    #[arg(long, default_value = "out")]
    out: PathBuf,
    #[command(flatten)]
    folders: Folders,
    #[command(flatten)]
    remote: Remote,
    #[arg(long, default_value = "presets")]
    presets: PathBuf,
    #[arg(long, default_value_t = 2024)]
    seed: u32,
    /// Size of the rendered frames.
    #[arg(long, default_value_t = 960)]
    width: u32,
    #[arg(long, default_value_t = 540)]
    height: u32,
    #[command(flatten)]
    lod: LodArgs,
}

/// One scripted stroke: a preset file stem, the landmark it belongs to, where the
/// stroke starts relative to the landmark, and the step between its dabs (metres).
struct Stroke {
    preset: &'static str,
    landmark: Landmark,
    start: Vec2,
    step: Vec2,
    dabs: u32,
}

const fn stroke(
    preset: &'static str,
    landmark: Landmark,
    start: [f32; 2],
    step: [f32; 2],
    dabs: u32,
) -> Stroke {
    Stroke {
        preset,
        landmark,
        start: Vec2::new(start[0], start[1]),
        step: Vec2::new(step[0], step[1]),
        dabs,
    }
}

/// One scripted fill: a preset file stem, a polygon (x, z) and the density
/// (candidates per m²; the preset's when `None`).
struct Fill {
    preset: &'static str,
    polygon: &'static [(f32, f32)],
    density: Option<f32>,
}

/// The biomes, each where its preset's predicates find ground: the forest drawn as a
/// lasso around the meadows and foothills (round the lake, short of the coast and the
/// cliff), a second one on the plateau above the cliff.
const FILLS: [Fill; 5] = [
    Fill {
        preset: "mixed_forest",
        polygon: &[
            (-256.0, -100.0),
            (-200.0, -122.0),
            (-150.0, -136.0),
            (-60.0, -126.0),
            (-10.0, -96.0),
            (40.0, -112.0),
            (95.0, -86.0),
            (130.0, -40.0),
            (112.0, 10.0),
            (138.0, 60.0),
            (118.0, 120.0),
            (142.0, 200.0),
            (128.0, 256.0),
            (-256.0, 256.0),
        ],
        density: Some(0.2),
    },
    Fill {
        preset: "mixed_forest",
        polygon: &[
            (190.0, -140.0),
            (256.0, -150.0),
            (256.0, 150.0),
            (200.0, 140.0),
        ],
        density: Some(0.12),
    },
    Fill {
        preset: "cliff_and_scree",
        polygon: &[
            (120.0, -170.0),
            (230.0, -170.0),
            (230.0, 150.0),
            (120.0, 150.0),
        ],
        density: None,
    },
    Fill {
        preset: "beach",
        polygon: &[
            (-256.0, -256.0),
            (256.0, -256.0),
            (256.0, -140.0),
            (-256.0, -140.0),
        ],
        density: None,
    },
    Fill {
        preset: "lake_shore",
        polygon: &[
            (-190.0, -170.0),
            (-20.0, -170.0),
            (-20.0, 5.0),
            (-190.0, 5.0),
        ],
        density: None,
    },
];

/// A clearing erased from the forest between the meadow close-up's camera and the
/// meadow landmark, filled as a meadow.
const CLEARING_RADIUS: f32 = 16.0;
const CLEARING: [[f32; 2]; 4] = [[-42.0, -20.0], [-34.0, -8.0], [-26.0, 4.0], [-18.0, 14.0]];

/// Every preset where it belongs, painted on top of the fills.
const SCRIPT: [Stroke; 7] = [
    stroke("mixed_forest", Landmark::Meadow, [-8.0, 0.0], [5.0, 1.0], 4),
    stroke("meadow", Landmark::Meadow, [-12.0, -22.0], [6.0, 0.0], 4),
    stroke(
        "mixed_forest",
        Landmark::Mountains,
        [-6.0, 0.0],
        [6.0, 0.0],
        3,
    ),
    stroke(
        "cliff_and_scree",
        Landmark::Cliff,
        [0.0, -10.0],
        [0.0, 6.0],
        4,
    ),
    stroke("beach", Landmark::Beach, [-12.0, 0.0], [6.0, 0.0], 5),
    stroke("lake_shore", Landmark::Lake, [0.0, -10.0], [-1.0, 6.0], 4),
    stroke("mixed_forest", Landmark::Lake, [16.0, 10.0], [0.0, 0.0], 1),
];

pub fn run(args: Args) -> Result<()> {
    let lod = args.lod.config()?;
    let cache = args.folders.cache_dir();
    let started = Instant::now();
    let remote = args.remote.open()?;
    let options = BakeOptions {
        sharing: args.remote.sharing(&remote, None),
        ..BakeOptions::default()
    };
    let baked = bake_folder(&args.folders.assets, &cache, &options)?;
    for warning in &baked.warnings {
        eprintln!("warning: {warning}");
    }
    bake::print_report(&baked);
    println!(
        "bake: {} built, {} fetched, {} current, {} failed in {} ms",
        baked.baked(),
        baked.fetched(),
        baked.current(),
        baked.failed(),
        started.elapsed().as_millis()
    );
    bake::fail_on_broken(&baked)?;

    let terrain = default_world();
    let session = Session::new(
        args.seed,
        DEFAULT_PLACEMENT_CAP,
        TerrainSource::DefaultWorld,
        assets::snapshot(&args.folders.assets)?,
    );
    assets::resolve(&session.catalog)?;
    let mut editor = Editor::new(&session)?;
    let mut total = StrokeReport::default();
    let mut go_on = |_: usize, _: usize| ControlFlow::Continue(());
    for fill in &FILLS {
        let preset = presets::load(&args.presets.join(format!("{}.ron", fill.preset)))?;
        let name = editor.use_preset(fill.preset, preset.clone())?;
        let region = FillRegion::Polygon(fill.polygon.to_vec());
        let request = FillRequest {
            preset: name,
            region,
            density: fill.density,
            order: FillOrder::Tiles,
            stream: false,
            replaces: None,
        };
        let report = editor
            .fill(&terrain, &request, &mut go_on)?
            .report
            .unwrap_or_default();
        println!("{:<16} fill      {report}", preset.name);
        total += report;
    }
    let clearing: Vec<(f32, f32)> = CLEARING.iter().map(|&[x, z]| (x, z)).collect();
    editor.begin_erase(CLEARING_RADIUS, None)?;
    for &(x, z) in &clearing {
        editor.dab(&terrain, Vec2::new(x, z))?;
    }
    editor.end_stroke();
    let meadow = presets::load(&args.presets.join("meadow.ron"))?;
    let request = FillRequest {
        preset: editor.use_preset("meadow", meadow.clone())?,
        region: FillRegion::Brush {
            radius: CLEARING_RADIUS,
            dabs: clearing,
        },
        density: None,
        order: FillOrder::Tiles,
        stream: false,
        replaces: None,
    };
    let report = editor
        .fill(&terrain, &request, &mut go_on)?
        .report
        .unwrap_or_default();
    println!("{:<16} clearing  {report}", meadow.name);
    total += report;
    for stroke in &SCRIPT {
        let path = args.presets.join(format!("{}.ron", stroke.preset));
        let preset = presets::load(&path)?;
        let brush = preset.brush;
        let name = editor.use_preset(stroke.preset, preset.clone())?;
        editor.begin_paint(&name, brush)?;
        let start = stroke.landmark.position() + stroke.start;
        for dab in 0..stroke.dabs {
            editor.dab(&terrain, start + stroke.step * dab as f32)?;
        }
        let report = editor.end_stroke().context("the stroke was open")?;
        println!(
            "{:<16} at {:<9} {report}",
            preset.name,
            stroke.landmark.name()
        );
        total += report;
    }
    println!("{:<16} {:<12} {total}", "session", "");
    println!(
        "{} placements, digest {}",
        editor.painter().len(),
        editor.painter().digest()
    );
    let journal = args.out.join("demo.session.ron");
    files::write_atomically(&journal, editor.session().to_ron().as_bytes())?;
    println!("session journal: {}", journal.display());

    let impostors = !args.lod.full_detail;
    let (mut runtime, loaded) =
        show::open(terrain.clone(), editor.session(), &cache, impostors, &lod)?;
    println!("loaded {} baked props", loaded.loaded.len());
    let size = (args.width, args.height);
    let overview = render::render(
        &mut runtime,
        CameraView::overview(&terrain),
        0,
        &args.out.join("overview.png"),
        size,
        None,
    )?;
    render::print_frame(&overview);
    for (frame, landmark) in (1..).zip(Landmark::ALL) {
        let path = args.out.join(format!("{}.png", landmark.name()));
        let stats = render::render(
            &mut runtime,
            CameraView::landmark(&terrain, landmark),
            frame,
            &path,
            size,
            None,
        )?;
        render::print_frame(&stats);
    }
    Ok(())
}

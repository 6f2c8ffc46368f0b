//! `sylva render`: a session's frame, offscreen, to PNG, with the frame's statistics.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::{Context, Result};
use serde::Serialize;
use sylva_bake::{bake_folder, BakeOptions};
use sylva_render::RgbaImage;
use sylva_runtime::FrameStats;

use crate::folders::Folders;
use crate::lod_args::LodArgs;
use crate::{bake, show, world};

#[derive(clap::Args)]
pub struct Args {
    /// Session journal to draw.
    #[arg(long)]
    session: PathBuf,
    /// PNG to write.
    #[arg(long)]
    out: PathBuf,
    #[arg(long, default_value_t = 960)]
    width: u32,
    #[arg(long, default_value_t = 540)]
    height: u32,
    /// `overview`, a landmark (meadow, cliff, beach, lake, mountains) or EX,EY,EZ,TX,TY,TZ.
    #[arg(long, default_value = "overview", allow_hyphen_values = true)]
    camera: String,
    #[command(flatten)]
    folders: Folders,
    /// Draw props without their impostors (their coarsest mesh is their last level).
    #[arg(long)]
    no_impostors: bool,
    /// Switch LOD levels hard instead of cross-fading them across each switch.
    #[arg(long)]
    hard_lod: bool,
    #[command(flatten)]
    lod: LodArgs,
    /// Where the sun stands: ELEVATION,BEARING in degrees (above the horizon; compass
    /// bearing clockwise from north, +Z). The default is 62,245.
    #[arg(long, value_parser = parse_sun)]
    sun: Option<glam::Vec3>,
    /// Compare the frame with this PNG (e.g. a `--full-detail` render of the same
    /// camera) and report the PSNR over the whole image.
    #[arg(long, value_name = "PNG")]
    compare_with: Option<PathBuf>,
    /// Print the frame statistics as JSON.
    #[arg(long)]
    json: bool,
}

#[derive(Serialize)]
pub struct RenderOutput {
    pub out: String,
    pub width: u32,
    pub height: u32,
    pub adapter: String,
    /// Wall-clock time of the frame, readback included.
    pub frame_ms: f64,
    /// PSNR in dB against `--compare-with`, if given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub psnr_db: Option<f64>,
    #[serde(flatten)]
    pub stats: FrameStats,
}

pub fn run(args: Args) -> Result<()> {
    let lod = args.lod.config()?;
    let reference = args
        .compare_with
        .as_deref()
        .map(|path| -> Result<RgbaImage> {
            let bytes =
                std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
            RgbaImage::from_png(&bytes).with_context(|| format!("decoding {}", path.display()))
        })
        .transpose()?;
    let (session, terrain) = world::load_session(&args.session)?;
    let camera = show::parse_camera(&args.camera, &terrain)?;
    let cache = args.folders.cache_dir();
    let baked = bake_folder(&args.folders.assets, &cache, &BakeOptions::default())?;
    // Standard output holds only the JSON object under `--json`.
    if !args.json && (baked.baked() > 0 || baked.failed() > 0) {
        bake::print_report(&baked);
    }
    let impostors = !args.no_impostors && !args.lod.full_detail;
    let (mut runtime, _) = show::open(terrain, &session, &cache, impostors, &lod)?;
    runtime.set_dithered_transitions(!args.hard_lod);
    if let Some(sun) = args.sun {
        runtime.set_sun(sun);
    }
    let output = render(
        &mut runtime,
        camera,
        0,
        &args.out,
        (args.width, args.height),
        reference.as_ref(),
    )?;
    if args.json {
        println!("{}", serde_json::to_string(&output)?);
    } else {
        print_frame(&output);
    }
    Ok(())
}

/// `ELEVATION,BEARING` in degrees to the direction sunlight travels.
fn parse_sun(text: &str) -> Result<glam::Vec3, String> {
    let angles: Vec<f32> = text
        .split(',')
        .map(|a| a.trim().parse::<f32>())
        .collect::<Result<_, _>>()
        .map_err(|e| format!("{text:?}: {e}"))?;
    let [elevation, bearing] = angles[..] else {
        return Err(format!("{text:?}: expected ELEVATION,BEARING in degrees"));
    };
    sylva_render::sun_direction(elevation, bearing).map_err(|e| e.to_string())
}

/// Renders one still frame to `out` and reports it, with its PSNR against `reference`
/// when there is one. `frame` numbers the stills of one runtime: they are a second apart
/// on the LOD controller's clock, so each new camera is evaluated (the controller
/// re-evaluates at most 4 times a second).
pub fn render(
    runtime: &mut sylva_runtime::Runtime,
    camera: sylva_render::CameraView,
    frame: u32,
    out: &std::path::Path,
    (width, height): (u32, u32),
    reference: Option<&RgbaImage>,
) -> Result<RenderOutput> {
    runtime.settle_streams(&camera, height)?;
    let stream = runtime.stream_stats();
    if stream.capped {
        eprintln!(
            "warning: the streamed fills reach past the session's placement cap: {} tiles in \
             reach are not drawn",
            stream.late_tiles
        );
    }
    let started = Instant::now();
    let (image, stats) = runtime.render_image(camera, f64::from(frame), width, height)?;
    let frame_ms = started.elapsed().as_secs_f64() * 1000.0;
    show::write_png(out, &image.to_png()?)?;
    let psnr_db = reference
        .map(|reference| {
            image.psnr(reference).with_context(|| {
                format!(
                    "--compare-with is {}×{}, the frame {width}×{height}",
                    reference.width, reference.height
                )
            })
        })
        .transpose()?;
    Ok(RenderOutput {
        out: out.display().to_string(),
        width,
        height,
        adapter: runtime.context().adapter().to_owned(),
        frame_ms,
        psnr_db,
        stats,
    })
}

pub fn print_frame(o: &RenderOutput) {
    let s = &o.stats;
    let far = match s.draw.far_blocks {
        0 => String::new(),
        blocks => format!(", {} far in {blocks} blocks", s.draw.far_instances),
    };
    println!(
        "{}: {}×{} in {:.0} ms on {}; {} placements ({} pending, {} culled by size){far}, {} instances in {} draw calls, \
         {} triangles, per LOD {:?}; shadows: {} instances in {} draw calls",
        o.out, o.width, o.height, o.frame_ms, o.adapter, s.placements, s.pending, s.culled_by_size, s.draw.instances,
        s.draw.draw_calls, s.draw.triangles, s.draw.instances_per_lod, s.draw.shadow_instances, s.draw.shadow_draw_calls
    );
    if let Some(psnr) = o.psnr_db {
        println!("PSNR against the reference: {psnr:.2} dB");
    }
}

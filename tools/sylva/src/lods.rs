//! `sylva lods`: one baked prop at each of its LOD levels, side by side in one PNG, each
//! panel labelled with its level and the triangles drawn. The panels are real frames
//! of the runtime: the prop stands alone on flat ground, and each panel's LOD bands are
//! set so that the camera's distance falls in that panel's level. The mesh levels are
//! seen from where the prop fills the panel; the impostor, which is only ever drawn far
//! away, from its default switch distance through a lens narrowed to fill the panel
//! alike (up close its orthographic views would not hold the perspective).

use std::path::PathBuf;

use anyhow::{bail, Context, Result};
use glam::{Mat4, Vec3};
use serde::Serialize;
use sylva_bake::{bake_folder, BakeOptions};
use sylva_cache::Entry;
use sylva_lod::{FixedBands, LodConfig, LodPolicy};
use sylva_render::{CameraView, RenderContext, RgbaImage, OUTPUT_FORMAT};
use sylva_runtime::{shape_of, Runtime};
use sylva_scatter::{Session, TerrainSource, PROTOTYPE_PLACEMENT_CAP};
use sylva_terrain::Terrain;
use sylva_world::World;

use crate::folders::Folders;
use crate::{assets, bake, show};

#[derive(clap::Args)]
pub struct Args {
    /// The prop to draw: `<category>/<file stem>`.
    #[arg(long)]
    prop: String,
    /// PNG to write.
    #[arg(long)]
    out: PathBuf,
    /// Width of the whole picture, shared evenly by the levels.
    #[arg(long, default_value_t = 960)]
    width: u32,
    #[arg(long, default_value_t = 360)]
    height: u32,
    #[command(flatten)]
    folders: Folders,
    /// Print what was drawn as JSON.
    #[arg(long)]
    json: bool,
}

#[derive(Serialize)]
pub struct LodsOutput {
    pub out: String,
    pub prop: String,
    pub width: u32,
    pub height: u32,
    pub adapter: String,
    /// One per level, finest first.
    pub levels: Vec<LevelPanel>,
}

#[derive(Serialize)]
pub struct LevelPanel {
    pub level: u8,
    /// Whether the level is the prop's impostor (the one after its mesh levels).
    pub impostor: bool,
    /// How far the camera was from the prop's centre.
    pub distance_m: f32,
    /// Triangles the camera drew (every part of the prop at this level).
    pub triangles: u64,
    /// The level's share of level 0's triangles, as baked.
    pub achieved_ratio: f32,
}

impl LevelPanel {
    /// `LOD<n>`, or `impostor`.
    fn name(&self) -> String {
        if self.impostor {
            "impostor".to_owned()
        } else {
            format!("LOD{}", self.level)
        }
    }
}

/// The eye looks from the south-west and a little above, like the landmark close-ups.
const VIEW_DIRECTION: Vec3 = Vec3::new(-0.45, 0.32, -1.0);
/// Label glyphs are font8x8's 8×8 cells drawn this many pixels per font pixel.
const LABEL_SCALE: u32 = 2;
/// Session seed of the empty session the panels are drawn in (nothing is scattered).
const SEED: u32 = 1;

pub fn run(args: Args) -> Result<()> {
    let cache = args.folders.cache_dir();
    let baked = bake_folder(&args.folders.assets, &cache, &BakeOptions::default())?;
    if !args.json && (baked.baked() > 0 || baked.failed() > 0) {
        bake::print_report(&baked);
    }
    let manifest = cache.read_manifest()?;
    let (_, listed) = manifest.prop(&args.prop).with_context(|| {
        format!(
            "no prop `{}` in {} (props are `<category>/<file stem>`)",
            args.prop,
            cache.root().display()
        )
    })?;
    let files = cache.read_prop(&listed.entry)?;
    let entry =
        Entry::parse(&files.entry).with_context(|| format!("cache entry {}", listed.entry))?;
    let shape = shape_of(&entry);
    // The mesh levels, then the impostor where the bake made one.
    let lods = shape.levels();
    if lods == 0 || args.width < u32::from(lods) || args.height == 0 {
        bail!("{} levels do not fit {}×{}", lods, args.width, args.height);
    }
    let panel = (args.width / u32::from(lods), args.height);
    let (lo, hi) = (Vec3::from(entry.bounds.min), Vec3::from(entry.bounds.max));
    let (centre, radius) = ((lo + hi) * 0.5, (hi - lo).length() * 0.5);
    let camera_at = |level: u8| {
        let from = if shape.is_impostor(level) {
            impostor_distance()
        } else {
            0.0
        };
        framing_camera(centre, radius, panel, from)
    };
    let terrain = flat_ground_under(lo, hi)?;
    let session = Session::new(
        SEED,
        PROTOTYPE_PLACEMENT_CAP,
        TerrainSource::DefaultWorld,
        assets::snapshot(&args.folders.assets)?,
    );

    let world_at = |level: u8| -> Result<World> {
        let config = LodConfig {
            policy: LodPolicy::FixedBands(FixedBands {
                edges_m: edges_putting_in_level(camera_at(level).eye.length(), level, lods),
                hysteresis_m: 0.0,
            }),
            ..LodConfig::default()
        };
        Ok(World::new(terrain.clone(), &session, &config)?)
    };
    let mut runtime = Runtime::new(RenderContext::new(OUTPUT_FORMAT)?, world_at(0)?)?;
    runtime.set_prop(&args.prop, &listed.entry, listed.revision, &files)?;
    let (mut images, mut levels) = (Vec::new(), Vec::new());
    for level in 0..lods {
        if level > 0 {
            // The same renderer: the next level's world takes the loaded prop over.
            runtime.replace_world(world_at(level)?)?;
        }
        let world = runtime.world_mut();
        let key = world.prop_key(&args.prop);
        world.registry_mut().insert(1, key, Mat4::IDENTITY, level)?;
        let camera = camera_at(level);
        let (image, stats) = runtime.render_image(camera, 0.0, panel.0, panel.1)?;
        // Every part of the one placement, at this level and no other.
        let drawn_here = stats.draw.instances_per_lod.get(usize::from(level));
        if drawn_here != Some(&usize::from(shape.parts_at(level)))
            || stats.draw.instances != drawn_here.copied().unwrap_or(0)
        {
            bail!(
                "level {level} was not drawn alone: instances per LOD {:?}",
                stats.draw.instances_per_lod
            );
        }
        let impostor = shape.is_impostor(level);
        levels.push(LevelPanel {
            level,
            impostor,
            distance_m: camera.eye.distance(centre),
            triangles: stats.draw.triangles,
            achieved_ratio: if impostor {
                stats.draw.triangles as f32 / level_triangles(&entry, 0).max(1) as f32
            } else {
                level_ratio(&entry, level)
            },
        });
        images.push(image);
    }
    for (image, panel) in images.iter_mut().zip(&levels) {
        let label = if panel.impostor {
            format!(
                "{} {} tris {:.0}m",
                panel.name(),
                panel.triangles,
                panel.distance_m
            )
        } else {
            format!("{} {} tris", panel.name(), panel.triangles)
        };
        draw_label(image, &label);
    }
    let picture = side_by_side(&images);
    show::write_png(&args.out, &picture.to_png()?)?;
    let output = LodsOutput {
        out: args.out.display().to_string(),
        prop: args.prop,
        width: picture.width,
        height: picture.height,
        adapter: runtime.context().adapter().to_owned(),
        levels,
    };
    if args.json {
        println!("{}", serde_json::to_string(&output)?);
    } else {
        let counts: Vec<String> = output
            .levels
            .iter()
            .map(|l| format!("{} {} triangles", l.name(), l.triangles))
            .collect();
        println!(
            "{}: {} at {} levels ({}), {}×{} on {}",
            output.out,
            output.prop,
            output.levels.len(),
            counts.join(", "),
            output.width,
            output.height,
            output.adapter
        );
    }
    Ok(())
}

/// Mesh level `level`'s triangles over level 0's, all parts together, as baked.
fn level_ratio(entry: &Entry, level: u8) -> f32 {
    level_triangles(entry, level) as f32 / level_triangles(entry, 0).max(1) as f32
}

/// Mesh level `level`'s triangles, all parts together.
fn level_triangles(entry: &Entry, level: u8) -> u64 {
    entry
        .parts
        .iter()
        .map(|p| u64::from(p.levels[usize::from(level)].triangle_count()))
        .sum()
}

/// A camera from [`VIEW_DIRECTION`] in which a sphere of `radius` around `centre` fills
/// a panel of `(width, height)` (the narrower field of view decides): at the distance
/// where the default field of view does, or, if that is nearer, at `at_least` with the
/// field of view narrowed. Never so near that the near plane cuts the sphere (a pebble
/// framed by the default field of view would be).
fn framing_camera(
    centre: Vec3,
    radius: f32,
    (width, height): (u32, u32),
    at_least: f32,
) -> CameraView {
    let mut camera = CameraView::new(centre + VIEW_DIRECTION.normalize(), centre);
    let radius = radius.max(0.01);
    let at_least = at_least.max(CameraView::NEAR + radius);
    let aspect = width as f32 / height as f32;
    let half_vertical = (camera.vfov * 0.5).to_radians();
    let half_horizontal = (half_vertical.tan() * aspect).atan();
    let mut distance = radius / half_vertical.min(half_horizontal).sin();
    if distance < at_least {
        distance = at_least;
        let narrower = (radius / distance).asin();
        let half_vertical = if aspect >= 1.0 {
            narrower
        } else {
            (narrower.tan() / aspect).atan()
        };
        camera.vfov = 2.0 * half_vertical.to_degrees();
    }
    camera.eye = centre + VIEW_DIRECTION.normalize() * distance;
    camera
}

/// Where the fixed LOD bands (30, 90 and 150 m, ±4 m) draw a placement as its impostor
/// alone: past the last edge's fade.
fn impostor_distance() -> f32 {
    155.0
}

/// Band edges for a prop of `lods` levels that put a placement at `distance` from the
/// camera in `level`: the edges below it at fractions of the distance, those above at
/// multiples (at least one edge, as the bands need).
fn edges_putting_in_level(distance: f32, level: u8, lods: u8) -> Vec<f32> {
    (0..lods.max(2) - 1)
        .map(|edge| {
            if edge < level {
                distance * 0.5f32.powi(i32::from(level - edge))
            } else {
                distance * 2f32.powi(i32::from(edge - level + 1))
            }
        })
        .collect()
}

/// Flat ground at height 0 reaching 16 prop sizes out each way, its water far below.
fn flat_ground_under(lo: Vec3, hi: Vec3) -> Result<Terrain> {
    const SAMPLES: usize = 129;
    let size = (hi - lo).max_element().max(0.1);
    let spacing = size * 32.0 / (SAMPLES - 1) as f32;
    Ok(Terrain::new(
        SAMPLES,
        SAMPLES,
        spacing,
        vec![0.0; SAMPLES * SAMPLES],
        -size,
    )?)
}

/// `panels` left to right in one image as tall as the shortest.
fn side_by_side(panels: &[RgbaImage]) -> RgbaImage {
    let height = panels.iter().map(|p| p.height).min().unwrap_or(0);
    let width = panels.iter().map(|p| p.width).sum();
    let mut pixels = Vec::with_capacity(width as usize * height as usize * 4);
    for row in 0..height as usize {
        for panel in panels {
            let stride = panel.width as usize * 4;
            pixels.extend_from_slice(&panel.pixels[row * stride..(row + 1) * stride]);
        }
    }
    RgbaImage {
        width,
        height,
        pixels,
    }
}

/// Writes `text` in the top-left corner: white font8x8 glyphs with a dark outline, so
/// it reads over sky and ground alike. Characters font8x8 lacks are left blank.
fn draw_label(image: &mut RgbaImage, text: &str) {
    use font8x8::UnicodeFonts;
    let margin = 4 * LABEL_SCALE;
    let mut set = |x: u32, y: u32, colour: [u8; 4]| {
        if x < image.width && y < image.height {
            let at = (y as usize * image.width as usize + x as usize) * 4;
            image.pixels[at..at + 4].copy_from_slice(&colour);
        }
    };
    let glyphs: Vec<[u8; 8]> = text
        .chars()
        .map(|c| font8x8::BASIC_FONTS.get(c).unwrap_or([0; 8]))
        .collect();
    for (outline, colour) in [(true, [20, 20, 20, 255]), (false, [255, 255, 255, 255])] {
        for (i, glyph) in glyphs.iter().enumerate() {
            for (row, bits) in glyph.iter().enumerate() {
                for column in 0..8 {
                    if bits & (1 << column) == 0 {
                        continue;
                    }
                    let x = margin + (i as u32 * 8 + column) * LABEL_SCALE;
                    let y = margin + row as u32 * LABEL_SCALE;
                    let reach = if outline { 1 } else { 0 };
                    for dy in 0..LABEL_SCALE + 2 * reach {
                        for dx in 0..LABEL_SCALE + 2 * reach {
                            set(x + dx - reach, y + dy - reach, colour);
                        }
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plain(width: u32, height: u32, value: u8) -> RgbaImage {
        RgbaImage {
            width,
            height,
            pixels: vec![value; (width * height * 4) as usize],
        }
    }

    #[test]
    fn panels_are_laid_out_left_to_right() {
        let picture = side_by_side(&[plain(2, 2, 10), plain(3, 2, 20)]);
        assert_eq!((picture.width, picture.height), (5, 2));
        let row: Vec<u8> = picture.pixels[..20].iter().step_by(4).copied().collect();
        assert_eq!(row, [10, 10, 20, 20, 20]);
    }

    #[test]
    fn the_edges_put_the_camera_distance_in_the_asked_level() {
        for lods in 1..=4u8 {
            for level in 0..lods {
                let edges = edges_putting_in_level(30.0, level, lods);
                assert!(edges.windows(2).all(|w| w[0] < w[1]), "{edges:?}");
                let band = edges.iter().filter(|&&e| e <= 30.0).count();
                assert_eq!(band, usize::from(level), "{lods} levels: {edges:?}");
            }
        }
    }

    #[test]
    fn a_label_writes_white_pixels_in_the_corner_only() {
        let mut image = plain(200, 40, 0);
        draw_label(&mut image, "LOD1 42");
        let white = |x: usize, y: usize| image.pixels[(y * 200 + x) * 4] == 255;
        let lit: Vec<(usize, usize)> = (0..40)
            .flat_map(|y| (0..200).map(move |x| (x, y)))
            .filter(|&(x, y)| white(x, y))
            .collect();
        assert!(!lit.is_empty());
        assert!(lit.iter().all(|&(x, y)| x < 8 + 7 * 16 && y < 8 + 16));
    }

    #[test]
    fn the_framing_camera_sees_the_whole_sphere_and_fills_the_panel_from_any_distance() {
        // A tree and a pebble (whose sphere the default field of view would frame
        // nearer than the near plane).
        for (centre, radius) in [
            (Vec3::new(0.0, 5.0, 0.0), 6.0),
            (Vec3::new(0.0, 0.02, 0.0), 0.09),
        ] {
            for panel in [(320, 360), (640, 360)] {
                for at_least in [0.0, 155.0] {
                    let camera = framing_camera(centre, radius, panel, at_least);
                    let distance = camera.eye.distance(centre);
                    assert!(distance >= at_least - 1e-3);
                    assert!(
                        distance - radius >= CameraView::NEAR - 1e-4,
                        "cut by the near plane"
                    );
                    let view_proj = camera.view_proj(panel.0 as f32 / panel.1 as f32);
                    let mut widest = 0.0f32;
                    for corner in [Vec3::X, -Vec3::X, Vec3::Y, -Vec3::Y, Vec3::Z, -Vec3::Z] {
                        let clip = view_proj * (centre + corner * radius).extend(1.0);
                        let ndc = clip.truncate() / clip.w;
                        assert!(ndc.x.abs() <= 1.0 && ndc.y.abs() <= 1.0, "{corner}: {ndc}");
                        widest = widest.max(ndc.x.abs()).max(ndc.y.abs());
                    }
                    assert!(widest > 0.85, "{panel:?} from {at_least} m: {widest}");
                }
            }
        }
    }
}

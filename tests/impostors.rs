//! Impostors and dithered LOD transitions on a real Vulkan driver (lavapipe where there
//! is no GPU; without an adapter these tests fail, they never skip):
//!
//! - each kit category's prop drawn as its coarsest mesh and as its impostor at the
//!   impostor's switch distance, from eight bearings, looks alike (PSNR over the prop's
//!   pixels, frame by frame and supersampled);
//! - a camera dolly through every band edge pops at most half as much frame to frame
//!   with dithered transitions as with hard switches.
//!
//! Pictures are left in `target/gpu-test-output/`.

use crate::common;

use common::stage::{baked_prop, differs, flat_ground, save, side_by_side, Stage};
use glam::{Mat4, Quat, Vec3};
use sylva_buckets::{BucketChanges, PlacementRegistry};
use sylva_cache::{CacheDir, ImpostorView, PropFiles};
use sylva_lod::{LodConfig, LodController, Viewport};
use sylva_render::props::{PropsRenderer, TextureUpload};
use sylva_render::{CameraView, RgbaImage};
use sylva_runtime::{level_errors_of, shape_of};

use common::GPU;

fn prop_files(cache: &CacheDir, prop: &str) -> PropFiles {
    let manifest = cache.read_manifest().unwrap();
    cache
        .read_prop(&manifest.prop(prop).unwrap().1.entry)
        .unwrap()
}

/// Squared differences summed over pixels, to be pooled across frames.
#[derive(Clone, Copy, Default)]
struct Error {
    /// Σ of squared 8-bit RGB differences.
    squared: u64,
    pixels: usize,
}

impl Error {
    /// The differences between `a` and `b` over the pixels `covered` marks.
    fn between(a: &RgbaImage, b: &RgbaImage, covered: &[bool]) -> Self {
        let mut error = Error::default();
        let pairs = a.pixels.chunks_exact(4).zip(b.pixels.chunks_exact(4));
        for ((p, q), _) in pairs.zip(covered).filter(|(_, c)| **c) {
            error.pixels += 1;
            error.squared += p[..3]
                .iter()
                .zip(&q[..3])
                .map(|(x, y)| u64::from(x.abs_diff(*y)).pow(2))
                .sum::<u64>();
        }
        error
    }

    fn add(&mut self, other: Error) {
        self.squared += other.squared;
        self.pixels += other.pixels;
    }

    /// PSNR in dB.
    fn psnr(&self) -> f64 {
        let mse = self.squared as f64 / (3 * self.pixels.max(1)) as f64;
        10.0 * (255.0f64 * 255.0 / mse.max(1e-9)).log10()
    }
}

/// `image` averaged over 2 × 2 pixel blocks, and `covered` over the same blocks (a block
/// is covered where any of its pixels is).
fn halved(image: &RgbaImage, covered: &[bool]) -> (RgbaImage, Vec<bool>) {
    let (w, h) = (image.width as usize / 2, image.height as usize / 2);
    let mut pixels = Vec::with_capacity(w * h * 4);
    let mut blocks = Vec::with_capacity(w * h);
    for y in 0..h {
        for x in 0..w {
            let at = |dx: usize, dy: usize| (2 * y + dy) * image.width as usize + 2 * x + dx;
            let four = [at(0, 0), at(1, 0), at(0, 1), at(1, 1)];
            for c in 0..4 {
                let sum: u32 = four
                    .iter()
                    .map(|&i| u32::from(image.pixels[i * 4 + c]))
                    .sum();
                pixels.push(((sum + 2) / 4) as u8);
            }
            blocks.push(four.iter().any(|&i| covered[i]));
        }
    }
    let image = RgbaImage {
        width: w as u32,
        height: h as u32,
        pixels,
    };
    (image, blocks)
}

/// Every prop of the kit (by id) whose bake made an impostor.
fn props_with_an_impostor(cache: &CacheDir) -> Vec<String> {
    let manifest = cache.read_manifest().unwrap();
    let mut props: Vec<String> = manifest.assets.values().map(|a| a.prop.clone()).collect();
    props.sort();
    props.retain(|prop| {
        prop_files(cache, prop)
            .parse()
            .unwrap()
            .entry
            .impostor()
            .is_some()
    });
    props
}

/// The reference viewport's pixels a metre covers from a metre away: 1080 lines over
/// 60°, on which the LOD controller places switch distances.
fn reference_pixels_per_metre_at_1m() -> f32 {
    Viewport::REFERENCE.pixels_per_metre_at_1m()
}

/// Where the LOD controller's default screen error (a pixel on the reference viewport)
/// hands `view`'s prop to its impostor, in metres, and the pixels its bounding sphere's
/// diameter covers there.
fn switch_of(view: &sylva_cache::PropView<'_>) -> (f32, f32) {
    let (errors, radius) = level_errors_of(&view.entry, shape_of(&view.entry));
    let largest = errors.iter().copied().fold(0.0, f32::max);
    (
        largest * reference_pixels_per_metre_at_1m(),
        2.0 * radius / largest,
    )
}

/// The fixed bands the dollies cross: 30, 90 and 150 m, the last the impostor's.
const EDGES_M: [f32; 3] = [30.0, 90.0, 150.0];

/// The smallest PSNRs a kit category's impostor may have against its coarsest mesh
/// over the prop's pixels (shadows left out), pooled over the [`BEARINGS`]: frame by
/// frame, each silhouette pixel the two disagree on weighing as much as dozens inside;
/// and supersampled, the same frames averaged over 2 × 2 blocks (the switch distance
/// on the reference viewport, 4 samples a pixel), where the quality line is 28 dB:
/// measured 23.2–28.6 dB and 28.1 (spruce) – 33.6 dB (shrub; the flat pebble 29.7)
/// over the nine props covering 40 pixels or more. The impostor pictures the coarsest
/// mesh it replaces (drawn from level 0 the judged props measured 27.5–30.1 dB). And
/// over the shadows they cast on the ground round the prop: measured 23.0–39.9 dB where
/// there are [`MEASURED_SHADOW_PIXELS`].
const KIT: Guard = Guard {
    frame_db: 22.5,
    supersampled_db: 28.0,
    shadow_db: 22.5,
};

/// The same for the props made by others in [`REAL_PROPS`], whose flat-shaded facets
/// the atlas smooths over: measured 17.6–22.8 dB, 23.2–28.7 dB and, over shadows,
/// 24.2–33.5 dB.
const REAL: Guard = Guard {
    frame_db: 16.0,
    supersampled_db: 22.0,
    shadow_db: 22.0,
};

/// The least PSNRs a comparison may have, frame by frame, supersampled and over the
/// shadows on the ground.
struct Guard {
    frame_db: f64,
    supersampled_db: f64,
    shadow_db: f64,
}

/// Shadows darkening fewer pixels a bearing (in either draw) are reported, not judged:
/// the log's and the reed's 11 and 17 are a few dim pixels at the prop's foot.
const MEASURED_SHADOW_PIXELS: usize = 25;

/// Props covering fewer pixels a bearing at the switch distance are reported, not
/// judged: a few pixels are silhouette edge. Every kit prop with an impostor covers
/// more (its plan keeps the mesh of props under 8 px there).
const MEASURED_PIXELS: usize = 40;

/// The bearings a prop is compared from, 45° apart: the impostor's views sit on a
/// grid, so a single bearing can fall near one view or between four, and the mesh's
/// side, end and underside each show from some.
const BEARINGS: u32 = 8;

/// A prop drawn as its coarsest mesh and as its impostor at the switch distance, from
/// every bearing.
struct Comparison {
    /// The errors pooled over the bearings, and the first bearing's picture.
    pooled: Bearing,
    /// The bearing (degrees) whose supersampled PSNR is lowest, and that PSNR.
    worst: (f32, f64),
}

/// The coarsest mesh against the impostor from one bearing (or pooled over several).
struct Bearing {
    /// Over the prop's pixels, frame by frame and supersampled (over 2 × 2 blocks).
    frame: Error,
    supersampled: Error,
    /// Frame by frame over the pixels only one of the two draws the prop on: how much of
    /// `frame` is the silhouette's.
    silhouette: Error,
    /// Over the ground round the prop where either draw differs from the empty scene:
    /// the shadows the two cast.
    shadow: Error,
    /// Mesh left, impostor right.
    picture: RgbaImage,
}

/// A prop's coarsest mesh and its impostor, each in a plugin of its own with hard LOD
/// switches, drawn from one bearing after another.
type TwoLevels = [(PropsRenderer, PlacementRegistry); 2];

impl Comparison {
    /// The coarsest mesh of the prop in `files` drawn against its impostor, framed
    /// from the impostor's sphere.
    fn of(stage: &mut Stage, files: &PropFiles) -> Self {
        let view = files.parse().unwrap();
        let impostor = view.entry.impostor().unwrap();
        let lods = shape_of(&view.entry).lods;
        let mut drawn: TwoLevels = [lods - 1, lods].map(|level| {
            let (mut props, registry) =
                stage.plugin(files, &[Mat4::IDENTITY], level, TextureUpload::Native);
            props.set_lod_fades(LodController::default().fades().hard());
            (props, registry)
        });
        let switch = switch_of(&view);
        let mut bearings = (0..BEARINGS).map(|k| {
            let bearing = k as f32 * 360.0 / BEARINGS as f32;
            let compared = Self::from_bearing(stage, &mut drawn, &impostor, switch, bearing);
            (bearing, compared)
        });
        let (first, mut pooled) = bearings.next().unwrap();
        let mut worst = (first, pooled.supersampled.psnr());
        for (bearing, one) in bearings {
            pooled.frame.add(one.frame);
            pooled.supersampled.add(one.supersampled);
            pooled.silhouette.add(one.silhouette);
            pooled.shadow.add(one.shadow);
            if one.supersampled.psnr() < worst.1 {
                worst = (bearing, one.supersampled.psnr());
            }
        }
        Comparison { pooled, worst }
    }

    /// Compares the two levels in `drawn` (finer first) from the switch distance
    /// on `bearing` (degrees about the vertical, 0 the camera of the pictures, 14.6°
    /// above the horizon), `switch` the distance and the pixels the sphere's diameter
    /// covers there on the reference viewport ([`switch_of`]): framed at twice those
    /// pixels, so that the supersampled comparison (2 × 2 blocks averaged) sees the
    /// prop as the reference viewport does with four samples a pixel; the sphere
    /// spans half the frame's height.
    fn from_bearing(
        stage: &mut Stage,
        drawn: &mut TwoLevels,
        impostor: &ImpostorView,
        (distance, coverage_px): (f32, f32),
        bearing: f32,
    ) -> Bearing {
        let side = 4 * (coverage_px.round() as u32).max(1);
        let vfov = 2.0
            * (2.0 * impostor.sphere.radius / distance)
                .atan()
                .to_degrees();
        let turn = Quat::from_rotation_y(bearing.to_radians());
        let eye = turn * Vec3::new(0.9, 0.35, -1.0).normalize() * distance;
        let camera = CameraView {
            vfov,
            ..CameraView::new(eye, Vec3::from(impostor.sphere.center))
        };
        let size = (side, side);
        let (mut empty, no_placements) = stage.empty();
        let background = stage.frame(&mut empty, &no_placements, camera, size);
        let [(mesh, mesh_covers), (as_impostor, impostor_covers)] =
            drawn.each_mut().map(|(props, registry)| {
                let covered = stage.coverage(props, registry, camera, size, &background);
                (stage.frame(props, registry, camera, size), covered)
            });
        let covered: Vec<bool> = mesh_covers
            .iter()
            .zip(&impostor_covers)
            .map(|(a, b)| *a || *b)
            .collect();
        let frame = Error::between(&mesh, &as_impostor, &covered);
        let only_one: Vec<bool> = mesh_covers
            .iter()
            .zip(&impostor_covers)
            .map(|(a, b)| a != b)
            .collect();
        let silhouette = Error::between(&mesh, &as_impostor, &only_one);
        let shaded: Vec<bool> = mesh
            .pixels
            .chunks_exact(4)
            .zip(as_impostor.pixels.chunks_exact(4))
            .zip(background.pixels.chunks_exact(4))
            .zip(&covered)
            .map(|(((p, q), g), prop)| !prop && (differs(p, g) || differs(q, g)))
            .collect();
        let shadow = Error::between(&mesh, &as_impostor, &shaded);
        let ((mesh_half, half_covered), (impostor_half, _)) =
            (halved(&mesh, &covered), halved(&as_impostor, &covered));
        let supersampled = Error::between(&mesh_half, &impostor_half, &half_covered);
        Bearing {
            frame,
            supersampled,
            silhouette,
            shadow,
            picture: side_by_side(&[&mesh, &as_impostor]),
        }
    }

    /// Prints the measures; returns whether they are judged, and the failure if they
    /// fall short.
    fn judge(&self, prop: &str, guard: &Guard) -> (bool, Option<String>) {
        let Bearing {
            frame,
            supersampled,
            silhouette,
            shadow,
            ..
        } = &self.pooled;
        let pixels = frame.pixels / BEARINGS as usize;
        let silhouette_share = silhouette.squared as f64 / frame.squared.max(1) as f64;
        let silhouette_pixels = silhouette.pixels / BEARINGS as usize;
        let (frame, supersampled) = (frame.psnr(), supersampled.psnr());
        let (bearing, worst) = self.worst;
        let shadow_pixels = shadow.pixels / BEARINGS as usize;
        let shadows = match shadow_pixels {
            0 => "no shadow on the ground".to_owned(),
            n => format!(
                "shadows on the ground {:.1} dB over {n} pixels a bearing",
                shadow.psnr()
            ),
        };
        println!(
            "{prop}: {frame:.1} dB over {pixels} pixels a bearing, {supersampled:.1} dB \
             supersampled (lowest {worst:.1} dB, from {bearing}°); {:.0} % of the frame's \
             squared error on the {silhouette_pixels} pixels a bearing only one draws; \
             {shadows}",
            100.0 * silhouette_share,
        );
        if pixels < MEASURED_PIXELS {
            return (false, None);
        }
        let shadow_judged = shadow_pixels >= MEASURED_SHADOW_PIXELS;
        let short = frame < guard.frame_db
            || supersampled < guard.supersampled_db
            || (shadow_judged && shadow.psnr() < guard.shadow_db);
        (
            true,
            short.then(|| {
                let shadows = if shadow_judged {
                    format!(", shadows {:.1} dB", shadow.psnr())
                } else {
                    String::new()
                };
                format!("{prop}: {frame:.1} dB, {supersampled:.1} dB supersampled{shadows}")
            }),
        )
    }
}

/// The prop in `files` as its coarsest mesh against its impostor, judged by `guard`:
/// the comparison, whether it is judged, and its failure.
fn compared_and_judged(
    stage: &mut Stage,
    files: &PropFiles,
    prop: &str,
    guard: &Guard,
) -> (Comparison, bool, Option<String>) {
    let comparison = Comparison::of(stage, files);
    let (counted, failure) = comparison.judge(prop, guard);
    (comparison, counted, failure)
}

#[test]
fn every_kit_prop_with_an_impostor_looks_alike_as_coarsest_mesh_and_as_impostor_at_the_switch() {
    let _gpu = GPU.lock().unwrap_or_else(|e| e.into_inner());
    let cache = sylva_testkit::kit_cache();
    let props = props_with_an_impostor(&cache);
    // Trees, shrubs and pebbles; boulders, rocks, logs, driftwood and the snag keep
    // their coarsest mesh, and so do the flowers, grass and reeds, a few pixels across
    // where an impostor would take over (`sylva_bake::impostor_plan`).
    assert!(props.len() >= 9, "{props:?}");
    let mut stage = Stage::new(flat_ground(129, 4.0));
    let mut rows = Vec::new();
    let mut failures = Vec::new();
    let mut judged = 0;
    for prop in &props {
        let files = prop_files(&cache, prop);
        let (comparison, counted, failure) = compared_and_judged(&mut stage, &files, prop, &KIT);
        judged += usize::from(counted);
        failures.extend(failure);
        if counted {
            rows.push(comparison.pooled.picture);
        }
    }
    save("impostor-vs-mesh.png", &stacked(&rows));
    assert_eq!(
        judged,
        props.len(),
        "every prop with an impostor covers enough to judge"
    );
    assert!(failures.is_empty(), "{failures:#?}");
}

/// Props made by others, from the real corpus, in the categories they would be painted
/// in.
const REAL_PROPS: [(&str, &str); 6] = [
    ("pbr", "tests/data/real/pbr/barrel.glb"),
    (
        "broadleaf",
        "tests/data/real/quaternius_nature/CommonTree_1.glb",
    ),
    (
        "broadleaf",
        "tests/data/real/quaternius_nature/BirchTree_1.glb",
    ),
    (
        "conifer",
        "tests/data/real/quaternius_nature/PineTree_1.glb",
    ),
    ("bush", "tests/data/real/quaternius_nature/Bush_1.glb"),
    ("rock", "tests/data/real/quaternius_nature/Rock_Moss_1.glb"),
];

#[test]
fn props_made_by_others_look_alike_as_coarsest_mesh_and_as_impostor_at_the_switch_distance() {
    let _gpu = GPU.lock().unwrap_or_else(|e| e.into_inner());
    let mut stage = Stage::new(flat_ground(129, 4.0));
    let mut rows = Vec::new();
    let mut failures = Vec::new();
    let mut judged = 0;
    for (category, source) in REAL_PROPS {
        let assets = common::one_prop_assets(category, r#"(family: "prop")"#, source);
        let out = tempfile::tempdir().unwrap();
        let stem = std::path::Path::new(source).file_stem().unwrap();
        let prop = format!("{category}/{}", stem.to_string_lossy());
        let files = baked_prop(assets.path(), &CacheDir::new(out.path()), &prop);
        if files.parse().unwrap().entry.impostor().is_none() {
            println!("{prop}: keeps its coarsest mesh");
            continue;
        }
        let (comparison, counted, failure) = compared_and_judged(&mut stage, &files, &prop, &REAL);
        judged += usize::from(counted);
        failures.extend(failure);
        if counted {
            rows.push(comparison.pooled.picture);
        }
    }
    save("impostor-vs-mesh-real.png", &stacked(&rows));
    assert!(judged >= 2, "only {judged} props big enough to judge");
    assert!(failures.is_empty(), "{failures:#?}");
}

/// `images` one under another, each scaled up by whole pixels towards the widest's
/// width.
fn stacked(images: &[RgbaImage]) -> RgbaImage {
    let width = images.iter().map(|i| i.width).max().unwrap();
    let scaled: Vec<RgbaImage> = images
        .iter()
        .map(|image| {
            let k = width / image.width;
            let (w, h) = (image.width * k, image.height * k);
            let mut pixels = Vec::with_capacity((width * h * 4) as usize);
            for y in 0..h {
                for x in 0..w {
                    let at = (((y / k) * image.width + x / k) * 4) as usize;
                    pixels.extend_from_slice(&image.pixels[at..at + 4]);
                }
                // Rows of images whose width does not divide the widest's end in black.
                for _ in w..width {
                    pixels.extend_from_slice(&[0, 0, 0, 255]);
                }
            }
            RgbaImage {
                width,
                height: h,
                pixels,
            }
        })
        .collect();
    let height = scaled.iter().map(|i| i.height).sum();
    let mut pixels = Vec::with_capacity((width * height * 4) as usize);
    for image in &scaled {
        pixels.extend_from_slice(&image.pixels);
    }
    RgbaImage {
        width,
        height,
        pixels,
    }
}

/// A dolly away from `prop` through band edge `edge` (±6 m: the fade's ±4 m and a
/// margin, a frame every 0.5 m) with the LOD controller evaluating every frame, with
/// dithered transitions or hard switches: each frame beside its counterfactual, the
/// same camera with the LOD state of the frame before (the levels before this frame's
/// tick, and every fade's share at the previous frame's distance, by moving the edges
/// 0.5 m out). What differs between the two is what the change of LOD state did to the
/// picture, the camera's own motion excluded.
fn dolly(stage: &mut Stage, prop: &PropFiles, edge: f32, dithered: bool) -> Vec<[RgbaImage; 2]> {
    let view = prop.parse().unwrap();
    let centre = Vec3::from(view.entry.impostor().unwrap().sphere.center);
    let config = LodConfig::fixed_bands(EDGES_M.to_vec());
    let finer = EDGES_M.iter().position(|&e| e == edge).unwrap() as u8;
    let (mut props, mut registry): (PropsRenderer, PlacementRegistry) =
        stage.plugin(prop, &[Mat4::IDENTITY], finer, TextureUpload::Native);
    let mut controller = LodController::new(&config).unwrap();
    let fades_of = |config: &LodConfig| {
        let fades = LodController::new(config).unwrap().fades().clone();
        if dithered {
            fades
        } else {
            fades.hard()
        }
    };
    let (now, before) = (
        fades_of(&config),
        fades_of(&LodConfig::fixed_bands(
            EDGES_M.iter().map(|e| e + STEP_M).collect(),
        )),
    );
    let direction = Vec3::new(0.9, 0.3, -1.0).normalize();
    let camera_at = |step: usize| {
        let eye = direction * (edge - DOLLY_HALF_M + STEP_M * step as f32);
        let camera = CameraView {
            vfov: 20.0,
            ..CameraView::new(eye, centre)
        };
        (eye, camera)
    };
    let mut changes = BucketChanges::default();
    controller.tick(&mut registry, camera_at(0).0, 0.0);
    props.sync_from(&mut registry, &mut changes);
    (1..=(2.0 * DOLLY_HALF_M / STEP_M) as usize)
        .map(|step| {
            let (eye, camera) = camera_at(step);
            props.set_lod_fades(before.clone());
            let counterfactual = stage.frame(&mut props, &registry, camera, (320, 180));
            controller.tick(&mut registry, eye, step as f64);
            props.sync_from(&mut registry, &mut changes);
            props.set_lod_fades(now.clone());
            [
                stage.frame(&mut props, &registry, camera, (320, 180)),
                counterfactual,
            ]
        })
        .collect()
}

/// The dolly's frame step.
const STEP_M: f32 = 0.5;

/// How far the dolly starts before a band edge and ends past it.
const DOLLY_HALF_M: f32 = 6.0;

/// The largest frame-to-frame change (mean per channel, 0–255, over the frame) the LOD
/// changes make in a dolly: each frame's difference from its counterfactual.
fn largest_pop(frames: &[[RgbaImage; 2]]) -> f64 {
    frames
        .iter()
        .map(|[frame, counterfactual]| {
            let sum: u64 = frame
                .pixels
                .chunks_exact(4)
                .zip(counterfactual.pixels.chunks_exact(4))
                .flat_map(|(p, q)| {
                    p[..3]
                        .iter()
                        .zip(&q[..3])
                        .map(|(a, b)| u64::from(a.abs_diff(*b)))
                })
                .sum();
            sum as f64 / (3 * frame.pixels.len() / 4) as f64
        })
        .fold(0.0, f64::max)
}

#[test]
fn a_dolly_through_every_band_edge_pops_at_most_half_as_much_with_dithered_transitions() {
    let _gpu = GPU.lock().unwrap_or_else(|e| e.into_inner());
    let cache = sylva_testkit::kit_cache();
    let oak = prop_files(&cache, "broadleaf/oak_wide");
    let mut stage = Stage::new(flat_ground(129, 4.0));
    for edge in EDGES_M {
        let hard = largest_pop(&dolly(&mut stage, &oak, edge, false));
        let dithered = largest_pop(&dolly(&mut stage, &oak, edge, true));
        println!(
            "edge {edge} m: largest frame-to-frame pop {hard:.3} hard, {dithered:.3} dithered"
        );
        assert!(hard > 0.0, "edge {edge} m: the hard switch changed nothing");
        assert!(
            dithered <= 0.5 * hard,
            "edge {edge} m: {dithered:.3} dithered against {hard:.3} hard"
        );
    }
}

//! A small rendering stage for the GPU tests that compare pictures: flat ground, a
//! props plugin fed straight from baked entries, frames, and the measures and pictures
//! of a comparison.

use std::path::Path;

use glam::Mat4;
use sylva_bake::{bake_folder, BakeOptions};
use sylva_buckets::{BucketChanges, PlacementRegistry};
use sylva_cache::{CacheDir, PropFiles};
use sylva_render::props::{PropsRenderer, TextureUpload};
use sylva_render::{
    draw_frame_with_overlays, offscreen_target, read_rgba8, render_image, CameraView, OutputFrame,
    Overlays, RenderContext, RgbaImage, Scene, OUTPUT_FORMAT,
};
use sylva_runtime::{geometry_of, impostor_of, shape_of};
use sylva_terrain::Terrain;

/// Flat ground, 64 m square, well above the water.
pub fn flat_ground(side: usize, spacing: f32) -> Terrain {
    Terrain::new(side, side, spacing, vec![0.0; side * side], -10.0).unwrap()
}

pub fn output_dir() -> std::path::PathBuf {
    let out = super::repo().join("target/gpu-test-output");
    std::fs::create_dir_all(&out).unwrap();
    out
}

/// A rendering set-up: a context, flat ground and an empty props plugin.
pub struct Stage {
    pub context: RenderContext,
    pub scene: Scene,
    pub terrain: Terrain,
}

impl Stage {
    pub fn new(terrain: Terrain) -> Self {
        let mut context = RenderContext::new(OUTPUT_FORMAT).unwrap();
        let scene = Scene::new(&mut context, &terrain).unwrap();
        Stage {
            context,
            scene,
            terrain,
        }
    }

    /// A frame of `props` (with its placements in `registry`) from `camera`.
    pub fn frame(
        &mut self,
        props: &mut PropsRenderer,
        registry: &PlacementRegistry,
        camera: CameraView,
        (width, height): (u32, u32),
    ) -> RgbaImage {
        self.scene
            .update_terrain(&self.context.renderer, &self.terrain, &camera);
        render_image(
            &mut self.context,
            &self.scene,
            props,
            registry,
            camera,
            width,
            height,
        )
        .unwrap()
        .0
    }

    /// A props plugin drawing `prop` once per transform, and the registry it mirrors.
    pub fn plugin(
        &self,
        prop: &PropFiles,
        transforms: &[Mat4],
        level: u8,
        upload: TextureUpload,
    ) -> (PropsRenderer, PlacementRegistry) {
        let view = prop.parse().unwrap();
        let mut props = PropsRenderer::new(&self.context.renderer, &self.context.base.interfaces);
        props.set_texture_upload(upload);
        let mut registry = PlacementRegistry::new();
        let key = registry.intern(view.entry.prop_id);
        registry.set_prop_shape(key, shape_of(&view.entry)).unwrap();
        props
            .set_prop(
                &self.context.renderer,
                key,
                &geometry_of(&view),
                impostor_of(&view).as_ref(),
            )
            .unwrap();
        for (id, transform) in transforms.iter().enumerate() {
            registry.insert(id as u64, key, *transform, level).unwrap();
        }
        let mut changes = BucketChanges::default();
        props.sync_from(&mut registry, &mut changes);
        (props, registry)
    }

    /// Which pixels `props` (with its placements in `registry`) covers from `camera`,
    /// its shadows left out: drawn as editor gizmos, which cast none, over the empty
    /// scene, against `background`, the empty scene's frame from `camera`.
    pub fn coverage(
        &mut self,
        props: &mut PropsRenderer,
        registry: &PlacementRegistry,
        camera: CameraView,
        (width, height): (u32, u32),
        background: &RgbaImage,
    ) -> Vec<bool> {
        let (mut empty, no_placements) = self.empty();
        let (texture, view) = offscreen_target(&self.context.renderer, width, height);
        draw_frame_with_overlays(
            &mut self.context,
            &self.scene,
            &mut empty,
            &no_placements,
            Overlays {
                gizmos: Some((props, registry)),
                hud: None,
            },
            camera,
            (width, height),
            OutputFrame::View(view),
        );
        let drawn = read_rgba8(
            &self.context.renderer.device,
            &self.context.renderer.queue,
            &texture,
            width,
            height,
        )
        .unwrap();
        drawn
            .pixels
            .chunks_exact(4)
            .zip(background.pixels.chunks_exact(4))
            .map(|(p, g)| differs(p, g))
            .collect()
    }

    pub fn empty(&self) -> (PropsRenderer, PlacementRegistry) {
        (
            PropsRenderer::new(&self.context.renderer, &self.context.base.interfaces),
            PlacementRegistry::new(),
        )
    }
}

/// The mean colour difference (0–255, averaged over R, G and B) between `a` and `b` over
/// the pixels where either differs from `background`: the prop's pixels.
pub fn mean_difference_over_prop(
    a: &RgbaImage,
    b: &RgbaImage,
    background: &RgbaImage,
) -> (f64, usize) {
    let (mut sum, mut pixels) = (0u64, 0usize);
    for (p, q) in prop_pixels(a, b, background) {
        pixels += 1;
        sum += p[..3]
            .iter()
            .zip(&q[..3])
            .map(|(x, y)| u64::from(x.abs_diff(*y)))
            .sum::<u64>();
    }
    (sum as f64 / (3 * pixels.max(1)) as f64, pixels)
}

/// The pixels (RGBA) of `a` and `b` where either differs from `background` by more than
/// 2 in a channel: a prop's pixels, its shadow included.
fn prop_pixels<'a>(
    a: &'a RgbaImage,
    b: &'a RgbaImage,
    background: &'a RgbaImage,
) -> impl Iterator<Item = (&'a [u8], &'a [u8])> {
    a.pixels
        .chunks_exact(4)
        .zip(b.pixels.chunks_exact(4))
        .zip(background.pixels.chunks_exact(4))
        .filter(move |((p, q), g)| differs(p, g) || differs(q, g))
        .map(|((p, q), _)| (p, q))
}

/// Whether two pixels differ by more than 2 in a colour channel.
pub fn differs(p: &[u8], q: &[u8]) -> bool {
    p[..3].iter().zip(&q[..3]).any(|(x, y)| x.abs_diff(*y) > 2)
}

/// `images` side by side, left to right.
pub fn side_by_side(images: &[&RgbaImage]) -> RgbaImage {
    let (w, h) = (images[0].width, images[0].height);
    let mut out = RgbaImage {
        width: w * images.len() as u32,
        height: h,
        pixels: vec![0; (w * h * 4) as usize * images.len()],
    };
    for (i, image) in images.iter().enumerate() {
        for y in 0..h as usize {
            let row = &image.pixels[y * w as usize * 4..(y + 1) * w as usize * 4];
            let at = (y * out.width as usize + i * w as usize) * 4;
            out.pixels[at..at + row.len()].copy_from_slice(row);
        }
    }
    out
}

pub fn save(name: &str, image: &RgbaImage) {
    std::fs::write(output_dir().join(name), image.to_png().unwrap()).unwrap();
}

pub fn baked_prop(assets: &Path, cache: &CacheDir, prop: &str) -> PropFiles {
    let report = bake_folder(assets, cache, &BakeOptions::default()).unwrap();
    assert_eq!(report.failed(), 0);
    let manifest = cache.read_manifest().unwrap();
    cache
        .read_prop(&manifest.prop(prop).unwrap().1.entry)
        .unwrap()
}

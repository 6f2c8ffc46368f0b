//! Frame time on whatever adapter there is (lavapipe where there is no GPU;
//! `scripts/gpu-bench` runs it on a GPU) for the same busy session drawn
//! two ways in one run: through the instanced-bucket plugin, and as one rend3 object per
//! placement part (each LOD its own mesh) — the prototype's starting point; both
//! without impostors, which rend3 objects cannot draw. Also the GPU vertex bytes of
//! each. Then the far band: every preset filled over the whole world, from the
//! overview, with impostors as the last level and without (the coarsest mesh). Both
//! sessions switch LODs by the fixed 30/90/150 m bands: these figures compare ways of
//! drawing the same instances, which screen-space culling would thin out
//! (`scripts/lod-quality` compares the policies).

use criterion::{criterion_group, criterion_main, Criterion};
use sylva_buckets::PlacementRegistry;
use sylva_lod::LodConfig;
use sylva_render::props::PropsRenderer;
use sylva_render::reference::ObjectPart;
use sylva_render::{render_image, CameraView, RenderContext, Scene, OUTPUT_FORMAT};
use sylva_runtime::{geometry_of, Runtime};
use sylva_terrain::{default_world, Landmark};
use sylva_world::World;

#[path = "../tests/common/mod.rs"]
mod common;

/// A 960×540 frame, and a 320×180 one where pixels cost little and what remains is the
/// work per draw, vertex and triangle.
const SIZES: [(u32, u32); 2] = [(960, 540), (320, 180)];

fn frames(c: &mut Criterion) {
    let (_dir, cache) = common::baked_kit();
    let world = under_fixed_bands(common::busy_world());

    let camera = CameraView::landmark(&default_world(), Landmark::Meadow);
    let mut plugin = Runtime::new(RenderContext::new(OUTPUT_FORMAT).unwrap(), world).unwrap();
    plugin.set_impostors(false);
    plugin.load_cache(&cache).unwrap();
    let (width, height) = SIZES[0];
    let (_, stats) = plugin.render_image(camera, 0.0, width, height).unwrap();

    // The same instances at the same LODs, as rend3 objects.
    let mut context = RenderContext::new(OUTPUT_FORMAT).unwrap();
    let mut scene = Scene::new(&mut context, &default_world()).unwrap();
    scene.update_terrain(&context.renderer, &default_world(), &camera);
    let mut no_props = PropsRenderer::new(&context.renderer, &context.base.interfaces);
    let no_placements = PlacementRegistry::new();
    let manifest = cache.read_manifest().unwrap();
    let registry = plugin.world().registry();
    let (mut objects, mut object_vertex_bytes) = (Vec::new(), 0u64);
    for (name, loaded) in plugin.loaded() {
        let files = cache.read_prop(&loaded.entry).unwrap();
        let parts: Vec<ObjectPart> = geometry_of(&files.parse().unwrap())
            .iter()
            .map(|g| ObjectPart::upload(&context.renderer, g).unwrap())
            .collect();
        object_vertex_bytes += parts.iter().map(|p| p.vertex_bytes).sum::<u64>();
        for (key, bucket) in registry.buckets() {
            if registry.prop_name(key.prop).unwrap() != name {
                continue;
            }
            for transform in bucket.transforms() {
                objects.push(parts[usize::from(key.part)].add_object(
                    &context.renderer,
                    usize::from(key.lod),
                    *transform,
                ));
            }
        }
        assert!(manifest.prop(name).is_some());
    }
    assert_eq!(objects.len(), stats.draw.instances_in_buckets);
    println!(
        "session: {} placements, {} instances ({} in the camera's view, per LOD {:?}, {} triangles; \
         {} in the sun's); plugin: {} instanced draws in the camera pass and {} in the shadow pass, \
         {} vertex bytes on the GPU; rend3 objects: {} objects, one draw each per pass (prepass, \
         forward, shadow) after rend3's own culling, {} vertex bytes (one mesh per LOD)",
        stats.placements,
        stats.draw.instances_in_buckets,
        stats.draw.instances,
        stats.draw.instances_per_lod,
        stats.draw.triangles,
        stats.draw.shadow_instances,
        stats.draw.draw_calls,
        stats.draw.shadow_draw_calls,
        stats.draw.vertex_bytes,
        objects.len(),
        object_vertex_bytes
    );

    record(
        "meadow",
        serde_json::json!({
            "adapter": plugin.context().adapter(),
            "placements": stats.placements,
            "instances": stats.draw.instances_in_buckets,
            "plugin": {
                "draw_calls": stats.draw.draw_calls,
                "shadow_draw_calls": stats.draw.shadow_draw_calls,
                "triangles": stats.draw.triangles,
            },
            "one_rend3_object_per_placement_part": {
                "objects": objects.len(),
                "draw_calls_per_pass": objects.len(),
            },
        }),
    );

    let mut rend3_frame = |width, height| {
        render_image(
            &mut context,
            &scene,
            &mut no_props,
            &no_placements,
            camera,
            width,
            height,
        )
        .unwrap()
    };
    let mut now = 1.0;
    for (width, height) in SIZES {
        let mut group = c.benchmark_group(format!("frame_{width}x{height}"));
        group.sample_size(10);
        group.bench_function("instanced_buckets", |b| {
            b.iter(|| {
                now += 1.0;
                plugin.render_image(camera, now, width, height).unwrap()
            })
        });
        group.bench_function("one_rend3_object_per_placement_part", |b| {
            b.iter(|| rend3_frame(width, height))
        });
        group.finish();
    }
    // The same frames once the objects are gone: what the terrain, sky and shadows cost.
    drop(objects);
    for (width, height) in SIZES {
        let mut group = c.benchmark_group(format!("frame_{width}x{height}"));
        group.sample_size(10);
        group.bench_function("terrain_only", |b| b.iter(|| rend3_frame(width, height)));
        group.finish();
    }
}

/// Adds `stats` under `name` to `target/frames-stats.json` (what `scripts/gpu-bench`
/// reports beside criterion's times).
fn record(name: &str, stats: serde_json::Value) {
    let path = common::repo().join("target/frames-stats.json");
    let mut all: serde_json::Map<String, serde_json::Value> = std::fs::read(&path)
        .ok()
        .and_then(|bytes| serde_json::from_slice(&bytes).ok())
        .unwrap_or_default();
    all.insert(name.to_owned(), stats);
    std::fs::write(&path, serde_json::to_vec_pretty(&all).unwrap()).unwrap();
}

/// `world`'s session replayed under the fixed 30/90/150 m bands.
fn under_fixed_bands(world: World) -> World {
    let bands = LodConfig::fixed_bands(vec![30.0, 90.0, 150.0]);
    World::replay(world.terrain().clone(), world.editor().session(), &bands)
        .unwrap()
        .0
}

/// The whole-world session from the overview, with and without impostors, side by side.
fn far_band(c: &mut Criterion) {
    let (_dir, cache) = common::baked_kit();
    let camera = CameraView::overview(&default_world());
    let (width, height) = SIZES[0];
    let mut runtimes = [true, false].map(|impostors| {
        let world = under_fixed_bands(common::whole_world());
        let mut runtime = Runtime::new(RenderContext::new(OUTPUT_FORMAT).unwrap(), world).unwrap();
        runtime.set_impostors(impostors);
        runtime.load_cache(&cache).unwrap();
        let (_, stats) = runtime.render_image(camera, 0.0, width, height).unwrap();
        record(
            if impostors {
                "overview_impostors"
            } else {
                "overview_coarsest_mesh"
            },
            serde_json::json!({
                "adapter": runtime.context().adapter(),
                "placements": stats.placements,
                "instances_in_view": stats.draw.instances,
                "per_level": stats.draw.instances_per_lod,
                "triangles": stats.draw.triangles,
                "draw_calls": stats.draw.draw_calls,
                "shadow_draw_calls": stats.draw.shadow_draw_calls,
            }),
        );
        println!(
            "whole world, impostors {}: {} placements, {} instances in view, per level {:?}, \
             {} triangles, {} draws; shadows {} instances",
            if impostors { "on" } else { "off" },
            stats.placements,
            stats.draw.instances,
            stats.draw.instances_per_lod,
            stats.draw.triangles,
            stats.draw.draw_calls,
            stats.draw.shadow_instances,
        );
        runtime
    });
    let mut group = c.benchmark_group(format!("overview_whole_world_{width}x{height}"));
    group.sample_size(10);
    let mut now = 1.0;
    for (runtime, name) in runtimes.iter_mut().zip(["impostors", "coarsest_mesh"]) {
        group.bench_function(name, |b| {
            b.iter(|| {
                now += 1.0;
                runtime.render_image(camera, now, width, height).unwrap()
            })
        });
    }
    group.finish();
}

criterion_group!(benches, frames, far_band);
criterion_main!(benches);

//! Where an impostor stops paying: each kit prop with an impostor drawn as a field of
//! instances spread evenly over the ground from its impostor's switch distance out (to
//! eight times as far, and to its size cull), seen from eye height, once as its coarsest
//! mesh and once as its impostor (and the empty field, whose frame the two share), side
//! by side in one run on whatever adapter there is (lavapipe where there is no GPU;
//! `scripts/gpu-bench` runs it on a GPU). The near field's ratio of the two frame times,
//! against the coarsest mesh's triangles per pixel where the impostor takes over, is
//! the crossover the bake's `IMPOSTOR_MIN_DENSITY` comes from.

use criterion::{criterion_group, criterion_main, Criterion};
use glam::{Mat4, Vec3};
use sylva_bake::{bake_folder, BakeOptions};
use sylva_cache::CacheDir;
use sylva_catalog::CatalogFile;
use sylva_render::props::TextureUpload;
use sylva_render::CameraView;

#[path = "../tests/common/mod.rs"]
mod common;

use common::stage::{flat_ground, Stage};

/// The frame: 960×540, pixels a metre as the camera's 55° field of view gives.
const FRAME: (u32, u32) = (960, 540);

/// Instances in a field, about: a grid filling the camera's view from the switch
/// distance out.
const FIELD_INSTANCES: usize = 2000;

/// How far each field reaches, in switch distances: the near field (8), where the
/// impostor takes over from the mesh and is largest on screen, and the whole range to
/// where the prop covers a pixel and is culled (or the ground ends), where instances
/// spread evenly are most of them far out and small.
const FIELDS: [(&str, f32); 2] = [("near", 8.0), ("to_cull", f32::INFINITY)];

/// How far the ground reaches from the camera.
const GROUND_REACH_M: f32 = 3900.0;

/// The camera stands this high above the ground, looking level over the field.
const EYE_HEIGHT_M: f32 = 1.7;

/// Where the camera stands: near the middle of the ground's south edge, looking north
/// over 4 km of it.
const ORIGIN: Vec3 = Vec3::new(0.0, 0.0, -2000.0);

/// The kit baked into a fresh folder with an impostor for every prop that can have
/// one, whatever its coarsest mesh (`impostor_min_density: Some(0.0)` on every
/// category).
fn kit_with_every_impostor() -> (tempfile::TempDir, CacheDir) {
    let dir = tempfile::tempdir().unwrap();
    let assets = dir.path().join("assets");
    sylva_testkit::copy_dir(&common::repo().join("assets"), &assets);
    let path = assets.join("catalog.ron");
    let text = std::fs::read_to_string(&path).unwrap();
    let mut catalog = CatalogFile::from_ron(&text, "catalog.ron").unwrap();
    for category in catalog.categories.values_mut() {
        category.bake.impostor_min_density = Some(0.0);
    }
    std::fs::write(&path, ron::to_string(&catalog).unwrap()).unwrap();
    let cache = CacheDir::new(dir.path().join("cache"));
    let report = bake_folder(&assets, &cache, &BakeOptions::default()).unwrap();
    assert_eq!(report.failed(), 0);
    (dir, cache)
}

fn crossover(c: &mut Criterion) {
    let (_dir, cache) = kit_with_every_impostor();
    let manifest = cache.read_manifest().unwrap();
    let mut stage = Stage::new(flat_ground(2, 4096.0));
    let mut now = 0.0;
    for record in manifest.assets.values() {
        let name = &record.prop;
        let files = cache.read_prop(&record.entry).unwrap();
        let view = files.parse().unwrap();
        let Some(impostor) = view.entry.impostor() else {
            continue;
        };
        let lods = view
            .entry
            .parts
            .iter()
            .map(|p| p.levels.len())
            .max()
            .unwrap() as u8;
        let coarsest_error = view
            .entry
            .parts
            .iter()
            .flat_map(|p| &p.levels)
            .map(|l| l.error_m)
            .fold(0.0, f32::max);
        let triangles: u32 = view
            .entry
            .parts
            .iter()
            .filter_map(|p| p.levels.last())
            .map(|l| l.triangle_count())
            .sum();
        let radius = view.entry.sphere.radius;
        // The switch distance on this frame at a pixel of tolerance: where the larger
        // error covers a pixel. Each field runs from there out, at most to where the
        // prop covers a pixel.
        let vfov = CameraView::new(Vec3::ZERO, Vec3::ONE).vfov.to_radians();
        let per_metre_at_1m = FRAME.1 as f32 / (2.0 * (vfov / 2.0).tan());
        let near = coarsest_error.max(impostor.error_m) * per_metre_at_1m;
        for (field, depth) in FIELDS {
            let far = (depth * near)
                .min(2.0 * radius * per_metre_at_1m)
                .min(GROUND_REACH_M);
            let half_width = (vfov / 2.0).tan() * FRAME.0 as f32 / FRAME.1 as f32;
            let area = half_width * (far * far - near * near);
            let spacing = (area / FIELD_INSTANCES as f32).sqrt();
            let transforms: Vec<Mat4> = (0..)
                .map(|row| near + (row as f32 + 0.5) * spacing)
                .take_while(|&z| z < far)
                .flat_map(|z| {
                    let columns = (z * half_width / spacing) as i32;
                    (-columns..=columns).map(move |column| (column as f32 * spacing, z))
                })
                .map(|(x, z)| Mat4::from_translation(Vec3::new(ORIGIN.x + x, 0.0, ORIGIN.z + z)))
                .collect();
            let eye = ORIGIN + Vec3::new(0.0, EYE_HEIGHT_M, 0.0);
            let camera = CameraView::new(eye, eye + Vec3::Z);
            let mut group = c.benchmark_group(format!(
            "impostor_crossover/{field}/{name} ({triangles} triangles, {:.0} px at {near:.0} m, {} instances to {far:.0} m)",
            2.0 * radius / coarsest_error.max(impostor.error_m),
            transforms.len()
        ));
            group.sample_size(10);
            let kinds = [
                (0, "nothing"),
                (transforms.len(), "coarsest_mesh"),
                (transforms.len(), "impostor"),
            ];
            for (level, (count, what)) in [lods - 1, lods - 1, lods].into_iter().zip(kinds) {
                let (mut props, registry) =
                    stage.plugin(&files, &transforms[..count], level, TextureUpload::Native);
                group.bench_function(what, |b| {
                    b.iter(|| {
                        now += 1.0;
                        stage.frame(&mut props, &registry, camera, FRAME)
                    })
                });
            }
            group.finish();
        }
    }
}

criterion_group!(benches, crossover);
criterion_main!(benches);

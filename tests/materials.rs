//! Materials on a real Vulkan driver (lavapipe where there is no GPU; without an adapter
//! these tests fail, they never skip):
//!
//! - rend3 is the oracle: a prop drawn by sylva's props shader and the same mesh and
//!   material drawn as a rend3 object, from the same camera, look the same;
//! - block-compressed textures uploaded as blocks and decoded to RGBA8 look the same;
//! - coverage-preserving mips keep alpha-tested grass steadier than plain mips when the
//!   camera creeps at 80 m.
//!
//! Pictures of each comparison are left in `target/gpu-test-output/`.

use crate::common;

use common::stage::{
    baked_prop, flat_ground, mean_difference_over_prop, save, side_by_side, Stage,
};

use glam::{Mat4, Vec3};
use sylva_bake::texture::{bake_texture, TextureSettings};
use sylva_cache::{
    encode, encode_texture, BakedAsset, BakedLevel, BakedPart, CacheDir, ImpostorRecord, PropFiles,
};
use sylva_mesh::{
    Aabb, Material, Sphere, Texture, TextureBinding, TextureKind, Vertex, VertexQuantization,
    WrapMode,
};
use sylva_render::props::{PartGeometry, TextureUpload};
use sylva_render::reference::ObjectPart;
use sylva_render::{CameraView, RgbaImage};
use sylva_runtime::geometry_of;

use common::GPU;

const SIZE: (u32, u32) = (320, 240);

/// The barrel of the real corpus baked into a fresh cache.
fn barrel() -> PropFiles {
    let assets = common::one_prop_assets(
        "pbr",
        r#"(family: "prop")"#,
        "tests/data/real/pbr/barrel.glb",
    );
    let out = tempfile::tempdir().unwrap();
    baked_prop(assets.path(), &CacheDir::new(out.path()), "pbr/barrel")
}

/// A generated test prop: a UV sphere (radius 0.5 m, resting on the ground) with every
/// channel textured: a checker base colour, a bumpy normal map, and roughness, metallic
/// and occlusion bands, plus a faint emission. Its tangent frame is right-handed (`w` =
/// 1), which rend3, whose bitangent ignores `w`, reads the same.
fn test_sphere() -> PropFiles {
    let (segments, rings) = (48u32, 24u32);
    let mut vertices = Vec::new();
    for r in 0..=rings {
        let polar = std::f32::consts::PI * r as f32 / rings as f32;
        for s in 0..=segments {
            let azimuth = std::f32::consts::TAU * s as f32 / segments as f32;
            let n = Vec3::new(
                polar.sin() * azimuth.cos(),
                polar.cos(),
                polar.sin() * azimuth.sin(),
            );
            // u runs against the azimuth, v down from the top (the image's rows): the
            // tangent is ∂p/∂u and the bitangent, the image's up, −∂p/∂v.
            let tangent = Vec3::new(azimuth.sin(), 0.0, -azimuth.cos());
            let up = Vec3::new(
                -polar.cos() * azimuth.cos(),
                polar.sin(),
                -polar.cos() * azimuth.sin(),
            );
            let w = if n.cross(tangent).dot(up) >= 0.0 {
                1.0
            } else {
                -1.0
            };
            vertices.push(Vertex {
                position: (n * 0.5 + Vec3::Y * 0.5).to_array(),
                normal: n.to_array(),
                uv: [1.0 - s as f32 / segments as f32, r as f32 / rings as f32],
                tangent: [tangent.x, tangent.y, tangent.z, w],
                color: [255; 4],
            });
        }
    }
    assert!(
        vertices.iter().all(|v| v.tangent[3] == 1.0),
        "a right-handed frame"
    );
    let row = segments + 1;
    let mut indices = Vec::new();
    for r in 0..rings {
        for s in 0..segments {
            let (a, b) = (r * row + s, r * row + s + 1);
            let (c, d) = (a + row, b + row);
            indices.extend([a, c, b, b, c, d]);
        }
    }
    let texture = |kind, texel: &dyn Fn(u32, u32) -> [u8; 4]| {
        let size = 128;
        let rgba8 = (0..size * size)
            .flat_map(|i| texel(i % size, i / size))
            .collect();
        let baked = bake_texture(
            &Texture {
                width: size,
                height: size,
                kind,
                rgba8,
            },
            None,
            &TextureSettings::default(),
        );
        encode_texture(&baked).unwrap()
    };
    let colour = texture(TextureKind::Color, &|x, y| {
        if (x / 16 + y / 16) % 2 == 0 {
            [200, 60, 40, 255]
        } else {
            [230, 210, 170, 255]
        }
    });
    let normal = texture(TextureKind::Normal, &|x, y| {
        let (fx, fy) = (x as f32 / 8.0, y as f32 / 8.0);
        let n = Vec3::new(0.5 * fx.sin(), 0.5 * fy.cos(), 1.0).normalize();
        let byte = |c: f32| ((c * 0.5 + 0.5) * 255.0).round() as u8;
        [byte(n.x), byte(n.y), byte(n.z), 255]
    });
    // Occlusion in R, roughness in G, metallic in B (glTF's ORM packing).
    let orm = texture(TextureKind::Linear, &|x, y| {
        [
            if y % 32 < 4 { 90 } else { 255 },
            (40 + x * 215 / 127) as u8,
            if (y / 32) % 2 == 0 { 0 } else { 255 },
            255,
        ]
    });
    let binding = |texture| {
        Some(TextureBinding {
            texture,
            wrap_u: WrapMode::Repeat,
            wrap_v: WrapMode::Repeat,
        })
    };
    let material = Material {
        name: "test sphere".into(),
        base_color_texture: binding(0),
        normal_texture: binding(1),
        metallic_roughness_texture: binding(2),
        occlusion_texture: binding(2),
        emissive_factor: [0.02, 0.01, 0.0],
        ..Material::default()
    };
    let (quantization, vertices) = VertexQuantization::fit_and_snap(&vertices);
    let bounds = Aabb::of_points(vertices.iter().map(|v| &v.position));
    let part = BakedPart {
        name: "sphere".into(),
        material,
        bounds,
        sphere: Sphere {
            center: [0.0, 0.5, 0.0],
            radius: 0.5,
        },
        vertices,
        quantization,
        levels: vec![BakedLevel {
            indices,
            target_ratio: 1.0,
            achieved_ratio: 1.0,
            error: 0.0,
            error_m: 0.0,
        }],
    };
    let textures = [colour, normal, orm];
    let asset = BakedAsset {
        prop_id: "test/sphere".into(),
        source_path: "test/sphere.glb".into(),
        bounds,
        sphere: Sphere {
            center: [0.0, 0.5, 0.0],
            radius: 0.5,
        },
        parts: vec![part],
        textures: textures.iter().map(|t| t.id).collect(),
        impostor: ImpostorRecord::refused("a test prop without an impostor"),
    };
    PropFiles {
        entry: encode(&asset).unwrap(),
        textures: textures.into_iter().map(|t| t.bytes).collect(),
    }
}

/// A camera looking at `bounds` from the sun's side, a little above, from `distance`
/// radii away.
fn close_up(prop: &PropFiles, distance: f32) -> CameraView {
    let view = prop.parse().unwrap();
    let bounds = view.entry.bounds;
    let (min, max) = (Vec3::from(bounds.min), Vec3::from(bounds.max));
    let centre = (min + max) / 2.0;
    let radius = (max - min).length() / 2.0;
    CameraView::new(
        centre + Vec3::new(0.9, 0.55, -1.0).normalize() * radius * distance,
        centre,
    )
}

/// The same prop drawn by sylva's props shader and as rend3 objects (one per part, rend3-
/// routine's PBR material with the same textures, decoded) from one camera.
fn drawn_both_ways(prop: &PropFiles, name: &str) -> (f64, usize) {
    let mut stage = Stage::new(flat_ground(65, 1.0));
    let camera = close_up(prop, 2.6);
    let (mut empty, no_placements) = stage.empty();
    let background = stage.frame(&mut empty, &no_placements, camera, SIZE);
    let (mut props, registry) = stage.plugin(prop, &[Mat4::IDENTITY], 0, TextureUpload::Native);
    let sylva = stage.frame(&mut props, &registry, camera, SIZE);
    drop((props, registry));
    let view = prop.parse().unwrap();
    let geometry: Vec<PartGeometry> = geometry_of(&view);
    let parts: Vec<ObjectPart> = geometry
        .iter()
        .map(|g| ObjectPart::upload(&stage.context.renderer, g).unwrap())
        .collect();
    let _objects: Vec<_> = parts
        .iter()
        .map(|p| p.add_object(&stage.context.renderer, 0, Mat4::IDENTITY))
        .collect();
    let rend3 = stage.frame(&mut empty, &no_placements, camera, SIZE);
    save(
        &format!("{name}-sylva-vs-rend3.png"),
        &side_by_side(&[&sylva, &rend3]),
    );
    mean_difference_over_prop(&sylva, &rend3, &background)
}

/// The bound on the mean colour difference over the prop's pixels, out of 255 (measured:
/// 0.67 for the test sphere, 2.93 for the barrel). Where the two paths agree by
/// construction (the BRDF, sun, shadow filter, ambient floor, texture decode) they
/// differ by rasterisation at the silhouette and by mip levels: rend3 reads level 0
/// only (see `reference.rs`), sylva the mip its footprint asks for, and the barrel's
/// 1024² maps are minified about six times. A material mistake moves the mean by far
/// more: sampling the checker as linear instead of sRGB shifts its colours by 30–60.
const ORACLE_BOUND: f64 = 4.0;

/// `prop` drawn both ways covers a good part of the frame and stays within the bound.
fn assert_looks_like_rend3(prop: &PropFiles, name: &str) {
    let _gpu = GPU.lock().unwrap_or_else(|e| e.into_inner());
    let (difference, pixels) = drawn_both_ways(prop, name);
    println!("{name}: mean colour difference {difference:.2} over {pixels} pixels");
    assert!(pixels > 8_000, "{name} fills the frame: {pixels} pixels");
    assert!(
        difference <= ORACLE_BOUND,
        "{name}: {difference:.2} over {pixels} pixels"
    );
}

#[test]
fn a_textured_pbr_sphere_looks_the_same_drawn_by_sylva_and_as_a_rend3_object() {
    assert_looks_like_rend3(&test_sphere(), "pbr-sphere");
}

#[test]
fn the_pbr_barrel_looks_the_same_drawn_by_sylva_and_as_a_rend3_object() {
    assert_looks_like_rend3(&barrel(), "pbr-barrel");
}

/// Both upload paths where the adapter has both (lavapipe has `TEXTURE_COMPRESSION_BC`,
/// as every desktop GPU); an adapter without it must get the decoding path.
#[test]
fn bc_textures_sampled_as_blocks_look_like_their_rgba8_decode() {
    let _gpu = GPU.lock().unwrap_or_else(|e| e.into_inner());
    let prop = barrel();
    let mut stage = Stage::new(flat_ground(65, 1.0));
    let native = TextureUpload::for_renderer(&stage.context.renderer);
    println!("adapter {}: uploads {native:?}", stage.context.adapter());
    let camera = close_up(&prop, 2.6);
    let mut frame = |upload| {
        let start = std::time::Instant::now();
        let (mut props, registry) = stage.plugin(&prop, &[Mat4::IDENTITY], 0, upload);
        let loaded = start.elapsed();
        assert_eq!(props.texture_upload(), upload);
        let (count, bytes) = props.texture_memory();
        println!(
            "{upload:?}: {count} textures, {bytes} bytes on the GPU, parsed and uploaded in {:.1} ms",
            loaded.as_secs_f64() * 1000.0
        );
        (stage.frame(&mut props, &registry, camera, SIZE), bytes)
    };
    let (decoded, decoded_bytes) = frame(TextureUpload::Rgba8);
    if native == TextureUpload::Rgba8 {
        println!("no BC support: every texture is decoded on upload");
        return;
    }
    let (blocks, block_bytes) = frame(TextureUpload::Native);
    // BC1 is 4 bits a texel and BC5 8, against RGBA8's 32: the material's three
    // textures take a sixth. The impostor's normal atlas is RGBA8 either way (0.79 of
    // its 0.98 MB of atlases as blocks, 1.57 MB decoded), so more than 4.5× in all.
    assert!(
        9 * block_bytes < 2 * decoded_bytes,
        "{block_bytes} against {decoded_bytes}"
    );
    let diff = blocks.diff(&decoded, 2).unwrap();
    save(
        "bc-blocks-vs-rgba8.png",
        &side_by_side(&[&blocks, &decoded]),
    );
    assert!(
        diff.mean_difference < 0.25 && diff.differing_pixels < 100,
        "blocks and their decode differ: {diff:?}"
    );
}

/// The bundled grass cards (`grass/tuft_cards`, alpha-tested) baked with or without
/// coverage-preserving mips.
fn grass_cards(coverage_mips: bool) -> PropFiles {
    let entry = format!(
        r#"(family: "groundcover", bake: (lock_border: Some(false), coverage_mips: Some({coverage_mips})))"#
    );
    let assets = common::one_prop_assets("grass", &entry, "assets/grass/tuft_cards.glb");
    let out = tempfile::tempdir().unwrap();
    baked_prop(
        assets.path(),
        &CacheDir::new(out.path()),
        "grass/tuft_cards",
    )
}

/// Grass tufts every `step` metres over `x` × `z`, each turned and scaled by a hash of
/// its cell.
fn grass_field(x: (f32, f32), z: (f32, f32), step: f32) -> Vec<Mat4> {
    let mut transforms = Vec::new();
    let (columns, rows) = (((x.1 - x.0) / step) as u32, ((z.1 - z.0) / step) as u32);
    for row in 0..rows {
        for column in 0..columns {
            let hash = (column.wrapping_mul(0x9E37_79B9) ^ row.wrapping_mul(0x85EB_CA6B))
                .wrapping_mul(0xC2B2_AE35);
            let jitter = |shift: u32| ((hash >> shift) & 0xFF) as f32 / 255.0;
            let position = Vec3::new(
                x.0 + (column as f32 + jitter(0)) * step,
                0.0,
                z.0 + (row as f32 + jitter(8)) * step,
            );
            transforms.push(Mat4::from_scale_rotation_translation(
                Vec3::splat(0.8 + 0.4 * jitter(16)),
                glam::Quat::from_rotation_y(jitter(24) * std::f32::consts::TAU),
                position,
            ));
        }
    }
    transforms
}

/// The fraction of foliage pixels (those either frame draws differently from the bare
/// ground) whose colour changes by more than 8 levels between `a` and `b`.
fn changed_foliage(a: &RgbaImage, b: &RgbaImage, ground: &RgbaImage) -> (f64, usize) {
    let differs =
        |p: &[u8], q: &[u8], by: u8| p[..3].iter().zip(&q[..3]).any(|(x, y)| x.abs_diff(*y) > by);
    let (mut foliage, mut changed) = (0usize, 0usize);
    for ((p, q), g) in a
        .pixels
        .chunks_exact(4)
        .zip(b.pixels.chunks_exact(4))
        .zip(ground.pixels.chunks_exact(4))
    {
        if differs(p, g, 2) || differs(q, g, 2) {
            foliage += 1;
            changed += usize::from(differs(p, q, 8));
        }
    }
    (changed as f64 / foliage.max(1) as f64, foliage)
}

/// A frame wide enough for tufts at 80 m to cover a few pixels each.
const FOLIAGE_SIZE: (u32, u32) = (640, 360);

/// Alpha-tested grass at 80 m with the camera moved 2 cm sideways: with plain mips
/// the cards' coverage thins with distance and the sparse texels that still pass the
/// test flicker from frame to frame; coverage-preserving mips keep the cards solid, so
/// fewer foliage pixels change. Also draws the 60–150 m field both ways.
#[test]
fn coverage_preserving_mips_keep_distant_grass_steadier_than_plain_mips() {
    let _gpu = GPU.lock().unwrap_or_else(|e| e.into_inner());
    let mut stage = Stage::new(flat_ground(257, 1.0));
    let (mut empty, none) = stage.empty();
    // 80 m from the band's centre, looking down at it as a painter above the forest.
    let eye = Vec3::new(0.0, 30.0, -74.2);
    let at_80 = CameraView::new(eye, Vec3::ZERO);
    let moved = CameraView::new(eye + Vec3::new(0.02, 0.0, 0.0), Vec3::new(0.02, 0.0, 0.0));
    let ground = stage.frame(&mut empty, &none, at_80, FOLIAGE_SIZE);
    let band = grass_field((-20.0, 20.0), (-8.0, 8.0), 0.25);
    // The field from 60 to 150 m.
    let far = CameraView::new(Vec3::new(0.0, 30.0, -52.0), Vec3::new(0.0, 0.0, 45.0));
    let field = grass_field((-45.0, 45.0), (0.0, 90.0), 0.6);
    let mut fractions = Vec::new();
    let mut pictures = Vec::new();
    for coverage_mips in [false, true] {
        let cards = grass_cards(coverage_mips);
        // Level 2, as the LOD controller draws tufts past 30 m.
        let (mut props, registry) = stage.plugin(&cards, &band, 2, TextureUpload::Native);
        let a = stage.frame(&mut props, &registry, at_80, FOLIAGE_SIZE);
        let b = stage.frame(&mut props, &registry, moved, FOLIAGE_SIZE);
        let (fraction, foliage) = changed_foliage(&a, &b, &ground);
        println!(
            "coverage-preserving mips {coverage_mips}: {:.1} % of {foliage} foliage pixels change",
            fraction * 100.0
        );
        fractions.push(fraction);
        let (mut props, registry) = stage.plugin(&cards, &field, 2, TextureUpload::Native);
        pictures.push(stage.frame(&mut props, &registry, far, FOLIAGE_SIZE));
    }
    save(
        "grass-plain-vs-coverage-mips.png",
        &side_by_side(&[&pictures[0], &pictures[1]]),
    );
    assert!(
        fractions[1] < fractions[0],
        "coverage-preserving {:.3} against plain {:.3}",
        fractions[1],
        fractions[0]
    );
}

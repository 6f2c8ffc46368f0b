//! Importing real glTF files written by others, and refusing broken ones clearly.

use crate::common;

use std::fs;
use std::io;
use std::path::Path;

use common::{gltf_file, repo};
use sylva_import::{import, ImportError, Imported};
use sylva_mesh::{AlphaMode, WrapMode};

/// Imports `path`, serving external files from its folder; returns what the resolver
/// was asked for too.
fn import_file(path: &Path) -> (Result<Imported, ImportError>, Vec<String>) {
    let bytes = fs::read(path).unwrap();
    let folder = path.parent().unwrap().to_owned();
    let mut asked = Vec::new();
    let result = import(&bytes, &mut |name: &str| -> io::Result<Vec<u8>> {
        asked.push(name.to_owned());
        fs::read(folder.join(name))
    });
    (result, asked)
}

fn triangles(imported: &Imported) -> usize {
    imported.parts.iter().map(|p| p.indices.len() / 3).sum()
}

#[test]
fn box_glb_imports_one_red_part_of_twelve_triangles() {
    let imported = import_file(&gltf_file("Box.glb")).0.unwrap();
    assert_eq!(imported.parts.len(), 1);
    let part = &imported.parts[0];
    assert_eq!(
        (
            part.name.as_str(),
            part.vertices.len(),
            triangles(&imported)
        ),
        ("Red", 24, 12)
    );
    assert_eq!(part.material.base_color_factor, [0.8, 0.0, 0.0, 1.0]);
    assert!(!part.generated_normals);
    // The parent node's matrix turns the model's +Z up into +Y: the top face's
    // normals, authored as +Z, now point up.
    assert!(part.vertices.iter().any(|v| v.normal == [0.0, 1.0, 0.0]));
}

#[test]
fn the_milk_truck_reads_its_bin_and_png_and_places_the_wheels_twice() {
    let (imported, asked) = import_file(&gltf_file("CesiumMilkTruck.gltf"));
    let imported = imported.unwrap();
    assert_eq!(asked, ["CesiumMilkTruck0.bin", "CesiumMilkTruck.png"]);
    let names: Vec<&str> = imported.parts.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(
        names,
        ["truck", "glass", "window_trim", "wheels", "wheels#2"]
    );
    assert_eq!(triangles(&imported), 3_624);
    let texture = &imported.textures[0];
    assert_eq!(
        imported.textures.len(),
        1,
        "the truck and the wheels share one image"
    );
    assert_eq!(
        texture.rgba8.len(),
        (texture.width * texture.height * 4) as usize
    );
    let binding = imported.parts[0].material.base_color_texture.unwrap();
    assert_eq!(
        (binding.wrap_u, binding.wrap_v),
        (WrapMode::Repeat, WrapMode::Repeat)
    );
    let centre = |i: usize| {
        let v = &imported.parts[i].vertices;
        v.iter().map(|v| v.position[0]).sum::<f32>() / v.len() as f32
    };
    assert!(
        (centre(3) - centre(4)).abs() > 1.0,
        "front and rear axles sit apart"
    );
}

#[test]
fn cesium_man_decodes_its_jpeg_texture() {
    let imported = import_file(&gltf_file("CesiumMan.glb")).0.unwrap();
    assert_eq!(triangles(&imported), 4_672);
    let texture = &imported.textures[0];
    assert!(texture.width > 0 && texture.height > 0);
    assert_eq!(
        texture.rgba8.len(),
        (texture.width * texture.height * 4) as usize
    );
    assert_eq!(imported.parts[0].material.alpha_mode, AlphaMode::Opaque);
}

#[test]
fn u32_and_u8_indices_with_external_buffers_give_the_same_quad() {
    let quad = |file: &str| import_file(&gltf_file(file)).0.unwrap().parts.remove(0);
    let (u32_quad, u8_quad) = (
        quad("Mesh_PrimitiveMode_13.gltf"),
        quad("Mesh_PrimitiveMode_14.gltf"),
    );
    assert_eq!(u32_quad.indices.len(), 6);
    assert_eq!(u32_quad.vertices, u8_quad.vertices);
    assert_eq!(u32_quad.indices, u8_quad.indices);
    assert!(u32_quad.generated_normals, "the files have no normals");
}

#[test]
fn sheen_cloth_imports_despite_its_required_texture_transform() {
    let imported = import_file(&gltf_file("SheenCloth.glb")).0.unwrap();
    assert_eq!(triangles(&imported), 115_200);
    assert_eq!(imported.parts[0].vertices.len(), 58_081);
}

#[test]
fn every_truncation_of_a_glb_is_a_clear_error() {
    let bytes = fs::read(gltf_file("Box.glb")).unwrap();
    for len in 0..bytes.len() {
        let result = import(&bytes[..len], &mut |_: &str| -> io::Result<Vec<u8>> {
            Err(io::ErrorKind::NotFound.into())
        });
        let err = result.expect_err("a cut file does not import");
        assert!(!err.to_string().is_empty());
    }
}

#[test]
fn broken_files_are_refused_naming_the_culprit() {
    let expected = [
        ("truncated.glb", "GLB container: the header declares 1664 bytes but the file has 832"),
        ("bad_json.gltf", "JSON line"),
        (
            "index_out_of_range.gltf",
            "meshes[0].primitives[0].indices: index 9 at position 5 is not below the vertex count 4",
        ),
        (
            "accessor_past_buffer.gltf",
            "bufferViews[0]: needs bytes 0..480 of buffers[0], which has 72",
        ),
        (
            "escaping_uri.gltf",
            "buffers[0].uri: refusing URI `../gltf/Mesh_PrimitiveMode_13.bin`: `..` leaves the asset's folder",
        ),
        (
            "huge_count.gltf",
            "accessors[0].count: 2147483648 elements exceed the import limit of 4194304",
        ),
    ];
    for (file, message) in expected {
        let (result, asked) = import_file(&repo().join("tests/data/broken").join(file));
        let err = result.expect_err(file).to_string();
        assert!(err.starts_with(message), "{file}: {err}");
        assert!(asked.is_empty(), "{file} reached the resolver: {asked:?}");
    }
}

#[test]
fn random_byte_flips_never_panic() {
    // xorshift: a fixed, dependency-free stream of mutations.
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for file in [
        "Box.glb",
        "CesiumMilkTruck.gltf",
        "Mesh_PrimitiveMode_14.gltf",
    ] {
        let path = gltf_file(file);
        let original = fs::read(&path).unwrap();
        let folder = path.parent().unwrap().to_owned();
        for _ in 0..300 {
            let mut bytes = original.clone();
            for _ in 0..1 + next() % 4 {
                let at = (next() % bytes.len() as u64) as usize;
                bytes[at] ^= 1 << (next() % 8);
            }
            // Ok or Err are both fine; a panic fails the test.
            let _ = import(&bytes, &mut |name: &str| fs::read(folder.join(name)));
        }
    }
}

/// The same prop before and after `gltfpack -c` / `-cc` (quantised, meshopt-compressed,
/// octahedral-filtered normals under `-cc`): the same triangles, and every source
/// corner has a packed corner within the quantisation step whose normal is within 5°.
#[test]
fn gltfpack_meshopt_compressed_files_import_like_their_sources() {
    use glam::Vec3;
    use std::collections::HashMap;
    for (packed, source) in [
        ("Rock1_gltfpack_c.glb", "quaternius_simple/Rock1.glb"),
        (
            "CommonTree_1_gltfpack_cc.glb",
            "quaternius_nature/CommonTree_1.glb",
        ),
    ] {
        let packed = import_file(&gltf_file(packed)).0.unwrap();
        let source = import_file(&repo().join("tests/data/real").join(source))
            .0
            .unwrap();
        assert_eq!(triangles(&packed), triangles(&source));
        let corners = |imported: &Imported| -> Vec<(Vec3, Vec3)> {
            imported
                .parts
                .iter()
                .flat_map(|p| p.indices.iter().map(|&i| p.vertices[i as usize]))
                .map(|v| (Vec3::from(v.position), Vec3::from(v.normal).normalize()))
                .collect()
        };
        let (packed, source) = (corners(&packed), corners(&source));
        let (lo, hi) = source.iter().fold(
            (Vec3::splat(f32::MAX), Vec3::splat(f32::MIN)),
            |(lo, hi), (p, _)| (lo.min(*p), hi.max(*p)),
        );
        // 14-bit positions: a step is 1/16383 of the extent.
        let step = (hi - lo).max_element() / 16383.0;
        let cell = |p: Vec3| ((p - lo) / (4.0 * step)).floor().as_ivec3();
        let mut grid: HashMap<glam::IVec3, Vec<(Vec3, Vec3)>> = HashMap::new();
        for &(p, n) in &packed {
            grid.entry(cell(p)).or_default().push((p, n));
        }
        let min_cos = 5f32.to_radians().cos();
        for &(p, n) in &source {
            let c = cell(p);
            let found = (-1..=1).any(|x| {
                (-1..=1).any(|y| {
                    (-1..=1).any(|z| {
                        grid.get(&(c + glam::IVec3::new(x, y, z)))
                            .into_iter()
                            .flatten()
                            .any(|(q, m)| (*q - p).length() <= 2.0 * step && m.dot(n) >= min_cos)
                    })
                })
            });
            assert!(found, "no packed corner near {p} with normal {n}");
        }
    }
}

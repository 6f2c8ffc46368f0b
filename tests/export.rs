//! `sylva-export`'s `.glb` read by real clients: the Khronos glTF validator reports no
//! errors, and three.js's GLTFLoader (under Node) builds InstancedMeshes whose instance
//! matrices, converted back to sylva's left-handed frame, are the session's placement
//! transforms.

use crate::common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use glam::Mat4;
use sylva_cache::PropFiles;
use sylva_export::{frame, write_glb, ExportOptions, ExportReport};
use sylva_scatter::Placement;
use sylva_world::World;

/// Exports `world`'s placements with the kit cache's props to `dir/scene.glb`.
fn export(world: &World, dir: &Path, with_terrain: bool) -> (PathBuf, ExportReport) {
    let cache = sylva_testkit::kit_cache();
    let manifest = cache.read_manifest().unwrap();
    let files: BTreeMap<&str, PropFiles> = manifest
        .assets
        .values()
        .map(|e| (e.prop.as_str(), cache.read_prop(&e.entry).unwrap()))
        .collect();
    let props = files
        .iter()
        .map(|(id, files)| (*id, files.parse().unwrap()))
        .collect();
    let placements: Vec<&Placement> = world.editor().painter().placements().collect();
    let mesh = with_terrain.then(|| world.terrain().mesh());
    let options = ExportOptions {
        terrain: mesh.as_ref(),
        ..Default::default()
    };
    let path = dir.join("scene.glb");
    let mut file = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
    let report = write_glb(&mut file, &props, &placements, options).unwrap();
    drop(file);
    assert!(report.left_out.is_empty(), "{:?}", report.left_out);
    assert_eq!(report.placements, placements.len());
    (path, report)
}

#[test]
fn an_exported_world_passes_the_khronos_gltf_validator() {
    let world = common::busy_world();
    let dir = tempfile::tempdir().unwrap();
    let (path, report) = export(&world, dir.path(), true);
    assert!(report.instancing_nodes > 1, "{report:?}");
    let validator = common::repo().join("tools/propgen/validator");
    common::node::install(&validator, "gltf-validator");
    let stdout = common::node::node(&validator.join("validate.js"), &[&path]);
    assert!(
        stdout.contains(": 0 errors, "),
        "validator output:\n{stdout}"
    );
    assert!(
        stdout.contains("1 files, 0 errors"),
        "validator output:\n{stdout}"
    );
}

#[test]
fn three_js_instances_are_the_session_placements() {
    let world = common::busy_world();
    let dir = tempfile::tempdir().unwrap();
    let (path, report) = export(&world, dir.path(), true);
    let checker = common::repo().join("tests/export-check");
    common::node::install(&checker, "three");
    let stdout = common::node::node(&checker.join("instances.mjs"), &[&path]);
    let loaded: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(
        loaded["plainMeshes"], 1,
        "the terrain is the one plain mesh"
    );
    // The `gltf` crate refuses KHR_mesh_quantization, which it does not implement; the
    // Khronos validator checks the file.
    let document =
        gltf::Gltf::from_slice_without_validation(&std::fs::read(&path).unwrap()).unwrap();
    let images = loaded["images"].as_array().unwrap();
    assert_eq!(
        images.len(),
        document.images().count(),
        "every texture loads"
    );
    assert!(images
        .iter()
        .all(|size| size[0].as_u64() > Some(0) && size[1].as_u64() > Some(0)));
    let nodes = loaded["nodes"].as_array().unwrap();
    assert_eq!(nodes.len(), report.instancing_nodes);
    let floats = |v: &serde_json::Value| -> Vec<f32> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_f64().unwrap() as f32)
            .collect()
    };
    let mut loaded_transforms = Vec::new();
    for node in nodes {
        assert_eq!(
            node["sameInstances"], true,
            "every part draws the same instances"
        );
        let world_matrix = Mat4::from_cols_slice(&floats(&node["world"]));
        assert!(world_matrix.abs_diff_eq(Mat4::IDENTITY, 1e-6));
        let matrices = floats(&node["matrices"]);
        assert_eq!(matrices.len() as u64, node["count"].as_u64().unwrap() * 16);
        for m in matrices.chunks_exact(16) {
            // glTF's right-handed frame back to sylva's left-handed one.
            loaded_transforms.push(frame::matrix(Mat4::from_cols_slice(m)));
        }
    }
    let mut placed: Vec<Mat4> = world
        .editor()
        .painter()
        .placements()
        .map(Placement::transform)
        .collect();
    assert_eq!(loaded_transforms.len(), placed.len());
    let by_position = |a: &Mat4, b: &Mat4| {
        let (a, b) = (a.w_axis.to_array(), b.w_axis.to_array());
        a.partial_cmp(&b).unwrap()
    };
    loaded_transforms.sort_by(by_position);
    placed.sort_by(by_position);
    for (loaded, placed) in loaded_transforms.iter().zip(&placed) {
        assert!(
            loaded.abs_diff_eq(*placed, 1e-5),
            "three.js instance {loaded} is not placement {placed}"
        );
    }
}

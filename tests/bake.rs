//! The folder bake end to end: incremental, deterministic, self-healing, checkable,
//! and readable by the runtime through the manifest.

use crate::common;

use std::fs;
use std::path::Path;

use common::{add_file, temp_assets};
use sylva_bake::stages::StopReason;
use sylva_bake::{
    bake_asset, bake_folder, check_folder, AssetError, AssetSource, BakeOptions, BakeSettings,
    Finding, FolderReport, ImpostorSummary, Status,
};
use sylva_cache::{CacheDir, Entry, Manifest, PropFiles};

const CATEGORIES: [&str; 3] = ["box", "quad", "truck"];
const FILES: [(&str, &str); 4] = [
    ("box", "Box.glb"),
    ("quad", "Mesh_PrimitiveMode_13.gltf"),
    ("quad", "Mesh_PrimitiveMode_13.bin"),
    ("truck", "CesiumMilkTruck.gltf"),
];

/// The box, the quad and the truck, each category giving every prop an impostor
/// (`impostor_min_density: Some(0.0)`; by default the box's twelve triangles keep
/// their mesh), so that the atlases' blobs take part.
fn full_assets() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    common::write_catalog(dir.path(), &CATEGORIES, "impostor_min_density: Some(0.0)");
    for (category, file) in FILES {
        add_file(dir.path(), category, file);
    }
    add_file(dir.path(), "truck", "CesiumMilkTruck0.bin");
    add_file(dir.path(), "truck", "CesiumMilkTruck.png");
    dir
}

fn bake(assets: &Path, cache: &CacheDir) -> FolderReport {
    bake_folder(assets, cache, &BakeOptions::default()).unwrap()
}

fn baked_paths(report: &FolderReport) -> Vec<&str> {
    report
        .assets
        .iter()
        .filter(|a| matches!(a.status, Status::Baked { .. }))
        .map(|a| a.path.as_str())
        .collect()
}

/// What `sylva check` would print.
fn check_messages(assets: &Path, cache: &CacheDir) -> Vec<String> {
    check_folder(assets, cache)
        .unwrap()
        .iter()
        .map(|f| f.to_string())
        .collect()
}

fn cache_in(dir: &tempfile::TempDir) -> CacheDir {
    CacheDir::new(dir.path().join("cache"))
}

/// The blob files the entry of the asset at `path` names (material textures and
/// impostor atlases), in its order.
fn blobs_of(cache: &CacheDir, path: &str) -> Vec<String> {
    let listed = &cache.read_manifest().unwrap().assets[path];
    let bytes = cache.read_entry(&listed.entry).unwrap();
    let entry = Entry::parse(&bytes).unwrap();
    entry.textures.iter().map(|id| id.file_name()).collect()
}

/// `source` (a path in the repository) baked alone into a fresh cache, as the only prop
/// of category `category` (its own family): the assets and cache folders, and the cache.
fn baked_alone(category: &str, source: &str) -> (tempfile::TempDir, tempfile::TempDir, CacheDir) {
    let assets = common::one_prop_assets(category, r#"(family: "prop")"#, source);
    let out = tempfile::tempdir().unwrap();
    let cache = cache_in(&out);
    bake(assets.path(), &cache);
    (assets, out, cache)
}

/// The entry and blobs of `prop` as the manifest lists it.
fn prop_files(cache: &CacheDir, prop: &str) -> PropFiles {
    let manifest = cache.read_manifest().unwrap();
    let (_, listed) = manifest.prop(prop).unwrap();
    cache.read_prop(&listed.entry).unwrap()
}

#[test]
fn only_changed_assets_rebake() {
    let assets = full_assets();
    let out = tempfile::tempdir().unwrap();
    let cache = cache_in(&out);
    let first = bake(assets.path(), &cache);
    assert_eq!(first.baked(), 3);
    assert!(first.manifest_written);

    let warm = bake(assets.path(), &cache);
    assert_eq!((warm.baked(), warm.current()), (0, 3));
    assert!(!warm.manifest_written, "a no-op bake writes nothing");

    // Changing the truck's external .bin re-bakes the truck and nothing else.
    let bin = assets.path().join("truck/CesiumMilkTruck0.bin");
    let mut bytes = fs::read(&bin).unwrap();
    bytes[100] ^= 1;
    fs::write(&bin, bytes).unwrap();
    let after = bake(assets.path(), &cache);
    assert_eq!(baked_paths(&after), ["truck/CesiumMilkTruck.gltf"]);
    assert_eq!(
        after.removed_entries.len(),
        1,
        "the truck's old entry is gone"
    );
    assert_eq!(cache.entry_files().unwrap().len(), 3);
}

#[test]
fn deleting_an_asset_removes_its_entry_and_manifest_line() {
    let assets = full_assets();
    let out = tempfile::tempdir().unwrap();
    let cache = cache_in(&out);
    bake(assets.path(), &cache);
    let entry = cache.read_manifest().unwrap().assets["box/Box.glb"]
        .entry
        .clone();
    let atlases = blobs_of(&cache, "box/Box.glb");
    assert_eq!(atlases.len(), 3, "the box's impostor");
    fs::remove_file(assets.path().join("box/Box.glb")).unwrap();
    let report = bake(assets.path(), &cache);
    assert_eq!(report.removed_assets, ["box/Box.glb"]);
    let mut removed = vec![entry];
    removed.extend(atlases.iter().cloned());
    assert_eq!(report.removed_entries[0], removed[0], "entries first");
    let mut removed_blobs = report.removed_entries[1..].to_vec();
    removed_blobs.sort();
    removed[1..].sort();
    assert_eq!(removed_blobs, removed[1..]);
    assert!(!cache
        .read_manifest()
        .unwrap()
        .assets
        .contains_key("box/Box.glb"));
    assert!(check_folder(assets.path(), &cache).unwrap().is_empty());
}

#[test]
fn a_flipped_byte_in_an_entry_is_detected_and_rebaked() {
    let assets = full_assets();
    let out = tempfile::tempdir().unwrap();
    let cache = cache_in(&out);
    bake(assets.path(), &cache);
    let name = cache.read_manifest().unwrap().assets["box/Box.glb"]
        .entry
        .clone();
    let good = cache.read_entry(&name).unwrap();
    let mut corrupt = good.clone();
    corrupt[good.len() / 2] ^= 0x40;
    let atlases = blobs_of(&cache, "box/Box.glb");
    fs::write(cache.root().join(&name), &corrupt).unwrap();
    // The corrupt entry is the one finding: its impostor's blobs are the fresh bake's,
    // not strays, though the corrupt entry cannot name them.
    assert!(!atlases.is_empty());
    let findings = check_folder(assets.path(), &cache).unwrap();
    assert!(
        matches!(&findings[..], [Finding::Different { path, .. }] if path == "box/Box.glb"),
        "{findings:?}"
    );
    let report = bake(assets.path(), &cache);
    assert_eq!(baked_paths(&report), ["box/Box.glb"]);
    assert_eq!(cache.read_entry(&name).unwrap(), good);
    assert_eq!(
        cache.read_manifest().unwrap().assets["box/Box.glb"].revision,
        1,
        "same content, same revision"
    );
}

#[test]
fn a_missing_corrupt_or_stray_texture_blob_is_found_by_check_and_healed_by_the_bake() {
    let assets = full_assets();
    let out = tempfile::tempdir().unwrap();
    let cache = cache_in(&out);
    bake(assets.path(), &cache);
    let truck = "truck/CesiumMilkTruck.gltf";
    // Its one material texture, then its impostor's three atlases.
    let [blob, _, _, _] = &blobs_of(&cache, truck)[..] else {
        panic!("the truck's texture is one blob");
    };
    let blob_path = cache.root().join(blob);
    let good = fs::read(&blob_path).unwrap();

    fs::remove_file(&blob_path).unwrap();
    assert!(matches!(
        &check_folder(assets.path(), &cache).unwrap()[..],
        [Finding::TextureMissing { path, texture }] if path == truck && texture == blob
    ));
    let runtime_error = cache
        .read_prop(&cache.read_manifest().unwrap().assets[truck].entry)
        .unwrap_err()
        .to_string();
    assert!(runtime_error.contains(blob.as_str()), "{runtime_error}");
    assert_eq!(baked_paths(&bake(assets.path(), &cache)), [truck]);
    assert_eq!(fs::read(&blob_path).unwrap(), good);

    let mut corrupt = good.clone();
    corrupt[good.len() / 2] ^= 0x08;
    fs::write(&blob_path, &corrupt).unwrap();
    assert!(matches!(
        &check_folder(assets.path(), &cache).unwrap()[..],
        [Finding::TextureDifferent { path, .. }] if path == truck
    ));
    assert_eq!(baked_paths(&bake(assets.path(), &cache)), [truck]);
    assert_eq!(fs::read(&blob_path).unwrap(), good);

    let stray = format!("{}.sylvatex", "0".repeat(64));
    fs::write(cache.root().join(&stray), b"x").unwrap();
    assert_eq!(
        check_messages(assets.path(), &cache),
        [format!("unreferenced: {stray} belongs to no asset")]
    );
    let report = bake(assets.path(), &cache);
    assert_eq!(report.removed_entries, [stray]);
    assert!(check_folder(assets.path(), &cache).unwrap().is_empty());
}

#[test]
fn props_sharing_a_texture_store_one_blob_that_goes_with_the_last_of_them() {
    let assets = full_assets();
    common::add_truck_copies(assets.path());
    let truck = assets.path().join("truck/CesiumMilkTruck.gltf");
    let out = tempfile::tempdir().unwrap();
    let cache = cache_in(&out);
    bake(assets.path(), &cache);
    let manifest = cache.read_manifest().unwrap();
    let trucks: Vec<_> = manifest
        .assets
        .iter()
        .filter(|(path, _)| path.starts_with("truck/"))
        .map(|(_, listed)| {
            Entry::parse(&cache.read_entry(&listed.entry).unwrap())
                .unwrap()
                .textures
        })
        .collect();
    assert_eq!(trucks.len(), 4);
    assert!(trucks.iter().all(|t| *t == trucks[0]), "{trucks:?}");
    assert_eq!(
        trucks[0].len(),
        4,
        "a texture and the impostor's three atlases"
    );
    // The box's impostor atlases are the only other blobs.
    let others = blobs_of(&cache, "box/Box.glb").len();
    let stored = || cache.texture_files().unwrap().len();
    assert_eq!(stored(), 4 + others, "stored once");

    for copy in ["a", "b", "c"] {
        fs::remove_file(assets.path().join(format!("truck/{copy}.gltf"))).unwrap();
    }
    let report = bake(assets.path(), &cache);
    assert_eq!(report.removed_entries.len(), 3, "the copies' entries only");
    assert_eq!(stored(), 4 + others, "the truck keeps them");
    fs::remove_file(truck).unwrap();
    let report = bake(assets.path(), &cache);
    assert_eq!(
        report.removed_entries.len(),
        5,
        "the truck's entry and blobs"
    );
    assert_eq!(stored(), others);
}

#[test]
fn entries_written_before_the_manifest_are_kept_by_the_next_bake() {
    let assets = full_assets();
    let out = tempfile::tempdir().unwrap();
    let cache = cache_in(&out);
    bake(assets.path(), &cache);
    let manifest = cache.read_manifest().unwrap();
    // What a bake killed between its entries and its manifest leaves behind.
    fs::remove_file(cache.manifest_path()).unwrap();
    let resumed = bake(assets.path(), &cache);
    assert_eq!((resumed.baked(), resumed.current()), (0, 3));
    assert_eq!(cache.read_manifest().unwrap(), manifest);
    assert!(check_folder(assets.path(), &cache).unwrap().is_empty());
}

fn failure_of<'r>(report: &'r FolderReport, path: &str) -> &'r AssetError {
    let asset = report.assets.iter().find(|a| a.path == path).unwrap();
    match &asset.status {
        Status::Failed { error, .. } => error,
        other => panic!("{path}: expected a failure, got {other:?}"),
    }
}

#[test]
fn symlinks_leading_out_of_the_asset_folder_are_refused() {
    let assets = temp_assets(&["quad", "box"], &FILES[..3]);
    let outside = tempfile::tempdir().unwrap();
    let out = tempfile::tempdir().unwrap();
    let cache = cache_in(&out);
    // The quad's buffer: a link to a copy outside the assets folder.
    let bin = assets.path().join("quad/Mesh_PrimitiveMode_13.bin");
    fs::rename(&bin, outside.path().join("stolen.bin")).unwrap();
    std::os::unix::fs::symlink(outside.path().join("stolen.bin"), &bin).unwrap();
    // The box's whole category folder: a link to a folder outside.
    let box_folder = assets.path().join("box");
    fs::rename(&box_folder, outside.path().join("box")).unwrap();
    std::os::unix::fs::symlink(outside.path().join("box"), &box_folder).unwrap();

    let report = bake(assets.path(), &cache);
    for path in ["quad/Mesh_PrimitiveMode_13.gltf", "box/Box.glb"] {
        let error = failure_of(&report, path);
        assert!(
            matches!(error, AssetError::OutsideFolder { .. }),
            "{path}: {error}"
        );
    }
    assert!(cache.read_manifest().unwrap().assets.is_empty());

    // A link that stays inside the folder is a file like any other.
    fs::remove_file(&bin).unwrap();
    fs::copy(
        outside.path().join("stolen.bin"),
        assets.path().join("quad/real.bin"),
    )
    .unwrap();
    std::os::unix::fs::symlink("real.bin", &bin).unwrap();
    let report = bake(assets.path(), &cache);
    assert_eq!(baked_paths(&report), ["quad/Mesh_PrimitiveMode_13.gltf"]);
}

#[test]
fn a_fifo_named_like_a_buffer_is_refused_not_read() {
    let assets = temp_assets(&["quad"], &FILES[1..3]);
    let out = tempfile::tempdir().unwrap();
    let bin = assets.path().join("quad/Mesh_PrimitiveMode_13.bin");
    fs::remove_file(&bin).unwrap();
    let made = std::process::Command::new("mkfifo")
        .arg(&bin)
        .status()
        .unwrap();
    assert!(made.success());
    let report = bake(assets.path(), &cache_in(&out));
    let error = failure_of(&report, "quad/Mesh_PrimitiveMode_13.gltf");
    assert!(matches!(error, AssetError::NotAFile { .. }), "{error}");
}

#[test]
fn a_broken_asset_is_reported_with_its_reason_and_the_rest_still_bake() {
    let assets = full_assets();
    fs::write(assets.path().join("box/broken.glb"), b"glTF\x02\0\0\0").unwrap();
    let out = tempfile::tempdir().unwrap();
    let cache = cache_in(&out);
    let report = bake(assets.path(), &cache);
    assert_eq!((report.baked(), report.failed()), (3, 1));
    let broken = report
        .assets
        .iter()
        .find(|a| a.path == "box/broken.glb")
        .unwrap();
    let Status::Failed { error, .. } = &broken.status else {
        panic!("expected a failure, got {:?}", broken.status)
    };
    assert!(error.to_string().contains("GLB container"), "{error}");
    assert!(matches!(
        &check_folder(assets.path(), &cache).unwrap()[..],
        [Finding::Failed { path, .. }] if path == "box/broken.glb"
    ));
}

#[test]
fn a_missing_or_corrupt_texture_names_its_material_and_file_and_the_rest_still_bake() {
    let assets = temp_assets(&CATEGORIES, &FILES);
    add_file(assets.path(), "truck", "CesiumMilkTruck0.bin");
    let out = tempfile::tempdir().unwrap();
    let cache = cache_in(&out);
    for (case, texture) in [
        ("missing", None),
        ("corrupt", Some(&b"\x89PNG\r\n\x1a\ntruncated"[..])),
    ] {
        if let Some(bytes) = texture {
            fs::write(assets.path().join("truck/CesiumMilkTruck.png"), bytes).unwrap();
        }
        let report = bake(assets.path(), &cache);
        assert_eq!(report.failed(), 1, "{case}");
        assert_eq!(
            report.baked() + report.current(),
            2,
            "{case}: the rest bake"
        );
        let message = failure_of(&report, "truck/CesiumMilkTruck.gltf").to_string();
        assert!(
            message.contains("material `truck`")
                && message.contains("baseColorTexture")
                && message.contains("CesiumMilkTruck.png"),
            "{case}: {message}"
        );
    }
}

#[test]
fn bakes_are_identical_on_one_two_and_four_threads() {
    let assets = full_assets();
    // A flat-shaded tree: its levels append face-normal vertices.
    fs::create_dir_all(assets.path().join("box")).unwrap();
    fs::copy(
        common::repo().join("tests/data/real/quaternius_nature/CommonTree_1.glb"),
        assets.path().join("box/CommonTree_1.glb"),
    )
    .unwrap();
    let bytes_with = |threads: usize| {
        let out = tempfile::tempdir().unwrap();
        let cache = cache_in(&out);
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| bake(assets.path(), &cache));
        let mut files: Vec<(String, Vec<u8>)> = [cache.entry_files(), cache.texture_files()]
            .into_iter()
            .flat_map(Result::unwrap)
            .map(|name| (name.clone(), cache.read_entry(&name).unwrap()))
            .collect();
        files.push(("manifest".into(), fs::read(cache.manifest_path()).unwrap()));
        files
    };
    let one = bytes_with(1);
    assert_eq!(
        one.len(),
        15,
        "four entries, the truck's texture, the three atlases of three impostors (the quad \
         is flat), the manifest"
    );
    assert_eq!(one, bytes_with(2));
    assert_eq!(one, bytes_with(4));
}

#[test]
fn revisions_count_content_changes_per_prop() {
    let assets = full_assets();
    let out = tempfile::tempdir().unwrap();
    let cache = cache_in(&out);
    bake(assets.path(), &cache);
    let revision = |m: &Manifest, path: &str| m.assets[path].revision;
    let path = assets.path().join("quad/Mesh_PrimitiveMode_13.bin");
    for expected in 2..4 {
        let mut bytes = fs::read(&path).unwrap();
        bytes[0] ^= 1; // nudges a vertex coordinate
        fs::write(&path, bytes).unwrap();
        bake(assets.path(), &cache);
        let manifest = cache.read_manifest().unwrap();
        assert_eq!(
            revision(&manifest, "quad/Mesh_PrimitiveMode_13.gltf"),
            expected
        );
        assert_eq!(revision(&manifest, "box/Box.glb"), 1);
    }
}

#[test]
fn check_lists_what_is_missing_stale_orphaned_or_unreferenced() {
    let assets = full_assets();
    let out = tempfile::tempdir().unwrap();
    let cache = cache_in(&out);
    assert!(matches!(
        &check_folder(assets.path(), &cache).unwrap()[0],
        Finding::Missing { .. }
    ));
    bake(assets.path(), &cache);
    assert!(check_folder(assets.path(), &cache).unwrap().is_empty());

    // A catalog override changes the truck's settings, so its key: stale.
    let catalog = assets.path().join("catalog.ron");
    let text = fs::read_to_string(&catalog).unwrap();
    fs::write(
        &catalog,
        text.replace(
            r#""truck": (family: "truck", bake: ("#,
            r#""truck": (family: "truck", bake: (lock_border: Some(false), "#,
        ),
    )
    .unwrap();
    fs::remove_file(assets.path().join("box/Box.glb")).unwrap();
    cache.write_entry("stray.sylva", b"x").unwrap();
    assert_eq!(
        check_messages(assets.path(), &cache),
        [
            "stale: truck/CesiumMilkTruck.gltf changed since it was baked (or its settings did)",
            "orphaned: the manifest lists box/Box.glb, which is gone",
            "unreferenced: stray.sylva belongs to no asset",
        ]
    );
    let report = bake(assets.path(), &cache);
    assert_eq!(baked_paths(&report), ["truck/CesiumMilkTruck.gltf"]);
    assert!(check_folder(assets.path(), &cache).unwrap().is_empty());
}

#[test]
fn the_runtime_reads_an_entry_by_prop_id_without_copying() {
    let assets = full_assets();
    let out = tempfile::tempdir().unwrap();
    let cache = cache_in(&out);
    bake(assets.path(), &cache);

    let manifest = cache.read_manifest().unwrap();
    let (path, listed) = manifest.prop("truck/CesiumMilkTruck").unwrap();
    assert_eq!(path, "truck/CesiumMilkTruck.gltf");
    assert_eq!(
        listed.sources,
        ["truck/CesiumMilkTruck0.bin", "truck/CesiumMilkTruck.png"]
    );
    let bytes = cache.read_entry(&listed.entry).unwrap();
    let entry = Entry::parse(&bytes).unwrap();
    assert_eq!(entry.prop_id, "truck/CesiumMilkTruck");
    assert_eq!(entry.parts.len(), 5);
    for part in &entry.parts {
        assert_eq!(
            part.vertex_bytes.len(),
            part.vertex_count as usize * sylva_mesh::PACKED_STRIDE
        );
        assert_eq!(part.levels.len(), 3);
        let counts: Vec<u32> = part.levels.iter().map(|l| l.index_count).collect();
        assert!(
            counts.windows(2).all(|w| w[1] <= w[0]),
            "{}: {counts:?}",
            part.name
        );
        for level in &part.levels {
            assert!(level.indices().all(|i| i < part.vertex_count));
        }
    }
    let files = cache.read_prop(&listed.entry).unwrap();
    let texture = &files.parse().unwrap().textures[0];
    assert_eq!(
        texture.levels[0].len() as u64,
        texture.format.image_bytes(texture.width, texture.height)
    );
    let range = bytes.as_ptr_range();
    assert!(range.contains(&entry.parts[0].vertex_bytes.as_ptr()));
}

#[test]
fn a_shared_three_level_chain_needs_at_most_sixty_percent_of_three_meshes() {
    let assets = full_assets();
    let out = tempfile::tempdir().unwrap();
    let cache = cache_in(&out);
    bake(assets.path(), &cache);
    let listed = &cache.read_manifest().unwrap().assets["truck/CesiumMilkTruck.gltf"];
    let bytes = cache.read_entry(&listed.entry).unwrap();
    let entry = Entry::parse(&bytes).unwrap();
    let (mut shared, mut separate) = (0, 0);
    for part in &entry.parts {
        let indices: usize = part.levels.iter().map(|l| l.index_bytes.len()).sum();
        shared += part.vertex_bytes.len() + indices;
        // Each level as its own mesh with its own copy of the attributes.
        separate += part.levels.len() * part.vertex_bytes.len() + indices;
    }
    let ratio = shared as f64 / separate as f64;
    assert!(
        ratio <= 0.6,
        "shared chain is {ratio:.2}× three separate meshes"
    );
}

/// Each triangle as the bytes of its three vertices, sorted: a mesh as drawn, whatever
/// its vertex and triangle order.
fn drawn(vertices: &[sylva_mesh::Vertex], indices: &[u32]) -> Vec<Vec<u8>> {
    let mut triangles: Vec<Vec<u8>> = indices
        .chunks_exact(3)
        .map(|t| {
            t.iter()
                .flat_map(|&i| vertices[i as usize].to_bytes())
                .collect()
        })
        .collect();
    triangles.sort();
    triangles
}

#[test]
fn every_kit_part_keeps_the_lod_invariants() {
    use sylva_bake::stages::weld;
    use sylva_bake::{build_chain, BakeSettings};

    let snapshot = common::snapshot();
    let (catalog, _) = snapshot.resolve().unwrap();
    assert!(catalog.props().len() >= 20, "the prop kit is in assets/");
    for prop in catalog.props() {
        let bytes = fs::read(common::repo().join("assets").join(&prop.file)).unwrap();
        let imported = sylva_import::import(&bytes, &mut |_: &str| {
            Err(std::io::ErrorKind::NotFound.into())
        })
        .unwrap();
        let category = &catalog.categories()[prop.category].name;
        let settings = BakeSettings::for_prop(&snapshot.file, category, &prop.id);
        for part in &imported.parts {
            let what = format!("{}: {}", prop.id, part.name);
            let (baked, stats) = build_chain(part, &settings);
            let (welded, welded_indices, _) = weld(&part.vertices, &part.indices);
            // All levels index one vertex buffer, and every index is inside it.
            assert_eq!(baked.levels.len(), 3, "{what}");
            for level in &baked.levels {
                assert!(
                    level
                        .indices
                        .iter()
                        .all(|&i| (i as usize) < baked.vertices.len()),
                    "{what}"
                );
            }
            // Level 0 is the welded import packed, vertex for vertex and bit for bit.
            let packed: Vec<_> = welded.iter().map(|v| baked.quantization.snap(v)).collect();
            assert_eq!(
                drawn(&baked.vertices, &baked.levels[0].indices),
                drawn(&packed, &welded_indices),
                "{what}"
            );
            // Packing moves a vertex by a sliver of what simplifying does: where a level's
            // error covers a pixel, packing adds under a twentieth of one (levels within
            // EXACT_LEVEL_M of the full mesh are exact, and not compared).
            let share = stats.quantize.share_of_level_error.unwrap_or(0.0);
            assert!(share < 0.05, "{what}: {:?}", stats.quantize);
            assert!(stats.quantize.normal_error_deg < 0.5, "{what}");
            // A smooth part references only its authored vertices; a faceted one may
            // append face-normal vertices after them, within 30 %.
            if is_faceted(&welded, &welded_indices) {
                assert!(baked.vertices.len() * 10 <= welded.len() * 13, "{what}");
            } else {
                assert_eq!(baked.vertices.len(), welded.len(), "{what}");
            }
            // Coarser levels have fewer triangles, or as many when LockBorder pins them.
            let triangles = stats.triangles();
            assert!(
                triangles.windows(2).all(|w| w[1] <= w[0]),
                "{what}: {triangles:?}"
            );
            assert!(
                triangles[2] < triangles[0],
                "{what} does not simplify: {triangles:?}"
            );
        }
    }
}

/// The share of the area of `indices`' triangles whose three vertex normals are all
/// within `degrees` of the triangle's face normal.
fn area_with_face_normals(vertices: &[sylva_mesh::Vertex], indices: &[u32], degrees: f32) -> f64 {
    let min_cos = degrees.to_radians().cos();
    let (mut within, mut area) = (0.0, 0.0);
    for triangle in indices.chunks_exact(3) {
        let [a, b, c] =
            [0, 1, 2].map(|k| glam::Vec3::from(vertices[triangle[k] as usize].position));
        let cross = (b - a).cross(c - a);
        let (size, face) = (f64::from(cross.length()), cross.normalize_or_zero());
        area += size;
        let fits = triangle.iter().all(|&i| {
            glam::Vec3::from(vertices[i as usize].normal)
                .normalize_or_zero()
                .dot(face)
                >= min_cos
        });
        if fits {
            within += size;
        }
    }
    if area > 0.0 {
        within / area
    } else {
        1.0
    }
}

/// Faceted: every vertex normal within 1° of its face normal.
fn is_faceted(vertices: &[sylva_mesh::Vertex], indices: &[u32]) -> bool {
    area_with_face_normals(vertices, indices, 1.0) == 1.0
}

/// Category folders for the real packs' files, by what their names say they are.
fn category_of(stem: &str) -> &'static str {
    ["Tree", "Bush", "Grass", "Rock", "Log"]
        .into_iter()
        .find(|kind| stem.contains(kind))
        .map_or("other", |kind| match kind {
            "Tree" => "tree",
            "Bush" => "bush",
            "Grass" => "grass",
            "Rock" => "rock",
            _ => "log",
        })
}

/// A temporary assets folder holding both Quaternius packs (`tests/data/real`), each
/// file in the category folder its name says.
fn quaternius_assets() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let categories = ["tree", "bush", "grass", "rock", "log", "other"];
    common::write_catalog(dir.path(), &categories, "");
    for pack in ["quaternius_simple", "quaternius_nature"] {
        for file in fs::read_dir(common::repo().join("tests/data/real").join(pack)).unwrap() {
            let path = file.unwrap().path();
            let stem = path.file_stem().unwrap().to_str().unwrap().to_owned();
            let folder = dir.path().join(category_of(&stem));
            fs::create_dir_all(&folder).unwrap();
            fs::copy(&path, folder.join(format!("{pack}_{stem}.glb"))).unwrap();
        }
    }
    dir
}

#[test]
fn flat_shaded_unwelded_packs_reduce_to_half_and_a_fifth_within_their_error() {
    let assets = quaternius_assets();
    let out = tempfile::tempdir().unwrap();
    let report = bake(assets.path(), &cache_in(&out));
    assert_eq!((report.baked(), report.failed()), (19, 0));
    let (mut large, mut reduced, mut lines) = (0, 0, Vec::new());
    for asset in &report.assets {
        let Status::Baked { report, .. } = &asset.status else {
            panic!("{}: {:?}", asset.path, asset.status)
        };
        for part in &report.parts {
            for level in &part.levels {
                assert!(level.error <= level.max_error, "{}: {level:?}", asset.path);
            }
            if part.full_triangles < 200 {
                continue;
            }
            large += 1;
            let [lod1, lod2] = [&part.levels[0], &part.levels[1]];
            if lod1.achieved_ratio <= 0.55 && lod2.achieved_ratio <= 0.20 {
                reduced += 1;
            }
            lines.push(format!(
                "{} {}: {:?} ({}, {})",
                asset.path,
                part.part,
                part.triangles(),
                lod1.stop,
                lod2.stop
            ));
        }
    }
    assert!(large >= 10, "{lines:#?}");
    assert!(
        reduced * 10 >= large * 9,
        "{reduced} of {large} parts reduced: {lines:#?}"
    );
}

#[test]
fn faceted_parts_stay_faceted_at_every_level_in_one_vertex_buffer() {
    let assets = quaternius_assets();
    let out = tempfile::tempdir().unwrap();
    let cache = cache_in(&out);
    let report = bake(assets.path(), &cache);
    // Where 30 % more vertices cannot keep a level's facets (Rock1's LOD 2 at 14
    // triangles needed 34 face-normal vertices, it may append 30), the level keeps more
    // triangles, and the report says so.
    let kept: Vec<String> = report
        .assets
        .iter()
        .flat_map(|a| match &a.status {
            Status::Baked { report, .. } => report
                .parts
                .iter()
                .filter(|p| p.levels.iter().any(|l| l.stop == StopReason::FacetBudget))
                .map(|p| format!("{} {}: {:?}", a.path, p.part, p.triangles()))
                .collect(),
            _ => Vec::new(),
        })
        .collect();
    assert!(
        kept.iter()
            .any(|k| k.starts_with("rock/quaternius_simple_Rock1.glb")),
        "{kept:#?}"
    );
    let manifest = cache.read_manifest().unwrap();
    let (mut faceted_parts, mut unfaceted) = (0, Vec::new());
    for (path, listed) in &manifest.assets {
        let bytes = cache.read_entry(&listed.entry).unwrap();
        let entry = Entry::parse(&bytes).unwrap();
        let (mut all_vertices, mut all_lod0) = (0, 0);
        for part in &entry.parts {
            let vertices: Vec<_> = part.vertices().collect();
            let levels: Vec<Vec<u32>> = part.levels.iter().map(|l| l.indices().collect()).collect();
            let lod0_vertices = levels[0].iter().max().map_or(0, |&i| i as usize + 1);
            let mut used = levels[0].clone();
            used.sort_unstable();
            used.dedup();
            assert_eq!(
                used.len(),
                lod0_vertices,
                "{path} {}: level 0 indexes a prefix of the vertices, all of it",
                part.name
            );
            all_vertices += vertices.len();
            all_lod0 += lod0_vertices;
            if !is_faceted(&vertices, &levels[0]) {
                continue;
            }
            faceted_parts += 1;
            for (lod, indices) in levels.iter().enumerate() {
                let share = area_with_face_normals(&vertices, indices, 10.0);
                if share < 0.95 {
                    unfaceted.push(format!(
                        "{path} {} LOD{lod}: {:.1} % of the area shaded as faceted",
                        part.name,
                        share * 100.0
                    ));
                }
            }
        }
        assert!(
            all_vertices * 10 <= all_lod0 * 13,
            "{path}: {all_vertices} vertices for {all_lod0} at level 0"
        );
    }
    assert!(faceted_parts >= 10, "{faceted_parts} faceted parts");
    assert!(unfaceted.is_empty(), "{unfaceted:#?}");
}

/// Box.glb with `extra` merged into its JSON chunk, as a GLB.
fn box_with(extra: serde_json::Value) -> Vec<u8> {
    let bytes = fs::read(common::gltf_file("Box.glb")).unwrap();
    let json_len = u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize;
    let mut json: serde_json::Value = serde_json::from_slice(&bytes[20..20 + json_len]).unwrap();
    if let (serde_json::Value::Object(json), serde_json::Value::Object(extra)) = (&mut json, extra)
    {
        json.extend(extra);
    }
    let mut chunk = serde_json::to_vec(&json).unwrap();
    while !chunk.len().is_multiple_of(4) {
        chunk.push(b' ');
    }
    let bin = &bytes[20 + json_len..];
    let mut out = b"glTF".to_vec();
    out.extend(2u32.to_le_bytes());
    out.extend(((12 + 8 + chunk.len() + bin.len()) as u32).to_le_bytes());
    out.extend((chunk.len() as u32).to_le_bytes());
    out.extend(0x4E4F_534Au32.to_le_bytes());
    out.extend(chunk);
    out.extend(bin);
    out
}

#[test]
fn a_required_light_bakes_with_a_warning_and_draco_is_refused_while_the_rest_bakes() {
    let assets = temp_assets(&["box"], &FILES[..1]);
    let lit = box_with(serde_json::json!({
        "extensionsUsed": ["KHR_lights_punctual"],
        "extensionsRequired": ["KHR_lights_punctual"],
        "extensions": {"KHR_lights_punctual": {"lights": [{"type": "point"}]}},
    }));
    fs::write(assets.path().join("box/lit.glb"), lit).unwrap();
    let draco = box_with(serde_json::json!({
        "extensionsUsed": ["KHR_draco_mesh_compression"],
        "extensionsRequired": ["KHR_draco_mesh_compression"],
    }));
    fs::write(assets.path().join("box/draco.glb"), draco).unwrap();
    let out = tempfile::tempdir().unwrap();
    let report = bake(assets.path(), &cache_in(&out));
    assert_eq!((report.baked(), report.failed()), (2, 1));
    let lit = report
        .assets
        .iter()
        .find(|a| a.path == "box/lit.glb")
        .unwrap();
    let Status::Baked { report: lit, .. } = &lit.status else {
        panic!("{:?}", lit.status)
    };
    let ignored = &lit.import.ignored_extensions;
    assert_eq!(ignored.len(), 1);
    assert_eq!(
        (
            ignored[0].name.as_str(),
            ignored[0].ignored,
            ignored[0].required
        ),
        ("KHR_lights_punctual", "lights", true)
    );
    let error = failure_of(&report, "box/draco.glb").to_string();
    assert!(error.contains("gltf-transform/cli decompress"), "{error}");
}

/// A `.gltf` of `quads` textured quads in a row (its own `<stem>.bin`), whose base
/// colour is the external `palette.png` every prop of the kit shares: how Kenney-style
/// kits are exported.
fn palette_prop(folder: &Path, stem: &str, quads: usize) {
    let mut bin = Vec::new();
    for q in 0..quads {
        let x = q as f32;
        for (dx, z) in [(0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0)] {
            for v in [x + dx, 0.0, z] {
                bin.extend_from_slice(&f32::to_le_bytes(v));
            }
        }
    }
    let uv_at = bin.len();
    for q in 0..quads {
        let u = (q % 16) as f32 / 16.0;
        for (du, v) in [(0.0, 0.0), (0.0625, 0.0), (0.0625, 0.0625), (0.0, 0.0625)] {
            for c in [u + du, v] {
                bin.extend_from_slice(&f32::to_le_bytes(c));
            }
        }
    }
    let index_at = bin.len();
    for q in 0..quads as u16 {
        for i in [0, 1, 2, 0, 2, 3] {
            bin.extend_from_slice(&(q * 4 + i).to_le_bytes());
        }
    }
    let vertices = quads * 4;
    let document = serde_json::json!({
        "asset": {"version": "2.0"},
        "scene": 0,
        "scenes": [{"nodes": [0]}],
        "nodes": [{"mesh": 0}],
        "meshes": [{"primitives": [{
            "attributes": {"POSITION": 0, "TEXCOORD_0": 1},
            "indices": 2,
            "material": 0
        }]}],
        "materials": [{"pbrMetallicRoughness": {"baseColorTexture": {"index": 0}}}],
        "textures": [{"source": 0}],
        "images": [{"uri": "palette.png"}],
        "buffers": [{"uri": format!("{stem}.bin"), "byteLength": bin.len()}],
        "bufferViews": [
            {"buffer": 0, "byteOffset": 0, "byteLength": uv_at},
            {"buffer": 0, "byteOffset": uv_at, "byteLength": index_at - uv_at},
            {"buffer": 0, "byteOffset": index_at, "byteLength": bin.len() - index_at}
        ],
        "accessors": [
            {"bufferView": 0, "componentType": 5126, "count": vertices, "type": "VEC3",
             "min": [0.0, 0.0, 0.0], "max": [quads as f32, 0.0, 1.0]},
            {"bufferView": 1, "componentType": 5126, "count": vertices, "type": "VEC2"},
            {"bufferView": 2, "componentType": 5123, "count": quads * 6, "type": "SCALAR"}
        ]
    });
    fs::write(folder.join(format!("{stem}.bin")), bin).unwrap();
    fs::write(folder.join(format!("{stem}.gltf")), document.to_string()).unwrap();
}

#[test]
fn four_props_sharing_a_512_palette_make_at_most_one_and_a_half_megabytes_of_cache() {
    let assets = temp_assets(&["kit"], &[]);
    let folder = assets.path().join("kit");
    fs::create_dir_all(&folder).unwrap();
    let mut png_bytes = Vec::new();
    let mut encoder = png::Encoder::new(&mut png_bytes, 512, 512);
    encoder.set_color(png::ColorType::Rgba);
    let texels: Vec<u8> = (0..512 * 512u32)
        .flat_map(|i| {
            [
                (i % 512 / 32 * 16) as u8,
                (i / 512 / 32 * 16) as u8,
                90,
                255,
            ]
        })
        .collect();
    encoder
        .write_header()
        .unwrap()
        .write_image_data(&texels)
        .unwrap();
    fs::write(folder.join("palette.png"), png_bytes).unwrap();
    // 30 to 472 triangles, like a low-poly kit.
    for (stem, quads) in [("crate", 15), ("fence", 60), ("barrel", 120), ("cart", 236)] {
        palette_prop(&folder, stem, quads);
    }
    let out = tempfile::tempdir().unwrap();
    let cache = cache_in(&out);
    let report = bake(assets.path(), &cache);
    assert_eq!((report.baked(), report.failed()), (4, 0));
    assert_eq!(cache.texture_files().unwrap().len(), 1, "one palette blob");
    let total: u64 = fs::read_dir(cache.root())
        .unwrap()
        .map(|f| f.unwrap().metadata().unwrap().len())
        .sum();
    println!("four props sharing a 512² palette: {total} bytes of cache");
    assert!(total <= 1_500_000, "{total} bytes");
}

/// The barrel of the real corpus (three 2048² textures: base colour, metallic-roughness,
/// normal map; TANGENT): its entry and blobs together at most 1.5× the source file, with
/// every channel kept, block compressed.
#[test]
fn a_pbr_barrel_bakes_every_channel_in_at_most_one_and_a_half_times_its_source() {
    let source = common::repo().join("tests/data/real/pbr/barrel.glb");
    let (_assets, _out, cache) = baked_alone("pbr", "tests/data/real/pbr/barrel.glb");
    let files = prop_files(&cache, "pbr/barrel");
    let prop = files.parse().unwrap();
    let material = &prop.entry.parts[0].material;
    assert!(material.normal_texture.is_some() && material.metallic_roughness_texture.is_some());
    let formats: Vec<_> = prop.textures.iter().map(|t| (t.width, t.format)).collect();
    use sylva_cache::PixelFormat::{Bc1Linear, Bc1Srgb, Bc3Srgb, Bc5};
    // Then the impostor's atlases: 12 views of 32² texels a side.
    assert_eq!(
        formats,
        [
            (1024, Bc1Srgb),
            (1024, Bc1Linear),
            (1024, Bc5),
            (384, Bc3Srgb),
            (384, Bc5),
            (384, Bc5)
        ]
    );
    let total = files.entry.len() + files.textures.iter().map(Vec::len).sum::<usize>();
    let source_bytes = fs::metadata(&source).unwrap().len() as usize;
    println!("the barrel: {total} bytes of cache for a {source_bytes}-byte source");
    assert!(2 * total <= 3 * source_bytes, "{total} bytes");
}

/// Packing the barrel's UVs to 16 bits moves them by a sliver of a texel of its 1024²
/// maps, and the bake says by how much.
#[test]
fn packed_uvs_of_the_pbr_barrel_move_by_under_a_fiftieth_of_a_texel() {
    let source = AssetSource {
        prop_id: "pbr/barrel".into(),
        path: "pbr/barrel.glb".into(),
        bytes: fs::read(common::repo().join("tests/data/real/pbr/barrel.glb")).unwrap(),
        externals: Vec::new(),
    };
    let settings = BakeSettings {
        impostor: None,
        ..BakeSettings::default()
    };
    let (_, report) = bake_asset(&source, &settings).unwrap();
    let texels = report.parts[0].quantize.uv_error_texels;
    assert!(texels.is_some_and(|t| t > 0.0 && t < 0.02), "{texels:?}");
}

/// A prop too small for an impostor bakes without one, and its entry and the bake's
/// summary say why; a tree gets one, its two atlases blobs of the entry in BC3, which
/// `check` verifies like every blob; the catalog can turn it off.
#[test]
fn a_prop_too_small_for_an_impostor_bakes_without_one_and_says_so() {
    let (pebble, _out, cache) = baked_alone("pebble", "assets/pebble/flint_chip.glb");
    let report = bake(pebble.path(), &cache);
    assert_eq!((report.current(), report.failed()), (1, 0));
    let Some(ImpostorSummary::Refused { reason }) =
        report.assets[0].summary.as_ref().map(|s| &s.impostor)
    else {
        panic!("{:?}", report.assets[0].summary)
    };
    assert!(reason.contains("too small"), "{reason}");
    let files = prop_files(&cache, "pebble/flint_chip");
    let prop = files.parse().unwrap();
    assert_eq!(prop.entry.impostor(), None);
    assert_eq!(prop.entry.impostor_refusal(), Some(reason.as_str()));
    assert!(prop.textures.is_empty(), "no atlas blobs");

    let (tree, _out, cache) =
        baked_alone("tree", "tests/data/real/quaternius_nature/CommonTree_1.glb");
    let files = prop_files(&cache, "tree/CommonTree_1");
    let prop = files.parse().unwrap();
    let impostor = prop.entry.impostor().expect("a tree has an impostor");
    assert_eq!(impostor.grid, 12);
    let side = impostor.grid * impostor.cell_px;
    let (albedo, normal) = (
        &prop.textures[impostor.albedo as usize],
        &prop.textures[impostor.normal as usize],
    );
    use sylva_cache::PixelFormat::{Bc3Srgb, Bc5};
    let depth = &prop.textures[impostor.depth as usize];
    assert_eq!((albedo.width, albedo.format), (side, Bc3Srgb));
    assert_eq!((normal.width, normal.format), (side, Bc5));
    assert_eq!((depth.width, depth.format), (side, Bc5));
    let smallest_cell = impostor.cell_px >> (albedo.levels.len() - 1);
    assert_eq!(smallest_cell, 4, "levels stop at cells of one BC block");
    assert!(check_messages(tree.path(), &cache).is_empty());

    fs::write(
        tree.path().join("catalog.ron"),
        r#"(categories: { "tree": (family: "prop", bake: (impostor: Some(false))) })"#,
    )
    .unwrap();
    let report = bake(tree.path(), &cache);
    assert_eq!(report.baked(), 1, "the setting is in the key");
    let Some(ImpostorSummary::Refused { reason }) =
        report.assets[0].summary.as_ref().map(|s| &s.impostor)
    else {
        panic!("{:?}", report.assets[0].summary)
    };
    assert!(reason.contains("turned off"), "{reason}");
    assert_eq!(
        cache.texture_files().unwrap().len(),
        0,
        "the atlases went with it"
    );
}

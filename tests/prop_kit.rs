//! The CC0 prop kit in `assets/`: valid glTF (Khronos validator), byte-for-byte what
//! `sylva-propgen` generates, loadable with the `gltf` crate, sized and budgeted for
//! its category, and resolved by the catalog.

use crate::common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use glam::{Mat4, Vec3};
use sylva_catalog::{Catalog, CatalogFile};
use sylva_propgen::kit::KIT;

const REGENERATE: &str = "cargo run -p sylva-propgen";

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn assets() -> PathBuf {
    root().join("assets")
}

/// Every `.glb`/`.gltf` file under `assets/`, relative and `/`-separated, sorted.
fn asset_files() -> Vec<String> {
    let mut out = Vec::new();
    for category in std::fs::read_dir(assets()).unwrap() {
        let category = category.unwrap().path();
        if !category.is_dir() {
            continue;
        }
        for file in std::fs::read_dir(&category).unwrap() {
            let path = file.unwrap().path();
            if matches!(
                path.extension().and_then(|e| e.to_str()),
                Some("glb" | "gltf")
            ) {
                let relative = path.strip_prefix(assets()).unwrap();
                out.push(relative.to_string_lossy().replace('\\', "/"));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn every_asset_passes_the_khronos_gltf_validator() {
    let validator = root().join("tools/propgen/validator");
    common::node::install(&validator, "gltf-validator");
    let stdout = common::node::node(&validator.join("validate.js"), &[&assets()]);
    let checked = stdout.lines().filter(|l| l.contains(" errors, ")).count();
    assert_eq!(checked, asset_files().len(), "validator output:\n{stdout}");
}

#[test]
fn committed_assets_match_the_generator_byte_for_byte() {
    let generated = sylva_propgen::generate_all();
    for asset in &generated {
        let path = assets().join(&asset.relative_path);
        let committed = std::fs::read(&path).unwrap_or_else(|e| {
            panic!(
                "{}: {e}; run `{REGENERATE}` and commit the result",
                path.display()
            )
        });
        if committed != asset.bytes {
            let at = committed
                .iter()
                .zip(&asset.bytes)
                .position(|(a, b)| a != b)
                .unwrap_or(committed.len().min(asset.bytes.len()));
            panic!(
                "assets/{} differs from the generator's output (first at byte {at}; {} bytes \
                 committed, {} generated): run `{REGENERATE}` and commit the result",
                asset.relative_path,
                committed.len(),
                asset.bytes.len()
            );
        }
    }
    // A file the generator wrote once but no longer makes is stale.
    let kit: BTreeSet<&str> = generated.iter().map(|a| a.relative_path.as_str()).collect();
    for file in asset_files() {
        let bytes = std::fs::read(assets().join(&file)).unwrap();
        let ours = bytes
            .windows(b"sylva-propgen".len())
            .any(|w| w == b"sylva-propgen");
        assert!(
            !ours || kit.contains(file.as_str()),
            "assets/{file} was made by sylva-propgen but is no longer in its kit: delete it"
        );
    }
}

/// Triangle budget and size rule of each category: `(min, max)` triangles, and the
/// range of the measured dimension in metres.
fn rules(category: &str) -> ((usize, usize), Dimension, (f32, f32)) {
    match category {
        "conifer" | "broadleaf" | "snag" => ((4_000, 20_000), Dimension::Height, (6.0, 18.5)),
        "bush" => ((1_000, 8_000), Dimension::Height, (0.8, 2.2)),
        "boulder" => ((1_000, 5_000), Dimension::Longest, (1.0, 3.0)),
        "rock" => ((1_000, 5_000), Dimension::Longest, (0.3, 1.2)),
        "pebble" => ((200, 1_000), Dimension::Longest, (0.05, 0.2)),
        "grass" => ((200, 2_000), Dimension::Height, (0.3, 0.8)),
        "flower" => ((200, 2_000), Dimension::Height, (0.2, 0.8)),
        "reed" => ((200, 2_000), Dimension::Height, (0.8, 2.2)),
        "driftwood" | "log" => ((500, 5_000), Dimension::Longest, (1.5, 4.0)),
        other => panic!("no rule for category {other}"),
    }
}

#[derive(Clone, Copy, Debug)]
enum Dimension {
    Height,
    Longest,
}

struct Loaded {
    /// (mesh index, material index, triangles) per primitive.
    primitives: Vec<(usize, Option<usize>, usize)>,
    mesh_nodes: usize,
    min: Vec3,
    max: Vec3,
    alpha_masked_texture: bool,
    /// Edges of single-sided primitives, keyed by their end positions' bits, counted
    /// +1 one way and −1 the other: a closed, consistently wound surface sums to 0.
    edges: BTreeMap<([u32; 3], [u32; 3]), i32>,
}

fn load(path: &Path) -> Loaded {
    let bytes = std::fs::read(path).unwrap();
    let glb = gltf::Gltf::from_slice(&bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let blob = glb.blob.as_deref().expect("a GLB binary chunk");
    let doc = glb.document;
    assert_eq!(
        doc.buffers().count(),
        1,
        "{}: one buffer, the GLB's",
        path.display()
    );
    let mut loaded = Loaded {
        primitives: Vec::new(),
        mesh_nodes: 0,
        min: Vec3::splat(f32::INFINITY),
        max: Vec3::splat(f32::NEG_INFINITY),
        alpha_masked_texture: false,
        edges: BTreeMap::new(),
    };
    let scene = doc.default_scene().expect("a default scene");
    let mut stack: Vec<(gltf::Node, Mat4)> = scene.nodes().map(|n| (n, Mat4::IDENTITY)).collect();
    while let Some((node, parent)) = stack.pop() {
        let world = parent * Mat4::from_cols_array_2d(&node.transform().matrix());
        stack.extend(node.children().map(|c| (c, world)));
        let Some(mesh) = node.mesh() else { continue };
        loaded.mesh_nodes += 1;
        for primitive in mesh.primitives() {
            let name = format!("{}: mesh {}", path.display(), mesh.index());
            let reader = primitive.reader(|_| Some(blob));
            let positions: Vec<[f32; 3]> = reader.read_positions().expect(&name).collect();
            assert_eq!(reader.read_normals().expect(&name).count(), positions.len());
            assert_eq!(
                reader.read_tex_coords(0).expect(&name).into_f32().count(),
                positions.len()
            );
            let indices: Vec<u32> = reader.read_indices().expect(&name).into_u32().collect();
            let world_positions: Vec<[u32; 3]> = positions
                .iter()
                .map(|&p| {
                    let p = world.transform_point3(Vec3::from(p));
                    loaded.min = loaded.min.min(p);
                    loaded.max = loaded.max.max(p);
                    p.to_array().map(f32::to_bits)
                })
                .collect();
            let material = primitive.material();
            if !material.double_sided() {
                for t in indices.chunks(3) {
                    for (a, b) in [(t[0], t[1]), (t[1], t[2]), (t[2], t[0])] {
                        let (a, b) = (world_positions[a as usize], world_positions[b as usize]);
                        if a < b {
                            *loaded.edges.entry((a, b)).or_default() += 1;
                        } else {
                            *loaded.edges.entry((b, a)).or_default() -= 1;
                        }
                    }
                }
            }
            let pbr = material.pbr_metallic_roughness();
            assert_eq!(pbr.metallic_factor(), 0.0, "{name}");
            assert!((0.75..=0.95).contains(&pbr.roughness_factor()), "{name}");
            assert!(material.name().is_some(), "{name}: unnamed material");
            if let Some(info) = pbr.base_color_texture() {
                let gltf::image::Source::View { view, mime_type } =
                    info.texture().source().source()
                else {
                    panic!("{name}: an image outside the GLB");
                };
                assert_eq!(mime_type, "image/png", "{name}");
                let png = &blob[view.offset()..view.offset() + view.length()];
                let header = png::Decoder::new(std::io::Cursor::new(png))
                    .read_info()
                    .unwrap_or_else(|e| panic!("{name}: {e}"));
                assert!(header.info().width > 0 && header.info().height > 0);
                loaded.alpha_masked_texture |= material.alpha_mode()
                    == gltf::material::AlphaMode::Mask
                    && material.double_sided();
            }
            loaded
                .primitives
                .push((mesh.index(), material.index(), indices.len() / 3));
        }
    }
    loaded
}

#[test]
fn every_prop_loads_with_gltf_and_fits_its_category() {
    let (mut one_mesh_trees, mut sibling_trees, mut masked) = (0, 0, 0);
    for entry in KIT {
        let path = assets().join(entry.relative_path());
        let prop = load(&path);
        let id = format!("{}/{}", entry.category, entry.stem);
        let ((lo, hi), dimension, (min_m, max_m)) = rules(entry.category);

        let triangles: usize = prop.primitives.iter().map(|p| p.2).sum();
        assert!(
            (lo..=hi).contains(&triangles),
            "{id}: {triangles} triangles, outside {lo}..={hi}"
        );
        let size = prop.max - prop.min;
        let measured = match dimension {
            Dimension::Height => size.y,
            Dimension::Longest => size.max_element(),
        };
        assert!(
            (min_m..=max_m).contains(&measured),
            "{id}: {dimension:?} {measured} m, outside {min_m}..={max_m}"
        );
        assert!(
            (-0.15..=0.02).contains(&prop.min.y),
            "{id}: base at y = {}",
            prop.min.y
        );

        // LockBorder pins every vertex on an open edge: single-sided parts must be
        // closed (together: a log's cut ends close its bark tube).
        let open = prop.edges.values().filter(|&&n| n != 0).count();
        assert_eq!(open, 0, "{id}: {open} open edges in single-sided parts");

        if matches!(entry.category, "conifer" | "broadleaf" | "snag") {
            let materials: BTreeSet<Option<usize>> = prop.primitives.iter().map(|p| p.1).collect();
            assert!(
                prop.primitives.len() >= 2,
                "{id}: a tree needs trunk and foliage parts"
            );
            assert_eq!(
                materials.len(),
                prop.primitives.len(),
                "{id}: parts must have distinct materials"
            );
            let meshes: BTreeSet<usize> = prop.primitives.iter().map(|p| p.0).collect();
            if meshes.len() == 1 {
                one_mesh_trees += 1;
            } else if prop.mesh_nodes == prop.primitives.len() {
                sibling_trees += 1;
            }
        }
        masked += usize::from(prop.alpha_masked_texture);
    }
    assert!(
        one_mesh_trees >= 1,
        "no tree is one mesh with several primitives"
    );
    assert!(sibling_trees >= 1, "no tree has its parts on sibling nodes");
    assert!(
        masked >= 1,
        "no prop has an alpha-masked, double-sided textured material"
    );
}

#[test]
fn the_catalog_resolves_every_kit_prop_to_its_category() {
    let text = std::fs::read_to_string(assets().join("catalog.ron")).unwrap();
    let file = CatalogFile::from_ron(&text, "assets/catalog.ron").unwrap();
    let files = asset_files();
    let (catalog, resolution) = Catalog::resolve(&file, files.iter().map(String::as_str)).unwrap();
    assert!(
        resolution.unassigned_files.is_empty(),
        "{:?}",
        resolution.unassigned_files
    );
    assert!(
        resolution.unused_overrides.is_empty(),
        "{:?}",
        resolution.unused_overrides
    );
    for entry in KIT {
        let id = format!("{}/{}", entry.category, entry.stem);
        let prop = catalog
            .prop(&id)
            .unwrap_or_else(|| panic!("{id} not in the catalog"));
        assert_eq!(&*catalog.categories()[prop.category].name, entry.category);
    }
    for category in catalog.categories() {
        assert!(
            !category.props.is_empty(),
            "category {} has no props",
            category.name
        );
    }
}

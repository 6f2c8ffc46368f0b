//! The baker as a whole: determinism, silhouettes against their analytic areas,
//! normals, refusals and bad input.

use sylva_mesh::{AlphaMode, Material, TextureBinding, Vertex, WrapMode};

use crate::octahedral::{cross, dot, normalized};
use crate::*;

/// A prop's parts as owned data, handed to the baker as slices.
struct Mesh {
    vertices: Vec<Vertex>,
    indices: Vec<u32>,
    material: Material,
}

impl Mesh {
    fn source(&self) -> PartSource<'_> {
        PartSource {
            vertices: &self.vertices,
            indices: &self.indices,
            material: &self.material,
        }
    }

    /// Appends a triangle wound front-facing towards `outward` (sylva's convention:
    /// `(b − a) × (c − a)` along the outward normal).
    fn triangle(&mut self, corners: [Vertex; 3], outward: [f32; 3]) {
        let [a, b, c] = corners.map(|v| v.position);
        let e = [0, 1, 2].map(|i| b[i] - a[i]);
        let f = [0, 1, 2].map(|i| c[i] - a[i]);
        let first = self.vertices.len() as u32;
        self.vertices.extend(corners);
        if dot(cross(e, f), outward) >= 0.0 {
            self.indices.extend([first, first + 1, first + 2]);
        } else {
            self.indices.extend([first, first + 2, first + 1]);
        }
    }
}

fn vertex(position: [f32; 3], normal: [f32; 3], uv: [f32; 2]) -> Vertex {
    Vertex {
        position,
        normal,
        uv,
        tangent: [0.0; 4],
        color: [255; 4],
    }
}

/// An axis-aligned cube of side `side` centred on `centre`, flat-shaded, UVs across
/// each face.
fn cube(side: f32, centre: [f32; 3], material: Material) -> Mesh {
    let mut mesh = Mesh {
        vertices: Vec::new(),
        indices: Vec::new(),
        material,
    };
    let h = side * 0.5;
    for axis in 0..3 {
        for sign in [-1.0f32, 1.0] {
            let (s, t) = ((axis + 1) % 3, (axis + 2) % 3);
            let mut normal = [0.0; 3];
            normal[axis] = sign;
            let corner = |i: f32, j: f32| {
                let mut p = centre;
                p[axis] += sign * h;
                p[s] += i * h;
                p[t] += j * h;
                vertex(p, normal, [(i + 1.0) * 0.5, (j + 1.0) * 0.5])
            };
            let quad = [
                corner(-1.0, -1.0),
                corner(1.0, -1.0),
                corner(1.0, 1.0),
                corner(-1.0, 1.0),
            ];
            mesh.triangle([quad[0], quad[1], quad[2]], normal);
            mesh.triangle([quad[0], quad[2], quad[3]], normal);
        }
    }
    mesh
}

/// A UV sphere of `radius` around the origin with exact normals.
fn sphere(radius: f32, segments: u32, rings: u32) -> Mesh {
    let mut mesh = Mesh {
        vertices: Vec::new(),
        indices: Vec::new(),
        material: Material::default(),
    };
    let at = |segment: u32, ring: u32| {
        let azimuth = segment as f32 / segments as f32 * std::f32::consts::TAU;
        let polar = ring as f32 / rings as f32 * std::f32::consts::PI;
        let n = [
            polar.sin() * azimuth.cos(),
            polar.cos(),
            polar.sin() * azimuth.sin(),
        ];
        vertex(n.map(|c| c * radius), n, [0.0; 2])
    };
    for ring in 0..rings {
        for segment in 0..segments {
            let quad = [
                at(segment, ring),
                at(segment + 1, ring),
                at(segment + 1, ring + 1),
                at(segment, ring + 1),
            ];
            for corners in [[quad[0], quad[1], quad[2]], [quad[0], quad[2], quad[3]]] {
                let centroid: [f32; 3] = std::array::from_fn(|i| {
                    corners.iter().map(|v| v.position[i]).sum::<f32>() / 3.0
                });
                mesh.triangle(corners, centroid);
            }
        }
    }
    mesh
}

/// The default settings at a fixed 64-texel cell (128 samples across), which the
/// tolerances below are worked out for.
fn settings() -> ImpostorSettings {
    ImpostorSettings {
        texels_per_m: None,
        ..ImpostorSettings::default()
    }
}

fn bake(
    meshes: &[&Mesh],
    textures: &[TextureSource],
) -> Result<(Impostor, ImpostorStats), ImpostorError> {
    let parts: Vec<_> = meshes.iter().map(|m| m.source()).collect();
    bake_impostor(&parts, textures, &settings())
}

/// A material's binding of texture `index`.
fn binding(index: u32, wrap_u: WrapMode, wrap_v: WrapMode) -> Option<TextureBinding> {
    Some(TextureBinding {
        texture: index,
        wrap_u,
        wrap_v,
    })
}

/// An 8×8 checker of two colours with a transparent quarter.
fn checker() -> Vec<u8> {
    (0..64)
        .flat_map(|i| {
            let (x, y) = (i % 8, i / 8);
            let alpha = if x < 4 && y < 4 { 0 } else { 255 };
            if (x + y) % 2 == 0 {
                [200, 40, 30, alpha]
            } else {
                [30, 160, 60, alpha]
            }
        })
        .collect()
}

/// A textured, alpha-tested, vertex-coloured cube beside a sphere: every path of the
/// shading.
fn mixed_prop() -> (Mesh, Mesh) {
    let material = Material {
        base_color_factor: [1.0, 0.9, 0.8, 1.0],
        base_color_texture: binding(0, WrapMode::Repeat, WrapMode::MirroredRepeat),
        alpha_mode: AlphaMode::Mask { cutoff: 0.5 },
        double_sided: true,
        ..Material::default()
    };
    let mut card = cube(1.0, [0.9, 0.5, 0.0], material);
    for (i, v) in card.vertices.iter_mut().enumerate() {
        v.color = [255, 200 + (i % 50) as u8, 180, 255];
        v.uv = v.uv.map(|c| c * 2.0);
    }
    (card, sphere(0.7, 24, 12))
}

#[test]
fn the_same_prop_bakes_to_the_same_bytes_on_any_thread() {
    let texels = checker();
    let texture = [TextureSource {
        width: 8,
        height: 8,
        rgba8: &texels,
    }];
    let (card, ball) = mixed_prop();
    let (first, stats) = bake(&[&card, &ball], &texture).unwrap();
    let (again, _) = bake(&[&card, &ball], &texture).unwrap();
    assert_eq!(first, again);
    let on_threads: Vec<Impostor> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..4)
            .map(|_| scope.spawn(|| bake(&[&card, &ball], &texture).unwrap().0))
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert!(on_threads.iter().all(|i| *i == first));
    // Pinned bytes: the arithmetic is IEEE + − × ÷ sqrt in a fixed order, so every
    // machine gives these. A deliberate change to the baker re-pins them.
    let mut hasher = blake3::Hasher::new();
    for level in first.albedo.iter().chain(&first.normal) {
        hasher.update(level);
    }
    assert_eq!(hasher.finalize().to_hex().as_str(), GOLDEN_DIGEST);
    assert_eq!(stats.bytes, first.bytes());
    assert_eq!(first.albedo.len(), 7, "64 texels a cell down to 1");
    assert_eq!(first.albedo[0].len(), 768 * 768 * 4);
    assert_eq!(first.normal[6].len(), 12 * 12 * 4);
    // Each level halves the atlas, as a GPU mip chain (and a cache texture blob) has it.
    for l in 0..first.albedo.len() {
        assert_eq!(first.atlas_px(l), first.atlas_px(0) >> l);
        assert_eq!(
            first.albedo[l].len(),
            (first.atlas_px(l) as usize).pow(2) * 4
        );
    }
}

const GOLDEN_DIGEST: &str = "be62567f317ef22fd0d9d19d27a15544c77771ee03513e5555d863a574753c74";

#[test]
fn a_cubes_silhouette_in_every_view_has_its_analytic_area() {
    // A unit cube seen from d covers |d.x| + |d.y| + |d.z| square metres; the cell is
    // the bounding sphere's diameter (√3) squared.
    let (impostor, stats) = bake(&[&cube(1.0, [0.0; 3], Material::default())], &[]).unwrap();
    let mut worst = 0.0f32;
    for row in 0..12 {
        for column in 0..12 {
            let d = impostor.view_direction(column, row);
            let expected = (d[0].abs() + d[1].abs() + d[2].abs()) / 3.0;
            let measured = stats.view_coverage[(row * 12 + column) as usize];
            worst = worst.max((measured - expected).abs() / expected);
        }
    }

    // 128 samples across the cell, ~74 across a face: unbiased (the mean error is under
    // 0.1 %), but where an edge lines up with a row of sample centres the whole row
    // falls on one side; 1.2 % is the worst view measured.
    assert!(worst < 0.02, "worst relative error {worst}");
}

#[test]
fn a_spheres_silhouette_is_a_disc_and_its_normals_face_out() {
    let ball = sphere(1.0, 48, 24);
    let (impostor, stats) = bake(&[&ball], &[]).unwrap();
    let disc = std::f32::consts::PI / 4.0 / impostor.bounds.radius.powi(2);
    for (view, &coverage) in stats.view_coverage.iter().enumerate() {
        assert!(
            (coverage - disc).abs() < 0.01 * disc,
            "view {view}: {coverage} against {disc}"
        );
    }
    let cell = impostor.cell_px;
    let width = impostor.atlas_px(0);
    let mut checked = 0;
    for row in 0..12 {
        for column in 0..12 {
            let basis = octahedral::ViewBasis::looking_from(impostor.view_direction(column, row));
            for ty in 0..cell {
                for tx in 0..cell {
                    // The texel centre on the picture, in radii from the centre.
                    let ox = ((tx as f32 + 0.5) / cell as f32) * 2.0 - 1.0;
                    let oy = 1.0 - ((ty as f32 + 0.5) / cell as f32) * 2.0;
                    let r2 = ox * ox + oy * oy;
                    if r2 > 0.8 {
                        continue;
                    }
                    let at = (((row * cell + ty) * width + column * cell + tx) * 4) as usize;
                    let texel = impostor.normal_texel(0, (column, row), (tx, ty));
                    let n = texel.normal;
                    let front = (1.0 - r2).sqrt();
                    let expected: [f32; 3] = std::array::from_fn(|i| {
                        ox * basis.right[i] + oy * basis.up[i] + front * basis.toward_camera[i]
                    });
                    let error = (0..3)
                        .map(|i| (n[i] - expected[i]).abs())
                        .fold(0.0, f32::max);
                    assert!(
                        error < 0.04,
                        "view ({column}, {row}) texel ({tx}, {ty}): {n:?} against {expected:?}"
                    );
                    assert!(
                        (texel.depth - front).abs() < 0.04,
                        "depth {} against {front}",
                        texel.depth
                    );
                    // The ball is closed and opaque: its shadow starts at its back.
                    assert!(
                        (texel.shadow_depth + front).abs() < 0.04,
                        "shadow depth {} against {}",
                        texel.shadow_depth,
                        -front
                    );
                    assert_eq!(impostor.albedo[0][at + 3], 255, "opaque inside");
                    checked += 1;
                }
            }
        }
    }
    assert!(checked > 144 * 2000, "{checked}");
}

/// A kit prop imported as the baker imports it.
fn kit_prop(bytes: &[u8]) -> sylva_import::Imported {
    sylva_import::import(bytes, &mut |name: &str| {
        Err(std::io::Error::other(format!("no external file {name}")))
    })
    .unwrap()
}

fn bake_imported(
    imported: &sylva_import::Imported,
    settings: &ImpostorSettings,
) -> Result<(Impostor, ImpostorStats), ImpostorError> {
    let parts: Vec<_> = imported
        .parts
        .iter()
        .map(|p| PartSource {
            vertices: &p.vertices,
            indices: &p.indices,
            material: &p.material,
        })
        .collect();
    let textures: Vec<_> = imported
        .textures
        .iter()
        .map(|t| TextureSource {
            width: t.width,
            height: t.height,
            rgba8: &t.rgba8,
        })
        .collect();
    bake_impostor(&parts, &textures, settings)
}

#[test]
fn a_real_trees_visible_normals_face_the_camera() {
    // The kit's oak: if the winding convention were the wrong way round, the views
    // would show the insides of its shells.
    let oak = kit_prop(include_bytes!("../../../assets/broadleaf/oak_wide.glb"));
    let (impostor, stats) = bake_imported(&oak, &settings()).unwrap();
    let cell = impostor.cell_px;
    let width = impostor.atlas_px(0);
    let (mut facing, mut covered) = (0.0f64, 0u64);
    for row in 0..12 {
        for column in 0..12 {
            let d = impostor.view_direction(column, row);
            for ty in 0..cell {
                for tx in 0..cell {
                    let at = (((row * cell + ty) * width + column * cell + tx) * 4) as usize;
                    if impostor.albedo[0][at + 3] == 0 {
                        continue;
                    }
                    let n = impostor.normal_texel(0, (column, row), (tx, ty)).normal;
                    facing += f64::from(dot(n, d));
                    covered += 1;
                }
            }
        }
    }
    assert_eq!(covered, stats.covered_texels);
    let mean = facing / covered as f64;
    assert!(mean > 0.4, "mean n·d {mean} over {covered} texels");
}

#[test]
fn empty_tiny_flat_and_invisible_props_are_refused_with_the_reason() {
    let mut empty = cube(1.0, [0.0; 3], Material::default());
    empty.indices.clear();
    assert_eq!(
        bake(&[&empty], &[]).unwrap_err(),
        ImpostorError::Empty { parts: 1 }
    );
    let mut collapsed = cube(1.0, [0.0; 3], Material::default());
    for v in &mut collapsed.vertices {
        v.position = [1.0, 2.0, 3.0];
    }
    assert_eq!(
        bake(&[&collapsed], &[]).unwrap_err(),
        ImpostorError::Empty { parts: 1 }
    );

    let pebble = bake(&[&cube(0.02, [0.0; 3], Material::default())], &[]).unwrap_err();
    assert!(
        matches!(
            pebble,
            ImpostorError::TooSmall {
                min_radius_m: 0.05,
                ..
            }
        ),
        "{pebble}"
    );

    let mut decal = Mesh {
        vertices: Vec::new(),
        indices: Vec::new(),
        material: Material {
            double_sided: true,
            ..Material::default()
        },
    };
    let up = [0.0, 1.0, 0.0];
    let corner = |x: f32, z: f32| vertex([x, 0.0, z], up, [0.0; 2]);
    decal.triangle(
        [corner(-1.0, -1.0), corner(1.0, -1.0), corner(1.0, 1.0)],
        up,
    );
    decal.triangle(
        [corner(-1.0, -1.0), corner(1.0, 1.0), corner(-1.0, 1.0)],
        up,
    );
    let flat = bake(&[&decal], &[]).unwrap_err();
    assert!(
        matches!(flat, ImpostorError::Flat { thickness_m, extent_m, .. } if thickness_m == 0.0 && extent_m == 2.0),
        "{flat}"
    );

    let ghost = cube(
        1.0,
        [0.0; 3],
        Material {
            base_color_factor: [1.0, 1.0, 1.0, 0.2],
            alpha_mode: AlphaMode::Mask { cutoff: 0.5 },
            ..Material::default()
        },
    );
    let invisible = bake(&[&ghost], &[]).unwrap_err();
    assert_eq!(
        invisible,
        ImpostorError::Invisible {
            views: 144,
            triangles: 12
        }
    );
    for refusal in [flat, pebble, invisible] {
        assert!(refusal.is_refusal());
        assert!(
            refusal.to_string().starts_with("no impostor: "),
            "{refusal}"
        );
    }
}

#[test]
fn bad_input_and_settings_are_errors_that_name_what_is_wrong() {
    let mut broken = cube(1.0, [0.0; 3], Material::default());
    broken.indices[4] = 99;
    let error = bake(&[&broken], &[]).unwrap_err();
    assert_eq!(
        error,
        ImpostorError::IndexOutOfRange {
            part: 0,
            index: 99,
            vertices: 36
        }
    );
    assert!(!error.is_refusal());

    let textured = cube(
        1.0,
        [0.0; 3],
        Material {
            base_color_texture: binding(1, WrapMode::Repeat, WrapMode::Repeat),
            ..Material::default()
        },
    );
    let short = [0u8; 12];
    let one = [TextureSource {
        width: 2,
        height: 2,
        rgba8: &short,
    }];
    assert_eq!(
        bake(&[&textured], &one).unwrap_err(),
        ImpostorError::MissingTexture {
            part: 0,
            texture: 1,
            textures: 1
        }
    );
    let mut bound_to_first = textured;
    bound_to_first
        .material
        .base_color_texture
        .as_mut()
        .unwrap()
        .texture = 0;
    assert_eq!(
        bake(&[&bound_to_first], &one).unwrap_err(),
        ImpostorError::TextureSize {
            texture: 0,
            width: 2,
            height: 2,
            bytes: 12
        }
    );

    let mut far = cube(1.0, [0.0; 3], Material::default());
    far.vertices[3].position[1] = f32::NAN;
    assert_eq!(
        bake(&[&far], &[]).unwrap_err(),
        ImpostorError::NonFinitePosition { part: 0, vertex: 3 }
    );

    let unit = cube(1.0, [0.0; 3], Material::default());
    for (settings, field) in [
        (
            ImpostorSettings {
                grid: 13,
                ..settings()
            },
            "grid",
        ),
        (
            ImpostorSettings {
                cell_px: 48,
                ..settings()
            },
            "cell_px",
        ),
        (
            ImpostorSettings {
                texels_per_m: Some(0.0),
                ..settings()
            },
            "texels_per_m",
        ),
        (
            ImpostorSettings {
                alpha_cutoff: Some(0.0),
                ..settings()
            },
            "alpha_cutoff",
        ),
        (
            ImpostorSettings {
                supersample: 0,
                ..settings()
            },
            "supersample",
        ),
        (
            ImpostorSettings {
                texels_per_m: Some(0.0),
                ..settings()
            },
            "texels_per_m",
        ),
        (
            ImpostorSettings {
                min_radius_m: f32::NAN,
                ..settings()
            },
            "min_radius_m",
        ),
    ] {
        let error = bake_impostor(&[unit.source()], &[], &settings).unwrap_err();
        assert!(
            matches!(error, ImpostorError::Settings { field: f, .. } if f == field),
            "{error}"
        );
    }
}

#[test]
fn cells_are_sized_to_the_prop_up_to_the_largest() {
    let sized = ImpostorSettings::default();
    // 8 texels per metre of diameter, rounded up to a power of two, 8 to 64.
    assert_eq!(sized.cell_px_for(0.3), 8);
    assert_eq!(sized.cell_px_for(0.5), 8);
    assert_eq!(sized.cell_px_for(0.55), 16);
    assert_eq!(sized.cell_px_for(1.1), 32);
    assert_eq!(sized.cell_px_for(2.0), 32);
    assert_eq!(sized.cell_px_for(2.05), 64);
    assert_eq!(sized.cell_px_for(40.0), 64);
    assert_eq!(settings().cell_px_for(0.3), 64, "a fixed size");
    let bush = cube(1.2, [0.0; 3], Material::default());
    let (impostor, stats) = bake_impostor(&[bush.source()], &[], &sized).unwrap();
    assert_eq!(impostor.cell_px, 32, "radius {}", impostor.bounds.radius);
    assert_eq!(impostor.albedo[0].len(), (12 * 32) * (12 * 32) * 4);
    assert_eq!(impostor.albedo.len(), 6);
    assert_eq!(stats.bytes, impostor.bytes());
}

#[test]
fn albedo_is_factor_times_vertex_colour_times_texture_as_the_renderer_shades_it() {
    // A 2×1 texture: opaque 50 % grey (sRGB 188) on the left, transparent on the right,
    // clamped, so every face shows its left half and the mask cuts the right half away.
    let texels = [188, 188, 188, 255, 188, 188, 188, 0];
    let texture = [TextureSource {
        width: 2,
        height: 1,
        rgba8: &texels,
    }];
    let mut block = cube(
        1.0,
        [0.0; 3],
        Material {
            base_color_factor: [0.5, 0.25, 1.0, 1.0],
            base_color_texture: binding(0, WrapMode::ClampToEdge, WrapMode::ClampToEdge),
            alpha_mode: AlphaMode::Mask { cutoff: 0.5 },
            ..Material::default()
        },
    );
    for v in &mut block.vertices {
        v.color = [255, 51, 255, 255];
        v.uv = [v.uv[0], 0.5];
    }
    let (impostor, stats) = bake(&[&block], &texture).unwrap();
    let expected = [0.5 * 0.5, 0.25 * 0.2 * 0.5, 0.5].map(sylva_mesh::srgb::encode_srgb);
    let mut opaque = 0;
    for texel in impostor.albedo[0].chunks_exact(4) {
        if texel[3] == 255 {
            assert_eq!(texel[..3], expected);
            opaque += 1;
        }
    }
    assert!(opaque > 144 * 500, "{opaque}");
    // Alpha blends from 1 to 0 between the texel centres: it passes 0.5 on the left
    // half of each face, half the cube's area.
    let cube_area: f32 = (0..144)
        .map(|i| {
            let d = impostor.view_direction(i % 12, i / 12);
            (d[0].abs() + d[1].abs() + d[2].abs()) / 3.0
        })
        .sum();
    let kept: f32 = stats.view_coverage.iter().sum();
    assert!(
        (kept / cube_area - 0.5).abs() < 0.05,
        "{}",
        kept / cube_area
    );
}

#[test]
fn a_normal_map_bends_the_atlas_normals_through_the_tangent_frame_as_the_renderer_does() {
    // One texel tilting the normal half-way towards the tangent: x = 2 × 191/255 − 1.
    let texel = [191, 128, 255, 255];
    let texture = [TextureSource {
        width: 1,
        height: 1,
        rgba8: &texel,
    }];
    let plain = cube(1.0, [0.0; 3], Material::default());
    let mut mapped = cube(
        1.0,
        [0.0; 3],
        Material {
            normal_texture: binding(0, WrapMode::Repeat, WrapMode::Repeat),
            ..Material::default()
        },
    );
    // Every face's tangent is the next axis after its normal's, right-handed.
    for v in &mut mapped.vertices {
        let axis = v.normal.iter().position(|c| *c != 0.0).unwrap();
        v.tangent = [0.0, 0.0, 0.0, 1.0];
        v.tangent[(axis + 1) % 3] = 1.0;
    }
    // The top face (+y) seen from the view nearest the zenith: tangent +z.
    let centre_normal = |impostor: &Impostor| {
        let half = impostor.cell_px / 2;
        impostor.normal_texel(0, (6, 6), (half, half)).normal
    };
    let flat = centre_normal(&bake(&[&plain], &texture).unwrap().0);
    let bent = centre_normal(&bake(&[&mapped], &texture).unwrap().0);
    let x = 2.0 * 191.0 / 255.0 - 1.0f32;
    let expected = normalized([0.0, (1.0 - x * x).sqrt(), x]);
    for (got, want) in [(flat, [0.0, 1.0, 0.0]), (bent, expected)] {
        assert!(
            (0..3).all(|i| (got[i] - want[i]).abs() < 0.02),
            "{got:?} against {want:?}"
        );
    }
}

#[test]
fn shadow_depth_is_an_opaque_parts_back_face_and_an_alpha_tested_parts_nearest_face() {
    // What rend3's shadow pass draws of the mesh: back faces of opaque parts, both faces
    // of alpha-tested ones. The centre texel of the view nearest the zenith sees the
    // top face of a unit cube and, through it, the bottom one.
    let opaque = cube(1.0, [0.0; 3], Material::default());
    let masked = cube(
        1.0,
        [0.0; 3],
        Material {
            alpha_mode: AlphaMode::Mask { cutoff: 0.5 },
            ..Material::default()
        },
    );
    let centre = |mesh: &Mesh| {
        let (impostor, _) = bake(&[mesh], &[]).unwrap();
        let half = impostor.cell_px / 2;
        impostor.normal_texel(0, (6, 6), (half, half))
    };
    let (opaque, masked) = (centre(&opaque), centre(&masked));
    assert!(opaque.depth > 0.3, "the top face is in front: {opaque:?}");
    assert!(
        (opaque.shadow_depth + opaque.depth).abs() < 0.02,
        "the bottom face is as far behind: {opaque:?}"
    );
    assert_eq!(masked.depth, opaque.depth);
    assert_eq!(masked.shadow_depth, masked.depth, "{masked:?}");
}

/// The share of texels of every cell at `level` whose alpha passes 0.5.
fn passing_share(impostor: &Impostor, level: usize) -> f32 {
    let level = &impostor.albedo[level];
    let passed = level.chunks_exact(4).filter(|t| t[3] >= 128).count();
    passed as f32 / (level.len() / 4) as f32
}

#[test]
fn kit_trees_keep_their_alpha_tested_coverage_at_coarse_levels() {
    let plain = ImpostorSettings {
        alpha_cutoff: None,
        ..settings()
    };
    for bytes in [
        &include_bytes!("../../../assets/broadleaf/birch_slender.glb")[..],
        &include_bytes!("../../../assets/snag/pine_snag.glb")[..],
    ] {
        let tree = kit_prop(bytes);
        let (kept, _) = bake_imported(&tree, &settings()).unwrap();
        let (averaged, _) = bake_imported(&tree, &plain).unwrap();
        let at_0 = passing_share(&kept, 0);
        // Level 0 differs from plain coverage only where thin parts' peaks are lifted
        // (never lowered): measured +0.1 % (birch) and +1.6 % (snag) passing texels.
        let plain_at_0 = passing_share(&averaged, 0);
        assert!(
            at_0 >= plain_at_0 && at_0 <= 1.03 * plain_at_0,
            "{at_0} against {plain_at_0}"
        );
        // Measured: within 1.2 % (birch) and 7.9 % (snag) down to level 4.
        for level in 1..=4 {
            let share = passing_share(&kept, level);
            assert!(
                (share - at_0).abs() <= 0.08 * at_0,
                "level {level}: {share} against {at_0}"
            );
        }
        // Plain means lose 15 % of the birch and all of the snag by level 3 or 4.
        let thinned = passing_share(&averaged, 3);
        assert!(thinned < 0.9 * at_0, "{thinned} against {at_0}");
    }
}

#[test]
fn extreme_finite_positions_bake_or_refuse_without_panicking() {
    for scale in [1e-30f32, 1e30, 3e38] {
        let mut block = cube(1.0, [0.0; 3], Material::default());
        for v in &mut block.vertices {
            v.position = v.position.map(|c| c * scale);
        }
        match bake(&[&block], &[]) {
            Ok((impostor, _)) => {
                assert_eq!(impostor.albedo.len(), 7);
                let error = impostor.error_m;
                assert!(error.is_finite() && error >= 0.0, "{scale}: {error}");
            }
            Err(refusal) => assert!(refusal.is_refusal(), "{scale}: {refusal}"),
        }
    }
}

/// A horizontal slab `side` wide and `thickness` thick centred on the origin, and a
/// "crown": `n³` small cubes on a lattice filling the same kind of sphere, whose views
/// disagree on what hides what.
fn slab(side: f32, thickness: f32) -> Mesh {
    let mut mesh = cube(1.0, [0.0; 3], Material::default());
    for v in &mut mesh.vertices {
        v.position = [
            v.position[0] * side,
            v.position[1] * thickness,
            v.position[2] * side,
        ];
    }
    mesh
}

fn crown(n: u32, spacing: f32, cube_side: f32) -> Mesh {
    let mut crown = Mesh {
        vertices: Vec::new(),
        indices: Vec::new(),
        material: Material::default(),
    };
    let offset = (n - 1) as f32 * spacing * 0.5;
    for i in 0..n * n * n {
        let at = |k: u32| k as f32 * spacing - offset;
        let (x, y, z) = (i % n, (i / n) % n, i / (n * n));
        // Every other cube shifted, so no two line up along the axes.
        let shift = if (x + y + z) % 2 == 0 {
            0.25 * spacing
        } else {
            0.0
        };
        let cube = cube(
            cube_side,
            [at(x) + shift, at(y), at(z) - shift],
            Material::default(),
        );
        let base = crown.vertices.len() as u32;
        crown.vertices.extend(cube.vertices);
        crown.indices.extend(cube.indices.iter().map(|i| i + base));
    }
    crown
}

/// The measurement of `mesh`'s impostor with `cell_px` texels a cell, in texels.
fn error_in_texels(mesh: &Mesh, cell_px: u32) -> (f32, Straying) {
    let settings = ImpostorSettings {
        cell_px,
        ..settings()
    };
    let (impostor, stats) = bake_impostor(&[mesh.source()], &[], &settings).unwrap();
    assert_eq!(impostor.error_m, stats.straying.error_m);
    let texel_m = 2.0 * impostor.bounds.radius / cell_px as f32;
    assert_eq!(stats.straying.texel_m, texel_m);
    (impostor.error_m / texel_m, stats.straying)
}

#[test]
fn a_flat_slab_errs_about_a_texel_and_a_deep_crown_more() {
    let (flat, slab_straying) = error_in_texels(&slab(2.0, 0.1), 64);
    assert!(
        (1.0..1.35).contains(&flat),
        "{flat} texels: {slab_straying:?}"
    );
    let (deep, crown_straying) = error_in_texels(&crown(4, 0.6, 0.25), 64);
    assert!(deep > flat + 0.3, "{deep} texels: {crown_straying:?}");
    assert!(crown_straying.max_m > 5.0 * crown_straying.texel_m);
    assert_eq!(crown_straying.views, 12);
    assert!(crown_straying.both > 1000);
}

#[test]
fn halving_the_cells_about_doubles_the_error() {
    let ball = sphere(1.0, 48, 24);
    let (fine, fine_straying) = error_in_texels(&ball, 64);
    let (coarse, coarse_straying) = error_in_texels(&ball, 32);
    assert_eq!(coarse_straying.texel_m, 2.0 * fine_straying.texel_m);
    let ratio = coarse_straying.error_m / fine_straying.error_m;
    assert!(
        (1.7..2.3).contains(&ratio),
        "{ratio}: {fine} and {coarse} texels"
    );
}

#[test]
fn the_reconstruction_is_exact_from_the_grids_own_views() {
    // The renderer's read mirrored on the CPU: looking along a view of the grid, it
    // reads that view alone at its texel centres, so only the depth's 8 bits err (and a
    // texel where the atlas lifts a sliver's alpha so that it is drawn at all).
    let crown = crown(3, 0.7, 0.3);
    let parts = [crown.source()];
    let settings = settings();
    let (impostor, _) = bake_impostor(&parts, &[], &settings).unwrap();
    let prop = crate::source::Prepared::new(&parts, &[]).unwrap();
    let mut target = crate::raster::Target::new(impostor.cell_px * settings.supersample);
    let views: Vec<[f32; 3]> = [(3, 4), (0, 5), (6, 6), (11, 2)]
        .iter()
        .map(|&(c, r)| impostor.view_direction(c, r))
        .collect();
    let measured = measure::Measured {
        albedo: &impostor.albedo[0],
        normal: &impostor.normal[0],
        grid: impostor.grid,
        cell_px: impostor.cell_px,
        sphere: impostor.bounds,
    };
    let own = measure::measure(
        &prop,
        measured,
        &views,
        settings.supersample,
        &mut target,
        &mut Vec::new(),
    );
    assert!(own.both > 1000);
    assert!(
        own.mesh_only + own.impostor_only <= own.both / 1000,
        "{own:?}"
    );
    let depth_step = 2.0 * impostor.bounds.radius / 255.0;
    assert!(own.p90_m <= depth_step, "{own:?}");
    assert!(own.mean_m < 0.1 * own.texel_m, "{own:?}");
}

#[test]
fn test_directions_lie_between_the_views_above_the_horizon() {
    for (grid, count) in [(12, 12), (16, 12), (6, 12), (4, 8), (2, 5)] {
        let directions = measure::test_directions(grid);
        assert_eq!(directions.len(), count, "grid {grid}");
        for d in &directions {
            let length = dot(*d, *d).sqrt();
            assert!((length - 1.0).abs() < 1e-6 && d[1] >= 0.0, "{d:?}");
            // Half a cell from every view along the square at least (a corner of four
            // cells, or the border between two).
            let [u, v] = octahedral::encode(*d);
            let cell = 2.0 / grid as f32;
            let off = |t: f32| ((t + 1.0) / cell - 0.5).rem_euclid(1.0);
            assert!(
                (off(u) - 0.5).abs() < 1e-5 || (off(v) - 0.5).abs() < 1e-5,
                "grid {grid}: {d:?}"
            );
        }
        assert!(
            directions.iter().filter(|d| d[1] < 0.2).count() >= 4,
            "the horizon and just above it"
        );
    }
}

//! sylva inside your own rend3 application: your renderer, graph and objects (a red block
//! in the meadow, a sun) and sylva's painted props in one frame, occluding and shadowing
//! each other, written to a PNG.
//! `cargo run -p sylva-embed-example -- CACHE_DIR SESSION.ron OUT.png [WIDTH HEIGHT]`

use anyhow::{Context, Result};
use glam::{UVec2, UVec3, Vec3};
use rend3::types::{glam as g20, DirectionalLight, Handedness, MeshBuilder};
use rend3::types::{Object, ObjectMeshKind};
use rend3::{graph::RenderGraph, util::output::OutputFrame, Renderer};
use rend3_routine::pbr::{AlbedoComponent, PbrMaterial};

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [cache, session, out, ..] = &args[..] else {
        anyhow::bail!("usage: embed CACHE_DIR SESSION.ron OUT.png [WIDTH HEIGHT]");
    };
    let size = |i: usize, default: u32| args.get(i).map_or(Ok(default), |s| s.parse());
    let (width, height) = (size(3, 640)?, size(4, 360)?);
    // Your renderer and the routines of your render graph.
    let renderer = Renderer::new(sylva::create_iad()?, Handedness::Left, None)?;
    let routines = sylva::BaseRoutines::new(&renderer, rend3::types::TextureFormat::Rgba8UnormSrgb);

    // sylva: a painted session's placements, drawn with the props of a bake cache.
    let text = std::fs::read_to_string(session).with_context(|| format!("reading {session}"))?;
    let session = sylva::Session::parse(&text, session)?;
    let world =
        sylva::World::replay_streamed(sylva::default_world(), &session, &Default::default())?.0;
    let mut props = sylva::PropsRoutine::new(&renderer, &routines.base.interfaces, world);
    let failed = props.load_cache(&sylva::CacheDir::new(cache))?.failed;
    anyhow::ensure!(failed.is_empty(), "cache: {failed:?}");
    // Your own objects: a sun, and a red block in the middle of the meadow.
    let meadow = sylva::Landmark::Meadow.position();
    let ground = props.world().terrain().sample_height(meadow.x, meadow.y);
    let block_at = Vec3::new(meadow.x, ground, meadow.y);
    let _sun = renderer.add_directional_light(DirectionalLight {
        color: g20::Vec3::ONE,
        intensity: 4.0,
        direction: g20::Vec3::new(0.43, -0.88, 0.2),
        distance: 120.0,
    });
    let red = PbrMaterial {
        albedo: AlbedoComponent::Value(g20::Vec4::new(0.8, 0.05, 0.03, 1.0)),
        ..PbrMaterial::default()
    };
    let _block = renderer.add_object(Object {
        mesh_kind: ObjectMeshKind::Static(renderer.add_mesh(block_mesh(Vec3::new(3.0, 4.0, 3.0)))),
        material: renderer.add_material(red),
        transform: g20::Mat4::from_translation(g20::Vec3::from(block_at.to_array())),
    });
    // One frame: the camera for rend3 and sylva, then rend3's base graph with sylva's nodes.
    let eye = block_at + Vec3::new(-7.0, 3.5, -11.0);
    let camera = sylva::CameraView::new(eye, block_at + Vec3::Y * 2.0);
    renderer.set_aspect_ratio(width as f32 / height as f32);
    renderer.set_camera_data(camera.to_rend3());
    let (command_buffers, ready) = renderer.ready();
    props.update(&ready, &camera, (width, height), 0.0);
    let (target, view) = sylva::offscreen_target(&renderer, width, height);
    let mut graph = RenderGraph::new();
    props.add_to_graph(&mut graph, &ready, &routines, UVec2::new(width, height));
    graph.execute(&renderer, OutputFrame::View(view), command_buffers, &ready);
    let image = sylva::read_rgba8(&renderer.device, &renderer.queue, &target, width, height)?;
    std::fs::write(out, image.to_png()?).with_context(|| format!("writing {out}"))?;
    println!("{out}: {} placements", props.world().registry().len());
    Ok(())
}

/// A box of `size` standing on the origin, each face its own four corners (flat normals),
/// clockwise seen from outside in the left-handed frame.
fn block_mesh(size: Vec3) -> rend3::types::Mesh {
    let faces = [
        0, 2, 3, 1, 4, 5, 7, 6, 0, 1, 5, 4, 2, 6, 7, 3, 0, 4, 6, 2, 1, 3, 7, 5u32,
    ];
    let corner =
        |i: u32| UVec3::new(i & 1, i >> 1 & 1, i >> 2).as_vec3() - Vec3::new(0.5, 0.0, 0.5);
    let positions = faces.map(|i| g20::Vec3::from((corner(i) * size).to_array()));
    let indices = (0..6).flat_map(|f| [0, 1, 2, 0, 2, 3].map(|i| f * 4 + i));
    let builder = MeshBuilder::new(positions.to_vec(), Handedness::Left);
    let mesh = builder.with_indices(indices.collect()).build();
    mesh.expect("a valid box")
}

use glam::{Mat4, Quat, Vec3};
use sylva_render::props::{
    AlphaMode, BucketKey, IndexWidth, LodIndices, PartGeometry, PartMaterial, PropsRenderer,
};
use sylva_render::{render_image, CameraView, RenderContext, Scene, OUTPUT_FORMAT};
use sylva_terrain::{default_world, Landmark};

fn cone() -> (Vec<u8>, Vec<u8>) {
    let mut v = Vec::new();
    let mut push = |p: [f32; 3], n: [f32; 3], c: [u8; 4]| {
        for x in p.iter().chain(n.iter()).chain([0.0f32, 0.0].iter()) {
            v.extend_from_slice(&x.to_le_bytes());
        }
        v.extend_from_slice(&c);
    };
    let segments = 24;
    for i in 0..segments {
        let a = i as f32 / segments as f32 * std::f32::consts::TAU;
        let (s, c) = a.sin_cos();
        push(
            [c * 1.5, 0.0, s * 1.5],
            [c * 0.9, 0.45, s * 0.9],
            [40, 120, 40, 255],
        );
    }
    push([0.0, 6.0, 0.0], [0.0, 1.0, 0.0], [60, 160, 60, 255]);
    let mut idx: Vec<u32> = Vec::new();
    for i in 0..segments {
        // Outward-facing by the algebraic normal: (b - a) x (c - a) points out.
        idx.extend_from_slice(&[i, segments, (i + 1) % segments]);
    }
    (v, idx.iter().flat_map(|i| i.to_le_bytes()).collect())
}

#[test]
fn look_at_a_frame() {
    let terrain = default_world();
    let mut ctx = RenderContext::new(OUTPUT_FORMAT).unwrap();
    eprintln!("adapter {}", ctx.adapter());
    let scene = Scene::new(&mut ctx, &terrain).unwrap();
    let mut props = PropsRenderer::new(&ctx.renderer, &ctx.base.interfaces);
    let (vertices, indices) = cone();
    props
        .set_prop(
            &ctx.renderer,
            0,
            &[PartGeometry {
                vertices: &vertices,
                lods: vec![LodIndices {
                    bytes: &indices,
                    width: IndexWidth::U32,
                }],
                material: PartMaterial {
                    base_color: [1.0, 1.0, 1.0, 1.0],
                    texture: None,
                    alpha: AlphaMode::Opaque,
                    double_sided: false,
                },
            }],
        )
        .unwrap();
    let m = Landmark::Meadow.position();
    let mut transforms = Vec::new();
    for i in 0..100 {
        let (x, z) = (
            m.x + (i % 10) as f32 * 4.0 - 18.0,
            m.y + (i / 10) as f32 * 4.0 - 18.0,
        );
        let y = terrain.sample_height(x, z);
        transforms.push(
            Mat4::from_scale_rotation_translation(Vec3::ONE, Quat::IDENTITY, Vec3::new(x, y, z))
                .to_cols_array(),
        );
    }
    props.sync_bucket(
        &ctx.renderer,
        BucketKey {
            prop: 0,
            part: 0,
            lod: 0,
        },
        &transforms,
        &[0..100],
    );
    let eye = Vec3::new(
        m.x - 30.0,
        terrain.sample_height(m.x, m.y) + 25.0,
        m.y - 45.0,
    );
    let target = Vec3::new(m.x, terrain.sample_height(m.x, m.y), m.y);
    let t = std::time::Instant::now();
    let image = render_image(
        &mut ctx,
        &scene,
        &mut props,
        CameraView::new(eye, target),
        640,
        360,
    )
    .unwrap();
    eprintln!("frame {:?} stats {:?}", t.elapsed(), props.stats());
    std::fs::write("/tmp/look.png", image.to_png().unwrap()).unwrap();
    let t = std::time::Instant::now();
    let image = render_image(
        &mut ctx,
        &scene,
        &mut props,
        CameraView::new(Vec3::new(0.0, 300.0, -420.0), Vec3::new(0.0, 0.0, -20.0)),
        640,
        360,
    )
    .unwrap();
    eprintln!("frame {:?}", t.elapsed());
    std::fs::write("/tmp/look2.png", image.to_png().unwrap()).unwrap();
}

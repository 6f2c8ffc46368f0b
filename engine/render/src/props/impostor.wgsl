// A prop's impostor in rend3's forward pass: one camera-facing quad per placement
// around its bounding sphere, each pixel reading the four views nearest the camera's
// direction (bilinear over the grid) where the pixel's ray crosses each view's picture
// plane, alpha-tested, lit with the atlas normals by rend3's sun (its shadow map at the
// depth the atlas gives) and ambient floor like a rough dielectric mesh. Group 0 is
// rend3-routine's forward interface (frame.wgsl), group 1 the atlas; the instance
// layout and the four-view read come from impostor_atlas.wgsl, shared with the shadow
// pass.

struct ImpostorOutput {
    [[builtin(position)]] clip: vec4<f32>;
    // The quad's point and the eye, prop space.
    [[location(0)]] point: vec3<f32>;
    [[location(1), interpolate(flat)]] eye: vec3<f32>;
    // Prop space, from the sphere's centre towards the eye: which views to read.
    [[location(2), interpolate(flat)]] view: vec3<f32>;
    [[location(3), interpolate(flat)]] model0: vec4<f32>;
    [[location(4), interpolate(flat)]] model1: vec4<f32>;
    [[location(5), interpolate(flat)]] model2: vec4<f32>;
    [[location(6), interpolate(flat)]] model3: vec4<f32>;
    [[location(7), interpolate(flat)]] fade: f32;
};

[[stage(vertex)]]
fn vs_impostor([[builtin(vertex_index)]] index: u32, i: Instance) -> ImpostorOutput {
    let model = placement(i.model0, i.model1, i.model2, i.model3);
    let scale = length(model[0].xyz);
    let centre = (model * vec4<f32>(impostor.sphere.xyz, 1.0)).xyz;
    let radius = impostor.sphere.w * scale;
    let eye = frame.uniforms.inv_view[3].xyz;
    let to_eye = eye - centre;
    let distance = max(length(to_eye), 1e-3);
    // The sphere's outline on the plane through its centre, seen in perspective.
    let grow = distance / sqrt(max(distance * distance - radius * radius, distance * distance / 16.0));
    let world = quad_corner(index, centre, to_eye / distance, radius * grow);
    var out: ImpostorOutput;
    out.clip = frame.uniforms.view_proj * vec4<f32>(world, 1.0);
    out.point = to_prop(model, world, 1.0);
    out.eye = to_prop(model, eye, 1.0);
    out.view = normalize(out.eye - impostor.sphere.xyz);
    out.model0 = model[0];
    out.model1 = model[1];
    out.model2 = model[2];
    out.model3 = model[3];
    out.fade = instance_fade(i.model0, i.model1, i.model2, i.model3, eye);
    return out;
}

// The colour, and the depth of the surface the atlas saw rather than of the card, so
// the prop meets the ground and its neighbours where its mesh would.
struct ImpostorFragment {
    [[location(0)]] color: vec4<f32>;
    [[builtin(frag_depth)]] depth: f32;
};

[[stage(fragment)]]
fn fs_impostor(in: ImpostorOutput) -> ImpostorFragment {
    let model = mat4x4<f32>(in.model0, in.model1, in.model2, in.model3);
    let seen = read_views(in.view, in.point, in.point - in.eye);
    if (impostor_discarded(seen, in.fade, in.clip.xy)) {
        discard;
    }
    let w = seen.shares;
    let albedo = seen.a0.rgb * w.x + seen.a1.rgb * w.y + seen.a2.rgb * w.z + seen.a3.rgb * w.w;
    let bent = atlas_normal(seen.h0, seen.n0) * w.x + atlas_normal(seen.h1, seen.n1) * w.y
        + atlas_normal(seen.h2, seen.n2) * w.z + atlas_normal(seen.h3, seen.n3) * w.w;
    let surface = seen_point(seen, vec4<f32>(seen.n0.b, seen.n1.b, seen.n2.b, seen.n3.b));
    let world = (model * vec4<f32>(surface, 1.0)).xyz;
    let n = normalize((model * vec4<f32>(bent, 0.0)).xyz);
    let shading = surface_of(albedo, impostor.surface.y, impostor.surface.x);
    let v = normalize(frame.uniforms.inv_view[3].xyz - world);
    var color = vec3<f32>(0.0, 0.0, 0.0);
    var i: u32 = 0u;
    loop {
        if (i >= lights.count) {
            break;
        }
        let light = lights.lights[i];
        // The shadow pass wrote the back faces the light's views hold (as the meshes'
        // does), which lie behind every surface these views see: no lift is needed.
        color = color + sun_shading(light, shading, n, v) * sunlight(i, world);
        i = i + 1u;
    }
    let clip = frame.uniforms.view_proj * vec4<f32>(world, 1.0);
    var out: ImpostorFragment;
    out.color = vec4<f32>(max(color, frame.uniforms.ambient.rgb * albedo), 1.0);
    out.depth = clamp(clip.z / clip.w, 0.0, 1.0);
    return out;
}

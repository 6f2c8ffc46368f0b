// A prop's impostor into a directional light's shadow map: the quad faces the light and
// each pixel reads the views nearest the light's direction along the light's parallel
// rays, alpha-tested and faded like the forward pass. Group 0 is the light's
// view-projection and direction, group 1 the atlas (impostor_atlas.wgsl).

struct ShadowCamera {
    view_proj: mat4x4<f32>;
    // xyz: the unit vector towards the light.
    toward_light: vec4<f32>;
};

[[group(0), binding(0)]]
var<uniform> camera: ShadowCamera;

struct Instance {
    [[location(5)]] model0: vec4<f32>;
    [[location(6)]] model1: vec4<f32>;
    [[location(7)]] model2: vec4<f32>;
    [[location(8)]] model3: vec4<f32>;
};

struct ShadowOutput {
    [[builtin(position)]] clip: vec4<f32>;
    [[location(0)]] point: vec3<f32>;
    // Prop space, towards the light.
    [[location(1), interpolate(flat)]] view: vec3<f32>;
    [[location(2), interpolate(flat)]] fade: f32;
};

[[stage(vertex)]]
fn vs_impostor_shadow([[builtin(vertex_index)]] index: u32, i: Instance) -> ShadowOutput {
    let model = placement(i.model0, i.model1, i.model2, i.model3);
    let scale = length(model[0].xyz);
    let centre = (model * vec4<f32>(impostor.sphere.xyz, 1.0)).xyz;
    let radius = impostor.sphere.w * scale;
    let vp = camera.view_proj;
    let toward = camera.toward_light.xyz;
    let world = quad_corner(index, centre, toward, radius);
    var out: ShadowOutput;
    out.clip = vp * vec4<f32>(world, 1.0);
    out.point = to_prop(model, world, 1.0);
    out.view = normalize(to_prop(model, toward, 0.0));
    out.fade = i.model0.w;
    return out;
}

[[stage(fragment)]]
fn fs_impostor_shadow(in: ShadowOutput) {
    let views = views_around(in.view);
    let dir = -in.view;
    let h0 = cell_hit(corner(views.base, 0), in.point, dir);
    let h1 = cell_hit(corner(views.base, 1), in.point, dir);
    let h2 = cell_hit(corner(views.base, 2), in.point, dir);
    let h3 = cell_hit(corner(views.base, 3), in.point, dir);
    let level = atlas_level(h0.local);
    let a0 = textureSampleLevel(albedo_atlas, atlas_sampler, atlas_uv(corner(views.base, 0), h0.local, level), level).a;
    let a1 = textureSampleLevel(albedo_atlas, atlas_sampler, atlas_uv(corner(views.base, 1), h1.local, level), level).a;
    let a2 = textureSampleLevel(albedo_atlas, atlas_sampler, atlas_uv(corner(views.base, 2), h2.local, level), level).a;
    let a3 = textureSampleLevel(albedo_atlas, atlas_sampler, atlas_uv(corner(views.base, 3), h3.local, level), level).a;
    let coverage = dot(views.weights, vec4<f32>(a0, a1, a2, a3));
    if (coverage < impostor.layout.w || faded_out(in.fade, in.clip.xy)) {
        discard;
    }
}

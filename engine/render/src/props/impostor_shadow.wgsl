// A prop's impostor into a directional light's shadow map: the quad faces the light and
// each pixel reads the views nearest the light's direction along the light's parallel
// rays (where they meet the surface each view saw), alpha-tested and faded like the
// forward pass. Group 0 is the light's view-projection and direction, group 1 the
// atlas; the instance layout and the four-view read come from impostor_atlas.wgsl,
// shared with the forward pass.

struct ShadowCamera {
    view_proj: mat4x4<f32>;
    // xyz: the unit vector towards the light.
    toward_light: vec4<f32>;
    // xyz: the camera's eye, which far instances fade out by distance from.
    eye: vec4<f32>;
};

[[group(0), binding(0)]]
var<uniform> camera: ShadowCamera;

struct ShadowOutput {
    [[builtin(position)]] clip: vec4<f32>;
    [[location(0)]] point: vec3<f32>;
    // Prop space, towards the light.
    [[location(1), interpolate(flat)]] view: vec3<f32>;
    [[location(2), interpolate(flat)]] fade: f32;
    [[location(3), interpolate(flat)]] model0: vec4<f32>;
    [[location(4), interpolate(flat)]] model1: vec4<f32>;
    [[location(5), interpolate(flat)]] model2: vec4<f32>;
    [[location(6), interpolate(flat)]] model3: vec4<f32>;
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
    out.model0 = model[0];
    out.model1 = model[1];
    out.model2 = model[2];
    out.model3 = model[3];
    out.fade = instance_fade(i.model0, i.model1, i.model2, i.model3, camera.eye.xyz);
    return out;
}

// The depth the light sees: of the surface the atlas's shadow depth holds (the nearest
// back face of an opaque part, either face of an alpha-tested one: what rend3's shadow
// pass draws of a mesh), not of the card, so the prop shades itself and the ground
// where its mesh would; moved back along the light by the larger of two misplacements
// the written depth escapes the pipeline's slope-scaled bias for:
// - IMPOSTOR_SHADOW_BIAS level-0 atlas texels: the camera's views and the light's place
//   a point a few texels apart (a share of the radius instead, 0.05, was 0.4 texel of
//   a rock's 16² cells, and the underside of a rock, log or bush lying on the ground
//   shaded the ground round it, which its mesh does not);
// - one texel of the shadow map: a texel holds the nearest depth across it, so where a
//   prop's underside meets the ground it shades the ground a texel on, which a mesh's
//   slope-scaled bias keeps lit. rend3 fits the map to the camera (6 to 78 cm a texel),
//   and with 8 texels a metre the atlas's texel alone is less than the map's.
let IMPOSTOR_SHADOW_BIAS: f32 = 1.6;

// rend3's shadow map side in texels (`rend3::SHADOW_DIMENSIONS`; a test in
// `pipelines.rs` keeps the two equal).
let SHADOW_MAP_TEXELS: f32 = 2048.0;

[[stage(fragment)]]
fn fs_impostor_shadow(in: ShadowOutput) -> [[builtin(frag_depth)]] f32 {
    let seen = read_views(in.view, in.point, -in.view);
    if (impostor_discarded(seen, in.fade, in.clip.xy)) {
        discard;
    }
    let r = impostor.sphere.w;
    // The light's projection is orthographic: its first row is 2 / the map's width,
    // in world units; the placement's uniform scale turns that into prop units.
    let light_row = vec3<f32>(camera.view_proj[0].x, camera.view_proj[1].x, camera.view_proj[2].x);
    let shadow_texel = 2.0 / (SHADOW_MAP_TEXELS * length(light_row) * length(in.model0.xyz));
    let bias = max(IMPOSTOR_SHADOW_BIAS * 2.0 * r / impostor.layout.y, shadow_texel);
    let surface = seen_point(seen, vec4<f32>(seen.n0.a, seen.n1.a, seen.n2.a, seen.n3.a))
        - in.view * bias;
    let model = mat4x4<f32>(in.model0, in.model1, in.model2, in.model3);
    let clip = camera.view_proj * model * vec4<f32>(surface, 1.0);
    return clamp(clip.z / clip.w, 0.0, 1.0);
}

// Instanced props into a directional light's shadow map. Group 0 holds the light's
// view-projection; group 1 the part's material (material.wgsl; alpha-masked parts
// discard by it).

struct ShadowCamera {
    view_proj: mat4x4<f32>;
    // xyz: the unit vector towards the light.
    toward_light: vec4<f32>;
    // xyz: the camera's eye, which far instances fade out by distance from.
    eye: vec4<f32>;
};

[[group(0), binding(0)]]
var<uniform> camera: ShadowCamera;

fn shadow_clip(position: vec3<f32>, i: Instance) -> vec4<f32> {
    return camera.view_proj * instance_model(i) * vec4<f32>(position, 1.0);
}

struct OpaqueOutput {
    [[builtin(position)]] clip: vec4<f32>;
    [[location(0), interpolate(flat)]] fade: f32;
};

// Opaque casters: positions only, and the fade.
[[stage(vertex)]]
fn vs_shadow([[location(0)]] position: vec4<f32>, instance: Instance) -> OpaqueOutput {
    var out: OpaqueOutput;
    out.clip = shadow_clip(unpacked_position(position), instance);
    out.fade = instance_fade(instance.model0, instance.model1, instance.model2, instance.model3, camera.eye.xyz);
    return out;
}

[[stage(fragment)]]
fn fs_shadow(in: OpaqueOutput) {
    if (faded_out(in.fade, in.clip.xy)) {
        discard;
    }
}

struct MaskedVertex {
    [[location(0)]] position: vec4<f32>;
    [[location(2)]] uv: vec2<f32>;
    [[location(4)]] color: vec4<f32>;
};

struct VertexOutput {
    [[builtin(position)]] clip: vec4<f32>;
    [[location(0)]] uv: vec2<f32>;
    [[location(1)]] alpha: f32;
    [[location(2), interpolate(flat)]] fade: f32;
};

[[stage(vertex)]]
fn vs_shadow_masked(v: MaskedVertex, instance: Instance) -> VertexOutput {
    var out: VertexOutput;
    out.clip = shadow_clip(unpacked_position(v.position), instance);
    out.uv = unpacked_uv(v.uv);
    out.alpha = v.color.a;
    out.fade = instance_fade(instance.model0, instance.model1, instance.model2, instance.model3, camera.eye.xyz);
    return out;
}

[[stage(fragment)]]
fn fs_shadow_masked(in: VertexOutput) {
    let alpha = material.base_color.a * in.alpha * textureSample(base_color_texture, material_sampler, in.uv).a;
    if (alpha < material.flags.x || faded_out(in.fade, in.clip.xy)) {
        discard;
    }
}

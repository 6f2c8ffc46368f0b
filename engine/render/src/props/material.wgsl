// A prop part's material (group 1) and the instance's model matrix, shared by the props
// forward and shadow shaders (prepended to each). Old WGSL dialect (naga 0.8).

struct Material {
    base_color: vec4<f32>;
    // rgb; w unused.
    emissive: vec4<f32>;
    // metallic, perceptual roughness, normal scale, occlusion strength.
    factors: vec4<f32>;
    // alpha cutoff, 1 when there is a normal map, unused, unused.
    flags: vec4<f32>;
    // The part's vertex quantization: xyz of the position offset and scale; the UV
    // offset in xy, its scale in zw.
    position_offset: vec4<f32>;
    position_scale: vec4<f32>;
    uv_transform: vec4<f32>;
};

[[group(1), binding(0)]]
var<uniform> material: Material;
[[group(1), binding(1)]]
var base_color_texture: texture_2d<f32>;
[[group(1), binding(2)]]
var material_sampler: sampler;
[[group(1), binding(3)]]
var normal_texture: texture_2d<f32>;
[[group(1), binding(4)]]
var metallic_roughness_texture: texture_2d<f32>;
[[group(1), binding(5)]]
var occlusion_texture: texture_2d<f32>;
[[group(1), binding(6)]]
var emissive_texture: texture_2d<f32>;

// A packed vertex's position (unorm16 over the part's bounds) in prop space.
fn unpacked_position(packed: vec4<f32>) -> vec3<f32> {
    return material.position_offset.xyz + packed.xyz * material.position_scale.xyz;
}

// A packed vertex's UV (unorm16 over the part's UV range).
fn unpacked_uv(packed: vec2<f32>) -> vec2<f32> {
    return material.uv_transform.xy + packed * material.uv_transform.zw;
}

// The placement's model matrix, its first column's free `w` carrying the fade.
struct Instance {
    [[location(5)]] model0: vec4<f32>;
    [[location(6)]] model1: vec4<f32>;
    [[location(7)]] model2: vec4<f32>;
    [[location(8)]] model3: vec4<f32>;
};

fn instance_model(i: Instance) -> mat4x4<f32> {
    return placement(i.model0, i.model1, i.model2, i.model3);
}

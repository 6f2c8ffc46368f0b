// Instanced props in rend3's forward pass. Group 0 is rend3-routine's forward uniform
// bind group (samplers, frame uniforms, directional lights, shadow maps); group 1 is
// the part's material. Old WGSL dialect (naga 0.8).

struct Plane {
    inner: vec4<f32>;
};

struct Frustum {
    left: Plane;
    right: Plane;
    top: Plane;
    bottom: Plane;
    near: Plane;
};

struct UniformData {
    view: mat4x4<f32>;
    view_proj: mat4x4<f32>;
    origin_view_proj: mat4x4<f32>;
    inv_view: mat4x4<f32>;
    inv_view_proj: mat4x4<f32>;
    inv_origin_view_proj: mat4x4<f32>;
    frustum: Frustum;
    ambient: vec4<f32>;
};

struct UniformBuffer {
    uniforms: UniformData;
};

struct DirectionalLight {
    view_proj: mat4x4<f32>;
    color: vec3<f32>;
    direction: vec3<f32>;
    offset: vec2<f32>;
    size: f32;
};

struct DirectionalLightBuffer {
    count: u32;
    lights: [[stride(112)]] array<DirectionalLight>;
};

struct Material {
    base_color: vec4<f32>;
    alpha_cutoff: f32;
};

[[group(0), binding(2)]]
var shadow_sampler: sampler_comparison;
[[group(0), binding(3)]]
var<uniform> frame: UniformBuffer;
[[group(0), binding(4)]]
var<storage, read> lights: DirectionalLightBuffer;
[[group(0), binding(5)]]
var shadow_maps: texture_depth_2d_array;

[[group(1), binding(0)]]
var<uniform> material: Material;
[[group(1), binding(1)]]
var base_color_texture: texture_2d<f32>;
[[group(1), binding(2)]]
var material_sampler: sampler;

struct VertexInput {
    [[location(0)]] position: vec3<f32>;
    [[location(1)]] normal: vec3<f32>;
    [[location(2)]] uv: vec2<f32>;
    [[location(3)]] color: vec4<f32>;
    [[location(4)]] model0: vec4<f32>;
    [[location(5)]] model1: vec4<f32>;
    [[location(6)]] model2: vec4<f32>;
    [[location(7)]] model3: vec4<f32>;
};

struct VertexOutput {
    [[builtin(position)]] clip: vec4<f32>;
    [[location(0)]] world: vec3<f32>;
    [[location(1)]] normal: vec3<f32>;
    [[location(2)]] uv: vec2<f32>;
    [[location(3)]] color: vec4<f32>;
};

[[stage(vertex)]]
fn vs_main(v: VertexInput) -> VertexOutput {
    let model = mat4x4<f32>(v.model0, v.model1, v.model2, v.model3);
    let world = model * vec4<f32>(v.position, 1.0);
    var out: VertexOutput;
    out.clip = frame.uniforms.view_proj * world;
    out.world = world.xyz;
    // Placements scale uniformly, so the model matrix itself carries normals.
    out.normal = (model * vec4<f32>(v.normal, 0.0)).xyz;
    out.uv = v.uv;
    out.color = v.color;
    return out;
}

// rend3's five-tap PCF over light `index`'s layer of the shadow array.
fn sunlight(index: u32, world: vec3<f32>) -> f32 {
    let clip = lights.lights[index].view_proj * vec4<f32>(world, 1.0);
    let ndc = clip.xyz / clip.w;
    let flipped = ndc.xy * 0.5 + vec2<f32>(0.5, 0.5);
    let coords = vec2<f32>(flipped.x, 1.0 - flipped.y);
    if (coords.x < 0.0 || coords.x > 1.0 || coords.y < 0.0 || coords.y > 1.0 || ndc.z < -1.0 || ndc.z > 1.0) {
        return 1.0;
    }
    let layer = i32(index);
    var lit: f32 = textureSampleCompareLevel(shadow_maps, shadow_sampler, coords, layer, ndc.z);
    lit = lit + textureSampleCompareLevel(shadow_maps, shadow_sampler, coords, layer, ndc.z, vec2<i32>(0, 1));
    lit = lit + textureSampleCompareLevel(shadow_maps, shadow_sampler, coords, layer, ndc.z, vec2<i32>(0, -1));
    lit = lit + textureSampleCompareLevel(shadow_maps, shadow_sampler, coords, layer, ndc.z, vec2<i32>(1, 0));
    lit = lit + textureSampleCompareLevel(shadow_maps, shadow_sampler, coords, layer, ndc.z, vec2<i32>(-1, 0));
    return lit * 0.2;
}

[[stage(fragment)]]
fn fs_main(in: VertexOutput, [[builtin(front_facing)]] front: bool) -> [[location(0)]] vec4<f32> {
    let albedo = material.base_color * in.color * textureSample(base_color_texture, material_sampler, in.uv);
    if (albedo.a < material.alpha_cutoff) {
        discard;
    }
    var n = normalize(in.normal);
    if (!front) {
        n = -n;
    }
    // Lambert (1/π), as rend3's BRDF does for rough dielectrics, with rend3's ambient
    // floor, so props and terrain are lit alike.
    var color = vec3<f32>(0.0, 0.0, 0.0);
    var i: u32 = 0u;
    loop {
        if (i >= lights.count) {
            break;
        }
        let light = lights.lights[i];
        let nol = max(dot(n, -light.direction), 0.0);
        color = color + albedo.rgb * 0.31830988 * light.color * nol * sunlight(i, in.world);
        i = i + 1u;
    }
    return vec4<f32>(max(color, frame.uniforms.ambient.rgb * albedo.rgb), 1.0);
}

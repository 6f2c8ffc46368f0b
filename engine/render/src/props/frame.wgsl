// rend3-routine's forward frame interface (group 0: samplers, frame uniforms,
// directional lights, shadow maps) and its sun with PCF shadows, shared by the props
// and impostor forward shaders (prepended to each). Old WGSL dialect (naga 0.8).

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

[[group(0), binding(2)]]
var shadow_sampler: sampler_comparison;
[[group(0), binding(3)]]
var<uniform> frame: UniformBuffer;
[[group(0), binding(4)]]
var<storage, read> lights: DirectionalLightBuffer;
[[group(0), binding(5)]]
var shadow_maps: texture_depth_2d_array;

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

let PI: f32 = 3.14159265;

// Filament's GGX distribution, height-correlated Smith visibility and Schlick Fresnel,
// with a Lambertian diffuse: rend3-routine's `surface_shading`.
fn d_ggx(noh: f32, a: f32) -> f32 {
    let a2 = a * a;
    let f = (noh * a2 - noh) * noh + 1.0;
    return a2 / (PI * f * f);
}

fn v_smith_ggx_correlated(nov: f32, nol: f32, a: f32) -> f32 {
    let a2 = a * a;
    let ggxl = nov * sqrt((-nol * a2 + nol) * nol + a2);
    let ggxv = nol * sqrt((-nov * a2 + nov) * nov + a2);
    return 0.5 / (ggxv + ggxl);
}

fn f_schlick(u: f32, f0: vec3<f32>, f90: f32) -> vec3<f32> {
    return f0 + (vec3<f32>(f90, f90, f90) - f0) * pow(1.0 - u, 5.0);
}

// A surface as rend3-routine's BRDF sees it.
struct Surface {
    diffuse: vec3<f32>;
    f0: vec3<f32>;
    f90: f32;
    roughness: f32;
};

// The surface of `albedo` (linear) with `metallic` and perceptual roughness `perceptual`.
fn surface_of(albedo: vec3<f32>, metallic: f32, perceptual: f32) -> Surface {
    var s: Surface;
    // glTF's dielectric F0 of 4 % (rend3: reflectance 0.5 → 0.16 × 0.5²).
    s.f0 = mix(vec3<f32>(0.04, 0.04, 0.04), albedo, vec3<f32>(metallic, metallic, metallic));
    s.f90 = clamp(dot(s.f0, vec3<f32>(16.5, 16.5, 16.5)), 0.0, 1.0);
    s.diffuse = albedo * (1.0 - metallic) / PI;
    // Roughness 0 would make GGX a delta; Filament's floor keeps it finite.
    let p = max(perceptual, 0.045);
    s.roughness = p * p;
    return s;
}

// What light `light` brings to surface `s` with normal `n`, seen along `v` (towards the
// eye), before its shadow: the BRDF times the light's colour and n·l.
fn sun_shading(light: DirectionalLight, s: Surface, n: vec3<f32>, v: vec3<f32>) -> vec3<f32> {
    let l = -light.direction;
    let h = normalize(v + l);
    let nov = abs(dot(n, v)) + 0.00001;
    let nol = clamp(dot(n, l), 0.0, 1.0);
    let noh = clamp(dot(n, h), 0.0, 1.0);
    let loh = clamp(dot(l, h), 0.0, 1.0);
    let specular = d_ggx(noh, s.roughness) * v_smith_ggx_correlated(nov, nol, s.roughness) * f_schlick(loh, s.f0, s.f90);
    return (s.diffuse + specular) * light.color * nol;
}

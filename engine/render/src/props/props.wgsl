// Instanced props in rend3's forward pass, shaded with rend3-routine's PBR model (its
// BRDF, sun, shadow filter and ambient floor) so a prop and the same mesh drawn as a
// rend3 object look alike. Group 0 is rend3-routine's forward uniform bind group
// (frame.wgsl); group 1 is the part's material (material.wgsl). Old WGSL dialect
// (naga 0.8).

// The packed vertex: positions and UVs unpacked by the part's quantization (material.wgsl),
// normals and tangents signed 8-bit (normalized where they are used).
struct VertexInput {
    [[location(0)]] position: vec4<f32>;
    [[location(1)]] normal: vec4<f32>;
    [[location(2)]] uv: vec2<f32>;
    [[location(3)]] tangent: vec4<f32>;
    [[location(4)]] color: vec4<f32>;
};

struct VertexOutput {
    [[builtin(position)]] clip: vec4<f32>;
    [[location(0)]] world: vec3<f32>;
    [[location(1)]] normal: vec3<f32>;
    [[location(2)]] uv: vec2<f32>;
    [[location(3)]] color: vec4<f32>;
    [[location(4)]] tangent: vec4<f32>;
    [[location(5), interpolate(flat)]] fade: f32;
};

[[stage(vertex)]]
fn vs_main(v: VertexInput, instance: Instance) -> VertexOutput {
    let model = instance_model(instance);
    let world = model * vec4<f32>(unpacked_position(v.position), 1.0);
    var out: VertexOutput;
    out.fade = instance_fade(instance.model0, instance.model1, instance.model2, instance.model3, frame.uniforms.inv_view[3].xyz);
    out.clip = frame.uniforms.view_proj * world;
    out.world = world.xyz;
    // Placements scale uniformly, so the model matrix itself carries normals and
    // tangents.
    out.normal = (model * vec4<f32>(v.normal.xyz, 0.0)).xyz;
    out.tangent = vec4<f32>((model * vec4<f32>(v.tangent.xyz, 0.0)).xyz, v.tangent.w);
    out.uv = unpacked_uv(v.uv);
    out.color = v.color;
    return out;
}

// The shading normal: the interpolated normal, bent by the normal map through the
// tangent frame (glTF: bitangent = cross(normal, tangent) × w; Z rebuilt from X and Y,
// which BC5 stores), the whole frame reversed on back faces.
fn shading_normal(in: VertexOutput, front: bool, map: vec4<f32>) -> vec3<f32> {
    let side = select(-1.0, 1.0, front);
    let n = normalize(in.normal);
    if (material.flags.y < 0.5) {
        return n * side;
    }
    let t = normalize(in.tangent.xyz - n * dot(n, in.tangent.xyz));
    let b = cross(n, t) * in.tangent.w;
    let xy = map.rg * 2.0 - vec2<f32>(1.0, 1.0);
    let z = sqrt(max(1.0 - dot(xy, xy), 0.0));
    let scaled = xy * material.factors.z;
    return normalize(t * scaled.x + b * scaled.y + n * z) * side;
}

[[stage(fragment)]]
fn fs_main(in: VertexOutput, [[builtin(front_facing)]] front: bool) -> [[location(0)]] vec4<f32> {
    // Every texture is sampled first: sampling needs uniform control flow, which a
    // discard ends.
    let base = textureSample(base_color_texture, material_sampler, in.uv);
    let map = textureSample(normal_texture, material_sampler, in.uv);
    let mr = textureSample(metallic_roughness_texture, material_sampler, in.uv);
    let ao = textureSample(occlusion_texture, material_sampler, in.uv).r;
    let glow = textureSample(emissive_texture, material_sampler, in.uv).rgb;
    let albedo = material.base_color * in.color * base;
    if (albedo.a < material.flags.x || faded_out(in.fade, in.clip.xy)) {
        discard;
    }
    let n = shading_normal(in, front, map);
    let shading = surface_of(albedo.rgb, material.factors.x * mr.b, material.factors.y * mr.g);
    let occlusion = 1.0 + material.factors.w * (ao - 1.0);
    let v = normalize(frame.uniforms.inv_view[3].xyz - in.world);
    var color = material.emissive.rgb * glow;
    var i: u32 = 0u;
    loop {
        if (i >= lights.count) {
            break;
        }
        // rend3 darkens the sunlight, not the ambient, by the occlusion map.
        color = color + sun_shading(lights.lights[i], shading, n, v) * sunlight(i, in.world) * occlusion;
        i = i + 1u;
    }
    // rend3's ambient floor.
    return vec4<f32>(max(color, frame.uniforms.ambient.rgb * albedo.rgb), 1.0);
}

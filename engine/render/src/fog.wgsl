// Aerial perspective, after every opaque pass: each pixel fades towards the sky's
// horizon colour by the air between the eye and what it shows. Group 0: the depth target
// and the fog with the frame's camera. Old WGSL dialect (naga 0.8).

struct FogData {
    // Clip space back to the world, for the frame's camera.
    inv_view_proj: mat4x4<f32>;
    // The camera's position (w unused).
    eye: vec4<f32>;
    // The horizon's colour (linear), what distant ground fades to.
    color: vec4<f32>;
    // Distance, along the ground, at which the optical depth reaches 1.
    distance: f32;
    // Height over which the air's density falls by e.
    height: f32;
    // Where the air is densest: the terrain's lowest point.
    floor: f32;
};

[[group(0), binding(0)]]
var depth: texture_depth_2d;
[[group(0), binding(1)]]
var<uniform> fog: FogData;

// One triangle over the whole target.
[[stage(vertex)]]
fn vs_main([[builtin(vertex_index)]] index: u32) -> [[builtin(position)]] vec4<f32> {
    let x = f32(index / 2u) * 4.0 - 1.0;
    let y = f32(index % 2u) * 4.0 - 1.0;
    return vec4<f32>(x, y, 0.0, 1.0);
}

// The fraction of the light from `point` the air scatters away before it reaches `eye`.
// Exponential-squared in distance, so the foreground stays clear, times the air's mean
// density along the ray, which falls off with height: a view from the ground hazes
// the horizon, an overview from high above looks through thin air.
fn haze(eye: vec3<f32>, point: vec3<f32>) -> f32 {
    let along = distance(eye, point) / fog.distance;
    let eye_up = max(eye.y - fog.floor, 0.0) / fog.height;
    let point_up = max(point.y - fog.floor, 0.0) / fog.height;
    let climb = point_up - eye_up;
    var density = exp(-eye_up);
    if (abs(climb) > 0.001) {
        density = (exp(-eye_up) - exp(-point_up)) / climb;
    }
    return 1.0 - exp(-along * along * density);
}

[[stage(fragment)]]
fn fs_main([[builtin(position)]] pixel: vec4<f32>) -> [[location(0)]] vec4<f32> {
    let z = textureLoad(depth, vec2<i32>(pixel.xy), 0);
    // Reverse-Z clears to 0: nothing was drawn here, the sky shows.
    if (z <= 0.0) {
        discard;
    }
    let size = vec2<f32>(textureDimensions(depth));
    let ndc = vec2<f32>(pixel.x / size.x * 2.0 - 1.0, 1.0 - pixel.y / size.y * 2.0);
    let world = fog.inv_view_proj * vec4<f32>(ndc, z, 1.0);
    return vec4<f32>(fog.color.rgb, haze(fog.eye.xyz, world.xyz / world.w));
}

// Dithered LOD transitions, shared by every props shader (prepended to each). A
// placement across a band edge is drawn at both levels; the instance's fade (carried in
// its matrix's free first-column `w`) says which pixels this draw keeps: 0 all, +s
// (the coarser level, s its share) those whose threshold is below s, −s (the finer
// level) those at or above it, so the two draws cover each pixel exactly once. A far
// block's instance instead carries where it fades out (its second and third columns'
// free `w`), and its draw works its fade out from its distance to the eye.

// The 8×8 Bayer threshold of a framebuffer pixel, in (0, 1).
fn bayer(pixel: vec2<f32>) -> f32 {
    let p = vec2<u32>(pixel) & vec2<u32>(7u, 7u);
    let x = p.x ^ p.y;
    let y = p.y;
    let b = ((x & 1u) << 5u) | ((y & 1u) << 4u) | ((x & 2u) << 2u) | ((y & 2u) << 1u) | ((x & 4u) >> 1u) | ((y & 4u) >> 2u);
    return (f32(b) + 0.5) / 64.0;
}

// Whether this draw leaves `pixel` to the other level of a fade.
fn faded_out(fade: f32, pixel: vec2<f32>) -> bool {
    let threshold = bayer(pixel);
    return (fade > 0.0 && threshold >= fade) || (fade < 0.0 && threshold < -fade);
}

// The placement's model matrix without what its free `w`s carry.
fn placement(model0: vec4<f32>, model1: vec4<f32>, model2: vec4<f32>, model3: vec4<f32>) -> mat4x4<f32> {
    return mat4x4<f32>(vec4<f32>(model0.xyz, 0.0), vec4<f32>(model1.xyz, 0.0), vec4<f32>(model2.xyz, 0.0), model3);
}

// The fade of an instance seen from `eye`: its first column's `w`, or for a far
// block's instance (its third column's `w` above 0) the finer side of its fade-out,
// whose share rises from 0 at its second column's `w` to 1 at its third's (a hard cull
// where the two are equal), as `LodFades::coarser_share` has it.
fn instance_fade(model0: vec4<f32>, model1: vec4<f32>, model2: vec4<f32>, model3: vec4<f32>, eye: vec3<f32>) -> f32 {
    let start = model1.w;
    let end = model2.w;
    if (end <= 0.0) {
        return model0.w;
    }
    let distance = length(model3.xyz - eye);
    if (end <= start) {
        return select(0.0, -1.0, distance >= end);
    }
    return -clamp((distance - start) / (end - start), 0.0, 1.0);
}


// A prop's impostor atlas (group 1), how a ray reads it and the placement each quad
// comes from, shared by the impostor's forward and shadow shaders (prepended to each):
// both read the same four views the same way (`read_views`) and differ only in the
// ray, in the depth channel they place the surface with and in what they write.
//
// The layout is sylva-impostor's: cell (column, row) of the `grid × grid` atlas is the
// orthographic view from the direction its centre maps to on the hemi-octahedral
// square (`u = x + z`, `v = x − z` after L1 normalisation, the border the horizon),
// `right` horizontal and `up` world up projected; the bounding sphere's diameter fills
// the cell. Everything here is prop space.

struct Impostor {
    // The sphere's centre and radius.
    sphere: vec4<f32>;
    // Views per side, texels per cell side at level 0, mip levels, alpha cutoff.
    layout: vec4<f32>;
    // The prop's perceptual roughness and metallic (its parts' mean), unused, unused.
    surface: vec4<f32>;
};

[[group(1), binding(0)]]
var<uniform> impostor: Impostor;
[[group(1), binding(1)]]
var albedo_atlas: texture_2d<f32>;
[[group(1), binding(2)]]
var atlas_sampler: sampler;
[[group(1), binding(3)]]
var normal_atlas: texture_2d<f32>;
[[group(1), binding(4)]]
var depth_atlas: texture_2d<f32>;

fn oct_encode(d: vec3<f32>) -> vec2<f32> {
    let sum = max(abs(d.x) + max(d.y, 0.0) + abs(d.z), 1e-20);
    let x = d.x / sum;
    let z = d.z / sum;
    return vec2<f32>(x + z, x - z);
}

fn oct_decode(p: vec2<f32>) -> vec3<f32> {
    let c = clamp(p, vec2<f32>(-1.0, -1.0), vec2<f32>(1.0, 1.0));
    let x = (c.x + c.y) * 0.5;
    let z = (c.x - c.y) * 0.5;
    return normalize(vec3<f32>(x, 1.0 - max(abs(c.x), abs(c.y)), z));
}

// The continuous grid position of direction `d` (cell centres at whole numbers),
// clamped so that the 2 × 2 cells from its floor are in the grid.
fn grid_position(d: vec3<f32>) -> vec2<f32> {
    let grid = impostor.layout.x;
    let g = (oct_encode(d) + vec2<f32>(1.0, 1.0)) * 0.5 * grid - vec2<f32>(0.5, 0.5);
    return clamp(g, vec2<f32>(0.0, 0.0), vec2<f32>(grid - 1.0, grid - 1.0));
}

// Atlas coordinates of `local` in `cell`, kept half a texel inside the cell at mip
// `level` so that no tap reads a neighbouring view.
fn atlas_uv(cell: vec2<f32>, local: vec2<f32>, level: f32) -> vec2<f32> {
    let texels = impostor.layout.y / exp2(ceil(level));
    let margin = 0.5 / max(texels, 1.0);
    let inside = clamp(local, vec2<f32>(margin, margin), vec2<f32>(1.0 - margin, 1.0 - margin));
    return (cell + inside) / impostor.layout.x;
}

// The share of a bilinear tap at `local` (mip `level`) that falls on the cell rather
// than on the empty texels around it. The atlas has no gutter and `atlas_uv` clamps
// taps half a texel inside the cell, which would stretch a prop touching the cell's
// edge out to the quad's; scaling a view's coverage by this filters it as if the cell
// were surrounded by empty texels.
fn on_cell(local: vec2<f32>, level: f32) -> f32 {
    let texels = impostor.layout.y / exp2(ceil(level));
    let inward = min(local, vec2<f32>(1.0, 1.0) - local) * texels + vec2<f32>(0.5, 0.5);
    let share = clamp(inward, vec2<f32>(0.0, 0.0), vec2<f32>(1.0, 1.0));
    return share.x * share.y;
}

// The mip level for cell coordinates `local` (texels per pixel, from their screen
// derivatives; call in uniform control flow).
fn atlas_level(local: vec2<f32>) -> f32 {
    let texels = local * impostor.layout.y;
    let footprint = max(length(dpdx(texels)), length(dpdy(texels)));
    return clamp(log2(max(footprint, 1e-6)), 0.0, impostor.layout.z - 1.0);
}

// Where a ray meets view `cell`: the cell's [0, 1]² coordinates (x right, y down), the
// view's direction and picture axes, and the point of its picture plane there (prop
// space).
struct CellHit {
    local: vec2<f32>;
    toward: vec3<f32>;
    right: vec3<f32>;
    up: vec3<f32>;
    point: vec3<f32>;
    // How far the depth the atlas holds here is from the depth the ray was moved to
    // (prop units; 0 for a plain projection): how surely the ray meets the surface
    // this view saw.
    residual: f32;
};

// View `cell`'s direction (towards the viewer) and its picture's right and up.
struct ViewBasis {
    toward: vec3<f32>;
    right: vec3<f32>;
    up: vec3<f32>;
};

fn view_basis(cell: vec2<f32>) -> ViewBasis {
    let grid = impostor.layout.x;
    let d = oct_decode((cell + vec2<f32>(0.5, 0.5)) / grid * 2.0 - vec2<f32>(1.0, 1.0));
    // An even grid has no view at the zenith, so h > 0.
    let h = max(sqrt(d.x * d.x + d.z * d.z), 1e-6);
    var basis: ViewBasis;
    basis.toward = d;
    basis.right = vec3<f32>(-d.z / h, 0.0, d.x / h);
    basis.up = vec3<f32>(-d.x * d.y / h, h, -d.y * d.z / h);
    return basis;
}

// The hit of the view's orthographic projection of prop-space point `p`.
fn projected(basis: ViewBasis, p: vec3<f32>) -> CellHit {
    let centre = impostor.sphere.xyz;
    let r = impostor.sphere.w;
    let q = p - centre;
    var hit: CellHit;
    hit.local = vec2<f32>(0.5 + 0.5 * dot(q, basis.right) / r, 0.5 - 0.5 * dot(q, basis.up) / r);
    hit.toward = basis.toward;
    hit.right = basis.right;
    hit.up = basis.up;
    hit.point = p - basis.toward * dot(q, basis.toward);
    hit.residual = 0.0;
    return hit;
}

// The prop-space normal a normal-atlas texel of view `hit` holds: RG is its
// components along the view's right, towards-camera and up axes on the
// hemi-octahedral square.
fn atlas_normal(hit: CellHit, texel: vec4<f32>) -> vec3<f32> {
    let n = oct_decode(texel.xy * 2.0 - vec2<f32>(1.0, 1.0));
    return hit.right * n.x + hit.toward * n.y + hit.up * n.z;
}

// How far along `dir` a ray moves to rise `height` towards the view.
fn along_ray(dir: vec3<f32>, toward: vec3<f32>, height: f32) -> vec3<f32> {
    let along = dot(dir, toward);
    return dir * (height / select(along, -1e-6, abs(along) < 1e-6));
}

// Where the ray `origin + t × dir` crosses the picture plane (through the sphere's
// centre) of the view with `basis`.
fn plane_crossing(basis: ViewBasis, origin: vec3<f32>, dir: vec3<f32>) -> CellHit {
    let to_plane = along_ray(dir, basis.toward, dot(impostor.sphere.xyz - origin, basis.toward));
    return projected(basis, origin + to_plane);
}

// The depth towards the view that view `cell`'s atlas holds at `hit`, prop space.
fn atlas_rise(cell: vec2<f32>, hit: CellHit, level: f32) -> f32 {
    let depth = textureSampleLevel(depth_atlas, atlas_sampler, atlas_uv(cell, hit.local, level), level).r;
    return (depth * 2.0 - 1.0) * impostor.sphere.w;
}

// Where the ray `origin + t × dir` meets the surface view `cell` saw (at mip `level`),
// so that the blended views agree on where each point of the prop is instead of each
// showing it where its own plane is crossed. From the ray's crossing of the picture
// plane, two steps of parallax: move along the ray to the depth the atlas holds there,
// then to the depth it holds where that lands. Where depths jump (a crown's clumps
// over a trunk, a shelf fungus off a snag) the iteration can swing between surfaces,
// so the step that lands where the atlas agrees best with the depth it moved to is
// kept, with that disagreement as its residual (see `trusted`): one step alone pasted
// pieces of a tree's crown below it once cells reach 64 texels (the birch's
// supersampled PSNR 27.7 dB at 32² cells, 27.5 at 64²; with this 29.0), and a third
// step swings back (22.6 dB at 128²).
fn surface_hit(cell: vec2<f32>, origin: vec3<f32>, dir: vec3<f32>, level: f32) -> CellHit {
    let basis = view_basis(cell);
    let crossing = plane_crossing(basis, origin, dir);
    let rise0 = atlas_rise(cell, crossing, level);
    let once = projected(basis, crossing.point + along_ray(dir, basis.toward, rise0));
    let rise1 = atlas_rise(cell, once, level);
    let twice = projected(basis, crossing.point + along_ray(dir, basis.toward, rise1));
    let rise2 = atlas_rise(cell, twice, level);
    var hit = once;
    hit.residual = abs(rise1 - rise0);
    if (abs(rise2 - rise1) <= abs(rise1 - rise0)) {
        hit = twice;
        hit.residual = abs(rise2 - rise1);
    }
    return hit;
}

// The mip level where the ray `origin + t × dir` crosses view `cell`'s picture plane
// (call in uniform control flow).
fn plane_level(cell: vec2<f32>, origin: vec3<f32>, dir: vec3<f32>) -> f32 {
    return atlas_level(plane_crossing(view_basis(cell), origin, dir).local);
}

// A view's parallax is trusted where its hit's residual is under this many texels of
// the level it reads. Beyond it the ray has not met a surface of that view: it passes
// beside a thin part sticking out (a shelf fungus off a snag, a branch) and landed
// on it, or on the depth ramp bilinear filtering makes from its edge to the empty
// texels' far depth, and drawing it there ghosts the part beside itself. With 64²
// cells the snag's supersampled PSNR went 27.0 → 27.5 dB (the birch and driftwood
// +0.2 and +0.3, none down; 0.5 to 16 texels all gave the snag 27.2–27.5), and it is
// what lets 128² cells pay (snag 26.6 dB without it, 28.7 with it).
let TRUSTED_RESIDUAL_TEXELS: f32 = 4.0;

// `weights` (the four views' bilinear weights) with the views whose parallax missed
// (see `TRUSTED_RESIDUAL_TEXELS`) left out.
fn trusted(weights: vec4<f32>, h0: CellHit, h1: CellHit, h2: CellHit, h3: CellHit, level: f32) -> vec4<f32> {
    let limit = TRUSTED_RESIDUAL_TEXELS * 2.0 * impostor.sphere.w / impostor.layout.y * exp2(level);
    let residuals = vec4<f32>(h0.residual, h1.residual, h2.residual, h3.residual);
    return select(weights, vec4<f32>(0.0), residuals > vec4<f32>(limit));
}

// The coverage the trusted views (`weights` from `trusted`) vote for: a view left out is
// not counted as empty, so where only some views missed the others decide.
fn voted_coverage(weights: vec4<f32>, covers: vec4<f32>) -> f32 {
    return dot(weights, covers) / max(weights.x + weights.y + weights.z + weights.w, 1e-6);
}

// The four views around `view` (the direction towards the viewer) and their bilinear
// weights over the grid.
struct Views {
    base: vec2<f32>;
    weights: vec4<f32>;
};

fn views_around(view: vec3<f32>) -> Views {
    let g = grid_position(view);
    let grid = impostor.layout.x;
    let base = min(floor(g), vec2<f32>(grid - 2.0, grid - 2.0));
    let f = g - base;
    var views: Views;
    views.base = base;
    views.weights = vec4<f32>((1.0 - f.x) * (1.0 - f.y), f.x * (1.0 - f.y), (1.0 - f.x) * f.y, f.x * f.y);
    return views;
}

fn corner(base: vec2<f32>, i: i32) -> vec2<f32> {
    return base + vec2<f32>(f32(i & 1), f32(i >> 1u));
}

// What the four views around a direction show along a pixel's ray: where the ray meets
// the surface each view saw, the albedo and normal-atlas texels there (normal RG, the
// view's depth B, the light's shadow depth A), how much of the pixel the trusted views
// vote covered, and each view's share of what is drawn (by its trusted weight and what
// it covers, so an empty view adds nothing; meaningless where nothing is covered).
struct ViewsSeen {
    h0: CellHit;
    h1: CellHit;
    h2: CellHit;
    h3: CellHit;
    a0: vec4<f32>;
    a1: vec4<f32>;
    a2: vec4<f32>;
    a3: vec4<f32>;
    n0: vec4<f32>;
    n1: vec4<f32>;
    n2: vec4<f32>;
    n3: vec4<f32>;
    coverage: f32;
    shares: vec4<f32>;
};

// The normal (RG) and the depths (B: the view's, A: the shadow pass's) at `uv`, from
// the normal and depth atlases.
fn surface_texel(uv: vec2<f32>, level: f32) -> vec4<f32> {
    let normal = textureSampleLevel(normal_atlas, atlas_sampler, uv, level).rg;
    let depths = textureSampleLevel(depth_atlas, atlas_sampler, uv, level).rg;
    return vec4<f32>(normal, depths);
}

// Reads the four views around `view` (prop space, towards the viewer or the light)
// along the ray `origin + t × dir`. Call in uniform control flow: the mip level comes
// from screen derivatives, and every sample is taken before anything is discarded.
fn read_views(view: vec3<f32>, origin: vec3<f32>, dir: vec3<f32>) -> ViewsSeen {
    let around = views_around(view);
    let c0 = corner(around.base, 0);
    let c1 = corner(around.base, 1);
    let c2 = corner(around.base, 2);
    let c3 = corner(around.base, 3);
    let level = plane_level(c0, origin, dir);
    var seen: ViewsSeen;
    seen.h0 = surface_hit(c0, origin, dir, level);
    seen.h1 = surface_hit(c1, origin, dir, level);
    seen.h2 = surface_hit(c2, origin, dir, level);
    seen.h3 = surface_hit(c3, origin, dir, level);
    seen.a0 = textureSampleLevel(albedo_atlas, atlas_sampler, atlas_uv(c0, seen.h0.local, level), level);
    seen.a1 = textureSampleLevel(albedo_atlas, atlas_sampler, atlas_uv(c1, seen.h1.local, level), level);
    seen.a2 = textureSampleLevel(albedo_atlas, atlas_sampler, atlas_uv(c2, seen.h2.local, level), level);
    seen.a3 = textureSampleLevel(albedo_atlas, atlas_sampler, atlas_uv(c3, seen.h3.local, level), level);
    seen.n0 = surface_texel(atlas_uv(c0, seen.h0.local, level), level);
    seen.n1 = surface_texel(atlas_uv(c1, seen.h1.local, level), level);
    seen.n2 = surface_texel(atlas_uv(c2, seen.h2.local, level), level);
    seen.n3 = surface_texel(atlas_uv(c3, seen.h3.local, level), level);
    let covers = vec4<f32>(
        seen.a0.a * on_cell(seen.h0.local, level),
        seen.a1.a * on_cell(seen.h1.local, level),
        seen.a2.a * on_cell(seen.h2.local, level),
        seen.a3.a * on_cell(seen.h3.local, level),
    );
    let weights = trusted(around.weights, seen.h0, seen.h1, seen.h2, seen.h3, level);
    seen.coverage = voted_coverage(weights, covers);
    seen.shares = weights * covers / dot(weights, covers);
    return seen;
}

// Whether a pixel whose views are `seen` is left out: too little of it covered (the
// alpha test) or left to the other level of a LOD fade.
fn impostor_discarded(seen: ViewsSeen, fade: f32, pixel: vec2<f32>) -> bool {
    return seen.coverage < impostor.layout.w || faded_out(fade, pixel);
}

// The prop-space point the views saw, blended by their shares: each view's hit moved
// along the view by the depth `depths` holds for it (one channel of its normal-atlas
// texel, `[0, 1]` across the sphere's diameter).
fn seen_point(seen: ViewsSeen, depths: vec4<f32>) -> vec3<f32> {
    let r = impostor.sphere.w;
    let w = seen.shares;
    return (seen.h0.point + seen.h0.toward * (depths.x * 2.0 - 1.0) * r) * w.x
        + (seen.h1.point + seen.h1.toward * (depths.y * 2.0 - 1.0) * r) * w.y
        + (seen.h2.point + seen.h2.toward * (depths.z * 2.0 - 1.0) * r) * w.z
        + (seen.h3.point + seen.h3.toward * (depths.w * 2.0 - 1.0) * r) * w.w;
}

// A placement's model matrix, one column an attribute; the first column's `w` is its
// fade (see dither.wgsl).
struct Instance {
    [[location(5)]] model0: vec4<f32>;
    [[location(6)]] model1: vec4<f32>;
    [[location(7)]] model2: vec4<f32>;
    [[location(8)]] model3: vec4<f32>;
};

// World to prop space for a placement that scales uniformly: Rᵀ(p − w·t) / s, `w` 1
// for a point and 0 for a direction.
fn to_prop(model: mat4x4<f32>, p: vec3<f32>, w: f32) -> vec3<f32> {
    let linear = mat3x3<f32>(model[0].xyz, model[1].xyz, model[2].xyz);
    let scale_sq = dot(model[0].xyz, model[0].xyz);
    return transpose(linear) * (p - model[3].xyz * w) / scale_sq;
}

// The quad's corner `index` (a triangle strip) around the sphere of a placement, facing
// `toward` (a unit world direction), `half` its half size.
fn quad_corner(index: u32, centre: vec3<f32>, toward: vec3<f32>, half: f32) -> vec3<f32> {
    var side = cross(toward, vec3<f32>(0.0, 1.0, 0.0));
    if (length(side) < 1e-4) {
        side = vec3<f32>(1.0, 0.0, 0.0);
    }
    let right = normalize(side);
    let up = cross(right, toward);
    let x = f32(index & 1u) * 2.0 - 1.0;
    let y = f32((index >> 1u) & 1u) * 2.0 - 1.0;
    return centre + (right * x + up * y) * half;
}


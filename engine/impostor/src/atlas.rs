//! From a cell's samples to the atlases' bytes: supersamples resolved into texels,
//! then each cell's mip chain, encoded into every level of both atlases.
//!
//! Cells are a power of two wide, so level `l` of a cell is `cell_px >> l` texels and
//! sits at `(column, row) × (cell_px >> l)` in level `l` of the atlas: every texel of a
//! level is filtered from the 2×2 texels above it *in the same cell*, and no view bleeds
//! into another at any level. (There is no gutter; the sampler must clamp to the
//! cell, half a texel in, at the level it reads.) At level 0 the alpha of a part under a
//! texel wide is lifted so that the alpha test draws it as wide as it is
//! (`thin_parts_kept`); below level 0 each cell's alpha is scaled so that as many
//! texels pass the runtime's alpha test as at level 0 (`coverage_keeping_scale`). Empty texels touching covered ones
//! take their colour, normal and depth at alpha 0 (`fringe`), so a bilinear tap
//! across a silhouette sees no black.

use crate::octahedral::{encode, normalized};
use crate::raster::Target;

/// A texel in floating point, before encoding.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Texel {
    /// Fraction of the texel the prop covers.
    pub coverage: f32,
    /// Linear RGB: the mean over the covered part.
    pub colour: [f32; 3],
    /// Unit normal of the covered part in the view's frame (zero where nothing is).
    pub normal: [f32; 3],
    /// Mean depth of the covered part, `[-1, 1]` as [`crate::raster::Sample::depth`].
    pub depth: f32,
    /// The depth over the covered part of what the shadow pass draws
    /// ([`crate::raster::Sample::shadow_depth`]; the sphere's back, `−1`, where nothing
    /// does: an open mesh seen from its front casts no shadow from there, and the light
    /// passes the prop's whole depth): the mean where the covered part's depths lie within
    /// [`SHADOW_JUMP_TEXELS`] of each other (one surface, as a mesh's shadow map samples
    /// it), the farthest where they jump (from a rock's side to its buried underside,
    /// along the ground line), where a mean would float an occluder between the surfaces
    /// that shades ground the mesh leaves lit. The farthest everywhere self-shadowed
    /// foliage too little: a spruce's lit side drew brighter than its mesh.
    pub shadow_depth: f32,
    /// The farthest and the nearest of those depths.
    pub shadow_span: [f32; 2],
}

/// The spread of shadow depths, in texels of the level, beyond which a texel's
/// surfaces are taken to jump rather than slope: a surface turned more than about 63°
/// from the view spreads two texels' depth across one texel.
const SHADOW_JUMP_TEXELS: f32 = 1.0;

/// The start of a sum of texels ([`add_weighted`]): nothing added yet.
const NO_TEXELS: Texel = Texel {
    coverage: 0.0,
    colour: [0.0; 3],
    normal: [0.0; 3],
    depth: 0.0,
    shadow_depth: 0.0,
    shadow_span: [f32::INFINITY, f32::NEG_INFINITY],
};

/// The cell's texels: each the mean of its `supersample²` samples (colour, normal and
/// depth over the covered ones; the shadow depth as [`Texel::shadow_depth`] says).
pub(crate) fn resolve(target: &Target, supersample: u32) -> Vec<Texel> {
    let side = target.side / supersample;
    let mut texels = Vec::with_capacity(side as usize * side as usize);
    for ty in 0..side {
        for tx in 0..side {
            let mut covered = 0u32;
            let mut texel = NO_TEXELS;
            for sy in ty * supersample..(ty + 1) * supersample {
                for sx in tx * supersample..(tx + 1) * supersample {
                    let sample = target.samples[(sy * target.side + sx) as usize];
                    if sample.covered {
                        covered += 1;
                        add_weighted(&mut texel, 1.0, &texel_of(sample));
                    }
                }
            }
            texels.push(finished(
                texel,
                covered as f32,
                (supersample * supersample) as f32,
                shadow_jump(side),
            ));
        }
    }
    texels
}

/// The next level of a cell `side` texels wide: coverage is the mean of the 2×2 texels
/// above; colour, normal and depth their coverage-weighted mean (so empty texels do not
/// darken a silhouette), the normal renormalised; the shadow depth as at level 0 over the
/// covered ones.
pub(crate) fn halved(texels: &[Texel], side: u32) -> Vec<Texel> {
    let half = side / 2;
    let mut next = Vec::with_capacity(half as usize * half as usize);
    for y in 0..half {
        for x in 0..half {
            let mut weight = 0.0f32;
            let mut texel = NO_TEXELS;
            for (dx, dy) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
                let above = texels[((2 * y + dy) * side + 2 * x + dx) as usize];
                weight += above.coverage;
                add_weighted(&mut texel, above.coverage, &above);
            }
            next.push(finished(texel, weight, 4.0, shadow_jump(half)));
        }
    }
    next
}

/// A covered sample as a fully covered texel (its shadow depth the sphere's back where
/// nothing casts).
fn texel_of(sample: crate::raster::Sample) -> Texel {
    Texel {
        coverage: 1.0,
        colour: sample.colour,
        normal: sample.normal,
        depth: sample.depth,
        shadow_depth: sample.shadow_depth.max(-1.0),
        shadow_span: [sample.shadow_depth.max(-1.0); 2],
    }
}

/// Adds `w ×` the colour, normal and depth of `of` to the sums in `texel` (begun as
/// [`NO_TEXELS`]), and keeps the farther shadow depth when `w` is not zero.
fn add_weighted(texel: &mut Texel, w: f32, of: &Texel) {
    for i in 0..3 {
        texel.colour[i] += w * of.colour[i];
        texel.normal[i] += w * of.normal[i];
    }
    texel.depth += w * of.depth;
    if w > 0.0 {
        texel.shadow_depth += w * of.shadow_depth;
        texel.shadow_span = [
            texel.shadow_span[0].min(of.shadow_span[0]),
            texel.shadow_span[1].max(of.shadow_span[1]),
        ];
    }
}

/// [`SHADOW_JUMP_TEXELS`] in depth units for a cell `side` texels wide (depth spans the
/// sphere's diameter as `[-1, 1]`, as the cell does).
fn shadow_jump(side: u32) -> f32 {
    SHADOW_JUMP_TEXELS * 2.0 / side as f32
}

/// Sums of `weight` in total over `of` equal shares turned into means, the shadow depth
/// the farthest where it spreads more than `jump`.
fn finished(sum: Texel, weight: f32, of: f32, jump: f32) -> Texel {
    if weight == 0.0 {
        return Texel::default();
    }
    Texel {
        coverage: weight / of,
        colour: sum.colour.map(|c| c / weight),
        normal: normalized(sum.normal),
        depth: sum.depth / weight,
        shadow_depth: if sum.shadow_span[1] - sum.shadow_span[0] <= jump {
            sum.shadow_depth / weight
        } else {
            sum.shadow_span[0]
        },
        shadow_span: sum.shadow_span,
    }
}

/// Both atlases, every level, as they fill cell by cell.
pub(crate) struct Atlases {
    grid: u32,
    cell_px: u32,
    /// The smallest alpha byte the runtime's alpha test keeps, when levels keep level
    /// 0's coverage.
    alpha_threshold: Option<u8>,
    pub albedo: Vec<Vec<u8>>,
    pub normal: Vec<Vec<u8>>,
}

/// What an empty texel of the normal atlas away from the silhouette holds: the normal
/// towards the view and both depths at the sphere's back (the albedo atlas's are all
/// zero).
pub const EMPTY_NORMAL_TEXEL: [u8; 4] = [128, 128, 0, 0];

impl Atlases {
    pub fn new(grid: u32, cell_px: u32, alpha_cutoff: Option<f32>) -> Self {
        let levels = cell_px.trailing_zeros() + 1;
        let level = |l: u32| {
            let side = (grid * (cell_px >> l)) as usize;
            side * side
        };
        Atlases {
            grid,
            cell_px,
            alpha_threshold: alpha_cutoff.map(|cutoff| {
                (0..=255u8)
                    .find(|&a| f32::from(a) / 255.0 >= cutoff)
                    .unwrap_or(255)
            }),
            albedo: (0..levels).map(|l| vec![0; level(l) * 4]).collect(),
            normal: (0..levels)
                .map(|l| EMPTY_NORMAL_TEXEL.repeat(level(l)))
                .collect(),
        }
    }

    /// Writes a cell's level 0 and every level below it.
    pub fn write_cell(&mut self, column: u32, row: u32, mut texels: Vec<Texel>) {
        // Level 0's alpha; the levels below keep as many texels passing as it does.
        let shown = match self.alpha_threshold {
            Some(threshold) => thin_parts_kept(&texels, self.cell_px, threshold),
            None => texels.iter().map(|t| t.coverage).collect(),
        };
        let passing_at_0 = self
            .alpha_threshold
            .map(|t| shown.iter().filter(|&&a| unorm(a) >= t).count() as u32);
        for l in 0..self.albedo.len() {
            let side = self.cell_px >> l;
            let width = self.grid * side;
            let scale = match (self.alpha_threshold, passing_at_0) {
                (Some(threshold), Some(passed)) if l > 0 => {
                    // Level 0's share of passing texels, in this level's texels.
                    let full = self.cell_px * self.cell_px;
                    let target = (passed * side * side + full / 2) / full;
                    coverage_keeping_scale(&texels, threshold, target)
                }
                _ => 1.0,
            };
            for y in 0..side {
                for x in 0..side {
                    let texel = match texels[(y * side + x) as usize] {
                        empty if empty.coverage == 0.0 => match fringe(&texels, side, x, y) {
                            Some(fringe) => fringe,
                            None => continue,
                        },
                        covered => covered,
                    };
                    let at = (((row * side + y) * width + column * side + x) * 4) as usize;
                    let texel = if l == 0 {
                        Texel {
                            coverage: shown[(y * side + x) as usize],
                            ..texel
                        }
                    } else {
                        texel
                    };
                    self.albedo[l][at..at + 4].copy_from_slice(&albedo_bytes(texel, scale));
                    self.normal[l][at..at + 4].copy_from_slice(&normal_bytes(texel));
                }
            }
            if side > 1 {
                texels = halved(&texels, side);
            }
        }
    }
}

/// An empty texel beside covered ones (in the same cell): their coverage-weighted
/// colour, normal and depths at coverage 0. A bilinear tap reaches one texel out, so an
/// alpha-tested silhouette then blends with its own colour, not with black.
fn fringe(texels: &[Texel], side: u32, x: u32, y: u32) -> Option<Texel> {
    let mut weight = 0.0f32;
    let mut sum = NO_TEXELS;
    for ny in y.saturating_sub(1)..=(y + 1).min(side - 1) {
        for nx in x.saturating_sub(1)..=(x + 1).min(side - 1) {
            let n = texels[(ny * side + nx) as usize];
            weight += n.coverage;
            add_weighted(&mut sum, n.coverage, &n);
        }
    }
    (weight > 0.0).then(|| Texel {
        coverage: 0.0,
        ..finished(sum, weight, 1.0, shadow_jump(side))
    })
}

/// Level 0's alpha: each texel's coverage, lifted where it is the peak of a part under a
/// texel wide (a trunk, a branch, a speck). Bilinear filtering draws a peak of alpha `a`
/// between empty neighbours `2(1 − cutoff/a)` texels wide, a trunk covering 0.55 of its
/// texels a fifth of a texel, or not at all once four views blend; lifted to
/// `cutoff / (1 − w/2)` it is drawn `w` wide, `w` the coverage across it. A peak, along
/// a row or a column, is a texel covering more than its two neighbours there together,
/// neither of which passes: a solid's edge, whose texels cover as much as their
/// neighbours along it, is not one.
fn thin_parts_kept(texels: &[Texel], side: u32, threshold: u8) -> Vec<f32> {
    let cutoff = f32::from(threshold) / 255.0;
    let at = |x: i64, y: i64| {
        if x < 0 || y < 0 || x >= i64::from(side) || y >= i64::from(side) {
            0.0
        } else {
            texels[(y as u32 * side + x as u32) as usize].coverage
        }
    };
    (0..side * side)
        .map(|i| {
            let (x, y) = (i64::from(i % side), i64::from(i / side));
            let c = at(x, y);
            let lifted = |before: f32, after: f32| {
                let thin = before + after < c && unorm(before.max(after)) < threshold;
                thin.then(|| {
                    drawn_as_wide(c, [before, after], cutoff, (before + c + after).min(2.0))
                })
            };
            let across_row = lifted(at(x - 1, y), at(x + 1, y));
            let across_column = lifted(at(x, y - 1), at(x, y + 1));
            match across_row.into_iter().chain(across_column).reduce(f32::max) {
                Some(lift) if c > 0.0 => c.max(lift).min(1.0),
                _ => c,
            }
        })
        .collect()
}

/// The alpha (at least `c`, at most 1) at which a texel between neighbours of alpha
/// `sides` (under `cutoff`) is drawn `width` texels wide by bilinear filtering and the
/// alpha test: towards a neighbour of alpha `b` the test passes for `(a − cutoff) /
/// (a − b)` of the way, which grows with `a`, so a fixed number of halvings finds it.
fn drawn_as_wide(c: f32, sides: [f32; 2], cutoff: f32, width: f32) -> f32 {
    let drawn = |a: f32| {
        sides
            .iter()
            .map(|b| ((a - cutoff) / (a - b)).clamp(0.0, 1.0))
            .sum::<f32>()
    };
    if drawn(c) >= width {
        return c;
    }
    if drawn(1.0) <= width {
        return 1.0;
    }
    let (mut low, mut high) = (c, 1.0f32);
    for _ in 0..20 {
        let mid = 0.5 * (low + high);
        if drawn(mid) < width {
            low = mid;
        } else {
            high = mid;
        }
    }
    high
}

/// Texels whose alpha byte, coverage × `scale`, passes `threshold`.
fn passing(texels: &[Texel], threshold: u8, scale: f32) -> u32 {
    texels
        .iter()
        .filter(|t| unorm(t.coverage * scale) >= threshold)
        .count() as u32
}

/// The alpha scale under which `target` texels of a level pass the alpha test, so a
/// cell keeps level 0's coverage at every level (Castaño, "Computing alpha mipmaps",
/// 2010: averaging alone thins thin branches out at the coarse levels a far forest
/// samples). Found directly rather than by search: the `target`-th largest coverage
/// scaled onto the threshold passes at least `target` texels, the next larger value
/// scaled onto it fewer (texels often tie); the closer wins, within [¼, 4], and no
/// scale where leaving alpha alone is as close.
fn coverage_keeping_scale(texels: &[Texel], threshold: u8, target: u32) -> f32 {
    let mut covered: Vec<f32> = texels
        .iter()
        .map(|t| t.coverage)
        .filter(|&c| c > 0.0)
        .collect();
    if target == 0 || covered.is_empty() {
        return 1.0;
    }
    covered.sort_by(|a, b| b.total_cmp(a));
    let at_least = covered[(target as usize).min(covered.len()) - 1];
    let fewer = covered.iter().rev().copied().find(|&c| c > at_least);
    let onto = |c: f32| (f32::from(threshold) / 255.0 / c).clamp(0.25, 4.0);
    let miss = |s: f32| passing(texels, threshold, s).abs_diff(target);
    let mut best = 1.0;
    for candidate in std::iter::once(at_least).chain(fewer).map(onto) {
        if miss(candidate) < miss(best) {
            best = candidate;
        }
    }
    best
}

fn albedo_bytes(texel: Texel, alpha_scale: f32) -> [u8; 4] {
    let [r, g, b] = texel.colour.map(sylva_mesh::srgb::encode_srgb);
    [r, g, b, unorm(texel.coverage * alpha_scale)]
}

/// The normal on the hemi-octahedral square of the view's frame (a normal that faces
/// away from the view, as interpolation may make one at a silhouette, goes to its
/// horizon), then the two depths.
fn normal_bytes(texel: Texel) -> [u8; 4] {
    let signed = |v: f32| unorm(v * 0.5 + 0.5);
    let [u, v] = encode(texel.normal);
    [
        signed(u),
        signed(v),
        signed(texel.depth),
        signed(texel.shadow_depth),
    ]
}

/// `[0, 1]` → a byte, rounding half up.
fn unorm(v: f32) -> u8 {
    (v.clamp(0.0, 1.0) * 255.0 + 0.5) as u8
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lit(coverage: f32, red: f32) -> Texel {
        Texel {
            coverage,
            colour: [red, 0.0, 0.0],
            normal: [0.0, 1.0, 0.0],
            depth: 0.5,
            shadow_depth: -0.5,
            shadow_span: [-0.5; 2],
        }
    }

    /// `lit(coverage, 0.2)` with the shadow pass's surface at `shadow_depth`.
    fn casting(coverage: f32, shadow_depth: f32) -> Texel {
        Texel {
            shadow_depth,
            shadow_span: [shadow_depth; 2],
            ..lit(coverage, 0.2)
        }
    }

    #[test]
    fn empty_texels_neither_darken_nor_turn_the_level_below() {
        let texels = [
            lit(1.0, 0.8),
            Texel::default(),
            Texel::default(),
            casting(0.5, -0.5),
        ];
        let [next] = halved(&texels, 2)[..] else {
            panic!("one texel")
        };
        assert_eq!(next.coverage, 1.5 / 4.0);
        // (1 × 0.8 + 0.5 × 0.2) / 1.5
        assert!((next.colour[0] - 0.6).abs() < 1e-6);
        assert_eq!(next.normal, [0.0, 1.0, 0.0]);
        assert_eq!(next.depth, 0.5);
        // The empty ones' (0) count for nothing.
        assert_eq!(next.shadow_depth, -0.5);
    }

    #[test]
    fn shadow_depths_are_averaged_over_a_slope_and_the_farthest_across_a_jump() {
        // In a 2-texel cell a texel spans the whole depth range: a quarter of it is a
        // slope, averaged by coverage.
        let texels = [
            lit(1.0, 0.8),
            Texel::default(),
            Texel::default(),
            casting(0.5, -0.75),
        ];
        let [next] = halved(&texels, 2)[..] else {
            panic!("one texel")
        };
        assert!((next.shadow_depth - (-0.5 - 0.5 * 0.75) / 1.5).abs() < 1e-6);
        assert_eq!(next.shadow_span, [-0.75, -0.5]);
        // In a 64-texel cell the same quarter is 8 texels' depth: a jump, whose farther
        // surface is kept (a mean would float an occluder between them).
        let mut cell = vec![Texel::default(); 64 * 64];
        cell[0] = lit(1.0, 0.8);
        cell[1] = casting(0.5, -0.75);
        let next = halved(&cell, 64);
        assert_eq!(next[0].shadow_depth, -0.75);
        // And two texels a sixteenth of a texel's depth apart are one surface.
        cell[1] = casting(0.5, -0.5 - 1.0 / 64.0 / 16.0);
        let next = halved(&cell, 64);
        assert!(next[0].shadow_depth > -0.5 - 1.0 / 64.0 / 16.0);
    }

    #[test]
    fn normals_are_renormalised_at_every_level() {
        let tilted = |x: f32| Texel {
            normal: normalized([x, 1.0, 0.0]),
            ..lit(1.0, 0.0)
        };
        let [next] = halved(&[tilted(1.0), tilted(-1.0), tilted(1.0), tilted(-1.0)], 2)[..] else {
            panic!("one texel")
        };
        assert!((next.normal[1] - 1.0).abs() < 1e-6, "{:?}", next.normal);
    }

    #[test]
    fn a_lifted_peak_is_drawn_as_wide_as_it_covers() {
        // Between empty neighbours: 2(1 − cutoff/a) = w.
        for w in [0.2f32, 0.55, 0.9] {
            let a = drawn_as_wide(w, [0.0, 0.0], 0.5, w);
            assert!((a - 0.5 / (1.0 - w / 2.0)).abs() < 1e-4, "{w}: {a}");
        }
        // Already as wide, or a texel's width asked of a lone texel: unchanged, or 1.
        assert_eq!(drawn_as_wide(0.9, [0.4, 0.4], 0.5, 0.5), 0.9);
        assert_eq!(drawn_as_wide(0.3, [0.0, 0.0], 0.5, 2.0), 1.0);
    }

    #[test]
    fn a_trunk_under_a_texel_wide_keeps_its_width_and_a_solids_edge_is_left_alone() {
        let side = 8u32;
        let threshold = 128;
        // A vertical trunk covering 0.55 of column 2, beside a solid from column 5 whose
        // edge column covers 0.3 of each texel.
        let coverage = |x: u32| match x {
            2 => 0.55,
            5 => 0.3,
            6 | 7 => 1.0,
            _ => 0.0,
        };
        let texels: Vec<Texel> = (0..side * side)
            .map(|i| lit(coverage(i % side), 1.0))
            .collect();
        let shown = thin_parts_kept(&texels, side, threshold);
        for y in 0..side {
            let row = &shown[(y * side) as usize..((y + 1) * side) as usize];
            let trunk = row[2];
            assert!(
                (trunk - 128.0 / 255.0 / (1.0 - 0.55 / 2.0)).abs() < 1e-4,
                "row {y}: {trunk}"
            );
            assert_eq!(row[5], 0.3, "row {y}: the solid's edge");
            assert_eq!(row[6], 1.0);
            assert_eq!(row[0], 0.0);
        }
    }

    #[test]
    fn empty_texels_touching_the_silhouette_take_its_colour_at_alpha_zero() {
        let (grid, cell) = (1, 8);
        let mut atlases = Atlases::new(grid, cell, None);
        let mut texels = vec![Texel::default(); 64];
        texels[3 * 8 + 3] = lit(1.0, 1.0);
        atlases.write_cell(0, 0, texels);
        let level = &atlases.albedo[0];
        let texel = |x: usize, y: usize| &level[(y * 8 + x) * 4..(y * 8 + x) * 4 + 4];
        assert_eq!(texel(3, 3), [255, 0, 0, 255]);
        for (x, y) in [(2, 2), (4, 3), (3, 4), (4, 4)] {
            assert_eq!(texel(x, y), [255, 0, 0, 0], "({x}, {y})");
        }
        for (x, y) in [(1, 3), (5, 5), (0, 0)] {
            assert_eq!(texel(x, y), [0; 4], "({x}, {y})");
        }
        let normal = &atlases.normal[0][(4 * 8 + 4) * 4..(4 * 8 + 4) * 4 + 4];
        assert_eq!(normal, [128, 128, 191, 64]);
    }

    #[test]
    fn a_cells_mips_stay_inside_it() {
        let (grid, cell) = (3, 8);
        let mut atlases = Atlases::new(grid, cell, None);
        atlases.write_cell(1, 2, vec![lit(1.0, 1.0); (cell * cell) as usize]);
        for (l, level) in atlases.albedo.iter().enumerate() {
            let side = cell >> l;
            let width = grid * side;
            for (i, texel) in level.chunks_exact(4).enumerate() {
                let (x, y) = (i as u32 % width, i as u32 / width);
                let inside = (x / side, y / side) == (1, 2);
                assert_eq!(texel[3] == 255, inside, "level {l} texel ({x}, {y})");
                assert_eq!(texel == [0; 4], !inside, "level {l} texel ({x}, {y})");
                let normal = &atlases.normal[l][i * 4..i * 4 + 4];
                assert_eq!(normal == EMPTY_NORMAL_TEXEL, !inside);
            }
        }
        assert_eq!(atlases.albedo.len(), 4, "8, 4, 2 and 1 texels a cell");
    }
}

//! How far an impostor strays from its mesh, in metres ([`crate::Impostor::error_m`]):
//! what the runtime turns into the distance from which it may draw the impostor (where
//! the error projects to under a pixel).
//!
//! The mesh is drawn again from twelve test directions between the grid's views
//! ([`test_directions`]) at the atlas's resolution (`cell_px` texels across the
//! sphere's diameter, `supersample²` samples a texel, as the views), and each test
//! picture is compared texel by texel with what the renderer reconstructs there from
//! the atlases. The reconstruction mirrors `read_views` in sylva-render's
//! `impostor_atlas.wgsl` at level 0: the four views around the direction, bilinearly
//! weighted over the grid; on each, the texel's ray moved twice by the parallax of the
//! depth it meets, keeping the step on which the atlas agrees best with the depth it moved
//! to; views disagreeing by over four texels left out; coverage voted by the others and
//! alpha-tested at [`RUNTIME_ALPHA_CUTOFF`]; the points the views saw blended by their
//! shares. Atlas texels are read as baked, before block compression.
//!
//! A test texel errs by:
//! - where the mesh (coverage at least the cutoff) and the impostor both cover it: the
//!   distance between the surface points they draw there, across the picture or in
//!   depth (a view that saw another surface, parallax that missed);
//! - where only one covers it: the distance across the picture to the nearest texel the
//!   other covers (a silhouette standing out or falling short);
//! - where neither does, nothing (it is not counted).
//!
//! **The impostor's error is a texel (the atlas places nothing more finely) plus the
//! mean error of the counted texels** over every test picture. A flat slab errs by
//! about a texel; halving the cells doubles it; the kit's boulder errs by 1.1 texels, its
//! shrub by 1.2, its trees and snag by 1.4–1.7 (their views disagree on what hides
//! what). The test pictures cost about a twentieth of the impostor's bake.

use crate::atlas::resolve;
use crate::octahedral::{decode, dot, encode, ViewBasis};
use crate::raster::{Projected, Projection, Target};
use crate::source::Prepared;
use sylva_mesh::Sphere;

/// The alpha the renderer tests impostor coverage at (sylva-render's
/// `IMPOSTOR_ALPHA_CUTOFF`); a texel of the mesh counts as covered from the same
/// coverage.
pub const RUNTIME_ALPHA_CUTOFF: f32 = 0.5;

/// The impostor is read only this many texels (along rows and columns) round the
/// mesh's coverage: beyond, no kit prop's impostor covers a texel (its texels covered
/// alone all lie within three of the mesh's), and the reads are most of the
/// measurement's cost.
pub const READ_REACH_TEXELS: usize = 4;

/// A view's parallax is trusted where its residual is under this many texels
/// (`TRUSTED_RESIDUAL_TEXELS` in the renderer).
const TRUSTED_RESIDUAL_TEXELS: f32 = 4.0;

/// What the test pictures of one impostor measured.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Straying {
    /// The impostor's error: [`Straying::texel_m`] plus [`Straying::mean_m`].
    pub error_m: f32,
    /// A texel's side, in metres: the sphere's diameter over `cell_px`.
    pub texel_m: f32,
    /// The mean, median, 90th percentile and largest of the counted texels' errors,
    /// metres.
    pub mean_m: f32,
    pub median_m: f32,
    pub p90_m: f32,
    pub max_m: f32,
    /// Test pictures drawn.
    pub views: u32,
    /// Test texels covered by both, by the mesh only and by the impostor only.
    pub both: u32,
    pub mesh_only: u32,
    pub impostor_only: u32,
}

/// The `q`-quantile of sorted `values` (0 for none).
fn quantile(values: &[f32], q: f32) -> f32 {
    match values.len() {
        0 => 0.0,
        n => values[(((n - 1) as f32 * q) as usize).min(n - 1)],
    }
}

/// The test directions of a `grid × grid` impostor, on the hemi-octahedral square: the
/// four corners of the ring of grid corners next to the border (just above the horizon,
/// the views along the axes), the middles of the four sides of the ring half-way to the
/// centre (the diagonals, higher up) and four points of the border (the horizon itself)
/// half-way between two views, at azimuths between those. Twelve directions for grids
/// of 6 and more; a 2 × 2 grid has its centre and the horizon.
pub fn test_directions(grid: u32) -> Vec<[f32; 3]> {
    let half = i64::from(grid / 2);
    // Grid corner `a` (in `1..grid`) sits at `a × 2 / grid − 1` on the square.
    let at = |a: i64| a as f32 * 2.0 / grid as f32 - 1.0;
    let mut points = Vec::new();
    let outer = half - 1;
    if outer == 0 {
        points.push([0.0, 0.0]);
    } else {
        for (du, dv) in [(1, 1), (-1, 1), (-1, -1), (1, -1)] {
            points.push([at(half + du * outer), at(half + dv * outer)]);
        }
    }
    let middle = outer / 2;
    if middle > 0 {
        let m = [at(half + middle), at(half - middle), at(half)];
        points.extend([[m[0], m[2]], [m[2], m[0]], [m[1], m[2]], [m[2], m[1]]]);
    }
    let edge = at(half + half / 2);
    points.extend([[1.0, edge], [-edge, 1.0], [-1.0, -edge], [edge, -1.0]]);
    points.into_iter().map(decode).collect()
}

/// `UNORM[b]` is byte `b` as the GPU reads an 8-bit unorm channel: `b / 255`.
const fn unorm_table() -> [f32; 256] {
    let mut table = [0.0; 256];
    let mut b = 0;
    while b < 256 {
        table[b] = b as f32 / 255.0;
        b += 1;
    }
    table
}

const UNORM: [f32; 256] = unorm_table();

/// An atlas level as the runtime samples it: RGBA8, `side` texels square.
struct Atlas<'a> {
    bytes: &'a [u8],
    side: u32,
}

impl Atlas<'_> {
    /// Channel `c` of a bilinear tap at `uv` (texel centres at `(i + ½) / side`),
    /// clamped to the atlas.
    #[inline]
    fn bilinear(&self, uv: [f32; 2], c: usize) -> f32 {
        let last = i64::from(self.side) - 1;
        let taps = |t: f32| {
            let position = t * self.side as f32 - 0.5;
            // `floor` without a call into the maths library (the baseline x86-64 has
            // no rounding instruction); saturating for any coordinate.
            let truncated = position as i64;
            let floor = truncated - i64::from((truncated as f32) > position);
            let first = floor.clamp(0, last);
            let second = floor.saturating_add(1).clamp(0, last);
            (first as usize, second as usize, position - floor as f32)
        };
        let (x0, x1, fx) = taps(uv[0]);
        let (y0, y1, fy) = taps(uv[1]);
        let side = self.side as usize;
        let at = |x: usize, y: usize| UNORM[usize::from(self.bytes[(y * side + x) * 4 + c])];
        let top = at(x0, y0) + (at(x1, y0) - at(x0, y0)) * fx;
        let bottom = at(x0, y1) + (at(x1, y1) - at(x0, y1)) * fx;
        top + (bottom - top) * fy
    }
}

const ALPHA: usize = 3;
const DEPTH: usize = 2;

/// Where a ray meets one view (the renderer's `CellHit`), with the depth the atlas
/// holds there (prop units towards the view).
#[derive(Clone, Copy)]
struct Hit {
    local: [f32; 2],
    point: [f32; 3],
    rise: f32,
    residual: f32,
}

/// The four views the renderer blends for one direction (the ray's `dir`), their
/// bilinear weights, and per view `1 / dot(dir, toward)` (how far the ray moves per unit
/// it rises towards the view).
struct Around {
    cells: [[u32; 2]; 4],
    bases: [ViewBasis; 4],
    weights: [f32; 4],
    per_rise: [f32; 4],
}

/// The renderer's read of level 0 of both atlases.
struct Reader<'a> {
    albedo: Atlas<'a>,
    normal: Atlas<'a>,
    grid: u32,
    cell_px: u32,
    sphere: Sphere,
    /// `0.5 / radius`, `1 / grid` and half a texel of a cell, `0.5 / cell_px`.
    half_per_radius: f32,
    per_grid: f32,
    margin: f32,
}

fn add(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}

fn scaled(a: [f32; 3], s: f32) -> [f32; 3] {
    [a[0] * s, a[1] * s, a[2] * s]
}

fn sub(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

fn length(a: [f32; 3]) -> f32 {
    dot(a, a).sqrt()
}

impl<'a> Reader<'a> {
    fn new(albedo: &'a [u8], normal: &'a [u8], grid: u32, cell_px: u32, sphere: Sphere) -> Self {
        let side = grid * cell_px;
        Reader {
            albedo: Atlas {
                bytes: albedo,
                side,
            },
            normal: Atlas {
                bytes: normal,
                side,
            },
            grid,
            cell_px,
            sphere,
            half_per_radius: 0.5 / sphere.radius,
            per_grid: 1.0 / grid as f32,
            margin: 0.5 / cell_px as f32,
        }
    }

    /// The renderer's `views_around` for rays along `dir` seen from `view`: the 2 × 2
    /// views around it on the grid.
    fn around(&self, view: [f32; 3], dir: [f32; 3]) -> Around {
        let grid = self.grid as f32;
        let p = encode(view);
        let g = [0, 1].map(|i| ((p[i] + 1.0) * 0.5 * grid - 0.5).clamp(0.0, grid - 1.0));
        let base = g.map(|t| t.floor().min(grid - 2.0));
        let f = [g[0] - base[0], g[1] - base[1]];
        let cells: [[u32; 2]; 4] = std::array::from_fn(|i| {
            [
                base[0] as u32 + (i as u32 & 1),
                base[1] as u32 + (i as u32 >> 1),
            ]
        });
        let bases = cells.map(|[column, row]| ViewBasis::of_cell(column, row, self.grid));
        Around {
            cells,
            bases,
            per_rise: bases.map(|basis| {
                // The renderer's `along_ray`.
                let along = dot(dir, basis.toward_camera);
                1.0 / if along.abs() < 1e-6 { -1e-6 } else { along }
            }),
            weights: [
                (1.0 - f[0]) * (1.0 - f[1]),
                f[0] * (1.0 - f[1]),
                (1.0 - f[0]) * f[1],
                f[0] * f[1],
            ],
        }
    }

    #[inline]
    fn atlas_uv(&self, cell: [u32; 2], local: [f32; 2]) -> [f32; 2] {
        let margin = self.margin;
        [0, 1].map(|i| (cell[i] as f32 + local[i].clamp(margin, 1.0 - margin)) * self.per_grid)
    }

    fn on_cell(&self, local: [f32; 2]) -> f32 {
        let texels = self.cell_px as f32;
        let share = |t: f32| (t.min(1.0 - t) * texels + 0.5).clamp(0.0, 1.0);
        share(local[0]) * share(local[1])
    }

    /// The renderer's `projected`, with the depth the atlas holds at the hit.
    #[inline]
    fn projected(&self, cell: [u32; 2], basis: &ViewBasis, p: [f32; 3]) -> Hit {
        let q = sub(p, self.sphere.center);
        let local = [
            0.5 + dot(q, basis.right) * self.half_per_radius,
            0.5 - dot(q, basis.up) * self.half_per_radius,
        ];
        let depth = self.normal.bilinear(self.atlas_uv(cell, local), DEPTH);
        Hit {
            local,
            point: sub(p, scaled(basis.toward_camera, dot(q, basis.toward_camera))),
            rise: (depth * 2.0 - 1.0) * self.sphere.radius,
            residual: 0.0,
        }
    }

    /// The renderer's `surface_hit` at level 0 on view `i` of `around`.
    #[inline]
    fn surface_hit(&self, around: &Around, i: usize, origin: [f32; 3], dir: [f32; 3]) -> Hit {
        let (cell, basis) = (around.cells[i], &around.bases[i]);
        let along_ray = |height: f32| scaled(dir, height * around.per_rise[i]);
        let toward = basis.toward_camera;
        let to_plane = along_ray(dot(sub(self.sphere.center, origin), toward));
        let crossing = self.projected(cell, basis, add(origin, to_plane));
        let step = |rise: f32| self.projected(cell, basis, add(crossing.point, along_ray(rise)));
        let once = step(crossing.rise);
        let twice = step(once.rise);
        if (twice.rise - once.rise).abs() <= (once.rise - crossing.rise).abs() {
            Hit {
                residual: (twice.rise - once.rise).abs(),
                ..twice
            }
        } else {
            Hit {
                residual: (once.rise - crossing.rise).abs(),
                ..once
            }
        }
    }

    /// What the renderer draws for the ray `origin + t × dir` through the views
    /// `around`: the point of the surface, when the pixel passes the alpha test.
    fn read(&self, around: &Around, origin: [f32; 3], dir: [f32; 3]) -> Option<[f32; 3]> {
        let limit = TRUSTED_RESIDUAL_TEXELS * 2.0 * self.sphere.radius / self.cell_px as f32;
        let mut covers = [0.0f32; 4];
        let mut trusted = [0.0f32; 4];
        let mut seen = [[0.0f32; 3]; 4];
        for i in 0..4 {
            let (cell, basis) = (around.cells[i], &around.bases[i]);
            let hit = self.surface_hit(around, i, origin, dir);
            let uv = self.atlas_uv(cell, hit.local);
            covers[i] = self.albedo.bilinear(uv, ALPHA) * self.on_cell(hit.local);
            trusted[i] = if hit.residual > limit {
                0.0
            } else {
                around.weights[i]
            };
            seen[i] = add(hit.point, scaled(basis.toward_camera, hit.rise));
        }
        let voted: f32 = (0..4).map(|i| trusted[i] * covers[i]).sum();
        let total: f32 = trusted.iter().sum();
        if voted / total.max(1e-6) < RUNTIME_ALPHA_CUTOFF {
            return None;
        }
        let mut point = [0.0; 3];
        for i in 0..4 {
            point = add(point, scaled(seen[i], trusted[i] * covers[i] / voted));
        }
        Some(point)
    }
}

/// The level-0 atlases of an impostor being measured: RGBA8, `grid × cell_px` texels
/// square, around `sphere`.
pub(crate) struct Measured<'a> {
    pub albedo: &'a [u8],
    pub normal: &'a [u8],
    pub grid: u32,
    pub cell_px: u32,
    pub sphere: Sphere,
}

/// Measures the impostor `measured` against `prop` (the mesh it was drawn from, or a
/// finer level of it) from `views` (unit directions towards the camera), drawing into
/// `target` (`cell_px × supersample` samples square; `projected` is scratch).
pub(crate) fn measure(
    prop: &Prepared,
    measured: Measured,
    views: &[[f32; 3]],
    supersample: u32,
    target: &mut Target,
    projected: &mut Vec<Projected>,
) -> Straying {
    let Measured {
        albedo,
        normal,
        grid,
        cell_px,
        sphere,
    } = measured;
    let reader = Reader::new(albedo, normal, grid, cell_px, sphere);
    let r = sphere.radius;
    let texel_m = 2.0 * r / cell_px as f32;
    let mut straying = Straying {
        texel_m,
        ..Straying::default()
    };
    let mut errors_m = Vec::new();
    let side = cell_px as usize;
    // A texel's centre on the picture, in radii from the centre.
    let at = |i: usize| (i as f32 + 0.5) / cell_px as f32 * 2.0 - 1.0;
    for &view in views {
        straying.views += 1;
        let basis = ViewBasis::looking_from(view);
        let projection = Projection::new(basis, sphere, target.side);
        target.clear();
        for part in &prop.parts {
            target.draw(&projection, part, &prop.textures, projected);
        }
        let texels = resolve(target, supersample);
        let mesh: Vec<bool> = texels
            .iter()
            .map(|t| t.coverage >= RUNTIME_ALPHA_CUTOFF)
            .collect();
        let near = dilated(&mesh, side, READ_REACH_TEXELS);
        let dir = scaled(view, -1.0);
        let around = reader.around(view, dir);
        let mut impostor = vec![false; side * side];
        for y in 0..side {
            for x in 0..side {
                let i = y * side + x;
                if !near[i] {
                    continue;
                }
                let (across, upward) = (at(x), -at(y));
                let origin = add(
                    sphere.center,
                    add(
                        scaled(basis.right, across * r),
                        scaled(basis.up, upward * r),
                    ),
                );
                let Some(point) = reader.read(&around, origin, dir) else {
                    continue;
                };
                impostor[i] = true;
                if mesh[i] {
                    let surface = add(origin, scaled(view, texels[i].depth * r));
                    errors_m.push(length(sub(point, surface)));
                    straying.both += 1;
                }
            }
        }
        for (alone, other, count) in [
            (&mesh, &impostor, &mut straying.mesh_only),
            (&impostor, &mesh, &mut straying.impostor_only),
        ] {
            for i in 0..side * side {
                if alone[i] && !other[i] {
                    *count += 1;
                    errors_m.push(nearest_texel(other, side, i % side, i / side) * texel_m);
                }
            }
        }
    }
    errors_m.sort_by(f32::total_cmp);
    let sum: f64 = errors_m.iter().map(|&e| f64::from(e)).sum();
    straying.mean_m = (sum / errors_m.len().max(1) as f64) as f32;
    straying.median_m = quantile(&errors_m, 0.5);
    straying.p90_m = quantile(&errors_m, 0.9);
    straying.max_m = errors_m.last().copied().unwrap_or(0.0);
    let error_m = texel_m + straying.mean_m;
    // Finite for an entry to record (a sphere near the end of f32's range is not).
    straying.error_m = if error_m.is_finite() {
        error_m
    } else {
        f32::MAX
    };
    straying
}

/// `mask` (`side` square) grown by `reach` texels along rows and columns (a square of
/// `2 × reach + 1` texels round each set one).
fn dilated(mask: &[bool], side: usize, reach: usize) -> Vec<bool> {
    let span = |k: usize| k.saturating_sub(reach)..=(k + reach).min(side - 1);
    let mut rows = vec![false; side * side];
    for y in 0..side {
        for x in 0..side {
            rows[y * side + x] = span(x).any(|j| mask[y * side + j]);
        }
    }
    let mut grown = vec![false; side * side];
    for y in 0..side {
        for x in 0..side {
            grown[y * side + x] = span(y).any(|j| rows[j * side + x]);
        }
    }
    grown
}

/// The distance in texels from texel `(x, y)` to the nearest set texel of `mask`
/// (`side` square); the side when none is.
fn nearest_texel(mask: &[bool], side: usize, x: usize, y: usize) -> f32 {
    let mut best_sq = usize::MAX;
    for ring in 1..side {
        let (x0, x1) = (x.saturating_sub(ring), (x + ring).min(side - 1));
        let (y0, y1) = (y.saturating_sub(ring), (y + ring).min(side - 1));
        for ny in y0..=y1 {
            let edge_row = ny == y0 || ny == y1;
            let mut nx = x0;
            while nx <= x1 {
                if (edge_row || nx == x0 || nx == x1) && mask[ny * side + nx] {
                    let (dx, dy) = (nx.abs_diff(x), ny.abs_diff(y));
                    best_sq = best_sq.min(dx * dx + dy * dy);
                }
                nx += if edge_row || nx == x1 {
                    1
                } else {
                    (x1 - x0).max(1)
                };
            }
        }
        // Texels beyond this ring are more than `ring` away.
        if best_sq <= ring * ring {
            break;
        }
    }
    if best_sq == usize::MAX {
        side as f32
    } else {
        (best_sq as f32).sqrt()
    }
}

//! How far a simplified level strays from the full mesh, in metres: what the runtime
//! turns into a switch distance (the level is drawn where this projects to under a
//! pixel).
//!
//! meshoptimizer reports its error relative to the part's extent, and for a part of
//! several vertex colours the error it reports mixes the colour drift in (the simplify
//! stage weighs colours against geometry). So the distance is measured on the result:
//! the symmetric Hausdorff distance between level 0's surface and the level's, sampled
//! at every vertex of level 0 (against the level's surface) and at the three edge
//! midpoints and the centroid of every triangle of either (against the other's
//! surface). A level's corners are level 0 vertices, so they are on level 0's surface
//! already, and a triangle both have is on both. Arithmetic is IEEE `f64` in a fixed
//! order, so the value is the same on every machine; a uniform grid of the triangles'
//! boxes keeps each query to the few triangles near it.

use std::collections::HashSet;

use sylva_mesh::Vertex;

/// The distance, in the vertices' units, between the surface of `full` and the surface
/// of `level` (triangle lists into `vertices`): 0 when they are the same triangles; the
/// diameter of `full`'s box when `level` has no triangle left and `full` has some; at
/// most `f32::MAX` (for vertices near the ends of `f32`'s range).
pub fn level_deviation(vertices: &[Vertex], full: &[u32], level: &[u32]) -> f32 {
    (deviation(vertices, full, level) as f32).min(f32::MAX)
}

fn deviation(vertices: &[Vertex], full: &[u32], level: &[u32]) -> f64 {
    let position = |i: u32| vertices[i as usize].position.map(f64::from);
    if full.len() < 3 {
        return 0.0;
    }
    if level.len() < 3 {
        let (mut min, mut max) = ([f64::INFINITY; 3], [f64::NEG_INFINITY; 3]);
        for &i in full {
            let p = position(i);
            for k in 0..3 {
                min[k] = min[k].min(p[k]);
                max[k] = max[k].max(p[k]);
            }
        }
        return length(sub(max, min));
    }
    let level_grid = TriangleGrid::new(vertices, level);
    let full_grid = TriangleGrid::new(vertices, full);
    let level_triangles: HashSet<[u32; 3]> = level.chunks_exact(3).map(canonical).collect();
    let full_triangles: HashSet<[u32; 3]> = full.chunks_exact(3).map(canonical).collect();
    // Level 0's vertices against the level's surface (those the level keeps are on it).
    let mut kept = vec![false; vertices.len()];
    for &i in level {
        kept[i as usize] = true;
    }
    let mut farthest_sq = 0.0f64;
    for &i in full {
        let i = i as usize;
        if !kept[i] {
            kept[i] = true;
            farthest_sq = farthest_sq.max(level_grid.distance_sq(position(i as u32)));
        }
    }
    // Each triangle's edge midpoints and centroid against the other's surface, but for
    // the triangles both have.
    for (triangles, other, grid) in [
        (full, &level_triangles, &level_grid),
        (level, &full_triangles, &full_grid),
    ] {
        for triangle in triangles.chunks_exact(3) {
            if other.contains(&canonical(triangle)) {
                continue;
            }
            let [a, b, c] = [0, 1, 2].map(|k| position(triangle[k]));
            let samples = [
                mid(a, b),
                mid(b, c),
                mid(c, a),
                [0, 1, 2].map(|k| (a[k] + b[k] + c[k]) / 3.0),
            ];
            for p in samples {
                farthest_sq = farthest_sq.max(grid.distance_sq(p));
            }
        }
    }
    farthest_sq.sqrt()
}

/// A triangle's corners rotated so that the smallest index comes first (its winding
/// kept), so that the same triangle compares equal however it is listed.
fn canonical(t: &[u32]) -> [u32; 3] {
    let first = (0..3).min_by_key(|&k| t[k]).unwrap_or(0);
    [t[first], t[(first + 1) % 3], t[(first + 2) % 3]]
}

type P = [f64; 3];

fn sub(a: P, b: P) -> P {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

fn dot(a: P, b: P) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

fn cross(a: P, b: P) -> P {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

fn length(a: P) -> f64 {
    dot(a, a).sqrt()
}

fn mid(a: P, b: P) -> P {
    [0, 1, 2].map(|k| (a[k] + b[k]) * 0.5)
}

/// Cells per triangle at most, so a grid of few large triangles stays small.
const MAX_CELLS_PER_TRIANGLE: usize = 4;
/// Cells per side at most.
const MAX_CELLS_PER_SIDE: usize = 256;

/// The triangles of a list binned by their boxes into a uniform grid of cubes.
struct TriangleGrid {
    triangles: Vec<[P; 3]>,
    /// Each triangle's box (low and high corners), to skip the exact distance of
    /// triangles whose box is farther than the nearest found.
    boxes: Vec<[P; 2]>,
    origin: P,
    cell: f64,
    dims: [usize; 3],
    /// `items[starts[c]..starts[c + 1]]` are the triangles overlapping cell `c`.
    starts: Vec<u32>,
    items: Vec<u32>,
}

impl TriangleGrid {
    fn new(vertices: &[Vertex], indices: &[u32]) -> Self {
        let triangles: Vec<[P; 3]> = indices
            .chunks_exact(3)
            .map(|t| [0, 1, 2].map(|k| vertices[t[k] as usize].position.map(f64::from)))
            .collect();
        let (mut min, mut max) = ([f64::INFINITY; 3], [f64::NEG_INFINITY; 3]);
        let mut area = 0.0;
        for [a, b, c] in &triangles {
            for p in [a, b, c] {
                for k in 0..3 {
                    min[k] = min[k].min(p[k]);
                    max[k] = max[k].max(p[k]);
                }
            }
            area += 0.5 * length(cross(sub(*b, *a), sub(*c, *a)));
        }
        let extent = sub(max, min);
        let widest = extent[0].max(extent[1]).max(extent[2]);
        // Cells about twice a typical triangle's side, at most MAX_CELLS_PER_SIDE a
        // side and MAX_CELLS_PER_TRIANGLE per triangle.
        let count = triangles.len().max(1);
        let mut cell = (2.0 * (area / count as f64).sqrt())
            .max(widest / MAX_CELLS_PER_SIDE as f64)
            .max(f64::MIN_POSITIVE);
        let side =
            |cell: f64| extent.map(|e| ((e / cell).floor() as usize + 1).min(MAX_CELLS_PER_SIDE));
        let mut dims = side(cell);
        while dims[0] * dims[1] * dims[2] > MAX_CELLS_PER_TRIANGLE * count + 64 {
            cell *= 1.25;
            dims = side(cell);
        }
        let boxes = triangles
            .iter()
            .map(|[a, b, c]| {
                [
                    [0, 1, 2].map(|k| a[k].min(b[k]).min(c[k])),
                    [0, 1, 2].map(|k| a[k].max(b[k]).max(c[k])),
                ]
            })
            .collect();
        let mut grid = TriangleGrid {
            triangles,
            boxes,
            origin: min,
            cell,
            dims,
            starts: Vec::new(),
            items: Vec::new(),
        };
        // Counting sort of (cell, triangle) pairs: count, prefix sums, fill.
        let cells_of: Vec<Vec<usize>> = (0..grid.triangles.len())
            .map(|t| grid.cells_of(t))
            .collect();
        let mut starts = vec![0u32; dims[0] * dims[1] * dims[2] + 1];
        for &c in cells_of.iter().flatten() {
            starts[c + 1] += 1;
        }
        for c in 1..starts.len() {
            starts[c] += starts[c - 1];
        }
        let mut next = starts.clone();
        let mut items = vec![0; starts[starts.len() - 1] as usize];
        for (t, cells) in cells_of.iter().enumerate() {
            for &c in cells {
                items[next[c] as usize] = t as u32;
                next[c] += 1;
            }
        }
        grid.starts = starts;
        grid.items = items;
        grid
    }

    fn coordinate(&self, p: P) -> [usize; 3] {
        [0, 1, 2].map(|k| {
            let c = ((p[k] - self.origin[k]) / self.cell).floor();
            if c.is_nan() || c < 0.0 {
                0
            } else {
                (c as usize).min(self.dims[k] - 1)
            }
        })
    }

    /// The cells triangle `t`'s box overlaps.
    fn cells_of(&self, t: usize) -> Vec<usize> {
        let [a, b, c] = self.triangles[t];
        let lo = self.coordinate([0, 1, 2].map(|k| a[k].min(b[k]).min(c[k])));
        let hi = self.coordinate([0, 1, 2].map(|k| a[k].max(b[k]).max(c[k])));
        let mut cells = Vec::new();
        for z in lo[2]..=hi[2] {
            for y in lo[1]..=hi[1] {
                for x in lo[0]..=hi[0] {
                    cells.push(self.index([x, y, z]));
                }
            }
        }
        cells
    }

    fn index(&self, [x, y, z]: [usize; 3]) -> usize {
        (z * self.dims[1] + y) * self.dims[0] + x
    }

    /// The squared distance from `p` to the nearest triangle: shells of cells around
    /// `p`'s cell, outwards, until every cell not yet visited is farther from `p` than
    /// the nearest triangle found (or none is left).
    fn distance_sq(&self, p: P) -> f64 {
        let centre = self.coordinate(p);
        let mut best = f64::INFINITY;
        for r in 0.. {
            let lo = centre.map(|c| c.saturating_sub(r));
            let hi = [0, 1, 2].map(|k| (centre[k] + r).min(self.dims[k] - 1));
            let mut visit = |x: usize, y: usize, z: usize| {
                let c = self.index([x, y, z]);
                for &t in &self.items[self.starts[c] as usize..self.starts[c + 1] as usize] {
                    let [low, high] = self.boxes[t as usize];
                    let outside = |k: usize| (low[k] - p[k]).max(p[k] - high[k]).max(0.0);
                    let (dx, dy, dz) = (outside(0), outside(1), outside(2));
                    if dx * dx + dy * dy + dz * dz < best {
                        best = best.min(point_triangle_sq(p, self.triangles[t as usize]));
                    }
                }
            };
            // Only the shell: the cells `r` away along some axis.
            for z in lo[2]..=hi[2] {
                let z_face = z.abs_diff(centre[2]) == r;
                for y in lo[1]..=hi[1] {
                    if z_face || y.abs_diff(centre[1]) == r {
                        for x in lo[0]..=hi[0] {
                            visit(x, y, z);
                        }
                    } else {
                        if let Some(x) = centre[0].checked_sub(r) {
                            visit(x, y, z);
                        }
                        if r > 0 && centre[0] + r < self.dims[0] {
                            visit(centre[0] + r, y, z);
                        }
                    }
                }
            }
            // How far `p` is from the cells beyond the visited box (on the sides the grid
            // goes on).
            let mut beyond = f64::INFINITY;
            for k in 0..3 {
                if lo[k] > 0 {
                    beyond = beyond.min(p[k] - (self.origin[k] + lo[k] as f64 * self.cell));
                }
                if hi[k] + 1 < self.dims[k] {
                    beyond = beyond.min(self.origin[k] + (hi[k] + 1) as f64 * self.cell - p[k]);
                }
            }
            if beyond == f64::INFINITY || best <= beyond.max(0.0) * beyond.max(0.0) {
                break;
            }
        }
        best
    }
}

/// The squared distance from `p` to triangle `[a, b, c]` (Ericson, "Real-Time Collision
/// Detection", 5.1.5: the closest point by the Voronoi region of `p`), degenerate
/// triangles included (their closest point is on an edge).
fn point_triangle_sq(p: P, [a, b, c]: [P; 3]) -> f64 {
    let distance_sq = |q: P| {
        let d = sub(p, q);
        dot(d, d)
    };
    let along = |from: P, to: P, t: f64| [0, 1, 2].map(|k| from[k] + (to[k] - from[k]) * t);
    let (ab, ac, ap) = (sub(b, a), sub(c, a), sub(p, a));
    let (d1, d2) = (dot(ab, ap), dot(ac, ap));
    if d1 <= 0.0 && d2 <= 0.0 {
        return distance_sq(a);
    }
    let bp = sub(p, b);
    let (d3, d4) = (dot(ab, bp), dot(ac, bp));
    if d3 >= 0.0 && d4 <= d3 {
        return distance_sq(b);
    }
    let vc = d1 * d4 - d3 * d2;
    if vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 && d1 - d3 > 0.0 {
        return distance_sq(along(a, b, d1 / (d1 - d3)));
    }
    let cp = sub(p, c);
    let (d5, d6) = (dot(ab, cp), dot(ac, cp));
    if d6 >= 0.0 && d5 <= d6 {
        return distance_sq(c);
    }
    let vb = d5 * d2 - d1 * d6;
    if vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 && d2 - d6 > 0.0 {
        return distance_sq(along(a, c, d2 / (d2 - d6)));
    }
    let va = d3 * d6 - d5 * d4;
    if va <= 0.0 && d4 - d3 >= 0.0 && d5 - d6 >= 0.0 && (d4 - d3) + (d5 - d6) > 0.0 {
        return distance_sq(along(b, c, (d4 - d3) / ((d4 - d3) + (d5 - d6))));
    }
    let sum = va + vb + vc;
    if sum > 0.0 {
        let (v, w) = (vb / sum, vc / sum);
        return distance_sq([0, 1, 2].map(|k| a[k] + ab[k] * v + ac[k] * w));
    }
    // A degenerate triangle: the nearest of its three edges.
    [(a, b), (b, c), (c, a)]
        .into_iter()
        .map(|(from, to)| {
            let e = sub(to, from);
            let len_sq = dot(e, e);
            let t = if len_sq > 0.0 {
                (dot(sub(p, from), e) / len_sq).clamp(0.0, 1.0)
            } else {
                0.0
            };
            distance_sq(along(from, to, t))
        })
        .fold(f64::INFINITY, f64::min)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vertex(position: [f32; 3]) -> Vertex {
        Vertex {
            position,
            normal: [0.0, 1.0, 0.0],
            uv: [0.0; 2],
            tangent: [0.0; 4],
            color: [255; 4],
        }
    }

    /// A `n × n` grid of quads over `[0, 1]²` in the xz plane, lifted by `height(x, z)`.
    fn sheet(n: u32, height: impl Fn(f32, f32) -> f32) -> (Vec<Vertex>, Vec<u32>) {
        let mut vertices = Vec::new();
        for j in 0..=n {
            for i in 0..=n {
                let (x, z) = (i as f32 / n as f32, j as f32 / n as f32);
                vertices.push(vertex([x, height(x, z), z]));
            }
        }
        let mut indices = Vec::new();
        let row = n + 1;
        for j in 0..n {
            for i in 0..n {
                let a = j * row + i;
                indices.extend([a, a + row, a + 1, a + 1, a + row, a + row + 1]);
            }
        }
        (vertices, indices)
    }

    /// The two triangles of the sheet's corners.
    fn corners(n: u32) -> Vec<u32> {
        let row = n + 1;
        let (a, b, c, d) = (0, n, n * row, n * row + n);
        vec![a, c, b, b, c, d]
    }

    #[test]
    fn the_same_triangles_or_a_flat_sheet_on_its_corners_are_no_deviation() {
        let (vertices, full) = sheet(8, |_, _| 0.0);
        assert_eq!(level_deviation(&vertices, &full, &full), 0.0);
        let mut reordered: Vec<u32> = full
            .chunks_exact(3)
            .rev()
            .flat_map(|t| [t[1], t[2], t[0]])
            .collect();
        assert_eq!(level_deviation(&vertices, &full, &reordered), 0.0);
        reordered.truncate(reordered.len() - 3);
        assert!(
            level_deviation(&vertices, &full, &reordered) > 0.0,
            "a hole"
        );
        assert!(level_deviation(&vertices, &full, &corners(8)) < 1e-7);
    }

    #[test]
    fn a_bump_flattened_away_deviates_by_its_height() {
        // One vertex in the middle raised by 0.3: the two corner triangles miss it by
        // exactly that.
        let (vertices, full) = sheet(8, |x, z| if x == 0.5 && z == 0.5 { 0.3 } else { 0.0 });
        let d = level_deviation(&vertices, &full, &corners(8));
        assert!((d - 0.3).abs() < 1e-6, "{d}");
    }

    #[test]
    fn a_level_spanning_a_gap_is_measured_from_its_side() {
        // Level 0: two strips at x in [0, 0.1] and [0.9, 1]; the level bridges them with
        // one quad over the gap, whose middle is 0.4 from either strip. Level 0's
        // vertices are all on the bridge, so only the level's own samples see the gap.
        let mut vertices = Vec::new();
        for x in [0.0, 0.1, 0.9, 1.0] {
            for z in [0.0, 1.0] {
                vertices.push(vertex([x, 0.0, z]));
            }
        }
        let quad = |a: u32, b: u32| [a, a + 1, b, b, a + 1, b + 1];
        let full: Vec<u32> = [quad(0, 2), quad(4, 6)].concat();
        let bridge: Vec<u32> = quad(0, 6).to_vec();
        let d = level_deviation(&vertices, &full, &bridge);
        // The centroid of a bridge triangle is a third of the way in, x = 1/3: 0.2333
        // from the first strip's edge; the edge midpoints on the diagonal, x = 0.5, 0.4.
        // (Level 0's own samples are all on the bridge.)
        assert!((d - 0.4).abs() < 1e-6, "{d}");
    }

    #[test]
    fn a_level_with_nothing_left_deviates_by_the_parts_diameter() {
        let (vertices, full) = sheet(4, |_, _| 0.0);
        let d = level_deviation(&vertices, &full, &[]);
        assert!((d - 2f32.sqrt()).abs() < 1e-6, "{d}");
        assert_eq!(level_deviation(&vertices, &[], &[]), 0.0);
    }

    #[test]
    fn the_grid_finds_what_brute_force_finds() {
        // A wavy sheet against a coarse copy, and points off the surface, some far
        // outside the grid.
        let (vertices, full) = sheet(24, |x, z| (x * 7.0).sin() * 0.1 + (z * 5.0).cos() * 0.05);
        let grid = TriangleGrid::new(&vertices, &full);
        let triangles: Vec<[P; 3]> = full
            .chunks_exact(3)
            .map(|t| [0, 1, 2].map(|k| vertices[t[k] as usize].position.map(f64::from)))
            .collect();
        for i in 0..200 {
            let f = i as f64;
            let p = [
                (f * 0.137).fract() * 3.0 - 1.0,
                (f * 0.291).fract() - 0.5,
                (f * 0.377).fract() * 3.0 - 1.0,
            ];
            let brute = triangles
                .iter()
                .map(|&t| point_triangle_sq(p, t))
                .fold(f64::INFINITY, f64::min);
            assert_eq!(grid.distance_sq(p), brute, "{p:?}");
        }
    }

    #[test]
    fn point_triangle_distance_in_every_region() {
        let t = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]];
        let cases = [
            ([0.25, 0.25, 2.0], 4.0), // above the face
            ([-1.0, -1.0, 0.0], 2.0), // past vertex a
            ([2.0, 0.0, 1.0], 2.0),   // past vertex b
            ([0.5, -1.0, 0.0], 1.0),  // beside edge ab
            ([-3.0, 0.5, 0.0], 9.0),  // beside edge ac
            ([1.0, 1.0, 0.0], 0.5),   // beside edge bc
        ];
        for (p, expected) in cases {
            let d = point_triangle_sq(p, t);
            assert!((d - expected).abs() < 1e-12, "{p:?}: {d}");
        }
        let degenerate = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [2.0, 0.0, 0.0]];
        assert_eq!(point_triangle_sq([1.5, 1.0, 0.0], degenerate), 1.0);
    }
}

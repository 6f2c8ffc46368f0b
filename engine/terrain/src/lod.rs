//! Terrain level of detail: a quadtree of square patches, each drawn as a grid of at
//! most [`PATCH_CELLS`]² cells at its own sample step (geomipmapping on a quadtree, as in
//! CDLOD's selection). A camera gets the coarsest patches whose height error, seen from
//! its eye, stays under an angle; skirts hanging from patch edges hide the cracks
//! between neighbours drawn at different steps.
//!
//! Pure: the full-resolution heightmap stays the one the brush and the ray cast read;
//! this module only chooses which samples a renderer draws.

use glam::{Vec2, Vec3};

use crate::heightmap::Terrain;
use crate::mesh::TerrainMesh;

/// Cells per side of a patch's grid, at every depth: a leaf patch draws 64×64 cells at
/// full resolution, its parent 128×128 cells every second sample, and so on.
pub const PATCH_CELLS: usize = 64;

/// A node of the quadtree: at `depth` (0 is the root), the `x`-th patch from the west
/// and `z`-th from the south.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PatchId {
    pub depth: u8,
    pub x: u32,
    pub z: u32,
}

#[derive(Clone, Copy, Debug, PartialEq)]
struct PatchBounds {
    /// An upper bound of the vertical distance between the patch as drawn and the
    /// full-resolution surface, in metres (0 for leaves).
    error: f32,
    min_y: f32,
    max_y: f32,
}

/// The patches of one depth, row-major from the south-west.
#[derive(Clone, Debug, PartialEq)]
struct Level {
    across: usize,
    bounds: Vec<PatchBounds>,
}

/// The quadtree of a terrain with each patch's error bound and height range.
#[derive(Clone, Debug, PartialEq)]
pub struct TerrainLod {
    /// Grid cells along x and z.
    cells: (usize, usize),
    /// Cells per side of the root patch: a power of two, at least [`PATCH_CELLS`].
    root_cells: usize,
    spacing: f32,
    min_corner: Vec2,
    /// Indexed by depth; the last one holds the leaves.
    levels: Vec<Level>,
}

impl TerrainLod {
    /// Builds the quadtree of `terrain`: every patch's height range and an error bound
    /// (its children's bound plus the largest distance from its grid to theirs), in
    /// about 1.33 interpolations per sample.
    pub fn new(terrain: &Terrain) -> Self {
        let cells = (terrain.columns() - 1, terrain.rows() - 1);
        let root_cells = cells.0.max(cells.1).next_power_of_two().max(PATCH_CELLS);
        let depths = (root_cells / PATCH_CELLS).trailing_zeros() as usize + 1;
        let mut lod = Self {
            cells,
            root_cells,
            spacing: terrain.spacing(),
            min_corner: terrain.min_corner(),
            levels: Vec::with_capacity(depths),
        };
        let leaf_depth = depths - 1;
        let mut levels = vec![lod.leaf_level(terrain, leaf_depth as u8)];
        for depth in (0..leaf_depth).rev() {
            let finer = levels.last().expect("the leaves come first");
            let level = lod.parent_level(terrain, depth as u8, finer);
            levels.push(level);
        }
        levels.reverse();
        lod.levels = levels;
        lod
    }

    /// The deepest depth: patches drawn at full resolution.
    pub fn leaf_depth(&self) -> u8 {
        (self.levels.len() - 1) as u8
    }

    /// The patches to draw for an eye at `eye`: the coarsest covering of the terrain in
    /// which each patch's error bound, seen from the eye, subtends at most `tolerance`
    /// radians (error ≤ tolerance × distance to the patch's box). Disjoint, covering
    /// every cell once, in a fixed order.
    pub fn select(&self, eye: Vec3, tolerance: f32) -> Vec<PatchId> {
        let mut selected = Vec::new();
        let mut stack = vec![PatchId {
            depth: 0,
            x: 0,
            z: 0,
        }];
        while let Some(id) = stack.pop() {
            let bounds = self.bounds(id);
            let distance = self.distance_to(id, bounds, eye);
            if id.depth == self.leaf_depth() || bounds.error <= tolerance * distance {
                selected.push(id);
                continue;
            }
            // Pushed in reverse so that patches come out south-west first.
            for (dx, dz) in [(1, 1), (0, 1), (1, 0), (0, 0)] {
                let child = PatchId {
                    depth: id.depth + 1,
                    x: id.x * 2 + dx,
                    z: id.z * 2 + dz,
                };
                if self.exists(child) {
                    stack.push(child);
                }
            }
        }
        selected
    }

    /// Cells per side of a patch at `depth` and the step between the samples it draws.
    pub fn patch_cells_and_step(&self, depth: u8) -> (usize, usize) {
        let size = self.root_cells >> depth;
        (size, (size / PATCH_CELLS).max(1))
    }

    /// The error bound of a patch, in metres.
    pub fn error(&self, id: PatchId) -> f32 {
        self.bounds(id).error
    }

    /// The mesh of patch `id`: its grid, plus a skirt hanging from every edge it shares
    /// with another patch, twice its parent's error deep (a crack is at most the sum of
    /// the two sides' errors). Skirts face outwards; the terrain's outer border has none,
    /// and near it they are no deeper than a quarter of their distance to it, so they
    /// do not show below the terrain's edge from outside.
    pub fn patch_mesh(&self, terrain: &Terrain, id: PatchId) -> TerrainMesh {
        let (columns, rows) = self.samples(id);
        let mut mesh = terrain.grid_mesh(&columns, &rows);
        let width = columns.len();
        let height = rows.len();
        let at = |column: usize, row: usize| (row * width + column) as u32;
        let parent = PatchId {
            depth: id.depth.saturating_sub(1),
            x: id.x >> u8::from(id.depth > 0),
            z: id.z >> u8::from(id.depth > 0),
        };
        let full_depth = 2.0 * self.error(parent) + self.spacing;
        let (low, high) = (
            self.min_corner,
            self.min_corner + self.spacing * Vec2::new(self.cells.0 as f32, self.cells.1 as f32),
        );
        let depth = |p: Vec3| {
            let to_border = (p.x - low.x)
                .min(high.x - p.x)
                .min(p.z - low.y)
                .min(high.y - p.z);
            full_depth.min(0.25 * to_border.max(0.0))
        };
        let on_border = |column: usize, row: usize| {
            let (column, row) = (columns[column], rows[row]);
            column == 0 || row == 0 || column == self.cells.0 || row == self.cells.1
        };
        let vertex = |column: usize, row: usize| (at(column, row), on_border(column, row));
        let (last_column, last_row) = (width - 1, height - 1);
        // Per side: whether another patch meets it (the terrain's outer edge gets no
        // skirt), its vertices and its outward direction.
        let edges: [(bool, Vec<BorderVertex>, Vec3); 4] = [
            (
                rows[0] > 0,
                (0..width).map(|c| vertex(c, 0)).collect(),
                -Vec3::Z,
            ),
            (
                rows[last_row] < self.cells.1,
                (0..width).map(|c| vertex(c, last_row)).collect(),
                Vec3::Z,
            ),
            (
                columns[0] > 0,
                (0..height).map(|r| vertex(0, r)).collect(),
                -Vec3::X,
            ),
            (
                columns[last_column] < self.cells.0,
                (0..height).map(|r| vertex(last_column, r)).collect(),
                Vec3::X,
            ),
        ];
        for (shared, edge, outward) in edges {
            if shared {
                add_skirt(&mut mesh, terrain, &edge, outward, &depth);
            }
        }
        mesh
    }

    /// The sample columns and rows patch `id` draws: every `step`-th from its first,
    /// and its last (which may sit closer at the terrain's far edges).
    pub fn samples(&self, id: PatchId) -> (Vec<usize>, Vec<usize>) {
        let (cells, step) = self.patch_cells_and_step(id.depth);
        let x0 = id.x as usize * cells;
        let z0 = id.z as usize * cells;
        (
            stepped(x0, (x0 + cells).min(self.cells.0), step),
            stepped(z0, (z0 + cells).min(self.cells.1), step),
        )
    }

    fn exists(&self, id: PatchId) -> bool {
        let (cells, _) = self.patch_cells_and_step(id.depth);
        (id.x as usize) * cells < self.cells.0 && (id.z as usize) * cells < self.cells.1
    }

    fn bounds(&self, id: PatchId) -> PatchBounds {
        let level = &self.levels[id.depth as usize];
        level.bounds[id.z as usize * level.across + id.x as usize]
    }

    /// Distance from `eye` to the patch's box (0 inside it).
    fn distance_to(&self, id: PatchId, bounds: PatchBounds, eye: Vec3) -> f32 {
        let (cells, _) = self.patch_cells_and_step(id.depth);
        let x0 = id.x as usize * cells;
        let z0 = id.z as usize * cells;
        let x1 = (x0 + cells).min(self.cells.0);
        let z1 = (z0 + cells).min(self.cells.1);
        let min = Vec3::new(
            self.min_corner.x + x0 as f32 * self.spacing,
            bounds.min_y,
            self.min_corner.y + z0 as f32 * self.spacing,
        );
        let max = Vec3::new(
            self.min_corner.x + x1 as f32 * self.spacing,
            bounds.max_y,
            self.min_corner.y + z1 as f32 * self.spacing,
        );
        (min - eye).max(eye - max).max(Vec3::ZERO).length()
    }

    /// Patches along x and z at `depth`.
    fn counts(&self, depth: u8) -> (usize, usize) {
        let (cells, _) = self.patch_cells_and_step(depth);
        (self.cells.0.div_ceil(cells), self.cells.1.div_ceil(cells))
    }

    /// The level of patches at `depth`, each patch's bounds from `bounds_of`.
    fn level(&self, depth: u8, mut bounds_of: impl FnMut(PatchId) -> PatchBounds) -> Level {
        let (across, down) = self.counts(depth);
        let mut bounds = Vec::with_capacity(across * down);
        for z in 0..down as u32 {
            for x in 0..across as u32 {
                bounds.push(bounds_of(PatchId { depth, x, z }));
            }
        }
        Level { across, bounds }
    }

    fn leaf_level(&self, terrain: &Terrain, depth: u8) -> Level {
        self.level(depth, |id| {
            let (columns, rows) = self.samples(id);
            let (mut min_y, mut max_y) = (f32::INFINITY, f32::NEG_INFINITY);
            for row in rows[0]..=rows[rows.len() - 1] {
                for column in columns[0]..=columns[columns.len() - 1] {
                    let h = terrain.sample_at(column, row);
                    min_y = min_y.min(h);
                    max_y = max_y.max(h);
                }
            }
            PatchBounds {
                error: 0.0,
                min_y,
                max_y,
            }
        })
    }

    fn parent_level(&self, terrain: &Terrain, depth: u8, finer: &Level) -> Level {
        let (_, step) = self.patch_cells_and_step(depth);
        self.level(depth, |id| {
            let mut merged = PatchBounds {
                error: 0.0,
                min_y: f32::INFINITY,
                max_y: f32::NEG_INFINITY,
            };
            for (dx, dz) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
                let (cx, cz) = (id.x as usize * 2 + dx, id.z as usize * 2 + dz);
                if cx >= finer.across {
                    continue;
                }
                let Some(child) = finer.bounds.get(cz * finer.across + cx) else {
                    continue;
                };
                merged.error = merged.error.max(child.error);
                merged.min_y = merged.min_y.min(child.min_y);
                merged.max_y = merged.max_y.max(child.max_y);
            }
            let (columns, rows) = self.samples(id);
            let fine_columns = stepped(columns[0], columns[columns.len() - 1], step / 2);
            let fine_rows = stepped(rows[0], rows[rows.len() - 1], step / 2);
            merged.error += grid_deviation(terrain, (&columns, &rows), (&fine_columns, &fine_rows));
            merged
        })
    }
}

/// `first`, then every `step`-th index up to `last`, and `last` itself.
fn stepped(first: usize, last: usize, step: usize) -> Vec<usize> {
    let mut samples: Vec<usize> = (first..last).step_by(step.max(1)).collect();
    samples.push(last);
    samples
}

/// The largest vertical distance, at the samples `fine`, between the terrain and the
/// triangulated grid through the samples `coarse` (cells split from their north-west to
/// south-east corners, as [`Terrain::grid_mesh`] does). `fine` lies within `coarse`.
fn grid_deviation(
    terrain: &Terrain,
    coarse: (&[usize], &[usize]),
    fine: (&[usize], &[usize]),
) -> f32 {
    let cells_of = |coarse: &[usize], fine: &[usize]| -> Vec<(usize, f32)> {
        let mut cell = 0;
        fine.iter()
            .map(|&f| {
                while cell + 2 < coarse.len() && coarse[cell + 1] <= f {
                    cell += 1;
                }
                let (a, b) = (coarse[cell], coarse[cell + 1]);
                (cell, (f - a) as f32 / (b - a) as f32)
            })
            .collect()
    };
    let along_x = cells_of(coarse.0, fine.0);
    let along_z = cells_of(coarse.1, fine.1);
    let mut deviation = 0.0f32;
    for (&row, &(j, v)) in fine.1.iter().zip(&along_z) {
        for (&column, &(i, u)) in fine.0.iter().zip(&along_x) {
            let (c0, c1) = (coarse.0[i], coarse.0[i + 1]);
            let (r0, r1) = (coarse.1[j], coarse.1[j + 1]);
            let a = terrain.sample_at(c0, r0);
            let b = terrain.sample_at(c1, r0);
            let c = terrain.sample_at(c0, r1);
            let d = terrain.sample_at(c1, r1);
            let drawn = if u + v <= 1.0 {
                a + u * (b - a) + v * (c - a)
            } else {
                d + (1.0 - u) * (c - d) + (1.0 - v) * (b - d)
            };
            deviation = deviation.max((terrain.sample_at(column, row) - drawn).abs());
        }
    }
    deviation
}

/// A vertex of a patch's side: its index and whether it lies on the terrain's outer
/// border.
type BorderVertex = (u32, bool);

/// Hangs a skirt `depth(vertex)` metres deep from the edge through `edge` (vertex indices in
/// order along it, each with whether it lies on the terrain's outer border), wound to
/// face `outward`. Segments touching the outer border get none.
fn add_skirt(
    mesh: &mut TerrainMesh,
    terrain: &Terrain,
    edge: &[BorderVertex],
    outward: Vec3,
    depth: &impl Fn(Vec3) -> f32,
) {
    let lowered: Vec<u32> = edge
        .iter()
        .map(|&(i, _)| {
            let top = Vec3::from(mesh.positions[i as usize]);
            mesh.push_vertex(terrain, top, depth(top))
        })
        .collect();
    let position = |mesh: &TerrainMesh, i: u32| Vec3::from(mesh.positions[i as usize]);
    for k in 0..edge.len() - 1 {
        // A segment reaching the outer border would show below the terrain's edge from
        // outside; the crack it covers closes there (neighbours share that sample).
        if edge[k].1 || edge[k + 1].1 {
            continue;
        }
        let (a, b) = (edge[k].0, edge[k + 1].0);
        let (a_low, b_low) = (lowered[k], lowered[k + 1]);
        // The side of the quad (a, b, b_low, a_low) the winding a → b → a_low faces.
        let pa = position(mesh, a);
        let facing = (position(mesh, b) - pa).cross(position(mesh, a_low) - pa);
        if facing.dot(outward) >= 0.0 {
            mesh.indices
                .extend_from_slice(&[a, b, a_low, b, b_low, a_low]);
        } else {
            mesh.indices
                .extend_from_slice(&[b, a, b_low, a, a_low, b_low]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::default_world;

    fn cells_covered(lod: &TerrainLod, selection: &[PatchId]) -> usize {
        selection
            .iter()
            .map(|&id| {
                let (columns, rows) = lod.samples(id);
                (columns[columns.len() - 1] - columns[0]) * (rows[rows.len() - 1] - rows[0])
            })
            .sum()
    }

    #[test]
    fn a_selection_covers_every_cell_exactly_once() {
        let terrain = default_world();
        let lod = TerrainLod::new(&terrain);
        for eye in [Vec3::new(0.0, 30.0, 0.0), Vec3::new(-200.0, 400.0, -300.0)] {
            let selection = lod.select(eye, 0.001);
            assert_eq!(cells_covered(&lod, &selection), 256 * 256);
            let mut sorted = selection.clone();
            sorted.sort();
            sorted.dedup();
            assert_eq!(sorted.len(), selection.len());
        }
    }

    #[test]
    fn no_tolerance_draws_every_cell_at_full_resolution() {
        let terrain = default_world();
        let lod = TerrainLod::new(&terrain);
        let selection = lod.select(Vec3::new(0.0, 5000.0, 0.0), 0.0);
        assert!(selection.iter().all(|id| id.depth == lod.leaf_depth()));
        assert_eq!(selection.len(), 16);
    }

    #[test]
    fn far_eyes_get_coarser_patches_than_near_ones() {
        let terrain = default_world();
        let lod = TerrainLod::new(&terrain);
        let near = lod.select(Vec3::new(0.0, 20.0, 0.0), 0.001);
        let far = lod.select(Vec3::new(0.0, 3000.0, -3000.0), 0.001);
        assert!(far.len() < near.len(), "{} vs {}", far.len(), near.len());
    }

    #[test]
    fn error_bounds_hold_at_every_sample() {
        let terrain = default_world();
        let lod = TerrainLod::new(&terrain);
        for depth in 0..lod.leaf_depth() {
            let (across, down) = lod.counts(depth);
            for z in 0..down as u32 {
                for x in 0..across as u32 {
                    let id = PatchId { depth, x, z };
                    let (columns, rows) = lod.samples(id);
                    let all_columns = stepped(columns[0], columns[columns.len() - 1], 1);
                    let all_rows = stepped(rows[0], rows[rows.len() - 1], 1);
                    let exact =
                        grid_deviation(&terrain, (&columns, &rows), (&all_columns, &all_rows));
                    assert!(exact <= lod.error(id) + 1e-4, "{id:?}: {exact} > bound");
                }
            }
        }
    }

    #[test]
    fn uneven_terrains_are_covered_to_their_last_sample() {
        let heights = (0..150 * 97).map(|i| (i % 13) as f32 * 0.3).collect();
        let terrain = Terrain::new(150, 97, 1.5, heights, 0.0).unwrap();
        let lod = TerrainLod::new(&terrain);
        let selection = lod.select(Vec3::new(0.0, 10.0, 0.0), 0.002);
        assert_eq!(cells_covered(&lod, &selection), 149 * 96);
    }

    #[test]
    fn skirts_face_outwards_and_hang_below_their_edge() {
        let terrain = default_world();
        let lod = TerrainLod::new(&terrain);
        let id = PatchId {
            depth: lod.leaf_depth(),
            x: 1,
            z: 1,
        };
        let (columns, rows) = lod.samples(id);
        let grid = columns.len() * rows.len();
        let mesh = lod.patch_mesh(&terrain, id);
        assert_eq!(
            mesh.positions.len(),
            grid + 2 * (columns.len() + rows.len())
        );
        let centre = Vec3::from(mesh.positions[grid / 2]);
        let grid_triangles = (columns.len() - 1) * (rows.len() - 1) * 2;
        for t in grid_triangles..mesh.triangle_count() {
            let [a, b, c] = mesh.triangle(t);
            let normal = (b - a).cross(c - a);
            let mid = (a + b + c) / 3.0;
            let outward = (mid - centre) * Vec3::new(1.0, 0.0, 1.0);
            assert!(normal.dot(outward) > 0.0, "skirt triangle {t} faces in");
        }
        // Outer-border patches have no skirt on the border.
        let corner = lod.patch_mesh(
            &terrain,
            PatchId {
                depth: lod.leaf_depth(),
                x: 0,
                z: 0,
            },
        );
        assert_eq!(corner.positions.len(), grid + columns.len() + rows.len());
    }
}

use glam::{Vec2, Vec3};

use crate::error::TerrainError;

/// A regular grid of heights in metres, centred on the world origin.
///
/// Axes: `+x` is east, `+z` is north, `+y` is up. Sample `(column, row)` sits at
/// world `x = min_x + column * spacing`, `z = min_z + row * spacing`.
#[derive(Clone, Debug, PartialEq)]
pub struct Terrain {
    columns: usize,
    rows: usize,
    spacing: f32,
    heights: Vec<f32>,
    water_level: f32,
    /// Lowest and highest sample, kept so ray casts can clip without a scan.
    height_range: (f32, f32),
}

impl Terrain {
    /// Builds a terrain from row-major heights (`heights[row * columns + column]`).
    pub fn new(
        columns: usize,
        rows: usize,
        spacing: f32,
        heights: Vec<f32>,
        water_level: f32,
    ) -> Result<Self, TerrainError> {
        if columns < 2 || rows < 2 {
            return Err(TerrainError::TooSmall { columns, rows });
        }
        let expected = columns * rows;
        if heights.len() != expected {
            return Err(TerrainError::SizeMismatch {
                columns,
                rows,
                expected,
                actual: heights.len(),
            });
        }
        if !(spacing.is_finite() && spacing > 0.0) {
            return Err(TerrainError::BadSpacing { spacing });
        }
        if !water_level.is_finite() {
            return Err(TerrainError::BadWaterLevel { level: water_level });
        }
        if let Some(index) = heights.iter().position(|h| !h.is_finite()) {
            return Err(TerrainError::NonFiniteHeight {
                column: index % columns,
                row: index / columns,
                value: heights[index],
            });
        }
        let height_range = heights
            .iter()
            .fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), &h| {
                (lo.min(h), hi.max(h))
            });
        Ok(Self {
            columns,
            rows,
            spacing,
            heights,
            water_level,
            height_range,
        })
    }

    pub fn columns(&self) -> usize {
        self.columns
    }

    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Metres between neighbouring samples.
    pub fn spacing(&self) -> f32 {
        self.spacing
    }

    /// Height of the sea and lakes: ground below it is under water.
    pub fn water_level(&self) -> f32 {
        self.water_level
    }

    pub fn heights(&self) -> &[f32] {
        &self.heights
    }

    /// World-space corner with the smallest x and z.
    pub fn min_corner(&self) -> Vec2 {
        -0.5 * self.size()
    }

    /// World-space corner with the largest x and z.
    pub fn max_corner(&self) -> Vec2 {
        0.5 * self.size()
    }

    /// Extent in metres along x and z.
    pub fn size(&self) -> Vec2 {
        Vec2::new(
            (self.columns - 1) as f32 * self.spacing,
            (self.rows - 1) as f32 * self.spacing,
        )
    }

    /// Whether `(x, z)` lies on the terrain (edges included).
    pub fn contains(&self, x: f32, z: f32) -> bool {
        let (min, max) = (self.min_corner(), self.max_corner());
        x >= min.x && x <= max.x && z >= min.y && z <= max.y
    }

    /// Lowest and highest sample.
    pub fn height_range(&self) -> (f32, f32) {
        self.height_range
    }

    pub fn sample_at(&self, column: usize, row: usize) -> f32 {
        self.heights[row * self.columns + column]
    }

    /// World position of a grid sample.
    pub fn sample_position(&self, column: usize, row: usize) -> Vec3 {
        let min = self.min_corner();
        Vec3::new(
            min.x + column as f32 * self.spacing,
            self.sample_at(column, row),
            min.y + row as f32 * self.spacing,
        )
    }

    /// Bilinear height at a world position; positions off the grid clamp to its edge.
    pub fn sample_height(&self, x: f32, z: f32) -> f32 {
        let min = self.min_corner();
        let gx = ((x - min.x) / self.spacing).clamp(0.0, (self.columns - 1) as f32);
        let gz = ((z - min.y) / self.spacing).clamp(0.0, (self.rows - 1) as f32);
        // The cell's lower corner, kept one short of the last sample so (c0 + 1) exists.
        let c0 = (gx as usize).min(self.columns - 2);
        let r0 = (gz as usize).min(self.rows - 2);
        let (u, v) = (gx - c0 as f32, gz - r0 as f32);
        let row0 = &self.heights[r0 * self.columns + c0..];
        let row1 = &self.heights[(r0 + 1) * self.columns + c0..];
        let near = row0[0] + (row0[1] - row0[0]) * u;
        let far = row1[0] + (row1[1] - row1[0]) * u;
        near + (far - near) * v
    }

    /// Height gradient `(dh/dx, dh/dz)` by central differences one sample apart,
    /// which smooths the bilinear surface's cell-edge creases.
    pub fn gradient(&self, x: f32, z: f32) -> Vec2 {
        let d = self.spacing;
        Vec2::new(
            (self.sample_height(x + d, z) - self.sample_height(x - d, z)) / (2.0 * d),
            (self.sample_height(x, z + d) - self.sample_height(x, z - d)) / (2.0 * d),
        )
    }

    /// Unit surface normal (pointing up).
    pub fn normal(&self, x: f32, z: f32) -> Vec3 {
        let g = self.gradient(x, z);
        Vec3::new(-g.x, 1.0, -g.y).normalize()
    }

    /// Slope as `1 − normal.y`, in `[0, 1)`: 0 is flat ground, 0.13 is 30°, 0.29 is 45°,
    /// 0.5 is 60° and 1 would be a vertical wall. Presets' `slope_min`/`slope_max` use
    /// this scale.
    pub fn slope(&self, x: f32, z: f32) -> f32 {
        1.0 - self.normal(x, z).y
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ramp() -> Terrain {
        // 3×3 samples, 2 m apart, height = x + 10 (x from −2 to 2).
        let heights = (0..3)
            .flat_map(|_| (0..3).map(|c| (c as f32 - 1.0) * 2.0 + 10.0))
            .collect();
        Terrain::new(3, 3, 2.0, heights, 0.0).unwrap()
    }

    #[test]
    fn bilinear_sample_reproduces_a_plane_exactly() {
        let t = ramp();
        assert_eq!(t.sample_height(0.0, 0.0), 10.0);
        assert_eq!(t.sample_height(-1.0, 0.5), 9.0);
        assert_eq!(t.sample_height(1.5, -1.7), 11.5);
    }

    #[test]
    fn positions_off_the_grid_clamp_to_the_edge() {
        let t = ramp();
        assert_eq!(t.sample_height(50.0, 0.0), 12.0);
        assert_eq!(t.sample_height(-50.0, 99.0), 8.0);
    }

    #[test]
    fn slope_of_a_45_degree_ramp() {
        let t = ramp();
        let expected = 1.0 - std::f32::consts::FRAC_1_SQRT_2;
        assert!((t.slope(0.0, 0.0) - expected).abs() < 1e-6);
        let n = t.normal(0.0, 0.0);
        assert!((n - Vec3::new(-1.0, 1.0, 0.0).normalize()).length() < 1e-6);
    }

    #[test]
    fn rejects_bad_grids_with_named_errors() {
        assert_eq!(
            Terrain::new(1, 5, 1.0, vec![0.0; 5], 0.0),
            Err(TerrainError::TooSmall {
                columns: 1,
                rows: 5
            })
        );
        assert!(matches!(
            Terrain::new(2, 2, 1.0, vec![0.0; 3], 0.0),
            Err(TerrainError::SizeMismatch { expected: 4, .. })
        ));
        assert!(matches!(
            Terrain::new(2, 2, 0.0, vec![0.0; 4], 0.0),
            Err(TerrainError::BadSpacing { .. })
        ));
        assert!(matches!(
            Terrain::new(2, 2, 1.0, vec![0.0, f32::NAN, 0.0, 0.0], 0.0),
            Err(TerrainError::NonFiniteHeight {
                column: 1,
                row: 0,
                ..
            })
        ));
    }

    #[test]
    fn world_is_centred_on_the_origin() {
        let t = ramp();
        assert_eq!(t.min_corner(), Vec2::new(-2.0, -2.0));
        assert_eq!(t.max_corner(), Vec2::new(2.0, 2.0));
        assert!(t.contains(2.0, -2.0));
        assert!(!t.contains(2.01, 0.0));
    }
}

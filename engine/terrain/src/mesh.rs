use glam::Vec3;

use crate::biome::classify;
use crate::heightmap::Terrain;

/// The terrain as an indexed triangle mesh: one vertex per sample, two triangles per
/// cell, biome colours per vertex. Plain arrays, ready for any renderer.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TerrainMesh {
    pub positions: Vec<[f32; 3]>,
    pub normals: Vec<[f32; 3]>,
    pub colors: Vec<[f32; 4]>,
    /// Triangles wound counter-clockwise seen from above (+y).
    pub indices: Vec<u32>,
}

impl TerrainMesh {
    pub fn triangle_count(&self) -> usize {
        self.indices.len() / 3
    }

    pub fn triangle(&self, index: usize) -> [Vec3; 3] {
        let i = &self.indices[index * 3..index * 3 + 3];
        [0, 1, 2].map(|k| Vec3::from(self.positions[i[k] as usize]))
    }

    /// Appends a vertex `drop` metres below the ground point `sample`, with the
    /// terrain's full-resolution normal and the biome colour of `sample`; returns its
    /// index.
    pub(crate) fn push_vertex(&mut self, terrain: &Terrain, sample: Vec3, drop: f32) -> u32 {
        let (x, z) = (sample.x, sample.z);
        let [r, g, b] = classify(sample.y, terrain.slope(x, z), terrain.water_level()).color();
        self.positions.push([sample.x, sample.y - drop, sample.z]);
        self.normals.push(terrain.normal(x, z).to_array());
        self.colors.push([r, g, b, 1.0]);
        (self.positions.len() - 1) as u32
    }
}

impl Terrain {
    /// Builds the render and reference mesh of this terrain at full resolution.
    pub fn mesh(&self) -> TerrainMesh {
        let columns: Vec<usize> = (0..self.columns()).collect();
        let rows: Vec<usize> = (0..self.rows()).collect();
        self.grid_mesh(&columns, &rows)
    }

    /// The mesh through the samples at `columns` × `rows` (both increasing): one vertex
    /// per listed sample, two triangles per cell between neighbouring ones. The first
    /// vertex is `(columns[0], rows[0])`, then along `columns`, row by row.
    pub(crate) fn grid_mesh(&self, columns: &[usize], rows: &[usize]) -> TerrainMesh {
        let (width, height) = (columns.len(), rows.len());
        let mut mesh = TerrainMesh {
            positions: Vec::with_capacity(width * height),
            normals: Vec::with_capacity(width * height),
            colors: Vec::with_capacity(width * height),
            indices: Vec::with_capacity(width.saturating_sub(1) * height.saturating_sub(1) * 6),
        };
        for &row in rows {
            for &column in columns {
                mesh.push_vertex(self, self.sample_position(column, row), 0.0);
            }
        }
        let width = width as u32;
        for row in 0..height.saturating_sub(1) as u32 {
            for column in 0..width.saturating_sub(1) {
                let a = row * width + column;
                let (b, c, d) = (a + 1, a + width, a + width + 1);
                // Seen from +y with x right and z up the page, a→c→b is counter-clockwise.
                mesh.indices.extend_from_slice(&[a, c, b, b, c, d]);
            }
        }
        mesh
    }
}

#[cfg(test)]
mod tests {
    use crate::default_world;

    #[test]
    fn default_world_mesh_has_131072_triangles() {
        let mesh = default_world().mesh();
        assert_eq!(mesh.triangle_count(), 131_072);
        assert_eq!(mesh.positions.len(), 257 * 257);
    }

    #[test]
    fn triangles_face_up() {
        let mesh = default_world().mesh();
        for t in (0..mesh.triangle_count()).step_by(997) {
            let [a, b, c] = mesh.triangle(t);
            // Counter-clockwise seen from above in a right-handed frame means the
            // normal (b − a) × (c − a) points up.
            assert!((b - a).cross(c - a).y > 0.0, "triangle {t} faces down");
        }
    }
}

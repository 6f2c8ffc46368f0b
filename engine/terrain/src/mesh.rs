use glam::Vec3;

use crate::biome::classify;
use crate::heightmap::Terrain;

/// The terrain as an indexed triangle mesh: one vertex per sample, two triangles per
/// cell, biome colours per vertex. Plain arrays, ready for any renderer.
#[derive(Clone, Debug, PartialEq)]
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
}

impl Terrain {
    /// Builds the render and reference mesh of this terrain.
    pub fn mesh(&self) -> TerrainMesh {
        let (columns, rows) = (self.columns(), self.rows());
        let mut mesh = TerrainMesh {
            positions: Vec::with_capacity(columns * rows),
            normals: Vec::with_capacity(columns * rows),
            colors: Vec::with_capacity(columns * rows),
            indices: Vec::with_capacity((columns - 1) * (rows - 1) * 6),
        };
        for row in 0..rows {
            for column in 0..columns {
                let p = self.sample_position(column, row);
                let slope = self.slope(p.x, p.z);
                let [r, g, b] = classify(p.y, slope, self.water_level()).color();
                mesh.positions.push(p.to_array());
                mesh.normals.push(self.normal(p.x, p.z).to_array());
                mesh.colors.push([r, g, b, 1.0]);
            }
        }
        let columns = columns as u32;
        for row in 0..rows as u32 - 1 {
            for column in 0..columns - 1 {
                let a = row * columns + column;
                let (b, c, d) = (a + 1, a + columns, a + columns + 1);
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

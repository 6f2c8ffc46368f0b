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
        self.mesh_of_cells(0..self.columns() - 1, 0..self.rows() - 1)
    }

    /// The terrain cut into square chunks of `cells` × `cells` grid cells (smaller at the
    /// far edges), so a renderer can cull what the camera and the sun do not see. Chunks
    /// repeat the samples on their shared edges; normals come from the whole terrain, so
    /// the seams do not show.
    pub fn mesh_chunks(&self, cells: usize) -> Vec<TerrainMesh> {
        let cells = cells.max(1);
        let (columns, rows) = (self.columns() - 1, self.rows() - 1);
        (0..rows)
            .step_by(cells)
            .flat_map(|r| (0..columns).step_by(cells).map(move |c| (c, r)))
            .map(|(c, r)| self.mesh_of_cells(c..(c + cells).min(columns), r..(r + cells).min(rows)))
            .collect()
    }

    /// The mesh of the grid cells in `columns` × `rows` (cell `(c, r)` spans samples
    /// `c..=c + 1`, `r..=r + 1`).
    fn mesh_of_cells(
        &self,
        columns: std::ops::Range<usize>,
        rows: std::ops::Range<usize>,
    ) -> TerrainMesh {
        let (width, height) = (columns.len() + 1, rows.len() + 1);
        let mut mesh = TerrainMesh {
            positions: Vec::with_capacity(width * height),
            normals: Vec::with_capacity(width * height),
            colors: Vec::with_capacity(width * height),
            indices: Vec::with_capacity(columns.len() * rows.len() * 6),
        };
        for row in rows.start..=rows.end {
            for column in columns.start..=columns.end {
                let p = self.sample_position(column, row);
                let slope = self.slope(p.x, p.z);
                let [r, g, b] = classify(p.y, slope, self.water_level()).color();
                mesh.positions.push(p.to_array());
                mesh.normals.push(self.normal(p.x, p.z).to_array());
                mesh.colors.push([r, g, b, 1.0]);
            }
        }
        let width = width as u32;
        for row in 0..rows.len() as u32 {
            for column in 0..width - 1 {
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
    use super::TerrainMesh;
    use crate::default_world;

    #[test]
    fn default_world_mesh_has_131072_triangles() {
        let mesh = default_world().mesh();
        assert_eq!(mesh.triangle_count(), 131_072);
        assert_eq!(mesh.positions.len(), 257 * 257);
    }

    #[test]
    fn chunks_cover_every_triangle_once() {
        let terrain = default_world();
        let chunks = terrain.mesh_chunks(32);
        assert_eq!(chunks.len(), 64);
        let triangles: usize = chunks.iter().map(TerrainMesh::triangle_count).sum();
        assert_eq!(triangles, 131_072);
        let whole = terrain.mesh();
        let corner = chunks.last().unwrap().positions.last().copied();
        assert_eq!(corner, whole.positions.last().copied());
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

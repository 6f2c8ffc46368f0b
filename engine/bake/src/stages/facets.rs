use std::collections::HashMap;

use serde::Serialize;
use sylva_mesh::Vertex;

use super::wedges::Wedges;
use super::Level;

/// A vertex is flat when its normal is within this angle of every face it belongs to.
const FLAT_DEGREES: f32 = 2.0;
/// A part whose flat triangles cover at least this share of its area is faceted.
const FACETED_AREA_SHARE: f64 = 0.5;
/// Appended vertices may grow the vertex buffer by at most this share of the input's.
const APPENDED_SHARE: f64 = 0.3;
/// The angles, tightest first, within which a corner's existing vertex is close enough
/// to its coarse face; the first whose appended vertices fit the budget is used, else
/// the widest with the budget going to the largest triangles.
const TOLERANCE_DEGREES: [f32; 4] = [3.0, 5.0, 7.0, 9.0];

/// What the corner shading did to one part.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct FacetStats {
    /// Share of the full mesh's area on triangles whose corners all carry its face
    /// normal (within 2°).
    pub flat_area_share: f32,
    /// Faceted parts get face-normal vertices where no input vertex fits; smooth parts
    /// (flat triangles under half the area) only ever reference their authored vertices.
    pub faceted: bool,
    /// Vertices appended after the input's, for all levels together.
    pub appended_vertices: usize,
    /// The angle within which an existing vertex was close enough to a coarse face.
    pub tolerance_degrees: f32,
    /// The budget ran out: some coarse corners kept a vertex further than that.
    pub capped: bool,
}

/// The vertices a part of `input_vertices` may append on its own account (30 %); an
/// asset gives what its parts leave unused to those that ran out.
pub fn own_budget(input_vertices: usize) -> usize {
    (input_vertices as f64 * APPENDED_SHARE) as usize
}

/// Chooses every simplified corner's vertex so coarse triangles keep the part's look.
/// The simplifier worked on wedges (position, UV, colour); each corner now becomes the
/// member of its wedge whose normal is closest to the coarse triangle's face normal.
/// On a faceted part, a corner whose closest normal is a facet's yet further than the
/// tolerance gets a new vertex with the face normal (and the wedge's UV and colour),
/// appended after the input vertices, which level 0 alone keeps indexing; at most 30 %
/// of the input's vertices are appended. Returns the appended vertices.
pub fn shade_corners(
    vertices: &[Vertex],
    wedges: &Wedges,
    full: &[u32],
    levels: &mut [Level],
    extra_budget: usize,
) -> (Vec<Vertex>, FacetStats) {
    let flat_area_share = facet_area_share(vertices, full);
    let faceted = flat_area_share >= FACETED_AREA_SHARE;
    let budget = own_budget(vertices.len()) + extra_budget;
    let surface: Vec<Vec<u32>> = levels.iter().map(|l| l.indices.clone()).collect();
    let shade = |tolerance: f32, budget: usize| {
        Shader {
            vertices,
            wedges,
            faceted,
            min_cos: tolerance.to_radians().cos(),
            budget,
        }
        .shade(&surface)
    };
    let widest = TOLERANCE_DEGREES[TOLERANCE_DEGREES.len() - 1];
    // The tightest tolerance whose appended vertices fit; else the widest, appending
    // for the largest coarse triangles first until the budget is spent.
    let (chosen, appended, tolerance, capped) = TOLERANCE_DEGREES
        .iter()
        .find_map(|&tolerance| {
            let (chosen, appended) = shade(tolerance, usize::MAX);
            (appended.len() <= budget).then_some((chosen, appended, tolerance, false))
        })
        .unwrap_or_else(|| {
            let (chosen, appended) = shade(widest, budget);
            (chosen, appended, widest, true)
        });
    for (level, indices) in levels.iter_mut().zip(chosen) {
        level.indices = indices;
    }
    let stats = FacetStats {
        flat_area_share: flat_area_share as f32,
        faceted,
        appended_vertices: appended.len(),
        tolerance_degrees: tolerance,
        capped,
    };
    (appended, stats)
}

struct Shader<'a> {
    vertices: &'a [Vertex],
    wedges: &'a Wedges,
    faceted: bool,
    min_cos: f32,
    /// Most vertices to append.
    budget: usize,
}

impl Shader<'_> {
    /// Every level's corners resolved to vertices (input indices, then appended ones
    /// numbered from `vertices.len()`), and the appended vertices. Triangles are
    /// visited largest first (then by level and position), so a short budget goes to
    /// the most visible faces.
    fn shade(&self, surface: &[Vec<u32>]) -> (Vec<Vec<u32>>, Vec<Vertex>) {
        let base = self.vertices.len() as u32;
        let wedge_positions = self.wedges.positions();
        let corners_of =
            |triangle: &[u32]| [0, 1, 2].map(|k| wedge_positions[triangle[k] as usize]);
        let mut order: Vec<(f32, usize, usize)> = surface
            .iter()
            .enumerate()
            .flat_map(|(level, indices)| {
                indices
                    .chunks_exact(3)
                    .enumerate()
                    .map(move |(t, triangle)| (length(cross_of(corners_of(triangle))), level, t))
            })
            .collect();
        order.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2)));
        let mut chosen: Vec<Vec<u32>> = surface.iter().map(|l| vec![0; l.len()]).collect();
        let mut appended: Vec<Vertex> = Vec::new();
        // Per wedge, the appended vertices made for it so far.
        let mut appended_at: HashMap<u32, Vec<u32>> = HashMap::new();
        // Per appended vertex, the face normals of the corners it serves.
        let mut faces_of: Vec<Vec<[f32; 3]>> = Vec::new();
        for (_, level, t) in order {
            let triangle = &surface[level][3 * t..3 * t + 3];
            let out = &mut chosen[level][3 * t..3 * t + 3];
            let Some(face) = face_normal(corners_of(triangle)) else {
                for (slot, &wedge) in out.iter_mut().zip(triangle) {
                    *slot = self.wedges.representative(wedge);
                }
                continue;
            };
            for (slot, &wedge) in out.iter_mut().zip(triangle) {
                let mut best = (f32::NEG_INFINITY, self.wedges.representative(wedge));
                for &member in self.wedges.members(wedge) {
                    let cos = dot(unit(self.vertices[member as usize].normal), face);
                    if cos > best.0 {
                        best = (cos, member);
                    }
                }
                for &extra in appended_at.get(&wedge).into_iter().flatten() {
                    let cos = dot(appended[(extra - base) as usize].normal, face);
                    if cos > best.0 {
                        best = (cos, extra);
                    }
                }
                let (cos, vertex) = best;
                if cos >= self.min_cos || !self.faceted {
                    if vertex >= base {
                        faces_of[(vertex - base) as usize].push(face);
                    }
                    *slot = vertex;
                    continue;
                }
                // An appended vertex of this wedge whose faces, with this one, all stay
                // within the tolerance of their mean normal takes the mean and serves.
                let shared = appended_at
                    .get(&wedge)
                    .into_iter()
                    .flatten()
                    .find_map(|&extra| {
                        let faces = &faces_of[(extra - base) as usize];
                        let mean = unit(faces.iter().fold(face, |sum, f| add(sum, *f)));
                        let fits = faces
                            .iter()
                            .chain([&face])
                            .all(|f| dot(mean, *f) >= self.min_cos);
                        fits.then_some((extra, mean))
                    });
                if let Some((extra, mean)) = shared {
                    appended[(extra - base) as usize].normal = mean;
                    faces_of[(extra - base) as usize].push(face);
                    *slot = extra;
                } else if appended.len() < self.budget {
                    let index = base + appended.len() as u32;
                    let source = self.vertices[self.wedges.representative(wedge) as usize];
                    appended.push(Vertex {
                        normal: face,
                        ..source
                    });
                    faces_of.push(vec![face]);
                    appended_at.entry(wedge).or_default().push(index);
                    *slot = index;
                } else {
                    *slot = vertex;
                }
            }
        }
        (chosen, appended)
    }
}

/// The share of the area on triangles whose three corners are facet corners: a
/// vertex whose normal is within [`FLAT_DEGREES`] of every face using it, at a position
/// that carries other normals too (the mesh is split there, as flat shading splits
/// every corner; a smooth mesh's flat stretches share their vertices).
fn facet_area_share(vertices: &[Vertex], indices: &[u32]) -> f64 {
    let min_cos = FLAT_DEGREES.to_radians().cos();
    let mut normal_at: HashMap<[u32; 3], ([u32; 3], bool)> = HashMap::new();
    for v in vertices {
        let normal = v.normal.map(f32::to_bits);
        let (first, split) = normal_at
            .entry(v.position.map(f32::to_bits))
            .or_insert((normal, false));
        *split |= *first != normal;
    }
    let mut flat: Vec<bool> = vertices
        .iter()
        .map(|v| normal_at[&v.position.map(f32::to_bits)].1)
        .collect();
    let mut used = vec![false; vertices.len()];
    for triangle in indices.chunks_exact(3) {
        let face = face_normal(positions(vertices, triangle));
        for &i in triangle {
            let i = i as usize;
            used[i] = true;
            let fits = face.is_some_and(|f| dot(unit(vertices[i].normal), f) >= min_cos);
            flat[i] &= fits;
        }
    }
    for (flat, used) in flat.iter_mut().zip(used) {
        *flat &= used;
    }
    let (mut flat_area, mut area) = (0.0, 0.0);
    for triangle in indices.chunks_exact(3) {
        let a = f64::from(length(cross_of(positions(vertices, triangle))));
        area += a;
        if triangle.iter().all(|&i| flat[i as usize]) {
            flat_area += a;
        }
    }
    if area > 0.0 {
        flat_area / area
    } else {
        0.0
    }
}

fn positions(vertices: &[Vertex], triangle: &[u32]) -> [[f32; 3]; 3] {
    [0, 1, 2].map(|k| vertices[triangle[k] as usize].position)
}

fn cross_of([a, b, c]: [[f32; 3]; 3]) -> [f32; 3] {
    let u = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
    let v = [c[0] - a[0], c[1] - a[1], c[2] - a[2]];
    [
        u[1] * v[2] - u[2] * v[1],
        u[2] * v[0] - u[0] * v[2],
        u[0] * v[1] - u[1] * v[0],
    ]
}

/// The unit normal of a counter-clockwise triangle, `None` when it has no area.
pub fn face_normal(corners: [[f32; 3]; 3]) -> Option<[f32; 3]> {
    let n = cross_of(corners);
    let len = length(n);
    (len > f32::MIN_POSITIVE && len.is_finite()).then(|| n.map(|c| c / len))
}

fn length(v: [f32; 3]) -> f32 {
    dot(v, v).sqrt()
}

fn dot(a: [f32; 3], b: [f32; 3]) -> f32 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

fn add(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}

fn unit(v: [f32; 3]) -> [f32; 3] {
    let len = length(v);
    if len > 0.0 {
        v.map(|c| c / len)
    } else {
        v
    }
}

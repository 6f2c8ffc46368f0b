use std::collections::{HashMap, VecDeque};

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
/// the widest with the budget buying whole triangles, the best buys first.
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
/// of the input's vertices are appended. Returns the appended vertices, and per level
/// the share of its area whose corners carry its face normal within the tolerance,
/// over that share of the full mesh.
pub fn shade_corners(
    vertices: &[Vertex],
    wedges: &Wedges,
    full: &[u32],
    levels: &mut [Level],
    extra_budget: usize,
) -> (Vec<Vertex>, FacetStats, Vec<f64>) {
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
    // for whole triangles, the best buys first, until the budget is spent.
    let (
        Shaded {
            chosen,
            appended,
            faceted_shares,
        },
        tolerance,
        capped,
    ) = TOLERANCE_DEGREES
        .iter()
        .find_map(|&tolerance| {
            let shaded = shade(tolerance, usize::MAX);
            (shaded.appended.len() <= budget).then_some((shaded, tolerance, false))
        })
        .unwrap_or_else(|| (shade(widest, budget), widest, true));
    for (level, indices) in levels.iter_mut().zip(chosen) {
        level.indices = indices;
    }
    // Against the full mesh's own share: a partly smooth part's smooth triangles are
    // not facets at any level.
    let full_share = fitting_area_share(vertices, full, tolerance).max(f64::MIN_POSITIVE);
    let faceted_shares = faceted_shares.iter().map(|s| s / full_share).collect();
    let stats = FacetStats {
        flat_area_share: flat_area_share as f32,
        faceted,
        appended_vertices: appended.len(),
        tolerance_degrees: tolerance,
        capped,
    };
    (appended, stats, faceted_shares)
}

/// What one shading pass chose.
struct Shaded {
    /// Every level's corners: input vertices, then appended ones.
    chosen: Vec<Vec<u32>>,
    appended: Vec<Vertex>,
    /// Per level, the share of its area on triangles all of whose corners fit.
    faceted_shares: Vec<f64>,
}

struct Shader<'a> {
    vertices: &'a [Vertex],
    wedges: &'a Wedges,
    faceted: bool,
    min_cos: f32,
    /// Most vertices to append.
    budget: usize,
}

/// How one corner of a coarse triangle gets its vertex.
enum Corner {
    /// An existing vertex (input or appended) within the tolerance, or the closest one
    /// when none is and the part is smooth or the triangle cannot be served.
    Existing { vertex: u32, cos: f32 },
    /// An appended vertex of the wedge that takes this face into its mean normal.
    Shared { vertex: u32, mean: [f32; 3] },
    /// A new vertex with the face's normal.
    Append,
}

/// The shading under way: every level's chosen corners and the appended vertices.
struct Shading {
    /// Input vertices; appended ones are numbered from here.
    base: u32,
    chosen: Vec<Vec<u32>>,
    appended: Vec<Vertex>,
    /// Per wedge, the appended vertices made for it so far.
    appended_at: HashMap<u32, Vec<u32>>,
    /// Per appended vertex, the face normals of the corners it serves.
    faces_of: Vec<Vec<[f32; 3]>>,
}

impl Shader<'_> {
    /// Every level's corners resolved to vertices (input indices, then appended ones
    /// numbered from `vertices.len()`), and the appended vertices.
    ///
    /// A triangle is faceted only when all three corners fit, so a triangle whose new
    /// vertices no longer fit the budget gets none, and a short budget goes to whole
    /// triangles: first those every input vertex already fits (free), then, one at a
    /// time, the best buy of the level faceted least so far (by share of its level's
    /// area, each level's triangles ordered by area over the corners no input vertex
    /// fits, then largest first), so every level keeps as much of its look as it can.
    fn shade(&self, surface: &[Vec<u32>]) -> Shaded {
        let wedge_positions = self.wedges.positions();
        let corners_of =
            |triangle: &[u32]| [0, 1, 2].map(|k| wedge_positions[triangle[k] as usize]);
        let mut free: Vec<(usize, usize)> = Vec::new();
        let mut queues: Vec<VecDeque<usize>> = Vec::with_capacity(surface.len());
        let mut shares: Vec<Vec<f64>> = Vec::with_capacity(surface.len());
        for (level, indices) in surface.iter().enumerate() {
            let areas: Vec<f64> = indices
                .chunks_exact(3)
                .map(|triangle| f64::from(length(cross_of(corners_of(triangle)))))
                .collect();
            let level_area = areas.iter().sum::<f64>().max(f64::MIN_POSITIVE);
            let mut costly: Vec<(f64, f64, usize)> = Vec::new();
            for (t, (triangle, &area)) in indices.chunks_exact(3).zip(&areas).enumerate() {
                let unfit = face_normal(corners_of(triangle)).map_or(0, |face| {
                    triangle
                        .iter()
                        .filter(|&&wedge| self.closest_input(wedge, face).0 < self.min_cos)
                        .count()
                });
                match unfit {
                    0 => free.push((level, t)),
                    n => costly.push((area / n as f64, area, t)),
                }
            }
            costly.sort_by(|a, b| {
                (b.0.total_cmp(&a.0))
                    .then(b.1.total_cmp(&a.1))
                    .then(a.2.cmp(&b.2))
            });
            queues.push(costly.into_iter().map(|(_, _, t)| t).collect());
            shares.push(areas.iter().map(|a| a / level_area).collect());
        }
        let mut shading = Shading {
            base: self.vertices.len() as u32,
            chosen: surface.iter().map(|l| vec![0; l.len()]).collect(),
            appended: Vec::new(),
            appended_at: HashMap::new(),
            faces_of: Vec::new(),
        };
        let mut faceted_share = vec![0.0f64; surface.len()];
        for (level, t) in free {
            if self.shade_triangle(&mut shading, surface, &corners_of, level, t) {
                faceted_share[level] += shares[level][t];
            }
        }
        while let Some(level) = (0..surface.len())
            .filter(|&l| !queues[l].is_empty())
            .min_by(|&a, &b| faceted_share[a].total_cmp(&faceted_share[b]))
        {
            let t = queues[level]
                .pop_front()
                .expect("a level with triangles left");
            if self.shade_triangle(&mut shading, surface, &corners_of, level, t) {
                faceted_share[level] += shares[level][t];
            }
        }
        Shaded {
            chosen: shading.chosen,
            appended: shading.appended,
            faceted_shares: faceted_share,
        }
    }

    /// Chooses the corners of triangle `t` of `level`; whether all three now carry its
    /// face normal within the tolerance.
    fn shade_triangle(
        &self,
        shading: &mut Shading,
        surface: &[Vec<u32>],
        corners_of: &impl Fn(&[u32]) -> [[f32; 3]; 3],
        level: usize,
        t: usize,
    ) -> bool {
        let base = shading.base;
        let triangle = &surface[level][3 * t..3 * t + 3];
        let Some(face) = face_normal(corners_of(triangle)) else {
            for (slot, &wedge) in shading.chosen[level][3 * t..3 * t + 3]
                .iter_mut()
                .zip(triangle)
            {
                *slot = self.wedges.representative(wedge);
            }
            return false;
        };
        let plan = [0, 1, 2].map(|k| {
            let wedge = triangle[k];
            let (cos, vertex) = self.closest(wedge, face, shading);
            if cos >= self.min_cos || !self.faceted {
                return Corner::Existing { vertex, cos };
            }
            // An appended vertex of this wedge whose faces, with this one, all stay
            // within the tolerance of their mean normal takes the mean and serves.
            let shared = shading
                .appended_at
                .get(&wedge)
                .into_iter()
                .flatten()
                .find_map(|&extra| {
                    let faces = &shading.faces_of[(extra - base) as usize];
                    let mean = unit(faces.iter().fold(face, |sum, f| add(sum, *f)));
                    let fits = faces
                        .iter()
                        .chain([&face])
                        .all(|f| dot(mean, *f) >= self.min_cos);
                    fits.then_some(Corner::Shared {
                        vertex: extra,
                        mean,
                    })
                });
            shared.unwrap_or(Corner::Append)
        });
        let new = plan.iter().filter(|c| matches!(c, Corner::Append)).count();
        let served = shading.appended.len() + new <= self.budget;
        let mut faceted = true;
        for (k, corner) in plan.into_iter().enumerate() {
            let wedge = triangle[k];
            shading.chosen[level][3 * t + k] = match corner {
                Corner::Existing { vertex, cos } => {
                    faceted &= cos >= self.min_cos;
                    if vertex >= base && cos >= self.min_cos {
                        shading.faces_of[(vertex - base) as usize].push(face);
                    }
                    vertex
                }
                Corner::Shared { vertex, mean } if served => {
                    shading.appended[(vertex - base) as usize].normal = mean;
                    shading.faces_of[(vertex - base) as usize].push(face);
                    vertex
                }
                Corner::Append if served => {
                    let index = base + shading.appended.len() as u32;
                    let source = self.vertices[self.wedges.representative(wedge) as usize];
                    shading.appended.push(Vertex {
                        normal: face,
                        ..source
                    });
                    shading.faces_of.push(vec![face]);
                    shading.appended_at.entry(wedge).or_default().push(index);
                    index
                }
                // Not served: the closest vertex there is, taking on no new face.
                Corner::Shared { .. } | Corner::Append => {
                    faceted = false;
                    self.closest(wedge, face, shading).1
                }
            };
        }
        faceted
    }

    /// The input vertex of `wedge` whose normal is closest to `face`, with its cosine.
    fn closest_input(&self, wedge: u32, face: [f32; 3]) -> (f32, u32) {
        let mut best = (f32::NEG_INFINITY, self.wedges.representative(wedge));
        for &member in self.wedges.members(wedge) {
            let cos = dot(unit(self.vertices[member as usize].normal), face);
            if cos > best.0 {
                best = (cos, member);
            }
        }
        best
    }

    /// The vertex of `wedge`, input or appended, whose normal is closest to `face`,
    /// with its cosine.
    fn closest(&self, wedge: u32, face: [f32; 3], shading: &Shading) -> (f32, u32) {
        let mut best = self.closest_input(wedge, face);
        for &extra in shading.appended_at.get(&wedge).into_iter().flatten() {
            let cos = dot(
                shading.appended[(extra - shading.base) as usize].normal,
                face,
            );
            if cos > best.0 {
                best = (cos, extra);
            }
        }
        best
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

/// The share of the area on triangles whose corners' normals are all within
/// `degrees` of their face's.
fn fitting_area_share(vertices: &[Vertex], indices: &[u32], degrees: f32) -> f64 {
    let min_cos = degrees.to_radians().cos();
    let (mut fitting, mut area) = (0.0, 0.0);
    for triangle in indices.chunks_exact(3) {
        let corners = positions(vertices, triangle);
        let a = f64::from(length(cross_of(corners)));
        area += a;
        let fits = face_normal(corners).is_some_and(|face| {
            triangle
                .iter()
                .all(|&i| dot(unit(vertices[i as usize].normal), face) >= min_cos)
        });
        if fits {
            fitting += a;
        }
    }
    if area > 0.0 {
        fitting / area
    } else {
        1.0
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

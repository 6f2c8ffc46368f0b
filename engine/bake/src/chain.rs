//! A part's LOD chain: weld → vertex-cache optimise → simplify every level from the
//! full mesh on its surface (wedges: position, UV, colour) → shade each coarse corner
//! (closest authored normal, or an appended face-normal vertex on faceted parts; a level
//! whose facets the vertex budget cannot keep is simplified less) →
//! vertex-cache optimise each level → one vertex-fetch optimisation over all levels →
//! each level's deviation from the full mesh in metres → vertices packed (16-bit
//! positions and UVs, 8-bit normals and tangents). One vertex buffer for the whole
//! chain, one index buffer per level.

use serde::Serialize;
use sylva_cache::{BakedLevel, BakedPart};
use sylva_import::ImportedPart;
use sylva_mesh::{Aabb, Sphere};

use crate::settings::{BakeSettings, Borders};
use crate::stages::{
    level_deviation, optimize_vertex_cache, optimize_vertex_fetch, quantize_vertices,
    shade_corners, simplify_levels, weld, FacetStats, Level, LevelStats, QuantizeStats,
    SimplifyInput, StopReason, VertexCacheStats, VertexFetchStats, Wedges, WeldStats,
};
use sylva_catalog::LodLevel;

/// Every level of a part faceted all over (flat triangles on at least
/// `LOOK_FLAT_SHARE` of its area) keeps its facets (corners within the shading
/// tolerance of their face) on at least this share of the area the full mesh has them.
/// Partly faceted parts get what the budget buys and keep their reduction.
const LOOK_AREA_SHARE: f64 = 0.95;
const LOOK_FLAT_SHARE: f32 = 0.9;
/// A level short of that moves this share of the way from its triangles to the finer
/// level's per step, to the finer level's own once closer than `LOOK_BACKOFF_SNAP`;
/// at most `LOOK_BACKOFF_STEPS` steps per part.
const LOOK_BACKOFF_STEP: f32 = 0.2;
const LOOK_BACKOFF_SNAP: f32 = 0.05;
const LOOK_BACKOFF_STEPS: usize = 16;

/// What each stage of one part's chain did.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ChainStats {
    pub part: String,
    pub lock_border: Borders,
    /// The file had no normals; the importer computed them (once, before anything else).
    pub generated_normals: bool,
    pub weld: WeldStats,
    pub vertex_cache: VertexCacheStats,
    /// Triangles of level 0, the full mesh.
    pub full_triangles: usize,
    /// The simplified levels (level 0, the full mesh, is not listed).
    pub levels: Vec<LevelStats>,
    pub facets: FacetStats,
    pub vertex_fetch: VertexFetchStats,
    pub quantize: QuantizeStats,
}

impl ChainStats {
    /// Triangles of every level, full mesh first.
    pub fn triangles(&self) -> Vec<usize> {
        std::iter::once(self.full_triangles)
            .chain(self.levels.iter().map(|l| l.triangles))
            .collect()
    }
}

pub fn build_chain(part: &ImportedPart, settings: &BakeSettings) -> (BakedPart, ChainStats) {
    build_chain_with_budget(part, settings, 0)
}

/// [`build_chain`] with `extra_budget` more face-normal vertices allowed than the part's
/// own 30 % (what its asset's other parts left unused).
pub fn build_chain_with_budget(
    part: &ImportedPart,
    settings: &BakeSettings,
    extra_budget: usize,
) -> (BakedPart, ChainStats) {
    let lock_border = settings.lock_border_for(&part.name);
    let (vertices, indices, weld_stats) = weld(&part.vertices, &part.indices);
    let (full, vertex_cache) = optimize_vertex_cache(&indices, vertices.len());
    let wedges = Wedges::new(&vertices, part.material.base_color_texture.is_some());
    let input = SimplifyInput::new(&wedges, &full, lock_border);
    let (mut surface, mut level_stats) = simplify_levels(&input, &settings.levels);
    let shade = |surface: &[Level]| {
        let mut levels = surface.to_vec();
        let (appended, facets, shares) =
            shade_corners(&vertices, &wedges, &full, &mut levels, extra_budget);
        (levels, appended, facets, shares)
    };
    let (mut simplified, mut appended, mut facets, mut shares) = shade(&surface);
    // A part faceted all over whose vertex budget cannot keep a level's facets on
    // LOOK_AREA_SHARE of what the full mesh has simplifies that level less, step by
    // step towards the finer level's triangles (which it may end up keeping).
    let keeps_look = facets.flat_area_share >= LOOK_FLAT_SHARE;
    for _ in 0..LOOK_BACKOFF_STEPS {
        let least = (0..shares.len()).min_by(|&a, &b| shares[a].total_cmp(&shares[b]));
        let short = |k: &usize| keeps_look && facets.capped && shares[*k] < LOOK_AREA_SHARE;
        let Some(k) = least.filter(short) else {
            break;
        };
        let finer = k
            .checked_sub(1)
            .map_or(1.0, |f| level_stats[f].achieved_ratio);
        let now = level_stats[k].achieved_ratio;
        let gap = finer - now;
        let setting = LodLevel {
            ratio: if gap <= LOOK_BACKOFF_SNAP {
                finer
            } else {
                now + gap * LOOK_BACKOFF_STEP
            },
            ..settings.levels[k]
        };
        let (mut one_level, mut one_stats) = simplify_levels(&input, &[setting]);
        let (mut level, mut stats) = (one_level.remove(0), one_stats.remove(0));
        level.target_ratio = settings.levels[k].ratio;
        stats.target_ratio = settings.levels[k].ratio;
        stats.stop = StopReason::FacetBudget;
        (surface[k], level_stats[k]) = (level, stats);
        (simplified, appended, facets, shares) = shade(&surface);
    }
    let input_count = vertices.len();
    let mut vertices = vertices;
    vertices.extend(appended);
    let mut levels = Vec::with_capacity(simplified.len() + 1);
    levels.push(Level {
        indices: full,
        target_ratio: 1.0,
        achieved_ratio: 1.0,
        error: 0.0,
    });
    levels.extend(simplified.into_iter().map(|mut level| {
        level.indices = meshopt::optimize_vertex_cache(&level.indices, vertices.len());
        level
    }));
    let (vertices, vertex_fetch) = optimize_vertex_fetch(&vertices, input_count, &mut levels);
    let errors_m: Vec<f32> = levels
        .iter()
        .enumerate()
        .map(|(k, level)| match k {
            0 => 0.0,
            _ => level_deviation(&vertices, &levels[0].indices, &level.indices),
        })
        .collect();
    for (stats, &error_m) in level_stats.iter_mut().zip(&errors_m[1..]) {
        stats.error_m = error_m;
    }
    let (vertices, quantization, quantize) = quantize_vertices(&vertices, &errors_m[1..]);

    let positions = || vertices.iter().map(|v| &v.position);
    let baked = BakedPart {
        name: part.name.clone(),
        material: part.material.clone(),
        bounds: Aabb::of_points(positions()),
        sphere: Sphere::around(positions()),
        vertices,
        quantization,
        levels: levels
            .into_iter()
            .zip(errors_m)
            .map(|(l, error_m)| BakedLevel {
                indices: l.indices,
                target_ratio: l.target_ratio,
                achieved_ratio: l.achieved_ratio,
                error: l.error,
                error_m,
            })
            .collect(),
    };
    let stats = ChainStats {
        part: part.name.clone(),
        lock_border,
        generated_normals: part.generated_normals,
        weld: weld_stats,
        vertex_cache,
        full_triangles: indices.len() / 3,
        levels: level_stats,
        facets,
        vertex_fetch,
        quantize,
    };
    (baked, stats)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stages::StopReason;
    use sylva_mesh::{Material, Vertex};

    /// A closed UV sphere, `rings × segments`, with seams duplicated in UV (so welding
    /// must keep them) and authored normals.
    fn sphere(rings: u32, segments: u32) -> ImportedPart {
        let mut vertices = Vec::new();
        for r in 0..=rings {
            for s in 0..=segments {
                let (theta, phi) = (
                    std::f32::consts::PI * r as f32 / rings as f32,
                    std::f32::consts::TAU * s as f32 / segments as f32,
                );
                let p = [
                    theta.sin() * phi.cos(),
                    theta.cos(),
                    theta.sin() * phi.sin(),
                ];
                vertices.push(Vertex {
                    position: p,
                    normal: p,
                    uv: [s as f32 / segments as f32, r as f32 / rings as f32],
                    tangent: [0.0; 4],
                    color: [255; 4],
                });
            }
        }
        let row = segments + 1;
        let mut indices = Vec::new();
        for r in 0..rings {
            for s in 0..segments {
                let (a, b) = (r * row + s, (r + 1) * row + s);
                indices.extend([a, a + 1, b, b, a + 1, b + 1]);
            }
        }
        ImportedPart {
            name: "ball".into(),
            source: "meshes[0].primitives[0]".into(),
            material: Material::default(),
            vertices,
            indices,
            generated_normals: false,
        }
    }

    /// Each triangle as its three vertices' bytes, sorted: the mesh as drawn, whatever
    /// the vertex and triangle order.
    fn drawn(vertices: &[Vertex], indices: &[u32]) -> Vec<Vec<u8>> {
        let mut triangles: Vec<Vec<u8>> = indices
            .chunks_exact(3)
            .map(|t| {
                t.iter()
                    .flat_map(|&i| vertices[i as usize].to_bytes())
                    .collect()
            })
            .collect();
        triangles.sort();
        triangles
    }

    #[test]
    fn every_level_indexes_the_one_shared_vertex_buffer() {
        let part = sphere(24, 48);
        let (baked, stats) = build_chain(&part, &BakeSettings::default());
        assert_eq!(baked.levels.len(), 3);
        for level in &baked.levels {
            assert!(level
                .indices
                .iter()
                .all(|&i| (i as usize) < baked.vertices.len()));
        }
        let triangles = stats.triangles();
        assert!(triangles.windows(2).all(|w| w[1] < w[0]), "{triangles:?}");
        assert_eq!(stats.vertex_fetch.vertices, baked.vertices.len());
    }

    #[test]
    fn levels_record_their_deviation_in_metres_growing_with_the_reduction() {
        // A unit ball of one colour: meshoptimizer's error is geometric, so its relative
        // error times the extent it measured is of the order of the measured distance.
        let part = sphere(24, 48);
        let (baked, stats) = build_chain(&part, &BakeSettings::default());
        let errors: Vec<f32> = baked.levels.iter().map(|l| l.error_m).collect();
        assert_eq!(errors[0], 0.0);
        assert!(errors.windows(2).all(|w| w[0] < w[1]), "{errors:?}");
        let positions: Vec<[f32; 3]> = part.vertices.iter().map(|v| v.position).collect();
        let adapter =
            meshopt::VertexDataAdapter::new(meshopt::typed_to_bytes(&positions), 12, 0).unwrap();
        let extent = meshopt::simplify_scale(&adapter);
        for (level, stats) in baked.levels[1..].iter().zip(&stats.levels) {
            assert_eq!(stats.error_m, level.error_m);
            let estimate = level.error * extent;
            assert!(
                (0.5 * estimate..=3.0 * estimate).contains(&level.error_m),
                "measured {} m, meshoptimizer's {estimate} m",
                level.error_m
            );
            // A chord of the coarsest ring cannot leave the ball by more than its radius.
            assert!(level.error_m < 0.2);
        }
    }

    #[test]
    fn level_zero_is_the_welded_mesh_packed_bit_for_bit() {
        let part = sphere(16, 32);
        let (welded, welded_indices, _) = weld(&part.vertices, &part.indices);
        let (baked, stats) = build_chain(&part, &BakeSettings::default());
        let welded: Vec<Vertex> = welded.iter().map(|v| baked.quantization.snap(v)).collect();
        assert_eq!(
            drawn(&baked.vertices, &baked.levels[0].indices),
            drawn(&welded, &welded_indices)
        );
        let mut baked_bytes: Vec<_> = baked.vertices.iter().map(Vertex::to_bytes).collect();
        let mut welded_bytes: Vec<_> = welded.iter().map(Vertex::to_bytes).collect();
        baked_bytes.sort();
        welded_bytes.sort();
        assert_eq!(
            baked_bytes, welded_bytes,
            "positions, normals, UVs and colours are only packed"
        );
        assert_eq!(stats.weld.vertices_out, welded.len());
        // The UV seam (s = 0 and s = segments share positions) is not welded away.
        assert_eq!(stats.weld.vertices_out, 17 * 33);
    }

    #[test]
    fn simplified_levels_reach_their_targets_on_a_closed_mesh() {
        let (baked, stats) = build_chain(&sphere(24, 48), &BakeSettings::default());
        for (level, target) in stats.levels.iter().zip([0.5, 0.15]) {
            assert!(
                level.achieved_ratio <= target + 0.05,
                "level {target} reached {}",
                level.achieved_ratio
            );
            assert!(level.error <= level.max_error);
        }
        assert_eq!(
            baked.levels[1].achieved_ratio,
            stats.levels[0].achieved_ratio
        );
    }

    /// A flat disc of `rings` concentric rings of 32 vertices round a centre, painted
    /// with vertex colours alternating light and dark from ring to ring (a cut log's
    /// growth rings).
    fn ringed_disc(rings: u32) -> ImportedPart {
        let mut part = sphere(1, 3);
        let colour = |ring: u32| match ring % 2 {
            0 => [210, 170, 120, 255],
            _ => [120, 85, 55, 255],
        };
        let vertex = |position, ring| Vertex {
            position,
            normal: [0.0, 1.0, 0.0],
            uv: [0.0; 2],
            tangent: [0.0; 4],
            color: colour(ring),
        };
        part.vertices = vec![vertex([0.0; 3], 0)];
        for ring in 1..=rings {
            for s in 0..32 {
                let (radius, angle) = (ring as f32, std::f32::consts::TAU * s as f32 / 32.0);
                part.vertices.push(vertex(
                    [radius * angle.cos(), 0.0, radius * angle.sin()],
                    ring,
                ));
            }
        }
        let at = |ring: u32, s: u32| {
            if ring == 0 {
                0
            } else {
                1 + (ring - 1) * 32 + s % 32
            }
        };
        part.indices.clear();
        for s in 0..32 {
            part.indices.extend([at(0, 0), at(1, s + 1), at(1, s)]);
        }
        for ring in 1..rings {
            for s in 0..32 {
                let (a, b) = (at(ring, s), at(ring, s + 1));
                let (c, d) = (at(ring + 1, s), at(ring + 1, s + 1));
                part.indices.extend([a, b, c, c, b, d]);
            }
        }
        part
    }

    /// The mean difference (0–255, over RGB) between each vertex's colour and the colour
    /// `level` draws at its place: the flat disc's triangle above it, interpolated.
    fn colour_drift(part: &BakedPart, level: usize) -> f32 {
        let xz = |i: u32| {
            let [x, _, z] = part.vertices[i as usize].position;
            [x, z]
        };
        let drawn_at = |p: [f32; 2]| -> [f32; 3] {
            for t in part.levels[level].indices.chunks_exact(3) {
                let [a, b, c] = [xz(t[0]), xz(t[1]), xz(t[2])];
                let area = (b[0] - a[0]) * (c[1] - a[1]) - (c[0] - a[0]) * (b[1] - a[1]);
                let edge = |u: [f32; 2], v: [f32; 2]| {
                    ((v[0] - u[0]) * (p[1] - u[1]) - (p[0] - u[0]) * (v[1] - u[1])) / area
                };
                let w = [edge(b, c), edge(c, a), edge(a, b)];
                if w.iter().all(|&w| w >= -1e-4) {
                    return std::array::from_fn(|k| {
                        (0..3)
                            .map(|j| w[j] * f32::from(part.vertices[t[j] as usize].color[k]))
                            .sum()
                    });
                }
            }
            panic!("{p:?} is not on level {level}")
        };
        let full = &part.levels[0].indices;
        let drift: f32 = full
            .iter()
            .map(|&i| {
                let here = drawn_at(xz(i));
                let colour = part.vertices[i as usize].color;
                (0..3)
                    .map(|k| (here[k] - f32::from(colour[k])).abs())
                    .sum::<f32>()
                    / 3.0
            })
            .sum();
        drift / full.len() as f32
    }

    #[test]
    fn a_flat_face_keeps_its_vertex_colours_through_simplification() {
        let settings = BakeSettings::default();
        let (painted, stats) = build_chain(&ringed_disc(12), &settings);
        // Its rings are 90 levels apart. Geometry alone collapses the flat inside freely
        // and smears them (a cut log's end drawn in its rim's colour): 21 levels off
        // on average at the middle level, against 6.4 with the colours weighed. (The
        // coarse level's 110 triangles cannot hold twelve rings either way: 37.)
        let drift = colour_drift(&painted, 1);
        assert!(drift < 10.0, "{drift}");
        assert!(stats.levels.iter().all(|l| l.error <= l.max_error));
    }

    /// Ten flat cards, each a 4 × 4 grid: open shells like leaf cards, every
    /// outline vertex on an open edge.
    fn cards() -> ImportedPart {
        let mut part = sphere(1, 3);
        part.vertices.clear();
        part.indices.clear();
        for card in 0..10 {
            let base = part.vertices.len() as u32;
            for y in 0..5 {
                for x in 0..5 {
                    part.vertices.push(Vertex {
                        position: [x as f32 * 0.25, y as f32 * 0.25, card as f32],
                        normal: [0.0, 0.0, 1.0],
                        uv: [x as f32 * 0.25, y as f32 * 0.25],
                        tangent: [0.0; 4],
                        color: [255; 4],
                    });
                }
            }
            for y in 0..4 {
                for x in 0..4 {
                    let a = base + y * 5 + x;
                    part.indices.extend([a, a + 1, a + 5, a + 5, a + 1, a + 6]);
                }
            }
        }
        part
    }

    #[test]
    fn lock_border_pins_open_edges_and_can_be_turned_off() {
        let part = cards();
        let with = |lock_border| BakeSettings {
            lock_border,
            ..BakeSettings::default()
        };
        let (_, with_lock) = build_chain(&part, &with(Borders::Locked));
        let (_, without_lock) = build_chain(&part, &with(Borders::Free));
        let (_, by_default) = build_chain(&part, &BakeSettings::default());
        // Locked, each card keeps its 16 outline vertices (at least 14 triangles).
        assert!(
            with_lock.levels[1].triangles >= 140,
            "{:?}",
            with_lock.triangles()
        );
        assert!(
            without_lock.levels[1].triangles < with_lock.levels[1].triangles,
            "{:?} vs {:?}",
            with_lock.triangles(),
            without_lock.triangles()
        );
        assert_eq!(with_lock.levels[1].stop, StopReason::BordersLocked);
        // By default the level stuck on its locked outline frees it.
        assert!(by_default.levels[1].borders_freed);
        assert_eq!(
            by_default.levels[1].triangles,
            without_lock.levels[1].triangles
        );
    }

    #[test]
    fn a_part_override_chooses_the_lock_policy() {
        let mut settings = BakeSettings::default();
        settings
            .part_lock_border
            .insert("ball".into(), Borders::Free);
        let (_, stats) = build_chain(&cards(), &settings);
        assert_eq!(stats.lock_border, Borders::Free);
    }
}

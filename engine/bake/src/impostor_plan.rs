//! What a prop's impostor should be, decided from its mesh chain before anything is
//! drawn: whether it pays at all, how many texels its cells need and how many views
//! its grid needs. Pure: the chain's errors and triangles in, a plan and its reasons out.
//!
//! # Where the impostor takes over
//! Under screen-space switching the impostor replaces the coarsest mesh where the
//! larger of the chain's errors and its own projects to the tolerance (`sylva-lod`'s
//! `PropSwitches`). So the chain sets the nearest distance the impostor can be drawn
//! from, whatever its resolution: at a tolerance of `t` pixels, where the coarsest
//! error `e` covers `t` pixels, the bounding sphere's diameter `2r` covers
//! `2r · t / e` pixels, on any viewport (the viewport's scale cancels). That is the
//! prop's **coverage at the switch**, and the cell needs about a texel a pixel of it
//! (the earlier fixed density of 8 texels a metre, chosen as a texel a pixel at a
//! fixed switch distance, gave the kit's trees 128² cells where they cover 44–60 px).
//!
//! # Views
//! Between two views the runtime blends the nearest ones; a point on the sphere's rim
//! then moves by `r · sin θ`, with `θ` the angle to the nearest view (at most half a
//! cell's diagonal of `180° / grid`). Before parallax correction that is under the
//! tolerance for a prop covering ten pixels with fewer views; the grid is the
//! smallest even one where it is, and at most the default 12 (15°), under which
//! larger props' branches ghost.
//!
//! # Whether it pays
//! An impostor is four vertices but a fragment shader reading sixteen atlas texels and
//! writing its depth (so no early depth test), and an atlas in memory; a mesh costs per
//! triangle. Where the impostor takes over, which is cheaper depends on the coarsest
//! mesh's triangles per pixel there: its triangles over the square of its coverage.
//! Fields of each kit prop drawn both ways from the switch distance to eight times as
//! far (`benches/impostor_crossover.rs`, BENCHMARKS.md) put the crossover at
//! [`IMPOSTOR_MIN_DENSITY`]: shrubs and trees at 0.35–1.4 triangles a pixel draw
//! 1.4–3.8× faster as impostors, boulders, logs and card tufts at 0.02–0.15 draw
//! 2.5–8× slower. A prop under it keeps its coarsest mesh to its screen-size cull and
//! bakes no atlas. Farther out the impostor gets cheaper while the mesh does not: over
//! the whole range to the size cull, where most instances of an even field are small,
//! the impostor is the faster for every kit prop. Such props would be cheapest with
//! their mesh near and an impostor taking over later than its error allows, at cells
//! sized for that distance; the plan does not do that yet, so they spend no atlas bytes
//! and draw their mesh instead.
//!
//! A prop whose impostor would take over under [`IMPOSTOR_MIN_COVERAGE_PX`] keeps its
//! mesh too, whatever its triangles. There its petals and blades are under a texel of
//! the smallest cell, and the impostor changes which pixels the prop covers: fields of
//! the kit's daisy, poppy, blade tuft and reed (1.5–7.9 px at the switch), 64 of each,
//! measured 23.2–24.9 dB supersampled against their meshes, 84–98 % of the error on
//! pixels only one of the two draws, so a far meadow would thin out or thicken at a
//! ring round the camera. Kept as meshes they cost more triangles from the switch to
//! their size cull (the demo's views: 6–33 % more).

use serde::Serialize;

/// The tolerance the plan assumes, in pixels: `sylva-lod`'s default screen error.
/// A game switching at a larger tolerance draws impostors from nearer, where their
/// texels are larger than a pixel.
pub const REFERENCE_TOLERANCE_PX: f32 = 1.0;

/// Coarsest meshes with fewer triangles per pixel of the prop's square at the switch
/// (triangles ÷ coverage²) keep their mesh instead of an impostor: the crossover where
/// the impostor takes over, measured by `benches/impostor_crossover.rs` on lavapipe
/// (BENCHMARKS.md, impostors: where they pay). A GPU shades fragments relatively
/// cheaper, so there the crossover is lower.
pub const IMPOSTOR_MIN_DENSITY: f32 = 0.3;

/// Props covering fewer pixels than this where the impostor would take over keep their
/// coarsest mesh to their screen-size cull.
pub const IMPOSTOR_MIN_COVERAGE_PX: f32 = 8.0;

/// The largest grid the plan gives: the default 12 × 12 views.
pub const MAX_GRID: u32 = 12;

/// What the chain says an impostor should be.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ImpostorPlan {
    /// The bounding sphere's diameter in pixels where the impostor takes over (∞ for a
    /// chain without error).
    pub coverage_px: f32,
    /// The largest error of any level of any part, metres.
    pub coarsest_error_m: f32,
    /// Triangles of the coarsest level, all parts.
    pub coarsest_triangles: u32,
    /// The coarsest level's triangles per pixel of the prop's square there:
    /// `coarsest_triangles / coverage_px²`.
    pub density: f32,
    #[serde(flatten)]
    pub decision: PlanDecision,
}

/// Bake an impostor of this shape, or keep the coarsest mesh.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "plan", rename_all = "snake_case")]
pub enum PlanDecision {
    Bake {
        /// Texels per side of a cell at level 0.
        cell_px: u32,
        /// Views per side.
        grid: u32,
        /// Why these.
        why: String,
    },
    KeepMesh {
        why: String,
    },
}

/// What a chain is, for [`plan_impostor`].
#[derive(Clone, Copy, Debug)]
pub struct ChainShape {
    /// The prop's bounding radius, metres.
    pub radius_m: f32,
    /// The largest error of any level of any part, metres.
    pub coarsest_error_m: f32,
    /// Triangles of the coarsest level, all parts.
    pub coarsest_triangles: u32,
}

/// The plan for a chain of `shape`, with cells between `min_cell_px` and `max_cell_px`
/// (powers of two), keeping the mesh under `min_density` triangles a pixel.
pub fn plan_impostor(
    shape: ChainShape,
    (min_cell_px, max_cell_px): (u32, u32),
    min_density: f32,
) -> ImpostorPlan {
    let ChainShape {
        radius_m,
        coarsest_error_m,
        coarsest_triangles,
    } = shape;
    let coverage_px = if coarsest_error_m > 0.0 {
        2.0 * radius_m * REFERENCE_TOLERANCE_PX / coarsest_error_m
    } else {
        f32::INFINITY
    };
    let density = coarsest_triangles as f32 / (coverage_px * coverage_px);
    let where_it_takes_over = if coverage_px.is_infinite() {
        "its levels have no error, so an impostor takes over only where its own error \
         allows"
            .to_owned()
    } else {
        format!(
            "covers {coverage_px:.1} px where its coarsest error ({coarsest_error_m:.3} m) \
             is {REFERENCE_TOLERANCE_PX} px"
        )
    };
    let decision = if coverage_px < IMPOSTOR_MIN_COVERAGE_PX {
        PlanDecision::KeepMesh {
            why: format!(
                "{where_it_takes_over}: under {IMPOSTOR_MIN_COVERAGE_PX} px an impostor \
                 shows nothing its coarsest mesh does not before the size cull"
            ),
        }
    } else if density < min_density {
        PlanDecision::KeepMesh {
            why: format!(
                "{where_it_takes_over}: its coarsest level's {coarsest_triangles} triangles \
                 are {density:.3} a pixel of its square there, under the {min_density} \
                 where an impostor taking over draws faster"
            ),
        }
    } else {
        let wanted = coverage_px.ceil().min(max_cell_px as f32) as u32;
        let cell_px = wanted.next_power_of_two().clamp(min_cell_px, max_cell_px);
        let grid = grid_for(coverage_px);
        let cell_why = if cell_px == max_cell_px && coverage_px > max_cell_px as f32 {
            format!("cells capped at {max_cell_px} texels")
        } else if cell_px == min_cell_px {
            format!("cells of at least {min_cell_px} texels")
        } else {
            format!("{cell_px}-texel cells, the power of two at or above it")
        };
        PlanDecision::Bake {
            cell_px,
            grid,
            why: format!(
                "{where_it_takes_over}: {cell_why}; {grid} × {grid} views keep a rim point \
                 within the tolerance between them"
            ),
        }
    };
    ImpostorPlan {
        coverage_px,
        coarsest_error_m,
        coarsest_triangles,
        density,
        decision,
    }
}

/// The smallest even grid, at most [`MAX_GRID`], under which a rim point of
/// a prop covering `coverage_px` moves by at most the tolerance between views.
fn grid_for(coverage_px: f32) -> u32 {
    let radius_px = coverage_px / 2.0;
    (2..MAX_GRID)
        .step_by(2)
        .find(|&grid| radius_px * farthest_from_a_view(grid).sin() <= REFERENCE_TOLERANCE_PX)
        .unwrap_or(MAX_GRID)
}

/// The largest angle between a direction and its nearest view on a `grid × grid`
/// hemi-octahedral grid: half a cell's diagonal.
fn farthest_from_a_view(grid: u32) -> f32 {
    std::f32::consts::PI / grid as f32 * std::f32::consts::FRAC_1_SQRT_2
}

#[cfg(test)]
mod tests {
    use super::*;

    const CELLS: (u32, u32) = (8, 128);

    fn plan(radius_m: f32, coarsest_error_m: f32, coarsest_triangles: u32) -> ImpostorPlan {
        let shape = ChainShape {
            radius_m,
            coarsest_error_m,
            coarsest_triangles,
        };
        plan_impostor(shape, CELLS, IMPOSTOR_MIN_DENSITY)
    }

    fn baked(plan: &ImpostorPlan) -> (u32, u32) {
        match plan.decision {
            PlanDecision::Bake { cell_px, grid, .. } => (cell_px, grid),
            PlanDecision::KeepMesh { ref why } => panic!("kept the mesh: {why}"),
        }
    }

    #[test]
    fn cells_follow_the_pixels_a_prop_covers_where_its_chain_lets_the_impostor_in() {
        // A 14.4 m birch whose coarsest level strays 0.327 m covers 44 px there.
        let birch = plan(7.2, 0.327, 1788);
        assert!((birch.coverage_px - 44.04).abs() < 0.01);
        assert_eq!(baked(&birch), (64, 12));
        // Twice the error, half the pixels, half the cell.
        assert_eq!(baked(&plan(7.2, 0.654, 1788)).0, 32);
    }

    #[test]
    fn cells_stay_within_their_bounds() {
        assert_eq!(baked(&plan(7.2, 0.01, 1_000_000)).0, 128);
        // 8 px across at the switch, so 8-texel cells.
        assert_eq!(baked(&plan(0.4, 0.1, 500)).0, 8);
    }

    #[test]
    fn props_a_few_pixels_across_at_the_switch_keep_their_mesh() {
        // The kit's daisy: 290 triangles, 1.5 px across where its coarsest error is 1 px.
        let daisy = plan(0.2, 0.27, 290);
        assert!(daisy.density > IMPOSTOR_MIN_DENSITY);
        let PlanDecision::KeepMesh { why } = &daisy.decision else {
            panic!("baked {daisy:?}");
        };
        assert!(why.contains("under 8 px"), "{why}");
        assert!(matches!(
            plan(0.4, 0.1, 500).decision,
            PlanDecision::Bake { .. }
        ));
        assert!(matches!(
            plan(0.4, 0.101, 500).decision,
            PlanDecision::KeepMesh { .. }
        ));
    }

    #[test]
    fn small_props_get_fewer_views_large_ones_the_default_grid() {
        // 8 px: 4 px from centre to rim, so sin θ ≤ ¼.
        let eight = baked(&plan(0.4, 0.1, 500)).1;
        assert_eq!(eight, 10);
        assert!(4.0 * farthest_from_a_view(eight).sin() <= 1.0);
        assert!(4.0 * farthest_from_a_view(eight - 2).sin() > 1.0);
        assert_eq!(baked(&plan(2.0, 0.1, 500)).1, MAX_GRID);
    }

    #[test]
    fn meshes_sparse_in_triangles_where_the_impostor_would_take_over_keep_their_mesh() {
        // 10 px across: 100 px², so 30 triangles is the crossover.
        let rock = plan(1.0, 0.2, 29);
        assert!((rock.density - 0.29).abs() < 1e-6);
        assert!(matches!(rock.decision, PlanDecision::KeepMesh { .. }));
        assert!(matches!(
            plan(1.0, 0.2, 30).decision,
            PlanDecision::Bake { .. }
        ));
        // The same triangles on a chain twice as accurate: four times the pixels.
        assert!(matches!(
            plan(1.0, 0.1, 30).decision,
            PlanDecision::KeepMesh { .. }
        ));
        // A chain without error never needs the impostor's help.
        assert!(matches!(
            plan(1.0, 0.0, 5000).decision,
            PlanDecision::KeepMesh { .. }
        ));
    }
}

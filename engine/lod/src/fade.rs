//! Dithered transitions: across each switch distance a placement is drawn at both levels,
//! each keeping the pixels the other leaves (complementary screen-space dither masks,
//! no blending, no sorting), with the coarser level's share growing with distance. Past
//! a prop's last level the coarser side is nothing: a placement about to be culled fades
//! out the same way.
//!
//! The fade spans the switch's hysteresis band, which is where a placement's level can
//! be either of the two: its share is then a function of distance alone, the same
//! whichever bucket the placement is in, and the controller's switch (at the band's
//! ends, where the share is 0 or 1) changes nothing on screen. The share is clamped, so
//! a placement whose level lags its distance (the controller evaluates at most 4 times
//! a second) is drawn at the neighbouring level it is heading for. Fading by distance
//! rather than by time keeps a still camera free: nothing is animated, and the
//! controller keeps no per-placement switch times.
//!
//! Under screen-space switching each prop has its own switch distances, scaled by each
//! placement's scale; under fixed bands they are the same for every placement.

use std::sync::Arc;

use sylva_buckets::PropKey;

use crate::screen::Switches;

/// Where every placement fades between levels.
#[derive(Debug, Clone)]
pub struct LodFades {
    kind: FadeKind,
    /// Switches hard at the controller's switch: no placement is ever drawn twice.
    hard: bool,
}

#[derive(Debug, Clone)]
enum FadeKind {
    /// The same edges for every placement, fading `half_width_m` each side.
    Fixed {
        edges_m: Vec<f32>,
        half_width_m: f32,
    },
    /// Each prop's own switch distances, scaled by the placement's scale.
    Screen(Arc<Switches>),
}

impl PartialEq for LodFades {
    /// Screen-space fades are equal when they come from the same revision of the
    /// switches: comparing costs O(1) whatever the number of props.
    fn eq(&self, other: &Self) -> bool {
        let same_kind = match (&self.kind, &other.kind) {
            (
                FadeKind::Fixed {
                    edges_m,
                    half_width_m,
                },
                FadeKind::Fixed {
                    edges_m: other_edges,
                    half_width_m: other_half_width,
                },
            ) => edges_m == other_edges && half_width_m == other_half_width,
            (FadeKind::Screen(a), FadeKind::Screen(b)) => a.any_revision == b.any_revision,
            _ => false,
        };
        same_kind && self.hard == other.hard
    }
}

impl LodFades {
    /// Fades `half_width_m` each side of every edge; 0 gives hard switches. The edges are
    /// the controller's (checked by [`crate::LodController::new`]).
    pub(crate) fn fixed(edges_m: &[f32], half_width_m: f32) -> Self {
        Self {
            kind: FadeKind::Fixed {
                edges_m: edges_m.to_vec(),
                half_width_m,
            },
            hard: half_width_m == 0.0,
        }
    }

    pub(crate) fn screen(switches: Arc<Switches>) -> Self {
        let hard = switches.hysteresis() == 0.0;
        Self {
            kind: FadeKind::Screen(switches),
            hard,
        }
    }

    /// The same switches made hard: no placement is ever drawn twice.
    pub fn hard(&self) -> Self {
        Self {
            kind: self.kind.clone(),
            hard: true,
        }
    }

    /// Whether any switch fades.
    pub fn fades(&self) -> bool {
        match &self.kind {
            FadeKind::Fixed { edges_m, .. } => !self.hard && !edges_m.is_empty(),
            FadeKind::Screen(_) => !self.hard,
        }
    }

    /// The distances `[near, far]` over which every placement of `prop` in bucket level
    /// `level` (of the `levels` the prop has) with a scale in `scales` (smallest,
    /// largest) is drawn at that level alone. Past `far` it also draws at `level + 1`
    /// (or fades out, past the last level), before `near` at `level − 1` (see
    /// [`Self::coarser_share`]).
    pub fn steady(&self, prop: PropKey, level: u8, levels: u8, scales: (f32, f32)) -> (f32, f32) {
        if self.hard {
            return (0.0, f32::INFINITY);
        }
        match &self.kind {
            FadeKind::Fixed {
                edges_m,
                half_width_m,
            } => {
                let level = usize::from(level);
                let near = match level.checked_sub(1).and_then(|edge| edges_m.get(edge)) {
                    Some(edge) => edge + half_width_m,
                    None => 0.0,
                };
                let far = match edges_m.get(level) {
                    Some(edge) if level + 1 < usize::from(levels) => edge - half_width_m,
                    _ => f32::INFINITY,
                };
                (near, far)
            }
            FadeKind::Screen(switches) => {
                let Some(prop) = switches.prop(prop) else {
                    return (0.0, f32::INFINITY);
                };
                let h = switches.hysteresis();
                let near = match level.checked_sub(1) {
                    Some(finer) => prop.edge_m(finer, scales.1) * (1.0 + h),
                    None => 0.0,
                };
                (near, prop.edge_m(level, scales.0) * (1.0 - h))
            }
        }
    }

    /// The share of the pixels the coarser level draws across edge `edge` (between
    /// levels `edge` and `edge + 1`, or past the last level, nothing) for a placement of
    /// `prop` of `scale` at `distance`: 0 before the fade, 1 after it, linear between.
    /// A pixel belongs to the coarser level when its dither threshold (in `(0, 1)`) is
    /// below the share, to the finer one otherwise.
    pub fn coarser_share(&self, prop: PropKey, edge: u8, scale: f32, distance: f32) -> f32 {
        let Some((at, half_width)) = self.edge_band(prop, edge, scale) else {
            return 0.0;
        };
        if self.hard || half_width <= 0.0 {
            return if distance < at { 0.0 } else { 1.0 };
        }
        ((distance - (at - half_width)) / (2.0 * half_width)).clamp(0.0, 1.0)
    }

    /// The distances `(start, end)` over which [`Self::coarser_share`] across edge
    /// `edge` rises from 0 to 1 for a placement of `prop` of `scale`; `None` where
    /// there is no such edge. Past the last level this is where a placement fades out:
    /// a renderer that does not cull instance by instance hands it to its shaders.
    /// Hard switches draw what the LOD controller keeps, which culls a placement past
    /// the fade's far end: `start == end` there, the coarser side taking all from it.
    pub fn coarser_ramp(&self, prop: PropKey, edge: u8, scale: f32) -> Option<(f32, f32)> {
        let (at, half_width) = self.edge_band(prop, edge, scale)?;
        if self.hard {
            return Some((at + half_width, at + half_width));
        }
        Some((at - half_width, at + half_width))
    }

    /// Where edge `edge` is for a placement of `prop` of `scale`, and the half width
    /// of its fade; `None` where there is no such edge.
    fn edge_band(&self, prop: PropKey, edge: u8, scale: f32) -> Option<(f32, f32)> {
        let (at, half_width) = match &self.kind {
            FadeKind::Fixed {
                edges_m,
                half_width_m,
            } => (*edges_m.get(usize::from(edge))?, *half_width_m),
            FadeKind::Screen(switches) => {
                let at = switches.prop(prop)?.edge_m(edge, scale);
                (at, at * switches.hysteresis())
            }
        };
        at.is_finite().then_some((at, half_width))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fades() -> LodFades {
        LodFades::fixed(&[30.0, 90.0, 150.0], 4.0)
    }

    fn share(f: &LodFades, edge: u8, distance: f32) -> f32 {
        f.coarser_share(prop(), edge, 1.0, distance)
    }

    fn prop() -> PropKey {
        sylva_buckets::PlacementRegistry::new().intern("any/prop")
    }

    #[test]
    fn the_coarser_share_rises_across_the_hysteresis_band() {
        let f = fades();
        let shares = [20.0, 26.0, 28.0, 30.0, 32.0, 34.0, 60.0].map(|d| share(&f, 0, d));
        assert_eq!(shares, [0.0, 0.0, 0.25, 0.5, 0.75, 1.0, 1.0]);
        assert_eq!(share(&f, 2, 150.0), 0.5);
        assert_eq!(share(&f, 3, 150.0), 0.0, "no edge past the last");
    }

    #[test]
    fn the_coarser_ramp_spans_the_share_rising_from_0_to_1() {
        let f = fades();
        assert_eq!(f.coarser_ramp(prop(), 1, 1.0), Some((86.0, 94.0)));
        assert_eq!(share(&f, 1, 86.0), 0.0);
        assert_eq!(share(&f, 1, 94.0), 1.0);
        assert_eq!(f.hard().coarser_ramp(prop(), 1, 1.0), Some((94.0, 94.0)));
        assert_eq!(
            f.coarser_ramp(prop(), 3, 1.0),
            None,
            "no edge past the last"
        );
    }

    #[test]
    fn a_level_draws_alone_between_the_fades_of_its_edges() {
        let f = fades();
        let steady = |level, levels| f.steady(prop(), level, levels, (1.0, 1.0));
        assert_eq!(steady(0, 4), (0.0, 26.0));
        assert_eq!(steady(1, 4), (34.0, 86.0));
        assert_eq!(steady(3, 4), (154.0, f32::INFINITY));
        // A prop with two levels: its last one covers every band past the first edge.
        assert_eq!(steady(1, 2), (34.0, f32::INFINITY));
    }

    #[test]
    fn hard_switches_never_share() {
        let f = fades().hard();
        assert!(!f.fades());
        assert_eq!(f.steady(prop(), 1, 4, (1.0, 1.0)), (0.0, f32::INFINITY));
        assert_eq!([29.9, 30.0].map(|d| share(&f, 0, d)), [0.0, 1.0]);
    }
}

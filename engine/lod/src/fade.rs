//! Dithered transitions: across each band edge a placement is drawn at both levels,
//! each keeping the pixels the other leaves (complementary screen-space dither masks,
//! no blending, no sorting), with the coarser level's share growing with distance.
//!
//! The fade spans the edge's hysteresis band, `[edge − h, edge + h]`, which is where a
//! placement's level can be either of the two: its share is then a function of distance
//! alone, the same whichever bucket the placement is in, and the controller's switch
//! (at `edge ± h`, where the share is 0 or 1) changes nothing on screen. The share is
//! clamped, so a placement whose level lags its distance (the controller evaluates at
//! most 4 times a second) is drawn at the neighbouring level it is heading for. Fading
//! by distance rather than by time keeps a still camera free: nothing is animated, and
//! the controller keeps no per-placement switch times.

/// The band edges and the half-width of the fade across each.
#[derive(Debug, Clone, PartialEq)]
pub struct LodFades {
    edges_m: Vec<f32>,
    half_width_m: f32,
}

impl LodFades {
    /// Fades `half_width_m` each side of every edge; 0 gives hard switches. The edges are
    /// the controller's (checked by [`crate::LodController::new`]).
    pub(crate) fn new(edges_m: &[f32], half_width_m: f32) -> Self {
        Self {
            edges_m: edges_m.to_vec(),
            half_width_m,
        }
    }

    /// The same edges switched hard: no placement is ever drawn twice.
    pub fn hard(&self) -> Self {
        Self::new(&self.edges_m, 0.0)
    }

    /// Whether any edge fades.
    pub fn fades(&self) -> bool {
        self.half_width_m > 0.0 && !self.edges_m.is_empty()
    }

    /// The distances `[near, far]` over which a placement in bucket level `level` of a
    /// prop with `levels` levels is drawn at that level alone. Past `far` it also draws
    /// at `level + 1`, before `near` at `level − 1` (see [`Self::coarser_share`]).
    pub fn steady(&self, level: u8, levels: u8) -> (f32, f32) {
        if !self.fades() {
            return (0.0, f32::INFINITY);
        }
        let level = usize::from(level);
        let near = match level.checked_sub(1).and_then(|edge| self.edges_m.get(edge)) {
            Some(edge) => edge + self.half_width_m,
            None => 0.0,
        };
        let far = match self.edges_m.get(level) {
            Some(edge) if level + 1 < usize::from(levels) => edge - self.half_width_m,
            _ => f32::INFINITY,
        };
        (near, far)
    }

    /// The share of the pixels the coarser level draws across edge `edge` (between
    /// levels `edge` and `edge + 1`) at `distance`: 0 up to `edge − h`, 1 from `edge + h`,
    /// linear between. A pixel belongs to the coarser level when its dither threshold
    /// (in `(0, 1)`) is below the share, to the finer one otherwise.
    pub fn coarser_share(&self, edge: u8, distance: f32) -> f32 {
        let Some(&at) = self.edges_m.get(usize::from(edge)) else {
            return 0.0;
        };
        if !self.fades() {
            return if distance < at { 0.0 } else { 1.0 };
        }
        ((distance - (at - self.half_width_m)) / (2.0 * self.half_width_m)).clamp(0.0, 1.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fades() -> LodFades {
        LodFades::new(&[30.0, 90.0, 150.0], 4.0)
    }

    #[test]
    fn the_coarser_share_rises_across_the_hysteresis_band() {
        let f = fades();
        let shares = [20.0, 26.0, 28.0, 30.0, 32.0, 34.0, 60.0].map(|d| f.coarser_share(0, d));
        assert_eq!(shares, [0.0, 0.0, 0.25, 0.5, 0.75, 1.0, 1.0]);
        assert_eq!(f.coarser_share(2, 150.0), 0.5);
        assert_eq!(f.coarser_share(3, 150.0), 0.0, "no edge past the last");
    }

    #[test]
    fn a_level_draws_alone_between_the_fades_of_its_edges() {
        let f = fades();
        assert_eq!(f.steady(0, 4), (0.0, 26.0));
        assert_eq!(f.steady(1, 4), (34.0, 86.0));
        assert_eq!(f.steady(3, 4), (154.0, f32::INFINITY));
        // A prop with two levels: its last one covers every band past the first edge.
        assert_eq!(f.steady(1, 2), (34.0, f32::INFINITY));
    }

    #[test]
    fn hard_switches_never_share() {
        let f = fades().hard();
        assert!(!f.fades());
        assert_eq!(f.steady(1, 4), (0.0, f32::INFINITY));
        assert_eq!([29.9, 30.0].map(|d| f.coarser_share(0, d)), [0.0, 1.0]);
    }
}

//! Fixed distance bands with hysteresis, the same for every placement: which LOD level
//! a placement should be at.
//!
//! Band k covers distances `[edge[k-1], edge[k])` (band 0 starts at 0, the last one has
//! no end). A placement at level k stays there while its distance is within
//! `[edge[k-1] - h, edge[k] + h]`; outside that it goes straight to the band its distance
//! falls in, which may be several levels away (a teleporting camera). Everything is
//! compared squared, so the per-placement test needs no square root.

use std::ops::RangeInclusive;

use sylva_buckets::{DistanceLevels, Member, MAX_LODS};

use crate::LodConfigError;

const LEVELS: usize = MAX_LODS as usize;

#[derive(Debug, Clone)]
pub(crate) struct LodBands {
    edges_sq: Vec<f32>,
    /// Per level: a placement there goes finer when its squared distance is below this.
    /// 0 for level 0 (nothing is closer than 0); +∞ for levels past the last band, so a
    /// placement left there by its inserter is re-banded on first sight.
    finer_below_sq: [f32; LEVELS],
    /// Per level: a placement there goes coarser when its squared distance is above this.
    coarser_above_sq: [f32; LEVELS],
    revision: u64,
}

impl LodBands {
    pub(crate) fn new(edges: &[f32], hysteresis: f32) -> Result<Self, LodConfigError> {
        if edges.len() + 1 > LEVELS {
            return Err(LodConfigError::TooManyBands {
                levels: edges.len() + 1,
                max: MAX_LODS,
            });
        }
        for (index, &edge) in edges.iter().enumerate() {
            if !(edge.is_finite() && edge > 0.0) {
                return Err(LodConfigError::BadEdge { index, edge });
            }
            if let Some(&previous) = index.checked_sub(1).and_then(|i| edges.get(i)) {
                if edge <= previous {
                    return Err(LodConfigError::EdgesNotIncreasing {
                        index,
                        edge,
                        previous,
                    });
                }
            }
        }
        if !(hysteresis.is_finite() && hysteresis >= 0.0) {
            return Err(LodConfigError::BadHysteresis { hysteresis });
        }
        if let Some(&first_edge) = edges.first() {
            if hysteresis >= first_edge {
                return Err(LodConfigError::HysteresisSwallowsFirstBand {
                    hysteresis,
                    first_edge,
                });
            }
        }

        let mut finer_below_sq = [f32::INFINITY; LEVELS];
        let mut coarser_above_sq = [f32::INFINITY; LEVELS];
        finer_below_sq[0] = 0.0;
        for (level, &edge) in edges.iter().enumerate() {
            coarser_above_sq[level] = (edge + hysteresis).powi(2);
            finer_below_sq[level + 1] = (edge - hysteresis).powi(2);
        }
        Ok(Self {
            edges_sq: edges.iter().map(|edge| edge * edge).collect(),
            finer_below_sq,
            coarser_above_sq,
            revision: crate::screen::fresh_revision(),
        })
    }

    /// The band a squared distance falls in, ignoring history.
    pub(crate) fn band_for(&self, distance_sq: f32) -> u8 {
        self.edges_sq
            .iter()
            .take_while(|&&edge_sq| distance_sq >= edge_sq)
            .count() as u8
    }
}

impl LodBands {
    /// The level a placement at `level` and squared distance `distance_sq` should be at.
    #[inline]
    pub(crate) fn next(&self, level: u8, distance_sq: f32) -> u8 {
        let level_index = usize::from(level).min(LEVELS - 1);
        if distance_sq < self.finer_below_sq[level_index]
            || distance_sq > self.coarser_above_sq[level_index]
        {
            self.band_for(distance_sq)
        } else {
            level
        }
    }

    /// Exactly the squared distances `next` keeps `level` for (`[∞, ∞]` for a level past
    /// the last band: only an infinite distance keeps it).
    pub(crate) fn keeps(&self, level: u8) -> RangeInclusive<f32> {
        let level_index = usize::from(level).min(LEVELS - 1);
        self.finer_below_sq[level_index]..=self.coarser_above_sq[level_index]
    }
}

/// The bands ignore what the placement is: every prop and scale switches alike.
impl DistanceLevels for LodBands {
    fn next_level(&self, _: Member, level: u8, distance_sq: f32) -> u8 {
        self.next(level, distance_sq)
    }

    fn keeps_level(&self, _: Member, level: u8) -> RangeInclusive<f32> {
        self.keeps(level)
    }

    fn revision(&self) -> u64 {
        self.revision
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn default_bands() -> LodBands {
        LodBands::new(&[30.0, 90.0], 4.0).unwrap()
    }

    fn next(bands: &LodBands, level: u8, distance: f32) -> u8 {
        bands.next(level, distance * distance)
    }

    #[test]
    fn bands_start_at_their_edge() {
        let bands = default_bands();
        let bands_of = [0.0, 29.9, 30.0, 89.9, 90.0, 1e6].map(|d: f32| bands.band_for(d * d));
        assert_eq!(bands_of, [0, 0, 1, 1, 2, 2]);
    }

    #[test]
    fn a_placement_goes_coarser_only_past_edge_plus_hysteresis() {
        let bands = default_bands();
        assert_eq!(next(&bands, 0, 34.0), 0);
        assert_eq!(next(&bands, 0, 34.01), 1);
        assert_eq!(next(&bands, 1, 94.0), 1);
        assert_eq!(next(&bands, 1, 94.01), 2);
    }

    #[test]
    fn a_placement_goes_finer_only_inside_edge_minus_hysteresis() {
        let bands = default_bands();
        assert_eq!(next(&bands, 1, 26.0), 1);
        assert_eq!(next(&bands, 1, 25.99), 0);
        assert_eq!(next(&bands, 2, 86.0), 2);
        assert_eq!(next(&bands, 2, 85.99), 1);
    }

    #[test]
    fn a_far_jump_skips_straight_to_the_band_of_the_distance() {
        let bands = default_bands();
        assert_eq!(next(&bands, 0, 500.0), 2);
        assert_eq!(next(&bands, 2, 1.0), 0);
    }

    #[test]
    fn a_level_past_the_last_band_is_re_banded() {
        let bands = default_bands();
        assert_eq!(next(&bands, 5, 40.0), 1);
        assert_eq!(next(&bands, 7, 200.0), 2);
    }

    #[test]
    fn more_bands_than_three_work_the_same_way() {
        let bands = LodBands::new(&[10.0, 20.0, 40.0, 80.0], 2.0).unwrap();
        assert_eq!(bands.band_for(50.0 * 50.0), 3);
        assert_eq!(next(&bands, 3, 38.5), 3);
        assert_eq!(next(&bands, 3, 37.5), 2);
        assert_eq!(next(&bands, 3, 82.5), 4);
    }

    #[test]
    fn no_edges_means_everything_is_level_0() {
        let bands = LodBands::new(&[], 4.0).unwrap();
        assert_eq!(next(&bands, 0, 1e6), 0);
        assert_eq!(next(&bands, 2, 10.0), 0);
    }

    #[test]
    fn invalid_configurations_are_refused() {
        assert_eq!(
            LodBands::new(&[30.0, 30.0], 4.0).unwrap_err(),
            LodConfigError::EdgesNotIncreasing {
                index: 1,
                edge: 30.0,
                previous: 30.0
            }
        );
        assert_eq!(
            LodBands::new(&[-1.0], 0.0).unwrap_err(),
            LodConfigError::BadEdge {
                index: 0,
                edge: -1.0
            }
        );
        assert_eq!(
            LodBands::new(&[30.0], -4.0).unwrap_err(),
            LodConfigError::BadHysteresis { hysteresis: -4.0 }
        );
        assert_eq!(
            LodBands::new(&[3.0, 90.0], 4.0).unwrap_err(),
            LodConfigError::HysteresisSwallowsFirstBand {
                hysteresis: 4.0,
                first_edge: 3.0
            }
        );
        assert_eq!(
            LodBands::new(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0], 0.5).unwrap_err(),
            LodConfigError::TooManyBands { levels: 9, max: 8 }
        );
    }
}

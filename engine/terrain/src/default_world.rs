//! The default world: 257×257 samples, 2 m apart (512 m square), with a landmark for
//! every shipped preset: mountains in the north, a cliff strip in the east, a coastal
//! plain with beach in the south and a lake basin in the south-west, meadow between.

use std::fmt;
use std::str::FromStr;

use glam::Vec2;
use serde::{Deserialize, Serialize};

use crate::heightmap::Terrain;
use crate::noise::{fbm, ridged, smoothstep, value};

pub const DEFAULT_SAMPLES: usize = 257;
pub const DEFAULT_SPACING: f32 = 2.0;
pub const DEFAULT_WATER_LEVEL: f32 = 0.0;

/// Centre of the south-western lake basin.
const LAKE_CENTRE: Vec2 = Vec2::new(-150.0, -100.0);

/// Builds the default world. Deterministic: the same heights, bit for bit, on every run.
pub fn default_world() -> Terrain {
    let half = (DEFAULT_SAMPLES - 1) as f32 * DEFAULT_SPACING * 0.5;
    let heights = (0..DEFAULT_SAMPLES)
        .flat_map(|row| {
            (0..DEFAULT_SAMPLES).map(move |column| {
                let x = column as f32 * DEFAULT_SPACING - half;
                let z = row as f32 * DEFAULT_SPACING - half;
                world_height(x, z)
            })
        })
        .collect();
    Terrain::new(
        DEFAULT_SAMPLES,
        DEFAULT_SAMPLES,
        DEFAULT_SPACING,
        heights,
        DEFAULT_WATER_LEVEL,
    )
    .expect("the default world is a valid grid")
}

fn world_height(x: f32, z: f32) -> f32 {
    // Rolling meadow, 5–7 m above the sea.
    let meadow = 6.0 + 2.0 * (fbm(x, z, 90.0, 3, 1) - 0.5);

    // Coastal plain: ground falls gently to the sea along a wavy southern shore.
    let shore_wobble = 14.0 * (value(x, 0.0, 70.0, 2) - 0.5);
    let inland = smoothstep(-250.0, -110.0, z + shore_wobble);
    let mut h = -5.0 + (meadow + 5.0) * inland;

    // Lake basin: a bowl sunk below the water level.
    let to_lake = Vec2::new(x, z).distance(LAKE_CENTRE);
    let rim_wobble = 8.0 * (value(x, z, 40.0, 3) - 0.5);
    h -= 14.0 * (1.0 - smoothstep(20.0, 72.0, to_lake + rim_wobble));

    // Eastern cliff strip: a ~26 m escarpment running north–south, with a talus apron
    // at its foot and a rough plateau above. It fades out before the coast.
    let edge = 168.0 + 10.0 * (value(0.0, z, 60.0, 4) - 0.5);
    let strip = smoothstep(-170.0, -120.0, z);
    let face = smoothstep(edge - 7.0, edge + 7.0, x);
    let apron = smoothstep(edge - 24.0, edge - 6.0, x);
    let plateau = 4.0 * fbm(x, z, 40.0, 3, 5) * face;
    h += strip * (26.0 * face + 3.0 * apron + plateau);

    // Northern mountains: ridged peaks rising to ~115 m, with slopes of every kind.
    let north = smoothstep(70.0, 190.0, z);
    h += north * (22.0 + 88.0 * ridged(x, z, 120.0, 4, 7));
    h
}

/// A named place in the default world where a preset has ground to land on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Landmark {
    /// Flat, grassy ground in the middle of the map.
    Meadow,
    /// The face of the eastern escarpment.
    Cliff,
    /// The southern waterline.
    Beach,
    /// The north-eastern shore of the south-western lake.
    Lake,
    /// Mixed slopes in the northern range.
    Mountains,
}

impl Landmark {
    pub const ALL: [Landmark; 5] = [
        Landmark::Meadow,
        Landmark::Cliff,
        Landmark::Beach,
        Landmark::Lake,
        Landmark::Mountains,
    ];

    /// World `(x, z)` of the landmark in the default world.
    pub fn position(self) -> Vec2 {
        match self {
            Landmark::Meadow => Vec2::new(-20.0, 10.0),
            Landmark::Cliff => Vec2::new(168.0, 0.0),
            Landmark::Beach => Vec2::new(0.0, -184.0),
            Landmark::Lake => Vec2::new(-104.0, -82.0),
            Landmark::Mountains => Vec2::new(20.0, 170.0),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Landmark::Meadow => "meadow",
            Landmark::Cliff => "cliff",
            Landmark::Beach => "beach",
            Landmark::Lake => "lake",
            Landmark::Mountains => "mountains",
        }
    }
}

impl fmt::Display for Landmark {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A landmark name that does not exist.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown landmark `{name}` (known: meadow, cliff, beach, lake, mountains)")]
pub struct UnknownLandmark {
    pub name: String,
}

impl FromStr for Landmark {
    type Err = UnknownLandmark;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Landmark::ALL
            .into_iter()
            .find(|l| l.name().eq_ignore_ascii_case(s))
            .ok_or_else(|| UnknownLandmark { name: s.to_owned() })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_world_is_257_square_at_2_m() {
        let t = default_world();
        assert_eq!((t.columns(), t.rows()), (257, 257));
        assert_eq!(t.size(), Vec2::splat(512.0));
    }

    #[test]
    fn default_world_is_deterministic() {
        assert_eq!(default_world().heights(), default_world().heights());
    }

    #[test]
    fn meadow_is_flat_dry_ground() {
        let t = default_world();
        let p = Landmark::Meadow.position();
        for dx in [-10.0, 0.0, 10.0] {
            for dz in [-10.0, 0.0, 10.0] {
                let (x, z) = (p.x + dx, p.y + dz);
                assert!(t.slope(x, z) < 0.01, "slope {} at {x},{z}", t.slope(x, z));
                assert!(t.sample_height(x, z) > t.water_level() + 3.0);
            }
        }
    }

    #[test]
    fn cliff_landmark_sits_on_a_steep_face() {
        let t = default_world();
        let p = Landmark::Cliff.position();
        assert!(t.slope(p.x, p.y) > 0.4, "slope {}", t.slope(p.x, p.y));
    }

    #[test]
    fn beach_and_lake_landmarks_sit_at_the_waterline() {
        let t = default_world();
        for landmark in [Landmark::Beach, Landmark::Lake] {
            let p = landmark.position();
            let h = t.sample_height(p.x, p.y);
            assert!(
                (h - t.water_level()).abs() < 1.5,
                "{landmark} is {h} m high, not at the waterline"
            );
            // Water on one side, dry land on the other, within a brush radius.
            let heights: Vec<f32> = (0..16)
                .map(|i| {
                    let a = i as f32 / 16.0 * std::f32::consts::TAU;
                    t.sample_height(p.x + 14.0 * a.cos(), p.y + 14.0 * a.sin())
                })
                .collect();
            assert!(heights.iter().any(|&h| h < t.water_level()), "{landmark}");
            assert!(
                heights.iter().any(|&h| h > t.water_level() + 1.0),
                "{landmark}"
            );
        }
    }

    #[test]
    fn mountains_are_high_with_mixed_slopes() {
        let t = default_world();
        let p = Landmark::Mountains.position();
        assert!(t.sample_height(p.x, p.y) > 40.0);
        let slopes: Vec<f32> = (0..100)
            .map(|i| {
                t.slope(
                    p.x + (i % 10) as f32 * 3.0 - 15.0,
                    p.y + (i / 10) as f32 * 3.0 - 15.0,
                )
            })
            .collect();
        assert!(slopes.iter().any(|&s| s < 0.1));
        assert!(slopes.iter().any(|&s| s > 0.2));
    }

    #[test]
    fn landmark_names_parse_case_insensitively() {
        assert_eq!("Cliff".parse::<Landmark>(), Ok(Landmark::Cliff));
        assert!("volcano".parse::<Landmark>().is_err());
    }
}

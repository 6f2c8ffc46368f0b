use serde::{Deserialize, Serialize};

/// Ground type from altitude and slope, used for the terrain's vertex colours so a
/// user sees where a preset's predicates will hold before painting.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Biome {
    Water,
    Beach,
    Meadow,
    Forest,
    Scree,
    Cliff,
    Alpine,
    Snow,
}

/// Slope (`1 − normal.y`) from which ground is bare rock: about 45°.
pub const CLIFF_SLOPE: f32 = 0.29;
/// Slope from which loose rock gathers: about 28°.
pub const SCREE_SLOPE: f32 = 0.12;
/// Height above the water level up to which gentle ground is beach.
pub const BEACH_BAND: f32 = 1.5;

/// Classifies ground at `altitude` metres (absolute) with `slope` (`1 − normal.y`).
pub fn classify(altitude: f32, slope: f32, water_level: f32) -> Biome {
    let above_water = altitude - water_level;
    if above_water < 0.0 {
        Biome::Water
    } else if slope >= CLIFF_SLOPE {
        Biome::Cliff
    } else if slope >= SCREE_SLOPE {
        Biome::Scree
    } else if above_water < BEACH_BAND {
        Biome::Beach
    } else if above_water > 85.0 {
        Biome::Snow
    } else if above_water > 55.0 {
        Biome::Alpine
    } else if above_water > 20.0 {
        Biome::Forest
    } else {
        Biome::Meadow
    }
}

impl Biome {
    /// Linear RGB albedo for the terrain's vertex colour.
    pub fn color(self) -> [f32; 3] {
        match self {
            Biome::Water => [0.05, 0.12, 0.20],
            Biome::Beach => [0.62, 0.55, 0.38],
            Biome::Meadow => [0.22, 0.40, 0.10],
            Biome::Forest => [0.13, 0.28, 0.09],
            Biome::Scree => [0.36, 0.33, 0.29],
            Biome::Cliff => [0.26, 0.24, 0.22],
            Biome::Alpine => [0.34, 0.38, 0.24],
            Biome::Snow => [0.85, 0.87, 0.90],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classifies_each_band() {
        assert_eq!(classify(-0.1, 0.0, 0.0), Biome::Water);
        assert_eq!(classify(0.5, 0.01, 0.0), Biome::Beach);
        assert_eq!(classify(6.0, 0.01, 0.0), Biome::Meadow);
        assert_eq!(classify(30.0, 0.05, 0.0), Biome::Forest);
        assert_eq!(classify(30.0, 0.2, 0.0), Biome::Scree);
        assert_eq!(classify(6.0, 0.5, 0.0), Biome::Cliff);
        assert_eq!(classify(70.0, 0.05, 0.0), Biome::Alpine);
        assert_eq!(classify(100.0, 0.05, 0.0), Biome::Snow);
    }

    #[test]
    fn water_level_shifts_the_bands() {
        assert_eq!(classify(10.5, 0.0, 10.0), Biome::Beach);
        assert_eq!(classify(9.5, 0.0, 10.0), Biome::Water);
    }
}

use std::fmt;
use std::ops::AddAssign;

use serde::{Deserialize, Serialize};

/// Why a candidate point was not used.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Rejection {
    /// Outside the terrain.
    OutOfBounds,
    /// Below the water level.
    Water,
    /// No pick accepts the altitude here.
    Altitude,
    /// Picks accept the altitude here but not the slope.
    Slope,
    /// Some picks fail on altitude and the others on slope.
    NoMatchingPick,
    /// The drawn pick's category has no props in the catalog.
    EmptyCategory,
    /// Too close to a placement of the same family.
    Spacing,
    /// A re-run fill's candidate where an erase stroke cleared that fill since.
    Erased,
}

impl Rejection {
    pub const ALL: [Rejection; 8] = [
        Rejection::OutOfBounds,
        Rejection::Water,
        Rejection::Altitude,
        Rejection::Slope,
        Rejection::NoMatchingPick,
        Rejection::EmptyCategory,
        Rejection::Spacing,
        Rejection::Erased,
    ];

    pub fn label(self) -> &'static str {
        match self {
            Rejection::OutOfBounds => "out of bounds",
            Rejection::Water => "water",
            Rejection::Altitude => "altitude",
            Rejection::Slope => "slope",
            Rejection::NoMatchingPick => "no matching pick",
            Rejection::EmptyCategory => "empty category",
            Rejection::Spacing => "spacing",
            Rejection::Erased => "erased",
        }
    }
}

/// Count of rejected candidates per reason.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Rejections {
    pub out_of_bounds: u32,
    pub water: u32,
    pub altitude: u32,
    pub slope: u32,
    pub no_matching_pick: u32,
    pub empty_category: u32,
    pub spacing: u32,
    pub erased: u32,
}

impl Rejections {
    pub fn get(&self, reason: Rejection) -> u32 {
        match reason {
            Rejection::OutOfBounds => self.out_of_bounds,
            Rejection::Water => self.water,
            Rejection::Altitude => self.altitude,
            Rejection::Slope => self.slope,
            Rejection::NoMatchingPick => self.no_matching_pick,
            Rejection::EmptyCategory => self.empty_category,
            Rejection::Spacing => self.spacing,
            Rejection::Erased => self.erased,
        }
    }

    fn slot(&mut self, reason: Rejection) -> &mut u32 {
        match reason {
            Rejection::OutOfBounds => &mut self.out_of_bounds,
            Rejection::Water => &mut self.water,
            Rejection::Altitude => &mut self.altitude,
            Rejection::Slope => &mut self.slope,
            Rejection::NoMatchingPick => &mut self.no_matching_pick,
            Rejection::EmptyCategory => &mut self.empty_category,
            Rejection::Spacing => &mut self.spacing,
            Rejection::Erased => &mut self.erased,
        }
    }

    pub fn count(&mut self, reason: Rejection) {
        *self.slot(reason) += 1;
    }

    pub fn total(&self) -> u32 {
        Rejection::ALL.iter().map(|&r| self.get(r)).sum()
    }
}

/// What a stroke (or a single dab) did: the brush's whole user-facing explanation.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct StrokeReport {
    pub candidates: u32,
    pub placed: u32,
    pub rejected: Rejections,
    /// Oldest placements removed to respect the placement cap.
    pub evicted: u32,
    /// Wall-clock time spent, in microseconds (not part of any replay digest).
    pub micros: u64,
}

impl AddAssign for StrokeReport {
    fn add_assign(&mut self, other: Self) {
        self.candidates += other.candidates;
        self.placed += other.placed;
        self.evicted += other.evicted;
        self.micros += other.micros;
        for reason in Rejection::ALL {
            *self.rejected.slot(reason) += other.rejected.get(reason);
        }
    }
}

impl fmt::Display for StrokeReport {
    /// `placed 139 of 158 candidates; rejected 19: spacing 15, slope 4; 42 µs`
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "placed {} of {} candidates",
            self.placed, self.candidates
        )?;
        let total = self.rejected.total();
        if total > 0 {
            let mut reasons: Vec<(u32, Rejection)> = Rejection::ALL
                .iter()
                .map(|&r| (self.rejected.get(r), r))
                .filter(|(n, _)| *n > 0)
                .collect();
            reasons.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
            let list: Vec<String> = reasons
                .iter()
                .map(|(n, r)| format!("{} {n}", r.label()))
                .collect();
            write!(f, "; rejected {total}: {}", list.join(", "))?;
        }
        if self.evicted > 0 {
            write!(f, "; evicted {} (placement cap)", self.evicted)?;
        }
        write!(f, "; {} µs", self.micros)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_lists_reasons_by_count() {
        let mut report = StrokeReport {
            candidates: 10,
            placed: 6,
            micros: 12,
            ..Default::default()
        };
        report.rejected.count(Rejection::Slope);
        for _ in 0..3 {
            report.rejected.count(Rejection::Spacing);
        }
        assert_eq!(
            report.to_string(),
            "placed 6 of 10 candidates; rejected 4: spacing 3, slope 1; 12 µs"
        );
    }

    #[test]
    fn reports_add_up() {
        let mut a = StrokeReport {
            candidates: 3,
            placed: 1,
            ..Default::default()
        };
        a.rejected.count(Rejection::Water);
        let b = a;
        a += b;
        assert_eq!((a.candidates, a.placed, a.rejected.water), (6, 2, 2));
    }

    #[test]
    fn json_names_reasons_in_snake_case() {
        let json = serde_json::to_string(&Rejections::default()).unwrap();
        assert!(json.contains("\"no_matching_pick\":0"), "{json}");
    }
}

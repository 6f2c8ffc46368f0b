//! Turning one candidate's random draws into a placement-to-be or a rejection: where it
//! falls (a dab's disc sample, or a fill cell's square), the terrain reads, the slope
//! and altitude predicates, the weighted pick and prop choice, and the orientation.
//! Pure and order-independent, so large dabs and fills evaluate candidates in parallel
//! without changing any result.

use glam::{Quat, Vec2, Vec3};
use sylva_catalog::Catalog;
use sylva_terrain::Terrain;

use crate::angle::sin_cos_turns;
use crate::preset::{Pick, Preset};
use crate::report::Rejection;
use crate::rng::Mulberry32;

/// Every random number one candidate uses, drawn in a fixed order and count, so the
/// generator's sequence never depends on the terrain or on what was accepted.
#[derive(Clone, Copy, Debug)]
pub struct Draws {
    /// Where in its area the candidate falls: a dab's radius and angle draws, a fill
    /// cell's x and z fractions.
    pub spot: (f32, f32),
    pick: f32,
    prop: f32,
    yaw: f32,
    scale: f32,
}

impl Draws {
    pub fn next(rng: &mut Mulberry32) -> Self {
        Self {
            spot: (rng.next_f32(), rng.next_f32()),
            pick: rng.next_f32(),
            prop: rng.next_f32(),
            yaw: rng.next_f32(),
            scale: rng.next_f32(),
        }
    }
}

/// A pick whose category was found in the catalog.
#[derive(Clone, Debug)]
pub struct BoundPick<'a> {
    pub pick: &'a Pick,
    pub category: usize,
}

/// A preset pick whose category the catalog does not have: the pick's index in the
/// preset and the category it names. Dabs and fills report it as their own error.
#[derive(Clone, Debug, PartialEq)]
pub struct UnknownCategory {
    pub index: usize,
    pub category: String,
}

/// `preset`'s picks with their categories found in `catalog`, in the preset's order;
/// the first pick naming a category the catalog lacks is the error.
pub fn bind_picks<'a>(
    preset: &'a Preset,
    catalog: &Catalog,
) -> Result<Vec<BoundPick<'a>>, UnknownCategory> {
    preset
        .picks
        .iter()
        .enumerate()
        .map(|(index, pick)| {
            let unknown = || UnknownCategory {
                index,
                category: pick.category.clone(),
            };
            let category = catalog.category_index(&pick.category).ok_or_else(unknown)?;
            Ok(BoundPick { pick, category })
        })
        .collect()
}

/// A candidate that passed every test but spacing. Props and categories are catalog
/// indices: names are cloned only for candidates that become placements.
#[derive(Clone, Debug)]
pub struct Candidate {
    pub prop: usize,
    pub category: usize,
    pub min_spacing: f32,
    pub position: Vec3,
    pub rotation: Quat,
    pub scale: f32,
}

/// What a candidate is judged against: the terrain, the catalog and a preset's picks.
/// Dabs and fills share it, so both apply the same predicates, picks and orientation.
pub struct Placer<'a> {
    pub terrain: &'a Terrain,
    pub catalog: &'a Catalog,
    pub picks: &'a [BoundPick<'a>],
}

pub struct Dab<'a> {
    pub placer: Placer<'a>,
    pub center: Vec2,
    pub radius: f32,
}

impl Dab<'_> {
    pub fn evaluate(&self, d: &Draws) -> Result<Candidate, Rejection> {
        // Uniform in the disc: radius ∝ √u.
        let (radius, angle) = d.spot;
        let (sin, cos) = sin_cos_turns(angle);
        let distance = self.radius * radius.sqrt();
        let (x, z) = (
            self.center.x + distance * cos,
            self.center.y + distance * sin,
        );
        self.placer.evaluate_at(x, z, d)
    }
}

impl Placer<'_> {
    /// Judges a candidate at world `(x, z)` with the rest of its draws.
    pub fn evaluate_at(&self, x: f32, z: f32, d: &Draws) -> Result<Candidate, Rejection> {
        if !self.terrain.contains(x, z) {
            return Err(Rejection::OutOfBounds);
        }
        let height = self.terrain.sample_height(x, z);
        let altitude = height - self.terrain.water_level();
        if altitude < 0.0 {
            return Err(Rejection::Water);
        }
        let normal = self.terrain.normal(x, z);
        let pick = self.choose_pick(altitude, 1.0 - normal.y, d.pick)?;
        let category = &self.catalog.categories()[pick.category];
        let props = self.catalog.props();
        let total: f32 = category.props.iter().map(|&p| props[p].weight).sum();
        if total <= 0.0 {
            return Err(Rejection::EmptyCategory);
        }
        let prop_index = weighted(
            category.props.iter().map(|&p| (p, props[p].weight)),
            d.prop * total,
        );
        let prop = &props[prop_index];
        let yaw = yaw_quat(d.yaw);
        Ok(Candidate {
            prop: prop_index,
            category: pick.category,
            min_spacing: pick.pick.min_spacing,
            position: Vec3::new(x, height, z),
            rotation: if pick.pick.align_to_slope {
                tilt_then_yaw(normal, yaw)
            } else {
                yaw
            },
            scale: pick.pick.scale.lerp(d.scale) * prop.scale.lerp(d.scale),
        })
    }

    /// Draws one pick by weight among those whose predicates hold, or says which
    /// predicate ruled the point out.
    fn choose_pick(
        &self,
        altitude: f32,
        slope: f32,
        draw: f32,
    ) -> Result<&BoundPick<'_>, Rejection> {
        let (mut total, mut altitude_failed, mut slope_failed) = (0.0f32, false, false);
        let passes = |p: &Pick| {
            let altitude_ok = altitude >= p.alt_min && altitude <= p.alt_max;
            let slope_ok = slope >= p.slope_min && slope <= p.slope_max;
            (altitude_ok, slope_ok)
        };
        for bound in self.picks {
            match passes(bound.pick) {
                (false, _) => altitude_failed = true,
                (true, false) => slope_failed = true,
                (true, true) => total += bound.pick.weight,
            }
        }
        if total <= 0.0 {
            return Err(match (altitude_failed, slope_failed) {
                (true, false) => Rejection::Altitude,
                (false, true) => Rejection::Slope,
                _ => Rejection::NoMatchingPick,
            });
        }
        let eligible = self
            .picks
            .iter()
            .enumerate()
            .filter(|(_, b)| passes(b.pick) == (true, true))
            .map(|(i, b)| (i, b.pick.weight));
        Ok(&self.picks[weighted(eligible, draw * total)])
    }
}

/// The item whose cumulative weight first exceeds `target`; the last positive one if
/// rounding leaves `target` at the very end.
fn weighted(items: impl Iterator<Item = (usize, f32)>, target: f32) -> usize {
    let (mut cumulative, mut last) = (0.0f32, 0);
    for (item, weight) in items.filter(|(_, w)| *w > 0.0) {
        cumulative += weight;
        last = item;
        if target < cumulative {
            return item;
        }
    }
    last
}

/// Rotation of `turns` full turns about +y.
fn yaw_quat(turns: f32) -> Quat {
    let (sin, cos) = sin_cos_turns(turns * 0.5);
    Quat::from_xyzw(0.0, sin, 0.0, cos)
}

/// `arc(+y → normal) × yaw`, written out so the arithmetic is the same on every
/// platform (no SIMD reassociation): spin about the prop's own up axis, then tilt it
/// onto the ground normal.
fn tilt_then_yaw(normal: Vec3, yaw: Quat) -> Quat {
    // Shortest arc from +y to n: (y × n, 1 + y·n), normalised; n.y > 0 on terrain.
    let (ax, az, aw) = (normal.z, -normal.x, 1.0 + normal.y);
    let length = (ax * ax + az * az + aw * aw).sqrt();
    let (ax, az, aw) = (ax / length, az / length, aw / length);
    let (sy, cy) = (yaw.y, yaw.w);
    Quat::from_xyzw(ax * cy - az * sy, aw * sy, ax * sy + az * cy, aw * cy)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tilt_then_yaw_matches_quaternion_algebra() {
        let normal = Vec3::new(0.3, 0.8, -0.2).normalize();
        let yaw = yaw_quat(0.37);
        let expected = Quat::from_rotation_arc(Vec3::Y, normal) * yaw;
        let got = tilt_then_yaw(normal, yaw);
        assert!(got.abs_diff_eq(expected, 1e-6), "{got:?} vs {expected:?}");
        assert!((got * Vec3::Y).abs_diff_eq(normal, 1e-6));
    }

    #[test]
    fn yaw_quat_turns_about_up() {
        let q = yaw_quat(0.25);
        assert!((q * Vec3::X).abs_diff_eq(Vec3::NEG_Z, 1e-6));
    }

    #[test]
    fn weighted_choice_follows_cumulative_weights() {
        let items = || [(0, 1.0), (1, 0.0), (2, 3.0)].into_iter();
        assert_eq!(weighted(items(), 0.5), 0);
        assert_eq!(weighted(items(), 1.0), 2);
        assert_eq!(weighted(items(), 3.99), 2);
        assert_eq!(weighted(items(), 4.0), 2);
    }
}

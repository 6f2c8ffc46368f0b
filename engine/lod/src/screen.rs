//! Screen-space switching: per prop, the distances at which each level's successor shows
//! an error within the tolerance and at which the prop drops below its minimum size,
//! both for a placement of scale 1 and growing linearly with scale.
//!
//! For a viewport of `H` pixels over a vertical field of view `θ`, a length `l` at
//! distance `d` covers `l · K / d` pixels with `K = H / (2 tan(θ/2))`. So level `k`
//! gives way to `k + 1` at `e[k+1] · K / tolerance` metres (`e` the levels' errors,
//! taken non-decreasing: a coarser level is never switched to nearer than a finer one),
//! and a prop of radius `r` is culled past `2r · K / min_size`, or past its maximum
//! distance if nearer. At 1 px on 1080 lines at 60°, `K ≈ 935`: a level whose error is
//! 1 cm takes over at 9.4 m, a 20 cm grass tuft is culled past 190 m at the default
//! 1 px, a 15 m tree past 14 km.
//!
//! Every switch distance `d` fades and switches over `[d(1 − h), d(1 + h)]`; the cull
//! fades out over the same band and the placement leaves the buckets only past
//! `d(1 + h)`, where it draws nothing, and comes back at the same distance, so neither
//! way pops. All comparisons are of squared distances computed by the same expressions,
//! so a placement put in a level's band is kept there by it.

use std::ops::RangeInclusive;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use sylva_buckets::{DistanceLevels, Member, PropKey, CULLED_LEVEL, MAX_LODS};

use crate::config::{PropLod, ScreenError};

/// A revision no rule has had: every change of a rule takes a new one, so a registry's
/// proofs never outlive the rule they were made under, even across controllers.
pub(crate) fn fresh_revision() -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

/// One prop's switch distances for a placement of scale 1.
#[derive(Debug, Clone, PartialEq)]
pub struct PropSwitches {
    /// Drawable levels (meshes, then impostor).
    levels: u8,
    /// `edges_m[k]`: where level `k` gives way to `k + 1`; non-decreasing.
    edges_m: Vec<f32>,
    /// Where the placement falls below its minimum size; ∞ when never.
    size_cull_m: f32,
    /// The distance limit, whatever the scale; ∞ when none.
    max_distance_m: f32,
}

impl PropSwitches {
    pub(crate) fn new(lod: &PropLod, settings: &ScreenError) -> Self {
        let per_metre = settings.viewport.pixels_per_metre_at_1m();
        let metres_per_error = per_metre / settings.tolerance_px;
        let edges_m = lod.level_errors_m[1..]
            .iter()
            .scan(0.0f32, |largest, &error| {
                *largest = largest.max(error);
                Some(*largest * metres_per_error)
            })
            .collect();
        let visibility = lod.visibility;
        let size_cull_m = if visibility.min_size_px > 0.0 {
            2.0 * lod.radius_m * per_metre / visibility.min_size_px
        } else {
            f32::INFINITY
        };
        Self {
            levels: lod.level_errors_m.len() as u8,
            edges_m,
            size_cull_m,
            max_distance_m: visibility.max_distance_m.unwrap_or(f32::INFINITY),
        }
    }

    /// Drawable levels.
    pub fn levels(&self) -> u8 {
        self.levels
    }

    /// Where a placement of `scale` is culled; ∞ when never.
    pub fn cull_m(&self, scale: f32) -> f32 {
        let by_size = if self.size_cull_m.is_finite() {
            self.size_cull_m * scale
        } else {
            f32::INFINITY
        };
        by_size.min(self.max_distance_m)
    }

    /// Where a placement of `scale` leaves level `level` for the next one, or, past the
    /// last level or where the cull comes first, is culled; ∞ when never.
    pub fn edge_m(&self, level: u8, scale: f32) -> f32 {
        let cull = self.cull_m(scale);
        match self.edges_m.get(usize::from(level)) {
            Some(edge) => (edge * scale).min(cull),
            None if level + 1 == self.levels => cull,
            None => f32::INFINITY,
        }
    }
}

/// Every prop's switches, shared by the controller's rule and the renderer's fades.
#[derive(Debug, Clone)]
pub struct Switches {
    pub(crate) settings: ScreenError,
    /// By prop key index; `None` for props not described yet.
    pub(crate) props: Vec<Option<(PropLod, PropSwitches)>>,
    /// Changes with any change: what the fades compare.
    pub(crate) any_revision: u64,
    /// Changes with the settings, which move every prop's switches.
    settings_revision: u64,
    /// By prop key index: changes when that prop is described (0 before).
    prop_revisions: Vec<u64>,
}

impl Switches {
    pub(crate) fn new(settings: ScreenError) -> Self {
        let revision = fresh_revision();
        Self {
            settings,
            props: Vec::new(),
            any_revision: revision,
            settings_revision: revision,
            prop_revisions: Vec::new(),
        }
    }

    /// A prop's switch distances, once described.
    pub fn prop(&self, prop: PropKey) -> Option<&PropSwitches> {
        self.props
            .get(prop.index() as usize)?
            .as_ref()
            .map(|(_, switches)| switches)
    }

    /// A prop's description, once described.
    pub fn prop_lod(&self, prop: PropKey) -> Option<&PropLod> {
        self.props
            .get(prop.index() as usize)?
            .as_ref()
            .map(|(lod, _)| lod)
    }

    /// The share of a switch distance each side of it that fades.
    pub fn hysteresis(&self) -> f32 {
        self.settings.hysteresis
    }

    pub(crate) fn set_prop(&mut self, prop: PropKey, lod: PropLod) {
        let index = prop.index() as usize;
        if self.props.len() <= index {
            self.props.resize(index + 1, None);
            self.prop_revisions.resize(index + 1, 0);
        }
        let switches = PropSwitches::new(&lod, &self.settings);
        self.props[index] = Some((lod, switches));
        self.any_revision = fresh_revision();
        self.prop_revisions[index] = self.any_revision;
    }

    pub(crate) fn set_settings(&mut self, settings: ScreenError) {
        for (lod, switches) in self.props.iter_mut().flatten() {
            *switches = PropSwitches::new(lod, &settings);
        }
        self.settings = settings;
        self.any_revision = fresh_revision();
        self.settings_revision = self.any_revision;
    }
}

/// The controller's rule under screen-space switching.
#[derive(Debug, Clone)]
pub(crate) struct ScreenRule {
    pub(crate) switches: Arc<Switches>,
}

impl ScreenRule {
    /// The squared distances over which `switches`' placement of `scale` at `level`
    /// stays there.
    fn kept_sq(&self, switches: &PropSwitches, scale: f32, level: u8) -> (f32, f32) {
        let h = self.switches.settings.hysteresis;
        let last = switches.levels - 1;
        let cull = switches.cull_m(scale);
        if level == CULLED_LEVEL {
            return (squared(cull * (1.0 + h)), f32::INFINITY);
        }
        if level > last {
            return (f32::INFINITY, 0.0);
        }
        let low = match level.checked_sub(1) {
            Some(finer) => switches.edge_m(finer, scale) * (1.0 - h),
            None => 0.0,
        };
        let cull_high = cull * (1.0 + 2.0 * h);
        let high = match switches.edges_m.get(usize::from(level)) {
            Some(edge) => (edge * scale * (1.0 + h)).min(cull_high),
            None => cull_high,
        };
        (squared(low), squared(high))
    }

    /// The level whose own band holds `distance_sq`, ignoring history.
    fn band_for(&self, switches: &PropSwitches, scale: f32, distance_sq: f32) -> u8 {
        let h = self.switches.settings.hysteresis;
        if distance_sq >= squared(switches.cull_m(scale) * (1.0 + h)) {
            return CULLED_LEVEL;
        }
        switches
            .edges_m
            .iter()
            .take_while(|&&edge| distance_sq >= squared(edge * scale))
            .count() as u8
    }

    pub(crate) fn level_for(&self, member: Member, distance_sq: f32) -> u8 {
        self.switches.prop(member.prop).map_or(0, |switches| {
            self.band_for(switches, member.scale, distance_sq)
        })
    }
}

fn squared(metres: f32) -> f32 {
    metres * metres
}

impl DistanceLevels for ScreenRule {
    fn next_level(&self, member: Member, level: u8, distance_sq: f32) -> u8 {
        let Some(switches) = self.switches.prop(member.prop) else {
            return level;
        };
        let (low, high) = self.kept_sq(switches, member.scale, level);
        if distance_sq < low || distance_sq > high {
            self.band_for(switches, member.scale, distance_sq)
        } else {
            level
        }
    }

    /// A prop not described yet keeps whatever level it has; it is re-banded once
    /// described (a new revision of its own).
    fn keeps_level(&self, member: Member, level: u8) -> RangeInclusive<f32> {
        match self.switches.prop(member.prop) {
            Some(switches) => {
                let (low, high) = self.kept_sq(switches, member.scale, level);
                low..=high
            }
            None => 0.0..=f32::INFINITY,
        }
    }

    fn revision(&self) -> u64 {
        self.switches.settings_revision
    }

    fn prop_revision(&self, prop: PropKey) -> u64 {
        let revisions = &self.switches.prop_revisions;
        revisions.get(prop.index() as usize).copied().unwrap_or(0)
    }
}

const _: () = assert!(
    CULLED_LEVEL >= MAX_LODS,
    "culled is past every drawable level"
);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Viewport, Visibility};

    fn rule_with(lod: PropLod) -> (ScreenRule, Member) {
        let mut switches = Switches::new(ScreenError::default());
        let mut registry = sylva_buckets::PlacementRegistry::new();
        let prop = registry.intern("rock/boulder");
        switches.set_prop(prop, lod);
        let rule = ScreenRule {
            switches: Arc::new(switches),
        };
        (rule, Member { prop, scale: 1.0 })
    }

    fn pebble() -> PropLod {
        PropLod {
            level_errors_m: vec![0.0, 0.002, 0.01, 0.02],
            radius_m: 0.1,
            visibility: Visibility::default(),
        }
    }

    fn level_at(rule: &ScreenRule, member: Member, level: u8, distance: f32) -> u8 {
        rule.next_level(member, level, distance * distance)
    }

    #[test]
    fn switch_distances_follow_the_errors_on_the_reference_viewport() {
        let (rule, member) = rule_with(pebble());
        let switches = rule.switches.prop(member.prop).unwrap();
        let k = Viewport::REFERENCE.pixels_per_metre_at_1m();
        assert!((k - 935.3).abs() < 0.1, "{k}");
        let close = |a: f32, b: f32| (a - b).abs() <= 1e-5 * b;
        assert!(close(switches.edge_m(0, 1.0), 0.002 * k));
        assert!(close(switches.edge_m(2, 1.0), 0.02 * k));
        assert!(close(switches.cull_m(1.0), 0.2 * k));
        assert_eq!(
            switches.edge_m(3, 1.0),
            switches.cull_m(1.0),
            "past the last level"
        );
        assert_eq!(switches.edge_m(0, 2.0), 2.0 * switches.edge_m(0, 1.0));
    }

    #[test]
    fn a_coarser_level_with_less_error_is_not_switched_to_nearer() {
        let (rule, member) = rule_with(PropLod {
            level_errors_m: vec![0.0, 0.05, 0.01],
            ..pebble()
        });
        let switches = rule.switches.prop(member.prop).unwrap();
        assert_eq!(switches.edge_m(0, 1.0), switches.edge_m(1, 1.0));
        assert_eq!(
            level_at(&rule, member, 0, 60.0),
            2,
            "level 1 has an empty band"
        );
    }

    #[test]
    fn levels_switch_past_their_band_plus_the_relative_hysteresis() {
        let (rule, member) = rule_with(pebble());
        let edge = rule.switches.prop(member.prop).unwrap().edge_m(0, 1.0);
        assert_eq!(level_at(&rule, member, 0, edge * 1.04), 0);
        assert_eq!(level_at(&rule, member, 0, edge * 1.06), 1);
        assert_eq!(level_at(&rule, member, 1, edge * 0.96), 1);
        assert_eq!(level_at(&rule, member, 1, edge * 0.94), 0);
    }

    #[test]
    fn a_placement_is_culled_past_its_fade_and_returns_at_the_same_distance() {
        let (rule, member) = rule_with(pebble());
        let cull = rule.switches.prop(member.prop).unwrap().cull_m(1.0);
        assert_eq!(level_at(&rule, member, 3, cull * 1.04), 3);
        assert_eq!(level_at(&rule, member, 3, cull * 1.09), 3, "inside the gap");
        assert_eq!(level_at(&rule, member, 3, cull * 1.11), CULLED_LEVEL);
        assert_eq!(
            level_at(&rule, member, CULLED_LEVEL, cull * 1.06),
            CULLED_LEVEL
        );
        assert_eq!(level_at(&rule, member, CULLED_LEVEL, cull * 1.04), 3);
        assert_eq!(level_at(&rule, member, 0, 1e6), CULLED_LEVEL, "a jump");
    }

    #[test]
    fn a_placement_twice_the_size_switches_twice_as_far() {
        let (rule, member) = rule_with(pebble());
        let twice = Member {
            scale: 2.0,
            ..member
        };
        for distance in [1.0f32, 3.0, 7.0, 12.0, 19.0, 40.0, 130.0, 300.0] {
            assert_eq!(
                rule.level_for(member, distance * distance),
                rule.level_for(twice, (2.0 * distance).powi(2)),
                "{distance} m"
            );
        }
    }

    #[test]
    fn a_maximum_distance_culls_nearer_than_the_size_would() {
        let (rule, member) = rule_with(PropLod {
            visibility: Visibility {
                min_size_px: 1.5,
                max_distance_m: Some(10.0),
            },
            ..pebble()
        });
        let switches = rule.switches.prop(member.prop).unwrap();
        assert_eq!(switches.cull_m(1.0), 10.0);
        assert_eq!(switches.cull_m(3.0), 10.0, "whatever the scale");
        assert_eq!(
            switches.edge_m(2, 1.0),
            10.0,
            "the cull comes before level 3"
        );
        assert_eq!(rule.level_for(member, 12.0 * 12.0), CULLED_LEVEL);
    }

    #[test]
    fn an_undescribed_prop_keeps_its_level() {
        let (rule, _) = rule_with(pebble());
        let stranger = Member {
            prop: {
                let mut registry = sylva_buckets::PlacementRegistry::new();
                registry.intern("a");
                registry.intern("b")
            },
            scale: 1.0,
        };
        assert_eq!(level_at(&rule, stranger, 2, 1e5), 2);
        assert_eq!(rule.level_for(stranger, 1e10), 0);
    }
}

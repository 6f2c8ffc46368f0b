//! The LOD controller: decides when to re-evaluate and applies its rule to the registry.

use std::ops::RangeInclusive;
use std::sync::Arc;

use glam::Vec3;
use sylva_buckets::{DistanceLevels, Member, PlacementRegistry, PropKey, RelevelStats, MAX_LODS};

use crate::bands::LodBands;
use crate::config::{LodConfig, LodPolicy, PropLod, ScreenError, Viewport};
use crate::fade::LodFades;
use crate::screen::{PropSwitches, ScreenRule, Switches};
use crate::LodConfigError;

/// What one [`LodController::tick`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TickStats {
    /// Placements evaluated: all of them on a tick that evaluates, 0 on a gated one or
    /// one that goes on with an evaluation spread over ticks.
    pub evaluated: u32,
    /// Of those, the placements whose distance was computed: those whose last proof of
    /// keeping their level the camera's travel used up.
    pub tested: u32,
    /// Placements whose instances moved to another LOD's buckets.
    pub moved: u32,
    /// Placed placements per LOD after the tick (index = LOD).
    pub per_lod: [u32; MAX_LODS as usize],
    /// Placements of loaded props culled for their size or distance after the tick.
    pub culled: u32,
    /// Whether an evaluation spread over ticks has placements left to test
    /// ([`LodController::spread_evaluations`]).
    pub evaluating: bool,
}

#[derive(Debug, Clone, Copy)]
struct Evaluation {
    camera: Vec3,
    at_s: f64,
}

/// The rule placements are levelled by.
#[derive(Debug, Clone)]
pub(crate) enum Rule {
    Fixed(LodBands),
    Screen(ScreenRule),
}

impl DistanceLevels for Rule {
    #[inline]
    fn next_level(&self, member: Member, level: u8, distance_sq: f32) -> u8 {
        match self {
            Rule::Fixed(bands) => bands.next(level, distance_sq),
            Rule::Screen(screen) => screen.next_level(member, level, distance_sq),
        }
    }

    fn keeps_level(&self, member: Member, level: u8) -> RangeInclusive<f32> {
        match self {
            Rule::Fixed(bands) => bands.keeps(level),
            Rule::Screen(screen) => screen.keeps_level(member, level),
        }
    }

    fn revision(&self) -> u64 {
        match self {
            Rule::Fixed(bands) => bands.revision(),
            Rule::Screen(screen) => screen.revision(),
        }
    }

    fn prop_revision(&self, prop: PropKey) -> u64 {
        match self {
            Rule::Fixed(bands) => bands.prop_revision(prop),
            Rule::Screen(screen) => screen.prop_revision(prop),
        }
    }
}

/// Moves placements between LOD levels as the camera moves, by 3D distance from the
/// camera to the placement's origin: under screen-space switching each prop at the
/// distances its levels' errors and its size give, scaled by the placement's scale;
/// under fixed bands every placement at the same distances.
///
/// Re-evaluation is capped at `max_rate_hz` and happens only when the camera moved more
/// than `min_camera_travel_m` since the last one, when placements were inserted since
/// (they are evaluated even under a still camera), or when the rule changed (a prop
/// described, the viewport or tolerance changed). Otherwise a tick costs a time compare
/// and one squared-distance compare.
///
/// An evaluation may be spread over the ticks that follow it
/// ([`Self::spread_evaluations`]): each tests a share of the placements due, all from
/// the camera the evaluation began at, so a fast camera's evaluation does not land on
/// one frame.
#[derive(Debug, Clone)]
pub struct LodController {
    rule: Rule,
    fades: LodFades,
    min_interval_s: f64,
    min_camera_travel_sq: f32,
    last_evaluation: Option<Evaluation>,
    /// The rule changed since the last evaluation.
    rule_changed: bool,
    /// Ticks one evaluation's tests are spread over.
    spread_ticks: u32,
    /// The rule of the evaluation under way, while one is spread over ticks.
    evaluating: Option<Rule>,
}

impl Default for LodController {
    fn default() -> Self {
        Self::new(&LodConfig::default()).expect("the default configuration is valid")
    }
}

impl LodController {
    pub fn new(config: &LodConfig) -> Result<Self, LodConfigError> {
        let (rule, fades) = match &config.policy {
            LodPolicy::FixedBands(fixed) => (
                Rule::Fixed(LodBands::new(&fixed.edges_m, fixed.hysteresis_m)?),
                LodFades::fixed(&fixed.edges_m, fixed.hysteresis_m),
            ),
            LodPolicy::ScreenError(settings) => {
                settings.check()?;
                let switches = Arc::new(Switches::new(settings.clone()));
                (
                    Rule::Screen(ScreenRule {
                        switches: Arc::clone(&switches),
                    }),
                    LodFades::screen(switches),
                )
            }
        };
        if !(config.max_rate_hz.is_finite() && config.max_rate_hz > 0.0) {
            return Err(LodConfigError::BadRate {
                hertz: config.max_rate_hz,
            });
        }
        let travel = config.min_camera_travel_m;
        if !(travel.is_finite() && travel >= 0.0) {
            return Err(LodConfigError::BadCameraTravel { metres: travel });
        }
        Ok(Self {
            rule,
            fades,
            min_interval_s: 1.0 / config.max_rate_hz,
            min_camera_travel_sq: travel * travel,
            last_evaluation: None,
            rule_changed: false,
            spread_ticks: 1,
            evaluating: None,
        })
    }

    /// Spreads each evaluation's tests over `ticks` ticks (1, the default: all on the
    /// tick that evaluates). At 60 frames a second and the 4 Hz cap, up to 15 ticks lie
    /// between two evaluations; one spread over fewer is done before the next is due.
    /// The levels an evaluation ends with are those it would have given at once.
    pub fn spread_evaluations(&mut self, ticks: u32) {
        self.spread_ticks = ticks.max(1);
    }

    /// Whether an evaluation spread over ticks has placements left to test.
    pub fn is_evaluating(&self) -> bool {
        self.evaluating.is_some()
    }

    /// Finishes the evaluation under way, if one is: before a caller levels the
    /// registry itself, or draws a still.
    pub fn finish_evaluation(&mut self, registry: &mut PlacementRegistry) -> TickStats {
        let (mut tested, mut moved) = (0, 0);
        while let Some(relevel) = self.go_on(registry) {
            tested += relevel.tested;
            moved += relevel.moved;
        }
        TickStats {
            tested,
            moved,
            ..Self::stats_of(registry, RelevelStats::default())
        }
    }

    /// Tests the next share of the evaluation under way, if one is.
    fn go_on(&mut self, registry: &mut PlacementRegistry) -> Option<RelevelStats> {
        let rule = self.evaluating.take()?;
        let relevel = registry.continue_relevel_by_distance(&rule);
        if relevel.under_way {
            self.evaluating = Some(rule);
        }
        Some(relevel)
    }

    /// A tick's stats: what `relevel` did, and the registry after it.
    fn stats_of(registry: &PlacementRegistry, relevel: RelevelStats) -> TickStats {
        TickStats {
            evaluated: relevel.evaluated,
            tested: relevel.tested,
            moved: relevel.moved,
            per_lod: registry.placed_per_lod(),
            culled: registry.culled_len(),
            evaluating: relevel.under_way,
        }
    }

    /// Describes `prop` for screen-space switching (on load and on every re-bake): its
    /// placements move to its own switch distances at the next tick. Fixed bands need no
    /// description and ignore it.
    pub fn set_prop(&mut self, prop: PropKey, lod: PropLod) -> Result<(), LodConfigError> {
        lod.check()?;
        self.edit_switches(|switches| switches.set_prop(prop, lod));
        Ok(())
    }

    /// The viewport switch distances are measured on (its height in pixels and vertical
    /// field of view); the same viewport again changes nothing.
    pub fn set_viewport(&mut self, viewport: Viewport) -> Result<(), LodConfigError> {
        viewport.check()?;
        self.edit_settings(|settings| settings.viewport = viewport)
    }

    /// The largest error a level may show, in pixels of the viewport.
    pub fn set_tolerance_px(&mut self, tolerance_px: f32) -> Result<(), LodConfigError> {
        self.edit_settings(|settings| settings.tolerance_px = tolerance_px)
    }

    /// The rule ticks apply, for tests comparing with evaluating every placement.
    #[cfg(test)]
    pub(crate) fn rule(&self) -> &Rule {
        &self.rule
    }

    /// The screen-space settings, or `None` under fixed bands.
    pub fn screen_error(&self) -> Option<&ScreenError> {
        match &self.rule {
            Rule::Screen(screen) => Some(&screen.switches.settings),
            Rule::Fixed(_) => None,
        }
    }

    /// A prop's description under screen-space switching, once described.
    pub fn prop_lod(&self, prop: PropKey) -> Option<&PropLod> {
        match &self.rule {
            Rule::Screen(screen) => screen.switches.prop_lod(prop),
            Rule::Fixed(_) => None,
        }
    }

    /// A prop's switch distances under screen-space switching, once described.
    pub fn prop_switches(&self, prop: PropKey) -> Option<&PropSwitches> {
        match &self.rule {
            Rule::Screen(screen) => screen.switches.prop(prop),
            Rule::Fixed(_) => None,
        }
    }

    fn edit_settings(&mut self, edit: impl FnOnce(&mut ScreenError)) -> Result<(), LodConfigError> {
        let Some(current) = self.screen_error() else {
            return Ok(());
        };
        let mut settings = current.clone();
        edit(&mut settings);
        settings.check()?;
        if &settings != current {
            self.edit_switches(|switches| switches.set_settings(settings));
        }
        Ok(())
    }

    fn edit_switches(&mut self, edit: impl FnOnce(&mut Switches)) {
        let Rule::Screen(screen) = &mut self.rule else {
            return;
        };
        edit(Arc::make_mut(&mut screen.switches));
        self.fades = LodFades::screen(Arc::clone(&screen.switches));
        self.rule_changed = true;
    }

    /// Call once a frame with the camera's world position and the time in seconds (any
    /// origin; it should not go backwards, and if it does the next camera movement
    /// re-evaluates at once). A tick with a non-finite camera position or time does
    /// nothing, unless it goes on with an evaluation spread over ticks: that one tests
    /// from the camera it began at.
    pub fn tick(
        &mut self,
        registry: &mut PlacementRegistry,
        camera: Vec3,
        now_s: f64,
    ) -> TickStats {
        if let Some(relevel) = self.go_on(registry) {
            return Self::stats_of(registry, relevel);
        }
        if !self.is_due(registry, camera, now_s) {
            return Self::stats_of(registry, RelevelStats::default());
        }
        let relevel = registry.begin_relevel_by_distance(camera, &self.rule, self.spread_ticks);
        if relevel.under_way {
            self.evaluating = Some(self.rule.clone());
        }
        self.last_evaluation = Some(Evaluation {
            camera,
            at_s: now_s,
        });
        self.rule_changed = false;
        Self::stats_of(registry, relevel)
    }

    /// How renderers cross-fade the levels across each switch (the hysteresis bands).
    pub fn fades(&self) -> &LodFades {
        &self.fades
    }

    /// The level a new placement of `member` at `position` should start at: its band as
    /// seen from the camera of the last evaluation (level 0 before the first). Passing it
    /// to `PlacementRegistry::insert` keeps a new far placement from showing at full
    /// detail, or a new tiny one from showing at all, until the next evaluation.
    pub fn level_for(&self, member: Member, position: Vec3) -> u8 {
        self.last_evaluation.map_or(0, |last| {
            let distance_sq = position.distance_squared(last.camera);
            match &self.rule {
                Rule::Fixed(bands) => bands.band_for(distance_sq),
                Rule::Screen(screen) => screen.level_for(member, distance_sq),
            }
        })
    }

    fn is_due(&self, registry: &PlacementRegistry, camera: Vec3, now_s: f64) -> bool {
        if !(camera.is_finite() && now_s.is_finite()) {
            return false;
        }
        let Some(last) = self.last_evaluation else {
            return true;
        };
        if self.rule_changed {
            return true;
        }
        let elapsed_s = now_s - last.at_s;
        let clock_went_back = elapsed_s < 0.0;
        if elapsed_s < self.min_interval_s && !clock_went_back {
            return false;
        }
        registry.has_unevaluated_placements()
            || camera.distance_squared(last.camera) > self.min_camera_travel_sq
    }
}

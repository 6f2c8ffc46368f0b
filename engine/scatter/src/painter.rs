use std::collections::BTreeMap;
use std::time::Instant;

use glam::{Vec2, Vec3Swizzles};
use rayon::prelude::*;
use sylva_catalog::Catalog;
use sylva_terrain::Terrain;
use thiserror::Error;

use crate::candidate::{bind_picks, Candidate, Dab, Draws, Placer, UnknownCategory};
use crate::fill::{FillError, FillPlan};
use crate::placement::{Placement, PlacementId};
use crate::preset::{BrushSettings, Preset, MAX_DENSITY, MAX_RADIUS};
use crate::report::{Rejection, StrokeReport};
use crate::rng::Mulberry32;
use crate::spacing::SpacingIndex;

/// The placement cap of a new session.
pub const DEFAULT_PLACEMENT_CAP: usize = 1_000_000;
/// The prototype's cap, which every session had before the cap was the user's: a
/// journal that names no cap was written then and means this one.
pub const PROTOTYPE_PLACEMENT_CAP: usize = 2_500;
/// The largest cap a session may ask for. A live placement costs about
/// [`BYTES_PER_PLACEMENT`] in the editor alone (the registry and a GPU mirror add their
/// own), so this is 5 GB before anything is drawn: more than the machines sylva runs
/// on can spare.
pub const MAX_PLACEMENT_CAP: usize = 10_000_000;
/// Memory per live placement in the editor (painter, spacing index, journal), measured
/// by `sylva fill` filling a 4097² map with 995,805 placements: 615 MB peak, less the
/// 67 MB terrain and the process's baseline (BENCHMARKS.md).
pub const BYTES_PER_PLACEMENT: usize = 500;
/// Dabs with at least this many candidates evaluate them on rayon's thread pool.
const PARALLEL_CANDIDATES: usize = 2_048;

/// What an operation changed: placements that appeared and placements that left
/// (erased or evicted). Undo reverts it; consumers mirror it into instance buckets.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Edit {
    /// In creation order.
    pub added: Vec<Placement>,
    pub removed: Vec<Placement>,
}

impl Edit {
    pub fn is_empty(&self) -> bool {
        self.added.is_empty() && self.removed.is_empty()
    }

    /// The edit that undoes this one.
    pub fn inverse(&self) -> Edit {
        Edit {
            added: self.removed.clone(),
            removed: self.added.clone(),
        }
    }
}

/// Checks a placement cap asked for by a user or a journal.
pub fn check_cap(cap: usize) -> Result<(), CapError> {
    if cap == 0 {
        return Err(CapError::Zero);
    }
    if cap > MAX_PLACEMENT_CAP {
        return Err(CapError::TooLarge { cap });
    }
    Ok(())
}

#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum CapError {
    #[error("a placement cap of 0 would hold nothing; it must be 1 to {MAX_PLACEMENT_CAP}")]
    Zero,
    #[error(
        "a placement cap of {cap} is past what memory allows (about {BYTES_PER_PLACEMENT} bytes \
         a placement); it must be 1 to {MAX_PLACEMENT_CAP}"
    )]
    TooLarge { cap: usize },
}

#[derive(Debug, Clone, PartialEq, Error)]
pub enum BrushError {
    #[error("brush radius {radius} m is outside (0, {MAX_RADIUS}]")]
    Radius { radius: f32 },
    #[error("brush density {density} per m² is outside (0, {MAX_DENSITY}]")]
    Density { density: f32 },
    #[error("brush centre ({x}, {z}) is not a finite position")]
    Center { x: f32, z: f32 },
    #[error("pick {index} names category `{category}`, which the catalog does not have")]
    UnknownCategory { index: usize, category: String },
}

/// The placements of a painting session and everything needed to add to them
/// deterministically: the seeded generator, the spacing index and the FIFO cap.
#[derive(Clone, Debug)]
pub struct Painter {
    rng: Mulberry32,
    live: BTreeMap<PlacementId, Placement>,
    spacing: SpacingIndex,
    next_id: u64,
    cap: usize,
}

impl Painter {
    /// A painter whose every draw comes from `seed`, holding at most `cap` placements
    /// (at least one).
    pub fn new(seed: u32, cap: usize) -> Self {
        Self {
            rng: Mulberry32::new(seed),
            live: BTreeMap::new(),
            spacing: SpacingIndex::default(),
            next_id: 0,
            cap: cap.max(1),
        }
    }

    /// A painter holding `placements`, numbered afresh in the order given (acceptance
    /// asks only whether a placement is near, never its id), new ones after them: what a
    /// fill's tile is accepted against. Its generator is never drawn from.
    pub(crate) fn holding(cap: usize, placements: impl IntoIterator<Item = Placement>) -> Self {
        let mut painter = Self::new(0, cap);
        for mut placement in placements {
            placement.id = PlacementId(painter.next_id);
            painter.next_id += 1;
            painter.insert(placement);
        }
        painter
    }

    /// Accepts candidates in order, as [`Painter::fill`] does, with no cap and nothing
    /// erased, each given with its index among its tile's: each placement made, beside
    /// that index (which names it whatever else was accepted).
    pub(crate) fn accept_each<'a>(
        &mut self,
        catalog: &Catalog,
        candidates: impl IntoIterator<Item = (usize, &'a Candidate)>,
    ) -> Vec<(usize, Placement)> {
        let mut made = Vec::new();
        for (index, candidate) in candidates {
            if self.has_room(catalog, candidate) {
                made.push((index, self.place(catalog, candidate)));
            }
        }
        made
    }

    pub fn len(&self) -> usize {
        self.live.len()
    }

    pub fn is_empty(&self) -> bool {
        self.live.is_empty()
    }

    pub fn cap(&self) -> usize {
        self.cap
    }

    /// Live placements in creation order.
    pub fn placements(&self) -> impl ExactSizeIterator<Item = &Placement> {
        self.live.values()
    }

    pub fn get(&self, id: PlacementId) -> Option<&Placement> {
        self.live.get(&id)
    }

    /// BLAKE3 of every live placement's exact bytes, in creation order.
    pub fn digest(&self) -> String {
        let mut bytes = Vec::with_capacity(self.live.len() * 64);
        for p in self.live.values() {
            p.write_identity(&mut bytes);
        }
        blake3::hash(&bytes).to_hex().to_string()
    }

    /// Scatters one brush dab of `preset` at `center`, recording changes in `edit`.
    ///
    /// All random draws for the dab are taken first, then candidates are evaluated
    /// (in parallel when there are many), then accepted in draw order against the
    /// spacing index. Nothing here waits on assets, so load timing cannot change the
    /// result.
    pub fn dab(
        &mut self,
        terrain: &Terrain,
        catalog: &Catalog,
        preset: &Preset,
        center: Vec2,
        brush: BrushSettings,
        edit: &mut Edit,
    ) -> Result<StrokeReport, BrushError> {
        let started = Instant::now();
        check_brush(center, brush)?;
        let picks =
            bind_picks(preset, catalog).map_err(|UnknownCategory { index, category }| {
                BrushError::UnknownCategory { index, category }
            })?;
        let area = std::f32::consts::PI * brush.radius * brush.radius;
        let candidates = (brush.density_per_m2 * area).round() as usize;
        let draws: Vec<Draws> = (0..candidates)
            .map(|_| Draws::next(&mut self.rng))
            .collect();
        let dab = Dab {
            placer: Placer {
                terrain,
                catalog,
                picks: &picks,
            },
            center,
            radius: brush.radius,
        };
        let outcomes: Vec<_> = if candidates >= PARALLEL_CANDIDATES {
            draws.par_iter().map(|d| dab.evaluate(d)).collect()
        } else {
            draws.iter().map(|d| dab.evaluate(d)).collect()
        };

        let mut report = StrokeReport {
            candidates: candidates as u32,
            ..Default::default()
        };
        // Placements of this very dab that the cap evicted again, oldest first; they
        // leave `edit.added` in one pass at the end.
        let mut evicted_own = Vec::new();
        for outcome in outcomes {
            let candidate = match outcome {
                Ok(c) if self.has_room(catalog, &c) => c,
                Ok(_) => {
                    report.rejected.count(Rejection::Spacing);
                    continue;
                }
                Err(reason) => {
                    report.rejected.count(reason);
                    continue;
                }
            };
            if self.live.len() >= self.cap {
                self.evict_oldest(edit, &mut evicted_own);
                report.evicted += 1;
            }
            edit.added.push(self.place(catalog, &candidate));
            report.placed += 1;
        }
        drop_ids(&mut edit.added, &evicted_own);
        report.micros = started.elapsed().as_micros() as u64;
        Ok(report)
    }

    /// Accepts a fill's candidates in their plan's order, as a dab accepts its own: each
    /// one that keeps its family's spacing becomes a placement. A fill never evicts: when
    /// the cap is reached, everything it placed is taken back (ids included, so later
    /// strokes number their placements as if it never ran) and the error says so.
    /// Candidates `erased` accepts are rejected as erased (a re-run fill keeps the
    /// clearings erase strokes made in it).
    pub fn fill(
        &mut self,
        catalog: &Catalog,
        plan: &FillPlan,
        erased: impl Fn(&str, Vec2) -> bool,
        edit: &mut Edit,
    ) -> Result<StrokeReport, FillError> {
        let started = Instant::now();
        let mut report = plan.report;
        let (first_id, live_before) = (self.next_id, self.live.len());
        let mut added: Vec<Placement> = Vec::new();
        for (index, candidate) in plan.candidates.iter().enumerate() {
            let category = &catalog.categories()[candidate.category].name;
            if erased(category, candidate.position.xz()) {
                report.rejected.count(Rejection::Erased);
                continue;
            }
            if !self.has_room(catalog, candidate) {
                report.rejected.count(Rejection::Spacing);
                continue;
            }
            if self.live.len() >= self.cap {
                for placement in added.iter().rev() {
                    self.take(placement.id);
                }
                self.next_id = first_id;
                return Err(FillError::Cap {
                    cap: self.cap,
                    live: live_before,
                    placed: added.len(),
                    unplaced: plan.candidates.len() - index,
                });
            }
            added.push(self.place(catalog, candidate));
            report.placed += 1;
        }
        edit.added.extend(added);
        report.micros += started.elapsed().as_micros() as u64;
        Ok(report)
    }

    /// Removes the live placements with ids in `ids` that `chosen` accepts, in id order.
    pub fn remove_where(
        &mut self,
        ids: std::ops::Range<PlacementId>,
        chosen: impl Fn(&Placement) -> bool,
        edit: &mut Edit,
    ) {
        let gone: Vec<PlacementId> = self
            .live
            .range(ids)
            .filter(|(_, p)| chosen(p))
            .map(|(&id, _)| id)
            .collect();
        for id in gone {
            if let Some(p) = self.take(id) {
                edit.removed.push(p);
            }
        }
    }

    /// The id the next placement will get.
    pub fn next_id(&self) -> PlacementId {
        PlacementId(self.next_id)
    }

    /// Removes every placement whose base lies within `radius` of `center` and whose
    /// category `erases_category` accepts; returns how many went.
    pub fn erase(
        &mut self,
        center: Vec2,
        radius: f32,
        erases_category: impl Fn(&str) -> bool,
        edit: &mut Edit,
    ) -> usize {
        let mut ids = self.spacing.within(center, radius);
        ids.sort_unstable();
        let before = edit.removed.len();
        for id in ids {
            if self
                .live
                .get(&id)
                .is_some_and(|p| erases_category(&p.category))
            {
                if let Some(p) = self.take(id) {
                    edit.removed.push(p);
                }
            }
        }
        edit.removed.len() - before
    }

    /// Applies an edit recorded earlier (redo), or its inverse (undo).
    pub fn apply(&mut self, edit: &Edit) {
        for p in &edit.removed {
            self.take(p.id);
        }
        for p in &edit.added {
            self.insert(p.clone());
        }
    }

    /// Whether no placement of the candidate's family is closer than its spacing.
    fn has_room(&self, catalog: &Catalog, candidate: &Candidate) -> bool {
        !self.spacing.any_within(
            family_of(catalog, candidate),
            candidate.position.xz(),
            candidate.min_spacing,
        )
    }

    /// Makes `candidate` a live placement with the next id.
    fn place(&mut self, catalog: &Catalog, candidate: &Candidate) -> Placement {
        let category = &catalog.categories()[candidate.category];
        let placement = Placement {
            id: PlacementId(self.next_id),
            prop: catalog.props()[candidate.prop].id.clone(),
            category: category.name.clone(),
            family: category.family.clone(),
            position: candidate.position,
            rotation: candidate.rotation,
            scale: candidate.scale,
        };
        self.next_id += 1;
        self.insert(placement.clone());
        placement
    }

    /// Puts `placements` (kept elsewhere, with ids of their own) in the spacing index
    /// only: accepted against, never live, never evicted; until
    /// [`Painter::stand_out`].
    pub(crate) fn stand_in(&mut self, placements: &[Placement]) {
        for p in placements {
            self.spacing.insert(&p.family, p.id, p.position.xz());
        }
    }

    /// Takes `placements` put in by [`Painter::stand_in`] out of the spacing index.
    pub(crate) fn stand_out(&mut self, placements: &[Placement]) {
        for p in placements {
            self.spacing.remove(&p.family, p.id, p.position.xz());
        }
    }

    fn insert(&mut self, placement: Placement) {
        self.spacing
            .insert(&placement.family, placement.id, placement.position.xz());
        self.live.insert(placement.id, placement);
    }

    fn take(&mut self, id: PlacementId) -> Option<Placement> {
        let placement = self.live.remove(&id)?;
        self.spacing
            .remove(&placement.family, id, placement.position.xz());
        Some(placement)
    }

    /// Evicts the oldest placement. One made earlier in this same edit simply never
    /// happened: its id goes to `evicted_own` (to leave `edit.added` later) instead of
    /// into `edit.removed`.
    fn evict_oldest(&mut self, edit: &mut Edit, evicted_own: &mut Vec<PlacementId>) {
        let Some((&oldest, _)) = self.live.first_key_value() else {
            return;
        };
        let placement = self.take(oldest).expect("the first key is live");
        // `added` is in creation order, so in id order.
        match edit.added.binary_search_by_key(&oldest, |p| p.id) {
            Ok(_) => evicted_own.push(oldest),
            Err(_) => edit.removed.push(placement),
        }
    }
}

/// Removes the placements whose ids are in `ids` (sorted) from `placements`, in one
/// pass: removing them one by one from the front shifted the rest each time, quadratic
/// in a dab or stroke that overflows the cap.
pub(crate) fn drop_ids(placements: &mut Vec<Placement>, ids: &[PlacementId]) {
    if !ids.is_empty() {
        placements.retain(|p| ids.binary_search(&p.id).is_err());
    }
}

fn family_of<'a>(catalog: &'a Catalog, candidate: &Candidate) -> &'a str {
    &catalog.categories()[candidate.category].family
}

fn check_brush(center: Vec2, brush: BrushSettings) -> Result<(), BrushError> {
    if !center.is_finite() {
        return Err(BrushError::Center {
            x: center.x,
            z: center.y,
        });
    }
    if !(brush.radius.is_finite() && brush.radius > 0.0 && brush.radius <= MAX_RADIUS) {
        return Err(BrushError::Radius {
            radius: brush.radius,
        });
    }
    let density = brush.density_per_m2;
    if !(density.is_finite() && density > 0.0 && density <= MAX_DENSITY) {
        return Err(BrushError::Density { density });
    }
    Ok(())
}

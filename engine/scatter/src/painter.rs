use std::collections::BTreeMap;
use std::time::Instant;

use glam::{Vec2, Vec3Swizzles};
use rayon::prelude::*;
use sylva_catalog::Catalog;
use sylva_terrain::Terrain;
use thiserror::Error;

use crate::candidate::{BoundPick, Candidate, Dab, Draws};
use crate::placement::{Placement, PlacementId};
use crate::preset::{BrushSettings, Preset, MAX_DENSITY, MAX_RADIUS};
use crate::report::{Rejection, StrokeReport};
use crate::rng::Mulberry32;
use crate::spacing::SpacingIndex;

/// The prototype's placement cap.
pub const DEFAULT_PLACEMENT_CAP: usize = 2_500;
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
        let picks = bind_picks(preset, catalog)?;
        let area = std::f32::consts::PI * brush.radius * brush.radius;
        let candidates = (brush.density_per_m2 * area).round() as usize;
        let draws: Vec<Draws> = (0..candidates)
            .map(|_| Draws::next(&mut self.rng))
            .collect();
        let dab = Dab {
            terrain,
            catalog,
            picks: &picks,
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
                Ok(c)
                    if !self.spacing.any_within(
                        family_of(catalog, &c),
                        c.position.xz(),
                        c.min_spacing,
                    ) =>
                {
                    c
                }
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
            edit.added.push(placement);
            report.placed += 1;
        }
        drop_ids(&mut edit.added, &evicted_own);
        report.micros = started.elapsed().as_micros() as u64;
        Ok(report)
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

fn bind_picks<'a>(preset: &'a Preset, catalog: &Catalog) -> Result<Vec<BoundPick<'a>>, BrushError> {
    preset
        .picks
        .iter()
        .enumerate()
        .map(|(index, pick)| {
            let category = catalog.category_index(&pick.category).ok_or_else(|| {
                BrushError::UnknownCategory {
                    index,
                    category: pick.category.clone(),
                }
            })?;
            Ok(BoundPick { pick, category })
        })
        .collect()
}

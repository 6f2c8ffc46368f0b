//! The live side of a session: applies brush events to a [`Painter`], keeps undo and
//! redo stacks of whole strokes, and records every completed event in the journal.
//! Replaying a journal goes through the same code as painting live.

use std::collections::BTreeMap;
use std::ops::{ControlFlow, Range};

use glam::Vec2;
use sylva_catalog::{Catalog, CatalogSnapshot};
use sylva_terrain::Terrain;

use crate::fill::{
    check_streamed, plan, plan_tile, FillError, FillOrder, FillPlan, FillRequest, TileGrid,
};
use crate::painter::{check_cap, drop_ids, Edit, Painter};
use crate::placement::{Placement, PlacementId};
use crate::preset::{BrushSettings, Preset, MAX_RADIUS};
use crate::report::StrokeReport;
use crate::session::{self, Event, Session, SessionError};

/// A stroke between pointer-down and pointer-up.
#[derive(Clone, Debug)]
struct OpenStroke {
    kind: StrokeKind,
    dabs: Vec<(f32, f32)>,
    edit: Edit,
    report: StrokeReport,
    /// Set when the stroke took placements from streamed fills.
    streamed: Option<StreamedEdit>,
}

#[derive(Clone, Debug)]
enum StrokeKind {
    Paint {
        preset: String,
        brush: BrushSettings,
    },
    Erase {
        radius: f32,
        only_preset: Option<String>,
    },
}

/// What one event (or dab) changed, for whoever mirrors the placements.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Applied {
    pub edit: Edit,
    /// For paint strokes and dabs.
    pub report: Option<StrokeReport>,
}

pub struct Editor {
    journal: Session,
    catalog: Catalog,
    /// Counts catalog changes, so a fill planned before one is not accepted after it.
    catalog_generation: u64,
    painter: Painter,
    undo: Vec<Undoable>,
    redo: Vec<Undoable>,
    open: Option<OpenStroke>,
    /// Every fill in journal order (re-runs join the fill they replace).
    fills: Vec<Fill>,
    /// Every erase stroke that removed something, in order, and whether it stands
    /// (undone, it does not): a re-run fill keeps the clearings made in it.
    erasures: Vec<Erasure>,
    /// Every streamed fill recorded, in order: where it places what.
    streamed_fills: Vec<StreamedRegion>,
}

/// Where a streamed fill places, for the next one to stay apart from it.
#[derive(Clone, Debug)]
struct StreamedRegion {
    families: Vec<String>,
    /// Its region's bounds, grown by its widest spacing.
    low: Vec2,
    high: Vec2,
    /// Its journal event, for errors.
    event: usize,
}

/// One entry of the undo or redo stack: what changed, the erase stroke it was, and
/// what it changed in streamed fills.
#[derive(Clone, Debug)]
struct Undoable {
    edit: Edit,
    erasure: Option<usize>,
    streamed: Option<StreamedEdit>,
}

/// What an undo step changes in streamed fills, whose placements the editor does not
/// hold: numbered by whoever streams them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StreamedEdit {
    /// A streamed fill, by its place among the journal's streamed fills.
    Fill(usize),
    /// An erase stroke that took placements of streamed fills, by the number the
    /// streaming side gave it ([`Editor::mark_stroke_streamed`]).
    Erase(usize),
}

/// One undo or redo: what changed in the placements the editor holds, and in streamed
/// fills.
#[derive(Clone, Debug, Default)]
pub struct Step {
    pub edit: Edit,
    pub streamed: Option<StreamedEdit>,
}

#[derive(Clone, Debug)]
struct Fill {
    /// The id ranges of the placements it made. Ids are never reused, so they name
    /// exactly this fill's placements, whatever was erased, undone or redone since.
    made: Vec<Range<PlacementId>>,
    /// Erasures from this index on came after the fill.
    erasures_after: usize,
}

#[derive(Clone, Debug)]
struct Erasure {
    radius: f32,
    dabs: Vec<Vec2>,
    /// Only these categories were erased; all when `None`.
    categories: Option<Vec<String>>,
    stands: bool,
}

impl Erasure {
    fn covers(&self, category: &str, at: Vec2) -> bool {
        self.stands
            && self
                .categories
                .as_ref()
                .is_none_or(|c| c.iter().any(|n| n == category))
            && self
                .dabs
                .iter()
                .any(|d| d.distance_squared(at) <= self.radius * self.radius)
    }
}

/// Everything a fill needs except the terrain, owned, so its candidates can be planned
/// on another thread while the editor goes on; [`Editor::commit_fill`] accepts them.
#[derive(Clone, Debug)]
pub struct FillJob {
    pub request: FillRequest,
    preset: Preset,
    catalog: Catalog,
    catalog_generation: u64,
    density: f32,
    seed: u32,
}

impl FillJob {
    /// Evaluates the fill's candidates on `terrain` (the session's).
    pub fn plan(
        &self,
        terrain: &Terrain,
        progress: &mut dyn FnMut(usize, usize) -> ControlFlow<()>,
    ) -> Result<FillPlan, FillError> {
        plan(
            terrain,
            &self.catalog,
            &self.preset,
            &self.request.region,
            self.density,
            self.seed,
            self.request.order,
            progress,
        )
    }

    /// The candidates of `tile` of a fill in [`FillOrder::Tiles`]: accepted after what
    /// stood before the fill and what its earlier neighbours made, the placements the
    /// whole fill makes there ([`crate::TileSource`] does that).
    pub fn plan_tile(
        &self,
        terrain: &Terrain,
        tile: (usize, usize),
    ) -> Result<FillPlan, FillError> {
        plan_tile(
            terrain,
            &self.catalog,
            &self.preset,
            &self.request.region,
            self.density,
            self.seed,
            tile,
        )
    }

    /// The spacing families the fill's picks place (once each).
    pub fn families(&self) -> impl Iterator<Item = &str> {
        let mut families: Vec<&str> = self
            .preset
            .picks
            .iter()
            .filter_map(|pick| self.catalog.category(&pick.category))
            .map(|category| &*category.family)
            .collect();
        families.sort_unstable();
        families.dedup();
        families.into_iter()
    }

    /// The catalog the fill was planned with.
    pub fn catalog(&self) -> &Catalog {
        &self.catalog
    }

    /// The tiles the fill's candidates are grouped in under [`FillOrder::Tiles`](crate::FillOrder::Tiles).
    pub fn tiles(&self, terrain: &Terrain) -> TileGrid {
        TileGrid::new(terrain, &self.preset)
    }

    /// The preset the fill places.
    pub fn preset(&self) -> &Preset {
        &self.preset
    }

    /// Candidates per square metre.
    pub fn density(&self) -> f32 {
        self.density
    }
}

impl Editor {
    /// Starts an empty session from the header of `session` (its events are ignored).
    pub fn new(session: &Session) -> Result<Self, SessionError> {
        check_cap(session.placement_cap).map_err(|e| SessionError::Brush {
            path: "placement_cap".into(),
            message: e.to_string(),
        })?;
        let catalog = resolve(&session.catalog, "catalog")?;
        let mut journal = session.clone();
        journal.events.clear();
        Ok(Self {
            painter: Painter::new(session.seed, session.placement_cap),
            journal,
            catalog,
            catalog_generation: 0,
            undo: Vec::new(),
            redo: Vec::new(),
            open: None,
            fills: Vec::new(),
            streamed_fills: Vec::new(),
            erasures: Vec::new(),
        })
    }

    /// Replays a whole journal on `terrain`, returning the editor and each event's
    /// outcome.
    pub fn replay(
        session: &Session,
        terrain: &Terrain,
    ) -> Result<(Self, Vec<Applied>), SessionError> {
        let mut editor = Self::new(session)?;
        let outcomes = session
            .events
            .iter()
            .enumerate()
            .map(|(i, event)| editor.apply(terrain, event, &format!("events[{i}]")))
            .collect::<Result<_, _>>()?;
        Ok((editor, outcomes))
    }

    /// The journal of every completed event so far.
    pub fn session(&self) -> &Session {
        &self.journal
    }

    pub fn painter(&self) -> &Painter {
        &self.painter
    }

    pub fn catalog(&self) -> &Catalog {
        &self.catalog
    }

    pub fn can_undo(&self) -> bool {
        !self.undo.is_empty()
    }

    pub fn can_redo(&self) -> bool {
        !self.redo.is_empty()
    }

    /// Registers `preset` under `name` for later strokes and returns the name to paint
    /// with. A preset whose content changed since it was registered gets a fresh name
    /// (`name#2`, …) so earlier strokes still replay with the version they used.
    pub fn use_preset(&mut self, name: &str, preset: Preset) -> Result<String, SessionError> {
        preset
            .check_categories(&self.catalog, name)
            .map_err(|e| SessionError::Preset(Box::new(e)))?;
        let presets = &mut self.journal.presets;
        let key = (1..)
            .map(|n| {
                if n == 1 {
                    name.to_owned()
                } else {
                    format!("{name}#{n}")
                }
            })
            .find(|key| presets.get(key).is_none_or(|p| *p == preset))
            .expect("some suffix is free");
        presets.insert(key.clone(), preset);
        Ok(key)
    }

    /// Replaces the catalog for the strokes that follow (props added or removed).
    pub fn set_catalog(&mut self, snapshot: CatalogSnapshot) -> Result<(), SessionError> {
        self.catalog = resolve(&snapshot, "catalog")?;
        self.catalog_generation += 1;
        self.journal.events.push(Event::Catalog(snapshot));
        Ok(())
    }

    /// How many fills the journal holds (re-runs not counted): `replaces` numbers them.
    pub fn fill_count(&self) -> usize {
        self.fills.len()
    }

    /// Fills a region with a preset registered by [`Editor::use_preset`], as one
    /// undoable edit recorded in the journal. On any error nothing changes.
    pub fn fill(
        &mut self,
        terrain: &Terrain,
        request: &FillRequest,
        progress: &mut dyn FnMut(usize, usize) -> ControlFlow<()>,
    ) -> Result<Applied, SessionError> {
        let job = self.fill_job(request)?;
        let plan = job.plan(terrain, progress).map_err(fill_error)?;
        self.commit_fill(&job, &plan)
    }

    /// Checks a fill request and gathers what planning it needs.
    pub fn fill_job(&self, request: &FillRequest) -> Result<FillJob, SessionError> {
        let preset = self.preset(&request.preset, "preset")?;
        if let Some(fill) = request.replaces {
            if fill >= self.fills.len() {
                return Err(SessionError::Fill {
                    path: "replaces".into(),
                    message: format!(
                        "there is no fill {fill} to re-run (the session has {})",
                        self.fills.len()
                    ),
                });
            }
        }
        Ok(FillJob {
            request: request.clone(),
            density: request.density.unwrap_or(preset.brush.density_per_m2),
            preset: preset.clone(),
            catalog: self.catalog.clone(),
            catalog_generation: self.catalog_generation,
            seed: self.journal.seed,
        })
    }

    /// Accepts a planned fill: with `replaces`, that fill's placements inside the
    /// region leave first; then the candidates are accepted against the spacing of
    /// what is live. If the cap would be passed, everything is put back as it was.
    pub fn commit_fill(&mut self, job: &FillJob, plan: &FillPlan) -> Result<Applied, SessionError> {
        self.end_stroke();
        if job.catalog_generation != self.catalog_generation {
            return Err(SessionError::Fill {
                path: "catalog".into(),
                message: "the props changed while the fill was being planned; fill again".into(),
            });
        }
        let mut edit = Edit::default();
        let mut clearings: &[Erasure] = &[];
        if let Some(fill) = job.request.replaces {
            let fill = &self.fills[fill];
            for range in &fill.made {
                self.painter.remove_where(
                    range.clone(),
                    |p| plan.area().contains(p.position.x, p.position.z),
                    &mut edit,
                );
            }
            clearings = &self.erasures[fill.erasures_after..];
        }
        let first = self.painter.next_id();
        let erased = |category: &str, at: Vec2| clearings.iter().any(|e| e.covers(category, at));
        let report = match self.painter.fill(&self.catalog, plan, erased, &mut edit) {
            Ok(report) => report,
            Err(error) => {
                self.painter.apply(&Edit {
                    added: edit.removed,
                    removed: Vec::new(),
                });
                return Err(fill_error(error));
            }
        };
        let made = first..self.painter.next_id();
        match job.request.replaces {
            Some(fill) => self.fills[fill].made.push(made),
            None => self.fills.push(Fill {
                made: vec![made],
                erasures_after: self.erasures.len(),
            }),
        }
        self.journal
            .events
            .push(Event::fill(&job.request, &job.preset));
        self.push_undo(edit.clone(), None, None);
        Ok(Applied {
            edit,
            report: Some(report),
        })
    }

    /// Applies a journal event as [`Editor::apply`] does, except a streamed fill, which
    /// is recorded ([`Editor::record_streamed_fill`]) and its job returned: what a world
    /// that streams replays its journal with.
    pub fn apply_streaming(
        &mut self,
        terrain: &Terrain,
        event: &Event,
        path: &str,
    ) -> Result<(Applied, Option<FillJob>), SessionError> {
        let Event::Fill {
            preset,
            region,
            density,
            order,
            stream: true,
            preset_hash,
            replaces,
        } = event
        else {
            return Ok((self.apply(terrain, event, path)?, None));
        };
        self.check_preset_hash(preset, preset_hash.as_deref(), path)?;
        let request = FillRequest {
            preset: preset.clone(),
            region: region.clone(),
            density: *density,
            order: *order,
            stream: true,
            replaces: *replaces,
        };
        let job = self
            .record_streamed_fill(terrain, &request)
            .map_err(|e| e.at(path))?;
        Ok((Applied::default(), Some(job)))
    }

    /// Refuses a streamed fill that shares a spacing family with an earlier streamed
    /// fill (not undone) within its spacing: each streamed fill's tiles are made apart
    /// from the others', where the fills stored would space one against the other.
    fn check_apart(&self, region: &StreamedRegion) -> Result<(), SessionError> {
        for (index, earlier) in self.streamed_fills.iter().enumerate() {
            let live =
                (self.undo.iter()).any(|entry| entry.streamed == Some(StreamedEdit::Fill(index)));
            let meets =
                region.low.cmple(earlier.high).all() && earlier.low.cmple(region.high).all();
            let shared = region
                .families
                .iter()
                .find(|f| earlier.families.contains(f));
            if let (true, true, Some(family)) = (live, meets, shared) {
                return Err(SessionError::Fill {
                    path: "region".into(),
                    message: format!(
                        "the streamed fill of events[{}] places family `{family}` near this region; \
                         streamed fills are made apart from each other, so two spacing the same \
                         family against each other would differ from the same fills stored: \
                         stream regions apart, or make one of them a stored fill",
                        earlier.event
                    ),
                });
            }
        }
        Ok(())
    }

    /// Refuses a streamed fill whose preset changed since it was journalled.
    fn check_preset_hash(
        &self,
        preset: &str,
        recorded: Option<&str>,
        path: &str,
    ) -> Result<(), SessionError> {
        let Some(recorded) = recorded else {
            return Ok(());
        };
        let now = session::preset_hash(self.preset(preset, &format!("{path}.preset"))?);
        if now != recorded {
            return Err(SessionError::Fill {
                path: format!("{path}.preset_hash"),
                message: format!(
                    "preset `{preset}` changed since the fill was streamed with it \
                     (recorded {recorded}, now {now}): its tiles would differ"
                ),
            });
        }
        Ok(())
    }

    /// A preset registered under `name` ([`Editor::use_preset`]).
    pub fn registered_preset(&self, name: &str) -> Option<&Preset> {
        self.journal.presets.get(name)
    }

    /// Records a streamed fill without making it: the request is checked (preset,
    /// density, region; its candidates are not counted, as it is never made whole) and
    /// journalled, and its job returned for a [`crate::TileSource`]. Replaying the
    /// journal makes it like any other fill. It takes an undo step, as the fill made
    /// whole would.
    pub fn record_streamed_fill(
        &mut self,
        terrain: &Terrain,
        request: &FillRequest,
    ) -> Result<FillJob, SessionError> {
        if !request.stream || request.order != FillOrder::Tiles || request.replaces.is_some() {
            return Err(SessionError::Fill {
                path: "stream".into(),
                message: "a streamed fill is a new fill accepted in tiles (it re-runs none)".into(),
            });
        }
        self.end_stroke();
        let job = self.fill_job(request)?;
        let area = check_streamed(terrain, &request.region, job.density).map_err(fill_error)?;
        let spacing = job.preset.widest_spacing();
        let (low, high) = area.bounds();
        let region = StreamedRegion {
            families: job.families().map(str::to_owned).collect(),
            low: low - Vec2::splat(spacing),
            high: high + Vec2::splat(spacing),
            event: self.journal.events.len(),
        };
        self.check_apart(&region)?;
        self.fills.push(Fill {
            made: Vec::new(),
            erasures_after: self.erasures.len(),
        });
        self.journal.events.push(Event::fill(request, &job.preset));
        self.undo.push(Undoable {
            edit: Edit::default(),
            erasure: None,
            streamed: Some(StreamedEdit::Fill(self.streamed_fills.len())),
        });
        self.streamed_fills.push(region);
        self.redo.clear();
        Ok(job)
    }

    /// Starts a paint stroke with a preset registered by [`Editor::use_preset`].
    pub fn begin_paint(&mut self, preset: &str, brush: BrushSettings) -> Result<(), SessionError> {
        self.preset(preset, "preset")?;
        self.begin(StrokeKind::Paint {
            preset: preset.to_owned(),
            brush,
        });
        Ok(())
    }

    /// Starts an erase stroke; with `only_preset`, only that preset's categories go.
    pub fn begin_erase(
        &mut self,
        radius: f32,
        only_preset: Option<&str>,
    ) -> Result<(), SessionError> {
        if let Some(name) = only_preset {
            self.preset(name, "only_preset")?;
        }
        // Bounded like the paint brush: an erase dab visits every spatial-hash cell of
        // its disc, so a journal asking for a huge radius would never finish replaying.
        if !(radius.is_finite() && radius > 0.0 && radius <= MAX_RADIUS) {
            return Err(SessionError::Brush {
                path: "radius".into(),
                message: format!("erase radius {radius} must be in (0, {MAX_RADIUS}] metres"),
            });
        }
        self.begin(StrokeKind::Erase {
            radius,
            only_preset: only_preset.map(str::to_owned),
        });
        Ok(())
    }

    fn begin(&mut self, kind: StrokeKind) {
        self.end_stroke();
        self.open = Some(OpenStroke {
            kind,
            dabs: Vec::new(),
            edit: Edit::default(),
            report: StrokeReport::default(),
            streamed: None,
        });
    }

    /// Runs `edit` with `streamed` (placements of streamed fills, which the editor does
    /// not hold; their ids apart from the session's) standing in the spacing: strokes
    /// and fills made in it are accepted against them as against stored ones, while
    /// they are never live, stored or evicted.
    pub fn with_streamed<T>(
        &mut self,
        streamed: &[Placement],
        edit: impl FnOnce(&mut Self) -> T,
    ) -> T {
        self.painter.stand_in(streamed);
        let result = edit(self);
        self.painter.stand_out(streamed);
        result
    }

    /// Marks the open erase stroke as one that took placements of streamed fills (which
    /// the editor does not hold): it becomes an undo step of its own even if it took no
    /// stored placement, as the same erase over the fills stored would be.
    pub fn mark_stroke_streamed(&mut self, erase: usize) {
        if let Some(stroke) = &mut self.open {
            stroke.streamed = Some(StreamedEdit::Erase(erase));
        }
    }

    /// Applies one dab of the open stroke at world `(x, z)`.
    pub fn dab(&mut self, terrain: &Terrain, at: Vec2) -> Result<Applied, SessionError> {
        let Some(mut stroke) = self.open.take() else {
            return Err(SessionError::Brush {
                path: "dab".into(),
                message: "no stroke is open".into(),
            });
        };
        let result = self.dab_into(terrain, at, &mut stroke);
        self.open = Some(stroke);
        result
    }

    fn dab_into(
        &mut self,
        terrain: &Terrain,
        at: Vec2,
        stroke: &mut OpenStroke,
    ) -> Result<Applied, SessionError> {
        let mut edit = Edit::default();
        let report = match &stroke.kind {
            StrokeKind::Paint { preset, brush } => {
                let preset = find_preset(&self.journal.presets, preset, "preset")?;
                let report = self
                    .painter
                    .dab(terrain, &self.catalog, preset, at, *brush, &mut edit)
                    .map_err(|e| SessionError::Brush {
                        path: "dab".into(),
                        message: e.to_string(),
                    })?;
                stroke.report += report;
                Some(report)
            }
            StrokeKind::Erase {
                radius,
                only_preset,
            } => {
                if !at.is_finite() {
                    return Err(SessionError::Brush {
                        path: "dab".into(),
                        message: format!("erase centre ({}, {}) is not finite", at.x, at.y),
                    });
                }
                let categories: Option<Vec<String>> = match only_preset {
                    Some(name) => Some(
                        self.preset(name, "only_preset")?
                            .picks
                            .iter()
                            .map(|p| p.category.clone())
                            .collect(),
                    ),
                    None => None,
                };
                let erases = |category: &str| {
                    categories
                        .as_ref()
                        .is_none_or(|c| c.iter().any(|n| n == category))
                };
                self.painter.erase(at, *radius, erases, &mut edit);
                None
            }
        };
        stroke.dabs.push((at.x, at.y));
        merge(&mut stroke.edit, &edit);
        Ok(Applied { edit, report })
    }

    /// Closes the open stroke, recording it for undo and in the journal; returns its
    /// summed report for paint strokes.
    pub fn end_stroke(&mut self) -> Option<StrokeReport> {
        let stroke = self.open.take()?;
        let report = matches!(stroke.kind, StrokeKind::Paint { .. }).then_some(stroke.report);
        let mut erasure = None;
        let took = !stroke.edit.is_empty() || stroke.streamed.is_some();
        if let StrokeKind::Erase {
            radius,
            only_preset,
        } = &stroke.kind
        {
            if took {
                let categories = only_preset.as_ref().map(|name| {
                    self.journal.presets[name]
                        .picks
                        .iter()
                        .map(|p| p.category.clone())
                        .collect()
                });
                erasure = Some(self.erasures.len());
                self.erasures.push(Erasure {
                    radius: *radius,
                    dabs: stroke.dabs.iter().map(|&(x, z)| Vec2::new(x, z)).collect(),
                    categories,
                    stands: true,
                });
            }
        }
        self.journal.events.push(match stroke.kind {
            StrokeKind::Paint { preset, brush } => Event::Paint {
                preset,
                brush,
                dabs: stroke.dabs,
            },
            StrokeKind::Erase {
                radius,
                only_preset,
            } => Event::Erase {
                radius,
                dabs: stroke.dabs,
                only_preset,
            },
        });
        self.push_undo(stroke.edit, erasure, stroke.streamed);
        report
    }

    fn push_undo(&mut self, edit: Edit, erasure: Option<usize>, streamed: Option<StreamedEdit>) {
        if !edit.is_empty() || streamed.is_some() {
            self.undo.push(Undoable {
                edit,
                erasure,
                streamed,
            });
            self.redo.clear();
        }
    }

    /// Takes back the last stroke; returns what changed.
    pub fn undo(&mut self) -> Option<Edit> {
        self.undo_step().map(|step| step.edit)
    }

    /// Takes back the last stroke; returns what changed, in streamed fills too.
    pub fn undo_step(&mut self) -> Option<Step> {
        self.end_stroke();
        let entry = self.undo.pop()?;
        let inverse = entry.edit.inverse();
        self.painter.apply(&inverse);
        self.set_standing(entry.erasure, false);
        let streamed = entry.streamed;
        self.redo.push(entry);
        self.journal.events.push(Event::Undo);
        Some(Step {
            edit: inverse,
            streamed,
        })
    }

    /// Puts back the last undone stroke; returns what changed.
    pub fn redo(&mut self) -> Option<Edit> {
        self.redo_step().map(|step| step.edit)
    }

    /// Puts back the last undone stroke; returns what changed, in streamed fills too.
    pub fn redo_step(&mut self) -> Option<Step> {
        self.end_stroke();
        let entry = self.redo.pop()?;
        self.painter.apply(&entry.edit);
        self.set_standing(entry.erasure, true);
        let step = Step {
            edit: entry.edit.clone(),
            streamed: entry.streamed,
        };
        self.undo.push(entry);
        self.journal.events.push(Event::Redo);
        Some(step)
    }

    fn set_standing(&mut self, erasure: Option<usize>, stands: bool) {
        if let Some(index) = erasure {
            self.erasures[index].stands = stands;
        }
    }

    /// Applies a journal event as if a user had performed it.
    pub fn apply(
        &mut self,
        terrain: &Terrain,
        event: &Event,
        path: &str,
    ) -> Result<Applied, SessionError> {
        let locate = |e: SessionError| e.at(path);
        match event {
            Event::Paint {
                preset,
                brush,
                dabs,
            } => {
                self.begin_paint(preset, *brush).map_err(locate)?;
                self.run_dabs(terrain, dabs).map_err(locate)
            }
            Event::Erase {
                radius,
                dabs,
                only_preset,
            } => {
                self.begin_erase(*radius, only_preset.as_deref())
                    .map_err(locate)?;
                self.run_dabs(terrain, dabs).map_err(locate)
            }
            Event::Fill {
                preset,
                region,
                density,
                order,
                stream,
                preset_hash,
                replaces,
            } => {
                self.check_preset_hash(preset, preset_hash.as_deref(), path)?;
                let request = FillRequest {
                    preset: preset.clone(),
                    region: region.clone(),
                    density: *density,
                    order: *order,
                    stream: *stream,
                    replaces: *replaces,
                };
                self.fill(terrain, &request, &mut |_, _| ControlFlow::Continue(()))
                    .map_err(locate)
            }
            Event::Undo => Ok(Applied {
                edit: self.undo().unwrap_or_default(),
                report: None,
            }),
            Event::Redo => Ok(Applied {
                edit: self.redo().unwrap_or_default(),
                report: None,
            }),
            Event::Catalog(snapshot) => {
                self.catalog = resolve(snapshot, &format!("{path}.Catalog"))?;
                self.catalog_generation += 1;
                self.journal.events.push(event.clone());
                Ok(Applied::default())
            }
        }
    }

    fn run_dabs(
        &mut self,
        terrain: &Terrain,
        dabs: &[(f32, f32)],
    ) -> Result<Applied, SessionError> {
        for &(x, z) in dabs {
            self.dab(terrain, Vec2::new(x, z))?;
        }
        let edit = self.open_edit();
        let report = self.end_stroke();
        Ok(Applied { edit, report })
    }

    /// What the open stroke changed so far (nothing when none is open).
    pub fn open_edit(&self) -> Edit {
        self.open
            .as_ref()
            .map(|s| s.edit.clone())
            .unwrap_or_default()
    }

    fn preset(&self, name: &str, field: &str) -> Result<&Preset, SessionError> {
        find_preset(&self.journal.presets, name, field)
    }
}

fn find_preset<'a>(
    presets: &'a BTreeMap<String, Preset>,
    name: &str,
    field: &str,
) -> Result<&'a Preset, SessionError> {
    presets
        .get(name)
        .ok_or_else(|| SessionError::UnknownPreset {
            path: field.to_owned(),
            name: name.to_owned(),
        })
}

/// Folds `next` into `total`: a placement added and removed within one stroke (evicted
/// by the cap) is neither.
fn merge(total: &mut Edit, next: &Edit) {
    // `total.added` is in creation order, so in id order.
    let mut evicted_own = Vec::new();
    for p in &next.removed {
        match total.added.binary_search_by_key(&p.id, |a| a.id) {
            Ok(_) => evicted_own.push(p.id),
            Err(_) => total.removed.push(p.clone()),
        }
    }
    evicted_own.sort_unstable();
    drop_ids(&mut total.added, &evicted_own);
    total.added.extend(next.added.iter().cloned());
}

/// A fill error as the journal reports it: the region's problems under `region`.
fn fill_error(error: FillError) -> SessionError {
    let field = match error {
        FillError::Density { .. } => "density",
        FillError::UnknownCategory { .. } => "preset",
        FillError::Cap { .. } | FillError::Cancelled | FillError::TooManyCandidates { .. } => {
            "fill"
        }
        _ => "region",
    };
    SessionError::Fill {
        path: field.into(),
        message: error.to_string(),
    }
}

fn resolve(snapshot: &CatalogSnapshot, path: &str) -> Result<Catalog, SessionError> {
    snapshot
        .resolve()
        .map(|(catalog, _)| catalog)
        .map_err(|e| SessionError::Catalog {
            path: path.to_owned(),
            message: e.to_string(),
        })
}

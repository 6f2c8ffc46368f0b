//! A painting session on the CPU: the terrain, the scatter [`Editor`] (placements and
//! their journal), the [`PlacementRegistry`] that holds their instances in
//! (prop, part, lod) buckets, and the [`LodController`]. Every edit the brush makes is
//! mirrored into the registry here, so a renderer only drains the registry's changes.
//!
//! Pure: no GPU, no files, no clocks (time comes in with each LOD tick).

use std::ops::ControlFlow;
use std::sync::Arc;

use glam::{Vec2, Vec3};
use rustc_hash::{FxHashMap, FxHashSet};
use sylva_buckets::{scale_of, Member, PlacementRegistry, PropKey, PropShape, RegistryError};
use sylva_lod::{LodConfig, LodConfigError, LodController, LodFades, PropLod, TickStats, Viewport};
use sylva_scatter::{
    Applied, Area, BrushSettings, Edit, Editor, Event, FillJob, FillPlan, FillRequest, Placement,
    Session, SessionError, Step, StreamedEdit, TileSource,
};
use sylva_terrain::Terrain;
use thiserror::Error;

mod spot;
pub mod stream;
mod walk;

pub use walk::FillWalk;

use spot::SpotTiles;
use stream::{
    Erasure, StreamChanges, StreamError, StreamSettings, StreamStats, TileStreamer,
    MAX_STREAMED_FILLS,
};

#[derive(Debug, Error)]
pub enum WorldError {
    #[error(transparent)]
    Session(#[from] SessionError),
    #[error(transparent)]
    Registry(#[from] RegistryError),
    #[error(transparent)]
    Lod(#[from] LodConfigError),
    #[error(transparent)]
    Stream(#[from] StreamError),
}

pub struct World {
    /// Shared, so a fill can be planned on another thread while painting goes on.
    terrain: Arc<Terrain>,
    editor: Editor,
    registry: PlacementRegistry,
    lod: LodController,
    keys: FxHashMap<Arc<str>, PropKey>,
    /// Whether journalled streamed fills are left to stream (else they are made whole).
    streams: bool,
    streamed: Vec<StreamedFill>,
    /// Erase strokes over streamed fills so far, and those undone.
    erase_strokes: usize,
    undone_erases: FxHashSet<usize>,
    /// The erase or paint stroke open, in a world that streams.
    open_erase: Option<OpenErase>,
    open_paint: Option<Acceptance>,
    /// Streamed tiles made on this thread for edits.
    spot: SpotTiles,
    /// Placements of streamed tiles that arrived late, fading in, and when their fade
    /// began (NaN until the next LOD tick gives the time).
    fading_in: Vec<(u64, f64)>,
    /// How the streams were started, to start a fill again when it is redone, the
    /// reach they were started with, and whether what the reach follows from (props'
    /// descriptions, the viewport, the tolerance) changed since.
    started: Option<StreamStart>,
    started_reach: Vec<FamilyReach>,
    reach_stale: bool,
    /// Streamed tiles, by fill, whose far placements changed since a renderer last
    /// drained them.
    far_changed: FxHashSet<(usize, (usize, usize))>,
}

/// How far a spacing family of streamed fills is seen, and from where on it is far.
#[derive(Clone, Debug, PartialEq)]
pub struct FamilyReach {
    pub family: Arc<str>,
    /// Metres out to which its placements exist.
    pub reach_m: f32,
    /// Metres past which each of its placements draws at its prop's last level; its
    /// placements there are far ([`stream::StreamSettings::near_m`]).
    pub near_m: f32,
}

/// Where streamed fills put a family's placements past its near distance
/// ([`FamilyReach::near_m`]), where each draws at its prop's last level.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FarPlacements {
    /// In the registry with the rest: for a renderer that draws only the registry.
    Registry,
    /// In per-tile far blocks ([`World::far_placements`], [`World::drain_far_changes`])
    /// and out of the registry, which then holds only what needs LOD: for a renderer
    /// that draws each tile's far placements as one block at their last levels.
    Blocks,
}

/// A fill journalled as streamed, in a world that streams: what its tiles are made
/// from, the erases journalled after it, whether it is undone and, once started and
/// while not undone, its streamer.
struct StreamedFill {
    source: Arc<TileSource>,
    erasures: Vec<Erasure>,
    undone: bool,
    streamer: Option<TileStreamer>,
}

/// An erase stroke being made in a world that streams.
struct OpenErase {
    radius: f32,
    /// Only these categories; every one when `None`.
    categories: Option<Vec<Arc<str>>>,
    /// Its number among the erase strokes over streamed fills.
    stroke: usize,
    /// Whether it took a placement of a streamed fill yet.
    took: bool,
}

/// Where an edit accepts placements, and of which families: what of the streamed
/// fills it must be accepted against.
struct Acceptance {
    families: Vec<Arc<str>>,
    /// How far past the edit's own area a placement can be near a candidate of it.
    margin_m: f32,
}

/// The arguments streams were started with ([`World::start_streams`]).
#[derive(Clone, Copy)]
struct StreamStart {
    hysteresis: f32,
    workers: usize,
    far: FarPlacements,
}

impl World {
    /// An empty session on `terrain` from the header of `session`.
    pub fn new(terrain: Terrain, session: &Session, lod: &LodConfig) -> Result<Self, WorldError> {
        Ok(Self {
            terrain: Arc::new(terrain),
            editor: Editor::new(session)?,
            registry: PlacementRegistry::new(),
            lod: LodController::new(lod)?,
            keys: FxHashMap::default(),
            streams: false,
            streamed: Vec::new(),
            erase_strokes: 0,
            undone_erases: FxHashSet::default(),
            open_erase: None,
            open_paint: None,
            spot: SpotTiles::default(),
            fading_in: Vec::new(),
            started: None,
            started_reach: Vec::new(),
            reach_stale: false,
            far_changed: FxHashSet::default(),
        })
    }

    /// Replays a whole journal as [`World::replay`] does, except its streamed fills:
    /// they are left to be made around the camera ([`World::start_streams`],
    /// [`World::update_streams`]), the placements they make there the same as replay's.
    /// Erases journalled after a streamed fill take from its tiles too, and undo and
    /// redo take back and put back a streamed fill or an erase over one as they do a
    /// stored one (an erase that takes nothing from either is no undo step); strokes
    /// painted after one are accepted against the stored placements only.
    pub fn replay_streamed(
        terrain: Terrain,
        session: &Session,
        lod: &LodConfig,
    ) -> Result<(Self, Vec<Applied>), WorldError> {
        let mut world = Self::new(terrain, session, lod)?;
        world.streams = true;
        let mut outcomes = Vec::with_capacity(session.events.len());
        for (i, event) in session.events.iter().enumerate() {
            outcomes.push(world.apply(event, &format!("events[{i}]"))?);
        }
        Ok((world, outcomes))
    }

    /// Replays a whole journal: the same placements, bit for bit, as when it was painted.
    pub fn replay(
        terrain: Terrain,
        session: &Session,
        lod: &LodConfig,
    ) -> Result<(Self, Vec<Applied>), WorldError> {
        let mut world = Self::new(terrain, session, lod)?;
        let mut outcomes = Vec::with_capacity(session.events.len());
        for (i, event) in session.events.iter().enumerate() {
            outcomes.push(world.apply(event, &format!("events[{i}]"))?);
        }
        Ok((world, outcomes))
    }

    pub fn terrain(&self) -> &Terrain {
        &self.terrain
    }

    /// The terrain, for work done away from the world (see [`Editor::fill_job`]).
    pub fn shared_terrain(&self) -> Arc<Terrain> {
        Arc::clone(&self.terrain)
    }

    pub fn editor(&self) -> &Editor {
        &self.editor
    }

    /// How the LOD levels cross-fade across each switch, for the renderer.
    pub fn lod_fades(&self) -> &LodFades {
        self.lod.fades()
    }

    /// The LOD controller, to read its settings and each prop's switch distances.
    pub fn lod(&self) -> &LodController {
        &self.lod
    }

    /// Describes a prop's levels and size for screen-space switching (on load and on
    /// every re-bake): per drawable level the error in metres it shows, and its bounding
    /// radius; its visibility comes from the session's catalog (the default for a prop
    /// the catalog does not list). Its placements move to their own switch distances at
    /// the next LOD tick.
    pub fn describe_prop_lod(
        &mut self,
        prop: &str,
        level_errors_m: Vec<f32>,
        radius_m: f32,
    ) -> Result<PropKey, WorldError> {
        let key = self.prop_key(prop);
        let visibility = self
            .editor
            .catalog()
            .prop(prop)
            .map(|p| p.visibility)
            .unwrap_or_default();
        let lod = PropLod {
            level_errors_m,
            radius_m,
            visibility,
        };
        self.lod.set_prop(key, lod)?;
        self.reach_stale = true;
        Ok(key)
    }

    /// The viewport LOD switch distances are measured on (a window's height and field of
    /// view).
    pub fn set_lod_viewport(&mut self, viewport: Viewport) -> Result<(), WorldError> {
        self.lod.set_viewport(viewport)?;
        self.reach_stale = true;
        Ok(())
    }

    /// The largest error a level may show, in pixels.
    pub fn set_lod_tolerance_px(&mut self, tolerance_px: f32) -> Result<(), WorldError> {
        self.lod.set_tolerance_px(tolerance_px)?;
        self.reach_stale = true;
        Ok(())
    }

    pub fn registry(&self) -> &PlacementRegistry {
        &self.registry
    }

    /// For draining bucket changes into a GPU mirror.
    pub fn registry_mut(&mut self) -> &mut PlacementRegistry {
        &mut self.registry
    }

    /// The registry key of a prop id, interning it on first use.
    pub fn prop_key(&mut self, prop: &str) -> PropKey {
        if let Some(&key) = self.keys.get(prop) {
            return key;
        }
        let key = self.registry.intern(prop);
        self.keys.insert(prop.into(), key);
        key
    }

    /// A prop's baked shape arrived (first load or re-bake): its placements get
    /// instances at their current LOD.
    pub fn set_prop_shape(&mut self, prop: &str, shape: PropShape) -> Result<PropKey, WorldError> {
        let key = self.prop_key(prop);
        self.registry.set_prop_shape(key, shape)?;
        Ok(key)
    }

    /// Registers here every prop shape (and LOD description) `previous` holds, so a
    /// session opened in place of `previous` keeps the props already loaded, their
    /// visibility taken from this session's catalog. Returns each carried prop's key in
    /// `previous` and here, for mirrors keyed by them.
    pub fn adopt_prop_shapes(
        &mut self,
        previous: &World,
    ) -> Result<Vec<(PropKey, PropKey)>, WorldError> {
        let mut names: Vec<(&Arc<str>, PropKey)> = previous
            .keys
            .iter()
            .map(|(name, &key)| (name, key))
            .collect();
        names.sort_unstable();
        let mut keys = Vec::with_capacity(names.len());
        for (name, old) in names {
            if let Some(shape) = previous.registry.prop_shape(old)? {
                keys.push((old, self.set_prop_shape(name, shape)?));
            }
            if let Some(lod) = previous.lod.prop_lod(old) {
                self.describe_prop_lod(name, lod.level_errors_m.clone(), lod.radius_m)?;
            }
        }
        Ok(keys)
    }

    /// A prop's baked data went away: its placements stay, pending, without instances.
    pub fn remove_prop_shape(&mut self, prop: &str) -> Result<(), WorldError> {
        let key = self.prop_key(prop);
        Ok(self.registry.remove_prop_shape(key)?)
    }

    pub fn use_preset(
        &mut self,
        name: &str,
        preset: sylva_scatter::Preset,
    ) -> Result<String, WorldError> {
        Ok(self.editor.use_preset(name, preset)?)
    }

    /// Starts a paint stroke; in a world that streams, its dabs are accepted against the
    /// streamed fills' placements round them too.
    pub fn begin_paint(&mut self, preset: &str, brush: BrushSettings) -> Result<(), WorldError> {
        self.forget_open_stroke();
        self.editor.begin_paint(preset, brush)?;
        self.open_paint = self.acceptance(preset).map(|mut acceptance| {
            acceptance.margin_m += brush.radius;
            acceptance
        });
        Ok(())
    }

    /// What an edit with preset `preset` (registered) must be accepted against, where
    /// fills stream: the preset's families, and its widest spacing.
    fn acceptance(&self, preset: &str) -> Option<Acceptance> {
        if self.streamed.is_empty() {
            return None;
        }
        let preset = self.editor.registered_preset(preset)?;
        let catalog = self.editor.catalog();
        let mut families: Vec<Arc<str>> = (preset.picks.iter())
            .filter_map(|pick| catalog.category(&pick.category))
            .map(|category| Arc::clone(&category.family))
            .collect();
        families.sort_unstable();
        families.dedup();
        let margin_m =
            (preset.picks.iter()).fold(0.0, |widest: f32, pick| widest.max(pick.min_spacing));
        Some(Acceptance { families, margin_m })
    }

    /// The placements the streamed fills (not undone) place in the box `low..=high`
    /// that `wanted` takes, less what standing erases took: what the fills stored would
    /// hold there. Makes the tiles here.
    fn streamed_within(
        &mut self,
        (low, high): (Vec2, Vec2),
        wanted: &dyn Fn(&Placement) -> bool,
    ) -> Result<Vec<Placement>, WorldError> {
        let mut within = Vec::new();
        for (index, fill) in self.streamed.iter().enumerate() {
            if fill.undone {
                continue;
            }
            let source = (&*fill.source, fill.streamer.as_ref());
            let tiles = (self.spot)
                .within(index, source, &self.terrain, (low, high))
                .map_err(StreamError::from)?;
            let erased = |p: &Placement| {
                (fill.erasures.iter())
                    .any(|e| !self.undone_erases.contains(&e.stroke) && e.takes(p))
            };
            within.extend(
                (tiles.iter().flat_map(|tile| tile.iter()))
                    .filter(|p| {
                        let at = Vec2::new(p.position.x, p.position.z);
                        at.cmpge(low).all() && at.cmple(high).all()
                    })
                    .filter(|p| wanted(p) && !erased(p))
                    .cloned(),
            );
        }
        Ok(within)
    }

    /// The placements of the streamed fills an edit of `acceptance` over the box
    /// `low..=high` is accepted against.
    fn standing_for(
        &mut self,
        acceptance: &Acceptance,
        (low, high): (Vec2, Vec2),
    ) -> Result<Vec<Placement>, WorldError> {
        let margin = Vec2::splat(acceptance.margin_m);
        let families = &acceptance.families;
        self.streamed_within((low - margin, high + margin), &|p| {
            families.contains(&p.family)
        })
    }

    /// Starts an erase stroke; in a world that streams, it takes from the streamed
    /// fills' tiles too, now and whenever they are made again.
    pub fn begin_erase(
        &mut self,
        radius: f32,
        only_preset: Option<&str>,
    ) -> Result<(), WorldError> {
        self.editor.begin_erase(radius, only_preset)?;
        self.open_streamed_erase(radius, only_preset);
        Ok(())
    }

    /// Notes an erase stroke just begun in the editor, where fills stream.
    fn open_streamed_erase(&mut self, radius: f32, only_preset: Option<&str>) {
        self.forget_open_stroke();
        if self.streamed.is_empty() {
            return;
        }
        let categories = only_preset.map(|name| {
            self.editor
                .registered_preset(name)
                .map_or_else(Vec::new, |preset| {
                    (preset.picks.iter())
                        .map(|pick| Arc::from(&*pick.category))
                        .collect()
                })
        });
        self.open_erase = Some(OpenErase {
            radius,
            categories,
            stroke: self.erase_strokes,
            took: false,
        });
        self.erase_strokes += 1;
    }

    /// One dab of the open stroke at world `(x, z)`.
    pub fn dab(&mut self, at: Vec2) -> Result<Applied, WorldError> {
        let standing = match self.open_paint.take() {
            Some(acceptance) => {
                let standing = self.standing_for(&acceptance, (at, at));
                self.open_paint = Some(acceptance);
                standing?
            }
            None => Vec::new(),
        };
        let terrain = &self.terrain;
        let applied = (self.editor).with_streamed(&standing, |editor| editor.dab(terrain, at))?;
        self.mirror(&applied.edit)?;
        self.erase_streamed_dab(at)?;
        Ok(applied)
    }

    /// Takes what the open erase stroke's dab at `at` covers from the streamed fills.
    fn erase_streamed_dab(&mut self, at: Vec2) -> Result<(), WorldError> {
        let Some(open) = &self.open_erase else {
            return Ok(());
        };
        let erasure = Erasure {
            center: at,
            radius: open.radius,
            categories: open.categories.clone(),
            stroke: open.stroke,
        };
        let (stroke, took_before) = (open.stroke, open.took);
        let took = self.erase_streamed(erasure, !took_before)?;
        if took && !took_before {
            self.editor.mark_stroke_streamed(stroke);
            if let Some(open) = &mut self.open_erase {
                open.took = true;
            }
        }
        Ok(())
    }

    /// Fills a region with a preset (one undoable edit); `progress` hears tiles done and
    /// in all, and cancels by answering `Break` (then nothing changes).
    pub fn fill(
        &mut self,
        request: &FillRequest,
        progress: &mut dyn FnMut(usize, usize) -> ControlFlow<()>,
    ) -> Result<Applied, WorldError> {
        self.forget_open_stroke();
        let standing = self.standing_for_fill(&request.preset, &request.region)?;
        let terrain = &self.terrain;
        let applied = (self.editor)
            .with_streamed(&standing, |editor| editor.fill(terrain, request, progress))?;
        self.mirror(&applied.edit)?;
        Ok(applied)
    }

    /// Accepts a fill planned elsewhere (see [`Editor::fill_job`]).
    pub fn commit_fill(&mut self, job: &FillJob, plan: &FillPlan) -> Result<Applied, WorldError> {
        self.forget_open_stroke();
        let standing = match self.acceptance(&job.request.preset) {
            Some(acceptance) => self.standing_for(&acceptance, plan.area().bounds())?,
            None => Vec::new(),
        };
        let applied =
            (self.editor).with_streamed(&standing, |editor| editor.commit_fill(job, plan))?;
        self.mirror(&applied.edit)?;
        Ok(applied)
    }

    /// The streamed fills' placements a stored fill of `preset` over `region` is
    /// accepted against (none where the region is refused: the fill says why).
    fn standing_for_fill(
        &mut self,
        preset: &str,
        region: &sylva_scatter::FillRegion,
    ) -> Result<Vec<Placement>, WorldError> {
        let Some(acceptance) = self.acceptance(preset) else {
            return Ok(Vec::new());
        };
        match Area::new(region, &self.terrain) {
            Ok(area) => self.standing_for(&acceptance, area.bounds()),
            Err(_) => Ok(Vec::new()),
        }
    }

    pub fn end_stroke(&mut self) -> Option<sylva_scatter::StrokeReport> {
        self.forget_open_stroke();
        self.editor.end_stroke()
    }

    /// Forgets the open stroke's streamed side: the editor closes its stroke before any
    /// other edit.
    fn forget_open_stroke(&mut self) {
        self.open_erase = None;
        self.open_paint = None;
    }

    /// Takes back the last stroke or fill, a streamed fill's or an erase over one's
    /// streamed part included; returns what changed in the stored placements.
    pub fn undo(&mut self) -> Result<Option<Edit>, WorldError> {
        let step = self.editor.undo_step();
        self.mirror_step(step, false)
    }

    /// Puts back the last undone stroke or fill.
    pub fn redo(&mut self) -> Result<Option<Edit>, WorldError> {
        let step = self.editor.redo_step();
        self.mirror_step(step, true)
    }

    /// Mirrors an undo (`redo` false) or redo step, streamed fills included.
    fn mirror_step(&mut self, step: Option<Step>, redo: bool) -> Result<Option<Edit>, WorldError> {
        self.forget_open_stroke();
        let Some(step) = step else {
            return Ok(None);
        };
        self.mirror(&step.edit)?;
        match step.streamed {
            Some(StreamedEdit::Fill(fill)) => self.set_fill_undone(fill, !redo)?,
            Some(StreamedEdit::Erase(stroke)) => {
                if redo {
                    self.undone_erases.remove(&stroke);
                } else {
                    self.undone_erases.insert(stroke);
                }
                let mut changes = Vec::new();
                for (index, fill) in self.streamed.iter_mut().enumerate() {
                    if let Some(streamer) = &mut fill.streamer {
                        changes.push((index, streamer.set_standing(stroke, redo)));
                    }
                }
                for (index, change) in changes {
                    self.mirror_stream(index, change)?;
                }
            }
            None => {}
        }
        Ok(Some(step.edit))
    }

    /// Undoes (its tiles leave) or redoes (they stream again) streamed fill `fill`.
    fn set_fill_undone(&mut self, fill: usize, undone: bool) -> Result<(), WorldError> {
        let Some(streamed) = self.streamed.get_mut(fill) else {
            return Ok(());
        };
        streamed.undone = undone;
        if undone {
            self.stop_stream(fill)
        } else if let Some(start) = self.started {
            self.start_stream(fill, start)
        } else {
            Ok(())
        }
    }

    /// Applies a journal event (`path` names it in errors, e.g. `events[3]`).
    pub fn apply(&mut self, event: &Event, path: &str) -> Result<Applied, WorldError> {
        if !self.streams {
            let applied = self.editor.apply(&self.terrain, event, path)?;
            self.mirror(&applied.edit)?;
            return Ok(applied);
        }
        match event {
            Event::Paint { dabs, .. } | Event::Erase { dabs, .. } if !self.streamed.is_empty() => {
                return self.replay_stroke(event, dabs, path);
            }
            Event::Undo => {
                let edit = self.undo()?.unwrap_or_default();
                return Ok(Applied { edit, report: None });
            }
            Event::Redo => {
                let edit = self.redo()?.unwrap_or_default();
                return Ok(Applied { edit, report: None });
            }
            _ => {}
        }
        let standing = match event {
            Event::Fill {
                preset,
                region,
                stream: false,
                ..
            } => self.standing_for_fill(preset, region)?,
            _ => Vec::new(),
        };
        let terrain = &self.terrain;
        let (applied, streamed) = (self.editor).with_streamed(&standing, |editor| {
            editor.apply_streaming(terrain, event, path)
        })?;
        self.mirror(&applied.edit)?;
        if let Some(job) = streamed {
            if self.streamed.len() >= MAX_STREAMED_FILLS {
                return Err(StreamError::TooManyFills.into());
            }
            let source = TileSource::new(job, &self.terrain, self.editor.painter().placements());
            self.streamed.push(StreamedFill {
                source: Arc::new(source),
                erasures: Vec::new(),
                undone: false,
                streamer: None,
            });
            if let Some(start) = self.started {
                self.start_stream(self.streamed.len() - 1, start)?;
            }
        }
        Ok(applied)
    }

    /// Replays a journalled stroke dab by dab, as painted live, where fills stream: each
    /// dab accepted against the streamed fills' placements round it, or taking from
    /// them.
    fn replay_stroke(
        &mut self,
        event: &Event,
        dabs: &[(f32, f32)],
        path: &str,
    ) -> Result<Applied, WorldError> {
        let at = |e: WorldError| match e {
            WorldError::Session(e) => WorldError::Session(e.at(path)),
            other => other,
        };
        match event {
            Event::Paint { preset, brush, .. } => self.begin_paint(preset, *brush),
            Event::Erase {
                radius,
                only_preset,
                ..
            } => self.begin_erase(*radius, only_preset.as_deref()),
            _ => return Ok(Applied::default()),
        }
        .map_err(at)?;
        for &(x, z) in dabs {
            self.dab(Vec2::new(x, z)).map_err(at)?;
        }
        let edit = self.editor.open_edit();
        let report = self.end_stroke();
        Ok(Applied { edit, report })
    }

    /// Takes what `erasure` covers from every streamed fill not undone, now and
    /// whenever its tiles are made again. With `check`, says whether it took a
    /// placement no standing erase took before (making the tiles it touches here);
    /// without, answers false.
    fn erase_streamed(&mut self, erasure: Erasure, check: bool) -> Result<bool, WorldError> {
        let took = check && {
            let reach = Vec2::splat(erasure.radius);
            let bounds = (erasure.center - reach, erasure.center + reach);
            !(self.streamed_within(bounds, &|p| erasure.takes(p))?).is_empty()
        };
        let mut changes = Vec::new();
        for (index, fill) in self.streamed.iter_mut().enumerate() {
            if fill.undone {
                continue;
            }
            fill.erasures.push(erasure.clone());
            if let Some(streamer) = &mut fill.streamer {
                changes.push((index, streamer.erase(erasure.clone())?));
            }
        }
        for (index, change) in changes {
            self.mirror_stream(index, change)?;
        }
        Ok(took)
    }

    /// Every tile streamed fill `fill` (not undone) shows, made one after another over
    /// the whole terrain with the erases standing over it applied, in memory
    /// proportional to a row of tiles: for an export, whatever the camera.
    pub fn walk_streamed_fill(&self, fill: usize) -> Option<FillWalk<'_>> {
        let streamed = self.streamed.get(fill).filter(|f| !f.undone)?;
        let erased = move |p: &Placement| {
            (streamed.erasures.iter())
                .any(|e| !self.undone_erases.contains(&e.stroke) && e.takes(p))
        };
        Some(FillWalk::new(
            &streamed.source,
            &self.terrain,
            fill,
            Box::new(erased),
        ))
    }

    /// The props the streamed fills (not undone) may place, sorted: a viewer loads them
    /// before any is placed, as their reach follows from them.
    pub fn streamed_props(&self) -> Vec<Arc<str>> {
        let catalog = self.editor.catalog();
        let mut props: Vec<Arc<str>> = (self.streamed.iter())
            .filter(|fill| !fill.undone)
            .flat_map(|fill| &fill.source.job().preset().picks)
            .filter_map(|pick| catalog.category(&pick.category))
            .flat_map(|category| &category.props)
            .map(|&index| Arc::clone(&catalog.props()[index].id))
            .collect();
        props.sort_unstable();
        props.dedup();
        props
    }

    /// Per spacing family the streamed fills place, how far its props can be seen: the
    /// largest distance at which a described prop of the family, at the largest scale
    /// the fills' picks give it, is drawn before its screen-size cull (or its maximum
    /// distance); and from where on every one of them draws at its last level (past
    /// its last switch and that switch's fade), so that it needs no LOD of its own.
    /// Families without a described prop are left out: nothing draws them.
    pub fn stream_reach(&self) -> Vec<FamilyReach> {
        let catalog = self.editor.catalog();
        let fade = self
            .lod
            .screen_error()
            .map_or(0.0, |screen| screen.hysteresis);
        let mut reach: Vec<FamilyReach> = Vec::new();
        for fill in &self.streamed {
            for pick in &fill.source.job().preset().picks {
                let Some(category) = catalog.category(&pick.category) else {
                    continue;
                };
                for &index in &category.props {
                    let prop = &catalog.props()[index];
                    let switches = self
                        .keys
                        .get(&prop.id)
                        .and_then(|&key| self.lod.prop_switches(key));
                    let Some(switches) = switches else {
                        continue;
                    };
                    let scale = pick.scale.1 * prop.scale.1;
                    let metres = switches.cull_m(scale);
                    let last = switches.levels().saturating_sub(2);
                    let near = if switches.levels() < 2 {
                        0.0
                    } else {
                        switches.edge_m(last, scale) * (1.0 + fade)
                    };
                    match reach.iter_mut().find(|r| r.family == category.family) {
                        Some(r) => {
                            r.reach_m = r.reach_m.max(metres);
                            r.near_m = r.near_m.max(near);
                        }
                        None => reach.push(FamilyReach {
                            family: Arc::clone(&category.family),
                            reach_m: metres,
                            near_m: near,
                        }),
                    }
                }
            }
        }
        reach.retain(|r| r.reach_m.is_finite() && r.reach_m > 0.0);
        reach
    }

    /// Starts making the streamed fills' tiles around the camera on `workers` threads
    /// each, every family out to its [`World::stream_reach`] and kept to `1 +
    /// hysteresis` times it, its far placements where `far` says. Started again, the
    /// streams begin afresh (their placements leave the registry first), as they do at
    /// the next [`World::update_streams`] after the reach changed (a prop described, or
    /// re-baked, the viewport or the tolerance changed), so props may be described
    /// before or after.
    pub fn start_streams(
        &mut self,
        hysteresis: f32,
        workers: usize,
        far: FarPlacements,
    ) -> Result<(), WorldError> {
        let start = StreamStart {
            hysteresis,
            workers,
            far,
        };
        self.started = Some(start);
        self.started_reach = self.stream_reach();
        self.reach_stale = false;
        for index in 0..self.streamed.len() {
            self.stop_stream(index)?;
            if !self.streamed[index].undone {
                self.start_stream(index, start)?;
            }
        }
        Ok(())
    }

    /// Whether the streamed fills are being made around the camera.
    pub fn streams_started(&self) -> bool {
        self.started.is_some()
    }

    /// Starts streamed fill `index`'s streamer, its erases applied.
    fn start_stream(&mut self, index: usize, start: StreamStart) -> Result<(), WorldError> {
        let reach = &self.started_reach;
        let settings = StreamSettings {
            reach_m: reach
                .iter()
                .map(|r| (Arc::clone(&r.family), r.reach_m))
                .collect(),
            near_m: match start.far {
                FarPlacements::Registry => Vec::new(),
                FarPlacements::Blocks => reach.iter().map(|r| r.near_m).collect(),
            },
            hysteresis: start.hysteresis,
            workers: start.workers,
        };
        let fill = &self.streamed[index];
        let mut streamer = TileStreamer::new(
            Arc::clone(&fill.source),
            Arc::clone(&self.terrain),
            settings,
            index,
        )?;
        for erasure in &fill.erasures {
            streamer.erase(erasure.clone())?;
        }
        for &stroke in &self.undone_erases {
            streamer.set_standing(stroke, false);
        }
        self.streamed[index].streamer = Some(streamer);
        Ok(())
    }

    /// Stops streamed fill `index`'s streamer, if any: its placements leave the
    /// registry and its far tiles empty.
    fn stop_stream(&mut self, index: usize) -> Result<(), WorldError> {
        let Some(old) = self.streamed[index].streamer.take() else {
            return Ok(());
        };
        for placement in old.near_placements() {
            self.registry.remove(placement.id.0)?;
        }
        self.far_changed
            .extend(old.far_tiles().map(|tile| (index, tile)));
        Ok(())
    }

    /// The streamed fills' tiles for a camera at `camera`: takes those made, asks for
    /// those now in reach, drops those left behind and mirrors it all into the
    /// registry, which holds no more than the session's cap of placements (stored ones
    /// included; past it, tiles wait: [`StreamStats::capped`]). Never waits. Returns
    /// the streams' counts summed.
    pub fn update_streams(&mut self, camera: Vec3) -> Result<StreamStats, WorldError> {
        if let Some(start) = self.started.filter(|_| self.reach_stale) {
            self.reach_stale = false;
            if self.stream_reach() != self.started_reach {
                self.start_streams(start.hysteresis, start.workers, start.far)?;
            }
        }
        let mut total = StreamStats::default();
        let cap = self.editor.painter().cap();
        for index in 0..self.streamed.len() {
            let Some(streamer) = self.streamed[index].streamer.as_mut() else {
                continue;
            };
            streamer.set_room(cap.saturating_sub(self.registry.len() as usize));
            let changes = streamer.update(camera);
            let stats = streamer.stats();
            self.mirror_stream(index, changes)?;
            total.tiles_made += stats.tiles_made;
            total.tiles_dropped += stats.tiles_dropped;
            total.tiles_cancelled += stats.tiles_cancelled;
            total.late_tiles += stats.late_tiles;
            total.waiting_tiles += stats.waiting_tiles;
            total.passes_due += stats.passes_due;
            total.resident_placements += stats.resident_placements;
            total.resident_tiles += stats.resident_tiles;
            total.capped |= stats.capped;
        }
        Ok(total)
    }

    /// The placements the streamed fills show now (their instances are in the registry).
    pub fn streamed_placements(&self) -> impl Iterator<Item = &Placement> {
        self.streamed
            .iter()
            .filter_map(|fill| fill.streamer.as_ref())
            .flat_map(TileStreamer::placements)
    }

    /// How many fills the world streams (journalled as streamed, in a streaming world).
    pub fn streamed_fills(&self) -> usize {
        self.streamed.len()
    }

    /// The streamed tiles whose far placements changed since the last call, as (fill,
    /// tile): a renderer builds each one's far block again from
    /// [`World::far_placements`] (an empty one goes).
    pub fn drain_far_changes(&mut self) -> Vec<(usize, (usize, usize))> {
        let mut changed: Vec<_> = self.far_changed.drain().collect();
        changed.sort_unstable();
        changed
    }

    /// The far placements streamed fill `fill` shows in `tile` now: each draws at its
    /// prop's last level, where its screen size does not cull it.
    pub fn far_placements(
        &self,
        fill: usize,
        tile: (usize, usize),
    ) -> impl Iterator<Item = &Placement> {
        self.streamed
            .get(fill)
            .and_then(|fill| fill.streamer.as_ref())
            .into_iter()
            .flat_map(move |streamer| streamer.far_placements(tile))
    }

    fn mirror_stream(&mut self, fill: usize, changes: StreamChanges) -> Result<(), WorldError> {
        self.far_changed
            .extend(changes.far_changed.into_iter().map(|tile| (fill, tile)));
        for id in changes.removed {
            self.registry.remove(id.0)?;
        }
        for placement in &changes.added {
            self.insert(placement)?;
        }
        for id in changes.arrived_late {
            self.registry.set_fade_in(id.0, FADE_IN_FIRST_SHARE)?;
            self.fading_in.push((id.0, f64::NAN));
        }
        Ok(())
    }

    /// Takes the fades of late placements on to `now` (seconds): each draws a share of
    /// its pixels growing from nothing to all over [`FADE_IN_S`].
    fn advance_fades(&mut self, now: f64) {
        let registry = &mut self.registry;
        self.fading_in.retain_mut(|(id, began)| {
            if began.is_nan() {
                *began = now;
            }
            let share = ((now - *began) / FADE_IN_S) as f32;
            let share = share.max(FADE_IN_FIRST_SHARE);
            // Gone meanwhile (its tile dropped): nothing to fade.
            registry.set_fade_in(*id, share).is_ok() && share < 1.0
        });
    }

    /// Ends every fade-in at once, each placement drawn whole: for a still, which must
    /// not depend on when its tiles arrived.
    pub fn finish_fades(&mut self) {
        for (id, _) in self.fading_in.drain(..) {
            let _ = self.registry.set_fade_in(id, 1.0);
        }
    }

    /// Placements fading in now.
    pub fn fading_in(&self) -> usize {
        self.fading_in.len()
    }

    /// Spreads each LOD evaluation's tests over `ticks` calls of [`Self::tick_lod`]
    /// ([`LodController::spread_evaluations`]).
    pub fn spread_lod_evaluations(&mut self, ticks: u32) {
        self.lod.spread_evaluations(ticks);
    }

    /// Re-evaluates LODs for a camera at `camera` at time `now` (seconds).
    /// Late streamed placements fade in on the same clock.
    pub fn tick_lod(&mut self, camera: Vec3, now: f64) -> TickStats {
        self.advance_fades(now);
        self.lod.tick(&mut self.registry, camera, now)
    }

    /// Removals first, so an id taken back and given again never collides.
    fn mirror(&mut self, edit: &Edit) -> Result<(), WorldError> {
        for placement in &edit.removed {
            self.registry.remove(placement.id.0)?;
        }
        // A bucket's slots follow insertion order, and the renderer culls them 64 at a
        // time by the sphere round each block. A fill accepts row by row, so in that
        // order a block would be a strip hundreds of metres long that every view
        // straddles; in Z-order of 8 m tiles each block is a compact patch.
        let origin = self.terrain.min_corner();
        let mut added: Vec<&Placement> = edit.added.iter().collect();
        added.sort_by_key(|p| z_order(p.position, origin));
        for placement in added {
            self.insert(placement)?;
        }
        Ok(())
    }

    fn insert(&mut self, placement: &Placement) -> Result<(), WorldError> {
        let key = self.prop_key(&placement.prop);
        let transform = placement.transform();
        let member = Member {
            prop: key,
            scale: scale_of(&transform),
        };
        let level = self.lod.level_for(member, placement.position);
        Ok(self
            .registry
            .insert(placement.id.0, key, transform, level)?)
    }
}

/// How long a late streamed placement takes to fade in, in seconds.
pub const FADE_IN_S: f64 = 0.4;

/// The share of its pixels a late placement draws on the frame it arrives.
const FADE_IN_FIRST_SHARE: f32 = 1.0 / 64.0;

/// Side of the tiles [`z_order`] orders by, in metres.
const ORDER_TILE_M: f32 = 8.0;

/// The Morton code of the 8 m tile under `position` (tiles counted from `origin`).
fn z_order(position: Vec3, origin: Vec2) -> u32 {
    let tile = |v: f32, o: f32| ((v - o) / ORDER_TILE_M).clamp(0.0, 65_535.0) as u32;
    spread_bits(tile(position.x, origin.x)) | spread_bits(tile(position.z, origin.y)) << 1
}

/// The low 16 bits of `v` moved to the even bit positions.
fn spread_bits(v: u32) -> u32 {
    let mut v = v & 0xFFFF;
    v = (v | (v << 8)) & 0x00FF_00FF;
    v = (v | (v << 4)) & 0x0F0F_0F0F;
    v = (v | (v << 2)) & 0x3333_3333;
    (v | (v << 1)) & 0x5555_5555
}

#[cfg(test)]
mod tests;

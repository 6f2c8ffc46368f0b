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
use sylva_lod::{
    LodConfig, LodConfigError, LodController, LodFades, PropLod, ScreenError, TickStats, Viewport,
};
use sylva_scatter::{
    Applied, BrushSettings, Edit, Editor, Event, FillJob, FillPlan, FillRequest, Placement,
    Session, SessionError, Step, StreamedEdit, TileSource,
};
use sylva_terrain::Terrain;
use thiserror::Error;

mod far_changes;
mod spot;
pub mod stream;
mod streamed_edits;
mod streamed_fills;
mod walk;

pub use far_changes::{FarBudget, FarChanges, FarTile};
pub use streamed_fills::{FamilyReach, FarPlacements, FADE_IN_S};
pub use walk::FillWalk;

use spot::SpotTiles;
use stream::{StreamError, MAX_STREAMED_FILLS};
use streamed_edits::{Acceptance, OpenErase};
use streamed_fills::{StreamStart, StreamedFill};

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
    /// stored one (an erase that takes nothing from either is no undo step), and strokes
    /// and stored fills after one are accepted against its placements round them.
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
        let before = self.lod.screen_error().cloned();
        self.lod.set_viewport(viewport)?;
        self.note_lod_settings(before);
        Ok(())
    }

    /// The largest error a level may show, in pixels.
    pub fn set_lod_tolerance_px(&mut self, tolerance_px: f32) -> Result<(), WorldError> {
        let before = self.lod.screen_error().cloned();
        self.lod.set_tolerance_px(tolerance_px)?;
        self.note_lod_settings(before);
        Ok(())
    }

    /// The streamed fills' reach follows from the LOD settings: when they differ from
    /// `before`, the streams check it at their next update (a renderer sets the same
    /// viewport every frame, which changes nothing).
    fn note_lod_settings(&mut self, before: Option<ScreenError>) {
        if self.lod.screen_error() != before.as_ref() {
            self.reach_stale = true;
        }
    }

    pub fn registry(&self) -> &PlacementRegistry {
        &self.registry
    }

    /// For draining bucket changes into a GPU mirror.
    pub fn registry_mut(&mut self) -> &mut PlacementRegistry {
        &mut self.registry
    }

    /// The registry key of a prop id, if it has one (interned by [`Self::prop_key`]).
    pub fn known_prop_key(&self, prop: &str) -> Option<PropKey> {
        self.keys.get(prop).copied()
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

    pub fn end_stroke(&mut self) -> Option<sylva_scatter::StrokeReport> {
        self.forget_open_stroke();
        self.editor.end_stroke()
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

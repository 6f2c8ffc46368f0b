//! Everything the viewer edits, without a window: the preset folder and the active
//! preset, brush settings, the stroke being painted, background prop loading, bake
//! watch passes, the session file with its autosave, and the figures the HUD and the
//! run summary show. The [`World`] (terrain, scatter editor, placement registry, LOD
//! controller) belongs to a [`WorldHost`]: the runtime, which also draws it, in the
//! viewer; a bare `World` in tests. The window turns input into calls here.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use glam::Vec2;
use sylva_catalog::folder::read_snapshot;
use sylva_catalog::CatalogSnapshot;
use sylva_lod::{LodConfig, LodPolicy};
use sylva_scatter::{
    BrushSettings, Event, Preset, Session, StrokeReport, TerrainSource, MAX_DENSITY, MAX_RADIUS,
};
use sylva_terrain::{default_world, HeightmapScale, Ray, Terrain};
use sylva_world::stream::StreamStats;
use sylva_world::{World, WorldError};
use thiserror::Error;

use crate::cursor::{self, Hover, Marker, Tint};
use crate::fill::FillTask;
use crate::lasso::Lasso;
use crate::loader::{
    LoadCounters, LoadedProp, PropLoader, PropSource, PropStatus, PropStatuses, Request,
};
use crate::preset_folder::{PresetChange, PresetFolder, PresetFolderError};
use crate::session_file::{self, Autosave, SessionFileError};
use crate::stroke::DabSpacer;
use crate::timing::Series;
use sylva_runtime::WatchPass;

#[derive(Debug, Error)]
pub enum WorkspaceError {
    #[error(transparent)]
    World(#[from] WorldError),
    #[error(transparent)]
    SessionFile(#[from] SessionFileError),
    #[error(transparent)]
    PresetFolder(#[from] PresetFolderError),
    #[error("reading the assets folder: {0}")]
    Assets(#[from] sylva_catalog::folder::FolderError),
    #[error("heightmap {path}: {reason}")]
    Heightmap { path: PathBuf, reason: String },
    #[error("no preset `{name}` in {folder} (there are: {known})")]
    UnknownPreset {
        name: String,
        folder: PathBuf,
        known: String,
    },
    #[error("preset {index} does not exist (there are {count})")]
    NoPresetAt { index: usize, count: usize },
    #[error("{0}")]
    BrokenPreset(String),
    #[error("opening {path}: {reason}")]
    Open { path: PathBuf, reason: String },
    #[error("pick a preset before painting (keys 1–9 or the preset list)")]
    NoPreset,
    #[error("the view shows no ground to fill")]
    NoGroundInView,
    #[error("already filling {what} (Esc cancels it)")]
    FillRunning { what: String },
    #[error(transparent)]
    Fill(#[from] sylva_scatter::FillError),
}

/// Holds the [`World`] a workspace edits and takes in the props it loads.
pub trait WorldHost {
    fn world(&self) -> &World;
    fn world_mut(&mut self) -> &mut World;
    /// Installs prop `prop` from its cache entry, or swaps in a new revision: its shape
    /// goes to the registry (and, where there is a GPU, its geometry to the renderer).
    /// On failure the prop stays as it was.
    fn install(&mut self, prop: &str, loaded: &LoadedProp) -> Result<(), String>;
    /// Forgets a prop whose file is gone; its placements stay, drawn again if it returns.
    fn uninstall(&mut self, prop: &str) -> Result<(), String>;
    /// Puts `world` (a session opened from a file) in place of the current one,
    /// keeping the props installed so far. On failure the current world stays.
    fn replace_world(&mut self, world: World) -> Result<(), String>;
    /// The streamed fills after the last frame (none streams without a renderer).
    fn stream_stats(&self) -> StreamStats {
        StreamStats::default()
    }
}

/// A world without a GPU (tests, benchmarks, headless tools): installing a prop gives
/// the registry its shape.
impl WorldHost for World {
    fn world(&self) -> &World {
        self
    }

    fn world_mut(&mut self) -> &mut World {
        self
    }

    fn install(&mut self, prop: &str, loaded: &LoadedProp) -> Result<(), String> {
        let entry = sylva_cache::Entry::parse(&loaded.files.entry).map_err(|e| e.to_string())?;
        let shape = sylva_runtime::shape_of(&entry);
        self.set_prop_shape(prop, shape)
            .map_err(|e| e.to_string())?;
        let (errors, radius) = sylva_runtime::level_errors_of(&entry, shape);
        self.describe_prop_lod(prop, errors, radius)
            .map(drop)
            .map_err(|e| e.to_string())
    }

    fn uninstall(&mut self, prop: &str) -> Result<(), String> {
        self.remove_prop_shape(prop).map_err(|e| e.to_string())
    }

    fn replace_world(&mut self, mut world: World) -> Result<(), String> {
        world.adopt_prop_shapes(self).map_err(|e| e.to_string())?;
        *self = world;
        Ok(())
    }
}

/// Where the terrain comes from.
#[derive(Clone, Debug, PartialEq)]
pub enum TerrainChoice {
    DefaultWorld,
    Heightmap {
        path: PathBuf,
        scale: HeightmapScale,
    },
}

#[derive(Clone, Debug)]
pub struct WorkspaceOptions {
    pub assets: PathBuf,
    pub presets: PathBuf,
    pub terrain: TerrainChoice,
    /// Saves go here, autosaves beside it.
    pub session: PathBuf,
    /// Replay `session` first if it exists (otherwise a new session overwrites it).
    pub continue_session: bool,
    /// Seed of a new session.
    pub seed: u32,
    /// Placement cap of a new session (a continued one keeps its own).
    pub cap: usize,
    /// How every session opened here switches LODs.
    pub lod: LodConfig,
}

/// The preset strokes paint with.
#[derive(Clone, Debug)]
pub struct ActivePreset {
    /// File stem.
    pub stem: String,
    pub preset: Preset,
    /// The name it is registered under in the session (`stem`, or `stem#2` after an
    /// edit).
    pub session_name: String,
    /// Version of the file it was read from.
    pub file_version: u32,
}

/// A stroke between pointer down and up.
#[derive(Debug)]
struct OpenStroke {
    erase: bool,
    /// Set by the first dab that lands on the terrain.
    spacer: Option<DabSpacer>,
    dabs: u32,
    /// Placements the stroke's dabs removed (erased, or evicted by the cap).
    removed: usize,
}

/// What the last completed stroke did.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum LastStroke {
    Paint(StrokeReport),
    Erase {
        removed: usize,
        dabs: u32,
    },
    /// A fill, planned in `seconds` on the fill worker.
    Fill {
        report: StrokeReport,
        seconds: f32,
    },
}

/// A line for the HUD's message area.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Message {
    pub error: bool,
    pub text: String,
}

/// Messages kept for the HUD.
const MESSAGES: usize = 6;

pub struct Workspace<H> {
    host: H,
    options: WorkspaceOptions,
    presets: PresetFolder,
    active: Option<ActivePreset>,
    brush: BrushSettings,
    stroke: Option<OpenStroke>,
    /// The fill being planned off the frame's thread.
    fill: Option<FillTask>,
    /// The lasso being drawn.
    lasso: Option<Lasso>,
    loader: PropLoader,
    statuses: PropStatuses,
    /// The assets folder as the catalog last saw it (watch passes compare with it).
    catalog: CatalogSnapshot,
    autosave: Autosave,
    last_stroke: Option<LastStroke>,
    strokes: u32,
    fills: u32,
    /// Set by a preset pick, cleared by the first dab after it.
    first_stroke_pending: bool,
    first_stroke_ms: Series,
    hover: Option<Hover>,
    raycast_micros: Series,
    messages: Vec<Message>,
    /// Every error reported, for the run summary.
    errors: Vec<String>,
    watch_passes: u32,
    /// Watch passes that re-baked at least one prop.
    rebakes: u32,
    last_watch_pass: Option<WatchPass>,
}

impl<H: WorldHost> Workspace<H> {
    /// A workspace editing `host`'s world (see [`open_world`]), loading props from
    /// `source` in the background.
    pub fn open(
        options: WorkspaceOptions,
        host: H,
        source: Arc<dyn PropSource>,
    ) -> Result<Self, WorkspaceError> {
        let presets = PresetFolder::open(&options.presets)?;
        let autosave = Autosave::new(session_file::autosave_path(&options.session));
        let catalog = current_catalog(host.world());
        let mut workspace = Self {
            host,
            presets,
            active: None,
            brush: BrushSettings {
                radius: 10.0,
                density_per_m2: 0.5,
            },
            stroke: None,
            fill: None,
            lasso: None,
            loader: PropLoader::new(source),
            statuses: PropStatuses::new(),
            catalog,
            autosave,
            last_stroke: None,
            strokes: 0,
            fills: 0,
            first_stroke_pending: false,
            first_stroke_ms: Series::default(),
            hover: None,
            raycast_micros: Series::default(),
            messages: Vec::new(),
            errors: Vec::new(),
            watch_passes: 0,
            rebakes: 0,
            last_watch_pass: None,
            options,
        };
        workspace.request_placed_props();
        Ok(workspace)
    }

    pub fn host(&self) -> &H {
        &self.host
    }

    pub fn host_mut(&mut self) -> &mut H {
        &mut self.host
    }

    pub fn world(&self) -> &World {
        self.host.world()
    }

    pub fn terrain(&self) -> &Terrain {
        self.world().terrain()
    }

    pub fn presets(&self) -> &PresetFolder {
        &self.presets
    }

    pub fn active(&self) -> Option<&ActivePreset> {
        self.active.as_ref()
    }

    pub fn brush(&self) -> BrushSettings {
        self.brush
    }

    pub fn autosave(&self) -> &Autosave {
        &self.autosave
    }

    pub fn last_stroke(&self) -> Option<LastStroke> {
        self.last_stroke
    }

    /// Fills accepted so far.
    pub fn fills(&self) -> u32 {
        self.fills
    }

    pub fn strokes(&self) -> u32 {
        self.strokes
    }

    pub fn statuses(&self) -> &PropStatuses {
        &self.statuses
    }

    pub fn load_counters(&self) -> LoadCounters {
        self.loader.counters()
    }

    pub fn loads_in_flight(&self) -> usize {
        self.loader.in_flight()
    }

    /// Main-thread milliseconds of each first dab after a preset pick.
    pub fn first_stroke_ms(&self) -> &Series {
        &self.first_stroke_ms
    }

    pub fn raycast_micros(&self) -> &Series {
        &self.raycast_micros
    }

    /// The last pointer ray cast.
    pub fn last_hover(&self) -> Option<Hover> {
        self.hover
    }

    pub fn messages(&self) -> &[Message] {
        &self.messages
    }

    pub fn errors(&self) -> &[String] {
        &self.errors
    }

    /// Bake watch passes applied so far.
    pub fn watch_passes(&self) -> u32 {
        self.watch_passes
    }

    /// Bake watch passes that re-baked at least one prop.
    pub fn rebakes(&self) -> u32 {
        self.rebakes
    }

    pub fn last_watch_pass(&self) -> Option<&WatchPass> {
        self.last_watch_pass.as_ref()
    }

    pub fn info(&mut self, text: impl Into<String>) {
        self.push_message(false, text.into());
    }

    pub fn error(&mut self, text: impl Into<String>) {
        let text = text.into();
        eprintln!("error: {text}");
        self.errors.push(text.clone());
        self.push_message(true, text);
    }

    fn push_message(&mut self, error: bool, text: String) {
        if self.messages.len() == MESSAGES {
            self.messages.remove(0);
        }
        self.messages.push(Message { error, text });
    }

    /// Picks the preset with file stem `stem`.
    pub fn pick_preset_named(&mut self, stem: &str) -> Result<(), WorkspaceError> {
        let index = self.presets.find(stem).map(|(i, _)| i).ok_or_else(|| {
            WorkspaceError::UnknownPreset {
                name: stem.to_owned(),
                folder: self.presets.root().to_owned(),
                known: self
                    .presets
                    .entries()
                    .iter()
                    .map(|e| e.stem.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
            }
        })?;
        self.pick_preset(index)
    }

    /// Makes the preset at `index` of the list the active one, takes its brush
    /// defaults, and starts loading every prop it can place in the background.
    pub fn pick_preset(&mut self, index: usize) -> Result<(), WorkspaceError> {
        let entries = self.presets.entries();
        let entry = entries.get(index).ok_or(WorkspaceError::NoPresetAt {
            index,
            count: entries.len(),
        })?;
        let preset = entry.preset.clone().map_err(WorkspaceError::BrokenPreset)?;
        let session_name = self
            .host
            .world_mut()
            .use_preset(&entry.stem, preset.clone())?;
        self.brush = preset.brush;
        self.active = Some(ActivePreset {
            stem: entry.stem.clone(),
            preset,
            session_name,
            file_version: entry.version,
        });
        self.first_stroke_pending = true;
        self.preload_active();
        Ok(())
    }

    /// Requests every prop of every category the active preset picks.
    fn preload_active(&mut self) {
        let Some(active) = &self.active else {
            return;
        };
        let catalog = self.world().editor().catalog();
        let props: Vec<Arc<str>> = active
            .preset
            .picks
            .iter()
            .filter_map(|pick| catalog.category(&pick.category))
            .flat_map(|category| category.props.iter())
            .map(|&i| catalog.props()[i].id.clone())
            .collect();
        for prop in props {
            self.request(&prop);
        }
    }

    fn request(&mut self, prop: &Arc<str>) {
        let started = self.loader.request(prop) == Request::Started;
        // A prop being reloaded keeps showing the revision it draws.
        if started && !matches!(self.statuses.get(prop), Some(PropStatus::Loaded { .. })) {
            self.statuses.insert(prop.clone(), PropStatus::Loading);
        }
    }

    /// Requests the props of placements already in the world (a continued session) and
    /// of those its streamed fills place.
    fn request_placed_props(&mut self) {
        let world = self.world();
        let props: BTreeSet<Arc<str>> = (world.editor().painter().placements())
            .map(|p| p.prop.clone())
            .chain(world.streamed_props())
            .collect();
        for prop in props {
            self.request(&prop);
        }
    }

    pub fn set_radius(&mut self, radius: f32) {
        if radius.is_finite() {
            self.brush.radius = radius.clamp(0.5, MAX_RADIUS);
        }
    }

    pub fn set_density(&mut self, density: f32) {
        if density.is_finite() {
            self.brush.density_per_m2 = density.clamp(0.001, MAX_DENSITY);
        }
    }

    /// The largest error an LOD level may show, in pixels; `None` under fixed bands.
    pub fn lod_error_px(&self) -> Option<f32> {
        self.world()
            .lod()
            .screen_error()
            .map(|settings| settings.tolerance_px)
    }

    /// Sets the LOD tolerance in pixels for this session and the ones opened after it;
    /// placements move to their new switch distances at the next LOD tick.
    pub fn set_lod_error_px(&mut self, pixels: f32) -> Result<(), WorkspaceError> {
        self.host.world_mut().set_lod_tolerance_px(pixels)?;
        if let LodPolicy::ScreenError(settings) = &mut self.options.lod.policy {
            settings.tolerance_px = pixels;
        }
        Ok(())
    }

    /// Casts the pointer's ray and remembers where it met the ground.
    pub fn cast_pointer(&mut self, ray: &Ray) -> Hover {
        let hover = cursor::cast(self.world().terrain(), ray);
        self.raycast_micros.record(hover.micros);
        self.hover = Some(hover);
        hover
    }

    /// The brush cursor's markers at the last hover point, if it hit the ground.
    pub fn cursor_markers(&self, erasing: bool) -> Vec<Marker> {
        if let Some(lasso) = &self.lasso {
            return cursor::lasso_markers(self.world().terrain(), lasso.points());
        }
        let Some(hit) = self.hover.and_then(|h| h.hit) else {
            return Vec::new();
        };
        let terrain = self.world().terrain();
        let preset = self.active.as_ref().map(|a| &a.preset);
        cursor::markers(
            terrain,
            Vec2::new(hit.x, hit.z),
            self.brush.radius,
            |p| match (erasing, preset) {
                (true, _) => Tint::Erase,
                (false, Some(preset)) if cursor::fires_at(terrain, preset, p) => Tint::Fires,
                (false, _) => Tint::Idle,
            },
        )
    }

    /// Opens a stroke; its first dab lands where the pointer first meets the ground.
    pub fn begin_stroke(&mut self, erase: bool) {
        if !erase && self.active.is_none() {
            self.error(WorkspaceError::NoPreset.to_string());
            return;
        }
        self.stroke = Some(OpenStroke {
            erase,
            spacer: None,
            dabs: 0,
            removed: 0,
        });
    }

    /// The stroke's ground point moved to `at` (world x, z): dabs along the way.
    pub fn stroke_to(&mut self, at: Vec2) {
        let Some(mut stroke) = self.stroke.take() else {
            return;
        };
        let mut dabs = Vec::new();
        match &mut stroke.spacer {
            Some(spacer) => spacer.drag_to(at, &mut dabs),
            None => {
                if let Err(e) = self.open_in_world(stroke.erase) {
                    self.error(e.to_string());
                    return;
                }
                let (spacer, first) = DabSpacer::start(at, self.brush.radius);
                stroke.spacer = Some(spacer);
                dabs.push(first);
            }
        }
        for at in dabs {
            let started = Instant::now();
            match self.dab(at) {
                Ok(removed) => stroke.removed += removed,
                Err(e) => {
                    self.error(e.to_string());
                    continue;
                }
            }
            stroke.dabs += 1;
            if !stroke.erase && std::mem::take(&mut self.first_stroke_pending) {
                self.first_stroke_ms
                    .record(started.elapsed().as_secs_f64() * 1e3);
            }
        }
        self.stroke = Some(stroke);
    }

    fn open_in_world(&mut self, erase: bool) -> Result<(), WorkspaceError> {
        if erase {
            let radius = self.brush.radius;
            return Ok(self.host.world_mut().begin_erase(radius, None)?);
        }
        self.refresh_active_registration()?;
        let name = self
            .active
            .as_ref()
            .map(|a| a.session_name.clone())
            .unwrap_or_default();
        let brush = self.brush;
        Ok(self.host.world_mut().begin_paint(&name, brush)?)
    }

    /// An edited preset file is registered again (as `stem#2` …) before it paints.
    fn refresh_active_registration(&mut self) -> Result<(), WorkspaceError> {
        let Some(active) = &self.active else {
            return Ok(());
        };
        let Some((_, entry)) = self.presets.find(&active.stem) else {
            return Ok(());
        };
        if entry.version == active.file_version {
            return Ok(());
        }
        // A broken edit keeps painting with the last good version; the HUD lists
        // the error.
        if let Ok(preset) = entry.preset.clone() {
            let session_name = self
                .host
                .world_mut()
                .use_preset(&entry.stem, preset.clone())?;
            let version = entry.version;
            let active = self.active.as_mut().expect("checked above");
            active.preset = preset;
            active.session_name = session_name;
            active.file_version = version;
            self.preload_active();
        }
        Ok(())
    }

    /// One dab: scatter (or erase) now, request any prop it placed that is not
    /// loaded (joining a load in flight). Returns the placements it removed.
    fn dab(&mut self, at: Vec2) -> Result<usize, WorkspaceError> {
        let applied = self.host.world_mut().dab(at)?;
        let props: BTreeSet<Arc<str>> = applied.edit.added.iter().map(|p| p.prop.clone()).collect();
        for prop in props {
            self.request(&prop);
        }
        Ok(applied.edit.removed.len())
    }

    /// Closes the stroke, records it and autosaves.
    pub fn end_stroke(&mut self) {
        let Some(stroke) = self.stroke.take() else {
            return;
        };
        if stroke.spacer.is_none() {
            return;
        }
        let report = self.host.world_mut().end_stroke();
        self.strokes += 1;
        self.last_stroke = Some(match report {
            Some(report) => LastStroke::Paint(report),
            None => LastStroke::Erase {
                removed: stroke.removed,
                dabs: stroke.dabs,
            },
        });
        self.autosave_now();
    }

    pub fn undo(&mut self) {
        self.end_stroke();
        match self.host.world_mut().undo() {
            Ok(Some(_)) => {
                self.info("undid the last stroke");
                self.autosave_now();
            }
            Ok(None) => self.info("nothing to undo"),
            Err(e) => self.error(e.to_string()),
        }
    }

    pub fn redo(&mut self) {
        self.end_stroke();
        match self.host.world_mut().redo() {
            Ok(Some(edit)) => {
                let props: BTreeSet<Arc<str>> = edit.added.iter().map(|p| p.prop.clone()).collect();
                for prop in props {
                    self.request(&prop);
                }
                self.info("redid a stroke");
                self.autosave_now();
            }
            Ok(None) => self.info("nothing to redo"),
            Err(e) => self.error(e.to_string()),
        }
    }

    fn autosave_now(&mut self) {
        if let Err(e) = self
            .autosave
            .after_change(self.host.world().editor().session())
        {
            self.error(format!("autosave failed: {e}"));
        }
    }

    /// Saves the session journal to `path` (default: the session file), atomically.
    pub fn save(&mut self, path: Option<&Path>) -> Result<PathBuf, WorkspaceError> {
        self.end_stroke();
        let path = path.unwrap_or(&self.options.session).to_owned();
        session_file::save(self.world().editor().session(), &path)?;
        self.info(format!("saved {}", path.display()));
        Ok(path)
    }

    /// Opens the session journal at `path` (default: the session file, which reverts to
    /// the last save) in place of the one being painted: its placements replayed bit
    /// for bit (its streamed fills made around the camera), its undo history, its
    /// terrain. Later saves and autosaves go to `path`.
    /// Props already loaded stay; the session's others load in the background. On
    /// error the current session stays as it was.
    pub fn open_session(&mut self, path: Option<&Path>) -> Result<PathBuf, WorkspaceError> {
        self.end_stroke();
        // A fill planned for the session being left would land in the wrong one.
        self.cancel();
        let path = path.unwrap_or(&self.options.session).to_owned();
        let session = session_file::load(&path)?;
        let base = path.parent().unwrap_or(Path::new("."));
        let terrain = terrain_of(&session.terrain, base)?;
        let (world, _) = World::replay_streamed(terrain, &session, &self.options.lod)?;
        self.host
            .replace_world(world)
            .map_err(|reason| WorkspaceError::Open {
                path: path.clone(),
                reason,
            })?;
        self.autosave.move_to(session_file::autosave_path(&path));
        self.options.session = path.clone();
        self.catalog = current_catalog(self.host.world());
        self.last_stroke = None;
        // The active preset paints on, registered in the opened session's journal.
        if let Some(active) = &mut self.active {
            active.session_name = self
                .host
                .world_mut()
                .use_preset(&active.stem, active.preset.clone())?;
        }
        self.request_placed_props();
        self.preload_active();
        self.info(format!(
            "opened {}: {} placements",
            path.display(),
            self.world().editor().painter().len()
        ));
        Ok(path)
    }

    /// Polls the preset folder; an edited active preset is re-read (its props
    /// preloaded), a broken one reported.
    pub fn rescan_presets(&mut self) {
        let changes = match self.presets.rescan() {
            Ok(changes) => changes,
            Err(e) => return self.error(e.to_string()),
        };
        for change in changes {
            let (stem, verb) = match &change {
                PresetChange::Added(s) => (s, "new preset"),
                PresetChange::Changed(s) => (s, "preset changed"),
                PresetChange::Removed(s) => (s, "preset removed"),
            };
            let broken = self
                .presets
                .find(stem)
                .and_then(|(_, e)| e.preset.as_ref().err().cloned());
            match broken {
                Some(error) => self.error(error),
                None => self.info(format!("{verb}: {stem}")),
            }
            let is_active = self.active.as_ref().is_some_and(|a| &a.stem == stem);
            if is_active && matches!(change, PresetChange::Changed(_)) {
                if let Err(e) = self.refresh_active_registration() {
                    self.error(e.to_string());
                }
            }
        }
    }

    /// Installs the props whose loads finished; a failed load keeps what was drawn.
    /// Never blocks. Returns how many props were installed.
    pub fn poll_loads(&mut self) -> usize {
        let mut installed = 0;
        for outcome in self.loader.poll() {
            let result = outcome
                .result
                .and_then(|loaded| self.host.install(&outcome.prop, &loaded).map(|()| loaded));
            match result {
                Ok(loaded) => {
                    installed += 1;
                    self.statuses.insert(
                        outcome.prop,
                        PropStatus::Loaded {
                            revision: loaded.revision,
                            baked: loaded.baked,
                        },
                    );
                }
                Err(error) => {
                    let revision = match self.statuses.get(&outcome.prop) {
                        Some(PropStatus::Loaded { revision, .. }) => Some(*revision),
                        Some(PropStatus::Failed { revision, .. }) => *revision,
                        _ => None,
                    };
                    self.error(error.clone());
                    self.statuses
                        .insert(outcome.prop, PropStatus::Failed { error, revision });
                }
            }
        }
        installed
    }

    /// Applies a pass of the bake watcher: props whose bake changed reload (their
    /// placements stay and show the new geometry), a failed bake is reported and the
    /// old version stays, and a changed assets folder becomes the catalog of the
    /// strokes that follow (recorded in the journal): new props join their category,
    /// deleted ones leave.
    pub fn apply_watch_pass(&mut self, pass: &WatchPass) {
        self.watch_passes += 1;
        self.rebakes += u32::from(!pass.baked.is_empty());
        self.last_watch_pass = Some(pass.clone());
        if let Some(error) = &pass.error {
            self.error(format!("bake: {error}"));
        }
        for (prop, error) in &pass.failed {
            let revision = match self.statuses.get(prop.as_str()) {
                Some(PropStatus::Loaded { revision, .. }) => Some(*revision),
                Some(PropStatus::Failed { revision, .. }) => *revision,
                _ => None,
            };
            self.error(format!("bake: {error}"));
            self.statuses.insert(
                prop.as_str().into(),
                PropStatus::Failed {
                    error: error.clone(),
                    revision,
                },
            );
        }
        self.follow_assets_folder();
        for prop in &pass.baked {
            if self.statuses.contains_key(prop.as_str()) {
                self.loader.reload(prop);
                self.info(format!("re-baked {prop}"));
            }
        }
        // New props of the active preset's categories load like the rest of them.
        self.preload_active();
    }

    /// Makes the catalog follow the assets folder when props were added or deleted.
    fn follow_assets_folder(&mut self) {
        let snapshot = match read_snapshot(&self.options.assets) {
            Ok(snapshot) => snapshot,
            Err(e) => return self.error(e.to_string()),
        };
        if snapshot == self.catalog {
            return;
        }
        let gone: Vec<String> = self
            .catalog
            .props
            .iter()
            .filter(|file| !snapshot.props.contains(file))
            .map(|file| prop_id_of(file))
            .collect();
        let applied = self
            .host
            .world_mut()
            .apply(&Event::Catalog(snapshot.clone()), "catalog");
        if let Err(e) = applied {
            return self.error(e.to_string());
        }
        self.catalog = snapshot;
        for prop in gone {
            self.statuses.remove(prop.as_str());
            match self.host.uninstall(&prop) {
                Ok(()) => self.info(format!("{prop} was deleted")),
                Err(e) => self.error(format!("{prop}: {e}")),
            }
        }
    }
}

/// `conifer/pine.glb` → `conifer/pine`.
fn prop_id_of(file: &str) -> String {
    file.rsplit_once('.')
        .map_or(file, |(stem, _)| stem)
        .to_owned()
}

/// The catalog snapshot strokes use now: the session's, or its last catalog event.
fn current_catalog(world: &World) -> CatalogSnapshot {
    let session = world.editor().session();
    session
        .events
        .iter()
        .rev()
        .find_map(|event| match event {
            Event::Catalog(snapshot) => Some(snapshot.clone()),
            _ => None,
        })
        .unwrap_or_else(|| session.catalog.clone())
}

/// The world `options` ask for: the session file replayed when it is to be continued
/// and exists, else a new session on the chosen terrain with the assets folder's
/// catalog.
pub fn open_world(options: &WorkspaceOptions) -> Result<World, WorkspaceError> {
    let lod = &options.lod;
    if options.continue_session && options.session.exists() {
        let session = session_file::load(&options.session)?;
        let base = options.session.parent().unwrap_or(Path::new("."));
        let terrain = terrain_of(&session.terrain, base)?;
        let (world, _) = World::replay_streamed(terrain, &session, lod)?;
        return Ok(world);
    }
    let (terrain, source) = match &options.terrain {
        TerrainChoice::DefaultWorld => (default_world(), TerrainSource::DefaultWorld),
        TerrainChoice::Heightmap { path, scale } => {
            let terrain = read_heightmap(path, *scale)?;
            let file = session_relative(path, &options.session);
            (
                terrain,
                TerrainSource::Heightmap {
                    file,
                    scale: *scale,
                },
            )
        }
    };
    let session = Session::new(
        options.seed,
        options.cap,
        source,
        read_snapshot(&options.assets)?,
    );
    Ok(World::new(terrain, &session, lod)?)
}

fn terrain_of(source: &TerrainSource, base: &Path) -> Result<Terrain, WorkspaceError> {
    match source {
        TerrainSource::DefaultWorld => Ok(default_world()),
        TerrainSource::Heightmap { file, scale } => read_heightmap(&base.join(file), *scale),
    }
}

fn read_heightmap(path: &Path, scale: HeightmapScale) -> Result<Terrain, WorkspaceError> {
    let error = |reason: String| WorkspaceError::Heightmap {
        path: path.to_owned(),
        reason,
    };
    // A session names its heightmap: a FIFO or `/dev/zero` there must not hang the viewer.
    let bytes = sylva_cache::store::read_regular_file(path).map_err(|e| error(e.to_string()))?;
    Terrain::from_png(&bytes, scale).map_err(|e| error(e.to_string()))
}

/// `heightmap` as the session file will name it: relative to the session's folder
/// when it lies inside it, else absolute.
fn session_relative(heightmap: &Path, session: &Path) -> String {
    let absolute = |p: &Path| std::path::absolute(p).unwrap_or_else(|_| p.to_owned());
    let map = absolute(heightmap);
    let folder = absolute(session.parent().unwrap_or(Path::new(".")));
    map.strip_prefix(&folder)
        .unwrap_or(&map)
        .to_string_lossy()
        .replace('\\', "/")
}

mod fills;

#[cfg(test)]
pub(crate) mod tests;

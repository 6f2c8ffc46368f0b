//! [`PropsRoutine`]: sylva's props as a rend3 routine an application holds, in
//! rend3-routine's shape. Made once from the renderer and a painted session; per frame
//! one [`PropsRoutine::update`] (LOD, fades, GPU sync, culling and upload) and one
//! [`PropsRoutine::add_to_graph`] in place of `BaseRenderGraph::add_to_graph` (its
//! routines bundled in [`BaseRoutines`]), which runs rend3's base graph with sylva's
//! nodes where they belong: a shadow node per
//! directional light after rend3's shadow pass, and the forward node into rend3's colour
//! and depth before its forward pass, so props and the application's objects occlude
//! and shadow each other. With [`PropsRoutine::watch_assets`] it also keeps the props
//! in line with an assets folder: a watcher re-bakes on its own thread and the next
//! update swaps what changed, so a frame never waits for a bake. A session's streamed
//! fills are made around the camera on worker threads and mirrored a bounded share a
//! frame ([`World::update_streams`]), so a frame never waits for a tile either. Their
//! near placements go to the registry the renderer draws; those past where any level
//! but their prop's last is drawn stay in their tiles ([`FarPlacements::Blocks`]) and
//! reach the renderer as its far tiles (`far.rs`), written when they change, so a
//! forest seen to the horizon costs neither registry rows nor per-frame uploads.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use glam::Vec4;
use rend3::graph::{ReadyData, RenderGraph};
use rend3::types::{SampleCount, TextureFormat};
use rend3::Renderer;
use rend3_routine::base::{BaseRenderGraph, BaseRenderGraphIntermediateState};
use rend3_routine::common::WholeFrameInterfaces;
use rend3_routine::pbr::PbrRoutine;
use rend3_routine::skybox::SkyboxRoutine;
use rend3_routine::tonemapping::TonemappingRoutine;
use sylva_buckets::BucketChanges;
use sylva_cache::{CacheDir, PropFiles};
use sylva_lod::{TickStats, Viewport};
use sylva_render::props::{DrawStats, LightReach, PropsRenderer};
use sylva_render::{use_plain_samplers, CameraView};
use sylva_world::stream::{StreamStats, DEFAULT_STREAM_HYSTERESIS};
use sylva_world::{FarBudget, FarPlacements, World, WorldError};

use crate::far::FarTiles;
use crate::watcher::{WatchPass, Watcher};
use crate::{load_prop, LoadReport, LoadedProp, RuntimeError};

/// A painted session's props on an application's rend3 renderer.
pub struct PropsRoutine {
    renderer: Arc<Renderer>,
    pub(crate) world: World,
    pub(crate) props: PropsRenderer,
    changes: BucketChanges,
    loaded: BTreeMap<String, LoadedProp>,
    dithered_transitions: bool,
    impostors: bool,
    watched: Option<Watched>,
    /// The streamed fills after the last update, and the first error streaming met.
    stream: StreamStats,
    stream_error: Option<WorldError>,
    /// The streamed fills' far placements, as the renderer's far blocks.
    far: FarTiles,
}

/// rend3-routine's routines of a base graph, as `BaseRenderGraph::add_to_graph` takes
/// them; the application's to hold (its own objects draw with `pbr`).
pub struct BaseRoutines {
    /// The base graph.
    pub base: BaseRenderGraph,
    /// rend3's PBR routine.
    pub pbr: PbrRoutine,
    /// A sky, if any.
    pub skybox: Option<SkyboxRoutine>,
    /// Tone mapping into the output's format.
    pub tonemapping: TonemappingRoutine,
    /// Samples per pixel.
    pub samples: SampleCount,
    /// The ambient light.
    pub ambient: Vec4,
}

impl BaseRoutines {
    /// The routines for output in `format`: no sky, one sample a pixel, a quarter of
    /// ambient light, and plain samplers (software drivers filter anisotropically
    /// at a crawl).
    pub fn new(renderer: &Arc<Renderer>, format: TextureFormat) -> Self {
        let mut base = BaseRenderGraph::new(renderer);
        use_plain_samplers(renderer, &mut base);
        let pbr = PbrRoutine::new(renderer, &mut renderer.data_core.lock(), &base.interfaces);
        let tonemapping = TonemappingRoutine::new(renderer, &base.interfaces, format);
        Self {
            base,
            pbr,
            skybox: None,
            tonemapping,
            samples: SampleCount::One,
            ambient: Vec4::splat(0.25),
        }
    }
}

/// An assets folder being watched, and the cache its bakes land in.
struct Watched {
    watcher: Watcher,
    cache: CacheDir,
}

/// What [`PropsRoutine::update`] did for a frame.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct UpdateStats {
    /// The streamed fills after the frame's update (all zero without any).
    pub stream: StreamStats,
    /// The LOD controller's tick.
    pub lod: TickStats,
    /// What the frame's views draw.
    pub draw: DrawStats,
    /// What the assets watcher's bakes finished since the last update changed, if any
    /// finished.
    pub reload: Option<Reload>,
}

/// The bakes a watcher finished, and what loading their results changed.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Reload {
    /// Props re-baked (or fetched).
    pub baked: Vec<String>,
    /// Props whose bake failed, with why: their last good version stays drawn.
    pub failed: Vec<(String, String)>,
    /// Why a whole pass, or reading the cache after it, failed.
    pub errors: Vec<String>,
    /// What loading the cache after the bakes changed: swapped, new and gone props,
    /// and entries that would not load (the old version stays).
    pub load: LoadReport,
}

impl std::fmt::Display for Reload {
    /// One line: what was baked and swapped, then each failure.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let list = |props: &[String]| props.join(", ");
        write!(f, "baked [{}]", list(&self.baked))?;
        write!(f, ", swapped [{}]", list(&self.load.swapped))?;
        for (prop, why) in &self.failed {
            write!(f, "; {prop} failed: {why}")?;
        }
        for error in self.errors.iter().chain(&self.load.failed) {
            write!(f, "; {error}")?;
        }
        Ok(())
    }
}

impl PropsRoutine {
    /// A routine drawing `world`'s placements on `renderer`, whose base graph's
    /// `interfaces` its pipelines share; no props are loaded yet
    /// ([`PropsRoutine::load_cache`]).
    pub fn new(renderer: &Arc<Renderer>, interfaces: &WholeFrameInterfaces, world: World) -> Self {
        let mut routine = Self {
            renderer: renderer.clone(),
            world,
            props: PropsRenderer::new(renderer, interfaces),
            changes: BucketChanges::default(),
            loaded: BTreeMap::new(),
            dithered_transitions: true,
            impostors: true,
            watched: None,
            stream: StreamStats::default(),
            stream_error: None,
            far: FarTiles::default(),
        };
        routine.hand_over_fades();
        routine.start_streams();
        routine
    }

    /// Starts making the world's streamed fills around the camera, unless its owner
    /// did: on a worker thread per core but one, each family out to where its props
    /// are seen ([`World::start_streams`]).
    fn start_streams(&mut self) {
        if self.world.streamed_fills() == 0 || self.world.streams_started() {
            return;
        }
        let workers = std::thread::available_parallelism().map_or(1, |n| n.get() - 1);
        let started = self.world.start_streams(
            DEFAULT_STREAM_HYSTERESIS,
            workers.max(1),
            FarPlacements::Blocks,
        );
        if let Err(error) = started {
            self.stream_error.get_or_insert(error);
        }
    }

    /// The streamed fills' counts after the last update (all zero without any).
    pub fn stream_stats(&self) -> StreamStats {
        self.stream
    }

    /// The error streaming the world's fills met since the last call, if any: the
    /// streams pause until it is taken.
    pub fn take_stream_error(&mut self) -> Option<WorldError> {
        self.stream_error.take()
    }

    /// The session.
    pub fn world(&self) -> &World {
        &self.world
    }

    /// The session, to paint.
    pub fn world_mut(&mut self) -> &mut World {
        &mut self.world
    }

    /// The props renderer (GPU geometry and textures of the loaded props).
    pub fn props(&self) -> &PropsRenderer {
        &self.props
    }

    /// What is loaded, by prop id.
    pub fn loaded(&self) -> &BTreeMap<String, LoadedProp> {
        &self.loaded
    }

    /// Whether props loaded from now on draw their impostors (the default) or end at
    /// their coarsest mesh; for comparisons. Props already loaded keep what they have.
    pub fn set_impostors(&mut self, impostors: bool) {
        self.impostors = impostors;
    }

    /// Whether placements cross-fade between LOD levels across each switch (the
    /// default) or change hard at the controller's switch; for comparisons.
    pub fn set_dithered_transitions(&mut self, dithered: bool) {
        self.dithered_transitions = dithered;
        self.hand_over_fades();
    }

    /// Gives the props renderer the world's fades, or their hard switches; the renderer
    /// drops its cached culls only when they differ.
    fn hand_over_fades(&mut self) {
        let fades = self.world.lod_fades();
        self.props.set_lod_fades(if self.dithered_transitions {
            fades.clone()
        } else {
            fades.hard()
        });
    }

    /// Brings the loaded props in line with the cache's manifest: new props load, props
    /// with a new revision swap their geometry in place, props gone from the manifest
    /// unload. An entry that fails to load is reported and leaves the prop as it was.
    pub fn load_cache(&mut self, cache: &CacheDir) -> Result<LoadReport, RuntimeError> {
        let manifest = cache.read_manifest()?;
        let mut report = LoadReport::default();
        let mut present = Vec::with_capacity(manifest.assets.len());
        for entry in manifest.assets.values() {
            present.push(entry.prop.clone());
            let current = self.loaded.get(&entry.prop);
            if current.is_some_and(|c| c.revision == entry.revision && c.entry == entry.entry) {
                continue;
            }
            let first = current.is_none();
            let loaded = cache
                .read_prop(&entry.entry)
                .map_err(RuntimeError::from)
                .and_then(|files| self.set_prop(&entry.prop, &entry.entry, entry.revision, &files));
            match loaded {
                Ok(()) if first => report.loaded.push(entry.prop.clone()),
                Ok(()) => report.swapped.push(entry.prop.clone()),
                Err(error) => report.failed.push(error.to_string()),
            }
        }
        let gone: Vec<String> = self
            .loaded
            .keys()
            .filter(|p| !present.contains(p))
            .cloned()
            .collect();
        for prop in gone {
            self.unload(&prop)?;
            report.unloaded.push(prop);
        }
        Ok(report)
    }

    /// Loads (or replaces) one prop from its entry's and texture blobs' bytes.
    pub fn set_prop(
        &mut self,
        prop: &str,
        entry_name: &str,
        revision: u64,
        files: &PropFiles,
    ) -> Result<(), RuntimeError> {
        let shape = load_prop(
            &self.renderer,
            &mut self.props,
            &mut self.world,
            prop,
            entry_name,
            files,
            self.impostors,
        )?;
        self.loaded.insert(
            prop.to_owned(),
            LoadedProp {
                revision,
                entry: entry_name.to_owned(),
                parts: shape.parts,
                lods: shape.lods,
                impostor: shape.impostor,
            },
        );
        Ok(())
    }

    /// Forgets a prop's geometry; its placements stay, pending, until it returns.
    pub fn unload(&mut self, prop: &str) -> Result<(), RuntimeError> {
        let key = self.world.prop_key(prop);
        self.props.remove_prop(key);
        self.world.remove_prop_shape(prop)?;
        self.loaded.remove(prop);
        Ok(())
    }

    /// Puts `world` in place of the current one, which it returns. Loaded props stay
    /// loaded: their shapes join the new world and their GPU geometry is kept; the new
    /// world's buckets are mirrored from scratch on the next frame. On error nothing
    /// changes.
    pub fn replace_world(&mut self, mut world: World) -> Result<World, RuntimeError> {
        let keys = world.adopt_prop_shapes(&self.world)?;
        self.props.adopt_registry(&keys);
        self.far.clear();
        self.changes = BucketChanges::default();
        let previous = std::mem::replace(&mut self.world, world);
        self.hand_over_fades();
        self.stream = StreamStats::default();
        self.start_streams();
        Ok(previous)
    }

    /// Keeps the props in line with `assets` from now on: a watcher bakes the folder into
    /// `cache` at once and after every change, on a thread of its own, and each
    /// [`Self::update`] loads what its finished bakes changed. The last good version
    /// of a prop whose new bake fails stays drawn. A second call replaces the watcher.
    pub fn watch_assets(&mut self, assets: &Path, cache: &Path) {
        // The old watcher stops (and its thread ends) before the new one starts.
        self.watched = None;
        self.watched = Some(Watched {
            watcher: Watcher::start(assets, cache, None),
            cache: CacheDir::new(cache),
        });
    }

    /// Applies the watcher's finished bakes: the cache is loaded again once any pass
    /// finished, which swaps only what changed. `None` when no pass finished.
    fn reload(&mut self) -> Option<Reload> {
        let watched = self.watched.as_ref()?;
        let passes: Vec<WatchPass> = watched.watcher.poll();
        if passes.is_empty() {
            return None;
        }
        let cache = watched.cache.clone();
        let mut reload = Reload::default();
        for pass in passes {
            reload.baked.extend(pass.baked);
            reload.failed.extend(pass.failed);
            reload.errors.extend(pass.error);
        }
        match self.load_cache(&cache) {
            Ok(load) => reload.load = load,
            Err(error) => reload.errors.push(error.to_string()),
        }
        Some(reload)
    }

    /// Brings the streamed fills, the LODs and the GPU copies of the buckets up to date
    /// for `camera` drawing an image `height` pixels tall (switch distances, and so how
    /// far streamed families reach, are measured on that viewport) at `now` seconds;
    /// the part of a frame that needs no `ReadyData`.
    pub fn update_lod(&mut self, camera: &CameraView, height: u32, now: f64) -> TickStats {
        let started = std::time::Instant::now();
        self.set_viewport(camera, height);
        // Loads and the viewport change the switches; comparing fades is O(1).
        self.hand_over_fades();
        if self.world.streams_started() && self.stream_error.is_none() {
            match self.world.update_streams(camera.eye) {
                Ok(stats) => self.stream = stats,
                Err(error) => self.stream_error = Some(error),
            }
        }
        let tick = self.world.tick_lod(camera.eye, now);
        self.props
            .sync_from(self.world.registry_mut(), &mut self.changes);
        let budget = Some(FarBudget::for_frame(started));
        let gpu = (&*self.renderer, &mut self.props);
        self.far.sync(gpu, &mut self.world, camera.eye, budget);
        tick
    }

    /// Waits until the streamed fills round `camera` (drawing an image `height` pixels
    /// tall) are all made and shown, whole (no fade-in under way, every far tile set),
    /// as a game's loading screen does: for stills, whose pictures must not depend on
    /// how fast the workers were. Returns at once without streamed fills.
    pub fn settle_streams(&mut self, camera: &CameraView, height: u32) -> Result<(), RuntimeError> {
        if !self.world.streams_started() {
            return Ok(());
        }
        self.set_viewport(camera, height);
        if let Some(error) = self.stream_error.take() {
            return Err(error.into());
        }
        loop {
            self.stream = self.world.update_streams(camera.eye)?;
            if self.stream.settled() {
                self.world.finish_fades();
                self.hand_over_fades();
                let gpu = (&*self.renderer, &mut self.props);
                self.far.sync(gpu, &mut self.world, camera.eye, None);
                return Ok(());
            }
            std::thread::sleep(std::time::Duration::from_millis(2));
        }
    }

    /// Switch distances, and how far streamed families reach, are measured on a
    /// `camera`'s viewport `height` pixels tall.
    fn set_viewport(&mut self, camera: &CameraView, height: u32) {
        let viewport = Viewport {
            height_px: height as f32,
            vertical_fov_rad: camera.vfov.to_radians(),
        };
        // A degenerate window (minimised to 0 lines) keeps the last viewport.
        let _ = self.world.set_lod_viewport(viewport);
    }

    /// Culls the frame's views and uploads what they draw: after `renderer.ready()`,
    /// whose `ready` tells the shadow cameras; `lights` bound where the directional
    /// lights' shadows can reach.
    pub fn prepare(
        &mut self,
        ready: &ReadyData,
        camera: &CameraView,
        (width, height): (u32, u32),
        lights: &[LightReach],
    ) -> DrawStats {
        let view_proj = camera.view_proj(width as f32 / height as f32);
        self.props.prepare_frame(
            &self.renderer,
            ready,
            self.world.registry(),
            view_proj,
            camera.eye,
            lights,
        )
    }

    /// One frame's update, after `renderer.ready()`: the watcher's finished bakes
    /// loaded (see [`Self::watch_assets`]), [`Self::update_lod`] then [`Self::prepare`],
    /// for a `size` image seen by `camera` at `now` seconds.
    pub fn update(
        &mut self,
        ready: &ReadyData,
        camera: &CameraView,
        size: (u32, u32),
        now: f64,
    ) -> UpdateStats {
        let reload = self.reload();
        let lod = self.update_lod(camera, size.1, now);
        let draw = self.prepare(ready, camera, size, &[]);
        UpdateStats {
            stream: self.stream,
            lod,
            draw,
            reload,
        }
    }

    /// Adds sylva's shadow node for each of `ready`'s directional lights; after rend3's
    /// shadow pass.
    pub fn add_shadow_nodes<'node>(&'node self, graph: &mut RenderGraph<'node>, ready: &ReadyData) {
        for light in 0..ready.directional_light_cameras.len() {
            self.props.add_shadow_node(graph, light);
        }
    }

    /// Adds sylva's forward node into `state`'s colour and depth; before rend3's
    /// forward pass.
    pub fn add_forward_node<'node>(
        &'node self,
        graph: &mut RenderGraph<'node>,
        state: &BaseRenderGraphIntermediateState,
    ) {
        self.props.add_forward_node(
            graph,
            state.color,
            state.resolve,
            state.depth,
            state.forward_uniform_bg,
        );
    }

    /// rend3-routine's `BaseRenderGraph::add_to_graph` with sylva's nodes inserted, for
    /// an image of `resolution` pixels.
    pub fn add_to_graph<'node>(
        &'node self,
        graph: &mut RenderGraph<'node>,
        ready: &ReadyData,
        routines: &'node BaseRoutines,
        resolution: glam::UVec2,
    ) {
        let BaseRoutines {
            base,
            pbr,
            skybox,
            tonemapping,
            samples,
            ambient,
        } = routines;
        let (skybox, samples) = (skybox.as_ref(), *samples);
        let to_rend3 = |v: glam::UVec2| rend3::types::glam::UVec2::new(v.x, v.y);
        let ambient = rend3::types::glam::Vec4::from(ambient.to_array());
        let state =
            BaseRenderGraphIntermediateState::new(graph, ready, to_rend3(resolution), samples);
        state.pre_skinning(graph);
        state.pbr_pre_culling(graph);
        state.create_frame_uniforms(graph, base, ambient);
        state.skinning(graph, base);
        state.pbr_shadow_culling(graph, base, pbr);
        state.pbr_culling(graph, base, pbr);
        state.pbr_shadow_rendering(graph, pbr);
        self.add_shadow_nodes(graph, ready);
        state.pbr_prepass_rendering(graph, pbr, samples);
        state.skybox(graph, skybox, samples);
        self.add_forward_node(graph, &state);
        state.pbr_forward_rendering(graph, pbr, samples);
        let surface = graph.add_surface_texture();
        state.tonemapping(graph, tonemapping, surface);
    }
}

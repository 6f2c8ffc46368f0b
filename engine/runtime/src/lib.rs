//! The runtime: a painting session ([`World`]) drawn by the rend3 plugin with props
//! from the bake cache. It loads every baked prop of a cache into the registry (shape)
//! and the GPU (geometry), swaps a re-baked prop in place between frames (placements
//! and buckets stay), and per frame ticks the LOD controller, mirrors the registry's
//! bucket changes and draws. Shared by the `sylva` command and the viewer.
//!
//! An application with its own rend3 renderer holds a [`PropsRoutine`] instead (see
//! `examples/embed`): the same loading and per-frame work, and its nodes inserted into
//! rend3-routine's base graph. [`Runtime`] draws through one too.

#![warn(missing_docs)]

mod baked;
mod far;
mod routine;
mod watcher;

use std::collections::BTreeMap;

use rend3::Renderer;
use serde::Serialize;
use sylva_buckets::{PlacementRegistry, PropShape};
use sylva_cache::{CacheDir, FormatError, PropFiles, StoreError};
use sylva_lod::TickStats;
use sylva_render::props::{DrawStats, GeometryError, PropsRenderer};
use sylva_render::{
    draw_frame_with_overlays, render_image, CameraView, OutputFrame, Overlays, RenderContext,
    RenderError, RgbaImage, Scene, TerrainStats,
};
use sylva_world::{World, WorldError};
use thiserror::Error;

pub use baked::{geometry_of, impostor_of, level_errors_of, shape_of};
pub use routine::{BaseRoutines, PropsRoutine, Reload, UpdateStats};
pub use watcher::{WatchPass, Watcher};

/// Why the runtime could not load or draw.
#[derive(Debug, Error)]
#[allow(missing_docs)] // The fields are named by the messages.
pub enum RuntimeError {
    #[error(transparent)]
    Render(#[from] RenderError),
    #[error(transparent)]
    World(#[from] WorldError),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("cache entry `{entry}` for {prop}: {source}")]
    Entry {
        prop: String,
        entry: String,
        source: FormatError,
    },
    #[error("cache entry `{entry}` for {prop}: {source}")]
    Geometry {
        prop: String,
        entry: String,
        source: GeometryError,
    },
    #[error("cache entry `{entry}` holds prop `{found}`, the manifest says `{expected}`")]
    PropMismatch {
        entry: String,
        expected: String,
        found: String,
    },
}

/// Loads (or replaces) prop `prop` from the bytes of its cache entry `entry_name` and
/// the texture blobs it names (`CacheDir::read_prop` reads both): its parts into `props`
/// (GPU geometry), its shape into `world`'s registry, whose placements of it then draw
/// from the next synced frame on, and its levels' errors and size into `world`'s LOD
/// controller; its impostor too where the bake made one and
/// `impostors` asks for it (otherwise its coarsest mesh is its last level). For
/// [`PropsRoutine`] and tools that bake and draw one prop. If the entry or a blob is
/// refused, nothing changes.
pub fn load_prop(
    renderer: &Renderer,
    props: &mut PropsRenderer,
    world: &mut World,
    prop: &str,
    entry_name: &str,
    files: &PropFiles,
    impostors: bool,
) -> Result<PropShape, RuntimeError> {
    let view = files.parse().map_err(|source| RuntimeError::Entry {
        prop: prop.to_owned(),
        entry: entry_name.to_owned(),
        source,
    })?;
    let entry = &view.entry;
    if entry.prop_id != prop {
        return Err(RuntimeError::PropMismatch {
            entry: entry_name.to_owned(),
            expected: prop.to_owned(),
            found: entry.prop_id.to_owned(),
        });
    }
    let impostor = impostors.then(|| impostor_of(&view)).flatten();
    let shape = PropShape {
        impostor: impostor.is_some(),
        ..shape_of(entry)
    };
    let key = world.prop_key(prop);
    // Geometry first: if the GPU refuses it, the registry keeps the old shape too.
    props
        .set_prop(renderer, key, &geometry_of(&view), impostor.as_ref())
        .map_err(|source| RuntimeError::Geometry {
            prop: prop.to_owned(),
            entry: entry_name.to_owned(),
            source,
        })?;
    world.set_prop_shape(prop, shape)?;
    let (level_errors_m, radius_m) = level_errors_of(entry, shape);
    world.describe_prop_lod(prop, level_errors_m, radius_m)?;
    Ok(shape)
}

/// What is loaded of one prop.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LoadedProp {
    /// The manifest's geometry revision of the loaded data.
    pub revision: u64,
    /// The entry file it was loaded from.
    pub entry: String,
    /// Its parts.
    pub parts: u16,
    /// The mesh LOD levels drawn.
    pub lods: u8,
    /// Whether its impostor is drawn past them.
    pub impostor: bool,
}

/// What a [`Runtime::load_cache`] pass changed.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct LoadReport {
    /// Props loaded for the first time.
    pub loaded: Vec<String>,
    /// Props whose geometry was replaced (a new revision).
    pub swapped: Vec<String>,
    /// Props gone from the cache (their placements wait, pending).
    pub unloaded: Vec<String>,
    /// Entries that could not be loaded; the previous version of the prop, if any, stays.
    pub failed: Vec<String>,
}

/// What one frame did.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct FrameStats {
    /// Placements in the registry.
    pub placements: u32,
    /// Placements whose prop is not loaded.
    pub pending: u32,
    /// Placements of loaded props culled for their size on screen or their distance:
    /// not drawn, casting no shadow.
    pub culled_by_size: u32,
    /// Placements whose LOD was evaluated this frame.
    pub lod_evaluated: u32,
    /// Placements that changed LOD this frame.
    pub lod_moved: u32,
    /// The terrain patches drawn for this frame's camera.
    pub terrain: TerrainStats,
    #[serde(flatten)]
    /// What the props renderer drew.
    pub draw: DrawStats,
}

/// A painting session drawn with props from the bake cache, on a renderer it owns.
pub struct Runtime {
    context: RenderContext,
    scene: Scene,
    routine: PropsRoutine,
}

impl Runtime {
    /// A runtime drawing `world` (its terrain as the scene) on `context`; no props are
    /// loaded yet ([`Runtime::load_cache`]).
    pub fn new(mut context: RenderContext, world: World) -> Result<Self, RuntimeError> {
        let scene = Scene::new(&mut context, world.terrain())?;
        let routine = PropsRoutine::new(&context.renderer, &context.base.interfaces, world);
        Ok(Self {
            context,
            scene,
            routine,
        })
    }

    /// Whether props loaded from now on draw their impostors (the default) or end at
    /// their coarsest mesh; for comparisons. Props already loaded keep what they have.
    pub fn set_impostors(&mut self, impostors: bool) {
        self.routine.set_impostors(impostors);
    }

    /// Moves the sun: its light travels along `direction` (see
    /// [`sylva_render::sun_direction`]), in this scene and any a new terrain brings.
    pub fn set_sun(&mut self, direction: glam::Vec3) {
        self.scene.set_sun(&self.context.renderer, direction);
    }

    /// Whether placements cross-fade between LOD levels across each switch (the
    /// default) or change hard at the controller's switch; for comparisons.
    pub fn set_dithered_transitions(&mut self, dithered: bool) {
        self.routine.set_dithered_transitions(dithered);
    }

    /// The session.
    pub fn world(&self) -> &World {
        self.routine.world()
    }

    /// The session, to paint.
    pub fn world_mut(&mut self) -> &mut World {
        self.routine.world_mut()
    }

    /// The renderer and routines.
    pub fn context(&self) -> &RenderContext {
        &self.context
    }

    /// The props renderer (GPU geometry and textures of the loaded props).
    pub fn props(&self) -> &PropsRenderer {
        self.routine.props()
    }

    /// What is loaded, by prop id.
    pub fn loaded(&self) -> &BTreeMap<String, LoadedProp> {
        self.routine.loaded()
    }

    /// Brings the loaded props in line with the cache's manifest (see
    /// [`PropsRoutine::load_cache`]).
    pub fn load_cache(&mut self, cache: &CacheDir) -> Result<LoadReport, RuntimeError> {
        self.routine.load_cache(cache)
    }

    /// Loads (or replaces) one prop from its entry's and texture blobs' bytes.
    pub fn set_prop(
        &mut self,
        prop: &str,
        entry_name: &str,
        revision: u64,
        files: &PropFiles,
    ) -> Result<(), RuntimeError> {
        self.routine.set_prop(prop, entry_name, revision, files)
    }

    /// Puts `world` (a session opened from a file) in place of the current one, which
    /// it returns. Loaded props stay loaded (see [`PropsRoutine::replace_world`]), and a
    /// different terrain gets a new scene. On error nothing changes.
    pub fn replace_world(&mut self, world: World) -> Result<World, RuntimeError> {
        let scene = if world.terrain() != self.routine.world().terrain() {
            let mut scene = Scene::new(&mut self.context, world.terrain())?;
            scene.set_sun(&self.context.renderer, self.scene.sun());
            Some(scene)
        } else {
            None
        };
        let previous = self.routine.replace_world(world)?;
        if let Some(scene) = scene {
            self.scene = scene;
        }
        Ok(previous)
    }

    /// Waits until the streamed fills round `camera` are all made and shown (see
    /// [`PropsRoutine::settle_streams`]).
    pub fn settle_streams(&mut self, camera: &CameraView, height: u32) -> Result<(), RuntimeError> {
        self.routine.settle_streams(camera, height)
    }

    /// The streamed fills' counts after the last frame.
    pub fn stream_stats(&self) -> sylva_world::stream::StreamStats {
        self.routine.stream_stats()
    }

    /// Forgets a prop's geometry; its placements stay, pending, until it returns.
    pub fn unload(&mut self, prop: &str) -> Result<(), RuntimeError> {
        self.routine.unload(prop)
    }

    /// Brings the LODs, the terrain's patches and the GPU copies of the buckets up to
    /// date for `camera` drawing an image `height` pixels tall: LOD switch distances are
    /// measured on that viewport.
    pub fn prepare(
        &mut self,
        camera: &CameraView,
        height: u32,
        now: f64,
    ) -> (TickStats, TerrainStats) {
        let tick = self.routine.update_lod(camera, height, now);
        let terrain = self.scene.update_terrain(
            &self.context.renderer,
            self.routine.world().terrain(),
            camera,
        );
        (tick, terrain)
    }

    /// Draws one frame into `output` (a window surface or a texture view).
    pub fn draw(
        &mut self,
        camera: CameraView,
        now: f64,
        size: (u32, u32),
        output: OutputFrame,
    ) -> FrameStats {
        self.draw_with_overlays(camera, now, size, output, Overlays::default())
    }

    /// [`Runtime::draw`] with editor overlays: gizmo props (the viewer's brush cursor)
    /// and HUD nodes after tone mapping.
    pub fn draw_with_overlays<'a>(
        &'a mut self,
        camera: CameraView,
        now: f64,
        size: (u32, u32),
        output: OutputFrame,
        overlays: Overlays<'a>,
    ) -> FrameStats {
        let (tick, terrain) = self.prepare(&camera, size.1, now);
        let routine = &mut self.routine;
        let draw = draw_frame_with_overlays(
            &mut self.context,
            &self.scene,
            &mut routine.props,
            routine.world.registry(),
            overlays,
            camera,
            size,
            output,
        );
        Self::stats(routine.world.registry(), tick, terrain, draw)
    }

    /// Draws one frame offscreen and reads it back.
    pub fn render_image(
        &mut self,
        camera: CameraView,
        now: f64,
        width: u32,
        height: u32,
    ) -> Result<(RgbaImage, FrameStats), RuntimeError> {
        let (tick, terrain) = self.prepare(&camera, height, now);
        let routine = &mut self.routine;
        let (image, draw) = render_image(
            &mut self.context,
            &self.scene,
            &mut routine.props,
            routine.world.registry(),
            camera,
            width,
            height,
        )?;
        Ok((
            image,
            Self::stats(routine.world.registry(), tick, terrain, draw),
        ))
    }

    fn stats(
        registry: &PlacementRegistry,
        tick: TickStats,
        terrain: TerrainStats,
        draw: DrawStats,
    ) -> FrameStats {
        FrameStats {
            placements: registry.len(),
            pending: registry.pending_len(),
            culled_by_size: registry.culled_len(),
            lod_evaluated: tick.evaluated,
            lod_moved: tick.moved,
            terrain,
            draw,
        }
    }
}

//! The world's streamed fills: each one's streamer started around the camera (and
//! afresh when the reach it was started with changes), updated and mirrored into the
//! registry every frame, late placements faded in, and every tile walked for exports.

use std::sync::Arc;

use glam::{Mat4, Vec2, Vec3};
use sylva_buckets::PropKey;
use sylva_scatter::{Placement, TileSource};

use crate::stream::Erasure;
use crate::stream::{StreamChanges, StreamSettings, StreamStats, TileStreamer};
use crate::{FillWalk, World, WorldError};

/// How far a spacing family of streamed fills is seen, and from where on it is far.
#[derive(Clone, Debug, PartialEq)]
pub struct FamilyReach {
    pub family: Arc<str>,
    /// Metres out to which its placements exist.
    pub reach_m: f32,
    /// Metres past which each of its placements draws at its prop's last level; its
    /// placements there are far ([`crate::stream::StreamSettings::near_m`]).
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
pub(crate) struct StreamedFill {
    pub(crate) source: Arc<TileSource>,
    pub(crate) erasures: Vec<Erasure>,
    pub(crate) undone: bool,
    pub(crate) streamer: Option<TileStreamer>,
}

/// The arguments streams were started with ([`World::start_streams`]).
#[derive(Clone, Copy)]
pub(crate) struct StreamStart {
    pub(crate) hysteresis: f32,
    pub(crate) workers: usize,
    pub(crate) far: FarPlacements,
}

/// How long a late streamed placement takes to fade in, in seconds.
pub const FADE_IN_S: f64 = 0.4;

/// The share of its pixels a late placement draws on the frame it arrives.
pub(crate) const FADE_IN_FIRST_SHARE: f32 = 1.0 / 64.0;

impl World {
    /// Every tile streamed fill `fill` (not undone) shows, made one after another over
    /// the whole terrain with the erases standing over it applied, in memory
    /// proportional to a square of tiles: for an export, whatever the camera.
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
    pub(crate) fn start_stream(
        &mut self,
        index: usize,
        start: StreamStart,
    ) -> Result<(), WorldError> {
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
    pub(crate) fn stop_stream(&mut self, index: usize) -> Result<(), WorldError> {
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

    /// How far `tile` of streamed fill `fill` is from `eye` (on the ground's plane);
    /// ∞ for a fill that does not stream.
    pub fn streamed_tile_distance(&self, fill: usize, tile: (usize, usize), eye: Vec2) -> f32 {
        (self.streamed.get(fill))
            .and_then(|fill| fill.streamer.as_ref())
            .map_or(f32::INFINITY, |streamer| streamer.tile_distance(tile, eye))
    }

    /// What a renderer's far tile holds of `tile` of streamed fill `fill`: its far
    /// placements as their props' keys and model matrices, into `out` (cleared first).
    /// Placements of props without a key (never described, so never drawn) are left
    /// out.
    pub fn far_instances(&self, fill: usize, tile: (usize, usize), out: &mut Vec<(PropKey, Mat4)>) {
        out.clear();
        // A tile holds a few props, each placement sharing its prop's id: their keys
        // are found by pointer, not by hashing every id.
        let mut keys: Vec<(&Arc<str>, Option<PropKey>)> = Vec::new();
        for placement in self.far_placements(fill, tile) {
            let prop = &placement.prop;
            let key = match keys.iter().find(|(id, _)| Arc::ptr_eq(id, prop)) {
                Some(&(_, key)) => key,
                None => {
                    let key = self.known_prop_key(prop);
                    keys.push((prop, key));
                    key
                }
            };
            if let Some(key) = key {
                out.push((key, placement.transform()));
            }
        }
    }

    pub(crate) fn mirror_stream(
        &mut self,
        fill: usize,
        changes: StreamChanges,
    ) -> Result<(), WorldError> {
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
    pub(crate) fn advance_fades(&mut self, now: f64) {
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
}

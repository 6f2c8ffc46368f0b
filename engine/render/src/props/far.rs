//! Far blocks: placements past where any level but their prop's last is drawn, kept on
//! the GPU rather than uploaded every frame, and handed over a tile of ground at a time
//! (a streamed fill's tile, tens of metres), the unit they change in. Tiles are grouped
//! in blocks (a square of them): a block holds one instance buffer per prop, in which
//! each tile has a run of slots sized to a power of two, so a tile that changes is
//! written in place (or moved, when it outgrew its run) and the buffer grows by
//! doubling, copied on the GPU. A frame culls a prop's buffer whole where a view sees
//! all or none of it, else tile by tile, and draws each stretch of seen runs with one
//! instanced draw per bucket of the prop's last level: slots between runs hold zero
//! matrices, which draw nothing. The registry's placements need none of this; streamed
//! fills put millions of far placements here (a forest seen to the horizon) that would
//! not fit in it.
//!
//! Instances are not culled one by one: each carries where it fades out at its
//! screen-size cull (its matrix's second and third columns' free `w`, from
//! [`LodFades::coarser_ramp`]), and the shaders fade it there by its distance to the
//! eye, as the registry's placements fade on the CPU.

use std::collections::BTreeMap;
use std::ops::Range;

use glam::{Mat4, Vec3};
use rend3::Renderer;
use rustc_hash::FxHashMap;
use sylva_buckets::{scale_of, BucketKey, PlacementRegistry, PropKey};
use sylva_lod::LodFades;
use wgpu::{Buffer, BufferUsages};

use super::blocks::SlotBlock;
use super::cull::View;
use super::pipelines::{instance_buffer, INSTANCE_STRIDE};
use super::sphere::Sphere;

/// A far block's name: the caller's to choose, one per group of neighbouring tiles.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct FarBlockId(pub u64);

/// A tile of a far block, by its index in the block.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct FarTileId {
    /// The block it belongs to.
    pub block: FarBlockId,
    /// Its index in the block, the caller's to choose.
    pub tile: u32,
}

/// The fewest slots a tile's run has.
const MIN_RUN_SLOTS: u32 = 8;

/// Slots a prop's buffer in a block starts with.
const FIRST_GROUP_SLOTS: u32 = 256;

/// Where some instances stand, and from how far on they have faded out.
#[derive(Clone, Copy)]
struct Bounds {
    origins: SlotBlock,
    /// Past this distance from the eye every one of them has faded out; ∞ when never.
    gone_m: f32,
}

impl Bounds {
    /// Whether `view` may see any of them, as geometry bounded by `part`, from `eye`.
    fn seen(&self, view: &View, part: Sphere, eye: Vec3) -> bool {
        let (center, radius) = self.origins.sphere(part);
        self.origins.origin_distances(eye).0 < self.gone_m && view.draws(center, radius)
    }

    /// Whether `view` holds every one of them (some may have faded out: the shaders
    /// leave those out).
    fn all_held(&self, view: &View, part: Sphere) -> bool {
        let (center, radius) = self.origins.sphere(part);
        view.holds_all(center, radius)
    }

    fn union(all: impl Iterator<Item = Bounds>) -> Option<Self> {
        all.reduce(|a, b| Self {
            origins: SlotBlock::union(&[a.origins, b.origins]),
            gone_m: a.gone_m.max(b.gone_m),
        })
    }
}

/// A tile's instances in a prop's buffer.
struct Run {
    tile: u32,
    start: u32,
    len: u32,
    capacity: u32,
    bounds: Bounds,
}

/// A prop's instances in a block: its buffer and each tile's run in it.
struct FarGroup {
    buffer: Buffer,
    capacity: u32,
    /// Slots past the last run ever placed are unused.
    end: u32,
    /// Ordered by slot.
    runs: Vec<Run>,
    /// Runs given up, zeroed, by start and capacity.
    free: Vec<(u32, u32)>,
    bounds: Bounds,
}

impl FarGroup {
    fn new(renderer: &Renderer) -> Self {
        Self {
            buffer: allocate(renderer, FIRST_GROUP_SLOTS),
            capacity: FIRST_GROUP_SLOTS,
            end: 0,
            runs: Vec::new(),
            free: Vec::new(),
            bounds: Bounds {
                origins: SlotBlock::of(&[]),
                gone_m: 0.0,
            },
        }
    }

    fn instances(&self) -> usize {
        self.runs.iter().map(|run| run.len as usize).sum()
    }

    /// Puts `transforms` (none: takes it out) as tile `tile`'s run, `gone` saying
    /// where each has faded out.
    fn put(&mut self, renderer: &Renderer, tile: u32, transforms: &[Mat4], gone: &[f32]) {
        let len = transforms.len() as u32;
        let old = self.runs.iter().position(|run| run.tile == tile);
        let (start, capacity) = match old {
            Some(index) if self.runs[index].capacity >= len && len > 0 => {
                let run = self.runs.remove(index);
                (run.start, run.capacity)
            }
            _ => {
                if let Some(index) = old {
                    let run = self.runs.remove(index);
                    self.release(renderer, run.start, run.capacity);
                }
                if len == 0 {
                    self.bounds =
                        Bounds::union(self.runs.iter().map(|r| r.bounds)).unwrap_or(self.bounds);
                    return;
                }
                self.allocate(renderer, len)
            }
        };
        let mut slots = transforms.to_vec();
        slots.resize(capacity as usize, Mat4::ZERO);
        renderer.queue.write_buffer(
            &self.buffer,
            u64::from(start) * INSTANCE_STRIDE,
            bytemuck::cast_slice(&slots),
        );
        let bounds = Bounds {
            origins: SlotBlock::of(transforms),
            gone_m: gone.iter().copied().fold(0.0, f32::max),
        };
        let at = self.runs.partition_point(|run| run.start < start);
        self.runs.insert(
            at,
            Run {
                tile,
                start,
                len,
                capacity,
                bounds,
            },
        );
        self.bounds = Bounds::union(self.runs.iter().map(|r| r.bounds)).unwrap_or(bounds);
    }

    /// A run of at least `len` slots: a free one of its size, or new slots past the
    /// last run, the buffer doubling (its contents copied on the GPU) when they do not
    /// fit.
    fn allocate(&mut self, renderer: &Renderer, len: u32) -> (u32, u32) {
        let capacity = len.next_power_of_two().max(MIN_RUN_SLOTS);
        if let Some(index) = self.free.iter().position(|&(_, c)| c == capacity) {
            return self.free.swap_remove(index);
        }
        if self.end + capacity > self.capacity {
            let grown = (self.end + capacity)
                .next_power_of_two()
                .max(2 * self.capacity);
            let buffer = allocate(renderer, grown);
            let mut encoder =
                renderer
                    .device
                    .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                        label: Some("far instances grow"),
                    });
            let used = u64::from(self.end) * INSTANCE_STRIDE;
            encoder.copy_buffer_to_buffer(&self.buffer, 0, &buffer, 0, used);
            renderer.queue.submit([encoder.finish()]);
            self.buffer = buffer;
            self.capacity = grown;
        }
        let start = self.end;
        self.end += capacity;
        (start, capacity)
    }

    /// Zeroes a run given up, so a draw over it draws nothing, and keeps it for reuse.
    fn release(&mut self, renderer: &Renderer, start: u32, capacity: u32) {
        let zeros = vec![Mat4::ZERO; capacity as usize];
        renderer.queue.write_buffer(
            &self.buffer,
            u64::from(start) * INSTANCE_STRIDE,
            bytemuck::cast_slice(&zeros),
        );
        self.free.push((start, capacity));
    }

    /// Adds to `draws` the stretches of slots `view` may see from `eye`, drawn as
    /// `key` with geometry bounded by `part`: every run at once where the view holds
    /// all of them; else each run it may see, neighbours in one draw.
    fn cull_into(
        &self,
        draws: &mut Vec<FarDraw>,
        (view, eye): (&View, Vec3),
        (block, key, part): (FarBlockId, BucketKey, Sphere),
    ) {
        if !self.bounds.seen(view, part, eye) {
            return;
        }
        let draw = |runs: &[Run]| FarDraw {
            block,
            key,
            slots: runs[0].start..runs[runs.len() - 1].start + runs[runs.len() - 1].len,
            instances: runs.iter().map(|run| run.len as usize).sum(),
        };
        if self.bounds.all_held(view, part) {
            draws.push(draw(&self.runs));
            return;
        }
        // Slots between two runs are zero: a draw over them draws nothing there.
        for seen in self
            .runs
            .chunk_by(|a, b| a.bounds.seen(view, part, eye) == b.bounds.seen(view, part, eye))
        {
            if seen[0].bounds.seen(view, part, eye) {
                draws.push(draw(seen));
            }
        }
    }
}

fn allocate(renderer: &Renderer, slots: u32) -> Buffer {
    instance_buffer(
        renderer,
        "far prop instances",
        slots as usize,
        BufferUsages::VERTEX | BufferUsages::COPY_DST | BufferUsages::COPY_SRC,
    )
}

/// One instanced draw of a stretch of a far block's buffer of a prop, at one bucket of
/// its last level.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct FarDraw {
    pub block: FarBlockId,
    pub key: BucketKey,
    pub slots: Range<u32>,
    /// The instances in its runs (the slots between them hold none).
    pub instances: usize,
}

/// Every far block, and what each view draws of them.
#[derive(Default)]
pub(super) struct FarBlocks {
    /// Per block, per prop.
    blocks: BTreeMap<FarBlockId, BTreeMap<PropKey, FarGroup>>,
    /// The props each tile holds.
    tiles: FxHashMap<FarTileId, Vec<PropKey>>,
    /// Instances in all blocks.
    instances: usize,
    /// Per view, its draws, ordered by bucket key so a key binds its geometry once.
    pub views: Vec<Vec<FarDraw>>,
    /// Whether the instances' fade-outs were worked out with fades other than the
    /// renderer's: the tiles must be set again.
    pub stale: bool,
}

impl FarBlocks {
    /// Puts `instances` in tile `id` in place of what it held (none empties it): each
    /// one fading out where `fades` have its prop's last level (as `registry`'s shapes
    /// count levels) fade out. Sorts `instances` by prop, keeping their order within one.
    pub fn set(
        &mut self,
        renderer: &Renderer,
        (registry, fades): (&PlacementRegistry, &LodFades),
        id: FarTileId,
        instances: &mut [(PropKey, Mat4)],
    ) {
        instances.sort_by_key(|(prop, _)| *prop);
        let old = self.tiles.remove(&id).unwrap_or_default();
        let block = self.blocks.entry(id.block).or_default();
        let mut props = Vec::new();
        let mut transforms = Vec::new();
        for group in instances.chunk_by_mut(|a, b| a.0 == b.0) {
            let prop = group[0].0;
            let last = registry
                .prop_shape(prop)
                .ok()
                .flatten()
                .map(|shape| shape.levels() - 1);
            // Per instance, from where on it has faded out.
            let mut gone = Vec::with_capacity(group.len());
            transforms.clear();
            for (_, model) in group.iter_mut() {
                let ramp = last.and_then(|last| fades.coarser_ramp(prop, last, scale_of(model)));
                // A third `w` of 0 tells the shaders the instance never fades out.
                let (start, end) = match ramp {
                    Some((start, end)) => (start, end.max(f32::MIN_POSITIVE)),
                    None => (0.0, 0.0),
                };
                model.y_axis.w = start;
                model.z_axis.w = end;
                gone.push(if ramp.is_some() { end } else { f32::INFINITY });
                transforms.push(*model);
            }
            let group = block.entry(prop).or_insert_with(|| FarGroup::new(renderer));
            self.instances -= group.instances();
            group.put(renderer, id.tile, &transforms, &gone);
            self.instances += group.instances();
            props.push(prop);
        }
        for prop in old.iter().filter(|prop| !props.contains(prop)) {
            if let Some(group) = block.get_mut(prop) {
                self.instances -= group.instances();
                group.put(renderer, id.tile, &[], &[]);
                self.instances += group.instances();
                if group.runs.is_empty() {
                    block.remove(prop);
                }
            }
        }
        if block.is_empty() {
            self.blocks.remove(&id.block);
        }
        if !props.is_empty() {
            self.tiles.insert(id, props);
        }
    }

    /// Forgets every block (a new registry's keys name other props).
    pub fn clear(&mut self) {
        self.blocks.clear();
        self.tiles.clear();
        self.instances = 0;
        self.views.iter_mut().for_each(Vec::clear);
    }

    /// The tiles holding instances.
    pub fn tiles(&self) -> impl Iterator<Item = FarTileId> + '_ {
        self.tiles.keys().copied()
    }

    /// How many blocks, and instances in them all.
    pub fn counts(&self) -> (usize, usize) {
        (self.blocks.len(), self.instances)
    }

    /// The buffer of `prop`'s instances in block `id`.
    pub fn buffer(&self, id: FarBlockId, prop: PropKey) -> Option<&Buffer> {
        Some(&self.blocks.get(&id)?.get(&prop)?.buffer)
    }

    /// Lists for each of `views` the draws of what it may see from `eye` (see
    /// [`FarGroup::cull_into`]), for the buckets `keys_of` gives a prop's last level,
    /// each with its geometry's sphere in prop space (none for a prop not loaded).
    pub fn cull(
        &mut self,
        views: &[View],
        eye: Vec3,
        keys_of: impl Fn(PropKey) -> Vec<(BucketKey, Sphere)>,
    ) {
        self.views.resize_with(views.len(), Vec::new);
        self.views.iter_mut().for_each(Vec::clear);
        let mut keys: BTreeMap<PropKey, Vec<(BucketKey, Sphere)>> = BTreeMap::new();
        for (&id, groups) in &self.blocks {
            for (&prop, group) in groups {
                let keys = keys.entry(prop).or_insert_with(|| keys_of(prop));
                for &(key, part) in keys.iter() {
                    for (view, draws) in views.iter().zip(&mut self.views) {
                        group.cull_into(draws, (view, eye), (id, key, part));
                    }
                }
            }
        }
        for draws in &mut self.views {
            draws.sort_by_key(|draw| (draw.key, draw.block));
        }
    }
}

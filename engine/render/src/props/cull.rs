//! Which instances a view can see: bounding spheres against the view's frustum, a
//! bucket's tree of slot bounds walked from the top. The visible slots of each bucket,
//! as runs, are written from the registry into one compact instance buffer per view,
//! which the draws read as plain per-instance attributes.

use std::collections::BTreeMap;
use std::ops::Range;

use glam::{Mat4, Vec3, Vec4};
use rend3::Renderer;
use wgpu::{Buffer, BufferUsages};

use sylva_buckets::{BucketKey, PlacementRegistry, PropKey};
use sylva_lod::LodFades;

use super::blocks::{Node, SlotBlocks};
use super::pipelines::instance_buffer;
use super::sphere::Sphere;

/// The clip-space half-spaces of a view, from its view-projection matrix (wgpu clip
/// space: `−w ≤ x, y ≤ w`, `0 ≤ z ≤ w`; with rend3's infinite reverse-Z projection the
/// `z ≥ 0` plane is at infinity: it holds everything).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Frustum {
    planes: [Vec4; 6],
}

impl Frustum {
    pub fn from_view_proj(m: Mat4) -> Self {
        let row = |i| m.row(i);
        let (x, y, z, w) = (row(0), row(1), row(2), row(3));
        let planes = [w + x, w - x, w + y, w - y, z, w - z].map(|p| {
            let length = p.truncate().length();
            if length > 0.0 {
                p / length
            } else {
                // A plane at infinity (rend3's far plane is `z = near`, a constant)
                // holds every sphere, whatever its radius.
                Vec4::new(0.0, 0.0, 0.0, f32::MAX)
            }
        });
        Self { planes }
    }

    /// Whether any part of the sphere can be inside.
    pub fn intersects_sphere(&self, center: Vec3, radius: f32) -> bool {
        self.planes
            .iter()
            .all(|p| p.truncate().dot(center) + p.w >= -radius)
    }

    /// Whether all of the sphere is inside.
    pub fn contains_sphere(&self, center: Vec3, radius: f32) -> bool {
        self.planes
            .iter()
            .all(|p| p.truncate().dot(center) + p.w >= radius)
    }

    /// Whether the sphere, or the shadow it casts with `light`, can reach inside: the
    /// sphere swept along the light's direction down to its floor (below which nothing
    /// receives shadows) must reach each plane's inner side. Conservative: a caster kept
    /// may still shadow nothing in view, but none that does is refused.
    pub fn may_hold_shadow_of(&self, center: Vec3, radius: f32, light: &LightReach) -> bool {
        let sweep = light.sweep_to_floor(center.y + radius);
        self.planes.iter().all(|p| {
            let normal = p.truncate();
            let start = normal.dot(center) + p.w;
            // Distance along the plane's normal is linear in the sweep: the far end, or
            // for an endless sweep the direction, decides whether it ever gets inside.
            let reaches = match sweep {
                Some(t) => start + t * normal.dot(light.direction) >= -radius,
                None => normal.dot(light.direction) > 0.0,
            };
            start >= -radius || reaches
        })
    }
}

impl Frustum {
    /// Whether every sphere inside this one (centre and radius) passes
    /// [`Self::may_hold_shadow_of`], so a group of casters can be taken without testing
    /// each. Conservative, plane by plane: the whole sphere is on the inner side, or
    /// the light carries even its lowest point (swept no further than from the
    /// sphere's bottom to the floor) all the way across.
    pub fn holds_shadows_of_all(&self, center: Vec3, radius: f32, light: &LightReach) -> bool {
        let shortest_sweep = light.sweep_to_floor(center.y - radius);
        self.planes.iter().all(|p| {
            let normal = p.truncate();
            let start = normal.dot(center) + p.w;
            let towards = normal.dot(light.direction);
            start >= radius
                || (towards > 0.0
                    && shortest_sweep.is_none_or(|t| start - radius + t * towards >= 0.0))
        })
    }
}

/// How far a directional light's shadows reach.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LightReach {
    /// The direction the light travels.
    pub direction: Vec3,
    /// The lowest height that can receive a shadow (the terrain's lowest point).
    pub floor: f32,
}

impl LightReach {
    /// How many `direction`s a point at height `top` travels until it is below the
    /// floor; `None` (no end) for light that does not go down.
    fn sweep_to_floor(&self, top: f32) -> Option<f32> {
        (self.direction.y < 0.0).then(|| ((top - self.floor) / -self.direction.y).max(0.0))
    }
}

/// A view culling tests spheres against: the camera, or a light's shadow box seen
/// through the camera (casters whose shadow can fall into the camera's view).
#[derive(Clone, Copy, Debug)]
pub enum View<'a> {
    Camera(Frustum),
    Shadow {
        light: Frustum,
        camera: Frustum,
        /// Where the light's shadows end; `None` keeps its whole box.
        reach: Option<&'a LightReach>,
    },
}

impl View<'_> {
    /// Whether the view draws an instance with this bounding sphere.
    pub fn draws(&self, center: Vec3, radius: f32) -> bool {
        match self {
            View::Camera(camera) => camera.intersects_sphere(center, radius),
            View::Shadow {
                light,
                camera,
                reach,
            } => {
                light.intersects_sphere(center, radius)
                    && reach.is_none_or(|l| camera.may_hold_shadow_of(center, radius, l))
            }
        }
    }

    /// Whether the view draws every instance whose sphere is inside this one.
    pub fn holds_all(&self, center: Vec3, radius: f32) -> bool {
        match self {
            View::Camera(camera) => camera.contains_sphere(center, radius),
            View::Shadow {
                light,
                camera,
                reach,
            } => {
                light.contains_sphere(center, radius)
                    && reach.is_none_or(|l| camera.holds_shadows_of_all(center, radius, l))
            }
        }
    }
}

/// A bucket's live instances as culling sees them.
pub struct Instances<'a> {
    /// How many slots are live: the walk lists none past it.
    pub live: usize,
    /// Their bounds, block by block.
    pub blocks: &'a SlotBlocks,
    /// The part's sphere in prop space.
    pub part: Sphere,
}

/// Where a bucket level draws alone and where it shares placements with its neighbours
/// ([`LodFades`]), as culling sees it for one bucket.
#[derive(Clone, Copy, Debug)]
pub struct Band<'a> {
    pub eye: Vec3,
    pub fades: &'a LodFades,
    /// The bucket's prop: under screen-space switching each prop fades at its own
    /// distances, scaled by each instance's scale.
    pub prop: PropKey,
    /// The bucket's level.
    pub level: u8,
    /// The levels its prop has (mesh LODs and impostor).
    pub levels: u8,
}

impl Band<'_> {
    /// The distances over which every instance with a scale in `scales` draws at this
    /// level alone.
    fn steady(&self, scales: (f32, f32)) -> (f32, f32) {
        self.fades
            .steady(self.prop, self.level, self.levels, scales)
    }

    /// Whether an origin of an instance of `scale` at `distance` fades with the finer
    /// level (`Some(Ok(share))`, the share being this level's) or with the coarser one
    /// (`Some(Err(share))`, the coarser level's, or nothing past the last level), or
    /// draws here alone (`None`).
    fn classify(&self, scale: f32, distance: f32) -> Option<Result<f32, f32>> {
        let steady = self.steady((scale, scale));
        if distance < steady.0 {
            let share = self
                .fades
                .coarser_share(self.prop, self.level - 1, scale, distance);
            Some(Ok(share))
        } else if distance > steady.1 {
            let share = self
                .fades
                .coarser_share(self.prop, self.level, scale, distance);
            Some(Err(share))
        } else {
            None
        }
    }
}

/// One bucket's slots a view draws, by how they are drawn: alone at the bucket's level
/// (runs), or fading with the finer or the coarser level (single slots with the coarser
/// level's share of their pixels).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BucketSlots {
    steady: Vec<Range<u32>>,
    with_finer: Vec<(u32, f32)>,
    with_coarser: Vec<(u32, f32)>,
}

impl BucketSlots {
    pub fn clear(&mut self) {
        self.steady.clear();
        self.with_finer.clear();
        self.with_coarser.clear();
    }

    /// Every slot listed, once.
    pub fn len(&self) -> usize {
        let steady: usize = self.steady.iter().map(|r| r.len()).sum();
        steady + self.with_finer.len() + self.with_coarser.len()
    }

    /// Fills `out[v]` with the slots whose instance `views[v]` draws, for every view
    /// at once: one walk of the bucket's tree of bounds from the top, so the views
    /// share each node's sphere and each instance's sphere, distance and fade. A node
    /// a view refuses is skipped whole for it, and one the view `holds_all` of, with
    /// every origin in the steady distances of every scale in it, is taken whole;
    /// only nodes on a view's edge or across a fade look at their children, and only
    /// blocks there at their instances. A stroke's placements sit in neighbouring
    /// slots, so runs are long.
    pub fn cull_views(out: &mut [BucketSlots], instances: &Instances, band: &Band, views: &[View]) {
        assert_eq!(out.len(), views.len(), "one list of slots per view");
        for (out, views) in out.chunks_mut(MASK_VIEWS).zip(views.chunks(MASK_VIEWS)) {
            out.iter_mut().for_each(BucketSlots::clear);
            let mut walk = Walk {
                instances,
                band,
                views,
                open: vec![None; views.len()],
            };
            if let Some(top) = instances.blocks.top() {
                walk.node(out, top, (1 << views.len()) - 1);
            }
            for view in 0..views.len() {
                walk.close(out, view);
            }
        }
    }
}

/// How many views one walk follows: a bit each in a mask.
const MASK_VIEWS: usize = 32;

/// The views of `mask`, by index, lowest first.
fn views_in(mut mask: u32) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        (mask != 0).then(|| {
            let view = mask.trailing_zeros() as usize;
            mask &= mask - 1;
            view
        })
    })
}

/// One walk of a bucket's tree of bounds for several views.
struct Walk<'a> {
    instances: &'a Instances<'a>,
    band: &'a Band<'a>,
    views: &'a [View<'a>],
    /// Each view's steady run being built.
    open: Vec<Option<Range<u32>>>,
}

impl Walk<'_> {
    /// Walks `node` for the views in `active` (a bit each).
    fn node(&mut self, out: &mut [BucketSlots], node: Node, active: u32) {
        let instances = self.instances;
        let live = instances.live;
        let slots = instances.blocks.slots(node, live);
        let bounds = instances.blocks.bounds(node);
        let (center, radius) = bounds.sphere(instances.part);
        let mut steady = None;
        // The views that look inside, and among them those that see all of it.
        let (mut inside, mut all_seen) = (0u32, 0u32);
        for view in views_in(active) {
            if !self.views[view].draws(center, radius) {
                self.close(out, view);
                continue;
            }
            if self.views[view].holds_all(center, radius) {
                let whole = *steady.get_or_insert_with(|| {
                    let (near, far) = bounds.origin_distances(self.band.eye);
                    let steady = self.band.steady(bounds.scales());
                    near >= steady.0 && far <= steady.1
                });
                if whole {
                    self.extend(out, view, slots.clone());
                    continue;
                }
                all_seen |= 1 << view;
            }
            inside |= 1 << view;
        }
        if inside == 0 {
            return;
        }
        if !node.is_block() {
            for child in instances.blocks.children(node) {
                self.node(out, child, inside);
            }
            return;
        }
        let reach = instances.part.reach();
        for slot in slots {
            let (origin, scale) = instances.blocks.slot(slot);
            let mut seen = all_seen;
            for view in views_in(inside & !all_seen) {
                if self.views[view].draws(origin, reach * scale) {
                    seen |= 1 << view;
                } else {
                    self.close(out, view);
                }
            }
            if seen == 0 {
                continue;
            }
            let distance = origin.distance(self.band.eye);
            let fade = self.band.classify(scale, distance);
            for view in views_in(seen) {
                match fade {
                    None => self.extend(out, view, slot..slot + 1),
                    Some(fade) => {
                        self.close(out, view);
                        match fade {
                            Ok(share) => out[view].with_finer.push((slot, share)),
                            Err(share) => out[view].with_coarser.push((slot, share)),
                        }
                    }
                }
            }
        }
    }

    /// Adds steady slots to `view`'s list: a range continuing its open run extends it.
    fn extend(&mut self, out: &mut [BucketSlots], view: usize, slots: Range<u32>) {
        match &mut self.open[view] {
            Some(run) if run.end == slots.start => run.end = slots.end,
            _ => {
                self.close(out, view);
                self.open[view] = Some(slots);
            }
        }
    }

    fn close(&mut self, out: &mut [BucketSlots], view: usize) {
        if let Some(run) = self.open[view].take() {
            out[view].steady.push(run);
        }
    }
}

/// Which of the two levels across an edge a draw is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    Finer,
    Coarser,
}

/// A run of slots of one bucket in a view's buffer, and how the draw reading it fades
/// them: 0 draws every pixel; `+s` keeps the pixels whose dither threshold is below
/// `s` (the coarser level of a fade, `s` its share), `−s` those at or above it (the
/// finer level). Fading runs are single slots.
#[derive(Clone, Debug, PartialEq)]
struct Run {
    key: BucketKey,
    slots: Range<u32>,
    fade: f32,
}

/// The slots one view draws, in copy order, and each bucket's range of them. A
/// bucket's range is one instanced draw: the placements of the finer level fading
/// into it, its own (those fading with the finer level, the steady ones, those fading
/// with the coarser level) and the coarser level's fading into it, so every placement
/// across an edge is in the draws of both levels, with complementary masks.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct VisibleSlots {
    runs: Vec<Run>,
    ranges: BTreeMap<BucketKey, Range<u32>>,
    len: u32,
}

impl VisibleSlots {
    pub fn clear(&mut self) {
        self.runs.clear();
        self.ranges.clear();
        self.len = 0;
    }

    /// Appends bucket `key`'s draw: `own` (its culled slots), after the slots of the
    /// finer level's bucket that fade into it (`finer`, that bucket's key and slots)
    /// and before those of the coarser level's (`coarser`).
    pub fn add_draw(
        &mut self,
        key: BucketKey,
        own: &BucketSlots,
        finer: Option<(BucketKey, &BucketSlots)>,
        coarser: Option<(BucketKey, &BucketSlots)>,
    ) {
        let start = self.len;
        if let Some((finer_key, finer)) = finer {
            self.push_faded(finer_key, &finer.with_coarser, Side::Coarser);
        }
        self.push_faded(key, &own.with_finer, Side::Coarser);
        for run in &own.steady {
            self.push(key, run.clone(), 0.0);
        }
        self.push_faded(key, &own.with_coarser, Side::Finer);
        if let Some((coarser_key, coarser)) = coarser {
            self.push_faded(coarser_key, &coarser.with_finer, Side::Finer);
        }
        if self.len > start {
            self.ranges.insert(key, start..self.len);
        }
    }

    /// Slots fading across one edge, drawn by this draw as `side` of it; a slot this
    /// side keeps no pixel of is left out.
    fn push_faded(&mut self, key: BucketKey, slots: &[(u32, f32)], side: Side) {
        for &(slot, coarser_share) in slots {
            let fade = match side {
                Side::Coarser if coarser_share > 0.0 => coarser_share,
                Side::Finer if coarser_share < 1.0 => -coarser_share,
                _ => continue,
            };
            self.push(key, slot..slot + 1, fade);
        }
    }

    fn push(&mut self, key: BucketKey, slots: Range<u32>, fade: f32) {
        self.len += slots.len() as u32;
        self.runs.push(Run { key, slots, fade });
    }

    /// A bucket's draw in the view's compact buffer.
    pub fn range(&self, key: &BucketKey) -> Option<Range<u32>> {
        self.ranges.get(key).cloned()
    }
}

/// The instances one view draws ([`VisibleSlots`]) and the buffer they are written to.
pub struct VisibleList {
    buffer: Buffer,
    /// Instances `buffer` holds.
    capacity: usize,
    pub slots: VisibleSlots,
    /// The instances of the last upload, kept for its allocation.
    staging: Vec<Mat4>,
}

impl VisibleList {
    pub fn new(renderer: &Renderer) -> Self {
        Self {
            buffer: allocate(renderer, FIRST_CAPACITY),
            capacity: FIRST_CAPACITY,
            slots: VisibleSlots::default(),
            staging: Vec::new(),
        }
    }

    /// Writes the instances this view draws, run by run from `registry`'s buckets, into
    /// its buffer in one upload, growing the buffer by doubling when needed (its old
    /// contents are not kept: every cull rewrites them). Returns how many it wrote.
    pub fn upload(&mut self, renderer: &Renderer, registry: &PlacementRegistry) -> usize {
        let len = self.slots.len as usize;
        if len > self.capacity {
            self.capacity = len.next_power_of_two();
            self.buffer = allocate(renderer, self.capacity);
        }
        self.staging.clear();
        for Run { key, slots, fade } in &self.slots.runs {
            let transforms = registry.bucket(*key).map_or(&[][..], |b| b.transforms());
            let run = slots.start as usize..slots.end as usize;
            // Culling listed only live slots of the registry it was handed.
            self.staging.extend_from_slice(&transforms[run]);
            if *fade != 0.0 {
                // A placement's matrix is affine: its first column's `w` is free to
                // carry the fade to the shaders, which put the 0 back.
                let last = self.staging.len() - 1;
                self.staging[last].x_axis.w = *fade;
            }
        }
        if !self.staging.is_empty() {
            renderer
                .queue
                .write_buffer(&self.buffer, 0, bytemuck::cast_slice(&self.staging));
        }
        self.staging.len()
    }

    /// A bucket's visible instances in [`Self::buffer`].
    pub fn range(&self, key: &BucketKey) -> Option<Range<u32>> {
        self.slots.range(key)
    }

    pub fn buffer(&self) -> &Buffer {
        &self.buffer
    }
}

const FIRST_CAPACITY: usize = 1024;

fn allocate(renderer: &Renderer, instances: usize) -> Buffer {
    instance_buffer(
        renderer,
        "visible prop instances",
        instances,
        BufferUsages::VERTEX | BufferUsages::COPY_DST,
    )
}

#[cfg(test)]
// `&[0..n]` is one dirty range of slots here, not a mistaken list of n numbers.
#[allow(clippy::single_range_in_vec_init)]
mod tests {
    use super::*;

    fn camera() -> Frustum {
        let proj =
            glam::camera::lh::proj::directx::perspective_infinite_reverse(1.0, 16.0 / 9.0, 0.3);
        let view = glam::camera::lh::view::look_at_mat4(Vec3::ZERO, Vec3::Z, Vec3::Y);
        Frustum::from_view_proj(proj * view)
    }

    #[test]
    fn a_large_sphere_ahead_is_wholly_in_view_and_one_on_an_edge_is_not() {
        let f = camera();
        assert!(f.contains_sphere(Vec3::new(0.0, 0.0, 200.0), 20.0));
        assert!(f.contains_sphere(Vec3::new(0.0, 0.0, 1.0e5), 500.0));
        assert!(!f.contains_sphere(Vec3::new(0.0, 0.0, 15.0), 20.0));
        assert!(!f.contains_sphere(Vec3::new(190.0, 0.0, 200.0), 20.0));
    }

    #[test]
    fn spheres_ahead_are_seen_and_behind_are_not() {
        let f = camera();
        assert!(f.intersects_sphere(Vec3::new(0.0, 0.0, 50.0), 1.0));
        assert!(f.intersects_sphere(Vec3::new(0.0, 0.0, 5000.0), 1.0));
        assert!(!f.intersects_sphere(Vec3::new(0.0, 0.0, -5.0), 1.0));
        assert!(!f.intersects_sphere(Vec3::new(500.0, 0.0, 10.0), 1.0));
    }

    #[test]
    fn a_sphere_straddling_an_edge_is_seen() {
        let f = camera();
        // Just outside the left edge at 10 m, but its radius reaches in.
        assert!(!f.intersects_sphere(Vec3::new(-30.0, 0.0, 10.0), 1.0));
        assert!(f.intersects_sphere(Vec3::new(-30.0, 0.0, 10.0), 25.0));
    }

    #[test]
    fn a_caster_outside_the_view_is_kept_only_if_its_shadow_falls_into_it() {
        // The camera looks along +z from the origin; light travels along +x and down
        // at 45°; nothing below height −10 receives shadows.
        let f = camera();
        let light = LightReach {
            direction: Vec3::new(1.0, -1.0, 0.0),
            floor: -10.0,
        };
        // Left of the view and high up: its shadow crosses the view on the way down.
        let left = Vec3::new(-60.0, 40.0, 40.0);
        assert!(!f.intersects_sphere(left, 1.0));
        assert!(f.may_hold_shadow_of(left, 1.0, &light));
        // The same caster near the ground: its shadow reaches the floor before the view.
        let low = Vec3::new(-60.0, -8.0, 40.0);
        assert!(!f.may_hold_shadow_of(low, 1.0, &light));
        // Right of the view: its shadow moves further right, never into it.
        let right = Vec3::new(60.0, 0.0, 20.0);
        assert!(!f.may_hold_shadow_of(right, 1.0, &light));
        // Behind the camera: light along +x never brings it forward.
        assert!(!f.may_hold_shadow_of(Vec3::new(0.0, 0.0, -10.0), 1.0, &light));
        // In view: always kept.
        assert!(f.may_hold_shadow_of(Vec3::new(0.0, 0.0, 20.0), 1.0, &light));
        // Light that does not go down is swept without end.
        let level = LightReach {
            direction: Vec3::X,
            floor: -10.0,
        };
        assert!(f.may_hold_shadow_of(low, 1.0, &level));
    }

    /// The sun's shadow box of the tests: an orthographic view along `light`.
    fn shadow_box(light: Vec3) -> Frustum {
        let proj =
            glam::camera::lh::proj::directx::orthographic(-150.0, 150.0, -150.0, 150.0, 0.0, 600.0);
        let eye = Vec3::new(0.0, 0.0, 60.0) - light.normalize() * 300.0;
        let view = glam::camera::lh::view::look_at_mat4(eye, eye + light, Vec3::Z);
        Frustum::from_view_proj(proj * view)
    }

    /// Every slot, one by one.
    fn slots_of(list: &VisibleSlots) -> Vec<u32> {
        list.runs.iter().flat_map(|run| run.slots.clone()).collect()
    }

    #[test]
    fn culling_the_tree_agrees_with_testing_every_instance() {
        use super::super::blocks::tests::lcg;
        let camera = camera();
        let light = LightReach {
            direction: Vec3::new(1.0, -1.4, 0.3).normalize(),
            floor: -20.0,
        };
        let shadows = shadow_box(light.direction);
        let part = Sphere {
            center: Vec3::new(0.0, 3.0, 0.0),
            radius: 4.0,
        };
        let key = BucketKey {
            prop: sylva_buckets::PlacementRegistry::new().intern("tree"),
            part: 0,
            lod: 0,
        };
        // Strokes of 40 instances within 15 m of a centre, anywhere in 600 m around
        // the camera: neighbouring slots, neighbouring places.
        let mut rng = 3;
        let mut transforms = Vec::new();
        let mut blocks = SlotBlocks::default();
        let mut dirty = Vec::new();
        for round in 0..8 {
            for _ in 0..60 {
                let center = Vec3::new(lcg(&mut rng) - 0.5, 0.0, lcg(&mut rng) - 0.5) * 600.0;
                for _ in 0..40 {
                    let offset = Vec3::new(lcg(&mut rng) - 0.5, lcg(&mut rng), lcg(&mut rng) - 0.5);
                    let at = center + offset * Vec3::new(30.0, 10.0, 30.0);
                    let slot = transforms.len() as u32;
                    transforms.push(Mat4::from_scale_rotation_translation(
                        Vec3::splat(0.5 + lcg(&mut rng)),
                        glam::Quat::from_rotation_y(at.x),
                        at,
                    ));
                    dirty.push(slot..slot + 1);
                }
            }
            // An eraser and LOD moves: swap-removes bring far slots into the holes.
            for _ in 0..round * 150 {
                let slot = (lcg(&mut rng) * transforms.len() as f32) as usize;
                let slot = slot.min(transforms.len() - 1);
                transforms.swap_remove(slot);
                dirty.push(slot as u32..slot as u32 + 1);
            }
            blocks.update(&transforms, &dirty, transforms.len());
            dirty.clear();
            let instances = Instances {
                live: transforms.len(),
                blocks: &blocks,
                part,
            };
            let one_by_one = |view: &View| -> Vec<u32> {
                (0..transforms.len() as u32)
                    .filter(|&slot| {
                        let (c, r) = part.about_origin(&transforms[slot as usize]);
                        view.draws(c, r)
                    })
                    .collect()
            };

            let hard = sylva_lod::LodController::default().fades().hard();
            let prop = sylva_buckets::PlacementRegistry::new().intern("prop");
            let band = Band {
                eye: Vec3::ZERO,
                fades: &hard,
                prop,
                level: 0,
                levels: 1,
            };
            // The camera, a light whose shadows reach a floor, and one keeping its box.
            let views = [
                View::Camera(camera),
                View::Shadow {
                    light: shadows,
                    camera,
                    reach: Some(&light),
                },
                View::Shadow {
                    light: shadows,
                    camera,
                    reach: None,
                },
            ];
            let mut culled = vec![BucketSlots::default(); views.len()];
            BucketSlots::cull_views(&mut culled, &instances, &band, &views);
            for (view, (test, own)) in views.iter().zip(&culled).enumerate() {
                let mut list = VisibleSlots::default();
                list.add_draw(key, own, None, None);
                let expected = one_by_one(test);
                assert!(!expected.is_empty() && expected.len() < transforms.len());
                assert_eq!(slots_of(&list), expected, "view {view}, round {round}");
                assert_eq!(list.range(&key), Some(0..expected.len() as u32));
                // Culled alone, each view lists the same slots in the same runs.
                let mut alone = [BucketSlots::default()];
                BucketSlots::cull_views(&mut alone, &instances, &band, &views[view..=view]);
                assert_eq!(alone[0], *own, "view {view} alone, round {round}");
            }
        }
    }

    #[test]
    fn spheres_inside_one_that_holds_all_shadows_each_may_cast_one() {
        use super::super::blocks::tests::lcg;
        let camera = camera();
        let light = LightReach {
            direction: Vec3::new(1.0, -1.0, 0.2).normalize(),
            floor: -10.0,
        };
        let mut rng = 11;
        let mut held = 0;
        for _ in 0..4000 {
            let center = Vec3::new(
                lcg(&mut rng) - 0.5,
                lcg(&mut rng) * 0.3,
                lcg(&mut rng) - 0.2,
            ) * 300.0;
            let radius = 1.0 + lcg(&mut rng) * 30.0;
            if !camera.holds_shadows_of_all(center, radius, &light) {
                continue;
            }
            held += 1;
            for _ in 0..20 {
                let r = lcg(&mut rng) * radius;
                let offset = Vec3::new(
                    lcg(&mut rng) - 0.5,
                    lcg(&mut rng) - 0.5,
                    lcg(&mut rng) - 0.5,
                );
                let inner = center + offset.normalize_or_zero() * (radius - r) * lcg(&mut rng);
                assert!(
                    camera.may_hold_shadow_of(inner, r, &light),
                    "{inner} {r} inside {center} {radius}"
                );
            }
        }
        // Both kinds are common: wholly in view, and outside but casting into it.
        assert!(held > 400, "{held}");
        let beside = Vec3::new(-80.0, 60.0, 60.0);
        assert!(!camera.intersects_sphere(beside, 5.0));
        assert!(camera.holds_shadows_of_all(beside, 5.0, &light));
    }

    #[test]
    fn placements_across_an_edge_are_in_both_draws_with_complementary_fades() {
        // Two levels of one part, edge at 30 m faded ±4 m; the camera at the origin
        // looking along +z sees placements every metre from 10 to 50 m, the near half in
        // level 0's bucket and the far half in level 1's, as hysteresis may leave them.
        let fades = sylva_lod::LodController::new(&sylva_lod::LodConfig::fixed_bands(vec![30.0]))
            .unwrap()
            .fades()
            .clone();
        let camera = camera();
        let prop = sylva_buckets::PlacementRegistry::new().intern("tree");
        let keys = [0, 1].map(|lod| BucketKey { prop, part: 0, lod });
        let part = Sphere {
            center: Vec3::ZERO,
            radius: 0.5,
        };
        let distances: [Vec<f32>; 2] = [
            (10..=31).map(|d| d as f32).collect(),
            (29..=50).map(|d| d as f32).collect(),
        ];
        let mut culled = [BucketSlots::default(), BucketSlots::default()];
        for (level, at) in distances.iter().enumerate() {
            let transforms: Vec<Mat4> = at
                .iter()
                .map(|&d| Mat4::from_translation(Vec3::new(0.0, 0.0, d)))
                .collect();
            let mut blocks = SlotBlocks::default();
            blocks.update(&transforms, &[0..transforms.len() as u32], transforms.len());
            let instances = Instances {
                live: transforms.len(),
                blocks: &blocks,
                part,
            };
            let band = Band {
                eye: Vec3::ZERO,
                fades: &fades,
                prop,
                level: level as u8,
                levels: 2,
            };
            BucketSlots::cull_views(
                std::slice::from_mut(&mut culled[level]),
                &instances,
                &band,
                &[View::Camera(camera)],
            );
            assert_eq!(culled[level].len(), at.len());
        }
        let mut list = VisibleSlots::default();
        list.add_draw(keys[0], &culled[0], None, Some((keys[1], &culled[1])));
        list.add_draw(keys[1], &culled[1], Some((keys[0], &culled[0])), None);
        // Every placement's draws, as (draw level, fade), by its distance.
        let mut drawn: BTreeMap<(u8, u32), Vec<(u8, f32)>> = BTreeMap::new();
        for (draw, key) in keys.iter().enumerate() {
            let range = list.range(key).unwrap();
            let mut at = 0;
            for run in &list.runs {
                for slot in run.slots.clone() {
                    if range.contains(&at) {
                        let d = distances[usize::from(run.key.lod)][slot as usize];
                        drawn
                            .entry((run.key.lod, d as u32))
                            .or_default()
                            .push((draw as u8, run.fade));
                    }
                    at += 1;
                }
            }
        }
        for ((_, d), draws) in drawn {
            let share = fades.coarser_share(prop, 0, 1.0, d as f32);
            let expected = match d {
                ..=26 => vec![(0, 0.0)],
                34.. => vec![(1, 0.0)],
                _ => vec![(0, -share), (1, share)],
            };
            assert_eq!(draws, expected, "at {d} m");
        }
    }
}

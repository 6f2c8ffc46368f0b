//! The rend3 plugin for instanced props: GPU copies of baked parts and instance
//! buckets, and the render-graph nodes that draw every non-empty (prop, part, lod)
//! bucket with one instanced draw, into rend3's own HDR and depth targets (so props and
//! rend3 objects occlude each other) and into each directional light's shadow map.

mod blocks;
mod bucket;
mod cull;
mod far;
mod geometry;
mod impostor;
mod nodes;
mod pipelines;
mod sphere;
mod upload;

use std::collections::{BTreeMap, BTreeSet};

use rend3::graph::ReadyData;
use rend3::Renderer;
use rend3_routine::common::WholeFrameInterfaces;
use wgpu::util::{BufferInitDescriptor, DeviceExt};
use wgpu::{
    AddressMode, BindGroup, BindGroupDescriptor, BindGroupEntry, Buffer, BufferUsages, FilterMode,
    Sampler, SamplerDescriptor,
};

pub use geometry::{
    AlphaMode, GeometryError, ImpostorGeometry, IndexWidth, LodIndices, PartGeometry, PartMaterial,
    PixelFormat, TextureLevels, VertexQuantization, PACKED_STRIDE,
};
use impostor::GpuImpostor;
pub use pipelines::INSTANCE_STRIDE;

use bucket::BucketBounds;
pub use cull::LightReach;
use cull::{Band, BucketSlots, Frustum, Instances, View, VisibleList};
use far::FarBlocks;
pub use far::{FarBlockId, FarTileId};
use pipelines::Pipelines;
pub use upload::TextureUpload;
use upload::{BindingTexture, DefaultTextures, GpuPart};

use sylva_buckets::{BucketChanges, BucketKey, PlacementRegistry, PropKey};
use sylva_lod::{LodController, LodFades};

use crate::convert;

/// What a frame drew (the camera's view; shadow passes draw what each light sees).
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct DrawStats {
    /// Instanced draws: one per bucket with an instance in view.
    pub draw_calls: usize,
    /// Instances in view (each once, at its bucket's level).
    pub instances: usize,
    /// Instances drawn a second time, at the neighbouring level they are fading with
    /// across a switch distance (dithered transitions).
    pub faded_instances: usize,
    /// Instances in the buckets of loaded props, seen or not.
    pub instances_in_buckets: usize,
    /// Far blocks held (groups of far tiles: [`PropsRenderer::set_far_tile`]).
    pub far_blocks: usize,
    /// Instances in the far tiles, seen or not; those a view draws are counted with the
    /// buckets' in the other fields (a stretch of tiles drawn whole).
    pub far_instances: usize,
    /// Triangles drawn by the camera's view, both levels of fading instances counted.
    pub triangles: u64,
    /// Instances per LOD level.
    pub instances_per_lod: Vec<usize>,
    /// Instanced draws into the shadow maps: one per bucket with an instance a light
    /// sees, per light.
    pub shadow_draw_calls: usize,
    /// Instances drawn into the shadow maps, all lights.
    pub shadow_instances: usize,
    /// Instances written to the GPU for this frame's views: those they draw, or none
    /// when the last frame's cull still holds.
    pub uploaded_instances: usize,
    /// Bytes of vertex data on the GPU (each part's buffer counted once).
    pub vertex_bytes: u64,
    /// Bytes of index data on the GPU, all levels.
    pub index_bytes: u64,
    /// Bytes of material textures on the GPU, all levels (each shared one once).
    pub texture_bytes: u64,
    /// Bytes of impostor atlases on the GPU, all levels.
    pub atlas_bytes: u64,
    /// Everything the loaded props hold on the GPU: vertices, indices, textures and
    /// atlases (instance buffers not counted).
    pub prop_bytes: u64,
}

/// A loaded prop on the GPU.
struct GpuProp {
    parts: Vec<GpuPart>,
    /// Drawn for its bucket level past the last mesh LOD, where it has one.
    impostor: Option<GpuImpostor>,
}

impl GpuProp {
    fn texture_keys(&self) -> impl Iterator<Item = [u8; 32]> + '_ {
        let parts = self
            .parts
            .iter()
            .flat_map(|p| p.texture_keys.iter().copied());
        parts.chain(self.impostor.iter().flat_map(|i| i.texture_keys))
    }
}

/// What one bucket draws with.
#[derive(Clone, Copy)]
enum Drawn<'a> {
    Mesh {
        part: &'a GpuPart,
        lod: &'a upload::GpuLod,
    },
    Impostor(&'a GpuImpostor),
}

impl Drawn<'_> {
    /// Its bounding sphere in prop space.
    fn bounds(&self) -> sphere::Sphere {
        match self {
            Drawn::Mesh { part, .. } => part.bounds,
            Drawn::Impostor(impostor) => impostor.bounds,
        }
    }

    fn triangles(&self) -> u64 {
        match self {
            Drawn::Mesh { lod, .. } => u64::from(lod.count / 3),
            Drawn::Impostor(_) => 2,
        }
    }
}

struct ShadowCamera {
    uniform: Buffer,
    bind_group: BindGroup,
}

/// The props plugin of a rend3 renderer: every loaded prop's parts on the GPU, the
/// bounds of every registry bucket's slots, and per frame the culled instances its
/// render-graph nodes draw, written to the GPU view by view.
pub struct PropsRenderer {
    pipelines: Pipelines,
    sampler: Sampler,
    defaults: DefaultTextures,
    texture_upload: TextureUpload,
    /// One GPU texture per texture key, while a loaded part uses it.
    textures: BTreeMap<[u8; 32], BindingTexture>,
    props: BTreeMap<PropKey, GpuProp>,
    buckets: BTreeMap<BucketKey, BucketBounds>,
    shadow_cameras: Vec<ShadowCamera>,
    /// Visible slots per view: the camera first, then each directional light.
    views: Vec<VisibleList>,
    /// What the views were last culled for, and what the camera's view drew: a frame
    /// with the same views and nothing changed since (no bucket, no prop) draws those
    /// lists again, whose compact buffers still hold their instances.
    culled: Option<(CullViews, DrawStats)>,
    /// The loaded props' bytes on the GPU (the byte fields of [`DrawStats`]), counted
    /// again whenever a prop comes or goes.
    memory: DrawStats,
    /// How levels cross-fade across switch distances.
    fades: LodFades,
    /// Per bucket of the prop being culled and per view, its culled slots (kept for
    /// their allocations).
    scratch: Vec<BucketSlots>,
    /// Every bucket level of the loaded props at the last cull, drawn where a view has
    /// instances for it.
    draw_keys: Vec<BucketKey>,
    /// Placements drawn at their props' last levels from instance buffers of their own.
    far: FarBlocks,
}

/// The views a cull was made for.
#[derive(Clone, Debug, PartialEq)]
struct CullViews {
    camera: glam::Mat4,
    eye: glam::Vec3,
    fades: LodFades,
    lights: Vec<glam::Mat4>,
    reach: Vec<LightReach>,
}

impl PropsRenderer {
    /// An empty plugin for `renderer`, whose pipelines use the frame interfaces of
    /// rend3-routine's base graph (`BaseRenderGraph::interfaces`).
    pub fn new(renderer: &Renderer, interfaces: &WholeFrameInterfaces) -> Self {
        Self {
            pipelines: Pipelines::new(renderer, interfaces),
            sampler: renderer.device.create_sampler(&SamplerDescriptor {
                label: Some("prop material"),
                address_mode_u: AddressMode::Repeat,
                address_mode_v: AddressMode::Repeat,
                address_mode_w: AddressMode::Repeat,
                mag_filter: FilterMode::Linear,
                min_filter: FilterMode::Linear,
                mipmap_filter: FilterMode::Linear,
                ..Default::default()
            }),
            defaults: DefaultTextures::new(renderer),
            texture_upload: TextureUpload::for_renderer(renderer),
            textures: BTreeMap::new(),
            props: BTreeMap::new(),
            buckets: BTreeMap::new(),
            shadow_cameras: Vec::new(),
            views: Vec::new(),
            culled: None,
            memory: DrawStats::default(),
            fades: LodController::default().fades().clone(),
            scratch: Vec::new(),
            draw_keys: Vec::new(),
            far: FarBlocks::default(),
        }
    }

    /// Uploads (or replaces, for hot reload) a prop's parts and its impostor. Buckets
    /// are untouched: instances of the prop draw with the new geometry from the next
    /// frame on. The registry's shape of the prop should say `impostor` exactly when
    /// one is given here, whose level is then the one after the fewest LODs any part
    /// has; without one, the impostor level's bucket draws part 0's coarsest LOD.
    pub fn set_prop(
        &mut self,
        renderer: &Renderer,
        prop: PropKey,
        parts: &[PartGeometry],
        impostor: Option<&ImpostorGeometry>,
    ) -> Result<(), GeometryError> {
        for (index, part) in parts.iter().enumerate() {
            part.validate(index)?;
        }
        if let Some(impostor) = impostor {
            impostor.validate(parts.len())?;
        }
        let impostor_atlases = impostor.iter().flat_map(|i| i.atlases().map(|a| *a));
        for texture in parts
            .iter()
            .flat_map(|p| p.material.textures())
            .chain(impostor_atlases)
        {
            self.textures
                .entry(texture.key)
                .or_insert_with(|| BindingTexture::upload(renderer, texture, self.texture_upload));
        }
        let gpu = parts
            .iter()
            .map(|part| {
                GpuPart::upload(
                    renderer,
                    &self.pipelines,
                    &self.sampler,
                    &self.defaults,
                    &self.textures,
                    part,
                )
            })
            .collect();
        let impostor = impostor.map(|impostor| {
            GpuImpostor::upload(
                renderer,
                &self.pipelines,
                &self.sampler,
                &self.textures,
                impostor,
            )
        });
        self.props.insert(
            prop,
            GpuProp {
                parts: gpu,
                impostor,
            },
        );
        self.culled = None;
        self.release_unused_textures();
        Ok(())
    }

    /// Forgets a prop's geometry; its buckets draw nothing until it returns. Textures
    /// no other loaded prop uses are released.
    pub fn remove_prop(&mut self, prop: PropKey) {
        self.props.remove(&prop);
        self.culled = None;
        self.release_unused_textures();
    }

    /// How levels cross-fade across switch distances from the next frame on: the LOD
    /// controller's (`World::lod_fades`), or [`LodFades::hard`] for hard switches.
    pub fn set_lod_fades(&mut self, fades: LodFades) {
        if fades != self.fades {
            self.fades = fades;
            self.culled = None;
            self.far.stale = self.far.counts().0 > 0;
        }
    }

    /// Puts `instances` (each a loaded or pending prop's and its placement's model
    /// matrix, in an order where neighbours in it stand near each other) in far tile
    /// `id`, in place of what it held; none empties it. Each draws at its prop's last
    /// level (as `registry`'s shape of it says) and fades out where the fades have it
    /// ([`Self::set_lod_fades`]); `instances` are sorted by prop in the process. For
    /// placements no level but the last is drawn for, in numbers the registry could
    /// not hold: written once a change, not once a frame.
    pub fn set_far_tile(
        &mut self,
        renderer: &Renderer,
        registry: &PlacementRegistry,
        id: FarTileId,
        instances: &mut [(PropKey, glam::Mat4)],
    ) {
        self.far
            .set(renderer, (registry, &self.fades), id, instances);
        self.culled = None;
    }

    /// The far tiles holding instances.
    pub fn far_tiles(&self) -> impl Iterator<Item = FarTileId> + '_ {
        self.far.tiles()
    }

    /// Whether the far tiles fade out where fades other than the renderer's have it
    /// (they changed since the tiles were set), so their owner must set them all again;
    /// true once per change.
    pub fn take_far_tiles_stale(&mut self) -> bool {
        std::mem::take(&mut self.far.stale)
    }

    /// How block-compressed textures are uploaded from now on (by default as the
    /// adapter allows); textures already on the GPU stay as they are.
    pub fn set_texture_upload(&mut self, upload: TextureUpload) {
        self.texture_upload = upload;
    }

    /// How block-compressed textures are uploaded.
    pub fn texture_upload(&self) -> TextureUpload {
        self.texture_upload
    }

    /// The textures on the GPU (each shared one once) and their bytes, all levels.
    pub fn texture_memory(&self) -> (usize, u64) {
        let bytes = self.textures.values().map(|t| t.bytes).sum();
        (self.textures.len(), bytes)
    }

    fn release_unused_textures(&mut self) {
        let used: BTreeSet<[u8; 32]> = self
            .props
            .values()
            .flat_map(GpuProp::texture_keys)
            .collect();
        // The bind groups of replaced parts went with them; nothing else holds these.
        self.textures.retain(|key, _| used.contains(key));
        self.memory = self.count_memory();
    }

    /// A new registry replaces the one the buckets mirrored (a session opened in place):
    /// every bucket and far block goes, to be mirrored afresh from the new registry's
    /// changes and set again, and
    /// each prop's geometry is filed under its new key, `(old, new)`; props not listed
    /// go too.
    pub fn adopt_registry(&mut self, keys: &[(PropKey, PropKey)]) {
        self.buckets.clear();
        self.far.clear();
        self.culled = None;
        let mut previous = std::mem::take(&mut self.props);
        self.props = keys
            .iter()
            .filter_map(|(old, new)| Some((*new, previous.remove(old)?)))
            .collect();
        self.release_unused_textures();
    }

    /// Drains what `registry` changed into `changes` (kept for its allocations) and
    /// applies it ([`Self::sync`]): the one call a frame for a registry that only this
    /// renderer mirrors.
    pub fn sync_from(&mut self, registry: &mut PlacementRegistry, changes: &mut BucketChanges) {
        registry.drain_changes(changes);
        self.sync(registry, changes);
    }

    /// Applies what the registry changed since the last drain: forgets removed buckets
    /// and recomputes the bounds of blocks with dirty slots.
    pub fn sync(&mut self, registry: &PlacementRegistry, changes: &BucketChanges) {
        if !changes.is_empty() {
            self.culled = None;
        }
        for key in changes.removed() {
            self.buckets.remove(key);
        }
        for update in changes.updates() {
            let Some(bucket) = registry.bucket(update.key) else {
                continue;
            };
            self.buckets.entry(update.key).or_default().update(
                bucket.transforms(),
                changes.dirty_runs(update),
                update.len as usize,
            );
        }
    }

    /// The loaded props' bytes on the GPU, in the fields of [`DrawStats`] that count
    /// them.
    fn count_memory(&self) -> DrawStats {
        let parts = self.props.values().flat_map(|p| &p.parts);
        let vertex_bytes = parts.clone().map(|p| p.vertex_bytes).sum();
        let index_bytes = parts.flat_map(|p| &p.lods).map(|l| l.index_bytes).sum();
        let atlas_keys: BTreeSet<[u8; 32]> = self
            .props
            .values()
            .filter_map(|p| p.impostor.as_ref())
            .flat_map(|i| i.texture_keys)
            .collect();
        let (mut texture_bytes, mut atlas_bytes) = (0, 0);
        for (key, texture) in &self.textures {
            if atlas_keys.contains(key) {
                atlas_bytes += texture.bytes;
            } else {
                texture_bytes += texture.bytes;
            }
        }
        DrawStats {
            vertex_bytes,
            index_bytes,
            texture_bytes,
            atlas_bytes,
            prop_bytes: vertex_bytes + index_bytes + texture_bytes + atlas_bytes,
            ..DrawStats::default()
        }
    }

    /// Readies a frame: the shadow cameras, and the instances each view draws, culled
    /// by bounding sphere against `registry`'s transforms (the buckets' bounds follow
    /// them through [`Self::sync`]) and written to each view's instance buffer (with
    /// the placements across a switch distance, as distance from `eye` says, in the draws of
    /// both levels, fading):
    /// those the camera at `view_proj` sees, and for every directional light those
    /// inside its shadow box whose shadow can fall into the camera's view (as far as
    /// `light_reach[i]` says light `i`'s shadows go; a light without one keeps its
    /// whole box). Views and instances unchanged since the last frame are not culled
    /// again.
    /// Returns what the camera's view will draw.
    pub fn prepare_frame(
        &mut self,
        renderer: &Renderer,
        ready: &ReadyData,
        registry: &PlacementRegistry,
        view_proj: glam::Mat4,
        eye: glam::Vec3,
        light_reach: &[LightReach],
    ) -> DrawStats {
        self.prepare_shadows(renderer, ready, eye);
        let for_views = CullViews {
            camera: view_proj,
            eye,
            fades: self.fades.clone(),
            lights: ready
                .directional_light_cameras
                .iter()
                .map(|c| convert::from_mat4(c.view_proj()))
                .collect(),
            reach: light_reach.to_vec(),
        };
        if let Some((views, stats)) = &self.culled {
            if *views == for_views {
                return stats.clone();
            }
        }
        let camera = Frustum::from_view_proj(view_proj);
        let tests: Vec<View> = std::iter::once(View::Camera(camera))
            .chain(
                for_views
                    .lights
                    .iter()
                    .enumerate()
                    .map(|(i, view_proj)| View::Shadow {
                        light: Frustum::from_view_proj(*view_proj),
                        camera,
                        reach: light_reach.get(i),
                    }),
            )
            .collect();
        let views = tests.len();
        while self.views.len() < views {
            self.views.push(VisibleList::new(renderer));
        }
        for view in &mut self.views {
            view.slots.clear();
        }
        let mut stats = self.memory.clone();
        let mut culled = std::mem::take(&mut self.scratch);
        self.draw_keys.clear();
        for (&prop_key, gpu) in &self.props {
            let Ok(Some(shape)) = registry.prop_shape(prop_key) else {
                continue;
            };
            // Every bucket level of the shape, empty ones too: a placement fading into a
            // level no placement is at yet is drawn by that level's draw.
            let prop: Vec<(BucketKey, Drawn, Option<&BucketBounds>)> = (0..shape.levels())
                .flat_map(|lod| {
                    (0..shape.parts_at(lod)).map(move |part| BucketKey {
                        prop: prop_key,
                        part,
                        lod,
                    })
                })
                .filter_map(|key| {
                    let bucket = self.buckets.get(&key).filter(|b| b.count > 0);
                    Some((key, drawn(gpu, key)?, bucket))
                })
                .collect();
            self.draw_keys.extend(prop.iter().map(|entry| entry.0));
            culled.resize_with(prop.len() * views, BucketSlots::default);
            for (index, (key, drawn, bucket)) in prop.iter().enumerate() {
                let transforms = registry.bucket(*key).map(|b| b.transforms());
                let (Some(transforms), Some(bucket)) = (transforms, bucket) else {
                    culled[index * views..(index + 1) * views]
                        .iter_mut()
                        .for_each(BucketSlots::clear);
                    continue;
                };
                // The GPU copy holds the first `count` slots; never list a slot beyond it.
                let transforms = &transforms[..bucket.count.min(transforms.len())];
                stats.instances_in_buckets += transforms.len();
                let instances = Instances {
                    live: transforms.len(),
                    blocks: &bucket.blocks,
                    part: drawn.bounds(),
                };
                let band = Band {
                    eye,
                    fades: &self.fades,
                    prop: key.prop,
                    level: key.lod,
                    levels: shape.levels(),
                };
                let culled = &mut culled[index * views..(index + 1) * views];
                BucketSlots::cull_views(culled, &instances, &band, &tests);
                let level = usize::from(key.lod);
                if stats.instances_per_lod.len() <= level {
                    stats.instances_per_lod.resize(level + 1, 0);
                }
                stats.instances_per_lod[level] += culled[0].len();
                stats.instances += culled[0].len();
                stats.shadow_instances += culled[1..].iter().map(BucketSlots::len).sum::<usize>();
            }
            // The bucket a part draws at `lod`: the impostor is one bucket for all parts.
            let index_of = |part: u16, lod: u8| {
                let part = if shape.is_impostor(lod) { 0 } else { part };
                let key = BucketKey {
                    part,
                    lod,
                    ..prop[0].0
                };
                prop.iter()
                    .position(|entry| entry.0 == key)
                    .map(|i| (key, i))
            };
            for (view, list) in self.views[..views].iter_mut().enumerate() {
                let slots = |found: Option<(BucketKey, usize)>| {
                    found.map(|(key, index)| (key, &culled[index * views + view]))
                };
                for (index, (key, _, _)) in prop.iter().enumerate() {
                    let finer = key
                        .lod
                        .checked_sub(1)
                        .and_then(|lod| index_of(key.part, lod));
                    let coarser = index_of(key.part, key.lod + 1);
                    list.slots.add_draw(
                        *key,
                        &culled[index * views + view],
                        slots(finer),
                        slots(coarser),
                    );
                }
            }
            for (key, drawn, _) in &prop {
                if let Some(seen) = self.views[0].range(key) {
                    let count = seen.len();
                    stats.draw_calls += 1;
                    stats.faded_instances += count;
                    stats.triangles += count as u64 * drawn.triangles();
                }
                let lights = &self.views[1..views];
                stats.shadow_draw_calls += lights.iter().filter(|l| l.range(key).is_some()).count();
            }
        }
        self.scratch = culled;
        // Every drawn instance was counted; those drawn once are the instances in view.
        stats.faded_instances = stats.faded_instances.saturating_sub(stats.instances);
        self.cull_far(registry, &tests, eye, &mut stats);
        for view in &mut self.views[..views] {
            stats.uploaded_instances += view.upload(renderer, registry);
        }
        let reused = DrawStats {
            uploaded_instances: 0,
            ..stats.clone()
        };
        self.culled = Some((for_views, reused));
        stats
    }

    /// Lists what each view of `tests` draws of the far blocks, and counts it in `stats`.
    fn cull_far(
        &mut self,
        registry: &PlacementRegistry,
        tests: &[View],
        eye: glam::Vec3,
        stats: &mut DrawStats,
    ) {
        let props = &self.props;
        self.far.cull(tests, eye, |prop| {
            let (Some(gpu), Ok(Some(shape))) = (props.get(&prop), registry.prop_shape(prop)) else {
                return Vec::new();
            };
            let lod = shape.levels() - 1;
            let parts = if shape.is_impostor(lod) {
                1
            } else {
                shape.parts_at(lod)
            };
            (0..parts)
                .map(|part| BucketKey { prop, part, lod })
                .filter_map(|key| Some((key, drawn(gpu, key)?.bounds())))
                .collect()
        });
        (stats.far_blocks, stats.far_instances) = self.far.counts();
        for (view, draws) in self.far.views.iter().enumerate() {
            for draw in draws {
                let count = draw.instances;
                if view > 0 {
                    stats.shadow_draw_calls += 1;
                    stats.shadow_instances += count;
                    continue;
                }
                let Some(drawn) = self
                    .props
                    .get(&draw.key.prop)
                    .and_then(|g| drawn(g, draw.key))
                else {
                    continue;
                };
                let level = usize::from(draw.key.lod);
                if stats.instances_per_lod.len() <= level {
                    stats.instances_per_lod.resize(level + 1, 0);
                }
                stats.instances_per_lod[level] += count;
                stats.instances += count;
                stats.draw_calls += 1;
                stats.triangles += count as u64 * drawn.triangles();
            }
        }
    }

    /// Every bucket level of the loaded props as of the last cull, with what it draws.
    fn drawable(&self) -> impl Iterator<Item = (BucketKey, Drawn<'_>)> {
        self.draw_keys.iter().filter_map(|key| {
            let gpu = self.props.get(&key.prop)?;
            Some((*key, drawn(gpu, *key)?))
        })
    }

    /// Points each shadow node at its light's camera for this frame, the camera's eye
    /// at `eye`.
    fn prepare_shadows(&mut self, renderer: &Renderer, ready: &ReadyData, eye: glam::Vec3) {
        for (index, camera) in ready.directional_light_cameras.iter().enumerate() {
            let view_proj = convert::from_mat4(camera.view_proj());
            // The view's third row is its forward axis in a left-handed frame (negated in
            // a right-handed one); the light comes from the other way.
            let forward = convert::from_mat4(camera.view()).row(2).truncate();
            let toward_light = match renderer.handedness {
                rend3::types::Handedness::Left => -forward,
                rend3::types::Handedness::Right => forward,
            }
            .normalize_or_zero();
            let mut uniform = [0.0f32; 24];
            uniform[..16].copy_from_slice(&view_proj.to_cols_array());
            uniform[16..19].copy_from_slice(&toward_light.to_array());
            uniform[20..23].copy_from_slice(&eye.to_array());
            let view_proj = uniform;
            if let Some(existing) = self.shadow_cameras.get(index) {
                renderer
                    .queue
                    .write_buffer(&existing.uniform, 0, bytemuck::cast_slice(&view_proj));
                continue;
            }
            let uniform = renderer.device.create_buffer_init(&BufferInitDescriptor {
                label: Some("prop shadow camera"),
                contents: bytemuck::cast_slice(&view_proj),
                usage: BufferUsages::UNIFORM | BufferUsages::COPY_DST,
            });
            let bind_group = renderer.device.create_bind_group(&BindGroupDescriptor {
                label: Some("prop shadow camera"),
                layout: &self.pipelines.shadow_camera_layout,
                entries: &[BindGroupEntry {
                    binding: 0,
                    resource: uniform.as_entire_binding(),
                }],
            });
            self.shadow_cameras.push(ShadowCamera {
                uniform,
                bind_group,
            });
        }
    }
}

/// What bucket `key` of a loaded prop draws with: the impostor for part 0's bucket at
/// the level past the fewest LODs any part has, when the prop has one; else the part's
/// LOD, or its coarsest when the geometry has fewer.
fn drawn(prop: &GpuProp, key: BucketKey) -> Option<Drawn<'_>> {
    let mesh_levels = prop.parts.iter().map(|p| p.lods.len()).min()?;
    if let Some(impostor) = &prop.impostor {
        if key.part == 0 && usize::from(key.lod) == mesh_levels {
            return Some(Drawn::Impostor(impostor));
        }
    }
    let part = prop.parts.get(usize::from(key.part))?;
    let lod = part
        .lods
        .get(usize::from(key.lod))
        .or_else(|| part.lods.last())?;
    Some(Drawn::Mesh { part, lod })
}

//! The viewer's GPU side: the window surface the runtime draws into, the brush
//! cursor's markers as a second instanced layer with its own small registry, and the
//! egui HUD drawn after tone mapping. The runtime ([`Runtime`], built on
//! [`RenderContext::with_iad`] so the software-driver sampler fix applies) owns the
//! world, the terrain scene and the props. Screenshots draw the same frame into a
//! texture and read it back.

use std::path::Path;
use std::sync::Arc;

use glam::UVec2;
use rend3::types::{PresentMode, Surface, TextureFormat};
use rend3::InstanceAdapterDevice;
use rend3_egui::EguiRenderRoutine;
use sylva_buckets::{BucketChanges, PlacementRegistry, PropKey, PropShape};
use sylva_mesh::{Vertex, VertexQuantization};
use sylva_render::props::{IndexWidth, LodIndices, PartGeometry, PartMaterial, PropsRenderer};
use sylva_render::{CameraView, OutputFrame, Overlays, RenderContext, RgbaImage};
use sylva_runtime::{FrameStats, Runtime};
use sylva_world::World;
use thiserror::Error;
use wgpu::{Extent3d, SurfaceError, TextureDescriptor, TextureDimension, TextureUsages};
use winit::window::Window;

use crate::cursor::{Marker, Tint};
use crate::hud_ui::HudFrame;
use crate::loader::LoadedProp;
use crate::workspace::WorldHost;

#[derive(Debug, Error)]
pub enum GpuError {
    #[error("no Vulkan (or other) adapter can draw to the window: {reason}; on a machine without a GPU install Mesa's Vulkan drivers (Debian: mesa-vulkan-drivers)")]
    NoAdapter { reason: String },
    #[error("the window surface has no format the adapter supports")]
    NoSurfaceFormat,
    #[error(transparent)]
    Render(#[from] sylva_render::RenderError),
    #[error(transparent)]
    Runtime(#[from] sylva_runtime::RuntimeError),
    #[error("the brush cursor's marker: {reason}")]
    Marker { reason: String },
    #[error("writing screenshot {path}: {reason}")]
    Screenshot { path: String, reason: String },
}

impl WorldHost for Runtime {
    fn world(&self) -> &World {
        Runtime::world(self)
    }

    fn stream_stats(&self) -> sylva_world::stream::StreamStats {
        Runtime::stream_stats(self)
    }

    fn world_mut(&mut self) -> &mut World {
        Runtime::world_mut(self)
    }

    fn install(&mut self, prop: &str, loaded: &LoadedProp) -> Result<(), String> {
        self.set_prop(prop, &loaded.entry, loaded.revision, &loaded.files)
            .map_err(|e| e.to_string())
    }

    fn uninstall(&mut self, prop: &str) -> Result<(), String> {
        self.unload(prop).map_err(|e| e.to_string())
    }

    fn replace_world(&mut self, world: World) -> Result<(), String> {
        Runtime::replace_world(self, world)
            .map(drop)
            .map_err(|e| e.to_string())
    }
}

/// A window surface and the renderer context to build the runtime on.
pub struct SurfaceContext {
    pub surface: Arc<Surface>,
    pub format: TextureFormat,
    pub context: RenderContext,
}

impl SurfaceContext {
    /// An adapter that can present to `window` and a renderer on it.
    pub fn new(window: &Window) -> Result<Self, GpuError> {
        let no_adapter = |reason: String| GpuError::NoAdapter { reason };
        let iad: InstanceAdapterDevice =
            sylva_render::create_iad().map_err(|e| no_adapter(e.to_string()))?;
        // SAFETY: the caller keeps the window alive for as long as the surface: it
        // owns both and drops everything drawing to the surface first.
        let surface = Arc::new(unsafe { iad.instance.create_surface(window) });
        let format = surface
            .get_preferred_format(&iad.adapter)
            .ok_or(GpuError::NoSurfaceFormat)?;
        let adapter = iad.info.name.clone();
        let context = RenderContext::with_iad(iad, adapter, format)?;
        Ok(Self {
            surface,
            format,
            context,
        })
    }
}

pub struct Gpu {
    surface: Arc<Surface>,
    format: TextureFormat,
    size: UVec2,
    adapter: String,
    cursor: CursorLayer,
    egui: EguiRenderRoutine,
}

impl Gpu {
    /// The window side of drawing, for `runtime` (built on `surface`'s context).
    pub fn new(
        surface: Arc<Surface>,
        format: TextureFormat,
        size: UVec2,
        runtime: &Runtime,
    ) -> Result<Self, GpuError> {
        let context = runtime.context();
        let size = size.max(UVec2::ONE);
        configure(&surface, context, format, size);
        let egui = EguiRenderRoutine::new(
            &context.renderer,
            format,
            rend3::types::SampleCount::One,
            size.x,
            size.y,
            1.0,
        );
        Ok(Self {
            surface,
            format,
            size,
            adapter: context.adapter().to_owned(),
            cursor: CursorLayer::new(context)?,
            egui,
        })
    }

    pub fn adapter(&self) -> &str {
        &self.adapter
    }

    pub fn size(&self) -> UVec2 {
        self.size
    }

    pub fn resize(&mut self, runtime: &Runtime, width: u32, height: u32) {
        if width == 0 || height == 0 {
            return;
        }
        self.size = UVec2::new(width, height);
        configure(&self.surface, runtime.context(), self.format, self.size);
        self.egui.resize(width, height, 1.0);
    }

    pub fn set_cursor(&mut self, markers: &[Marker]) {
        self.cursor.set(markers);
    }

    /// Draws a frame to the window. A lost or outdated surface is reconfigured and the
    /// frame skipped (`None`).
    pub fn present(
        &mut self,
        runtime: &mut Runtime,
        camera: CameraView,
        now: f64,
        hud: &HudFrame,
    ) -> Option<FrameStats> {
        let texture = match self.surface.get_current_texture() {
            Ok(texture) => texture,
            Err(SurfaceError::Lost | SurfaceError::Outdated) => {
                configure(&self.surface, runtime.context(), self.format, self.size);
                return None;
            }
            Err(SurfaceError::Timeout | SurfaceError::OutOfMemory) => return None,
        };
        let view = texture.texture.create_view(&Default::default());
        let output = OutputFrame::SurfaceAcquired {
            view,
            surface_tex: texture,
        };
        Some(self.draw(runtime, camera, now, hud, output))
    }

    /// Draws the same frame into a texture and writes it as a PNG; returns what it drew.
    pub fn screenshot(
        &mut self,
        runtime: &mut Runtime,
        camera: CameraView,
        now: f64,
        hud: &HudFrame,
        path: &Path,
    ) -> Result<FrameStats, GpuError> {
        let error = |reason: String| GpuError::Screenshot {
            path: path.display().to_string(),
            reason,
        };
        let renderer = runtime.context().renderer.clone();
        let texture = renderer.device.create_texture(&TextureDescriptor {
            label: Some("screenshot"),
            size: Extent3d {
                width: self.size.x,
                height: self.size.y,
                depth_or_array_layers: 1,
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: TextureDimension::D2,
            format: self.format,
            usage: TextureUsages::RENDER_ATTACHMENT | TextureUsages::COPY_SRC,
        });
        let view = Arc::new(texture.create_view(&Default::default()));
        let drawn = self.draw(runtime, camera, now, hud, OutputFrame::View(view));
        let mut image = sylva_render::read_rgba8(
            &renderer.device,
            &renderer.queue,
            &texture,
            self.size.x,
            self.size.y,
        )?;
        if matches!(
            self.format,
            TextureFormat::Bgra8Unorm | TextureFormat::Bgra8UnormSrgb
        ) {
            swap_red_blue(&mut image);
        }
        let png = image.to_png()?;
        if let Some(folder) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(folder).map_err(|e| error(e.to_string()))?;
        }
        std::fs::write(path, png).map_err(|e| error(e.to_string()))?;
        Ok(drawn)
    }

    fn draw(
        &mut self,
        runtime: &mut Runtime,
        camera: CameraView,
        now: f64,
        hud: &HudFrame,
        output: OutputFrame,
    ) -> FrameStats {
        let Self {
            cursor, egui, size, ..
        } = self;
        let meshes = &hud.meshes;
        let ctx = hud.ctx.clone();
        let overlays = Overlays {
            gizmos: Some((&mut cursor.renderer, &cursor.registry)),
            hud: Some(Box::new(move |graph, target| {
                egui.add_to_graph(
                    graph,
                    rend3_egui::Input {
                        clipped_meshes: meshes,
                        context: ctx,
                    },
                    target,
                );
            })),
        };
        runtime.draw_with_overlays(camera, now, (size.x, size.y), output, overlays)
    }
}

fn configure(surface: &Surface, context: &RenderContext, format: TextureFormat, size: UVec2) {
    rend3::configure_surface(
        surface,
        &context.renderer.device,
        format,
        rend3::types::glam::UVec2::new(size.x, size.y),
        PresentMode::Fifo,
    );
}

fn swap_red_blue(image: &mut RgbaImage) {
    for pixel in image.pixels.chunks_exact_mut(4) {
        pixel.swap(0, 2);
    }
}

/// The brush cursor: one small marker prop per tint, instanced from a registry of its
/// own, so cursor markers never count among the world's instances.
struct CursorLayer {
    registry: PlacementRegistry,
    renderer: PropsRenderer,
    keys: Vec<(Tint, PropKey)>,
    changes: BucketChanges,
    live: u64,
}

impl CursorLayer {
    fn new(context: &RenderContext) -> Result<Self, GpuError> {
        let marker_error = |reason: String| GpuError::Marker { reason };
        let mut registry = PlacementRegistry::new();
        let mut renderer = PropsRenderer::new(&context.renderer, &context.base.interfaces);
        let (vertices, quantization, indices) = marker_mesh();
        let mut keys = Vec::new();
        for tint in Tint::ALL {
            let key = registry.intern(&format!("cursor/{}", tint.name()));
            registry
                .set_prop_shape(
                    key,
                    PropShape {
                        parts: 1,
                        lods: 1,
                        impostor: false,
                    },
                )
                .map_err(|e| marker_error(e.to_string()))?;
            let part = PartGeometry {
                vertices: &vertices,
                quantization,
                lods: vec![LodIndices {
                    bytes: &indices,
                    width: IndexWidth::U16,
                }],
                material: PartMaterial {
                    // Drawn from both sides, so its winding never matters.
                    double_sided: true,
                    ..PartMaterial::plain(tint.color())
                },
            };
            renderer
                .set_prop(&context.renderer, key, &[part], None)
                .map_err(|e| marker_error(e.to_string()))?;
            keys.push((tint, key));
        }
        Ok(Self {
            registry,
            renderer,
            keys,
            changes: BucketChanges::default(),
            live: 0,
        })
    }

    fn set(&mut self, markers: &[Marker]) {
        for id in 0..self.live {
            // Every id below `live` was inserted by the last call.
            let _ = self.registry.remove(id);
        }
        self.live = 0;
        for marker in markers {
            let Some(&(_, key)) = self.keys.iter().find(|(t, _)| *t == marker.tint) else {
                continue;
            };
            if self
                .registry
                .insert(self.live, key, marker.transform, 0)
                .is_ok()
            {
                self.live += 1;
            }
        }
        self.renderer
            .sync_from(&mut self.registry, &mut self.changes);
    }
}

/// A unit octahedron standing on its lower tip at the origin: 6 vertices, 8 faces,
/// packed as the renderer reads them, with u16 indices.
fn marker_mesh() -> (Vec<u8>, VertexQuantization, Vec<u8>) {
    let points: [[f32; 3]; 6] = [
        [0.5, 0.5, 0.0],
        [-0.5, 0.5, 0.0],
        [0.0, 1.0, 0.0],
        [0.0, 0.0, 0.0],
        [0.0, 0.5, 0.5],
        [0.0, 0.5, -0.5],
    ];
    let vertices: Vec<Vertex> = points
        .into_iter()
        .map(|p| Vertex {
            position: p,
            normal: glam::Vec3::new(p[0], p[1] - 0.5, p[2])
                .normalize()
                .to_array(),
            color: [255; 4],
            ..Vertex::default()
        })
        .collect();
    let quantization = VertexQuantization::fit(&vertices);
    let vertices = vertices.iter().flat_map(|v| quantization.pack(v)).collect();
    let faces: [[u16; 3]; 8] = [
        [2, 4, 0],
        [2, 1, 4],
        [2, 5, 1],
        [2, 0, 5],
        [3, 0, 4],
        [3, 4, 1],
        [3, 1, 5],
        [3, 5, 0],
    ];
    let indices = faces
        .iter()
        .flatten()
        .flat_map(|i| i.to_le_bytes())
        .collect();
    (vertices, quantization, indices)
}

//! The rend3 renderer and the routines of its render graph, with the sampler fix that
//! keeps software drivers fast.

use std::num::NonZeroU8;
use std::sync::{Arc, Once};

use rend3::types::{Handedness, SampleCount, TextureFormat};
use rend3::{InstanceAdapterDevice, PotentialAdapter, Renderer};
use rend3_routine::base::BaseRenderGraph;
use rend3_routine::pbr::PbrRoutine;
use rend3_routine::skybox::SkyboxRoutine;
use rend3_routine::tonemapping::TonemappingRoutine;
use wgpu::{
    AddressMode, Backend, Backends, CompareFunction, DeviceDescriptor, DeviceType, FilterMode,
    Instance, SamplerDescriptor,
};

use crate::error::RenderError;
use crate::fog::FogRoutine;

/// Colour format of headless frames.
pub const OUTPUT_FORMAT: TextureFormat = TextureFormat::Rgba8UnormSrgb;
/// Multisampling of every frame: props and rend3 objects share one depth target.
pub const SAMPLES: SampleCount = SampleCount::One;

/// The renderer sylva draws its own frames with and the rend3-routine routines of its
/// graph.
pub struct RenderContext {
    /// The rend3 renderer (left-handed, as sylva's world).
    pub renderer: Arc<Renderer>,
    /// rend3-routine's base graph (with plain samplers).
    pub base: BaseRenderGraph,
    /// rend3's PBR routine: the terrain and other rend3 objects.
    pub pbr: PbrRoutine,
    /// The sky.
    pub skybox: SkyboxRoutine,
    /// Tone mapping into the output format.
    pub tonemapping: TonemappingRoutine,
    /// The haze over everything opaque.
    pub fog: FogRoutine,
    adapter: String,
}

impl RenderContext {
    /// A renderer on whatever adapter exists (lavapipe on machines without a GPU),
    /// drawing into `output_format` frames. Fails loudly when there is no adapter.
    pub fn new(output_format: TextureFormat) -> Result<Self, RenderError> {
        let iad = create_iad()?;
        let adapter = iad.info.name.clone();
        Self::with_iad(iad, adapter, output_format)
    }

    /// A renderer on an adapter that the caller created (the windowed viewer needs one
    /// compatible with its surface).
    pub fn with_iad(
        iad: rend3::InstanceAdapterDevice,
        adapter: String,
        output_format: TextureFormat,
    ) -> Result<Self, RenderError> {
        let renderer =
            Renderer::new(iad, Handedness::Left, None).map_err(|e| RenderError::NoAdapter {
                reason: e.to_string(),
            })?;
        let mut base = BaseRenderGraph::new(&renderer);
        use_plain_samplers(&renderer, &mut base);
        let mut data_core = renderer.data_core.lock();
        let pbr = PbrRoutine::new(&renderer, &mut data_core, &base.interfaces);
        drop(data_core);
        let skybox = SkyboxRoutine::new(&renderer, &base.interfaces);
        let tonemapping = TonemappingRoutine::new(&renderer, &base.interfaces, output_format);
        let fog = FogRoutine::new(&renderer);
        Ok(Self {
            renderer,
            base,
            pbr,
            skybox,
            tonemapping,
            fog,
            adapter,
        })
    }

    /// Name of the adapter frames are drawn on, e.g. `llvmpipe (LLVM 15.0.6, 256 bits)`.
    pub fn adapter(&self) -> &str {
        &self.adapter
    }
}

/// The instance, adapter, device and queue a renderer is built on, over the backends
/// sylva draws with: Vulkan (lavapipe on machines without a GPU), Metal, DirectX 12.
///
/// Wherever no Wayland session runs (CI, SSH, X11 desktops), `rend3::create_iad`
/// makes libwayland print `error: XDG_RUNTIME_DIR is invalid or not set in the
/// environment` three times although nothing failed (found with a breakpoint on
/// `wl_display_connect`). Once from wgpu's OpenGL backend, whose EGL set-up probes for
/// a Wayland display: rend3 opens its instance over every backend, OpenGL included,
/// and sylva never draws with it, so this instance is created without it. Twice from
/// Mesa's implicit Vulkan layer `VK_LAYER_MESA_device_select`, which on each
/// `vkEnumeratePhysicalDevices` connects to Wayland to put the display's GPU first:
/// sylva orders adapters itself, so the layer is switched off
/// (`skip_mesa_device_select_layer`). The adapter is picked like rend3 picks it:
/// first backend in its order, discrete GPUs before integrated, virtual and software
/// ones, with the profile and limits rend3's `PotentialAdapter` finds.
pub fn create_iad() -> Result<InstanceAdapterDevice, RenderError> {
    skip_mesa_device_select_layer();
    let no_adapter = |reason: String| RenderError::NoAdapter { reason };
    let instance = Instance::new(Backends::PRIMARY);
    let backend_rank = |b: Backend| {
        [Backend::Vulkan, Backend::Metal, Backend::Dx12]
            .iter()
            .position(|&o| o == b)
            .unwrap_or(usize::MAX)
    };
    let device_rank = |t: DeviceType| match t {
        DeviceType::DiscreteGpu => 0,
        DeviceType::IntegratedGpu => 1,
        DeviceType::VirtualGpu => 2,
        DeviceType::Cpu => 3,
        DeviceType::Other => 4,
    };
    let mut adapters: Vec<_> = instance
        .enumerate_adapters(Backends::PRIMARY)
        .filter_map(|adapter| {
            let (info, limits, features) =
                (adapter.get_info(), adapter.limits(), adapter.features());
            PotentialAdapter::new(adapter, info, limits, features, None).ok()
        })
        .collect();
    adapters.sort_by_key(|a| {
        (
            backend_rank(a.info.backend),
            device_rank(a.info.device_type),
        )
    });
    let Some(chosen) = adapters.into_iter().next() else {
        return Err(no_adapter(
            "no Vulkan, Metal or DirectX 12 adapter supports rend3".into(),
        ));
    };
    let (device, queue) = pollster::block_on(chosen.inner.request_device(
        &DeviceDescriptor {
            label: None,
            features: chosen.features,
            limits: chosen.limits.clone(),
        },
        None,
    ))
    .map_err(|e| no_adapter(e.to_string()))?;
    Ok(InstanceAdapterDevice {
        instance: Arc::new(instance),
        adapter: Arc::new(chosen.inner),
        device: Arc::new(device),
        queue: Arc::new(queue),
        profile: chosen.profile,
        info: chosen.info,
    })
}

/// Sets `NODEVICE_SELECT=1` (the variable Mesa's layer manifest names to disable it)
/// for this process, once, before the first Vulkan instance; left alone when the user
/// set it or asked the layer for a device (`MESA_VK_DEVICE_SELECT`). The variable is
/// set under a `Once` before any instance exists; nothing else in sylva reads or writes
/// the environment concurrently.
fn skip_mesa_device_select_layer() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let chosen = |name| std::env::var_os(name).is_some();
        if !chosen("NODEVICE_SELECT") && !chosen("MESA_VK_DEVICE_SELECT") {
            std::env::set_var("NODEVICE_SELECT", "1");
        }
    });
}

/// Replaces the samplers of `base` with plain trilinear ones. rend3-routine creates
/// its samplers with 16× anisotropy; with a directional light, lavapipe (the software
/// Vulkan driver of machines without a GPU) then spends tens of seconds per frame.
/// Plain samplers look the same at sylva's viewing angles and keep a software frame
/// well under a second. Call it right after `BaseRenderGraph::new`, before the routines
/// are created from it.
pub fn use_plain_samplers(renderer: &Renderer, base: &mut BaseRenderGraph) {
    let sampler = |filter, compare| {
        renderer.device.create_sampler(&SamplerDescriptor {
            label: Some("sylva sampler"),
            address_mode_u: AddressMode::Repeat,
            address_mode_v: AddressMode::Repeat,
            address_mode_w: AddressMode::Repeat,
            mag_filter: filter,
            min_filter: filter,
            mipmap_filter: filter,
            lod_min_clamp: 0.0,
            lod_max_clamp: 100.0,
            compare,
            anisotropy_clamp: None::<NonZeroU8>,
            border_color: None,
        })
    };
    base.samplers.linear = sampler(FilterMode::Linear, None);
    base.samplers.nearest = sampler(FilterMode::Nearest, None);
    base.samplers.shadow = sampler(FilterMode::Linear, Some(CompareFunction::GreaterEqual));
}

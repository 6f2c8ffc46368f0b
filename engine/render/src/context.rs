//! The rend3 renderer and the routines of its render graph, with the sampler fix that
//! keeps software drivers fast.

use std::num::NonZeroU8;
use std::sync::Arc;

use rend3::types::{Handedness, SampleCount, TextureFormat};
use rend3::Renderer;
use rend3_routine::base::BaseRenderGraph;
use rend3_routine::pbr::PbrRoutine;
use rend3_routine::skybox::SkyboxRoutine;
use rend3_routine::tonemapping::TonemappingRoutine;
use wgpu::{AddressMode, CompareFunction, FilterMode, SamplerDescriptor};

use crate::error::RenderError;

/// Colour format of headless frames.
pub const OUTPUT_FORMAT: TextureFormat = TextureFormat::Rgba8UnormSrgb;
/// Multisampling of every frame: props and rend3 objects share one depth target.
pub const SAMPLES: SampleCount = SampleCount::One;

pub struct RenderContext {
    pub renderer: Arc<Renderer>,
    pub base: BaseRenderGraph,
    pub pbr: PbrRoutine,
    pub skybox: SkyboxRoutine,
    pub tonemapping: TonemappingRoutine,
    adapter: String,
}

impl RenderContext {
    /// A renderer on whatever adapter exists (lavapipe on machines without a GPU),
    /// drawing into `output_format` frames. Fails loudly when there is no adapter.
    pub fn new(output_format: TextureFormat) -> Result<Self, RenderError> {
        let iad = pollster::block_on(rend3::create_iad(None, None, None, None)).map_err(|e| {
            RenderError::NoAdapter {
                reason: e.to_string(),
            }
        })?;
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
        replace_anisotropic_samplers(&renderer, &mut base);
        let mut data_core = renderer.data_core.lock();
        let pbr = PbrRoutine::new(&renderer, &mut data_core, &base.interfaces);
        drop(data_core);
        let skybox = SkyboxRoutine::new(&renderer, &base.interfaces);
        let tonemapping = TonemappingRoutine::new(&renderer, &base.interfaces, output_format);
        Ok(Self {
            renderer,
            base,
            pbr,
            skybox,
            tonemapping,
            adapter,
        })
    }

    /// Name of the adapter frames are drawn on, e.g. `llvmpipe (LLVM 15.0.6, 256 bits)`.
    pub fn adapter(&self) -> &str {
        &self.adapter
    }
}

/// rend3-routine creates its samplers with 16× anisotropy; with a directional light,
/// lavapipe then spends tens of seconds per frame. Plain trilinear samplers look the
/// same at our viewing angles and keep a software frame well under a second.
fn replace_anisotropic_samplers(renderer: &Renderer, base: &mut BaseRenderGraph) {
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

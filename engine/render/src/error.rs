use thiserror::Error;

#[derive(Debug, Error)]
pub enum RenderError {
    #[error("no GPU adapter could be created ({reason}); on a machine without a GPU install Mesa's Vulkan drivers (Debian: mesa-vulkan-drivers)")]
    NoAdapter { reason: String },
    #[error("a mesh was refused by rend3: {reason}")]
    Mesh { reason: String },
    #[error("frame size {width}×{height} is outside 1..=8192")]
    FrameSize { width: u32, height: u32 },
    #[error("reading the frame back failed: {reason}")]
    Readback { reason: String },
    #[error("encoding PNG: {reason}")]
    Png { reason: String },
}

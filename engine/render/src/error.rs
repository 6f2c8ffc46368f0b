use thiserror::Error;

/// Why the GPU edge failed.
#[derive(Debug, Error)]
pub enum RenderError {
    /// No Vulkan, Metal or DirectX 12 adapter (or device) could be created.
    #[error("no GPU adapter could be created ({reason}); on a machine without a GPU install Mesa's Vulkan drivers (Debian: mesa-vulkan-drivers)")]
    NoAdapter {
        /// What wgpu or rend3 said.
        reason: String,
    },
    /// rend3 refused a mesh.
    #[error("a mesh was refused by rend3: {reason}")]
    Mesh {
        /// What rend3 said.
        reason: String,
    },
    /// A frame side outside `1..=MAX_SIDE`.
    #[error("frame size {width}×{height} is outside 1..=8192")]
    FrameSize {
        /// Requested width.
        width: u32,
        /// Requested height.
        height: u32,
    },
    /// Copying the frame to memory failed.
    #[error("reading the frame back failed: {reason}")]
    Readback {
        /// What wgpu said.
        reason: String,
    },
    /// A sun too low or past the zenith to light the ground.
    #[error("the sun must stand 1° to 90° above the horizon; got {elevation_deg}°")]
    SunElevation {
        /// Requested elevation, in degrees.
        elevation_deg: f32,
    },
    /// A PNG could not be encoded or decoded.
    #[error("encoding PNG: {reason}")]
    Png {
        /// What the png crate said.
        reason: String,
    },
}

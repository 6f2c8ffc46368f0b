/// Why no impostor was baked. The first variants are bad input or settings; the
/// refusals ([`ImpostorError::is_refusal`]) are props an impostor cannot stand in for,
/// which keep their coarsest mesh as their last level.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ImpostorError {
    #[error("impostor setting `{field}` is {value}: {reason}")]
    Settings {
        field: &'static str,
        value: String,
        reason: &'static str,
    },
    #[error("part {part}: {indices} indices are not whole triangles")]
    PartialTriangle { part: usize, indices: usize },
    #[error("part {part}: index {index} is past its {vertices} vertices")]
    IndexOutOfRange {
        part: usize,
        index: u32,
        vertices: usize,
    },
    #[error("part {part}: vertex {vertex}'s position is not finite")]
    NonFinitePosition { part: usize, vertex: usize },
    #[error("part {part}: its material samples texture {texture}, the prop has {textures}")]
    MissingTexture {
        part: usize,
        texture: u32,
        textures: usize,
    },
    #[error("texture {texture}: {bytes} bytes are not {width}×{height} RGBA8 texels")]
    TextureSize {
        texture: usize,
        width: u32,
        height: u32,
        bytes: usize,
    },
    #[error("no impostor: the prop's {parts} parts have no triangle of any area")]
    Empty { parts: usize },
    #[error(
        "no impostor: the prop's bounding radius {radius_m} m is below {min_radius_m} m, \
         too small to be worth an atlas at impostor distances"
    )]
    TooSmall { radius_m: f32, min_radius_m: f32 },
    #[error(
        "no impostor: the prop is flat, {thickness_m} m thin for {extent_m} m across \
         (below {min_ratio} of it), a sliver from the side"
    )]
    Flat {
        thickness_m: f32,
        extent_m: f32,
        min_ratio: f32,
    },
    #[error(
        "no impostor: none of the {views} views shows a texel (every fragment of its \
         {triangles} triangles is alpha-tested away)"
    )]
    Invisible { views: u32, triangles: u64 },
}

impl ImpostorError {
    /// The prop is fine but cannot be an impostor (empty, too small, flat, invisible):
    /// the bake keeps its coarsest mesh and says why.
    pub fn is_refusal(&self) -> bool {
        matches!(
            self,
            ImpostorError::Empty { .. }
                | ImpostorError::TooSmall { .. }
                | ImpostorError::Flat { .. }
                | ImpostorError::Invisible { .. }
        )
    }
}

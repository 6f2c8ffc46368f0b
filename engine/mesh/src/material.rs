/// What the renderer needs of a glTF material: base colour, its texture, alpha and
/// culling. Everything else (metal, roughness, normal maps …) is not carried.
#[derive(Clone, Debug, PartialEq)]
pub struct Material {
    /// The glTF material name, empty when it had none.
    pub name: String,
    /// Linear RGBA multiplier.
    pub base_color_factor: [f32; 4],
    pub base_color_texture: Option<TextureBinding>,
    pub alpha_mode: AlphaMode,
    pub double_sided: bool,
}

impl Default for Material {
    /// glTF's default material: white, opaque, back faces culled.
    fn default() -> Self {
        Material {
            name: String::new(),
            base_color_factor: [1.0; 4],
            base_color_texture: None,
            alpha_mode: AlphaMode::Opaque,
            double_sided: false,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum AlphaMode {
    Opaque,
    /// Fragments with alpha below `cutoff` are discarded.
    Mask {
        cutoff: f32,
    },
    Blend,
}

/// A material's use of a texture: which one of the asset's textures, and how it wraps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TextureBinding {
    /// Index into the asset's textures.
    pub texture: u32,
    pub wrap_u: WrapMode,
    pub wrap_v: WrapMode,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WrapMode {
    Repeat,
    ClampToEdge,
    MirroredRepeat,
}

/// A decoded texture: `width × height` RGBA8 pixels, rows top to bottom, sRGB as
/// authored (glTF base colour textures are sRGB).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Texture {
    pub width: u32,
    pub height: u32,
    pub rgba8: Vec<u8>,
}

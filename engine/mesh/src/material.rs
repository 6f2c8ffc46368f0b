/// A glTF metallic-roughness material as the renderer draws it: every channel of the
/// core specification plus KHR_materials_emissive_strength (folded into
/// `emissive_factor`). Texture bindings index the asset's textures; all of a part's
/// textures read its one UV set (see the importer).
#[derive(Clone, Debug, PartialEq)]
pub struct Material {
    /// The glTF material name, empty when it had none.
    pub name: String,
    /// Linear RGBA multiplier.
    pub base_color_factor: [f32; 4],
    pub base_color_texture: Option<TextureBinding>,
    pub metallic_factor: f32,
    pub roughness_factor: f32,
    /// glTF's metallicRoughnessTexture: roughness in G, metallic in B (linear).
    pub metallic_roughness_texture: Option<TextureBinding>,
    /// A tangent-space normal map (X in R, Y in G, +Y up as glTF has it).
    pub normal_texture: Option<TextureBinding>,
    /// glTF's normalTexture.scale: multiplies the map's X and Y.
    pub normal_scale: f32,
    /// Ambient occlusion in R (linear).
    pub occlusion_texture: Option<TextureBinding>,
    pub occlusion_strength: f32,
    /// Linear RGB emission, already multiplied by KHR_materials_emissive_strength.
    pub emissive_factor: [f32; 3],
    pub emissive_texture: Option<TextureBinding>,
    pub alpha_mode: AlphaMode,
    pub double_sided: bool,
}

impl Default for Material {
    /// glTF's default material: white, fully metallic and rough, opaque, back faces
    /// culled, no textures.
    fn default() -> Self {
        Material {
            name: String::new(),
            base_color_factor: [1.0; 4],
            base_color_texture: None,
            metallic_factor: 1.0,
            roughness_factor: 1.0,
            metallic_roughness_texture: None,
            normal_texture: None,
            normal_scale: 1.0,
            occlusion_texture: None,
            occlusion_strength: 1.0,
            emissive_factor: [0.0; 3],
            emissive_texture: None,
            alpha_mode: AlphaMode::Opaque,
            double_sided: false,
        }
    }
}

/// A material's texture channels: what a texture is sampled for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Channel {
    BaseColor,
    MetallicRoughness,
    Normal,
    Occlusion,
    Emissive,
}

impl Channel {
    pub const ALL: [Channel; 5] = [
        Channel::BaseColor,
        Channel::MetallicRoughness,
        Channel::Normal,
        Channel::Occlusion,
        Channel::Emissive,
    ];

    /// glTF's name for the channel's texture.
    pub fn gltf_name(self) -> &'static str {
        match self {
            Channel::BaseColor => "baseColorTexture",
            Channel::MetallicRoughness => "metallicRoughnessTexture",
            Channel::Normal => "normalTexture",
            Channel::Occlusion => "occlusionTexture",
            Channel::Emissive => "emissiveTexture",
        }
    }

    /// How the channel's texels are encoded.
    pub fn kind(self) -> TextureKind {
        match self {
            Channel::BaseColor | Channel::Emissive => TextureKind::Color,
            Channel::Normal => TextureKind::Normal,
            Channel::MetallicRoughness | Channel::Occlusion => TextureKind::Linear,
        }
    }
}

impl Material {
    /// The texture bound to `channel`, if any.
    pub fn texture(&self, channel: Channel) -> Option<TextureBinding> {
        match channel {
            Channel::BaseColor => self.base_color_texture,
            Channel::MetallicRoughness => self.metallic_roughness_texture,
            Channel::Normal => self.normal_texture,
            Channel::Occlusion => self.occlusion_texture,
            Channel::Emissive => self.emissive_texture,
        }
    }

    /// The slot of `channel`'s texture.
    pub fn texture_mut(&mut self, channel: Channel) -> &mut Option<TextureBinding> {
        match channel {
            Channel::BaseColor => &mut self.base_color_texture,
            Channel::MetallicRoughness => &mut self.metallic_roughness_texture,
            Channel::Normal => &mut self.normal_texture,
            Channel::Occlusion => &mut self.occlusion_texture,
            Channel::Emissive => &mut self.emissive_texture,
        }
    }

    /// The channels that have a texture, in [`Channel::ALL`]'s order.
    pub fn textured_channels(&self) -> impl Iterator<Item = (Channel, TextureBinding)> + '_ {
        Channel::ALL
            .into_iter()
            .filter_map(|c| self.texture(c).map(|t| (c, t)))
    }
}

/// What a texture's texels mean, which decides how the baker filters and encodes them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum TextureKind {
    /// sRGB-encoded colour with alpha (base colour, emission).
    Color,
    /// A tangent-space normal map: X, Y, Z in R, G, B as `n * 0.5 + 0.5`.
    Normal,
    /// Linear data per channel (occlusion, roughness, metallic).
    Linear,
}

/// The alpha cutoff `BLEND` materials are drawn with: sylva draws them alpha-tested
/// (order-independent), and every drawing of a prop (mesh levels, impostor) cuts alike.
pub const BLEND_AS_MASK_CUTOFF: f32 = 0.5;

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

/// A decoded texture: `width × height` RGBA8 pixels, rows top to bottom, encoded as
/// its kind says (glTF colour textures are sRGB, the others linear).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Texture {
    pub width: u32,
    pub height: u32,
    pub kind: TextureKind,
    pub rgba8: Vec<u8>,
}

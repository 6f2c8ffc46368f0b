//! Baking an imported texture into the blob the cache stores.

use sylva_cache::BakedTexture;
use sylva_mesh::Texture;

/// The baked form of `texture`.
pub fn bake_texture(texture: &Texture) -> BakedTexture {
    BakedTexture {
        width: texture.width,
        height: texture.height,
        levels: vec![texture.rgba8.clone()],
    }
}

//! Baking one asset in memory: import, then a LOD chain per part, the textures' mip
//! chains and the prop's impostor.

use sylva_cache::{
    encode, encode_texture, BakedAsset, CacheDir, FormatError, PropFiles, StoreError, TextureFile,
};
use sylva_import::{import, ImportStats};
use sylva_mesh::{Aabb, AlphaMode};

use crate::chain::{build_chain, build_chain_with_budget, ChainStats};
use crate::impostor::{bake_prop_impostor, ImpostorReport};
use crate::key::AssetSource;
use crate::settings::BakeSettings;
use crate::source::AssetError;
use crate::stages::own_budget;
use crate::texture::bake_texture;

/// A baked asset: its entry and the texture blobs the entry names, in its order.
#[derive(Clone, Debug, PartialEq)]
pub struct BakedProp {
    pub asset: BakedAsset,
    /// `textures[i]` is the blob of `asset.textures[i]`.
    pub textures: Vec<TextureFile>,
}

impl BakedProp {
    /// The entry encoded, with the blobs' bytes.
    pub fn files(&self) -> Result<PropFiles, FormatError> {
        Ok(PropFiles {
            entry: encode(&self.asset)?,
            textures: self.textures.iter().map(|t| t.bytes.clone()).collect(),
        })
    }

    /// Writes this bake into `cache`, its entry (`entry`, encoded by
    /// [`BakedProp::files`]) as `name`. Blobs first: a writer killed in between leaves
    /// no entry naming a blob that is not there.
    pub fn write(&self, cache: &CacheDir, name: &str, entry: &[u8]) -> Result<(), StoreError> {
        for texture in &self.textures {
            cache.write_texture(texture)?;
        }
        cache.write_entry(name, entry)
    }
}

/// What baking an asset did.
#[derive(Clone, Debug, PartialEq)]
pub struct AssetReport {
    pub import: ImportStats,
    pub parts: Vec<ChainStats>,
    pub impostor: ImpostorReport,
}

/// Imports `source` (its external files served from `source.externals`), builds every
/// part's chain and bakes every texture into its blob. Deterministic: the same source
/// and settings give the same bytes.
pub fn bake_asset(
    source: &AssetSource,
    settings: &BakeSettings,
) -> Result<(BakedProp, AssetReport), AssetError> {
    let mut resolve = |path: &str| {
        source
            .externals
            .iter()
            .find(|(name, _)| name == path)
            .map(|(_, bytes)| bytes.clone())
            .ok_or_else(|| {
                std::io::Error::new(
                    std::io::ErrorKind::NotFound,
                    "no such file beside the asset",
                )
            })
    };
    let imported = import(&source.bytes, &mut resolve)?;
    let (mut parts, mut stats): (Vec<_>, Vec<_>) = imported
        .parts
        .iter()
        .map(|p| build_chain(p, settings))
        .unzip();
    // The asset's vertices may grow by 30 % in all: what the parts that did not run out
    // left of their own share goes, in part order, to those that did. (A part that ran
    // out spends its share on whole triangles and may keep a rest too small for one.)
    let mut unused: usize = stats
        .iter()
        .filter(|s| !s.facets.capped)
        .map(|s| own_budget(s.weld.vertices_out) - s.facets.appended_vertices)
        .sum();
    for (i, part) in imported.parts.iter().enumerate() {
        if !stats[i].facets.capped || unused == 0 {
            continue;
        }
        let (baked, more) = build_chain_with_budget(part, settings, unused);
        let own = own_budget(more.weld.vertices_out);
        unused -= more.facets.appended_vertices.saturating_sub(own);
        (parts[i], stats[i]) = (baked, more);
    }
    let baked_textures: Vec<_> = imported
        .textures
        .iter()
        .enumerate()
        .map(|(i, t)| bake_texture(t, mask_cutoff(&imported.parts, i), &settings.textures))
        .collect();
    let mut textures = baked_textures
        .iter()
        .map(encode_texture)
        .collect::<Result<Vec<_>, _>>()?;
    let impostor = bake_prop_impostor(
        &parts,
        &baked_textures,
        settings.impostor.as_ref(),
        textures.len() as u32,
    )?;
    textures.extend(impostor.textures);
    let asset = BakedAsset {
        prop_id: source.prop_id.clone(),
        source_path: source.path.clone(),
        bounds: parts.iter().fold(Aabb::EMPTY, |b, p| b.union(p.bounds)),
        parts,
        textures: textures.iter().map(|t| t.id).collect(),
        impostor: impostor.record,
    };
    let report = AssetReport {
        import: imported.stats,
        parts: stats,
        impostor: impostor.report,
    };
    Ok((BakedProp { asset, textures }, report))
}

/// The cutoff of the first alpha-tested material (in part order) that samples texture
/// `index`: its mip levels keep the coverage that cutoff gives level 0.
fn mask_cutoff(parts: &[sylva_import::ImportedPart], index: usize) -> Option<f32> {
    parts.iter().find_map(|part| {
        let material = &part.material;
        match (material.alpha_mode, material.base_color_texture) {
            (AlphaMode::Mask { cutoff }, Some(binding)) if binding.texture as usize == index => {
                Some(cutoff)
            }
            _ => None,
        }
    })
}

//! Baking one asset in memory: import, then a LOD chain per part.

use sylva_cache::BakedAsset;
use sylva_import::{import, ImportError, ImportStats};
use sylva_mesh::Aabb;

use crate::chain::{build_chain, build_chain_with_budget, ChainStats};
use crate::key::AssetSource;
use crate::settings::BakeSettings;
use crate::stages::own_budget;

/// What baking an asset did.
#[derive(Clone, Debug, PartialEq)]
pub struct AssetReport {
    pub import: ImportStats,
    pub parts: Vec<ChainStats>,
}

/// Imports `source` (its external files served from `source.externals`) and builds
/// every part's chain. Deterministic: the same source and settings give the same asset.
pub fn bake_asset(
    source: &AssetSource,
    settings: &BakeSettings,
) -> Result<(BakedAsset, AssetReport), ImportError> {
    let mut resolve = |path: &str| {
        source
            .externals
            .iter()
            .find(|(name, _)| name == path)
            .map(|(_, bytes)| bytes.clone())
            .ok_or_else(|| {
                std::io::Error::new(std::io::ErrorKind::NotFound, "not among the asset's files")
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
    let asset = BakedAsset {
        prop_id: source.prop_id.clone(),
        source_path: source.path.clone(),
        bounds: parts.iter().fold(Aabb::EMPTY, |b, p| b.union(p.bounds)),
        parts,
        textures: imported.textures,
    };
    let report = AssetReport {
        import: imported.stats,
        parts: stats,
    };
    Ok((asset, report))
}

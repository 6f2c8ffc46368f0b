//! Baking one asset in memory: import, then a LOD chain per part, the textures' mip
//! chains and the prop's impostor.

use sylva_cache::{
    encode, encode_texture, BakedAsset, CacheDir, FormatError, PropFiles, StoreError, TextureFile,
};
use sylva_import::{import, ImportStats};
use sylva_mesh::{Aabb, AlphaMode, Sphere};

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
    for (part, stats) in parts.iter().zip(&mut stats) {
        stats.quantize.uv_error_texels = part
            .material
            .textured_channels()
            .filter_map(|(_, binding)| baked_textures.get(binding.texture as usize))
            .map(|t| stats.quantize.uv_error * t.width.max(t.height) as f32)
            .reduce(f32::max);
    }
    let mut textures = baked_textures
        .iter()
        .map(encode_texture)
        .collect::<Result<Vec<_>, _>>()?;
    let sphere = prop_sphere(&parts);
    let impostor = bake_prop_impostor(
        &parts,
        sphere.radius,
        &baked_textures,
        settings.impostor.as_ref(),
        settings.impostor_min_density,
        textures.len() as u32,
    )?;
    textures.extend(impostor.textures);
    let asset = BakedAsset {
        prop_id: source.prop_id.clone(),
        source_path: source.path.clone(),
        bounds: parts.iter().fold(Aabb::EMPTY, |b, p| b.union(p.bounds)),
        sphere,
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

/// A sphere holding every vertex of every part: the smaller of the one centred on their
/// box ([`Sphere::around`]) and Ritter's (grown from the two points farthest apart along
/// a first sweep), whose radius is then the largest distance from its centre to any
/// vertex, one part in a million more so that any rounding of a distance stays inside
/// (at most `f32::MAX`). A prop without vertices has the empty sphere at the origin.
pub fn prop_sphere(parts: &[sylva_cache::BakedPart]) -> Sphere {
    let points = || {
        parts
            .iter()
            .flat_map(|p| p.vertices.iter().map(|v| &v.position))
    };
    let Some(&first) = points().next() else {
        return Sphere {
            center: [0.0; 3],
            radius: 0.0,
        };
    };
    let distance = |a: [f32; 3], b: &[f32; 3]| {
        let d = [0, 1, 2].map(|i| f64::from(a[i]) - f64::from(b[i]));
        (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt()
    };
    let farthest_from = |from: [f32; 3]| {
        points().fold(from, |best, p| {
            if distance(from, p) > distance(from, &best) {
                *p
            } else {
                best
            }
        })
    };
    // Ritter: the farthest point from any point, the farthest from that, then every
    // point outside grows the sphere just enough to hold it.
    let a = farthest_from(first);
    let b = farthest_from(a);
    let mut centre = [0, 1, 2].map(|i| (f64::from(a[i]) + f64::from(b[i])) * 0.5);
    let mut radius = distance(a, &b) * 0.5;
    for p in points() {
        let d = [0, 1, 2].map(|i| f64::from(p[i]) - centre[i]);
        let length = (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt();
        if length > radius {
            let grown = (radius + length) * 0.5;
            let shift = (grown - radius) / length;
            centre = [0, 1, 2].map(|i| centre[i] + d[i] * shift);
            radius = grown;
        }
    }
    let ritter = centre.map(|c| c as f32);
    let boxed = Sphere::around(points()).center;
    [ritter, boxed]
        .into_iter()
        .map(|center| {
            let reach = points().fold(0.0f64, |r, p| r.max(distance(center, p)));
            Sphere {
                center,
                radius: ((reach * (1.0 + 1e-6)) as f32).min(f32::MAX),
            }
        })
        .fold(None, |best: Option<Sphere>, s| match best {
            Some(b) if b.radius <= s.radius => Some(b),
            _ => Some(s),
        })
        .expect("two candidates")
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

#[cfg(test)]
mod tests {
    use super::*;
    use sylva_cache::{BakedLevel, BakedPart};
    use sylva_mesh::{Material, Vertex, VertexQuantization};

    fn part(points: &[[f32; 3]]) -> BakedPart {
        let vertices: Vec<Vertex> = points
            .iter()
            .map(|&position| Vertex {
                position,
                normal: [0.0, 1.0, 0.0],
                uv: [0.0; 2],
                tangent: [0.0; 4],
                color: [255; 4],
            })
            .collect();
        let (quantization, vertices) = VertexQuantization::fit_and_snap(&vertices);
        BakedPart {
            name: "p".into(),
            material: Material::default(),
            bounds: Aabb::of_points(points),
            sphere: Sphere::around(points),
            vertices,
            quantization,
            levels: vec![BakedLevel {
                indices: Vec::new(),
                target_ratio: 1.0,
                achieved_ratio: 1.0,
                error: 0.0,
                error_m: 0.0,
            }],
        }
    }

    /// A deterministic scatter of `n` points: a thin disc of radius `r` round `centre`,
    /// denser in the middle.
    fn scatter(n: u32, centre: [f32; 3], r: f32) -> Vec<[f32; 3]> {
        (0..n)
            .map(|i| {
                let f = i as f32;
                let (a, b) = ((f * 0.618_034).fract(), (f * 0.414_214).fract());
                let angle = a * std::f32::consts::TAU;
                let reach = r * b * b;
                [
                    centre[0] + reach * angle.cos(),
                    centre[1] + (f * 0.1).sin() * 0.05,
                    centre[2] + reach * angle.sin(),
                ]
            })
            .collect()
    }

    #[test]
    fn the_props_sphere_holds_every_vertex_of_every_part_and_is_tight() {
        let parts = [
            part(&scatter(500, [0.0, 1.0, 0.0], 2.0)),
            part(&scatter(300, [3.0, 0.5, -1.0], 0.5)),
            part(&[[-2.5, 4.0, 0.25]]),
        ];
        let sphere = prop_sphere(&parts);
        let mut farthest = 0.0f64;
        for v in parts.iter().flat_map(|p| &p.vertices) {
            let d: f64 = (0..3)
                .map(|i| (f64::from(v.position[i]) - f64::from(sphere.center[i])).powi(2))
                .sum::<f64>()
                .sqrt();
            assert!(d <= f64::from(sphere.radius), "{v:?} outside {sphere:?}");
            farthest = farthest.max(d);
        }
        // Touching: the farthest vertex is on it (but for the rounding margin) …
        assert!(farthest >= f64::from(sphere.radius) * (1.0 - 1e-5));
        // … and it is no larger than the box's sphere (the parts' merged would be
        // larger still).
        let points: Vec<[f32; 3]> = parts
            .iter()
            .flat_map(|p| p.vertices.iter().map(|v| v.position))
            .collect();
        assert!(sphere.radius <= Sphere::around(&points).radius * (1.0 + 1e-5));
        let empty = prop_sphere(&[]);
        assert_eq!((empty.center, empty.radius), ([0.0; 3], 0.0));
        let one = prop_sphere(&[part(&[[1.0, 2.0, 3.0]])]);
        assert_eq!((one.center, one.radius), ([1.0, 2.0, 3.0], 0.0));
    }
}

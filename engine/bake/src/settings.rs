//! Bake settings: the baker's defaults, overridden per category and per prop (and per
//! part within them) by `bake: (...)` in `assets/catalog.ron`.

use std::collections::BTreeMap;

use serde::Serialize;
use sylva_catalog::{BakeOverride, CatalogFile, LodLevel};

use sylva_impostor::ImpostorSettings;

use crate::impostor_plan::IMPOSTOR_MIN_DENSITY;
use crate::texture::TextureSettings;

/// The largest impostor cell the bake makes, in texels per side; the chain decides
/// below it ([`crate::impostor_plan`]). Measured as supersampled PSNR against the
/// coarsest mesh (BENCHMARKS.md, impostor quality): a tree's shelf fungi and twigs need
/// 128² where it covers 100 px at its switch (the snag).
pub const IMPOSTOR_MAX_CELL_PX: u32 = 128;

/// The impostor settings of the bake: `sylva-impostor`'s defaults with cells of at most
/// [`IMPOSTOR_MAX_CELL_PX`], sized by the chain's plan rather than by a fixed density.
pub fn default_impostor_settings() -> ImpostorSettings {
    ImpostorSettings {
        cell_px: IMPOSTOR_MAX_CELL_PX,
        texels_per_m: None,
        ..ImpostorSettings::default()
    }
}

/// What the simplifier may do with vertices on open edges.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Borders {
    /// The default: LockBorder, unless a level cannot reach its target with it; that
    /// level is then simplified with its borders free, within the same error limit
    /// (meshoptimizer's error counts how far the outline moves). Cards and petals,
    /// whose outline is all they have, keep it; the open ends of trunks and leaf
    /// clumps, which would pin a whole mesh, give way.
    LockedUnlessStuck,
    /// `lock_border: Some(true)`: every open-edge vertex stays, whatever the target.
    Locked,
    /// `lock_border: Some(false)`: open edges collapse like the rest.
    Free,
}

impl Borders {
    fn from_override(lock: bool) -> Self {
        if lock {
            Borders::Locked
        } else {
            Borders::Free
        }
    }

    fn key_byte(self) -> u8 {
        match self {
            Borders::LockedUnlessStuck => 2,
            Borders::Locked => 1,
            Borders::Free => 0,
        }
    }
}

/// The settings one asset is baked with.
#[derive(Clone, Debug, PartialEq)]
pub struct BakeSettings {
    /// Simplified levels below the full mesh, coarser and coarser.
    pub levels: Vec<LodLevel>,
    /// The border policy of parts without a part override.
    pub lock_border: Borders,
    /// The border policy per part name.
    pub part_lock_border: BTreeMap<String, Borders>,
    /// Texture size limit and mip filtering.
    pub textures: TextureSettings,
    /// How the prop's impostor is baked; `None` (`impostor: Some(false)` in the
    /// catalog) bakes none, and the coarsest mesh stays the last level.
    pub impostor: Option<ImpostorSettings>,
    /// Props whose coarsest level has fewer triangles per pixel where the impostor
    /// would take over keep it instead of an impostor ([`crate::impostor_plan`]).
    pub impostor_min_density: f32,
}

impl Default for BakeSettings {
    /// Full mesh, ~50 % within 5 % of the part's extent and ~15 % within 15 %, LockBorder
    /// unless a level is stuck on it. The coarse level is drawn from three times the
    /// distance of the middle one (the LOD bands' 30 m / 90 m), so three times the
    /// error is the same on screen. Low-poly packs need these limits: a 200-triangle
    /// leaf clump halved moves its surface by 3–6 % of its size.
    fn default() -> Self {
        BakeSettings {
            levels: vec![
                LodLevel {
                    ratio: 0.5,
                    max_error: 0.05,
                },
                LodLevel {
                    ratio: 0.15,
                    max_error: 0.15,
                },
            ],
            lock_border: Borders::LockedUnlessStuck,
            part_lock_border: BTreeMap::new(),
            textures: TextureSettings::default(),
            impostor: Some(default_impostor_settings()),
            impostor_min_density: IMPOSTOR_MIN_DENSITY,
        }
    }
}

impl BakeSettings {
    /// The settings of prop `prop_id` in `category`: defaults, then the category's
    /// overrides, then the prop's.
    pub fn for_prop(file: &CatalogFile, category: &str, prop_id: &str) -> Self {
        let mut settings = BakeSettings::default();
        if let Some(entry) = file.categories.get(category) {
            settings.apply(&entry.bake);
        }
        if let Some(o) = file.props.get(prop_id) {
            settings.apply(&o.bake);
        }
        settings
    }

    fn apply(&mut self, o: &BakeOverride) {
        if let Some(levels) = &o.levels {
            self.levels = levels.clone();
        }
        if let Some(lock) = o.lock_border {
            self.lock_border = Borders::from_override(lock);
        }
        if let Some(size) = o.max_texture_size {
            self.textures.max_size = size;
        }
        if let Some(coverage) = o.coverage_mips {
            self.textures.coverage_mips = coverage;
        }
        if let Some(impostor) = o.impostor {
            self.impostor = impostor.then(default_impostor_settings);
        }
        if let Some(density) = o.impostor_min_density {
            self.impostor_min_density = density;
        }
        for (part, p) in &o.parts {
            if let Some(lock) = p.lock_border {
                self.part_lock_border
                    .insert(part.clone(), Borders::from_override(lock));
            }
        }
    }

    pub fn lock_border_for(&self, part: &str) -> Borders {
        self.part_lock_border
            .get(part)
            .copied()
            .unwrap_or(self.lock_border)
    }

    /// Feeds every setting, exactly, into a cache key.
    pub fn hash_into(&self, hasher: &mut blake3::Hasher) {
        hasher.update(&(self.levels.len() as u64).to_le_bytes());
        for level in &self.levels {
            hasher.update(&level.ratio.to_bits().to_le_bytes());
            hasher.update(&level.max_error.to_bits().to_le_bytes());
        }
        hasher.update(&[self.lock_border.key_byte()]);
        hasher.update(&(self.part_lock_border.len() as u64).to_le_bytes());
        for (part, lock) in &self.part_lock_border {
            hasher.update(&(part.len() as u64).to_le_bytes());
            hasher.update(part.as_bytes());
            hasher.update(&[lock.key_byte()]);
        }
        hasher.update(&self.textures.max_size.to_le_bytes());
        hasher.update(&[u8::from(self.textures.coverage_mips)]);
        hash_impostor_settings(self.impostor.as_ref(), hasher);
        hasher.update(&self.impostor_min_density.to_bits().to_le_bytes());
    }
}

/// Every impostor setting, exactly (destructured, so a new field cannot be forgotten).
fn hash_impostor_settings(settings: Option<&ImpostorSettings>, hasher: &mut blake3::Hasher) {
    let Some(&ImpostorSettings {
        grid,
        cell_px,
        texels_per_m,
        supersample,
        alpha_cutoff,
        min_radius_m,
        min_thickness_ratio,
    }) = settings
    else {
        hasher.update(&[0]);
        return;
    };
    hasher.update(&[1]);
    for word in [grid, cell_px, supersample] {
        hasher.update(&word.to_le_bytes());
    }
    for optional in [texels_per_m, alpha_cutoff] {
        hasher.update(
            &optional
                .map_or(u64::MAX, |v| u64::from(v.to_bits()))
                .to_le_bytes(),
        );
    }
    for value in [min_radius_m, min_thickness_ratio] {
        hasher.update(&value.to_bits().to_le_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prop_overrides_beat_category_overrides_beat_defaults() {
        let file = CatalogFile::from_ron(
            r#"(
                categories: { "grass": (family: "g", bake: (lock_border: Some(false), parts: { "stem": (lock_border: Some(true)) })) },
                props: { "grass/tall": (bake: (levels: Some([(ratio: 0.3, max_error: 0.1)]))) },
            )"#,
            "catalog.ron",
        )
        .unwrap();
        let tall = BakeSettings::for_prop(&file, "grass", "grass/tall");
        assert_eq!(tall.levels.len(), 1);
        assert_eq!(tall.lock_border_for("blade"), Borders::Free);
        assert_eq!(tall.lock_border_for("stem"), Borders::Locked);
        let short = BakeSettings::for_prop(&file, "grass", "grass/short");
        let elsewhere = BakeSettings::for_prop(&file, "rock", "rock/a");
        assert_eq!(elsewhere.lock_border_for("any"), Borders::LockedUnlessStuck);
        assert_eq!(short.levels, BakeSettings::default().levels);
        let key = |s: &BakeSettings| {
            let mut h = blake3::Hasher::new();
            s.hash_into(&mut h);
            h.finalize()
        };
        assert_ne!(key(&tall), key(&short));
        assert!(tall.impostor.is_some());
    }

    #[test]
    fn impostors_turn_off_per_category_and_back_on_per_prop_and_every_setting_changes_the_key() {
        let file = CatalogFile::from_ron(
            r#"(
                categories: { "grass": (family: "g", bake: (impostor: Some(false))) },
                props: { "grass/tall": (bake: (impostor: Some(true))) },
            )"#,
            "catalog.ron",
        )
        .unwrap();
        let short = BakeSettings::for_prop(&file, "grass", "grass/short");
        let tall = BakeSettings::for_prop(&file, "grass", "grass/tall");
        assert_eq!(short.impostor, None);
        assert_eq!(tall.impostor, Some(default_impostor_settings()));
        let key = |s: &BakeSettings| {
            let mut h = blake3::Hasher::new();
            s.hash_into(&mut h);
            h.finalize()
        };
        let with = |impostor| BakeSettings {
            impostor: Some(impostor),
            ..BakeSettings::default()
        };
        let d = default_impostor_settings();
        let variants = [
            short.clone(),
            with(ImpostorSettings { grid: 8, ..d }),
            with(ImpostorSettings { cell_px: 64, ..d }),
            with(ImpostorSettings {
                texels_per_m: Some(8.0),
                ..d
            }),
            with(ImpostorSettings {
                texels_per_m: Some(3.0),
                ..d
            }),
            with(ImpostorSettings {
                supersample: 3,
                ..d
            }),
            with(ImpostorSettings {
                alpha_cutoff: None,
                ..d
            }),
            with(ImpostorSettings {
                min_radius_m: 0.5,
                ..d
            }),
            with(ImpostorSettings {
                min_thickness_ratio: 0.1,
                ..d
            }),
        ];
        let denser = BakeSettings {
            impostor_min_density: 0.5,
            ..BakeSettings::default()
        };
        let variants: Vec<BakeSettings> = variants.into_iter().chain([denser]).collect();
        let keys: std::collections::BTreeSet<_> = variants
            .iter()
            .chain([&tall])
            .map(|s| key(s).to_hex().to_string())
            .collect();
        assert_eq!(
            keys.len(),
            variants.len() + 1,
            "every setting is in the key"
        );
    }
}

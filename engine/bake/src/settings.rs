//! Bake settings: the baker's defaults, overridden per category and per prop (and per
//! part within them) by `bake: (...)` in `assets/catalog.ron`.

use std::collections::BTreeMap;

use sylva_catalog::{BakeOverride, CatalogFile, LodLevel};

/// The settings one asset is baked with.
#[derive(Clone, Debug, PartialEq)]
pub struct BakeSettings {
    /// Simplified levels below the full mesh, coarser and coarser.
    pub levels: Vec<LodLevel>,
    /// LockBorder for parts without a part override.
    pub lock_border: bool,
    /// LockBorder per part name.
    pub part_lock_border: BTreeMap<String, bool>,
}

impl Default for BakeSettings {
    /// Full mesh, ~50 % and ~15 %, with LockBorder.
    fn default() -> Self {
        BakeSettings {
            levels: vec![
                LodLevel {
                    ratio: 0.5,
                    max_error: 0.02,
                },
                LodLevel {
                    ratio: 0.15,
                    max_error: 0.08,
                },
            ],
            lock_border: true,
            part_lock_border: BTreeMap::new(),
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
            self.lock_border = lock;
        }
        for (part, p) in &o.parts {
            if let Some(lock) = p.lock_border {
                self.part_lock_border.insert(part.clone(), lock);
            }
        }
    }

    pub fn lock_border_for(&self, part: &str) -> bool {
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
        hasher.update(&[u8::from(self.lock_border)]);
        hasher.update(&(self.part_lock_border.len() as u64).to_le_bytes());
        for (part, lock) in &self.part_lock_border {
            hasher.update(&(part.len() as u64).to_le_bytes());
            hasher.update(part.as_bytes());
            hasher.update(&[u8::from(*lock)]);
        }
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
        assert!(!tall.lock_border_for("blade"));
        assert!(tall.lock_border_for("stem"));
        let short = BakeSettings::for_prop(&file, "grass", "grass/short");
        assert_eq!(short.levels, BakeSettings::default().levels);
        let key = |s: &BakeSettings| {
            let mut h = blake3::Hasher::new();
            s.hash_into(&mut h);
            h.finalize()
        };
        assert_ne!(key(&tall), key(&short));
    }
}

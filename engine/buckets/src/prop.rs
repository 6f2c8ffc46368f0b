//! Props as the registry sees them: an interned key and, once baked, a shape.

use crate::RegistryError;

/// The most LOD levels a prop (and the LOD controller's bands) may have. A fixed bound
/// keeps per-LOD counters in fixed-size arrays that copy in O(1).
pub const MAX_LODS: u8 = 8;

/// The distance level of a placement too small on screen to draw: it stays in the
/// registry (and in its LOD proofs) but has no instance in any bucket.
pub const CULLED_LEVEL: u8 = MAX_LODS;

/// A prop id interned by a [`crate::PlacementRegistry`]: a small integer, so hot paths
/// index arrays instead of hashing strings. Only meaningful to the registry that made it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PropKey(pub(crate) u32);

impl PropKey {
    /// The key's index, dense from 0 in interning order (handy for tables beside the
    /// registry, e.g. a renderer's per-prop meshes).
    pub fn index(self) -> u32 {
        self.0
    }
}

/// What a baked prop looks like to the buckets: how many parts (primitives, each drawn
/// from its own bucket), how many mesh LOD levels each part has, and whether an
/// impostor follows them as one more level. The impostor draws the whole prop, so its
/// level has one bucket, part 0's key: `BucketKey { part: 0, lod: lods }`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct PropShape {
    pub parts: u16,
    pub lods: u8,
    pub impostor: bool,
}

impl PropShape {
    pub(crate) fn validate(self) -> Result<Self, RegistryError> {
        if self.parts == 0 || self.lods == 0 {
            return Err(RegistryError::EmptyShape {
                parts: self.parts,
                lods: self.lods,
            });
        }
        if self.levels() > MAX_LODS {
            return Err(RegistryError::TooManyLods {
                lods: self.levels(),
                max: MAX_LODS,
            });
        }
        Ok(self)
    }

    /// Levels a placement can be drawn at: the mesh LODs, then the impostor if any.
    pub fn levels(self) -> u8 {
        self.lods.saturating_add(u8::from(self.impostor))
    }

    /// The bucket level of a placement at distance level `level`: levels past the
    /// prop's coarsest (its impostor, else its last mesh LOD) clamp to it; `None` for
    /// [`CULLED_LEVEL`], which draws nothing.
    pub fn lod_for_level(self, level: u8) -> Option<u8> {
        (level < CULLED_LEVEL).then(|| level.min(self.levels() - 1))
    }

    /// Whether bucket level `lod` is the impostor.
    pub fn is_impostor(self, lod: u8) -> bool {
        self.impostor && lod == self.lods
    }

    /// Buckets at bucket level `lod`: one per part for a mesh level, one for the
    /// impostor.
    pub fn parts_at(self, lod: u8) -> u16 {
        if self.is_impostor(lod) {
            1
        } else {
            self.parts
        }
    }
}

/// Names one bucket: one part of one prop at one LOD.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BucketKey {
    pub prop: PropKey,
    pub part: u16,
    pub lod: u8,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_without_parts_or_lods_are_refused() {
        for (parts, lods) in [(0, 3), (2, 0)] {
            assert_eq!(
                PropShape {
                    parts,
                    lods,
                    impostor: true
                }
                .validate(),
                Err(RegistryError::EmptyShape { parts, lods })
            );
        }
    }

    #[test]
    fn shapes_with_more_lods_than_the_maximum_are_refused() {
        let shape = PropShape {
            parts: 1,
            lods: MAX_LODS + 1,
            impostor: false,
        };
        assert_eq!(
            shape.validate(),
            Err(RegistryError::TooManyLods {
                lods: MAX_LODS + 1,
                max: MAX_LODS
            })
        );
        let with_impostor = PropShape {
            parts: 1,
            lods: MAX_LODS,
            impostor: true,
        };
        assert_eq!(
            with_impostor.validate(),
            Err(RegistryError::TooManyLods {
                lods: MAX_LODS + 1,
                max: MAX_LODS
            })
        );
    }

    #[test]
    fn levels_past_the_coarsest_lod_clamp_to_it() {
        let shape = PropShape {
            parts: 1,
            lods: 2,
            impostor: false,
        };
        assert_eq!(
            [0, 1, 2, 7, CULLED_LEVEL].map(|level| shape.lod_for_level(level)),
            [Some(0), Some(1), Some(1), Some(1), None]
        );
    }

    #[test]
    fn an_impostor_is_the_level_after_the_last_mesh_and_has_one_bucket() {
        let shape = PropShape {
            parts: 3,
            lods: 2,
            impostor: true,
        };
        assert_eq!(shape.levels(), 3);
        assert_eq!(
            [0, 1, 2, 7].map(|level| shape.lod_for_level(level)),
            [Some(0), Some(1), Some(2), Some(2)]
        );
        assert_eq!(
            [0, 1, 2].map(|lod| shape.is_impostor(lod)),
            [false, false, true]
        );
        assert_eq!([0, 1, 2].map(|lod| shape.parts_at(lod)), [3, 3, 1]);
    }
}

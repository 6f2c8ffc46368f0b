//! The placement registry: turns placements into bucket entries, one per part at the
//! placement's LOD, and keeps them there through erase, eviction, undo, LOD moves, late
//! loads, re-bakes and prop deletion.

use glam::{Mat4, Vec3};

use crate::distance::{DistanceLevels, Member};
use crate::placements::PlacementTable;
use crate::prop_buckets::PropBuckets;
use crate::prop_table::PropTable;
use crate::{
    Bucket, BucketChanges, BucketKey, PropKey, PropShape, RegistryError, CULLED_LEVEL, MAX_LODS,
};

/// The most placements one registry holds (slots and indices are `u32`).
pub const MAX_PLACEMENTS: u32 = u32::MAX;

/// Where a placement's instances sit: the same slot in the bucket of every part of
/// `prop` at `lod`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InstanceLocation {
    pub prop: PropKey,
    pub lod: u8,
    pub slot: u32,
}

impl InstanceLocation {
    pub fn bucket(&self, part: u16) -> BucketKey {
        BucketKey {
            prop: self.prop,
            part,
            lod: self.lod,
        }
    }
}

/// What one [`PlacementRegistry::relevel`] pass did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RelevelStats {
    /// Placements whose level was evaluated (all of them).
    pub evaluated: u32,
    /// Placements whose distance was computed one by one: all of them for
    /// [`PlacementRegistry::relevel`]; for [`PlacementRegistry::relevel_by_distance`] the
    /// placements whose proof of staying had run out.
    pub tested: u32,
    /// Placements whose instances changed buckets. A level change that clamps to the same
    /// LOD (a prop with fewer LODs than bands) or of a pending placement moves nothing.
    pub moved: u32,
    /// Whether a distance pass spread over steps has rows left to test
    /// ([`PlacementRegistry::continue_relevel_by_distance`]).
    pub under_way: bool,
}

/// Placements by id, and the instance buckets they fill.
///
/// A placement is *placed* while its prop has a shape ([`Self::set_prop_shape`]): each of
/// its parts then has an instance in the bucket (prop, part, lod), all at the same slot,
/// where lod is its distance level clamped to the prop's coarsest LOD. Otherwise it is
/// *pending*: kept, levelled by the LOD controller like any other, and placed as soon as
/// its prop gets a shape. A placement at [`CULLED_LEVEL`] whose prop has a shape is
/// *culled*: too small on screen to draw, it has no instances until its level changes.
#[derive(Debug, Default, Clone)]
pub struct PlacementRegistry {
    props: PropTable,
    placements: PlacementTable,
    placed_per_lod: [u32; MAX_LODS as usize],
    /// Culled placements of props with a shape.
    culled: u32,
    /// Buckets dropped since the last drain, for the GPU mirror to free.
    removed_buckets: Vec<BucketKey>,
    /// Set by `insert`, cleared by `relevel`: some placement's level has not been checked
    /// against the camera yet.
    unevaluated: bool,
    /// `relevel`'s list of (placement index, new level), kept to reuse its allocation.
    /// Levels only: transforms never pass through shared storage.
    level_changes: Vec<(u32, u8)>,
}

impl PlacementRegistry {
    pub fn new() -> Self {
        Self::default()
    }

    /// The key of the prop with stable id `name` (e.g. `"conifer/pine_tall"`), interned on
    /// first use. Interning the same name again returns the same key.
    pub fn intern(&mut self, name: &str) -> PropKey {
        self.props.intern(name)
    }

    pub fn prop_name(&self, prop: PropKey) -> Result<&str, RegistryError> {
        Ok(&self.props.get(prop)?.name)
    }

    /// The prop's shape, or `None` while it is not loaded.
    pub fn prop_shape(&self, prop: PropKey) -> Result<Option<PropShape>, RegistryError> {
        Ok(self
            .props
            .get(prop)?
            .buckets
            .as_ref()
            .map(PropBuckets::shape))
    }

    /// Declares that `prop` is baked and loaded with `shape` (on first load and on every
    /// hot reload). Its placements get instances in its buckets; other props' placements
    /// are untouched.
    ///
    /// The same shape again is a no-op: the buckets stay as they are and only the meshes
    /// drawn from them change. A different shape (a re-bake with other parts or LODs)
    /// drops the prop's buckets, reported in [`BucketChanges::removed`], and refills new
    /// ones. O(placements).
    pub fn set_prop_shape(&mut self, prop: PropKey, shape: PropShape) -> Result<(), RegistryError> {
        let shape = shape.validate()?;
        let current = self
            .props
            .get(prop)?
            .buckets
            .as_ref()
            .map(PropBuckets::shape);
        if current == Some(shape) {
            return Ok(());
        }
        self.retire_buckets(prop);
        let mut buckets = PropBuckets::new(shape);
        for index in 0..self.placements.len() {
            if self.placements.props[index as usize] == prop {
                self.place(&mut buckets, index);
            }
        }
        self.props.get_mut(prop)?.buckets = Some(buckets);
        Ok(())
    }

    /// Declares that `prop` is gone (deleted from the assets). Its instances leave the
    /// buckets and its placements stay, pending, until it has a shape again.
    pub fn remove_prop_shape(&mut self, prop: PropKey) -> Result<(), RegistryError> {
        self.props.get(prop)?;
        self.retire_buckets(prop);
        Ok(())
    }

    /// Registers placement `id` of `prop` with its world `transform`, starting at
    /// distance level `level` (the LOD controller's `level_for` gives the right one; any
    /// level is corrected by its next evaluation). Ids freed by [`Self::remove`] may be
    /// registered again, as undo and redo do. Amortised O(1).
    pub fn insert(
        &mut self,
        id: u64,
        prop: PropKey,
        transform: Mat4,
        level: u8,
    ) -> Result<(), RegistryError> {
        check_level(level)?;
        self.props.get(prop)?;
        if !transform.is_finite() {
            return Err(RegistryError::NonFiniteTransform { id });
        }
        if self.placements.index_of(id).is_some() {
            return Err(RegistryError::DuplicatePlacement { id });
        }
        if self.placements.len() == MAX_PLACEMENTS {
            return Err(RegistryError::Full {
                limit: MAX_PLACEMENTS,
            });
        }
        let index = self.placements.push(id, prop, transform, level);
        if let Some(mut buckets) = self.props.get_mut(prop)?.buckets.take() {
            self.place(&mut buckets, index);
            self.props.get_mut(prop)?.buckets = Some(buckets);
        }
        self.unevaluated = true;
        Ok(())
    }

    /// Unregisters placement `id` (erase, FIFO eviction, undo) and removes its instances.
    /// O(1) whatever the bucket sizes: swap-removes that patch the back-references of the
    /// instances moved into the holes.
    pub fn remove(&mut self, id: u64) -> Result<(), RegistryError> {
        let index = self
            .placements
            .index_of(id)
            .ok_or(RegistryError::UnknownPlacement { id })?;
        let i = index as usize;
        if let Some(buckets) = self.props.buckets_mut(self.placements.props[i]) {
            match buckets.shape().lod_for_level(self.placements.levels[i]) {
                Some(lod) => {
                    let slot = self.placements.slots[i];
                    if let Some(refilled_by) = buckets.level_mut(lod).swap_remove(slot) {
                        self.placements.slots[refilled_by as usize] = slot;
                    }
                    self.placed_per_lod[usize::from(lod)] -= 1;
                }
                None => self.culled -= 1,
            }
        }
        if self.placements.swap_remove(index) {
            // Another placement took index `index`: its instances must name it there.
            if let Some(buckets) = self.props.buckets_mut(self.placements.props[i]) {
                if let Some(lod) = buckets.shape().lod_for_level(self.placements.levels[i]) {
                    buckets
                        .level_mut(lod)
                        .reassign_owner(self.placements.slots[i], index);
                }
            }
        }
        Ok(())
    }

    /// Fades placement `id` in: its instances draw `share` of their pixels (dithered,
    /// as a LOD fade draws the coarser level's share) for a share in (0, 1), and all of
    /// them for any other (the default). Carried in each instance transform's free first-column `w`, which a
    /// renderer hands to its shaders; a LOD fade's own share takes its place while the
    /// placement crosses a switch. O(parts).
    pub fn set_fade_in(&mut self, id: u64, share: f32) -> Result<(), RegistryError> {
        let index = self
            .placements
            .index_of(id)
            .ok_or(RegistryError::UnknownPlacement { id })?;
        let i = index as usize;
        let fade = if share.is_finite() && share > 0.0 && share < 1.0 {
            share
        } else {
            0.0
        };
        self.placements.transforms[i].x_axis.w = fade;
        if let Some(buckets) = self.props.buckets_mut(self.placements.props[i]) {
            if let Some(lod) = buckets.shape().lod_for_level(self.placements.levels[i]) {
                let slot = self.placements.slots[i];
                for part in buckets.level_mut(lod).parts_mut() {
                    part.set_fade(slot, fade);
                }
            }
        }
        Ok(())
    }

    /// Sets placement `id`'s distance level, moving its instances to the sibling buckets of
    /// the new LOD (out of the buckets for [`CULLED_LEVEL`]). Returns whether they moved
    /// (not if the level clamps to the same LOD, or the placement is pending). O(1), and
    /// allocation-free unless a destination bucket is full.
    pub fn set_level(&mut self, id: u64, level: u8) -> Result<bool, RegistryError> {
        check_level(level)?;
        let index = self
            .placements
            .index_of(id)
            .ok_or(RegistryError::UnknownPlacement { id })?;
        Ok(self.change_level(index, level))
    }

    /// One pass over every placement: `choose_level(member, position, level)` returns the
    /// level it should be at (its current one to stay). Changes are collected first and
    /// applied after the pass, so the pass itself only reads positions and levels.
    ///
    /// A distance pass under way is given up: the placements it had not tested yet are
    /// tested at the next one.
    ///
    /// Precondition: `choose_level` returns levels up to [`CULLED_LEVEL`] (larger ones
    /// are clamped).
    pub fn relevel(
        &mut self,
        mut choose_level: impl FnMut(Member, Vec3, u8) -> u8,
    ) -> RelevelStats {
        self.placements.proofs.abandon();
        let mut changes = std::mem::take(&mut self.level_changes);
        changes.clear();
        let table = &self.placements;
        for (index, member, position) in table.proofs.rows() {
            let level = table.levels[index as usize];
            let chosen = choose_level(member, position, level);
            if chosen != level {
                debug_assert!(chosen <= CULLED_LEVEL, "level {chosen} out of range");
                changes.push((index, chosen.min(CULLED_LEVEL)));
            }
        }
        let evaluated = self.placements.len();
        self.unevaluated = false;
        self.apply_level_changes(changes, evaluated)
    }

    /// The LOD pass by distance: every placement goes to `rule.next_level(member, level,
    /// d²)`, `d` its distance from `camera`, the same levels [`Self::relevel`] would give
    /// with that choice. But it computes `d` only for the placements whose last proof
    /// ran out: each tested placement is proven to keep its level until the camera has
    /// travelled its distance to the nearer end of the range `rule.keeps_level` gives
    /// (see `proofs.rs`). A flying camera tests the placements around their switch
    /// distances, not every placement; a still one tests none. O(placements due) a
    /// pass.
    pub fn relevel_by_distance(
        &mut self,
        camera: Vec3,
        rule: &impl DistanceLevels,
    ) -> RelevelStats {
        self.begin_relevel_by_distance(camera, rule, 1)
    }

    /// [`Self::relevel_by_distance`] spread over `steps` steps, so that no one frame
    /// bears a whole pass: this call tests the first share of the placements due, each
    /// [`Self::continue_relevel_by_distance`] the next, all from `camera`, until
    /// `under_way` is false. The levels are then those of the pass made at once, with
    /// what changed meanwhile applied after it: placements inserted are tested at the
    /// next pass, and a level set from outside stands. Any pass under way is finished
    /// first, by `rule`.
    pub fn begin_relevel_by_distance(
        &mut self,
        camera: Vec3,
        rule: &impl DistanceLevels,
        steps: u32,
    ) -> RelevelStats {
        let mut changes = std::mem::take(&mut self.level_changes);
        changes.clear();
        let tested = self
            .placements
            .proofs
            .begin(camera, rule, steps, &mut changes);
        self.unevaluated = false;
        self.apply_level_changes(changes, tested)
    }

    /// The next share of the distance pass under way, by `rule`: the one it began with.
    /// `evaluated` is 0: the pass counted them when it began.
    pub fn continue_relevel_by_distance(&mut self, rule: &impl DistanceLevels) -> RelevelStats {
        let mut changes = std::mem::take(&mut self.level_changes);
        changes.clear();
        let tested = self.placements.proofs.advance(rule, &mut changes);
        RelevelStats {
            evaluated: 0,
            ..self.apply_level_changes(changes, tested)
        }
    }

    fn apply_level_changes(&mut self, changes: Vec<(u32, u8)>, tested: u32) -> RelevelStats {
        let mut moved = 0;
        for &(index, level) in &changes {
            moved += u32::from(self.change_level(index, level));
        }
        self.level_changes = changes;
        RelevelStats {
            evaluated: self.placements.len(),
            tested,
            moved,
            under_way: self.placements.proofs.under_way(),
        }
    }

    /// Whether a placement was inserted since the last [`Self::relevel`]: the LOD
    /// controller then re-evaluates even if the camera has not moved.
    pub fn has_unevaluated_placements(&self) -> bool {
        self.unevaluated
    }

    pub fn len(&self) -> u32 {
        self.placements.len()
    }

    pub fn is_empty(&self) -> bool {
        self.placements.len() == 0
    }

    pub fn contains(&self, id: u64) -> bool {
        self.placements.index_of(id).is_some()
    }

    /// Placements waiting for their prop's shape.
    pub fn pending_len(&self) -> u32 {
        self.len() - self.placed_per_lod.iter().sum::<u32>() - self.culled
    }

    /// Placements of loaded props too small on screen to draw ([`CULLED_LEVEL`]). O(1).
    pub fn culled_len(&self) -> u32 {
        self.culled
    }

    /// Placed placements per LOD (index = LOD), e.g. for a HUD histogram. O(1).
    pub fn placed_per_lod(&self) -> [u32; MAX_LODS as usize] {
        self.placed_per_lod
    }

    /// Placement `id`'s distance level (its bucket LOD before clamping to its prop's
    /// LODs; kept for pending placements too); `None` if it is unknown.
    pub fn level(&self, id: u64) -> Option<u8> {
        let index = self.placements.index_of(id)?;
        Some(self.placements.levels[index as usize])
    }

    /// Where placement `id`'s instances sit; `None` if it is unknown, pending or culled.
    pub fn locate(&self, id: u64) -> Option<InstanceLocation> {
        let i = self.placements.index_of(id)? as usize;
        let prop = self.placements.props[i];
        let shape = self.prop_shape(prop).ok()??;
        Some(InstanceLocation {
            prop,
            lod: shape.lod_for_level(self.placements.levels[i])?,
            slot: self.placements.slots[i],
        })
    }

    /// The id of the placement that owns `slot` of bucket `key` (e.g. to resolve a pick).
    pub fn placement_at(&self, key: BucketKey, slot: u32) -> Option<u64> {
        let owner = *self.bucket(key)?.owners().get(slot as usize)?;
        Some(self.placements.ids[owner as usize])
    }

    pub fn bucket(&self, key: BucketKey) -> Option<&Bucket> {
        let buckets = self.props.get(key.prop).ok()?.buckets.as_ref()?;
        buckets
            .levels()
            .get(usize::from(key.lod))?
            .parts()
            .get(usize::from(key.part))
    }

    /// Every bucket of every loaded prop, empty ones included, in key order.
    pub fn buckets(&self) -> impl Iterator<Item = (BucketKey, &Bucket)> {
        self.props.entries().flat_map(|(prop, entry)| {
            let levels = entry.buckets.as_ref().map_or(&[][..], PropBuckets::levels);
            levels.iter().zip(0u8..).flat_map(move |(level, lod)| {
                level
                    .parts()
                    .iter()
                    .zip(0u16..)
                    .map(move |(bucket, part)| (BucketKey { prop, part, lod }, bucket))
            })
        })
    }

    /// Moves everything that changed since the previous drain into `changes` (cleared
    /// first), for a GPU mirror to apply. O(buckets) plus the changes themselves.
    pub fn drain_changes(&mut self, changes: &mut BucketChanges) {
        changes.clear();
        changes.take_removed(&mut self.removed_buckets);
        for (prop, entry) in self.props.entries_mut() {
            let Some(buckets) = entry.buckets.as_mut() else {
                continue;
            };
            for (level, lod) in buckets.levels_mut().iter_mut().zip(0u8..) {
                for (bucket, part) in level.parts_mut().iter_mut().zip(0u16..) {
                    if bucket.has_changes() {
                        changes.record(BucketKey { prop, part, lod }, bucket);
                    }
                }
            }
        }
    }

    fn change_level(&mut self, index: u32, level: u8) -> bool {
        let i = index as usize;
        let previous = self.placements.set_level(index, level);
        let Some(buckets) = self.props.buckets_mut(self.placements.props[i]) else {
            return false;
        };
        let shape = buckets.shape();
        let slot = self.placements.slots[i];
        match (shape.lod_for_level(previous), shape.lod_for_level(level)) {
            (Some(from), Some(to)) if from != to => {
                let moved = buckets.move_between(slot, from, to);
                if let Some(refilled_by) = moved.refilled_by {
                    self.placements.slots[refilled_by as usize] = slot;
                }
                self.placements.slots[i] = moved.new_slot;
                self.placed_per_lod[usize::from(from)] -= 1;
                self.placed_per_lod[usize::from(to)] += 1;
            }
            (Some(from), None) => {
                if let Some(refilled_by) = buckets.level_mut(from).swap_remove(slot) {
                    self.placements.slots[refilled_by as usize] = slot;
                }
                self.placed_per_lod[usize::from(from)] -= 1;
                self.culled += 1;
            }
            (None, Some(to)) => {
                let transform = self.placements.transforms[i];
                self.placements.slots[i] = buckets.level_mut(to).push(index, transform);
                self.placed_per_lod[usize::from(to)] += 1;
                self.culled -= 1;
            }
            _ => return false,
        }
        true
    }

    /// Drops `prop`'s buckets, if it has any; its placements become pending.
    fn retire_buckets(&mut self, prop: PropKey) {
        let Some(retired) = self.props.get_mut(prop).ok().and_then(|e| e.buckets.take()) else {
            return;
        };
        let table = &self.placements;
        self.culled -= (0..table.len() as usize)
            .filter(|&i| table.props[i] == prop && table.levels[i] == CULLED_LEVEL)
            .count() as u32;
        for (level, lod) in retired.levels().iter().zip(0u8..) {
            self.placed_per_lod[usize::from(lod)] -= level.len();
            for (bucket, part) in level.parts().iter().zip(0u16..) {
                // A bucket that never allocated was never announced to a mirror.
                if bucket.capacity() > 0 {
                    self.removed_buckets.push(BucketKey { prop, part, lod });
                }
            }
        }
    }
}

impl PlacementRegistry {
    /// Gives placement `index` its instances in `buckets`, at the LOD its level clamps
    /// to, or counts it culled.
    fn place(&mut self, buckets: &mut PropBuckets, index: u32) {
        let i = index as usize;
        let placements = &mut self.placements;
        match buckets.shape().lod_for_level(placements.levels[i]) {
            Some(lod) => {
                placements.slots[i] = buckets.level_mut(lod).push(index, placements.transforms[i]);
                self.placed_per_lod[usize::from(lod)] += 1;
            }
            None => self.culled += 1,
        }
    }
}

fn check_level(level: u8) -> Result<(), RegistryError> {
    if level <= CULLED_LEVEL {
        Ok(())
    } else {
        Err(RegistryError::LevelOutOfRange {
            level,
            max: CULLED_LEVEL,
        })
    }
}

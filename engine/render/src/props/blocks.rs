//! Bounds of a bucket's slots in blocks of [`BLOCK_SLOTS`], so culling rejects (or, for
//! the camera, accepts) a whole block with one test and only looks at the instances of
//! blocks that straddle a view's edge. A stroke or a fill cell places its instances in
//! neighbouring slots, so a block is a patch of ground, not a scatter over the world.
//!
//! Bounds are of instance origins and scales, not of a part's sphere, so they stay
//! valid when a prop's geometry is swapped.

use std::ops::Range;

use glam::{Mat4, Vec3};

use super::cull::Sphere;

/// Slots per block: 64 instances share one test where a view sees all or none of them.
pub const BLOCK_SLOTS: usize = 64;

/// Where the instances of one block stand.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SlotBlock {
    min: Vec3,
    max: Vec3,
    /// The largest scale of any instance in the block (its largest axis).
    max_scale: f32,
}

impl SlotBlock {
    fn of(transforms: &[Mat4]) -> Self {
        let mut block = Self {
            min: Vec3::splat(f32::INFINITY),
            max: Vec3::splat(f32::NEG_INFINITY),
            max_scale: 0.0,
        };
        for model in transforms {
            let origin = model.w_axis.truncate();
            block.min = block.min.min(origin);
            block.max = block.max.max(origin);
            block.max_scale = block.max_scale.max(largest_axis(model));
        }
        block
    }

    /// A sphere holding the sphere of every instance of a part bounded by `part`: an
    /// instance's sphere centre lies within `scale × |part.center|` of its origin.
    pub fn sphere(&self, part: Sphere) -> (Vec3, f32) {
        let center = 0.5 * (self.min + self.max);
        let spread = 0.5 * (self.max - self.min).length();
        (
            center,
            spread + self.max_scale * (part.center.length() + part.radius),
        )
    }
}

/// The largest axis length of a transform: the scale [`Sphere::transformed`] applies.
pub fn largest_axis(model: &Mat4) -> f32 {
    model
        .x_axis
        .truncate()
        .length()
        .max(model.y_axis.truncate().length())
        .max(model.z_axis.truncate().length())
}

/// The blocks of one bucket's live slots.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SlotBlocks {
    blocks: Vec<SlotBlock>,
}

impl SlotBlocks {
    /// Recomputes the blocks holding `dirty` slots, and the last one, for `live` slots
    /// of `transforms` (the bucket's dense array): work in proportion to what changed.
    pub fn update(&mut self, transforms: &[Mat4], dirty: &[Range<u32>], live: usize) {
        let live = live.min(transforms.len());
        let count = live.div_ceil(BLOCK_SLOTS);
        let old = self.blocks.len();
        self.blocks.resize(count, SlotBlock::of(&[]));
        let recompute = |blocks: &mut Vec<SlotBlock>, block: usize| {
            let slots = block * BLOCK_SLOTS..((block + 1) * BLOCK_SLOTS).min(live);
            blocks[block] = SlotBlock::of(&transforms[slots]);
        };
        for run in dirty {
            let first = run.start as usize / BLOCK_SLOTS;
            let last = (run.end as usize).min(live).div_ceil(BLOCK_SLOTS);
            for block in first..last.min(count) {
                recompute(&mut self.blocks, block);
            }
        }
        // New blocks and a shrunk last block: their slots changed even where no write
        // did (slots past the live count are gone).
        for block in old.min(count).saturating_sub(1)..count {
            recompute(&mut self.blocks, block);
        }
    }

    /// Each block with the slots it covers.
    pub fn iter(&self, live: usize) -> impl Iterator<Item = (Range<u32>, &SlotBlock)> {
        self.blocks.iter().enumerate().map(move |(i, block)| {
            let start = i * BLOCK_SLOTS;
            (
                start as u32..((start + BLOCK_SLOTS).min(live)) as u32,
                block,
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use glam::Quat;

    use super::*;

    fn placed(x: f32, scale: f32) -> Mat4 {
        Mat4::from_scale_rotation_translation(
            Vec3::splat(scale),
            Quat::from_rotation_y(x),
            Vec3::new(x, 0.0, -x),
        )
    }

    #[test]
    fn a_block_sphere_holds_every_instance_sphere() {
        let transforms: Vec<Mat4> = (0..200)
            .map(|i| placed(i as f32 * 0.7, 0.5 + (i % 7) as f32 * 0.2))
            .collect();
        let mut blocks = SlotBlocks::default();
        blocks.update(&transforms, &[0..200], 200);
        let part = Sphere {
            center: Vec3::new(0.3, 2.0, -0.5),
            radius: 1.5,
        };
        for (slots, block) in blocks.iter(200) {
            let (center, radius) = block.sphere(part);
            for model in &transforms[slots.start as usize..slots.end as usize] {
                let (c, r) = part.transformed(model);
                assert!(c.distance(center) + r <= radius + 1e-4);
            }
        }
    }

    #[test]
    fn only_blocks_with_changes_are_recomputed_and_shrinking_trims_the_last() {
        let mut transforms: Vec<Mat4> = (0..130).map(|i| placed(i as f32, 1.0)).collect();
        let mut blocks = SlotBlocks::default();
        blocks.update(&transforms, &[0..130], 130);
        assert_eq!(blocks.iter(130).count(), 3);
        // Slot 5 moves far away: its block grows, the others keep their bounds.
        transforms[5] = placed(1000.0, 1.0);
        let before = blocks.clone();
        blocks.update(&transforms, &[5..6], 130);
        assert_ne!(blocks.blocks[0], before.blocks[0]);
        assert_eq!(blocks.blocks[1], before.blocks[1]);
        // Down to 100 live slots: two blocks, the last bounding slots 64..100 only.
        blocks.update(&transforms, &[], 100);
        assert_eq!(blocks.blocks.len(), 2);
        assert_eq!(blocks.blocks[1], SlotBlock::of(&transforms[64..100]));
    }
}

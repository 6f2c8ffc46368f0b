//! Streamed far tiles that changed, handed to a renderer nearest the camera first and a
//! bounded number of instances a frame: a burst of tiles turning far or arriving (a
//! fast camera crossing a family's rings) is spread over the frames that follow, and
//! what waits is the farthest, a frame or a few late at the horizon.

use std::time::{Duration, Instant};

use glam::{Mat4, Vec2, Vec3};
use rustc_hash::FxHashSet;
use sylva_buckets::PropKey;

use crate::World;

/// How much of what waits one frame's hand-over takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FarBudget {
    /// Instances gathered at most.
    pub instances: usize,
    /// Past this moment no more than `at_least` are: a frame whose other work ran
    /// long (a pass over a far-reaching family) leaves its share to the next frames.
    pub deadline: Instant,
    pub at_least: usize,
}

impl FarBudget {
    /// The budget of a frame begun at `started`: 16,384 instances (about 1 ms of
    /// gathering here, while a fast camera's bursts reach twice that), none past 4 ms
    /// into the frame but the first 2,048.
    pub fn for_frame(started: Instant) -> Self {
        Self {
            instances: 16_384,
            deadline: started + Duration::from_millis(4),
            at_least: 2_048,
        }
    }

    fn spent(&self, handed: usize) -> bool {
        handed >= self.instances || (handed >= self.at_least && Instant::now() >= self.deadline)
    }
}

/// A streamed fill's tile: (fill, tile).
pub type FarTile = (usize, (usize, usize));

/// Far tiles changed and not yet handed over.
#[derive(Default)]
pub struct FarChanges {
    pending: FxHashSet<FarTile>,
    /// The last tile's instances, kept for their allocation.
    instances: Vec<(PropKey, Mat4)>,
}

impl FarChanges {
    /// Notes the tiles whose far placements changed in `world` since the last call.
    pub fn note(&mut self, world: &mut World) {
        self.pending.extend(world.drain_far_changes());
    }

    /// Hands `each` the waiting tiles nearest `eye` with their instances
    /// ([`World::far_instances`]; none: the tile holds nothing far now), until the
    /// `budget` is spent (an empty tile counting one instance), or every tile without
    /// one. Returns how many tiles it handed.
    pub fn hand_over(
        &mut self,
        world: &World,
        eye: Vec3,
        budget: Option<FarBudget>,
        mut each: impl FnMut(FarTile, &mut Vec<(PropKey, Mat4)>),
    ) -> usize {
        let mut order: Vec<FarTile> = self.pending.iter().copied().collect();
        if budget.is_some() {
            let eye = Vec2::new(eye.x, eye.z);
            let mut by_distance: Vec<(f32, FarTile)> = (order.iter())
                .map(|&(fill, tile)| (world.streamed_tile_distance(fill, tile, eye), (fill, tile)))
                .collect();
            by_distance.sort_unstable_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
            order = by_distance.into_iter().map(|(_, tile)| tile).collect();
        }
        let mut handed = 0;
        let mut tiles = 0;
        for tile in order {
            if budget.is_some_and(|budget| budget.spent(handed)) {
                break;
            }
            self.pending.remove(&tile);
            world.far_instances(tile.0, tile.1, &mut self.instances);
            handed += self.instances.len().max(1);
            tiles += 1;
            each(tile, &mut self.instances);
        }
        tiles
    }

    /// Marks `tiles` changed: handed over again (a renderer whose fades changed).
    pub fn mark(&mut self, tiles: impl IntoIterator<Item = FarTile>) {
        self.pending.extend(tiles);
    }

    /// How far the nearest tile waiting is from `eye`, if any waits.
    pub fn nearest_waiting(&self, world: &World, eye: Vec3) -> Option<f32> {
        let eye = Vec2::new(eye.x, eye.z);
        (self.pending.iter())
            .map(|&(fill, tile)| world.streamed_tile_distance(fill, tile, eye))
            .min_by(f32::total_cmp)
    }

    /// How many tiles wait to be handed over.
    pub fn waiting(&self) -> usize {
        self.pending.len()
    }

    /// Forgets the tiles waiting (the world they came from was replaced).
    pub fn clear(&mut self) {
        self.pending.clear();
    }
}

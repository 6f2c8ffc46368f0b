//! Streamed fills' far placements on the GPU: each tile with far placements one far
//! tile of the props renderer, set again from the world's far placements whenever it
//! changed, and all of them when the renderer's fades changed. A fill's tiles are
//! grouped in far blocks of [`BLOCK_TILES`]² tiles: a view sees thousands of tiles
//! out to the horizon, and a block draws its tiles a prop with one draw where it can.

use std::collections::BTreeSet;

use glam::Mat4;
use rend3::Renderer;
use rustc_hash::FxHashSet;
use sylva_buckets::PropKey;
use sylva_render::props::{FarBlockId, FarTileId, PropsRenderer};
use sylva_world::World;

/// Tiles along each side of a far block's square.
const BLOCK_TILES: usize = 16;

/// Bits of a far block's id for each of its square's indices.
const INDEX_BITS: u32 = 24;

/// The far tile of streamed fill `fill`'s tile `tile`.
fn far_tile(fill: usize, (x, y): (usize, usize)) -> FarTileId {
    let mask = (1 << INDEX_BITS) - 1;
    let block = (fill as u64) << (2 * INDEX_BITS)
        | ((x / BLOCK_TILES) as u64 & mask) << INDEX_BITS
        | ((y / BLOCK_TILES) as u64 & mask);
    FarTileId {
        block: FarBlockId(block),
        tile: ((x % BLOCK_TILES) * BLOCK_TILES + y % BLOCK_TILES) as u32,
    }
}

/// Keeps the renderer's far tiles in line with the world's.
#[derive(Default)]
pub(crate) struct FarTiles {
    /// The tiles set with instances, as (streamed fill, tile).
    held: FxHashSet<(usize, (usize, usize))>,
    /// The last gather, kept for its allocation.
    instances: Vec<(PropKey, Mat4)>,
}

impl FarTiles {
    /// Sets again every tile whose far placements changed since the last call, or every
    /// tile when the renderer's fades changed; returns how many. Placements of props
    /// the world has no key for (never described, so never drawn) are left out.
    pub(crate) fn sync(
        &mut self,
        renderer: &Renderer,
        world: &mut World,
        props: &mut PropsRenderer,
    ) -> usize {
        let mut tiles: BTreeSet<(usize, (usize, usize))> =
            world.drain_far_changes().into_iter().collect();
        if props.take_far_tiles_stale() {
            tiles.extend(self.held.iter().copied());
        }
        for &(fill, tile) in &tiles {
            self.instances.clear();
            for placement in world.far_placements(fill, tile) {
                if let Some(key) = world.known_prop_key(&placement.prop) {
                    self.instances.push((key, placement.transform()));
                }
            }
            if self.instances.is_empty() {
                self.held.remove(&(fill, tile));
            } else {
                self.held.insert((fill, tile));
            }
            let id = far_tile(fill, tile);
            props.set_far_tile(renderer, world.registry(), id, &mut self.instances);
        }
        tiles.len()
    }

    /// Forgets the tiles held (the renderer dropped them with the registry).
    pub(crate) fn clear(&mut self) {
        self.held.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tiles_of_one_square_share_a_block_and_no_two_tiles_share_an_id() {
        let a = far_tile(3, (40, 1_000_000));
        assert_eq!(far_tile(3, (47, 1_000_003)).block, a.block);
        assert_ne!(far_tile(3, (48, 1_000_000)).block, a.block);
        assert_ne!(far_tile(2, (40, 1_000_000)).block, a.block);
        let ids: BTreeSet<FarTileId> = (32..48)
            .flat_map(|x| (0..16).map(move |y| far_tile(0, (x, y))))
            .collect();
        assert_eq!(ids.len(), BLOCK_TILES * BLOCK_TILES);
    }
}

//! Streamed fills' far placements on the GPU: each tile with far placements one far
//! tile of the props renderer, set again from the world's far placements whenever it
//! changed (nearest the camera first, a bounded number of instances a frame), and all
//! of them when the renderer's fades changed. A fill's tiles are
//! grouped in far blocks of [`BLOCK_TILES`]² tiles: a view sees thousands of tiles
//! out to the horizon, and a block draws its tiles a prop with one draw where it can.

use glam::Vec3;
use rend3::Renderer;
use sylva_render::props::{FarBlockId, FarTileId, PropsRenderer};
use sylva_world::{FarBudget, FarChanges, FarTile, World};

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

/// The streamed fill and tile of far tile `id` ([`far_tile`]'s inverse).
fn streamed_tile(id: FarTileId) -> FarTile {
    let mask = (1 << INDEX_BITS) - 1;
    let (block, tile) = (id.block.0, id.tile as usize);
    let square = |shift: u32| ((block >> shift) & mask) as usize * BLOCK_TILES;
    let fill = (block >> (2 * INDEX_BITS)) as usize;
    (
        fill,
        (
            square(INDEX_BITS) + tile / BLOCK_TILES,
            square(0) + tile % BLOCK_TILES,
        ),
    )
}

/// Keeps the renderer's far tiles in line with the world's.
#[derive(Default)]
pub(crate) struct FarTiles {
    changes: FarChanges,
}

impl FarTiles {
    /// Sets again the tiles whose far placements changed, or every tile when the
    /// renderer's fades changed, nearest `eye` first and, with a `budget`, as much as it
    /// allows ([`FarChanges::hand_over`]); returns how many.
    pub(crate) fn sync(
        &mut self,
        (renderer, props): (&Renderer, &mut PropsRenderer),
        world: &mut World,
        eye: Vec3,
        budget: Option<FarBudget>,
    ) -> usize {
        self.changes.note(world);
        if props.take_far_tiles_stale() {
            self.changes.mark(props.far_tiles().map(streamed_tile));
        }
        let registry = world.registry();
        self.changes
            .hand_over(world, eye, budget, |tile, instances| {
                props.set_far_tile(renderer, registry, far_tile(tile.0, tile.1), instances);
            })
    }

    /// Forgets the tiles waiting (the renderer dropped its far tiles with the registry).
    pub(crate) fn clear(&mut self) {
        self.changes.clear();
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;

    #[test]
    fn tiles_of_one_square_share_a_block_and_each_tile_is_named_by_its_id() {
        let a = far_tile(3, (40, 1_000_000));
        assert_eq!(far_tile(3, (47, 1_000_003)).block, a.block);
        assert_ne!(far_tile(3, (48, 1_000_000)).block, a.block);
        assert_ne!(far_tile(2, (40, 1_000_000)).block, a.block);
        let ids: BTreeSet<FarTileId> = (32..48)
            .flat_map(|x| (0..16).map(move |y| far_tile(0, (x, y))))
            .collect();
        assert_eq!(ids.len(), BLOCK_TILES * BLOCK_TILES);
        for tile in [(3, (40, 1_000_000)), (0, (0, 0)), (1, (15, 17))] {
            assert_eq!(streamed_tile(far_tile(tile.0, tile.1)), tile);
        }
    }
}

//! A session painted around the meadow, for tests that need one on disk.

use glam::Vec2;
use sylva_lod::LodConfig;
use sylva_scatter::{Preset, Session, TerrainSource, DEFAULT_PLACEMENT_CAP};
use sylva_terrain::{default_world, Landmark};
use sylva_world::World;

use crate::repo;

/// A session journal on the default world: `dabs` dabs of the meadow preset around the meadow (grass and
/// flowers before and behind the block), then a dab of mixed forest behind it.
pub fn meadow_session(dabs: usize) -> String {
    let snapshot = sylva_catalog::folder::read_snapshot(&repo().join("assets")).unwrap();
    let session = Session::new(
        3,
        DEFAULT_PLACEMENT_CAP,
        TerrainSource::DefaultWorld,
        snapshot,
    );
    let mut world = World::new(default_world(), &session, &LodConfig::default()).unwrap();
    let meadow = Landmark::Meadow.position();
    let strokes = [
        ("meadow", Vec2::new(-4.0, -4.0), dabs),
        ("mixed_forest", Vec2::new(2.0, 14.0), dabs.min(1)),
    ];
    for (stem, offset, dabs) in strokes {
        let path = repo().join(format!("presets/{stem}.ron"));
        let preset = Preset::parse(&std::fs::read_to_string(&path).unwrap(), stem).unwrap();
        let brush = preset.brush;
        let name = world.use_preset(stem, preset).unwrap();
        world.begin_paint(&name, brush).unwrap();
        for step in 0..dabs {
            world
                .dab(meadow + offset + Vec2::new(6.0 * step as f32, 0.0))
                .unwrap();
        }
        world.end_stroke();
    }
    world.editor().session().to_ron()
}

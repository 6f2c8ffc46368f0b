//! Bytes as a session journal, in RON and in JSON, replayed on the default world when
//! they parse and the painting they ask for (strokes and fills) is small enough for a
//! fuzzer.

use std::f32::consts::PI;
use std::sync::OnceLock;

use sylva_scatter::{Area, Editor, Event, Session, MAX_DENSITY, MAX_RADIUS};
use sylva_terrain::{default_world, Terrain};

/// Most brush candidates a fuzzed journal may ask for before its replay is skipped (a
/// valid journal may ask for millions; the fuzzer needs thousands of runs a second).
const MAX_CANDIDATES: f32 = 20_000.0;
/// Most dabs, paint and erase together.
const MAX_DABS: usize = 2_000;

fn terrain() -> &'static Terrain {
    static TERRAIN: OnceLock<Terrain> = OnceLock::new();
    TERRAIN.get_or_init(default_world)
}

/// Whatever replays records a journal that replays to the same placements.
pub fn session(bytes: &[u8]) {
    let Ok(text) = std::str::from_utf8(bytes) else {
        return;
    };
    for source_name in ["fuzz.session.ron", "fuzz.session.json"] {
        let Ok(session) = Session::parse(text, source_name) else {
            continue;
        };
        if !small_enough(&session) {
            continue;
        }
        let Ok((editor, _)) = Editor::replay(&session, terrain()) else {
            continue;
        };
        let recorded = editor.session();
        let (again, _) = Editor::replay(recorded, terrain()).expect("a recorded journal replays");
        assert_eq!(again.painter().len(), editor.painter().len());
        assert_eq!(again.painter().digest(), editor.painter().digest());
    }
}

/// Whether replaying `session` stays within the fuzzing budget. Dabs of an invalid brush
/// are refused before drawing anything, so only valid brushes count.
fn small_enough(session: &Session) -> bool {
    let mut candidates = 0.0;
    let mut dabs = 0;
    for event in &session.events {
        match event {
            Event::Paint { brush, dabs: d, .. } => {
                let valid = brush.radius > 0.0
                    && brush.radius <= MAX_RADIUS
                    && brush.density_per_m2 > 0.0
                    && brush.density_per_m2 <= MAX_DENSITY;
                if valid {
                    candidates +=
                        brush.density_per_m2 * PI * brush.radius * brush.radius * d.len() as f32;
                }
                dabs += d.len();
            }
            Event::Erase { dabs: d, .. } => dabs += d.len(),
            Event::Fill {
                preset,
                region,
                density,
                ..
            } => {
                // A region that does not check is refused before drawing anything.
                let density =
                    density.or(session.presets.get(preset).map(|p| p.brush.density_per_m2));
                if let (Ok(area), Some(density)) = (Area::new(region, terrain()), density) {
                    let (min, max) = area.bounds();
                    candidates += density.clamp(0.0, MAX_DENSITY) * (max - min).x * (max - min).y;
                }
            }
            Event::Undo | Event::Redo | Event::Catalog(_) => {}
        }
    }
    candidates <= MAX_CANDIDATES && dabs <= MAX_DABS
}

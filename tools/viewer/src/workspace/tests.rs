//! The workspace with the repository's presets and catalog, and sources whose loads
//! finish at once or only when a test lets them.

use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use glam::Vec2;
use sylva_scatter::Editor;
use sylva_terrain::Landmark;

use super::*;
use crate::cache_source::CacheSource;
use crate::loader::LoadedProp;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Entries of the committed cache, whose loads wait until `open`; every call is
/// counted.
pub(crate) struct Gate {
    cache: CacheSource,
    open: Mutex<bool>,
    opened: Condvar,
    calls: Mutex<Vec<String>>,
}

impl Gate {
    fn shut() -> Arc<Self> {
        Arc::new(Self {
            cache: CacheSource::new(&repo().join("assets"), sylva_testkit::kit_cache().root()),
            open: Mutex::new(false),
            opened: Condvar::new(),
            calls: Mutex::new(Vec::new()),
        })
    }

    pub(crate) fn opened() -> Arc<Self> {
        let gate = Self::shut();
        gate.open();
        gate
    }

    fn open(&self) {
        *self.open.lock().unwrap() = true;
        self.opened.notify_all();
    }

    fn calls(&self) -> Vec<String> {
        self.calls.lock().unwrap().clone()
    }
}

impl PropSource for Gate {
    fn load(&self, id: &str) -> Result<LoadedProp, String> {
        self.calls.lock().unwrap().push(id.to_owned());
        let mut open = self.open.lock().unwrap();
        while !*open {
            open = self.opened.wait(open).unwrap();
        }
        drop(open);
        self.cache.load(id)
    }
}

pub(crate) struct Fixture {
    dir: tempfile::TempDir,
    pub(crate) workspace: Workspace<World>,
}

fn options(dir: &Path) -> WorkspaceOptions {
    WorkspaceOptions {
        assets: repo().join("assets"),
        presets: repo().join("presets"),
        terrain: TerrainChoice::DefaultWorld,
        session: dir.join("run.session.ron"),
        continue_session: true,
        seed: 11,
        cap: sylva_scatter::DEFAULT_PLACEMENT_CAP,
        lod: sylva_lod::LodConfig::default(),
    }
}

fn open(options: WorkspaceOptions, source: Arc<dyn PropSource>) -> Workspace<World> {
    let world = open_world(&options).unwrap();
    Workspace::open(options, world, source).unwrap()
}

pub(crate) fn fixture(source: Arc<dyn PropSource>) -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let workspace = open(options(dir.path()), source);
    Fixture { dir, workspace }
}

/// A stroke of `dabs` dabs eastwards from `at`, a third of the radius apart (the
/// pointer goes a hair further each time, so rounding never drops a dab).
pub(crate) fn stroke(workspace: &mut Workspace<World>, erase: bool, at: Vec2, dabs: usize) {
    workspace.begin_stroke(erase);
    let spacing = workspace.brush().radius / 3.0 * 1.001;
    for i in 0..dabs {
        workspace.stroke_to(at + Vec2::X * spacing * i as f32);
    }
    workspace.end_stroke();
}

/// Waits for every load in flight; returns how many props were installed.
pub(crate) fn wait_for_loads(workspace: &mut Workspace<World>) -> usize {
    let mut installed = 0;
    for _ in 0..1000 {
        installed += workspace.poll_loads();
        if workspace.loads_in_flight() == 0 {
            return installed;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    panic!("loads did not finish");
}

fn placements(workspace: &Workspace<World>) -> usize {
    workspace.world().editor().painter().len()
}

#[test]
fn picking_a_preset_preloads_every_prop_it_can_place() {
    let gate = Gate::opened();
    let mut f = fixture(gate.clone());
    f.workspace.pick_preset_named("beach").unwrap();
    let mut requested = gate.calls();
    wait_for_loads(&mut f.workspace);
    requested = gate.calls().into_iter().chain(requested).collect();
    requested.sort();
    requested.dedup();
    // Beach picks pebbles, rocks, driftwood and grass: every prop of those categories.
    let catalog = f.workspace.world().editor().catalog();
    let mut expected: Vec<String> = ["pebble", "rock", "driftwood", "grass"]
        .iter()
        .flat_map(|c| catalog.category(c).unwrap().props.clone())
        .map(|i| catalog.props()[i].id.to_string())
        .collect();
    expected.sort();
    assert_eq!(requested, expected);
    assert_eq!(
        f.workspace.brush(),
        f.workspace.active().unwrap().preset.brush
    );
}

#[test]
fn the_first_stroke_after_a_pick_never_waits_for_loads() {
    let gate = Gate::shut();
    let mut f = fixture(gate.clone());
    f.workspace.pick_preset_named("mixed_forest").unwrap();
    // The loads are stuck behind the gate, yet the stroke paints at once.
    stroke(&mut f.workspace, false, Landmark::Meadow.position(), 4);
    let placed = placements(&f.workspace);
    assert!(placed > 50, "{placed}");
    let registry = f.workspace.world().registry();
    assert_eq!(
        registry.pending_len() as usize,
        placed,
        "reserved, not drawn yet"
    );
    let first = f.workspace.first_stroke_ms().values();
    assert_eq!(first.len(), 1);
    assert!(first[0] <= 4.0, "first dab took {} ms", first[0]);
    // The stroke's props were in flight: it joined those loads instead of forking.
    let counters = f.workspace.load_counters();
    assert!(counters.joined > 0, "{counters:?}");
    let calls = gate.calls();
    let mut unique = calls.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(calls.len(), unique.len(), "one load per prop: {calls:?}");

    gate.open();
    assert!(wait_for_loads(&mut f.workspace) > 0);
    assert_eq!(f.workspace.world().registry().pending_len(), 0);
}

#[test]
fn painting_without_a_preset_explains_itself() {
    let mut f = fixture(Gate::opened());
    stroke(&mut f.workspace, false, Landmark::Meadow.position(), 2);
    assert_eq!(placements(&f.workspace), 0);
    assert!(f.workspace.errors()[0].contains("pick a preset"));
    assert!(f
        .workspace
        .pick_preset_named("jungle")
        .unwrap_err()
        .to_string()
        .contains("beach"));
    assert!(f.workspace.pick_preset(99).is_err());
}

#[test]
fn every_completed_stroke_is_autosaved() {
    let mut f = fixture(Gate::opened());
    f.workspace.pick_preset_named("meadow").unwrap();
    stroke(&mut f.workspace, false, Landmark::Meadow.position(), 3);
    let autosave = f.workspace.autosave().path().to_owned();
    let saved = session_file::load(&autosave).unwrap();
    assert_eq!(saved.events.len(), 1);
    stroke(&mut f.workspace, true, Landmark::Meadow.position(), 2);
    f.workspace.undo();
    assert_eq!(session_file::load(&autosave).unwrap().events.len(), 3);
    assert_eq!(f.workspace.autosave().writes(), 3);
}

#[test]
fn erase_undo_and_redo_work_on_whole_strokes() {
    let mut f = fixture(Gate::opened());
    let at = Landmark::Meadow.position();
    f.workspace.pick_preset_named("mixed_forest").unwrap();
    stroke(&mut f.workspace, false, at, 4);
    let painted = placements(&f.workspace);
    f.workspace.set_radius(4.0);
    stroke(&mut f.workspace, true, at, 3);
    let erased = painted - placements(&f.workspace);
    assert!(erased > 0);
    assert_eq!(
        f.workspace.last_stroke(),
        Some(LastStroke::Erase {
            removed: erased,
            dabs: 3
        })
    );
    f.workspace.undo();
    assert_eq!(placements(&f.workspace), painted);
    f.workspace.undo();
    assert_eq!(placements(&f.workspace), 0);
    f.workspace.redo();
    assert_eq!(placements(&f.workspace), painted);
    assert_eq!(f.workspace.world().registry().len() as usize, painted);
}

#[test]
fn a_saved_session_replays_to_the_same_placements() {
    let mut f = fixture(Gate::opened());
    f.workspace.pick_preset_named("mixed_forest").unwrap();
    stroke(&mut f.workspace, false, Landmark::Meadow.position(), 4);
    f.workspace.pick_preset_named("cliff_and_scree").unwrap();
    stroke(&mut f.workspace, false, Landmark::Cliff.position(), 3);
    stroke(&mut f.workspace, true, Landmark::Meadow.position(), 1);
    f.workspace.undo();
    let path = f.workspace.save(None).unwrap();
    let session = session_file::load(&path).unwrap();
    let (editor, _) = Editor::replay(&session, &sylva_terrain::default_world()).unwrap();
    let painter = f.workspace.world().editor().painter();
    assert_eq!(editor.painter().len(), painter.len());
    assert_eq!(editor.painter().digest(), painter.digest());
}

#[test]
fn a_continued_session_picks_up_where_it_was_saved() {
    let gate = Gate::opened();
    let mut f = fixture(gate.clone());
    f.workspace.pick_preset_named("meadow").unwrap();
    stroke(&mut f.workspace, false, Landmark::Meadow.position(), 3);
    f.workspace.save(None).unwrap();
    let digest = f.workspace.world().editor().painter().digest();

    let reopened = open(options(f.dir.path()), gate.clone());
    assert_eq!(reopened.world().editor().painter().digest(), digest);
    assert!(
        reopened.load_counters().started > 0,
        "the props of the saved placements load"
    );

    // Without --session the file is not continued (and the next save replaces it).
    let mut fresh = options(f.dir.path());
    fresh.continue_session = false;
    assert_eq!(open(fresh, gate).world().editor().painter().len(), 0);
}

#[test]
fn opening_the_saved_session_reverts_to_it_and_keeps_the_loaded_props() {
    let mut f = fixture(Gate::opened());
    f.workspace.pick_preset_named("mixed_forest").unwrap();
    stroke(&mut f.workspace, false, Landmark::Meadow.position(), 3);
    wait_for_loads(&mut f.workspace);
    f.workspace.save(None).unwrap();
    let saved = f.workspace.world().editor().painter().digest();
    let (saved_len, saved_instances) = (placements(&f.workspace), instances(&f.workspace));
    let started = f.workspace.load_counters().started;

    stroke(&mut f.workspace, false, Landmark::Lake.position(), 3);
    assert!(placements(&f.workspace) > saved_len);
    f.workspace.open_session(None).unwrap();
    assert_eq!(f.workspace.world().editor().painter().digest(), saved);
    // Every saved placement has its instances at once: its props stayed loaded.
    assert_eq!(instances(&f.workspace), saved_instances);
    assert_eq!(f.workspace.load_counters().started, started);
    assert_eq!(f.workspace.world().registry().pending_len(), 0);

    // The active preset paints on in the opened session, which undoes like the saved one.
    stroke(&mut f.workspace, false, Landmark::Lake.position(), 2);
    assert!(placements(&f.workspace) > saved_len);
    f.workspace.undo();
    assert_eq!(f.workspace.world().editor().painter().digest(), saved);
    f.workspace.undo();
    assert_eq!(placements(&f.workspace), 0);
}

#[test]
fn opening_another_session_moves_saves_there_and_a_broken_one_changes_nothing() {
    let mut f = fixture(Gate::opened());
    f.workspace.pick_preset_named("beach").unwrap();
    stroke(&mut f.workspace, false, Landmark::Beach.position(), 3);
    let other = f.dir.path().join("other.session.ron");
    f.workspace.save(Some(&other)).unwrap();
    let beach = f.workspace.world().editor().painter().digest();
    stroke(
        &mut f.workspace,
        false,
        Landmark::Beach.position() + Vec2::X * 30.0,
        3,
    );
    let current = f.workspace.world().editor().painter().digest();

    let broken = f.dir.path().join("broken.session.ron");
    let text = std::fs::read_to_string(&other).unwrap();
    std::fs::write(&broken, &text[..text.len() / 2]).unwrap();
    let error = f.workspace.open_session(Some(&broken)).unwrap_err();
    assert!(error.to_string().contains("broken.session.ron"), "{error}");
    assert_eq!(f.workspace.world().editor().painter().digest(), current);
    assert_eq!(
        f.workspace.autosave().path(),
        session_file::autosave_path(&f.dir.path().join("run.session.ron"))
    );

    f.workspace.open_session(Some(&other)).unwrap();
    assert_eq!(f.workspace.world().editor().painter().digest(), beach);
    stroke(
        &mut f.workspace,
        false,
        Landmark::Beach.position() - Vec2::X * 30.0,
        2,
    );
    assert_eq!(f.workspace.save(None).unwrap(), other);
    assert_eq!(
        f.workspace.autosave().path(),
        session_file::autosave_path(&other)
    );
}

#[test]
fn an_edited_preset_paints_as_a_new_version_and_a_broken_edit_keeps_the_old() {
    let dir = tempfile::tempdir().unwrap();
    let presets = dir.path().join("presets");
    std::fs::create_dir(&presets).unwrap();
    let original = std::fs::read_to_string(repo().join("presets/meadow.ron")).unwrap();
    std::fs::write(presets.join("meadow.ron"), &original).unwrap();
    let mut options = options(dir.path());
    options.presets = presets.clone();
    let mut workspace = open(options, Gate::opened());
    workspace.pick_preset_named("meadow").unwrap();
    stroke(&mut workspace, false, Landmark::Meadow.position(), 1);

    let edited = original.replace("name: \"Meadow\"", "name: \"Meadow, edited\"");
    assert_ne!(edited, original);
    std::fs::write(presets.join("meadow.ron"), &edited).unwrap();
    bump_mtime(&presets.join("meadow.ron"));
    workspace.rescan_presets();
    stroke(
        &mut workspace,
        false,
        Landmark::Meadow.position() + Vec2::Y * 40.0,
        1,
    );
    assert_eq!(workspace.active().unwrap().session_name, "meadow#2");
    let names: Vec<&String> = workspace
        .world()
        .editor()
        .session()
        .presets
        .keys()
        .collect();
    assert_eq!(names, ["meadow", "meadow#2"]);

    std::fs::write(presets.join("meadow.ron"), "(name: ").unwrap();
    bump_mtime(&presets.join("meadow.ron"));
    workspace.rescan_presets();
    assert!(workspace.errors().iter().any(|e| e.contains("meadow.ron")));
    stroke(
        &mut workspace,
        false,
        Landmark::Meadow.position() - Vec2::Y * 40.0,
        1,
    );
    assert_eq!(workspace.active().unwrap().session_name, "meadow#2");
}

fn bump_mtime(path: &Path) {
    let later = std::time::SystemTime::now() + Duration::from_secs(5);
    std::fs::File::options()
        .write(true)
        .open(path)
        .unwrap()
        .set_modified(later)
        .unwrap();
}

#[test]
fn the_cursor_is_green_where_the_preset_fires_and_red_where_it_cannot() {
    let mut f = fixture(Gate::opened());
    f.workspace.pick_preset_named("mixed_forest").unwrap();
    let above = |at: Vec2| Ray {
        origin: glam::Vec3::new(at.x, 300.0, at.y),
        direction: glam::Vec3::NEG_Y,
    };
    f.workspace
        .cast_pointer(&above(Landmark::Meadow.position()));
    let markers = f.workspace.cursor_markers(false);
    assert!(markers.iter().all(|m| m.tint == Tint::Fires));
    f.workspace.cast_pointer(&above(Landmark::Cliff.position()));
    let markers = f.workspace.cursor_markers(false);
    assert!(markers.iter().any(|m| m.tint == Tint::Idle));
    assert!(f
        .workspace
        .cursor_markers(true)
        .iter()
        .all(|m| m.tint == Tint::Erase));
    assert_eq!(f.workspace.raycast_micros().values().len(), 2);
}

/// A copy of the repository's assets and bake cache, for tests that change files.
struct Sandbox {
    _dir: tempfile::TempDir,
    assets: PathBuf,
    cache: PathBuf,
    session: PathBuf,
}

fn sandbox() -> Sandbox {
    let dir = tempfile::tempdir().unwrap();
    let (assets, cache) = (dir.path().join("assets"), dir.path().join("cache"));
    sylva_testkit::copy_dir(&repo().join("assets"), &assets);
    sylva_testkit::copy_dir(sylva_testkit::kit_cache().root(), &cache);
    Sandbox {
        session: dir.path().join("run.session.ron"),
        _dir: dir,
        assets,
        cache,
    }
}

impl Sandbox {
    fn workspace(&self) -> Workspace<World> {
        let mut options = options(self.session.parent().unwrap());
        options.assets = self.assets.clone();
        open(
            options,
            Arc::new(CacheSource::new(&self.assets, &self.cache)),
        )
    }

    /// What the watcher does on a change: an incremental bake pass.
    fn bake(&self) -> WatchPass {
        let cache = sylva_cache::CacheDir::new(&self.cache);
        WatchPass::of(&sylva_bake::bake_folder(
            &self.assets,
            &cache,
            &sylva_bake::BakeOptions::default(),
        ))
    }
}

fn revision(workspace: &Workspace<World>, prop: &str) -> Option<u64> {
    match workspace.statuses().get(prop) {
        Some(PropStatus::Loaded { revision, .. }) => Some(*revision),
        _ => None,
    }
}

fn instances(workspace: &Workspace<World>) -> usize {
    workspace
        .world()
        .registry()
        .buckets()
        .map(|(_, bucket)| bucket.len() as usize)
        .sum()
}

#[test]
fn a_rebaked_prop_swaps_in_place_and_a_broken_save_keeps_the_last_good_one() {
    let sandbox = sandbox();
    let mut workspace = sandbox.workspace();
    workspace.pick_preset_named("mixed_forest").unwrap();
    stroke(&mut workspace, false, Landmark::Meadow.position(), 4);
    wait_for_loads(&mut workspace);
    let fir = "conifer/fir_young";
    let before = revision(&workspace, fir).expect("the fir loaded");
    let (placed, drawn) = (placements(&workspace), instances(&workspace));

    // The artist saves a new fir (here: the oak's file, also trunk and leaves).
    let file = sandbox.assets.join("conifer/fir_young.glb");
    std::fs::copy(sandbox.assets.join("broadleaf/oak_wide.glb"), &file).unwrap();
    let pass = sandbox.bake();
    assert_eq!(pass.baked, [fir]);
    workspace.apply_watch_pass(&pass);
    assert!(workspace.loads_in_flight() > 0, "the new bake is loading");
    wait_for_loads(&mut workspace);
    assert_eq!(revision(&workspace, fir), Some(before + 1));
    assert_eq!(placements(&workspace), placed, "placements survive");
    assert_eq!(instances(&workspace), drawn, "same parts, same instances");
    assert_eq!(workspace.rebakes(), 1);

    // A broken save: the error is shown and the last good fir stays.
    std::fs::write(&file, b"glTF but not really").unwrap();
    let pass = sandbox.bake();
    assert_eq!(pass.failed.len(), 1, "{pass:?}");
    workspace.apply_watch_pass(&pass);
    assert_eq!(workspace.loads_in_flight(), 0);
    match workspace.statuses().get(fir) {
        Some(PropStatus::Failed { error, revision }) => {
            assert!(error.contains("fir_young.glb"), "{error}");
            assert_eq!(*revision, Some(before + 1));
        }
        other => panic!("{other:?}"),
    }
    assert!(workspace
        .errors()
        .iter()
        .any(|e| e.contains("fir_young.glb")));
    assert_eq!(instances(&workspace), drawn);
}

#[test]
fn props_added_or_deleted_while_painting_follow_the_catalog_and_replay() {
    let sandbox = sandbox();
    let mut workspace = sandbox.workspace();
    workspace.pick_preset_named("mixed_forest").unwrap();
    stroke(&mut workspace, false, Landmark::Meadow.position(), 3);
    wait_for_loads(&mut workspace);

    // A new rock joins its category, and the active preset's preload takes it.
    let twin = sandbox.assets.join("rock/scree_twin.glb");
    std::fs::copy(sandbox.assets.join("rock/scree_chunk.glb"), &twin).unwrap();
    workspace.apply_watch_pass(&sandbox.bake());
    let catalog = workspace.world().editor().catalog();
    assert!(catalog.prop("rock/scree_twin").is_some());
    assert!(matches!(
        workspace.world().editor().session().events.last(),
        Some(Event::Catalog(_))
    ));
    wait_for_loads(&mut workspace);
    assert_eq!(revision(&workspace, "rock/scree_twin"), Some(1));
    stroke(
        &mut workspace,
        false,
        Landmark::Meadow.position() + Vec2::Y * 30.0,
        3,
    );

    // Deleted again: it leaves the catalog and the renderer; placements stay.
    std::fs::remove_file(&twin).unwrap();
    workspace.apply_watch_pass(&sandbox.bake());
    assert!(workspace.statuses().get("rock/scree_twin").is_none());
    let key = workspace.host_mut().prop_key("rock/scree_twin");
    assert_eq!(workspace.world().registry().prop_shape(key), Ok(None));
    assert!(workspace
        .world()
        .editor()
        .catalog()
        .prop("rock/scree_twin")
        .is_none());

    // The journal holds both catalog changes: a replay reproduces the placements.
    let path = workspace.save(None).unwrap();
    let session = session_file::load(&path).unwrap();
    let (editor, _) = Editor::replay(&session, &sylva_terrain::default_world()).unwrap();
    let painter = workspace.world().editor().painter();
    assert_eq!(editor.painter().digest(), painter.digest());
}

/// A 65×65 16-bit greyscale heightmap: a gentle dome.
fn write_heightmap(path: &Path) {
    let side = 65u32;
    let mut bytes = Vec::new();
    for row in 0..side {
        for column in 0..side {
            let (x, z) = (column as f32 / 64.0 - 0.5, row as f32 / 64.0 - 0.5);
            let height = (1.0 - (x * x + z * z) * 2.0).clamp(0.0, 1.0);
            bytes.extend_from_slice(&((height * 65535.0) as u16).to_be_bytes());
        }
    }
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let file = std::fs::File::create(path).unwrap();
    let mut encoder = png::Encoder::new(file, side, side);
    encoder.set_color(png::ColorType::Grayscale);
    encoder.set_depth(png::BitDepth::Sixteen);
    encoder
        .write_header()
        .unwrap()
        .write_image_data(&bytes)
        .unwrap();
}

#[test]
fn a_session_on_a_user_heightmap_names_it_and_continues_on_it() {
    let dir = tempfile::tempdir().unwrap();
    let map = dir.path().join("maps/dome.png");
    write_heightmap(&map);
    let mut options = options(dir.path());
    options.terrain = TerrainChoice::Heightmap {
        path: map.clone(),
        scale: HeightmapScale {
            spacing: 2.0,
            vertical_scale: 30.0,
            base_height: 0.0,
            water_level: 2.0,
        },
    };
    let mut workspace = open(options.clone(), Gate::opened());
    assert_eq!(workspace.terrain().columns(), 65);
    workspace.pick_preset_named("meadow").unwrap();
    stroke(&mut workspace, false, Vec2::new(0.0, 0.0), 3);
    assert!(placements(&workspace) > 0);
    workspace.save(None).unwrap();
    let saved = session_file::load(&options.session).unwrap();
    assert!(
        matches!(&saved.terrain, TerrainSource::Heightmap { file, .. } if file == "maps/dome.png"),
        "{:?}",
        saved.terrain
    );

    // Continuing the session finds the heightmap through the session file.
    options.terrain = TerrainChoice::DefaultWorld;
    let reopened = open(options, Gate::opened());
    assert_eq!(reopened.terrain().columns(), 65);
    assert_eq!(
        reopened.world().editor().painter().digest(),
        workspace.world().editor().painter().digest()
    );
}

mod fills;

/// A fill recorded streamed (as `sylva fill --stream` does) into `workspace`'s saved
/// session, which it then opens: around the meadow, of the active preset.
fn open_with_a_streamed_fill(workspace: &mut Workspace<World>) -> Vec2 {
    let path = workspace.save(None).unwrap();
    let session = session_file::load(&path).unwrap();
    let terrain = sylva_terrain::default_world();
    let (mut editor, _) = Editor::replay(&session, &terrain).unwrap();
    let center = Landmark::Meadow.position() + Vec2::new(60.0, 0.0);
    let request = sylva_scatter::FillRequest {
        preset: workspace.active().unwrap().session_name.clone(),
        region: sylva_scatter::FillRegion::Brush {
            radius: 50.0,
            dabs: vec![center.into()],
        },
        density: None,
        order: sylva_scatter::FillOrder::Tiles,
        stream: true,
        replaces: None,
    };
    editor.record_streamed_fill(&terrain, &request).unwrap();
    session_file::save(editor.session(), &path).unwrap();
    workspace.open_session(None).unwrap();
    center
}

/// The digest of the session `workspace` saves, replayed stored.
fn saved_digest(workspace: &mut Workspace<World>) -> String {
    let path = workspace.save(None).unwrap();
    let session = session_file::load(&path).unwrap();
    let (editor, _) = Editor::replay(&session, &sylva_terrain::default_world()).unwrap();
    editor.painter().digest()
}

#[test]
fn a_session_with_a_streamed_fill_opens_streaming_and_erases_over_it_as_over_the_fill_stored() {
    let gate = Gate::opened();
    let mut f = fixture(gate.clone());
    f.workspace.pick_preset_named("mixed_forest").unwrap();
    stroke(&mut f.workspace, false, Landmark::Meadow.position(), 2);
    let center = open_with_a_streamed_fill(&mut f.workspace);
    assert_eq!(f.workspace.world().streamed_fills(), 1);
    wait_for_loads(&mut f.workspace);
    let streamed = f.workspace.world().streamed_props();
    let requested = gate.calls();
    assert!(!streamed.is_empty());
    assert!(
        streamed
            .iter()
            .all(|p| requested.iter().any(|r| **r == **p)),
        "the streamed fill's props load: {streamed:?}, {requested:?}"
    );

    let filled = saved_digest(&mut f.workspace);
    let stored = placements(&f.workspace);
    stroke(&mut f.workspace, true, center, 2);
    assert_eq!(
        placements(&f.workspace),
        stored,
        "the erase took streamed ones only"
    );
    let erased = saved_digest(&mut f.workspace);
    assert_ne!(erased, filled);
    // The erase is an undo step, as it is over the fill stored: undone, the fill is
    // whole again.
    f.workspace.undo();
    assert_eq!(saved_digest(&mut f.workspace), filled);
    f.workspace.redo();
    assert_eq!(saved_digest(&mut f.workspace), erased);
}

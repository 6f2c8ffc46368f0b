//! Fills from the viewer: planned off the frame's thread, accepted whole between
//! strokes, cancelled without a trace, and replayed like everything else.

use glam::Vec3;
use sylva_scatter::{Event, FillRegion, Placement};

use super::*;
use crate::camera::{pixel_ray, VFOV_DEGREES};

const VIEW: Vec2 = Vec2::new(320.0, 180.0);

/// Rays of a view from 70 m above the meadow, looking north and down.
fn meadow_view(workspace: &Workspace<World>) -> impl Fn(Vec2) -> Ray {
    let at = Landmark::Meadow.position();
    let ground = workspace.terrain().sample_height(at.x, at.y);
    let eye = Vec3::new(at.x, ground + 70.0, at.y - 60.0);
    let forward = Vec3::new(0.0, -0.8, 1.0).normalize();
    move |pixel| pixel_ray(eye, forward, VFOV_DEGREES, pixel, VIEW)
}

/// Polls until the running fill has finished.
fn wait_for_fill(workspace: &mut Workspace<World>) {
    let deadline = Instant::now() + Duration::from_secs(120);
    while !workspace.poll_fill() {
        assert!(Instant::now() < deadline, "the fill never finished");
        std::thread::sleep(Duration::from_millis(2));
    }
    assert!(workspace.fill_progress().is_none());
}

fn events(workspace: &Workspace<World>) -> usize {
    workspace.world().editor().session().events.len()
}

fn live(workspace: &Workspace<World>) -> Vec<Placement> {
    workspace
        .world()
        .editor()
        .painter()
        .placements()
        .cloned()
        .collect()
}

#[test]
fn a_view_fill_plans_off_the_frame_thread_and_lands_whole_between_strokes() {
    let mut f = fixture(Gate::opened());
    f.workspace.pick_preset_named("meadow").unwrap();
    let rays = meadow_view(&f.workspace);
    f.workspace.fill_view(VIEW, rays).unwrap();
    assert!(
        f.workspace.fill_progress().is_some(),
        "the call returned at once"
    );
    assert_eq!(placements(&f.workspace), 0);

    // Painting goes on while the fill is planned; a plan that is ready waits for the
    // open stroke to end.
    f.workspace.begin_stroke(false);
    f.workspace.stroke_to(Landmark::Meadow.position());
    let stroke_placements = placements(&f.workspace);
    assert!(stroke_placements > 0);
    let deadline = Instant::now() + Duration::from_secs(120);
    while f
        .workspace
        .fill_progress()
        .is_some_and(|p| p.done < p.total || p.total == 0)
    {
        assert!(
            Instant::now() < deadline,
            "the fill never finished planning"
        );
        std::thread::sleep(Duration::from_millis(2));
    }
    std::thread::sleep(Duration::from_millis(20));
    assert!(!f.workspace.poll_fill(), "a stroke is open");
    assert_eq!(placements(&f.workspace), stroke_placements);
    f.workspace.end_stroke();
    wait_for_fill(&mut f.workspace);

    let filled = placements(&f.workspace) - stroke_placements;
    assert!(filled > 1000, "the view filled {filled} placements");
    let Some(LastStroke::Fill { report, .. }) = f.workspace.last_stroke() else {
        panic!("{:?}", f.workspace.last_stroke());
    };
    assert_eq!(report.placed as usize, filled);
    assert!(matches!(
        f.workspace.world().editor().session().events.last(),
        Some(Event::Fill { .. })
    ));
    assert_eq!(
        f.workspace.autosave().writes(),
        2,
        "the stroke and the fill"
    );

    let path = f.workspace.save(None).unwrap();
    let session = session_file::load(&path).unwrap();
    let (editor, _) = Editor::replay(&session, &sylva_terrain::default_world()).unwrap();
    assert_eq!(
        editor.painter().digest(),
        f.workspace.world().editor().painter().digest()
    );

    f.workspace.undo();
    assert_eq!(placements(&f.workspace), stroke_placements);
    f.workspace.redo();
    assert_eq!(placements(&f.workspace), stroke_placements + filled);
    assert_eq!(
        f.workspace.world().registry().len() as usize,
        stroke_placements + filled
    );
}

#[test]
fn a_cancelled_fill_leaves_nothing_behind() {
    let mut f = fixture(Gate::opened());
    f.workspace.pick_preset_named("meadow").unwrap();
    stroke(&mut f.workspace, false, Landmark::Meadow.position(), 2);
    let (before, journal) = (live(&f.workspace), events(&f.workspace));
    let autosaves = f.workspace.autosave().writes();
    f.workspace.set_density(8.0);
    f.workspace
        .start_fill(FillRegion::Whole, "the world")
        .unwrap();
    assert!(f.workspace.cancel());
    assert!(f.workspace.fill_progress().is_none());
    assert!(!f.workspace.cancel(), "nothing left to cancel");
    std::thread::sleep(Duration::from_millis(50));
    assert!(!f.workspace.poll_fill());
    assert_eq!(live(&f.workspace), before);
    assert_eq!(events(&f.workspace), journal);
    assert_eq!(f.workspace.autosave().writes(), autosaves);
    // The last stroke is still the one undone first.
    f.workspace.undo();
    assert_eq!(placements(&f.workspace), 0);
}

#[test]
fn a_lasso_fills_only_inside_itself_and_a_crossing_one_changes_nothing() {
    let mut f = fixture(Gate::opened());
    f.workspace.pick_preset_named("meadow").unwrap();
    let c = Landmark::Meadow.position();
    let square = [(-20.0, -20.0), (20.0, -20.0), (20.0, 20.0), (-20.0, 20.0)]
        .map(|(x, z)| c + Vec2::new(x, z));
    f.workspace.begin_lasso(square[0]);
    for corner in &square[1..] {
        f.workspace.lasso_to(*corner);
    }
    assert_eq!(f.workspace.lasso().unwrap().points().len(), 4);
    assert!(
        !f.workspace.cursor_markers(false).is_empty(),
        "the lasso shows"
    );
    f.workspace.end_lasso();
    wait_for_fill(&mut f.workspace);
    let inside = live(&f.workspace);
    assert!(inside.len() > 100, "{} placements", inside.len());
    for p in &inside {
        let d = Vec2::new(p.position.x, p.position.z) - c;
        assert!(
            d.abs().max_element() <= 20.0,
            "{} is outside the lasso",
            p.position
        );
    }

    // A figure of eight crosses itself: refused, with the reason, and nothing runs.
    let journal = events(&f.workspace);
    f.workspace.begin_lasso(square[0]);
    for corner in [square[2], square[1], square[3]] {
        f.workspace.lasso_to(corner);
    }
    f.workspace.end_lasso();
    assert!(f.workspace.fill_progress().is_none());
    let last = f.workspace.messages().last().unwrap();
    assert!(
        last.error && last.text.contains("crosses itself"),
        "{last:?}"
    );
    assert_eq!(live(&f.workspace), inside);
    assert_eq!(events(&f.workspace), journal);
}

#[test]
fn a_fill_needs_a_preset_ground_in_view_and_no_other_fill_running() {
    let mut f = fixture(Gate::opened());
    let refused = f.workspace.start_fill(FillRegion::Whole, "the world");
    assert!(
        matches!(refused, Err(WorkspaceError::NoPreset)),
        "{refused:?}"
    );
    f.workspace.pick_preset_named("meadow").unwrap();
    let sky = |pixel| {
        pixel_ray(
            Vec3::new(0.0, 80.0, 0.0),
            Vec3::Y,
            VFOV_DEGREES,
            pixel,
            VIEW,
        )
    };
    let refused = f.workspace.fill_view(VIEW, sky);
    assert!(
        matches!(refused, Err(WorkspaceError::NoGroundInView)),
        "{refused:?}"
    );
    f.workspace
        .start_fill(FillRegion::Whole, "the world")
        .unwrap();
    let refused = f.workspace.start_fill(FillRegion::Whole, "the world");
    assert!(
        refused
            .as_ref()
            .is_err_and(|e| e.to_string() == "already filling the world (Esc cancels it)"),
        "{refused:?}"
    );
    let outside = FillRegion::Polygon(vec![(900.0, 900.0), (950.0, 900.0), (950.0, 950.0)]);
    f.workspace.cancel();
    let refused = f.workspace.start_fill(outside, "the lasso");
    assert!(
        matches!(refused, Err(WorkspaceError::Fill(_))),
        "{refused:?}"
    );
    assert_eq!(placements(&f.workspace), 0);
}

#[test]
fn opening_a_session_cancels_the_fill_planned_for_the_one_left() {
    let mut f = fixture(Gate::opened());
    f.workspace.pick_preset_named("meadow").unwrap();
    let path = f.workspace.save(None).unwrap();
    f.workspace
        .start_fill(FillRegion::Whole, "the world")
        .unwrap();
    f.workspace.open_session(Some(&path)).unwrap();
    assert!(f.workspace.fill_progress().is_none());
    std::thread::sleep(Duration::from_millis(50));
    assert!(!f.workspace.poll_fill());
    assert_eq!(placements(&f.workspace), 0);
}

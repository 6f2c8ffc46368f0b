//! What the HUD shows, as plain text rows built from the workspace and the last
//! frame's figures. Pure, so its wording and arithmetic are tested here; `hud_ui`
//! only lays the rows out with egui.

use sylva_render::props::DrawStats;
use sylva_scatter::{Rejection, StrokeReport};
use sylva_world::stream::StreamStats;

use crate::camera::CameraMode;
use crate::fill::FillProgress;
use crate::loader::PropStatus;
use crate::timing::FrameClock;
use crate::workspace::{LastStroke, Message, Workspace, WorldHost};
use sylva_runtime::WatchPass;

#[derive(Clone, Debug, PartialEq)]
pub struct PresetRow {
    /// Shortcut digit (1–9), if it has one.
    pub shortcut: Option<usize>,
    pub stem: String,
    /// The preset's display name, or its parse error.
    pub label: Result<String, String>,
    pub active: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub struct PropRow {
    pub id: String,
    /// `r3` (the geometry revision drawn), `…` (loading) or why it failed.
    pub status: String,
    pub error: Option<String>,
}

/// Everything the HUD prints.
#[derive(Clone, Debug, PartialEq)]
pub struct HudModel {
    pub brush: String,
    /// The fill being planned: what it says and how far it is, 0 to 1.
    pub fill: Option<(String, f32)>,
    pub stroke: Vec<String>,
    pub render: Vec<String>,
    pub timing: Vec<String>,
    pub loading: String,
    /// The bake watcher's state, when it runs.
    pub watch: Option<String>,
    pub props: Vec<PropRow>,
    pub presets: Vec<PresetRow>,
    pub messages: Vec<Message>,
    /// The LOD tolerance in pixels the slider shows; `None` under fixed bands.
    pub lod_error_px: Option<f32>,
}

/// The frame-side inputs of the HUD.
pub struct FrameFigures<'a> {
    pub draw: &'a DrawStats,
    pub clock: &'a FrameClock,
    pub camera: CameraMode,
    pub erase_mode: bool,
    pub lasso_mode: bool,
    /// Whether the bake watcher runs.
    pub watching: bool,
}

impl HudModel {
    pub fn build<H: WorldHost>(workspace: &Workspace<H>, frame: &FrameFigures<'_>) -> Self {
        let brush = workspace.brush();
        let preset = workspace
            .active()
            .map_or("no preset".to_owned(), |a| a.preset.name.clone());
        let mode = match (frame.erase_mode, frame.lasso_mode) {
            (true, _) => "erase",
            (false, true) => "lasso fill",
            (false, false) => "paint",
        };
        let camera = match frame.camera {
            CameraMode::Orbit => "orbit",
            CameraMode::Fly => "fly",
        };
        let counters = workspace.load_counters();
        let loaded = workspace
            .statuses()
            .values()
            .filter(|s| matches!(s, PropStatus::Loaded { .. }))
            .count();
        let baked = workspace
            .statuses()
            .values()
            .filter(|s| matches!(s, PropStatus::Loaded { baked: true, .. }))
            .count();
        Self {
            brush: format!(
                "{preset} · {mode} · radius {:.1} m · density {:.2}/m² · camera {camera}",
                brush.radius, brush.density_per_m2
            ),
            fill: workspace
                .fill_progress()
                .map(|p| (fill_line(&p), p.fraction())),
            stroke: stroke_lines(workspace.last_stroke()),
            render: render_lines(frame.draw, frame.clock, workspace),
            timing: timing_lines(workspace),
            loading: format!(
                "props: {loaded} loaded ({baked} baked now), {} loading, {} failed · \
                 loads started {}, joined {} · {:.0} ms on the loader thread",
                workspace.loads_in_flight(),
                counters.failed,
                counters.started,
                counters.joined,
                counters.worker_micros as f64 / 1e3
            ),
            watch: frame
                .watching
                .then(|| watch_line(workspace.watch_passes(), workspace.last_watch_pass())),
            props: prop_rows(workspace),
            presets: preset_rows(workspace),
            messages: workspace.messages().to_vec(),
            lod_error_px: workspace.lod_error_px(),
        }
    }
}

/// The last stroke's report: candidates, placed, and rejections by reason, most
/// frequent first.
pub fn stroke_lines(last: Option<LastStroke>) -> Vec<String> {
    match last {
        None => vec!["no stroke yet".into()],
        Some(LastStroke::Erase { removed, dabs }) => {
            vec![format!("erased {removed} placements in {dabs} dabs")]
        }
        Some(LastStroke::Fill { report, seconds }) => {
            let mut lines = vec![format!(
                "fill placed {} of {} candidates, planned in {seconds:.2} s",
                report.placed, report.candidates
            )];
            lines.extend(rejection_lines(&report));
            lines
        }
        Some(LastStroke::Paint(report)) => {
            let mut lines = vec![format!(
                "placed {} of {} candidates in {:.1} ms",
                report.placed,
                report.candidates,
                report.micros as f64 / 1e3
            )];
            lines.extend(rejection_lines(&report));
            if report.evicted > 0 {
                lines.push(format!("evicted {} (placement cap)", report.evicted));
            }
            lines
        }
    }
}

/// `filling the view with meadow: 43 % · 1.2 s · Esc cancels`
pub fn fill_line(progress: &FillProgress) -> String {
    format!(
        "filling {} with {}: {:.0} % · {:.1} s · Esc cancels",
        progress.what,
        progress.preset,
        progress.fraction() * 100.0,
        progress.elapsed.as_secs_f32()
    )
}

fn rejection_lines(report: &StrokeReport) -> Vec<String> {
    let mut reasons: Vec<(u32, Rejection)> = Rejection::ALL
        .iter()
        .map(|&r| (report.rejected.get(r), r))
        .filter(|(n, _)| *n > 0)
        .collect();
    reasons.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    reasons
        .into_iter()
        .map(|(n, reason)| format!("  rejected {n}: {}", reason.label()))
        .collect()
}

/// `bake watch: 3 passes · last re-baked conifer/fir_young · 1 failed`
pub fn watch_line(passes: u32, last: Option<&WatchPass>) -> String {
    let Some(last) = last else {
        return "bake watch: first pass running".into();
    };
    let mut line = format!("bake watch: {passes} passes");
    if !last.baked.is_empty() {
        line += &format!(" · last re-baked {}", last.baked.join(", "));
    }
    if !last.failed.is_empty() {
        line += &format!(" · {} failed", last.failed.len());
    }
    if last.error.is_some() {
        line += " · pass failed";
    }
    line
}

/// `L0 120 · L1 40 · L2 3`
pub fn lod_histogram(per_lod: &[usize]) -> String {
    if per_lod.iter().all(|&n| n == 0) {
        return "none".into();
    }
    per_lod
        .iter()
        .enumerate()
        .map(|(level, n)| format!("L{level} {n}"))
        .collect::<Vec<_>>()
        .join(" · ")
}

fn render_lines<H: WorldHost>(
    draw: &DrawStats,
    clock: &FrameClock,
    workspace: &Workspace<H>,
) -> Vec<String> {
    let registry = workspace.world().registry();
    let mut lines = vec![
        format!(
            "{} instances · {} draw calls · {} triangles",
            draw.instances,
            draw.draw_calls,
            thousands(draw.triangles)
        ),
        format!(
            "shadows: {} instances · {} draw calls",
            draw.shadow_instances, draw.shadow_draw_calls
        ),
        format!(
            "{:.1} FPS · frame {:.0} ms · LOD {}",
            clock.fps(),
            clock.last_ms(),
            lod_histogram(&draw.instances_per_lod)
        ),
        format!(
            "placements {} ({} waiting for props) · cap {}",
            workspace.world().editor().painter().len(),
            registry.pending_len(),
            workspace.world().editor().painter().cap()
        ),
    ];
    if workspace.world().streamed_fills() > 0 {
        lines.push(stream_line(
            &workspace.host().stream_stats(),
            workspace.world().fading_in(),
        ));
    }
    lines
}

/// The streamed fills' state: what is held, what is late or on its way, and whether
/// the cap holds tiles back.
pub fn stream_line(stats: &StreamStats, fading_in: usize) -> String {
    let mut line = format!(
        "streamed {} placements in {} tiles · {} late · {} on the way · {} fading in",
        thousands(stats.resident_placements),
        stats.resident_tiles,
        stats.late_tiles,
        stats.waiting_tiles,
        fading_in
    );
    if stats.capped {
        line.push_str(" · at the cap");
    }
    line
}

fn timing_lines<H: WorldHost>(workspace: &Workspace<H>) -> Vec<String> {
    let first = workspace.first_stroke_ms().stats();
    let cast = workspace.raycast_micros().stats();
    let first = if first.count == 0 {
        "first stroke after a pick: —".to_owned()
    } else {
        format!(
            "first stroke after a pick: {:.2} ms (worst {:.2})",
            first.last, first.max
        )
    };
    let samples = workspace.last_hover().map_or(0, |h| h.samples);
    let cast = if cast.count == 0 {
        "ray cast: —".to_owned()
    } else {
        format!(
            "ray cast: {:.1} µs, {samples} samples (mean {:.1} µs)",
            cast.last, cast.mean
        )
    };
    vec![first, cast]
}

fn prop_rows<H: WorldHost>(workspace: &Workspace<H>) -> Vec<PropRow> {
    workspace
        .statuses()
        .iter()
        .map(|(id, status)| {
            let (status, error) = match status {
                PropStatus::Loading => ("…".to_owned(), None),
                PropStatus::Loaded { revision, .. } => (format!("r{revision}"), None),
                PropStatus::Failed { error, revision } => (
                    match revision {
                        Some(r) => format!("failed, still drawing r{r}"),
                        None => "failed".to_owned(),
                    },
                    Some(error.clone()),
                ),
            };
            PropRow {
                id: id.to_string(),
                status,
                error,
            }
        })
        .collect()
}

/// The props that loaded or are loading, compactly: `fir_young r1 · oak_wide …`.
pub fn prop_summary(rows: &[PropRow]) -> String {
    rows.iter()
        .filter(|row| row.error.is_none())
        .map(|row| {
            let stem = row.id.rsplit('/').next().unwrap_or(&row.id);
            format!("{stem} {}", row.status)
        })
        .collect::<Vec<_>>()
        .join(" · ")
}

fn preset_rows<H: WorldHost>(workspace: &Workspace<H>) -> Vec<PresetRow> {
    let active = workspace.active().map(|a| a.stem.as_str());
    workspace
        .presets()
        .entries()
        .iter()
        .enumerate()
        .map(|(i, entry)| PresetRow {
            shortcut: (i < 9).then_some(i + 1),
            stem: entry.stem.clone(),
            label: entry
                .preset
                .as_ref()
                .map(|p| p.name.clone())
                .map_err(Clone::clone),
            active: active == Some(entry.stem.as_str()),
        })
        .collect()
}

/// `1234567` → `1,234,567`.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use sylva_terrain::Landmark;

    use super::*;
    use crate::workspace::tests::{fixture, stroke, wait_for_loads, Gate};

    #[test]
    fn a_hud_model_describes_the_workspace() {
        let mut f = fixture(Gate::opened());
        f.workspace.pick_preset_named("cliff_and_scree").unwrap();
        stroke(&mut f.workspace, false, Landmark::Cliff.position(), 2);
        wait_for_loads(&mut f.workspace);
        let model = HudModel::build(
            &f.workspace,
            &FrameFigures {
                draw: &Default::default(),
                clock: &Default::default(),
                camera: CameraMode::Orbit,
                erase_mode: false,
                lasso_mode: false,
                watching: false,
            },
        );
        assert!(
            model.brush.starts_with("Cliff and Scree · paint"),
            "{}",
            model.brush
        );
        assert!(model.stroke[0].starts_with("placed "), "{:?}", model.stroke);
        let active: Vec<&str> = model
            .presets
            .iter()
            .filter(|p| p.active)
            .map(|p| p.stem.as_str())
            .collect();
        assert_eq!(active, ["cliff_and_scree"]);
        let manifest = sylva_testkit::kit_cache().read_manifest().unwrap();
        for row in &model.props {
            let (_, known) = manifest.prop(&row.id).unwrap();
            assert_eq!(row.status, format!("r{}", known.revision), "{row:?}");
        }
        assert!(model.timing[0].contains("first stroke after a pick"));
    }

    #[test]
    fn a_paint_stroke_lists_rejections_most_frequent_first() {
        let mut report = StrokeReport {
            candidates: 226,
            placed: 106,
            micros: 4_200,
            ..Default::default()
        };
        for _ in 0..81 {
            report.rejected.count(Rejection::Slope);
        }
        for _ in 0..39 {
            report.rejected.count(Rejection::Spacing);
        }
        assert_eq!(
            stroke_lines(Some(LastStroke::Paint(report))),
            [
                "placed 106 of 226 candidates in 4.2 ms",
                "  rejected 81: slope",
                "  rejected 39: spacing",
            ]
        );
    }

    #[test]
    fn erase_strokes_and_no_stroke_read_plainly() {
        assert_eq!(stroke_lines(None), ["no stroke yet"]);
        assert_eq!(
            stroke_lines(Some(LastStroke::Erase {
                removed: 12,
                dabs: 4
            })),
            ["erased 12 placements in 4 dabs"]
        );
    }

    #[test]
    fn lod_histogram_names_every_level() {
        assert_eq!(lod_histogram(&[120, 0, 3]), "L0 120 · L1 0 · L2 3");
        assert_eq!(lod_histogram(&[]), "none");
        assert_eq!(lod_histogram(&[0, 0]), "none");
    }

    #[test]
    fn the_prop_summary_shows_revisions_and_leaves_failures_to_their_own_rows() {
        let row = |id: &str, status: &str, error: Option<&str>| PropRow {
            id: id.into(),
            status: status.into(),
            error: error.map(Into::into),
        };
        let rows = [
            row("conifer/fir_young", "r2", None),
            row("rock/slab", "…", None),
            row("rock/bad", "failed", Some("bad.glb: not a glTF file")),
        ];
        assert_eq!(prop_summary(&rows), "fir_young r2 · slab …");
    }

    #[test]
    fn the_watch_line_names_what_the_last_pass_did() {
        assert_eq!(watch_line(0, None), "bake watch: first pass running");
        let pass = WatchPass {
            baked: vec!["rock/slab".into()],
            failed: vec![("rock/bad".into(), "bad.glb: truncated".into())],
            error: None,
        };
        assert_eq!(
            watch_line(4, Some(&pass)),
            "bake watch: 4 passes · last re-baked rock/slab · 1 failed"
        );
    }

    #[test]
    fn the_stream_line_says_what_is_held_late_and_held_back() {
        let stats = StreamStats {
            resident_placements: 123_456,
            resident_tiles: 80,
            late_tiles: 3,
            waiting_tiles: 5,
            ..StreamStats::default()
        };
        assert_eq!(
            stream_line(&stats, 40),
            "streamed 123,456 placements in 80 tiles · 3 late · 5 on the way · 40 fading in"
        );
        let capped = StreamStats {
            capped: true,
            ..stats
        };
        assert!(stream_line(&capped, 0).ends_with(" · at the cap"));
    }

    #[test]
    fn thousands_are_grouped() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(1_234_567), "1,234,567");
    }
}

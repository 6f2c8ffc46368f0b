//! The `sylva` command as a user runs it, from the repository root.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn sylva(args: &[&str]) -> Output {
    sylva_with_env(args, &[])
}

fn sylva_with_env(args: &[&str], env: &[(&str, &str)]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_sylva"))
        .args(args)
        .envs(env.iter().copied())
        .current_dir(repo())
        .output()
        .expect("sylva runs")
}

fn stdout(output: &Output) -> String {
    assert!(
        output.status.success(),
        "sylva failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout.clone()).unwrap()
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("sylva-cli-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn paint_json_reports_candidates_placed_rejections_and_time() {
    let out = stdout(&sylva(&[
        "paint",
        "--preset",
        "presets/mixed_forest.ron",
        "--at",
        "cliff",
        "--json",
    ]));
    let report: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    let candidates = report["candidates"].as_u64().unwrap();
    let placed = report["placed"].as_u64().unwrap();
    let rejected: u64 = report["rejected"]
        .as_object()
        .unwrap()
        .values()
        .map(|v| v.as_u64().unwrap())
        .sum();
    assert_eq!(placed + rejected, candidates);
    assert!(report["rejected"]["slope"].as_u64().unwrap() > 0);
    assert!(report["micros"].is_u64());
}

#[test]
fn paint_accepts_coordinates_and_overrides() {
    let out = stdout(&sylva(&[
        "paint",
        "--preset",
        "presets/meadow.ron",
        "--at",
        "-20,10",
        "--radius",
        "5",
        "--density",
        "1",
        "--json",
    ]));
    let report: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(report["candidates"], 79); // 1 × π × 5²
}

#[test]
fn a_malformed_preset_fails_naming_the_field() {
    let dir = temp_dir("bad-preset");
    let bad = dir.join("bad.ron");
    std::fs::write(
        &bad,
        r#"(name: "Bad", brush: (radius: 5.0, density_per_m2: 1.0),
            picks: [(category: "grass", weight: 1.0, slope_min: 0.4, slope_max: 0.2)])"#,
    )
    .unwrap();
    let output = sylva(&["paint", "--preset", bad.to_str().unwrap(), "--at", "meadow"]);
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("picks[0].slope_min"), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn a_saved_stroke_replays_to_the_same_digest_on_any_thread_count() {
    let dir = temp_dir("replay");
    let session = dir.join("stroke.session.ron");
    stdout(&sylva(&[
        "paint",
        "--preset",
        "presets/mixed_forest.ron",
        "--at",
        "meadow",
        "--radius",
        "60",
        "--density",
        "1",
        "--save",
        session.to_str().unwrap(),
    ]));
    let digest = |threads: &str| {
        let out = stdout(&sylva_with_env(
            &["replay", session.to_str().unwrap(), "--json"],
            &[("RAYON_NUM_THREADS", threads)],
        ));
        let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
        assert!(v["placements"].as_u64().unwrap() > 1000);
        v["digest"].as_str().unwrap().to_owned()
    };
    let one = digest("1");
    assert_eq!(one, digest("2"));
    assert_eq!(one, digest("4"));
}

#[test]
fn demo_paints_every_preset_and_writes_a_replayable_journal() {
    let dir = temp_dir("demo");
    let out = stdout(&sylva(&["demo", "--out", dir.to_str().unwrap()]));
    for name in [
        "Mixed Forest",
        "Cliff and Scree",
        "Beach",
        "Meadow",
        "Lake Shore",
    ] {
        assert!(out.contains(name), "{name} missing from\n{out}");
    }
    let digest_line = out.lines().find(|l| l.contains("digest")).unwrap();
    let digest = digest_line.rsplit(' ').next().unwrap();
    let journal = dir.join("demo.session.ron");
    let replay = stdout(&sylva(&["replay", journal.to_str().unwrap()]));
    assert!(replay.contains(digest), "{replay} vs {digest}");
}

#[test]
fn a_missing_session_file_is_a_clear_error() {
    let output = sylva(&["replay", "/nonexistent/session.ron"]);
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("/nonexistent/session.ron"), "{stderr}");
}

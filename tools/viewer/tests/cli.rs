//! `sylva-viewer` refusing bad input before it opens a window, with messages that say
//! what to fix. (The window itself is tested under Xvfb in tools/sylva/tests/view.rs.)

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn viewer(args: &[&str], display: Option<&str>) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_sylva-viewer"));
    command
        .args(args)
        .current_dir(repo())
        .env_remove("WAYLAND_DISPLAY");
    match display {
        Some(display) => command.env("DISPLAY", display),
        None => command.env_remove("DISPLAY"),
    };
    command.output().expect("sylva-viewer runs")
}

fn failure(output: &Output) -> String {
    assert!(!output.status.success(), "expected a failure");
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn a_malformed_script_is_refused_with_its_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("bad.script");
    std::fs::write(&script, "preset meadow\n# fine so far\njump 3 4\n").unwrap();
    let stderr = failure(&viewer(&["--script", script.to_str().unwrap()], Some(":0")));
    assert!(
        stderr.contains("bad.script:3: unknown step `jump`"),
        "{stderr}"
    );
}

#[test]
fn a_missing_script_or_session_names_the_file() {
    let stderr = failure(&viewer(&["--script", "no/such.script"], Some(":0")));
    assert!(stderr.contains("reading script no/such.script"), "{stderr}");
    let dir = tempfile::tempdir().unwrap();
    let session = dir.path().join("broken.session.ron");
    std::fs::write(&session, "(format: 1, seed: )").unwrap();
    let stderr = failure(&viewer(
        &["--session", session.to_str().unwrap()],
        Some(":0"),
    ));
    assert!(stderr.contains("broken.session.ron"), "{stderr}");
}

#[test]
fn without_a_display_the_viewer_says_how_to_get_one() {
    let stderr = failure(&viewer(&["--size", "320x180"], None));
    assert!(stderr.contains("no display"), "{stderr}");
    assert!(stderr.contains("Xvfb"), "{stderr}");
}

#[test]
fn a_bad_window_size_is_refused() {
    let stderr = failure(&viewer(&["--size", "640"], None));
    assert!(stderr.contains("WIDTHxHEIGHT"), "{stderr}");
}

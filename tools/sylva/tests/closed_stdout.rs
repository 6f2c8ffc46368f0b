//! Every `sylva` command survives a reader that goes away (`sylva bake | head -1`): it
//! stops quietly at its first write, without a panic or an error message.

use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The signal a write to a pipe without readers raises.
const SIGPIPE: i32 = 13;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Runs `sylva args` with a standard output whose reader is gone before it starts; fails
/// if it panics, complains, or is still running after a minute.
fn assert_stops_quietly(args: &[&str]) {
    // The reader is closed before the spawn: closed after it, a command that writes one
    // line and then waits (`watch` on a current cache) could win the race and never
    // meet the closed pipe.
    let (reader, writer) = std::io::pipe().expect("a pipe");
    drop(reader);
    let mut child = Command::new(env!("CARGO_BIN_EXE_sylva"))
        .args(args)
        .current_dir(repo())
        .stdin(Stdio::null())
        .stdout(writer)
        .stderr(Stdio::piped())
        .spawn()
        .expect("sylva runs");
    let deadline = Instant::now() + Duration::from_secs(60);
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            child.kill().unwrap();
            panic!("sylva {args:?} kept running with its output closed");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success() || output.status.signal() == Some(SIGPIPE),
        "sylva {args:?}: {:?}\n{stderr}",
        output.status
    );
    // The Vulkan loader complains about XDG_RUNTIME_DIR on headless machines; that is
    // not sylva's voice.
    let complaints: Vec<&str> = stderr
        .lines()
        .filter(|line| !line.contains("XDG_RUNTIME_DIR"))
        .filter(|line| {
            ["panicked", "Broken pipe", "error"]
                .iter()
                .any(|w| line.contains(w))
        })
        .collect();
    assert!(complaints.is_empty(), "sylva {args:?}: {stderr}");
}

#[test]
fn every_command_stops_quietly_when_its_output_is_closed() {
    let out = tempfile::tempdir().unwrap();
    let path = |name: &str| out.path().join(name).to_str().unwrap().to_owned();
    let (cache, journal, frames) = (path("cache"), path("s.session.ron"), path("frames"));
    let status = Command::new(env!("CARGO_BIN_EXE_sylva"))
        .args(["paint", "--preset", "presets/beach.ron", "--at", "beach"])
        .args(["--radius", "4", "--save", &journal])
        .current_dir(repo())
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
    let png = format!("{frames}/x.png");
    let commands: [&[&str]; 10] = [
        &["paint", "--preset", "presets/meadow.ron", "--at", "meadow"],
        &["replay", &journal],
        &["schema"],
        &["bake", "--cache", &cache],
        &["bake", "--cache", &cache, "--json"],
        &["check"],
        &["impostor"],
        &["watch", "--cache", &cache],
        &["demo", "--cache", &cache, "--out", &frames],
        &[
            "render",
            "--session",
            &journal,
            "--out",
            &png,
            "--width",
            "32",
            "--height",
            "18",
        ],
    ];
    for args in commands {
        assert_stops_quietly(args);
    }
}

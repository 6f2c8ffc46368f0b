//! The windowed example as a user runs it, in a real window (Xvfb, lavapipe without a
//! GPU): the kit's props around the meadow with the assets folder watched. A bush saved
//! while it runs is drawn from its new bake within 2 s; a tree, whose bake takes
//! seconds, swaps while the frames go on; a broken save is reported and the last good
//! version stays drawn. Two hundred frames in all, at 320×180.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::{Duration, Instant};

use sylva_testkit::{copy_dir, kit_cache, meadow_session, repo, Xvfb};

/// The example's stdout lines as they come, each with when it was read.
fn lines_of(stdout: impl std::io::Read + Send + 'static) -> Receiver<(Instant, String)> {
    let (sender, lines) = channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            let _ = sender.send((Instant::now(), line));
        }
    });
    lines
}

/// Reads lines until one satisfies `wanted`; returns it with when it came and how many
/// frame-rate lines (one a second while frames are drawn) came on the way.
fn wait_for(
    lines: &Receiver<(Instant, String)>,
    wanted: impl Fn(&str) -> bool,
) -> (Instant, String, u32) {
    let mut rate_lines = 0;
    loop {
        let (at, line) = lines
            .recv_timeout(Duration::from_secs(300))
            .expect("the example keeps printing");
        if wanted(&line) {
            return (at, line, rate_lines);
        }
        rate_lines += u32::from(line.ends_with(" fps"));
    }
}

#[test]
fn a_saved_asset_is_drawn_from_its_new_bake_within_two_seconds_and_a_broken_one_keeps_the_last() {
    let xvfb = Xvfb::start();
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&repo().join("assets"), &dir.path().join("assets"));
    copy_dir(kit_cache().root(), &dir.path().join("cache"));
    let session = dir.path().join("meadow.session.ron");
    std::fs::write(&session, meadow_session(4)).unwrap();
    let mut example = Command::new(env!("CARGO_BIN_EXE_windowed"))
        .arg(dir.path().join("cache"))
        .arg(&session)
        .arg("--assets")
        .arg(dir.path().join("assets"))
        .args(["--size", "320x180"])
        .env("DISPLAY", &xvfb.display)
        .env_remove("WAYLAND_DISPLAY")
        .stdout(Stdio::piped())
        .spawn()
        .expect("the example runs");
    let lines = lines_of(example.stdout.take().unwrap());

    // The watcher's first pass finds the cache current and loads it; frames follow.
    wait_for(&lines, |line| line.contains("baked []"));
    wait_for(&lines, |line| line.ends_with(" fps"));

    // A new round shrub, saved the way editors save: a temporary file renamed into place.
    let save = |from: &str, to: &str| {
        let (from, to) = (dir.path().join(from), dir.path().join(to));
        let saving = to.with_extension("glb.saving");
        std::fs::copy(from, &saving).unwrap();
        let saved = Instant::now();
        std::fs::rename(&saving, &to).unwrap();
        saved
    };
    let saved = save("assets/bush/berry_bush.glb", "assets/bush/shrub_round.glb");
    let (swapped, line, _) = wait_for(&lines, |line| line.contains("swapped [bush/shrub_round]"));
    let took = swapped - saved;
    println!("swapped after {took:?}");
    assert!(
        took <= Duration::from_secs(2),
        "swapped after {took:?}: {line}"
    );

    // A new fir (the oak's file): its bake, an impostor's included, runs on the watcher's
    // threads while the frames go on.
    save(
        "assets/broadleaf/oak_wide.glb",
        "assets/conifer/fir_young.glb",
    );
    let (_, line, rate_lines) =
        wait_for(&lines, |line| line.contains("swapped [conifer/fir_young]"));
    assert!(
        rate_lines >= 1,
        "no frame drawn during the fir's bake: {line}"
    );

    // A broken save: reported, and the shrub drawn so far stays.
    std::fs::write(
        dir.path().join("assets/bush/shrub_round.glb"),
        b"glTF, but not really",
    )
    .unwrap();
    let (_, line, _) = wait_for(&lines, |line| line.contains("bush/shrub_round failed"));
    assert!(!line.contains("swapped [bush/shrub_round]"), "{line}");
    // Two hundred frames in all, the window still drawing.
    let frames = |line: &str| {
        let count = line.strip_prefix("frame ")?.split(',').next()?;
        count.parse::<u64>().ok()
    };
    wait_for(&lines, |line| {
        line.ends_with(" fps") && frames(line) >= Some(200)
    });
    assert!(
        example.try_wait().unwrap().is_none(),
        "the example draws on after the broken save"
    );
    example.kill().unwrap();
    example.wait().unwrap();
}

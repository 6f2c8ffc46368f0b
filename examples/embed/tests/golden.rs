//! The embedding example as a user runs it: a session painted around the meadow and
//! the committed bake cache in, a PNG out, showing the example's own red block among
//! sylva's props with each hiding the other where it is in front (a golden image),
//! on a real Vulkan driver (lavapipe without a GPU; no adapter is a failure).

#[path = "../../../tests/common/golden.rs"]
mod golden;

use std::path::{Path, PathBuf};
use std::process::Command;

use sylva_render::RgbaImage;
use sylva_testkit::meadow_session as session;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Runs the example on a session of `dabs` dabs; returns its frame and stdout.
fn run_example(dabs: usize) -> (RgbaImage, String) {
    let dir = tempfile::tempdir().unwrap();
    let (session_path, png) = (dir.path().join("session.ron"), dir.path().join("frame.png"));
    std::fs::write(&session_path, session(dabs)).unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_embed"))
        .arg(sylva_testkit::kit_cache().root())
        .arg(&session_path)
        .arg(&png)
        .args(["320", "180"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(output.status.success(), "the example failed:\n{stderr}");
    assert!(
        !stderr.contains("XDG_RUNTIME_DIR"),
        "noise on stderr:\n{stderr}"
    );
    let image = RgbaImage::from_png(&std::fs::read(&png).unwrap()).unwrap();
    (image, String::from_utf8_lossy(&output.stdout).into_owned())
}

fn red_pixels(image: &RgbaImage) -> usize {
    image
        .pixels
        .chunks_exact(4)
        .filter(|p| {
            p[0] > 90
                && u16::from(p[1]) * 3 < u16::from(p[0])
                && u16::from(p[2]) * 3 < u16::from(p[0])
        })
        .count()
}

#[test]
fn the_example_draws_its_own_block_and_sylvas_props_hiding_each_other() {
    let (alone, _) = run_example(0);
    let (together, stdout) = run_example(2);
    assert!(stdout.contains("placements"), "{stdout}");
    let (block, block_among_props) = (red_pixels(&alone), red_pixels(&together));
    assert!(block > 500, "the block is in view: {block} red pixels");
    assert!(
        block_among_props < block && block_among_props > block / 4,
        "props in front hide part of the block: {block_among_props} of {block} red pixels"
    );
    golden::assert_matches_golden(&repo(), "embed", &together);
}

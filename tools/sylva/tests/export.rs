//! `sylva export` as a user runs it: the `.glb` and the placement lists of a painted
//! session, props the cache lacks listed and the rest exported, and writes that fail
//! (an impossible folder, a full disk) leaving no partial file. And the quiet output of
//! a GPU command: `sylva render` prints no `XDG_RUNTIME_DIR` line.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use sylva_cache::CacheDir;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn sylva(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_sylva"))
        .args(args)
        .current_dir(repo())
        .env_remove("XDG_RUNTIME_DIR")
        .env_remove("WAYLAND_DISPLAY")
        .output()
        .expect("sylva runs")
}

fn succeeded(output: &Output) -> String {
    assert!(
        output.status.success(),
        "sylva failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout.clone()).unwrap()
}

/// A session of one mixed-forest stroke at the meadow, saved in `dir`.
fn session(dir: &Path) -> String {
    let path = dir.join("session.ron");
    let path = path.to_str().unwrap();
    succeeded(&sylva(&[
        "paint",
        "--preset",
        "presets/mixed_forest.ron",
        "--at",
        "meadow",
        "--save",
        path,
    ]));
    path.to_owned()
}

fn placements_of(session: &str) -> u64 {
    let out = succeeded(&sylva(&["replay", session, "--json"]));
    let replay: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    replay["placements"].as_u64().unwrap()
}

fn files_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn export_writes_every_placement_as_an_instance_of_a_glb() {
    let dir = tempfile::tempdir().unwrap();
    let session = session(dir.path());
    let out = dir.path().join("scene.glb");
    let stdout = succeeded(&sylva(&[
        "export",
        &session,
        "--out",
        out.to_str().unwrap(),
        "--terrain",
        "--json",
    ]));
    let report: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap();
    assert_eq!(report["placements"].as_u64(), Some(placements_of(&session)));
    assert!(report["instancing_nodes"].as_u64().unwrap() >= 1);
    assert_eq!(report["left_out"], serde_json::json!([]));
    let bytes = std::fs::read(&out).unwrap();
    assert_eq!(&bytes[..4], b"glTF");
    assert_eq!(report["bytes"].as_u64(), Some(bytes.len() as u64));
}

#[test]
fn placement_lists_hold_one_record_per_placement() {
    let dir = tempfile::tempdir().unwrap();
    let session = session(dir.path());
    let count = placements_of(&session) as usize;
    let list = |format: &str| {
        let out = dir.path().join(format!("placements.{format}"));
        let out = out.to_str().unwrap();
        succeeded(&sylva(&[
            "export",
            &session,
            "--out",
            out,
            "--placements",
            format,
        ]));
        std::fs::read_to_string(out).unwrap()
    };
    let text = list("csv");
    assert_eq!(text.lines().next(), Some("prop,x,y,z,qx,qy,qz,qw,scale"));
    assert_eq!(text.lines().count(), count + 1);
    let json: serde_json::Value = serde_json::from_str(&list("json")).unwrap();
    let records = json.as_array().unwrap();
    assert_eq!(records.len(), count);
    assert!(records[0]["prop"].as_str().unwrap().contains('/'));
    assert_eq!(records[0]["rotation"].as_array().unwrap().len(), 4);
}

#[test]
fn props_the_cache_lacks_are_listed_and_the_rest_is_exported() {
    let dir = tempfile::tempdir().unwrap();
    let session = session(dir.path());
    // A cache holding every kit entry (and texture blob) but the conifers'.
    let committed = sylva_testkit::kit_cache();
    let partial = CacheDir::new(dir.path().join("cache"));
    let mut manifest = committed.read_manifest().unwrap();
    manifest
        .assets
        .retain(|_, e| !e.prop.starts_with("conifer/"));
    for entry in manifest.assets.values() {
        let bytes = committed.read_entry(&entry.entry).unwrap();
        partial.write_entry(&entry.entry, &bytes).unwrap();
    }
    for blob in committed.texture_files().unwrap() {
        let bytes = committed.read_entry(&blob).unwrap();
        partial.write_entry(&blob, &bytes).unwrap();
    }
    partial.write_manifest(&manifest).unwrap();
    let out = dir.path().join("scene.glb");
    let output = sylva(&[
        "export",
        &session,
        "--out",
        out.to_str().unwrap(),
        "--cache",
        partial.root().to_str().unwrap(),
        "--json",
    ]);
    assert!(
        !output.status.success(),
        "leaving props out is reported as a failure"
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("were left out"), "{stderr}");
    let report: serde_json::Value =
        serde_json::from_str(String::from_utf8_lossy(&output.stdout).trim()).unwrap();
    let left_out = report["left_out"].as_array().unwrap();
    assert!(!left_out.is_empty());
    for l in left_out {
        assert!(l["prop"].as_str().unwrap().starts_with("conifer/"), "{l}");
        assert_eq!(l["reason"], "not in the cache");
    }
    let missing: u64 = left_out
        .iter()
        .map(|l| l["placements"].as_u64().unwrap())
        .sum();
    let exported = report["placements"].as_u64().unwrap();
    assert!(exported > 0);
    assert_eq!(exported + missing, placements_of(&session));
    assert_eq!(
        &std::fs::read(&out).unwrap()[..4],
        b"glTF",
        "the rest is exported"
    );
}

#[test]
fn a_failed_write_leaves_no_partial_file() {
    let dir = tempfile::tempdir().unwrap();
    let session = session(dir.path());
    // A folder that cannot be created: its parent is a file.
    std::fs::write(dir.path().join("not-a-folder"), b"x").unwrap();
    let impossible = dir.path().join("not-a-folder/scene.glb");
    let output = sylva(&["export", &session, "--out", impossible.to_str().unwrap()]);
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("not-a-folder/scene.glb"), "{stderr}");

    // A full disk, as the kernel reports it to a process over its file size limit
    // (SIGXFSZ ignored, so the write fails with EFBIG instead of killing it): the old
    // file stays whole and no temporary file is left.
    let out_dir = dir.path().join("out");
    std::fs::create_dir(&out_dir).unwrap();
    let out = out_dir.join("scene.glb");
    std::fs::write(&out, b"the previous export").unwrap();
    let status = Command::new("sh")
        .arg("-c")
        .arg("trap '' XFSZ; ulimit -f 16; exec \"$0\" export \"$1\" --out \"$2\" --terrain")
        .arg(env!("CARGO_BIN_EXE_sylva"))
        .arg(&session)
        .arg(&out)
        .current_dir(repo())
        .output()
        .unwrap();
    assert!(
        !status.status.success(),
        "a 16-block file size limit cannot hold the export"
    );
    let stderr = String::from_utf8_lossy(&status.stderr);
    assert!(stderr.contains("scene.glb"), "{stderr}");
    assert_eq!(std::fs::read(&out).unwrap(), b"the previous export");
    assert_eq!(files_in(&out_dir), ["scene.glb"]);
}

#[test]
fn a_gpu_command_prints_no_wayland_noise() {
    let dir = tempfile::tempdir().unwrap();
    let session = session(dir.path());
    let png = dir.path().join("frame.png");
    let output = sylva(&[
        "render",
        "--session",
        &session,
        "--out",
        png.to_str().unwrap(),
        "--width",
        "64",
        "--height",
        "36",
    ]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(!stderr.contains("XDG_RUNTIME_DIR"), "stderr:\n{stderr}");
    assert!(png.is_file());
}

//! `sylva.lock` as a team uses it: written by every bake, the same text for the same
//! assets, and read by `sylva check` without any cache to name every asset whose
//! source or settings changed, every new one and every deleted one.

use std::fs;
use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;
use sylva_testkit::repo;

fn sylva(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_sylva"))
        .args(args)
        .env_remove("SYLVA_REMOTE_CACHE")
        .current_dir(repo())
        .output()
        .expect("sylva runs")
}

const CATALOG: &str = r#"(categories: { "rock": (family: "rock") })"#;

/// Four rocks from the glTF test files in `dir/assets`.
fn four_rocks(dir: &Path) {
    let rocks = dir.join("assets/rock");
    fs::create_dir_all(&rocks).unwrap();
    fs::write(dir.join("assets/catalog.ron"), CATALOG).unwrap();
    let data = repo().join("tests/data/gltf");
    for (from, to) in [
        ("Box.glb", "edited.glb"),
        ("Box.glb", "tuned.glb"),
        ("Box.glb", "deleted.glb"),
        ("Rock1_gltfpack_c.glb", "kept.glb"),
    ] {
        fs::copy(data.join(from), rocks.join(to)).unwrap();
    }
}

fn check_json(assets: &Path) -> (bool, Value) {
    let output = sylva(&["check", "--assets", assets.to_str().unwrap(), "--json"]);
    (
        output.status.success(),
        serde_json::from_slice(&output.stdout).expect("check --json prints JSON"),
    )
}

#[test]
fn check_without_a_cache_names_each_changed_asset_and_why() {
    let dir = tempfile::tempdir().unwrap();
    four_rocks(dir.path());
    let assets = dir.path().join("assets");
    let cache = dir.path().join("cache");
    let bake = [
        "bake",
        "--assets",
        assets.to_str().unwrap(),
        "--cache",
        cache.to_str().unwrap(),
    ];
    assert!(sylva(&bake).status.success());
    let lock = fs::read_to_string(dir.path().join("sylva.lock")).unwrap();
    assert_eq!(lock.matches("prop: \"rock/").count(), 4, "{lock}");
    fs::remove_dir_all(&cache).unwrap();
    let (current, report) = check_json(&assets);
    assert!(current, "{report}");

    let rocks = assets.join("rock");
    fs::copy(
        repo().join("tests/data/gltf/Rock1_gltfpack_c.glb"),
        rocks.join("edited.glb"),
    )
    .unwrap();
    fs::write(
        assets.join("catalog.ron"),
        r#"(categories: { "rock": (family: "rock") },
            props: { "rock/tuned": (bake: (lock_border: Some(false))) })"#,
    )
    .unwrap();
    fs::copy(
        repo().join("tests/data/gltf/Box.glb"),
        rocks.join("added.glb"),
    )
    .unwrap();
    fs::remove_file(rocks.join("deleted.glb")).unwrap();

    let (current, report) = check_json(&assets);
    assert!(!current, "check exits non-zero");
    let findings: Vec<(String, String, String)> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            let text = |k: &str| f[k].as_str().unwrap_or_default().to_owned();
            (text("kind"), text("path"), text("message"))
        })
        .collect();
    let found = |kind: &str, path: &str, says: &str| {
        findings
            .iter()
            .any(|(k, p, m)| k == kind && p == path && m.contains(says))
    };
    assert!(
        found("stale", "rock/edited.glb", "its source changed"),
        "{findings:?}"
    );
    assert!(
        found("stale", "rock/tuned.glb", "its settings changed"),
        "{findings:?}"
    );
    assert!(
        found("new", "rock/added.glb", "not in the lockfile"),
        "{findings:?}"
    );
    assert!(
        found("gone", "rock/deleted.glb", "not in the assets"),
        "{findings:?}"
    );
    assert_eq!(findings.len(), 4, "rock/kept.glb is current: {findings:?}");

    // The human report says the same, one line each, and how to mend it.
    let output = sylva(&["check", "--assets", assets.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&output.stdout);
    assert_eq!(text.lines().count(), 4, "{text}");
    assert!(String::from_utf8_lossy(&output.stderr).contains("run `sylva bake`"));

    assert!(sylva(&bake).status.success());
    let (current, report) = check_json(&assets);
    assert!(current, "a bake brings the lockfile up to date: {report}");
}

#[test]
fn the_same_assets_write_the_same_lockfile_and_a_broken_one_is_rewritten() {
    let dir = tempfile::tempdir().unwrap();
    four_rocks(dir.path());
    let assets = dir.path().join("assets");
    let lock = dir.path().join("sylva.lock");
    let bake = |cache: &str| {
        let cache = dir.path().join(cache);
        let output = sylva(&[
            "bake",
            "--assets",
            assets.to_str().unwrap(),
            "--cache",
            cache.to_str().unwrap(),
        ]);
        assert!(output.status.success());
        String::from_utf8_lossy(&output.stderr).into_owned()
    };
    bake("one");
    let first = fs::read(&lock).unwrap();
    fs::write(&lock, b"<<<<<<< merge conflict\n").unwrap();
    let stderr = bake("two");
    assert!(
        stderr.contains("sylva.lock") && stderr.contains("rewritten"),
        "{stderr}"
    );
    assert_eq!(
        fs::read(&lock).unwrap(),
        first,
        "a fresh cache writes the same lockfile"
    );
    let output = sylva(&[
        "check",
        "--assets",
        assets.to_str().unwrap(),
        "--lock",
        "/nonexistent/x.lock",
    ]);
    assert!(!output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("/nonexistent/x.lock"));
}

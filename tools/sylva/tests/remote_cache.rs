//! The remote cache against a real nginx WebDAV server on 127.0.0.1: two clean
//! clones share one bake, shards add up to the same lockfile, and every fault (server
//! down, 403, 500, stopped mid-upload and mid-download, flipped and truncated objects,
//! a slow server) leaves a bake that goes on locally, warns once, and keeps nothing
//! unverified.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use serde_json::Value;
use sylva_testkit::nginx::{free_port, Nginx};
use sylva_testkit::repo;

fn sylva(args: &[&str], env: &[(&str, &str)]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_sylva"))
        .args(args)
        .envs(env.iter().copied())
        .env_remove("SYLVA_REMOTE_CACHE")
        .current_dir(repo())
        .output()
        .expect("sylva runs")
}

/// A clone: an assets folder, its cache folder and its lockfile.
struct Clone {
    _dir: tempfile::TempDir,
    assets: PathBuf,
    cache: PathBuf,
    lock: PathBuf,
}

impl Clone {
    /// A clone of the bundled kit (its assets read in place).
    fn of_kit() -> Self {
        let dir = tempfile::tempdir().unwrap();
        Clone {
            assets: repo().join("assets"),
            cache: dir.path().join("cache"),
            lock: dir.path().join("sylva.lock"),
            _dir: dir,
        }
    }

    /// Three small props from the glTF test files: a box, a meshopt-compressed rock
    /// and a truck whose buffer and texture are files beside it.
    fn of_three_props() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let assets = dir.path().join("assets");
        fs::create_dir_all(assets.join("rock")).unwrap();
        fs::write(
            assets.join("catalog.ron"),
            r#"(categories: { "rock": (family: "rock") })"#,
        )
        .unwrap();
        let data = repo().join("tests/data/gltf");
        for (from, to) in [
            ("Box.glb", "box.glb"),
            ("Rock1_gltfpack_c.glb", "rock1.glb"),
            ("CesiumMilkTruck.gltf", "truck.gltf"),
            ("CesiumMilkTruck0.bin", "CesiumMilkTruck0.bin"),
            ("CesiumMilkTruck.png", "CesiumMilkTruck.png"),
        ] {
            fs::copy(data.join(from), assets.join("rock").join(to)).unwrap();
        }
        Clone {
            cache: dir.path().join("cache"),
            lock: dir.path().join("sylva.lock"),
            assets,
            _dir: dir,
        }
    }

    /// `sylva bake --json` with `extra` arguments: the report, stderr and the time.
    fn bake(&self, extra: &[&str], env: &[(&str, &str)]) -> (Value, String, Duration) {
        let started = Instant::now();
        let mut args = vec![
            "bake",
            "--json",
            "--assets",
            self.assets.to_str().unwrap(),
            "--cache",
            self.cache.to_str().unwrap(),
            "--lock",
            self.lock.to_str().unwrap(),
        ];
        args.extend(extra);
        let output = sylva(&args, env);
        let elapsed = started.elapsed();
        let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
        assert!(output.status.success(), "bake {extra:?} failed: {stderr}");
        let report = serde_json::from_slice(&output.stdout).expect("bake --json prints JSON");
        (report, stderr, elapsed)
    }

    /// `sylva check --cache` of this clone: its lockfile is its assets' bake and its
    /// cache holds every locked file, byte for byte.
    fn assert_verified(&self) {
        let output = sylva(
            &[
                "check",
                "--assets",
                self.assets.to_str().unwrap(),
                "--lock",
                self.lock.to_str().unwrap(),
                "--cache",
                self.cache.to_str().unwrap(),
            ],
            &[],
        );
        assert!(
            output.status.success(),
            "the local cache holds what the lockfile does not:\n{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
    }
}

fn count(report: &Value, field: &str) -> u64 {
    report[field]
        .as_u64()
        .unwrap_or_else(|| panic!("{field} in {report}"))
}

fn warnings(stderr: &str) -> Vec<&str> {
    stderr
        .lines()
        .filter(|l| l.starts_with("warning: remote cache"))
        .collect()
}

/// Every file of `folder`, by name, with its bytes.
fn files_of(folder: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = fs::read_dir(folder)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            (
                e.file_name().to_string_lossy().into_owned(),
                fs::read(e.path()).unwrap(),
            )
        })
        .collect();
    files.sort();
    files
}

/// Every `ac/` record in the store names an entry the store holds, and so does every
/// blob that entry names: an upload cut short leaves nothing a reader would trust.
fn assert_no_dangling_records(nginx: &Nginx, prefix: &str) {
    let objects = nginx.objects();
    let content = |hash: &str| objects.contains(&format!("{prefix}/sylva/v1/cas/{hash}"));
    for record in objects.iter().filter(|o| o.contains("/ac/")) {
        let hash = fs::read_to_string(nginx.store().join(record)).unwrap();
        assert!(content(hash.trim()), "{record} names a missing entry");
        let entry = fs::read(
            nginx
                .store()
                .join(format!("{prefix}/sylva/v1/cas/{}", hash.trim())),
        )
        .unwrap();
        let parsed = sylva_cache::Entry::parse(&entry).unwrap();
        for id in parsed.textures {
            assert!(
                content(&id.to_hex()),
                "{record}'s entry names a missing blob"
            );
        }
    }
}

#[test]
fn two_clones_share_the_kit_and_four_shards_make_the_same_lockfile() {
    let nginx = Nginx::start();
    let remote = format!("{}/team", nginx.url());
    let first = Clone::of_kit();
    let (written, _, _) = first.bake(&["--remote", &remote, "--remote-write"], &[]);
    assert_eq!(count(&written, "built"), 23);
    assert!(count(&written, "uploaded") > 23, "{written}");

    let second = Clone::of_kit();
    let (fetched, stderr, _) = second.bake(&["--remote", &remote], &[]);
    assert_eq!(
        (count(&fetched, "built"), count(&fetched, "fetched")),
        (0, 23),
        "{stderr}"
    );
    assert_eq!(count(&fetched, "uploaded"), 0, "a reader uploads nothing");
    assert!(
        files_of(&first.cache) == files_of(&second.cache),
        "caches differ"
    );
    assert_eq!(
        fs::read(&first.lock).unwrap(),
        fs::read(&second.lock).unwrap()
    );
    second.assert_verified();

    let shards = format!("{}/shards", nginx.url());
    let mut built = 0;
    for shard in ["1/4", "2/4", "3/4", "4/4"] {
        let clone = Clone::of_kit();
        let (report, _, _) = clone.bake(
            &["--remote", &shards, "--remote-write", "--shard", shard],
            &[],
        );
        assert!(!clone.lock.exists(), "a shard writes no lockfile");
        built += count(&report, "built");
    }
    assert_eq!(built, 23, "the shards bake every asset once");
    let last = Clone::of_kit();
    let (report, _, _) = last.bake(&["--remote", &shards], &[]);
    assert_eq!(
        (count(&report, "built"), count(&report, "fetched")),
        (0, 23)
    );
    assert_eq!(
        fs::read(&last.lock).unwrap(),
        fs::read(&first.lock).unwrap()
    );
    assert_no_dangling_records(&nginx, "shards");

    let check = sylva(
        &[
            "check",
            "--lock",
            first.lock.to_str().unwrap(),
            "--remote",
            &remote,
            "--json",
        ],
        &[],
    );
    let report: Value = serde_json::from_slice(&check.stdout).unwrap();
    assert_eq!(report["current"], true, "{report}");
}

#[test]
fn a_server_that_is_down_costs_one_warning_and_the_bake_goes_on() {
    let clone = Clone::of_three_props();
    let remote = format!("http://127.0.0.1:{}/c", free_port());
    let (report, stderr, _) = clone.bake(&["--remote", &remote, "--remote-write"], &[]);
    assert_eq!(count(&report, "built"), 3);
    assert_eq!(warnings(&stderr).len(), 1, "{stderr}");
    assert!(stderr.contains("going on without it"), "{stderr}");
    clone.assert_verified();
}

#[test]
fn forbidden_and_broken_servers_cost_one_warning_each_bake() {
    for (answer, says) in [("return 403;", "403"), ("return 500;", "500")] {
        let nginx = Nginx::start_with(answer);
        let clone = Clone::of_three_props();
        let remote = format!("{}/c", nginx.url());
        let (report, stderr, _) = clone.bake(&["--remote", &remote, "--remote-write"], &[]);
        assert_eq!(count(&report, "built"), 3, "{answer}");
        let warned = warnings(&stderr);
        assert_eq!(warned.len(), 1, "{answer}: {stderr}");
        assert!(warned[0].contains(says), "{answer}: {stderr}");
        assert!(nginx.objects().is_empty(), "{answer}");
        clone.assert_verified();
    }
}

#[test]
fn flipped_and_truncated_objects_are_refused_rebaked_and_replaced() {
    let nginx = Nginx::start();
    let remote = format!("{}/c", nginx.url());
    let writer = Clone::of_three_props();
    writer.bake(&["--remote", &remote, "--remote-write"], &[]);
    let mut contents: Vec<PathBuf> = nginx
        .objects()
        .iter()
        .filter(|o| o.contains("/cas/"))
        .map(|o| nginx.store().join(o))
        .collect();
    contents.sort_by_key(|p| std::cmp::Reverse(fs::metadata(p).unwrap().len()));
    // The largest object gets a flipped byte, the next one loses its second half.
    let mut bytes = fs::read(&contents[0]).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0x01;
    fs::write(&contents[0], &bytes).unwrap();
    let bytes = fs::read(&contents[1]).unwrap();
    fs::write(&contents[1], &bytes[..bytes.len() / 2]).unwrap();

    // A reader refuses both, bakes what they belong to, and keeps only good files.
    let reader = Clone::of_three_props();
    let (report, _, _) = reader.bake(&["--remote", &remote], &[]);
    let refused = report["refused"].as_array().unwrap();
    assert!(!refused.is_empty(), "{report}");
    for refusal in refused {
        assert!(
            refusal["reason"]
                .as_str()
                .unwrap()
                .contains("does not hash to its name"),
            "{refusal}"
        );
    }
    assert_eq!(count(&report, "built") as usize, refused.len());
    assert_eq!(count(&report, "built") + count(&report, "fetched"), 3);
    reader.assert_verified();
    assert_eq!(
        fs::read(&reader.lock).unwrap(),
        fs::read(&writer.lock).unwrap()
    );

    // A writer that finds them bad puts the good bytes back.
    let mender = Clone::of_three_props();
    let (report, _, _) = mender.bake(&["--remote", &remote, "--remote-write"], &[]);
    assert!(!report["refused"].as_array().unwrap().is_empty());
    let after = Clone::of_three_props();
    let (report, _, _) = after.bake(&["--remote", &remote], &[]);
    assert_eq!(
        (count(&report, "built"), count(&report, "fetched")),
        (0, 3),
        "{report}"
    );
    after.assert_verified();
}

#[test]
fn a_server_stopped_mid_download_leaves_nothing_partial() {
    let mut nginx = Nginx::start();
    let remote = format!("{}/c", nginx.url());
    Clone::of_three_props().bake(&["--remote", &remote, "--remote-write"], &[]);
    // Served at 16 KB/s, the objects take seconds; the server is stopped after 300 ms.
    nginx.restart_with("limit_rate 16k;");
    let reader = Clone::of_three_props();
    let pid = nginx.pid().unwrap();
    let stopper = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(300));
        // SAFETY: signals the test's own nginx, still running (its owner waits on it).
        unsafe { libc::kill(pid as libc::pid_t, libc::SIGTERM) };
    });
    let (report, stderr, _) = reader.bake(&["--remote", &remote], &[]);
    stopper.join().unwrap();
    assert_eq!(count(&report, "built") + count(&report, "fetched"), 3);
    assert!(count(&report, "built") >= 1, "{report}");
    assert_eq!(warnings(&stderr).len(), 1, "{stderr}");
    reader.assert_verified();
}

#[test]
fn a_server_stopped_mid_upload_leaves_no_record_naming_a_missing_file() {
    // Uploads queue at 5 a second, so stopping the server at the first key record
    // cuts the bake's uploads off part way.
    let mut nginx = Nginx::start_throttled("5r/s");
    let remote = format!("{}/c", nginx.url());
    let writer = Clone::of_three_props();
    let store = nginx.store();
    let pid = nginx.pid().unwrap();
    let stopper = std::thread::spawn(move || {
        let started = Instant::now();
        while started.elapsed() < Duration::from_secs(60) {
            let records = store.join("c/sylva/v1/ac");
            if fs::read_dir(&records).is_ok_and(|mut d| d.next().is_some()) {
                // SAFETY: signals the test's own nginx, still running.
                unsafe { libc::kill(pid as libc::pid_t, libc::SIGTERM) };
                return;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        panic!("no key record reached the store");
    });
    let (report, stderr, _) = writer.bake(&["--remote", &remote, "--remote-write"], &[]);
    stopper.join().unwrap();
    assert_eq!(count(&report, "built"), 3);
    assert_eq!(warnings(&stderr).len(), 1, "{stderr}");
    writer.assert_verified();
    assert_no_dangling_records(&nginx, "c");

    // Back up, the server serves what it holds and the rest is baked.
    nginx.restart_with("");
    let reader = Clone::of_three_props();
    let (report, stderr, _) = reader.bake(&["--remote", &remote], &[]);
    assert!(count(&report, "fetched") >= 1, "{report}");
    assert!(warnings(&stderr).is_empty(), "{stderr}");
    reader.assert_verified();
}

#[test]
fn a_slow_server_is_given_up_on_after_the_timeout() {
    let mut nginx = Nginx::start();
    let remote = format!("{}/c", nginx.url());
    Clone::of_three_props().bake(&["--remote", &remote, "--remote-write"], &[]);
    // One byte a second: every answer would take a minute or more.
    nginx.restart_with("limit_rate 1;");
    let reader = Clone::of_three_props();
    let (report, stderr, elapsed) =
        reader.bake(&["--remote", &remote], &[("SYLVA_REMOTE_TIMEOUT", "1")]);
    assert_eq!(count(&report, "built"), 3);
    assert_eq!(warnings(&stderr).len(), 1, "{stderr}");
    assert!(elapsed < Duration::from_secs(20), "{elapsed:?}");
    reader.assert_verified();
}

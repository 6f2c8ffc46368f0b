//! `sylva` killed (SIGKILL) at random moments: a bake never leaves half an entry where
//! the runtime looks, and the next bake finishes the job; a session journal being
//! saved is always the old journal or the new one. Delays come from a seeded
//! Mulberry32, so a failure replays with the seed it prints.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::thread::sleep;
use std::time::{Duration, Instant};

use sylva_cache::{CacheDir, TextureView};
use sylva_scatter::{Mulberry32, Session};

const SEED: u32 = 0x5EED_0008;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn spawn(args: &[&str]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_sylva"))
        .args(args)
        .current_dir(repo())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("sylva runs")
}

/// Kills `child` (if it is still running) and says whether it was.
fn kill(mut child: Child) -> bool {
    let running = child.try_wait().unwrap().is_none();
    let _ = child.kill();
    child.wait().unwrap();
    running
}

fn copy_folder(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_folder(&entry.path(), &target);
        } else {
            fs::copy(entry.path(), target).unwrap();
        }
    }
}

fn is_temporary(name: &str) -> bool {
    name.starts_with(".tmp-")
}

/// What a reader of `cache` can see is whole: the manifest parses, every entry it names
/// is there and parses with every texture blob it names, and every file under an
/// entry's or a blob's name parses. Returns the
/// number of intact entries and of temporaries left by killed writes.
fn assert_whole(cache: &CacheDir, round: usize) -> (usize, usize) {
    let manifest = cache
        .read_manifest()
        .unwrap_or_else(|e| panic!("round {round}: the manifest is torn: {e}"));
    // An entry with its texture blobs: blobs are written first, so none is missing.
    let whole_prop = |name: &str| {
        let files = cache
            .read_prop(name)
            .unwrap_or_else(|e| panic!("round {round}: {name}: {e}"));
        files
            .parse()
            .unwrap_or_else(|e| panic!("round {round}: {name} is torn: {e}"));
    };
    for listed in manifest.assets.values() {
        whole_prop(&listed.entry);
    }
    let mut temporaries = 0;
    let mut intact = 0;
    for file in fs::read_dir(cache.root()).into_iter().flatten() {
        let name = file.unwrap().file_name().to_string_lossy().into_owned();
        if is_temporary(&name) {
            temporaries += 1;
        } else if name.ends_with(".sylva") {
            whole_prop(&name);
            intact += 1;
        } else if name.ends_with(".sylvatex") {
            let bytes = cache.read_entry(&name).unwrap();
            TextureView::parse(&bytes).unwrap_or_else(|e| panic!("round {round}: {name}: {e}"));
        }
    }
    (intact, temporaries)
}

#[test]
fn bakes_killed_at_random_moments_leave_whole_entries_and_the_next_bake_finishes() {
    let dir = tempfile::tempdir().unwrap();
    let assets = dir.path().join("assets");
    copy_folder(&repo().join("assets"), &assets);
    // The kit without its trees: 18 props, every kind of entry (meshes, textures,
    // impostors, refused impostors) at a fifth of the kit's bake time, 30 bakes over.
    for trees in ["conifer", "broadleaf"] {
        fs::remove_dir_all(assets.join(trees)).unwrap();
    }
    let cache = CacheDir::new(dir.path().join("cache"));
    let args = [
        "bake",
        "--assets",
        assets.to_str().unwrap(),
        "--cache",
        cache.root().to_str().unwrap(),
    ];

    // A cold bake first, for the number of entries and the time one takes to write.
    let _ = fs::remove_dir_all(cache.root());
    let started = Instant::now();
    assert!(spawn(&args).wait().unwrap().success());
    let props = cache.read_manifest().unwrap().assets.len();
    let per_entry = started.elapsed() / props as u32;

    let mut rng = Mulberry32::new(SEED);
    let (mut killed, mut torn_writes) = (0, 0);
    for round in 0..30 {
        // Each round starts from an empty cache and is killed once a random number of
        // entries is on disk, plus a random part of one entry's time, so the kill lands
        // in the middle of the work however fast or loaded this machine is (a kill timed
        // from a stopwatch lands after the bake's end whenever the machine speeds up).
        // The last round's leftovers are what the final bake resumes from.
        let _ = fs::remove_dir_all(cache.root());
        let child = spawn(&args);
        let written_before_kill = rng.next_u32() as usize % props;
        let child = wait_for_entries(child, cache.root(), written_before_kill);
        sleep(per_entry.mul_f32(rng.next_f32()));
        killed += usize::from(kill(child));
        let (_, temporaries) = assert_whole(&cache, round);
        torn_writes = torn_writes.max(temporaries);
    }

    let (intact, _) = assert_whole(&cache, 30);
    let output = Command::new(env!("CARGO_BIN_EXE_sylva"))
        .args(args)
        .current_dir(repo())
        .output()
        .unwrap();
    assert!(output.status.success());
    let summary = String::from_utf8_lossy(&output.stdout);
    let expected = format!(
        "{} built, 0 fetched, {intact} current, 0 failed",
        props - intact
    );
    assert!(
        summary.contains(&expected),
        "expected `{expected}` in\n{summary}"
    );
    let check = Command::new(env!("CARGO_BIN_EXE_sylva"))
        .args(["check", args[1], args[2], args[3], args[4]])
        .current_dir(repo())
        .output()
        .unwrap();
    assert!(
        check.status.success(),
        "{}",
        String::from_utf8_lossy(&check.stdout)
    );
    println!(
        "seed {SEED:#x}: 30 kills, {killed} while baking, up to {torn_writes} torn writes left as temporaries; the last bake kept {intact} of {props} entries"
    );
    assert!(killed >= 24, "only {killed} of 30 kills hit a running bake");
}

#[test]
fn a_journal_being_saved_when_the_process_dies_is_the_old_or_the_new_one() {
    let dir = tempfile::tempdir().unwrap();
    let journal = dir.path().join("painting.session.ron");
    let mut rng = Mulberry32::new(SEED);
    let mut last_saved = None;
    let mut mid_write = 0;
    for seed in 1..=30u32 {
        for file in fs::read_dir(dir.path()).unwrap() {
            let path = file.unwrap().path();
            if path != journal {
                fs::remove_file(path).unwrap();
            }
        }
        let mut child = spawn(&[
            "paint",
            "--preset",
            "presets/meadow.ron",
            "--at",
            "meadow",
            "--seed",
            &seed.to_string(),
            "--save",
            journal.to_str().unwrap(),
        ]);
        // Kill just as the save begins (its temporary file appears), plus up to 2 ms.
        let deadline = Instant::now() + Duration::from_secs(30);
        while child.try_wait().unwrap().is_none() && !has_temporary(dir.path()) {
            assert!(Instant::now() < deadline, "the save never started");
        }
        sleep(Duration::from_micros(u64::from(rng.next_u32() % 2000)));
        kill(child);
        mid_write += usize::from(has_temporary(dir.path()));
        if !journal.exists() {
            assert_eq!(last_saved, None, "the journal vanished");
            continue;
        }
        let text = fs::read_to_string(&journal).unwrap();
        let session = Session::parse(&text, "painting.session.ron")
            .unwrap_or_else(|e| panic!("save {seed}: the journal is torn: {e}"));
        assert!(
            session.seed == seed || Some(session.seed) == last_saved,
            "save {seed}: the journal is of seed {}, neither the old nor the new one",
            session.seed
        );
        last_saved = Some(session.seed);
    }
    println!("seed {SEED:#x}: 30 kills while saving, {mid_write} left a torn temporary");
    assert!(last_saved.is_some(), "no save ever completed");
}

/// Returns `child` once `count` whole entries are in `cache` or it has exited.
fn wait_for_entries(mut child: Child, cache: &Path, count: usize) -> Child {
    let whole = || {
        fs::read_dir(cache)
            .into_iter()
            .flatten()
            .filter(|f| {
                let name = f.as_ref().unwrap().file_name();
                let name = name.to_string_lossy();
                name.ends_with(".sylva") && !is_temporary(&name)
            })
            .count()
    };
    while child.try_wait().unwrap().is_none() && whole() < count {
        sleep(Duration::from_micros(200));
    }
    child
}

fn has_temporary(folder: &Path) -> bool {
    fs::read_dir(folder)
        .unwrap()
        .any(|f| is_temporary(&f.unwrap().file_name().to_string_lossy()))
}

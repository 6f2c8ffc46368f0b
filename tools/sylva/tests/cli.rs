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

/// What `sylva ARGS` (with `--json` among them) printed, parsed.
fn json_report(args: &[&str]) -> serde_json::Value {
    let out = stdout(&sylva(args));
    serde_json::from_str(out.trim()).unwrap()
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("sylva-cli-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The sum of a JSON report's rejections by reason.
fn rejected_in_all(report: &serde_json::Value) -> u64 {
    report["rejected"]
        .as_object()
        .unwrap()
        .values()
        .map(|v| v.as_u64().unwrap())
        .sum()
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
    assert_eq!(placed + rejected_in_all(&report), candidates);
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
fn fill_reports_like_a_stroke_and_is_the_same_on_one_or_two_threads() {
    let dir = temp_dir("fill");
    let session = dir.join("fill.session.ron");
    let fill = |threads: &str| {
        let out = stdout(&sylva_with_env(
            &[
                "fill",
                "--preset",
                "presets/mixed_forest.ron",
                "--json",
                "--save",
                session.to_str().unwrap(),
            ],
            &[("RAYON_NUM_THREADS", threads)],
        ));
        serde_json::from_str::<serde_json::Value>(out.trim()).unwrap()
    };
    let one = fill("1");
    let two = fill("2");
    assert_eq!(one["digest"], two["digest"]);
    let candidates = one["candidates"].as_u64().unwrap();
    let placed = one["placed"].as_u64().unwrap();
    assert_eq!(placed + rejected_in_all(&one), candidates);
    assert!(placed > 50_000, "{one}");
    assert_eq!(one["placements"].as_u64().unwrap(), placed);
    let replay = stdout(&sylva(&["replay", session.to_str().unwrap(), "--json"]));
    let replay: serde_json::Value = serde_json::from_str(replay.trim()).unwrap();
    assert_eq!(replay["digest"], one["digest"]);

    // A re-run of that fill over a rectangle with another preset, continuing the session.
    let out = stdout(&sylva(&[
        "fill",
        "--preset",
        "presets/meadow.ron",
        "--session",
        session.to_str().unwrap(),
        "--region",
        "rect:-60,-30,20,40",
        "--replaces",
        "0",
    ]));
    assert!(
        out.starts_with("Meadow over rect:-60,-30,20,40 at 0.6 per m², replacing "),
        "{out}"
    );
}

#[test]
fn a_streamed_fill_is_recorded_not_made_and_replays_to_the_stored_fills_digest() {
    let dir = temp_dir("stream");
    let fill = |extra: &[&str], session: &Path| {
        let mut args = vec![
            "fill",
            "--preset",
            "presets/mixed_forest.ron",
            "--json",
            "--save",
            session.to_str().unwrap(),
        ];
        args.extend(extra);
        json_report(&args)
    };
    let (stored, streamed) = (dir.join("stored.ron"), dir.join("streamed.ron"));
    let made = fill(&[], &stored);
    let recorded = fill(&["--stream"], &streamed);
    assert_eq!(recorded["stream"], true, "{recorded}");
    assert_eq!(recorded["tile_m"], 32.0, "{recorded}");
    assert!(
        recorded.get("placements").is_none(),
        "nothing is made: {recorded}"
    );
    let journal = std::fs::read_to_string(&streamed).unwrap();
    assert!(journal.contains("stream: true") && journal.contains("preset_hash: Some("));
    for threads in ["1", "2"] {
        for session in [&stored, &streamed] {
            let env = [("RAYON_NUM_THREADS", threads)];
            let replay = stdout(&sylva_with_env(
                &["replay", session.to_str().unwrap(), "--json"],
                &env,
            ));
            let replay: serde_json::Value = serde_json::from_str(replay.trim()).unwrap();
            assert_eq!(
                replay["digest"],
                made["digest"],
                "{} on {threads}",
                session.display()
            );
        }
    }

    // Flown over headless, its tiles are made around the camera: on the default world
    // every tile is within the trees' reach, so all of them, holding exactly the stored
    // fill's placements.
    let cache = sylva_testkit::kit_cache();
    let fly = |extra: &[&str]| {
        let mut args = vec![
            "fly",
            streamed.to_str().unwrap(),
            "--workers",
            "1",
            "--cache",
            cache.root().to_str().unwrap(),
            "--json",
        ];
        args.extend(extra);
        json_report(&args)
    };
    let flown = fly(&["--seconds", "1", "--speed", "50"]);
    assert_eq!(flown["frames"], 60, "{flown}");
    assert_eq!(flown["streamed_fills"], 1, "{flown}");
    assert_eq!(flown["cells_generated"], 256, "{flown}");
    assert_eq!(
        flown["peak_resident_placements"], made["placements"],
        "{flown}"
    );
    assert_eq!(flown["late_cells"], 0, "{flown}");
    assert!(flown["frame_cpu_ms_p99"].as_f64().unwrap() > 0.0, "{flown}");
    let families: Vec<&str> = flown["reach_m"]
        .as_array()
        .unwrap()
        .iter()
        .map(|pair| pair[0].as_str().unwrap())
        .collect();
    assert!(
        families.contains(&"tree") && families.contains(&"groundcover"),
        "{flown}"
    );
    assert!(
        flown["peak_far_placements"].as_u64().unwrap() > 0,
        "trees past their last switch are far: {flown}"
    );
    // Far placements kept in the registry instead: all of them near, none far.
    let registry = fly(&["--seconds", "0.2", "--far", "registry"]);
    assert_eq!(registry["peak_far_placements"], 0, "{registry}");
    assert_eq!(
        registry["peak_near_placements"], made["placements"],
        "{registry}"
    );

    // Drawn, the streamed session makes its tiles round the camera first: the same
    // picture, byte for byte, as the stored one.
    let render = |session: &Path, out: &Path| {
        stdout(&sylva(&[
            "render",
            "--session",
            session.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--width",
            "320",
            "--height",
            "180",
            "--cache",
            cache.root().to_str().unwrap(),
        ]));
        std::fs::read(out).unwrap()
    };
    let stored_png = render(&stored, &dir.join("stored.png"));
    let streamed_png = render(&streamed, &dir.join("streamed.png"));
    assert!(
        stored_png == streamed_png,
        "the streamed session draws otherwise"
    );

    // Exported, its tiles are made over the whole terrain: the same placement records
    // as the stored fill's (listed tile by tile, so in another order), and the same
    // binary's placement count.
    let export = |session: &Path, out: &Path, extra: &[&str]| {
        let (session, out) = (session.to_str().unwrap(), out.to_str().unwrap());
        let cache = cache.root().to_str().unwrap();
        let args = ["export", session, "--out", out, "--cache", cache, "--json"];
        json_report(&[&args[..], extra].concat())
    };
    let rows = |path: &Path| {
        let mut rows: Vec<String> = (std::fs::read_to_string(path).unwrap().lines())
            .map(str::to_owned)
            .collect();
        rows.sort_unstable();
        rows
    };
    let (stored_csv, streamed_csv) = (dir.join("stored.csv"), dir.join("streamed.csv"));
    export(&stored, &stored_csv, &["--placements", "csv"]);
    let listed = export(&streamed, &streamed_csv, &["--placements", "csv"]);
    assert_eq!(listed["placements"], made["placements"], "{listed}");
    assert!(rows(&stored_csv) == rows(&streamed_csv), "the lists differ");
    // The streamed fill's .glb is counted in one walk and written in a second: its
    // nodes and size are the stored fill's.
    let glb = export(&streamed, &dir.join("streamed.glb"), &[]);
    assert_eq!(glb["placements"], made["placements"], "{glb}");
    let stored_glb = export(&stored, &dir.join("stored.glb"), &[]);
    for field in ["props", "instancing_nodes", "bytes"] {
        assert_eq!(glb[field], stored_glb[field], "{field}: {glb} {stored_glb}");
    }

    // The preset the journal embeds, edited since: refused, naming it.
    let edited = journal.replacen("density_per_m2: 0.5,", "density_per_m2: 0.6,", 1);
    assert_ne!(edited, journal);
    std::fs::write(&streamed, edited).unwrap();
    let out = sylva(&["replay", streamed.to_str().unwrap()]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("preset `mixed_forest` changed since the fill was streamed"),
        "{err}"
    );
    let out = sylva(&[
        "fill",
        "--preset",
        "presets/meadow.ron",
        "--stream",
        "--replaces",
        "0",
    ]);
    assert!(!out.status.success(), "a streamed fill re-runs none");
}

#[test]
fn bad_fills_and_caps_are_refused_with_the_reason() {
    for (args, reason) in [
        (
            vec!["fill", "--region", "rect:600,600,700,700"],
            "lies outside the terrain",
        ),
        (
            vec!["fill", "--region", "polygon:0,0;10,10;10,0;0,10"],
            "crosses itself",
        ),
        (vec!["fill", "--region", "circle:3"], "is not whole"),
        (vec!["fill", "--cap", "1000"], "placement cap of 1000"),
        (vec!["fill", "--cap", "0"], "would hold nothing"),
        (
            vec!["paint", "--at", "meadow", "--cap", "0"],
            "would hold nothing",
        ),
        (
            vec!["paint", "--at", "meadow", "--cap", "20000000"],
            "past what memory allows",
        ),
    ] {
        let mut args = args;
        args.extend(["--preset", "presets/mixed_forest.ron"]);
        let output = sylva(&args);
        assert!(!output.status.success(), "{args:?}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains(reason), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
    }
}

#[test]
fn demo_paints_every_preset_and_writes_a_replayable_journal() {
    let dir = temp_dir("demo");
    // Its own cache folder: the demo's bake (and the render's reads) must not depend on
    // what other tests leave in the repository's cache/.
    let cache = dir.join("cache");
    let out = stdout(&sylva(&[
        "demo",
        "--out",
        dir.to_str().unwrap(),
        "--cache",
        cache.to_str().unwrap(),
    ]));
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

#[test]
fn a_sun_below_the_horizon_or_a_malformed_one_is_refused_before_any_work() {
    for (sun, says) in [
        ("-5,200", "got -5°"),
        ("12", "ELEVATION,BEARING"),
        ("twelve,200", "twelve"),
    ] {
        let output = sylva(&[
            "render",
            "--session",
            "/nonexistent/session.ron",
            "--out",
            "/nonexistent/frame.png",
            &format!("--sun={sun}"),
        ]);
        assert!(!output.status.success(), "{sun}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains(says), "{sun}: {stderr}");
        assert!(!stderr.contains("session.ron"), "{sun}: {stderr}");
    }
}

/// An assets folder with a box prop and a broken prop, from the glTF test files.
fn assets_with_a_broken_prop(name: &str) -> PathBuf {
    let dir = temp_dir(name);
    let assets = dir.join("assets");
    std::fs::create_dir_all(assets.join("rock")).unwrap();
    std::fs::write(
        assets.join("catalog.ron"),
        r#"(categories: { "rock": (family: "rock") })"#,
    )
    .unwrap();
    std::fs::copy(
        repo().join("tests/data/gltf/Box.glb"),
        assets.join("rock/box.glb"),
    )
    .unwrap();
    std::fs::copy(
        repo().join("tests/data/broken/huge_count.gltf"),
        assets.join("rock/huge.gltf"),
    )
    .unwrap();
    dir
}

#[test]
fn bake_reports_a_broken_asset_with_its_reason_and_still_bakes_the_rest() {
    let dir = assets_with_a_broken_prop("bake-broken");
    let (assets, cache) = (dir.join("assets"), dir.join("cache"));
    let args = [
        "bake",
        "--assets",
        assets.to_str().unwrap(),
        "--cache",
        cache.to_str().unwrap(),
    ];
    let output = sylva(&args);
    assert!(!output.status.success());
    let out = String::from_utf8_lossy(&output.stdout);
    assert!(
        out.contains("FAILED   rock/huge.gltf: accessors[0].count: 2147483648 elements exceed"),
        "{out}"
    );
    assert!(out.contains("baked    rock/box.glb: 1 parts"), "{out}");
    assert!(out.contains("triangles per LOD 12 / 12 / 12"), "{out}");
    assert!(String::from_utf8_lossy(&output.stderr).contains("1 of 2 assets did not bake"));
}

#[test]
fn bake_json_reports_parts_triangles_vertices_bytes_and_stages() {
    let dir = assets_with_a_broken_prop("bake-json");
    std::fs::remove_file(dir.join("assets/rock/huge.gltf")).unwrap();
    let (assets, cache) = (dir.join("assets"), dir.join("cache"));
    let args = [
        "bake",
        "--assets",
        assets.to_str().unwrap(),
        "--cache",
        cache.to_str().unwrap(),
        "--json",
    ];
    let report: serde_json::Value = serde_json::from_str(&stdout(&sylva(&args))).unwrap();
    let asset = &report["assets"][0];
    assert_eq!(asset["status"], "baked");
    assert_eq!(
        asset["summary"]["parts"][0]["triangles"],
        serde_json::json!([12, 12, 12])
    );
    assert_eq!(asset["summary"]["parts"][0]["vertices"], 24);
    assert!(asset["summary"]["bytes"].as_u64().unwrap() > 24 * 36);
    assert_eq!(asset["stages"][0]["weld"]["vertices_in"], 24);
    // A box simplifies without error, so an impostor could never take over from it:
    // the plan keeps the mesh, and the prop's GPU bytes are its vertices and indices.
    let impostor = &asset["summary"]["impostor"];
    assert_eq!(impostor["status"], "refused", "{impostor}");
    assert_eq!(asset["impostor"]["plan"]["plan"], "keep_mesh");
    assert_eq!(asset["impostor"]["plan"]["coarsest_triangles"], 12);
    let gpu = &asset["summary"]["gpu"];
    assert_eq!(gpu["atlases"], 0);
    assert!(gpu["vertices"].as_u64().unwrap() >= 24 * 12, "{gpu}");
    assert_eq!(
        gpu["total"].as_u64(),
        Some(gpu["vertices"].as_u64().unwrap() + gpu["indices"].as_u64().unwrap())
    );
    assert!(asset["impostor"]["micros"].is_u64());
    // What the runtime switches levels by: each level's error in metres (a box keeps its
    // 12 triangles, so none), and the box's sphere.
    assert_eq!(
        asset["summary"]["parts"][0]["error_m"],
        serde_json::json!([0.0, 0.0, 0.0])
    );
    assert_eq!(asset["stages"][0]["levels"][0]["error_m"], 0.0);
    assert!(asset["stages"][0]["levels"][1]["error"].is_number());
    let radius = asset["summary"]["sphere"]["radius"].as_f64().unwrap();
    assert!((radius - 0.75f64.sqrt()).abs() < 1e-4, "{radius}");
    let warm: serde_json::Value = serde_json::from_str(&stdout(&sylva(&args))).unwrap();
    assert_eq!(
        (warm["built"].as_u64(), warm["current"].as_u64()),
        (Some(0), Some(1))
    );
    let text = stdout(&sylva(&args[..5]));
    assert!(
        text.contains(
            "impostor: none, the coarsest mesh is the last level (no impostor: its levels \
             have no error, so an impostor takes over only where its own error allows"
        ),
        "{text}"
    );
    assert!(
        text.contains("error per LOD 0.000 / 0.000 / 0.000 m"),
        "{text}"
    );
}

#[test]
fn check_needs_a_lockfile_and_passes_after_a_bake() {
    let dir = assets_with_a_broken_prop("check");
    std::fs::remove_file(dir.join("assets/rock/huge.gltf")).unwrap();
    let (assets, cache) = (dir.join("assets"), dir.join("cache"));
    let check = ["check", "--assets", assets.to_str().unwrap()];
    let output = sylva(&check);
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("sylva.lock (`sylva bake` writes it)"),
        "{stderr}"
    );
    stdout(&sylva(&[
        "bake",
        "--assets",
        assets.to_str().unwrap(),
        "--cache",
        cache.to_str().unwrap(),
    ]));
    assert!(
        dir.join("sylva.lock").exists(),
        "the lockfile sits beside assets/"
    );
    assert!(stdout(&sylva(&check)).contains("is current (1 assets)"));
    let with_cache = [
        &check[..],
        &["--cache", cache.to_str().unwrap(), "--rebake"],
    ]
    .concat();
    let text = stdout(&sylva(&with_cache));
    assert!(
        text.contains("holds its files") && text.contains("byte for byte"),
        "{text}"
    );
}

#[test]
fn the_committed_lockfile_is_current_and_reproduced_by_a_fresh_bake() {
    let output = sylva(&["check", "--rebake"]);
    assert!(
        output.status.success(),
        "sylva.lock is not the bake of assets/ (run `sylva bake` and commit sylva.lock):\n{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

#[test]
fn a_journal_naming_a_device_as_its_heightmap_is_refused_not_read() {
    let dir = temp_dir("device-heightmap");
    let journal = dir.join("s.session.ron");
    stdout(&sylva(&[
        "paint",
        "--preset",
        "presets/beach.ron",
        "--at",
        "beach",
        "--save",
        journal.to_str().unwrap(),
    ]));
    let text = std::fs::read_to_string(&journal).unwrap().replace(
        "terrain: DefaultWorld",
        r#"terrain: Heightmap(file: "/dev/zero", scale: (spacing: 1.0, vertical_scale: 10.0, base_height: 0.0, water_level: 0.0))"#,
    );
    std::fs::write(&journal, text).unwrap();
    let output = sylva(&["replay", journal.to_str().unwrap()]);
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("not a regular file"), "{stderr}");
}

/// Width and height from a PNG's IHDR chunk.
fn png_size(path: &Path) -> (u32, u32) {
    let bytes = std::fs::read(path).unwrap();
    assert_eq!(&bytes[1..4], b"PNG");
    let word = |at: usize| u32::from_be_bytes(bytes[at..at + 4].try_into().unwrap());
    (word(16), word(20))
}

#[test]
fn lods_draws_every_level_of_a_prop_side_by_side_with_its_triangles() {
    let dir = temp_dir("lods");
    let assets = dir.join("assets");
    std::fs::create_dir_all(assets.join("broadleaf")).unwrap();
    std::fs::copy(
        repo().join("assets/broadleaf/oak_wide.glb"),
        assets.join("broadleaf/oak_wide.glb"),
    )
    .unwrap();
    std::fs::write(
        assets.join("catalog.ron"),
        r#"(categories: { "broadleaf": (family: "tree") })"#,
    )
    .unwrap();
    let (picture, cache) = (dir.join("oak.png"), dir.join("cache"));
    let args = |prop: &'static str| {
        [
            "lods",
            "--prop",
            prop,
            "--out",
            picture.to_str().unwrap(),
            "--width",
            "480",
            "--height",
            "180",
            "--assets",
            assets.to_str().unwrap(),
            "--cache",
            cache.to_str().unwrap(),
            "--json",
        ]
        .map(str::to_owned)
    };
    let run = |args: &[String]| sylva(&args.iter().map(String::as_str).collect::<Vec<_>>());
    let report: serde_json::Value =
        serde_json::from_str(&stdout(&run(&args("broadleaf/oak_wide")))).unwrap();
    let triangles: Vec<u64> = report["levels"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["triangles"].as_u64().unwrap())
        .collect();
    // Three mesh levels, then the impostor: one quad.
    assert_eq!(triangles.len(), 4, "{report}");
    assert!(
        triangles.windows(2).all(|w| w[1] * 10 < w[0] * 6),
        "{triangles:?}"
    );
    assert_eq!(triangles[3], 2, "{report}");
    assert_eq!(report["levels"][3]["impostor"], true, "{report}");
    assert_eq!(png_size(&picture), (480, 180));

    let missing = run(&args("broadleaf/no_such_tree"));
    assert!(!missing.status.success());
    let error = String::from_utf8_lossy(&missing.stderr);
    assert!(
        error.contains("no prop `broadleaf/no_such_tree`"),
        "{error}"
    );
}

#[test]
fn impostor_shows_a_cached_trees_atlases_and_says_why_a_pebble_has_none() {
    let dir = temp_dir("impostor");
    let picture = dir.join("oak.png");
    let run = |prop: &str, out: Option<&Path>| {
        let mut args = vec!["impostor", "--prop", prop, "--json"];
        if let Some(out) = out {
            args.extend(["--out", out.to_str().unwrap()]);
        }
        sylva(&args)
    };
    let report: serde_json::Value =
        serde_json::from_str(&stdout(&run("broadleaf/oak_wide", Some(&picture)))).unwrap();
    assert_eq!(report["refused"], serde_json::Value::Null, "{report}");
    assert_eq!(report["grid"], 12);
    assert_eq!(
        report["cell_px"], 64,
        "a 13 m sphere covering 54 px where its coarsest mesh's error is a pixel"
    );
    assert_eq!(report["albedo_format"], "Bc3Srgb");
    assert_eq!(report["normal_format"], "Bc5");
    assert_eq!(report["depth_format"], "Bc5");
    // 768² texels at level 0, 5 levels per atlas (cells of 64 texels down to 4); a
    // byte a texel for each of the BC3 albedo, the BC5 normals and the BC5 depths.
    assert_eq!(report["levels"], 5);
    let error_m = report["error_m"].as_f64().unwrap();
    let texel_m = 2.0 * report["radius_m"].as_f64().unwrap() / 64.0;
    assert!((1.0..3.0).contains(&(error_m / texel_m)), "{report}");
    let level_texels: u64 = (0..5).map(|l| (12u64 * (64 >> l)).pow(2)).sum();
    assert_eq!(report["bytes"].as_u64(), Some(3 * level_texels));
    assert_eq!(png_size(&picture), (2 * 768, 768));

    let pebble: serde_json::Value =
        serde_json::from_str(&stdout(&run("pebble/flint_chip", None))).unwrap();
    let reason = pebble["refused"].as_str().unwrap();
    assert!(reason.contains("too small"), "{reason}");
    let refused = run("pebble/flint_chip", Some(&dir.join("pebble.png")));
    assert!(!refused.status.success());
    assert!(String::from_utf8_lossy(&refused.stderr).contains("too small"));
    assert!(!dir.join("pebble.png").exists());
}

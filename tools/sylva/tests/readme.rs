//! README.md's commands, run as the test suite: every command line of README's ```sh
//! blocks that calls the `sylva` command (`cargo run --release -p sylva-cli -- ARGS`)
//! runs here as this package's `sylva` binary with those arguments, in README's order,
//! in a temporary folder laid out like the repository (`assets/` and `tests/` linked,
//! `presets/` and `sylva.lock` copied, `cache/` linked to the baked kit cache), so each
//! command finds what the ones before it wrote. Each must exit 0, and where README shows
//! its output (`#  ` lines under it) the output must hold the same words in the same
//! order (the numbers may differ). The lines this test cannot run are on
//! [`NOT_RUN`], each with the reason and the test that covers it instead; a README
//! command that is neither runnable nor listed fails the test, and so does a listed
//! line README no longer has. So README's commands cannot rot unnoticed.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

/// The README command lines not run here, by the section they are in (the `## `
/// heading above them) and their text without the trailing comment, with the reason.
const NOT_RUN: &[(&str, &str, &str)] = &[
    (
        "The two commands",
        "scripts/demo",
        "installs system packages, then the full demo (bake, five fills, seven strokes, a \
         frame per landmark: minutes on lavapipe); what it runs, `sylva demo`, is \
         `demo_paints_every_preset_and_writes_a_replayable_journal` in tests/cli.rs",
    ),
    (
        "The two commands",
        "scripts/test",
        "installs system packages, then runs every test of the workspace, this one included",
    ),
    (
        "Embedding sylva in your own rend3 application",
        "cargo run --release -p sylva-embed-example -- cache out/demo.session.ron out/embed.png 640 360",
        "another package's program; examples/embed/tests/golden.rs runs it and compares \
         its frame with tests/golden/embed.png",
    ),
    (
        "Embedding sylva in your own rend3 application",
        "cargo run --release -p sylva-windowed-example -- cache out/demo.session.ron --assets assets",
        "another package's program, opening a window until it is closed; \
         examples/windowed/tests/hot_reload.rs runs it under Xvfb and saves assets while it \
         draws",
    ),
    (
        "The viewer",
        "cargo run --release -p sylva-viewer",
        "opens a window until it is closed; tools/sylva/tests/view.rs drives the viewer \
         under Xvfb with scripts, tools/viewer/tests/cli.rs checks its refusals",
    ),
    (
        "The viewer",
        "cargo run --release -p sylva-cli -- view --watch",
        "opens a window until it is closed; `a_prop_saved_while_the_viewer_watches_swaps_in_place` \
         in tools/sylva/tests/view.rs runs `view --watch` under Xvfb",
    ),
    (
        "The viewer",
        "cargo run --release -p sylva-viewer -- --session out/my.session.ron",
        "opens a window until it is closed (and `out/my.session.ron` is the user's own); \
         tools/sylva/tests/view.rs opens and saves sessions under Xvfb",
    ),
    (
        "The viewer",
        "cargo run --release -p sylva-viewer -- --heightmap my.png --spacing 2 --vertical-scale 120 --water-level 8",
        "opens a window until it is closed, on the user's own `my.png`",
    ),
    (
        "The viewer",
        "cargo run --release -p sylva-viewer -- --session out/demo.session.ron --screenshot out/view.png",
        "another package's program that needs a display; tools/sylva/tests/view.rs takes \
         screenshots under Xvfb",
    ),
    (
        "The viewer",
        "cargo run --release -p sylva-viewer -- --cap 200000",
        "opens a window until it is closed",
    ),
    (
        "The viewer",
        "cargo run --release -p sylva-viewer -- --script tools/viewer/scripts/paint_two_presets.script --size 640x360",
        "another package's program that needs a display; tools/sylva/tests/view.rs plays \
         scripts in `sylva view` under Xvfb",
    ),
    (
        "Baking",
        "cargo run --release -p sylva-cli -- watch",
        "runs until Ctrl-C; tests/watch.rs tests the watcher, tools/sylva/tests/closed_stdout.rs \
         runs `sylva watch`",
    ),
    (
        "Sharing the cache",
        "export SYLVA_REMOTE_CACHE=http://cache.studio.lan:8080/sylva",
        "a shell setting for the next lines, which need a remote cache server: \
         tools/sylva/tests/remote_cache.rs runs them against nginx",
    ),
    (
        "Sharing the cache",
        "cargo run --release -p sylva-cli -- bake",
        "fetches from the remote cache exported above; tools/sylva/tests/remote_cache.rs \
         runs bakes against nginx (the local `bake` is run in \"Baking\")",
    ),
    (
        "Sharing the cache",
        "SYLVA_REMOTE_AUTHORIZATION=\"Basic $(printf ci:secret | base64)\" cargo run --release -p sylva-cli -- bake --remote-write",
        "uploads to a remote cache with credentials; tools/sylva/tests/remote_cache.rs \
         runs `bake --remote-write` against nginx",
    ),
    (
        "Sharing the cache",
        "export AWS_ACCESS_KEY_ID=… AWS_SECRET_ACCESS_KEY=… AWS_REGION=eu-west-1",
        "placeholders for S3 credentials",
    ),
    (
        "Sharing the cache",
        "cargo run --release -p sylva-cli -- bake --remote s3://studio-bake/sylva --remote-write",
        "needs an S3 bucket and credentials; the same store API (object_store) is run over \
         WebDAV by tools/sylva/tests/remote_cache.rs",
    ),
    (
        "Robustness",
        "fuzz/run.sh",
        "installs cargo-fuzz and runs a million executions per target; tests/fuzz_corpus.rs \
         replays the committed corpus",
    ),
];

/// Files README's commands read that no earlier README command writes, and the file
/// of an earlier command copied in their place before the first command that names them.
const STAND_INS: &[(&str, &str, &str)] = &[
    (
        "out/demo.session.ron",
        "out/forest.session.ron",
        "`scripts/demo` writes it and is not run here; the whole-world forest fill with \
         its meadow refill is a session of the same kind",
    ),
    (
        "s.session.ron",
        "out/forest.session.ron",
        "README's name for any session",
    ),
];

/// How README spells a `sylva` command.
const SYLVA: &[&str] = &["cargo", "run", "--release", "-p", "sylva-cli", "--"];

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// One command line of a ```sh block.
struct ReadmeCommand {
    /// README's line number (of the command's first line).
    line: usize,
    /// The `## ` heading the block is under.
    section: String,
    /// The command, continuation lines joined, without its trailing comment.
    text: String,
    /// The `#  ` lines under it: the output README shows.
    output: Vec<String>,
}

fn readme_commands(readme: &str) -> Vec<ReadmeCommand> {
    let mut commands: Vec<ReadmeCommand> = Vec::new();
    let mut section = String::new();
    let mut fence: Option<String> = None;
    let mut pending: Option<(usize, String)> = None;
    for (index, line) in readme.lines().enumerate() {
        let trimmed = line.trim();
        if trimmed.starts_with("```") {
            fence = match fence {
                None => Some(trimmed.trim_start_matches('`').trim().to_owned()),
                Some(_) => {
                    assert!(
                        pending.is_none(),
                        "README line {index}: a `\\` ends a block"
                    );
                    None
                }
            };
            continue;
        }
        match fence.as_deref() {
            None => {
                if let Some(heading) = line.strip_prefix("## ") {
                    section = heading.trim().to_owned();
                }
                continue;
            }
            Some("sh") => {}
            Some(_) => continue,
        }
        if pending.is_none() {
            if trimmed.is_empty() {
                continue;
            }
            if let Some(comment) = trimmed.strip_prefix('#') {
                if let (Some(shown), Some(last)) = (comment.strip_prefix("  "), commands.last_mut())
                {
                    last.output.push(shown.trim().to_owned());
                }
                continue;
            }
        }
        let code = match trimmed.find("  #") {
            Some(at) => trimmed[..at].trim_end(),
            None => trimmed,
        };
        let (start, mut text) = pending.take().unwrap_or((index + 1, String::new()));
        if !text.is_empty() {
            text.push(' ');
        }
        match code.strip_suffix('\\') {
            Some(head) => {
                text.push_str(head.trim_end());
                pending = Some((start, text));
            }
            None => {
                text.push_str(code);
                commands.push(ReadmeCommand {
                    line: start,
                    section: section.clone(),
                    text,
                    output: Vec::new(),
                });
            }
        }
    }
    commands
}

/// The words of a command as a POSIX shell splits them (quotes and backslashes), or
/// `None` when the line needs a shell: expansions, pipes, redirections, lists.
fn shell_words(text: &str) -> Option<Vec<String>> {
    let mut words = Vec::new();
    let mut word: Option<String> = None;
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            ' ' | '\t' => {
                words.extend(word.take());
            }
            '\'' => {
                let w = word.get_or_insert_with(String::new);
                loop {
                    match chars.next()? {
                        '\'' => break,
                        c => w.push(c),
                    }
                }
            }
            '"' => {
                let w = word.get_or_insert_with(String::new);
                loop {
                    match chars.next()? {
                        '"' => break,
                        '$' | '`' => return None,
                        '\\' => w.push(chars.next()?),
                        c => w.push(c),
                    }
                }
            }
            '\\' => word.get_or_insert_with(String::new).push(chars.next()?),
            '$' | '`' | '|' | '&' | ';' | '<' | '>' | '(' | ')' | '*' | '?' | '~' => return None,
            c => word.get_or_insert_with(String::new).push(c),
        }
    }
    words.extend(word);
    Some(words)
}

/// The arguments of a `sylva` command README spells with cargo, else `None`.
fn sylva_args(text: &str) -> Option<Vec<String>> {
    let words = shell_words(text)?;
    (words.len() > SYLVA.len() && words.iter().zip(SYLVA).all(|(w, s)| w == s))
        .then(|| words[SYLVA.len()..].to_vec())
}

/// The runs of words of a shown output line between its numbers (`131`, `0.5`, `…`):
/// what the real output must hold, in this order.
fn stable_fragments(shown: &str) -> Vec<String> {
    let mut fragments = Vec::new();
    let mut run: Vec<&str> = Vec::new();
    for token in shown.split_whitespace() {
        if token.contains(|c: char| c.is_ascii_digit() || c == '…') {
            if !run.is_empty() {
                fragments.push(run.join(" "));
                run.clear();
            }
        } else {
            run.push(token);
        }
    }
    if !run.is_empty() {
        fragments.push(run.join(" "));
    }
    fragments
}

#[cfg(unix)]
fn link(target: &Path, link: &Path) {
    std::os::unix::fs::symlink(target, link).unwrap();
}

#[test]
fn every_readme_command_runs() {
    let readme_path = repo().join("README.md");
    let readme = std::fs::read_to_string(&readme_path).unwrap();
    let commands = readme_commands(&readme);
    assert!(
        commands.len() > 20,
        "found only {} commands in README's ```sh blocks",
        commands.len()
    );

    // Every line is run or listed, and every listed line is in README.
    let mut problems = Vec::new();
    for (section, text, _) in NOT_RUN {
        if !commands
            .iter()
            .any(|c| c.section == *section && c.text == *text)
        {
            problems.push(format!(
                "NOT_RUN lists `{text}` under \"{section}\", which README no longer has"
            ));
        }
    }
    let listed = |c: &ReadmeCommand| {
        NOT_RUN
            .iter()
            .any(|(section, text, _)| c.section == *section && c.text == *text)
    };
    for command in &commands {
        if !listed(command) && sylva_args(&command.text).is_none() {
            problems.push(format!(
                "README.md:{} (\"{}\"): `{}` is not a `sylva` command this test can run; \
                 make it one or add it to NOT_RUN with the reason",
                command.line, command.section, command.text
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));

    // A folder laid out like the repository.
    let cache = sylva_testkit::kit_cache();
    let dir = tempfile::Builder::new()
        .prefix("sylva-readme-")
        .tempdir()
        .unwrap();
    let root = dir.path();
    link(&repo().join("assets"), &root.join("assets"));
    link(&repo().join("tests"), &root.join("tests"));
    link(
        &std::fs::canonicalize(cache.root()).unwrap(),
        &root.join("cache"),
    );
    sylva_testkit::copy_dir(&repo().join("presets"), &root.join("presets"));
    std::fs::copy(repo().join("sylva.lock"), root.join("sylva.lock")).unwrap();

    let mut stood_in = Vec::new();
    let started = Instant::now();
    for command in commands.iter().filter(|c| !listed(c)) {
        let args = sylva_args(&command.text).unwrap();
        for (file, from, _) in STAND_INS {
            if args.iter().any(|a| a == file) && !root.join(file).exists() {
                let source = root.join(from);
                assert!(
                    source.exists(),
                    "README.md:{}: `{file}` stands in for `{from}`, which no earlier \
                     command wrote",
                    command.line
                );
                std::fs::create_dir_all(root.join(file).parent().unwrap()).unwrap();
                std::fs::copy(&source, root.join(file)).unwrap();
                stood_in.push(*file);
            }
        }
        let run_started = Instant::now();
        let output = Command::new(env!("CARGO_BIN_EXE_sylva"))
            .args(&args)
            .current_dir(root)
            .env_remove("SYLVA_REMOTE_CACHE")
            .env_remove("SYLVA_REMOTE_AUTHORIZATION")
            .output()
            .expect("sylva runs");
        let stdout = String::from_utf8_lossy(&output.stdout);
        let stderr = String::from_utf8_lossy(&output.stderr);
        let failure = |why: &str| {
            format!(
                "README.md:{}: `{}` {why}\n(run as `sylva {}` in {})\n--- stdout\n{stdout}\n\
                 --- stderr\n{stderr}",
                command.line,
                command.text,
                args.join(" "),
                root.display()
            )
        };
        assert!(
            output.status.success(),
            "{}",
            failure(&format!("failed: {}", output.status))
        );
        for shown in &command.output {
            let mut rest = &stdout[..];
            for fragment in stable_fragments(shown) {
                match rest.find(&fragment) {
                    Some(at) => rest = &rest[at + fragment.len()..],
                    None => panic!(
                        "{}",
                        failure(&format!(
                            "printed no `{fragment}` where README shows `{shown}`"
                        ))
                    ),
                }
            }
        }
        println!(
            "README.md:{}: sylva {} ({:.1} s)",
            command.line,
            args.join(" "),
            run_started.elapsed().as_secs_f64()
        );
    }
    println!(
        "{} README commands in {:.1} s",
        commands.iter().filter(|c| !listed(c)).count(),
        started.elapsed().as_secs_f64()
    );
    for (file, _, _) in STAND_INS {
        assert!(
            stood_in.contains(file),
            "STAND_INS lists `{file}`, which no README command reads any more \
             (or an earlier one now writes it)"
        );
    }
}

#[test]
fn shell_words_split_like_a_shell_and_refuse_what_needs_one() {
    assert_eq!(
        shell_words(r#"a "b;c d" 'e$f' g\ h"#),
        Some(vec!["a".into(), "b;c d".into(), "e$f".into(), "g h".into()])
    );
    assert_eq!(shell_words("a $(b)"), None);
    assert_eq!(shell_words("a | b"), None);
    assert_eq!(shell_words(r#"A="x $(y)" b"#), None);
    assert_eq!(
        stable_fragments("x.glb: 131 placements of 12 props, … bytes in 63 ms"),
        ["x.glb:", "placements of", "props,", "bytes in", "ms"]
    );
}

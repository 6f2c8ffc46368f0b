//! Running the Node.js tools the tests check files with (the Khronos glTF validator in
//! `tools/propgen/validator`, three.js in `tests/export-check`): each folder pins its
//! packages in a `package-lock.json` and is installed with `npm ci` on first use.

use std::path::Path;
use std::process::{Command, Output};

/// Runs `command`, failing with what to install when the program is missing.
pub fn run(command: &mut Command, what: &str) -> Output {
    match command.output() {
        Ok(output) => output,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => panic!(
            "{what}: not found. These tests need Node.js (18 or newer) and npm to run the \
             Khronos glTF validator and three.js: install them (Debian/Ubuntu: \
             `apt-get install nodejs npm`)."
        ),
        Err(e) => panic!("{what}: {e}"),
    }
}

/// Installs the packages of `folder` with `npm ci` unless `node_modules/<package>` is
/// there already; checks that node runs.
pub fn install(folder: &Path, package: &str) {
    run(Command::new("node").arg("--version"), "node");
    if folder.join("node_modules").join(package).is_dir() {
        return;
    }
    let npm = run(
        Command::new("npm")
            .args(["ci", "--no-audit", "--no-fund"])
            .current_dir(folder),
        "npm",
    );
    assert!(
        npm.status.success(),
        "`npm ci` in {} failed:\n{}{}",
        folder.display(),
        String::from_utf8_lossy(&npm.stdout),
        String::from_utf8_lossy(&npm.stderr)
    );
}

/// Runs `node script args…` and returns its standard output; fails with both streams
/// when it exits non-zero.
pub fn node(script: &Path, args: &[&Path]) -> String {
    let output = run(Command::new("node").arg(script).args(args), "node");
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success(),
        "{} failed:\n{stdout}{}",
        script.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    stdout
}

//! A real X server for window tests: Xvfb on a display number it picks itself (lavapipe
//! draws on machines without a GPU). A missing Xvfb fails the test; nothing is skipped.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

/// An Xvfb server on a display number it picked itself; killed when dropped.
pub struct Xvfb {
    child: Child,
    /// The display, as `DISPLAY` takes it (`:N`).
    pub display: String,
}

impl Xvfb {
    /// Starts one; a missing Xvfb fails the test with how to install it.
    pub fn start() -> Self {
        let mut child = Command::new("Xvfb")
            .args([
                "-displayfd",
                "1",
                "-screen",
                "0",
                "1024x768x24",
                "-nolisten",
                "tcp",
            ])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| {
                panic!(
                    "Xvfb could not be started ({e}): the window tests need it; \
                     run scripts/setup (Debian: apt-get install xvfb)"
                )
            });
        let stdout = child.stdout.take().expect("Xvfb's stdout is piped");
        let mut line = String::new();
        BufReader::new(stdout)
            .read_line(&mut line)
            .expect("Xvfb reports its display");
        let number = line.trim();
        assert!(
            !number.is_empty() && number.bytes().all(|b| b.is_ascii_digit()),
            "Xvfb did not report a display number (got {line:?})"
        );
        Self {
            child,
            display: format!(":{number}"),
        }
    }
}

impl Drop for Xvfb {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

//! The `sylva` binary run as a user runs it, one module per area, in one test binary
//! that builds and links once and runs them side by side:
//! `cargo test -p sylva-cli --test commands`, narrowed by a module or test name
//! (`cargo test -p sylva-cli --test commands view::`).

mod cli;
mod closed_stdout;
mod crash_safety;
mod export;
mod lockfile;
mod readme;
mod remote_cache;
mod view;

//! The end-to-end tests of the facade package, one module per area, in one binary so
//! that they build and link once and run side by side: `cargo test --test end_to_end`,
//! narrowed by a module or test name (`cargo test --test end_to_end gpu::`).

mod common;

mod bake;
mod cache_integrity;
mod export;
mod fuzz_corpus;
mod gpu;
mod import;
mod impostors;
mod materials;
mod presets;
mod prop_kit;
mod scatter;
mod watch;

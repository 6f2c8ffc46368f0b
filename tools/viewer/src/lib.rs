//! The sylva viewer: a winit window drawing through rend3 where a level designer paints
//! with presets and an artist sees props arrive as they load.
//!
//! Pure logic lives in small modules with their tests: [`camera`] (orbit and fly,
//! frame-rate independent), [`input`] (events to commands), [`stroke`] (dab spacing),
//! [`script`] (scripted runs), [`session_file`] (atomic saves, autosave),
//! [`preset_folder`] (the picker's folder scan), [`cursor`] (ray cast and brush ring),
//! [`hud`] (the HUD's rows), [`timing`], [`loader`] (background loads shared per prop),
//! [`cache_source`] (bake cache entries, baked on demand) and [`workspace`] (everything
//! edited, without a window). [`gpu`], [`hud_ui`] and [`app`] are the window, rend3 and
//! egui edge; the world and its props are drawn by `sylva-runtime`, whose `Watcher`
//! re-bakes the assets folder on a thread.

pub mod app;
pub mod args;
pub mod cache_source;
pub mod camera;
pub mod cursor;
pub mod fill;
pub mod gpu;
pub mod hud;
pub mod hud_ui;
pub mod input;
pub mod lasso;
pub mod loader;
pub mod preset_folder;
pub mod script;
pub mod session_file;
pub mod stroke;
pub mod summary;
pub mod timing;
pub mod view_region;
pub mod workspace;

pub use app::{run, ViewerError};
pub use args::ViewArgs;
pub use summary::RunSummary;

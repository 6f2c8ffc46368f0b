//! The prop catalog. The engine never names a prop: `assets/catalog.ron` names
//! categories (with the spacing family, scale range, bake settings and visibility of
//! their props) and optional per-prop overrides, and every glTF/GLB file in `assets/<category>/` is a prop of
//! that category. Dropping a file into a category folder is all it takes to add a prop.
//!
//! Parsing and resolving are pure; [`folder::read_snapshot`] is the one function that
//! reads an assets folder from disk.

mod bake;
mod file;
pub mod folder;
pub mod parse;
mod resolved;
mod visibility;

pub use bake::{BakeOverride, LodLevel, PartBakeOverride, MAX_LOD_LEVELS};
pub use file::{CatalogFile, CatalogFileError, CategoryEntry, PropOverride, ScaleRange};
pub use resolved::{
    Catalog, CatalogError, CatalogSnapshot, Category, Prop, Resolution, PROP_EXTENSIONS,
};
pub use visibility::{Visibility, VisibilityOverride, DEFAULT_MIN_SIZE_PX};

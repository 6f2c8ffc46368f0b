//! The prop catalog. The engine never names a prop: `assets/catalog.ron` names
//! categories (with the spacing family and scale range of their props) and optional
//! per-prop overrides, and every glTF/GLB file in `assets/<category>/` is a prop of
//! that category. Dropping a file into a category folder is all it takes to add a prop.
//!
//! Pure: the caller reads the catalog file and lists the asset files.

mod file;
pub mod parse;
mod resolved;

pub use file::{CatalogFile, CatalogFileError, CategoryEntry, PropOverride, ScaleRange};
pub use resolved::{Catalog, CatalogError, Category, Prop, Resolution, PROP_EXTENSIONS};

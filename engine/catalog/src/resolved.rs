use std::collections::BTreeMap;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::file::{CatalogFile, ScaleRange};
use crate::visibility::Visibility;

/// File extensions that make a file in a category folder a prop.
pub const PROP_EXTENSIONS: [&str; 2] = ["glb", "gltf"];

/// A catalog resolved against the asset files present: every category with its props,
/// in a fixed order (sorted by name) so that random draws over it are reproducible.
/// Sessions store it so a replay sees exactly the props the painter saw.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Catalog {
    categories: Vec<Category>,
    props: Vec<Prop>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Category {
    pub name: Arc<str>,
    pub family: Arc<str>,
    pub scale: ScaleRange,
    pub visibility: Visibility,
    /// Indices into [`Catalog::props`], sorted by prop id.
    pub props: Vec<usize>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Prop {
    /// `<category>/<file stem>`: stable across sessions and bakes.
    pub id: Arc<str>,
    /// Path of the source file relative to the assets folder, `/`-separated.
    pub file: String,
    /// Index into [`Catalog::categories`].
    pub category: usize,
    pub scale: ScaleRange,
    /// Relative chance within the category.
    pub weight: f32,
    pub visibility: Visibility,
}

/// Everything a catalog is resolved from: the catalog file and the asset paths that
/// were present. Sessions store it so a replay resolves exactly the catalog the
/// painter saw, whatever `assets/` holds by then.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CatalogSnapshot {
    pub file: CatalogFile,
    /// Prop files relative to the assets folder, sorted.
    pub props: Vec<String>,
}

impl CatalogSnapshot {
    /// The snapshot of `file` with the prop files among `asset_paths`.
    pub fn new<'a>(file: CatalogFile, asset_paths: impl IntoIterator<Item = &'a str>) -> Self {
        let mut props: Vec<String> = asset_paths
            .into_iter()
            .filter(|p| split_prop_path(p).is_some())
            .map(str::to_owned)
            .collect();
        props.sort();
        Self { file, props }
    }

    pub fn resolve(&self) -> Result<(Catalog, Resolution), CatalogError> {
        Catalog::resolve(&self.file, self.props.iter().map(String::as_str))
    }
}

/// What resolving found besides the catalog: files and overrides that match nothing.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Resolution {
    /// Prop files in folders that name no category.
    pub unassigned_files: Vec<String>,
    /// Override keys that name no prop present.
    pub unused_overrides: Vec<String>,
}

#[derive(Debug, Error, PartialEq)]
pub enum CatalogError {
    #[error("prop `{id}` exists twice: `{first}` and `{second}`")]
    DuplicateProp {
        id: String,
        first: String,
        second: String,
    },
}

impl Catalog {
    /// Resolves `file` against asset paths relative to the assets folder (e.g.
    /// `conifer/pine.glb`); paths that are not `<category>/<name>.<glb|gltf>` are ignored.
    pub fn resolve<'a>(
        file: &CatalogFile,
        asset_paths: impl IntoIterator<Item = &'a str>,
    ) -> Result<(Self, Resolution), CatalogError> {
        let mut resolution = Resolution::default();
        let categories: Vec<Category> = file
            .categories
            .iter()
            .map(|(name, entry)| Category {
                name: name.as_str().into(),
                family: entry.family.as_str().into(),
                scale: entry.scale,
                visibility: entry.visibility.over(Visibility::default()),
                props: Vec::new(),
            })
            .collect();

        let mut found: BTreeMap<String, (usize, String)> = BTreeMap::new();
        for path in asset_paths {
            let Some((category, stem)) = split_prop_path(path) else {
                continue;
            };
            let Some(index) = categories.iter().position(|c| &*c.name == category) else {
                resolution.unassigned_files.push(path.to_owned());
                continue;
            };
            let id = format!("{category}/{stem}");
            if let Some((_, first)) = found.get(&id) {
                let (first, second) = if first.as_str() < path {
                    (first.clone(), path.to_owned())
                } else {
                    (path.to_owned(), first.clone())
                };
                return Err(CatalogError::DuplicateProp { id, first, second });
            }
            found.insert(id, (index, path.to_owned()));
        }
        resolution.unassigned_files.sort();

        let mut catalog = Catalog {
            categories,
            props: Vec::with_capacity(found.len()),
        };
        for (id, (category, path)) in found {
            let o = file.props.get(&id).cloned().unwrap_or_default();
            catalog.categories[category].props.push(catalog.props.len());
            catalog.props.push(Prop {
                scale: o.scale.unwrap_or(catalog.categories[category].scale),
                weight: o.weight.unwrap_or(1.0),
                visibility: o.visibility.over(catalog.categories[category].visibility),
                id: id.into(),
                file: path,
                category,
            });
        }
        resolution.unused_overrides = file
            .props
            .keys()
            .filter(|id| catalog.prop(id).is_none())
            .cloned()
            .collect();
        Ok((catalog, resolution))
    }

    pub fn categories(&self) -> &[Category] {
        &self.categories
    }

    pub fn props(&self) -> &[Prop] {
        &self.props
    }

    pub fn category(&self, name: &str) -> Option<&Category> {
        self.category_index(name).map(|i| &self.categories[i])
    }

    pub fn category_index(&self, name: &str) -> Option<usize> {
        self.categories
            .binary_search_by(|c| (*c.name).cmp(name))
            .ok()
    }

    pub fn prop(&self, id: &str) -> Option<&Prop> {
        self.props
            .binary_search_by(|p| (*p.id).cmp(id))
            .ok()
            .map(|i| &self.props[i])
    }

    /// Names of all categories, for error messages.
    pub fn category_names(&self) -> Vec<&str> {
        self.categories.iter().map(|c| &*c.name).collect()
    }
}

/// `conifer/pine.glb` → `("conifer", "pine")`; anything deeper or of another type → None.
fn split_prop_path(path: &str) -> Option<(&str, &str)> {
    let (category, file) = path.split_once('/')?;
    let (stem, extension) = file.rsplit_once('.')?;
    let is_prop = PROP_EXTENSIONS
        .iter()
        .any(|e| e.eq_ignore_ascii_case(extension));
    (is_prop && !category.is_empty() && !stem.is_empty() && !file.contains('/'))
        .then_some((category, stem))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file() -> CatalogFile {
        CatalogFile::from_ron(
            r#"(
                categories: {
                    "conifer": (family: "tree", scale: (0.8, 1.2)),
                    "rock": (family: "rock"),
                },
                props: {
                    "conifer/spruce": (weight: Some(3.0)),
                    "conifer/gone": (weight: Some(1.0)),
                },
            )"#,
            "catalog.ron",
        )
        .unwrap()
    }

    #[test]
    fn files_in_a_category_folder_become_its_props_in_sorted_order() {
        let paths = [
            "rock/b.glb",
            "conifer/spruce.glb",
            "conifer/pine.gltf",
            "rock/a.GLB",
        ];
        let (catalog, resolution) = Catalog::resolve(&file(), paths).unwrap();
        let ids: Vec<&str> = catalog.props().iter().map(|p| &*p.id).collect();
        assert_eq!(ids, ["conifer/pine", "conifer/spruce", "rock/a", "rock/b"]);
        let conifer = catalog.category("conifer").unwrap();
        assert_eq!(conifer.props, [0, 1]);
        assert_eq!(&*conifer.family, "tree");
        assert_eq!(catalog.prop("conifer/spruce").unwrap().weight, 3.0);
        assert_eq!(
            catalog.prop("conifer/pine").unwrap().scale,
            ScaleRange(0.8, 1.2)
        );
        assert_eq!(resolution.unused_overrides, ["conifer/gone"]);
    }

    #[test]
    fn adding_a_file_adds_a_prop_without_other_changes() {
        let (before, _) = Catalog::resolve(&file(), ["rock/a.glb"]).unwrap();
        let (after, _) = Catalog::resolve(&file(), ["rock/a.glb", "rock/c.glb"]).unwrap();
        assert_eq!(before.category("rock").unwrap().props.len(), 1);
        assert_eq!(after.category("rock").unwrap().props.len(), 2);
    }

    #[test]
    fn unassigned_and_non_prop_files_are_set_aside() {
        let paths = [
            "fern/a.glb",
            "rock/readme.txt",
            "catalog.ron",
            "rock/deep/x.glb",
        ];
        let (catalog, resolution) = Catalog::resolve(&file(), paths).unwrap();
        assert!(catalog.props().is_empty());
        assert_eq!(resolution.unassigned_files, ["fern/a.glb"]);
    }

    #[test]
    fn the_same_stem_twice_is_an_error() {
        let err = Catalog::resolve(&file(), ["rock/a.glb", "rock/a.gltf"]).unwrap_err();
        assert_eq!(
            err,
            CatalogError::DuplicateProp {
                id: "rock/a".into(),
                first: "rock/a.glb".into(),
                second: "rock/a.gltf".into()
            }
        );
    }

    #[test]
    fn visibility_resolves_prop_over_category_over_default() {
        let text = r#"(
            categories: {
                "grass": (family: "grass", visibility: (min_size_px: Some(3.0))),
                "conifer": (family: "tree"),
            },
            props: { "grass/tall": (visibility: (max_distance_m: Some(80.0))) },
        )"#;
        let file = crate::CatalogFile::from_ron(text, "catalog.ron").unwrap();
        let paths = ["grass/tall.glb", "grass/short.glb", "conifer/pine.glb"];
        let (catalog, _) = Catalog::resolve(&file, paths).unwrap();
        let visibility = |id: &str| catalog.prop(id).unwrap().visibility;
        assert_eq!(visibility("grass/short").min_size_px, 3.0);
        assert_eq!(visibility("grass/tall").min_size_px, 3.0);
        assert_eq!(visibility("grass/tall").max_distance_m, Some(80.0));
        assert_eq!(visibility("conifer/pine"), crate::Visibility::default());
    }
}

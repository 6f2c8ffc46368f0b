//! Bytes as an assets folder's `catalog.ron`.

use sylva_bake::BakeSettings;
use sylva_catalog::{CatalogFile, CatalogSnapshot};

/// Prop files of a small assets folder the catalog is resolved against.
const PROP_FILES: [&str; 6] = [
    "rock/a.glb",
    "rock/b.gltf",
    "grass/tuft.glb",
    "conifer/pine.glb",
    "broadleaf/oak.glb",
    "loose.glb",
];

/// Whatever parses reads back the same after being written as RON, resolves against a
/// folder of props (or says why not), and gives every prop bake settings.
pub fn catalog(bytes: &[u8]) {
    let Ok(text) = std::str::from_utf8(bytes) else {
        return;
    };
    let Ok(file) = CatalogFile::from_ron(text, "fuzz.ron") else {
        return;
    };
    let written = ron::to_string(&file).expect("a catalog is plain data");
    assert_eq!(
        CatalogFile::from_ron(&written, "written.ron").as_ref(),
        Ok(&file),
        "a catalog written as RON reads back the same: {written}"
    );
    let snapshot = CatalogSnapshot::new(file, PROP_FILES);
    let Ok((catalog, _)) = snapshot.resolve() else {
        return;
    };
    for prop in catalog.props() {
        let category = &catalog.categories()[prop.category].name;
        let _ = BakeSettings::for_prop(&snapshot.file, category, &prop.id);
    }
}

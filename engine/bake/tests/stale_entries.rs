//! An entry the bake cannot read (written by another format version, before or after an
//! upgrade, or corrupt) is baked again with the reason in the asset's status, never
//! loaded and never a crash.

use std::path::Path;

use sylva_bake::{bake_folder, BakeOptions, FolderReport, Status};
use sylva_cache::{CacheDir, Entry, FormatError, FORMAT_VERSION};

/// An assets folder holding the kit's jagged shard (a small prop with an impostor).
fn assets() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("catalog.ron"),
        r#"(categories: { "rock": (family: "rock") })"#,
    )
    .unwrap();
    std::fs::create_dir(dir.path().join("rock")).unwrap();
    let kit = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../assets/rock/shard_jagged.glb"
    );
    std::fs::copy(kit, dir.path().join("rock/shard_jagged.glb")).unwrap();
    dir
}

fn bake(assets: &Path, cache: &CacheDir) -> FolderReport {
    bake_folder(assets, cache, &BakeOptions::default()).unwrap()
}

/// The shard's outcome: whether it was baked, and why its old entry was replaced.
fn baked(report: &FolderReport) -> (bool, Option<String>) {
    match &report.assets[0].status {
        Status::Baked { replaced, .. } => (true, replaced.clone()),
        _ => (false, None),
    }
}

#[test]
fn an_entry_of_the_previous_format_listed_by_the_manifest_is_baked_again_with_a_message() {
    let assets = assets();
    let out = tempfile::tempdir().unwrap();
    let cache = CacheDir::new(out.path().join("cache"));
    bake(assets.path(), &cache);
    let current = cache.read_manifest().unwrap().assets["rock/shard_jagged.glb"].clone();

    // The cache as the previous version left it: its manifest lists a version 5 entry
    // under that version's key.
    let old = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../cache/tests/data/golden-v5.sylva"
    ))
    .unwrap();
    assert_eq!(
        Entry::parse(&old).unwrap_err(),
        FormatError::UnsupportedVersion {
            found: 5,
            supported: FORMAT_VERSION
        }
    );
    let old_name = format!("{}.sylva", "5".repeat(64));
    cache.write_entry(&old_name, &old).unwrap();
    std::fs::remove_file(cache.root().join(&current.entry)).unwrap();
    let mut manifest = cache.read_manifest().unwrap();
    let listed = manifest.assets.get_mut("rock/shard_jagged.glb").unwrap();
    listed.entry = old_name.clone();
    listed.key = "5".repeat(64);
    cache.write_manifest(&manifest).unwrap();

    let report = bake(assets.path(), &cache);
    let (rebaked, replaced) = baked(&report);
    assert!(rebaked);
    let replaced = replaced.expect("the reason is reported");
    assert!(
        replaced.contains(&old_name) && replaced.contains("version 5"),
        "{replaced}"
    );
    assert!(
        report.removed_entries.contains(&old_name),
        "the old entry goes"
    );
    let now = &cache.read_manifest().unwrap().assets["rock/shard_jagged.glb"];
    assert_eq!(
        (&now.entry, now.revision),
        (&current.entry, current.revision + 1)
    );
    Entry::parse(&cache.read_entry(&now.entry).unwrap()).unwrap();

    // Baked again once, it is current.
    let again = bake(assets.path(), &cache);
    assert!(matches!(again.assets[0].status, Status::Current));
}

#[test]
fn an_unreadable_entry_under_todays_name_is_baked_again_with_a_message() {
    let assets = assets();
    let out = tempfile::tempdir().unwrap();
    let cache = CacheDir::new(out.path().join("cache"));
    bake(assets.path(), &cache);
    let name = cache.read_manifest().unwrap().assets["rock/shard_jagged.glb"]
        .entry
        .clone();
    let good = cache.read_entry(&name).unwrap();
    for version in [5, FORMAT_VERSION + 1] {
        let expected = format!("version {version}");
        let mut other = good.clone();
        other[8..12].copy_from_slice(&version.to_le_bytes());
        cache.write_entry(&name, &other).unwrap();
        let report = bake(assets.path(), &cache);
        let (rebaked, replaced) = baked(&report);
        assert!(rebaked);
        let replaced = replaced.expect("the reason is reported");
        assert!(replaced.contains(&expected), "{replaced}");
        assert_eq!(
            cache.read_entry(&name).unwrap(),
            good,
            "the same bake again"
        );
    }
    let mut corrupt = good.clone();
    let middle = corrupt.len() / 2;
    corrupt[middle] ^= 1;
    cache.write_entry(&name, &corrupt).unwrap();
    let (rebaked, replaced) = baked(&bake(assets.path(), &cache));
    assert!(rebaked);
    assert!(replaced.unwrap().contains("checksum"));
    // A bake with nothing to replace says nothing.
    std::fs::remove_file(cache.root().join(&name)).unwrap();
    assert_eq!(baked(&bake(assets.path(), &cache)), (true, None));
}

//! Bytes as a `sylva.lock`.

use sylva_cache::Lockfile;

/// Whatever parses survives a round trip through the text a bake writes, unchanged.
pub fn lockfile(bytes: &[u8]) {
    let Ok(text) = std::str::from_utf8(bytes) else {
        return;
    };
    let Ok(lock) = Lockfile::parse(text) else {
        return;
    };
    let written = lock.to_ron();
    assert_eq!(
        Lockfile::parse(&written).as_ref(),
        Ok(&lock),
        "a lockfile written reads back the same: {written}"
    );
    let _ = lock.files();
}

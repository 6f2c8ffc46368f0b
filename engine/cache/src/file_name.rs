//! The names of files in the cache folder: an entry is `<key>.sylva`, a texture blob
//! `<BLAKE3 of its bytes>.sylvatex`, and no name a cache reads, writes or deletes may
//! reach outside the folder. The store, the manifest and the content addresses that
//! name files all use these, so they sit in a module that depends on none of them.

/// Extension of entry files.
pub const ENTRY_EXTENSION: &str = "sylva";
/// Extension of texture blob files.
pub const TEXTURE_EXTENSION: &str = "sylvatex";

/// ASCII letters, digits, `.`, `-` and `_`, and not `.` or `..`: every name the cache
/// writes (`<key>.sylva`, `<id>.sylvatex`, `manifest.ron`, `.tmp-…`) and nothing that
/// can leave a folder.
pub fn is_plain_file_name(name: &str) -> bool {
    !name.is_empty()
        && name != "."
        && name != ".."
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b'_'))
}

//! Bytes as a preset file, in RON and in JSON.

use sylva_scatter::Preset;

/// Whatever parses is valid and survives a round trip through RON unchanged.
pub fn preset(bytes: &[u8]) {
    let Ok(text) = std::str::from_utf8(bytes) else {
        return;
    };
    for source_name in ["fuzz.ron", "fuzz.json"] {
        let Ok(preset) = Preset::parse(text, source_name) else {
            continue;
        };
        let written = ron::to_string(&preset).expect("a preset is plain data");
        assert_eq!(
            Preset::parse(&written, "written.ron").as_ref(),
            Ok(&preset),
            "a preset written as RON reads back the same: {written}"
        );
    }
}

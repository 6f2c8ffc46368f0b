//! A generated 16-bit heightmap PNG for the large-world benchmarks.

use std::path::PathBuf;

/// `target/heightmap-SIDE.png`, written on first use, so `sylva fill --heightmap` and
/// `sylva replay` can be timed on the same terrain as the benchmarks.
pub fn file(side: u32) -> PathBuf {
    let path = super::repo().join(format!("target/heightmap-{side}.png"));
    if !path.exists() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, png(side)).unwrap();
    }
    path
}

/// Rolling hills, a few valleys under the water level and steeper ridges: the same
/// mix of slope, altitude and water rejections a real map gives.
pub fn png(side: u32) -> Vec<u8> {
    let mut samples = Vec::with_capacity((side * side * 2) as usize);
    for row in 0..side {
        for column in 0..side {
            let (x, z) = (column as f32, row as f32);
            let hills = (x / 310.0).sin() * (z / 420.0).cos();
            let ridges = ((x + 0.7 * z) / 95.0).sin().abs();
            let detail = (x / 23.0).sin() * (z / 31.0).sin();
            let h = 0.45 + 0.3 * hills + 0.2 * ridges + 0.03 * detail;
            let value = (h.clamp(0.0, 1.0) * 65_535.0) as u16;
            samples.extend_from_slice(&value.to_be_bytes());
        }
    }
    let mut out = Vec::new();
    let mut encoder = png::Encoder::new(&mut out, side, side);
    encoder.set_color(png::ColorType::Grayscale);
    encoder.set_depth(png::BitDepth::Sixteen);
    let mut writer = encoder.write_header().unwrap();
    writer.write_image_data(&samples).unwrap();
    writer.finish().unwrap();
    out
}

//! Golden-image comparison, shared by `tests/gpu.rs` and the embedding example's test
//! (`examples/embed/tests/golden.rs` includes this file).

use std::path::Path;

use sylva_render::RgbaImage;

/// Compares `image` with `<repo>/tests/golden/<name>.png`: at most 0.5 % of pixels may
/// differ by more than 8 levels in a channel (driver and rounding noise), and the mean
/// by under 1. `SYLVA_BLESS=1` rewrites the golden instead. A failure leaves the frame
/// and a diff picture in `<repo>/target/gpu-test-output/`.
pub fn assert_matches_golden(repo: &Path, name: &str, image: &RgbaImage) {
    let golden_path = repo.join(format!("tests/golden/{name}.png"));
    if std::env::var_os("SYLVA_BLESS").is_some() {
        std::fs::write(&golden_path, image.to_png().unwrap()).unwrap();
        return;
    }
    let golden = std::fs::read(&golden_path)
        .map(|bytes| RgbaImage::from_png(&bytes).unwrap())
        .unwrap_or_else(|_| {
            panic!(
                "{} is missing: run with SYLVA_BLESS=1 to create it",
                golden_path.display()
            )
        });
    let diff = image
        .diff(&golden, 8)
        .expect("golden image of the same size");
    let allowed = (image.width * image.height) as usize / 200;
    if diff.differing_pixels > allowed || diff.mean_difference >= 1.0 {
        let out = repo.join("target/gpu-test-output");
        std::fs::create_dir_all(&out).unwrap();
        std::fs::write(out.join(format!("{name}.png")), image.to_png().unwrap()).unwrap();
        std::fs::write(
            out.join(format!("{name}.diff.png")),
            image.diff_image(&golden, 8).to_png().unwrap(),
        )
        .unwrap();
        panic!(
            "{name}: {diff:?} (allowed {allowed} pixels); frame and diff in {}",
            out.display()
        );
    }
}

//! Hostile files cannot make the importer allocate much: what one import allocates at
//! its peak is counted by a global allocator (this test binary's alone) and must stay
//! within a bound proportional to the file's size. Deep nesting must not overflow the
//! stack.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::io;

use sylva_import::{import, ImportError};

thread_local! {
    static LIVE: Cell<usize> = const { Cell::new(0) };
    static PEAK: Cell<usize> = const { Cell::new(0) };
}

struct PeakCountingAllocator;

// SAFETY: forwards every call unchanged to the system allocator; counting has no effect
// on the memory handed out.
unsafe impl GlobalAlloc for PeakCountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        grew(layout.size());
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        shrank(layout.size());
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        grew(new_size);
        shrank(layout.size());
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

fn grew(bytes: usize) {
    // `try_with`: the allocator also runs while thread-locals are torn down.
    let _ = LIVE.try_with(|live| {
        live.set(live.get() + bytes);
        let _ = PEAK.try_with(|peak| peak.set(peak.get().max(live.get())));
    });
}

fn shrank(bytes: usize) {
    let _ = LIVE.try_with(|live| live.set(live.get().saturating_sub(bytes)));
}

#[global_allocator]
static GLOBAL: PeakCountingAllocator = PeakCountingAllocator;

/// The most bytes live at once on this thread while running `work`, above what was
/// live before it.
fn peak_during<T>(work: impl FnOnce() -> T) -> (T, usize) {
    let before = LIVE.with(Cell::get);
    PEAK.with(|peak| peak.set(before));
    let result = work();
    (result, PEAK.with(Cell::get) - before)
}

/// The bound for a file of `len` bytes: 64 MB, and 4,096 bytes per byte of input above
/// 16 KB (so a 1 KB file gets 64 MB, never gigabytes).
fn bound(len: usize) -> usize {
    (64 << 20) + 4096 * len.saturating_sub(16 << 10)
}

fn no_files(_: &str) -> io::Result<Vec<u8>> {
    Err(io::Error::new(io::ErrorKind::NotFound, "no files"))
}

fn base64(bytes: &[u8]) -> String {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

fn data_uri(bytes: &[u8]) -> String {
    format!("data:application/octet-stream;base64,{}", base64(bytes))
}

/// A document with one buffer of 8 zero bytes and then `image` (views 0 and 1 over
/// them), `accessors`, one mesh with `primitives`, `nodes`, and `extra` members.
fn document_with_image(
    image: &[u8],
    accessors: &str,
    primitives: &str,
    nodes: &str,
    extra: &str,
) -> Vec<u8> {
    let mut buffer = vec![0; 8];
    buffer.extend_from_slice(image);
    format!(
        r#"{{"asset":{{"version":"2.0"}},
        "buffers":[{{"byteLength":{},"uri":"{}"}}],
        "bufferViews":[{{"buffer":0,"byteLength":8}},{{"buffer":0,"byteOffset":8,"byteLength":{}}}],
        "accessors":[{accessors}],
        "meshes":[{{"primitives":[{primitives}]}}],
        "nodes":[{nodes}]{extra}}}"#,
        buffer.len(),
        data_uri(&buffer),
        image.len().max(1),
    )
    .into_bytes()
}

fn document(accessors: &str, primitives: &str, nodes: &str, extra: &str) -> Vec<u8> {
    document_with_image(&[], accessors, primitives, nodes, extra)
}

/// A POSITION accessor of `count` elements with no data at all: sparse, zero values.
fn dataless_positions(count: u64) -> String {
    format!(
        r#"{{"componentType":5126,"type":"VEC3","count":{count},
        "sparse":{{"count":0,"indices":{{"bufferView":0,"componentType":5125}},"values":{{"bufferView":0}}}}}}"#
    )
}

/// A PNG whose header declares `width × height` RGBA pixels, with almost no data.
fn png_header_only(width: u32, height: u32) -> Vec<u8> {
    let mut png = b"\x89PNG\r\n\x1a\n".to_vec();
    let mut ihdr = Vec::new();
    ihdr.extend_from_slice(&width.to_be_bytes());
    ihdr.extend_from_slice(&height.to_be_bytes());
    ihdr.extend_from_slice(&[8, 6, 0, 0, 0]);
    chunk(&mut png, b"IHDR", &ihdr);
    chunk(
        &mut png,
        b"IDAT",
        &[0x78, 0x9c, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01],
    );
    chunk(&mut png, b"IEND", &[]);
    png
}

fn chunk(png: &mut Vec<u8>, kind: &[u8; 4], data: &[u8]) {
    png.extend_from_slice(&(data.len() as u32).to_be_bytes());
    let start = png.len();
    png.extend_from_slice(kind);
    png.extend_from_slice(data);
    let crc = crc32(&png[start..]);
    png.extend_from_slice(&crc.to_be_bytes());
}

fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in bytes {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

/// A textured triangle whose material's texture is image 0, and `images`.
fn textured(images: &str) -> Vec<u8> {
    let positions = r#"{"bufferView":0,"componentType":5126,"type":"VEC3","count":0}"#;
    let material = r#","materials":[{"pbrMetallicRoughness":{"baseColorTexture":{"index":0}}}],
        "textures":[{"source":0}]"#;
    document(
        positions,
        r#"{"attributes":{"POSITION":0},"material":0}"#,
        r#"{"mesh":0}"#,
        &format!("{material},\"images\":[{images}]"),
    )
}

struct Hostile {
    name: &'static str,
    bytes: Vec<u8>,
}

fn hostile_files() -> Vec<Hostile> {
    let one_triangle = r#"{"attributes":{"POSITION":0}}"#;
    let mut files = vec![
        Hostile {
            name: "an accessor of 4 million vertices with no data (sparse, no view)",
            bytes: document(
                &dataless_positions(4_000_000),
                one_triangle,
                r#"{"mesh":0}"#,
                "",
            ),
        },
        Hostile {
            name: "an accessor of 20,001 data-less vertices instanced by 2,000 nodes",
            bytes: document(
                &dataless_positions(20_001),
                one_triangle,
                &vec![r#"{"mesh":0}"#; 2000].join(","),
                "",
            ),
        },
        Hostile {
            name: "one mesh with 2,000 primitives on one data-less accessor",
            bytes: document(
                &dataless_positions(20_001),
                &vec![one_triangle; 2000].join(","),
                r#"{"mesh":0}"#,
                "",
            ),
        },
        Hostile {
            name: "a PNG declaring 8192 × 8192 pixels in a data URI",
            bytes: textured(&format!(
                r#"{{"uri":"{}"}}"#,
                data_uri(&png_header_only(8192, 8192))
            )),
        },
        Hostile {
            name: "a PNG declaring 2048 × 2048 pixels in a data URI",
            bytes: textured(&format!(
                r#"{{"uri":"{}"}}"#,
                data_uri(&png_header_only(2048, 2048))
            )),
        },
        Hostile {
            name: "a node chain 10,000 deep",
            bytes: document(
                &dataless_positions(3),
                one_triangle,
                &(0..10_000)
                    .map(|i| format!(r#"{{"children":[{}]}}"#, i + 1))
                    .chain([r#"{"mesh":0}"#.to_owned()])
                    .collect::<Vec<_>>()
                    .join(","),
                "",
            ),
        },
        Hostile {
            name: "JSON nested 100,000 arrays deep",
            bytes: document(
                &dataless_positions(3),
                one_triangle,
                r#"{"mesh":0}"#,
                &format!(
                    r#","unknown":{}{}"#,
                    "[".repeat(100_000),
                    "]".repeat(100_000)
                ),
            ),
        },
        Hostile {
            name: "a GLB header declaring 4 GB",
            bytes: b"glTF\x02\0\0\0\xff\xff\xff\xff\x10\0\0\0JSON{}      ".to_vec(),
        },
    ];
    // Many images decoding one real, highly compressible 1024² PNG from one view.
    let mut solid = Vec::new();
    let mut encoder = png::Encoder::new(&mut solid, 1024, 1024);
    encoder.set_color(png::ColorType::Rgba);
    let mut writer = encoder.write_header().unwrap();
    writer.write_image_data(&vec![0; 1024 * 1024 * 4]).unwrap();
    writer.finish().unwrap();
    let images = vec![r#"{"bufferView":1,"mimeType":"image/png"}"#; 64].join(",");
    let materials: Vec<String> = (0..64)
        .map(|i| format!(r#"{{"pbrMetallicRoughness":{{"baseColorTexture":{{"index":{i}}}}}}}"#))
        .collect();
    let textures: Vec<String> = (0..64).map(|i| format!(r#"{{"source":{i}}}"#)).collect();
    let primitives: Vec<String> = (0..64)
        .map(|i| format!(r#"{{"attributes":{{"POSITION":0}},"material":{i}}}"#))
        .collect();
    files.push(Hostile {
        name: "64 images decoding one 1024² solid PNG",
        bytes: document_with_image(
            &solid,
            r#"{"bufferView":0,"componentType":5126,"type":"VEC3","count":0}"#,
            &primitives.join(","),
            r#"{"mesh":0}"#,
            &format!(
                r#","materials":[{}],"textures":[{}],"images":[{images}]"#,
                materials.join(","),
                textures.join(",")
            ),
        ),
    });
    files
}

#[test]
fn hostile_files_allocate_at_most_a_bound_proportional_to_their_size() {
    for file in hostile_files() {
        let (result, peak) = peak_during(|| import(&file.bytes, &mut no_files));
        let verdict = match &result {
            Ok(imported) => format!("imported {} parts", imported.parts.len()),
            Err(e) => format!("refused: {e}"),
        };
        println!(
            "{}: {} bytes, peak {} KB; {}",
            file.name,
            file.bytes.len(),
            peak / 1024,
            verdict.chars().take(160).collect::<String>()
        );
        assert!(
            peak <= bound(file.bytes.len()),
            "{}: {} bytes of file allocated {peak} bytes at its peak",
            file.name,
            file.bytes.len()
        );
        assert!(
            !matches!(result, Ok(ref i) if i.parts.iter().map(|p| p.vertices.len()).sum::<usize>() > 1 << 20),
            "{}: a small file imported over a million vertices",
            file.name
        );
    }
}

#[test]
fn the_refusals_name_what_was_over_the_allowance() {
    let err = import(
        &document(
            &dataless_positions(4_000_000),
            r#"{"attributes":{"POSITION":0}}"#,
            r#"{"mesh":0}"#,
            "",
        ),
        &mut no_files,
    )
    .unwrap_err();
    assert!(
        matches!(&err, ImportError::OverBudget { path, what: "accessor values", .. } if path == "accessors[0].count"),
        "{err}"
    );
    let err = import(
        &textured(&format!(
            r#"{{"uri":"{}"}}"#,
            data_uri(&png_header_only(8192, 8192))
        )),
        &mut no_files,
    )
    .unwrap_err();
    let ImportError::MaterialTexture {
        source, channel, ..
    } = &err
    else {
        panic!("a texture's error names its material: {err}");
    };
    assert_eq!(*channel, "baseColorTexture");
    assert!(
        matches!(&**source, ImportError::OverBudget { what: "decoded image bytes", needed, .. } if *needed == 8192 * 8192 * 4),
        "{err}"
    );
}

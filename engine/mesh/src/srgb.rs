//! sRGB bytes ↔ linear light, shared by every stage that filters colour (the texture
//! baker's mip chains, the impostor baker's views and mips), so both encode the same
//! way. Decoding is a 256-entry table; encoding searches it, so encoding inverts
//! decoding exactly and uses only comparisons and IEEE subtraction.

use std::sync::OnceLock;

/// sRGB-encoded byte → linear light.
pub fn decode_table() -> &'static [f32; 256] {
    static TABLE: OnceLock<[f32; 256]> = OnceLock::new();
    TABLE.get_or_init(|| {
        std::array::from_fn(|i| {
            let c = i as f64 / 255.0;
            let linear = if c <= 0.04045 {
                c / 12.92
            } else {
                ((c + 0.055) / 1.055).powf(2.4)
            };
            linear as f32
        })
    })
}

/// An RGBA8 sRGB texel (4 bytes) → linear RGB and alpha as authored, in `[0, 1]`.
pub fn decode_texel(texel: &[u8]) -> [f32; 4] {
    let table = decode_table();
    [
        table[texel[0] as usize],
        table[texel[1] as usize],
        table[texel[2] as usize],
        f32::from(texel[3]) / 255.0,
    ]
}

/// Linear light → the sRGB byte whose decoded value is nearest (a search in the decode
/// table, so encoding inverts decoding exactly).
pub fn encode_srgb(linear: f32) -> u8 {
    let table = decode_table();
    let above = table.partition_point(|&v| v < linear);
    match above {
        0 => 0,
        256 => 255,
        i if linear - table[i - 1] <= table[i] - linear => (i - 1) as u8,
        i => i as u8,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encoding_inverts_decoding_for_every_byte() {
        for byte in 0..=255u8 {
            assert_eq!(encode_srgb(decode_table()[byte as usize]), byte);
        }
        assert_eq!(encode_srgb(-1.0), 0);
        assert_eq!(encode_srgb(2.0), 255);
        assert_eq!(decode_texel(&[0, 255, 0, 51]), [0.0, 1.0, 0.0, 0.2]);
    }
}

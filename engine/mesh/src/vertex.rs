/// Bytes per [`Vertex`].
pub const VERTEX_STRIDE: usize = 52;

/// One vertex in full precision, the form the importer and the bake's stages work on;
/// the cache and the GPU hold it packed ([`crate::VertexQuantization`]). As bytes,
/// little-endian and interleaved, 52 bytes:
///
/// | offset | attribute | format |
/// |---|---|---|
/// | 0 | position | `f32 × 3` |
/// | 12 | normal | `f32 × 3` |
/// | 24 | uv | `f32 × 2` |
/// | 32 | tangent | `f32 × 4`: glTF's TANGENT, `w` the bitangent's sign; zero for parts without a normal map |
/// | 48 | colour | RGBA8 unorm (`u8 × 4`) |
///
/// `repr(C)` with no padding, so its in-memory bytes on a little-endian machine are the
/// layout itself (meshoptimizer hashes and remaps vertices as raw bytes).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[repr(C)]
pub struct Vertex {
    pub position: [f32; 3],
    pub normal: [f32; 3],
    pub uv: [f32; 2],
    pub tangent: [f32; 4],
    pub color: [u8; 4],
}

const _: () = assert!(std::mem::size_of::<Vertex>() == VERTEX_STRIDE);

impl Vertex {
    /// The vertex as bytes.
    pub fn to_bytes(&self) -> [u8; VERTEX_STRIDE] {
        let mut out = [0; VERTEX_STRIDE];
        let floats = self
            .position
            .iter()
            .chain(&self.normal)
            .chain(&self.uv)
            .chain(&self.tangent);
        for (chunk, value) in out.chunks_exact_mut(4).zip(floats) {
            chunk.copy_from_slice(&value.to_le_bytes());
        }
        out[48..].copy_from_slice(&self.color);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_are_in_the_documented_layout() {
        let v = Vertex {
            position: [1.0, -2.0, 3.5],
            normal: [0.0, 1.0, 0.0],
            uv: [0.25, 0.75],
            tangent: [1.0, 0.0, 0.0, -1.0],
            color: [10, 20, 30, 255],
        };
        let bytes = v.to_bytes();
        assert_eq!(&bytes[4..8], &(-2.0f32).to_le_bytes());
        assert_eq!(&bytes[28..32], &0.75f32.to_le_bytes());
        assert_eq!(&bytes[44..48], &(-1.0f32).to_le_bytes());
        assert_eq!(&bytes[48..], &[10, 20, 30, 255]);
    }
}

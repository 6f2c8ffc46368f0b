//! The packed vertex: 24 bytes where [`Vertex`] takes 52, the layout the cache stores
//! and the GPU reads (the layout of gltfpack's `KHR_mesh_quantization` output).
//! Positions and UVs are 16-bit fixed point over the part's own ranges, which a
//! [`VertexQuantization`] holds and the shaders apply; normals and tangents are 8-bit
//! signed components. Little-endian:
//!
//! | offset | attribute | format |
//! |---|---|---|
//! | 0 | position | `unorm16 × 4`: x, y, z over the part's bounds; w zero |
//! | 8 | normal | `snorm8 × 4`: x, y, z; w zero |
//! | 12 | tangent | `snorm8 × 4`: x, y, z, and `w` the bitangent's sign (±1, or zero with the tangent) |
//! | 16 | uv | `unorm16 × 2` over the part's UV range |
//! | 20 | colour | RGBA8 unorm |
//!
//! A position is off by at most half a step of its axis (the part's extent over
//! 131,070); a normal by at most about 0.4°.

use crate::Vertex;

/// Bytes per packed vertex.
pub const PACKED_STRIDE: usize = 24;

/// Byte offsets of the attributes in a packed vertex.
pub const PACKED_POSITION: usize = 0;
pub const PACKED_NORMAL: usize = 8;
pub const PACKED_TANGENT: usize = 12;
pub const PACKED_UV: usize = 16;
pub const PACKED_COLOR: usize = 20;

const UNORM16_MAX: f32 = u16::MAX as f32;
const SNORM8_MAX: f32 = i8::MAX as f32;

/// How a part's packed positions and UVs map back: `offset + unorm × scale` per
/// component, the unorm in `0..=1`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct VertexQuantization {
    pub position_offset: [f32; 3],
    pub position_scale: [f32; 3],
    pub uv_offset: [f32; 2],
    pub uv_scale: [f32; 2],
}

/// The largest differences packing made, over a part's vertices.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct QuantizationError {
    /// Distance between a position and its packed one, in the part's units (metres).
    pub position: f32,
    /// Angle between a normal and its packed one, in degrees.
    pub normal_deg: f32,
    /// Difference of a UV component, in UV units.
    pub uv: f32,
}

impl VertexQuantization {
    /// Spans the positions and UVs of `vertices` (non-finite values are left out; they
    /// pack to the range's start).
    pub fn fit(vertices: &[Vertex]) -> Self {
        let (position_offset, position_scale) = span(vertices.iter().map(|v| v.position));
        let (uv_offset, uv_scale) = span(vertices.iter().map(|v| v.uv));
        VertexQuantization {
            position_offset,
            position_scale,
            uv_offset,
            uv_scale,
        }
    }

    /// Every offset and scale is finite, no scale is negative and every range ends at a
    /// finite number, so whatever a packed vertex holds unpacks to finite values: what a
    /// reader checks before it trusts the mapping.
    pub fn is_valid(&self) -> bool {
        let offsets = self.position_offset.iter().chain(&self.uv_offset);
        let scales = self.position_scale.iter().chain(&self.uv_scale);
        offsets
            .zip(scales)
            .all(|(o, s)| o.is_finite() && s.is_finite() && *s >= 0.0 && (o + s).is_finite())
    }

    /// The quantization spanning `vertices`, and the vertices as they come back from it.
    pub fn fit_and_snap(vertices: &[Vertex]) -> (Self, Vec<Vertex>) {
        let quantization = Self::fit(vertices);
        let snapped = vertices.iter().map(|v| quantization.snap(v)).collect();
        (quantization, snapped)
    }

    /// The vertex packed.
    pub fn pack(&self, v: &Vertex) -> [u8; PACKED_STRIDE] {
        let mut out = [0; PACKED_STRIDE];
        for axis in 0..3 {
            let q = to_unorm16(
                v.position[axis],
                self.position_offset[axis],
                self.position_scale[axis],
            );
            out[PACKED_POSITION + 2 * axis..][..2].copy_from_slice(&q.to_le_bytes());
        }
        for axis in 0..3 {
            out[PACKED_NORMAL + axis] = to_snorm8(v.normal[axis]);
        }
        for axis in 0..4 {
            out[PACKED_TANGENT + axis] = to_snorm8(v.tangent[axis]);
        }
        for axis in 0..2 {
            let q = to_unorm16(v.uv[axis], self.uv_offset[axis], self.uv_scale[axis]);
            out[PACKED_UV + 2 * axis..][..2].copy_from_slice(&q.to_le_bytes());
        }
        out[PACKED_COLOR..].copy_from_slice(&v.color);
        out
    }

    /// The vertex a packed one stands for: what the shaders compute from it.
    pub fn unpack(&self, bytes: &[u8; PACKED_STRIDE]) -> Vertex {
        let unorm =
            |at: usize| f32::from(u16::from_le_bytes([bytes[at], bytes[at + 1]])) / UNORM16_MAX;
        let snorm = |at: usize| (f32::from(bytes[at] as i8) / SNORM8_MAX).max(-1.0);
        Vertex {
            position: std::array::from_fn(|axis| {
                self.position_offset[axis]
                    + unorm(PACKED_POSITION + 2 * axis) * self.position_scale[axis]
            }),
            normal: std::array::from_fn(|axis| snorm(PACKED_NORMAL + axis)),
            uv: std::array::from_fn(|axis| {
                self.uv_offset[axis] + unorm(PACKED_UV + 2 * axis) * self.uv_scale[axis]
            }),
            tangent: std::array::from_fn(|axis| snorm(PACKED_TANGENT + axis)),
            color: [bytes[20], bytes[21], bytes[22], bytes[23]],
        }
    }

    /// The vertex as it comes back from packing.
    pub fn snap(&self, v: &Vertex) -> Vertex {
        self.unpack(&self.pack(v))
    }

    /// Unpacks every vertex of a packed buffer (a trailing partial vertex is ignored).
    pub fn unpack_all<'a>(
        &'a self,
        bytes: &'a [u8],
    ) -> impl ExactSizeIterator<Item = Vertex> + Clone + 'a {
        bytes.chunks_exact(PACKED_STRIDE).map(|chunk| {
            let mut vertex = [0; PACKED_STRIDE];
            vertex.copy_from_slice(chunk);
            self.unpack(&vertex)
        })
    }
}

impl QuantizationError {
    /// How far `packed` strays from `exact`, vertex by vertex.
    pub fn between(exact: &[Vertex], packed: &[Vertex]) -> Self {
        let mut error = QuantizationError::default();
        for (a, b) in exact.iter().zip(packed) {
            let d = (0..3)
                .map(|i| (a.position[i] - b.position[i]).powi(2))
                .sum::<f32>();
            error.position = error.position.max(d.sqrt());
            error.normal_deg = error.normal_deg.max(angle_deg(a.normal, b.normal));
            for i in 0..2 {
                error.uv = error.uv.max((a.uv[i] - b.uv[i]).abs());
            }
        }
        error
    }
}

/// The smallest value and the extent of each component, over finite values.
fn span<const N: usize>(values: impl Iterator<Item = [f32; N]>) -> ([f32; N], [f32; N]) {
    let mut min = [f32::INFINITY; N];
    let mut max = [f32::NEG_INFINITY; N];
    for value in values {
        for i in 0..N {
            if value[i].is_finite() {
                min[i] = min[i].min(value[i]);
                max[i] = max[i].max(value[i]);
            }
        }
    }
    let offset = min.map(|m| if m.is_finite() { m } else { 0.0 });
    // A span past the largest float (values of opposite signs near it) is cut to it:
    // such values pack to the range's end rather than to nothing.
    let scale = std::array::from_fn(|i| {
        if min[i] <= max[i] {
            (max[i] - min[i]).min(f32::MAX)
        } else {
            0.0
        }
    });
    (offset, scale)
}

fn to_unorm16(value: f32, offset: f32, scale: f32) -> u16 {
    if scale > 0.0 && value.is_finite() {
        ((value - offset) / scale)
            .clamp(0.0, 1.0)
            .mul_add(UNORM16_MAX, 0.5) as u16
    } else {
        0
    }
}

fn to_snorm8(value: f32) -> u8 {
    let q = if value.is_finite() {
        (value.clamp(-1.0, 1.0) * SNORM8_MAX).round()
    } else {
        0.0
    };
    q as i8 as u8
}

/// The angle between two directions, either of any length; zero when either is zero.
fn angle_deg(a: [f32; 3], b: [f32; 3]) -> f32 {
    let dot = a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
    let lengths =
        (a.iter().map(|v| v * v).sum::<f32>() * b.iter().map(|v| v * v).sum::<f32>()).sqrt();
    if lengths > 0.0 {
        (dot / lengths).clamp(-1.0, 1.0).acos().to_degrees()
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vertex(i: usize) -> Vertex {
        let t = i as f32;
        let n = [t.sin(), 0.5, t.cos()];
        let l = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt();
        Vertex {
            position: [t * 0.37 - 4.0, (t * 1.3).sin() * 7.0, 2.5 + t * 0.01],
            normal: n.map(|c| c / l),
            uv: [t * 0.1, 1.0 - t * 0.03],
            tangent: [
                n[2] / l,
                0.0,
                -n[0] / l,
                if i.is_multiple_of(2) { 1.0 } else { -1.0 },
            ],
            color: [i as u8, 20, 30, 255],
        }
    }

    #[test]
    fn packing_stays_within_half_a_step_and_keeps_the_ends() {
        let vertices: Vec<Vertex> = (0..40).map(vertex).collect();
        let q = VertexQuantization::fit(&vertices);
        assert!(q.is_valid());
        let packed: Vec<Vertex> = vertices.iter().map(|v| q.snap(v)).collect();
        let error = QuantizationError::between(&vertices, &packed);
        let half_steps: f32 = q
            .position_scale
            .iter()
            .map(|s| (s / 2.0 / UNORM16_MAX).powi(2))
            .sum();
        assert!(error.position <= half_steps.sqrt() * 1.01, "{error:?}");
        assert!(error.normal_deg < 0.5, "{error:?}");
        assert!(error.uv <= q.uv_scale[0].max(q.uv_scale[1]) / 2.0 / UNORM16_MAX * 1.01);
        for (a, b) in vertices.iter().zip(&packed) {
            assert_eq!(a.color, b.color);
            assert_eq!(a.tangent[3], b.tangent[3]);
        }
        // The range's start comes back exactly.
        let lowest = packed
            .iter()
            .map(|v| v.position[0])
            .fold(f32::INFINITY, f32::min);
        assert_eq!(lowest, q.position_offset[0]);
    }

    #[test]
    fn packing_a_packed_vertex_gives_the_same_bytes() {
        let vertices: Vec<Vertex> = (0..40).map(vertex).collect();
        let q = VertexQuantization::fit(&vertices);
        for v in &vertices {
            let bytes = q.pack(v);
            assert_eq!(q.pack(&q.unpack(&bytes)), bytes);
        }
    }

    #[test]
    fn flat_ranges_and_non_finite_values_pack_to_the_start() {
        let mut flat = vertex(3);
        flat.position[1] = f32::NAN;
        let q = VertexQuantization::fit(&[flat]);
        assert_eq!(q.position_scale, [0.0; 3]);
        let back = q.snap(&flat);
        assert_eq!(back.position[0], flat.position[0]);
        assert_eq!(back.position[1], 0.0);
        assert!(q.is_valid());
        let broken = VertexQuantization {
            uv_scale: [-1.0, 0.0],
            ..q
        };
        assert!(!broken.is_valid());
        let past_the_largest_float = VertexQuantization {
            position_offset: [f32::MAX; 3],
            position_scale: [f32::MAX; 3],
            ..q
        };
        assert!(!past_the_largest_float.is_valid());
        let mut huge = [vertex(1), vertex(2)];
        huge[0].position[0] = -3e38;
        huge[1].position[0] = 3e38;
        let q = VertexQuantization::fit(&huge);
        assert!(q.is_valid(), "{q:?}");
        assert_eq!(q.snap(&huge[0]).position[0], -3e38);
    }

    #[test]
    fn the_layout_is_the_documented_one() {
        let v = Vertex {
            position: [0.0, 1.0, 0.5],
            normal: [0.0, -1.0, 0.0],
            uv: [1.0, 0.0],
            tangent: [1.0, 0.0, 0.0, -1.0],
            color: [1, 2, 3, 4],
        };
        let q = VertexQuantization {
            position_scale: [1.0; 3],
            uv_scale: [1.0; 2],
            ..VertexQuantization::default()
        };
        let bytes = q.pack(&v);
        assert_eq!(&bytes[0..8], &[0, 0, 0xff, 0xff, 0x00, 0x80, 0, 0]);
        assert_eq!(&bytes[8..12], &[0, 0x81, 0, 0]);
        assert_eq!(&bytes[12..16], &[0x7f, 0, 0, 0x81]);
        assert_eq!(&bytes[16..20], &[0xff, 0xff, 0, 0]);
        assert_eq!(&bytes[20..], &[1, 2, 3, 4]);
    }
}

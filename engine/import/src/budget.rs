//! How much one import may decode, in proportion to the bytes it was handed, so that a
//! small file cannot make the importer allocate much. Accessor values (dense and
//! sparse, every component) and decoded image bytes are charged against allowances set
//! from the input's size, before anything is allocated.

use crate::error::ImportError;

/// Accessor values (components: a VEC3 element is three) one import may decode per
/// byte of input. A dense value takes at least one byte of buffer, so only sparse
/// accessors without data and meshes instanced many times come near it.
pub const VALUES_PER_INPUT_BYTE: u64 = 8;
/// Accessor values any import may decode, whatever its size (about 1 MB decoded).
pub const MIN_VALUES: u64 = 1 << 16;
/// Accessor values no import may exceed.
pub const MAX_VALUES: u64 = 1 << 26;
/// Decoded RGBA bytes one import may produce per byte of input: deflate expands at
/// most about 1,032 to 1, and real textures compress far less.
pub const PIXEL_BYTES_PER_INPUT_BYTE: u64 = 1024;
/// Decoded RGBA bytes any import may produce, whatever its size (one 1024² texture).
pub const MIN_PIXEL_BYTES: u64 = 4 << 20;
/// Bytes meshoptimizer-compressed buffer views may decode to per byte of input: real
/// streams expand 2 to 8 times, a constant stream about 60 times.
pub const DECOMPRESSED_BYTES_PER_INPUT_BYTE: u64 = 64;
/// Decompressed bytes any import may produce, whatever its size.
pub const MIN_DECOMPRESSED_BYTES: u64 = 1 << 20;
/// Decompressed bytes no import may exceed (what the accessor ceiling can read).
pub const MAX_DECOMPRESSED_BYTES: u64 = MAX_VALUES * 4;

/// What is left of one kind of allowance.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Allowance {
    what: &'static str,
    per_input_byte: u64,
    floor: u64,
    ceiling: u64,
    input_bytes: u64,
    used: u64,
}

impl Allowance {
    /// Accessor values for `input_bytes` of file and buffers.
    pub fn values(input_bytes: u64) -> Self {
        Self::new(
            "accessor values",
            VALUES_PER_INPUT_BYTE,
            MIN_VALUES,
            MAX_VALUES,
            input_bytes,
        )
    }

    /// Decoded image bytes for `input_bytes` of file and buffers.
    pub fn pixel_bytes(input_bytes: u64) -> Self {
        Self::new(
            "decoded image bytes",
            PIXEL_BYTES_PER_INPUT_BYTE,
            MIN_PIXEL_BYTES,
            u64::MAX,
            input_bytes,
        )
    }

    /// Bytes decoded from compressed buffer views for `input_bytes` of file and buffers.
    pub fn decompressed_bytes(input_bytes: u64) -> Self {
        Self::new(
            "decompressed buffer bytes",
            DECOMPRESSED_BYTES_PER_INPUT_BYTE,
            MIN_DECOMPRESSED_BYTES,
            MAX_DECOMPRESSED_BYTES,
            input_bytes,
        )
    }

    fn new(
        what: &'static str,
        per_input_byte: u64,
        floor: u64,
        ceiling: u64,
        input_bytes: u64,
    ) -> Self {
        Allowance {
            what,
            per_input_byte,
            floor,
            ceiling,
            input_bytes,
            used: 0,
        }
    }

    /// More input arrived (an external image file).
    pub fn add_input(&mut self, bytes: u64) {
        self.input_bytes = self.input_bytes.saturating_add(bytes);
    }

    pub fn limit(&self) -> u64 {
        self.input_bytes
            .saturating_mul(self.per_input_byte)
            .clamp(self.floor, self.ceiling)
    }

    /// Takes `amount` for the element at `path`, or says why it is refused.
    pub fn charge(&mut self, amount: u64, path: &str) -> Result<(), ImportError> {
        let used = self.used.saturating_add(amount);
        if used > self.limit() {
            return Err(ImportError::OverBudget {
                path: path.to_owned(),
                what: self.what,
                needed: used,
                allowed: self.limit(),
                input_bytes: self.input_bytes,
            });
        }
        self.used = used;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allowances_grow_with_the_input_between_a_floor_and_a_ceiling() {
        assert_eq!(Allowance::values(10).limit(), MIN_VALUES);
        assert_eq!(Allowance::values(1 << 20).limit(), 8 << 20);
        assert_eq!(Allowance::values(u64::MAX).limit(), MAX_VALUES);
        let mut pixels = Allowance::pixel_bytes(1000);
        assert_eq!(pixels.limit(), MIN_PIXEL_BYTES);
        pixels.add_input(1 << 20);
        assert!(pixels.limit() > 1 << 30);
    }

    #[test]
    fn charges_add_up_until_refused() {
        let mut values = Allowance::values(0);
        values.charge(MIN_VALUES - 1, "a").unwrap();
        values.charge(1, "b").unwrap();
        let err = values.charge(1, "accessors[3]").unwrap_err();
        assert_eq!(
            err.to_string(),
            "accessors[3]: needs 65537 accessor values, more than a file of 0 bytes may decode (65536)"
        );
    }
}

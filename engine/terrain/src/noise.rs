//! Deterministic value noise for the default world. Integer hashing plus IEEE `+ − × ÷`
//! only (no transcendental functions), so the world is bit-identical on every platform.

/// A lattice value in `[0, 1)` for integer coordinates and a seed.
fn lattice(ix: i32, iz: i32, seed: u32) -> f32 {
    let mut h = (ix as u32).wrapping_mul(0x8DA6_B343)
        ^ (iz as u32).wrapping_mul(0xD816_3841)
        ^ seed.wrapping_mul(0xCB1A_B31F);
    h ^= h >> 13;
    h = h.wrapping_mul(0x5BD1_E995);
    h ^= h >> 15;
    (h >> 8) as f32 / (1u32 << 24) as f32
}

fn smoothstep01(t: f32) -> f32 {
    t * t * (3.0 - 2.0 * t)
}

/// Smooth value noise in `[0, 1)` with features `wavelength` metres apart.
pub fn value(x: f32, z: f32, wavelength: f32, seed: u32) -> f32 {
    let (fx, fz) = (x / wavelength, z / wavelength);
    let (ix, iz) = (fx.floor(), fz.floor());
    let (u, v) = (smoothstep01(fx - ix), smoothstep01(fz - iz));
    let (ix, iz) = (ix as i32, iz as i32);
    let a = lattice(ix, iz, seed);
    let b = lattice(ix + 1, iz, seed);
    let c = lattice(ix, iz + 1, seed);
    let d = lattice(ix + 1, iz + 1, seed);
    let near = a + (b - a) * u;
    let far = c + (d - c) * u;
    near + (far - near) * v
}

/// Fractal sum of `octaves` layers of value noise, normalised to `[0, 1)`.
pub fn fbm(x: f32, z: f32, wavelength: f32, octaves: u32, seed: u32) -> f32 {
    let (mut sum, mut norm, mut amplitude, mut wl) = (0.0, 0.0, 1.0, wavelength);
    for octave in 0..octaves {
        sum += amplitude * value(x, z, wl, seed.wrapping_add(octave * 7919));
        norm += amplitude;
        amplitude *= 0.5;
        wl *= 0.5;
    }
    sum / norm
}

/// Ridged fractal noise in `[0, 1]`: sharp crests where plain noise crosses its middle.
pub fn ridged(x: f32, z: f32, wavelength: f32, octaves: u32, seed: u32) -> f32 {
    let (mut sum, mut norm, mut amplitude, mut wl) = (0.0, 0.0, 1.0, wavelength);
    for octave in 0..octaves {
        let n = value(x, z, wl, seed.wrapping_add(octave * 104_729));
        let ridge = 1.0 - (2.0 * n - 1.0).abs();
        sum += amplitude * ridge * ridge;
        norm += amplitude;
        amplitude *= 0.5;
        wl *= 0.5;
    }
    sum / norm
}

/// Hermite step from 0 at `edge0` to 1 at `edge1`.
pub fn smoothstep(edge0: f32, edge1: f32, x: f32) -> f32 {
    smoothstep01(((x - edge0) / (edge1 - edge0)).clamp(0.0, 1.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn value_noise_stays_in_unit_range_and_is_continuous() {
        let mut previous = value(0.0, 3.0, 10.0, 1);
        for i in 1..2000 {
            let x = i as f32 * 0.05;
            let n = value(x, 3.0, 10.0, 1);
            assert!((0.0..1.0).contains(&n));
            assert!((n - previous).abs() < 0.02, "jump at x = {x}");
            previous = n;
        }
    }

    #[test]
    fn seeds_give_different_fields() {
        assert_ne!(value(1.5, 2.5, 4.0, 1), value(1.5, 2.5, 4.0, 2));
    }
}

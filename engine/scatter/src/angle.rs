//! Sine and cosine from `+ − ×` and `floor` only. Platform `sin`/`cos` come from the C
//! library and may differ in the last bit between machines; placements must not.

/// `floor` by truncation: exact for |x| < 2³¹, and inlined, where `f32::floor` is a
/// library call on x86-64 without SSE 4.1.
pub fn floor(x: f32) -> f32 {
    let truncated = x as i32 as f32;
    if truncated > x {
        truncated - 1.0
    } else {
        truncated
    }
}

/// `(sin, cos)` of `turns` full turns (`turns × 2π` radians), for |turns| < 2³¹.
pub fn sin_cos_turns(turns: f32) -> (f32, f32) {
    let t = turns - floor(turns);
    // Nearest quarter turn and the remainder within ±1/8 turn (±π/4).
    let quarter = floor(t * 4.0 + 0.5);
    let x = (t - quarter * 0.25) * std::f32::consts::TAU;
    let x2 = x * x;
    // Taylor series to x⁹ / x⁸: below 3e-9 absolute error on ±π/4.
    let sin =
        x * (1.0 + x2 * (-1.0 / 6.0 + x2 * (1.0 / 120.0 + x2 * (-1.0 / 5040.0 + x2 / 362_880.0))));
    let cos = 1.0 + x2 * (-0.5 + x2 * (1.0 / 24.0 + x2 * (-1.0 / 720.0 + x2 / 40_320.0)));
    match quarter as i32 & 3 {
        0 => (sin, cos),
        1 => (cos, -sin),
        2 => (-sin, -cos),
        _ => (-cos, sin),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agrees_with_the_platform_functions() {
        for i in -2000..=2000 {
            let turns = i as f32 / 997.0;
            let (s, c) = sin_cos_turns(turns);
            let radians = turns as f64 * std::f64::consts::TAU;
            assert!((s as f64 - radians.sin()).abs() < 2e-6, "sin at {turns}");
            assert!((c as f64 - radians.cos()).abs() < 2e-6, "cos at {turns}");
        }
    }

    #[test]
    fn floor_matches_the_library() {
        for x in [
            -2.5f32,
            -2.0,
            -0.1,
            -0.0,
            0.0,
            0.3,
            1.0,
            7.99,
            1e6 + 0.5,
            -123456.7,
        ] {
            assert_eq!(floor(x), x.floor(), "{x}");
        }
    }

    #[test]
    fn exact_at_quarter_turns() {
        assert_eq!(sin_cos_turns(0.0), (0.0, 1.0));
        assert_eq!(sin_cos_turns(0.25), (1.0, -0.0));
        assert_eq!(sin_cos_turns(0.5), (-0.0, -1.0));
    }
}

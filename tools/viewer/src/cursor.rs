//! The brush cursor: where the pointer's ray meets the terrain (the analytic cast,
//! timed), and the ring of markers drawn around it on the ground, each tinted by
//! whether the active preset would fire at that spot — some pick's altitude and slope
//! predicates pass — so a painter sees where a stroke will take before painting.

use std::time::Instant;

use glam::{Mat4, Quat, Vec2, Vec3};
use sylva_scatter::Preset;
use sylva_terrain::{raycast, Ray, Terrain};

/// Markers around the ring.
pub const RING_MARKERS: usize = 40;
/// Height of the markers' lower tips above the ground, in metres.
const MARKER_LIFT: f32 = 0.3;
/// Longest ray cast, in metres.
const MAX_RAY: f32 = 3000.0;

/// The tint of one marker.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Tint {
    /// The preset would place something here.
    Fires,
    /// No pick of the preset accepts this spot (or there is no preset).
    Idle,
    /// The brush erases.
    Erase,
    /// The path of a lasso being drawn.
    Lasso,
}

impl Tint {
    pub const ALL: [Tint; 4] = [Tint::Fires, Tint::Idle, Tint::Erase, Tint::Lasso];

    /// Linear base colour of the markers.
    pub fn color(self) -> [f32; 4] {
        match self {
            Tint::Fires => [0.1, 0.9, 0.15, 1.0],
            Tint::Idle => [0.95, 0.08, 0.05, 1.0],
            Tint::Erase => [1.0, 0.55, 0.0, 1.0],
            Tint::Lasso => [0.1, 0.45, 1.0, 1.0],
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Tint::Fires => "fires",
            Tint::Idle => "idle",
            Tint::Erase => "erase",
            Tint::Lasso => "lasso",
        }
    }
}

/// One marker to draw.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Marker {
    pub transform: Mat4,
    pub tint: Tint,
}

/// A timed ray cast from the pointer.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Hover {
    /// Where the ray meets the ground, if it does.
    pub hit: Option<Vec3>,
    /// Wall time of the cast.
    pub micros: f64,
    /// Height samples it read.
    pub samples: u32,
}

/// Casts `ray` against the terrain and times it.
pub fn cast(terrain: &Terrain, ray: &Ray) -> Hover {
    let started = Instant::now();
    let result = raycast(terrain, ray, MAX_RAY);
    let micros = started.elapsed().as_secs_f64() * 1e6;
    Hover {
        hit: result.hit.map(|h| h.point),
        micros,
        samples: result.samples,
    }
}

/// Whether `preset` would fire at `(x, z)`: inside the terrain, above water, and some
/// pick with weight accepts the altitude and slope there.
pub fn fires_at(terrain: &Terrain, preset: &Preset, at: Vec2) -> bool {
    if !terrain.contains(at.x, at.y) {
        return false;
    }
    let altitude = terrain.sample_height(at.x, at.y) - terrain.water_level();
    if altitude < 0.0 {
        return false;
    }
    let slope = 1.0 - terrain.normal(at.x, at.y).y;
    preset.picks.iter().any(|p| {
        p.weight > 0.0
            && (p.alt_min..=p.alt_max).contains(&altitude)
            && (p.slope_min..=p.slope_max).contains(&slope)
    })
}

/// The markers of a brush of `radius` centred at `center` on the ground: a ring and
/// a centre marker, each floating just above the terrain (clear of grass), sized with
/// the brush.
pub fn markers(
    terrain: &Terrain,
    center: Vec2,
    radius: f32,
    tint_at: impl Fn(Vec2) -> Tint,
) -> Vec<Marker> {
    let size = (radius * 0.08).clamp(0.3, 4.0);
    let ring = (0..RING_MARKERS).map(|i| {
        let angle = i as f32 / RING_MARKERS as f32 * std::f32::consts::TAU;
        center + Vec2::new(angle.cos(), angle.sin()) * radius
    });
    std::iter::once(center)
        .chain(ring)
        .filter(|p| terrain.contains(p.x, p.y))
        .map(|p| {
            let scale = if p == center { size * 1.5 } else { size };
            marker_at(terrain, p, scale, tint_at(p))
        })
        .collect()
}

/// Most markers a lasso's path is drawn with.
pub const LASSO_MARKERS: usize = 400;

/// Markers along a lasso's ground path (and the gap back to its start, which closes
/// it), at most [`LASSO_MARKERS`] of them, sized by their spacing.
pub fn lasso_markers(terrain: &Terrain, path: &[Vec2]) -> Vec<Marker> {
    let (Some(&first), Some(&last)) = (path.first(), path.last()) else {
        return Vec::new();
    };
    let length: f32 =
        path.windows(2).map(|w| w[0].distance(w[1])).sum::<f32>() + last.distance(first);
    let step = (length / LASSO_MARKERS as f32).max(f32::MIN_POSITIVE);
    let size = (step * 0.6).clamp(0.3, 4.0);
    let mut markers = Vec::new();
    let mut carried = 0.0;
    for (a, b) in path.iter().zip(path.iter().skip(1).chain([&first])) {
        let span = a.distance(*b);
        let mut along = carried;
        while along < span && markers.len() < LASSO_MARKERS {
            let p = a.lerp(*b, along / span);
            if terrain.contains(p.x, p.y) {
                markers.push(marker_at(terrain, p, size, Tint::Lasso));
            }
            along += step;
        }
        carried = (along - span).max(0.0);
    }
    markers
}

/// A marker of `scale` metres floating just above the ground at `p`.
fn marker_at(terrain: &Terrain, p: Vec2, scale: f32, tint: Tint) -> Marker {
    let ground = Vec3::new(p.x, terrain.sample_height(p.x, p.y), p.y);
    Marker {
        transform: Mat4::from_scale_rotation_translation(
            Vec3::splat(scale),
            Quat::IDENTITY,
            ground + Vec3::Y * (MARKER_LIFT + scale * 0.5),
        ),
        tint,
    }
}

#[cfg(test)]
mod tests {
    use sylva_terrain::{default_world, Landmark};

    use super::*;

    fn preset(text: &str) -> Preset {
        Preset::parse(text, "p.ron").unwrap()
    }

    fn flat_only() -> Preset {
        preset(
            r#"(name: "F", brush: (radius: 5.0, density_per_m2: 0.5),
                picks: [(category: "tree", weight: 1.0, slope_max: 0.05, alt_min: 1.0)])"#,
        )
    }

    #[test]
    fn a_flat_meadow_fires_and_the_cliff_and_sea_do_not() {
        let terrain = default_world();
        let p = flat_only();
        assert!(fires_at(&terrain, &p, Landmark::Meadow.position()));
        assert!(!fires_at(&terrain, &p, Landmark::Cliff.position()));
        assert!(!fires_at(&terrain, &p, Vec2::new(0.0, -250.0)), "the sea");
        assert!(!fires_at(&terrain, &p, Vec2::new(1e5, 0.0)), "off the map");
    }

    #[test]
    fn a_pick_without_weight_never_fires() {
        let terrain = default_world();
        let p = preset(
            r#"(name: "Z", brush: (radius: 5.0, density_per_m2: 0.5), picks: [
                (category: "tree", weight: 0.0), (category: "rock", weight: 1.0, slope_min: 0.9)])"#,
        );
        assert!(!fires_at(&terrain, &p, Landmark::Meadow.position()));
    }

    #[test]
    fn markers_ring_the_brush_on_the_ground() {
        let terrain = default_world();
        let center = Landmark::Meadow.position();
        let ms = markers(&terrain, center, 10.0, |_| Tint::Fires);
        assert_eq!(ms.len(), RING_MARKERS + 1);
        for m in &ms[1..] {
            let p = m.transform.w_axis.truncate();
            let d = Vec2::new(p.x, p.z).distance(center);
            assert!((d - 10.0).abs() < 1e-3, "{d}");
            assert!(p.y > terrain.sample_height(p.x, p.z), "sits on the ground");
        }
    }

    #[test]
    fn each_marker_is_tinted_where_it_stands() {
        let terrain = default_world();
        let center = Landmark::Meadow.position();
        let ms = markers(&terrain, center, 10.0, |p| {
            if p.x > center.x {
                Tint::Fires
            } else {
                Tint::Idle
            }
        });
        assert!(ms.iter().any(|m| m.tint == Tint::Fires));
        assert!(ms.iter().any(|m| m.tint == Tint::Idle));
    }

    #[test]
    fn a_ray_from_above_hits_the_ground_below_and_is_timed() {
        let terrain = default_world();
        let at = Landmark::Meadow.position();
        let ray = Ray {
            origin: Vec3::new(at.x, 200.0, at.y),
            direction: Vec3::NEG_Y,
        };
        let hover = cast(&terrain, &ray);
        let hit = hover.hit.unwrap();
        assert!((hit.y - terrain.sample_height(at.x, at.y)).abs() < 0.01);
        assert!(hover.samples > 0 && hover.micros >= 0.0);
        let up = Ray {
            direction: Vec3::Y,
            ..ray
        };
        assert_eq!(cast(&terrain, &up).hit, None);
    }
}

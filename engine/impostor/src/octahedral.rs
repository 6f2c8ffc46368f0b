//! The hemi-octahedral map: directions on the upper hemisphere ↔ points of the square
//! `[-1, 1]²`, and the views of an impostor's grid.
//!
//! A direction `(x, y, z)` with `y ≥ 0` is scaled to `|x| + |y| + |z| = 1` (the
//! octahedron), and its upper half is rotated 45° onto the square: `u = x + z`,
//! `v = x − z`. The square's centre is the zenith and its whole border the horizon, so
//! every texel of the atlas is a direction in use (a full octahedral map spends half
//! of it on views from below, which props on the ground never show).
//!
//! Only IEEE `+ − × ÷ sqrt` and `abs`, so the views are the same on every machine.

/// The point of `[-1, 1]²` of a direction with `y ≥ 0` (a negative `y` is taken as 0,
/// the horizon). The zero vector maps to the centre.
pub fn encode(direction: [f32; 3]) -> [f32; 2] {
    let [x, y, z] = direction;
    let sum = x.abs() + y.max(0.0) + z.abs();
    if sum == 0.0 {
        return [0.0, 0.0];
    }
    let (x, z) = (x / sum, z / sum);
    [x + z, x - z]
}

/// The unit direction of a point of `[-1, 1]²` (clamped into it).
pub fn decode([u, v]: [f32; 2]) -> [f32; 3] {
    let (u, v) = (u.clamp(-1.0, 1.0), v.clamp(-1.0, 1.0));
    let x = (u + v) * 0.5;
    let z = (u - v) * 0.5;
    // `|x| + |z|` is `max(|u|, |v|)`, which rounds to nothing: the border is exactly
    // the horizon and nothing is below it.
    let y = 1.0 - u.abs().max(v.abs());
    normalized([x, y, z])
}

/// `v / |v|`; the zero vector stays zero.
pub fn normalized([x, y, z]: [f32; 3]) -> [f32; 3] {
    let length = (x * x + y * y + z * z).sqrt();
    if length == 0.0 {
        return [0.0; 3];
    }
    [x / length, y / length, z / length]
}

pub fn dot(a: [f32; 3], b: [f32; 3]) -> f32 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// `a × b`, the usual formula (in sylva's left-handed frame `x × y` is still `z`).
pub fn cross(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

/// The centre of cell `(column, row)` of a `grid × grid` map in `[-1, 1]²`: columns run
/// along `u`, rows along `v`.
pub fn cell_centre(column: u32, row: u32, grid: u32) -> [f32; 2] {
    let at = |i: u32| (i as f32 + 0.5) / grid as f32 * 2.0 - 1.0;
    [at(column), at(row)]
}

/// The cell of a `grid × grid` map whose area holds `direction`'s point (the view
/// nearest it along the map).
pub fn cell_of(direction: [f32; 3], grid: u32) -> (u32, u32) {
    let [u, v] = encode(direction);
    let at = |t: f32| (((t + 1.0) * 0.5 * grid as f32) as u32).min(grid - 1);
    (at(u), at(v))
}

/// How one cell sees the prop: an orthographic camera on the cell's direction looking
/// back at the centre, in sylva's left-handed frame (`right × up = forward`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ViewBasis {
    /// Unit vector from the prop's centre towards the camera.
    pub toward_camera: [f32; 3],
    /// The picture's `+x` (columns, left to right): horizontal.
    pub right: [f32; 3],
    /// The picture's up (rows run top to bottom along `−up`): world up projected onto
    /// the picture plane.
    pub up: [f32; 3],
}

impl ViewBasis {
    /// The basis of a view direction that is not the zenith: `right` is the horizontal
    /// part of `d` turned a quarter (`(−d.z, 0, d.x)/h`), `up = −d × right`, written
    /// out: `(−d.x·d.y/h, h, −d.y·d.z/h)`, with `h = √(d.x² + d.z²)`. An even grid has
    /// no cell centre at the zenith; at the zenith itself `right` is `+x` and `up` `+z`.
    pub fn looking_from(d: [f32; 3]) -> Self {
        let h = (d[0] * d[0] + d[2] * d[2]).sqrt();
        if h == 0.0 {
            return ViewBasis {
                toward_camera: d,
                right: [1.0, 0.0, 0.0],
                up: [0.0, 0.0, 1.0],
            };
        }
        ViewBasis {
            toward_camera: d,
            right: [-d[2] / h, 0.0, d[0] / h],
            up: [-d[0] * d[1] / h, h, -d[1] * d[2] / h],
        }
    }
}

impl ViewBasis {
    /// The view of cell `(column, row)` of a `grid × grid` map.
    pub fn of_cell(column: u32, row: u32, grid: u32) -> Self {
        ViewBasis::looking_from(decode(cell_centre(column, row, grid)))
    }

    /// Prop-space `n` in the view's frame: its `right`, `toward_camera` and `up`
    /// components, so a normal facing the view has a positive second one and
    /// [`encode`] takes it onto the square.
    pub fn to_view(&self, n: [f32; 3]) -> [f32; 3] {
        [
            dot(n, self.right),
            dot(n, self.toward_camera),
            dot(n, self.up),
        ]
    }

    /// The inverse of [`ViewBasis::to_view`].
    pub fn from_view(&self, [r, t, u]: [f32; 3]) -> [f32; 3] {
        std::array::from_fn(|i| r * self.right[i] + t * self.toward_camera[i] + u * self.up[i])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: [f32; 3], b: [f32; 3], tolerance: f32) -> bool {
        (0..3).all(|i| (a[i] - b[i]).abs() <= tolerance)
    }

    #[test]
    fn every_point_of_the_square_round_trips_through_its_direction() {
        for i in 0..=40 {
            for j in 0..=40 {
                let point = [i as f32 / 20.0 - 1.0, j as f32 / 20.0 - 1.0];
                let direction = decode(point);
                assert!(direction[1] >= 0.0, "{point:?} is above the horizon");
                assert!((dot(direction, direction) - 1.0).abs() < 1e-6);
                let back = encode(direction);
                assert!(
                    (back[0] - point[0]).abs() < 1e-6 && (back[1] - point[1]).abs() < 1e-6,
                    "{point:?} → {direction:?} → {back:?}"
                );
            }
        }
    }

    #[test]
    fn every_upper_direction_round_trips_through_its_point() {
        for i in 0..=36 {
            for j in 0..=9 {
                let azimuth = i as f32 * 10f32.to_radians();
                let elevation = j as f32 * 10f32.to_radians();
                let d = [
                    elevation.cos() * azimuth.cos(),
                    elevation.sin(),
                    elevation.cos() * azimuth.sin(),
                ];
                let point = encode(d);
                assert!(point[0].abs() <= 1.0 + 1e-6 && point[1].abs() <= 1.0 + 1e-6);
                assert!(close(decode(point), d, 1e-5), "{d:?} → {point:?}");
            }
        }
    }

    #[test]
    fn every_cells_direction_lies_in_that_cell() {
        for column in 0..12 {
            for row in 0..12 {
                let d = decode(cell_centre(column, row, 12));
                assert_eq!(cell_of(d, 12), (column, row));
            }
        }
        // The cardinal directions are the corners: south (−z) is column 0, row 11.
        assert_eq!(cell_of([0.0, 0.0, -1.0], 12), (0, 11));
        assert_eq!(cell_of([1.0, 0.0, 0.0], 12), (11, 11));
        assert_eq!(cell_of([0.0, 1.0, 0.0], 12), (6, 6));
    }

    #[test]
    fn the_centre_is_the_zenith_and_the_border_the_horizon() {
        assert_eq!(decode([0.0, 0.0]), [0.0, 1.0, 0.0]);
        for t in [-1.0, -0.3, 0.0, 0.6, 1.0] {
            for point in [[1.0, t], [-1.0, t], [t, 1.0], [t, -1.0]] {
                assert_eq!(decode(point)[1], 0.0, "{point:?}");
            }
        }
    }

    #[test]
    fn view_bases_are_orthonormal_and_left_handed() {
        for i in 0..12 {
            for j in 0..12 {
                let basis = ViewBasis::looking_from(decode(cell_centre(i, j, 12)));
                let (r, u, d) = (basis.right, basis.up, basis.toward_camera);
                for v in [r, u, d] {
                    assert!((dot(v, v) - 1.0).abs() < 1e-5);
                }
                assert!(dot(r, u).abs() < 1e-5 && dot(r, d).abs() < 1e-5);
                assert!(dot(u, d).abs() < 1e-5);
                assert_eq!(r[1], 0.0, "right is horizontal");
                assert!(u[1] > 0.0, "up points up");
                // Left-handed: right × up is the forward direction, −d.
                let forward = cross(r, u);
                assert!(
                    close(forward, [-d[0], -d[1], -d[2]], 1e-5),
                    "{forward:?} {d:?}"
                );
            }
        }
        // From the south, looking north: right is east, up is up.
        let south = ViewBasis::looking_from([0.0, 0.0, -1.0]);
        assert_eq!(south.right, [1.0, 0.0, 0.0]);
        assert_eq!(south.up, [0.0, 1.0, 0.0]);
    }
}

//! Grass tufts: one of modelled blades, one of alpha-tested texture cards.

use crate::math::{around_y, cos_sin, Rng, V3};
use crate::mesh::Builder;
use crate::scene::{Material, Part};
use crate::shapes::ribbon::{add_blade, Blade};

#[derive(Clone, Copy, Debug)]
pub struct Tuft {
    pub seed: u32,
    /// Blades, or cards.
    pub count: usize,
    /// Tallest blade, in metres.
    pub height: f32,
    /// Radius of the patch the blades grow from.
    pub spread: f32,
}

/// A tuft of modelled blades leaning outward from the centre.
pub fn blade_tuft(p: &Tuft) -> Part {
    let mut rng = Rng::new(p.seed);
    let mut b = Builder::new();
    for i in 0..p.count {
        let toward = around_y(i as f32 * 0.618 + rng.range(-0.05, 0.05));
        let from_centre = p.spread * rng.next_f32();
        let blade = Blade {
            base: toward * from_centre + V3::Y * -0.02,
            toward,
            height: p.height * rng.range(0.55, 1.0),
            lean: rng.range(0.15, 0.5),
            droop: rng.range(0.0, 0.25),
            width: rng.range(0.005, 0.009),
            levels: 7,
        };
        let tip = if rng.next_f32() < 0.2 {
            [0.95, 0.9, 0.55]
        } else {
            [0.85, 1.0, 0.6]
        };
        add_blade(&mut b, &blade, [0.55, 0.7, 0.45], tip, 0);
    }
    let mut mesh = b.build();
    mesh.bend_normals(V3::Y, 0.5);
    Part::new(
        "blades",
        mesh,
        Material::opaque("grass", [0.36, 0.55, 0.2], 0.9).double_sided(),
    )
}

/// A tuft of `count` upright textured quads (slightly bent outward) in a star
/// around the centre; texture 0 holds the grass blades drawn on a transparent
/// background.
pub fn card_tuft(p: &Tuft) -> Part {
    const COLUMNS: usize = 3;
    const ROWS: usize = 4;
    let mut rng = Rng::new(p.seed);
    let mut b = Builder::new();
    for i in 0..p.count {
        let facing = around_y(i as f32 / p.count as f32 * 0.5 + rng.range(0.0, 0.1));
        let side = V3::Y.cross(facing);
        let centre = facing * rng.range(-p.spread, p.spread) * 0.5;
        let height = p.height * rng.range(0.75, 1.0);
        let half = height * 0.3;
        let (c, s) = cos_sin(rng.range(0.0, 0.03));
        let lean = facing * s + V3::Y * c;
        let grid: Vec<Vec<u32>> = (0..=ROWS)
            .map(|row| {
                let t = row as f32 / ROWS as f32;
                let k = 0.75 + 0.25 * t;
                (0..=COLUMNS)
                    .map(|column| {
                        let x = column as f32 / COLUMNS as f32 * 2.0 - 1.0;
                        let p = centre
                            + side * (x * half)
                            + lean * (height * t)
                            + facing * (0.08 * height * t * t)
                            - V3::Y * 0.01;
                        b.point(p, [k, k, k])
                    })
                    .collect()
            })
            .collect();
        let uv = |row: usize, column: usize| {
            [
                column as f32 / COLUMNS as f32,
                1.0 - row as f32 / ROWS as f32,
            ]
        };
        for row in 0..ROWS {
            for column in 0..COLUMNS {
                b.quad(
                    [
                        grid[row][column],
                        grid[row][column + 1],
                        grid[row + 1][column + 1],
                        grid[row + 1][column],
                    ],
                    [
                        uv(row, column),
                        uv(row, column + 1),
                        uv(row + 1, column + 1),
                        uv(row + 1, column),
                    ],
                    0,
                );
            }
        }
    }
    let mut mesh = b.build();
    mesh.bend_normals(V3::Y, 0.6);
    Part::new(
        "cards",
        mesh,
        Material::opaque("grass_card", [1.0, 1.0, 1.0], 0.9)
            .double_sided()
            .alpha_masked(0, 0.5),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const TUFT: Tuft = Tuft {
        seed: 1,
        count: 30,
        height: 0.5,
        spread: 0.1,
    };

    #[test]
    fn blade_tufts_stand_up_to_their_height() {
        let part = blade_tuft(&TUFT);
        assert_eq!(part.mesh.triangle_count(), 30 * 11);
        let (lo, hi) = part.mesh.bounds();
        assert!(hi[1] <= 0.5 && hi[1] > 0.3);
        assert!(lo[1] >= -0.03);
        assert!(part.material.double_sided);
    }

    #[test]
    fn card_tufts_map_the_whole_texture_onto_each_card() {
        let part = card_tuft(&Tuft { count: 6, ..TUFT });
        assert_eq!(part.mesh.triangle_count(), 6 * 3 * 4 * 2);
        let us: Vec<f32> = part.mesh.uvs.iter().map(|uv| uv[0]).collect();
        let vs: Vec<f32> = part.mesh.uvs.iter().map(|uv| uv[1]).collect();
        assert_eq!(us.iter().cloned().fold(f32::MAX, f32::min), 0.0);
        assert_eq!(us.iter().cloned().fold(f32::MIN, f32::max), 1.0);
        assert_eq!(vs.iter().cloned().fold(f32::MIN, f32::max), 1.0);
        assert_eq!(part.material.alpha_cutoff, Some(0.5));
    }
}

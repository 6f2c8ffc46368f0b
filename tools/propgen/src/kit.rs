//! The kit: every prop the generator writes, with its parameters, file layout and
//! node transform. Prop id = `<category>/<stem>`; categories match `assets/catalog.ron`.

use crate::math::{quat_axis_turns, v3, V3};
use crate::scene::{Layout, Material, Prop, Transform};
use crate::shapes::bark::BarkStyle;
use crate::shapes::broadleaf::{broadleaf, Broadleaf};
use crate::shapes::conifer::{pine, spruce, Pine, Spruce};
use crate::shapes::deadwood::{driftwood, log, Driftwood, Log};
use crate::shapes::flower::{flower, Flower};
use crate::shapes::grass::{blade_tuft, card_tuft, Tuft};
use crate::shapes::reed::{cattail, Cattail};
use crate::shapes::rock::{rock, Rock};
use crate::shapes::shrub::{shrub, Shrub};
use crate::shapes::snag::{snag, Snag};
use crate::texture::grass_card_png;

/// One entry of the kit.
pub struct KitProp {
    pub category: &'static str,
    pub stem: &'static str,
    pub build: fn() -> Prop,
}

impl KitProp {
    /// `<category>/<stem>.glb`, relative to the assets folder.
    pub fn relative_path(&self) -> String {
        format!("{}/{}.glb", self.category, self.stem)
    }
}

macro_rules! kit {
    ($($category:literal / $stem:ident),* $(,)?) => {
        /// Every prop, in file order.
        pub const KIT: &[KitProp] = &[
            $(KitProp { category: $category, stem: stringify!($stem), build: $stem },)*
        ];
    };
}

kit![
    "conifer" / spruce_tall,
    "conifer" / fir_young,
    "conifer" / pine_scots,
    "broadleaf" / oak_wide,
    "broadleaf" / birch_slender,
    "snag" / pine_snag,
    "bush" / shrub_round,
    "bush" / berry_bush,
    "boulder" / granite_round,
    "boulder" / split_block,
    "rock" / slab_flat,
    "rock" / shard_jagged,
    "rock" / scree_chunk,
    "pebble" / river_round,
    "pebble" / beach_flat,
    "pebble" / flint_chip,
    "grass" / tuft_blades,
    "grass" / tuft_cards,
    "flower" / daisy_clump,
    "flower" / poppy_trio,
    "reed" / cattail_clump,
    "driftwood" / bleached_branch,
    "log" / cut_log,
];

fn scaled(s: f32) -> Transform {
    Transform {
        scale: Some([s, s, s]),
        ..Transform::default()
    }
}

fn yawed(turns: f32) -> Transform {
    Transform {
        rotation: Some(quat_axis_turns(V3::Y, turns)),
        ..Transform::default()
    }
}

fn spruce_tall() -> Prop {
    let parts = spruce(&Spruce {
        seed: 101,
        height: 12.5,
        radius: 3.0,
        crown_base: 1.6,
        whorls: 11,
        segments: 40,
        tips: 9.0,
        trunk_radius: 0.3,
        foliage_rgb: [0.07, 0.17, 0.09],
    });
    // Authored at 12.5 m, scaled to 15 m by its root node.
    Prop::assemble(
        "spruce_tall",
        Layout::SiblingNodes,
        scaled(1.2),
        parts,
        vec![],
    )
}

fn fir_young() -> Prop {
    let parts = spruce(&Spruce {
        seed: 102,
        height: 6.5,
        radius: 2.0,
        crown_base: 0.5,
        whorls: 8,
        segments: 36,
        tips: 7.0,
        trunk_radius: 0.16,
        foliage_rgb: [0.1, 0.21, 0.08],
    });
    Prop::assemble(
        "fir_young",
        Layout::OneMesh,
        Transform::default(),
        parts,
        vec![],
    )
}

fn pine_scots() -> Prop {
    let parts = pine(&Pine {
        seed: 103,
        height: 16.0,
        trunk_radius: 0.32,
        branches: 12,
        crown: 1.5,
    });
    Prop::assemble("pine_scots", Layout::OneMesh, yawed(0.1), parts, vec![])
}

fn oak_wide() -> Prop {
    let parts = broadleaf(&Broadleaf {
        seed: 201,
        leader: 8.0,
        trunk_radius: 0.45,
        bend: 0.6,
        limbs: 5,
        limb_span: (0.35, 0.75),
        limb_elevation: 0.085,
        spread: 3.6,
        clump: 2.6,
        squash: 0.78,
        bark: BarkStyle {
            color: [1.0, 1.0, 1.0],
            ridge_depth: 0.14,
            ridges: 5.0,
            banded: false,
        },
        bark_rgb: [0.3, 0.24, 0.18],
        foliage_rgb: [0.1, 0.22, 0.06],
    });
    Prop::assemble("oak_wide", Layout::OneMesh, yawed(0.3), parts, vec![])
}

fn birch_slender() -> Prop {
    let parts = broadleaf(&Broadleaf {
        seed: 202,
        leader: 12.0,
        trunk_radius: 0.18,
        bend: 0.9,
        limbs: 7,
        limb_span: (0.45, 0.85),
        limb_elevation: 0.09,
        spread: 2.0,
        clump: 1.5,
        squash: 1.1,
        bark: BarkStyle {
            color: [0.95, 0.95, 0.93],
            ridge_depth: 0.04,
            ridges: 3.0,
            banded: true,
        },
        bark_rgb: [0.8, 0.79, 0.75],
        foliage_rgb: [0.16, 0.3, 0.07],
    });
    Prop::assemble(
        "birch_slender",
        Layout::SiblingNodes,
        Transform::default(),
        parts,
        vec![],
    )
}

fn pine_snag() -> Prop {
    let parts = snag(&Snag {
        seed: 301,
        height: 9.5,
        trunk_radius: 0.34,
        stubs: 9,
        clumps: 6,
    });
    Prop::assemble("pine_snag", Layout::SiblingNodes, yawed(0.2), parts, vec![])
}

fn shrub_round() -> Prop {
    let parts = shrub(&Shrub {
        seed: 401,
        height: 1.5,
        aspect: 1.3,
        clumps: 6,
        berries: 0,
        foliage_rgb: [0.11, 0.24, 0.08],
    });
    Prop::assemble(
        "shrub_round",
        Layout::OneMesh,
        Transform::default(),
        parts,
        vec![],
    )
}

fn berry_bush() -> Prop {
    let parts = shrub(&Shrub {
        seed: 402,
        height: 1.0,
        aspect: 1.5,
        clumps: 5,
        berries: 30,
        foliage_rgb: [0.07, 0.18, 0.07],
    });
    Prop::assemble(
        "berry_bush",
        Layout::SiblingNodes,
        Transform::default(),
        parts,
        vec![],
    )
}

fn stone(name: &str, rgb: [f32; 3], rock_params: Rock, transform: Transform) -> Prop {
    let part = rock(&rock_params, name, Material::opaque("stone", rgb, 0.88));
    Prop::assemble(name, Layout::OneMesh, transform, vec![part], vec![])
}

fn granite_round() -> Prop {
    let p = Rock {
        seed: 501,
        size: v3(2.4, 1.7, 2.0),
        rings: 28,
        segments: 56,
        roughness: 0.2,
        cuts: 0,
        cut_depth: 0.0,
        moss: 0.6,
        vein: false,
    };
    stone("granite_round", [0.33, 0.32, 0.3], p, Transform::default())
}

fn split_block() -> Prop {
    let p = Rock {
        seed: 502,
        size: v3(1.9, 1.5, 1.6),
        rings: 26,
        segments: 52,
        roughness: 0.14,
        cuts: 5,
        cut_depth: 0.7,
        moss: 0.3,
        vein: false,
    };
    let t = Transform {
        rotation: Some(quat_axis_turns(V3::Y, 0.15)),
        scale: Some([1.1, 1.0, 0.95]),
        ..Transform::default()
    };
    stone("split_block", [0.3, 0.29, 0.28], p, t)
}

fn slab_flat() -> Prop {
    let p = Rock {
        seed: 601,
        size: v3(1.1, 0.4, 0.8),
        rings: 20,
        segments: 40,
        roughness: 0.16,
        cuts: 2,
        cut_depth: 0.8,
        moss: 0.4,
        vein: false,
    };
    stone("slab_flat", [0.32, 0.3, 0.27], p, Transform::default())
}

fn shard_jagged() -> Prop {
    let p = Rock {
        seed: 602,
        size: v3(0.55, 0.85, 0.5),
        rings: 22,
        segments: 44,
        roughness: 0.12,
        cuts: 7,
        cut_depth: 0.62,
        moss: 0.0,
        vein: false,
    };
    stone("shard_jagged", [0.25, 0.25, 0.25], p, yawed(0.4))
}

fn scree_chunk() -> Prop {
    let p = Rock {
        seed: 603,
        size: v3(0.5, 0.35, 0.45),
        rings: 18,
        segments: 36,
        roughness: 0.1,
        cuts: 5,
        cut_depth: 0.75,
        moss: 0.0,
        vein: false,
    };
    stone("scree_chunk", [0.34, 0.32, 0.29], p, Transform::default())
}

fn river_round() -> Prop {
    let p = Rock {
        seed: 701,
        size: v3(0.13, 0.075, 0.1),
        rings: 12,
        segments: 24,
        roughness: 0.05,
        cuts: 0,
        cut_depth: 0.0,
        moss: 0.0,
        vein: false,
    };
    stone("river_round", [0.3, 0.29, 0.27], p, Transform::default())
}

fn beach_flat() -> Prop {
    let p = Rock {
        seed: 702,
        size: v3(0.17, 0.05, 0.12),
        rings: 14,
        segments: 30,
        roughness: 0.06,
        cuts: 0,
        cut_depth: 0.0,
        moss: 0.0,
        vein: true,
    };
    stone("beach_flat", [0.55, 0.52, 0.47], p, yawed(0.05))
}

fn flint_chip() -> Prop {
    let p = Rock {
        seed: 703,
        size: v3(0.09, 0.06, 0.075),
        rings: 12,
        segments: 24,
        roughness: 0.08,
        cuts: 4,
        cut_depth: 0.7,
        moss: 0.0,
        vein: false,
    };
    stone("flint_chip", [0.2, 0.19, 0.19], p, Transform::default())
}

fn tuft_blades() -> Prop {
    let part = blade_tuft(&Tuft {
        seed: 801,
        count: 60,
        height: 0.55,
        spread: 0.12,
    });
    Prop::assemble(
        "tuft_blades",
        Layout::OneMesh,
        Transform::default(),
        vec![part],
        vec![],
    )
}

fn tuft_cards() -> Prop {
    let part = card_tuft(&Tuft {
        seed: 802,
        count: 10,
        height: 0.5,
        spread: 0.15,
    });
    let texture = grass_card_png(802);
    Prop::assemble(
        "tuft_cards",
        Layout::OneMesh,
        Transform::default(),
        vec![part],
        vec![texture],
    )
}

fn daisy_clump() -> Prop {
    let parts = flower(&Flower {
        seed: 901,
        plants: 5,
        height: 0.38,
        petals: 14,
        petal_length: 0.026,
        petal_width: 0.0045,
        cup: 0.12,
        centre_radius: 0.009,
        petal_rgb: [0.95, 0.95, 0.92],
        centre_rgb: [0.95, 0.72, 0.1],
    });
    Prop::assemble(
        "daisy_clump",
        Layout::OneMesh,
        Transform::default(),
        parts,
        vec![],
    )
}

fn poppy_trio() -> Prop {
    let parts = flower(&Flower {
        seed: 902,
        plants: 3,
        height: 0.6,
        petals: 5,
        petal_length: 0.04,
        petal_width: 0.022,
        cup: 0.45,
        centre_radius: 0.008,
        petal_rgb: [0.85, 0.1, 0.06],
        centre_rgb: [0.12, 0.14, 0.08],
    });
    Prop::assemble(
        "poppy_trio",
        Layout::SiblingNodes,
        Transform::default(),
        parts,
        vec![],
    )
}

fn cattail_clump() -> Prop {
    let parts = cattail(&Cattail {
        seed: 1001,
        leaves: 18,
        stems: 5,
        height: 1.7,
    });
    Prop::assemble(
        "cattail_clump",
        Layout::OneMesh,
        Transform::default(),
        parts,
        vec![],
    )
}

fn bleached_branch() -> Prop {
    let part = driftwood(&Driftwood {
        seed: 1101,
        length: 2.6,
        radius: 0.13,
        branches: 2,
    });
    Prop::assemble(
        "bleached_branch",
        Layout::OneMesh,
        yawed(0.07),
        vec![part],
        vec![],
    )
}

fn cut_log() -> Prop {
    let (length, radius) = (2.8, 0.32);
    let parts = log(&Log {
        seed: 1201,
        length,
        radius,
        annual_rings: 9,
    });
    // Authored standing along +Y; the node lays it along X, centred, resting on the ground.
    let t = Transform {
        translation: Some([length * 0.5, radius * 0.97, 0.0]),
        rotation: Some(quat_axis_turns(V3::Z, 0.25)),
        scale: None,
    };
    Prop::assemble("cut_log", Layout::SiblingNodes, t, parts, vec![])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_stem_is_lower_snake_case_and_every_id_unique() {
        let mut ids: Vec<String> = KIT.iter().map(KitProp::relative_path).collect();
        for p in KIT {
            assert!(
                p.stem.chars().all(|c| c.is_ascii_lowercase() || c == '_'),
                "{}",
                p.stem
            );
        }
        ids.sort();
        ids.dedup();
        assert_eq!(ids.len(), KIT.len());
    }

    #[test]
    fn the_kit_covers_every_catalog_category() {
        let count = |c: &str| KIT.iter().filter(|p| p.category == c).count();
        for c in ["snag", "reed", "driftwood", "log"] {
            assert!(count(c) >= 1, "{c}");
        }
        for c in [
            "conifer",
            "broadleaf",
            "bush",
            "boulder",
            "rock",
            "pebble",
            "grass",
            "flower",
        ] {
            assert!(count(c) >= 2, "{c}");
        }
    }
}

//! A prop as the runtime and the exporter load it: its entry and the texture blobs the
//! entry names, read by [`crate::CacheDir::read_prop`] (or handed in by whoever reads
//! files) and checked together.

use crate::format::{Entry, FormatError, TextureView};

/// The bytes of an entry and of each texture blob it names, in the entry's order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PropFiles {
    pub entry: Vec<u8>,
    pub textures: Vec<Vec<u8>>,
}

/// [`PropFiles`] parsed: views that borrow the files' bytes.
#[derive(Clone, Debug, PartialEq)]
pub struct PropView<'a> {
    pub entry: Entry<'a>,
    /// `textures[i]` is the blob of `entry.textures[i]`.
    pub textures: Vec<TextureView<'a>>,
}

impl PropFiles {
    /// Parses the entry, then each blob against the content address the entry gives it.
    pub fn parse(&self) -> Result<PropView<'_>, FormatError> {
        let entry = Entry::parse(&self.entry)?;
        if entry.textures.len() != self.textures.len() {
            return Err(FormatError::Malformed {
                what: "prop files",
                reason: format!(
                    "the entry names {} textures, {} blobs were handed in",
                    entry.textures.len(),
                    self.textures.len()
                ),
            });
        }
        let textures = entry
            .textures
            .iter()
            .zip(&self.textures)
            .map(|(&id, bytes)| {
                TextureView::parse_as(id, bytes).map_err(|e| FormatError::Texture {
                    file: id.file_name(),
                    source: Box::new(e),
                })
            })
            .collect::<Result<Vec<TextureView>, _>>()?;
        if let Some(impostor) = entry.impostor() {
            let side = impostor.grid * impostor.cell_px;
            let atlases = [
                ("albedo", impostor.albedo),
                ("normal", impostor.normal),
                ("depth", impostor.depth),
            ];
            for (what, index) in atlases {
                let texture = &textures[index as usize];
                if (texture.width, texture.height) != (side, side) {
                    return Err(FormatError::Malformed {
                        what: "impostor",
                        reason: format!(
                            "the {what} atlas is {}×{}, its {} cells of {} texels make {side}²",
                            texture.width, texture.height, impostor.grid, impostor.cell_px
                        ),
                    });
                }
            }
        }
        Ok(PropView { entry, textures })
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::format::{encode_texture, BakedTexture, PixelFormat};
    use crate::{encode, BakedAsset, ImpostorRecord, ImpostorView};
    use sylva_mesh::{Aabb, Sphere};

    /// An asset naming two 1×1 texture blobs, and the blobs.
    pub(crate) fn two_textures() -> (BakedAsset, Vec<crate::TextureFile>) {
        let files: Vec<_> = [[9u8; 4], [200; 4]]
            .into_iter()
            .map(|texel| {
                encode_texture(&BakedTexture {
                    width: 1,
                    height: 1,
                    format: PixelFormat::Rgba8Srgb,
                    levels: vec![texel.to_vec()],
                })
                .unwrap()
            })
            .collect();
        let asset = BakedAsset {
            prop_id: "rock/a".into(),
            source_path: "rock/a.glb".into(),
            bounds: Aabb::EMPTY,
            sphere: Sphere {
                center: [0.0; 3],
                radius: 0.0,
            },
            parts: Vec::new(),
            textures: files.iter().map(|f| f.id).collect(),
            impostor: ImpostorRecord::refused("no parts"),
        };
        (asset, files)
    }

    #[test]
    fn a_swapped_blob_is_refused_with_its_name_and_too_few_as_malformed() {
        let (asset, files) = two_textures();
        let swapped = PropFiles {
            entry: encode(&asset).unwrap(),
            textures: vec![files[1].bytes.clone(), files[0].bytes.clone()],
        };
        let err = swapped.parse().unwrap_err();
        assert!(
            matches!(&err, FormatError::Texture { file, source }
                if *file == files[0].id.file_name()
                    && matches!(**source, FormatError::WrongTexture { .. })),
            "{err}"
        );
        let too_few = PropFiles {
            entry: encode(&asset).unwrap(),
            textures: vec![files[0].bytes.clone()],
        };
        assert!(matches!(
            too_few.parse(),
            Err(FormatError::Malformed { .. })
        ));
    }

    #[test]
    fn an_impostor_atlas_of_another_size_than_its_grid_is_refused() {
        let (mut asset, mut files) = two_textures();
        // A third blob for the depth atlas.
        files.push(files[0].clone());
        asset.textures.push(files[0].id);
        let view = ImpostorView {
            grid: 2,
            cell_px: 1,
            sphere: Sphere {
                center: [0.0; 3],
                radius: 1.0,
            },
            albedo: 0,
            normal: 1,
            depth: 2,
            error_m: 0.25,
        };
        asset.impostor = ImpostorRecord::Baked(view);
        // 1×1 blobs for a 2 × 2 grid of 1-texel cells.
        let small = PropFiles {
            entry: encode(&asset).unwrap(),
            textures: files.iter().map(|f| f.bytes.clone()).collect(),
        };
        let err = small.parse().unwrap_err();
        assert!(
            matches!(
                &err,
                FormatError::Malformed {
                    what: "impostor",
                    ..
                }
            ),
            "{err}"
        );
        let wide = encode_texture(&BakedTexture {
            width: 2,
            height: 2,
            format: PixelFormat::Rgba8Srgb,
            levels: vec![vec![7; 16]],
        })
        .unwrap();
        asset.textures = vec![wide.id; 3];
        let good = PropFiles {
            entry: encode(&asset).unwrap(),
            textures: vec![wide.bytes.clone(); 3],
        };
        assert_eq!(good.parse().unwrap().entry.impostor(), Some(view));
    }
}

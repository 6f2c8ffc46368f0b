//! The placements as plain lists, for engines that do not read
//! `EXT_mesh_gpu_instancing`: one record per placement with its prop id, position,
//! rotation quaternion (x, y, z, w) and uniform scale, in glTF's right-handed frame
//! (the frame of the `.glb`). Records stream to the writer one at a time.

use std::io::Write;

use sylva_scatter::Placement;

use crate::frame;
use crate::ExportError;

/// The format of a plain placement list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ListFormat {
    /// A JSON array of `{"prop", "position", "rotation", "scale"}` objects.
    Json,
    /// `prop,x,y,z,qx,qy,qz,qw,scale` with a header row; prop ids are quoted.
    Csv,
}

/// Writes every placement to `out` in `format`; returns how many were written.
pub fn write_placement_list<'a, W: Write>(
    out: &mut W,
    placements: impl IntoIterator<Item = &'a Placement>,
    format: ListFormat,
) -> Result<usize, ExportError> {
    let mut list = PlacementList::begin(out, format)?;
    for placement in placements {
        list.write(placement)?;
    }
    list.finish()
}

/// A placement list being written, one record at a time: for placements made a few at
/// a time (a streamed fill's tiles), none kept after its record.
pub struct PlacementList<'w, W: Write> {
    out: &'w mut W,
    format: ListFormat,
    count: usize,
}

impl<'w, W: Write> PlacementList<'w, W> {
    /// Writes the list's head.
    pub fn begin(out: &'w mut W, format: ListFormat) -> Result<Self, ExportError> {
        match format {
            ListFormat::Csv => writeln!(out, "prop,x,y,z,qx,qy,qz,qw,scale")?,
            ListFormat::Json => write!(out, "[")?,
        }
        Ok(Self {
            out,
            format,
            count: 0,
        })
    }

    /// Writes one placement's record.
    pub fn write(&mut self, placement: &Placement) -> Result<(), ExportError> {
        let p = frame::position(placement.position);
        let q = frame::rotation(placement.rotation);
        match self.format {
            ListFormat::Csv => writeln!(
                self.out,
                "{},{},{},{},{},{},{},{},{}",
                csv_field(&placement.prop),
                p.x,
                p.y,
                p.z,
                q.x,
                q.y,
                q.z,
                q.w,
                placement.scale
            )?,
            ListFormat::Json => {
                let separator = if self.count == 0 { "\n" } else { ",\n" };
                let record = serde_json::json!({
                    "prop": &*placement.prop,
                    "position": [p.x, p.y, p.z],
                    "rotation": [q.x, q.y, q.z, q.w],
                    "scale": placement.scale,
                });
                write!(self.out, "{separator}{record}")?;
            }
        }
        self.count += 1;
        Ok(())
    }

    /// Writes the list's tail; returns how many placements it holds.
    pub fn finish(self) -> Result<usize, ExportError> {
        if self.format == ListFormat::Json {
            writeln!(self.out, "\n]")?;
        }
        Ok(self.count)
    }
}

/// A CSV field: quoted, inner quotes doubled (RFC 4180).
fn csv_field(text: &str) -> String {
    format!("\"{}\"", text.replace('"', "\"\""))
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use glam::{Quat, Vec3};
    use sylva_scatter::PlacementId;

    use super::*;

    fn placement(prop: &str, x: f32) -> Placement {
        Placement {
            id: PlacementId(1),
            prop: Arc::from(prop),
            category: Arc::from("c"),
            family: Arc::from("f"),
            position: Vec3::new(x, 2.0, 3.0),
            rotation: Quat::from_rotation_y(0.5),
            scale: 1.25,
        }
    }

    #[test]
    fn csv_rows_are_in_the_gltf_frame_with_quoted_ids() {
        let placements = [placement("tree/a\"b", 1.5), placement("rock/c", -2.0)];
        let mut out = Vec::new();
        let n = write_placement_list(&mut out, &placements, ListFormat::Csv).unwrap();
        assert_eq!(n, 2);
        let text = String::from_utf8(out).unwrap();
        let rows: Vec<&str> = text.lines().collect();
        assert_eq!(rows[0], "prop,x,y,z,qx,qy,qz,qw,scale");
        assert!(
            rows[1].starts_with("\"tree/a\"\"b\",-1.5,2,3,0,"),
            "{}",
            rows[1]
        );
        assert!(rows[2].starts_with("\"rock/c\",2,2,3,"), "{}", rows[2]);
        assert_eq!(rows.len(), 3);
    }

    #[test]
    fn json_is_one_array_that_parses_back() {
        let placements = [placement("tree/a", 1.5), placement("rock/c", -2.0)];
        let mut out = Vec::new();
        write_placement_list(&mut out, &placements, ListFormat::Json).unwrap();
        let value: serde_json::Value = serde_json::from_slice(&out).unwrap();
        let records = value.as_array().unwrap();
        assert_eq!(records.len(), 2);
        assert_eq!(records[1]["prop"], "rock/c");
        assert_eq!(records[1]["position"][0], 2.0);
        let q = Quat::from_rotation_y(0.5);
        assert!((records[0]["rotation"][1].as_f64().unwrap() as f32 + q.y).abs() < 1e-7);
        let mut empty = Vec::new();
        write_placement_list(&mut empty, &[], ListFormat::Json).unwrap();
        assert_eq!(
            serde_json::from_slice::<serde_json::Value>(&empty).unwrap(),
            serde_json::json!([])
        );
    }
}

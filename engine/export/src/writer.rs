//! A `.glb` in stages, for placements handed over twice a batch at a time (a streamed
//! fill's tiles): counted per instancing node first, which sizes every node's
//! accessors; then the JSON (its instancing nodes, accessors and views written one by
//! one as they are generated, never held) and the props' geometry; then each batch's
//! instance data where its nodes' accessors say. Memory grows with the props'
//! geometry and a few dozen bytes per instancing node, not with the placements.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::io::{self, Seek, SeekFrom, Write};
use std::sync::Arc;

use gltf_json as json;
use json::{accessor, Index};
use serde::Serialize;
use sylva_cache::PropView;
use sylva_scatter::Placement;

use crate::{
    accessor_of, buffer_view, frame, Document, ExportError, ExportOptions, ExportReport,
    EXT_MESH_GPU_INSTANCING, MSFT_LOD,
};

/// An instancing node: a prop's rank among the props exported, and a cell.
type GroupKey = (u32, i32, i32);

/// Bytes of one placement's instance data: translation, rotation, scale.
const INSTANCE_BYTES: u64 = 12 + 16 + 12;

/// The first stage: the placements to export, counted.
pub struct GlbWriter<'a> {
    options: ExportOptions<'a>,
    /// Placements per prop and cell.
    counts: HashMap<(Arc<str>, i32, i32), u64>,
}

impl<'a> GlbWriter<'a> {
    /// A writer with `options`, nothing counted yet.
    pub fn new(options: ExportOptions<'a>) -> Result<Self, ExportError> {
        if !(options.cell_size.is_finite() && options.cell_size > 0.0) {
            return Err(ExportError::CellSize {
                value: options.cell_size,
            });
        }
        Ok(Self {
            options,
            counts: HashMap::new(),
        })
    }

    /// Counts a batch of the placements to export (the first walk).
    pub fn count<'p>(&mut self, placements: impl IntoIterator<Item = &'p Placement>) {
        for p in placements {
            let (x, z) = cell_of(self.options.cell_size, p);
            *self.counts.entry((p.prop.clone(), x, z)).or_insert(0) += 1;
        }
    }

    /// The props of the placements counted, sorted.
    pub fn placed_props(&self) -> Vec<&str> {
        let placed: BTreeSet<&str> = self.counts.keys().map(|(prop, _, _)| &**prop).collect();
        placed.into_iter().collect()
    }

    /// Writes the header, the JSON and the geometry of the props placed (of `props`,
    /// by prop id; the caller parsed their cache entries and texture blobs), with room
    /// for the instance data of every placement counted. Placements whose prop is
    /// missing from `props` (or has no triangles) are counted in
    /// [`ExportReport::left_out`].
    pub fn write_head<W: Write>(
        self,
        out: &mut W,
        props: &BTreeMap<&str, PropView<'_>>,
    ) -> Result<InstanceWriter, ExportError> {
        let mut doc = Document::default();
        let mut scene_nodes = Vec::new();
        if let Some(terrain) = self.options.terrain {
            let mesh = doc.terrain_mesh(terrain);
            scene_nodes.push(doc.root.push(json::Node {
                mesh: Some(mesh),
                name: Some("terrain".into()),
                ..Default::default()
            }));
        }
        let placed = self.placed_props();
        let mut ranked = Vec::new();
        for (&id, entry) in props.iter().filter(|(id, _)| placed.contains(id)) {
            let levels = doc.prop_meshes(id, entry)?;
            if !levels.is_empty() {
                ranked.push((id, levels));
            }
        }
        let rank_of: HashMap<String, u32> = (ranked.iter().enumerate())
            .map(|(rank, (id, _))| (id.to_string(), rank as u32))
            .collect();
        let mut report = ExportReport {
            props: ranked.len(),
            ..Default::default()
        };
        let mut counts = BTreeMap::new();
        for ((prop, x, z), n) in self.counts {
            match rank_of.get(&*prop) {
                Some(&rank) => {
                    counts.insert((rank, x, z), n);
                }
                None => *report.left_out.entry(prop.to_string()).or_insert(0) += n as usize,
            }
        }
        doc.align();
        let nodes = InstanceNodes::plan(&doc, &counts, &ranked);
        for node in &nodes.planned {
            scene_nodes.push(Index::new(node.first_node));
            report.placements += node.count as usize;
            report.instancing_nodes += 1;
        }
        let bin_len = nodes.bin_len;
        let lods = ranked.iter().any(|(_, levels)| levels.len() > 1);
        doc.finish(scene_nodes, bin_len, (report.instancing_nodes > 0, lods));

        // The JSON is generated twice, once to measure it: never held whole.
        let mut measured = Measured(0);
        nodes.write_json(&mut measured, &doc)?;
        let text_len = measured.0.next_multiple_of(4);
        // A file without binary data (no props, no terrain) has no BIN chunk at all.
        let bin_chunk = if bin_len > 0 { 8 + bin_len } else { 0 };
        let total = 12 + 8 + text_len + bin_chunk;
        let total32 = u32::try_from(total).map_err(|_| ExportError::TooLarge { bytes: total })?;
        out.write_all(b"glTF")?;
        out.write_all(&2u32.to_le_bytes())?;
        out.write_all(&total32.to_le_bytes())?;
        out.write_all(&(text_len as u32).to_le_bytes())?;
        out.write_all(b"JSON")?;
        nodes.write_json(out, &doc)?;
        out.write_all(&b"   "[..(text_len - measured.0) as usize])?;
        if bin_len > 0 {
            out.write_all(&(bin_len as u32).to_le_bytes())?;
            out.write_all(b"BIN\0")?;
            out.write_all(&doc.bin)?;
        }
        report.bytes = total;
        let groups = (nodes.planned.iter())
            .map(|node| {
                let slots = GroupSlots {
                    translation: node.offset,
                    rotation: node.offset + 12 * node.count,
                    scale: node.offset + 28 * node.count,
                    count: node.count,
                    written: 0,
                };
                (node.key, slots)
            })
            .collect();
        Ok(InstanceWriter {
            bin_start: 12 + 8 + text_len + 8,
            groups,
            rank_of,
            cell_size: self.options.cell_size,
            report,
        })
    }
}

/// An instancing node planned: its prop and cell, its placements' count, where their
/// instance data starts in the binary chunk, and the index of its LOD 0 node.
struct Planned {
    key: GroupKey,
    count: u64,
    offset: u64,
    first_node: u32,
}

/// The instancing nodes of an export, with their accessors and views, as JSON after
/// the document's own.
struct InstanceNodes<'a> {
    planned: Vec<Planned>,
    ranked: &'a [(&'a str, Vec<Index<json::Mesh>>)],
    /// The document's own nodes, accessors and views.
    base: (u32, u32, u32),
    bin_len: u64,
}

impl<'a> InstanceNodes<'a> {
    /// Lays out one node (and one per coarser level) per entry of `counts`, their
    /// instance data after `doc`'s geometry.
    fn plan(
        doc: &Document,
        counts: &BTreeMap<GroupKey, u64>,
        ranked: &'a [(&'a str, Vec<Index<json::Mesh>>)],
    ) -> Self {
        let root = &doc.root;
        let base = (
            root.nodes.len() as u32,
            root.accessors.len() as u32,
            root.buffer_views.len() as u32,
        );
        let (mut offset, mut next_node) = (doc.bin.len() as u64, base.0);
        let planned = (counts.iter())
            .map(|(&key, &count)| {
                let node = Planned {
                    key,
                    count,
                    offset,
                    first_node: next_node,
                };
                offset += INSTANCE_BYTES * count;
                next_node += ranked[key.0 as usize].1.len() as u32;
                node
            })
            .collect();
        Self {
            planned,
            ranked,
            base,
            bin_len: offset,
        }
    }

    /// Writes `doc`'s JSON with the instancing nodes, their accessors and their views
    /// appended to its own, each generated and written in turn.
    fn write_json<W: Write>(&self, out: &mut W, doc: &Document) -> io::Result<()> {
        let mut value = serde_json::to_value(&doc.root).map_err(io::Error::other)?;
        let object = value
            .as_object_mut()
            .expect("a glTF document is a JSON object");
        let appended = ["bufferViews", "accessors", "nodes"];
        if !self.planned.is_empty() {
            for key in appended {
                object.entry(key).or_insert_with(|| serde_json::json!([]));
            }
        }
        out.write_all(b"{")?;
        for (index, (key, value)) in object.iter().enumerate() {
            if index > 0 {
                out.write_all(b",")?;
            }
            write_value(out, key)?;
            out.write_all(b":")?;
            let own = value
                .as_array()
                .filter(|_| appended.contains(&key.as_str()));
            let Some(own) = own else {
                write_value(out, value)?;
                continue;
            };
            out.write_all(b"[")?;
            let mut items = Items { first: true };
            for item in own {
                items.write(out, item)?;
            }
            match key.as_str() {
                "bufferViews" => self.write_views(out, &mut items)?,
                "accessors" => self.write_accessors(out, &mut items)?,
                _ => self.write_nodes(out, &mut items)?,
            }
            out.write_all(b"]")?;
        }
        out.write_all(b"}")
    }

    /// Per node, the views of its translations, rotations and scales.
    fn write_views<W: Write>(&self, out: &mut W, items: &mut Items) -> io::Result<()> {
        for node in &self.planned {
            let mut at = node.offset;
            for size in [12, 16, 12] {
                let len = size * node.count;
                items.write(out, &buffer_view(at, len, None, None))?;
                at += len;
            }
        }
        Ok(())
    }

    /// Per node, the accessors of its translations, rotations and scales.
    fn write_accessors<W: Write>(&self, out: &mut W, items: &mut Items) -> io::Result<()> {
        let types = [
            accessor::Type::Vec3,
            accessor::Type::Vec4,
            accessor::Type::Vec3,
        ];
        for (index, node) in self.planned.iter().enumerate() {
            for (i, type_) in types.into_iter().enumerate() {
                let view = Index::new(self.base.2 + 3 * index as u32 + i as u32);
                let float = accessor::ComponentType::F32;
                let accessor = accessor_of(view, 0, node.count, float, type_, false, None);
                items.write(out, &accessor)?;
            }
        }
        Ok(())
    }

    /// Per instancing node, its LOD 0 node naming its coarser ones (`MSFT_lod`), then
    /// those, all sharing its instance accessors.
    fn write_nodes<W: Write>(&self, out: &mut W, items: &mut Items) -> io::Result<()> {
        for (index, node) in self.planned.iter().enumerate() {
            let (rank, cx, cz) = node.key;
            let (prop, meshes) = &self.ranked[rank as usize];
            let first = self.base.1 + 3 * index as u32;
            let instancing = serde_json::json!({ "attributes": {
                "TRANSLATION": first, "ROTATION": first + 1, "SCALE": first + 2,
            }});
            let coarser: Vec<u32> = (1..meshes.len() as u32)
                .map(|level| node.first_node + level)
                .collect();
            for (level, &mesh) in meshes.iter().enumerate() {
                let mut others = serde_json::Map::new();
                others.insert(EXT_MESH_GPU_INSTANCING.into(), instancing.clone());
                if level == 0 && !coarser.is_empty() {
                    others.insert(MSFT_LOD.into(), serde_json::json!({ "ids": coarser }));
                }
                let json_node = json::Node {
                    mesh: Some(mesh),
                    name: Some(format!("{prop} cell {cx},{cz} LOD{level}")),
                    extensions: Some(json::extensions::scene::Node { others }),
                    ..Default::default()
                };
                items.write(out, &json_node)?;
            }
        }
        Ok(())
    }
}

/// The items of a JSON array being written: commas between them.
struct Items {
    first: bool,
}

impl Items {
    fn write<W: Write>(&mut self, out: &mut W, item: &impl Serialize) -> io::Result<()> {
        if !std::mem::take(&mut self.first) {
            out.write_all(b",")?;
        }
        write_value(out, item)
    }
}

fn write_value<W: Write>(out: &mut W, value: &impl Serialize) -> io::Result<()> {
    serde_json::to_writer(out, value).map_err(io::Error::other)
}

/// A writer that only counts the bytes written to it.
struct Measured(u64);

impl Write for Measured {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.0 += bytes.len() as u64;
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Where an instancing node's instance data goes in the binary chunk, and how much of
/// it is written.
struct GroupSlots {
    translation: u64,
    rotation: u64,
    scale: u64,
    count: u64,
    written: u64,
}

/// The second stage: the placements counted, handed over again.
pub struct InstanceWriter {
    /// Where the binary chunk's bytes begin in the file.
    bin_start: u64,
    groups: BTreeMap<GroupKey, GroupSlots>,
    rank_of: HashMap<String, u32>,
    cell_size: f32,
    report: ExportReport,
}

impl InstanceWriter {
    /// Writes the instance data of a batch of the placements counted, each node's in
    /// the order they come: three writes per node the batch has placements of.
    pub fn write_instances<W: Write + Seek>(
        &mut self,
        out: &mut W,
        placements: &[&Placement],
    ) -> Result<(), ExportError> {
        let mut keys: Vec<(GroupKey, u32)> = (placements.iter().enumerate())
            .filter_map(|(index, p)| {
                Some((group_of(&self.rank_of, self.cell_size, p)?, index as u32))
            })
            .collect();
        keys.sort_unstable();
        let mut bytes = Vec::new();
        for run in keys.chunk_by(|a, b| a.0 == b.0) {
            let (key, n) = (run[0].0, run.len() as u64);
            let slots = match self.groups.get_mut(&key) {
                Some(slots) if slots.written + n <= slots.count => slots,
                _ => return Err(ExportError::Uncounted { key }),
            };
            let run = || run.iter().map(|&(_, index)| placements[index as usize]);
            let written = slots.written;
            let at = |offset: u64, size: u64| offset + size * written;
            bytes.clear();
            run().for_each(|p| push_floats(&mut bytes, frame::position(p.position).to_array()));
            write_at(out, self.bin_start + at(slots.translation, 12), &bytes)?;
            bytes.clear();
            run().for_each(|p| push_floats(&mut bytes, frame::rotation(p.rotation).to_array()));
            write_at(out, self.bin_start + at(slots.rotation, 16), &bytes)?;
            bytes.clear();
            run().for_each(|p| push_floats(&mut bytes, [p.scale; 3]));
            write_at(out, self.bin_start + at(slots.scale, 12), &bytes)?;
            slots.written += n;
        }
        Ok(())
    }

    /// What was written, once every placement counted was: an error when the second
    /// walk handed over fewer.
    pub fn finish(self) -> Result<ExportReport, ExportError> {
        let short = self.groups.iter().find(|(_, s)| s.written < s.count);
        if let Some((&key, _)) = short {
            return Err(ExportError::Uncounted { key });
        }
        Ok(self.report)
    }
}

fn write_at<W: Write + Seek>(out: &mut W, at: u64, bytes: &[u8]) -> io::Result<()> {
    out.seek(SeekFrom::Start(at))?;
    out.write_all(bytes)
}

/// The instancing node `placement` belongs to: its prop's rank and its cell; `None`
/// for a prop not exported.
fn group_of(rank_of: &HashMap<String, u32>, cell_size: f32, p: &Placement) -> Option<GroupKey> {
    let rank = *rank_of.get(&*p.prop)?;
    let (x, z) = cell_of(cell_size, p);
    Some((rank, x, z))
}

/// The terrain cell a placement stands in.
fn cell_of(cell_size: f32, p: &Placement) -> (i32, i32) {
    let cell = |v: f32| (v / cell_size).floor() as i32;
    (cell(p.position.x), cell(p.position.z))
}

fn push_floats<const N: usize>(out: &mut Vec<u8>, values: [f32; N]) {
    for v in values {
        out.extend_from_slice(&v.to_le_bytes());
    }
}

/// A writer that seeks only to where it is: the instance data of one batch of every
/// placement comes in file order, so [`crate::write_glb`] needs no seekable output.
pub(crate) struct InOrder<'w, W> {
    pub out: &'w mut W,
    pub position: u64,
}

impl<W: Write> Write for InOrder<'_, W> {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        let written = self.out.write(bytes)?;
        self.position += written as u64;
        Ok(written)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

impl<W> Seek for InOrder<'_, W> {
    fn seek(&mut self, to: SeekFrom) -> io::Result<u64> {
        match to {
            SeekFrom::Start(position) if position == self.position => Ok(position),
            _ => Err(io::Error::new(
                io::ErrorKind::Unsupported,
                "instance data out of file order",
            )),
        }
    }
}

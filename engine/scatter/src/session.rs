//! The session journal: a seed, the terrain, the catalog and presets in effect, and
//! every brush event in order. Replaying it reproduces every placement bit for bit.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use sylva_catalog::parse::{parse, Format, ParseError};
use sylva_catalog::CatalogSnapshot;
use sylva_terrain::HeightmapScale;
use thiserror::Error;

use crate::fill::{FillOrder, FillRegion, FillRequest};
use crate::painter::{check_cap, CapError, PROTOTYPE_PLACEMENT_CAP};
use crate::preset::{BrushSettings, Preset, PresetError};

/// Version of the session file format this build reads and writes.
pub const SESSION_FORMAT: u32 = 1;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Session {
    /// Always [`SESSION_FORMAT`].
    pub format: u32,
    pub seed: u32,
    /// The most placements live at once; the oldest go first past it (FIFO). Journals
    /// from before it was the user's have none and mean the prototype's 2,500.
    #[serde(default = "prototype_cap")]
    pub placement_cap: usize,
    #[serde(default)]
    pub terrain: TerrainSource,
    /// The catalog when the session began; [`Event::Catalog`] changes it later.
    pub catalog: CatalogSnapshot,
    /// Every preset an event names, under the name the event uses.
    #[serde(default)]
    pub presets: BTreeMap<String, Preset>,
    #[serde(default)]
    pub events: Vec<Event>,
}

fn prototype_cap() -> usize {
    PROTOTYPE_PLACEMENT_CAP
}

/// Where the session's terrain comes from.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum TerrainSource {
    #[default]
    DefaultWorld,
    /// A user heightmap image, relative to the session file.
    Heightmap { file: String, scale: HeightmapScale },
}

/// One user action. Strokes are whole: undo takes back a stroke, not a dab.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum Event {
    /// Dabs of a preset along the pointer's path, centres as world `(x, z)`.
    Paint {
        preset: String,
        brush: BrushSettings,
        dabs: Vec<(f32, f32)>,
    },
    /// Erase dabs; with `only_preset`, only categories that preset uses go.
    Erase {
        radius: f32,
        dabs: Vec<(f32, f32)>,
        #[serde(default)]
        only_preset: Option<String>,
    },
    /// A preset over a region, at the preset's density or `density` per m²; with
    /// `replaces`, a re-run of that earlier fill over the region (see
    /// [`FillRequest`]). Takes no draws from the session's brush generator.
    Fill {
        preset: String,
        region: FillRegion,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        density: Option<f32>,
        /// The order candidates were accepted in; journals from before tiles have
        /// none and were accepted in rows.
        #[serde(
            default = "FillOrder::journalled_before_tiles",
            skip_serializing_if = "FillOrder::is_rows"
        )]
        order: FillOrder,
        /// Made tile by tile around the camera where the session is streamed (see
        /// [`FillRequest::stream`]).
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        stream: bool,
        /// A streamed fill's preset as it was recorded ([`preset_hash`]): its tiles are
        /// made long after, so a preset changed since is refused, not streamed.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        preset_hash: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        replaces: Option<usize>,
    },
    Undo,
    Redo,
    /// The props present changed (an asset was added or deleted).
    Catalog(CatalogSnapshot),
}

#[derive(Debug, Clone, PartialEq, Error)]
pub enum SessionError {
    #[error(transparent)]
    Parse(#[from] ParseError),
    #[error("{source_name}: format: version {found} is not supported (this build reads {SESSION_FORMAT})")]
    Version { source_name: String, found: u32 },
    #[error(transparent)]
    Preset(Box<PresetError>),
    #[error("{path}: unknown preset `{name}`")]
    UnknownPreset { path: String, name: String },
    #[error("{path}: {message}")]
    Catalog { path: String, message: String },
    #[error("{path}: {message}")]
    Brush { path: String, message: String },
    #[error("{path}: {message}")]
    Fill { path: String, message: String },
    #[error("{source_name}: placement_cap: {source}")]
    Cap {
        source_name: String,
        source: CapError,
    },
}

impl Event {
    /// The fill a [`FillRequest`] of `preset` asks for, as the journal records it.
    pub fn fill(request: &FillRequest, preset: &Preset) -> Self {
        Event::Fill {
            preset: request.preset.clone(),
            region: request.region.clone(),
            density: request.density,
            order: request.order,
            stream: request.stream,
            preset_hash: request.stream.then(|| preset_hash(preset)),
            replaces: request.replaces,
        }
    }
}

/// BLAKE3 of a preset's RON text, in hex: what a streamed fill records of its preset.
pub fn preset_hash(preset: &Preset) -> String {
    let text = ron::to_string(preset).expect("presets are plain data");
    blake3::hash(text.as_bytes()).to_hex().to_string()
}

impl Session {
    /// An empty journal.
    pub fn new(
        seed: u32,
        placement_cap: usize,
        terrain: TerrainSource,
        catalog: CatalogSnapshot,
    ) -> Self {
        Self {
            format: SESSION_FORMAT,
            seed,
            placement_cap,
            terrain,
            catalog,
            presets: BTreeMap::new(),
            events: Vec::new(),
        }
    }

    /// Parses a session file (`.json` is JSON, anything else RON) and checks that its
    /// version is supported and its presets are valid. Events are checked on replay.
    pub fn parse(text: &str, source_name: &str) -> Result<Self, SessionError> {
        let session: Session = parse(text, Format::of_path(source_name), source_name)?;
        if session.format != SESSION_FORMAT {
            return Err(SessionError::Version {
                source_name: source_name.to_owned(),
                found: session.format,
            });
        }
        check_cap(session.placement_cap).map_err(|source| SessionError::Cap {
            source_name: source_name.to_owned(),
            source,
        })?;
        for (name, preset) in &session.presets {
            preset
                .validate(&format!("{source_name}: presets.{name}"))
                .map_err(|e| SessionError::Preset(Box::new(e)))?;
        }
        Ok(session)
    }

    /// The journal as RON text.
    pub fn to_ron(&self) -> String {
        let config = ron::ser::PrettyConfig::new().depth_limit(4);
        ron::ser::to_string_pretty(self, config).expect("sessions are plain data")
    }
}

impl SessionError {
    /// The error as met at journal path `path` (e.g. `events[3]`): the field it names
    /// is then under that path.
    pub fn at(self, path: &str) -> SessionError {
        match self {
            SessionError::UnknownPreset { name, path: field } => SessionError::UnknownPreset {
                path: format!("{path}.{field}"),
                name,
            },
            SessionError::Brush {
                path: field,
                message,
            } => SessionError::Brush {
                path: format!("{path}.{field}"),
                message,
            },
            SessionError::Fill {
                path: field,
                message,
            } => SessionError::Fill {
                path: format!("{path}.{field}"),
                message,
            },
            other => other,
        }
    }
}

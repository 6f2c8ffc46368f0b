//! Edits over streamed fills, as they would be over the fills stored: an erase takes
//! from their tiles (and is an undo step when it takes anything), a stroke or stored
//! fill is accepted against their placements round it, and undo and redo take back
//! and put back a streamed fill or an erase over one. The tiles an edit needs are
//! taken from the streamer or made here ([`crate::spot`]).

use std::sync::Arc;

use glam::Vec2;
use sylva_scatter::{Applied, Area, Event, Placement};

use crate::stream::{Erasure, StreamError};
use crate::{World, WorldError};

/// An erase stroke being made in a world that streams.
pub(crate) struct OpenErase {
    radius: f32,
    /// Only these categories; every one when `None`.
    categories: Option<Vec<Arc<str>>>,
    /// Its number among the erase strokes over streamed fills.
    stroke: usize,
    /// Whether it took a placement of a streamed fill yet.
    took: bool,
}

/// Where an edit accepts placements, and of which families: what of the streamed
/// fills it must be accepted against.
pub(crate) struct Acceptance {
    pub(crate) families: Vec<Arc<str>>,
    /// How far past the edit's own area a placement can be near a candidate of it.
    pub(crate) margin_m: f32,
}

impl World {
    /// What an edit with preset `preset` (registered) must be accepted against, where
    /// fills stream: the preset's families, and its widest spacing.
    pub(crate) fn acceptance(&self, preset: &str) -> Option<Acceptance> {
        if self.streamed.is_empty() {
            return None;
        }
        let preset = self.editor.registered_preset(preset)?;
        let catalog = self.editor.catalog();
        let mut families: Vec<Arc<str>> = (preset.picks.iter())
            .filter_map(|pick| catalog.category(&pick.category))
            .map(|category| Arc::clone(&category.family))
            .collect();
        families.sort_unstable();
        families.dedup();
        Some(Acceptance {
            families,
            margin_m: preset.widest_spacing(),
        })
    }

    /// The placements the streamed fills (not undone) place in the box `low..=high`
    /// that `wanted` takes, less what standing erases took: what the fills stored would
    /// hold there. Makes the tiles here.
    pub(crate) fn streamed_within(
        &mut self,
        (low, high): (Vec2, Vec2),
        wanted: &dyn Fn(&Placement) -> bool,
    ) -> Result<Vec<Placement>, WorldError> {
        let mut within = Vec::new();
        for (index, fill) in self.streamed.iter().enumerate() {
            if fill.undone {
                continue;
            }
            let source = (&*fill.source, fill.streamer.as_ref());
            let tiles = (self.spot)
                .within(index, source, &self.terrain, (low, high))
                .map_err(StreamError::from)?;
            let erased = |p: &Placement| {
                (fill.erasures.iter())
                    .any(|e| !self.undone_erases.contains(&e.stroke) && e.takes(p))
            };
            within.extend(
                (tiles.iter().flat_map(|tile| tile.iter()))
                    .filter(|p| {
                        let at = Vec2::new(p.position.x, p.position.z);
                        at.cmpge(low).all() && at.cmple(high).all()
                    })
                    .filter(|p| wanted(p) && !erased(p))
                    .cloned(),
            );
        }
        Ok(within)
    }

    /// The placements of the streamed fills an edit of `acceptance` over the box
    /// `low..=high` is accepted against.
    pub(crate) fn standing_for(
        &mut self,
        acceptance: &Acceptance,
        (low, high): (Vec2, Vec2),
    ) -> Result<Vec<Placement>, WorldError> {
        let margin = Vec2::splat(acceptance.margin_m);
        let families = &acceptance.families;
        self.streamed_within((low - margin, high + margin), &|p| {
            families.contains(&p.family)
        })
    }

    /// Notes an erase stroke just begun in the editor, where fills stream.
    pub(crate) fn open_streamed_erase(&mut self, radius: f32, only_preset: Option<&str>) {
        self.forget_open_stroke();
        if self.streamed.is_empty() {
            return;
        }
        let categories = only_preset.map(|name| {
            self.editor
                .registered_preset(name)
                .map_or_else(Vec::new, |preset| {
                    (preset.picks.iter())
                        .map(|pick| Arc::from(&*pick.category))
                        .collect()
                })
        });
        self.open_erase = Some(OpenErase {
            radius,
            categories,
            stroke: self.erase_strokes,
            took: false,
        });
        self.erase_strokes += 1;
    }

    /// Takes what the open erase stroke's dab at `at` covers from the streamed fills.
    pub(crate) fn erase_streamed_dab(&mut self, at: Vec2) -> Result<(), WorldError> {
        let Some(open) = &self.open_erase else {
            return Ok(());
        };
        let erasure = Erasure {
            center: at,
            radius: open.radius,
            categories: open.categories.clone(),
            stroke: open.stroke,
        };
        let (stroke, took_before) = (open.stroke, open.took);
        let took = self.erase_streamed(erasure, !took_before)?;
        if took && !took_before {
            self.editor.mark_stroke_streamed(stroke);
            if let Some(open) = &mut self.open_erase {
                open.took = true;
            }
        }
        Ok(())
    }

    /// The streamed fills' placements a stored fill of `preset` over `region` is
    /// accepted against (none where the region is refused: the fill says why).
    pub(crate) fn standing_for_fill(
        &mut self,
        preset: &str,
        region: &sylva_scatter::FillRegion,
    ) -> Result<Vec<Placement>, WorldError> {
        let Some(acceptance) = self.acceptance(preset) else {
            return Ok(Vec::new());
        };
        match Area::new(region, &self.terrain) {
            Ok(area) => self.standing_for(&acceptance, area.bounds()),
            Err(_) => Ok(Vec::new()),
        }
    }

    /// Forgets the open stroke's streamed side: the editor closes its stroke before any
    /// other edit.
    pub(crate) fn forget_open_stroke(&mut self) {
        self.open_erase = None;
        self.open_paint = None;
    }

    /// Undoes (its tiles leave) or redoes (they stream again) streamed fill `fill`.
    pub(crate) fn set_fill_undone(&mut self, fill: usize, undone: bool) -> Result<(), WorldError> {
        let Some(streamed) = self.streamed.get_mut(fill) else {
            return Ok(());
        };
        streamed.undone = undone;
        if undone {
            self.stop_stream(fill)
        } else if let Some(start) = self.started {
            self.start_stream(fill, start)
        } else {
            Ok(())
        }
    }

    /// Replays a journalled stroke dab by dab, as painted live, where fills stream: each
    /// dab accepted against the streamed fills' placements round it, or taking from
    /// them.
    pub(crate) fn replay_stroke(
        &mut self,
        event: &Event,
        dabs: &[(f32, f32)],
        path: &str,
    ) -> Result<Applied, WorldError> {
        let at = |e: WorldError| match e {
            WorldError::Session(e) => WorldError::Session(e.at(path)),
            other => other,
        };
        match event {
            Event::Paint { preset, brush, .. } => self.begin_paint(preset, *brush),
            Event::Erase {
                radius,
                only_preset,
                ..
            } => self.begin_erase(*radius, only_preset.as_deref()),
            _ => return Ok(Applied::default()),
        }
        .map_err(at)?;
        for &(x, z) in dabs {
            self.dab(Vec2::new(x, z)).map_err(at)?;
        }
        let edit = self.editor.open_edit();
        let report = self.end_stroke();
        Ok(Applied { edit, report })
    }

    /// Takes what `erasure` covers from every streamed fill not undone, now and
    /// whenever its tiles are made again. With `check`, says whether it took a
    /// placement no standing erase took before (making the tiles it touches here);
    /// without, answers false.
    pub(crate) fn erase_streamed(
        &mut self,
        erasure: Erasure,
        check: bool,
    ) -> Result<bool, WorldError> {
        let took = check && {
            let reach = Vec2::splat(erasure.radius);
            let bounds = (erasure.center - reach, erasure.center + reach);
            !(self.streamed_within(bounds, &|p| erasure.takes(p))?).is_empty()
        };
        let mut changes = Vec::new();
        for (index, fill) in self.streamed.iter_mut().enumerate() {
            if fill.undone {
                continue;
            }
            fill.erasures.push(erasure.clone());
            if let Some(streamer) = &mut fill.streamer {
                changes.push((index, streamer.erase(erasure.clone())?));
            }
        }
        for (index, change) in changes {
            self.mirror_stream(index, change)?;
        }
        Ok(took)
    }
}

//! Fills from the viewer: the visible ground or a lasso, filled with the active preset
//! at the brush's density. Planning runs on a worker ([`FillTask`]); the frame's thread
//! only checks the region, starts the task, and accepts the finished plan in
//! [`Workspace::poll_fill`], so painting goes on meanwhile and a cancelled fill leaves
//! nothing behind. The accepted fill is one journal event, undone and redone whole.

use std::collections::BTreeSet;
use std::sync::Arc;

use glam::Vec2;
use sylva_scatter::{Area, FillError, FillOrder, FillRegion, FillRequest};
use sylva_terrain::Ray;

use super::{LastStroke, Workspace, WorkspaceError, WorldHost};
use crate::fill::{FillProgress, FillTask};
use crate::lasso::Lasso;
use crate::view_region::visible_ground;

/// Lasso points are kept this many terrain cells apart along the path.
const LASSO_STEP_CELLS: f32 = 0.5;

impl<H: WorldHost> Workspace<H> {
    /// Starts filling `region` with the active preset; `what` names it in the HUD
    /// (`the view`, `the lasso`). Returns at once: see [`Workspace::poll_fill`]. A bad
    /// region, no preset or a fill already running is an error and changes nothing.
    pub fn start_fill(&mut self, region: FillRegion, what: &str) -> Result<(), WorkspaceError> {
        if let Some(task) = &self.fill {
            return Err(WorkspaceError::FillRunning {
                what: task.progress().what,
            });
        }
        if self.active.is_none() {
            return Err(WorkspaceError::NoPreset);
        }
        self.end_stroke();
        Area::new(&region, self.world().terrain())?;
        self.refresh_active_registration()?;
        let active = self.active.as_ref().expect("checked above");
        let request = FillRequest {
            preset: active.session_name.clone(),
            region,
            density: Some(self.brush.density_per_m2),
            order: FillOrder::Tiles,
            stream: false,
            replaces: None,
        };
        let job = self
            .world()
            .editor()
            .fill_job(&request)
            .map_err(sylva_world::WorldError::from)?;
        let terrain = self.world().shared_terrain();
        self.fill = Some(FillTask::start(job, terrain, what));
        self.info(format!("filling {what} with {} (Esc cancels)", active.stem));
        Ok(())
    }

    /// Fills the ground a `size`-pixel view shows ([`visible_ground`]), its rays from
    /// `ray_through`.
    pub fn fill_view(
        &mut self,
        size: Vec2,
        ray_through: impl Fn(Vec2) -> Ray,
    ) -> Result<(), WorkspaceError> {
        let polygon = visible_ground(self.world().terrain(), size, ray_through)
            .ok_or(WorkspaceError::NoGroundInView)?;
        self.start_fill(FillRegion::Polygon(polygon), "the view")
    }

    /// The fill being planned, if any.
    pub fn fill_progress(&self) -> Option<FillProgress> {
        self.fill.as_ref().map(FillTask::progress)
    }

    /// Accepts the running fill once its plan is ready and no stroke is being painted
    /// (a fill lands between strokes): its placements join the world in one step,
    /// their props start loading, the session autosaves. Never blocks; returns whether
    /// a fill finished (accepted, refused or cancelled) this call.
    pub fn poll_fill(&mut self) -> bool {
        if self.stroke.is_some() {
            return false;
        }
        let Some(outcome) = self.fill.as_ref().and_then(FillTask::poll) else {
            return false;
        };
        let task = self.fill.take().expect("polled above");
        let progress = task.progress();
        let plan = match outcome {
            Ok(plan) => plan,
            Err(FillError::Cancelled) => {
                self.info(format!(
                    "cancelled filling {}: nothing changed",
                    progress.what
                ));
                return true;
            }
            Err(e) => {
                self.error(format!("filling {}: {e}", progress.what));
                return true;
            }
        };
        match self.host.world_mut().commit_fill(task.job(), &plan) {
            Ok(applied) => {
                let props: BTreeSet<Arc<str>> =
                    applied.edit.added.iter().map(|p| p.prop.clone()).collect();
                for prop in props {
                    self.request(&prop);
                }
                let report = applied.report.unwrap_or_default();
                let seconds = progress
                    .planned_in
                    .unwrap_or(progress.elapsed)
                    .as_secs_f32();
                self.last_stroke = Some(LastStroke::Fill { report, seconds });
                self.fills += 1;
                self.info(format!(
                    "filled {}: placed {} of {} candidates, planned in {seconds:.2} s",
                    progress.what, report.placed, report.candidates
                ));
                self.autosave_now();
            }
            Err(e) => self.error(format!("filling {}: {e}", progress.what)),
        }
        true
    }

    /// Cancels the running fill (nothing of it is applied) or the lasso being drawn.
    /// Returns whether there was one.
    pub fn cancel(&mut self) -> bool {
        if let Some(task) = self.fill.take() {
            self.info(format!(
                "cancelled filling {}: nothing changed",
                task.progress().what
            ));
            return true;
        }
        if self.lasso.take().is_some() {
            self.info("lasso cancelled");
            return true;
        }
        false
    }

    /// Starts a lasso where the pointer's ground point is.
    pub fn begin_lasso(&mut self, at: Vec2) {
        let step = self.world().terrain().spacing() * LASSO_STEP_CELLS;
        self.lasso = Some(Lasso::start(at, step));
    }

    /// The lasso's ground path went on to `at`.
    pub fn lasso_to(&mut self, at: Vec2) {
        if let Some(lasso) = &mut self.lasso {
            lasso.to(at);
        }
    }

    /// Closes the lasso and fills it.
    pub fn end_lasso(&mut self) {
        let Some(lasso) = self.lasso.take() else {
            return;
        };
        if let Err(e) = self.start_fill(FillRegion::Polygon(lasso.polygon()), "the lasso") {
            self.error(e.to_string());
        }
    }

    /// The lasso being drawn, for the cursor.
    pub fn lasso(&self) -> Option<&Lasso> {
        self.lasso.as_ref()
    }
}

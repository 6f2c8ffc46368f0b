//! The HUD drawn with egui 0.16: the brush panel (preset picker, mode, brush
//! controls, last stroke) on the left and the figures panel (draws, timing, props,
//! messages) on the right. It lays out [`HudModel`] rows and turns clicks into the
//! same [`Command`]s as keys; it holds no state of its own beyond egui's.

use egui::{
    Align2, Color32, CtxRef, FontDefinitions, FontFamily, Pos2, RawInput, Rect, RichText, TextStyle,
};
use glam::Vec2;

use crate::hud::{prop_summary, HudModel};
use crate::input::{Button, Command, InputEvent, BRUSH_STEP};

const ERROR: Color32 = Color32::from_rgb(255, 110, 100);
const ACTIVE: Color32 = Color32::from_rgb(140, 230, 140);
const DIM: Color32 = Color32::from_rgb(170, 175, 180);
/// The LOD tolerances the slider offers: from a quarter pixel (finer than the eye) to
/// eight (coarse, for slow machines).
const LOD_ERROR_RANGE_PX: std::ops::RangeInclusive<f32> = 0.25..=8.0;

pub struct HudUi {
    ctx: CtxRef,
    events: Vec<egui::Event>,
    pointer: Option<Pos2>,
}

/// One frame of HUD: the meshes to draw and the commands its buttons gave.
pub struct HudFrame {
    pub meshes: Vec<egui::ClippedMesh>,
    pub commands: Vec<Command>,
    pub ctx: CtxRef,
}

impl Default for HudUi {
    fn default() -> Self {
        Self::new()
    }
}

impl HudUi {
    pub fn new() -> Self {
        let ctx = CtxRef::default();
        let mut fonts = FontDefinitions::default();
        for (style, size) in [
            (TextStyle::Small, 9.0),
            (TextStyle::Body, 11.0),
            (TextStyle::Button, 11.0),
            (TextStyle::Heading, 13.0),
        ] {
            fonts
                .family_and_size
                .insert(style, (FontFamily::Proportional, size));
        }
        fonts
            .family_and_size
            .insert(TextStyle::Monospace, (FontFamily::Monospace, 11.0));
        ctx.set_fonts(fonts);
        let mut visuals = egui::Visuals::dark();
        visuals.widgets.noninteractive.bg_fill = Color32::from_rgba_unmultiplied(20, 24, 28, 215);
        ctx.set_visuals(visuals);
        Self {
            ctx,
            events: Vec::new(),
            pointer: None,
        }
    }

    /// Whether the pointer is over a HUD panel (clicks there do not paint).
    pub fn claims_pointer(&self) -> bool {
        self.pointer.is_some_and(|p| {
            self.ctx
                .layer_id_at(p)
                .is_some_and(|layer| layer.order != egui::Order::Background)
        })
    }

    /// Forwards an input event to egui.
    pub fn input(&mut self, event: &InputEvent) {
        match *event {
            InputEvent::PointerMoved(at) => {
                let pos = Pos2::new(at.x, at.y);
                self.pointer = Some(pos);
                self.events.push(egui::Event::PointerMoved(pos));
            }
            InputEvent::Button { button, pressed } => {
                let Some(pos) = self.pointer else {
                    return;
                };
                let button = match button {
                    Button::Left => egui::PointerButton::Primary,
                    Button::Right => egui::PointerButton::Secondary,
                    Button::Middle => egui::PointerButton::Middle,
                };
                self.events.push(egui::Event::PointerButton {
                    pos,
                    button,
                    pressed,
                    modifiers: Default::default(),
                });
            }
            InputEvent::Key { .. } | InputEvent::Wheel(_) => {}
        }
    }

    /// Lays out the HUD for a `size` window at `time` seconds.
    pub fn frame(&mut self, model: &HudModel, size: Vec2, time: f64) -> HudFrame {
        let input = RawInput {
            screen_rect: Some(Rect::from_min_size(Pos2::ZERO, egui::vec2(size.x, size.y))),
            pixels_per_point: Some(1.0),
            time: Some(time),
            events: std::mem::take(&mut self.events),
            ..Default::default()
        };
        self.ctx.begin_frame(input);
        let mut commands = Vec::new();
        brush_panel(&self.ctx, model, &mut commands);
        figures_panel(&self.ctx, model, size, &mut commands);
        let (_output, shapes) = self.ctx.end_frame();
        let meshes = self.ctx.tessellate(shapes);
        HudFrame {
            meshes,
            commands,
            ctx: self.ctx.clone(),
        }
    }
}

fn brush_panel(ctx: &CtxRef, model: &HudModel, commands: &mut Vec<Command>) {
    egui::Window::new("brush")
        .anchor(Align2::LEFT_TOP, [6.0, 6.0])
        .resizable(false)
        .collapsible(false)
        .title_bar(false)
        .default_width(230.0)
        .show(ctx, |ui| {
            ui.label(RichText::new(&model.brush).strong());
            if let Some((line, fraction)) = &model.fill {
                ui.add(egui::ProgressBar::new(*fraction).text(line.as_str()));
                if ui.small_button("cancel fill").clicked() {
                    commands.push(Command::Cancel);
                }
            }
            ui.horizontal(|ui| {
                let buttons = [
                    ("erase", Command::ToggleEraseMode),
                    ("lasso", Command::ToggleLassoMode),
                    ("fill view", Command::FillView),
                    ("undo", Command::Undo),
                    ("redo", Command::Redo),
                    ("save", Command::Save),
                    ("revert", Command::Open),
                    ("r−", Command::ScaleRadius(1.0 / BRUSH_STEP)),
                    ("r+", Command::ScaleRadius(BRUSH_STEP)),
                    ("d−", Command::ScaleDensity(1.0 / BRUSH_STEP)),
                    ("d+", Command::ScaleDensity(BRUSH_STEP)),
                ];
                for (label, command) in buttons {
                    if ui.small_button(label).clicked() {
                        commands.push(command);
                    }
                }
            });
            ui.separator();
            for (index, row) in model.presets.iter().enumerate() {
                let key = row.shortcut.map_or("  ".to_owned(), |k| format!("{k}"));
                match &row.label {
                    Ok(name) => {
                        let text = RichText::new(format!("{key}  {name}"));
                        let text = if row.active { text.color(ACTIVE) } else { text };
                        if ui.selectable_label(row.active, text).clicked() {
                            commands.push(Command::PickPreset(index));
                        }
                    }
                    Err(error) => {
                        ui.colored_label(ERROR, format!("{key}  {}: {error}", row.stem));
                    }
                }
            }
            ui.separator();
            for line in &model.stroke {
                ui.label(line);
            }
        });
}

fn figures_panel(ctx: &CtxRef, model: &HudModel, size: Vec2, commands: &mut Vec<Command>) {
    egui::Window::new("figures")
        .anchor(Align2::RIGHT_TOP, [-6.0, 6.0])
        .resizable(false)
        .collapsible(false)
        .title_bar(false)
        .default_width((size.x * 0.36).clamp(200.0, 420.0))
        .show(ctx, |ui| {
            for line in model.render.iter().chain(&model.timing) {
                ui.label(line);
            }
            if let Some(mut pixels) = model.lod_error_px {
                let slider = egui::Slider::new(&mut pixels, LOD_ERROR_RANGE_PX)
                    .logarithmic(true)
                    .text("LOD error, px");
                if ui.add(slider).changed() {
                    commands.push(Command::SetLodErrorPx(pixels));
                }
            }
            ui.label(RichText::new(&model.loading).color(DIM));
            if let Some(watch) = &model.watch {
                ui.label(RichText::new(watch).color(DIM));
            }
            ui.label(RichText::new(prop_summary(&model.props)).small());
            for prop in model.props.iter().filter(|p| p.error.is_some()) {
                let error = prop.error.as_deref().unwrap_or_default();
                ui.colored_label(ERROR, format!("{}: {} — {error}", prop.id, prop.status));
            }
            for message in &model.messages {
                let color = if message.error { ERROR } else { DIM };
                ui.colored_label(color, &message.text);
            }
        });
}

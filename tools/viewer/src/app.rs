//! The window: a winit 0.26 event loop driving the [`Workspace`] (whose world the
//! [`Runtime`] holds and draws) and the [`Gpu`]. Each frame: play the script's step
//! (scripted runs ignore real input), turn input into commands, apply bake watch
//! passes, poll presets and finished loads, move the camera, place the cursor, lay out
//! the HUD, draw (the runtime ticks LODs and mirrors registry changes) and screenshot.

use std::path::PathBuf;
use std::str::FromStr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use glam::{Vec2, Vec3};
use sylva_terrain::Landmark;
use thiserror::Error;
use winit::dpi::PhysicalSize;
use winit::event::{
    ElementState, Event, KeyboardInput, MouseButton, MouseScrollDelta, VirtualKeyCode, WindowEvent,
};
use winit::event_loop::{ControlFlow, EventLoop};
use winit::platform::run_return::EventLoopExtRunReturn;
use winit::window::WindowBuilder;

use sylva_runtime::{FrameStats, Runtime};

use crate::args::ViewArgs;
use crate::cache_source::CacheSource;
use crate::camera::{CameraController, CameraMode};
use crate::gpu::{Gpu, GpuError, SurfaceContext};
use crate::hud::{FrameFigures, HudModel};
use crate::hud_ui::HudUi;
use crate::input::{Button, Command, Controls, InputEvent, Key};
use crate::loader::PropStatus;
use crate::script::{Act, Cue, Place, Player, Progress, Script, ScriptError};
use crate::summary::{DrawFigures, RunSummary, Screenshot};
use crate::timing::FrameClock;
use crate::workspace::{open_world, Workspace, WorkspaceError};
use sylva_runtime::Watcher;

/// How often the preset folder is polled.
const PRESET_POLL: Duration = Duration::from_millis(500);
/// A `--screenshot` run without a script gives up waiting for loads after this long.
const LOAD_PATIENCE: Duration = Duration::from_secs(120);

#[derive(Debug, Error)]
pub enum ViewerError {
    #[error(transparent)]
    Workspace(#[from] WorkspaceError),
    #[error(transparent)]
    Gpu(#[from] GpuError),
    #[error(transparent)]
    Runtime(#[from] sylva_runtime::RuntimeError),
    #[error(transparent)]
    Script(#[from] ScriptError),
    #[error("reading script {path}: {source}")]
    ReadScript {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{source_name}:{line}: {message}")]
    ScriptStep {
        source_name: String,
        line: usize,
        message: String,
    },
    #[error("no display to open a window on: set DISPLAY (e.g. run `Xvfb :99 &` and DISPLAY=:99) or WAYLAND_DISPLAY")]
    NoDisplay,
    #[error("opening the X display: {0}")]
    X11(String),
    #[error("creating the window: {0}")]
    Window(#[from] winit::error::OsError),
    #[error("props were still loading after {seconds} s")]
    LoadTimeout { seconds: u64 },
    #[error(transparent)]
    Remote(#[from] sylva_remote::OpenError),
}

/// Opens the window and runs until it is closed, or until the script (or the
/// `--screenshot` capture) is done.
pub fn run(args: &ViewArgs) -> Result<RunSummary, ViewerError> {
    let script = match &args.script {
        Some(path) => {
            let text = std::fs::read_to_string(path).map_err(|source| ViewerError::ReadScript {
                path: path.clone(),
                source,
            })?;
            Some(Script::parse(&text, &path.display().to_string())?)
        }
        None => None,
    };
    let options = args.workspace_options();
    let world = open_world(&options)?;

    let mut event_loop = open_event_loop()?;
    let window = WindowBuilder::new()
        .with_title("sylva")
        .with_inner_size(PhysicalSize::new(args.size.width, args.size.height))
        .build(&event_loop)?;
    let surface = SurfaceContext::new(&window)?;
    let runtime = Runtime::new(surface.context, world)?;
    let size = window.inner_size();
    let gpu = Gpu::new(
        surface.surface,
        surface.format,
        glam::UVec2::new(size.width, size.height),
        &runtime,
    )?;
    let remote = sylva_remote::open_configured(args.remote.as_deref())?.map(Arc::new);
    let source = Arc::new(CacheSource::new(&args.assets, &args.cache).with_remote(remote.clone()));
    let workspace = Workspace::open(options, runtime, source)?;
    let watcher = args
        .watch
        .then(|| Watcher::start(&args.assets, &args.cache, remote.map(|r| r as _)));
    let mut app = App::new(gpu, workspace, watcher, script, args.screenshot.clone());
    let mut outcome: Result<(), ViewerError> = Ok(());
    event_loop.run_return(|event, _, control_flow| {
        *control_flow = ControlFlow::Poll;
        match app.handle(event) {
            Ok(Flow::Continue) => {}
            Ok(Flow::Exit) => *control_flow = ControlFlow::Exit,
            Err(e) => {
                outcome = Err(e);
                *control_flow = ControlFlow::Exit;
            }
        }
    });
    let summary = app.summary();
    // The surface goes before the window it was made from.
    drop(app);
    drop(window);
    outcome.map(|()| summary)
}

fn open_event_loop() -> Result<EventLoop<()>, ViewerError> {
    let x11 = std::env::var_os("DISPLAY").is_some_and(|d| !d.is_empty());
    let wayland = std::env::var_os("WAYLAND_DISPLAY").is_some_and(|d| !d.is_empty());
    match (x11, wayland) {
        (false, false) => Err(ViewerError::NoDisplay),
        (true, false) => {
            use winit::platform::unix::EventLoopExtUnix;
            EventLoop::new_x11().map_err(|e| ViewerError::X11(e.to_string()))
        }
        _ => Ok(EventLoop::new()),
    }
}

enum Flow {
    Continue,
    Exit,
}

struct App {
    gpu: Gpu,
    workspace: Workspace<Runtime>,
    watcher: Option<Watcher>,
    /// What the last frame drew.
    drawn: FrameStats,
    controls: Controls,
    camera: CameraController,
    hud: HudUi,
    clock: FrameClock,
    player: Option<Player>,
    /// Written on the run's last frame.
    final_screenshot: Option<PathBuf>,
    /// Taken on the current frame.
    screenshot: Option<PathBuf>,
    input: Vec<InputEvent>,
    started: Instant,
    last_frame: Instant,
    last_preset_poll: Instant,
    frames: usize,
    screenshots: Vec<Screenshot>,
    saved: Vec<String>,
    opened: Vec<String>,
    quit: bool,
}

impl App {
    fn new(
        gpu: Gpu,
        workspace: Workspace<Runtime>,
        watcher: Option<Watcher>,
        script: Option<Script>,
        final_screenshot: Option<PathBuf>,
    ) -> Self {
        let meadow = Landmark::Meadow.position();
        let terrain = workspace.terrain();
        // The default world's meadow, or the middle of a user heightmap.
        let focus = if terrain.contains(meadow.x, meadow.y) {
            meadow
        } else {
            (terrain.min_corner() + terrain.max_corner()) * 0.5
        };
        let target = Vec3::new(focus.x, terrain.sample_height(focus.x, focus.y), focus.y);
        let now = Instant::now();
        Self {
            gpu,
            camera: CameraController::orbit(target, 90.0, 0.0, 0.55)
                .fit_world(terrain.size().max_element()),
            workspace,
            watcher,
            drawn: FrameStats::default(),
            controls: Controls::default(),
            hud: HudUi::new(),
            clock: FrameClock::default(),
            player: script.map(Player::new),
            final_screenshot,
            screenshot: None,
            input: Vec::new(),
            started: now,
            last_frame: now,
            last_preset_poll: now,
            frames: 0,
            screenshots: Vec::new(),
            saved: Vec::new(),
            opened: Vec::new(),
            quit: false,
        }
    }

    fn handle(&mut self, event: Event<()>) -> Result<Flow, ViewerError> {
        match event {
            Event::WindowEvent { event, .. } => {
                match event {
                    WindowEvent::CloseRequested => return Ok(Flow::Exit),
                    WindowEvent::Resized(size) => {
                        self.gpu
                            .resize(self.workspace.host(), size.width, size.height)
                    }
                    other => {
                        // A scripted run is deterministic: real input is ignored.
                        if let (None, Some(input)) = (&self.player, translate(&other)) {
                            self.input.push(input);
                        }
                    }
                }
                Ok(Flow::Continue)
            }
            Event::MainEventsCleared => self.frame(),
            _ => Ok(Flow::Continue),
        }
    }

    fn frame(&mut self) -> Result<Flow, ViewerError> {
        let frame_start = Instant::now();
        let dt = (frame_start - self.last_frame).as_secs_f32();
        self.last_frame = frame_start;
        let elapsed = frame_start - self.started;

        let last_frame = if self.player.is_some() {
            self.play_script(elapsed)?
        } else {
            self.quit || self.capture_is_ready(elapsed)?
        };
        if last_frame {
            if let Some(path) = self.final_screenshot.clone() {
                self.screenshot = Some(path);
            }
        }
        self.apply_input();
        if frame_start - self.last_preset_poll >= PRESET_POLL {
            self.last_preset_poll = frame_start;
            self.workspace.rescan_presets();
        }
        for pass in self.watcher.iter().flat_map(Watcher::poll) {
            self.workspace.apply_watch_pass(&pass);
        }
        self.workspace.poll_fill();
        self.workspace.poll_loads();
        self.move_camera(dt);
        self.draw(elapsed)?;
        self.frames += 1;
        self.clock.frame(frame_start.elapsed().as_secs_f64());
        Ok(if last_frame {
            Flow::Exit
        } else {
            Flow::Continue
        })
    }

    /// Plays this frame's script step; true when the script is over.
    fn play_script(&mut self, elapsed: Duration) -> Result<bool, ViewerError> {
        let Some(player) = &mut self.player else {
            return Ok(true);
        };
        let progress = Progress {
            elapsed,
            loads_in_flight: self.workspace.loads_in_flight() > 0,
            rebakes: self.workspace.rebakes(),
            fill_running: self.workspace.fill_progress().is_some(),
        };
        let cue = player.next_frame(progress);
        let (source_name, line) = (player.source_name().to_owned(), player.line());
        let step_error = |message| ViewerError::ScriptStep {
            source_name,
            line,
            message,
        };
        match cue {
            Cue::Act(act) => {
                self.act(act).map_err(step_error)?;
                Ok(false)
            }
            Cue::Idle => Ok(false),
            Cue::Stuck { waited } => Err(step_error(format!(
                "still waiting after {} s",
                waited.as_secs()
            ))),
            Cue::Done => Ok(true),
        }
    }

    /// A `--screenshot` run without a script ends once every requested prop is in.
    fn capture_is_ready(&self, elapsed: Duration) -> Result<bool, ViewerError> {
        if self.final_screenshot.is_none() || self.frames < 2 {
            return Ok(false);
        }
        if self.workspace.loads_in_flight() == 0 {
            return Ok(true);
        }
        if elapsed > LOAD_PATIENCE {
            return Err(ViewerError::LoadTimeout {
                seconds: LOAD_PATIENCE.as_secs(),
            });
        }
        Ok(false)
    }

    /// Hands this frame's input to the HUD and the controls, and runs the commands.
    fn apply_input(&mut self) {
        let mut commands = Vec::new();
        for event in std::mem::take(&mut self.input) {
            self.hud.input(&event);
            let on_hud = self.hud.claims_pointer();
            self.controls.handle(event, on_hud, &mut commands);
        }
        for command in commands {
            self.execute(command);
        }
    }

    /// Moves the camera by the held keys and drags; the cursor follows.
    fn move_camera(&mut self, dt: f32) {
        let camera_input = self.controls.take_camera_input();
        if camera_input == Default::default() {
            return;
        }
        let terrain = self.workspace.terrain();
        self.camera
            .update(&camera_input, dt, |x, z| terrain.sample_height(x, z));
        if let Some(pointer) = self.controls.pointer() {
            self.hover(pointer);
        }
    }

    /// Places the cursor, lays out the HUD (running its clicks) and draws the frame,
    /// into the screenshot first when one is due.
    fn draw(&mut self, elapsed: Duration) -> Result<(), ViewerError> {
        let lasso_mode = self.controls.lasso_mode();
        let erasing =
            !lasso_mode && (self.controls.erase_mode() || self.controls.is_held(Key::Shift));
        let markers = self.workspace.cursor_markers(erasing);
        self.gpu.set_cursor(&markers);

        let figures = FrameFigures {
            draw: &self.drawn.draw,
            clock: &self.clock,
            camera: self.camera.mode(),
            erase_mode: erasing,
            lasso_mode,
            watching: self.watcher.is_some(),
        };
        let model = HudModel::build(&self.workspace, &figures);
        let size = self.gpu.size().as_vec2();
        // A scripted run gives the HUD a clock of its own, 60 frames a second, so a
        // press and release on consecutive frames is a click however slow frames are.
        let hud_time = match self.player {
            Some(_) => self.frames as f64 / 60.0,
            None => elapsed.as_secs_f64(),
        };
        let hud = self.hud.frame(&model, Vec2::new(size.x, size.y), hud_time);
        for command in &hud.commands {
            self.execute(command.clone());
        }

        let (view, now) = (self.camera.view(), elapsed.as_secs_f64());
        if let Some(path) = self.screenshot.take() {
            let runtime = self.workspace.host_mut();
            let drawn = self.gpu.screenshot(runtime, view, now, &hud, &path)?;
            self.screenshots.push(Screenshot {
                path: path.display().to_string(),
                draw: DrawFigures::from(&drawn.draw),
                revisions: self.revisions(),
            });
        }
        if let Some(drawn) = self.gpu.present(self.workspace.host_mut(), view, now, &hud) {
            self.drawn = drawn;
        }
        Ok(())
    }

    /// Casts the pointer's ray; the cursor follows the hit.
    fn hover(&mut self, pointer: Vec2) -> Option<Vec2> {
        let size = self.gpu.size().as_vec2();
        let ray = self.camera.ray_through(pointer, Vec2::new(size.x, size.y));
        self.workspace
            .cast_pointer(&ray)
            .hit
            .map(|hit| Vec2::new(hit.x, hit.z))
    }

    fn execute(&mut self, command: Command) {
        match command {
            Command::Hover(at) => {
                self.hover(at);
            }
            Command::BeginStroke { at, erase } => {
                self.workspace.begin_stroke(erase);
                if let Some(ground) = self.hover(at) {
                    self.workspace.stroke_to(ground);
                }
            }
            Command::StrokeTo(_) => {
                // The Hover before it cast the ray.
                if let Some(hit) = self.workspace.last_hover().and_then(|h| h.hit) {
                    self.workspace.stroke_to(Vec2::new(hit.x, hit.z));
                }
            }
            Command::EndStroke => self.workspace.end_stroke(),
            Command::FillView => self.fill_view(),
            Command::BeginLasso(at) => {
                if let Some(ground) = self.hover(at) {
                    self.workspace.begin_lasso(ground);
                }
            }
            Command::LassoTo(_) => {
                // The Hover before it cast the ray.
                if let Some(hit) = self.workspace.last_hover().and_then(|h| h.hit) {
                    self.workspace.lasso_to(Vec2::new(hit.x, hit.z));
                }
            }
            Command::EndLasso => self.workspace.end_lasso(),
            Command::ToggleLassoMode => {
                let on = !self.controls.lasso_mode();
                self.controls.set_lasso_mode(on);
            }
            Command::Undo => self.workspace.undo(),
            Command::Redo => self.workspace.redo(),
            Command::Save => match self.workspace.save(None) {
                Ok(path) => self.saved.push(path.display().to_string()),
                Err(e) => self.workspace.error(e.to_string()),
            },
            Command::Open => match self.workspace.open_session(None) {
                Ok(path) => self.opened.push(path.display().to_string()),
                Err(e) => self.workspace.error(e.to_string()),
            },
            Command::PickPreset(index) => {
                if let Err(e) = self.workspace.pick_preset(index) {
                    self.workspace.error(e.to_string());
                }
            }
            Command::ScaleRadius(factor) => {
                let radius = self.workspace.brush().radius * factor;
                self.workspace.set_radius(radius);
            }
            Command::ScaleDensity(factor) => {
                let density = self.workspace.brush().density_per_m2 * factor;
                self.workspace.set_density(density);
            }
            Command::SetLodErrorPx(pixels) => {
                if let Err(e) = self.workspace.set_lod_error_px(pixels) {
                    self.workspace.error(e.to_string());
                }
            }
            Command::ToggleEraseMode => {
                let on = !self.controls.erase_mode();
                self.controls.set_erase_mode(on);
            }
            Command::ToggleCameraMode => {
                let mode = match self.camera.mode() {
                    CameraMode::Orbit => CameraMode::Fly,
                    CameraMode::Fly => CameraMode::Orbit,
                };
                let terrain = self.workspace.terrain();
                self.camera
                    .set_mode(mode, |x, z| terrain.sample_height(x, z));
            }
            Command::Cancel => {
                if self.workspace.cancel() {
                    self.controls.drop_lasso();
                } else {
                    self.quit = true;
                }
            }
        }
    }

    /// Fills the ground in view with the active preset.
    fn fill_view(&mut self) {
        let size = self.gpu.size().as_vec2();
        let size = Vec2::new(size.x, size.y);
        let camera = &self.camera;
        let started = self
            .workspace
            .fill_view(size, |pixel| camera.ray_through(pixel, size));
        if let Err(e) = started {
            self.workspace.error(e.to_string());
        }
    }

    /// Applies one script step; errors end the run with the step's line.
    fn act(&mut self, act: Act) -> Result<(), String> {
        match act {
            Act::Input(event) => self.input.push(event),
            Act::Chord(keys) => {
                for &key in &keys {
                    self.input.push(InputEvent::Key { key, pressed: true });
                }
                for &key in keys.iter().rev() {
                    self.input.push(InputEvent::Key {
                        key,
                        pressed: false,
                    });
                }
            }
            Act::Camera {
                target,
                distance,
                yaw_degrees,
                pitch_degrees,
            } => {
                let at = match target {
                    Place::At(at) => at,
                    Place::Landmark(name) => Landmark::from_str(&name)
                        .map_err(|e| e.to_string())?
                        .position(),
                };
                let terrain = self.workspace.terrain();
                let ground = Vec3::new(at.x, terrain.sample_height(at.x, at.y), at.y);
                self.camera = CameraController::orbit(
                    ground,
                    distance,
                    yaw_degrees.to_radians(),
                    pitch_degrees.to_radians(),
                )
                .fit_world(terrain.size().max_element());
            }
            Act::Preset(stem) => self
                .workspace
                .pick_preset_named(&stem)
                .map_err(|e| e.to_string())?,
            Act::Radius(radius) => self.workspace.set_radius(radius),
            Act::Density(density) => self.workspace.set_density(density),
            Act::Screenshot(path) => self.screenshot = Some(path),
            Act::Save(path) => {
                let path = self
                    .workspace
                    .save(path.as_deref())
                    .map_err(|e| e.to_string())?;
                self.saved.push(path.display().to_string());
            }
            Act::Open(path) => {
                let path = self
                    .workspace
                    .open_session(path.as_deref())
                    .map_err(|e| e.to_string())?;
                self.opened.push(path.display().to_string());
            }
        }
        Ok(())
    }

    /// The geometry revision drawn for each prop (the last good one after a failure).
    fn revisions(&self) -> std::collections::BTreeMap<String, u64> {
        self.workspace
            .statuses()
            .iter()
            .filter_map(|(id, status)| match status {
                PropStatus::Loaded { revision, .. }
                | PropStatus::Failed {
                    revision: Some(revision),
                    ..
                } => Some((id.to_string(), *revision)),
                _ => None,
            })
            .collect()
    }

    fn summary(&self) -> RunSummary {
        let painter = self.workspace.world().editor().painter();
        let size = self.gpu.size();
        RunSummary {
            adapter: self.gpu.adapter().to_owned(),
            window: [size.x, size.y],
            frames: self.frames,
            strokes: self.workspace.strokes(),
            fills: self.workspace.fills(),
            placements: painter.len(),
            digest: painter.digest(),
            saved: self.saved.clone(),
            opened: self.opened.clone(),
            autosave: self.workspace.autosave().path().display().to_string(),
            autosaves: self.workspace.autosave().writes(),
            first_stroke_ms: self.workspace.first_stroke_ms().values().to_vec(),
            raycast_us: self.workspace.raycast_micros().stats(),
            frame_ms: self.clock.all_ms(),
            loads: self.workspace.load_counters(),
            draw: DrawFigures::from(&self.drawn.draw),
            revisions: self.revisions(),
            watch_passes: self.workspace.watch_passes(),
            screenshots: self.screenshots.clone(),
            errors: self.workspace.errors().to_vec(),
        }
    }
}

/// The viewer's input vocabulary for a winit window event, if it has a meaning here.
fn translate(event: &WindowEvent) -> Option<InputEvent> {
    match event {
        WindowEvent::CursorMoved { position, .. } => Some(InputEvent::PointerMoved(Vec2::new(
            position.x as f32,
            position.y as f32,
        ))),
        WindowEvent::MouseInput { state, button, .. } => Some(InputEvent::Button {
            button: match button {
                MouseButton::Left => Button::Left,
                MouseButton::Right => Button::Right,
                MouseButton::Middle => Button::Middle,
                MouseButton::Other(_) => return None,
            },
            pressed: *state == ElementState::Pressed,
        }),
        WindowEvent::MouseWheel { delta, .. } => Some(InputEvent::Wheel(match delta {
            MouseScrollDelta::LineDelta(_, lines) => *lines,
            MouseScrollDelta::PixelDelta(pixels) => pixels.y as f32 / 40.0,
        })),
        WindowEvent::KeyboardInput {
            input:
                KeyboardInput {
                    virtual_keycode: Some(code),
                    state,
                    ..
                },
            ..
        } => Some(InputEvent::Key {
            key: key_of(*code)?,
            pressed: *state == ElementState::Pressed,
        }),
        _ => None,
    }
}

fn key_of(code: VirtualKeyCode) -> Option<Key> {
    use VirtualKeyCode as K;
    Some(match code {
        K::LShift | K::RShift => Key::Shift,
        K::LControl | K::RControl => Key::Ctrl,
        K::Tab => Key::Tab,
        K::Escape => Key::Escape,
        K::W => Key::W,
        K::A => Key::A,
        K::S => Key::S,
        K::D => Key::D,
        K::Q => Key::Q,
        K::E => Key::E,
        K::Z => Key::Z,
        K::Y => Key::Y,
        K::O => Key::O,
        K::Up => Key::Up,
        K::Down => Key::Down,
        K::Left => Key::Left,
        K::Right => Key::Right,
        K::LBracket => Key::BracketLeft,
        K::RBracket => Key::BracketRight,
        K::Minus | K::NumpadSubtract => Key::Minus,
        K::Equals | K::Plus | K::NumpadAdd => Key::Equals,
        K::Key1 => Key::Digit(1),
        K::Key2 => Key::Digit(2),
        K::Key3 => Key::Digit(3),
        K::Key4 => Key::Digit(4),
        K::Key5 => Key::Digit(5),
        K::Key6 => Key::Digit(6),
        K::Key7 => Key::Digit(7),
        K::Key8 => Key::Digit(8),
        K::Key9 => Key::Digit(9),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn window_keys_map_to_the_viewers_keys() {
        use VirtualKeyCode as K;
        let cases = [
            (K::LShift, Some(Key::Shift)),
            (K::RControl, Some(Key::Ctrl)),
            (K::Z, Some(Key::Z)),
            (K::LBracket, Some(Key::BracketLeft)),
            (K::NumpadAdd, Some(Key::Equals)),
            (K::Key7, Some(Key::Digit(7))),
            (K::Key0, None),
            (K::F5, None),
        ];
        for (code, key) in cases {
            assert_eq!(key_of(code), key, "{code:?}");
        }
    }

    #[test]
    fn wheel_pixels_become_lines() {
        // SAFETY: winit's dummy device id exists for tests; it never reaches the
        // platform.
        let device_id = unsafe { winit::event::DeviceId::dummy() };
        let event = WindowEvent::MouseWheel {
            device_id,
            delta: MouseScrollDelta::PixelDelta(winit::dpi::PhysicalPosition::new(0.0, 80.0)),
            phase: winit::event::TouchPhase::Moved,
            modifiers: Default::default(),
        };
        assert_eq!(translate(&event), Some(InputEvent::Wheel(2.0)));
    }
}

//! Input as the viewer understands it: a small vocabulary of pointer, button, key and
//! wheel events (what winit delivers and what scripts replay), and [`Controls`], which
//! turns them into [`Command`]s and per-frame camera axes. Pure: no window, no clock.

use std::collections::BTreeSet;
use std::fmt;
use std::str::FromStr;

use glam::Vec2;

use crate::camera::CameraInput;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Button {
    Left,
    Right,
    Middle,
}

/// The keys the viewer responds to. Left and right modifier keys are one key each.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Key {
    Shift,
    Ctrl,
    Tab,
    Escape,
    W,
    A,
    S,
    D,
    Q,
    E,
    F,
    L,
    Z,
    Y,
    O,
    Up,
    Down,
    Left,
    Right,
    /// `[`: smaller brush.
    BracketLeft,
    /// `]`: larger brush.
    BracketRight,
    /// `-`: sparser brush.
    Minus,
    /// `=`: denser brush.
    Equals,
    /// `1` … `9`: presets in list order.
    Digit(u8),
}

const NAMED_KEYS: [(&str, Key); 24] = [
    ("shift", Key::Shift),
    ("ctrl", Key::Ctrl),
    ("tab", Key::Tab),
    ("escape", Key::Escape),
    ("w", Key::W),
    ("a", Key::A),
    ("s", Key::S),
    ("d", Key::D),
    ("q", Key::Q),
    ("e", Key::E),
    ("f", Key::F),
    ("l", Key::L),
    ("z", Key::Z),
    ("y", Key::Y),
    ("o", Key::O),
    ("up", Key::Up),
    ("down", Key::Down),
    ("left", Key::Left),
    ("right", Key::Right),
    ("[", Key::BracketLeft),
    ("]", Key::BracketRight),
    ("-", Key::Minus),
    ("=", Key::Equals),
    ("+", Key::Equals),
];

impl FromStr for Key {
    type Err = String;

    /// Script names: `shift`, `ctrl`, `tab`, `escape`, letters, `up` …, `[`, `]`, `-`,
    /// `=` (or `+`), digits `1`–`9`.
    fn from_str(text: &str) -> Result<Self, String> {
        let lower = text.to_ascii_lowercase();
        if let Some((_, key)) = NAMED_KEYS.iter().find(|(name, _)| *name == lower) {
            return Ok(*key);
        }
        match lower.as_bytes() {
            [digit @ b'1'..=b'9'] => Ok(Key::Digit(digit - b'0')),
            _ => Err(format!(
                "unknown key `{text}` (known: {}, 1–9)",
                NAMED_KEYS.map(|(name, _)| name).join(", ")
            )),
        }
    }
}

impl fmt::Display for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Key::Digit(d) => write!(f, "{d}"),
            key => {
                let name = NAMED_KEYS
                    .iter()
                    .find(|(_, k)| k == key)
                    .map_or("?", |(name, _)| name);
                f.write_str(name)
            }
        }
    }
}

/// One input event, in window pixels (origin top left).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum InputEvent {
    PointerMoved(Vec2),
    Button {
        button: Button,
        pressed: bool,
    },
    Key {
        key: Key,
        pressed: bool,
    },
    /// Wheel lines, + away from the user.
    Wheel(f32),
}

/// What the viewer should do.
#[derive(Clone, Debug, PartialEq)]
pub enum Command {
    /// The pointer is over this pixel (cast a ray for the cursor).
    Hover(Vec2),
    /// Pointer down on the terrain: start a paint stroke, or an erase stroke when
    /// `erase` (Shift held or erase mode on).
    BeginStroke {
        at: Vec2,
        erase: bool,
    },
    /// The pointer moved while a stroke is open.
    StrokeTo(Vec2),
    EndStroke,
    /// Fill the ground in view with the active preset.
    FillView,
    /// Pointer down in lasso mode: start a lasso there.
    BeginLasso(Vec2),
    /// The pointer moved while a lasso is open.
    LassoTo(Vec2),
    /// Release: close the lasso and fill it.
    EndLasso,
    ToggleLassoMode,
    Undo,
    Redo,
    Save,
    /// Open the session file again (revert to the last save).
    Open,
    /// Pick the preset at this index of the preset list.
    PickPreset(usize),
    /// Multiply the brush radius by this factor.
    ScaleRadius(f32),
    /// Multiply the candidate density by this factor.
    ScaleDensity(f32),
    ToggleEraseMode,
    ToggleCameraMode,
    /// Set the largest error an LOD level may show, in pixels (the HUD's slider).
    SetLodErrorPx(f32),
    /// Esc: cancel the running fill or the open lasso; with neither, quit.
    Cancel,
}

/// Brush size and density change by this factor per key press.
pub const BRUSH_STEP: f32 = 1.25;

/// Turns input events into commands and remembers what is held.
#[derive(Clone, Debug, Default)]
pub struct Controls {
    held_keys: BTreeSet<Key>,
    held_buttons: BTreeSet<Button>,
    pointer: Option<Vec2>,
    stroke_open: bool,
    lasso_open: bool,
    erase_mode: bool,
    lasso_mode: bool,
    drag_px: Vec2,
    wheel_lines: f32,
}

impl Controls {
    pub fn is_held(&self, key: Key) -> bool {
        self.held_keys.contains(&key)
    }

    pub fn pointer(&self) -> Option<Vec2> {
        self.pointer
    }

    pub fn erase_mode(&self) -> bool {
        self.erase_mode
    }

    pub fn lasso_mode(&self) -> bool {
        self.lasso_mode
    }

    /// Handles one event; `pointer_on_ui` says the HUD claims the pointer (its clicks
    /// must not paint). Commands are appended to `out`.
    pub fn handle(&mut self, event: InputEvent, pointer_on_ui: bool, out: &mut Vec<Command>) {
        match event {
            InputEvent::PointerMoved(at) => {
                if let (Some(previous), true) =
                    (self.pointer, self.held_buttons.contains(&Button::Right))
                {
                    self.drag_px += at - previous;
                }
                self.pointer = Some(at);
                out.push(Command::Hover(at));
                if self.stroke_open {
                    out.push(Command::StrokeTo(at));
                }
                if self.lasso_open {
                    out.push(Command::LassoTo(at));
                }
            }
            InputEvent::Button { button, pressed } => {
                let was_held = !if pressed {
                    self.held_buttons.insert(button)
                } else {
                    self.held_buttons.remove(&button)
                };
                match (button, pressed) {
                    (Button::Left, true) if !was_held && !pointer_on_ui && self.lasso_mode => {
                        if let Some(at) = self.pointer {
                            self.lasso_open = true;
                            out.push(Command::BeginLasso(at));
                        }
                    }
                    (Button::Left, true) if !was_held && !pointer_on_ui => {
                        if let Some(at) = self.pointer {
                            self.stroke_open = true;
                            let erase = self.erase_mode || self.is_held(Key::Shift);
                            out.push(Command::BeginStroke { at, erase });
                        }
                    }
                    (Button::Left, false) if self.stroke_open => {
                        self.stroke_open = false;
                        out.push(Command::EndStroke);
                    }
                    (Button::Left, false) if self.lasso_open => {
                        self.lasso_open = false;
                        out.push(Command::EndLasso);
                    }
                    _ => {}
                }
            }
            InputEvent::Key { key, pressed } => {
                let newly_pressed = if pressed {
                    self.held_keys.insert(key)
                } else {
                    self.held_keys.remove(&key);
                    false
                };
                if newly_pressed {
                    self.key_pressed(key, out);
                }
            }
            InputEvent::Wheel(lines) if lines.is_finite() && !pointer_on_ui => {
                self.wheel_lines += lines;
            }
            InputEvent::Wheel(_) => {}
        }
    }

    fn key_pressed(&self, key: Key, out: &mut Vec<Command>) {
        let ctrl = self.is_held(Key::Ctrl);
        let shift = self.is_held(Key::Shift);
        let command = match key {
            Key::Z if ctrl && shift => Command::Redo,
            Key::Z if ctrl => Command::Undo,
            Key::Y if ctrl => Command::Redo,
            Key::S if ctrl => Command::Save,
            Key::O if ctrl => Command::Open,
            Key::Escape => Command::Cancel,
            Key::F if !ctrl => Command::FillView,
            Key::L if !ctrl => Command::ToggleLassoMode,
            Key::Tab => Command::ToggleCameraMode,
            Key::E if !ctrl => Command::ToggleEraseMode,
            Key::BracketLeft => Command::ScaleRadius(1.0 / BRUSH_STEP),
            Key::BracketRight => Command::ScaleRadius(BRUSH_STEP),
            Key::Minus => Command::ScaleDensity(1.0 / BRUSH_STEP),
            Key::Equals => Command::ScaleDensity(BRUSH_STEP),
            Key::Digit(d) => Command::PickPreset(usize::from(d) - 1),
            _ => return,
        };
        out.push(command);
    }

    /// Turns the erase mode on or off (the HUD's button); it turns the lasso mode off.
    pub fn set_erase_mode(&mut self, on: bool) {
        self.erase_mode = on;
        self.lasso_mode &= !on;
    }

    /// Turns the lasso mode on or off: a left drag then draws a lasso to fill instead
    /// of painting. It turns the erase mode off.
    pub fn set_lasso_mode(&mut self, on: bool) {
        self.lasso_mode = on;
        self.erase_mode &= !on;
    }

    /// Forgets an open lasso (Esc cancelled it), so the release fills nothing.
    pub fn drop_lasso(&mut self) {
        self.lasso_open = false;
    }

    /// The camera input of this frame: held movement keys as axes, and the drag and
    /// wheel gathered since the last call (which resets them).
    pub fn take_camera_input(&mut self) -> CameraInput {
        let ctrl = self.is_held(Key::Ctrl);
        let axis = |plus: Key, minus: Key| {
            if ctrl {
                return 0.0;
            }
            f32::from(u8::from(self.is_held(plus))) - f32::from(u8::from(self.is_held(minus)))
        };
        let input = CameraInput {
            forward: axis(Key::W, Key::S),
            right: axis(Key::D, Key::A),
            up: axis(Key::Q, Key::Z),
            yaw: axis(Key::Right, Key::Left),
            pitch: axis(Key::Down, Key::Up),
            drag_px: self.drag_px,
            wheel_lines: self.wheel_lines,
        };
        self.drag_px = Vec2::ZERO;
        self.wheel_lines = 0.0;
        input
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(controls: &mut Controls, events: &[InputEvent]) -> Vec<Command> {
        let mut out = Vec::new();
        for &event in events {
            controls.handle(event, false, &mut out);
        }
        out
    }

    fn key(key: Key, pressed: bool) -> InputEvent {
        InputEvent::Key { key, pressed }
    }

    fn left(pressed: bool) -> InputEvent {
        InputEvent::Button {
            button: Button::Left,
            pressed,
        }
    }

    fn at(x: f32, y: f32) -> InputEvent {
        InputEvent::PointerMoved(Vec2::new(x, y))
    }

    #[test]
    fn a_left_drag_is_one_stroke() {
        let mut c = Controls::default();
        let out = run(
            &mut c,
            &[at(10.0, 10.0), left(true), at(20.0, 10.0), left(false)],
        );
        assert_eq!(
            out,
            [
                Command::Hover(Vec2::new(10.0, 10.0)),
                Command::BeginStroke {
                    at: Vec2::new(10.0, 10.0),
                    erase: false
                },
                Command::Hover(Vec2::new(20.0, 10.0)),
                Command::StrokeTo(Vec2::new(20.0, 10.0)),
                Command::EndStroke,
            ]
        );
    }

    #[test]
    fn shift_or_erase_mode_makes_the_stroke_erase() {
        let mut c = Controls::default();
        let out = run(&mut c, &[at(1.0, 1.0), key(Key::Shift, true), left(true)]);
        assert!(out.contains(&Command::BeginStroke {
            at: Vec2::ONE,
            erase: true
        }));
        let mut c = Controls::default();
        let out = run(&mut c, &[key(Key::E, true)]);
        assert_eq!(out, [Command::ToggleEraseMode]);
        c.set_erase_mode(true);
        let out = run(&mut c, &[at(1.0, 1.0), left(true)]);
        assert!(matches!(out[1], Command::BeginStroke { erase: true, .. }));
    }

    #[test]
    fn clicks_on_the_hud_do_not_paint() {
        let mut c = Controls::default();
        let mut out = Vec::new();
        c.handle(at(5.0, 5.0), true, &mut out);
        c.handle(left(true), true, &mut out);
        c.handle(left(false), true, &mut out);
        assert_eq!(out, [Command::Hover(Vec2::new(5.0, 5.0))]);
    }

    #[test]
    fn ctrl_shortcuts_undo_redo_save_and_open() {
        let mut c = Controls::default();
        let press = |k| [key(k, true), key(k, false)];
        let mut events = vec![key(Key::Ctrl, true)];
        for k in [Key::Z, Key::Y, Key::S, Key::O] {
            events.extend(press(k));
        }
        events.push(key(Key::Shift, true));
        events.extend(press(Key::Z));
        let out = run(&mut c, &events);
        assert_eq!(
            out,
            [
                Command::Undo,
                Command::Redo,
                Command::Save,
                Command::Open,
                Command::Redo
            ]
        );
    }

    #[test]
    fn in_lasso_mode_a_left_drag_draws_a_lasso_and_esc_cancels() {
        let mut c = Controls::default();
        assert_eq!(
            run(&mut c, &[key(Key::L, true)]),
            [Command::ToggleLassoMode]
        );
        c.set_erase_mode(true);
        c.set_lasso_mode(true);
        assert!(!c.erase_mode(), "lasso and erase modes exclude each other");
        let out = run(
            &mut c,
            &[at(1.0, 1.0), left(true), at(5.0, 1.0), left(false)],
        );
        assert_eq!(
            out,
            [
                Command::Hover(Vec2::ONE),
                Command::BeginLasso(Vec2::ONE),
                Command::Hover(Vec2::new(5.0, 1.0)),
                Command::LassoTo(Vec2::new(5.0, 1.0)),
                Command::EndLasso,
            ]
        );
        let out = run(&mut c, &[key(Key::F, true), key(Key::Escape, true)]);
        assert_eq!(out, [Command::FillView, Command::Cancel]);
        run(&mut c, &[left(true)]);
        c.drop_lasso();
        assert_eq!(run(&mut c, &[left(false)]), []);
    }

    #[test]
    fn a_held_key_fires_its_command_once() {
        let mut c = Controls::default();
        let out = run(
            &mut c,
            &[key(Key::Digit(2), true), key(Key::Digit(2), true)],
        );
        assert_eq!(out, [Command::PickPreset(1)]);
    }

    #[test]
    fn held_keys_become_camera_axes_but_not_under_ctrl() {
        let mut c = Controls::default();
        run(&mut c, &[key(Key::W, true), key(Key::A, true)]);
        let input = c.take_camera_input();
        assert_eq!((input.forward, input.right), (1.0, -1.0));
        run(&mut c, &[key(Key::Ctrl, true)]);
        assert_eq!(c.take_camera_input().forward, 0.0);
    }

    #[test]
    fn right_drag_and_wheel_accumulate_until_taken() {
        let mut c = Controls::default();
        let right = |pressed| InputEvent::Button {
            button: Button::Right,
            pressed,
        };
        run(
            &mut c,
            &[
                at(0.0, 0.0),
                right(true),
                at(5.0, 2.0),
                at(9.0, 3.0),
                InputEvent::Wheel(1.5),
            ],
        );
        let input = c.take_camera_input();
        assert_eq!(
            (input.drag_px, input.wheel_lines),
            (Vec2::new(9.0, 3.0), 1.5)
        );
        assert_eq!(c.take_camera_input().drag_px, Vec2::ZERO);
    }

    #[test]
    fn key_names_parse_and_print_back() {
        for name in ["shift", "ctrl", "z", "[", "]", "=", "7", "escape"] {
            let key: Key = name.parse().unwrap();
            assert_eq!(key.to_string(), name);
        }
        assert!("0".parse::<Key>().is_err());
        assert!("f13"
            .parse::<Key>()
            .unwrap_err()
            .contains("unknown key `f13`"));
    }
}

//! Scripted runs: a text file of recorded input and checkpoints that drives the real
//! window, one step per frame, so CI can paint, erase, undo, save and take screenshots
//! under Xvfb. The format, one step per line (`#` starts a comment):
//!
//! ```text
//! camera meadow 70 20 40     # orbit a landmark or X,Z: distance m, yaw °, pitch °
//! preset mixed_forest        # pick a preset by file stem
//! radius 8                   # brush radius, metres
//! density 0.4                # candidates per square metre
//! move 320 180               # pointer to window pixel (x, y)
//! down                       # button down: left (default), right or middle
//! up right
//! drag 200 180 440 180 12    # down, 12 moves (one per frame) to the end, up
//! key ctrl+z                 # press and release, with modifiers held meanwhile
//! press shift                # hold a key …
//! release shift              # … and let it go
//! wheel 2                    # wheel lines, + zooms in
//! wait 10 frames             # or: wait 250 ms, wait loads (props in flight),
//!                            #   wait bake (the watcher re-baked a prop, and it loaded)
//!                            #   or wait fill (the running fill is in, or ended)
//! screenshot out/a.png       # write the next frame to a PNG
//! save out/run.session.ron   # save the session (default: the session file)
//! open out/run.session.ron   # open a session in place of this one (default: the
//!                            #   session file, i.e. revert to the last save)
//! ```

use std::path::PathBuf;
use std::time::Duration;

use glam::Vec2;
use thiserror::Error;

use crate::input::{Button, InputEvent, Key};

#[derive(Debug, Clone, PartialEq, Error)]
#[error("{source_name}:{line}: {message}")]
pub struct ScriptError {
    pub source_name: String,
    pub line: usize,
    pub message: String,
}

/// Where the camera should orbit.
#[derive(Clone, Debug, PartialEq)]
pub enum Place {
    Landmark(String),
    At(Vec2),
}

/// One step of a script.
#[derive(Clone, Debug, PartialEq)]
pub enum Action {
    /// Happens on one frame.
    Do(Act),
    /// A button press, `moves` pointer moves from `from` to `to` (one per frame), and
    /// the release.
    Drag {
        button: Button,
        from: Vec2,
        to: Vec2,
        moves: u32,
    },
    Wait(WaitFor),
}

/// What a frame of a scripted run does.
#[derive(Clone, Debug, PartialEq)]
pub enum Act {
    Input(InputEvent),
    /// Press `keys` in order, then release them in reverse order, within one frame.
    Chord(Vec<Key>),
    Camera {
        target: Place,
        distance: f32,
        yaw_degrees: f32,
        pitch_degrees: f32,
    },
    Preset(String),
    Radius(f32),
    Density(f32),
    Screenshot(PathBuf),
    Save(Option<PathBuf>),
    Open(Option<PathBuf>),
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum WaitFor {
    Frames(u32),
    Time(Duration),
    /// Until no prop load is in flight.
    Loads,
    /// Until the bake watcher re-baked a prop (after this step began) and no load is
    /// in flight.
    Bake,
    /// Until no fill is being planned.
    Fill,
}

/// Longest a `wait loads`, `wait bake` or `wait fill` may take before the run fails.
pub const WAIT_LIMIT: Duration = Duration::from_secs(180);

/// What the run has done so far, as waits see it.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Progress {
    /// Since the run started.
    pub elapsed: Duration,
    pub loads_in_flight: bool,
    /// Bake watch passes so far that re-baked at least one prop.
    pub rebakes: u32,
    pub fill_running: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Step {
    /// 1-based line in the script file.
    pub line: usize,
    pub action: Action,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Script {
    pub source_name: String,
    pub steps: Vec<Step>,
}

impl Script {
    pub fn parse(text: &str, source_name: &str) -> Result<Self, ScriptError> {
        let mut steps = Vec::new();
        for (index, raw) in text.lines().enumerate() {
            let line = raw.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            let action = parse_action(line).map_err(|message| ScriptError {
                source_name: source_name.to_owned(),
                line: index + 1,
                message,
            })?;
            steps.push(Step {
                line: index + 1,
                action,
            });
        }
        Ok(Self {
            source_name: source_name.to_owned(),
            steps,
        })
    }
}

fn parse_action(line: &str) -> Result<Action, String> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let (verb, args) = words.split_first().ok_or("empty step")?;
    let arity = |n: std::ops::RangeInclusive<usize>, usage: &str| {
        if n.contains(&args.len()) {
            Ok(())
        } else {
            Err(format!("`{verb}` takes {usage}"))
        }
    };
    match *verb {
        "move" => {
            arity(2..=2, "X Y (window pixels)")?;
            Ok(Action::Do(Act::Input(InputEvent::PointerMoved(pixel(
                args[0], args[1],
            )?))))
        }
        "down" | "up" => {
            arity(0..=1, "an optional button: left, right or middle")?;
            let button = args.first().map_or(Ok(Button::Left), |b| button(b))?;
            Ok(Action::Do(Act::Input(InputEvent::Button {
                button,
                pressed: *verb == "down",
            })))
        }
        "drag" => {
            arity(4..=6, "X1 Y1 X2 Y2 [MOVES] [BUTTON]")?;
            let moves = match args.get(4) {
                Some(n) => number::<u32>(n, "moves").and_then(|n| {
                    if (1..=10_000).contains(&n) {
                        Ok(n)
                    } else {
                        Err(format!("{n} moves: use 1 to 10000"))
                    }
                })?,
                None => 8,
            };
            Ok(Action::Drag {
                button: args.get(5).map_or(Ok(Button::Left), |b| button(b))?,
                from: pixel(args[0], args[1])?,
                to: pixel(args[2], args[3])?,
                moves,
            })
        }
        "key" => {
            arity(1..=1, "a key or chord such as ctrl+z")?;
            let keys = args[0]
                .split('+')
                .filter(|k| !k.is_empty())
                .map(str::parse)
                .collect::<Result<Vec<Key>, String>>()?;
            // `ctrl++` names the plus key.
            let keys = if args[0].ends_with("++") {
                [keys, vec![Key::Equals]].concat()
            } else {
                keys
            };
            if keys.is_empty() {
                return Err("`key` needs a key".into());
            }
            Ok(Action::Do(Act::Chord(keys)))
        }
        "press" | "release" => {
            arity(1..=1, "one key")?;
            Ok(Action::Do(Act::Input(InputEvent::Key {
                key: args[0].parse()?,
                pressed: *verb == "press",
            })))
        }
        "wheel" => {
            arity(1..=1, "a number of lines")?;
            Ok(Action::Do(Act::Input(InputEvent::Wheel(finite(
                args[0], "lines",
            )?))))
        }
        "camera" => {
            arity(
                4..=4,
                "TARGET DISTANCE YAW PITCH (a landmark or X,Z; metres; degrees)",
            )?;
            let target = match args[0].split_once(',') {
                Some((x, z)) => Place::At(Vec2::new(finite(x, "x")?, finite(z, "z")?)),
                None => Place::Landmark(args[0].to_owned()),
            };
            Ok(Action::Do(Act::Camera {
                target,
                distance: positive(args[1], "distance")?,
                yaw_degrees: finite(args[2], "yaw")?,
                pitch_degrees: finite(args[3], "pitch")?,
            }))
        }
        "preset" => {
            arity(1..=1, "a preset file stem, e.g. mixed_forest")?;
            Ok(Action::Do(Act::Preset(args[0].to_owned())))
        }
        "radius" => {
            arity(1..=1, "metres")?;
            Ok(Action::Do(Act::Radius(positive(args[0], "radius")?)))
        }
        "density" => {
            arity(1..=1, "candidates per square metre")?;
            Ok(Action::Do(Act::Density(positive(args[0], "density")?)))
        }
        "wait" => {
            arity(1..=2, "N frames, N ms, loads, bake or fill")?;
            match (args[0], args.get(1).copied()) {
                ("loads", None) => Ok(Action::Wait(WaitFor::Loads)),
                ("bake", None) => Ok(Action::Wait(WaitFor::Bake)),
                ("fill", None) => Ok(Action::Wait(WaitFor::Fill)),
                (n, Some("frames" | "frame")) => {
                    Ok(Action::Wait(WaitFor::Frames(number(n, "frames")?)))
                }
                (n, Some("ms")) => Ok(Action::Wait(WaitFor::Time(Duration::from_millis(number(
                    n, "ms",
                )?)))),
                _ => Err("`wait` takes N frames, N ms, loads, bake or fill".into()),
            }
        }
        "screenshot" => {
            arity(1..=1, "a PNG path")?;
            Ok(Action::Do(Act::Screenshot(PathBuf::from(args[0]))))
        }
        "save" => {
            arity(0..=1, "an optional path")?;
            Ok(Action::Do(Act::Save(args.first().map(PathBuf::from))))
        }
        "open" => {
            arity(0..=1, "an optional path")?;
            Ok(Action::Do(Act::Open(args.first().map(PathBuf::from))))
        }
        other => Err(format!(
            "unknown step `{other}` (known: move, down, up, drag, key, press, release, wheel, \
             camera, preset, radius, density, wait, screenshot, save, open)"
        )),
    }
}

fn number<T: std::str::FromStr>(text: &str, what: &str) -> Result<T, String> {
    text.parse()
        .map_err(|_| format!("{what}: `{text}` is not a whole number"))
}

fn finite(text: &str, what: &str) -> Result<f32, String> {
    text.parse::<f32>()
        .ok()
        .filter(|v| v.is_finite())
        .ok_or_else(|| format!("{what}: `{text}` is not a number"))
}

fn positive(text: &str, what: &str) -> Result<f32, String> {
    let value = finite(text, what)?;
    if value > 0.0 {
        Ok(value)
    } else {
        Err(format!("{what}: {value} must be above 0"))
    }
}

fn pixel(x: &str, y: &str) -> Result<Vec2, String> {
    Ok(Vec2::new(finite(x, "x")?, finite(y, "y")?))
}

fn button(text: &str) -> Result<Button, String> {
    match text {
        "left" => Ok(Button::Left),
        "right" => Ok(Button::Right),
        "middle" => Ok(Button::Middle),
        other => Err(format!("unknown button `{other}` (left, right or middle)")),
    }
}

/// What the window should do on one frame of a scripted run.
#[derive(Clone, Debug, PartialEq)]
pub enum Cue {
    Act(Act),
    /// Render the frame and wait.
    Idle,
    /// A `wait loads`, `wait bake` or `wait fill` waited longer than [`WAIT_LIMIT`].
    Stuck {
        waited: Duration,
    },
    /// The script is over.
    Done,
}

/// Plays a script one step per frame; waits hold it in place. A `drag` becomes a
/// button press, its moves (one per frame) and a release.
#[derive(Clone, Debug)]
pub struct Player {
    source_name: String,
    steps: std::vec::IntoIter<Step>,
    /// Acts of an expanded drag still to play.
    queued: std::collections::VecDeque<Act>,
    waiting: Option<Waiting>,
    current_line: usize,
}

#[derive(Clone, Copy, Debug)]
enum Waiting {
    Frames(u32),
    Until(Duration),
    Loads { since: Duration },
    Bake { since: Duration, rebakes: u32 },
    Fill { since: Duration },
}

impl Player {
    pub fn new(script: Script) -> Self {
        Self {
            source_name: script.source_name,
            steps: script.steps.into_iter(),
            queued: Default::default(),
            waiting: None,
            current_line: 0,
        }
    }

    pub fn source_name(&self) -> &str {
        &self.source_name
    }

    /// Line of the step played last, for error messages.
    pub fn line(&self) -> usize {
        self.current_line
    }

    /// The cue for the next frame, given what the run has done so far.
    pub fn next_frame(&mut self, progress: Progress) -> Cue {
        let elapsed = progress.elapsed;
        if let Some(waiting) = self.waiting {
            let (done, since) = match waiting {
                Waiting::Frames(0) => (true, None),
                Waiting::Frames(n) => {
                    self.waiting = Some(Waiting::Frames(n - 1));
                    (false, None)
                }
                Waiting::Until(t) => (elapsed >= t, None),
                Waiting::Loads { since } => (!progress.loads_in_flight, Some(since)),
                Waiting::Bake { since, rebakes } => (
                    progress.rebakes > rebakes && !progress.loads_in_flight,
                    Some(since),
                ),
                Waiting::Fill { since } => (!progress.fill_running, Some(since)),
            };
            if !done {
                return match since.map(|since| elapsed.saturating_sub(since)) {
                    Some(waited) if waited > WAIT_LIMIT => Cue::Stuck { waited },
                    _ => Cue::Idle,
                };
            }
            self.waiting = None;
        }
        if let Some(act) = self.queued.pop_front() {
            return Cue::Act(act);
        }
        let Some(step) = self.steps.next() else {
            return Cue::Done;
        };
        self.current_line = step.line;
        match step.action {
            Action::Do(act) => Cue::Act(act),
            Action::Wait(WaitFor::Frames(n)) => {
                self.waiting = Some(Waiting::Frames(n.saturating_sub(1)));
                Cue::Idle
            }
            Action::Wait(WaitFor::Time(duration)) => {
                self.waiting = Some(Waiting::Until(elapsed + duration));
                Cue::Idle
            }
            Action::Wait(WaitFor::Loads) => {
                self.waiting = Some(Waiting::Loads { since: elapsed });
                Cue::Idle
            }
            Action::Wait(WaitFor::Fill) => {
                self.waiting = Some(Waiting::Fill { since: elapsed });
                Cue::Idle
            }
            Action::Wait(WaitFor::Bake) => {
                self.waiting = Some(Waiting::Bake {
                    since: elapsed,
                    rebakes: progress.rebakes,
                });
                Cue::Idle
            }
            Action::Drag {
                button,
                from,
                to,
                moves,
            } => {
                let input = |event| Act::Input(event);
                self.queued.push_back(input(InputEvent::Button {
                    button,
                    pressed: true,
                }));
                for i in 1..=moves {
                    let at = from.lerp(to, i as f32 / moves as f32);
                    self.queued.push_back(input(InputEvent::PointerMoved(at)));
                }
                self.queued.push_back(input(InputEvent::Button {
                    button,
                    pressed: false,
                }));
                Cue::Act(input(InputEvent::PointerMoved(from)))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Script, ScriptError> {
        Script::parse(text, "test.script")
    }

    fn actions(text: &str) -> Vec<Action> {
        parse(text)
            .unwrap()
            .steps
            .into_iter()
            .map(|s| s.action)
            .collect()
    }

    #[test]
    fn every_step_kind_parses() {
        let script = parse(
            "# a comment\n\
             camera meadow 70 20 40\n\
             camera -20,10.5 50 0 30\n\
             preset mixed_forest\n\
             radius 8\n\
             density 0.4\n\
             move 320 180   # trailing comment\n\
             down\n\
             up right\n\
             drag 1 2 3 4 5 middle\n\
             key ctrl+z\n\
             press shift\n\
             release shift\n\
             wheel -1.5\n\
             wait 3 frames\n\
             wait 200 ms\n\
             wait loads\n\
             wait bake\n\
             wait fill\n\
             screenshot out/a.png\n\
             save\n\
             save out/b.session.ron\n",
        )
        .unwrap();
        assert_eq!(script.steps.len(), 21);
        assert_eq!(script.steps[0].line, 2);
        assert_eq!(
            script.steps[1].action,
            Action::Do(Act::Camera {
                target: Place::At(Vec2::new(-20.0, 10.5)),
                distance: 50.0,
                yaw_degrees: 0.0,
                pitch_degrees: 30.0
            })
        );
        assert_eq!(
            script.steps[9].action,
            Action::Do(Act::Chord(vec![Key::Ctrl, Key::Z]))
        );
        assert_eq!(
            script.steps[8].action,
            Action::Drag {
                button: Button::Middle,
                from: Vec2::new(1.0, 2.0),
                to: Vec2::new(3.0, 4.0),
                moves: 5
            }
        );
        assert_eq!(script.steps[17].action, Action::Wait(WaitFor::Fill));
        assert_eq!(
            script.steps[20].action,
            Action::Do(Act::Save(Some("out/b.session.ron".into())))
        );
    }

    #[test]
    fn mistakes_name_the_line_and_the_problem() {
        let cases = [
            ("move 1", "test.script:1: `move` takes X Y"),
            ("\n\njump 3", "test.script:3: unknown step `jump`"),
            ("radius -2", "radius: -2 must be above 0"),
            ("radius nan", "radius: `nan` is not a number"),
            ("key ctrl+f13", "unknown key `f13`"),
            ("down sideways", "unknown button `sideways`"),
            (
                "wait 3 hours",
                "`wait` takes N frames, N ms, loads, bake or fill",
            ),
            ("drag 0 0 1 1 0", "0 moves: use 1 to 10000"),
            ("wait -1 frames", "frames: `-1` is not a whole number"),
        ];
        for (text, expected) in cases {
            let error = parse(text).unwrap_err().to_string();
            assert!(error.contains(expected), "{text:?}: {error}");
        }
    }

    #[test]
    fn ctrl_plus_plus_names_the_plus_key() {
        assert_eq!(
            actions("key ctrl++"),
            [Action::Do(Act::Chord(vec![Key::Ctrl, Key::Equals]))]
        );
    }

    /// Plays `text` with frames 100 ms apart, loads in flight for the first 5 frames,
    /// a re-bake on frame 8 and a fill running until frame 12.
    fn play(text: &str) -> Vec<Cue> {
        let mut player = Player::new(parse(text).unwrap());
        let mut cues = Vec::new();
        for frame in 0..100 {
            let cue = player.next_frame(Progress {
                elapsed: Duration::from_millis(frame * 100),
                loads_in_flight: frame < 5,
                rebakes: u32::from(frame >= 8),
                fill_running: frame < 12,
            });
            let done = cue == Cue::Done;
            cues.push(cue);
            if done {
                break;
            }
        }
        cues
    }

    #[test]
    fn one_step_per_frame_and_waits_hold_frames() {
        let cues = play("radius 3\nwait 2 frames\ndensity 1");
        assert_eq!(
            cues,
            [
                Cue::Act(Act::Radius(3.0)),
                Cue::Idle,
                Cue::Idle,
                Cue::Act(Act::Density(1.0)),
                Cue::Done
            ]
        );
    }

    #[test]
    fn drags_press_move_once_per_frame_and_release() {
        let cues = play("drag 0 0 10 0 2");
        let moved = |x| Cue::Act(Act::Input(InputEvent::PointerMoved(Vec2::new(x, 0.0))));
        let button = |pressed| {
            Cue::Act(Act::Input(InputEvent::Button {
                button: Button::Left,
                pressed,
            }))
        };
        assert_eq!(
            cues,
            [
                moved(0.0),
                button(true),
                moved(5.0),
                moved(10.0),
                button(false),
                Cue::Done
            ]
        );
    }

    #[test]
    fn timed_and_load_waits_end_when_their_condition_holds() {
        let cues = play("wait 250 ms\nwait loads\nradius 1");
        let idle = cues.iter().filter(|c| **c == Cue::Idle).count();
        assert_eq!(idle, 5, "{cues:?}");
        assert_eq!(cues[5], Cue::Act(Act::Radius(1.0)));
        let cues = play("wait bake\nradius 2");
        assert_eq!(cues[8], Cue::Act(Act::Radius(2.0)), "{cues:?}");
        let cues = play("wait fill\nradius 2");
        assert_eq!(cues[12], Cue::Act(Act::Radius(2.0)), "{cues:?}");
    }

    #[test]
    fn a_wait_that_never_ends_is_reported_stuck() {
        let mut player = Player::new(parse("wait bake").unwrap());
        let at = |seconds| Progress {
            elapsed: Duration::from_secs(seconds),
            ..Progress::default()
        };
        assert_eq!(player.next_frame(at(1)), Cue::Idle);
        assert_eq!(player.next_frame(at(100)), Cue::Idle);
        assert!(matches!(player.next_frame(at(1000)), Cue::Stuck { .. }));
    }
}

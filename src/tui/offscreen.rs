//! `slotsim record`: the TUI rendered offscreen into an asciinema file (or,
//! for `--out FILE.gif`, a GIF drawn by [`super::gif`]) at simulated-time
//! pace. Frame i is at i / fps seconds and advances the run
//! by 1/fps seconds × speed; keys are injected at fixed recording times.
//! Nothing reads the wall clock, so the same scenario, seed and keys give
//! the same bytes.

use super::app::{Action, App, SPEEDS};
use super::gif::GifWriter;
use super::keymap;
use super::record::CastWriter;
use super::views;
use crate::model::Ms;
use crossterm::event::KeyEvent;
use ratatui::backend::TestBackend;
use ratatui::Terminal;
use std::io;
use std::path::Path;

/// A scripted input: a key, or a pause before the next one.
#[derive(Clone, Debug, PartialEq)]
pub enum Step {
    Key(KeyEvent),
    Wait(Ms),
}

/// A `--keys` entry that is neither a key nor a pause.
#[derive(Debug, thiserror::Error)]
#[error("unknown key \"{key}\"{hint}; keys are a character, {names}, or a pause like 2s", names = KEY_NAMES.join(", "))]
pub struct UnknownKey {
    pub key: String,
    /// "; did you mean Down?" when a key name is near.
    hint: String,
}

/// The named keys `--keys` takes (as `keymap::parse_key` reads them).
pub const KEY_NAMES: [&str; 14] = [
    "Enter",
    "Esc",
    "Tab",
    "BackTab",
    "Space",
    "Up",
    "Down",
    "Left",
    "Right",
    "Backspace",
    "PageUp",
    "PageDown",
    "Home",
    "End",
];

fn step(tok: &str) -> Result<Step, UnknownKey> {
    if let Some(k) = keymap::parse_key(tok) {
        Ok(Step::Key(k))
    } else if let Ok(ms) = crate::units::parse_duration(tok) {
        Ok(Step::Wait(ms))
    } else {
        let hint = crate::error::closest(tok, KEY_NAMES)
            .map(|k| format!("; did you mean {k}?"))
            .unwrap_or_default();
        Err(UnknownKey {
            key: tok.to_string(),
            hint,
        })
    }
}

/// Parses `--keys "s,Enter,2s,p,Down,Enter"`: key names as `keymap::parse_key`
/// takes them, and durations that wait. Keys are one second apart.
pub fn parse_keys(s: &str) -> Result<Vec<Step>, UnknownKey> {
    s.split(',')
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .map(step)
        .collect()
}

/// `--keys @FILE`: one key or pause a line, `#` to the end of a line a
/// comment, blank lines ignored; an unknown key is an error at its line
/// and column. Anything else is [`parse_keys`]'s comma-separated list.
pub fn keys_arg(arg: &str) -> Result<Vec<Step>, crate::error::InputError> {
    use crate::error::InputError;
    let Some(path) = arg.strip_prefix('@') else {
        return parse_keys(arg).map_err(|e| InputError::new("--keys", e.to_string()));
    };
    let text = std::fs::read_to_string(path)
        .map_err(|e| InputError::new("--keys", format!("cannot read {path}: {e}")))?;
    let mut out = Vec::new();
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let body = line.split('#').next().unwrap_or("");
        let tok = body.trim();
        if !tok.is_empty() {
            let col = body.len() - body.trim_start().len();
            out.push(
                step(tok).map_err(|e| InputError::at(path, &text, offset + col, e.to_string()))?,
            );
        }
        offset += line.len();
    }
    Ok(out)
}

pub struct RecordOpts {
    pub width: u16,
    pub height: u16,
    pub fps: u32,
    /// Stop once the simulated clock reaches this.
    pub until: Option<Ms>,
    pub speed: f64,
    pub keys: Vec<Step>,
    /// Checked at every frame: once it holds a signal's name the
    /// recording ends there, its file complete (a GIF with its trailer).
    pub stop: Option<std::sync::Arc<std::sync::Mutex<Option<&'static str>>>>,
}

/// Where the frames go: an asciinema recording, or a GIF.
enum Sink {
    Cast(CastWriter),
    Gif(Box<GifWriter>),
}

impl Sink {
    fn create(out: &Path, o: &RecordOpts, title: &str) -> io::Result<Sink> {
        Ok(if is_gif(out) {
            Sink::Gif(Box::new(GifWriter::create(out, o.width, o.height)?))
        } else {
            Sink::Cast(CastWriter::create(out, o.width, o.height, title)?)
        })
    }

    fn frame(&mut self, t: Ms, buf: &ratatui::buffer::Buffer) -> io::Result<()> {
        match self {
            Sink::Cast(c) => c.frame(t as f64 / 1000.0, buf),
            Sink::Gif(g) => g.frame(t, buf),
        }
    }

    fn finish(self, t: Ms) -> io::Result<()> {
        match self {
            Sink::Cast(c) => c.finish(t as f64 / 1000.0),
            Sink::Gif(g) => g.finish(t),
        }
    }
}

/// `--out FILE.gif` (any case) writes a GIF; anything else a `.cast`.
pub fn is_gif(out: &Path) -> bool {
    out.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("gif"))
}

/// Longest recording, as a guard against a run that never ends.
const MAX_RECORDING_MS: Ms = 30 * 60 * 1000;
/// How long the final screen stays once everything has happened.
const TAIL_MS: Ms = 2000;

/// Renders and writes the recording; returns (frames, recording length ms,
/// the signal that stopped it if one did).
pub fn record(
    mut app: App,
    out: &Path,
    o: &RecordOpts,
) -> io::Result<(u64, Ms, Option<&'static str>)> {
    app.until = o.until;
    let backend = TestBackend::new(o.width, o.height);
    let mut term = match Terminal::new(backend) {
        Ok(t) => t,
        Err(e) => match e {},
    };
    let mut cast = Sink::create(out, o, &app.scenario.name)?;
    if let Some(i) = SPEEDS.iter().position(|s| (*s - o.speed).abs() < 1e-9) {
        app.speed = i;
    } else {
        return Err(io::Error::other(format!(
            "speed {} is not one of the TUI's steps",
            o.speed
        )));
    }
    // Key schedule on the recording clock.
    let mut schedule: Vec<(Ms, KeyEvent)> = Vec::new();
    let mut at: Ms = 1000;
    for step in &o.keys {
        match step {
            Step::Wait(ms) => at += ms,
            Step::Key(k) => {
                schedule.push((at, *k));
                at += 1000;
            }
        }
    }
    let last_key = schedule.last().map_or(0, |k| k.0);
    let frame_ms = (1000 / o.fps.max(1)) as Ms;
    let mut t: Ms = 0;
    let mut next_key = 0;
    let mut frames = 0u64;
    let mut done_at: Option<Ms> = None;
    let mut stopped = None;
    loop {
        while next_key < schedule.len() && schedule[next_key].0 <= t {
            if let Some(a) = keymap::action_for(&app.overlay, schedule[next_key].1) {
                app.update(a);
            }
            next_key += 1;
        }
        if t > 0 {
            app.update(Action::Tick(frame_ms));
        }
        let completed = match term.draw(|f| views::render(&app, f)) {
            Ok(c) => c,
            Err(e) => match e {},
        };
        cast.frame(t, completed.buffer)?;
        frames += 1;
        let at_until = o.until.is_some_and(|u| app.sim().view().now() >= u);
        let sim_done = app.sim().is_finished() || app.sim().view().stalled() || at_until;
        if app.quit {
            break;
        }
        stopped = o.stop.as_ref().and_then(|s| s.lock().ok().and_then(|g| *g));
        if stopped.is_some() {
            break;
        }
        // Stopped by --until: the recording ends on the frame that says
        // so, as long as --until says (at speed 1), once the keys are done.
        if at_until && t >= last_key {
            break;
        }
        if sim_done && t >= last_key && done_at.is_none() {
            done_at = Some(t);
        }
        if done_at.is_some_and(|d| t >= d + TAIL_MS) || t >= MAX_RECORDING_MS {
            break;
        }
        t += frame_ms;
    }
    cast.finish(t)?;
    Ok((frames, t, stopped))
}

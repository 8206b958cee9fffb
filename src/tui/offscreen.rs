//! `slotsim record`: the TUI rendered offscreen into an asciinema file at
//! simulated-time pace. Frame i is at i / fps seconds and advances the run
//! by 1/fps seconds × speed; keys are injected at fixed recording times.
//! Nothing reads the wall clock, so the same scenario, seed and keys give
//! the same bytes.

use super::app::{Action, App, SPEEDS};
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

/// Parses `--keys "s,Enter,2s,p,Down,Enter"`: key names as `keymap::parse_key`
/// takes them, and durations that wait. Keys are one second apart.
/// A `--keys` entry that is neither a key nor a pause.
#[derive(Debug, thiserror::Error)]
#[error("unknown key \"{0}\"; expected a character, Enter, Esc, Tab, BackTab, Space, Up, Down, Left, Right, Backspace, or a pause like 2s")]
pub struct UnknownKey(pub String);

pub fn parse_keys(s: &str) -> Result<Vec<Step>, UnknownKey> {
    let mut out = Vec::new();
    for tok in s.split(',').map(str::trim).filter(|t| !t.is_empty()) {
        if let Some(k) = keymap::parse_key(tok) {
            out.push(Step::Key(k));
        } else if let Ok(ms) = crate::units::parse_duration(tok) {
            out.push(Step::Wait(ms));
        } else {
            return Err(UnknownKey(tok.to_string()));
        }
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
}

/// Longest recording, as a guard against a run that never ends.
const MAX_RECORDING_MS: Ms = 30 * 60 * 1000;
/// How long the final screen stays once everything has happened.
const TAIL_MS: Ms = 2000;

/// Renders and writes the recording; returns (frames, recording length ms).
pub fn record(mut app: App, out: &Path, o: &RecordOpts) -> io::Result<(u64, Ms)> {
    app.until = o.until;
    let backend = TestBackend::new(o.width, o.height);
    let mut term = match Terminal::new(backend) {
        Ok(t) => t,
        Err(e) => match e {},
    };
    let mut cast = CastWriter::create(out, o.width, o.height, &app.scenario.name)?;
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
        cast.frame(t as f64 / 1000.0, completed.buffer)?;
        frames += 1;
        let sim_done = app.sim().is_finished()
            || app.sim().view().stalled()
            || o.until.is_some_and(|u| app.sim().view().now() >= u);
        if app.quit {
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
    cast.finish(t as f64 / 1000.0)?;
    Ok((frames, t))
}

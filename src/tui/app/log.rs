//! The event log and the small formatters the views share.

use super::App;
use crate::model::Ms;
use crate::sim::Notable;

impl App {
    /// The last `n` log lines, newest last.
    pub fn log_lines(&self, n: usize) -> Vec<(Ms, String)> {
        let log = self.pane().log.borrow();
        let start = log.lines.len().saturating_sub(n);
        log.lines[start..].to_vec()
    }

    /// Takes in what every run journalled since last asked (see
    /// [`super::Pane::take_in`]); returns the scripted actions the engine
    /// refused among them, the focused run's first.
    pub(super) fn take_in(&mut self) -> Vec<String> {
        let focus = self.focus;
        let mut refused = self.pane_mut().take_in();
        for (k, p) in self.panes_mut().iter_mut().enumerate() {
            if k != focus {
                refused.extend(p.take_in());
            }
        }
        refused
    }
}

/// An attempt's task as the log names it: `job/m3`, `job/r0`.
fn task_name(w: crate::sim::RunView<'_>, at: &crate::sim::Attempt) -> String {
    let k = if at.kind == crate::sim::Kind::Map {
        'm'
    } else {
        'r'
    };
    format!("{}/{k}{}", w.job(at.job).name, at.task)
}

/// A log line's text.
pub(super) fn notable_text(w: crate::sim::RunView<'_>, t: Ms, e: &Notable) -> String {
    let t = &t;
    match e {
        Notable::Submitted(j) => {
            let job = w.job(*j);
            format!(
                "submitted {} ({}, {}, {} {})",
                job.name,
                count(job.n_maps().into(), "map"),
                count(job.n_reduces().into(), "reduce"),
                super::pool_word(w),
                w.pool_name(*j)
            )
        }
        Notable::Finished(j) => {
            let job = w.job(*j);
            format!(
                "finished {} in {}",
                job.name,
                clock(job.finished_at.unwrap_or(*t) - job.submit)
            )
        }
        Notable::Killed(j) => {
            let job = w.job(*j);
            format!(
                "killed {} after {}",
                job.name,
                clock(job.finished_at.unwrap_or(*t) - job.submit)
            )
        }
        Notable::Reprioritized(j) => {
            let job = w.job(*j);
            format!("{} now at priority {}", job.name, job.priority.as_str())
        }
        Notable::Moved(j) => {
            format!(
                "moved {} to {} {}",
                w.job(*j).name,
                super::pool_word(w),
                w.pool_name(*j)
            )
        }
        Notable::Switched { from, to } => format!("policy switched {from} → {to}"),
        Notable::CommandFailed(e) => format!("scripted event failed: {e}"),
        Notable::NodeFailed {
            node,
            attempts,
            rerun,
        } => format!(
            "node {node} failed: {} failed, {} to re-run",
            count((*attempts).into(), "running attempt"),
            count((*rerun).into(), "finished map")
        ),
        Notable::NodeRecovered(n) => format!("node {n} recovered"),
        Notable::PolicySaid(line) => format!("policy: {line}"),
        Notable::Preempted(a) => {
            let at = &w.attempts()[*a as usize];
            format!(
                "preempted {} on node {} for a starved pool",
                task_name(w, at),
                at.node
            )
        }
        Notable::Speculated(a) => {
            let at = &w.attempts()[*a as usize];
            format!(
                "speculating {} on node {} ({})",
                task_name(w, at),
                at.node,
                w.rule(at)
            )
        }
    }
}

/// `n word`, with the word in the plural unless `n` is 1: `1 reduce`,
/// `2 reduces`.
pub fn count(n: u64, word: &str) -> String {
    format!("{n} {}", noun(n, word))
}

/// The word as `n` of it reads: `map` for 1, else `maps`.
pub fn noun(n: u64, word: &str) -> String {
    if n == 1 {
        word.to_string()
    } else {
        format!("{word}s")
    }
}

/// A short duration: `42.5s`, `12m07s`, `3h05m`.
pub fn dur(ms: Ms) -> String {
    let s = ms / 1000;
    if ms < 600_000 {
        // Tenths cut, not rounded, as in `clock`.
        format!("{s}.{}s", ms % 1000 / 100)
    } else if s < 6_000 {
        format!("{}m{:02}s", s / 60, s % 60)
    } else {
        format!("{}h{:02}m", s / 3600, s / 60 % 60)
    }
}

/// `HH:MM:SS.s` for a simulated time.
pub fn clock(ms: Ms) -> String {
    let s = ms / 1000;
    format!(
        "{:02}:{:02}:{:02}.{}",
        s / 3600,
        s / 60 % 60,
        s % 60,
        ms % 1000 / 100
    )
}

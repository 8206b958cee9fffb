//! Runs side by side: two to four runs of one scenario under different
//! policies on one simulated clock. Each run's events are taken in time
//! order across all of them (the run whose next event is earliest steps
//! next), so however a caller's budget cuts an advance, no run is ever
//! ahead of another by more than the instant being processed; a command
//! goes to every run at the same instant, so the runs stay comparable.

use super::build_sim;
use crate::model::{Action, Ms, Scenario};
use crate::sim::{Sim, SimError};

/// The most runs side by side (`--policies a,b,c,d`).
pub const MAX_RUNS: usize = crate::scenario::MAX_SIDE_RUNS;

/// Why runs cannot go side by side.
#[derive(Debug, thiserror::Error)]
pub enum SideError {
    #[error("{0} policies given; expected 2 to {MAX_RUNS} side by side")]
    Count(usize),
    #[error("run {run}: {source}")]
    Build {
        run: usize,
        #[source]
        source: SimError,
    },
}

/// Runs in lockstep on one clock.
pub struct SideBySide {
    runs: Vec<Sim>,
    now: Ms,
}

/// How far an advance went.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reached {
    /// Every event up to the target was processed; every clock is there.
    Target,
    /// The caller's budget ran out at the instant of the last event
    /// processed ([`SideBySide::now`]): no run has an event before it left,
    /// and none has gone past it (a run's own clock stays at its own last
    /// event, as a run stepped alone does).
    Budget,
    /// No run can go on (finished, stopped or stalled).
    End,
}

impl SideBySide {
    /// One run of each scenario (each loaded with its policy and cut to
    /// its own script: `scenario::side_run`).
    pub fn new(scenarios: &[Scenario]) -> Result<SideBySide, SideError> {
        if !(2..=MAX_RUNS).contains(&scenarios.len()) {
            return Err(SideError::Count(scenarios.len()));
        }
        let runs = scenarios
            .iter()
            .enumerate()
            .map(|(i, sc)| build_sim(sc).map_err(|source| SideError::Build { run: i + 1, source }))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(SideBySide { runs, now: 0 })
    }

    pub fn runs(&self) -> &[Sim] {
        &self.runs
    }

    /// Run `k`, to set up (an inspector, a journal) or to read.
    pub fn run_mut(&mut self, k: usize) -> &mut Sim {
        &mut self.runs[k]
    }

    /// The one clock.
    pub fn now(&self) -> Ms {
        self.now
    }

    /// Whether no run can go on.
    pub fn is_finished(&self) -> bool {
        self.runs
            .iter()
            .all(|r| r.is_finished() || r.halted().is_some())
    }

    /// Processes every run's events up to and including `target`, in time
    /// order across the runs, while `more()` (asked before each event)
    /// allows. Reaching `target`, every run's clock moves on to it (as
    /// [`Sim::run_until`] does at its limit).
    pub fn advance_to(&mut self, target: Ms, mut more: impl FnMut() -> bool) -> Reached {
        let reached = loop {
            let next = self
                .runs
                .iter_mut()
                .enumerate()
                .filter_map(|(k, r)| r.next_due().map(|t| (t, k)))
                .min();
            let Some((t, k)) = next else {
                break Reached::End;
            };
            if t > target {
                self.now = self.now.max(target);
                break Reached::Target;
            }
            if !more() {
                break Reached::Budget;
            }
            self.runs[k].step();
            self.now = self.now.max(t);
        };
        if reached == Reached::Target {
            for r in &mut self.runs {
                r.wait_until(target);
            }
        }
        reached
    }

    /// Schedules `action` in every run at one instant (at least the next
    /// millisecond of the clock); returns it.
    pub fn schedule_all(&mut self, at: Ms, action: Action) -> Ms {
        let at = at.max(self.now + 1);
        for r in &mut self.runs {
            r.schedule(at, action.clone());
        }
        at
    }

    /// Schedules `action` in run `k` alone (a policy switch: `run = k + 1`).
    pub fn schedule_one(&mut self, k: usize, at: Ms, action: Action) -> Ms {
        let at = at.max(self.now + 1);
        self.runs[k].schedule(at, action)
    }
}

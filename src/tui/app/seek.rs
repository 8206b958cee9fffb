//! `[` / `]`: seeking back and forth over the run. Forward runs on to the
//! target as a frame would, with every sample the views draw; back
//! re-runs the scenario from its start to the target (the engine is
//! deterministic, so it is the same run), replaying every action taken
//! from the keyboard at its time: what you did stays on the tape.

use super::{clock, App};
use crate::model::Ms;

/// The least a seek moves, and the share of the time so far it moves when
/// that is more: a long run is crossed in twenty presses.
const MIN_STEP: Ms = 10_000;
const STEP_SHARE: Ms = 20;

impl App {
    pub(super) fn seek(&mut self, forward: bool) {
        let now = self.sim.w.now;
        let step = (now / STEP_SHARE).max(MIN_STEP);
        if forward {
            if self.sim.is_finished() {
                self.status = Some("the run has finished: nothing to seek forward to".into());
                return;
            }
            self.advance_to(now.saturating_add(step));
        } else {
            if now == 0 {
                self.status = Some("at the start already".into());
                return;
            }
            if let Err(e) = self.rewind_to(now.saturating_sub(step)) {
                self.status = Some(format!("cannot seek back: {e}"));
                return;
            }
        }
        self.status = Some(format!(
            "at {} (seek: [ back, ] forward)",
            clock(self.sim.w.now)
        ));
    }

    /// Runs on to `target`, every instant sampled for the views.
    fn advance_to(&mut self, target: Ms) {
        self.sim
            .set_inspect_from(target.saturating_sub(self.inspect_span()));
        self.run_sampled(Some(target), usize::MAX, None);
        self.sim.set_inspect_from(0);
        self.carry = 0.0;
        self.pace.clear();
    }

    /// The run again from its start, to `target`, with the session's
    /// actions at their times.
    fn rewind_to(&mut self, target: Ms) -> Result<(), crate::sim::SimError> {
        let tape = self.sim.session_events().to_vec();
        let fresh = App::new(self.scenario.clone())?;
        self.sim = fresh.sim;
        self.ring = fresh.ring;
        self.index = fresh.index;
        self.log = fresh.log;
        for e in tape {
            self.sim.schedule(e.at, e.action);
        }
        self.advance_to(target);
        // A job submitted from the keyboard after the target is not there
        // yet: nothing stays selected that does not exist.
        let w = &self.sim.w;
        if self
            .sel_job
            .is_some_and(|j| w.jobs.get(j as usize).is_none_or(|x| !x.arrived))
        {
            self.sel_job = None;
        }
        Ok(())
    }
}

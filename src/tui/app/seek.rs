//! `[` / `]`: seeking back and forth over the run, without freezing it.
//!
//! Forward runs on to the target as frames would, with every sample the
//! views draw. Back restarts the run from the latest checkpoint at or
//! before the target (a copy of the engine, the policy and the views'
//! index, kept as the run goes: [`Checkpoints`]) and runs on from there,
//! replaying every action taken from the keyboard since at its time:
//! what you did stays on the tape. A run whose policy cannot be copied (a
//! policy in another process) replays from its start instead.
//!
//! Live, a seek advances within each frame's budget like the clock does,
//! so the screen keeps drawing and keys keep acting; the status line shows
//! its progress; Esc puts the run back where it was; `q` does too, then
//! quits, so the outputs written are the session's. Offscreen (tests, the
//! recorder: no budget) a seek completes within its key.

use super::logview::LogCache;
use super::{clock, App};
use crate::model::Ms;
use crate::sim::{Checkpoint, Sim};
use crate::tui::index::RunIndex;

/// The least a seek moves, and the share of the time so far it moves when
/// that is more: a long run is crossed in twenty presses.
const MIN_STEP: Ms = 10_000;
const STEP_SHARE: Ms = 20;

/// What the checkpoints may take, by their estimated size
/// ([`crate::sim::RunView::footprint`]): past it, every other one goes and
/// the spacing doubles.
pub const CHECKPOINT_BUDGET: usize = 512 << 20;
/// The first spacing of checkpoints, in simulated time.
const FIRST_SPACING: Ms = 10_000;

/// The seek step from `t`.
fn step_from(t: Ms) -> Ms {
    (t / STEP_SHARE).max(MIN_STEP)
}

/// A checkpoint with what the views had then.
struct Kept {
    run: Checkpoint,
    index: RunIndex,
    /// How many log lines there were.
    log_len: usize,
    bytes: usize,
}

/// The run's checkpoints, oldest first, at least `spacing` apart and
/// together within [`CHECKPOINT_BUDGET`].
pub struct Checkpoints {
    kept: Vec<Kept>,
    spacing: Ms,
    bytes: usize,
    /// The session's actions when last looked at: one more makes the
    /// checkpoints after it another run's.
    tape: usize,
    /// False once a checkpoint could not be taken (the policy cannot be
    /// copied): seeks back replay from the start.
    pub possible: bool,
}

impl Default for Checkpoints {
    fn default() -> Self {
        Checkpoints {
            kept: Vec::new(),
            spacing: FIRST_SPACING,
            bytes: 0,
            tape: 0,
            possible: true,
        }
    }
}

impl Checkpoints {
    /// How many are kept, their spacing and estimated bytes.
    pub fn stats(&self) -> (usize, Ms, usize) {
        (self.kept.len(), self.spacing, self.bytes)
    }

    /// Every other one goes (the first stays) and the spacing doubles,
    /// until they fit the budget.
    fn thin(&mut self) {
        while self.bytes > CHECKPOINT_BUDGET && self.kept.len() > 2 {
            let (keep, gone): (Vec<_>, Vec<_>) = std::mem::take(&mut self.kept)
                .into_iter()
                .enumerate()
                .partition(|(i, _)| i % 2 == 0);
            self.kept = keep.into_iter().map(|(_, k)| k).collect();
            drop_later(gone);
            self.spacing = self.spacing.saturating_mul(2);
            self.bytes = self.kept.iter().map(|k| k.bytes).sum();
        }
    }
}

/// The run as it was when a seek began, for Esc (or `q`) to put back.
enum Held {
    /// A copy, restored into the run.
    Copy(Box<Checkpoint>),
    /// The run itself, set aside while a replay from the start runs.
    Run(Box<Sim>),
    /// Nothing to go back to (a seek forward under a policy that cannot
    /// be copied): Esc stops where the seek has got to.
    Nothing,
}

/// A seek under way.
pub struct Seeking {
    target: Ms,
    /// Where the run was when the seek reached its starting point, for the
    /// progress line.
    from: Ms,
    back: bool,
    held: Held,
    index: RunIndex,
    log: LogCache,
}

impl App {
    /// `[` / `]`: a seek by one step, from the current one's target when a
    /// seek is under way (three presses go three steps).
    pub(super) fn seek(&mut self, forward: bool) {
        if self.is_side_by_side() {
            self.status =
                Some("side by side the runs go forward only: seeking is for a single run".into());
            return;
        }
        let at = self
            .seeking
            .as_ref()
            .map_or(self.sim().view().now(), |s| s.target);
        let step = step_from(at);
        if forward {
            if self.sim().is_finished() && self.seeking.is_none() {
                self.status = Some("the run has finished: nothing to seek forward to".into());
                return;
            }
            self.begin_seek(at.saturating_add(step));
        } else {
            if at == 0 {
                self.status = Some("at the start already".into());
                return;
            }
            self.begin_seek(at.saturating_sub(step));
        }
    }

    /// Starts (or re-aims) a seek to `target`; offscreen it completes here.
    fn begin_seek(&mut self, target: Ms) {
        let seeking = match self.seeking.take() {
            Some(s) => s,
            None => {
                // Back, the run is moved aside when the checkpoint is put
                // in (no copy); forward, it is copied.
                let held = match (target < self.sim().view().now(), self.checkpoints.possible) {
                    (true, _) => Held::Nothing,
                    (false, true) => self
                        .sim()
                        .checkpoint()
                        .map_or(Held::Nothing, |cp| Held::Copy(Box::new(cp))),
                    (false, false) => Held::Nothing,
                };
                Seeking {
                    target,
                    from: self.sim().view().now(),
                    back: target < self.sim().view().now(),
                    held,
                    index: self.pane().index.clone(),
                    log: self.pane().log.borrow().prefix(usize::MAX),
                }
            }
        };
        let mut seeking = Seeking { target, ..seeking };
        seeking.back = target < seeking.from;
        if target < self.sim().view().now() {
            if let Err(e) = self.restart_before(target, &mut seeking) {
                self.status = Some(format!("cannot seek back: {e}"));
                self.seeking = Some(seeking);
                self.cancel_seek();
                return;
            }
        }
        seeking.from = self.sim().view().now();
        self.seeking = Some(seeking);
        self.pace.clear();
        self.carry = 0.0;
        if self.frame_budget.is_none() {
            while self.seeking.is_some() {
                self.seek_frame();
            }
        } else {
            self.seek_frame();
        }
    }

    /// The run restarted at or before `target`: from the latest checkpoint
    /// there, else (or under a policy that cannot be copied) from the start,
    /// with the session's later actions scheduled again.
    fn restart_before(
        &mut self,
        target: Ms,
        seeking: &mut Seeking,
    ) -> Result<(), crate::sim::SimError> {
        let tape: Vec<_> = self.sim().scripted_events().to_vec();
        let i = self
            .checkpoints
            .kept
            .partition_point(|k| k.run.at() <= target);
        let replaced = (i > 0)
            .then(|| {
                self.panes[self.focus]
                    .sim
                    .restore(&self.checkpoints.kept[i - 1].run)
            })
            .flatten();
        let restored = replaced.is_some();
        if let Some(old) = replaced {
            if matches!(seeking.held, Held::Nothing) {
                seeking.held = Held::Copy(Box::new(old));
            } else {
                drop_later(old);
            }
        }
        let from_event = if restored {
            let k = &self.checkpoints.kept[i - 1];
            let p = &mut self.panes[self.focus];
            p.index = k.index.clone();
            *p.log.get_mut() = seeking.log.prefix(k.log_len);
            k.run.events()
        } else {
            let fresh = super::Pane::new(&self.scenario)?;
            let old = std::mem::replace(self.pane_mut(), fresh);
            if matches!(seeking.held, Held::Nothing) {
                seeking.held = Held::Run(Box::new(old.sim));
            } else {
                drop_later(old.sim);
            }
            self.sim().scripted_events().len()
        };
        for e in tape.into_iter().skip(from_event) {
            self.sim_mut().schedule(e.at, e.action);
        }
        self.forget_inspections();
        Ok(())
    }

    /// One frame of a seek: on towards its target within the frame's
    /// budget; done when there.
    pub(super) fn seek_frame(&mut self) {
        let Some(s) = self.seeking.as_ref() else {
            return;
        };
        let (target, from, back) = (s.target, s.from, s.back);
        let from_t = target.saturating_sub(self.inspect_span());
        self.sim_mut().set_inspect_from(from_t);
        let deadline = self.frame_budget.map(|b| std::time::Instant::now() + b);
        let cut = self.run_sampled(Some(target), usize::MAX, deadline);
        self.sim_mut().set_inspect_from(0);
        self.refresh();
        if cut && self.sim().halted().is_none() {
            let done = (self.sim().view().now() - from) as f64 / (target - from).max(1) as f64;
            self.status = Some(format!(
                "seeking {} to {}: {:.0} % (esc cancels)",
                if back { "back" } else { "forward" },
                clock(target),
                100.0 * done.min(1.0)
            ));
            return;
        }
        self.seeking = None;
        self.carry = 0.0;
        self.pace.clear();
        // A job submitted from the keyboard after the target is not there
        // yet: nothing stays selected that does not exist.
        let w = self.sim().view();
        if self
            .sel_job
            .is_some_and(|j| w.jobs().get(j as usize).is_none_or(|x| !x.arrived))
        {
            self.sel_job = None;
        }
        self.status = Some(format!(
            "at {} (seek: [ back, ] forward)",
            clock(self.sim().view().now())
        ));
        self.note_halt();
    }

    /// Esc during a seek: the run as it was when the seek began.
    pub(super) fn cancel_seek(&mut self) {
        let Some(s) = self.seeking.take() else {
            return;
        };
        match s.held {
            Held::Copy(cp) => drop_later(self.sim_mut().put_back(*cp)),
            Held::Run(sim) => drop_later(std::mem::replace(self.sim_mut(), *sim)),
            Held::Nothing => {
                self.status = Some(format!(
                    "seek stopped at {} (this policy's run cannot be copied to go back)",
                    clock(self.sim().view().now())
                ));
                return;
            }
        }
        self.pane_mut().index = s.index;
        *self.pane_mut().log.get_mut() = s.log;
        self.forget_inspections();
        self.pace.clear();
        self.status = Some(format!(
            "seek cancelled: back at {}",
            clock(self.sim().view().now())
        ));
    }

    /// The kept heartbeat inspections go (the run went elsewhere), freed
    /// on another thread: a big cluster's take a frame's worth to free.
    fn forget_inspections(&mut self) {
        if let Ok(mut r) = self.pane().ring.lock() {
            drop_later(r.take());
        }
    }

    /// The session as it stands for its outputs, however it ends: a seek
    /// under way is cancelled (a signal or a closed terminal must not
    /// leave the half-way run to be written).
    pub fn settle(&mut self) {
        self.cancel_seek();
    }

    /// Whether a seek is under way.
    pub fn seeking(&self) -> bool {
        self.seeking.is_some()
    }

    /// Keeps a checkpoint when the run has gone `spacing` past the last
    /// one, and forgets those after an action taken from the keyboard
    /// (they belong to the run without it).
    pub(super) fn keep_checkpoint(&mut self) {
        // Side by side there is no seeking, so nothing to keep.
        if self.seeking.is_some() || !self.checkpoints.possible || self.is_side_by_side() {
            return;
        }
        let now = self.sim().view().now();
        let tape = self.sim().session_events().len();
        let cps = &mut self.checkpoints;
        if tape != cps.tape {
            cps.tape = tape;
            cps.kept.retain(|k| k.run.at() <= now);
            cps.bytes = cps.kept.iter().map(|k| k.bytes).sum();
        }
        if cps
            .kept
            .last()
            .is_some_and(|k| now < k.run.at().saturating_add(cps.spacing))
        {
            return;
        }
        let Some(run) = self.sim().checkpoint() else {
            self.checkpoints.possible = false;
            return;
        };
        let p = &self.panes[self.focus];
        let bytes = run.bytes() + p.index.footprint();
        let (index, log_len) = (p.index.clone(), p.log.borrow().lines.len());
        let cps = &mut self.checkpoints;
        cps.kept.push(Kept {
            run,
            index,
            log_len,
            bytes,
        });
        cps.bytes += bytes;
        cps.thin();
    }
}

/// Drops a copy of a run on a thread of its own: freeing a big world's
/// many tables takes as long as copying them, and a frame has better
/// things to do.
fn drop_later<T: Send + 'static>(x: T) {
    if std::thread::Builder::new()
        .name("slotsim-drop".into())
        .spawn(move || drop(x))
        .is_err()
    {
        // No thread to be had: the memory is freed when the process ends.
    }
}

//! Advancing the run: the speed and what the header says of it, the
//! wall-clock tick of a frame, stepping a heartbeat, and the ring of
//! heartbeat inspections the inspector shows.

use super::{clock, App, INSPECT_RING, MAX_EVENTS_PER_FRAME, SPEEDS};
use crate::model::{Ms, NodeId};
use crate::sim::InspectRecord;
use std::collections::VecDeque;

impl App {
    pub fn speed(&self) -> f64 {
        SPEEDS[self.speed]
    }

    /// The speed asked for and, while the run moves, the speed it kept
    /// over the last second of wall time: "1000× (got 21×)", "max (got
    /// 412×)".
    pub fn speed_label(&self) -> String {
        let asked = self.speed_asked();
        match self.pace.speed() {
            Some(a) if !self.paused && !self.sim().is_finished() && !self.at_until() => {
                format!("{asked} (got {})", speed_number(a))
            }
            _ => asked,
        }
    }

    /// The run has reached `record --until` and goes no further.
    pub fn at_until(&self) -> bool {
        self.until
            .is_some_and(|u| self.sim().view().now() >= u && !self.sim().is_finished())
    }

    /// The speed asked for: "1000×", "0.5×", "max".
    pub fn speed_asked(&self) -> String {
        let s = self.speed();
        if s.is_infinite() {
            "max".into()
        } else if s < 1.0 {
            format!("{s}×")
        } else {
            format!("{}×", s as u64)
        }
    }

    /// The selected node's kept heartbeat inspections, oldest first.
    pub fn inspections(&self) -> Vec<InspectRecord> {
        self.pane()
            .ring
            .lock()
            .map(|r| r.node.iter().cloned().collect())
            .unwrap_or_default()
    }

    /// The selected node's inspection `back` heartbeats before its newest
    /// (clamped to the oldest kept) and how many are kept; a frame copies
    /// only this one.
    pub fn inspection(&self, back: usize) -> Option<(InspectRecord, usize)> {
        let r = self.pane().ring.lock().ok()?;
        let n = r.node.len();
        let last = n.checked_sub(1)?;
        Some((r.node[last - back.min(last)].clone(), n))
    }

    /// `.` in the inspector: heartbeats forward until the selected node's
    /// next one (at most one round of the cluster's nodes), so the
    /// inspector has something new to show.
    pub(super) fn step_to_selected_node(&mut self) {
        let kept = |app: &App| {
            app.pane()
                .ring
                .lock()
                .map(|r| r.node.back().map(|x| (x.t, r.node.len())))
                .ok()
                .flatten()
        };
        let before = kept(self);
        for _ in 0..=self.sim().view().cluster().nodes.len() {
            let hb = self.sim().view().heartbeats();
            self.step_heartbeat();
            if self.status.is_some() || self.sim().view().heartbeats() == hb || kept(self) != before
            {
                break;
            }
        }
    }

    /// `.`: one heartbeat forward while paused (see [`Sim::step_heartbeat`]).
    pub(super) fn step_heartbeat(&mut self) {
        if self.panes().iter().any(|p| p.sim.halted().is_some()) {
            self.note_halt();
            return;
        }
        if self.sim().is_finished() {
            self.status = Some("the run has finished: nothing left to step".into());
            return;
        }
        if !self.paused {
            self.status = Some("pause (space) first, then . steps one heartbeat".into());
            return;
        }
        if let Some(t) = self.sim_mut().next_event_time() {
            let p = self.pane_mut();
            p.index.history.fill_before(t, p.sim.view());
        }
        self.status = match self.sim_mut().step_heartbeat() {
            None if self.sim().halted().is_some() => {
                self.note_halt();
                return;
            }
            None => Some("the run cannot go on: no job can ever run".into()),
            Some(_) if self.sim().is_finished() => Some(format!(
                "the run has finished at {}",
                clock(self.sim().view().now())
            )),
            Some(s) if !s.heartbeat => Some(format!(
                "no heartbeat pending: stepped one event, to {}",
                clock(s.t)
            )),
            Some(_) => None,
        };
        // Side by side, the other runs come to the same instant.
        if self.is_side_by_side() {
            let t = self.sim().view().now();
            let focus = self.focus();
            for (k, p) in self.panes_mut().iter_mut().enumerate() {
                if k != focus {
                    while let Some(next) = p.sim.next_due().filter(|&n| n <= t) {
                        p.index.history.fill_before(next, p.sim.view());
                        p.sim.run_until(Some(next));
                    }
                    p.sim.run_until(Some(t));
                }
            }
        }
    }
    /// How far back the kept heartbeats reach: about [`INSPECT_RING`]
    /// heartbeats of one node.
    pub(super) fn inspect_span(&self) -> Ms {
        match self.sim().view().heartbeat_interval() {
            Some(hb) => {
                hb.saturating_mul(INSPECT_RING as Ms)
                    / self.sim().view().cluster().nodes.len().max(1) as Ms
            }
            None => Ms::MAX,
        }
    }

    /// Runs event by event up to `target` (`None`: on), every instant
    /// sampled for the views, for at most `max` events or until
    /// `deadline`; returns whether it was cut short. When it was not, the
    /// clock moves on to `target`.
    pub(super) fn run_sampled(
        &mut self,
        target: Option<Ms>,
        max: usize,
        deadline: Option<std::time::Instant>,
    ) -> bool {
        let mut cut = true;
        let single = self.panes.len() == 1;
        for _ in 0..max {
            // Side by side, the run whose next instant is the earliest
            // goes next, so no run is ever ahead of another by more than
            // the instant being processed (`runs::side` steps the same
            // way). A single run goes on to its next instant.
            let next = if single {
                self.panes[0].sim.next_event_time().map(|t| (t, 0))
            } else {
                self.panes
                    .iter_mut()
                    .enumerate()
                    .filter_map(|(k, p)| p.sim.next_due().map(|t| (t, k)))
                    .min()
            };
            let Some((t, k)) = next else {
                cut = false;
                break;
            };
            if target.is_some_and(|l| t > l) {
                cut = false;
                break;
            }
            let p = &mut self.panes[k];
            p.index.history.fill_before(t, p.sim.view());
            if !p.sim.run_until(Some(t)) && single {
                cut = false;
                break; // finished, or can never go on
            }
            if deadline.is_some_and(|d| std::time::Instant::now() >= d) {
                break;
            }
        }
        if let Some(l) = target.filter(|_| !cut) {
            // No event left before it: every clock moves on to it.
            for p in &mut self.panes {
                p.sim.run_until(Some(l));
            }
        }
        cut
    }

    /// Advances the run by `wall_ms` of wall-clock time at the current
    /// speed, an instant at a time so the utilisation and queue samples
    /// see the state between events.
    ///
    /// Live (with a frame budget) a frame runs until its target or its
    /// budget, whichever comes first: at `max` that is flat out. Only the
    /// last [`INSPECT_RING`] heartbeats can be shown, so inspections are
    /// built only for the heartbeats within [`App::inspect_span`] of the
    /// target and, when the budget may cut the frame first (always at
    /// `max`), for those in the budget's last quarter: building them for
    /// a whole frame made `max` the slowest speed. The offscreen recorder
    /// (no budget, no clock) stops after [`MAX_EVENTS_PER_FRAME`] events
    /// and guesses a `max` frame's end from the last one's advance.
    pub(super) fn tick(&mut self, wall_ms: u64) {
        if self.paused || self.all_finished() {
            return;
        }
        let s = self.speed();
        // `until` (record --until) caps every step.
        let target = if s.is_infinite() {
            self.until
        } else {
            self.carry += wall_ms as f64 * s;
            let adv = self.carry.floor();
            self.carry -= adv;
            Some((self.sim().view().now() + adv as Ms).min(self.until.unwrap_or(Ms::MAX)))
        };
        let start = self.sim().view().now();
        let span = self.inspect_span();
        let near_target = target.map_or(Ms::MAX, |t| t.saturating_sub(span));
        // A frame processes what its budget allows: what it leaves is not
        // owed to the next frame (the run falls behind the speed asked
        // for, and the header says by how much).
        let cut = match self.frame_budget {
            Some(budget) => {
                let now = std::time::Instant::now();
                self.inspect_from(near_target);
                let cut = self.run_sampled(target, usize::MAX, Some(now + budget.mul_f64(0.75)));
                if cut {
                    let from = near_target.min(self.sim().view().now());
                    self.inspect_from(from);
                    self.run_sampled(target, usize::MAX, Some(now + budget))
                } else {
                    false
                }
            }
            None => {
                let end_guess = target.unwrap_or(start.saturating_add(self.last_advance));
                self.sim_mut()
                    .set_inspect_from(end_guess.saturating_sub(span));
                self.run_sampled(target, MAX_EVENTS_PER_FRAME, None)
            }
        };
        if cut {
            self.carry = 0.0;
        }
        self.last_advance = self.sim().view().now() - start;
        self.pace.push(wall_ms, self.last_advance);
        // Steps and commands between frames are always inspected.
        self.inspect_from(0);
        self.note_halt();
    }

    /// Heartbeats from `t` on are inspected, in every run.
    fn inspect_from(&mut self, t: Ms) {
        for p in self.panes_mut() {
            p.sim.set_inspect_from(t);
        }
    }

    /// A policy in another process stopped the run (side by side: any
    /// run): the session pauses where it stands and the status line says
    /// why (all of it is printed on quit).
    pub(super) fn note_halt(&mut self) {
        let side = self.is_side_by_side();
        let halted = self
            .panes()
            .iter()
            .enumerate()
            .find_map(|(k, p)| p.sim.halted().map(|why| (k, why.to_string())));
        if let Some((k, why)) = halted {
            if !self.paused || self.status.is_none() {
                let first = why.lines().next().unwrap_or(&why);
                let whose = if side {
                    format!("run {} ", k + 1)
                } else {
                    String::new()
                };
                self.status = Some(format!("{whose}stopped: {first} (q quits)"));
                self.paused = true;
            }
        }
    }
}

/// A speed for the header: "6×", "0.5×", "2.4×", "412×".
fn speed_number(x: f64) -> String {
    let tenths = (x * 10.0).round();
    if x >= 10.0 || tenths % 10.0 == 0.0 {
        format!("{x:.0}×")
    } else {
        format!("{:.1}×", tenths / 10.0)
    }
}

/// The speed the run kept over the last second of wall time: each
/// frame's wall-clock time and the simulated time it advanced. Counted
/// from the frames' own `wall_ms`, so the offscreen recorder (which reads
/// no clock) measures it the same way every time.
#[derive(Default)]
pub struct Pace {
    frames: VecDeque<(u64, Ms)>,
    wall: u64,
    sim: Ms,
}

impl Pace {
    /// Forgets what was measured (a pause, a new speed, a seek).
    pub fn clear(&mut self) {
        *self = Pace::default();
    }

    pub fn push(&mut self, wall_ms: u64, advanced: Ms) {
        self.frames.push_back((wall_ms, advanced));
        self.wall += wall_ms;
        self.sim += advanced;
        while self.frames.len() > 1 && self.wall - self.frames[0].0 >= 1000 {
            let (w, a) = self.frames.pop_front().expect("more than one");
            self.wall -= w;
            self.sim -= a;
        }
    }

    /// Simulated over wall-clock time, once a frame has been measured.
    pub fn speed(&self) -> Option<f64> {
        (self.wall > 0).then(|| self.sim as f64 / self.wall as f64)
    }
}

/// The inspector's heartbeats: the last [`INSPECT_RING`] of all nodes, and
/// the last [`INSPECT_RING`] of the selected node (refilled from the first
/// when the selection changes).
#[derive(Default)]
pub struct Rings {
    pub all: VecDeque<InspectRecord>,
    pub node: VecDeque<InspectRecord>,
    pub selected: NodeId,
}

impl Rings {
    pub(super) fn push(&mut self, rec: &InspectRecord) {
        if self.all.len() == INSPECT_RING {
            self.all.pop_front();
        }
        self.all.push_back(rec.clone());
        if rec.node == self.selected {
            if self.node.len() == INSPECT_RING {
                self.node.pop_front();
            }
            self.node.push_back(rec.clone());
        }
    }

    /// Every kept heartbeat, taken out (the run went elsewhere).
    pub fn take(&mut self) -> (VecDeque<InspectRecord>, VecDeque<InspectRecord>) {
        (
            std::mem::take(&mut self.all),
            std::mem::take(&mut self.node),
        )
    }

    /// Follows a new selected node: its heartbeats among all nodes' kept.
    pub fn select(&mut self, n: NodeId) {
        if n == self.selected {
            return;
        }
        self.selected = n;
        self.node = self.all.iter().filter(|r| r.node == n).cloned().collect();
    }
}

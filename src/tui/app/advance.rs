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

    pub fn speed_label(&self) -> String {
        let s = self.speed();
        let asked = if s.is_infinite() {
            "max".into()
        } else if s < 1.0 {
            format!("{s}×")
        } else {
            format!("{}×", s as u64)
        };
        match self.achieved {
            // What the run keeps up with, when it falls short.
            Some(a) if s.is_finite() && a < 0.9 * s => {
                format!("{asked} (got {})", speed_number(a))
            }
            _ => asked,
        }
    }

    /// The selected node's kept heartbeat inspections, oldest first.
    pub fn inspections(&self) -> Vec<InspectRecord> {
        self.ring
            .lock()
            .map(|r| r.node.iter().cloned().collect())
            .unwrap_or_default()
    }

    /// The selected node's inspection `back` heartbeats before its newest
    /// (clamped to the oldest kept) and how many are kept; a frame copies
    /// only this one.
    pub fn inspection(&self, back: usize) -> Option<(InspectRecord, usize)> {
        let r = self.ring.lock().ok()?;
        let n = r.node.len();
        let last = n.checked_sub(1)?;
        Some((r.node[last - back.min(last)].clone(), n))
    }

    /// `.` in the inspector: heartbeats forward until the selected node's
    /// next one (at most one round of the cluster's nodes), so the
    /// inspector has something new to show.
    pub(super) fn step_to_selected_node(&mut self) {
        let kept = |app: &App| {
            app.ring
                .lock()
                .map(|r| r.node.back().map(|x| (x.t, r.node.len())))
                .ok()
                .flatten()
        };
        let before = kept(self);
        for _ in 0..=self.sim.w.cluster.nodes.len() {
            let hb = self.sim.w.heartbeats;
            self.step_heartbeat();
            if self.status.is_some() || self.sim.w.heartbeats == hb || kept(self) != before {
                break;
            }
        }
    }

    /// `.`: one heartbeat forward while paused (see [`Sim::step_heartbeat`]).
    pub(super) fn step_heartbeat(&mut self) {
        if self.sim.halted().is_some() {
            self.note_halt();
            return;
        }
        if self.sim.is_finished() {
            self.status = Some("the run has finished: nothing left to step".into());
            return;
        }
        if !self.paused {
            self.status = Some("pause (space) first, then . steps one heartbeat".into());
            return;
        }
        if let Some(t) = self.sim.next_event_time() {
            self.index.history.fill_before(t, &self.sim.w);
        }
        self.status = match self.sim.step_heartbeat() {
            None if self.sim.halted().is_some() => {
                self.note_halt();
                return;
            }
            None => Some("the run cannot go on: no job can ever run".into()),
            Some(_) if self.sim.is_finished() => {
                Some(format!("the run has finished at {}", clock(self.sim.w.now)))
            }
            Some(s) if !s.heartbeat => Some(format!(
                "no heartbeat pending: stepped one event, to {}",
                clock(s.t)
            )),
            Some(_) => None,
        };
    }
    /// How far back the kept heartbeats reach: about [`INSPECT_RING`]
    /// heartbeats of one node.
    pub(super) fn inspect_span(&self) -> Ms {
        match self.sim.w.heartbeat_interval {
            Some(hb) => {
                hb.saturating_mul(INSPECT_RING as Ms) / self.sim.w.cluster.nodes.len().max(1) as Ms
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
        for _ in 0..max {
            let Some(t) = self.sim.next_event_time() else {
                cut = false;
                break;
            };
            if target.is_some_and(|l| t > l) {
                cut = false;
                break;
            }
            self.index.history.fill_before(t, &self.sim.w);
            if !self.sim.run_until(Some(t)) {
                cut = false;
                break; // finished, or can never go on
            }
            if deadline.is_some_and(|d| std::time::Instant::now() >= d) {
                break;
            }
        }
        if let Some(l) = target.filter(|_| !cut) {
            // No event left before it: the clock moves on to it.
            self.sim.run_until(Some(l));
        }
        cut
    }

    /// Advances the run by `wall_ms` of wall-clock time at the current
    /// speed, an instant at a time so the utilisation and queue samples
    /// see the state between events.
    pub(super) fn tick(&mut self, wall_ms: u64) {
        if self.paused || self.sim.is_finished() {
            return;
        }
        let deadline = self.frame_budget.map(|b| std::time::Instant::now() + b);
        let s = self.speed();
        // `until` (record --until) caps every step.
        let target = if s.is_infinite() {
            self.until
        } else {
            self.carry += wall_ms as f64 * s;
            let adv = self.carry.floor();
            self.carry -= adv;
            Some((self.sim.w.now + adv as Ms).min(self.until.unwrap_or(Ms::MAX)))
        };
        // Only the last INSPECT_RING heartbeats can be shown: skip building
        // inspections before them (at "max", guess the frame's end from the
        // last frame's advance).
        let start = self.sim.w.now;
        let span = self.inspect_span();
        let end_guess = target.unwrap_or(start.saturating_add(self.last_advance));
        self.sim.set_inspect_from(end_guess.saturating_sub(span));
        // A frame processes a bounded number of instants, within its
        // wall-clock budget: what it leaves is not owed to the next frame
        // (the run falls behind the speed asked for, and says so).
        let cut = self.run_sampled(target, MAX_EVENTS_PER_FRAME, deadline);
        if cut {
            self.carry = 0.0;
        }
        self.last_advance = self.sim.w.now - start;
        // Only a frame cut short fell behind; one that reached its target
        // (or the run's end, or `--until`) kept up.
        if cut && wall_ms > 0 && !s.is_infinite() {
            let got = self.last_advance as f64 / wall_ms as f64;
            let a = self.achieved.map_or(got, |a| 0.8 * a + 0.2 * got);
            self.achieved = Some(a);
        } else if !cut {
            self.achieved = None;
        }
        // Steps and commands between frames are always inspected.
        self.sim.set_inspect_from(0);
        self.note_halt();
    }

    /// A policy in another process stopped the run: the run pauses where
    /// it stands and the status line says why (all of it is printed on
    /// quit).
    pub(super) fn note_halt(&mut self) {
        if let Some(why) = self.sim.halted() {
            if !self.paused || self.status.is_none() {
                let first = why.lines().next().unwrap_or(why);
                self.status = Some(format!("stopped: {first} (q quits)"));
                self.paused = true;
            }
        }
    }
}

/// A speed for the header: "6×", "0.5×".
fn speed_number(x: f64) -> String {
    if x >= 10.0 {
        format!("{x:.0}×")
    } else {
        format!("{x:.1}×")
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

    /// Follows a new selected node: its heartbeats among all nodes' kept.
    pub fn select(&mut self, n: NodeId) {
        if n == self.selected {
            return;
        }
        self.selected = n;
        self.node = self.all.iter().filter(|r| r.node == n).cloned().collect();
    }
}

//! A run's script: the scenario's `[[events]]` and, after them, what a
//! session scheduled through the command API ([`super::Sim::schedule`]),
//! in order, with the counts the run loop asks of them.
//!
//! Event `i` of the calendar's `Scripted(i)` is entry `i` here. The script
//! counts the heartbeats and submissions it holds that have not run yet:
//! a run is not finished while a submission is still to come, and the
//! TUI's `.` steps to a scripted heartbeat as to a periodic one.

use crate::model::{Action, EventSpec, Ms};

#[derive(Clone, Debug)]
pub struct Script {
    events: Vec<EventSpec>,
    /// How many of `events` the scenario wrote.
    scenario: usize,
    /// `heartbeat` and `submit` entries not yet run.
    heartbeats: usize,
    submits: usize,
}

impl Script {
    /// The scenario's events, none run yet.
    #[inline]
    pub fn new(events: &[EventSpec]) -> Script {
        let mut s = Script {
            events: Vec::with_capacity(events.len()),
            scenario: events.len(),
            heartbeats: 0,
            submits: 0,
        };
        for e in events {
            s.push(e.at, e.action.clone());
        }
        s
    }

    /// Appends `action` at `at`; returns its index.
    #[inline]
    pub fn push(&mut self, at: Ms, action: Action) -> u32 {
        match action {
            Action::Submit(_) => self.submits += 1,
            Action::Heartbeat(_) => self.heartbeats += 1,
            _ => {}
        }
        self.events.push(EventSpec {
            at,
            action,
            run: None,
        });
        (self.events.len() - 1) as u32
    }

    /// Entry `i`'s action, now run.
    #[inline]
    pub fn run(&mut self, i: u32) -> Action {
        let action = self.events[i as usize].action.clone();
        match action {
            Action::Submit(_) => self.submits -= 1,
            Action::Heartbeat(_) => self.heartbeats -= 1,
            _ => {}
        }
        action
    }

    /// Whether entry `i` is a scripted heartbeat.
    #[inline]
    pub fn is_heartbeat(&self, i: u32) -> bool {
        matches!(self.events[i as usize].action, Action::Heartbeat(_))
    }

    /// Every entry: the scenario's, then the session's.
    #[inline]
    pub fn events(&self) -> &[EventSpec] {
        &self.events
    }

    /// The entries the session scheduled.
    #[inline]
    pub fn session(&self) -> &[EventSpec] {
        &self.events[self.scenario..]
    }

    /// Scripted heartbeats not yet run.
    #[inline]
    pub fn heartbeats_pending(&self) -> usize {
        self.heartbeats
    }

    /// Scripted submissions not yet run.
    #[inline]
    pub fn submits_pending(&self) -> usize {
        self.submits
    }
}

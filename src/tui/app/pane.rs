//! One run as the TUI holds it: the engine, the heartbeat inspections
//! kept for the inspector, what the policy computes for the Jobs and Pools
//! views, the views' index of the run's past, and its log. A single run is
//! one pane; side by side (`--policies a,b`) each run is one, and every
//! view draws each in a part of the screen of its own.

use super::advance::Rings;
use super::logview::LogCache;
use super::View;
use crate::model::Scenario;
use crate::runs::build_sim;
use crate::sim::policy::{Inspection, PoolShares};
use crate::sim::{Notable, Sim, SimError};
use crate::tui::index::RunIndex;
use std::cell::RefCell;
use std::sync::{Arc, Mutex};

pub struct Pane {
    pub sim: Sim,
    /// Newest heartbeat inspections, newest last: all nodes', and the
    /// selected node's.
    pub ring: Arc<Mutex<Rings>>,
    /// The policy's current values for the Jobs view.
    pub values: Inspection,
    /// How the policy divides the cluster among pools, for the Pools view.
    pub shares: Option<PoolShares>,
    /// The run's past as the views draw it (slots' attempts, dead nodes,
    /// utilisation and queue samples), kept up to date after each update.
    pub index: RunIndex,
    /// The log's formatted lines and search matches.
    pub log: RefCell<LogCache>,
}

impl Pane {
    /// A run of `scenario`, journalled for the log and inspected into its
    /// ring.
    pub fn new(scenario: &Scenario) -> Result<Pane, SimError> {
        let mut sim = build_sim(scenario)?;
        sim.keep_journal();
        let ring: Arc<Mutex<Rings>> = Arc::new(Mutex::new(Rings::default()));
        let sink = ring.clone();
        sim.set_inspector(Box::new(move |rec| {
            if let Ok(mut r) = sink.lock() {
                r.push(rec);
            }
        }));
        let index = RunIndex::new(sim.view());
        Ok(Pane {
            sim,
            ring,
            values: Inspection::default(),
            shares: None,
            index,
            log: Default::default(),
        })
    }

    /// Takes in what the run journalled since last asked: the index's
    /// failure spans and the log's lines, each formatted as the world
    /// stands now, at the frame it happened in (a job moved later keeps
    /// the pool it was submitted to). Returns the scripted actions the
    /// engine refused among them.
    pub(super) fn take_in(&mut self) -> Vec<String> {
        let mut refused = Vec::new();
        for (t, n) in self.sim.take_journal() {
            self.index.note(t, &n);
            if let Notable::CommandFailed(e) = &n {
                refused.push(e.clone());
            }
            let text = super::log::notable_text(self.sim.view(), t, &n);
            self.log.get_mut().push(t, text);
        }
        refused
    }

    /// Recomputes what `view` shows from the policy.
    pub(super) fn refresh(&mut self, view: View) {
        self.index.catch_up(self.sim.view());
        self.take_in();
        if matches!(view, View::Jobs | View::Pools) {
            let p = self.sim.policy();
            self.values = p.inspect(self.sim.view(), 0);
            self.shares = p.pool_shares(self.sim.view());
        } else if view == View::Overview {
            self.shares = self.sim.policy().pool_shares(self.sim.view());
        }
    }
}

//! Scheduling policies behind one trait. A policy sees the world read-only
//! and the heartbeating node, and decides which tasks launch there; each
//! decision carries a short `rule` that names why (it lands in the trace).
//!
//! Decisions are applied as they are made ([`Heartbeat::launch_map`]) so
//! that a policy assigning several tasks in one heartbeat sees its own
//! earlier choices, as Hadoop's `obtainNewMapTask` marks a task running
//! the moment it hands it out.

pub mod adaptive_fair;
pub mod capacity;
pub mod config;
pub mod dhsa;
pub mod fair;
pub mod fifo;
pub mod hybsmrp;
pub mod joss;
pub mod omo;
pub mod predictor;
pub mod registry;

use crate::model::{JobId, NodeId};
use crate::sim::{AttemptId, Heartbeat, World};
use serde::Serialize;
use std::collections::BTreeMap;

/// Named values, sorted by key (serde_json's map is a BTreeMap here).
pub type Values = serde_json::Map<String, serde_json::Value>;

/// What a policy computed, for `--inspect` and the TUI inspector.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Inspection {
    pub cluster: Values,
    pub pools: BTreeMap<String, Values>,
    pub jobs: BTreeMap<String, Values>,
}

pub trait Policy: Send {
    /// The spec as the user wrote it, e.g. `fair[slowstart=1]`.
    fn label(&self) -> &str;

    /// Reduce slowstart fraction this policy schedules with.
    fn slowstart(&self) -> f64;

    /// Switched in mid-run: rebuild any state from the jobs already there.
    fn adopt(&mut self, _w: &World) {}

    fn job_arrived(&mut self, _w: &World, _job: JobId) {}

    fn task_finished(&mut self, _w: &World, _attempt: AttemptId) {}

    fn job_finished(&mut self, _w: &World, _job: JobId) {}

    /// Assign tasks to `hb.node`'s free slots.
    fn heartbeat(&mut self, hb: &mut Heartbeat<'_>);

    /// Called on every heartbeat of a live node, full or not, before
    /// `heartbeat`: for work that must go on while the cluster is full
    /// (fair's preemption). Must stay O(1) on most calls.
    fn maintain(&mut self, _hb: &mut Heartbeat<'_>) {}

    /// The values the policy decides with, as they stand before this
    /// heartbeat's assignments. Must not change decision state.
    fn inspect(&self, w: &World, node: NodeId) -> Inspection;

    /// The container-release monitor of a policy that has one (OMO), for
    /// the summary's `predictor` report and the TUI's estimated-vs-observed
    /// chart; None for the others.
    fn predictor(&self) -> Option<&predictor::Predictor> {
        None
    }

    /// Per pool, the shares the policy divides the cluster by, for a
    /// policy whose `inspect` (its keys fixed by its spec) has no pool
    /// table although pools still share the cluster: OMO's fair base. The
    /// TUI's Pools view reads it; `--inspect` does not.
    fn pool_values(&self, _w: &World) -> BTreeMap<String, Values> {
        BTreeMap::new()
    }
}

/// Small helpers shared by policies.
pub fn num(x: f64) -> serde_json::Value {
    serde_json::Number::from_f64(x)
        .map(serde_json::Value::Number)
        .unwrap_or(serde_json::Value::Null)
}

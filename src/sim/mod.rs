//! The engine: pure and synchronous. No terminal, no async runtime, no wall
//! clock, no file format; everything that changes a run goes through
//! [`Sim::command`] or the scenario's scripted events, which use the same
//! path. Policies plug in through [`policy::Policy`], built by the
//! [`policy::PolicyFactory`] the caller hands to [`Sim::new`].
//!
//! Above the engine a run is read through one face, [`RunView`], and
//! changed through a policy's [`Heartbeat`] or the command API: the
//! engine's state (`world`) is private to it, kept in parts each in a file
//! of its own (docs/architecture.md lists them).
//!
//! - `run`: [`Sim`], the run loop's policy side, the command API,
//!   checkpoints; `script`, its scripted events; `error`, what a command
//!   or a build can refuse;
//! - `world`: the engine's state and the processes that move it (attempts'
//!   and jobs' lives, phases, shuffle, failures, set-up and AM tasks, the
//!   MapReduce AM's allocator, the engine's side of the loop), and the view;
//! - the parts: `calendar`, `queues`, `jobs`, `jobtask`, `attempts`,
//!   `running`, `copy`, `flows`, `network`, `paths`, `books`, `inbox`,
//!   `records`, `settings`, `cluster`, `cpu`, `metrics`, `share` (what a
//!   run shares with its checkpoints);
//! - what policies plug into: `policy`, `event`; the engine's own
//!   speculation rules: `speculation`; `hdfs`, `rng`.

pub mod attempts;
mod books;
pub mod calendar;
pub mod cluster;
pub mod copy;
pub mod cpu;
mod error;
mod event;
pub mod flows;
pub mod hdfs;
mod inbox;
pub mod job;
pub mod jobs;
pub mod jobtask;
pub mod mapindex;
pub mod metrics;
pub mod network;
pub mod paths;
pub mod policy;
mod queues;
mod records;
pub mod rng;
pub mod run;
pub mod running;
mod script;
mod settings;
pub mod share;
pub mod speculation;
mod world;

pub use books::PoolStats;
pub use job::{Attempt, AttemptId, Kind, Locality, Outcome, TaskState};
pub use policy::{EndReason, Event, Inspection, Observer, Policy, PolicyFactory, Show};
pub use records::{Notable, PolicySwitch};
pub use run::{Checkpoint, InspectRecord, Sim, SimError, Stepped};
pub use world::heartbeat::Heartbeat;
pub use world::view::RunView;

/// Bytes a run of `tasks` tasks on `nodes` nodes is expected to need at its
/// peak, erring high; `sources` is the largest job's [`job_sources`].
///
/// Measured (peak resident memory, release build): `scale-400` under
/// `coarse` 63 MB for 251,844 tasks with every attempt kept (`--trace`),
/// 60 MB in a headless run that keeps none (252 and 237 bytes a task;
/// 463 with attempts of 104 bytes, as they were); 500 bytes a task here,
/// plus a base and a little per node, leaves
/// room for the TUI's records. Large runs need less a task (the
/// FB-2010 day, 16.6 M tasks on 3,000 nodes, peaks at 2.24 GiB headless:
/// about 145 bytes a task).
/// A reducer keeps what it has to fetch from each node its job's maps ran
/// on (24 bytes a node and 4 in its queue; 48 here, as a job of fewer
/// maps than nodes grows the vector by doubling): the 1 TB TeraSort, one
/// job of 1,800 maps and 1,800 reducers on 910 nodes, peaks at 59 MB
/// under `fixed` for its 3,600 tasks, and at 22 MB with 450 reducers. Only the
/// largest job's sources are counted: a trace's jobs come and go, and
/// adding them up would hold every shuffle of a day at once.
pub fn memory_estimate(tasks: u64, nodes: u64, sources: u64) -> u64 {
    (8 << 20)
        + tasks.saturating_mul(500)
        + nodes.saturating_mul(8 << 10)
        + sources.saturating_mul(BYTES_PER_SOURCE)
}

/// What [`memory_estimate`] counts for each (reducer, source node) pair.
pub const BYTES_PER_SOURCE: u64 = 48;

/// The most (reducer, source node) pairs a job of `maps` and `reduces`
/// holds at once on `nodes` nodes of capacity `cap`, as (reducers, nodes
/// each fetches from): every running reducer (no more than the cluster's
/// slots or smallest containers hold at once) from every node its job's
/// maps ran on.
pub fn job_sources(
    maps: u64,
    reduces: u64,
    nodes: u64,
    cap: &crate::model::Capacity,
) -> (u64, u64) {
    let (m, r) = cap.typed_view();
    let per_node = (u64::from(m) + u64::from(r)).max(1);
    (reduces.min(nodes.saturating_mul(per_node)), maps.min(nodes))
}

#[cfg(test)]
mod estimate_tests {
    use super::*;

    #[test]
    fn a_jobs_sources_are_its_map_nodes_times_its_running_reducers() {
        // Every reducer from every node: the TeraSort's 1,800 on 910 nodes.
        use crate::model::{Capacity, Resource, SlotModel};
        let slots = |m, r| Capacity::new(SlotModel::Typed, m, r, Resource::default());
        assert_eq!(job_sources(1_800, 1_800, 910, &slots(4, 4)), (1_800, 910));
        // Fewer maps than nodes: a reducer fetches from the maps' nodes.
        assert_eq!(job_sources(5, 100, 910, &slots(4, 4)), (100, 5));
        // More reducers than the cluster runs at once (map slots counted:
        // a policy may borrow them): only those running.
        assert_eq!(job_sources(1_000, 100_000, 10, &slots(2, 2)), (40, 10));
        // The largest job's sources add 48 bytes each.
        let (a, b) = (
            memory_estimate(3_600, 910, 0),
            memory_estimate(3_600, 910, 1_000),
        );
        assert_eq!(b - a, 48_000);
    }
}

/// What a run is expected to cost, from its size alone (its length is not
/// known before it runs): events, and the rate at which each network model
/// processes them on a 2-core machine (docs/performance.md). Calibrated on
/// swim-fb2009, scale-400, the FB-2009 and the FB-2010 days, on two
/// machines of the same kind, one half again as fast as the other: the
/// rates lie between the two; within a few times.
#[derive(Clone, Copy, Debug)]
pub struct CostEstimate {
    pub events: u64,
    nodes: u64,
}

/// `tasks` tasks, `fetches` the least shuffle fetches (each reducer from
/// each node its job's maps can run on), on `nodes` nodes.
pub fn cost_estimate(tasks: u64, fetches: u64, nodes: u64) -> CostEstimate {
    CostEstimate {
        events: tasks
            .saturating_mul(25)
            .saturating_add(fetches.saturating_mul(2)),
        nodes,
    }
}

impl CostEstimate {
    /// Wall-clock seconds under `model`: the exact solve slows as the
    /// cluster grows (more flows share each saturated link), the others
    /// hardly.
    pub fn seconds(&self, model: crate::model::NetworkModel) -> f64 {
        use crate::model::NetworkModel as M;
        let per_s = match model {
            M::Fixed => 2.5e6,
            // (5e5 when measured on the slower machine alone.)
            M::Coarse => 8e5,
            // (1.5e7 before a solve's rounds grew their set-up instead of
            // rebuilding it, about a fifth faster; 1.9e7 before its fills
            // skipped the resources far from full, a fifth faster again;
            // 2.8e7 when measured on the slower machine alone.)
            M::Shared => (3.2e7 / self.nodes.max(1) as f64).min(4e5),
        };
        self.events as f64 / per_s
    }
}

//! The engine: pure and synchronous. No terminal, no async runtime, no wall
//! clock, no file format; everything that changes a run goes through
//! [`Sim::command`] or the scenario's scripted events, which use the same
//! path. Policies plug in through [`policy::Policy`], built by the
//! [`policy::PolicyFactory`] the caller hands to [`Sim::new`].
//!
//! - `run`: the run loop, the command API, heartbeat dispatch;
//! - `world`: the cluster and its jobs, and what policies query;
//! - `lifecycle`: launching and ending attempts, job arrival and finish;
//! - `jobtask`: Hadoop 1.x's job set-up and clean-up tasks;
//! - `jobaction`: killing a job, setting its priority, moving its pool;
//! - `shuffle`, `failure`, `speculation`: the reducer's copy, node
//!   failures, speculative copies;
//! - `calendar`, `cluster`, `hdfs`, `job`, `metrics`, `rng`: the pieces.

mod allocator;
pub mod attempts;
pub mod calendar;
pub mod cluster;
pub mod cpu;
mod failure;
pub mod hdfs;
pub mod heartbeat;
pub mod job;
mod jobaction;
pub mod jobtask;
mod lifecycle;
pub mod mapindex;
mod merge;
pub mod metrics;
pub mod network;
pub mod paths;
pub mod phases;
pub mod policy;
pub mod rng;
pub mod run;
mod shuffle;
pub mod speculation;
pub mod world;

pub use heartbeat::Heartbeat;
pub use job::{Attempt, AttemptId, Kind, Locality, Outcome, TaskState};
pub use policy::{Event, Inspection, Observer, Policy, PolicyFactory, Show};
pub use run::{Checkpoint, Command, InspectRecord, Sim, SimError, Stepped};
pub use world::{Notable, PolicySwitch, PoolStats, World};

/// Bytes a run of `tasks` tasks on `nodes` nodes is expected to need at its
/// peak, erring high. Measured (peak resident memory, release build):
/// `scale-400` 137 MB for 251,844 tasks, the FB-2009 day 213 MB (fixed
/// network) and 223 MB (shared) for 427,900 tasks, a 377,047-task workload
/// 187 MB at its start: 480–530 bytes per task. Compacting the tasks at
/// rest (see `job::MapTask`) took about 100 bytes per task off (its first
/// step alone took `scale-400` to 117 MB, 463 bytes per task), so 500
/// here, plus a base and a little per node. Large runs need less a task:
/// the FB-2010 day (16.6 M tasks, 3,000 nodes, fixed network) peaked at
/// 4.48 GB, 270 bytes per task, with 72-byte attempts.
pub fn memory_estimate(tasks: u64, nodes: u64) -> u64 {
    (8 << 20) + tasks.saturating_mul(500) + nodes.saturating_mul(8 << 10)
}

/// What a run is expected to cost, from its size alone (its length is not
/// known before it runs): events, and the rate at which each network model
/// processes them on a 2-core machine (docs/performance.md). Calibrated on
/// swim-fb2009, scale-400 and the FB-2009 day; within a few times.
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
            M::Coarse => 5e5,
            // (1.5e7 before a solve's rounds grew their set-up instead of
            // rebuilding it: about a fifth faster.)
            M::Shared => (1.9e7 / self.nodes.max(1) as f64).min(4e5),
        };
        self.events as f64 / per_s
    }
}

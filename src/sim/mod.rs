//! The engine: pure and synchronous. No terminal, no async runtime, no wall
//! clock, no file format; everything that changes a run goes through
//! [`Sim::command`] or the scenario's scripted events, which use the same
//! path. Policies plug in through [`policy::Policy`], built by the
//! [`policy::PolicyFactory`] the caller hands to [`Sim::new`].
//!
//! - `run`: the run loop, the command API, heartbeat dispatch;
//! - `world`: the cluster and its jobs, and what policies query;
//! - `lifecycle`: launching and ending attempts, job arrival and finish;
//! - `shuffle`, `failure`, `speculation`: the reducer's copy, node
//!   failures, speculative copies;
//! - `calendar`, `cluster`, `hdfs`, `job`, `metrics`, `rng`: the pieces.

pub mod calendar;
pub mod cluster;
pub mod cpu;
mod failure;
pub mod hdfs;
pub mod heartbeat;
pub mod job;
mod lifecycle;
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
pub use policy::{Inspection, Observer, Policy, PolicyFactory};
pub use run::{Command, InspectRecord, Sim, SimError, Stepped};
pub use world::{Notable, PolicySwitch, PoolStats, World};

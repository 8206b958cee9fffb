//! The engine: pure and synchronous. No terminal, no async runtime, no wall
//! clock; everything that changes a run goes through [`engine::Sim::command`]
//! or the scenario's scripted events, which use the same path.

pub mod calendar;
pub mod cluster;
pub mod engine;
pub mod hdfs;
pub mod job;
pub mod metrics;
pub mod rng;
pub mod speculation;

pub use engine::{Command, Heartbeat, Sim, World};
pub use job::{Attempt, AttemptId, Kind, Locality, Outcome, TaskState};

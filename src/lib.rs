//! slotsim: a deterministic discrete-event simulator of Hadoop cluster
//! scheduling, on MRv1 slots or YARN containers. `model` is the
//! vocabulary every layer shares, `sim` the pure engine, `sched` the
//! policies, `scenario` the TOML front end, `runs` builds and runs
//! simulations from scenarios, `report` formats their outputs, `sweep`,
//! `tui` and the binary's `cli` sit on top (docs/architecture.md).
#![forbid(unsafe_code)]

pub mod error;
pub mod model;
pub mod report;
pub mod runs;
pub mod scenario;
pub mod sched;
pub mod sim;
pub mod sweep;
pub mod tui;
pub mod units;

/// docs/architecture.md's example policy, compiled and run as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../docs/architecture.md")]
pub struct ArchitectureDoc;

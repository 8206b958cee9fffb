//! The integration tests, one binary: the engine, every policy, the scenario
//! loader, the TUI on a test backend, and the binary end to end. One binary
//! links the library once (`cargo test --release`; a group alone with, e.g.,
//! `cargo test --release --test it tui::`).

mod adaptive_fair;
mod checkpoints;
mod cli;
mod common;
mod dynamicmr;
mod external;
mod failures;
mod fuzz;
mod hybsmrp;
mod import;
mod invariants;
mod job_actions;
mod jobtasks;
mod joss;
mod layers;
mod network;
mod omo;
mod physics;
mod plot;
mod preemption;
mod protocol2;
mod readme;
mod rumen;
mod same_run;
mod scenario_load;
mod side_by_side;
mod soak;
mod speculation;
mod sweep;
mod swim;
mod terminal;
mod tui;
mod tui_side;
mod worked_examples;
mod yarn;

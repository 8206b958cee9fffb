//! Scheduling policies: one module per policy family, each with its typed
//! `Config`, its registry `Entry` (name, paper, the cluster models it runs
//! on, build function) and its [`Policy`] implementation, and the line
//! below that lists it. The engine knows them only through the [`Policy`]
//! trait (`sim::policy`), built by [`registry::Registry`].
//!
//! Adding a policy: write `src/sched/NAME.rs` with an `Entry` and add one
//! line here (see docs/architecture.md). Everything else — `slotsim
//! policies`, the TUI's picker, scenario checks, the property tests —
//! reads this list.

pub mod entry;
pub mod registry;
pub mod settings;

pub use crate::sim::policy::{num, opt, Event, Inspection, Policy, Show, Value, Values};

/// Declares the policy modules and lists their entries in [`POLICIES`]:
/// one line per policy family, `module => [ENTRY, ...];` (an entry may be
/// a path inside the module, as `fifo::YARN_FIFO`).
macro_rules! policies {
    ($($module:ident => [$($($entry:ident)::+),+ $(,)?];)+) => {
        $(pub mod $module;)+
        /// Every registered policy, in the order `slotsim policies` lists them.
        pub const POLICIES: &[&registry::Entry] = &[$($(&$module::$($entry)::+),+),+];
    };
}

policies! {
    fifo => [FIFO];
    fair => [FAIR, FRESH];
    capacity => [CAPACITY];
    omo => [OMO, OMO_LAZY, OMO_BATCH];
    hybsmrp => [HYBSMRP];
    joss => [JOSS_T, JOSS_J];
    adaptive_fair => [ADAPTIVE_FAIR];
    dhsa => [DHSA_PI, DHSA_PD, DYNAMICMR];
    sjf => [SJF];
    external => [EXTERNAL];
    yarn => [fifo::YARN_FIFO, capacity::YARN_CAPACITY, fair::YARN_FAIR];
}

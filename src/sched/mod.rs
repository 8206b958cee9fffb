//! Scheduling policies: one module per policy family, each with its typed
//! `Config`, its build function and its [`Policy`] implementation, and the
//! registry line below that lists it. The engine knows them only through
//! the [`Policy`] trait (`sim::policy`), built by [`registry::Registry`].
//!
//! Adding a policy: write `src/sched/NAME.rs` with an `Entry` (name,
//! summary, source, build) and add one line here (see
//! docs/architecture.md).

pub mod registry;
pub mod settings;

pub use crate::sim::policy::{num, opt, Inspection, Policy, Value, Values};
pub use registry::build_sim;

/// Declares the policy modules and lists their entries in [`POLICIES`]:
/// one line per policy family, `module => [ENTRY, ...];`.
macro_rules! policies {
    ($($module:ident => [$($entry:ident),+ $(,)?];)+) => {
        $(pub mod $module;)+
        /// Every registered policy, in the order `slotsim policies` lists them.
        pub const POLICIES: &[&registry::Entry] = &[$($(&$module::$entry),+),+, &yarn::fifo::YARN_FIFO, &yarn::capacity::YARN_CAPACITY, &yarn::fair::YARN_FAIR];
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
    external => [EXTERNAL];
}

pub mod yarn;

/// The policies a cluster of `model` can run: the YARN schedulers on
/// `slot_model = "yarn"`, every other policy elsewhere.
pub fn policies_for(model: crate::model::SlotModel) -> Vec<&'static registry::Entry> {
    POLICIES
        .iter()
        .copied()
        .filter(|e| yarn::check_model(e.name, model).is_ok())
        .collect()
}

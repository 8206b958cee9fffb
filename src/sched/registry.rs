//! Every policy slotsim knows, with the paper or code it follows: one
//! [`Entry`] per policy, listed in `sched/mod.rs`. The registry builds
//! policies for the engine ([`Registry`] is its [`PolicyFactory`]) and
//! checks a scenario's `[scheduler]` table against the policies' configs.

use super::settings::{with_overrides, ConfigError, Settings, SpecError};
use crate::model::{PolicySpec, Scenario};
use crate::sim::policy::{BuildCtx, BuildError, Observer, Policy, PolicyFactory};
use crate::sim::{Sim, SimError};

/// Hadoop's default reduce slowstart (`mapred.reduce.slowstart.completed.maps`).
pub const DEFAULT_SLOWSTART: f64 = 0.05;

/// Builds a policy from its settings.
pub type BuildFn = fn(&Settings, &BuildCtx) -> Result<Box<dyn Policy>, ConfigError>;

/// One registered policy.
pub struct Entry {
    pub name: &'static str,
    pub summary: &'static str,
    /// The paper or code it follows.
    pub source: &'static str,
    pub build: BuildFn,
}

impl std::fmt::Debug for Entry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Entry").field("name", &self.name).finish()
    }
}

/// Policies written for typeless containers (`slot_model = "unified"`):
/// FRESH and OMO share each node's containers between maps and reduces,
/// which typed slots do not allow.
pub const UNIFIED_POLICIES: &[&str] = &["fresh", "omo", "omo-lazy", "omo-batch"];

/// A note for a policy meant for unified containers run on typed slots.
pub fn slot_model_note(policy: &str, model: crate::model::SlotModel) -> Option<String> {
    (model == crate::model::SlotModel::Typed && UNIFIED_POLICIES.contains(&policy)).then(|| {
        format!(
            "{policy} is meant for unified containers (cluster.slot_model = \"unified\"); this cluster's slots are typed, so it cannot share them between maps and reduces as its paper assumes"
        )
    })
}

pub fn lookup(name: &str) -> Option<&'static Entry> {
    super::POLICIES.iter().copied().find(|p| p.name == name)
}

pub fn names() -> Vec<&'static str> {
    super::POLICIES.iter().map(|p| p.name).collect()
}

fn unknown(name: &str) -> String {
    format!(
        "unknown policy \"{name}\"; expected one of: {}",
        names().join(", ")
    )
}

/// Builds the policy `spec` names from a `[scheduler]` table, with the
/// spec's overrides applied.
pub fn build(
    spec: &PolicySpec,
    table: &toml::Table,
    ctx: &BuildCtx,
) -> Result<Box<dyn Policy>, SpecError> {
    let entry = lookup(&spec.name).ok_or_else(|| SpecError(unknown(&spec.name)))?;
    build_entry(entry, spec, table, ctx)
}

fn build_entry(
    entry: &Entry,
    spec: &PolicySpec,
    table: &toml::Table,
    ctx: &BuildCtx,
) -> Result<Box<dyn Policy>, SpecError> {
    crate::sched::yarn::check_model(entry.name, ctx.model).map_err(SpecError)?;
    let t = with_overrides(table, spec)?;
    let label = spec.label();
    (entry.build)(&Settings::new(entry.name, &label, &t), ctx)
        .map_err(|e| SpecError(format!("policy {label}: {e}")))
}

/// Checks that `spec` names a registered policy whose settings, with the
/// overrides applied, are valid.
pub fn check_spec(spec: &PolicySpec, table: &toml::Table, ctx: &BuildCtx) -> Result<(), SpecError> {
    build(spec, table, ctx).map(|_| ())
}

/// Checks a `[scheduler]` table: `policy` (checked by the caller, which
/// knows where it came from), `slowstart`, and one table per registered
/// policy, each read by that policy's own config.
pub fn check_table(table: &toml::Table, ctx: &BuildCtx) -> Result<(), ConfigError> {
    let s = Settings::new("", "", table);
    s.shared_slowstart()?;
    for (k, v) in table {
        if k == "policy" || k == "slowstart" {
            continue;
        }
        let Some(entry) = lookup(k) else {
            return Err(ConfigError::unknown(
                format!("scheduler.{k}"),
                format!(
                    "unknown key `{k}`; expected `policy`, `slowstart`, or a policy's table: {}",
                    names().join(", ")
                ),
            ));
        };
        if !v.is_table() {
            return Err(ConfigError::new(
                format!("scheduler.{k}"),
                "expected a table of this policy's settings",
            ));
        }
        let settings = Settings::new(entry.name, entry.name, table);
        if entry.name == super::external::EXTERNAL.name {
            // Its command may come with the spec (`external:CMD`).
            super::external::check_settings(&settings)?;
            continue;
        }
        (entry.build)(&settings, ctx)?;
    }
    Ok(())
}

/// The engine's policy factory: policies by spec from one `[scheduler]`
/// table, among a list of entries (every registered policy, unless a
/// caller brings its own, as docs/architecture.md's example does).
pub struct Registry {
    table: toml::Table,
    entries: &'static [&'static Entry],
}

impl Registry {
    /// Every registered policy.
    pub fn new(table: toml::Table) -> Registry {
        Registry::with_entries(table, super::POLICIES)
    }

    /// Only these entries.
    pub fn with_entries(table: toml::Table, entries: &'static [&'static Entry]) -> Registry {
        Registry { table, entries }
    }
}

impl PolicyFactory for Registry {
    fn build(&self, spec: &PolicySpec, ctx: &BuildCtx) -> Result<Box<dyn Policy>, BuildError> {
        let entry = self
            .entries
            .iter()
            .find(|e| e.name == spec.name)
            .ok_or_else(|| SpecError(unknown(&spec.name)))?;
        build_entry(entry, spec, &self.table, ctx).map_err(|e| Box::new(e) as BuildError)
    }
}

/// A run of `sc` with the registry's policies and OMO's passive
/// release-rate monitor attached (so that every policy's run reports the
/// monitor's windows).
pub fn build_sim(sc: &Scenario) -> Result<Sim, SimError> {
    let mut sim = Sim::new(sc, Box::new(Registry::new(sc.scheduler.clone())))?;
    sim.config = crate::scenario::resolved(sc);
    let monitor: Box<dyn Observer> = Box::new(super::omo::PassiveMonitor::new(&sc.scheduler));
    sim.attach(monitor);
    Ok(sim)
}

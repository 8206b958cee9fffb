//! Every policy slotsim knows, with the paper or code it follows and the
//! cluster models it runs on: one [`Entry`] per policy, listed once in
//! `sched/mod.rs`. The registry builds policies for the engine
//! ([`Registry`] is its [`PolicyFactory`]) and checks a scenario's
//! `[scheduler]` table against the policies' configs.

use super::settings::{with_overrides, ConfigError, Settings};
use crate::model::{Capacity, Models, PolicySpec, SpecError};
use crate::sim::policy::{BuildCtx, BuildError, Built, PolicyFactory};

pub use super::entry::{BuildFn, CheckFn, Entry, DEFAULT_SLOWSTART};

/// What a set of models is, in a sentence's terms.
fn describe(m: Models) -> String {
    if m == Models::SLOTS {
        "Hadoop 1.x slots (cluster.slot_model = \"typed\" or \"unified\")".into()
    } else if m == Models::YARN {
        "YARN containers by memory and vcores (cluster.slot_model = \"yarn\")".into()
    } else {
        format!("cluster.slot_model = {}", m.names().join(" or "))
    }
}

pub fn lookup(name: &str) -> Option<&'static Entry> {
    super::POLICIES.iter().copied().find(|p| p.name == name)
}

pub fn names() -> Vec<&'static str> {
    super::POLICIES.iter().map(|p| p.name).collect()
}

/// The policies a cluster of this capacity runs, in the order `slotsim
/// policies` lists them.
pub fn for_capacity(cap: &Capacity) -> Vec<&'static Entry> {
    super::POLICIES
        .iter()
        .copied()
        .filter(|e| e.runs_on.has(cap))
        .collect()
}

/// Whether `entry` runs on a cluster of `cap`; if not, why, and what does.
pub fn check_model(entry: &Entry, cap: &Capacity) -> Result<(), SpecError> {
    if entry.runs_on.has(cap) {
        return Ok(());
    }
    let others: Vec<&str> = for_capacity(cap).iter().map(|e| e.name).collect();
    Err(SpecError(format!(
        "{} schedules {}; under cluster.slot_model = \"{}\" the policies are {}",
        entry.name,
        describe(entry.runs_on),
        cap.name(),
        others.join(", ")
    )))
}

/// A note for a policy run on a model its paper does not assume.
pub fn model_note(entry: &Entry, cap: &Capacity) -> Option<String> {
    (!entry.meant_for.has(cap)).then(|| {
        format!(
            "{} is meant for {}; this cluster's slots are {}, so it cannot share them between maps and reduces as its paper assumes",
            entry.name,
            match entry.meant_for.names().as_slice() {
                ["unified"] => "unified containers (cluster.slot_model = \"unified\")".to_string(),
                _ => describe(entry.meant_for),
            },
            cap.name()
        )
    })
}

/// Names a user may type for what is not a policy of its own, each with
/// what runs it: a nearer hint than a name spelt alike (`drf` is not
/// `sjf`).
const VARIANTS: &[(&str, &str)] = &[
    ("drf", "a variant: yarn-fair[scheduling_policy=drf]"),
    ("yarn-drf", "a variant: yarn-fair[scheduling_policy=drf]"),
    ("delay", "fair's delay scheduling: fair"),
    ("delay-scheduling", "fair's delay scheduling: fair"),
    (
        "late",
        "the engine's speculation, under any policy: --set tasks.speculation=late",
    ),
];

fn unknown(name: &str) -> SpecError {
    let all = names();
    let variant = VARIANTS
        .iter()
        .find(|(v, _)| v.eq_ignore_ascii_case(name))
        .map(|(_, what)| format!("it is {what}; "));
    let hint = variant
        .or_else(|| {
            crate::error::closest(name, all.iter().copied())
                .map(|c| format!("did you mean \"{c}\"? "))
        })
        .unwrap_or_default();
    SpecError(format!(
        "unknown policy \"{name}\"; {hint}expected one of: {}",
        all.join(", ")
    ))
}

/// Builds the policy `spec` names, among `entries`, from a `[scheduler]`
/// table with the spec's overrides applied.
fn build_in(
    entries: &[&'static Entry],
    spec: &PolicySpec,
    table: &toml::Table,
    ctx: &BuildCtx,
) -> Result<Built, SpecError> {
    let entry = entries
        .iter()
        .copied()
        .find(|e| e.name == spec.name())
        .ok_or_else(|| unknown(spec.name()))?;
    check_model(entry, &ctx.capacity)?;
    let label = spec.to_string();
    let built = match spec {
        PolicySpec::Builtin { overrides, .. } => {
            let t = with_overrides(table, entry.name, overrides)?;
            (entry.build)(&Settings::new(entry.name, &label, &t), ctx).map(|policy| Built {
                policy,
                label: label.clone(),
            })
        }
        PolicySpec::External(x) => {
            super::external::build(x, &Settings::new(entry.name, &label, table), ctx)
        }
    };
    built.map_err(|e| SpecError(format!("policy {label}: {e}")))
}

/// Builds the policy `spec` names from a `[scheduler]` table, with the
/// spec's overrides applied.
pub fn build(spec: &PolicySpec, table: &toml::Table, ctx: &BuildCtx) -> Result<Built, SpecError> {
    build_in(super::POLICIES, spec, table, ctx)
}

/// Checks that `spec` names a registered policy whose settings, with the
/// overrides applied, are valid on this cluster.
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
        match entry.check {
            Some(check) => check(&settings)?,
            None => drop((entry.build)(&settings, ctx)?),
        }
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
    fn build(&self, spec: &PolicySpec, ctx: &BuildCtx) -> Result<Built, BuildError> {
        build_in(self.entries, spec, &self.table, ctx).map_err(|e| Box::new(e) as BuildError)
    }
}

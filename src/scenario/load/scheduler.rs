//! `[scheduler]`: the policy to run and each policy's table, checked by
//! the policies themselves through the registry.

use super::{Cx, DEFAULT_POLICY, POLICY_ORIGIN, R};
use crate::error::InputError;
use crate::model::PolicySpec;
use crate::model::SpecError;
use crate::sched::registry;
use crate::sim::policy::BuildCtx;

/// Validates a policy spec (`NAME` or `NAME[key=value;...]`) against the
/// registry and the `[scheduler]` table the variant modifies.
pub(super) fn check_policy(
    spec: &str,
    raw_scheduler: &toml::Table,
    ctx: &BuildCtx,
) -> Result<PolicySpec, SpecError> {
    let spec: PolicySpec = spec.parse()?;
    registry::check_spec(&spec, raw_scheduler, ctx)?;
    Ok(spec)
}

/// Checks the `[scheduler]` table (every policy table in it is read by its
/// policy) and returns the policy to run: `--policy`, else `policy`, else
/// [`DEFAULT_POLICY`].
pub(super) fn compile_scheduler(
    cx: &Cx,
    raw_scheduler: &toml::Table,
    policy_override: Option<&str>,
    ctx: &BuildCtx,
) -> R<PolicySpec> {
    registry::check_table(raw_scheduler, ctx).map_err(|e| {
        let path: Vec<&str> = e.key.split('.').collect();
        if e.unknown_key {
            cx.at_key_name(&path, e.message)
        } else {
            cx.at_key(&path, e.message)
        }
    })?;
    let mut policy = PolicySpec::plain(DEFAULT_POLICY);
    if let Some(p) = raw_scheduler.get("policy") {
        let at = ["scheduler", "policy"];
        let Some(p) = p.as_str() else {
            return Err(cx.at_key(
                &at,
                "expected a policy name in quotes, such as \"fair\" (see `slotsim policies`)",
            ));
        };
        // A `--policy` for the cluster's model replaces a file's policy for
        // the other model (a slot policy on a cluster switched to yarn by an
        // override, say): the file's is not the one that runs.
        let replaced = policy_override.is_some()
            && p.parse::<PolicySpec>().ok().is_some_and(|spec| {
                registry::lookup(spec.name())
                    .is_some_and(|e| registry::check_model(e, &ctx.capacity).is_err())
            });
        if !replaced {
            policy = check_policy(p, raw_scheduler, ctx).map_err(|m| cx.at_key(&at, m.0))?;
        }
    }
    if let Some(p) = policy_override {
        policy =
            check_policy(p, raw_scheduler, ctx).map_err(|m| InputError::new(POLICY_ORIGIN, m.0))?;
    }
    Ok(policy)
}

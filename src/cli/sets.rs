//! `--set KEY=VALUE`: one scenario key overridden by its dotted path, as a
//! sweep plan's `[overrides]` set it (`sweep::plan::apply`: one parser,
//! the same errors), on `run`, `compare`, `record` and `validate`.

use slotsim::error::InputError;
use slotsim::model::Scenario;
use slotsim::scenario;
use std::path::Path;

/// Each `KEY=VALUE`, its value read as TOML (`1250`, `0.5`, `true`,
/// `"fair"`, `["128MB", "1GB"]`), or as a string when it is not TOML
/// (`--set scheduler.policy=fair`).
pub fn parse(sets: &[String]) -> Result<Vec<(String, toml::Value)>, InputError> {
    sets.iter()
        .map(|s| {
            let Some((key, value)) = s.split_once('=') else {
                return Err(InputError::new(
                    "--set",
                    format!("\"{s}\" is not KEY=VALUE; expected e.g. --set network.nic_mbps=1250"),
                ));
            };
            let key = key.trim();
            if key.is_empty() {
                return Err(InputError::new(
                    "--set",
                    format!("\"{s}\" has no key; expected e.g. --set network.nic_mbps=1250"),
                ));
            }
            let value = value.trim();
            let parsed = format!("v = {value}")
                .parse::<toml::Table>()
                .ok()
                .and_then(|mut t| t.remove("v"))
                .unwrap_or_else(|| toml::Value::String(value.to_string()));
            Ok((key.to_string(), parsed))
        })
        .collect()
}

/// The scenario at `path` (the embedded quickstart for `None`) with `sets`
/// applied, under `policy` and `seed` if given. An error of the file
/// itself keeps its place in it; one the overrides make names `--set`.
pub fn load(
    path: Option<&Path>,
    sets: &[(String, toml::Value)],
    policy: Option<&str>,
    seed: Option<u64>,
) -> Result<Scenario, InputError> {
    let plain = || match path {
        Some(p) => scenario::load_file(p, policy, seed),
        None => scenario::load_default(policy, seed),
    };
    if sets.is_empty() {
        return plain();
    }
    let (text, origin) = match path {
        Some(p) => (scenario::load::read_file(p)?, p.display().to_string()),
        None => (
            scenario::DEFAULT_SCENARIO.to_string(),
            scenario::load::DEFAULT_ORIGIN.to_string(),
        ),
    };
    let set = slotsim::sweep::plan::apply(&text, sets)
        .map_err(|e| InputError::new("--set", e.to_string()))?;
    scenario::load_str(&set, &origin, policy, seed).map_err(|e| {
        // The file's own error where it has one, at its place; else the
        // overrides made it: named by the first that fails alone.
        if let Err(own) = plain() {
            return own;
        }
        let culprit = sets.iter().find(|one| {
            slotsim::sweep::plan::apply(&text, std::slice::from_ref(one))
                .is_ok_and(|t| scenario::load_str(&t, &origin, policy, seed).is_err())
        });
        match culprit {
            Some((k, v)) => InputError::new("--set", format!("{k}={v}: {}", e.message)),
            None => InputError::new("--set", e.message),
        }
    })
}

//! A policy's settings: the scenario's `[scheduler]` table, with a variant's
//! overrides (`fair[slowstart=0.05]`) applied to `[scheduler.NAME]`, read
//! by each policy into its own typed `Config`.
//!
//! Every config field is optional, so a policy reads exactly the keys it
//! knows and rejects the others (`deny_unknown_fields`); a problem is a
//! [`ConfigError`] naming the dotted key, which the scenario loader turns
//! into a `FILE:LINE:COL` error.

pub use crate::model::SpecError;
use serde::de::DeserializeOwned;

/// A setting that cannot be used: its dotted key (`scheduler.fair.slowstart`)
/// and what is wrong with it.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{key}: {message}")]
pub struct ConfigError {
    pub key: String,
    pub message: String,
    /// The key itself is at fault (unknown), not its value.
    pub unknown_key: bool,
}

impl ConfigError {
    pub fn new(key: impl Into<String>, message: impl Into<String>) -> ConfigError {
        ConfigError {
            key: key.into(),
            message: message.into(),
            unknown_key: false,
        }
    }

    /// An error about a key that should not be there.
    pub fn unknown(key: impl Into<String>, message: impl Into<String>) -> ConfigError {
        ConfigError {
            unknown_key: true,
            ..ConfigError::new(key, message)
        }
    }
}

/// The `[scheduler]` table a policy is built from.
#[derive(Clone, Copy, Debug)]
pub struct Settings<'a> {
    /// The registered name being built (`omo-lazy`), whose table is its own.
    pub name: &'a str,
    /// The spec as the user wrote it (`fair[slowstart=1]`): the policy's label.
    pub label: &'a str,
    pub table: &'a toml::Table,
}

impl<'a> Settings<'a> {
    pub fn new(name: &'a str, label: &'a str, table: &'a toml::Table) -> Settings<'a> {
        Settings { name, label, table }
    }

    /// `[scheduler.NAME]`, the policy's own table (defaults if absent).
    pub fn own<T: DeserializeOwned + Default>(&self) -> Result<T, ConfigError> {
        self.of(self.name)
    }

    /// `[scheduler.NAME]` for another name (OMO's variants read `omo`'s).
    pub fn of<T: DeserializeOwned + Default>(&self, name: &str) -> Result<T, ConfigError> {
        let prefix = format!("scheduler.{name}");
        match self.table.get(name) {
            None => Ok(T::default()),
            Some(toml::Value::Table(t)) => read_table(t, &prefix),
            Some(_) => Err(ConfigError::new(
                prefix,
                "expected a table of this policy's settings",
            )),
        }
    }

    /// `slowstart` of `[scheduler]`, shared by every policy that has one.
    pub fn shared_slowstart(&self) -> Result<Option<f64>, ConfigError> {
        match self.table.get("slowstart") {
            None => Ok(None),
            Some(v) => {
                let x = v
                    .as_float()
                    .or_else(|| v.as_integer().map(|i| i as f64))
                    .ok_or_else(|| {
                        ConfigError::new("scheduler.slowstart", "expected a number between 0 and 1")
                    })?;
                slowstart("scheduler.slowstart", Some(x))?;
                Ok(Some(x))
            }
        }
    }

    /// The slowstart a policy with its own `slowstart` key uses: its own,
    /// else `[scheduler]`'s, else `default`.
    pub fn slowstart_or(&self, own: Option<f64>, default: f64) -> Result<f64, ConfigError> {
        slowstart(&format!("scheduler.{}.slowstart", self.name), own)?;
        Ok(match own {
            Some(x) => x,
            None => self.shared_slowstart()?.unwrap_or(default),
        })
    }
}

/// Deserializes one policy table. On failure, finds the key at fault by
/// reading each key alone (every field is optional), so the error can
/// point at it.
fn read_table<T: DeserializeOwned + Default>(
    t: &toml::Table,
    prefix: &str,
) -> Result<T, ConfigError> {
    let whole: Result<T, toml::de::Error> = toml::Value::Table(t.clone()).try_into();
    let e = match whole {
        Ok(x) => return Ok(x),
        Err(e) => e,
    };
    for (k, v) in t {
        let mut one = toml::Table::new();
        one.insert(k.clone(), v.clone());
        if let Err(e) = toml::Value::Table(one).try_into::<T>() {
            let key = format!("{prefix}.{k}");
            let message = crate::error::user_terms(e.message());
            // serde's own wording for a key a struct does not have.
            return Err(if message.starts_with("unknown field") {
                ConfigError::unknown(key, message)
            } else {
                ConfigError::new(key, message)
            });
        }
    }
    Err(ConfigError::new(
        prefix,
        crate::error::user_terms(e.message()),
    ))
}

/// A fraction setting in [0, 1].
pub fn fraction(key: &str, v: Option<f64>) -> Result<(), ConfigError> {
    match v {
        Some(x) if !(0.0..=1.0).contains(&x) => {
            let short = key.rsplit('.').next().unwrap_or(key);
            Err(ConfigError::new(
                key,
                format!("{short} must be between 0 and 1, got {x}"),
            ))
        }
        _ => Ok(()),
    }
}

/// A slowstart setting in [0, 1].
pub fn slowstart(key: &str, v: Option<f64>) -> Result<(), ConfigError> {
    match v {
        Some(x) if !(0.0..=1.0).contains(&x) => Err(ConfigError::new(
            key,
            format!("slowstart must be between 0 and 1, got {x}"),
        )),
        _ => Ok(()),
    }
}

/// The `[scheduler]` table with a variant's overrides written into
/// `[scheduler.NAME]` (which takes precedence over `[scheduler]`). Values
/// are read as TOML (numbers, booleans) or else as strings (durations
/// such as `4.5s`).
pub fn with_overrides(
    table: &toml::Table,
    name: &str,
    overrides: &[(String, String)],
) -> Result<toml::Table, SpecError> {
    let mut t = table.clone();
    t.insert("policy".into(), toml::Value::String(name.to_string()));
    if !overrides.is_empty() {
        let sub = t
            .entry(name.to_string())
            .or_insert_with(|| toml::Value::Table(toml::Table::new()));
        let Some(sub) = sub.as_table_mut() else {
            return Err(SpecError(format!("[scheduler.{name}] is not a table")));
        };
        for (k, v) in overrides {
            sub.insert(k.clone(), parse_scalar(v));
        }
    }
    Ok(t)
}

fn parse_scalar(v: &str) -> toml::Value {
    let doc = format!("v = {v}");
    if let Ok(t) = doc.parse::<toml::Table>() {
        if let Some(x) = t.get("v") {
            return x.clone();
        }
    }
    toml::Value::String(v.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Default, serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Cfg {
        slowstart: Option<f64>,
        #[serde(default, deserialize_with = "crate::units::de_opt_duration")]
        delay: Option<u64>,
    }

    #[test]
    fn overrides_go_into_the_policy_table_and_errors_name_the_key() {
        let t: toml::Table = "policy = \"fifo\"\nslowstart = 0.5\n".parse().unwrap();
        let over = |s: &str| match s.parse::<crate::model::PolicySpec>().unwrap() {
            crate::model::PolicySpec::Builtin { overrides, .. } => overrides,
            _ => unreachable!(),
        };
        let t2 = with_overrides(&t, "x", &over("x[slowstart=1;delay=2s]")).unwrap();
        let s = Settings::new("x", "x", &t2);
        let c: Cfg = s.own().unwrap();
        assert_eq!(c.slowstart, Some(1.0));
        assert_eq!(c.delay, Some(2000));
        assert_eq!(s.shared_slowstart().unwrap(), Some(0.5));
        let bad = with_overrides(&t, "x", &over("x[nosuchkey=1]")).unwrap();
        let e = Settings::new("x", "x", &bad).own::<Cfg>().unwrap_err();
        assert_eq!(e.key, "scheduler.x.nosuchkey");
        assert!(e.message.contains("nosuchkey"), "{e}");
        let bad = with_overrides(&t, "x", &over("x[delay=3]")).unwrap();
        let e = Settings::new("x", "x", &bad).own::<Cfg>().unwrap_err();
        assert_eq!(e.key, "scheduler.x.delay");
    }
}

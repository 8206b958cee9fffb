//! A policy's settings: the scenario's `[scheduler]` table, with a variant's
//! overrides (`fair[slowstart=0.05]`) applied to `[scheduler.NAME]`, read
//! by each policy into its own typed `Config`.
//!
//! Every config field is optional, so a policy reads exactly the keys it
//! knows and rejects the others (`deny_unknown_fields`); a problem is a
//! [`ConfigError`] naming the dotted key, which the scenario loader turns
//! into a `FILE:LINE:COL` error.

use crate::model::PolicySpec;
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

/// A policy spec that names no usable policy: why, in the user's terms.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct SpecError(pub String);

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

/// Parses a policy spec `NAME`, `NAME[key=value;key=value]`, or
/// `external:CMD ARGS` (a policy in another process: the rest of the spec
/// is its command line, split on whitespace).
pub fn parse_policy_spec(s: &str) -> Result<PolicySpec, SpecError> {
    let s = s.trim();
    if let Some(cmd) = s.strip_prefix("external:") {
        let cmd = cmd.trim();
        if cmd.is_empty() {
            return Err(SpecError(format!(
                "invalid policy \"{s}\": expected external:COMMAND ARGS, as in external:python3 policy.py"
            )));
        }
        return Ok(PolicySpec::external(cmd));
    }
    let Some(open) = s.find('[') else {
        if s.is_empty() || s.contains(']') {
            return Err(SpecError(format!(
                "invalid policy \"{s}\": expected NAME or NAME[key=value;...]"
            )));
        }
        return Ok(PolicySpec::plain(s));
    };
    if !s.ends_with(']') {
        return Err(SpecError(format!(
            "invalid policy \"{s}\": a variant must end with ']', as in fair[slowstart=0.05]"
        )));
    }
    let name = s[..open].trim();
    if name.is_empty() {
        return Err(SpecError(format!(
            "invalid policy \"{s}\": missing policy name before '['"
        )));
    }
    let inner = &s[open + 1..s.len() - 1];
    let mut overrides = Vec::new();
    for part in inner.split(';').map(str::trim).filter(|p| !p.is_empty()) {
        let Some((k, v)) = part.split_once('=') else {
            return Err(SpecError(format!(
                "invalid policy \"{s}\": \"{part}\" is not key=value"
            )));
        };
        let k = k.trim().to_string();
        if overrides.iter().any(|(x, _): &(String, String)| *x == k) {
            return Err(SpecError(format!(
                "invalid policy \"{s}\": key \"{k}\" is given twice"
            )));
        }
        overrides.push((k, v.trim().to_string()));
    }
    Ok(PolicySpec {
        name: name.to_string(),
        overrides,
    })
}

/// Splits a `--policies` list on commas that are not inside brackets.
pub fn split_policy_list(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut cur = String::new();
    for ch in s.chars() {
        match ch {
            '[' => depth += 1,
            ']' => depth -= 1,
            ',' if depth == 0 => {
                out.push(std::mem::take(&mut cur));
                continue;
            }
            _ => {}
        }
        cur.push(ch);
    }
    out.push(cur);
    out.into_iter()
        .map(|p| p.trim().to_string())
        .filter(|p| !p.is_empty())
        .collect()
}

/// The `[scheduler]` table with a variant's overrides written into
/// `[scheduler.NAME]` (which takes precedence over `[scheduler]`). Values
/// are read as TOML (numbers, booleans) or else as strings (durations
/// such as `4.5s`).
pub fn with_overrides(table: &toml::Table, spec: &PolicySpec) -> Result<toml::Table, SpecError> {
    let mut t = table.clone();
    t.insert("policy".into(), toml::Value::String(spec.name.clone()));
    if !spec.overrides.is_empty() {
        let sub = t
            .entry(spec.name.clone())
            .or_insert_with(|| toml::Value::Table(toml::Table::new()));
        let Some(sub) = sub.as_table_mut() else {
            return Err(SpecError(format!(
                "[scheduler.{}] is not a table",
                spec.name
            )));
        };
        for (k, v) in &spec.overrides {
            let v = if spec.is_external() {
                toml::Value::String(v.clone())
            } else {
                parse_scalar(v)
            };
            sub.insert(k.clone(), v);
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

    #[test]
    fn specs() {
        let p = parse_policy_spec("fair[slowstart=0.05;assign_multiple=false]").unwrap();
        assert_eq!(p.name, "fair");
        assert_eq!(p.overrides.len(), 2);
        assert_eq!(p.label(), "fair[slowstart=0.05;assign_multiple=false]");
        assert!(parse_policy_spec("fair[slowstart").is_err());
        assert!(parse_policy_spec("[x=1]").is_err());
        assert!(parse_policy_spec("fair[slowstart=0.5;slowstart=1]").is_err());
        assert_eq!(
            split_policy_list("fair[slowstart=0.05],fair[slowstart=1;assign_multiple=false], fifo"),
            vec![
                "fair[slowstart=0.05]",
                "fair[slowstart=1;assign_multiple=false]",
                "fifo"
            ]
        );
    }

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
        let spec = parse_policy_spec("x[slowstart=1;delay=2s]").unwrap();
        let t2 = with_overrides(&t, &spec).unwrap();
        let s = Settings::new("x", "x", &t2);
        let c: Cfg = s.own().unwrap();
        assert_eq!(c.slowstart, Some(1.0));
        assert_eq!(c.delay, Some(2000));
        assert_eq!(s.shared_slowstart().unwrap(), Some(0.5));
        let bad = with_overrides(&t, &parse_policy_spec("x[nosuchkey=1]").unwrap()).unwrap();
        let e = Settings::new("x", "x", &bad).own::<Cfg>().unwrap_err();
        assert_eq!(e.key, "scheduler.x.nosuchkey");
        assert!(e.message.contains("nosuchkey"), "{e}");
        let bad = with_overrides(&t, &parse_policy_spec("x[delay=3]").unwrap()).unwrap();
        let e = Settings::new("x", "x", &bad).own::<Cfg>().unwrap_err();
        assert_eq!(e.key, "scheduler.x.delay");
    }
}

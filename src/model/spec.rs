//! A policy spec: the policy a run uses, as `--policy`, `--policies`,
//! `[scheduler] policy`, a `switch_policy` event or a sweep plan names it.
//! Parsed ([`std::str::FromStr`]) and printed ([`std::fmt::Display`]) here
//! and nowhere else:
//!
//! - `NAME` or `NAME[key=value;key=value]`: a built-in policy, with
//!   overrides of its `[scheduler.NAME]` keys (`fair[slowstart=0.05]`);
//! - `external[label=NAME;timeout=DUR;protocol=N]:CMD ARGS`: a policy in
//!   another process (every bracket key optional; without `:CMD` the
//!   command is `[scheduler.external] command`).

use super::Ms;
use std::fmt;

/// A policy spec that cannot be used: why, in the user's terms.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct SpecError(pub String);

/// Which policy a run uses, and how.
#[derive(Clone, Debug, PartialEq)]
pub enum PolicySpec {
    /// A registered policy, with overrides of its settings in the order
    /// given.
    Builtin {
        name: String,
        overrides: Vec<(String, String)>,
    },
    /// A policy in another process.
    External(ExternalSpec),
}

/// A policy in another process (docs/write-a-policy.md).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ExternalSpec {
    /// Its program and arguments; `None`: the scenario's
    /// `[scheduler.external] command`.
    pub argv: Option<Vec<String>>,
    /// What tables, plots, traces and sweep cells call it instead of its
    /// command.
    pub label: Option<String>,
    /// The longest wait for one reply (else `[scheduler.external]`'s).
    pub timeout: Option<Ms>,
    /// The protocol version it speaks (else `[scheduler.external]`'s, else
    /// 1).
    pub protocol: Option<u32>,
}

/// The registered name of external policies.
pub const EXTERNAL: &str = "external";

impl PolicySpec {
    /// Registered policy `name` with its settings as the scenario gives
    /// them (an external policy with the scenario's command).
    pub fn plain(name: &str) -> PolicySpec {
        if name == EXTERNAL {
            return PolicySpec::External(ExternalSpec::default());
        }
        PolicySpec::Builtin {
            name: name.to_string(),
            overrides: Vec::new(),
        }
    }

    /// The registered policy it names: `fair` for `fair[slowstart=1]`,
    /// `external` for any external policy.
    pub fn name(&self) -> &str {
        match self {
            PolicySpec::Builtin { name, .. } => name,
            PolicySpec::External(_) => EXTERNAL,
        }
    }

    /// The label reports, traces and the TUI give a run of it: the spec
    /// as written for a built-in policy; `external:` and its label or its
    /// command for an external one (its command from the scenario when
    /// the spec gives none: `fallback`).
    pub fn label_with(&self, fallback: Option<&[String]>) -> String {
        match self {
            PolicySpec::Builtin { .. } => self.to_string(),
            PolicySpec::External(x) => match (&x.label, &x.argv, fallback) {
                (Some(l), _, _) => format!("{EXTERNAL}:{l}"),
                (None, Some(a), _) => format!("{EXTERNAL}:{}", a.join(" ")),
                (None, None, Some(a)) => format!("{EXTERNAL}:{}", a.join(" ")),
                (None, None, None) => EXTERNAL.to_string(),
            },
        }
    }

    /// [`PolicySpec::label_with`] without a scenario's command.
    pub fn label(&self) -> String {
        self.label_with(None)
    }
}

impl fmt::Display for PolicySpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PolicySpec::Builtin { name, overrides } => {
                f.write_str(name)?;
                if !overrides.is_empty() {
                    let kv: Vec<String> =
                        overrides.iter().map(|(k, v)| format!("{k}={v}")).collect();
                    write!(f, "[{}]", kv.join(";"))?;
                }
                Ok(())
            }
            PolicySpec::External(x) => {
                f.write_str(EXTERNAL)?;
                let mut kv = Vec::new();
                if let Some(l) = &x.label {
                    kv.push(format!("label={l}"));
                }
                if let Some(t) = x.timeout {
                    kv.push(format!("timeout={}", crate::units::fmt_secs(t)));
                }
                if let Some(p) = x.protocol {
                    kv.push(format!("protocol={p}"));
                }
                if !kv.is_empty() {
                    write!(f, "[{}]", kv.join(";"))?;
                }
                if let Some(argv) = &x.argv {
                    write!(f, ":{}", argv.join(" "))?;
                }
                Ok(())
            }
        }
    }
}

impl std::str::FromStr for PolicySpec {
    type Err = SpecError;

    fn from_str(text: &str) -> Result<PolicySpec, SpecError> {
        let s = text.trim();
        let bad = |why: String| SpecError(format!("invalid policy \"{s}\": {why}"));
        // `NAME`, `NAME[...]`, and for external policies a `:CMD` after.
        let head_end = s.find(['[', ':']).unwrap_or(s.len());
        let name = s[..head_end].trim();
        let mut rest = &s[head_end..];
        let mut pairs = Vec::new();
        if rest.starts_with('[') {
            let Some(close) = rest.find(']') else {
                return Err(bad(
                    "a variant must end with ']', as in fair[slowstart=0.05]".into(),
                ));
            };
            for part in rest[1..close]
                .split(';')
                .map(str::trim)
                .filter(|p| !p.is_empty())
            {
                let Some((k, v)) = part.split_once('=') else {
                    return Err(bad(format!("\"{part}\" is not key=value")));
                };
                let k = k.trim().to_string();
                if pairs.iter().any(|(x, _): &(String, String)| *x == k) {
                    return Err(bad(format!("key \"{k}\" is given twice")));
                }
                pairs.push((k, v.trim().to_string()));
            }
            rest = &rest[close + 1..];
        }
        if name.is_empty() {
            return Err(bad(if s.starts_with('[') {
                "missing policy name before '['".into()
            } else {
                "expected NAME or NAME[key=value;...]".into()
            }));
        }
        if name == EXTERNAL {
            return external(s, pairs, rest);
        }
        if !rest.is_empty() {
            return Err(bad(if rest.starts_with(':') {
                format!("only external policies take a command (external:CMD ARGS); \"{name}\" is built in")
            } else {
                "a variant must end with ']', as in fair[slowstart=0.05]".into()
            }));
        }
        if name.contains(']') {
            return Err(bad("expected NAME or NAME[key=value;...]".into()));
        }
        if name.contains(char::is_whitespace) {
            return Err(bad(
                "a policy's name has no spaces (a policy in another process is external:COMMAND ARGS)".into(),
            ));
        }
        Ok(PolicySpec::Builtin {
            name: name.to_string(),
            overrides: pairs,
        })
    }
}

/// An external policy's spec from its bracket keys and what follows them.
fn external(s: &str, pairs: Vec<(String, String)>, rest: &str) -> Result<PolicySpec, SpecError> {
    let bad = |why: String| SpecError(format!("invalid policy \"{s}\": {why}"));
    let mut x = ExternalSpec::default();
    for (k, v) in pairs {
        match k.as_str() {
            "label" if v.is_empty() => return Err(bad("label is empty; expected a name".into())),
            "label" => x.label = Some(v),
            "timeout" => {
                let t =
                    crate::units::parse_duration(&v).map_err(|e| bad(format!("timeout: {e}")))?;
                if t == 0 {
                    return Err(bad("timeout must be longer than 0 s".into()));
                }
                x.timeout = Some(t);
            }
            "protocol" => match v.as_str() {
                "1" => x.protocol = Some(1),
                "2" => x.protocol = Some(2),
                _ => {
                    return Err(bad(format!(
                        "protocol {v} is not spoken; expected protocol=1 or protocol=2"
                    )))
                }
            },
            other => {
                return Err(bad(format!(
                    "unknown key \"{other}\"; an external policy takes label, timeout and protocol"
                )))
            }
        }
    }
    if let Some(cmd) = rest.strip_prefix(':') {
        let argv: Vec<String> = cmd.split_whitespace().map(str::to_string).collect();
        if argv.is_empty() {
            return Err(bad(
                "expected external:COMMAND ARGS, as in external:python3 policy.py".into(),
            ));
        }
        x.argv = Some(argv);
    } else if !rest.is_empty() {
        return Err(bad(
            "expected external:COMMAND ARGS, as in external:python3 policy.py".into(),
        ));
    }
    Ok(PolicySpec::External(x))
}

/// Splits a `--policies` list on commas that are not inside brackets (a
/// spec whose command holds a comma is given by a `--policy` of its own).
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

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> PolicySpec {
        s.parse().unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn builtin_specs_round_trip() {
        let p = parse("fair[slowstart=0.05;assign_multiple=false]");
        assert_eq!(p.name(), "fair");
        assert_eq!(p.to_string(), "fair[slowstart=0.05;assign_multiple=false]");
        assert_eq!(p.label(), p.to_string());
        assert!("fair[slowstart".parse::<PolicySpec>().is_err());
        assert!("[x=1]".parse::<PolicySpec>().is_err());
        assert!("fair[slowstart=0.5;slowstart=1]"
            .parse::<PolicySpec>()
            .is_err());
        assert!("fair]".parse::<PolicySpec>().is_err());
        assert!("".parse::<PolicySpec>().is_err());
        let e = "fifo:python3 x.py".parse::<PolicySpec>().unwrap_err();
        assert!(e.0.contains("only external policies take a command"), "{e}");
        assert_eq!(
            split_policy_list("fair[slowstart=0.05],fair[slowstart=1;assign_multiple=false], fifo"),
            vec![
                "fair[slowstart=0.05]",
                "fair[slowstart=1;assign_multiple=false]",
                "fifo"
            ]
        );
    }

    #[test]
    fn external_specs_round_trip() {
        let p = parse("external:python3 sjf.py --fast");
        let PolicySpec::External(x) = &p else {
            panic!()
        };
        assert_eq!(
            x.argv.as_deref(),
            Some(&["python3".into(), "sjf.py".into(), "--fast".into()][..])
        );
        assert_eq!(p.to_string(), "external:python3 sjf.py --fast");
        assert_eq!(p.label(), "external:python3 sjf.py --fast");
        let p = parse("external[protocol=2]:python3 sjf.py");
        assert_eq!(p.to_string(), "external[protocol=2]:python3 sjf.py");
        let PolicySpec::External(x) = &p else {
            panic!()
        };
        assert_eq!(x.protocol, Some(2));
        let p = parse("external[label=sjf;timeout=2s;protocol=1]:python3 sjf.py");
        assert_eq!(
            p.to_string(),
            "external[label=sjf;timeout=2s;protocol=1]:python3 sjf.py"
        );
        assert_eq!(p.label(), "external:sjf");
        assert_eq!(parse(&p.to_string()), p);
        // The scenario's command.
        let p = parse("external");
        assert_eq!(p, PolicySpec::External(ExternalSpec::default()));
        assert_eq!(
            p.label_with(Some(&["a".into(), "b".into()])),
            "external:a b"
        );
        assert_eq!(
            parse("external[timeout=500ms]").to_string(),
            "external[timeout=0.500s]"
        );
        for bad in [
            "external:",
            "external[timeout=0s]:x",
            "external[timeout=soon]:x",
            "external[protocol=7]:x",
            "external[colour=red]:x",
            "external[label=]:x",
            "external x",
        ] {
            assert!(bad.parse::<PolicySpec>().is_err(), "{bad}");
        }
    }
}

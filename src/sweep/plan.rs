//! A sweep plan: scenarios × policy specs × override combinations × seeds.
//!
//! ```toml
//! scenarios = ["scenarios/omo-set-a.toml", "scenarios/quickstart.toml"]
//! policies = ["fair", "omo", "fair[slowstart=0.8]"]   # optional: each scenario's own
//! seeds = 10                      # seeds 1..=10, or a list [3, 7]
//! [overrides]                     # optional: a grid over scenario keys
//! "network.nic_mbps" = [125, 1250]
//! "tasks.duration_cv" = [0.0, 0.1, 0.3]
//!
//! [[variants]]                    # optional: named sets of overrides,
//! name = "baseline"               # one at a time (a sensitivity table)
//! [[variants]]
//! name = "NIC x0.5"
//! "network.nic_mbps" = 62.5
//! ```
//!
//! Scenario paths are relative to the plan's directory. Cells are numbered
//! from 0 in the order scenario, policy, variant, override combination
//! (the last key, in sorted order, varying fastest), seed. A plan without
//! `[[variants]]` has one unnamed variant that overrides nothing, so its
//! cells are numbered as if variants did not exist. Every scenario, policy,
//! variant and override value is checked before anything runs: a bad one
//! is an error at its place in the plan.

use super::error::OverrideError;
use crate::error::InputError;
use crate::model::Scenario;
use crate::scenario::spans::SpanNode;
use crate::scenario::{load_str, DEFAULT_SEED};
use std::path::{Path, PathBuf};

/// One key of the override grid and its values, as written.
#[derive(Clone, Debug)]
pub struct Override {
    pub key: String,
    pub values: Vec<toml::Value>,
}

/// A named set of overrides applied together: one row of a sensitivity
/// table. The grid's overrides apply after a variant's.
#[derive(Clone, Debug, Default)]
pub struct Variant {
    /// None for the one implicit variant of a plan without `[[variants]]`.
    pub name: Option<String>,
    pub overrides: Vec<(String, toml::Value)>,
}

/// A validated plan.
#[derive(Clone, Debug)]
pub struct Plan {
    /// As given on the command line (for messages and emitted scripts).
    pub origin: String,
    pub scenarios: Vec<ScenarioRef>,
    pub policies: Vec<String>,
    pub seeds: Vec<u64>,
    /// At least one.
    pub variants: Vec<Variant>,
    pub overrides: Vec<Override>,
    /// FNV-1a of the plan and every scenario it names: results of
    /// different plans never mix.
    pub hash: String,
}

/// A scenario of the plan: its path as written, where it is, its text.
#[derive(Clone, Debug)]
pub struct ScenarioRef {
    pub name: String,
    pub path: PathBuf,
    pub text: String,
}

/// One cell of the grid.
#[derive(Clone, Debug, PartialEq)]
pub struct Cell {
    pub index: u64,
    pub scenario: usize,
    pub policy: usize,
    pub variant: usize,
    /// One value index per override key.
    pub combo: Vec<usize>,
    pub seed: u64,
}

/// 64-bit FNV-1a, in hex.
pub fn fnv(parts: &[&[u8]]) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for p in parts {
        for &b in *p {
            h ^= b as u64;
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
        // A separator, so that ("ab", "c") and ("a", "bc") differ.
        h ^= 0xff;
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{h:016x}")
}

impl Plan {
    /// Cells in the grid.
    pub fn cell_count(&self) -> u64 {
        let combos: u64 = self
            .overrides
            .iter()
            .map(|o| o.values.len() as u64)
            .product();
        self.scenarios.len() as u64
            * self.policies.len() as u64
            * self.variants.len() as u64
            * combos
            * self.seeds.len() as u64
    }

    /// Cell `index` (0-based, below `cell_count`).
    pub fn cell(&self, index: u64) -> Cell {
        let mut i = index;
        let seed = self.seeds[(i % self.seeds.len() as u64) as usize];
        i /= self.seeds.len() as u64;
        let mut combo = vec![0; self.overrides.len()];
        for (k, o) in self.overrides.iter().enumerate().rev() {
            combo[k] = (i % o.values.len() as u64) as usize;
            i /= o.values.len() as u64;
        }
        let variant = (i % self.variants.len() as u64) as usize;
        i /= self.variants.len() as u64;
        let policy = (i % self.policies.len() as u64) as usize;
        i /= self.policies.len() as u64;
        Cell {
            index,
            scenario: i as usize,
            policy,
            variant,
            combo,
            seed,
        }
    }

    /// The overrides of a cell as (key, value): its variant's, then the
    /// grid's.
    pub fn combo(&self, cell: &Cell) -> Vec<(String, toml::Value)> {
        let mut out = self.variants[cell.variant].overrides.clone();
        out.extend(
            self.overrides
                .iter()
                .zip(&cell.combo)
                .map(|(o, &v)| (o.key.clone(), o.values[v].clone())),
        );
        out
    }

    /// The scenario of a cell, overridden, with its policy and seed.
    pub fn scenario(&self, cell: &Cell) -> Result<Scenario, InputError> {
        let sc = &self.scenarios[cell.scenario];
        let text = apply(&sc.text, &self.combo(cell))
            .map_err(|e| InputError::new(&sc.name, e.to_string()))?;
        load_str(
            &text,
            &sc.path.display().to_string(),
            Some(self.policies[cell.policy].as_str()).filter(|p| !p.is_empty()),
            Some(cell.seed),
        )
    }
}

/// The scenario text with dotted-path overrides set: `a.b` is key `b` of
/// table `a` (created if missing); a number picks an element of an array
/// (`jobs.0.maps`).
pub fn apply(text: &str, overrides: &[(String, toml::Value)]) -> Result<String, OverrideError> {
    if overrides.is_empty() {
        return Ok(text.to_string());
    }
    let mut doc: toml::Table = text
        .parse()
        .map_err(|e: toml::de::Error| OverrideError::NotToml(e.message().to_string()))?;
    for (key, value) in overrides {
        set(&mut doc, key, value.clone())?;
    }
    Ok(toml::to_string(&doc)?)
}

fn set(doc: &mut toml::Table, key: &str, value: toml::Value) -> Result<(), OverrideError> {
    let parts: Vec<&str> = key.split('.').collect();
    if parts.iter().any(|p| p.trim().is_empty()) {
        return Err(OverrideError::NotAPath(key.to_string()));
    }
    let mut cur = doc;
    for (i, p) in parts.iter().enumerate() {
        let last = i + 1 == parts.len();
        if last {
            cur.insert(p.to_string(), value);
            return Ok(());
        }
        let next = parts[i + 1];
        let entry = cur
            .entry(p.to_string())
            .or_insert_with(|| toml::Value::Table(toml::Table::new()));
        cur = match entry {
            toml::Value::Table(t) => t,
            toml::Value::Array(items) => {
                let k: usize = next.parse().map_err(|_| OverrideError::NeedsIndex {
                    list: p.to_string(),
                    next: parts.get(i + 2).unwrap_or(&"key").to_string(),
                })?;
                let n = items.len();
                let Some(toml::Value::Table(t)) = items.get_mut(k) else {
                    return Err(OverrideError::OutOfRange {
                        list: p.to_string(),
                        len: n,
                        index: k,
                    });
                };
                if i + 2 == parts.len() {
                    return Err(OverrideError::WholeEntry {
                        key: key.to_string(),
                        list: p.to_string(),
                    });
                }
                // Skip the index part.
                return set(t, &parts[i + 2..].join("."), value);
            }
            _ => return Err(OverrideError::NotATable(parts[..=i].join("."))),
        };
    }
    Ok(())
}

/// Reads and checks a plan file.
pub fn load(path: &Path) -> Result<Plan, InputError> {
    let origin = path.display().to_string();
    let text = read_text(path).map_err(|e| {
        InputError::new(
            &origin,
            format!("cannot read {origin}: {e}; expected a sweep plan"),
        )
    })?;
    parse(&text, &origin, path.parent().unwrap_or(Path::new(".")))
}

/// Parses and checks a plan's text; scenario paths are relative to `dir`.
pub fn parse(text: &str, origin: &str, dir: &Path) -> Result<Plan, InputError> {
    let doc: toml::Table = text.parse().map_err(|e: toml::de::Error| {
        let off = e.span().map_or(0, |s| s.start);
        InputError::at(origin, text, off, crate::error::user_terms(e.message()))
    })?;
    let tree = SpanNode::parse(text);
    let at = |path: &[&str], msg: String| {
        let span = tree.as_ref().and_then(|t| t.find(path)).unwrap_or(0..0);
        InputError::at(origin, text, span.start, msg)
    };
    let at_key = |path: &[&str], msg: String| {
        let span = tree.as_ref().and_then(|t| t.find_key(path)).unwrap_or(0..0);
        InputError::at(origin, text, span.start, msg)
    };
    for k in doc.keys() {
        if !["scenarios", "policies", "seeds", "overrides", "variants"].contains(&k.as_str()) {
            return Err(at_key(
                &[k],
                format!(
                    "unknown key `{k}`; expected scenarios, policies, seeds, [overrides] or [[variants]]"
                ),
            ));
        }
    }
    let strings = |key: &str| -> Result<Vec<(usize, String)>, InputError> {
        let Some(v) = doc.get(key) else {
            return Err(InputError::at(
                origin,
                text,
                0,
                format!("missing `{key}`; expected {key} = [\"...\", ...]"),
            ));
        };
        let Some(arr) = v.as_array() else {
            return Err(at(&[key], format!("{key} must be a list of strings")));
        };
        if arr.is_empty() {
            return Err(at(&[key], format!("{key} is empty; expected at least one")));
        }
        arr.iter()
            .enumerate()
            .map(|(i, x)| {
                x.as_str()
                    .map(|s| (i, s.to_string()))
                    .ok_or_else(|| at(&[key, &i.to_string()], format!("{key} must be strings")))
            })
            .collect()
    };
    let mut scenarios = Vec::new();
    for (i, name) in strings("scenarios")? {
        let p = dir.join(&name);
        let t = read_text(&p).map_err(|e| {
            at(
                &["scenarios", &i.to_string()],
                format!("cannot read {}: {e}", p.display()),
            )
        })?;
        // The scenario itself must load.
        load_str(&t, &p.display().to_string(), None, None).map_err(|e| {
            at(
                &["scenarios", &i.to_string()],
                format!("scenario {name}: {e}"),
            )
        })?;
        scenarios.push(ScenarioRef {
            name,
            path: p,
            text: t,
        });
    }
    // Without `policies`, each scenario runs under its own policy (the
    // empty spec stands for it).
    let policies: Vec<String> = match doc.get("policies") {
        None => vec![String::new()],
        Some(_) => strings("policies")?.into_iter().map(|x| x.1).collect(),
    };
    let seeds: Vec<u64> = match doc.get("seeds") {
        None => vec![DEFAULT_SEED],
        Some(toml::Value::Integer(n)) if *n >= 1 && *n <= 1_000_000 => (1..=*n as u64).collect(),
        Some(toml::Value::Array(a)) if !a.is_empty() => a
            .iter()
            .enumerate()
            .map(|(i, x)| {
                x.as_integer()
                    .filter(|&s| s >= 0)
                    .map(|s| s as u64)
                    .ok_or_else(|| {
                        at(
                            &["seeds", &i.to_string()],
                            "seeds must be whole numbers of at least 0".into(),
                        )
                    })
            })
            .collect::<Result<_, _>>()?,
        Some(_) => {
            return Err(at(
                &["seeds"],
                "seeds must be a count (1 to 1000000) or a list of seeds, like [3, 7]".into(),
            ))
        }
    };
    let mut overrides = Vec::new();
    if let Some(o) = doc.get("overrides") {
        let Some(t) = o.as_table() else {
            return Err(at(
                &["overrides"],
                "[overrides] must be a table of dotted keys".into(),
            ));
        };
        for (key, v) in t {
            let values: Vec<toml::Value> = match v {
                toml::Value::Array(a) if !a.is_empty() => a.clone(),
                toml::Value::Array(_) => {
                    return Err(at(&["overrides", key], format!("\"{key}\" has no values")))
                }
                other => vec![other.clone()],
            };
            overrides.push(Override {
                key: key.clone(),
                values,
            });
        }
    }
    let mut variants = Vec::new();
    match doc.get("variants") {
        None => variants.push(Variant::default()),
        Some(toml::Value::Array(a)) if !a.is_empty() => {
            for (i, v) in a.iter().enumerate() {
                let si = i.to_string();
                let Some(t) = v.as_table() else {
                    return Err(at(
                        &["variants", &si],
                        "each [[variants]] entry must be a table with a name".into(),
                    ));
                };
                let name = match t.get("name") {
                    Some(toml::Value::String(n)) if !n.trim().is_empty() => n.clone(),
                    Some(_) => {
                        return Err(at(
                            &["variants", &si, "name"],
                            "a variant's name must be a non-empty string".into(),
                        ))
                    }
                    None => {
                        return Err(at(
                            &["variants", &si],
                            "this variant has no name; expected name = \"...\"".into(),
                        ))
                    }
                };
                if variants
                    .iter()
                    .any(|w: &Variant| w.name.as_deref() == Some(name.as_str()))
                {
                    return Err(at(
                        &["variants", &si, "name"],
                        format!("a second variant named \"{name}\"; expected unique names"),
                    ));
                }
                let overrides = t
                    .iter()
                    .filter(|(k, _)| k.as_str() != "name")
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect();
                variants.push(Variant {
                    name: Some(name),
                    overrides,
                });
            }
        }
        Some(_) => {
            return Err(at(
                &["variants"],
                "variants must be [[variants]] tables, each with a name and dotted keys".into(),
            ))
        }
    }
    // Every policy, variant and override value, on every scenario.
    for sc in &scenarios {
        for (i, p) in policies.iter().enumerate() {
            let p = Some(p.as_str()).filter(|p| !p.is_empty());
            load_str(&sc.text, &sc.path.display().to_string(), p, None).map_err(|e| {
                at(
                    &["policies", &i.to_string()],
                    format!("on {}: {}", sc.name, e.message),
                )
            })?;
        }
        for (i, var) in variants.iter().enumerate() {
            if var.overrides.is_empty() {
                continue;
            }
            let si = i.to_string();
            let text2 = apply(&sc.text, &var.overrides)
                .map_err(|e| at(&["variants", &si], e.to_string()))?;
            if let Err(e) = load_str(&text2, &sc.path.display().to_string(), None, None) {
                // Point at the first key that fails alone, else at the variant.
                let key = var.overrides.iter().find(|(k, v)| {
                    apply(&sc.text, &[(k.clone(), v.clone())])
                        .map(|t| load_str(&t, &sc.path.display().to_string(), None, None).is_err())
                        .unwrap_or(true)
                });
                let msg = format!(
                    "variant \"{}\" on {}: {}",
                    var.name.as_deref().unwrap_or(""),
                    sc.name,
                    e.message
                );
                return Err(match key {
                    Some((k, _)) => at(&["variants", &si, k], msg),
                    None => at(&["variants", &si], msg),
                });
            }
        }
        for o in &overrides {
            for (k, v) in o.values.iter().enumerate() {
                let text2 = apply(&sc.text, &[(o.key.clone(), v.clone())])
                    .map_err(|e| at_key(&["overrides", &o.key], e.to_string()))?;
                if let Err(e) = load_str(&text2, &sc.path.display().to_string(), None, None) {
                    let place: Vec<String> = if o.values.len() > 1
                        || matches!(doc["overrides"][&o.key], toml::Value::Array(_))
                    {
                        vec!["overrides".into(), o.key.clone(), k.to_string()]
                    } else {
                        vec!["overrides".into(), o.key.clone()]
                    };
                    let place: Vec<&str> = place.iter().map(String::as_str).collect();
                    let unknown =
                        e.message.contains("unknown field") || e.message.contains("unknown key");
                    let msg = format!("\"{}\" = {v} on {}: {}", o.key, sc.name, e.message);
                    return Err(if unknown {
                        at_key(&["overrides", &o.key], msg)
                    } else {
                        at(&place, msg)
                    });
                }
            }
        }
    }
    let mut parts: Vec<&[u8]> = vec![text.as_bytes()];
    for sc in &scenarios {
        parts.push(sc.name.as_bytes());
        parts.push(sc.text.as_bytes());
    }
    let hash = fnv(&parts);
    Ok(Plan {
        origin: origin.to_string(),
        scenarios,
        policies,
        seeds,
        variants,
        overrides,
        hash,
    })
}

/// A text file of at most a scenario's size.
fn read_text(path: &Path) -> std::io::Result<String> {
    let b = crate::scenario::load::read_bounded(path, crate::scenario::load::MAX_SCENARIO_BYTES)?;
    String::from_utf8(b).map_err(std::io::Error::other)
}

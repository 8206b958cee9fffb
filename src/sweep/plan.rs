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
use crate::model::{PolicySpec, Scenario};
use crate::scenario::spans::SpanNode;
use crate::scenario::{load_str, DEFAULT_SEED};
use crate::sched::external::{script_of, Script};
use serde::de::IgnoredAny;
use serde::Deserialize;
use std::collections::BTreeMap;
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

    /// The script of the external policy a cell runs, if it is one whose
    /// command names a readable file, with its SHA-256 now.
    pub fn policy_script(&self, cell: &Cell) -> Option<Script> {
        script_for(&self.scenarios[cell.scenario], &self.policies[cell.policy])
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
    let at = Places {
        origin,
        text,
        tree: SpanNode::parse(text),
    };
    let file = PlanFile::read(text, &at)?;
    let scenarios = read_scenarios(file.scenarios, &at, dir)?;
    // Without `policies`, each scenario runs under its own policy (the
    // empty spec stands for it).
    let policies = match file.policies {
        None => vec![String::new()],
        Some(list) => names("policies", list, &at)?
            .into_iter()
            .map(|x| x.1)
            .collect(),
    };
    let seeds = seeds(file.seeds, &at)?;
    let grid = grid(file.overrides, &at)?;
    let variants = variants(file.variants, &at)?;
    // Every policy, variant and override value, on every scenario.
    for sc in &scenarios {
        check_policies(sc, &policies, &at)?;
        check_variants(sc, &variants, &at)?;
        check_grid(sc, &grid, &at)?;
    }
    let scripts: Vec<String> = scenarios
        .iter()
        .flat_map(|sc| policies.iter().map(move |p| script_for(sc, p)))
        .flatten()
        .flat_map(|s| [s.path, s.sha256])
        .collect();
    let hash = plan_hash(text, &scenarios, &scripts);
    Ok(Plan {
        origin: origin.to_string(),
        scenarios,
        policies,
        seeds,
        variants,
        overrides: grid.into_iter().map(|k| k.over).collect(),
        hash,
    })
}

/// The plan file's keys. Each value is kept as written, of the expected
/// type or not, and checked in turn by [`parse`]: errors come in the order
/// scenarios, policies, seeds, overrides, variants, whatever order the file
/// lists them in, each at its place.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PlanFile {
    scenarios: Option<Written<Vec<Written<String>>>>,
    policies: Option<Written<Vec<Written<String>>>>,
    seeds: Option<SeedsFile>,
    overrides: Option<Written<BTreeMap<String, ValuesFile>>>,
    variants: Option<Written<Vec<Written<VariantFile>>>>,
}

/// A value of the expected type, or anything else: an error its check
/// reports at its place.
#[derive(Deserialize)]
#[serde(untagged)]
enum Written<T> {
    /// Never the expected type: serde sees a date-time as a table with one
    /// private key, which a table type would take. Only its type is read.
    Datetime(#[allow(dead_code)] toml::value::Datetime),
    As(T),
    Other(IgnoredAny),
}

impl<T> Written<T> {
    /// The value, if of the expected type.
    fn expected(self) -> Option<T> {
        match self {
            Written::As(x) => Some(x),
            Written::Datetime(_) | Written::Other(_) => None,
        }
    }
}

/// `seeds`: a count, or a list of seeds.
#[derive(Deserialize)]
#[serde(untagged)]
enum SeedsFile {
    Count(i64),
    List(Vec<Written<i64>>),
    Other(IgnoredAny),
}

/// The values of one `[overrides]` key: a list, or one value alone.
#[derive(Deserialize)]
#[serde(untagged)]
enum ValuesFile {
    List(Vec<toml::Value>),
    One(toml::Value),
}

/// One `[[variants]]` entry: its name and its dotted keys.
#[derive(Deserialize)]
struct VariantFile {
    name: Option<Written<String>>,
    #[serde(flatten)]
    overrides: BTreeMap<String, toml::Value>,
}

/// One key of the grid, and whether its values were written as a list:
/// an error on one of them then points at that element.
struct GridKey {
    over: Override,
    listed: bool,
}

/// Where a plan's errors point: the byte ranges of its text's keys and
/// values, by key path. Not `toml::Spanned`: the untagged enums above read
/// a value twice from a buffered copy, which keeps no span, and a table
/// declared implicitly (`[overrides.a]`, `name.x = 1`) has none; its error
/// belongs at its nearest ancestor with a place.
struct Places<'a> {
    origin: &'a str,
    text: &'a str,
    tree: Option<SpanNode>,
}

impl Places<'_> {
    /// At the value of a key path, or its nearest ancestor with a place.
    fn value(&self, path: &[&str], msg: String) -> InputError {
        let span = self.tree.as_ref().and_then(|t| t.find(path));
        self.offset(span.map_or(0, |s| s.start), msg)
    }

    /// At the key at the end of a path (an unknown key), else as
    /// [`Places::value`].
    fn key(&self, path: &[&str], msg: String) -> InputError {
        let span = self.tree.as_ref().and_then(|t| t.find_key(path));
        self.offset(span.map_or(0, |s| s.start), msg)
    }

    fn offset(&self, offset: usize, msg: String) -> InputError {
        InputError::at(self.origin, self.text, offset, msg)
    }
}

impl PlanFile {
    /// The plan's text as TOML; a syntax error or an unknown key is an
    /// error at its place.
    fn read(text: &str, at: &Places) -> Result<PlanFile, InputError> {
        toml::from_str(text).map_err(|e: toml::de::Error| match unknown_field(e.message()) {
            Some(k) => at.key(
                &[k],
                format!(
                    "unknown key `{k}`; expected scenarios, policies, seeds, [overrides] or [[variants]]"
                ),
            ),
            None => at.offset(
                e.span().map_or(0, |s| s.start),
                crate::error::user_terms(e.message()),
            ),
        })
    }
}

/// The key in serde's `unknown field `KEY`, expected one of ...`.
fn unknown_field(message: &str) -> Option<&str> {
    let rest = message.strip_prefix("unknown field `")?;
    rest.rsplit_once("`, expected").map(|(key, _)| key)
}

/// `scenarios` or `policies` (`key`): a non-empty list of strings, each
/// with its index.
fn names(
    key: &str,
    list: Written<Vec<Written<String>>>,
    at: &Places,
) -> Result<Vec<(usize, String)>, InputError> {
    let Some(items) = list.expected() else {
        return Err(at.value(&[key], format!("{key} must be a list of strings")));
    };
    if items.is_empty() {
        return Err(at.value(&[key], format!("{key} is empty; expected at least one")));
    }
    items
        .into_iter()
        .enumerate()
        .map(|(i, x)| {
            x.expected()
                .map(|s| (i, s))
                .ok_or_else(|| at.value(&[key, &i.to_string()], format!("{key} must be strings")))
        })
        .collect()
}

/// Every scenario of the plan, read and loaded as written.
fn read_scenarios(
    list: Option<Written<Vec<Written<String>>>>,
    at: &Places,
    dir: &Path,
) -> Result<Vec<ScenarioRef>, InputError> {
    let Some(list) = list else {
        return Err(at.offset(
            0,
            "missing `scenarios`; expected scenarios = [\"...\", ...]".into(),
        ));
    };
    names("scenarios", list, at)?
        .into_iter()
        .map(|(i, name)| read_scenario(i, name, at, dir))
        .collect()
}

/// Scenario `i` of the plan: its text, which must load.
fn read_scenario(
    i: usize,
    name: String,
    at: &Places,
    dir: &Path,
) -> Result<ScenarioRef, InputError> {
    let p = dir.join(&name);
    let t = read_text(&p).map_err(|e| {
        at.value(
            &["scenarios", &i.to_string()],
            format!("cannot read {}: {e}", p.display()),
        )
    })?;
    load_str(&t, &p.display().to_string(), None, None).map_err(|e| {
        at.value(
            &["scenarios", &i.to_string()],
            format!("scenario {name}: {e}"),
        )
    })?;
    Ok(ScenarioRef {
        name,
        path: p,
        text: t,
    })
}

/// `seeds`: a count from 1, a list, or without the key the default seed.
fn seeds(seeds: Option<SeedsFile>, at: &Places) -> Result<Vec<u64>, InputError> {
    match seeds {
        None => Ok(vec![DEFAULT_SEED]),
        Some(SeedsFile::Count(n)) if (1..=1_000_000).contains(&n) => Ok((1..=n as u64).collect()),
        Some(SeedsFile::List(items)) if !items.is_empty() => items
            .into_iter()
            .enumerate()
            .map(|(i, x)| {
                x.expected()
                    .filter(|&s| s >= 0)
                    .map(|s| s as u64)
                    .ok_or_else(|| {
                        at.value(
                            &["seeds", &i.to_string()],
                            "seeds must be whole numbers of at least 0".into(),
                        )
                    })
            })
            .collect(),
        Some(_) => Err(at.value(
            &["seeds"],
            "seeds must be a count (1 to 1000000) or a list of seeds, like [3, 7]".into(),
        )),
    }
}

/// The `[overrides]` grid, its keys in sorted order.
fn grid(
    overrides: Option<Written<BTreeMap<String, ValuesFile>>>,
    at: &Places,
) -> Result<Vec<GridKey>, InputError> {
    let Some(overrides) = overrides else {
        return Ok(Vec::new());
    };
    let Some(table) = overrides.expected() else {
        return Err(at.value(
            &["overrides"],
            "[overrides] must be a table of dotted keys".into(),
        ));
    };
    table
        .into_iter()
        .map(|(key, values)| {
            let (values, listed) = match values {
                ValuesFile::List(a) if a.is_empty() => {
                    return Err(at.value(&["overrides", &key], format!("\"{key}\" has no values")))
                }
                ValuesFile::List(a) => (a, true),
                ValuesFile::One(v) => (vec![v], false),
            };
            Ok(GridKey {
                over: Override { key, values },
                listed,
            })
        })
        .collect()
}

/// The `[[variants]]` entries, or the one implicit variant without them.
fn variants(
    variants: Option<Written<Vec<Written<VariantFile>>>>,
    at: &Places,
) -> Result<Vec<Variant>, InputError> {
    let entries = match variants.map(Written::expected) {
        None => return Ok(vec![Variant::default()]),
        Some(Some(entries)) if !entries.is_empty() => entries,
        Some(_) => {
            return Err(at.value(
                &["variants"],
                "variants must be [[variants]] tables, each with a name and dotted keys".into(),
            ))
        }
    };
    let mut out: Vec<Variant> = Vec::new();
    for (i, entry) in entries.into_iter().enumerate() {
        let si = i.to_string();
        let v = variant(&si, entry, at)?;
        if out.iter().any(|w| w.name == v.name) {
            return Err(at.value(
                &["variants", &si, "name"],
                format!(
                    "a second variant named \"{}\"; expected unique names",
                    v.name.as_deref().unwrap_or("")
                ),
            ));
        }
        out.push(v);
    }
    Ok(out)
}

/// Variant `si`: a table with a non-empty name.
fn variant(si: &str, entry: Written<VariantFile>, at: &Places) -> Result<Variant, InputError> {
    let Some(t) = entry.expected() else {
        return Err(at.value(
            &["variants", si],
            "each [[variants]] entry must be a table with a name".into(),
        ));
    };
    let name = match t.name.map(Written::expected) {
        Some(Some(n)) if !n.trim().is_empty() => n,
        Some(_) => {
            return Err(at.value(
                &["variants", si, "name"],
                "a variant's name must be a non-empty string".into(),
            ))
        }
        None => {
            return Err(at.value(
                &["variants", si],
                "this variant has no name; expected name = \"...\"".into(),
            ))
        }
    };
    Ok(Variant {
        name: Some(name),
        overrides: t.overrides.into_iter().collect(),
    })
}

/// Every policy of the plan on a scenario.
/// Each is told apart by its label (cells, tables and plots name it so).
fn check_policies(sc: &ScenarioRef, policies: &[String], at: &Places) -> Result<(), InputError> {
    let mut labels: Vec<String> = Vec::new();
    for (i, p) in policies.iter().enumerate() {
        let p = Some(p.as_str()).filter(|p| !p.is_empty());
        let loaded = load_str(&sc.text, &sc.path.display().to_string(), p, None).map_err(|e| {
            at.value(
                &["policies", &i.to_string()],
                format!("on {}: {}", sc.name, e.message),
            )
        })?;
        let label = loaded.policy.label();
        if let Some(k) = labels.iter().position(|l| *l == label) {
            return Err(at.value(
                &["policies", &i.to_string()],
                format!("policies[{k}] and policies[{i}] are both labelled \"{label}\" on {}; expected each its own (e.g. external[label=NAME]:CMD), each once", sc.name),
            ));
        }
        labels.push(label);
    }
    Ok(())
}

/// Whether a scenario's text, overridden, loads.
fn loads(sc: &ScenarioRef, overrides: &[(String, toml::Value)]) -> Result<(), Unloadable> {
    let text = apply(&sc.text, overrides).map_err(Unloadable::Override)?;
    load_str(&text, &sc.path.display().to_string(), None, None)
        .map(|_| ())
        .map_err(Unloadable::Load)
}

/// Why an overridden scenario failed: the overrides could not be set, or
/// the result does not load.
enum Unloadable {
    Override(OverrideError),
    Load(InputError),
}

/// Every variant of the plan on a scenario.
fn check_variants(sc: &ScenarioRef, variants: &[Variant], at: &Places) -> Result<(), InputError> {
    for (i, var) in variants.iter().enumerate() {
        if var.overrides.is_empty() {
            continue;
        }
        let si = i.to_string();
        let e = match loads(sc, &var.overrides) {
            Ok(()) => continue,
            Err(Unloadable::Override(e)) => return Err(at.value(&["variants", &si], e.to_string())),
            Err(Unloadable::Load(e)) => e,
        };
        // Point at the first key that fails alone, else at the variant.
        let key = var
            .overrides
            .iter()
            .find(|(k, v)| loads(sc, &[(k.clone(), v.clone())]).is_err());
        let msg = format!(
            "variant \"{}\" on {}: {}",
            var.name.as_deref().unwrap_or(""),
            sc.name,
            e.message
        );
        return Err(match key {
            Some((k, _)) => at.value(&["variants", &si, k], msg),
            None => at.value(&["variants", &si], msg),
        });
    }
    Ok(())
}

/// Every value of the grid on a scenario, one at a time.
fn check_grid(sc: &ScenarioRef, grid: &[GridKey], at: &Places) -> Result<(), InputError> {
    for GridKey { over: o, listed } in grid {
        for (k, v) in o.values.iter().enumerate() {
            let e = match loads(sc, &[(o.key.clone(), v.clone())]) {
                Ok(()) => continue,
                Err(Unloadable::Override(e)) => {
                    return Err(at.key(&["overrides", &o.key], e.to_string()))
                }
                Err(Unloadable::Load(e)) => e,
            };
            let unknown = e.message.contains("unknown field") || e.message.contains("unknown key");
            let msg = format!("\"{}\" = {v} on {}: {}", o.key, sc.name, e.message);
            let si = k.to_string();
            let place: &[&str] = if *listed {
                &["overrides", &o.key, &si]
            } else {
                &["overrides", &o.key]
            };
            return Err(if unknown {
                at.key(&["overrides", &o.key], msg)
            } else {
                at.value(place, msg)
            });
        }
    }
    Ok(())
}

/// The plan's hash: its text, every scenario's name and text, and the
/// path and SHA-256 of every external policy's script (none in a plan
/// without one, whose hash is as it always was).
fn plan_hash(text: &str, scenarios: &[ScenarioRef], scripts: &[String]) -> String {
    let mut parts: Vec<&[u8]> = vec![text.as_bytes()];
    for sc in scenarios {
        parts.push(sc.name.as_bytes());
        parts.push(sc.text.as_bytes());
    }
    parts.extend(scripts.iter().map(|s| s.as_bytes()));
    fnv(&parts)
}

/// The script an external policy runs on scenario `sc` under `policy` (a
/// spec, or empty for the scenario's own): the file its command names
/// ([`script_of`]), with its SHA-256; `None` for a built-in policy or a
/// command that names no readable file.
fn script_for(sc: &ScenarioRef, policy: &str) -> Option<Script> {
    let table: toml::Table = sc.text.parse().ok()?;
    let scheduler = table.get("scheduler").and_then(toml::Value::as_table);
    let spec = if policy.is_empty() {
        scheduler?.get("policy")?.as_str()?
    } else {
        policy
    };
    let PolicySpec::External(x) = spec.parse().ok()? else {
        return None;
    };
    let argv = match x.argv {
        Some(a) => a,
        None => match scheduler?.get("external")?.get("command")? {
            toml::Value::String(s) => s.split_whitespace().map(str::to_string).collect(),
            toml::Value::Array(a) => a
                .iter()
                .map(|v| v.as_str().map(str::to_string))
                .collect::<Option<Vec<_>>>()?,
            _ => return None,
        },
    };
    script_of(&argv)
}

/// A text file of at most a scenario's size.
fn read_text(path: &Path) -> std::io::Result<String> {
    let b = crate::scenario::load::read_bounded(path, crate::scenario::load::MAX_SCENARIO_BYTES)?;
    String::from_utf8(b).map_err(std::io::Error::other)
}

//! `slotsim merge`: the shards of a sweep into one table. Per group of
//! cells that differ only by seed — (scenario, policy, overrides) — and per
//! metric: the mean, the sample standard deviation and a 95 % confidence
//! interval for the mean (Student's t). Refuses results of different
//! plans, a cell found twice, and missing cells (listing them). The output
//! depends only on the cells, not on how they were sharded.
//!
//! [`markdown`] prints one metric as a table a page can carry: a row per
//! (scenario, variant, overrides), a column per policy, and, against a
//! baseline policy, each other policy's paired per-seed difference in
//! percent — paired because seeds share their workload and placement, so
//! the spread of the difference is far smaller than that of either side.

use super::error::ShardsError;
use super::error::TableError;
use serde_json::Value;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::PathBuf;

/// The metrics merged, as (name, path into a summary line).
pub const METRICS: &[(&str, &[&str])] = &[
    ("makespan_s", &["makespan_s"]),
    ("mean_turnaround_s", &["mean_turnaround_s"]),
    ("map_phase_s", &["map_phase_s"]),
    ("shuffle_after_maps_s", &["shuffle_after_maps_s"]),
    ("utilization", &["utilization"]),
    ("locality_node", &["locality", "node"]),
    ("locality_rack", &["locality", "rack"]),
    ("locality_off_rack", &["locality", "off_rack"]),
    ("locality_off_dc", &["locality", "off_dc"]),
    ("reduce_locality", &["reduce_locality"]),
    ("inter_dc_gb", &["inter_dc_gb"]),
    ("unbalanced_degree", &["unbalanced_degree"]),
    ("unfairness_degree", &["unfairness_degree"]),
    ("speculative_launched", &["speculative", "launched"]),
    ("attempts_killed", &["attempts_killed"]),
    ("attempts_failed", &["attempts_failed"]),
    ("predictor_error_pct", &["predictor", "mean_abs_error_pct"]),
    ("events", &["events"]),
];

pub use crate::report::stats::{stat, t95, Stat};

/// One group's label and its stats by metric.
#[derive(Clone, Debug)]
pub struct Group {
    pub scenario: String,
    pub policy: String,
    /// The variant's name, or empty.
    pub variant: String,
    /// `key=value;...` in key order, or empty.
    pub overrides: String,
    /// The first cell of the group (groups are listed in cell order).
    pub first: u64,
    pub stats: Vec<(&'static str, Stat)>,
    /// Per metric (in [`METRICS`] order), the (seed, value) of each cell
    /// that has the metric.
    pub values: Vec<Vec<(u64, f64)>>,
}

/// The merged sweep.
#[derive(Clone, Debug)]
pub struct Merged {
    pub plan: String,
    pub cells: u64,
    pub groups: Vec<Group>,
}

/// What identifies a group: scenario, policy, variant, overrides.
type Key = (String, String, String, String);

/// A cell as merge reads it: its group, seed, metric values, and the file
/// it came from.
type CellRow = (Key, u64, Vec<Option<f64>>, PathBuf);

/// A group being gathered: its key, first cell, and each metric's values.
type Gathering = (Key, u64, Vec<Vec<(u64, f64)>>);

/// The shard files of `dirs` (`shard-*.jsonl`), sorted.
fn shard_files(dirs: &[PathBuf]) -> Result<Vec<PathBuf>, ShardsError> {
    let mut out = Vec::new();
    for d in dirs {
        let rd = std::fs::read_dir(d).map_err(|source| ShardsError::Read {
            path: d.clone(),
            source,
        })?;
        for e in rd.flatten() {
            let p = e.path();
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
            if name.starts_with("shard-") && name.ends_with(".jsonl") {
                out.push(p);
            }
        }
    }
    out.sort();
    if out.is_empty() {
        return Err(ShardsError::NoShards);
    }
    Ok(out)
}

fn get<'a>(v: &'a Value, path: &[&str]) -> Option<&'a Value> {
    path.iter().try_fold(v, |v, k| v.get(k))
}

/// Holds every shard line to the first line's `value` of one key (its
/// plan, its version): `first` remembers it and the file it came from;
/// `why(value, first, its file)` says what differs, at `f`'s line `n + 1`.
fn same(
    first: &mut Option<(String, PathBuf)>,
    value: String,
    f: &std::path::Path,
    n: usize,
    why: impl Fn(&str, &str, &str) -> String,
) -> Result<(), ShardsError> {
    match first {
        None => *first = Some((value, f.to_path_buf())),
        Some((p, pf)) if *p != value => {
            return Err(ShardsError::Mixed {
                path: f.to_path_buf(),
                line: n + 1,
                what: why(&value, p, &pf.display().to_string()),
            })
        }
        _ => {}
    }
    Ok(())
}

/// Every cell line of the shard files of `dirs`, in cell order, with the
/// file it came from. Refuses lines of different plans or slotsim
/// versions, a cell found
/// twice, and missing cells (listing them).
pub fn shard_lines(dirs: &[PathBuf]) -> Result<Vec<(Value, PathBuf)>, ShardsError> {
    let files = shard_files(dirs)?;
    let mut plan: Option<(String, PathBuf)> = None;
    let mut version: Option<(String, PathBuf)> = None;
    let mut total: Option<u64> = None;
    let mut cells: BTreeMap<u64, (Value, PathBuf)> = BTreeMap::new();
    for f in &files {
        let text = std::fs::read_to_string(f).map_err(|source| ShardsError::Read {
            path: f.clone(),
            source,
        })?;
        for (n, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let v: Value = serde_json::from_str(line).map_err(|e| ShardsError::BadLine {
                path: f.clone(),
                line: n + 1,
                reason: format!("not a sweep line ({e}); re-run its shard to repair it"),
            })?;
            let h = v["plan"].as_str().unwrap_or("").to_string();
            same(&mut plan, h, f, n, |h, p, pf| {
                format!(
                    "results of plan {h}, but {pf} holds plan {p}; expected the shards of one plan"
                )
            })?;
            // Results of two slotsim versions may differ for reasons of
            // the model, not of the plan: never merged together.
            let ver = v["version"].as_str().unwrap_or("before 0.1").to_string();
            same(&mut version, ver, f, n, |ver, p, pf| {
                format!("written by slotsim {ver}, but {pf} by slotsim {p}; expected the shards of one version (run the older shards again)")
            })?;
            let c = &v["cell"];
            let (Some(i), Some(of)) = (c["index"].as_u64(), c["of"].as_u64()) else {
                return Err(ShardsError::BadLine {
                    path: f.clone(),
                    line: n + 1,
                    reason: "a line without cell.index and cell.of".into(),
                });
            };
            total = Some(of);
            if let Some(prev) = cells.insert(i, (v, f.clone())) {
                return Err(ShardsError::Duplicate {
                    cell: i,
                    first: prev.1,
                    second: f.clone(),
                });
            }
        }
    }
    if plan.is_none() {
        return Err(ShardsError::Empty);
    }
    let total = total.unwrap_or(0);
    let missing: Vec<u64> = (0..total).filter(|i| !cells.contains_key(i)).collect();
    if !missing.is_empty() {
        let list: Vec<String> = missing.iter().take(20).map(|i| i.to_string()).collect();
        return Err(ShardsError::Missing {
            count: missing.len(),
            total,
            list: format!(
                "{}{}",
                list.join(", "),
                if missing.len() > 20 { ", ..." } else { "" }
            ),
        });
    }
    Ok(cells.into_values().collect())
}

pub fn merge(dirs: &[PathBuf]) -> Result<Merged, ShardsError> {
    let lines = shard_lines(dirs)?;
    let plan = lines
        .first()
        .and_then(|(v, _)| v["plan"].as_str())
        .unwrap_or("")
        .to_string();
    let total = lines.len() as u64;
    // index → (group key, seed, metric values)
    let mut cells: BTreeMap<u64, CellRow> = BTreeMap::new();
    for (v, f) in lines {
        let c = &v["cell"];
        let i = c["index"].as_u64().unwrap_or(0);
        let ov = c["overrides"]
            .as_object()
            .map(|o| {
                o.iter()
                    .map(|(k, v)| format!("{k}={v}"))
                    .collect::<Vec<_>>()
                    .join(";")
            })
            .unwrap_or_default();
        let vals = METRICS
            .iter()
            .map(|(_, p)| get(&v, p).and_then(|x| x.as_f64()))
            .collect();
        let key = (
            c["scenario"].as_str().unwrap_or("").to_string(),
            c["policy"].as_str().unwrap_or("").to_string(),
            c["variant"].as_str().unwrap_or("").to_string(),
            ov,
        );
        let seed = c["seed"].as_u64().unwrap_or(0);
        cells.insert(i, (key, seed, vals, f));
    }
    // Groups in the order of their first cell.
    let mut groups: Vec<Gathering> = Vec::new();
    for (&i, (key, seed, vals, _)) in &cells {
        let g = match groups.iter_mut().find(|g| g.0 == *key) {
            Some(g) => g,
            None => {
                groups.push((key.clone(), i, vec![Vec::new(); METRICS.len()]));
                groups.last_mut().expect("just pushed")
            }
        };
        for (k, v) in vals.iter().enumerate() {
            if let Some(x) = v {
                g.2[k].push((*seed, *x));
            }
        }
    }
    Ok(Merged {
        plan,
        cells: total,
        groups: groups
            .into_iter()
            .map(
                |((scenario, policy, variant, overrides), first, values)| Group {
                    scenario,
                    policy,
                    variant,
                    overrides,
                    first,
                    stats: METRICS
                        .iter()
                        .zip(&values)
                        .filter(|(_, v)| !v.is_empty())
                        .map(|((name, _), v)| {
                            (
                                *name,
                                metric_stat(name, &v.iter().map(|x| x.1).collect::<Vec<_>>()),
                            )
                        })
                        .collect(),
                    values,
                },
            )
            .collect(),
    })
}

/// A metric's stats. Every metric merged is a time, a count, a degree or a
/// fraction, none below 0, so its confidence interval is clipped at 0; a
/// fraction of a whole (a locality, the utilization) at 1 too.
fn metric_stat(name: &str, xs: &[f64]) -> Stat {
    let mut st = stat(xs);
    st.ci.0 = st.ci.0.max(0.0);
    if name == "utilization" || name == "reduce_locality" || name.starts_with("locality_") {
        st.ci.1 = st.ci.1.min(1.0);
    }
    st
}

/// Four significant figures (an exponent only for very large or small).
fn num(x: f64) -> String {
    if !x.is_finite() {
        return "-".into();
    }
    let a = x.abs();
    if a == 0.0 {
        return "0".into();
    }
    if !(1e-3..1e7).contains(&a) {
        return format!("{x:.3e}");
    }
    let digits = (3 - a.log10().floor() as i32).max(0) as usize;
    format!("{x:.digits$}")
}

/// A mean to four significant figures and its sd to as many decimals.
fn num_pair(mean: f64, sd: f64) -> (String, String) {
    let a = mean.abs();
    if !mean.is_finite() || !sd.is_finite() || a == 0.0 || !(1e-3..1e7).contains(&a) {
        return (num(mean), num(sd));
    }
    let digits = (3 - a.log10().floor() as i32).max(0) as usize;
    (format!("{mean:.digits$}"), format!("{sd:.digits$}"))
}

/// The merged table a person reads.
pub fn table(m: &Merged) -> String {
    let mut o = String::new();
    let _ = writeln!(
        o,
        "plan {} · {} cells · {} groups",
        m.plan,
        m.cells,
        m.groups.len()
    );
    for g in &m.groups {
        let n = g.stats.first().map_or(0, |s| s.1.n);
        let mut ov = String::new();
        for part in [&g.variant, &g.overrides] {
            if !part.is_empty() {
                ov.push_str(" · ");
                ov.push_str(part);
            }
        }
        let _ = writeln!(o, "\n{} · {}{ov} ({} seeds)", g.scenario, g.policy, n);
        for (name, s) in &g.stats {
            let _ = writeln!(
                o,
                "  {name:<22} {:>12} ± {:<10} 95% CI [{}, {}]",
                num(s.mean),
                num(s.sd),
                num(s.ci.0),
                num(s.ci.1)
            );
        }
    }
    o
}

/// CSV, one row per (group, metric).
pub fn csv(m: &Merged) -> String {
    let q = |s: &str| {
        if s.contains([',', '"', '\n']) {
            format!("\"{}\"", s.replace('"', "\"\""))
        } else {
            s.to_string()
        }
    };
    let mut o =
        String::from("scenario,policy,variant,overrides,metric,n,mean,sd,ci95_low,ci95_high\n");
    for g in &m.groups {
        for (name, s) in &g.stats {
            let _ = writeln!(
                o,
                "{},{},{},{},{name},{},{},{},{},{}",
                q(&g.scenario),
                q(&g.policy),
                q(&g.variant),
                q(&g.overrides),
                s.n,
                s.mean,
                s.sd,
                s.ci.0,
                s.ci.1
            );
        }
    }
    o
}

/// One metric as a Markdown table: a row per (scenario, variant,
/// overrides) in cell order, a column per policy in plan order, each cell
/// the mean ± sd over seeds. With `versus`, that policy's column keeps its
/// mean ± sd and every other column shows the paired difference against
/// it, 100 × (x − base) / base per seed, as mean ± sd in percent, marked †
/// where its 95 % confidence interval excludes 0.
///
/// `only` keeps the columns of those policies, in that order (all when
/// empty); `scenarios` keeps the rows of scenarios whose name (file stem)
/// or path is listed (all when empty).
pub fn markdown(
    m: &Merged,
    metric: &str,
    versus: Option<&str>,
    only: &[String],
    scenarios: &[String],
) -> Result<String, TableError> {
    let Some(k) = METRICS.iter().position(|(n, _)| *n == metric) else {
        return Err(TableError::Metric {
            metric: metric.to_string(),
            known: METRICS.iter().map(|(n, _)| *n).collect(),
        });
    };
    let (policies, rows) = table_layout(m, versus, only, scenarios)?;
    let labels = Labels::of(&rows);
    let mut o = String::new();
    labels.write_head(&mut o, &policies);
    let mut seeds = 0;
    for r in &rows {
        let mut cells = labels.row(r, metric);
        let base = versus.and_then(|v| row_group(m, r, v));
        for p in &policies {
            let Some(g) = row_group(m, r, p) else {
                cells.push("-".into());
                continue;
            };
            seeds = seeds.max(g.values[k].len());
            cells.push(match base {
                Some(b) if b.policy != *p => paired_cell(&g.values[k], &b.values[k]),
                _ => mean_cell(&g.values[k]),
            });
        }
        let _ = writeln!(o, "| {} |", cells.join(" | "));
    }
    let _ = match versus {
        Some(v) => writeln!(
            o,
            "\n{metric}, {seeds} seeds: {v} as mean ± sd; the others as their paired difference from {v} per seed, mean ± sd in percent († where its 95 % confidence interval excludes 0)"
        ),
        None => writeln!(o, "\n{metric}, mean ± sd over {seeds} seeds"),
    };
    Ok(o)
}

/// A table row: (scenario, variant, overrides).
type Row<'a> = (&'a str, &'a str, &'a str);

/// A scenario's name in a table: its path's file stem, short.
fn stem(path: &str) -> String {
    std::path::Path::new(path)
        .file_stem()
        .and_then(|s| s.to_str())
        .filter(|_| path.ends_with(".toml"))
        .unwrap_or(path)
        .to_string()
}

/// The table's columns (policies, in plan order or as `only` lists them)
/// and rows (in cell order, of the scenarios kept). A scenario, policy or
/// `versus` that is not in the results is an error naming those that are.
fn table_layout<'a>(
    m: &'a Merged,
    versus: Option<&str>,
    only: &'a [String],
    scenarios: &[String],
) -> Result<(Vec<&'a str>, Vec<Row<'a>>), TableError> {
    let mut policies: Vec<&str> = Vec::new();
    let mut rows: Vec<Row> = Vec::new();
    let mut names: Vec<String> = Vec::new();
    for g in &m.groups {
        if !policies.contains(&g.policy.as_str()) {
            policies.push(&g.policy);
        }
        if !names.contains(&stem(&g.scenario)) {
            names.push(stem(&g.scenario));
        }
        let keep = scenarios.is_empty()
            || scenarios
                .iter()
                .any(|s| *s == g.scenario || *s == stem(&g.scenario));
        let r = (
            g.scenario.as_str(),
            g.variant.as_str(),
            g.overrides.as_str(),
        );
        if keep && !rows.contains(&r) {
            rows.push(r);
        }
    }
    for s in scenarios {
        if !names.contains(s) && !m.groups.iter().any(|g| g.scenario == *s) {
            return Err(TableError::Scenario {
                scenario: s.clone(),
                known: names,
            });
        }
    }
    if !only.is_empty() {
        for p in only {
            if !policies.contains(&p.as_str()) {
                return Err(TableError::Policies {
                    policy: p.clone(),
                    known: policies.iter().map(|p| p.to_string()).collect(),
                });
            }
        }
        policies = only.iter().map(String::as_str).collect();
    }
    if let Some(v) = versus {
        if !policies.contains(&v) {
            return Err(TableError::Versus {
                policy: v.to_string(),
                known: policies.iter().map(|p| p.to_string()).collect(),
            });
        }
    }
    Ok((policies, rows))
}

/// The group of a row under policy `p`, if the results have it.
fn row_group<'a>(m: &'a Merged, r: &Row, p: &str) -> Option<&'a Group> {
    m.groups.iter().find(|g| {
        (
            g.scenario.as_str(),
            g.variant.as_str(),
            g.overrides.as_str(),
        ) == *r
            && g.policy == p
    })
}

/// Which label columns the rows need: only those that tell rows apart.
struct Labels {
    scenario: bool,
    variant: bool,
    overrides: bool,
}

impl Labels {
    fn of(rows: &[Row]) -> Labels {
        let scenario = {
            let mut s: Vec<&str> = rows.iter().map(|r| r.0).collect();
            s.sort();
            s.dedup();
            s.len() > 1
        };
        let variant = rows.iter().any(|r| !r.1.is_empty());
        // A variant's own overrides are in its name's row already: the
        // column is for a grid, where one variant has several override
        // combinations.
        let overrides = if variant {
            rows.iter()
                .any(|r| rows.iter().any(|q| q.1 == r.1 && q.2 != r.2))
        } else {
            rows.iter().any(|r| !r.2.is_empty())
        };
        Labels {
            scenario,
            variant,
            overrides,
        }
    }

    /// The header line and the alignment line: labels left, policies right.
    fn write_head(&self, o: &mut String, policies: &[&str]) {
        let mut head: Vec<String> = Vec::new();
        if self.scenario {
            head.push("scenario".into());
        }
        if self.variant {
            head.push("variant".into());
        }
        if self.overrides {
            head.push("overrides".into());
        }
        if head.is_empty() {
            head.push(String::new());
        }
        let labels = head.len();
        head.extend(policies.iter().map(|p| p.to_string()));
        let _ = writeln!(o, "| {} |", head.join(" | "));
        let _ = writeln!(
            o,
            "|{}",
            head.iter()
                .enumerate()
                .map(|(i, _)| if i < labels { "---|" } else { "---:|" })
                .collect::<String>()
        );
    }

    /// A row's label cells; the metric's name when no label is needed.
    fn row(&self, r: &Row, metric: &str) -> Vec<String> {
        let mut cells: Vec<String> = Vec::new();
        if self.scenario {
            cells.push(stem(r.0));
        }
        if self.variant {
            cells.push(r.1.to_string());
        }
        if self.overrides {
            cells.push(r.2.to_string());
        }
        if cells.is_empty() {
            cells.push(metric.to_string());
        }
        cells
    }
}

/// A policy's (seed, value)s as mean ± sd.
fn mean_cell(xs: &[(u64, f64)]) -> String {
    if xs.is_empty() {
        return "-".into();
    }
    let s = stat(&xs.iter().map(|x| x.1).collect::<Vec<_>>());
    let (mean, sd) = num_pair(s.mean, s.sd);
    format!("{mean} ± {sd}")
}

/// A policy's difference from the baseline's values, per seed the two
/// share, in percent: mean ± sd, † where the 95 % interval excludes 0.
fn paired_cell(xs: &[(u64, f64)], base: &[(u64, f64)]) -> String {
    let Some((s, sure)) = crate::report::stats::paired_pct(xs, base) else {
        return "-".into();
    };
    format!(
        "{:+.1} ± {:.1} %{}",
        s.mean,
        s.sd,
        if sure { " †" } else { "" }
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn intervals_stay_at_or_above_0_and_a_fractions_at_or_below_1() {
        let xs = [0.0, 0.0, 0.05];
        assert!(stat(&xs).ci.0 < 0.0, "Student's t alone goes below 0");
        let s = metric_stat("locality_off_rack", &xs);
        assert_eq!(s.ci.0, 0.0);
        assert!(s.ci.1 > 0.05);
        let s = metric_stat("utilization", &[1.0, 1.0, 0.95]);
        assert_eq!(s.ci.1, 1.0);
        // Every metric stays at or above 0; only fractions stop at 1.
        assert_eq!(metric_stat("makespan_s", &xs).ci.0, 0.0);
        assert!(
            metric_stat("makespan_s", &[1.0, 1.0, 1.2]).ci.1 > 1.0,
            "not a fraction"
        );
    }

    #[test]
    fn statistics() {
        let s = stat(&[1.0, 2.0, 3.0, 4.0]);
        assert_eq!((s.n, s.mean), (4, 2.5));
        assert!((s.sd - 1.290_994_448_7).abs() < 1e-9);
        let half = 3.182 * s.sd / 2.0;
        assert!((s.ci.1 - (2.5 + half)).abs() < 1e-9);
        assert_eq!(stat(&[5.0]).ci, (5.0, 5.0));
        assert!((t95(1000) - 1.962).abs() < 0.001);
    }
}

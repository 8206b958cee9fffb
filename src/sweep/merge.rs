//! `slotsim merge`: the shards of a sweep into one table. Per group of
//! cells that differ only by seed — (scenario, policy, overrides) — and per
//! metric: the mean, the sample standard deviation and a 95 % confidence
//! interval for the mean (Student's t). Refuses results of different
//! plans, a cell found twice, and missing cells (listing them). The output
//! depends only on the cells, not on how they were sharded.

use serde_json::Value;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::PathBuf;

/// The metrics merged, as (name, path into a summary line).
pub const METRICS: &[(&str, &[&str])] = &[
    ("makespan_s", &["makespan_s"]),
    ("mean_turnaround_s", &["mean_turnaround_s"]),
    ("utilization", &["utilization"]),
    ("locality_node", &["locality", "node"]),
    ("reduce_locality", &["reduce_locality"]),
    ("inter_dc_gb", &["inter_dc_gb"]),
    ("unbalanced_degree", &["unbalanced_degree"]),
    ("unfairness_degree", &["unfairness_degree"]),
    ("speculative_launched", &["speculative", "launched"]),
    ("events", &["events"]),
];

/// Mean, sample sd and 95 % CI of one metric over a group's seeds.
#[derive(Clone, Debug, PartialEq)]
pub struct Stat {
    pub n: usize,
    pub mean: f64,
    pub sd: f64,
    pub ci: (f64, f64),
}

/// Student's t, two-sided 95 %, for `df` degrees of freedom.
pub fn t95(df: usize) -> f64 {
    const T: [f64; 30] = [
        12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160,
        2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056,
        2.052, 2.048, 2.045, 2.042,
    ];
    match df {
        0 => f64::NAN,
        d if d <= 30 => T[d - 1],
        // Beyond the table: z with the first correction term.
        d => {
            let z = 1.959_964;
            z + (z * z * z + z) / (4.0 * d as f64)
        }
    }
}

pub fn stat(xs: &[f64]) -> Stat {
    let n = xs.len();
    let mean = xs.iter().sum::<f64>() / n.max(1) as f64;
    let sd = if n > 1 {
        (xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64).sqrt()
    } else {
        0.0
    };
    let half = if n > 1 {
        t95(n - 1) * sd / (n as f64).sqrt()
    } else {
        0.0
    };
    Stat {
        n,
        mean,
        sd,
        ci: (mean - half, mean + half),
    }
}

/// One group's label and its stats by metric.
#[derive(Clone, Debug)]
pub struct Group {
    pub scenario: String,
    pub policy: String,
    /// `key=value;...` in key order, or empty.
    pub overrides: String,
    /// The first cell of the group (groups are listed in cell order).
    pub first: u64,
    pub stats: Vec<(&'static str, Stat)>,
}

/// The merged sweep.
#[derive(Clone, Debug)]
pub struct Merged {
    pub plan: String,
    pub cells: u64,
    pub groups: Vec<Group>,
}

/// A cell as merge reads it: scenario, policy, overrides, metric values,
/// and the file it came from.
type CellRow = (String, String, String, Vec<Option<f64>>, PathBuf);

/// A group being gathered: scenario, policy, overrides, first cell, and
/// each metric's values.
type Gathering = (String, String, String, u64, Vec<Vec<f64>>);

/// The shard files of `dirs` (`shard-*.jsonl`), sorted.
fn shard_files(dirs: &[PathBuf]) -> Result<Vec<PathBuf>, String> {
    let mut out = Vec::new();
    for d in dirs {
        let rd = std::fs::read_dir(d).map_err(|e| format!("cannot read {}: {e}", d.display()))?;
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
        return Err("no shard-*.jsonl files in the given directories".into());
    }
    Ok(out)
}

fn get<'a>(v: &'a Value, path: &[&str]) -> Option<&'a Value> {
    path.iter().try_fold(v, |v, k| v.get(k))
}

pub fn merge(dirs: &[PathBuf]) -> Result<Merged, String> {
    let files = shard_files(dirs)?;
    let mut plan: Option<(String, PathBuf)> = None;
    let mut total: Option<u64> = None;
    // index → (group key, metric values)
    let mut cells: BTreeMap<u64, CellRow> = BTreeMap::new();
    for f in &files {
        let text =
            std::fs::read_to_string(f).map_err(|e| format!("cannot read {}: {e}", f.display()))?;
        for (n, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let v: Value = serde_json::from_str(line).map_err(|e| {
                format!(
                    "{}:{}: not a sweep line ({e}); re-run its shard to repair it",
                    f.display(),
                    n + 1
                )
            })?;
            let h = v["plan"].as_str().unwrap_or("").to_string();
            match &plan {
                None => plan = Some((h.clone(), f.clone())),
                Some((p, pf)) if *p != h => {
                    return Err(format!(
                        "{}:{}: results of plan {h}, but {} holds plan {p}; expected the shards of one plan",
                        f.display(),
                        n + 1,
                        pf.display()
                    ))
                }
                _ => {}
            }
            let c = &v["cell"];
            let (Some(i), Some(of)) = (c["index"].as_u64(), c["of"].as_u64()) else {
                return Err(format!(
                    "{}:{}: a line without cell.index and cell.of",
                    f.display(),
                    n + 1
                ));
            };
            total = Some(of);
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
                ov,
            );
            if let Some(prev) = cells.insert(i, (key.0, key.1, key.2, vals, f.clone())) {
                return Err(format!(
                    "cell {i} is in {} and in {}; expected each cell once",
                    prev.4.display(),
                    f.display()
                ));
            }
        }
    }
    let (plan, _) = plan.ok_or("the shard files are empty")?;
    let total = total.unwrap_or(0);
    let missing: Vec<u64> = (0..total).filter(|i| !cells.contains_key(i)).collect();
    if !missing.is_empty() {
        let list: Vec<String> = missing.iter().take(20).map(|i| i.to_string()).collect();
        return Err(format!(
            "{} of {total} cells missing: {}{}; run their shards (again) before merging",
            missing.len(),
            list.join(", "),
            if missing.len() > 20 { ", ..." } else { "" }
        ));
    }
    // Groups in the order of their first cell.
    let mut groups: Vec<Gathering> = Vec::new();
    for (&i, (s, p, o, vals, _)) in &cells {
        let g = match groups
            .iter_mut()
            .find(|g| g.0 == *s && g.1 == *p && g.2 == *o)
        {
            Some(g) => g,
            None => {
                groups.push((
                    s.clone(),
                    p.clone(),
                    o.clone(),
                    i,
                    vec![Vec::new(); METRICS.len()],
                ));
                groups.last_mut().expect("just pushed")
            }
        };
        for (k, v) in vals.iter().enumerate() {
            if let Some(x) = v {
                g.4[k].push(*x);
            }
        }
    }
    Ok(Merged {
        plan,
        cells: total,
        groups: groups
            .into_iter()
            .map(|(scenario, policy, overrides, first, vals)| Group {
                scenario,
                policy,
                overrides,
                first,
                stats: METRICS
                    .iter()
                    .zip(vals)
                    .filter(|(_, v)| !v.is_empty())
                    .map(|((name, _), v)| (*name, stat(&v)))
                    .collect(),
            })
            .collect(),
    })
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
        let ov = if g.overrides.is_empty() {
            String::new()
        } else {
            format!(" · {}", g.overrides)
        };
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
    let mut o = String::from("scenario,policy,overrides,metric,n,mean,sd,ci95_low,ci95_high\n");
    for g in &m.groups {
        for (name, s) in &g.stats {
            let _ = writeln!(
                o,
                "{},{},{},{name},{},{},{},{},{}",
                q(&g.scenario),
                q(&g.policy),
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

#[cfg(test)]
mod tests {
    use super::*;

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

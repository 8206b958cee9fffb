//! `slotsim merge DIR --job-error VARIANT`: how far each other variant's
//! runs are from that variant's, job by job. Cells are paired when they
//! differ only by variant (same scenario, policy, overrides and seed); in
//! each pair every job finished in both is compared by its turnaround.
//! The use it was made for: the `coarse` network model against `shared`
//! (docs/performance.md), whose error is a contract: per-job turnaround
//! within 2 % at the median and 10 % at p95, makespan and mean turnaround
//! within 3 %.
//!
//! Some runs are chaotic: the exact model itself moves their jobs by more
//! than that when a bandwidth changes by a thousandth (a task lands one
//! heartbeat later, and the queue reorders behind it). Variants whose name
//! starts with `floor` measure that: the exact model against itself under
//! such a change. A row that misses the contract is "within the floor"
//! when none of its figures is further than the contract or the floor's
//! worst, else it "fails".

use super::error::ShardsError;
use super::merge::shard_lines;
use serde_json::Value;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::PathBuf;

/// The coarse model's contract, in percent: per-job median and p95,
/// makespan and mean turnaround.
pub const CONTRACT: (f64, f64, f64) = (2.0, 10.0, 3.0);

/// One run: its jobs' turnarounds by name, makespan, mean turnaround.
struct Run {
    jobs: BTreeMap<String, f64>,
    makespan: f64,
    mean: f64,
}

/// What pairs two cells: scenario, policy, overrides, seed.
type PairKey = (String, String, String, u64);

/// A row of the table: scenario, policy, variant.
type RowKey = (String, String, String);

/// Per-job errors pooled over seeds, and per-seed makespan and mean
/// turnaround errors, in percent.
#[derive(Default)]
struct Row {
    first: u64,
    jobs: Vec<f64>,
    /// The turnarounds compared (s), the variant's and the base's, pooled
    /// over seeds: the two distributions the KS distance is taken between.
    turnarounds: Vec<f64>,
    base_turnarounds: Vec<f64>,
    makespan: Vec<f64>,
    mean: Vec<f64>,
}

fn pct(x: f64, base: f64) -> f64 {
    (x - base) / base * 100.0
}

/// The `q` quantile of sorted `xs` (nearest rank).
fn quantile(xs: &[f64], q: f64) -> f64 {
    if xs.is_empty() {
        return f64::NAN;
    }
    let i = ((q * xs.len() as f64).ceil() as usize).clamp(1, xs.len()) - 1;
    xs[i]
}

/// The two-sample Kolmogorov–Smirnov distance between samples `a` and
/// `b`, both sorted: the largest gap between their empirical distribution
/// functions (0: the same distribution of values; 1: no overlap). Ties
/// are stepped over together, so equal samples are at distance 0.
pub fn ks_distance(a: &[f64], b: &[f64]) -> f64 {
    if a.is_empty() || b.is_empty() {
        return f64::NAN;
    }
    let (na, nb) = (a.len() as f64, b.len() as f64);
    let (mut i, mut j, mut d) = (0, 0, 0.0f64);
    while i < a.len() && j < b.len() {
        let x = a[i].min(b[j]);
        while i < a.len() && a[i] <= x {
            i += 1;
        }
        while j < b.len() && b[j] <= x {
            j += 1;
        }
        d = d.max((i as f64 / na - j as f64 / nb).abs());
    }
    d
}

/// The table, as Markdown, and whether every row holds the contract.
pub fn job_error(dirs: &[PathBuf], base: &str) -> Result<(String, bool), ShardsError> {
    let cells = read_cells(dirs, base)?;
    if !cells.variants.iter().any(|v| v == base) {
        return Err(ShardsError::NoBase(format!(
            "no variant named \"{base}\" in these results; expected one of: {}",
            cells
                .variants
                .iter()
                .map(|v| format!("\"{v}\""))
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    let rows = pair_rows(cells, base)?;
    let floors = floors(&rows);
    let mut out = String::new();
    let _ = writeln!(
        out,
        "| scenario | policy | variant | jobs | job median | job p95 | job max | makespan | mean turnaround | KS | verdict |"
    );
    let _ = writeln!(out, "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---|");
    let mut all_hold = true;
    for ((scenario, policy, variant), row) in rows {
        let [med, p95, ms, mt] = row.figures();
        let max = row.jobs.last().copied().unwrap_or(f64::NAN);
        let floor = floors.get(&(scenario.clone(), policy.clone()));
        let verdict = verdict(&variant, [med, p95, ms.abs(), mt.abs()], floor);
        all_hold &= verdict != "fails";
        let sd = |xs: &[f64]| super::merge::stat(xs).sd;
        let _ = writeln!(
            out,
            "| {scenario} | {policy} | {variant} | {} | {med:.2} % | {p95:.2} % | {max:.1} % | {ms:+.2} ± {:.2} % | {mt:+.2} ± {:.2} % | {:.3} | {verdict} |",
            row.jobs.len(),
            sd(&row.makespan),
            sd(&row.mean),
            ks_distance(&row.turnarounds, &row.base_turnarounds),
        );
    }
    let _ = writeln!(
        out,
        "\nAgainst variant \"{base}\": per-job |Δ turnaround| pooled over seeds (median, p95, max); makespan and mean turnaround Δ, mean ± sd over seeds. KS: the Kolmogorov–Smirnov distance between the two distributions of those jobs' turnarounds (pooled over seeds; not part of the verdict). Contract: median ≤ {} %, p95 ≤ {} %, makespan and mean turnaround ≤ {} %; \"within the floor\": beyond it, but no further than the variants named floor… (the exact model against itself under a small change) go.",
        CONTRACT.0, CONTRACT.1, CONTRACT.2
    );
    Ok((out, all_hold))
}

/// The runs of the results: the base variant's by what pairs them, the
/// others with their cell index and row, and every variant's name in the
/// order first seen.
struct Cells {
    bases: BTreeMap<PairKey, Run>,
    others: Vec<(u64, RowKey, PairKey, Run)>,
    variants: Vec<String>,
}

fn read_cells(dirs: &[PathBuf], base: &str) -> Result<Cells, ShardsError> {
    let mut cells = Cells {
        bases: BTreeMap::new(),
        others: Vec::new(),
        variants: Vec::new(),
    };
    for (v, _) in shard_lines(dirs)? {
        let c = &v["cell"];
        let s = |k: &str| c[k].as_str().unwrap_or("").to_string();
        let variant = s("variant");
        if !cells.variants.contains(&variant) {
            cells.variants.push(variant.clone());
        }
        // The policy the run had (a plan may leave it to each scenario).
        let policy = match s("policy") {
            p if p.is_empty() => v["policy"].as_str().unwrap_or("").to_string(),
            p => p,
        };
        let ov = c["grid"]
            .as_object()
            .map(|o| {
                o.iter()
                    .map(|(k, v)| format!("{k}={v}"))
                    .collect::<Vec<_>>()
                    .join(";")
            })
            .unwrap_or_default();
        let key = (
            s("scenario"),
            policy.clone(),
            ov,
            c["seed"].as_u64().unwrap_or(0),
        );
        let run = read_run(&v);
        if variant == base {
            cells.bases.insert(key, run);
        } else {
            let index = c["index"].as_u64().unwrap_or(0);
            cells
                .others
                .push((index, (s("scenario"), policy, variant), key, run));
        }
    }
    Ok(cells)
}

/// Every other run against its base run, pooled into rows in the order of
/// their first cell, each row's job errors sorted. A run without a base
/// run is an error.
fn pair_rows(cells: Cells, base: &str) -> Result<Vec<(RowKey, Row)>, ShardsError> {
    let Cells {
        bases, mut others, ..
    } = cells;
    let mut rows: BTreeMap<RowKey, Row> = BTreeMap::new();
    others.sort_by_key(|o| o.0);
    for (index, rk, pk, run) in others {
        let Some(b) = bases.get(&pk) else {
            return Err(ShardsError::NoBase(format!(
                "cell {index} ({} / {} / seed {}) has no \"{base}\" cell to compare with",
                rk.0, rk.1, pk.3
            )));
        };
        let row = rows.entry(rk).or_insert_with(|| Row {
            first: index,
            ..Row::default()
        });
        for (name, &t) in &run.jobs {
            if let Some(&t0) = b.jobs.get(name) {
                if t0 > 0.0 {
                    row.jobs.push(pct(t, t0).abs());
                    row.turnarounds.push(t);
                    row.base_turnarounds.push(t0);
                }
            }
        }
        row.makespan.push(pct(run.makespan, b.makespan));
        row.mean.push(pct(run.mean, b.mean));
    }
    let mut rows: Vec<(RowKey, Row)> = rows.into_iter().collect();
    rows.sort_by_key(|r| r.1.first);
    for r in &mut rows {
        r.1.jobs.sort_by(f64::total_cmp);
        r.1.turnarounds.sort_by(f64::total_cmp);
        r.1.base_turnarounds.sort_by(f64::total_cmp);
    }
    Ok(rows)
}

/// Each (scenario, policy)'s floor: the worst of its floor variants'
/// figures.
fn floors(rows: &[(RowKey, Row)]) -> BTreeMap<(String, String), [f64; 4]> {
    let mut floors: BTreeMap<(String, String), [f64; 4]> = BTreeMap::new();
    for ((scenario, policy, variant), row) in rows {
        if variant.starts_with("floor") {
            let f = floors
                .entry((scenario.clone(), policy.clone()))
                .or_insert([0.0; 4]);
            for (k, x) in row.figures().iter().enumerate() {
                f[k] = f[k].max(x.abs());
            }
        }
    }
    floors
}

/// A row's verdict from its figures (job median, job p95, |makespan|,
/// |mean turnaround|): a floor variant is the floor; else it holds the
/// contract, or stays within its floor, or fails.
fn verdict(variant: &str, figs: [f64; 4], floor: Option<&[f64; 4]>) -> &'static str {
    let (c_med, c_p95, c_total) = CONTRACT;
    let contract = [c_med, c_p95, c_total, c_total];
    let holds = figs.iter().zip(&contract).all(|(x, c)| x <= c);
    if variant.starts_with("floor") {
        "(the floor)"
    } else if holds {
        "holds"
    } else if floor.is_some_and(|f| {
        figs.iter()
            .zip(contract.iter().zip(f))
            .all(|(x, (c, fl))| *x <= c.max(*fl))
    }) {
        "within the floor"
    } else {
        "fails"
    }
}

impl Row {
    /// Per-job median and p95 (the jobs sorted), and the makespan and mean
    /// turnaround errors' mean over seeds (the model's bias; one run of a
    /// chaotic scenario moves by more, either way).
    fn figures(&self) -> [f64; 4] {
        [
            quantile(&self.jobs, 0.5),
            quantile(&self.jobs, 0.95),
            super::merge::stat(&self.makespan).mean,
            super::merge::stat(&self.mean).mean,
        ]
    }
}

fn read_run(v: &Value) -> Run {
    let mut jobs = BTreeMap::new();
    for j in v["jobs"].as_array().into_iter().flatten() {
        if let (Some(n), Some(t)) = (j["name"].as_str(), j["turnaround_s"].as_f64()) {
            jobs.insert(n.to_string(), t);
        }
    }
    Run {
        jobs,
        makespan: v["makespan_s"].as_f64().unwrap_or(f64::NAN),
        mean: v["mean_turnaround_s"].as_f64().unwrap_or(f64::NAN),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_are_nearest_rank() {
        let xs = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0];
        assert_eq!(quantile(&xs, 0.5), 5.0);
        assert_eq!(quantile(&xs, 0.95), 10.0);
        assert_eq!(quantile(&[3.0], 0.95), 3.0);
        assert!(quantile(&[], 0.5).is_nan());
    }

    #[test]
    fn ks_distance_is_the_largest_gap_between_the_distributions() {
        let a = [1.0, 2.0, 3.0, 4.0];
        // The same values: 0, ties included.
        assert_eq!(ks_distance(&a, &a), 0.0);
        assert_eq!(ks_distance(&[1.0, 1.0, 2.0], &[1.0, 1.0, 2.0]), 0.0);
        // Disjoint: 1.
        assert_eq!(ks_distance(&a, &[5.0, 6.0]), 1.0);
        // Shifted by one of four: after 1.0, a is at 1/4 and b at 0;
        // after 4.0, a is at 1 and b at 3/4.
        assert_eq!(ks_distance(&a, &[2.0, 3.0, 4.0, 5.0]), 0.25);
        // Sizes may differ: {1,2} against {1,2,3,4} peaks at 2.0 (1 - 1/2).
        assert_eq!(ks_distance(&[1.0, 2.0], &a), 0.5);
        assert!(ks_distance(&[], &a).is_nan());
    }
}

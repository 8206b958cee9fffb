//! `compare`'s table: one row per policy with mean ± stddev over seeds and
//! the difference to the first policy (the runs are `runs::compare`'s).

use super::summary::Summary;
use std::fmt::Write as _;

/// Mean and sample standard deviation.
pub fn mean_sd(xs: &[f64]) -> (f64, f64) {
    if xs.is_empty() {
        return (f64::NAN, 0.0);
    }
    let n = xs.len() as f64;
    let m = xs.iter().sum::<f64>() / n;
    let var = if xs.len() > 1 {
        xs.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (n - 1.0)
    } else {
        0.0
    };
    (m, var.sqrt())
}

fn col(rows: &[Summary], f: impl Fn(&Summary) -> Option<f64>) -> Option<(f64, f64)> {
    let v: Vec<f64> = rows.iter().filter_map(&f).collect();
    (v.len() == rows.len() && !v.is_empty()).then(|| mean_sd(&v))
}

/// The comparison table: `results[i]` holds policy i's runs that
/// finished, of the `seeds` asked.
/// A row's difference from the first row's, seed by seed (the runs of a
/// seed share their workload, so their difference is the policy's): the
/// mean of the per-seed differences in percent, `†` where Student's 95 %
/// interval of them excludes 0 (two seeds or more).
fn paired(rows: &[Summary], base: &[Summary], f: impl Fn(&Summary) -> Option<f64>) -> String {
    let pairs = |rs: &[Summary]| -> Vec<(u64, f64)> {
        rs.iter().filter_map(|r| Some((r.seed, f(r)?))).collect()
    };
    let Some((s, sure)) = super::stats::paired_pct(&pairs(rows), &pairs(base)) else {
        return "-".to_string();
    };
    format!("{:+.1}%{}", s.mean, if sure { " †" } else { "" })
}

pub fn table(labels: &[String], results: &[Vec<Summary>], seeds: u64) -> String {
    let mut o = String::new();
    let seeds = seeds as usize;
    let lw = labels
        .iter()
        .map(|l| l.chars().count())
        .max()
        .unwrap_or(0)
        .max(12);
    let _ = writeln!(
        o,
        "{:<lw$} {:>18} {:>9} {:>18} {:>9} {:>7} {:>7}",
        "policy", "makespan s", "Δ", "mean turnaround s", "Δ", "node%", "util%"
    );
    let base = results.first().map(Vec::as_slice).unwrap_or(&[]);
    for (label, rows) in labels.iter().zip(results) {
        if rows.is_empty() {
            // Every seed's run failed (the errors follow the table).
            let _ = writeln!(
                o,
                "{:<lw$} {:>18} {:>9} {:>18} {:>9} {:>7} {:>7}",
                label, "failed", "-", "failed", "-", "-", "-"
            );
            continue;
        }
        let mk = col(rows, |s| s.makespan_s);
        let ta = col(rows, |s| s.mean_turnaround_s);
        let node = mean_sd(&rows.iter().map(|s| s.locality.node).collect::<Vec<_>>()).0;
        let util = mean_sd(&rows.iter().map(|s| s.utilization).collect::<Vec<_>>()).0;
        let ms = |x: Option<(f64, f64)>| {
            x.map_or("unfinished".to_string(), |(m, s)| {
                format!("{m:.1} ± {s:.1}")
            })
        };

        let _ = writeln!(
            o,
            "{:<lw$} {:>18} {:>9} {:>18} {:>9} {:>7.1} {:>7.1}",
            label,
            ms(mk),
            paired(rows, base, |s| s.makespan_s),
            ms(ta),
            paired(rows, base, |s| s.mean_turnaround_s),
            node * 100.0,
            util * 100.0
        );
    }
    let short = results.iter().any(|r| r.len() < seeds);
    let _ = writeln!(
        o,
        "({seeds} seed{} per policy{}; Δ: mean per-seed difference from the first row, † its 95 % CI excludes 0)",
        if seeds == 1 { "" } else { "s" },
        if short {
            ", fewer where a run failed"
        } else {
            ""
        }
    );
    o
}

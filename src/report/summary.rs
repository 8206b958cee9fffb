//! The run summary: DESIGN's `--json` object and the table `run --headless` prints.

use crate::model::Ms;
use crate::sim::engine::PolicySwitch;
use crate::sim::Sim;
use serde::Serialize;
use std::fmt::Write as _;

#[derive(Clone, Debug, Serialize)]
pub struct LocalityRates {
    pub node: f64,
    pub rack: f64,
    pub off_rack: f64,
    pub off_dc: f64,
}

#[derive(Clone, Debug, Serialize)]
pub struct Speculative {
    pub launched: u64,
    pub won: u64,
}

#[derive(Clone, Debug, Serialize)]
pub struct JobSummary {
    pub name: String,
    pub pool: String,
    pub submit_s: f64,
    pub finish_s: Option<f64>,
    pub turnaround_s: Option<f64>,
    pub maps: u32,
    pub reduces: u32,
    pub map_end_s: Option<f64>,
    pub shuffle_end_s: Option<f64>,
}

#[derive(Clone, Debug, Serialize)]
pub struct Summary {
    pub scenario: String,
    pub policy: String,
    pub seed: u64,
    /// Last job finish − first submission; null while any job is unfinished.
    pub makespan_s: Option<f64>,
    /// Over finished jobs; null if none finished.
    pub mean_turnaround_s: Option<f64>,
    pub locality: LocalityRates,
    pub reduce_locality: f64,
    pub inter_dc_gb: f64,
    pub utilization: f64,
    pub unbalanced_degree: f64,
    pub unfairness_degree: f64,
    pub speculative: Speculative,
    pub policy_switches: Vec<PolicySwitch>,
    pub end_s: f64,
    pub heartbeats: u64,
    pub jobs_submitted: usize,
    pub jobs_finished: usize,
    pub tasks: usize,
    pub attempts: usize,
    pub jobs: Vec<JobSummary>,
}

fn s(ms: Ms) -> f64 {
    ms as f64 / 1000.0
}

/// Summarises a run that has stopped (finished, or stopped at `--until`).
pub fn summarize(sim: &Sim) -> Summary {
    let w = &sim.w;
    let end = w.now;
    let m = &w.metrics;
    let span = m.span(end);
    let first_submit = w.jobs.iter().filter(|j| j.arrived).map(|j| j.submit).min();
    let all_done = w.jobs.iter().all(|j| j.is_done()) && !w.jobs.is_empty();
    let last_finish = w.jobs.iter().filter_map(|j| j.finished_at).max();
    let makespan_s = match (all_done, first_submit, last_finish) {
        (true, Some(a), Some(b)) => Some(s(b - a)),
        _ => None,
    };
    let finished: Vec<f64> = w
        .jobs
        .iter()
        .filter_map(|j| j.finished_at.map(|f| s(f - j.submit)))
        .collect();
    let mean_turnaround_s =
        (!finished.is_empty()).then(|| finished.iter().sum::<f64>() / finished.len() as f64);
    let lt: u64 = m.locality.iter().sum();
    let frac = |x: u64| if lt == 0 { 0.0 } else { x as f64 / lt as f64 };
    let jobs = w
        .jobs
        .iter()
        .filter(|j| j.arrived)
        .map(|j| JobSummary {
            name: j.name.clone(),
            pool: w.pools[j.pool as usize].name.clone(),
            submit_s: s(j.submit),
            finish_s: j.finished_at.map(s),
            turnaround_s: j.finished_at.map(|f| s(f - j.submit)),
            maps: j.n_maps(),
            reduces: j.n_reduces(),
            map_end_s: j.map_end.map(s),
            shuffle_end_s: j.shuffle_end.map(s),
        })
        .collect();
    Summary {
        scenario: sim.scenario_name.clone(),
        policy: w.labels[0].clone(),
        seed: w.seed,
        makespan_s,
        mean_turnaround_s,
        locality: LocalityRates {
            node: frac(m.locality[0]),
            rack: frac(m.locality[1]),
            off_rack: frac(m.locality[2]),
            off_dc: frac(m.locality[3]),
        },
        reduce_locality: if m.reduce_bytes_total > 0.0 {
            m.reduce_bytes_local / m.reduce_bytes_total
        } else {
            1.0
        },
        inter_dc_gb: m.inter_dc_mb / 1024.0,
        utilization: if span > 0.0 {
            m.busy / (w.cluster.total_slots() as f64 * span)
        } else {
            0.0
        },
        unbalanced_degree: if span > 0.0 { m.node_sq / span } else { 0.0 },
        unfairness_degree: if span > 0.0 { m.pool_sq / span } else { 0.0 },
        speculative: Speculative {
            launched: m.speculative_launched,
            won: m.speculative_won,
        },
        policy_switches: w.switches.clone(),
        end_s: s(end),
        heartbeats: w.heartbeats,
        jobs_submitted: w.submitted_jobs(),
        jobs_finished: w.finished_jobs(),
        tasks: w
            .jobs
            .iter()
            .map(|j| (j.n_maps() + j.n_reduces()) as usize)
            .sum(),
        attempts: w.attempts.len(),
        jobs,
    }
}

fn opt(x: Option<f64>) -> String {
    x.map_or_else(|| "-".to_string(), |v| format!("{v:.1}"))
}

/// The human summary printed by `run --headless`.
pub fn table(sum: &Summary) -> String {
    let mut o = String::new();
    let _ = writeln!(
        o,
        "scenario {}  policy {}  seed {}",
        sum.scenario, sum.policy, sum.seed
    );
    for sw in &sum.policy_switches {
        let _ = writeln!(o, "  switched {} -> {} at {:.1}s", sw.from, sw.to, sw.at_s);
    }
    let _ = writeln!(
        o,
        "jobs {}/{} finished   tasks {}   attempts {}   heartbeats {}   simulated {:.1}s",
        sum.jobs_finished, sum.jobs_submitted, sum.tasks, sum.attempts, sum.heartbeats, sum.end_s
    );
    let _ = writeln!(
        o,
        "makespan {} s   mean turnaround {} s   utilization {:.1}%",
        opt(sum.makespan_s),
        opt(sum.mean_turnaround_s),
        sum.utilization * 100.0
    );
    let l = &sum.locality;
    let _ = writeln!(
        o,
        "map locality  node {:.1}%  rack {:.1}%  off-rack {:.1}%  off-dc {:.1}%   reduce-data locality {:.1}%   inter-DC {:.2} GB",
        l.node * 100.0,
        l.rack * 100.0,
        l.off_rack * 100.0,
        l.off_dc * 100.0,
        sum.reduce_locality * 100.0,
        sum.inter_dc_gb
    );
    let _ = writeln!(
        o,
        "unbalanced degree {:.3}   unfairness degree {:.3}   speculative {}/{} won",
        sum.unbalanced_degree, sum.unfairness_degree, sum.speculative.won, sum.speculative.launched
    );
    const MAX_ROWS: usize = 40;
    if !sum.jobs.is_empty() {
        let _ = writeln!(
            o,
            "\n{:<24} {:<12} {:>6} {:>5} {:>9} {:>9} {:>9} {:>11}",
            "job", "pool", "maps", "reds", "submit s", "map end", "finish s", "turnaround"
        );
        for j in sum.jobs.iter().take(MAX_ROWS) {
            let _ = writeln!(
                o,
                "{:<24} {:<12} {:>6} {:>5} {:>9.1} {:>9} {:>9} {:>11}",
                j.name,
                j.pool,
                j.maps,
                j.reduces,
                j.submit_s,
                opt(j.map_end_s),
                opt(j.finish_s),
                opt(j.turnaround_s)
            );
        }
        if sum.jobs.len() > MAX_ROWS {
            let _ = writeln!(
                o,
                "... {} more jobs (see --json)",
                sum.jobs.len() - MAX_ROWS
            );
        }
    }
    o
}

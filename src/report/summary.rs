//! The run summary: the `--json` object of docs/outputs.md and the table `run --headless` prints.

use crate::model::Ms;
use crate::sched::omo::{mean_abs_error_pct, release_windows, ReleaseWindow};
use crate::sim::job::Job;
use crate::sim::{PolicySwitch, RunView, Sim};
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
    /// For a killed job, when it was killed.
    pub finish_s: Option<f64>,
    /// Null for a killed job.
    pub turnaround_s: Option<f64>,
    /// Killed (`kill_job`); written only when true.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub killed: bool,
    pub maps: u32,
    pub reduces: u32,
    pub map_end_s: Option<f64>,
    pub shuffle_end_s: Option<f64>,
    /// OMO Fig. 13's phase breakdown. With M0 the first map attempt's
    /// start, M1 the last map's end (`map_end_s`), R0 the first reduce
    /// attempt's start and S1 the last reducer's shuffle end
    /// (`shuffle_end_s`), the three spans partition [M0, S1]:
    /// `map_only_s` = min(R0, M1) − M0 (maps run, no reducer yet; 0 if a
    /// reduce started first), `overlap_s` = M1 − max(R0, M0) (maps and
    /// shuffle together; 0 if no reduce started before the last map
    /// ended), `shuffle_only_s` = S1 − M1 (the shuffle after the last map,
    /// including any wait for a reduce container). A map-only job has
    /// `map_only_s` = M1 − M0 and zeros. Null until the job has finished.
    pub map_only_s: Option<f64>,
    pub overlap_s: Option<f64>,
    pub shuffle_only_s: Option<f64>,
    /// OMO Fig. 8's last batch: maps that finished within 10 s of the
    /// job's last map (that one included). Null until its maps are done.
    pub last_batch: Option<u32>,
    /// A job replayed from a trace: its recorded completion time
    /// (submission to finish) and the simulated one's error against it,
    /// 100 × (turnaround − recorded) / recorded. Absent for other jobs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recorded_s: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error_pct: Option<f64>,
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
    /// The workload's phases as OMO's Fig. 9 reads them: its map phase, from
    /// the first submission to the last map's end, and how long the shuffle
    /// went on after that (the last copy's end − the last map's end); null
    /// while any job is unfinished.
    pub map_phase_s: Option<f64>,
    pub shuffle_after_maps_s: Option<f64>,
    pub locality: LocalityRates,
    pub reduce_locality: f64,
    pub inter_dc_gb: f64,
    pub utilization: f64,
    pub unbalanced_degree: f64,
    pub unfairness_degree: f64,
    /// Successful map attempts per node: mean and standard deviation over
    /// every node (JoSS's "VPS load", Tables 9 and 10).
    pub map_load: MeanSd,
    pub speculative: Speculative,
    pub policy_switches: Vec<PolicySwitch>,
    pub end_s: f64,
    pub heartbeats: u64,
    pub jobs_submitted: usize,
    pub jobs_finished: usize,
    /// The run stopped because unfinished jobs could never run again (for
    /// example a pool capped at zero slots).
    pub stalled: bool,
    /// When it stalled under a policy in another process, that policy's
    /// label: it launched nothing though work was left.
    #[serde(skip)]
    pub stalled_under: Option<String>,
    pub tasks: usize,
    pub attempts: usize,
    /// Attempts killed: preempted (by a policy, or a MapReduce AM making
    /// room for maps), copies that lost their race, a killed job's.
    pub attempts_killed: u64,
    /// Attempts that failed (injected task failures, a node lost).
    pub attempts_failed: u64,
    /// Bytes moved by flow kind, and the busiest disks and links.
    pub network: NetworkReport,
    /// Engine events processed (calendar events and flow ends).
    pub events: u64,
    pub jobs: Vec<JobSummary>,
    /// OMO's release-rate predictor: every window's observed release rate
    /// next to the forecast made for it, and the mean absolute error in
    /// percent (see [`PredictorReport`]). Under OMO it is the predictor
    /// OMO decided with; under any other (last) policy the same monitor
    /// run passively, as the paper measures it under Fair (Fig. 7).
    pub predictor: PredictorReport,
    /// The run was stopped (a signal, a closed terminal) before its end:
    /// everything here holds up to `stopped_at_s`.
    pub partial: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stopped_at_s: Option<f64>,
    /// The slotsim that wrote it (`merge` refuses to mix versions).
    pub version: &'static str,
    /// The scenario the run ran, resolved ([`crate::scenario::resolved`]).
    pub config: serde_json::Value,
}

/// Bytes each kind of flow moved (bytes: 1 MB = 2²⁰ bytes).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct NetworkBytes {
    pub input: u64,
    pub spill: u64,
    pub shuffle: u64,
    pub output: u64,
}

/// A disk or link and how busy it was over the run.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LinkLoad {
    pub name: String,
    /// Time-average of its load over its capacity, from the first
    /// submission to the end of the run.
    pub mean_util: f64,
    /// Highest load over capacity at any instant.
    pub peak_util: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct NetworkReport {
    /// "shared" or "fixed".
    pub model: crate::model::NetworkModel,
    pub bytes: NetworkBytes,
    /// The busiest resources by mean utilisation, at most
    /// [`BUSIEST_LINKS`] (none under `fixed`, where transfers share nothing).
    pub busiest_links: Vec<LinkLoad>,
}

/// How many resources the summary lists as busiest.
pub const BUSIEST_LINKS: usize = 5;

/// The network part of the summary, as of `end`.
pub fn network_report(sim: &Sim, end: Ms, start: Option<Ms>) -> NetworkReport {
    let w = sim.view();
    let mb = |k: usize| (w.net_mb()[k] * 1_048_576.0).round() as u64;
    let span = start.map_or(0.0, |s0| end.saturating_sub(s0) as f64 / 1000.0);
    let mut loads: Vec<LinkLoad> = Vec::new();
    if w.net_spec().model.shares() && span > 0.0 {
        let n = w.links().count() as usize;
        for (r, res) in w.net().resources.iter().enumerate().take(n) {
            let area = res.area_at(end);
            if area <= 0.0 {
                continue;
            }
            loads.push(LinkLoad {
                name: w.links().name(r as u32),
                mean_util: area / res.capacity / span,
                peak_util: res.peak.min(1.0),
            });
        }
        loads.sort_by(|a, b| {
            b.mean_util
                .total_cmp(&a.mean_util)
                .then_with(|| a.name.cmp(&b.name))
        });
        loads.truncate(BUSIEST_LINKS);
    }
    NetworkReport {
        model: w.net_spec().model,
        bytes: NetworkBytes {
            input: mb(0),
            spill: mb(1),
            shuffle: mb(2),
            output: mb(3),
        },
        busiest_links: loads,
    }
}

/// The run-level predictor report in the JSON summary: every closed window
/// of the release-rate monitor and the forecast error.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PredictorReport {
    pub windows: Vec<ReleaseWindow>,
    /// 100 × Σ|estimated − observed| / Σ observed over the windows that
    /// have a forecast: the mean absolute error as a percentage of the
    /// mean observed release rate. Null when no window has a forecast or
    /// nothing was released.
    pub mean_abs_error_pct: Option<f64>,
}

/// OMO Fig. 8's window: maps ending this close to a job's last map are in
/// its last batch.
pub const LAST_BATCH_MS: Ms = 10_000;

/// The phase spans of [`JobSummary`]: (map only, overlap, shuffle only) in ms.
pub fn phases(m0: Ms, m1: Ms, r0: Option<Ms>, s1: Option<Ms>) -> (Ms, Ms, Ms) {
    match (r0, s1) {
        (Some(r0), Some(s1)) => (
            r0.min(m1).saturating_sub(m0),
            m1.saturating_sub(r0.max(m0)),
            s1.saturating_sub(m1),
        ),
        _ => (m1.saturating_sub(m0), 0, 0),
    }
}

fn s(ms: Ms) -> f64 {
    ms as f64 / 1000.0
}

/// A mean and a (population) standard deviation.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct MeanSd {
    pub mean: f64,
    pub sd: f64,
}

/// Summarises a run that has stopped (finished, or stopped at `--until`).
pub fn summarize(sim: &Sim) -> Summary {
    let w = sim.view();
    let end = w.now();
    let tail = w.metrics().at(end);
    let m = &tail;
    let span = m.span(end);
    let spans = RunSpans::of(w);
    let lt: u64 = m.locality.iter().sum();
    let frac = |x: u64| if lt == 0 { 0.0 } else { x as f64 / lt as f64 };
    // Every job of the scenario, including those a stop at `--until` left
    // unsubmitted (finish_s null), so `jobs` agrees with `tasks`. Jobs of
    // `submit` events exist only once submitted.
    let jobs = w
        .jobs()
        .iter()
        .map(|j| job_summary(w, j, (j.first_start[0], j.first_start[1])))
        .collect();
    Summary {
        scenario: sim.scenario_name.clone(),
        policy: w.labels()[0].clone(),
        seed: w.seed(),
        makespan_s: spans.makespan_s,
        mean_turnaround_s: mean_turnaround(w),
        map_phase_s: spans.map_phase_s,
        shuffle_after_maps_s: spans.shuffle_after_maps_s,
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
        utilization: if span > 0.0 { m.utilization() } else { 0.0 },
        unbalanced_degree: if span > 0.0 { m.node_sq / span } else { 0.0 },
        unfairness_degree: if span > 0.0 { m.pool_sq / span } else { 0.0 },
        map_load: map_load(w),
        speculative: Speculative {
            launched: m.speculative_launched,
            won: m.speculative_won,
        },
        policy_switches: w.switches().to_vec(),
        end_s: s(end),
        heartbeats: w.heartbeats(),
        jobs_submitted: w.submitted_jobs(),
        jobs_finished: w.finished_jobs(),
        stalled: w.stalled(),
        stalled_under: (w.stalled()
            && matches!(sim.policy_spec(), crate::model::PolicySpec::External(_)))
        .then(|| sim.policy_label().to_string()),
        tasks: w
            .jobs()
            .iter()
            .map(|j| (j.n_maps() + j.n_reduces()) as usize)
            .sum(),
        attempts: w.attempts().len(),
        attempts_killed: m.attempts_killed,
        attempts_failed: m.attempts_failed,
        network: network_report(sim, end, spans.first_submit),
        events: w.events(),
        jobs,
        // OMO's predictor forecasts map-slot releases: YARN has no slots.
        predictor: if w.capacity().app_masters() {
            PredictorReport {
                windows: Vec::new(),
                mean_abs_error_pct: None,
            }
        } else {
            PredictorReport {
                windows: release_windows(sim).to_vec(),
                mean_abs_error_pct: mean_abs_error_pct(release_windows(sim)),
            }
        },
        partial: false,
        stopped_at_s: None,
        version: env!("CARGO_PKG_VERSION"),
        config: {
            // The scenario's events and those a session scheduled since.
            let mut c = sim.config.clone();
            if let Some(m) = c.as_object_mut() {
                m.insert("events".into(), sim.scripted_events().len().into());
            }
            with_external_records(&mut c, sim);
            c
        },
    }
}

/// What each policy in another process that the run had said of itself
/// (its label, protocol, the name and version of its `hello`, its script
/// and the script's SHA-256), as `config.scheduler.external.policies`.
fn with_external_records(config: &mut serde_json::Value, sim: &Sim) {
    let records = sim.policy_records();
    if records.is_empty() {
        return;
    }
    let Some(scheduler) = config
        .get_mut("scheduler")
        .and_then(serde_json::Value::as_object_mut)
    else {
        return;
    };
    let external = scheduler
        .entry("external")
        .or_insert_with(|| serde_json::Value::Object(Default::default()));
    if let Some(x) = external.as_object_mut() {
        let list: Vec<serde_json::Value> = records
            .iter()
            .map(crate::report::trace::values_json)
            .collect();
        x.insert("policies".into(), list.into());
    }
}

/// The run's spans: from the first submission to the last finish (only
/// when every job finished), to the last map's end, and the copying after
/// it.
struct RunSpans {
    first_submit: Option<Ms>,
    makespan_s: Option<f64>,
    map_phase_s: Option<f64>,
    shuffle_after_maps_s: Option<f64>,
}

impl RunSpans {
    fn of(w: RunView<'_>) -> RunSpans {
        let first_submit = w
            .jobs()
            .iter()
            .filter(|j| j.arrived)
            .map(|j| j.submit)
            .min();
        let all_done = w.jobs().iter().all(|j| j.is_done()) && !w.jobs().is_empty();
        let last_finish = w.jobs().iter().filter_map(|j| j.finished_at).max();
        let makespan_s = match (all_done, first_submit, last_finish) {
            (true, Some(a), Some(b)) => Some(s(b - a)),
            _ => None,
        };
        let last_map = w.jobs().iter().filter_map(|j| j.map_end).max();
        let last_copy = w
            .jobs()
            .iter()
            .filter_map(|j| j.shuffle_end.or(j.map_end))
            .max();
        let (map_phase_s, shuffle_after_maps_s) = match (makespan_s, first_submit, last_map) {
            (Some(_), Some(a), Some(m)) => (
                Some(s(m - a)),
                Some(s(last_copy.unwrap_or(m).saturating_sub(m))),
            ),
            _ => (None, None),
        };
        RunSpans {
            first_submit,
            makespan_s,
            map_phase_s,
            shuffle_after_maps_s,
        }
    }
}

/// The mean turnaround of the jobs that finished (not killed).
fn mean_turnaround(w: RunView<'_>) -> Option<f64> {
    let finished: Vec<f64> = w
        .jobs()
        .iter()
        .filter(|j| !j.killed)
        .filter_map(|j| j.finished_at.map(|f| s(f - j.submit)))
        .collect();
    (!finished.is_empty()).then(|| finished.iter().sum::<f64>() / finished.len() as f64)
}

/// One job's line; `(m0, r0)`: its first map and reduce attempt starts.
fn job_summary(w: RunView<'_>, j: &Job, (m0, r0): (Option<Ms>, Option<Ms>)) -> JobSummary {
    let ph = match (j.finished_at, m0, j.map_end) {
        (Some(_), Some(m0), Some(m1)) => Some(phases(m0, m1, r0, j.shuffle_end)),
        _ => None,
    };
    let last_batch = j.map_end.map(|end| {
        j.maps
            .iter()
            .filter_map(|t| t.finished_at())
            .filter(|&f| f + LAST_BATCH_MS >= end)
            .count() as u32
    });
    JobSummary {
        name: j.name.to_string(),
        pool: w.pools()[j.pool as usize].name.clone(),
        submit_s: s(j.submit),
        finish_s: j.finished_at.map(s),
        turnaround_s: j.finished_at.filter(|_| !j.killed).map(|f| s(f - j.submit)),
        killed: j.killed,
        maps: j.n_maps(),
        reduces: j.n_reduces(),
        map_end_s: j.map_end.map(s),
        shuffle_end_s: j.shuffle_end.map(s),
        map_only_s: ph.map(|p| s(p.0)),
        overlap_s: ph.map(|p| s(p.1)),
        shuffle_only_s: ph.map(|p| s(p.2)),
        last_batch,
        recorded_s: j.recorded.as_ref().map(|r| s(r.completion_ms)),
        error_pct: j.recorded.as_ref().and_then(|r| {
            let sim = j.finished_at? - j.submit;
            Some(100.0 * (sim as f64 - r.completion_ms as f64) / r.completion_ms as f64)
        }),
    }
}

/// Succeeded maps per node: mean and (population) standard deviation.
fn map_load(w: RunView<'_>) -> MeanSd {
    let per_node = w.maps_succeeded_on();
    let n = per_node.len().max(1) as f64;
    let mean = per_node.iter().map(|&c| c as u64).sum::<u64>() as f64 / n;
    let var = per_node
        .iter()
        .map(|&c| (c as f64 - mean).powi(2))
        .sum::<f64>()
        / n;
    MeanSd {
        mean,
        sd: var.sqrt(),
    }
}

fn opt(x: Option<f64>) -> String {
    x.map_or_else(|| "-".to_string(), |v| format!("{v:.1}"))
}

/// The human summary printed by `run --headless`.
pub fn table(sum: &Summary) -> String {
    let mut o = String::new();
    // At most 80 columns: a long policy label (an external command) loses
    // its middle first, then the scenario's name.
    let fixed = "scenario   policy   seed ".len() + sum.seed.to_string().len();
    let room = 80usize.saturating_sub(fixed);
    let scenario = cut_mid(&sum.scenario, room.saturating_sub(12).max(12));
    let policy = cut_mid(
        &sum.policy,
        room.saturating_sub(scenario.chars().count()).max(8),
    );
    let _ = writeln!(o, "scenario {scenario}  policy {policy}  seed {}", sum.seed);
    if sum.partial {
        let _ = writeln!(
            o,
            "partial: stopped at {:.1}s simulated, before every job had ended",
            sum.stopped_at_s.unwrap_or(sum.end_s)
        );
    }
    for sw in &sum.policy_switches {
        let _ = writeln!(o, "  switched {} -> {} at {:.1}s", sw.from, sw.to, sw.at_s);
    }
    let _ = writeln!(
        o,
        "jobs {}/{} finished  tasks {}  attempts {}  heartbeats {}  simulated {:.1}s",
        sum.jobs_finished, sum.jobs_submitted, sum.tasks, sum.attempts, sum.heartbeats, sum.end_s
    );
    if sum.stalled {
        let why = match &sum.stalled_under {
            Some(label) => format!("the external policy {label} left their tasks unlaunched"),
            None => "the policy launched nothing, or pools' max shares or capacities hold them"
                .to_string(),
        };
        let _ = writeln!(
            o,
            "stalled: {} job(s) can never run: nothing runs and no event is due\n  ({why})",
            sum.jobs_submitted - sum.jobs_finished
        );
    }
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
        "map locality  node {:.1}%  rack {:.1}%  off-rack {:.1}%  off-dc {:.1}%",
        l.node * 100.0,
        l.rack * 100.0,
        l.off_rack * 100.0,
        l.off_dc * 100.0,
    );
    let _ = writeln!(
        o,
        "reduce-data locality {:.1}%   inter-DC {:.2} GB",
        sum.reduce_locality * 100.0,
        sum.inter_dc_gb
    );
    let _ = writeln!(
        o,
        "unbalanced degree {:.3}   unfairness degree {:.3}   speculative {}/{} won",
        sum.unbalanced_degree, sum.unfairness_degree, sum.speculative.won, sum.speculative.launched
    );
    const MAX_ROWS: usize = 40;
    if sum.jobs.iter().any(|j| j.recorded_s.is_some()) {
        // A replay: each job's simulated completion beside the recorded one.
        let _ = writeln!(
            o,
            "\n{:<24} {:>9} {:>11} {:>10} {:>8}",
            "job", "submit s", "turnaround", "recorded", "error"
        );
        for j in sum.jobs.iter().take(MAX_ROWS) {
            let _ = writeln!(
                o,
                "{:<24} {:>9.1} {:>11} {:>10} {:>8}",
                cut_mid(&j.name, 24),
                j.submit_s,
                opt(j.turnaround_s),
                opt(j.recorded_s),
                j.error_pct.map_or("-".into(), |e| format!("{e:+.1}%"))
            );
        }
        if sum.jobs.len() > MAX_ROWS {
            let _ = writeln!(
                o,
                "... {} more jobs (see --json)",
                sum.jobs.len() - MAX_ROWS
            );
        }
        return o;
    }
    if !sum.jobs.is_empty() {
        // YARN's schedulers have queues where MRv1's have pools.
        let yarn = sum.config.pointer("/cluster/slot_model") == Some(&"yarn".into());
        let _ = writeln!(
            o,
            "\n{:<20} {:<10} {:>5} {:>4} {:>8} {:>8} {:>8} {:>10}",
            "job",
            if yarn { "queue" } else { "pool" },
            "maps",
            "reds",
            "submit s",
            "map end",
            "finish s",
            "turnaround"
        );
        for j in sum.jobs.iter().take(MAX_ROWS) {
            let _ = writeln!(
                o,
                "{:<20} {:<10} {:>5} {:>4} {:>8.1} {:>8} {:>8} {:>10}",
                cut_mid(&j.name, 20),
                cut_mid(&j.pool, 10),
                j.maps,
                j.reduces,
                j.submit_s,
                opt(j.map_end_s),
                opt(j.finish_s),
                if j.killed {
                    "killed".to_string()
                } else {
                    opt(j.turnaround_s)
                }
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

/// `s` in at most `w` characters: a longer one loses its middle to `…`,
/// keeping its start and its end (where `sort-small-1` and `sort-small-2`,
/// or two commands that share a long prefix, differ).
pub(crate) fn cut_mid(s: &str, w: usize) -> String {
    let n = s.chars().count();
    if n <= w || w == 0 {
        return s.to_string();
    }
    let tail = (w - 1) / 2;
    let head = w - 1 - tail;
    let mut out: String = s.chars().take(head).collect();
    out.push('…');
    out.extend(s.chars().skip(n - tail));
    out
}

/// The end of a side-by-side session (`run --policies a,b`): one table,
/// a column per run and, for each later run, its difference against the
/// first. Two runs fit 80 columns.
pub fn side_table(sums: &[Summary]) -> String {
    let mut o = String::new();
    let Some(first) = sums.first() else {
        return o;
    };
    let _ = writeln!(
        o,
        "scenario {}  seed {}  {} runs side by side",
        first.scenario,
        first.seed,
        sums.len()
    );
    if sums.iter().any(|s| s.partial) {
        let _ = writeln!(
            o,
            "partial: stopped at {:.1}s simulated, before every job had ended",
            first.stopped_at_s.unwrap_or(first.end_s)
        );
    }
    for (k, s) in sums.iter().enumerate() {
        for sw in &s.policy_switches {
            let _ = writeln!(
                o,
                "  run {}: switched {} -> {} at {:.1}s",
                k + 1,
                sw.from,
                sw.to,
                sw.at_s
            );
        }
    }
    // Each metric: its name, its value in a run, and how a difference
    // is written (None: the metric is not compared).
    type Metric = (&'static str, fn(&Summary) -> Option<f64>, u8);
    let metrics: [Metric; 9] = [
        ("jobs finished", |s| Some(s.jobs_finished as f64), 0),
        ("makespan s", |s| s.makespan_s, 1),
        ("mean turnaround s", |s| s.mean_turnaround_s, 1),
        ("utilization %", |s| Some(s.utilization * 100.0), 1),
        ("node-local maps %", |s| Some(s.locality.node * 100.0), 1),
        ("rack-local maps %", |s| Some(s.locality.rack * 100.0), 1),
        ("reduce locality %", |s| Some(s.reduce_locality * 100.0), 1),
        ("unfairness degree", |s| Some(s.unfairness_degree), 3),
        ("attempts", |s| Some(s.attempts as f64), 0),
    ];
    let fmt = |x: Option<f64>, d: u8| match x {
        None => "-".to_string(),
        Some(v) => format!("{v:.*}", d as usize),
    };
    let delta = |a: Option<f64>, b: Option<f64>, d: u8| match (a, b) {
        (Some(a), Some(b)) => {
            let v = b - a;
            let s = format!("{:.*}", d as usize, v.abs());
            if s.chars().all(|c| c == '0' || c == '.') {
                s
            } else if v > 0.0 {
                format!("+{s}")
            } else {
                format!("-{s}")
            }
        }
        _ => "-".to_string(),
    };
    // Column width: the longest label or value, at least 9.
    let labels: Vec<String> = sums
        .iter()
        .enumerate()
        .map(|(k, s)| format!("{} {}", k + 1, s.policy))
        .collect();
    let w = labels
        .iter()
        .map(|l| l.chars().count())
        .max()
        .unwrap_or(0)
        .clamp(9, 22);
    let cut = |l: &str| -> String {
        if l.chars().count() <= w {
            l.to_string()
        } else {
            let mut t: String = l.chars().take(w - 1).collect();
            t.push('…');
            t
        }
    };
    let _ = write!(o, "{:<18}", "");
    for (k, l) in labels.iter().enumerate() {
        let _ = write!(o, " {:>w$}", cut(l));
        if k > 0 {
            let _ = write!(o, " {:>9}", format!("Δ{}", k + 1));
        }
    }
    let _ = writeln!(o);
    for (name, get, d) in metrics {
        let _ = write!(o, "{name:<18}");
        let base = get(first);
        for (k, s) in sums.iter().enumerate() {
            let _ = write!(o, " {:>w$}", fmt(get(s), d));
            if k > 0 {
                let _ = write!(o, " {:>9}", delta(base, get(s), d));
            }
        }
        let _ = writeln!(o);
    }
    o
}

#[cfg(test)]
mod tests {
    use super::phases;

    #[test]
    fn phases_partition_first_map_to_shuffle_end() {
        // Reduces start mid-map: 0..40 map only, 40..100 overlap, 100..130.
        assert_eq!(phases(0, 100, Some(40), Some(130)), (40, 60, 30));
        // Slowstart 1: the reduce starts after the last map (and waits 5).
        assert_eq!(phases(0, 100, Some(105), Some(190)), (100, 0, 90));
        // Slowstart 0: a reduce before the first map.
        assert_eq!(phases(10, 100, Some(0), Some(101)), (0, 90, 1));
        // Map-only job.
        assert_eq!(phases(10, 100, None, None), (90, 0, 0));
        for (m0, m1, r0, s1) in [(0, 100, 40, 130), (0, 100, 105, 190), (10, 100, 0, 101)] {
            let (a, b, c) = phases(m0, m1, Some(r0), Some(s1));
            assert_eq!(a + b + c, s1 - m0);
        }
    }
}

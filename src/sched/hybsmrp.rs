//! `hybsmrp`: HybSMRP (Gandomi, Reshadi, Movaghar, Khademzadeh, J. Big Data 2019), a single job queue ordered by a dynamic priority, with a per-node
//! localization ID that trades a little idleness for node-local maps.
//! Our reading is in docs/policies.md.
//!
//! **Dynamic priority** (Eq. 1), recomputed at every heartbeat for every
//! job in the queue:
//!
//! Priority = (td / avgWaitTime)^α · (r / avgRunTime)^β · (n / avgNumTask)^γ
//!
//! td is the time the job has waited since it was submitted; r the mean
//! run time of its finished maps (the cluster's mean over every finished
//! map until the job has one of its own, and no factor at all while no map
//! anywhere has finished); n its remaining (unfinished) tasks, maps and
//! reduces. The averages are over the jobs in the queue. α, β, γ ∈
//! {−1, 0, 1}: α = 1, β = γ = 0 serves jobs first come first served (the
//! default), α = 0, β = −1, γ = 0 shortest job first. The highest priority
//! is served first; ties go to the earlier submission, then the lower id.
//! A ratio whose average is 0 (every job just submitted) counts as 1, and
//! a 0 raised to −1 is +∞ (that job first).
//!
//! **Localization ID.** The paper's pseudo-code is admittedly buggy; its
//! text settles the rule. Each node has a miss counter, null at the start.
//! A heartbeat with free map slots (and pending maps somewhere) fills them
//! with node-local maps, walking the jobs by priority. If it launched none,
//! the counter goes null → 1, then + 1; once it reaches 2 the node takes
//! one non-local map (its best locality) from the highest-priority job with
//! pending maps and the counter is reset. A local launch resets it too, and
//! a new job resets every node's counter (its blocks may be local anywhere).
//!
//! **Reduces** are not the paper's subject. As in Hadoop 1.x's
//! JobQueueTaskScheduler, which HybSMRP replaces, a heartbeat launches at
//! most one reduce: of the highest-priority job whose reduces are
//! schedulable (slowstart, default 0.05; the paper's runs used 1).

use super::registry::{Entry, DEFAULT_SLOWSTART};
use super::settings::{ConfigError, Settings};
use crate::model::Models;
use crate::model::{JobId, Kind, Ms, NodeId};
use crate::sim::policy::{num, opt, Event, Inspection, Policy, Show, Values};
use crate::sim::{Heartbeat, Locality, RunView};

/// `[scheduler.hybsmrp]`: the exponents of HybSMRP's dynamic priority
/// (Eq. 1), each -1, 0 or 1. The default α = 1, β = γ = 0 is the paper's
/// FCFS setting; α = 0, β = -1, γ = 0 its shortest-job-first.
#[derive(Clone, Debug, Default, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    pub slowstart: Option<f64>,
    /// Exponent of td / avgWaitTime (waiting time).
    pub alpha: Option<i64>,
    /// Exponent of r / avgRunTime (mean map run time).
    pub beta: Option<i64>,
    /// Exponent of n / avgNumTask (remaining tasks).
    pub gamma: Option<i64>,
}

pub const HYBSMRP: Entry = Entry {
    name: "hybsmrp",
    summary: "HybSMRP: one queue by dynamic priority (waiting time, map run time, remaining tasks), node-local maps first, a non-local map after two local misses",
    source: "Gandomi, Reshadi, Movaghar, Khademzadeh, HybSMRP: a hybrid scheduling algorithm in Hadoop MapReduce framework (Journal of Big Data, 2019)",
    runs_on: Models::SLOTS,
    meant_for: Models::SLOTS,
    build: |s, _| Ok(Box::new(Hybsmrp::build(s)?)),
    check: None,
};

pub const RULE_LOCAL: &str = "hybsmrp/local";
pub const RULE_NON_LOCAL: &str = "hybsmrp/non-local";
pub const RULE_REDUCE: &str = "hybsmrp/reduce";

/// Misses after which a node takes a non-local map.
pub const MISSES_BEFORE_NON_LOCAL: u32 = 2;

#[derive(Clone)]
pub struct Hybsmrp {
    slowstart: f64,
    alpha: i32,
    beta: i32,
    gamma: i32,
    /// The localization ID of every node: None is the paper's null.
    ids: Vec<Option<u32>>,
    /// Map attempts that have succeeded over every job, and their summed
    /// durations (ms): the cluster's mean map time, r for a job none of
    /// whose maps has finished. A map whose output a failure later lost
    /// still counts: it is an observation of how long maps run.
    maps_finished: u64,
    map_time_finished: Ms,
}

/// One job's priority and the factors it is made of.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct JobPriority {
    pub job: JobId,
    /// td, seconds.
    pub td_s: f64,
    /// r, seconds (None while no map anywhere has finished).
    pub r_s: Option<f64>,
    /// n, remaining tasks.
    pub n: u32,
    pub wait_factor: f64,
    pub run_factor: f64,
    pub size_factor: f64,
    pub priority: f64,
}

/// The queue's averages.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct QueueAverages {
    pub avg_wait_s: f64,
    pub avg_run_s: Option<f64>,
    pub avg_tasks: f64,
}

/// `(x / avg)^e` for e ∈ {−1, 0, 1}, with the guards above.
pub fn factor(x: f64, avg: f64, e: i32) -> f64 {
    if e == 0 || avg <= 0.0 {
        return 1.0;
    }
    let ratio = x / avg;
    if e > 0 {
        ratio
    } else if ratio == 0.0 {
        f64::INFINITY
    } else {
        1.0 / ratio
    }
}

impl Hybsmrp {
    fn build(s: &Settings) -> Result<Hybsmrp, ConfigError> {
        let own: Config = s.own()?;
        for (k, v) in [
            ("alpha", own.alpha),
            ("beta", own.beta),
            ("gamma", own.gamma),
        ] {
            if let Some(x) = v.filter(|x| !(-1..=1).contains(x)) {
                return Err(ConfigError::new(
                    format!("scheduler.hybsmrp.{k}"),
                    format!("{k} must be -1, 0 or 1, got {x}"),
                ));
            }
        }
        let exp = |v: Option<i64>, d: i32| v.map_or(d, |x| x as i32);
        Ok(Hybsmrp {
            slowstart: s.slowstart_or(own.slowstart, DEFAULT_SLOWSTART)?,
            alpha: exp(own.alpha, 1),
            beta: exp(own.beta, 0),
            gamma: exp(own.gamma, 0),
            ids: Vec::new(),
            maps_finished: 0,
            map_time_finished: 0,
        })
    }

    /// Every queued job's priority, highest first, and the averages.
    pub fn priorities(&self, w: RunView<'_>) -> (Vec<JobPriority>, QueueAverages) {
        let cluster_r = (self.maps_finished > 0)
            .then(|| self.map_time_finished as f64 / self.maps_finished as f64 / 1000.0);
        let mut rows: Vec<JobPriority> = w
            .active()
            .iter()
            .map(|&j| {
                let job = w.job(j);
                JobPriority {
                    job: j,
                    td_s: w.now().saturating_sub(job.submit) as f64 / 1000.0,
                    r_s: job.mean_map_ms().map(|ms| ms / 1000.0).or(cluster_r),
                    n: job.unfinished_maps() + job.unfinished_reduces(),
                    wait_factor: 1.0,
                    run_factor: 1.0,
                    size_factor: 1.0,
                    priority: 1.0,
                }
            })
            .collect();
        let k = rows.len().max(1) as f64;
        let avg = QueueAverages {
            avg_wait_s: rows.iter().map(|r| r.td_s).sum::<f64>() / k,
            avg_run_s: cluster_r.map(|_| rows.iter().filter_map(|r| r.r_s).sum::<f64>() / k),
            avg_tasks: rows.iter().map(|r| r.n as f64).sum::<f64>() / k,
        };
        for r in &mut rows {
            r.wait_factor = factor(r.td_s, avg.avg_wait_s, self.alpha);
            r.run_factor = match (r.r_s, avg.avg_run_s) {
                (Some(x), Some(a)) => factor(x, a, self.beta),
                _ => 1.0,
            };
            r.size_factor = factor(r.n as f64, avg.avg_tasks, self.gamma);
            let p = r.wait_factor * r.run_factor * r.size_factor;
            r.priority = if p.is_nan() { 0.0 } else { p };
        }
        rows.sort_by(|a, b| {
            b.priority
                .total_cmp(&a.priority)
                .then_with(|| w.job(a.job).submit.cmp(&w.job(b.job).submit))
                .then(a.job.cmp(&b.job))
        });
        (rows, avg)
    }

    fn id_mut(&mut self, node: NodeId) -> &mut Option<u32> {
        let i = node as usize;
        if self.ids.len() <= i {
            self.ids.resize(i + 1, None);
        }
        &mut self.ids[i]
    }

    /// The localization ID of `node` (None = null).
    pub fn localization_id(&self, node: NodeId) -> Option<u32> {
        self.ids.get(node as usize).copied().flatten()
    }
}

impl Policy for Hybsmrp {
    fn slowstart(&self) -> f64 {
        self.slowstart
    }

    /// Switched in: every map attempt that has succeeded so far counts
    /// towards the cluster's mean (one whose output a failure lost since
    /// reads as killed, and is not counted).
    fn adopt(&mut self, w: RunView<'_>) {
        self.ids = vec![None; w.cluster().nodes.len()];
        self.maps_finished += w.maps_succeeded_on().iter().map(|&n| n as u64).sum::<u64>();
        self.map_time_finished += w.map_time_succeeded();
    }

    fn heartbeat(&mut self, hb: &mut Heartbeat<'_>) {
        let (order, _) = self.priorities(hb.view());
        let node = hb.node;

        // Maps: node-local ones by priority, into every free map slot.
        let any_pending = order.iter().any(|p| hb.view().job(p.job).maps_pending > 0);
        if hb.free_maps() > 0 && any_pending {
            let mut local = 0;
            while hb.free_maps() > 0 {
                let w = hb.view();
                let found = order.iter().find_map(|p| {
                    w.job(p.job)
                        .find_map(node, Locality::Node, w.cluster())
                        .map(|(t, _)| (p.job, t))
                });
                let Some((j, t)) = found else { break };
                hb.launch_map(j, t, RULE_LOCAL);
                local += 1;
            }
            let id = self.id_mut(node);
            if local > 0 {
                *id = None;
            } else {
                let misses = id.map_or(1, |c| c + 1);
                *id = Some(misses);
                if misses >= MISSES_BEFORE_NON_LOCAL {
                    let w = hb.view();
                    let found = order.iter().find_map(|p| {
                        w.job(p.job)
                            .find_map(node, Locality::OffDc, w.cluster())
                            .map(|(t, _)| (p.job, t))
                    });
                    if let Some((j, t)) = found {
                        hb.launch_map(j, t, RULE_NON_LOCAL);
                    }
                    *self.id_mut(node) = None;
                }
            }
        }

        // Reduces: at most one per heartbeat, by priority.
        if hb.free_reduces() > 0 {
            let w = hb.view();
            let found = order.iter().find_map(|p| {
                let job = w.job(p.job);
                if job.reduces_schedulable(self.slowstart) && w.reduce_allowed(p.job) {
                    job.find_reduce().map(|r| (p.job, r))
                } else {
                    None
                }
            });
            if let Some((j, r)) = found {
                hb.launch_reduce(j, r, RULE_REDUCE);
            }
        }
    }

    fn hear(&mut self, w: RunView<'_>, e: Event) {
        match e {
            Event::JobArrived(_job) => {
                self.ids.iter_mut().for_each(|id| *id = None);
            }
            Event::TaskFinished(a) => {
                let at = &w.attempts()[a as usize];
                if at.kind == Kind::Map {
                    self.maps_finished += 1;
                    self.map_time_finished += at.end().unwrap_or(w.now()) - at.start;
                }
            }
            _ => {}
        }
    }
}

impl Show for Hybsmrp {
    fn inspect(&self, w: RunView<'_>, node: NodeId) -> Inspection {
        let mut ins = Inspection::default();
        let (order, avg) = self.priorities(w);
        ins.cluster.insert("alpha", self.alpha);
        ins.cluster.insert("beta", self.beta);
        ins.cluster.insert("gamma", self.gamma);
        ins.cluster.insert("avg_wait_s", num(avg.avg_wait_s));
        ins.cluster.insert("avg_run_s", opt(avg.avg_run_s));
        ins.cluster.insert("avg_tasks", num(avg.avg_tasks));
        ins.cluster
            .insert("localization_id", self.localization_id(node));
        for (pos, p) in order.iter().enumerate() {
            let job = w.job(p.job);
            let mut v = Values::new();
            v.insert("order", pos as u64);
            v.insert("priority", num(p.priority));
            v.insert("wait_factor", num(p.wait_factor));
            v.insert("run_factor", num(p.run_factor));
            v.insert("size_factor", num(p.size_factor));
            v.insert("td_s", num(p.td_s));
            v.insert("r_s", opt(p.r_s));
            v.insert("n", p.n);
            v.insert("pending_maps", job.maps_pending);
            ins.jobs.insert(job.name.to_string(), v);
        }
        ins
    }
}

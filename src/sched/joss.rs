//! `joss-t` and `joss-j`: JoSS (Lee, Lin, Yahyapour, "Hybrid
//! job-driven scheduling for virtual MapReduce clusters"), for clusters
//! spread over k datacenters. Our reading is in docs/policies.md.
//!
//! **Task scheduler** (the paper's Fig. 4), once per job on arrival. A job
//! whose profile has not completed before (the paper hashes the job's code
//! and input type; a profile is both here) goes to the FIFO queues
//! MQ_FIFO / RQ_FIFO. When such a job completes its FP is recorded, and
//! later jobs of the profile are classified with the recorded mean FP:
//! reduce-heavy (RH) if FP > td = k/(k−1) (Eq. 8; with one datacenter
//! nothing is RH), else map-heavy (MH); small if its maps ≤ the mean number
//! of nodes per datacenter, else large.
//!
//! - Policy A (small RH): every task to the datacenter with the fewest
//!   unprocessed tasks in its queues (first on ties), in its permanent
//!   queues MQ_{w,0} / RQ_{w,0}.
//! - Policy B (small MH): repeatedly take the datacenter holding the most
//!   still-unscheduled unique blocks of the job (first on ties) and append
//!   those blocks' maps to its MQ_{d,0}; the reduces go to RQ_{e,0} of the
//!   datacenter that held the most unique blocks at the start.
//! - Policy C (large): as B, but each datacenter gets a new queue for this
//!   job (map queues per datacenter used, one reduce queue).
//!
//! **Task assigners** (Figs. 5 and 6), on a heartbeat of a node of
//! datacenter c, for each free slot: a map from MQ_FIFO first (Hadoop's
//! FIFO: the earliest job with a pending map, its best-placed map), else
//! the head of c's map queues in round-robin order. TTA (`joss-t`) takes
//! the queue's head task; JTA (`joss-j`) applies Hadoop's FIFO to the
//! queue: its earliest job, and of that job a task whose block is on this
//! node, else on its rack, else its first. Reduces likewise
//! from RQ_FIFO, then c's reduce queues, skipping jobs whose reduces are
//! not yet schedulable (slowstart). **Settled here:** the paper resets the
//! round-robin index at every call, which with one slot per node would
//! never leave queue 0; we keep one index per datacenter and kind, so the
//! queues really take turns (the paper's stated intent, "such that job
//! starvation can be avoided").
//!
//! Queue entries are (job, task) and stay until their job finishes; an
//! entry is taken when its task is pending, so a task a failure puts back
//! is found again in its place. Each queue remembers how many of its first
//! entries have been launched, so a heartbeat does not walk past them
//! again, and forgets it whenever a task anywhere is put back
//! (`RunView::requeues`).

use super::registry::{Entry, DEFAULT_SLOWSTART};
use super::settings::{ConfigError, Settings};
use crate::model::Models;
use crate::model::{JobId, NodeId};
use crate::sim::policy::{num, Event, Inspection, Policy, Show, Value, Values};
use crate::sim::{Heartbeat, Locality, RunView, TaskState};
use std::collections::BTreeMap;

/// `[scheduler.joss-t]`, `[scheduler.joss-j]`.
#[derive(Clone, Debug, Default, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    pub slowstart: Option<f64>,
}

pub const JOSS_T: Entry = Entry {
    name: "joss-t",
    summary: "JoSS with the task-driven assigner: jobs placed by datacenter (policies A/B/C by reduce-heavy and size), queue heads taken round robin",
    source: "Lee, Lin, Yahyapour, Hybrid Job-driven Scheduling for Virtual MapReduce Clusters (JoSS), Figs. 4 and 5",
    runs_on: Models::SLOTS,
    meant_for: Models::SLOTS,
    build: |s, _| Ok(Box::new(Joss::build(s)?)),
    check: None,
};

pub const JOSS_J: Entry = Entry {
    name: "joss-j",
    summary: "JoSS with the job-driven assigner: as joss-t, but each queue is served in Hadoop FIFO order: its earliest job, that job's local task first",
    source: "Lee, Lin, Yahyapour, Hybrid Job-driven Scheduling for Virtual MapReduce Clusters (JoSS), Figs. 4 and 6",
    runs_on: Models::SLOTS,
    meant_for: Models::SLOTS,
    build: |s, _| Ok(Box::new(Joss::build(s)?)),
    check: None,
};

pub const RULE_FIFO: &str = "joss/fifo";
pub const RULE_QUEUE: &str = "joss/queue";
pub const RULE_QUEUE_RACK: &str = "joss/queue-rack";
pub const RULE_QUEUE_LOCAL: &str = "joss/queue-local";
pub const RULE_FIFO_REDUCE: &str = "joss/fifo-reduce";
pub const RULE_QUEUE_REDUCE: &str = "joss/queue-reduce";

/// How the task scheduler placed a job.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Placement {
    /// Profile not known yet: MQ_FIFO / RQ_FIFO.
    Fifo,
    /// Small reduce-heavy: all tasks to one datacenter.
    A,
    /// Small map-heavy: maps where their blocks are, permanent queues.
    B,
    /// Large: as B, in new queues.
    C,
}

impl Placement {
    pub fn as_str(self) -> &'static str {
        match self {
            Placement::Fifo => "FIFO",
            Placement::A => "A",
            Placement::B => "B",
            Placement::C => "C",
        }
    }
}

/// One job's classification and placement, for the inspector and tests.
#[derive(Clone, Debug, PartialEq)]
pub struct JobPlan {
    pub placement: Placement,
    /// The recorded mean FP it was classified with.
    pub fp: Option<f64>,
    pub reduce_heavy: bool,
    pub small: bool,
    /// Maps queued per datacenter.
    pub maps_per_dc: Vec<u32>,
    /// The datacenter of its reduces (None under FIFO).
    pub reduce_dc: Option<u32>,
}

/// Whether a queue entry's task (a map or a reduce) is pending.
fn is_pending(w: RunView<'_>, (j, t): (JobId, u32), map: bool) -> bool {
    let job = w.job(j);
    let state = if map {
        job.maps[t as usize].state
    } else {
        job.reduces[t as usize].state
    };
    state == TaskState::Pending
}

/// A task queue of one datacenter.
#[derive(Clone, Debug, Default)]
struct Queue {
    entries: Vec<(JobId, u32)>,
    /// `entries[..head]` were not pending when last looked at, and no task
    /// has been put back since (`RunView::requeues` was `seen`).
    head: usize,
    seen: u64,
}

impl Queue {
    fn new(entries: Vec<(JobId, u32)>) -> Queue {
        Queue {
            entries,
            head: 0,
            seen: 0,
        }
    }

    /// The entries from the first that may still be pending: launched
    /// ones at the front are skipped once, not at every heartbeat.
    fn live(&mut self, w: RunView<'_>, maps: bool) -> &[(JobId, u32)] {
        if self.seen != w.requeues() {
            self.seen = w.requeues();
            self.head = 0;
        }
        while self.head < self.entries.len() && !is_pending(w, self.entries[self.head], maps) {
            self.head += 1;
        }
        &self.entries[self.head..]
    }
}

#[derive(Clone, Debug, Default)]
struct DcQueues {
    /// MQ_{c,0} first, then one queue per large job.
    maps: Vec<Queue>,
    reduces: Vec<Queue>,
    next_map: usize,
    next_reduce: usize,
}

#[derive(Clone)]
pub struct Joss {
    slowstart: f64,
    /// JTA (`joss-j`) rather than TTA (`joss-t`).
    job_driven: bool,
    /// H: profile → (Σ FP, completed jobs).
    known: BTreeMap<&'static str, (f64, u32)>,
    /// MQ_FIFO / RQ_FIFO: jobs in arrival order.
    fifo: Vec<JobId>,
    dcs: Vec<DcQueues>,
    plans: Vec<Option<JobPlan>>,
}

impl Joss {
    fn build(s: &Settings) -> Result<Joss, ConfigError> {
        let own: Config = s.own()?;
        Ok(Joss {
            slowstart: s.slowstart_or(own.slowstart, DEFAULT_SLOWSTART)?,
            job_driven: s.name == "joss-j",
            known: BTreeMap::new(),
            fifo: Vec::new(),
            dcs: Vec::new(),
            plans: Vec::new(),
        })
    }

    /// td = k/(k − 1) (Eq. 8); infinite with one datacenter.
    pub fn td(w: RunView<'_>) -> f64 {
        let k = w.cluster().dcs.len() as f64;
        if k > 1.0 {
            k / (k - 1.0)
        } else {
            f64::INFINITY
        }
    }

    /// N_avg_VPS: live nodes per datacenter on average.
    pub fn n_avg_vps(w: RunView<'_>) -> f64 {
        w.cluster().nodes.len() as f64 / w.cluster().dcs.len().max(1) as f64
    }

    /// The plan made for job `j`, once it has arrived.
    pub fn plan(&self, j: JobId) -> Option<&JobPlan> {
        self.plans.get(j as usize).and_then(|p| p.as_ref())
    }

    fn ensure_dcs(&mut self, w: RunView<'_>) {
        if self.dcs.len() != w.cluster().dcs.len() {
            self.dcs = (0..w.cluster().dcs.len())
                .map(|_| DcQueues {
                    maps: vec![Queue::default()],
                    reduces: vec![Queue::default()],
                    ..DcQueues::default()
                })
                .collect();
        }
    }

    fn known_fp(&self, profile: &str) -> Option<f64> {
        self.known.get(profile).map(|&(s, n)| s / n as f64)
    }

    /// Tasks of datacenter `c`'s queues not yet done.
    fn unprocessed(&self, w: RunView<'_>, c: usize) -> usize {
        let d = &self.dcs[c];
        let maps = d.maps.iter().flat_map(|q| &q.entries);
        let reduces = d.reduces.iter().flat_map(|q| &q.entries);
        maps.filter(|&&(j, t)| w.job(j).maps[t as usize].state != TaskState::Done)
            .count()
            + reduces
                .filter(|&&(j, r)| w.job(j).reduces[r as usize].state != TaskState::Done)
                .count()
    }

    /// The task scheduler (Fig. 4) for a job that has just arrived.
    fn schedule(&mut self, w: RunView<'_>, j: JobId) {
        self.ensure_dcs(w);
        if self.plans.len() <= j as usize {
            self.plans.resize(j as usize + 1, None);
        }
        let job = w.job(j);
        let k = w.cluster().dcs.len();
        let Some(fp) = self.known_fp(job.profile.name) else {
            self.fifo.push(j);
            self.plans[j as usize] = Some(JobPlan {
                placement: Placement::Fifo,
                fp: None,
                reduce_heavy: false,
                small: false,
                maps_per_dc: vec![0; k],
                reduce_dc: None,
            });
            return;
        };
        let reduce_heavy = fp > Self::td(w);
        let small = job.n_maps() as f64 <= Self::n_avg_vps(w);
        let mut maps_per_dc = vec![0u32; k];
        if small && reduce_heavy {
            let c = (0..k)
                .min_by_key(|&c| (self.unprocessed(w, c), c))
                .unwrap_or(0);
            let q = &mut self.dcs[c];
            q.maps[0].entries.extend((0..job.n_maps()).map(|t| (j, t)));
            q.reduces[0]
                .entries
                .extend((0..job.n_reduces()).map(|r| (j, r)));
            maps_per_dc[c] = job.n_maps();
            self.plans[j as usize] = Some(JobPlan {
                placement: Placement::A,
                fp: Some(fp),
                reduce_heavy,
                small,
                maps_per_dc,
                reduce_dc: Some(c as u32),
            });
            return;
        }
        // L_c: the job's blocks with a replica in datacenter c.
        let mut sets: Vec<Vec<u32>> = vec![Vec::new(); k];
        for t in 0..job.n_maps() {
            let replicas = job.replicas(t);
            let mut dcs: Vec<usize> = replicas.iter().map(|&n| w.node(n).dc as usize).collect();
            dcs.sort_unstable();
            dcs.dedup();
            for c in dcs {
                sets[c].push(t);
            }
        }
        let first_largest = |sets: &[Vec<u32>]| {
            (0..k)
                .max_by_key(|&c| (sets[c].len(), std::cmp::Reverse(c)))
                .unwrap_or(0)
        };
        let e = first_largest(&sets);
        let mut assigned = vec![false; job.n_maps() as usize];
        let mut left = job.n_maps();
        while left > 0 {
            let d = first_largest(&sets);
            let chosen = std::mem::take(&mut sets[d]);
            if chosen.is_empty() {
                // Blocks with no replica anywhere (not produced by the
                // loader): the rest go to the first datacenter.
                let rest: Vec<u32> = (0..job.n_maps())
                    .filter(|&t| !assigned[t as usize])
                    .collect();
                self.queue_maps(j, 0, &rest, small);
                maps_per_dc[0] += rest.len() as u32;
                break;
            }
            for &t in &chosen {
                assigned[t as usize] = true;
            }
            for s in sets.iter_mut() {
                s.retain(|t| !assigned[*t as usize]);
            }
            self.queue_maps(j, d, &chosen, small);
            maps_per_dc[d] += chosen.len() as u32;
            left -= chosen.len() as u32;
        }
        let reduces: Vec<(JobId, u32)> = (0..job.n_reduces()).map(|r| (j, r)).collect();
        if small {
            self.dcs[e].reduces[0].entries.extend(reduces);
        } else if !reduces.is_empty() {
            self.dcs[e].reduces.push(Queue::new(reduces));
        }
        self.plans[j as usize] = Some(JobPlan {
            placement: if small { Placement::B } else { Placement::C },
            fp: Some(fp),
            reduce_heavy,
            small,
            maps_per_dc,
            reduce_dc: Some(e as u32),
        });
    }

    fn queue_maps(&mut self, j: JobId, d: usize, tasks: &[u32], small: bool) {
        let entries = tasks.iter().map(|&t| (j, t));
        if small {
            self.dcs[d].maps[0].entries.extend(entries);
        } else {
            self.dcs[d].maps.push(Queue::new(entries.collect()));
        }
    }

    /// A map for `node` from its datacenter's queues, round robin.
    fn queued_map(&mut self, w: RunView<'_>, node: NodeId) -> Option<(JobId, u32, &'static str)> {
        let c = w.node(node).dc as usize;
        let d = self.dcs.get_mut(c)?;
        let n = d.maps.len();
        for i in 0..n {
            let qi = (d.next_map + i) % n;
            let live = d.maps[qi].live(w, true);
            let pick = if self.job_driven {
                jta_pick(w, node, live)
            } else {
                // `live` starts at a pending entry, if any.
                live.first().map(|&(j, t)| (j, t, RULE_QUEUE))
            };
            if pick.is_some() {
                d.next_map = (qi + 1) % n;
                return pick;
            }
        }
        None
    }

    /// A reduce for `node` from its datacenter's queues, round robin.
    fn queued_reduce(&mut self, w: RunView<'_>, node: NodeId) -> Option<(JobId, u32)> {
        let c = w.node(node).dc as usize;
        let slowstart = self.slowstart;
        let d = self.dcs.get_mut(c)?;
        let n = d.reduces.len();
        for i in 0..n {
            let qi = (d.next_reduce + i) % n;
            let pick = d.reduces[qi]
                .live(w, false)
                .iter()
                .copied()
                .find(|&(j, r)| {
                    let job = w.job(j);
                    job.reduces[r as usize].state == TaskState::Pending
                        && job.reduces_schedulable(slowstart)
                        && w.reduce_allowed(j)
                });
            if pick.is_some() {
                d.next_reduce = (qi + 1) % n;
                return pick;
            }
        }
        None
    }

    /// Drops a finished job's entries and the large-job queues it emptied.
    fn forget(&mut self, j: JobId) {
        self.fifo.retain(|&x| x != j);
        for d in &mut self.dcs {
            for qs in [&mut d.maps, &mut d.reduces] {
                for q in qs.iter_mut() {
                    q.entries.retain(|&(x, _)| x != j);
                    q.head = 0;
                }
                // Queue 0 is permanent; an emptied large-job queue goes.
                let mut i = 0;
                qs.retain(|q| {
                    i += 1;
                    i == 1 || !q.entries.is_empty()
                });
            }
            d.next_map %= d.maps.len().max(1);
            d.next_reduce %= d.reduces.len().max(1);
        }
    }
}

/// JTA's choice in one queue: Hadoop's FIFO over the queue's jobs (the
/// earliest by priority, then submit time, with a pending task here), and
/// within that job a task whose block is on the node, else on its rack,
/// else its first (`obtainNewNodeOrRackLocalMapTask`, then non-local). A
/// later job's local task never overtakes an earlier job: "the strict FIFO
/// order", which the paper blames for JoSS-J's longer turnaround.
fn jta_pick(
    w: RunView<'_>,
    node: NodeId,
    entries: &[(JobId, u32)],
) -> Option<(JobId, u32, &'static str)> {
    let pending = |&&(j, t): &&(JobId, u32)| w.job(j).maps[t as usize].state == TaskState::Pending;
    let job = entries
        .iter()
        .filter(pending)
        .map(|&(j, _)| j)
        .min_by_key(|&j| (w.job(j).priority, w.job(j).submit, j))?;
    let rack = w.node(node).rack;
    let mine = || entries.iter().filter(pending).filter(|&&(j, _)| j == job);
    let held =
        |t: u32, here: &dyn Fn(NodeId) -> bool| w.job(job).replicas(t).iter().any(|&n| here(n));
    if let Some(&(j, t)) = mine().find(|&&(_, t)| held(t, &|n| n == node)) {
        return Some((j, t, RULE_QUEUE_LOCAL));
    }
    if let Some(&(j, t)) = mine().find(|&&(_, t)| held(t, &|n| w.node(n).rack == rack)) {
        return Some((j, t, RULE_QUEUE_RACK));
    }
    mine().next().map(|&(j, t)| (j, t, RULE_QUEUE))
}

impl Policy for Joss {
    fn slowstart(&self) -> f64 {
        self.slowstart
    }

    fn adopt(&mut self, w: RunView<'_>) {
        self.known.clear();
        self.fifo.clear();
        self.dcs.clear();
        self.plans.clear();
        self.ensure_dcs(w);
        for job in w.jobs().iter().filter(|j| j.is_done()) {
            let e = self.known.entry(job.profile.name).or_insert((0.0, 0));
            e.0 += job.fp;
            e.1 += 1;
        }
        for &j in w.active() {
            self.schedule(w, j);
        }
    }

    fn heartbeat(&mut self, hb: &mut Heartbeat<'_>) {
        let node = hb.node;
        self.ensure_dcs(hb.view());
        while hb.free_maps() > 0 {
            let w = hb.view();
            // MQ_FIFO: Hadoop's FIFO over the jobs not yet known.
            let fifo = self.fifo.iter().find_map(|&j| {
                w.job(j)
                    .find_map(node, Locality::OffDc, w.cluster())
                    .map(|(t, _)| (j, t, RULE_FIFO))
            });
            let Some((j, t, rule)) = fifo.or_else(|| self.queued_map(w, node)) else {
                break;
            };
            hb.launch_map(j, t, rule);
        }
        while hb.free_reduces() > 0 {
            let w = hb.view();
            let fifo = self.fifo.iter().find_map(|&j| {
                let job = w.job(j);
                if job.reduces_schedulable(self.slowstart) && w.reduce_allowed(j) {
                    job.find_reduce().map(|r| (j, r, RULE_FIFO_REDUCE))
                } else {
                    None
                }
            });
            let queued = || {
                self.queued_reduce(w, node)
                    .map(|(j, r)| (j, r, RULE_QUEUE_REDUCE))
            };
            let Some((j, r, rule)) = fifo.or_else(queued) else {
                break;
            };
            hb.launch_reduce(j, r, rule);
        }
    }

    fn hear(&mut self, w: RunView<'_>, e: Event) {
        match e {
            Event::JobArrived(j) => {
                self.schedule(w, j);
            }
            Event::JobFinished(j) => {
                let job = w.job(j);
                let seen = self.known.entry(job.profile.name).or_insert((0.0, 0));
                seen.0 += job.fp;
                seen.1 += 1;
                self.forget(j);
            }
            _ => {}
        }
    }
}

impl Show for Joss {
    fn inspect(&self, w: RunView<'_>, node: NodeId) -> Inspection {
        let mut ins = Inspection::default();
        let dc_name = |c: u32| w.cluster().dcs[c as usize].name.clone();
        let td = Self::td(w);
        ins.cluster
            .insert("td", if td.is_finite() { num(td) } else { Value::Null });
        ins.cluster.insert("n_avg_vps", num(Self::n_avg_vps(w)));
        ins.cluster
            .insert("known_profiles", self.known.len() as u64);
        let c = w.node(node).dc;
        ins.cluster.insert("datacenter", dc_name(c));
        if let Some(d) = self.dcs.get(c as usize) {
            let pending = |q: &Queue, map: bool| {
                q.entries.iter().filter(|&&e| is_pending(w, e, map)).count() as u64
            };
            ins.cluster.insert(
                "map_queues",
                d.maps.iter().map(|q| pending(q, true)).collect::<Vec<_>>(),
            );
            ins.cluster.insert(
                "reduce_queues",
                d.reduces
                    .iter()
                    .map(|q| pending(q, false))
                    .collect::<Vec<_>>(),
            );
        }
        for &j in w.active() {
            let Some(p) = self.plan(j) else { continue };
            let job = w.job(j);
            let mut v = Values::new();
            v.insert("policy", p.placement.as_str());
            v.insert(
                "class",
                match p.placement {
                    Placement::Fifo => "unknown",
                    _ if !p.small => "large",
                    _ if p.reduce_heavy => "small-RH",
                    _ => "small-MH",
                },
            );
            v.insert("fp", crate::sim::policy::opt(p.fp));
            let mut per_dc = Values::new();
            for (c, &n) in p.maps_per_dc.iter().enumerate() {
                if n > 0 {
                    per_dc.insert(dc_name(c as u32), n);
                }
            }
            v.insert("map_dcs", per_dc);
            v.insert("reduce_dc", p.reduce_dc.map(dc_name));
            v.insert("pending_maps", job.maps_pending);
            ins.jobs.insert(job.name.to_string(), v);
        }
        ins
    }
}

//! `fair` and `fresh`: Hadoop 1.x FairScheduler, heartbeat by heartbeat
//! (`FairScheduler.assignTasks`, `SchedulingAlgorithms`, `PoolSchedulable`,
//! `JobSchedulable`, `CapBasedLoadManager`), with delay scheduling.
//!
//! On a unified cluster fairness is over a job's containers (maps and
//! reduces together): that is OMO's FRESH baseline, registered as `fresh`
//! with slowstart 1.0. There a container goes to the chosen job's map if it
//! has one it may run, else to its schedulable reduce. (YARN's MapReduce AM
//! ranks reduce requests above maps but bounds them with a ramp-up limit
//! and reduce preemption; without those, reduces first can deadlock a job,
//! so we keep MRv1's order within a job.)
//!
//! `typed_slots = true` makes the policy view a unified cluster's
//! containers as typed slots (`map_slots` + `reduce_slots` per node): the
//! paper's Fair baselines ran on Hadoop's default 2 map + 2 reduce
//! containers while FRESH and OMO shared the same 4 dynamically, and a
//! scenario can only have one slot model.
//!
//! OMO (`super::omo`) runs over this scheduler as its base: an instance
//! built with [`Fair::omo_base`] launches maps only (OMO launches every
//! reduce itself), counts a job's reduces in its demand only once OMO has
//! started its reduce stage, and lets OMO interleave its own rules with
//! the fair steps of one heartbeat ([`Fair::begin_round`], [`Fair::step`],
//! [`Fair::finish_round`]).

use super::config::SchedulerConfig;
use super::registry::{BuildCtx, DEFAULT_SLOWSTART};
use super::{num, Inspection, Policy, Values};
use crate::model::{JobId, Ms, NodeId, PoolMode, SlotModel};
use crate::sim::{Heartbeat, Locality, World};
use std::cmp::Ordering;

/// Hadoop's `MAX_AUTOCOMPUTED_LOCALITY_DELAY`.
pub(crate) const MAX_AUTO_DELAY: Ms = 15_000;
/// Hadoop's `COMPUTE_FAIR_SHARES_ITERATIONS`.
const FAIR_SHARE_ITERATIONS: usize = 25;

/// Something fair shares are computed over: a pool or a job.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sched {
    pub weight: f64,
    pub min_share: f64,
    pub demand: f64,
}

/// `SchedulingAlgorithms.computeFairShares`: find R such that
/// Σ min(demand, max(min_share, weight·R)) = min(Σ demand, slots), by
/// doubling an upper bound then 25 bisection steps, exactly as Hadoop.
pub fn compute_fair_shares(scheds: &[Sched], total_slots: f64) -> Vec<f64> {
    let share = |s: &Sched, r: f64| (s.weight * r).max(s.min_share).min(s.demand);
    let used = |r: f64| scheds.iter().map(|s| share(s, r)).sum::<f64>();
    let total_demand: f64 = scheds.iter().map(|s| s.demand).sum();
    let cap = total_demand.min(total_slots);
    let mut r_max = 1.0;
    while used(r_max) < cap {
        r_max *= 2.0;
    }
    let (mut left, mut right) = (0.0, r_max);
    for _ in 0..FAIR_SHARE_ITERATIONS {
        let mid = (left + right) / 2.0;
        if used(mid) < cap {
            left = mid;
        } else {
            right = mid;
        }
    }
    scheds.iter().map(|s| share(s, right)).collect()
}

/// What `FairShareComparator` compares.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Key {
    pub(crate) running: f64,
    pub(crate) min_share: f64,
    pub(crate) demand: f64,
    pub(crate) weight: f64,
}

/// `SchedulingAlgorithms.FairShareComparator`: needy schedulables (running
/// below min(min share, demand)) first, by running / max(that, 1); then the
/// rest by running / weight. Ties are broken by the caller.
pub(crate) fn fair_cmp(a: &Key, b: &Key) -> Ordering {
    let ms1 = a.min_share.min(a.demand);
    let ms2 = b.min_share.min(b.demand);
    let n1 = a.running < ms1;
    let n2 = b.running < ms2;
    match (n1, n2) {
        (true, false) => Ordering::Less,
        (false, true) => Ordering::Greater,
        (true, true) => (a.running / ms1.max(1.0)).total_cmp(&(b.running / ms2.max(1.0))),
        // A size-based weight is log2(1 + demand): 0 for a job with no
        // demand. Java's 0/0 is NaN there and breaks the sort's contract; a
        // floor keeps the order total (such a job has nothing to run).
        (false, false) => {
            let ratio = |k: &Key| k.running / k.weight.max(f64::MIN_POSITIVE);
            ratio(a).total_cmp(&ratio(b))
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TaskKind {
    Map,
    Reduce,
    /// A unified container: either kind.
    Any,
}

#[derive(Clone, Debug)]
struct JobInfo {
    /// Locality of the last launched map (`lastMapLocalityLevel`); NODE at first.
    level: Locality,
    /// `timeWaitedForLocalMap`.
    waited: Ms,
    skipped: bool,
}

impl Default for JobInfo {
    fn default() -> Self {
        JobInfo {
            level: Locality::Node,
            waited: 0,
            skipped: false,
        }
    }
}

pub struct Fair {
    label: String,
    name: &'static str,
    slowstart: f64,
    node_delay: Ms,
    rack_delay: Ms,
    assign_multiple: bool,
    size_based_weight: bool,
    info: Vec<JobInfo>,
    /// `lastHeartbeatTime` (None until the first heartbeat, like Hadoop's 0).
    last_heartbeat: Option<Ms>,
    /// Per pool: last time at min share / at half fair share (maps).
    last_at_min: Vec<Ms>,
    last_at_half: Vec<Ms>,
    /// `typed_slots`: treat a unified cluster's containers as typed slots.
    typed_slots: bool,
    /// OMO's base: maps only, reduce demand only for started reduce stages.
    omo_base: bool,
    /// Per job id: OMO has started its reduce stage (OMO's base only).
    reduce_started: Vec<bool>,
    /// `preemption = true`: the preemption state.
    preemption: Option<Preemption>,
}

/// Hadoop's `UPDATE_INTERVAL`: how often shares and starvation are refreshed.
pub const UPDATE_INTERVAL: Ms = 500;

/// Hadoop's `preemptionInterval` default.
pub const PREEMPTION_INTERVAL: Ms = 15_000;

/// Fair-scheduler preemption (`preemptTasksIfNecessary`): per task kind,
/// when each pool was last at its min share and at half its fair share.
#[derive(Clone, Debug, Default)]
struct Preemption {
    last_check: Option<Ms>,
    /// Last starvation update (Hadoop's update thread runs every 500 ms).
    last_update: Option<Ms>,
    /// Indexed by `kind_index`: maps (or containers) and reduces.
    at_min: [Vec<Ms>; 2],
    at_half: [Vec<Ms>; 2],
}

fn kind_index(k: TaskKind) -> usize {
    usize::from(k == TaskKind::Reduce)
}

/// One heartbeat's assignment loop on a fair base (the locals of
/// `assignTasks`), so that OMO can interleave its rules with fair steps.
pub(crate) struct Round {
    kind: TaskKind,
    pool_jobs: Vec<Vec<JobId>>,
    demand: Vec<u32>,
    runnable: u32,
    cap: u32,
    assigned: u32,
    launched: Vec<JobId>,
    visited: Vec<JobId>,
}

impl Fair {
    pub fn new(label: String, cfg: &SchedulerConfig, ctx: &BuildCtx, fresh: bool) -> Fair {
        let own = if fresh {
            cfg.fresh.clone()
        } else {
            cfg.fair.clone()
        }
        .unwrap_or_default();
        // FRESH fixes slowstart at 1 unless its own table says otherwise.
        let slowstart = if fresh {
            own.slowstart.unwrap_or(1.0)
        } else {
            own.slowstart.or(cfg.slowstart).unwrap_or(DEFAULT_SLOWSTART)
        };
        let hb = ctx.heartbeat.unwrap_or(3_000);
        let auto = MAX_AUTO_DELAY.min(hb * 3 / 2);
        Fair {
            label,
            name: if fresh { "fresh" } else { "fair" },
            slowstart,
            node_delay: own.node_locality_delay.unwrap_or(auto),
            rack_delay: own.rack_locality_delay.unwrap_or(auto),
            assign_multiple: own.assign_multiple.unwrap_or(true),
            size_based_weight: own.size_based_weight.unwrap_or(false),
            info: Vec::new(),
            last_heartbeat: None,
            last_at_min: Vec::new(),
            last_at_half: Vec::new(),
            typed_slots: own.typed_slots.unwrap_or(false),
            omo_base: false,
            reduce_started: Vec::new(),
            preemption: own.preemption.unwrap_or(false).then(Preemption::default),
        }
    }

    /// The fair base OMO runs over: fairness over a job's containers (or
    /// map slots on a typed cluster), every free container offered, maps
    /// only, rule `omo/fair`.
    pub(crate) fn omo_base(
        label: String,
        node_delay: Option<Ms>,
        rack_delay: Option<Ms>,
        size_based_weight: bool,
        ctx: &BuildCtx,
    ) -> Fair {
        let hb = ctx.heartbeat.unwrap_or(3_000);
        let auto = MAX_AUTO_DELAY.min(hb * 3 / 2);
        Fair {
            label,
            name: "omo",
            slowstart: 0.0,
            node_delay: node_delay.unwrap_or(auto),
            rack_delay: rack_delay.unwrap_or(auto),
            assign_multiple: true,
            size_based_weight,
            info: Vec::new(),
            last_heartbeat: None,
            last_at_min: Vec::new(),
            last_at_half: Vec::new(),
            typed_slots: false,
            omo_base: true,
            reduce_started: Vec::new(),
            preemption: None,
        }
    }

    /// OMO's base: job `j`'s reduce stage has started, so its reduces
    /// count in its demand from now on.
    pub(crate) fn set_reduce_started(&mut self, j: JobId, started: bool) {
        let i = j as usize;
        if self.reduce_started.len() <= i {
            self.reduce_started.resize(i + 1, false);
        }
        self.reduce_started[i] = started;
    }

    /// The slot model this policy schedules with.
    pub(crate) fn view(&self, w: &World) -> SlotModel {
        if self.typed_slots {
            SlotModel::Typed
        } else {
            w.model()
        }
    }

    fn info(&mut self, j: JobId) -> &mut JobInfo {
        let i = j as usize;
        if self.info.len() <= i {
            self.info.resize(i + 1, JobInfo::default());
        }
        &mut self.info[i]
    }

    fn info_ref(&self, j: JobId) -> JobInfo {
        self.info.get(j as usize).cloned().unwrap_or_default()
    }

    pub(crate) fn job_demand(&self, w: &World, j: JobId, k: TaskKind) -> u32 {
        match k {
            TaskKind::Map => w.map_demand(j),
            TaskKind::Reduce => self.reduce_demand(w, j),
            TaskKind::Any => w.map_demand(j) + self.reduce_demand(w, j),
        }
    }

    /// Slowstart-gated reduce demand, or for OMO's base the unfinished
    /// reduces of jobs whose reduce stage OMO has started.
    fn reduce_demand(&self, w: &World, j: JobId) -> u32 {
        if !self.omo_base {
            return w.reduce_demand(j);
        }
        let job = w.job(j);
        if job.runnable && self.reduce_started.get(j as usize) == Some(&true) {
            job.unfinished_reduces()
        } else {
            0
        }
    }

    pub(crate) fn job_running(w: &World, j: JobId, k: TaskKind) -> u32 {
        let job = w.job(j);
        match k {
            TaskKind::Map => job.maps_running,
            TaskKind::Reduce => job.reduces_running,
            TaskKind::Any => job.maps_running + job.reduces_running,
        }
    }

    /// `getJobWeight`: priority factor, × log2(1 + demand) with size-based weight.
    fn job_weight(&self, w: &World, j: JobId, k: TaskKind) -> f64 {
        let job = w.job(j);
        if !job.runnable {
            return 1.0;
        }
        let mut weight = 1.0;
        if self.size_based_weight {
            weight = (1.0 + self.job_demand(w, j, k) as f64).ln() / 2f64.ln();
        }
        weight * job.priority.fair_factor()
    }

    pub(crate) fn pool_running(w: &World, p: usize, k: TaskKind) -> u32 {
        let s = &w.pool_stats[p];
        match k {
            TaskKind::Map => s.running_maps,
            TaskKind::Reduce => s.running_reduces,
            TaskKind::Any => s.running_maps + s.running_reduces,
        }
    }

    pub(crate) fn pool_max(w: &World, p: usize, k: TaskKind) -> u32 {
        let s = &w.pools[p];
        match k {
            TaskKind::Map => s.max_maps,
            TaskKind::Reduce => s.max_reduces,
            TaskKind::Any => s.max_maps.saturating_add(s.max_reduces),
        }
    }

    pub(crate) fn pool_min(w: &World, p: usize, k: TaskKind) -> u32 {
        let s = &w.pools[p];
        match k {
            TaskKind::Map => s.min_maps,
            TaskKind::Reduce => s.min_reduces,
            TaskKind::Any => s.min_maps + s.min_reduces,
        }
    }

    /// Jobs per pool (active order) and each pool's demand, capped at its max.
    pub(crate) fn pools_view(&self, w: &World, k: TaskKind) -> (Vec<Vec<JobId>>, Vec<u32>) {
        let mut jobs = vec![Vec::new(); w.pools.len()];
        let mut demand = vec![0u32; w.pools.len()];
        for &j in &w.active {
            let p = w.job(j).pool as usize;
            jobs[p].push(j);
            demand[p] += self.job_demand(w, j, k);
        }
        for (p, d) in demand.iter_mut().enumerate() {
            *d = (*d).min(Self::pool_max(w, p, k));
        }
        (jobs, demand)
    }

    fn total_slots(w: &World, k: TaskKind) -> u32 {
        match k {
            TaskKind::Map => w.cluster.total_map_slots,
            TaskKind::Reduce => w.cluster.total_reduce_slots,
            TaskKind::Any => w.cluster.total_slots(),
        }
    }

    /// Fair shares of pools, then of jobs inside each pool (FIFO-mode pools
    /// give their jobs share 0), as `update()` + `redistributeShare()` do.
    pub(crate) fn fair_shares(&self, w: &World, k: TaskKind) -> (Vec<f64>, Vec<(JobId, f64)>) {
        let (jobs, demand) = self.pools_view(w, k);
        let pool_scheds: Vec<Sched> = (0..w.pools.len())
            .map(|p| Sched {
                weight: w.pools[p].weight,
                min_share: Self::pool_min(w, p, k) as f64,
                demand: demand[p] as f64,
            })
            .collect();
        let pool_shares = compute_fair_shares(&pool_scheds, Self::total_slots(w, k) as f64);
        let mut job_shares = Vec::new();
        for (p, js) in jobs.iter().enumerate() {
            if w.pools[p].scheduling_mode == PoolMode::Fifo {
                job_shares.extend(js.iter().map(|&j| (j, 0.0)));
                continue;
            }
            let scheds: Vec<Sched> = js
                .iter()
                .map(|&j| Sched {
                    weight: self.job_weight(w, j, k),
                    min_share: 0.0,
                    demand: self.job_demand(w, j, k) as f64,
                })
                .collect();
            let shares = compute_fair_shares(&scheds, pool_shares[p]);
            job_shares.extend(js.iter().copied().zip(shares));
        }
        (pool_shares, job_shares)
    }

    fn has_timeouts(w: &World) -> bool {
        w.pools
            .iter()
            .any(|p| p.min_share_timeout.is_some() || p.fair_share_timeout.is_some())
    }

    /// `updatePreemptionVariables` for maps. Hadoop runs it only with
    /// preemption on, which would make a configured timeout end delay
    /// scheduling for good once it elapses; we keep the times current so
    /// a timeout means "starved that long", as the docs describe.
    fn update_starvation(&mut self, w: &World) {
        let n = w.pools.len();
        self.last_at_min.resize(n, w.now);
        self.last_at_half.resize(n, w.now);
        let (shares, _) = self.fair_shares(w, TaskKind::Map);
        let (_, demand) = self.pools_view(w, TaskKind::Map);
        for p in 0..n {
            let running = w.pool_stats[p].running_maps;
            let desired_min = w.pools[p].min_maps.min(demand[p]);
            if running >= desired_min {
                self.last_at_min[p] = w.now;
            }
            let desired_half = (shares[p] / 2.0).min(demand[p] as f64).floor() as u32;
            if running >= desired_half {
                self.last_at_half[p] = w.now;
            }
        }
    }

    fn pool_starved(&self, w: &World, p: usize) -> bool {
        let spec = &w.pools[p];
        let since = |v: &Vec<Ms>| w.now.saturating_sub(v.get(p).copied().unwrap_or(w.now));
        spec.min_share_timeout
            .is_some_and(|t| since(&self.last_at_min) > t)
            || spec
                .fair_share_timeout
                .is_some_and(|t| since(&self.last_at_half) > t)
    }

    /// `updatePreemptionVariables` + `preemptTasksIfNecessary`: keep each
    /// pool's starvation times current, and every 15 s kill, per task kind,
    /// max(min(min share, demand) − running once below min share longer
    /// than `min_share_timeout`, ⌊min(fair share, demand)⌋ − running once
    /// below half its fair share longer than `fair_share_timeout`) tasks,
    /// summed over pools: the newest tasks of pools above their fair share,
    /// never taking a pool below it.
    fn preempt_if_needed(&mut self, hb: &mut Heartbeat<'_>) {
        let w = hb.world();
        let now = w.now;
        let n = w.pools.len();
        let kinds: &[TaskKind] = if self.view(w) == SlotModel::Unified {
            &[TaskKind::Any]
        } else {
            &[TaskKind::Map, TaskKind::Reduce]
        };
        let mut plans: Vec<(TaskKind, u32, Vec<f64>)> = Vec::new();
        let Some(pre) = self.preemption.as_mut() else {
            return;
        };
        let due = pre
            .last_check
            .is_none_or(|t| now >= t + PREEMPTION_INTERVAL);
        for &k in kinds {
            let ki = kind_index(k);
            pre.at_min[ki].resize(n, now);
            pre.at_half[ki].resize(n, now);
        }
        // Computed outside the borrow of `pre`.
        let views: Vec<(TaskKind, Vec<f64>, Vec<u32>)> = kinds
            .iter()
            .map(|&k| (k, self.fair_shares(w, k).0, self.pools_view(w, k).1))
            .collect();
        let pre = self.preemption.as_mut().expect("checked above");
        for (k, shares, demand) in views {
            let ki = kind_index(k);
            let mut to_preempt = 0u32;
            for p in 0..n {
                let running = Self::pool_running(w, p, k);
                let min_target = Self::pool_min(w, p, k).min(demand[p]);
                let half_target = (shares[p] / 2.0).min(demand[p] as f64).floor() as u32;
                if running >= min_target {
                    pre.at_min[ki][p] = now;
                }
                if running >= half_target {
                    pre.at_half[ki][p] = now;
                }
                let spec = &w.pools[p];
                let by_min = match spec.min_share_timeout {
                    Some(t) if now - pre.at_min[ki][p] > t => min_target.saturating_sub(running),
                    _ => 0,
                };
                let by_fair = match spec.fair_share_timeout {
                    Some(t) if now - pre.at_half[ki][p] > t => {
                        (shares[p].min(demand[p] as f64) as u32).saturating_sub(running)
                    }
                    _ => 0,
                };
                to_preempt += by_min.max(by_fair);
            }
            if due && to_preempt > 0 {
                plans.push((k, to_preempt, shares));
            }
        }
        if due {
            pre.last_check = Some(now);
        }
        for (k, mut to_preempt, shares) in plans {
            let w = hb.world();
            // Running attempts of the kind in pools above their fair share,
            // newest first.
            let mut victims: Vec<(Ms, crate::sim::AttemptId, usize)> = Vec::new();
            for &j in &w.active {
                let job = w.job(j);
                let p = job.pool as usize;
                if (Self::pool_running(w, p, k) as f64) <= shares[p] {
                    continue;
                }
                let maps = job.maps.iter().flat_map(|m| m.live.iter());
                let reds = job.reduces.iter().flat_map(|r| r.live.iter());
                let live: Vec<crate::sim::AttemptId> = match k {
                    TaskKind::Map => maps.copied().collect(),
                    TaskKind::Reduce => reds.copied().collect(),
                    TaskKind::Any => maps.chain(reds).copied().collect(),
                };
                victims.extend(
                    live.into_iter()
                        .map(|a| (w.attempts[a as usize].start, a, p)),
                );
            }
            victims.sort_by(|a, b| b.0.cmp(&a.0).then(b.1.cmp(&a.1)));
            let mut left: Vec<u32> = (0..n).map(|p| Self::pool_running(w, p, k)).collect();
            for (_, a, p) in victims {
                if left[p] as f64 > shares[p] {
                    hb.preempt(a);
                    left[p] -= 1;
                    to_preempt -= 1;
                    if to_preempt == 0 {
                        break;
                    }
                }
            }
        }
    }

    /// `getAllowedLocalityLevel`, with separate node and rack delays.
    fn allowed_level(&self, w: &World, j: JobId, info: &JobInfo) -> Locality {
        if self.pool_starved(w, w.job(j).pool as usize) {
            return Locality::OffDc;
        }
        match info.level {
            Locality::Node => {
                if info.waited >= self.node_delay + self.rack_delay {
                    Locality::OffDc
                } else if info.waited >= self.node_delay {
                    Locality::Rack
                } else {
                    Locality::Node
                }
            }
            Locality::Rack => {
                if info.waited >= self.rack_delay {
                    Locality::OffDc
                } else {
                    Locality::Rack
                }
            }
            _ => Locality::OffDc,
        }
    }

    fn rule(&self, kind: TaskKind, loc: Option<Locality>) -> &'static str {
        if self.omo_base {
            return "omo/fair";
        }
        let fresh = self.name == "fresh";
        match (fresh, kind, loc) {
            (false, _, None) => "fair/reduce",
            (true, _, None) => "fresh/reduce",
            (false, _, Some(Locality::Node)) => "fair/node-local",
            (false, _, Some(Locality::Rack)) => "fair/rack-local",
            (false, _, Some(_)) => "fair/off-rack",
            (true, _, Some(Locality::Node)) => "fresh/node-local",
            (true, _, Some(Locality::Rack)) => "fresh/rack-local",
            (true, _, Some(_)) => "fresh/off-rack",
        }
    }

    /// `updateLocalityWaitTimes`: jobs skipped at the previous heartbeat
    /// (any node's) have waited the time since it.
    fn update_wait_times(&mut self, now: Ms) {
        let dt = self.last_heartbeat.map_or(0, |t| now.saturating_sub(t));
        self.last_heartbeat = Some(now);
        for i in &mut self.info {
            if i.skipped {
                i.waited += dt;
                i.skipped = false;
            }
        }
    }

    /// Tries to launch one task of `kind` from job `j` (`JobSchedulable.assignTask`).
    /// A unified container goes to one of the job's maps (subject to delay
    /// scheduling) and else to a schedulable reduce, so a job's reduces can
    /// never hold every container while its maps wait.
    fn try_job(
        &mut self,
        hb: &mut Heartbeat<'_>,
        j: JobId,
        kind: TaskKind,
        visited: &mut Vec<JobId>,
    ) -> bool {
        let w = hb.world();
        let job = w.job(j);
        if !job.runnable {
            return false;
        }
        if kind != TaskKind::Reduce {
            visited.push(j);
            let info = self.info_ref(j);
            let allowed = self.allowed_level(w, j, &info);
            if let Some((t, loc)) = job.find_map(hb.node, allowed, &w.cluster) {
                let rule = self.rule(kind, Some(loc));
                hb.launch_map(j, t, rule);
                let i = self.info(j);
                i.level = loc;
                i.waited = 0;
                return true;
            }
        }
        if kind != TaskKind::Map
            && !self.omo_base
            && job.reduces_schedulable(self.slowstart)
            && (self.view(w) == SlotModel::Typed || w.reduce_allowed(j))
        {
            if let Some(r) = job.find_reduce() {
                let rule = self.rule(kind, None);
                hb.launch_reduce(j, r, rule);
                return true;
            }
        }
        false
    }

    /// One pass over pools in fair order for one task (the `for (Schedulable
    /// sched: scheds)` loop). Returns whether a task launched.
    fn assign_one(
        &mut self,
        hb: &mut Heartbeat<'_>,
        kind: TaskKind,
        pool_jobs: &mut [Vec<JobId>],
        pool_demand: &[u32],
        launched: &mut Vec<JobId>,
        visited: &mut Vec<JobId>,
    ) -> bool {
        let w = hb.world();
        let pools = self.sorted_pools(w, kind, pool_jobs, pool_demand);
        for p in pools {
            let w = hb.world();
            if Self::pool_running(w, p, kind) >= Self::pool_max(w, p, kind) {
                continue;
            }
            let mut jobs = std::mem::take(&mut pool_jobs[p]);
            self.sort_jobs(w, p, kind, &mut jobs);
            let mut hit = None;
            for &j in &jobs {
                if self.try_job(hb, j, kind, visited) {
                    hit = Some(j);
                    break;
                }
            }
            pool_jobs[p] = jobs;
            if let Some(j) = hit {
                let w = hb.world();
                let a = *hb.assigned.last().expect("a task was launched");
                if w.attempts[a as usize].kind == crate::sim::Kind::Map {
                    launched.push(j);
                }
                return true;
            }
        }
        false
    }

    /// Pools with jobs, in `FairShareComparator` order for `kind` (ties
    /// by name: pools all start at time 0).
    pub(crate) fn sorted_pools(
        &self,
        w: &World,
        kind: TaskKind,
        pool_jobs: &[Vec<JobId>],
        pool_demand: &[u32],
    ) -> Vec<usize> {
        let key = |p: usize| Key {
            running: Self::pool_running(w, p, kind) as f64,
            min_share: Self::pool_min(w, p, kind) as f64,
            demand: pool_demand[p] as f64,
            weight: w.pools[p].weight,
        };
        let mut pools: Vec<usize> = (0..w.pools.len())
            .filter(|&p| !pool_jobs[p].is_empty())
            .collect();
        pools.sort_by(|&a, &b| {
            fair_cmp(&key(a), &key(b)).then_with(|| w.pools[a].name.cmp(&w.pools[b].name))
        });
        pools
    }

    /// Sorts pool `p`'s jobs for `kind`: FIFO-mode pools by priority then
    /// submission, the others in `FairShareComparator` order (ties by
    /// submission, then id).
    pub(crate) fn sort_jobs(&self, w: &World, p: usize, kind: TaskKind, jobs: &mut Vec<JobId>) {
        if w.pools[p].scheduling_mode == PoolMode::Fifo {
            jobs.sort_by_key(|&j| (w.job(j).priority, w.job(j).submit, j));
        } else {
            // Keys computed once per sort, not once per comparison.
            let mut keyed: Vec<(Key, Ms, JobId)> = jobs
                .iter()
                .map(|&j| {
                    let key = Key {
                        running: Self::job_running(w, j, kind) as f64,
                        min_share: 0.0,
                        demand: self.job_demand(w, j, kind) as f64,
                        weight: self.job_weight(w, j, kind),
                    };
                    (key, w.job(j).submit, j)
                })
                .collect();
            keyed.sort_by(|a, b| fair_cmp(&a.0, &b.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2)));
            jobs.clear();
            jobs.extend(keyed.iter().map(|k| k.2));
        }
    }

    /// `CapBasedLoadManager.getCap`.
    pub(crate) fn load_cap(runnable: u32, local_max: u32, total_slots: u32) -> u32 {
        let load = runnable as f64 / total_slots.max(1) as f64;
        (local_max as f64 * load.min(1.0)).ceil() as u32
    }

    fn heartbeat_typed(
        &mut self,
        hb: &mut Heartbeat<'_>,
        pool_jobs: &mut [Vec<JobId>],
    ) -> (Vec<JobId>, Vec<JobId>) {
        let w = hb.world();
        let (_, map_demand) = self.pools_view(w, TaskKind::Map);
        let (_, reduce_demand) = self.pools_view(w, TaskKind::Reduce);
        let runnable = (map_demand.iter().sum(), reduce_demand.iter().sum());
        let assign_multiple = self.assign_multiple;
        typed_assign_loop(
            hb,
            assign_multiple,
            runnable,
            |hb, kind, launched, visited| {
                let demand = if kind == TaskKind::Map {
                    &map_demand
                } else {
                    &reduce_demand
                };
                self.assign_one(hb, kind, pool_jobs, demand, launched, visited)
            },
        )
    }

    /// Starts a heartbeat: updates locality waits (and starvation times)
    /// and fixes the pools' jobs and demands for the loop, as
    /// `assignTasks` does before it. On unified containers every kind may
    /// go in any container; on typed slots a round offers map slots only
    /// (OMO's base; [`Fair`]'s own typed heartbeat alternates kinds).
    pub(crate) fn begin_round(&mut self, hb: &Heartbeat<'_>) -> Round {
        let w = hb.world();
        self.update_wait_times(w.now);
        if Self::has_timeouts(w) {
            self.update_starvation(w);
        }
        let kind = if self.view(w) == SlotModel::Unified {
            TaskKind::Any
        } else {
            TaskKind::Map
        };
        let (pool_jobs, demand) = self.pools_view(w, kind);
        let runnable = demand.iter().sum();
        let free = match kind {
            TaskKind::Any => hb.node().free_containers(),
            _ => hb.node().free_maps(SlotModel::Typed),
        };
        Round {
            kind,
            pool_jobs,
            demand,
            runnable,
            cap: if self.assign_multiple { free } else { 1 },
            assigned: 0,
            launched: Vec::new(),
            visited: Vec::new(),
        }
    }

    /// One fair assignment in a round, if the round's caps allow one:
    /// `assign_multiple`'s cap, cluster running < runnable demand, and the
    /// node's `CapBasedLoadManager` cap (all counted live, so tasks other
    /// rules launched in the same heartbeat count too).
    pub(crate) fn step(&mut self, hb: &mut Heartbeat<'_>, r: &mut Round) -> bool {
        let w = hb.world();
        let node = hb.node();
        let (running, on_node, slots, total, free) = match r.kind {
            TaskKind::Any => (
                w.pool_stats
                    .iter()
                    .map(|s| s.running_maps + s.running_reduces)
                    .sum::<u32>(),
                node.running(),
                node.map_slots + node.reduce_slots,
                w.cluster.total_slots(),
                hb.free_maps(),
            ),
            _ => (
                w.pool_stats.iter().map(|s| s.running_maps).sum::<u32>(),
                node.running_maps,
                node.map_slots,
                w.cluster.total_map_slots,
                hb.free_maps().min(node.free_maps(SlotModel::Typed)),
            ),
        };
        if r.assigned >= r.cap
            || running >= r.runnable
            || on_node >= Self::load_cap(r.runnable, slots, total)
            || free == 0
        {
            return false;
        }
        let kind = r.kind;
        if !self.assign_one(
            hb,
            kind,
            &mut r.pool_jobs,
            &r.demand,
            &mut r.launched,
            &mut r.visited,
        ) {
            return false;
        }
        r.assigned += 1;
        true
    }

    /// A map of job `j` launched at locality `loc` outside the fair steps
    /// (OMO's batch finish): the job's locality level resets as if fair
    /// had launched it.
    pub(crate) fn note_map(&mut self, r: &mut Round, j: JobId, loc: Locality) {
        let i = self.info(j);
        i.level = loc;
        i.waited = 0;
        r.launched.push(j);
    }

    /// Ends a heartbeat: jobs visited for a map and given none wait longer.
    pub(crate) fn finish_round(&mut self, r: Round) {
        self.mark_skipped(r.launched, r.visited);
    }

    pub(crate) fn mark_skipped(&mut self, launched: Vec<JobId>, mut visited: Vec<JobId>) {
        visited.sort_unstable();
        visited.dedup();
        for j in visited {
            if !launched.contains(&j) {
                self.info(j).skipped = true;
            }
        }
    }
}

/// The fair base of DynamicMR's DHSA policies (`super::dhsa`): typed
/// slots (a unified cluster's containers viewed as `map_slots` +
/// `reduce_slots`), delay scheduling and `FairShareComparator` orders, with
/// the assignment loops left to the caller.
impl Fair {
    pub(crate) fn dhsa_base(
        label: String,
        slowstart: f64,
        node_delay: Option<Ms>,
        rack_delay: Option<Ms>,
        ctx: &BuildCtx,
    ) -> Fair {
        let hb = ctx.heartbeat.unwrap_or(3_000);
        let auto = MAX_AUTO_DELAY.min(hb * 3 / 2);
        Fair {
            label,
            name: "dhsa",
            slowstart,
            node_delay: node_delay.unwrap_or(auto),
            rack_delay: rack_delay.unwrap_or(auto),
            assign_multiple: true,
            size_based_weight: false,
            info: Vec::new(),
            last_heartbeat: None,
            last_at_min: Vec::new(),
            last_at_half: Vec::new(),
            typed_slots: true,
            omo_base: false,
            reduce_started: Vec::new(),
            preemption: None,
        }
    }

    /// What `assignTasks` does before its loop: locality waits (and
    /// starvation times) brought up to now.
    pub(crate) fn begin_heartbeat(&mut self, w: &World) {
        self.update_wait_times(w.now);
        if Self::has_timeouts(w) {
            self.update_starvation(w);
        }
    }

    /// Delay scheduling's allowed locality level for job `j` now.
    pub(crate) fn allowed(&self, w: &World, j: JobId) -> Locality {
        self.allowed_level(w, j, &self.info_ref(j))
    }

    /// A map of job `j` launched at locality `loc`: its locality level
    /// becomes `loc` and its wait resets.
    pub(crate) fn map_launched(&mut self, j: JobId, loc: Locality) {
        let i = self.info(j);
        i.level = loc;
        i.waited = 0;
    }
}

impl Policy for Fair {
    fn label(&self) -> &str {
        &self.label
    }

    fn slowstart(&self) -> f64 {
        self.slowstart
    }

    fn adopt(&mut self, w: &World) {
        // A fresh start: every running job is at NODE level with no wait,
        // as jobs are when the FairScheduler first sees them.
        self.info.clear();
        self.last_heartbeat = None;
        self.last_at_min = vec![w.now; w.pools.len()];
        self.last_at_half = vec![w.now; w.pools.len()];
    }

    fn job_arrived(&mut self, _w: &World, j: JobId) {
        *self.info(j) = JobInfo::default();
    }

    fn maintain(&mut self, hb: &mut Heartbeat<'_>) {
        let now = hb.world().now;
        let Some(pre) = self.preemption.as_mut() else {
            return;
        };
        if pre.last_update.is_some_and(|t| now < t + UPDATE_INTERVAL) {
            return;
        }
        pre.last_update = Some(now);
        self.preempt_if_needed(hb);
    }

    fn heartbeat(&mut self, hb: &mut Heartbeat<'_>) {
        if self.view(hb.world()) == SlotModel::Unified {
            let mut round = self.begin_round(hb);
            while self.step(hb, &mut round) {}
            self.finish_round(round);
            return;
        }
        let now = hb.world().now;
        self.update_wait_times(now);
        if Self::has_timeouts(hb.world()) {
            self.update_starvation(hb.world());
        }
        let (mut pool_jobs, _) = self.pools_view(hb.world(), TaskKind::Map);
        let (launched, visited) = self.heartbeat_typed(hb, &mut pool_jobs);
        self.mark_skipped(launched, visited);
    }

    fn inspect(&self, w: &World, _node: NodeId) -> Inspection {
        let mut ins = Inspection::default();
        let unified = self.view(w) == SlotModel::Unified;
        let (pm, jm) = self.fair_shares(w, TaskKind::Map);
        let (pr, jr) = self.fair_shares(w, TaskKind::Reduce);
        let (_, dm) = self.pools_view(w, TaskKind::Map);
        let (_, dr) = self.pools_view(w, TaskKind::Reduce);
        // Waits as they will stand once this heartbeat's update has run.
        let dt = self.last_heartbeat.map_or(0, |t| w.now.saturating_sub(t));
        for p in 0..w.pools.len() {
            let mut v = Values::new();
            v.insert("fair_share_map".into(), num(pm[p]));
            v.insert("fair_share_reduce".into(), num(pr[p]));
            v.insert("demand_map".into(), dm[p].into());
            v.insert("demand_reduce".into(), dr[p].into());
            v.insert("running_map".into(), w.pool_stats[p].running_maps.into());
            v.insert(
                "running_reduce".into(),
                w.pool_stats[p].running_reduces.into(),
            );
            v.insert("weight".into(), num(w.pools[p].weight));
            v.insert("locality_level".into(), serde_json::Value::Null);
            v.insert("waited_s".into(), serde_json::Value::Null);
            if Self::has_timeouts(w) {
                v.insert("starved".into(), self.pool_starved(w, p).into());
            }
            ins.pools.insert(w.pools[p].name.clone(), v);
        }
        for (i, &(j, fm)) in jm.iter().enumerate() {
            let fr = jr[i].1;
            let job = w.job(j);
            let mut info = self.info_ref(j);
            if info.skipped {
                info.waited += dt;
            }
            let level = self.allowed_level(w, j, &info);
            let mut v = Values::new();
            v.insert("fair_share_map".into(), num(fm));
            v.insert("fair_share_reduce".into(), num(fr));
            v.insert("demand_map".into(), w.map_demand(j).into());
            v.insert("demand_reduce".into(), w.reduce_demand(j).into());
            v.insert("running_map".into(), job.maps_running.into());
            v.insert("running_reduce".into(), job.reduces_running.into());
            v.insert("weight".into(), num(self.job_weight(w, j, TaskKind::Map)));
            let lvl = match level {
                Locality::Node => "node",
                Locality::Rack => "rack",
                _ => "any",
            };
            v.insert("locality_level".into(), lvl.into());
            v.insert("waited_s".into(), num(info.waited as f64 / 1000.0));
            ins.jobs.insert(job.name.clone(), v);
        }
        if unified {
            let (pa, ja) = self.fair_shares(w, TaskKind::Any);
            for (p, s) in pa.iter().enumerate() {
                if let Some(v) = ins.pools.get_mut(&w.pools[p].name) {
                    v.insert("fair_share_containers".into(), num(*s));
                }
            }
            for (j, s) in ja {
                if let Some(v) = ins.jobs.get_mut(&w.job(j).name) {
                    v.insert("fair_share_containers".into(), num(s));
                }
            }
        }
        ins.cluster.insert(
            "node_locality_delay_s".into(),
            num(self.node_delay as f64 / 1000.0),
        );
        ins.cluster.insert(
            "rack_locality_delay_s".into(),
            num(self.rack_delay as f64 / 1000.0),
        );
        ins
    }
}

/// The loop of Hadoop 1.x `FairScheduler.assignTasks` on typed slots, for
/// fair and the policies layered over it: until both kinds are refused,
/// pick the kind (a map while the node runs no more maps than reduces),
/// stop a kind at the node's free slots, the runnable tasks, or the
/// `CapBasedLoadManager` cap, and ask `assign` for one task of it. With
/// `assign_multiple` off, one task per heartbeat. `runnable` is the
/// (maps, reduces) demand. Returns the jobs launched and visited, for the
/// delay-scheduling bookkeeping.
pub(crate) fn typed_assign_loop(
    hb: &mut Heartbeat<'_>,
    assign_multiple: bool,
    (runnable_maps, runnable_reduces): (u32, u32),
    mut assign: impl FnMut(&mut Heartbeat<'_>, TaskKind, &mut Vec<JobId>, &mut Vec<JobId>) -> bool,
) -> (Vec<JobId>, Vec<JobId>) {
    let w = hb.world();
    let mut running_maps: u32 = w.pool_stats.iter().map(|s| s.running_maps).sum();
    let mut running_reduces: u32 = w.pool_stats.iter().map(|s| s.running_reduces).sum();
    let node = w.node(hb.node).clone();
    let (map_cap, reduce_cap) = if assign_multiple {
        (
            node.free_maps(SlotModel::Typed),
            node.free_reduces(SlotModel::Typed),
        )
    } else {
        (1, 1)
    };
    let (tm, tr) = (w.cluster.total_map_slots, w.cluster.total_reduce_slots);
    let (mut maps_assigned, mut reduces_assigned) = (0u32, 0u32);
    let (mut map_rej, mut reduce_rej) = (false, false);
    let mut launched = Vec::new();
    let mut visited = Vec::new();
    loop {
        if !map_rej
            && (maps_assigned == map_cap
                || hb.free_maps() == 0
                || running_maps >= runnable_maps
                || node.running_maps + maps_assigned
                    >= Fair::load_cap(runnable_maps, node.map_slots, tm))
        {
            map_rej = true;
        }
        if !reduce_rej
            && (reduces_assigned == reduce_cap
                || hb.free_reduces() == 0
                || running_reduces >= runnable_reduces
                || node.running_reduces + reduces_assigned
                    >= Fair::load_cap(runnable_reduces, node.reduce_slots, tr))
        {
            reduce_rej = true;
        }
        if (map_rej && reduce_rej) || (!assign_multiple && !hb.assigned.is_empty()) {
            break;
        }
        let kind = if map_rej {
            TaskKind::Reduce
        } else if reduce_rej
            || node.running_maps + maps_assigned <= node.running_reduces + reduces_assigned
        {
            TaskKind::Map
        } else {
            TaskKind::Reduce
        };
        if assign(hb, kind, &mut launched, &mut visited) {
            if kind == TaskKind::Map {
                maps_assigned += 1;
                running_maps += 1;
            } else {
                reduces_assigned += 1;
                running_reduces += 1;
            }
        } else if kind == TaskKind::Map {
            map_rej = true;
        } else {
            reduce_rej = true;
        }
    }
    (launched, visited)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(weight: f64, min_share: f64, demand: f64) -> Sched {
        Sched {
            weight,
            min_share,
            demand,
        }
    }

    fn close(a: &[f64], b: &[f64]) {
        assert_eq!(a.len(), b.len());
        for (x, y) in a.iter().zip(b) {
            assert!((x - y).abs() < 0.01, "{a:?} vs {b:?}");
        }
    }

    // TestComputeFairShares.testEqualSharing
    #[test]
    fn equal_sharing() {
        let v = [
            s(1., 0., 100.),
            s(1., 0., 50.),
            s(1., 0., 30.),
            s(1., 0., 20.),
        ];
        close(&compute_fair_shares(&v, 40.0), &[10., 10., 10., 10.]);
    }

    // TestComputeFairShares.testLowDemands
    #[test]
    fn low_demands() {
        let v = [
            s(1., 0., 100.),
            s(1., 0., 50.),
            s(1., 0., 11.),
            s(1., 0., 3.),
        ];
        close(&compute_fair_shares(&v, 40.0), &[13., 13., 11., 3.]);
    }

    // TestComputeFairShares.testMinShares
    #[test]
    fn min_shares() {
        let v = [
            s(1., 20., 100.),
            s(1., 0., 50.),
            s(1., 0., 11.),
            s(1., 0., 3.),
        ];
        close(&compute_fair_shares(&v, 40.0), &[20., 8.5, 8.5, 3.]);
    }

    // TestComputeFairShares.testWeightedSharing
    #[test]
    fn weighted_sharing() {
        let v = [
            s(2., 0., 100.),
            s(1., 0., 50.),
            s(1., 0., 30.),
            s(0.5, 0., 20.),
        ];
        close(&compute_fair_shares(&v, 45.0), &[20., 10., 10., 5.]);
    }

    // TestComputeFairShares.testWeightedSharingWithLowDemands
    #[test]
    fn weighted_low_demands() {
        let v = [
            s(2., 0., 10.),
            s(1., 0., 11.),
            s(1., 0., 30.),
            s(0.5, 0., 20.),
        ];
        close(&compute_fair_shares(&v, 45.0), &[10., 11., 16., 8.]);
    }

    // Weights and min shares together: R = 60/7 solves
    // max(5, 2R) + max(15, R) + R + R/2 = 45.
    #[test]
    fn weighted_min_shares() {
        let v = [
            s(2., 5., 100.),
            s(1., 15., 50.),
            s(1., 0., 30.),
            s(0.5, 0., 20.),
        ];
        let r = 60.0 / 7.0;
        close(&compute_fair_shares(&v, 45.0), &[2. * r, 15., r, r / 2.]);
    }

    // TestComputeFairShares.testLargeShares / testZeroDemand / testEmptyList
    #[test]
    fn large_zero_and_empty() {
        let v = [
            s(1., 0., 1e15),
            s(1., 0., 1e15),
            s(1., 0., 1e15),
            s(1., 0., 1e15),
        ];
        for x in compute_fair_shares(&v, 4e14) {
            assert!((x - 1e14).abs() / 1e14 < 1e-6, "{x}");
        }
        let v = [s(1., 0., 100.), s(1., 0., 0.), s(1., 0., 0.)];
        close(&compute_fair_shares(&v, 40.0), &[40., 0., 0.]);
        assert!(compute_fair_shares(&[], 40.0).is_empty());
    }

    #[test]
    fn comparator_needy_first_then_running_over_weight() {
        let needy = Key {
            running: 3.0,
            min_share: 5.0,
            demand: 10.0,
            weight: 1.0,
        };
        let rich = Key {
            running: 0.0,
            min_share: 0.0,
            demand: 10.0,
            weight: 1.0,
        };
        assert_eq!(fair_cmp(&needy, &rich), Ordering::Less);
        let heavy = Key {
            running: 4.0,
            min_share: 0.0,
            demand: 10.0,
            weight: 2.0,
        };
        let light = Key {
            running: 3.0,
            min_share: 0.0,
            demand: 10.0,
            weight: 1.0,
        };
        assert_eq!(fair_cmp(&heavy, &light), Ordering::Less, "4/2 < 3/1");
    }
}

//! `yarn-fair`: Hadoop 2.7.3's FairScheduler, heartbeat by heartbeat, with
//! `fair` (memory) or `drf` (Dominant Resource Fairness) ordering.
//!
//! Queues are the scenario's pools, children of `root`; each holds its
//! pool's applications. On a NodeManager's heartbeat
//! (`FairScheduler.attemptScheduling`): a node reserved for an application
//! serves only it; otherwise root's queues in the policy's order, each
//! one's applications in the same order, and the first application that
//! takes a container (or reserves the node) ends the walk — one container
//! per heartbeat unless `assign_multiple`. An application walks its
//! priorities (AM, reduces, maps): node-local if it can, rack-local or
//! off-switch once delay scheduling allows (count-based thresholds, off
//! by default), a container that does not fit reserves the node. An
//! application's AM waits while its queue's AMs would pass `max_am_share`
//! of the queue's fair share.

use super::{Ask, Level, ASKS};
use crate::model::Models;
use crate::model::{JobId, NodeId, QueuePolicy, Resource};
use crate::sched::registry::{Entry, DEFAULT_SLOWSTART};
use crate::sched::settings::{ConfigError, Settings};
use crate::sim::policy::{num, Headroom, Inspection, Policy, Show, Values};
use crate::sim::{Heartbeat, World};
use std::cmp::Ordering;

/// `[scheduler.yarn-fair]`.
#[derive(Clone, Debug, Default, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    pub slowstart: Option<f64>,
    /// `defaultQueueSchedulingPolicy`: "fair" (default) or "drf".
    pub scheduling_policy: Option<String>,
    /// `yarn.scheduler.fair.assignmultiple` (false) and `.max.assign` (-1).
    pub assign_multiple: Option<bool>,
    pub max_assign: Option<i64>,
    /// `yarn.scheduler.fair.locality.threshold.node` / `.rack` (-1: off).
    pub node_locality_threshold: Option<f64>,
    pub rack_locality_threshold: Option<f64>,
    /// `queueMaxAMShareDefault` (0.5; -1 turns the check off).
    pub max_am_share: Option<f64>,
}

pub const YARN_FAIR: Entry = Entry {
    name: "yarn-fair",
    summary: "YARN FairScheduler: queues and applications by fair share of memory (fair) or dominant share (drf), one container per heartbeat, reservations, AM share limit",
    source: "Hadoop 2.7.3 FairScheduler; DRF: Ghodsi et al., NSDI 2011 (slot_model = \"yarn\")",
    runs_on: Models::YARN,
    meant_for: Models::YARN,
    build: |s, _| Ok(Box::new(YarnFair::build(s)?)),
    check: None,
};

/// Delay scheduling's state for one application and priority.
#[derive(Clone, Copy, Debug)]
struct Delay {
    allowed: Option<Level>,
    opportunities: u32,
}

const NO_DELAY: Delay = Delay {
    allowed: None,
    opportunities: 0,
};

pub struct YarnFair {
    label: String,
    slowstart: f64,
    policy: QueuePolicy,
    assign_multiple: bool,
    max_assign: i64,
    node_threshold: f64,
    rack_threshold: f64,
    max_am_share: f64,
    /// Reserved nodes: the application and priority each is held for.
    reserved: Vec<Option<(JobId, Ask)>>,
    /// Per job id, per priority.
    delay: Vec<[Delay; 3]>,
    /// Fair shares as last computed.
    shares: std::cell::RefCell<Shares>,
    /// Buffers of a heartbeat's walk, kept to reuse: the applications,
    /// each queue's key and rank, the walk's order.
    apps: Vec<JobId>,
    queues: Vec<(Key, usize)>,
    has_apps: Vec<bool>,
    walk: Vec<(Key, u64, JobId)>,
    /// Each queue's demand (only against a minimum share).
    demand: Vec<Resource>,
    /// Why the queues cannot be run as configured, once found.
    fault: Option<String>,
    checked: bool,
}

impl YarnFair {
    fn build(s: &Settings) -> Result<YarnFair, ConfigError> {
        let own: Config = s.own()?;
        let policy = match own.scheduling_policy.as_deref() {
            None | Some("fair") => QueuePolicy::Fair,
            Some("drf") => QueuePolicy::Drf,
            Some(other) => {
                return Err(ConfigError::new(
                    "scheduler.yarn-fair.scheduling_policy",
                    format!("unknown scheduling_policy \"{other}\"; expected \"fair\" or \"drf\""),
                ))
            }
        };
        let threshold = |key: &str, v: Option<f64>| {
            match v {
            Some(x) if !(x.is_finite() && (x < 0.0 || x <= 1.0)) => Err(ConfigError::new(
                format!("scheduler.yarn-fair.{key}"),
                format!("{key} must be a fraction of the cluster's nodes from 0 to 1, or -1 (off); got {x}"),
            )),
            v => Ok(v.unwrap_or(-1.0)),
        }
        };
        let max_am_share = match own.max_am_share {
            Some(x) if !(x == -1.0 || (0.0..=1.0).contains(&x)) => {
                return Err(ConfigError::new(
                    "scheduler.yarn-fair.max_am_share",
                    format!("max_am_share must be from 0 to 1, or -1 (no limit); got {x}"),
                ))
            }
            v => v.unwrap_or(0.5),
        };
        Ok(YarnFair {
            label: s.label.to_string(),
            slowstart: s.slowstart_or(own.slowstart, DEFAULT_SLOWSTART)?,
            policy,
            assign_multiple: own.assign_multiple.unwrap_or(false),
            max_assign: own.max_assign.unwrap_or(-1),
            node_threshold: threshold("node_locality_threshold", own.node_locality_threshold)?,
            rack_threshold: threshold("rack_locality_threshold", own.rack_locality_threshold)?,
            max_am_share,
            reserved: Vec::new(),
            delay: Vec::new(),
            shares: std::cell::RefCell::default(),
            apps: Vec::new(),
            queues: Vec::new(),
            has_apps: Vec::new(),
            walk: Vec::new(),
            demand: Vec::new(),
            fault: None,
            checked: false,
        })
    }

    fn delay_mut(&mut self, j: JobId, ask: Ask) -> &mut Delay {
        let j = j as usize;
        if self.delay.len() <= j {
            self.delay.resize(j + 1, [NO_DELAY; 3]);
        }
        &mut self.delay[j][ask as usize]
    }

    /// `FSAppAttempt.getAllowedLocalityLevel`: NODE_LOCAL at first, relaxed
    /// a level once the missed opportunities pass threshold × nodes.
    fn allowed_level(&mut self, j: JobId, ask: Ask, nodes: usize) -> Level {
        let (node_t, rack_t) = (self.node_threshold.min(1.0), self.rack_threshold.min(1.0));
        if node_t < 0.0 || rack_t < 0.0 {
            return Level::OffSwitch;
        }
        let d = self.delay_mut(j, ask);
        let Some(allowed) = d.allowed else {
            d.allowed = Some(Level::NodeLocal);
            return Level::NodeLocal;
        };
        if allowed == Level::OffSwitch {
            return allowed;
        }
        let threshold = if allowed == Level::NodeLocal {
            node_t
        } else {
            rack_t
        };
        if f64::from(d.opportunities) > nodes as f64 * threshold {
            d.allowed = Some(if allowed == Level::NodeLocal {
                Level::RackLocal
            } else {
                Level::OffSwitch
            });
            d.opportunities = 0;
        }
        d.allowed.unwrap_or(Level::NodeLocal)
    }

    /// `FSAppAttempt.allocate`: an allocation at a better level than the
    /// one allowed brings the allowed level back to it.
    fn allocated_at(&mut self, j: JobId, ask: Ask, level: Level) {
        let d = self.delay_mut(j, ask);
        if let Some(allowed) = d.allowed {
            if level < allowed && level != Level::OffSwitch {
                d.allowed = Some(level);
            }
        }
    }

    /// One application's turn on the node (`FSAppAttempt.assignContainer`):
    /// `Some(true)` it took a container, `Some(false)` it reserved the
    /// node, `None` nothing.
    fn assign_app(&mut self, hb: &mut Heartbeat<'_>, j: JobId, shares: &Shares) -> Option<bool> {
        let max = super::max_allocation(hb.world());
        for ask in ASKS {
            let w = hb.world();
            if !super::wants(w, j, ask) {
                continue;
            }
            let res = super::normalize_both(super::asked(w, j, ask), max);
            if !res.fits_in(hb.node().capacity) {
                continue;
            }
            self.delay_mut(j, ask).opportunities += 1;
            if ask == Ask::Am && !self.can_run_am(hb.world(), j, res, shares) {
                return None;
            }
            let nodes = hb.world().cluster.nodes.len();
            let allowed = self.allowed_level(j, ask, nodes);
            let level = if ask == Ask::Map && super::has_local(hb, j, Level::NodeLocal) {
                Level::NodeLocal
            } else if ask == Ask::Map
                && allowed >= Level::RackLocal
                && super::has_local(hb, j, Level::RackLocal)
            {
                Level::RackLocal
            } else if ask != Ask::Map || allowed == Level::OffSwitch {
                Level::OffSwitch
            } else {
                continue;
            };
            return self.assign(hb, j, ask, res, level);
        }
        None
    }

    /// Allocates a container of `res` at `level` (`Some(true)`), or
    /// reserves the node if it does not fit what is free (`Some(false)`),
    /// unless the container would take the queue past its maximum
    /// (`None`: `FairScheduler.fitsInMaxShare`).
    fn assign(
        &mut self,
        hb: &mut Heartbeat<'_>,
        j: JobId,
        ask: Ask,
        res: Resource,
        level: Level,
    ) -> Option<bool> {
        let node = hb.node();
        if !res.fits_in(node.available()) {
            if !fits_in_max_share(hb.world(), j, res) {
                return None;
            }
            self.reserved[hb.node as usize] = Some((j, ask));
            return Some(false);
        }
        self.reserved[hb.node as usize] = None;
        let rule = match (ask, level) {
            (Ask::Reduce, _) => "yarn-fair/reduce",
            (_, Level::NodeLocal) => "yarn-fair/node-local",
            (_, Level::RackLocal) => "yarn-fair/rack-local",
            (_, Level::OffSwitch) => "yarn-fair/off-switch",
        };
        super::launch(hb, j, ask, res, level, rule);
        self.allocated_at(j, ask, level);
        Some(true)
    }

    /// `FSLeafQueue.canRunAppAM`: the queue's AMs with this one within
    /// `max_am_share` of its fair share.
    fn can_run_am(&self, w: &World, j: JobId, am: Resource, shares: &Shares) -> bool {
        if self.max_am_share < 0.0 {
            return true;
        }
        let pool = w.job(j).pool as usize;
        let fair = shares.fair[pool];
        let limit = Resource::memory(
            (fair.mb() as f64 * self.max_am_share) as i64,
            (fair.vcores() as f64 * self.max_am_share) as i64,
        );
        let after = w.pool_stats[pool].am_used + am;
        // The queue's policy's `checkIfAMResourceUsageOverLimit`.
        match self.queue_policy(w, pool) {
            QueuePolicy::Fair | QueuePolicy::Fifo => after.mb() <= limit.mb(),
            QueuePolicy::Drf => after.fits_in(limit),
        }
    }

    /// `FairSharePolicy.FairShareComparator` / `DominantResourceFairness
    /// Comparator` (the walk sorts by [`share_key`]); ties by
    /// start time, then name.
    #[cfg(test)]
    fn cmp(
        &self,
        cluster: Resource,
        a: (Sortable, u64, &str),
        b: (Sortable, u64, &str),
    ) -> Ordering {
        let (ka, kb) = (
            share_key(self.policy, cluster, a.0),
            share_key(self.policy, cluster, b.0),
        );
        cmp_keys(ka, kb)
            .then(a.1.cmp(&b.1))
            .then_with(|| a.2.cmp(b.2))
    }

    /// A `drf` queue under root's `fair` policy gets no vcore fair share
    /// (FairSharePolicy computes memory alone), so in Hadoop 2.7.3 its AM
    /// share limit of 0 vcores never lets an AM start: the run would hang.
    /// Said once, as the run's error, unless the limit is off.
    fn check_queues(&mut self, w: &World) {
        self.checked = true;
        if self.policy != QueuePolicy::Fair
            || self.max_am_share < 0.0
            || w.tasks.am_ask().vcores() == 0
        {
            return;
        }
        if let Some(q) = w
            .pools
            .iter()
            .find(|p| p.scheduling_policy == Some(QueuePolicy::Drf))
        {
            self.fault = Some(format!(
                "{}: queue \"{}\" orders by drf under root's fair policy, which gives queues no vcore fair share, so no AM of it could start within max_am_share (Hadoop 2.7.3 hangs so); expected scheduling_policy = \"drf\" in [scheduler.yarn-fair], or max_am_share = -1",
                self.label, q.name
            ));
        }
    }

    /// The policy queue `p` orders its applications by: its own, else the
    /// scheduler's.
    fn queue_policy(&self, w: &World, p: usize) -> QueuePolicy {
        w.pools[p].scheduling_policy.unwrap_or(self.policy)
    }
}

/// What `policy`'s comparator orders by: a needy schedulable (below its
/// minimum share) first, then the needy by usage over minimum share, the
/// others by memory usage over weight (`fair`, Java's `float`) or by
/// dominant then other share of the cluster over weight (`drf`); `fifo`
/// leaves the order to the ties (start time, then name: FifoPolicy, every
/// application's priority being the same).
fn share_key(policy: QueuePolicy, cluster: Resource, s: Sortable) -> Key {
    match policy {
        QueuePolicy::Fifo => (1, 0.0, 0.0),
        QueuePolicy::Fair => {
            // Resources.min/max under DefaultResourceCalculator: by memory.
            let min_share = if s.min.mb() <= s.demand.mb() {
                s.min
            } else {
                s.demand
            };
            if s.used.mb() < min_share.mb() {
                let ratio = s.used.mb() as f64 / min_share.mb().max(1) as f64;
                (0, ratio, 0.0)
            } else {
                (1, f64::from(s.used.mb() as f32 / s.weight as f32), 0.0)
            }
        }
        QueuePolicy::Drf => {
            let (of_cluster, cpu_first) = drf_ordered(s.used, cluster, s.weight);
            // usage over the minimum share, per resource (neutral
            // weights; 0 over 0 is NaN, never below 1: not needy).
            let mem = s.used.mb() as f32 / s.min.mb() as f32;
            let cpu = s.used.vcores() as f32 / s.min.vcores() as f32;
            let of_min = if cpu_first { (cpu, mem) } else { (mem, cpu) };
            if of_min.0 < 1.0 {
                (0, f64::from(of_min.0), f64::from(of_min.1))
            } else {
                (1, f64::from(of_cluster.0), f64::from(of_cluster.1))
            }
        }
    }
}

/// A schedulable as the comparators see it: its usage, weight, minimum
/// share and demand.
#[derive(Clone, Copy, Debug)]
pub struct Sortable {
    pub used: Resource,
    pub weight: f64,
    pub min: Resource,
    pub demand: Resource,
}

impl Sortable {
    /// An application: no minimum share (`FSAppAttempt.getMinShare`),
    /// weight 1.
    fn app(used: Resource) -> Sortable {
        Sortable {
            used,
            weight: 1.0,
            min: Resource::ZERO,
            demand: Resource::UNLIMITED,
        }
    }
}

/// `FSAppAttempt.updateDemand`: what the application holds and what it
/// asks for (its ANY requests, normalised).
fn app_demand(w: &World, j: JobId) -> Resource {
    let max = super::max_allocation(w);
    let job = w.job(j);
    let mut d = job.used;
    for ask in ASKS {
        if !super::wants(w, j, ask) {
            continue;
        }
        let n = match ask {
            Ask::Am => 1,
            Ask::Reduce => job.reduce_asks.min(job.reduces_pending),
            Ask::Map => job.maps_pending,
        };
        let c = super::normalize_both(super::asked(w, j, ask), max);
        d += c * i64::from(n);
    }
    d
}

/// `FairScheduler.fitsInMaxShare`: job `j`'s queue with `add` more
/// within its maximum (root has none).
fn fits_in_max_share(w: &World, j: JobId, add: Resource) -> bool {
    let p = w.job(j).pool as usize;
    (w.pool_stats[p].used + add).fits_in(w.pools[p].max_resources)
}

/// A comparator key: 0 for needy, 1 for not, then the two ratios.
type Key = (u8, f64, f64);

fn cmp_keys(a: Key, b: Key) -> Ordering {
    a.0.cmp(&b.0)
        .then(a.1.partial_cmp(&b.1).unwrap_or(Ordering::Equal))
        .then(a.2.partial_cmp(&b.2).unwrap_or(Ordering::Equal))
}

/// Shares of the cluster over weight, dominant first, and whether CPU is
/// the dominant one (`calculateShares`' resource order).
fn drf_ordered(used: Resource, cluster: Resource, weight: f64) -> ((f32, f32), bool) {
    let w = weight as f32;
    let mem = used.mb() as f32 / (cluster.mb() as f32 * w);
    let cpu = used.vcores() as f32 / (cluster.vcores() as f32 * w);
    if mem >= cpu {
        ((mem, cpu), false)
    } else {
        ((cpu, mem), true)
    }
}

/// A schedulable's shares of the cluster divided by its weight, dominant
/// first (`DominantResourceFairnessPolicy.calculateShares`, f32).
pub fn drf_shares(used: Resource, cluster: Resource, weight: f64) -> (f32, f32) {
    drf_ordered(used, cluster, weight).0
}

/// The leaf queues' instantaneous fair shares, by pool, and what they
/// were computed from: the cluster's resources and which queues were
/// active (their weights do not change during a run).
#[derive(Clone, Default)]
struct Shares {
    fair: Vec<Resource>,
    from: (Resource, Vec<bool>),
}

/// One schedulable as `ComputeFairShares` sees it, for one resource: its
/// weight, minimum and maximum share, and whether it is active (a queue
/// with a runnable application).
#[derive(Clone, Copy, Debug)]
pub struct Sched {
    pub weight: f64,
    pub min: i64,
    pub max: i64,
    pub active: bool,
}

impl Sched {
    /// An active schedulable of this weight, no minimum, no maximum.
    pub fn weighted(weight: f64) -> Sched {
        Sched {
            weight,
            min: 0,
            max: i32::MAX.into(),
            active: true,
        }
    }

    /// `computeShare`: weight × ratio within [min, max], truncated.
    fn share(&self, ratio: f64) -> i64 {
        let share = f64::from(self.weight as f32) * ratio;
        share.max(self.min as f64).min(self.max as f64) as i32 as i64
    }

    /// `getFairShareIfFixed` (instantaneous shares): 0 with no maximum,
    /// when inactive, or, with no weight, the minimum; None if it is to be
    /// computed.
    fn fixed(&self) -> Option<i64> {
        if self.max == 0 || !self.active {
            Some(0)
        } else if self.weight as f32 <= 0.0 {
            Some(self.min)
        } else {
            None
        }
    }
}

/// `ComputeFairShares.computeShares`: fixed shares first, then the
/// weight-to-resource ratio Hadoop's binary search finds for the rest of
/// `total` (at most their maximums), each share weight × ratio within its
/// minimum and maximum, truncated to an int.
pub fn compute_shares(scheds: &[Sched], total: i64) -> Vec<i64> {
    let mut out: Vec<i64> = scheds.iter().map(|s| s.fixed().unwrap_or(0)).collect();
    let taken = scheds
        .iter()
        .filter_map(Sched::fixed)
        .fold(0i64, |a, x| (a + x).min(i64::from(i32::MAX)));
    let rest: Vec<usize> = (0..scheds.len())
        .filter(|&i| scheds[i].fixed().is_none())
        .collect();
    if rest.is_empty() {
        return out;
    }
    let max_total = rest
        .iter()
        .fold(0i64, |a, &i| (a + scheds[i].max).min(i64::from(i32::MAX)));
    let total = (total - taken).max(0).min(max_total);
    let used = |r: f64| -> i64 { rest.iter().map(|&i| scheds[i].share(r)).sum() };
    let mut r_max = 1.0;
    while used(r_max) < total {
        r_max *= 2.0;
    }
    let (mut left, mut right) = (0.0, r_max);
    for _ in 0..25 {
        let mid = (left + right) / 2.0;
        let planned = used(mid);
        if planned == total {
            right = mid;
            break;
        } else if planned < total {
            left = mid;
        } else {
            right = mid;
        }
    }
    for &i in &rest {
        out[i] = scheds[i].share(right);
    }
    out
}

/// The fair shares, recomputed only when what they depend on changed
/// (Hadoop's update thread recomputes them twice a second).
fn cached_shares<'a>(
    cache: &'a std::cell::RefCell<Shares>,
    w: &World,
    policy: QueuePolicy,
) -> std::cell::Ref<'a, Shares> {
    let fresh = {
        let c = cache.borrow();
        c.from.0 == w.cluster.live
            && c.from.1.len() == w.pool_stats.len()
            && c.from
                .1
                .iter()
                .zip(&w.pool_stats)
                .all(|(&a, s)| a == (s.runnable_jobs > 0))
    };
    if !fresh {
        *cache.borrow_mut() = shares(w, policy);
    }
    cache.borrow()
}

fn shares(w: &World, policy: QueuePolicy) -> Shares {
    let scheds = |of: fn(Resource) -> i64| -> Vec<Sched> {
        w.pools
            .iter()
            .zip(&w.pool_stats)
            .map(|(p, s)| Sched {
                weight: p.weight,
                min: of(p.min_resources),
                max: of(p.max_resources),
                active: s.runnable_jobs > 0,
            })
            .collect()
    };
    let mem = compute_shares(&scheds(|r| r.mb()), w.cluster.live.mb());
    let cpu = match policy {
        QueuePolicy::Drf => compute_shares(&scheds(|r| r.vcores()), w.cluster.live.vcores()),
        // FairSharePolicy computes memory shares only.
        QueuePolicy::Fair | QueuePolicy::Fifo => vec![0; w.pools.len()],
    };
    Shares {
        fair: mem
            .into_iter()
            .zip(cpu)
            .map(|(m, c)| Resource::memory(m, c))
            .collect(),
        from: (
            w.cluster.live,
            w.pool_stats.iter().map(|s| s.runnable_jobs > 0).collect(),
        ),
    }
}

impl Policy for YarnFair {
    fn label(&self) -> &str {
        &self.label
    }

    fn slowstart(&self) -> f64 {
        self.slowstart
    }

    fn adopt(&mut self, w: &World) {
        self.check_queues(w);
    }

    fn fault(&self) -> Option<&str> {
        self.fault.as_deref()
    }

    /// Hadoop's FairScheduler walks its queues on every NodeManager
    /// heartbeat, a full node's too (`attemptScheduling`), so an application
    /// whose container does not fit may reserve a node no container has
    /// left: the walk runs here for the heartbeats the engine does not
    /// offer (less than the minimum allocation free). Once the node is
    /// reserved the walk is a check of its reservation.
    fn maintain(&mut self, hb: &mut Heartbeat<'_>) {
        if !hb.node().admits_any(hb.capacity()) {
            self.heartbeat(hb);
        }
    }

    fn heartbeat(&mut self, hb: &mut Heartbeat<'_>) {
        if !self.checked {
            self.check_queues(hb.world());
        }
        if self.fault.is_some() {
            return;
        }
        let n = hb.world().cluster.nodes.len();
        if self.reserved.len() < n {
            self.reserved.resize(n, None);
        }
        drop(cached_shares(&self.shares, hb.world(), self.policy));
        let shares = std::mem::take(&mut *self.shares.borrow_mut());
        self.serve(hb, &shares);
        *self.shares.borrow_mut() = shares;
    }

    /// `FSAppAttempt.getHeadroom`: the queue's fair share less its usage
    /// (memory; under drf vcores too), within what the cluster has free and
    /// the queue's maximum leaves;
    /// the FairScheduler schedules CPU as well as memory.
    fn headroom(&self, w: &World, j: JobId) -> Headroom {
        let pool = w.job(j).pool as usize;
        let fair = cached_shares(&self.shares, w, self.policy).fair[pool];
        let used = w.pool_stats[pool].used;
        let max = w.pools[pool].max_resources;
        // What the cluster has free, within the queue's maximum.
        let free = (w.cluster.live - w.cluster.used)
            .floor0()
            .min_each((max - used).floor0());
        let mb = free.mb().min((fair.mb() - used.mb()).max(0));
        // The queue's policy's `getHeadroom`.
        let vcores = match self.queue_policy(w, pool) {
            QueuePolicy::Fair | QueuePolicy::Fifo => free.vcores(),
            QueuePolicy::Drf => free.vcores().min((fair.vcores() - used.vcores()).max(0)),
        };
        Headroom {
            available: Resource::memory(mb, vcores),
            cpu: true,
        }
    }
}

impl Show for YarnFair {
    fn inspect(&self, w: &World, _node: NodeId) -> Inspection {
        let mut i = usage_inspection(w);
        let shares = cached_shares(&self.shares, w, self.policy);
        for (p, pool) in w.pools.iter().enumerate() {
            if let Some(v) = i.pools.get_mut(&pool.name) {
                v.insert("fair_share_mb", shares.fair[p].mb());
                if self.policy == QueuePolicy::Drf {
                    v.insert("fair_share_vcores", shares.fair[p].vcores());
                }
                if !pool.min_resources.is_zero() {
                    v.insert("min_share_mb", pool.min_resources.mb());
                    v.insert("min_share_vcores", pool.min_resources.vcores());
                }
                if pool.max_resources != Resource::UNLIMITED {
                    v.insert("max_share_mb", pool.max_resources.mb());
                    v.insert("max_share_vcores", pool.max_resources.vcores());
                }
            }
        }
        i.cluster.insert(
            "reserved_nodes",
            self.reserved.iter().filter(|r| r.is_some()).count(),
        );
        i
    }
}

impl YarnFair {
    /// Root's walk: queues in order, each one's apps in order; the first
    /// application that takes a container or reserves ends it.
    /// `FairScheduler.attemptScheduling` on this node.
    fn serve(&mut self, hb: &mut Heartbeat<'_>, shares: &Shares) {
        if let Some((j, ask)) = self.reserved[hb.node as usize] {
            let w = hb.world();
            let max = super::max_allocation(w);
            let res = super::normalize_both(super::asked(w, j, ask), max);
            if w.job(j).is_done() || !super::wants(w, j, ask) || !fits_in_max_share(w, j, res) {
                self.reserved[hb.node as usize] = None;
            } else {
                if res.fits_in(hb.node().available()) {
                    self.assign_app(hb, j, shares);
                }
                return;
            }
        }
        let mut assigned = 0i64;
        while self.reserved[hb.node as usize].is_none() {
            let took = self.assign_root(hb, shares);
            if took != Some(true) {
                break;
            }
            assigned += 1;
            if !self.assign_multiple || (self.max_assign > 0 && assigned >= self.max_assign) {
                break;
            }
        }
    }

    fn assign_root(&mut self, hb: &mut Heartbeat<'_>, shares: &Shares) -> Option<bool> {
        let w = hb.world();
        let cluster = w.cluster.live;
        // Queues in order (their sort keys computed once; queues all start
        // at 0, as FSQueue.getStartTime, so ties go by name), then each
        // queue's applications by (key, start time, name). Buffers are kept
        // between heartbeats.
        let mut walk = std::mem::take(&mut self.walk);
        let mut queues = std::mem::take(&mut self.queues);
        let mut has_apps = std::mem::take(&mut self.has_apps);
        has_apps.clear();
        has_apps.resize(w.pools.len(), false);
        super::apps_into(w, &mut self.apps);
        let mut demand = std::mem::take(&mut self.demand);
        demand.clear();
        demand.resize(w.pools.len(), Resource::ZERO);
        for &j in &self.apps {
            let p = w.job(j).pool as usize;
            has_apps[p] = true;
            // `FSLeafQueue.updateDemand`, needed only against a minimum.
            if !w.pools[p].min_resources.is_zero() {
                demand[p] += app_demand(w, j);
            }
        }
        queues.clear();
        for (p, &here) in has_apps.iter().enumerate() {
            let pool = &w.pools[p];
            // `assignContainerPreCheck`: a queue at or over its maximum
            // takes nothing.
            if here && w.pool_stats[p].used.fits_in(pool.max_resources) {
                let s = Sortable {
                    used: w.pool_stats[p].used,
                    weight: pool.weight,
                    min: pool.min_resources,
                    demand: demand[p].min_each(pool.max_resources),
                };
                queues.push((share_key(self.policy, cluster, s), p));
            }
        }
        self.demand = demand;
        queues.sort_by(|a, b| {
            cmp_keys(a.0, b.0).then_with(|| w.pools[a.1].name.cmp(&w.pools[b.1].name))
        });
        // Queue by queue, its applications in order: the walk stops at the
        // first that takes a container, so later queues are not sorted.
        let mut took = None;
        for &(_, q) in &queues {
            let w = hb.world();
            let policy = self.queue_policy(w, q);
            walk.clear();
            for &j in &self.apps {
                let job = w.job(j);
                if job.pool as usize == q {
                    walk.push((
                        share_key(policy, cluster, Sortable::app(job.used)),
                        job.submit,
                        j,
                    ));
                }
            }
            walk.sort_by(|a, b| {
                cmp_keys(a.0, b.0)
                    .then(a.1.cmp(&b.1))
                    .then_with(|| w.job(a.2).name.cmp(&w.job(b.2).name))
                    .then(a.2.cmp(&b.2))
            });
            for &(_, _, j) in &walk {
                took = self.assign_app(hb, j, shares);
                if took.is_some() {
                    break;
                }
            }
            if took.is_some() {
                break;
            }
        }
        self.walk = walk;
        self.queues = queues;
        self.has_apps = has_apps;
        took
    }
}

/// What every YARN policy shows: per job its containers' memory and
/// vcores and its AM's state, per pool what its containers and AMs hold.
pub fn usage_inspection(w: &World) -> Inspection {
    let mut i = Inspection::default();
    let cap = w.cluster.live;
    i.cluster.insert("used_mb", w.cluster.used.mb());
    i.cluster.insert("capacity_mb", cap.mb());
    i.cluster.insert("used_vcores", w.cluster.used.vcores());
    i.cluster.insert("capacity_vcores", cap.vcores());
    for j in super::apps(w) {
        let job = w.job(j);
        let mut v = Values::new();
        let am = if w.awaiting_am.binary_search(&j).is_ok() {
            "waiting"
        } else if job.am_ready.is_some() {
            "running"
        } else {
            "none"
        };
        v.insert("am", am);
        v.insert("used_mb", job.used.mb());
        v.insert("used_vcores", job.used.vcores());
        v.insert(
            "dominant_share",
            num(f64::from(drf_shares(job.used, cap, 1.0).0)),
        );
        v.insert("pending_maps", job.maps_pending);
        v.insert("pending_reduces", job.reduces_pending);
        i.jobs.insert(job.name.clone(), v);
    }
    for (p, pool) in w.pools.iter().enumerate() {
        let s = &w.pool_stats[p];
        if s.runnable_jobs == 0 && s.used.is_zero() {
            continue;
        }
        let mut v = Values::new();
        v.insert("used_mb", s.used.mb());
        v.insert("used_vcores", s.used.vcores());
        v.insert("am_used_mb", s.am_used.mb());
        v.insert(
            "dominant_share",
            num(f64::from(drf_shares(s.used, cap, 1.0).0)),
        );
        v.insert("weight", num(pool.weight));
        i.pools.insert(pool.name.clone(), v);
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scheds(list: &[(i64, i64, f64)]) -> Vec<Sched> {
        list.iter()
            .map(|&(min, max, weight)| Sched {
                weight,
                min,
                max,
                active: true,
            })
            .collect()
    }

    /// Hadoop 2.7.3's TestComputeFairShares (FakeSchedulable's defaults: no
    /// minimum, Integer.MAX_VALUE as maximum, weight 1).
    #[test]
    fn compute_fair_shares_as_hadoop_tests_them() {
        const NO_MAX: i64 = i32::MAX as i64;
        let w = |ws: &[f64]| ws.iter().map(|&x| Sched::weighted(x)).collect::<Vec<_>>();
        // testEqualSharing
        assert_eq!(compute_shares(&w(&[1.0; 4]), 40), [10, 10, 10, 10]);
        // testLowMaxShares
        let s = scheds(&[(0, 100, 1.0), (0, 50, 1.0), (0, 11, 1.0), (0, 3, 1.0)]);
        assert_eq!(compute_shares(&s, 40), [13, 13, 11, 3]);
        // testMinShares
        let s = scheds(&[
            (20, NO_MAX, 1.0),
            (18, NO_MAX, 1.0),
            (0, NO_MAX, 1.0),
            (2, NO_MAX, 1.0),
        ]);
        assert_eq!(compute_shares(&s, 40), [20, 18, 0, 2]);
        // testWeightedSharing
        assert_eq!(
            compute_shares(&w(&[2.0, 1.0, 1.0, 0.5]), 45),
            [20, 10, 10, 5]
        );
        // testWeightedSharingWithMaxShares
        let s = scheds(&[(0, 10, 2.0), (0, 11, 1.0), (0, 30, 1.0), (0, 20, 0.5)]);
        assert_eq!(compute_shares(&s, 45), [10, 11, 16, 8]);
        // testWeightedSharingWithMinShares
        let s = scheds(&[
            (20, NO_MAX, 2.0),
            (0, NO_MAX, 1.0),
            (5, NO_MAX, 1.0),
            (15, NO_MAX, 0.5),
        ]);
        assert_eq!(compute_shares(&s, 45), [20, 5, 5, 15]);
        // testLargeShares
        assert_eq!(compute_shares(&w(&[1.0; 4]), 40_000_000), [10_000_000; 4]);
        // testEmptyList
        assert!(compute_shares(&[], 40).is_empty());
        // An inactive queue gets nothing; the active share the rest.
        let mut s = w(&[1.0; 3]);
        s[1].active = false;
        assert_eq!(compute_shares(&s, 40), [20, 0, 20]);
        // Weight 0: the minimum share, fixed (getFairShareIfFixed).
        let s = scheds(&[(7, NO_MAX, 0.0), (0, NO_MAX, 1.0)]);
        assert_eq!(compute_shares(&s, 40), [7, 33]);
    }

    fn with_thresholds(node: f64, rack: f64) -> YarnFair {
        let table = toml::Table::new();
        let mut p = YarnFair::build(&Settings::new("yarn-fair", "yarn-fair", &table)).unwrap();
        p.node_threshold = node;
        p.rack_threshold = rack;
        p
    }

    /// TestFSAppAttempt.testDelayScheduling: 10 nodes, thresholds 0.5 and
    /// 0.6: NODE_LOCAL for five missed opportunities, RACK_LOCAL at the
    /// sixth; after a reset the same again, then OFF_SWITCH after seven more.
    #[test]
    fn hadoop_fs_app_attempt_delay_scheduling() {
        let mut p = with_thresholds(0.5, 0.6);
        let (j, ask) = (0, Ask::Map);
        let level = |p: &mut YarnFair| p.allowed_level(j, ask, 10);
        assert_eq!(level(&mut p), Level::NodeLocal);
        for _ in 0..5 {
            p.delay_mut(j, ask).opportunities += 1;
            assert_eq!(level(&mut p), Level::NodeLocal);
        }
        p.delay_mut(j, ask).opportunities += 1;
        assert_eq!(level(&mut p), Level::RackLocal);
        // resetAllowedLocalityLevel(NODE_LOCAL), resetSchedulingOpportunities.
        *p.delay_mut(j, ask) = Delay {
            allowed: Some(Level::NodeLocal),
            opportunities: 0,
        };
        for _ in 0..5 {
            p.delay_mut(j, ask).opportunities += 1;
            assert_eq!(level(&mut p), Level::NodeLocal);
        }
        p.delay_mut(j, ask).opportunities += 1;
        assert_eq!(level(&mut p), Level::RackLocal);
        for _ in 0..6 {
            p.delay_mut(j, ask).opportunities += 1;
            assert_eq!(level(&mut p), Level::RackLocal);
        }
        p.delay_mut(j, ask).opportunities += 1;
        assert_eq!(level(&mut p), Level::OffSwitch);
    }

    /// TestFSAppAttempt.testLocalityLevelWithoutDelays: -1 → OFF_SWITCH.
    #[test]
    fn hadoop_fs_app_attempt_locality_without_delays() {
        let mut p = with_thresholds(-1.0, -1.0);
        assert_eq!(p.allowed_level(0, Ask::Map, 10), Level::OffSwitch);
    }

    /// DominantResourceFairnessPolicy: testCalculateShares' numbers, and
    /// the comparator's sign in testSameDominantResource,
    /// testDifferentDominantResource, testOneIsNeedy and testBothAreNeedy.
    #[test]
    fn hadoop_drf_policy_shares_and_order() {
        let (d, o) = drf_shares(Resource::memory(10, 5), Resource::memory(100, 10), 1.0);
        assert_eq!((d, o), (0.5, 0.1));
        let p = YarnFair {
            policy: QueuePolicy::Drf,
            ..with_thresholds(-1.0, -1.0)
        };
        let s = |mb, vc, min_mb, min_vc| {
            let s = Sortable {
                used: Resource::memory(mb, vc),
                weight: 1.0,
                min: Resource::memory(min_mb, min_vc),
                demand: Resource::UNLIMITED,
            };
            (s, 0u64, "")
        };
        let c = Resource::memory(8000, 4);
        assert_eq!(p.cmp(c, s(1000, 1, 0, 0), s(2000, 1, 0, 0)), Ordering::Less);
        let c = Resource::memory(8000, 8);
        assert_eq!(p.cmp(c, s(4000, 3, 0, 0), s(2000, 5, 0, 0)), Ordering::Less);
        // testOneIsNeedy: 5 of a 6-vcore minimum is needy, goes first.
        assert_eq!(p.cmp(c, s(2000, 5, 0, 6), s(4000, 3, 0, 0)), Ordering::Less);
        // testBothAreNeedy: by dominant share, then by share of minimum.
        let c = Resource::memory(8000, 100);
        assert_eq!(p.cmp(c, s(2000, 5, 0, 0), s(4000, 3, 0, 0)), Ordering::Less);
        assert_eq!(
            p.cmp(c, s(2000, 5, 3000, 6), s(4000, 3, 5000, 4)),
            Ordering::Less
        );
    }

    /// FairSharePolicy's comparator: a queue below min(minimum, demand) of
    /// memory goes first; two needy ones by usage over that minimum.
    #[test]
    fn fair_policy_puts_needy_queues_first() {
        let p = with_thresholds(-1.0, -1.0);
        let c = Resource::memory(10_240, 10);
        let q = |mb: i64, min: i64, demand: i64, weight: f64| {
            let s = Sortable {
                used: Resource::memory(mb, 1),
                weight,
                min: Resource::memory(min, 0),
                demand: Resource::memory(demand, 10),
            };
            (s, 0u64, "")
        };
        // Needy (1 GB of a 2 GB minimum) before a less used queue without one.
        assert_eq!(
            p.cmp(c, q(1024, 2048, 8192, 1.0), q(0, 0, 8192, 1.0)),
            Ordering::Less
        );
        // The minimum counts only up to the demand: not needy.
        assert_eq!(
            p.cmp(c, q(1024, 2048, 1024, 1.0), q(0, 0, 8192, 1.0)),
            Ordering::Greater
        );
        // Both needy: 1024/4096 before 1024/2048.
        assert_eq!(
            p.cmp(c, q(1024, 4096, 8192, 1.0), q(1024, 2048, 8192, 1.0)),
            Ordering::Less
        );
        // Neither: memory over weight.
        assert_eq!(
            p.cmp(c, q(2048, 0, 8192, 4.0), q(1024, 0, 8192, 1.0)),
            Ordering::Less
        );
    }
}

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
use crate::model::{JobId, NodeId, Resource};
use crate::sched::registry::{Entry, DEFAULT_SLOWSTART};
use crate::sched::settings::{ConfigError, Settings};
use crate::sim::policy::{num, Headroom, Inspection, Policy, Values};
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
    build: |s, _| Ok(Box::new(YarnFair::build(s)?)),
};

/// How schedulables are ordered (`SchedulingPolicy`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ordering2 {
    Fair,
    Drf,
}

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
    policy: Ordering2,
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
    queues: Vec<((f32, f32), usize)>,
    has_apps: Vec<bool>,
    walk: Vec<((f32, f32), u64, JobId)>,
}

impl YarnFair {
    fn build(s: &Settings) -> Result<YarnFair, ConfigError> {
        let own: Config = s.own()?;
        let policy = match own.scheduling_policy.as_deref() {
            None | Some("fair") => Ordering2::Fair,
            Some("drf") => Ordering2::Drf,
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
            if !res.fits_in(hb.node().resource) {
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
            return Some(self.assign(hb, j, ask, res, level));
        }
        None
    }

    /// Allocates a container of `res` at `level`, or reserves the node if
    /// it does not fit what is free.
    fn assign(
        &mut self,
        hb: &mut Heartbeat<'_>,
        j: JobId,
        ask: Ask,
        res: Resource,
        level: Level,
    ) -> bool {
        let node = hb.node();
        if !res.fits_in(node.available()) || node.free_containers() == 0 {
            self.reserved[hb.node as usize] = Some((j, ask));
            return false;
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
        true
    }

    /// `FSLeafQueue.canRunAppAM`: the queue's AMs with this one within
    /// `max_am_share` of its fair share.
    fn can_run_am(&self, w: &World, j: JobId, am: Resource, shares: &Shares) -> bool {
        if self.max_am_share < 0.0 {
            return true;
        }
        let pool = w.job(j).pool as usize;
        let fair = shares.fair[pool];
        let limit = Resource::new(
            (f64::from(fair.mb) * self.max_am_share) as u32,
            (f64::from(fair.vcores) * self.max_am_share) as u32,
        );
        let after = w.pool_stats[pool].am_used.plus(am);
        match self.policy {
            Ordering2::Fair => after.mb <= limit.mb,
            Ordering2::Drf => after.fits_in(limit),
        }
    }

    /// `FairSharePolicy.FairShareComparator` / `DominantResourceFairness
    /// Comparator` with no minimum shares (the walk sorts by its keys): usage over weight (memory), or
    /// dominant then other share over weight, in Java's float arithmetic;
    /// ties by start time, then name.
    #[cfg(test)]
    fn cmp(
        &self,
        cluster: Resource,
        a: (Resource, f64, u64, &str),
        b: (Resource, f64, u64, &str),
    ) -> Ordering {
        let (ka, kb) = (
            self.share_key(cluster, a.0, a.1),
            self.share_key(cluster, b.0, b.1),
        );
        ka.partial_cmp(&kb)
            .unwrap_or(Ordering::Equal)
            .then(a.2.cmp(&b.2))
            .then_with(|| a.3.cmp(b.3))
    }

    /// What the comparator orders by: memory usage over weight (fair), or
    /// dominant then other share over weight (drf), in Java's float.
    fn share_key(&self, cluster: Resource, used: Resource, weight: f64) -> (f32, f32) {
        match self.policy {
            Ordering2::Fair => (used.mb as f32 / weight as f32, 0.0),
            Ordering2::Drf => drf_shares(used, cluster, weight),
        }
    }
}

/// A schedulable's shares of the cluster divided by its weight, dominant
/// first (`DominantResourceFairnessPolicy.calculateShares`, f32).
pub fn drf_shares(used: Resource, cluster: Resource, weight: f64) -> (f32, f32) {
    let w = weight as f32;
    let mem = used.mb as f32 / (cluster.mb as f32 * w);
    let cpu = used.vcores as f32 / (cluster.vcores as f32 * w);
    if mem >= cpu {
        (mem, cpu)
    } else {
        (cpu, mem)
    }
}

/// The leaf queues' instantaneous fair shares, by pool, and what they
/// were computed from: the cluster's resources and which queues were
/// active (their weights do not change during a run).
#[derive(Clone, Default)]
struct Shares {
    fair: Vec<Resource>,
    from: (Resource, Vec<bool>),
}

/// `ComputeFairShares.computeShares` over root's active queues (with no
/// minimum or maximum shares): the weight-to-resource ratio found by
/// Hadoop's binary search, each share truncated to an int.
pub fn compute_shares(weights: &[Option<f64>], total: u32) -> Vec<u32> {
    let used = |r: f64| -> u64 {
        weights
            .iter()
            .map(|w| w.map_or(0, |w| (w * r) as i32 as u64))
            .sum()
    };
    let total = u64::from(total);
    if weights.iter().all(Option::is_none) {
        return vec![0; weights.len()];
    }
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
    weights
        .iter()
        .map(|w| w.map_or(0, |w| (w * right) as i32 as u32))
        .collect()
}

/// The fair shares, recomputed only when what they depend on changed
/// (Hadoop's update thread recomputes them twice a second).
fn cached_shares<'a>(
    cache: &'a std::cell::RefCell<Shares>,
    w: &World,
    policy: Ordering2,
) -> std::cell::Ref<'a, Shares> {
    let fresh = {
        let c = cache.borrow();
        c.from.0 == w.cluster.capacity
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

fn shares(w: &World, policy: Ordering2) -> Shares {
    let weights: Vec<Option<f64>> = w
        .pools
        .iter()
        .zip(&w.pool_stats)
        .map(|(p, s)| (s.runnable_jobs > 0).then_some(p.weight))
        .collect();
    let mem = compute_shares(&weights, w.cluster.capacity.mb);
    let cpu = match policy {
        Ordering2::Drf => compute_shares(&weights, w.cluster.capacity.vcores),
        // FairSharePolicy computes memory shares only.
        Ordering2::Fair => vec![0; weights.len()],
    };
    Shares {
        fair: mem
            .into_iter()
            .zip(cpu)
            .map(|(m, c)| Resource::new(m, c))
            .collect(),
        from: (
            w.cluster.capacity,
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

    fn heartbeat(&mut self, hb: &mut Heartbeat<'_>) {
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
    /// (memory; under drf vcores too), within what the cluster has free;
    /// the FairScheduler schedules CPU as well as memory.
    fn headroom(&self, w: &World, j: JobId) -> Headroom {
        let pool = w.job(j).pool as usize;
        let fair = cached_shares(&self.shares, w, self.policy).fair[pool];
        let used = w.pool_stats[pool].used;
        let free = w.cluster.capacity.minus(w.cluster.used);
        let mb = free.mb.min(fair.mb.saturating_sub(used.mb));
        let vcores = match self.policy {
            Ordering2::Fair => free.vcores,
            Ordering2::Drf => free.vcores.min(fair.vcores.saturating_sub(used.vcores)),
        };
        Headroom {
            available: Resource::new(mb, vcores),
            cpu: true,
        }
    }

    fn inspect(&self, w: &World, _node: NodeId) -> Inspection {
        let mut i = usage_inspection(w);
        let shares = cached_shares(&self.shares, w, self.policy);
        for (p, pool) in w.pools.iter().enumerate() {
            if let Some(v) = i.pools.get_mut(&pool.name) {
                v.insert("fair_share_mb", shares.fair[p].mb);
                if self.policy == Ordering2::Drf {
                    v.insert("fair_share_vcores", shares.fair[p].vcores);
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
            if w.job(j).is_done() || !super::wants(w, j, ask) {
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
        let cluster = w.cluster.capacity;
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
        for &j in &self.apps {
            has_apps[w.job(j).pool as usize] = true;
        }
        queues.clear();
        for (p, &here) in has_apps.iter().enumerate() {
            if here {
                let k = self.share_key(cluster, w.pool_stats[p].used, w.pools[p].weight);
                queues.push((k, p));
            }
        }
        queues.sort_by(|a, b| {
            a.0.partial_cmp(&b.0)
                .unwrap_or(Ordering::Equal)
                .then_with(|| w.pools[a.1].name.cmp(&w.pools[b.1].name))
        });
        // Queue by queue, its applications in order: the walk stops at the
        // first that takes a container, so later queues are not sorted.
        let mut took = None;
        for &(_, q) in &queues {
            let w = hb.world();
            walk.clear();
            for &j in &self.apps {
                let job = w.job(j);
                if job.pool as usize == q {
                    walk.push((self.share_key(cluster, job.used, 1.0), job.submit, j));
                }
            }
            walk.sort_by(|a, b| {
                a.0.partial_cmp(&b.0)
                    .unwrap_or(Ordering::Equal)
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
    let cap = w.cluster.capacity;
    i.cluster.insert("used_mb", w.cluster.used.mb);
    i.cluster.insert("capacity_mb", cap.mb);
    i.cluster.insert("used_vcores", w.cluster.used.vcores);
    i.cluster.insert("capacity_vcores", cap.vcores);
    for j in super::apps(w) {
        let job = w.job(j);
        let mut v = Values::new();
        let am = if w.awaiting_setup.binary_search(&j).is_ok() {
            "waiting"
        } else if job.am_ready.is_some() {
            "running"
        } else {
            "none"
        };
        v.insert("am", am);
        v.insert("used_mb", job.used.mb);
        v.insert("used_vcores", job.used.vcores);
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
        v.insert("used_mb", s.used.mb);
        v.insert("used_vcores", s.used.vcores);
        v.insert("am_used_mb", s.am_used.mb);
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

    /// Hadoop 2.7.3's TestComputeFairShares, the cases without minimum or
    /// maximum shares (slotsim's queues have neither yet).
    #[test]
    fn compute_fair_shares_as_hadoop_tests_them() {
        let w = |ws: &[f64]| ws.iter().map(|&x| Some(x)).collect::<Vec<_>>();
        // testEqualSharing
        assert_eq!(compute_shares(&w(&[1.0; 4]), 40), [10, 10, 10, 10]);
        // testWeightedSharing
        assert_eq!(
            compute_shares(&w(&[2.0, 1.0, 1.0, 0.5]), 45),
            [20, 10, 10, 5]
        );
        // testLargeShares
        assert_eq!(compute_shares(&w(&[1.0; 4]), 40_000_000), [10_000_000; 4]);
        // testEmptyList
        assert!(compute_shares(&[], 40).is_empty());
        // An inactive queue gets nothing; the active share the rest.
        assert_eq!(
            compute_shares(&[Some(1.0), None, Some(1.0)], 40),
            [20, 0, 20]
        );
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
    /// the comparator's sign in testSameDominantResource and
    /// testDifferentDominantResource.
    #[test]
    fn hadoop_drf_policy_shares_and_order() {
        let (d, o) = drf_shares(Resource::new(10, 5), Resource::new(100, 10), 1.0);
        assert_eq!((d, o), (0.5, 0.1));
        let p = YarnFair {
            policy: Ordering2::Drf,
            ..with_thresholds(-1.0, -1.0)
        };
        let key = |mb, vc| (Resource::new(mb, vc), 1.0, 0u64, "");
        let c = Resource::new(8000, 4);
        assert_eq!(p.cmp(c, key(1000, 1), key(2000, 1)), Ordering::Less);
        let c = Resource::new(8000, 8);
        assert_eq!(p.cmp(c, key(4000, 3), key(2000, 5)), Ordering::Less);
    }
}

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
//!
//! In submodules, along Hadoop's classes: `assign` (the walk:
//! `FairScheduler.attemptScheduling`, `FSParentQueue` / `FSLeafQueue` /
//! `FSAppAttempt.assignContainer`), `delay` (`FSAppAttempt`'s locality
//! delay), `policies` (the SchedulingPolicy comparators) and `shares`
//! (`ComputeFairShares`).

mod assign;
mod delay;
pub(super) mod policies;
mod shares;

pub use policies::{drf_shares, Sortable};
pub use shares::{compute_shares, Sched};

use super::show::{insert_fair_share, insert_reservations, listed, AmState, Reservation};
use super::{normalize_both, usage_inspection, Ask};
use crate::model::Models;
use crate::model::{JobId, NodeId, QueuePolicy, Resource};
use crate::sched::registry::{Entry, DEFAULT_SLOWSTART};
use crate::sched::settings::{ConfigError, Settings};
use crate::sim::policy::{Headroom, Inspection, Policy, Show};
use crate::sim::{Heartbeat, RunView};
use delay::Delay;
use policies::Key;
use shares::{cached_shares, Shares};

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

#[derive(Clone)]
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
    /// The order as last walked, kept while nothing it depends on moved:
    /// the queues' as of the view's `books_epoch` and live cluster it was
    /// sorted at; each queue's applications as of its pool's `epoch`
    /// (and that cluster), once a walk reached the queue.
    order_at: Option<(u64, Resource)>,
    walks: Vec<Vec<JobId>>,
    walked_at: Vec<Option<u64>>,
    /// Per job id: whether it is in the queue being sorted (`marks`) or
    /// already placed in its walk (`marks` + 1).
    mark: Vec<u64>,
    marks: u64,
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
            order_at: None,
            walks: Vec::new(),
            walked_at: Vec::new(),
            mark: Vec::new(),
            marks: 0,
            fault: None,
            checked: false,
        })
    }
}

impl Policy for YarnFair {
    fn slowstart(&self) -> f64 {
        self.slowstart
    }

    fn adopt(&mut self, w: RunView<'_>) {
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
            self.check_queues(hb.view());
        }
        if self.fault.is_some() {
            return;
        }
        let n = hb.view().cluster().nodes.len();
        if self.reserved.len() < n {
            self.reserved.resize(n, None);
        }
        drop(cached_shares(&self.shares, hb.view(), self.policy));
        let shares = std::mem::take(&mut *self.shares.borrow_mut());
        self.serve(hb, &shares);
        *self.shares.borrow_mut() = shares;
    }

    /// `FSAppAttempt.getHeadroom`: the queue's fair share less its usage
    /// (memory; under drf vcores too), within what the cluster has free and
    /// the queue's maximum leaves;
    /// the FairScheduler schedules CPU as well as memory.
    fn headroom(&self, w: RunView<'_>, j: JobId) -> Headroom {
        let pool = w.job(j).pool as usize;
        let fair = cached_shares(&self.shares, w, self.policy).fair[pool];
        let used = w.pool_stats()[pool].used;
        let max = w.pools()[pool].max_resources;
        // What the cluster has free, within the queue's maximum.
        let free = (w.cluster().live - w.cluster().used)
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
    /// What the scheduler page shows: each queue's instantaneous fair
    /// share and the policy it orders by, each application's share of its
    /// queue's (in `fair` and `fifo` queues: a `drf` queue's applications
    /// are ordered by their dominant share, which every YARN inspection
    /// gives), and each reserved node with the application it is held for.
    fn inspect(&self, w: RunView<'_>, _node: NodeId) -> Inspection {
        let mut i = usage_inspection(w, normalize_both);
        let shares = cached_shares(&self.shares, w, self.policy);
        let rows = listed(w);
        for (p, pool) in w.pools().iter().enumerate() {
            let (Some(v), Some(&fair)) = (i.pools.get_mut(&pool.name), shares.fair.get(p)) else {
                continue;
            };
            let policy = self.queue_policy(w, p);
            insert_fair_share(
                v,
                fair,
                self.policy == QueuePolicy::Drf,
                policy.name(),
                pool.min_resources,
                pool.max_resources,
            );
            if policy == QueuePolicy::Drf {
                continue;
            }
            for (j, share) in app_shares(w, &rows, p, policy, fair.mb()) {
                if let Some(v) = i.jobs.get_mut(&*w.job(j).name) {
                    v.insert("fair_share_mb", share);
                }
            }
        }
        let max = super::max_allocation(w);
        let held = self.reserved.iter().enumerate().filter_map(|(n, r)| {
            let (j, ask) = (*r)?;
            let container = normalize_both(super::asked(w, j, ask), max);
            Some(Reservation::of(w, n as NodeId, j, ask, container))
        });
        insert_reservations(&mut i, held.collect());
        i
    }
}

/// `FSLeafQueue.recomputeShares`: queue `p`'s fair share of memory among
/// its runnable applications of `rows` (from submission until their job
/// is done: an AM not yet placed or starting up included), weight 1 each
/// as `FSAppAttempt.getPriority` is the same for all; under `fifo` all of
/// it to the earliest (`FifoPolicy.computeShares`). A finished
/// application whose AM still lingers has left the queue: 0.
fn app_shares(
    w: RunView<'_>,
    rows: &[(JobId, AmState)],
    p: usize,
    policy: QueuePolicy,
    fair_mb: i64,
) -> Vec<(JobId, i64)> {
    let in_queue = |j: JobId| w.job(j).pool as usize == p;
    let apps: Vec<JobId> = rows
        .iter()
        .filter(|&&(j, am)| am != AmState::Exiting && in_queue(j))
        .map(|&(j, _)| j)
        .collect();
    let shares = match policy {
        QueuePolicy::Fifo => {
            let first = apps
                .iter()
                .min_by(|&&a, &&b| {
                    let (ja, jb) = (w.job(a), w.job(b));
                    ja.submit
                        .cmp(&jb.submit)
                        .then_with(|| ja.name.cmp(&jb.name))
                })
                .copied();
            apps.iter()
                .map(|&j| if Some(j) == first { fair_mb } else { 0 })
                .collect()
        }
        QueuePolicy::Fair | QueuePolicy::Drf => {
            compute_shares(&vec![Sched::weighted(1.0); apps.len()], fair_mb)
        }
    };
    let gone = rows
        .iter()
        .filter(|&&(j, am)| am == AmState::Exiting && in_queue(j))
        .map(|&(j, _)| (j, 0));
    apps.into_iter().zip(shares).chain(gone).collect()
}

#[cfg(test)]
impl YarnFair {
    /// A `yarn-fair` as an empty `[scheduler.yarn-fair]` builds it.
    fn defaults() -> YarnFair {
        let table = toml::Table::new();
        YarnFair::build(&Settings::new("yarn-fair", "yarn-fair", &table)).unwrap()
    }
}

//! What the YARN schedulers show of their queues, typed.
//!
//! The engine carries what a policy shows as named values
//! ([`Inspection`]: the inspector's tables, `--inspect`'s JSON), which
//! keeps it free of any one policy's vocabulary. The YARN schedulers put
//! there what Hadoop's ResourceManager shows on its scheduler page: each
//! queue's fair share or capacity, its minimum and maximum, what its
//! ApplicationMasters hold, what its applications still ask for, and which
//! application holds each reserved node. This file writes those names
//! ([`usage_inspection`], [`insert_reservations`]) and reads them back as
//! types for the TUI ([`queues`], [`reservations`]): one place names every
//! key, so what a scheduler writes and what the TUI draws cannot drift
//! apart.

use super::{apps, asked, max_allocation, outstanding, wants, Ask, ASKS};
use crate::model::{JobId, NodeId, Resource};
use crate::sim::jobtask::JobTaskKind;
use crate::sim::policy::{num, num32, Inspection, Value, Values};
use crate::sim::RunView;

/// How a scheduler sizes a request under its resource calculator
/// ([`super::normalize_memory`], [`super::normalize_both`]), so that what a
/// queue is shown to wait for is what the scheduler would grant.
pub type Normalize = fn(Resource, Resource) -> Resource;

/// Pool keys: the queue's fair share (yarn-fair), its guaranteed and
/// maximum capacity (yarn-capacity), its minimum and maximum resources,
/// its ordering policy, and what its applications wait for.
const FAIR_SHARE_MB: &str = "fair_share_mb";
const FAIR_SHARE_VCORES: &str = "fair_share_vcores";
const MIN_SHARE_MB: &str = "min_share_mb";
const MIN_SHARE_VCORES: &str = "min_share_vcores";
const MAX_SHARE_MB: &str = "max_share_mb";
const MAX_SHARE_VCORES: &str = "max_share_vcores";
const CAPACITY_PCT: &str = "capacity_pct";
const CAPACITY_MB: &str = "capacity_mb";
const CAPACITY_VCORES: &str = "capacity_vcores";
const MAX_CAPACITY_PCT: &str = "max_capacity_pct";
const MAX_CAPACITY_MB: &str = "max_capacity_mb";
const MAX_CAPACITY_VCORES: &str = "max_capacity_vcores";
const POLICY: &str = "policy";
const PENDING_CONTAINERS: &str = "pending_containers";
const PENDING_MB: &str = "pending_mb";
const PENDING_VCORES: &str = "pending_vcores";
/// Cluster keys: the calculator yarn-capacity compares with, the AM
/// containers held, and the reserved nodes.
const RESOURCE_CALCULATOR: &str = "resource_calculator";
const AM_CONTAINERS: &str = "am_containers";
const RESERVED_NODES: &str = "reserved_nodes";
const RESERVATIONS: &str = "reservations";

/// An application's ApplicationMaster as the ResourceManager sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AmState {
    /// Asked for, no container yet.
    Waiting,
    /// In its container, not yet registered (its first allocate call).
    Starting,
    /// Registered: asks for its job's containers.
    Running,
    /// Its job is done; it holds its container until its JVM exits.
    Exiting,
    /// The job runs without an AM container (AMs sized 0, as worked
    /// examples have them).
    None,
}

impl AmState {
    pub fn as_str(self) -> &'static str {
        match self {
            AmState::Waiting => "waiting",
            AmState::Starting => "starting",
            AmState::Running => "running",
            AmState::Exiting => "exiting",
            AmState::None => "none",
        }
    }

    /// Whether a container holds it, as the AM count of a node, a queue
    /// or the cluster counts it.
    pub fn holds_container(self) -> bool {
        matches!(
            self,
            AmState::Starting | AmState::Running | AmState::Exiting
        )
    }
}

/// The jobs whose AM holds a container now, ascending: starting up,
/// registered, or lingering after its job.
fn am_holders(w: RunView<'_>) -> Vec<JobId> {
    let mut v: Vec<JobId> = w
        .job_tasks()
        .iter()
        .filter(|t| t.kind == JobTaskKind::Am && t.end.is_none())
        .map(|t| t.job)
        .collect();
    v.sort_unstable();
    v.dedup();
    v
}

/// Job `j`'s AM, given whether a container holds it.
pub fn am_state(w: RunView<'_>, j: JobId, holds: bool) -> AmState {
    let job = w.job(j);
    if w.awaiting_am().binary_search(&j).is_ok() {
        AmState::Waiting
    } else if !holds {
        AmState::None
    } else if job.is_done() {
        AmState::Exiting
    } else if job.am_ready.is_some() {
        AmState::Running
    } else {
        AmState::Starting
    }
}

/// What job `j` still asks for: its outstanding containers at every
/// priority, each sized as the scheduler would grant it.
fn pending(w: RunView<'_>, j: JobId, normalize: Normalize) -> (u32, Resource) {
    let max = max_allocation(w);
    let mut n = 0u32;
    let mut res = Resource::ZERO;
    for ask in ASKS {
        if !wants(w, j, ask) {
            continue;
        }
        let k = outstanding(w, j, ask);
        n = n.saturating_add(k);
        res += normalize(asked(w, j, ask), max) * i64::from(k);
    }
    (n, res)
}

/// The applications the ResourceManager knows now, ascending, with their
/// AM's state: from the AM's request until its container is gone (an AM
/// starting up, or lingering after its job, included).
pub fn listed(w: RunView<'_>) -> Vec<(JobId, AmState)> {
    let holders = am_holders(w);
    let mut ids = apps(w);
    ids.extend_from_slice(&holders);
    ids.sort_unstable();
    ids.dedup();
    ids.into_iter()
        .map(|j| (j, am_state(w, j, holders.binary_search(&j).is_ok())))
        .collect()
}

/// What every YARN policy shows: per application its AM's state, what its
/// containers hold and still ask for; per queue (every pool, idle ones
/// too, as the scheduler page lists them) what its containers and AMs
/// hold and what its applications wait for; the AM containers held.
///
/// An application is listed while the ResourceManager knows it: from its
/// AM's request until its AM's container is gone (an AM starting up or
/// lingering after its job is listed too), so the AM states listed count
/// the containers `am_containers` does.
pub fn usage_inspection(w: RunView<'_>, normalize: Normalize) -> Inspection {
    let mut i = Inspection::default();
    let cap = w.cluster().live;
    i.cluster.insert("used_mb", w.cluster().used.mb());
    i.cluster.insert("capacity_mb", cap.mb());
    i.cluster.insert("used_vcores", w.cluster().used.vcores());
    i.cluster.insert("capacity_vcores", cap.vcores());
    i.cluster.insert(AM_CONTAINERS, w.running_ams());
    let mut waiting = vec![(0u32, Resource::ZERO); w.pools().len()];
    for (j, am) in listed(w) {
        let job = w.job(j);
        let mut v = Values::new();
        v.insert("am", am.as_str());
        v.insert("used_mb", job.used.mb());
        v.insert("used_vcores", job.used.vcores());
        v.insert(
            "dominant_share",
            num32(super::fair::policies::drf_shares(job.used, cap, 1.0).0),
        );
        v.insert("pending_maps", job.maps_pending);
        v.insert("pending_reduces", job.reduces_pending);
        let (n, res) = pending(w, j, normalize);
        if let Some(q) = waiting.get_mut(job.pool as usize) {
            q.0 = q.0.saturating_add(n);
            q.1 += res;
        }
        i.jobs.insert(job.name.to_string(), v);
    }
    for (p, pool) in w.pools().iter().enumerate() {
        let s = &w.pool_stats()[p];
        let mut v = Values::new();
        v.insert("used_mb", s.used.mb());
        v.insert("used_vcores", s.used.vcores());
        v.insert("am_used_mb", s.am_used.mb());
        v.insert(
            "dominant_share",
            num32(super::fair::policies::drf_shares(s.used, cap, 1.0).0),
        );
        v.insert("weight", num(pool.weight));
        let (n, res) = waiting[p];
        v.insert(PENDING_CONTAINERS, n);
        v.insert(PENDING_MB, res.mb());
        v.insert(PENDING_VCORES, res.vcores());
        i.pools.insert(pool.name.clone(), v);
    }
    i
}

/// yarn-fair's view of queue `v`: its instantaneous fair share (vcores
/// too where it computes them), the policy it orders by, its minimum and
/// maximum resources when set.
pub fn insert_fair_share(
    v: &mut Values,
    fair: Resource,
    with_vcores: bool,
    policy: &str,
    min: Resource,
    max: Resource,
) {
    v.insert(FAIR_SHARE_MB, fair.mb());
    if with_vcores {
        v.insert(FAIR_SHARE_VCORES, fair.vcores());
    }
    v.insert(POLICY, policy);
    if !min.is_zero() {
        v.insert(MIN_SHARE_MB, min.mb());
        v.insert(MIN_SHARE_VCORES, min.vcores());
    }
    if max != Resource::UNLIMITED {
        v.insert(MAX_SHARE_MB, max.mb());
        v.insert(MAX_SHARE_VCORES, max.vcores());
    }
}

/// yarn-capacity's view of queue `v`: its capacity and maximum capacity,
/// as percents of the cluster and as the resources they come to.
pub fn insert_capacity(
    v: &mut Values,
    pct: f64,
    guaranteed: Resource,
    max_pct: f64,
    max: Resource,
) {
    v.insert(CAPACITY_PCT, num(pct));
    v.insert(CAPACITY_MB, guaranteed.mb());
    v.insert(CAPACITY_VCORES, guaranteed.vcores());
    v.insert(MAX_CAPACITY_PCT, num(max_pct));
    v.insert(MAX_CAPACITY_MB, max.mb());
    v.insert(MAX_CAPACITY_VCORES, max.vcores());
}

/// yarn-capacity's resource calculator, as its configuration names it
/// (`default`: memory only; `dominant`: by dominant share).
pub fn insert_calculator(i: &mut Inspection, name: &str) {
    i.cluster.insert(RESOURCE_CALCULATOR, name);
}

/// A reserved node: the application it is held for, its queue, the
/// priority and the container that did not fit
/// (`RMContainer.getReservedContainer`, as the scheduler page lists it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reservation {
    pub node: NodeId,
    pub app: String,
    pub queue: String,
    pub ask: Ask,
    pub container: Resource,
}

impl Reservation {
    /// Node `node` reserved for job `j`'s `ask` of `container`.
    pub fn of(
        w: RunView<'_>,
        node: NodeId,
        j: JobId,
        ask: Ask,
        container: Resource,
    ) -> Reservation {
        let job = w.job(j);
        Reservation {
            node,
            app: job.name.to_string(),
            queue: w
                .pools()
                .get(job.pool as usize)
                .map_or_else(String::new, |p| p.name.clone()),
            ask,
            container,
        }
    }

    fn value(&self) -> Value {
        let mut v = Values::new();
        v.insert("node", self.node);
        v.insert("app", self.app.as_str());
        v.insert("queue", self.queue.as_str());
        v.insert("priority", self.ask.as_str());
        v.insert("memory_mb", self.container.mb());
        v.insert("vcores", self.container.vcores());
        Value::Map(v)
    }

    fn read(v: &Value) -> Option<Reservation> {
        let Value::Map(m) = v else { return None };
        let int = |k: &str| match m.get(k)? {
            Value::Int(x) => Some(*x),
            _ => None,
        };
        let text = |k: &str| match m.get(k)? {
            Value::Text(s) => Some(s.clone()),
            _ => None,
        };
        Some(Reservation {
            node: NodeId::try_from(int("node")?).ok()?,
            app: text("app")?,
            queue: text("queue")?,
            ask: Ask::parse(&text("priority")?)?,
            container: Resource::memory(int("memory_mb")?, int("vcores")?),
        })
    }
}

/// The reserved nodes, counted and (when any) listed with what holds each,
/// ascending by node.
pub fn insert_reservations(i: &mut Inspection, mut list: Vec<Reservation>) {
    list.sort_by_key(|r| r.node);
    i.cluster.insert(RESERVED_NODES, list.len());
    if !list.is_empty() {
        let v: Vec<Value> = list.iter().map(Reservation::value).collect();
        i.cluster.insert(RESERVATIONS, Value::List(v));
    }
}

/// The reservations an inspection lists, ascending by node.
pub fn reservations(i: &Inspection) -> Vec<Reservation> {
    match i.cluster.get(RESERVATIONS) {
        Some(Value::List(items)) => items.iter().filter_map(Reservation::read).collect(),
        _ => Vec::new(),
    }
}

/// Whether `key` is the cluster value [`reservations`] reads (shown on a
/// line of its own, not among the numbers).
pub fn is_reservations_key(key: &str) -> bool {
    key == RESERVATIONS
}

/// The AM containers an inspection counts.
pub fn am_containers(i: &Inspection) -> Option<i64> {
    match i.cluster.get(AM_CONTAINERS)? {
        Value::Int(n) => Some(*n),
        _ => None,
    }
}

/// What a scheduler divides the cluster among its queues by.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QueueBasis {
    /// yarn-fair's instantaneous fair shares.
    FairShare,
    /// yarn-capacity's guaranteed capacities.
    Capacity,
    /// Nothing (yarn-fifo: one queue in all but name).
    None,
}

/// One queue as the scheduler page shows it.
#[derive(Clone, Debug, PartialEq)]
pub struct QueueView {
    pub name: String,
    pub weight: f64,
    /// Runnable applications.
    pub apps: u32,
    /// What its containers hold, and of that what its AMs hold, and how
    /// many AM containers.
    pub used: Resource,
    pub am_used: Resource,
    pub ams: usize,
    pub basis: QueueBasis,
    /// Its fair share or guaranteed capacity: memory, and vcores where
    /// the scheduler computes them (fair shares only under drf).
    pub share_mb: Option<i64>,
    pub share_vcores: Option<i64>,
    /// yarn-capacity: its capacity and maximum capacity, percent.
    pub capacity_pct: Option<f64>,
    pub max_capacity_pct: Option<f64>,
    /// Its minimum and maximum resources (None: none set).
    pub min: Option<Resource>,
    pub max: Option<Resource>,
    /// Whether the scheduler orders queues by dominant share (drf, the
    /// dominant resource calculator), and the queue's dominant share of
    /// the cluster.
    pub dominant: bool,
    pub dominant_share: f64,
    /// What its applications still ask for: containers and their sizes.
    pub pending_containers: u32,
    pub pending: Resource,
    /// The nodes reserved for its applications.
    pub reserved: Vec<Reservation>,
}

/// Every pool as a queue, in the scenario's order: what it holds from the
/// world, what the scheduler computed of it from inspection `i`.
pub fn queues(w: RunView<'_>, i: &Inspection) -> Vec<QueueView> {
    let cap = w.cluster().live;
    let resv = reservations(i);
    let dominant_calc =
        matches!(i.cluster.get(RESOURCE_CALCULATOR), Some(Value::Text(c)) if c == "dominant");
    let mut ams = vec![0usize; w.pools().len()];
    for t in w
        .job_tasks()
        .iter()
        .filter(|t| t.kind == JobTaskKind::Am && t.end.is_none())
    {
        if let Some(n) = ams.get_mut(w.job(t.job).pool as usize) {
            *n += 1;
        }
    }
    let empty = Values::new();
    w.pools()
        .iter()
        .enumerate()
        .map(|(p, pool)| {
            let v = i.pools.get(&pool.name).unwrap_or(&empty);
            let int = |k: &str| v.get(k).and_then(Value::as_f64).map(|x| x as i64);
            let both = |m: &str, c: &str| Some(Resource::memory(int(m)?, int(c)?));
            let s = &w.pool_stats()[p];
            let basis = if v.contains_key(FAIR_SHARE_MB) {
                QueueBasis::FairShare
            } else if v.contains_key(CAPACITY_MB) {
                QueueBasis::Capacity
            } else {
                QueueBasis::None
            };
            let (share_mb, share_vcores) = match basis {
                QueueBasis::FairShare => (int(FAIR_SHARE_MB), int(FAIR_SHARE_VCORES)),
                QueueBasis::Capacity => (int(CAPACITY_MB), int(CAPACITY_VCORES)),
                QueueBasis::None => (None, None),
            };
            QueueView {
                name: pool.name.clone(),
                weight: pool.weight,
                apps: s.runnable_jobs,
                used: s.used,
                am_used: s.am_used,
                ams: ams[p],
                basis,
                share_mb,
                share_vcores,
                capacity_pct: v.get(CAPACITY_PCT).and_then(Value::as_f64),
                max_capacity_pct: v.get(MAX_CAPACITY_PCT).and_then(Value::as_f64),
                min: both(MIN_SHARE_MB, MIN_SHARE_VCORES),
                max: both(MAX_SHARE_MB, MAX_SHARE_VCORES)
                    .or_else(|| both(MAX_CAPACITY_MB, MAX_CAPACITY_VCORES)),
                dominant: dominant_calc
                    || matches!(v.get(POLICY), Some(Value::Text(x)) if x == "drf"),
                dominant_share: f64::from(super::fair::policies::drf_shares(s.used, cap, 1.0).0),
                pending_containers: int(PENDING_CONTAINERS)
                    .and_then(|n| u32::try_from(n).ok())
                    .unwrap_or(0),
                pending: both(PENDING_MB, PENDING_VCORES).unwrap_or(Resource::ZERO),
                reserved: resv
                    .iter()
                    .filter(|r| r.queue == pool.name)
                    .cloned()
                    .collect(),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reservation_reads_back_as_written() {
        let r = Reservation {
            node: 3,
            app: "B".into(),
            queue: "b".into(),
            ask: Ask::Map,
            container: Resource::memory(1024, 3),
        };
        let mut i = Inspection::default();
        insert_reservations(&mut i, vec![r.clone()]);
        assert_eq!(i.cluster.get(RESERVED_NODES), Some(&Value::Int(1)));
        assert_eq!(reservations(&i), [r]);
        let mut none = Inspection::default();
        insert_reservations(&mut none, Vec::new());
        assert!(reservations(&none).is_empty());
        assert!(!none.cluster.contains_key(RESERVATIONS));
    }
}

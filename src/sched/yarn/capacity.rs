//! `yarn-capacity`: Hadoop 2.7.3's CapacityScheduler, heartbeat by
//! heartbeat (docs/yarn.md).
//!
//! Queues are the scenario's pools, leaves of `root`, each with its
//! `capacity` percent (pools without one share what is left), its
//! `user_limit_factor` and `min_user_limit`, its `max_capacity` (100 %).
//! An application is *pending*
//! until its queue's ApplicationMasters leave room for its own under
//! `max_am_percent` (`LeafQueue.activateApplications`), then *active*.
//!
//! On a NodeManager's heartbeat (`CapacityScheduler.allocateContainersToNode`):
//! a node reserved for an application serves only it (fills the
//! reservation, keeps it, or drops it if no longer needed); otherwise root
//! walks its queues by used capacity, least first, and the first queue that
//! assigns or reserves is served again after a re-sort, until nothing is
//! assigned or an off-switch container was (several containers a
//! heartbeat, at most one off-switch). In a queue, active applications in
//! id order, each one's priorities in order (AM, reduces, maps): the queue
//! stops at its limit, a user over its user limit passes to the next
//! application, a map waits `node_locality_delay` missed opportunities for
//! a rack-local container and about a cluster's worth for an off-switch
//! one, and a container that does not fit the node reserves it, charged
//! to the queue and user at once. Memory only by default
//! (`DefaultResourceCalculator`), or memory and vcores by dominant share
//! (`resource_calculator = "dominant"`).

use super::calc::Calc;
use super::{Ask, Level, ASKS};
use crate::model::Models;
use crate::model::{yarn_defaults, JobId, NodeId, Resource};
use crate::sched::capacity::capacity_percents;
use crate::sched::registry::{Entry, DEFAULT_SLOWSTART};
use crate::sched::settings::{ConfigError, Settings};
use crate::sim::policy::{num, Event, Headroom, Inspection, Policy, Show};
use crate::sim::{Heartbeat, World};
use std::collections::BTreeMap;

/// `[scheduler.yarn-capacity]`.
#[derive(Clone, Debug, Default, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    pub slowstart: Option<f64>,
    /// `yarn.scheduler.capacity.resource-calculator`: "default" (memory)
    /// or "dominant".
    pub resource_calculator: Option<String>,
    /// `yarn.scheduler.capacity.node-locality-delay` (40 in the shipped
    /// capacity-scheduler.xml; -1 means 0).
    pub node_locality_delay: Option<i64>,
    /// `yarn.scheduler.capacity.maximum-am-resource-percent` (0.1).
    pub max_am_percent: Option<f64>,
    /// `yarn.scheduler.capacity.rack-locality-full-reset` (true).
    pub rack_locality_full_reset: Option<bool>,
}

pub const YARN_CAPACITY: Entry = Entry {
    name: "yarn-capacity",
    summary: "YARN CapacityScheduler: queues by used capacity, FIFO applications inside with user limits, AM resource limit, node-locality delay, reservations",
    source: "Hadoop 2.7.3 CapacityScheduler (slot_model = \"yarn\")",
    runs_on: Models::YARN,
    meant_for: Models::YARN,
    build: |s, _| Ok(Box::new(YarnCapacity::build(s)?)),
    check: None,
};

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum App {
    /// Not seen yet, or gone.
    #[default]
    Unseen,
    /// Submitted, waiting for room under the queue's AM limit.
    Pending,
    Active,
}

/// A reserved node: the application, priority and container it is held
/// for, and the queue charged.
#[derive(Clone, Copy, Debug)]
struct Resv {
    job: JobId,
    ask: Ask,
    res: Resource,
    pool: usize,
}

pub struct YarnCapacity {
    label: String,
    slowstart: f64,
    calc: Calc,
    node_locality_delay: i64,
    max_am_percent: f32,
    full_reset: bool,
    /// By job id: its state, its AM as charged at activation (and the
    /// queue charged), its scheduling opportunities and re-reservations
    /// per priority, what it has reserved and how many reservations.
    app: Vec<App>,
    am: Vec<(Resource, usize)>,
    opportunities: Vec<[i64; 3]>,
    rereservations: Vec<[i64; 3]>,
    job_reserved: Vec<Resource>,
    n_reserved: Vec<[i64; 3]>,
    /// By node.
    reserved: Vec<Option<Resv>>,
    /// Reserved nodes, ascending.
    resv_nodes: Vec<NodeId>,
    /// By pool: reservations charged and AMs of active applications.
    pool_reserved: Vec<Resource>,
    pool_am: Vec<Resource>,
    /// An application came or went, or the cluster changed: activation
    /// is looked at again (`activateApplications`' triggers).
    dirty: bool,
    /// By job id: distinct hosts and racks its pending maps ask for, and
    /// what they were counted from (pending maps, the world's requeues).
    locations: Vec<(u32, u64, u32)>,
    /// Users per queue: (pool, user) → index; each job's index.
    user_ix: BTreeMap<(usize, String), usize>,
    job_user: Vec<Option<(usize, usize)>>,
    /// This heartbeat's tallies, by user index and by pool.
    user_used: Vec<Resource>,
    user_active: Vec<bool>,
    pool_users: Vec<i64>,
    /// This heartbeat's applications, and each queue's active ones.
    apps: Vec<JobId>,
    active: Vec<Vec<JobId>>,
    order: Vec<(f32, usize)>,
    /// By pool: its absolute capacity and maximum capacity (pools do not
    /// change in a run).
    abs: Vec<f64>,
    abs_max: Vec<f64>,
}

fn step() -> Resource {
    yarn_defaults::MIN_ALLOCATION
}

impl YarnCapacity {
    fn build(s: &Settings) -> Result<YarnCapacity, ConfigError> {
        let own: Config = s.own()?;
        let calc = match own.resource_calculator.as_deref() {
            None | Some("default") => Calc::Memory,
            Some("dominant") => Calc::Dominant,
            Some(other) => {
                return Err(ConfigError::new(
                    "scheduler.yarn-capacity.resource_calculator",
                    format!(
                        "unknown resource_calculator \"{other}\"; expected \"default\" (memory only) or \"dominant\""
                    ),
                ))
            }
        };
        let delay = own.node_locality_delay.unwrap_or(40);
        if delay < -1 {
            return Err(ConfigError::new(
                "scheduler.yarn-capacity.node_locality_delay",
                format!("node_locality_delay is a count of missed scheduling opportunities (-1 or more); got {delay}"),
            ));
        }
        let max_am = own.max_am_percent.unwrap_or(0.1);
        if !(0.0..=1.0).contains(&max_am) {
            return Err(ConfigError::new(
                "scheduler.yarn-capacity.max_am_percent",
                format!("max_am_percent is a fraction from 0 to 1; got {max_am}"),
            ));
        }
        Ok(YarnCapacity {
            label: s.label.to_string(),
            slowstart: s.slowstart_or(own.slowstart, DEFAULT_SLOWSTART)?,
            calc,
            node_locality_delay: delay.max(0),
            max_am_percent: max_am as f32,
            full_reset: own.rack_locality_full_reset.unwrap_or(true),
            app: Vec::new(),
            am: Vec::new(),
            opportunities: Vec::new(),
            rereservations: Vec::new(),
            job_reserved: Vec::new(),
            n_reserved: Vec::new(),
            reserved: Vec::new(),
            resv_nodes: Vec::new(),
            pool_reserved: Vec::new(),
            pool_am: Vec::new(),
            dirty: true,
            locations: Vec::new(),
            user_ix: BTreeMap::new(),
            job_user: Vec::new(),
            user_used: Vec::new(),
            user_active: Vec::new(),
            pool_users: Vec::new(),
            apps: Vec::new(),
            active: Vec::new(),
            order: Vec::new(),
            abs: Vec::new(),
            abs_max: Vec::new(),
        })
    }

    /// Per-job and per-pool tables sized for the world.
    fn grow(&mut self, w: &World) {
        let jobs = w.jobs.len();
        if self.app.len() < jobs {
            self.app.resize(jobs, App::Unseen);
            self.am.resize(jobs, (Resource::ZERO, 0));
            self.opportunities.resize(jobs, [0; 3]);
            self.rereservations.resize(jobs, [0; 3]);
            self.job_reserved.resize(jobs, Resource::ZERO);
            self.n_reserved.resize(jobs, [0; 3]);
            self.locations.resize(jobs, (u32::MAX, u64::MAX, 0));
            self.job_user.resize(jobs, None);
        }
        let nodes = w.cluster.nodes.len();
        if self.reserved.len() < nodes {
            self.reserved.resize(nodes, None);
        }
        let pools = w.pools.len();
        if self.pool_reserved.len() < pools {
            self.pool_reserved.resize(pools, Resource::ZERO);
            self.pool_am.resize(pools, Resource::ZERO);
            self.pool_users.resize(pools, 0);
            self.active.resize(pools, Vec::new());
        }
        if self.abs.len() != pools {
            self.abs = capacity_percents(w)
                .iter()
                .map(|&pct| f64::from(pct as f32 / 100.0))
                .collect();
            self.abs_max = w
                .pools
                .iter()
                .map(|p| f64::from(p.max_capacity.unwrap_or(100.0) as f32 / 100.0))
                .collect();
        }
    }

    fn cluster(w: &World) -> Resource {
        w.cluster.live
    }

    /// The queue's absolute capacity (`capacity / 100` in Java's float).
    fn abs_capacity(&self, p: usize) -> f64 {
        self.abs[p]
    }

    fn queue_used(&self, w: &World, p: usize) -> Resource {
        w.pool_stats[p].used + self.pool_reserved[p]
    }

    fn root_used(&self, w: &World) -> Resource {
        let reserved = self
            .pool_reserved
            .iter()
            .fold(Resource::ZERO, |a, &r| a + r);
        w.cluster.used + reserved
    }

    /// `ParentQueue.getResourceLimitsOfChild` under root, capped by the
    /// queue's maximum (100 %) as `LeafQueue.updateCurrentResourceLimits`
    /// does: what the queue may hold now.
    fn queue_limit(&self, w: &World, p: usize) -> Resource {
        let (c, cluster) = (self.calc, Self::cluster(w));
        let max = c.times_down(cluster, self.abs_max[p], step());
        let limit = cluster - self.root_used(w) + self.queue_used(w, p);
        let limit = c.round_down(c.min(cluster, limit, max), step());
        c.min(cluster, max, limit)
    }

    /// The application's user's index among its queue's users.
    fn user_of(&mut self, w: &World, j: JobId) -> usize {
        let job = w.job(j);
        let p = job.pool as usize;
        if let Some((pool, u)) = self.job_user[j as usize] {
            if pool == p {
                return u;
            }
        }
        let next = self.user_ix.len();
        let u = *self.user_ix.entry((p, job.user.clone())).or_insert(next);
        self.job_user[j as usize] = Some((p, u));
        u
    }

    /// Whether job `j` asks for anything (`ActiveUsersManager`: a user is
    /// active while one of its applications has an outstanding request).
    fn asks(w: &World, j: JobId) -> bool {
        ASKS.iter().any(|&a| super::wants(w, j, a))
    }

    /// This heartbeat's applications: new ones become pending; users'
    /// usage (reservations included) and which users are active.
    fn tally(&mut self, w: &World) {
        let mut apps = std::mem::take(&mut self.apps);
        super::apps_into(w, &mut apps);
        for p in &mut self.pool_users {
            *p = 0;
        }
        for u in &mut self.user_used {
            *u = Resource::ZERO;
        }
        for a in &mut self.user_active {
            *a = false;
        }
        for &j in &apps {
            if self.app[j as usize] == App::Unseen {
                self.app[j as usize] = App::Pending;
                self.dirty = true;
            }
            let u = self.user_of(w, j);
            if self.user_used.len() <= u {
                self.user_used.resize(u + 1, Resource::ZERO);
                self.user_active.resize(u + 1, false);
            }
            let job = w.job(j);
            self.user_used[u] += job.used + self.job_reserved[j as usize];
            if !self.user_active[u] && Self::asks(w, j) {
                self.user_active[u] = true;
                self.pool_users[job.pool as usize] += 1;
            }
        }
        self.apps = apps;
    }

    /// The normalised container of job `j` at `ask`, as this calculator
    /// normalises it (memory only: 1 vcore).
    fn required(&self, w: &World, j: JobId, ask: Ask) -> Resource {
        let max = super::max_allocation(w);
        let r = super::asked(w, j, ask);
        match self.calc {
            Calc::Memory => super::normalize_memory(r, max),
            Calc::Dominant => super::normalize_both(r, max),
        }
    }

    /// The AM resource an application is charged at activation (none for
    /// jobs run without an AM).
    fn am_resource(&self, w: &World, j: JobId) -> Resource {
        if w.tasks.am_ask().is_zero() {
            Resource::ZERO
        } else {
            self.required(w, j, Ask::Am)
        }
    }

    /// `LeafQueue.activateApplications` for every queue: pending
    /// applications in id order start while the queue's AMs (and the
    /// user's) stay within `max_am_percent` of the queue's capacity, or
    /// when the queue has no active application.
    fn activate(&mut self, w: &World) {
        let (c, cluster) = (self.calc, Self::cluster(w));
        for p in 0..w.pools.len() {
            let pool = &w.pools[p];
            let abs_cap = c.times_up(cluster, self.abs_capacity(p), step());
            let am_limit = c.times_up(
                c.max(cluster, abs_cap, self.queue_limit(w, p)),
                f64::from(self.max_am_percent),
                step(),
            );
            let users = self.pool_users[p].max(1);
            let effective = (pool.min_user_limit as f32 / 100.0).max(1.0 / users as f32);
            let user_am_limit = c.times_up(
                abs_cap,
                f64::from(self.max_am_percent * effective * pool.user_limit_factor as f32),
                step(),
            );
            let mut active = self
                .apps
                .iter()
                .filter(|&&j| w.job(j).pool as usize == p && self.app[j as usize] == App::Active)
                .count();
            for i in 0..self.apps.len() {
                let j = self.apps[i];
                if w.job(j).pool as usize != p || self.app[j as usize] != App::Pending {
                    continue;
                }
                let am = self.am_resource(w, j);
                let over = |used: Resource, limit: Resource| c.gt(cluster, am + used, limit);
                if over(self.pool_am[p], am_limit) && active > 0 {
                    continue;
                }
                let u = self.user_of(w, j);
                let user_am = self
                    .apps
                    .iter()
                    .filter(|&&k| {
                        self.app[k as usize] == App::Active
                            && self.job_user[k as usize] == Some((p, u))
                    })
                    .fold(Resource::ZERO, |a, &k| a + self.am[k as usize].0);
                if over(user_am, user_am_limit) && active > 0 {
                    continue;
                }
                self.app[j as usize] = App::Active;
                self.am[j as usize] = (am, p);
                self.pool_am[p] += am;
                active += 1;
            }
        }
    }

    /// `LeafQueue.computeUserLimit`.
    fn user_limit(&self, w: &World, p: usize, required: Resource) -> Resource {
        let (c, cluster) = (self.calc, Self::cluster(w));
        let pool = &w.pools[p];
        let queue_cap = c.times_up(cluster, self.abs_capacity(p), step());
        let queue_cap = c.max(cluster, queue_cap, required);
        let used = self.queue_used(w, p);
        let current = if c.lt(cluster, used, queue_cap) {
            queue_cap
        } else {
            used + required
        };
        let users = self.pool_users[p];
        let limit = c.max(
            cluster,
            c.div_ceil(current, users),
            c.div_ceil(current.times(pool.min_user_limit), 100),
        );
        let cap = queue_cap.times(f64::from(pool.user_limit_factor as f32));
        c.round_up(c.min(cluster, limit, cap), step())
    }

    /// Distinct hosts and racks job `j`'s pending maps ask for
    /// (`getLocalityWaitFactor`'s request count, ANY left out).
    fn locations(&mut self, w: &World, j: JobId) -> u32 {
        let job = w.job(j);
        let key = (job.maps_pending, w.requeues);
        let cached = self.locations[j as usize];
        if (cached.0, cached.1) == key {
            return cached.2;
        }
        let n = job.pending_locations();
        self.locations[j as usize] = (key.0, key.1, n);
        n
    }

    /// The containers job `j` still needs at `ask` (the ANY request).
    fn outstanding(w: &World, j: JobId, ask: Ask) -> i64 {
        let job = w.job(j);
        i64::from(match ask {
            Ask::Am => u32::from(super::wants(w, j, ask)),
            Ask::Reduce => job.reduce_asks.min(job.reduces_pending),
            Ask::Map => job.maps_pending,
        })
    }

    /// `LeafQueue.canAssign` for rack-local and off-switch containers.
    fn can_assign(&mut self, w: &World, j: JobId, ask: Ask, level: Level, reserved: bool) -> bool {
        let nodes = i64::from(w.cluster.live_nodes);
        let missed = self.opportunities[j as usize][ask as usize];
        match level {
            Level::NodeLocal => true,
            Level::RackLocal => nodes.min(self.node_locality_delay) < missed,
            Level::OffSwitch => {
                if reserved {
                    return true;
                }
                let locations = if ask == Ask::Map {
                    self.locations(w, j)
                } else {
                    0
                };
                let factor = (locations as f32 / nodes as f32).min(1.0);
                let wait = (Self::outstanding(w, j, ask) as f32 * factor).min(nodes as f32);
                wait < missed as f32
            }
        }
    }

    /// `LeafQueue.shouldAllocOrReserveNewContainer`.
    fn should_alloc_or_reserve(&self, w: &World, j: JobId, ask: Ask, required: Resource) -> bool {
        let (a, jx) = (ask as usize, j as usize);
        let reserved = self.n_reserved[jx][a];
        let max = super::max_allocation(w);
        let starvation = if reserved > 0 {
            let node_factor = self.calc.ratio(required, max);
            let min_factor = self.calc.ratio(max - step(), max);
            ((self.rereservations[jx][a] as f32 / reserved as f32)
                * (1.0 - node_factor.min(min_factor))) as i32 as i64
        } else {
            0
        };
        starvation + Self::outstanding(w, j, ask) - reserved > 0
    }

    fn reserve(&mut self, node: NodeId, resv: Resv) {
        let (j, a) = (resv.job as usize, resv.ask as usize);
        match self.reserved[node as usize] {
            Some(_) => self.rereservations[j][a] += 1,
            None => {
                self.job_reserved[j] += resv.res;
                self.pool_reserved[resv.pool] += resv.res;
                self.n_reserved[j][a] += 1;
                self.rereservations[j][a] = 0;
                let at = self.resv_nodes.partition_point(|&n| n < node);
                self.resv_nodes.insert(at, node);
                self.reserved[node as usize] = Some(resv);
            }
        }
    }

    /// Drops node's reservation and its charge.
    fn unreserve(&mut self, node: NodeId) {
        let Some(r) = self.reserved[node as usize].take() else {
            return;
        };
        let (j, a) = (r.job as usize, r.ask as usize);
        self.job_reserved[j] -= r.res;
        self.pool_reserved[r.pool] -= r.res;
        self.n_reserved[j][a] -= 1;
        self.rereservations[j][a] = 0;
        if let Ok(at) = self.resv_nodes.binary_search(&node) {
            self.resv_nodes.remove(at);
        }
    }

    /// `LeafQueue.findNodeToUnreserve`: job `j`'s first reservation at
    /// `ask` of at least `amount` (lowest node id first) is dropped.
    fn unreserve_elsewhere(&mut self, w: &World, j: JobId, ask: Ask, amount: Resource) -> bool {
        let cluster = Self::cluster(w);
        let found = self.resv_nodes.iter().copied().find(|&n| {
            self.reserved[n as usize].is_some_and(|r| {
                r.job == j && r.ask == ask && !self.calc.gt(cluster, amount, r.res)
            })
        });
        match found {
            Some(n) => {
                self.unreserve(n);
                true
            }
            None => false,
        }
    }

    /// `LeafQueue.assignContainer`: allocates `cap` for job `j` at `ask` on
    /// the node, or reserves the node; returns what was assigned or
    /// reserved (zero for nothing).
    #[allow(clippy::too_many_arguments)]
    fn assign_container(
        &mut self,
        hb: &mut Heartbeat<'_>,
        j: JobId,
        ask: Ask,
        cap: Resource,
        level: Level,
        reserved: bool,
        unreserve: Resource,
    ) -> Resource {
        let w = hb.world();
        let cluster = Self::cluster(w);
        let node = hb.node();
        if self.calc.gt(cluster, cap, node.capacity) {
            return Resource::ZERO;
        }
        let should = self.should_alloc_or_reserve(w, j, ask, cap);
        let fits = self.calc.fits(node.available(), cap) > 0;
        let need_unreserve = self.calc.gt(cluster, unreserve, Resource::ZERO);
        let n = hb.node;
        if fits {
            if reserved {
                self.unreserve(n);
            } else if (!should || need_unreserve)
                && !self.unreserve_elsewhere(
                    w,
                    j,
                    ask,
                    if need_unreserve { unreserve } else { cap },
                )
            {
                return Resource::ZERO;
            }
            let rule = match (ask, level) {
                (Ask::Reduce, _) => "yarn-capacity/reduce",
                (_, Level::NodeLocal) => "yarn-capacity/node-local",
                (_, Level::RackLocal) => "yarn-capacity/rack-local",
                (_, Level::OffSwitch) => "yarn-capacity/off-switch",
            };
            if super::launch(hb, j, ask, cap.floor0(), level, rule) {
                cap
            } else {
                Resource::ZERO
            }
        } else if should || reserved {
            if !reserved && need_unreserve {
                return Resource::ZERO;
            }
            let pool = hb.world().job(j).pool as usize;
            self.reserve(
                n,
                Resv {
                    job: j,
                    ask,
                    res: cap,
                    pool,
                },
            );
            cap
        } else {
            Resource::ZERO
        }
    }

    /// `LeafQueue.assignContainersOnNode`: node-local, rack-local, then
    /// off-switch, each as far as `canAssign` lets it.
    fn assign_on_node(
        &mut self,
        hb: &mut Heartbeat<'_>,
        j: JobId,
        ask: Ask,
        cap: Resource,
        reserved: bool,
        unreserve: Resource,
    ) -> Option<(Resource, Level)> {
        for level in [Level::NodeLocal, Level::RackLocal] {
            if ask == Ask::Map
                && super::has_local(hb, j, level)
                && self.can_assign(hb.world(), j, ask, level, reserved)
            {
                let got = self.assign_container(hb, j, ask, cap, level, reserved, unreserve);
                if got != Resource::ZERO {
                    return Some((got, level));
                }
            }
        }
        if self.can_assign(hb.world(), j, ask, Level::OffSwitch, reserved) {
            let got = self.assign_container(hb, j, ask, cap, Level::OffSwitch, reserved, unreserve);
            if got != Resource::ZERO {
                return Some((got, Level::OffSwitch));
            }
        }
        None
    }

    /// `LeafQueue.assignReservedContainer`: the node's reservation is
    /// filled if the node now holds it, kept otherwise, dropped if the
    /// application no longer needs it.
    fn serve_reserved(&mut self, hb: &mut Heartbeat<'_>, r: Resv) {
        let w = hb.world();
        if w.job(r.job).is_done() || !super::wants(w, r.job, r.ask) {
            self.unreserve(hb.node);
            return;
        }
        self.assign_on_node(hb, r.job, r.ask, r.res, true, Resource::ZERO);
    }

    /// `LeafQueue.assignContainers` on queue `p` within `limit`.
    fn assign_leaf(
        &mut self,
        hb: &mut Heartbeat<'_>,
        p: usize,
        limit: Resource,
    ) -> Option<(Resource, Level)> {
        let active = std::mem::take(&mut self.active[p]);
        let got = self.assign_leaf_apps(hb, p, limit, &active);
        self.active[p] = active;
        got
    }

    fn assign_leaf_apps(
        &mut self,
        hb: &mut Heartbeat<'_>,
        p: usize,
        limit: Resource,
        active: &[JobId],
    ) -> Option<(Resource, Level)> {
        let c = self.calc;
        for &j in active {
            for ask in ASKS {
                let w = hb.world();
                if !super::wants(w, j, ask) {
                    continue;
                }
                let cluster = Self::cluster(w);
                let required = self.required(w, j, ask);
                let user_limit = self.user_limit(w, p, required);
                let mut unreserve = Resource::ZERO;
                // canAssignToThisQueue
                let queue_max = c.times_down(cluster, self.abs_max[p], step());
                let current = c.min(cluster, queue_max, limit);
                let total = self.queue_used(w, p) + required;
                let app_reserved = self.job_reserved[j as usize];
                if c.gt(cluster, total, current) {
                    if c.gt(cluster, app_reserved, Resource::ZERO)
                        && c.lt(cluster, total - app_reserved, current)
                    {
                        unreserve = total - current;
                    } else {
                        return None;
                    }
                }
                // assignToUser
                let u = self.user_of(w, j);
                let user_used = self.user_used[u];
                if c.gt(cluster, user_used, user_limit) {
                    if !c.gt(cluster, user_used - app_reserved, user_limit) {
                        unreserve = c.max(cluster, unreserve, user_used - user_limit);
                    } else {
                        break;
                    }
                }
                self.opportunities[j as usize][ask as usize] += 1;
                let Some((got, level)) =
                    self.assign_on_node(hb, j, ask, required, false, unreserve)
                else {
                    break;
                };
                if level == Level::NodeLocal || (level == Level::RackLocal && self.full_reset) {
                    self.opportunities[j as usize][ask as usize] = 0;
                }
                // The user's tally follows (`allocateResource`).
                self.user_used[u] += got;
                return Some((got, level));
            }
        }
        None
    }

    /// `ParentQueue.assignContainers` at root: queues by used capacity
    /// (then path), the first that assigns re-sorted, again and again
    /// until nothing is assigned or an off-switch container was.
    fn assign_root(&mut self, hb: &mut Heartbeat<'_>) {
        let c = self.calc;
        loop {
            let w = hb.world();
            let cluster = Self::cluster(w);
            if self.reserved[hb.node as usize].is_some()
                || c.lt(cluster, hb.node().available(), step())
            {
                return;
            }
            // Root's own limit: the cluster.
            let total = self.root_used(w) + step();
            let limit = c.times_down(cluster, 1.0, step());
            if c.gt(cluster, total, limit) {
                let reserved = self
                    .pool_reserved
                    .iter()
                    .fold(Resource::ZERO, |a, &r| a + r);
                if !(c.gt(cluster, reserved, Resource::ZERO)
                    && c.lt(cluster, total - reserved, limit))
                {
                    return;
                }
            }
            let mut order = std::mem::take(&mut self.order);
            order.clear();
            for p in 0..w.pools.len() {
                if self.active[p].is_empty() {
                    continue;
                }
                let guaranteed = cluster.times(self.abs_capacity(p));
                let used = if guaranteed == Resource::ZERO {
                    0.0
                } else {
                    c.divide(cluster, self.queue_used(w, p), guaranteed)
                };
                order.push((used, p));
            }
            order.sort_by(|a, b| {
                a.0.partial_cmp(&b.0)
                    .unwrap_or(std::cmp::Ordering::Equal)
                    .then_with(|| w.pools[a.1].name.cmp(&w.pools[b.1].name))
            });
            let mut got = None;
            for &(_, p) in &order {
                let limit = self.queue_limit(hb.world(), p);
                got = self.assign_leaf(hb, p, limit);
                if got.is_some() {
                    break;
                }
            }
            self.order = order;
            match got {
                Some((_, Level::OffSwitch)) | None => return,
                Some(_) => {}
            }
        }
    }

    /// Each queue's active applications, in id order.
    fn gather_active(&mut self, w: &World) {
        for a in &mut self.active {
            a.clear();
        }
        for &j in &self.apps {
            if self.app[j as usize] == App::Active {
                self.active[w.job(j).pool as usize].push(j);
            }
        }
    }

    /// A job left the queue: its AM charge and reservations go.
    fn forget(&mut self, j: JobId) {
        let jx = j as usize;
        if jx >= self.app.len() {
            return;
        }
        if self.app[jx] == App::Active {
            let (am, p) = self.am[jx];
            self.pool_am[p] -= am;
        }
        self.app[jx] = App::Unseen;
        self.am[jx] = (Resource::ZERO, 0);
        let held: Vec<NodeId> = self
            .resv_nodes
            .iter()
            .copied()
            .filter(|&n| self.reserved[n as usize].is_some_and(|r| r.job == j))
            .collect();
        for n in held {
            self.unreserve(n);
        }
        self.dirty = true;
    }
}

impl Policy for YarnCapacity {
    fn label(&self) -> &str {
        &self.label
    }

    fn slowstart(&self) -> f64 {
        self.slowstart
    }

    /// Switched in mid-run: running applications are active (their AMs
    /// charged), the others pending.
    fn adopt(&mut self, w: &World) {
        self.grow(w);
        for &j in &w.active {
            let am = self.am_resource(w, j);
            let p = w.job(j).pool as usize;
            self.app[j as usize] = App::Active;
            self.am[j as usize] = (am, p);
            self.pool_am[p] += am;
        }
        self.dirty = true;
    }

    /// The CapacityScheduler looks at a reserved node's reservation on
    /// every heartbeat, a full node's too (`allocateContainersToNode`): a
    /// reservation no longer needed goes, one that still does not fit
    /// counts a re-reservation. (It schedules nothing else on a node with
    /// less than the minimum allocation free, nor does the engine offer it.)
    fn maintain(&mut self, hb: &mut Heartbeat<'_>) {
        if hb.node().admits_any(hb.capacity()) {
            return;
        }
        let n = hb.node as usize;
        if let Some(r) = self.reserved.get(n).copied().flatten() {
            self.serve_reserved(hb, r);
        }
    }

    fn heartbeat(&mut self, hb: &mut Heartbeat<'_>) {
        self.grow(hb.world());
        self.tally(hb.world());
        if self.dirty {
            self.activate(hb.world());
            self.dirty = false;
        }
        self.gather_active(hb.world());
        if let Some(r) = self.reserved[hb.node as usize] {
            self.serve_reserved(hb, r);
            self.tally(hb.world());
        }
        let w = hb.world();
        if self.reserved[hb.node as usize].is_none()
            && self.calc.fits(hb.node().available(), step()) > 0
            && w.cluster.live.mb() > 0
        {
            self.assign_root(hb);
        }
    }

    /// `CapacityHeadroomProvider.getHeadroom`: the user's limit less its
    /// usage, within what the queue may still take, rounded down to the
    /// minimum allocation; vcores count under the dominant calculator.
    fn headroom(&self, w: &World, j: JobId) -> Headroom {
        let p = w.job(j).pool as usize;
        let c = self.calc;
        let user = &w.job(j).user;
        let mut used = Resource::ZERO;
        for &k in w.awaiting_setup.iter().chain(&w.active) {
            let job = w.job(k);
            if job.pool as usize == p && &job.user == user {
                let reserved = self
                    .job_reserved
                    .get(k as usize)
                    .copied()
                    .unwrap_or_default();
                used += job.used + reserved;
            }
        }
        let (limit, queue) = if p < self.pool_reserved.len() {
            let required = self.required(w, j, Ask::Map);
            (
                self.user_limit(w, p, required),
                self.queue_limit(w, p) - self.queue_used(w, p),
            )
        } else {
            (Resource::ZERO, Resource::ZERO)
        };
        let room = c.round_down((limit - used).min_each(queue), step());
        Headroom {
            available: room.floor0(),
            cpu: c == Calc::Dominant,
        }
    }

    fn hear(&mut self, w: &World, e: Event) {
        match e {
            Event::JobFinished(j) => {
                self.forget(j);
            }
            // A moved job takes its AM charge and reservations to its new queue.
            Event::JobUpdated(j) => {
                let jx = j as usize;
                if jx >= self.app.len() {
                    return;
                }
                let p = w.job(j).pool as usize;
                if self.app[jx] == App::Active && self.am[jx].1 != p {
                    let (am, old) = self.am[jx];
                    self.pool_am[old] -= am;
                    self.pool_am[p] += am;
                    self.am[jx].1 = p;
                }
                for i in 0..self.resv_nodes.len() {
                    let n = self.resv_nodes[i] as usize;
                    if let Some(r) = self.reserved[n].as_mut() {
                        if r.job == j && r.pool != p {
                            self.pool_reserved[r.pool] -= r.res;
                            self.pool_reserved[p] += r.res;
                            r.pool = p;
                        }
                    }
                }
                self.dirty = true;
            }
            // A lost node's reservation goes; the cluster's size changed
            // (`updateClusterResource` re-runs activation).
            Event::NodeChanged { node, alive } => {
                self.grow(w);
                if !alive {
                    self.unreserve(node);
                }
                self.dirty = true;
            }
            _ => {}
        }
    }
}

impl Show for YarnCapacity {
    fn inspect(&self, w: &World, _node: NodeId) -> Inspection {
        let mut i = super::fair::usage_inspection(w);
        let percents = capacity_percents(w);
        let cluster = Self::cluster(w);
        for (p, pool) in w.pools.iter().enumerate() {
            if let Some(v) = i.pools.get_mut(&pool.name) {
                v.insert("capacity_pct", num(percents[p]));
                if p < self.pool_reserved.len() {
                    let guaranteed = cluster.times(f64::from(percents[p] as f32 / 100.0));
                    let used = self.queue_used(w, p);
                    if guaranteed != Resource::ZERO {
                        v.insert(
                            "used_capacity",
                            num(f64::from(self.calc.divide(cluster, used, guaranteed))),
                        );
                    }
                    v.insert("reserved_mb", self.pool_reserved[p].mb());
                    v.insert("am_charged_mb", self.pool_am[p].mb());
                    v.insert("limit_mb", self.queue_limit(w, p).mb());
                }
            }
        }
        for j in super::apps(w) {
            let job = w.job(j);
            if let Some(v) = i.jobs.get_mut(&job.name) {
                let state = match self.app.get(j as usize) {
                    Some(App::Active) => "active",
                    _ => "pending",
                };
                v.insert("app", state);
                let missed = self
                    .opportunities
                    .get(j as usize)
                    .map_or(0, |o| o[Ask::Map as usize]);
                v.insert("missed_map", missed);
            }
        }
        i.cluster.insert("reserved_nodes", self.resv_nodes.len());
        i
    }
}

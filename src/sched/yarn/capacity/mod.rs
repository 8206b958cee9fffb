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
//!
//! In submodules, along Hadoop's classes: `limits` (LeafQueue's queue and
//! user limits, application activation, the headroom), `reserve`
//! (reservations: `LeafQueue` / `FiCaSchedulerApp`) and `assign` (the
//! walk: root's `ParentQueue.assignContainers`, `LeafQueue.assignContainers`
//! and its per-node assignment).

mod assign;
mod limits;
mod reserve;

use super::calc::Calc;
use super::show;
use super::Ask;
use crate::model::Models;
use crate::model::{yarn_defaults, JobId, NodeId, Resource};
use crate::sched::capacity::capacity_percents;
use crate::sched::registry::{Entry, DEFAULT_SLOWSTART};
use crate::sched::settings::{ConfigError, Settings};
use crate::sim::policy::{num32, Event, Headroom, Inspection, Policy, Show, Value};
use crate::sim::{Heartbeat, RunView};
use reserve::Resv;
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

#[derive(Clone)]
pub struct YarnCapacity {
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
    fn grow(&mut self, w: RunView<'_>) {
        let jobs = w.jobs().len();
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
        let nodes = w.cluster().nodes.len();
        if self.reserved.len() < nodes {
            self.reserved.resize(nodes, None);
        }
        let pools = w.pools().len();
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
                .pools()
                .iter()
                .map(|p| f64::from(p.max_capacity.unwrap_or(100.0) as f32 / 100.0))
                .collect();
        }
    }

    fn cluster(w: RunView<'_>) -> Resource {
        w.cluster().live
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
    fn slowstart(&self) -> f64 {
        self.slowstart
    }

    /// Switched in mid-run: running applications are active (their AMs
    /// charged), the others pending.
    fn adopt(&mut self, w: RunView<'_>) {
        self.grow(w);
        for &j in w.active() {
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
        self.grow(hb.view());
        self.tally(hb.view());
        if self.dirty {
            self.activate(hb.view());
            self.dirty = false;
        }
        self.gather_active(hb.view());
        if let Some(r) = self.reserved[hb.node as usize] {
            self.serve_reserved(hb, r);
            self.tally(hb.view());
        }
        let w = hb.view();
        if self.reserved[hb.node as usize].is_none()
            && self.calc.fits(hb.node().available(), step()) > 0
            && w.cluster().live.mb() > 0
        {
            self.assign_root(hb);
        }
    }

    /// The user's headroom ([`YarnCapacity::user_headroom`]).
    fn headroom(&self, w: RunView<'_>, j: JobId) -> Headroom {
        self.user_headroom(w, j)
    }

    fn hear(&mut self, w: RunView<'_>, e: Event) {
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
    /// What the scheduler page shows: each queue's capacity and maximum
    /// capacity (percent and resources), its used capacity, what its
    /// reservations and AMs are charged and its limit now; each
    /// application's place in the walk root would make now (queues by used
    /// capacity, then name; active applications by id; a pending one has
    /// none); each reserved node with the application it is held for.
    fn inspect(&self, w: RunView<'_>, _node: NodeId) -> Inspection {
        let normalize = match self.calc {
            Calc::Memory => super::normalize_memory,
            Calc::Dominant => super::normalize_both,
        };
        let mut i = super::usage_inspection(w, normalize);
        show::insert_calculator(
            &mut i,
            match self.calc {
                Calc::Memory => "default",
                Calc::Dominant => "dominant",
            },
        );
        let percents = capacity_percents(w);
        let cluster = Self::cluster(w);
        let mut order: Vec<(f32, usize)> = Vec::new();
        for (p, pool) in w.pools().iter().enumerate() {
            let Some(v) = i.pools.get_mut(&pool.name) else {
                continue;
            };
            let guaranteed = cluster.times(f64::from(percents[p] as f32 / 100.0));
            let max_pct = pool.max_capacity.unwrap_or(100.0);
            let max = cluster.times(f64::from(max_pct as f32 / 100.0));
            show::insert_capacity(v, percents[p], guaranteed, max_pct, max);
            if p < self.pool_reserved.len() {
                let used = self.queue_used(w, p);
                let share = if guaranteed == Resource::ZERO {
                    0.0
                } else {
                    self.calc.divide(cluster, used, guaranteed)
                };
                if guaranteed != Resource::ZERO {
                    v.insert("used_capacity", num32(share));
                }
                v.insert("reserved_mb", self.pool_reserved[p].mb());
                v.insert("am_charged_mb", self.pool_am[p].mb());
                v.insert("limit_mb", self.queue_limit(w, p).mb());
                order.push((share, p));
            }
        }
        order.sort_by(|a, b| {
            a.0.partial_cmp(&b.0)
                .unwrap_or(std::cmp::Ordering::Equal)
                .then_with(|| w.pools()[a.1].name.cmp(&w.pools()[b.1].name))
        });
        // An application with no place in the walk (pending activation, its
        // AM starting or exiting) has none: null.
        for v in i.jobs.values_mut() {
            v.insert("order", Value::Null);
        }
        let apps = super::apps(w);
        let mut walk = 0u64;
        for &(_, p) in &order {
            for &j in &apps {
                let active = self.app.get(j as usize) == Some(&App::Active);
                if !active || w.job(j).pool as usize != p {
                    continue;
                }
                if let Some(v) = i.jobs.get_mut(&*w.job(j).name) {
                    v.insert("order", walk);
                }
                walk += 1;
            }
        }
        for j in apps {
            let job = w.job(j);
            if let Some(v) = i.jobs.get_mut(&*job.name) {
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
        let held = self.resv_nodes.iter().filter_map(|&n| {
            let r = self.reserved.get(n as usize).copied().flatten()?;
            Some(show::Reservation::of(w, n, r.job, r.ask, r.res))
        });
        show::insert_reservations(&mut i, held.collect());
        i
    }
}

/// A run whose scheduler the tests can look into: the engine drives a
/// `YarnCapacity` built from the scenario's `[scheduler]` table through
/// [`testing::Shared`] while the test holds it too.
#[cfg(test)]
mod testing {
    use super::YarnCapacity;
    use crate::model::{JobId, NodeId, PolicySpec};
    use crate::sched::settings::Settings;
    use crate::sim::policy::{
        BuildCtx, BuildError, Built, Event, Headroom, Inspection, Policy, PolicyFactory, Show,
        Snapshot,
    };
    use crate::sim::{Heartbeat, RunView, Sim};
    use std::sync::{Arc, Mutex, MutexGuard};

    pub(super) struct Run {
        pub sim: Sim,
        cs: Arc<Mutex<YarnCapacity>>,
    }

    impl Run {
        /// Loads `text` (a `yarn-capacity` scenario) and runs it to `until`
        /// ms.
        pub fn new(text: &str, until: u64) -> Run {
            let sc = crate::scenario::load_str(text, "test.toml", None, None).unwrap();
            let settings = Settings::new("yarn-capacity", "yarn-capacity", &sc.scheduler);
            let cs = Arc::new(Mutex::new(YarnCapacity::build(&settings).unwrap()));
            let mut sim = Sim::new(&sc, Box::new(Factory(cs.clone()))).unwrap();
            sim.run_until(Some(until));
            Run { sim, cs }
        }

        /// Runs on to `until` ms.
        pub fn to(&mut self, until: u64) {
            self.sim.run_until(Some(until));
        }

        /// The scheduler and the world, as the run left them.
        pub fn parts(&self) -> (MutexGuard<'_, YarnCapacity>, RunView<'_>) {
            (self.cs.lock().unwrap(), self.sim.view())
        }

        /// The id of the job called `name`.
        pub fn job(&self, name: &str) -> JobId {
            let w = self.sim.view();
            (0..w.jobs().len() as JobId)
                .find(|&j| *w.job(j).name == *name)
                .unwrap()
        }

        /// The index of the pool called `name`.
        pub fn pool(&self, name: &str) -> usize {
            self.sim
                .view()
                .pools()
                .iter()
                .position(|p| p.name == name)
                .unwrap()
        }
    }

    /// A cluster of `nodes` 8 GB nodes in one rack, heartbeats only where
    /// the scenario's events put them, ApplicationMasters of 1536 MB if
    /// `am` (else none); `options` go in `[scheduler.yarn-capacity]`.
    pub fn cluster(nodes: u32, am: bool, options: &str) -> String {
        let am = if am {
            "am_memory = \"1536MB\"\n"
        } else {
            "am_memory = \"0MB\"\nam_vcores = 0\n"
        };
        format!(
            "name = \"t\"\nseed = 1\n[cluster]\nnodes = {nodes}\nracks = 1\nslot_model = \"yarn\"\nmemory = \"8GB\"\nvcores = 8\nheartbeat = \"manual\"\n[hdfs]\nreplication = 1\n[tasks]\n{am}[scheduler]\npolicy = \"yarn-capacity\"\n[scheduler.yarn-capacity]\n{options}\n"
        )
    }

    /// A job of `user` in `pool` submitted at 0: one map of `memory` for
    /// each node in `blocks` (its block's), 100 s each, no reduces.
    pub fn job(name: &str, pool: &str, user: &str, memory: &str, blocks: &[u32]) -> String {
        let b: Vec<String> = blocks.iter().map(|n| format!("[{n}]")).collect();
        format!(
            "[[jobs]]\nname = \"{name}\"\npool = \"{pool}\"\nuser = \"{user}\"\nprofile = \"terasort\"\nmaps = {}\nreduces = 0\nmap_time = \"100s\"\nmap_memory = \"{memory}\"\nblocks = [{}]\n",
            blocks.len(),
            b.join(", ")
        )
    }

    /// A heartbeat of each node at its time (ms).
    pub fn beats(beats: &[(u64, u32)]) -> String {
        beats
            .iter()
            .map(|(at, node)| {
                format!("[[events]]\nat = \"{at}ms\"\naction = \"heartbeat\"\nnode = {node}\n")
            })
            .collect()
    }

    struct Factory(Arc<Mutex<YarnCapacity>>);

    impl PolicyFactory for Factory {
        fn build(&self, spec: &PolicySpec, _: &BuildCtx) -> Result<Built, BuildError> {
            Ok(Built {
                policy: Box::new(Shared(self.0.clone())),
                label: spec.to_string(),
            })
        }
    }

    /// The engine's end of the scheduler.
    struct Shared(Arc<Mutex<YarnCapacity>>);

    /// Shared with the test: a copy would share its state.
    impl Snapshot for Shared {
        fn snapshot(&self) -> Option<Box<dyn Policy>> {
            None
        }
    }

    impl Shared {
        fn cs(&self) -> MutexGuard<'_, YarnCapacity> {
            self.0.lock().unwrap()
        }
    }

    impl Policy for Shared {
        fn slowstart(&self) -> f64 {
            self.cs().slowstart()
        }

        fn heartbeat(&mut self, hb: &mut Heartbeat<'_>) {
            self.cs().heartbeat(hb);
        }

        fn maintain(&mut self, hb: &mut Heartbeat<'_>) {
            self.cs().maintain(hb);
        }

        fn headroom(&self, w: RunView<'_>, j: JobId) -> Headroom {
            self.cs().headroom(w, j)
        }

        fn adopt(&mut self, w: RunView<'_>) {
            self.cs().adopt(w);
        }

        fn hear(&mut self, w: RunView<'_>, e: Event) {
            self.cs().hear(w, e);
        }
    }

    impl Show for Shared {
        fn inspect(&self, w: RunView<'_>, node: NodeId) -> Inspection {
            self.cs().inspect(w, node)
        }
    }
}

//! `adaptive-fair`: the adaptive (modified) fair scheduler of seed 004
//! ("An adaptive (modified) fair scheduler for Hadoop"), as ALGORITHMS §8
//! settles it. Five mechanisms over Hadoop 1.x's FairScheduler (typed
//! slots, `CapBasedLoadManager`, `assignmultiple`, delay scheduling; see
//! [`super::fair`]), refreshed every `update_interval` (500 ms, Hadoop's
//! `UPDATE_INTERVAL`) and, as Hadoop's `update()` is, whenever a job
//! arrives or finishes:
//!
//! 1. **Job classification** (§3.1, Fig. 6). minJobSize is the smallest
//!    map count among the jobs in the system (runnable, unfinished). A job
//!    with maps ≤ minJobSize is small and goes to a system pool shared by
//!    all users, `sharedPool`, FIFO inside (priority, then submit time,
//!    then id), unless SmallJobs / TotalJobs exceeds the threshold 1 /
//!    (mean map slots per live node); then every job stays in its own pool.
//!    Jobs are reclassified at every refresh, so a job can move in and out
//!    of the shared pool as the smallest job changes.
//! 2. **Pool resource allocation** (§3.2, Fig. 7), maps and reduces apart.
//!    The enabled shared pool gets ⌈minJobSize / 2⌉ slots (for reduces,
//!    minJobSize is the fewest reduces among jobs that have any, so a map-
//!    only job cannot leave small jobs no reduce slot). The other slots,
//!    RemainingSlots, go to the user pools: min(max share, ⌈RemainingSlots
//!    × PoolTasks / allPoolsTasks⌉), PoolTasks being a pool's pending tasks
//!    of the kind (reduces only once slowstart lets them run). The paper
//!    writes the same bracket for both roundings; ALGORITHMS settles the
//!    shared pool's as a ceiling, and a ceiling here too means a pool with
//!    a pending task never gets 0 slots while others hold the rest (floors
//!    can give every pool 0: 2 slots over three pools with 1 task each).
//!    **An allocation bounds a pool first**: a task goes to the first pool
//!    in order (mechanism 3) that runs fewer tasks of its kind than its
//!    allocation and has one to launch here. Only if none does may a pool
//!    at its allocation *borrow* the slot, up to its max share (rule
//!    `adaptive-fair/borrowed`), as fair-scheduler pools borrow idle slots
//!    (§2 of the paper). As a mere fair share the allocation would change
//!    no decision (Hadoop 1.x's comparator does not read fair shares),
//!    while the paper allocates "limited resource to small-sized jobs" on
//!    purpose; as a hard cap it deadlocks: when the shared pool's
//!    ⌈minJobSize / 2⌉ is every slot of a small cluster, user pools get
//!    none, and their reduces, started early, hold the reduce slots the
//!    shared pool's jobs wait for (the property tests found this).
//! 3. **Resource-aware sorting** (§3.3, Figs. 8–9). Jobs of a user pool:
//!    higher priority, then higher JobPendingRatio = job's pending / pool's
//!    pending, then lower JobOccupiedRatio = job's running / pool's
//!    allocation, then earlier submit, then id (a pool configured with
//!    `scheduling_mode = "fifo"` keeps FIFO order). Pools: those with
//!    PoolWorkload (running tasks) ≤ minAllocated first, by lower
//!    PoolOccupiedRatio = PoolWorkload / minAllocated; then the others by
//!    lower PoolWorkload / weight. minAllocated is the pool's configured
//!    min share (`min_maps` / `min_reduces`) lowered to PoolDemand (its
//!    pending tasks) when that is smaller; the shared pool's is its
//!    allocation, lowered likewise. The paper breaks ties at random; we
//!    break them by pool name, for determinism.
//! 4. **Delay time adjustment** (§3.4, Eqs. 7–8). Delay scheduling as in
//!    the fair scheduler, but the node-locality delay is the running mean
//!    (TimeCount / NumberCount, integer ms) of the waits of every map
//!    launched node-local so far, and the rack delay that of rack-local
//!    launches. A launch's wait is the time its job had waited for a local
//!    map when it launched (Hadoop's `timeWaitedForLocalMap`, which the
//!    paper's "NodeLocalityWaitedTime" echoes). Until the first such launch
//!    the configured delays hold.
//! 5. **Job priority adjustment** (§3.5, Table 3). Each job has its own
//!    priority, starting at its configured one. At a refresh, a job that
//!    has launched a map since the last refresh compares the locality of
//!    its two most recent maps (node > rack > none, none being off-rack or
//!    off-datacenter): up one or two levels raises its priority one or two
//!    levels, down lowers it. A priority that would stay where it is
//!    (no change of locality, or a clamp at an end) rests: VERY_HIGH steps
//!    to HIGH and VERY_LOW to LOW (Table 3's VERY_HIGH column under
//!    upgrades and VERY_LOW column under downgrades read so too).
//!
//! Reduces go through the same pools and sorts with reduce counts; the
//! paper's mechanisms are about maps, and the heartbeat alternates maps and
//! reduces as the fair scheduler does. On a `slot_model = "unified"`
//! cluster the policy schedules a node's containers as typed slots
//! (`map_slots` + `reduce_slots`), the MRv1 setting the paper is about.
//! There is no preemption.
//!
//! Each mechanism can be turned off (`job_classification`,
//! `pool_allocation`, `job_sorting`, `delay_adjustment`,
//! `priority_adjustment`): with all five off the policy makes exactly the
//! fair scheduler's decisions (without preemption or size-based weights,
//! and on a unified cluster those of fair with `typed_slots = true`).

use super::config::SchedulerConfig;
use super::fair::{fair_cmp, typed_assign_loop, Key, TaskKind as FairKind, MAX_AUTO_DELAY};
use super::registry::{BuildCtx, DEFAULT_SLOWSTART};
use super::{num, Inspection, Policy, Values};
use crate::model::{JobId, Ms, NodeId, PoolMode, Priority};
use crate::sim::{Heartbeat, Locality, World};
use serde_json::Value;

pub const RULE_NODE: &str = "adaptive-fair/node-local";
pub const RULE_RACK: &str = "adaptive-fair/rack-local";
pub const RULE_OFF: &str = "adaptive-fair/off-rack";
pub const RULE_REDUCE: &str = "adaptive-fair/reduce";
/// A map or reduce of a pool already running its allocation, in a slot no
/// pool under its allocation could use (the trace's `kind` and `locality`
/// tell which).
pub const RULE_BORROWED: &str = "adaptive-fair/borrowed";

/// The paper's refresh period (and Hadoop's `UPDATE_INTERVAL`).
pub const DEFAULT_UPDATE_INTERVAL: Ms = 500;

/// The name of the shared pool (the paper's `sharedPool`), unless a user
/// pool already has it.
pub const SHARED_POOL: &str = "sharedPool";

/// Table 3's locality levels: node 0, rack 1, none 2.
pub fn locality_rank(l: Locality) -> i32 {
    match l {
        Locality::Node => 0,
        Locality::Rack => 1,
        Locality::OffRack | Locality::OffDc => 2,
    }
}

fn prio_index(p: Priority) -> i32 {
    match p {
        Priority::VeryHigh => 0,
        Priority::High => 1,
        Priority::Normal => 2,
        Priority::Low => 3,
        Priority::VeryLow => 4,
    }
}

fn prio_at(i: i32) -> Priority {
    match i {
        i32::MIN..=0 => Priority::VeryHigh,
        1 => Priority::High,
        2 => Priority::Normal,
        3 => Priority::Low,
        _ => Priority::VeryLow,
    }
}

pub fn priority_name(p: Priority) -> &'static str {
    match p {
        Priority::VeryHigh => "very_high",
        Priority::High => "high",
        Priority::Normal => "normal",
        Priority::Low => "low",
        Priority::VeryLow => "very_low",
    }
}

/// Table 3: the new priority of a job at `p` whose two most recent maps
/// launched at `prev` then `new`.
pub fn adjust_priority(p: Priority, prev: Locality, new: Locality) -> Priority {
    let i = prio_index(p);
    let up = locality_rank(prev) - locality_rank(new);
    let target = (i - up).clamp(0, 4);
    if target != i {
        return prio_at(target);
    }
    match p {
        Priority::VeryHigh => Priority::High,
        Priority::VeryLow => Priority::Low,
        other => other,
    }
}

/// Mechanism 2 for one kind of slot: the shared pool's allocation
/// (⌈`shared_size` / 2⌉ if the shared pool is enabled, at most `total`)
/// and each user pool's, min(max, ⌈RemainingSlots × pending / Σ pending⌉).
pub fn allocate(
    total: u32,
    shared_size: Option<u32>,
    pending: &[u32],
    max: &[u32],
) -> (u32, Vec<u32>) {
    let shared = shared_size.map_or(0, |m| m.div_ceil(2).min(total));
    let remaining = u64::from(total - shared);
    let all: u64 = pending.iter().map(|&p| u64::from(p)).sum();
    let pools = pending
        .iter()
        .zip(max)
        .map(|(&p, &mx)| {
            if all == 0 {
                0
            } else {
                (remaining * u64::from(p)).div_ceil(all).min(u64::from(mx)) as u32
            }
        })
        .collect();
    (shared, pools)
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum TaskKind {
    Map,
    Reduce,
}

fn ki(k: TaskKind) -> usize {
    usize::from(k == TaskKind::Reduce)
}

/// What the policy keeps per job.
#[derive(Clone, Debug)]
struct JobState {
    /// Mechanism 5's priority.
    prio: Priority,
    /// Delay scheduling: locality of the last map (NODE at first), the
    /// time waited for a local map, and whether the job was skipped at
    /// the last heartbeat.
    level: Locality,
    waited: Ms,
    skipped: bool,
    /// Localities of the two most recent maps, older first.
    prev: Option<Locality>,
    last: Option<Locality>,
    /// A map launched since the last refresh.
    fresh: bool,
    /// Mechanism 1: size ≤ minJobSize, and in the shared pool.
    small: bool,
    shared: bool,
}

impl JobState {
    fn new(prio: Priority) -> JobState {
        JobState {
            prio,
            level: Locality::Node,
            waited: 0,
            skipped: false,
            prev: None,
            last: None,
            fresh: false,
            small: false,
            shared: false,
        }
    }
}

/// A running mean kept as the paper's TimeCount / NumberCount.
#[derive(Clone, Copy, Debug, Default)]
struct WaitMean {
    total: Ms,
    count: u64,
}

impl WaitMean {
    fn add(&mut self, wait: Ms) {
        self.total = self.total.saturating_add(wait);
        self.count += 1;
    }

    fn mean(&self) -> Option<Ms> {
        (self.count > 0).then(|| self.total / self.count)
    }
}

/// The values a refresh fixes until the next one.
#[derive(Clone, Debug, Default)]
struct Snapshot {
    min_job_size: Option<u32>,
    min_job_size_reduce: Option<u32>,
    small_jobs: u32,
    total_jobs: u32,
    /// Live nodes and map slots when the threshold was evaluated.
    nodes: u32,
    map_slots: u32,
    shared_enabled: bool,
    /// Per kind, per virtual pool (user pools by index, then the shared pool).
    alloc: [Vec<u32>; 2],
    node_delay: Ms,
    rack_delay: Ms,
}

#[derive(Clone, Copy, Debug)]
struct Mechanisms {
    classification: bool,
    allocation: bool,
    sorting: bool,
    delay: bool,
    priority: bool,
}

/// Per virtual pool, for one kind of task: its jobs (in active order),
/// pending tasks, running tasks and fair demand (pending + running,
/// capped at the pool's max, as `PoolSchedulable.updateDemand`).
struct View {
    jobs: Vec<Vec<JobId>>,
    pending: Vec<u32>,
    running: Vec<u32>,
    demand: Vec<u32>,
}

pub struct AdaptiveFair {
    label: String,
    slowstart: f64,
    update_interval: Ms,
    init_node_delay: Ms,
    init_rack_delay: Ms,
    assign_multiple: bool,
    mech: Mechanisms,
    jobs: Vec<Option<JobState>>,
    snap: Snapshot,
    node_waits: WaitMean,
    rack_waits: WaitMean,
    /// Last timed refresh.
    last_tick: Option<Ms>,
    /// `lastHeartbeatTime`, for delay scheduling's waits.
    last_heartbeat: Option<Ms>,
    shared_name: String,
}

impl AdaptiveFair {
    pub fn new(label: String, cfg: &SchedulerConfig, ctx: &BuildCtx) -> AdaptiveFair {
        let own = cfg.adaptive_fair.clone().unwrap_or_default();
        let hb = ctx.heartbeat.unwrap_or(3_000);
        let auto = MAX_AUTO_DELAY.min(hb.saturating_mul(3) / 2);
        let on = |v: Option<bool>| v.unwrap_or(true);
        let init_node_delay = own.node_locality_delay.unwrap_or(auto);
        let init_rack_delay = own.rack_locality_delay.unwrap_or(auto);
        AdaptiveFair {
            label,
            slowstart: own.slowstart.or(cfg.slowstart).unwrap_or(DEFAULT_SLOWSTART),
            update_interval: own
                .update_interval
                .unwrap_or(DEFAULT_UPDATE_INTERVAL)
                .max(1),
            init_node_delay,
            init_rack_delay,
            assign_multiple: own.assign_multiple.unwrap_or(true),
            mech: Mechanisms {
                classification: on(own.job_classification),
                allocation: on(own.pool_allocation),
                sorting: on(own.job_sorting),
                delay: on(own.delay_adjustment),
                priority: on(own.priority_adjustment),
            },
            jobs: Vec::new(),
            snap: Snapshot {
                node_delay: init_node_delay,
                rack_delay: init_rack_delay,
                ..Snapshot::default()
            },
            node_waits: WaitMean::default(),
            rack_waits: WaitMean::default(),
            last_tick: None,
            last_heartbeat: None,
            shared_name: SHARED_POOL.to_string(),
        }
    }

    fn state(&self, w: &World, j: JobId) -> JobState {
        match self.jobs.get(j as usize) {
            Some(Some(s)) => s.clone(),
            _ => JobState::new(w.job(j).priority),
        }
    }

    fn state_mut(&mut self, w: &World, j: JobId) -> &mut JobState {
        let i = j as usize;
        if self.jobs.len() <= i {
            self.jobs.resize(i + 1, None);
        }
        self.jobs[i].get_or_insert_with(|| JobState::new(w.job(j).priority))
    }

    fn is_shared(&self, j: JobId) -> bool {
        matches!(self.jobs.get(j as usize), Some(Some(s)) if s.shared)
    }

    fn prio(&self, w: &World, j: JobId) -> Priority {
        match self.jobs.get(j as usize) {
            Some(Some(s)) => s.prio,
            _ => w.job(j).priority,
        }
    }

    /// Virtual pool of job `j`: its own pool, or the shared pool (index n).
    fn vpool(&self, w: &World, j: JobId) -> usize {
        if self.is_shared(j) {
            w.pools.len()
        } else {
            w.job(j).pool as usize
        }
    }

    fn vpool_name<'a>(&'a self, w: &'a World, p: usize) -> &'a str {
        w.pools
            .get(p)
            .map_or(self.shared_name.as_str(), |s| &s.name)
    }

    fn pending(&self, w: &World, j: JobId, k: TaskKind) -> u32 {
        let job = w.job(j);
        if !job.runnable {
            return 0;
        }
        match k {
            TaskKind::Map => job.maps_pending,
            TaskKind::Reduce if job.reduces_schedulable(self.slowstart) => job.reduces_pending,
            TaskKind::Reduce => 0,
        }
    }

    fn running(w: &World, j: JobId, k: TaskKind) -> u32 {
        let job = w.job(j);
        match k {
            TaskKind::Map => job.maps_running,
            TaskKind::Reduce => job.reduces_running,
        }
    }

    /// The fair scheduler's demand: pending + running (reduces only once
    /// slowstart allows them, else the running ones).
    fn demand(&self, w: &World, j: JobId, k: TaskKind) -> u32 {
        if !w.job(j).runnable {
            return 0;
        }
        self.pending(w, j, k) + Self::running(w, j, k)
    }

    fn pool_max(w: &World, p: usize, k: TaskKind) -> u32 {
        w.pools.get(p).map_or(u32::MAX, |s| match k {
            TaskKind::Map => s.max_maps,
            TaskKind::Reduce => s.max_reduces,
        })
    }

    fn pool_min(w: &World, p: usize, k: TaskKind) -> u32 {
        w.pools.get(p).map_or(0, |s| match k {
            TaskKind::Map => s.min_maps,
            TaskKind::Reduce => s.min_reduces,
        })
    }

    fn pool_weight(w: &World, p: usize) -> f64 {
        w.pools.get(p).map_or(1.0, |s| s.weight)
    }

    fn total_slots(w: &World, k: TaskKind) -> u32 {
        match k {
            TaskKind::Map => w.cluster.total_map_slots,
            TaskKind::Reduce => w.cluster.total_reduce_slots,
        }
    }

    /// The allocation of virtual pool `p` (the JobOccupiedRatio's denominator).
    fn alloc(&self, p: usize, k: TaskKind) -> u32 {
        self.snap.alloc[ki(k)].get(p).copied().unwrap_or(0)
    }

    /// The most tasks of kind `k` pool `p` may run: its allocation with
    /// mechanism 2, else its max share (none for the shared pool).
    fn cap(&self, w: &World, p: usize, k: TaskKind) -> u32 {
        if self.mech.allocation {
            self.alloc(p, k)
        } else {
            Self::pool_max(w, p, k)
        }
    }

    fn view(&self, w: &World, k: TaskKind) -> View {
        let n = w.pools.len() + 1;
        let mut v = View {
            jobs: vec![Vec::new(); n],
            pending: vec![0; n],
            running: vec![0; n],
            demand: vec![0; n],
        };
        for &j in &w.active {
            let p = self.vpool(w, j);
            v.jobs[p].push(j);
            v.pending[p] += self.pending(w, j, k);
            v.running[p] += Self::running(w, j, k);
            v.demand[p] += self.demand(w, j, k);
        }
        for (p, d) in v.demand.iter_mut().enumerate() {
            *d = (*d).min(Self::pool_max(w, p, k));
        }
        v
    }

    /// minAllocated of pool `p`: its configured min share (the shared
    /// pool's: its allocation), lowered to its pending tasks.
    fn min_allocated(&self, w: &World, v: &View, p: usize, k: TaskKind) -> u32 {
        let configured = if p < w.pools.len() {
            Self::pool_min(w, p, k)
        } else {
            self.alloc(p, k)
        };
        configured.min(v.pending[p])
    }

    /// Pool order key of §8.3: (tier, ratio): tier 0 for PoolWorkload ≤
    /// minAllocated, by PoolOccupiedRatio; tier 1 by PoolWorkload / weight.
    fn pool_key(&self, w: &World, v: &View, p: usize, k: TaskKind) -> (u8, f64) {
        let workload = v.running[p];
        let min_alloc = self.min_allocated(w, v, p, k);
        if workload <= min_alloc {
            let ratio = if workload == 0 {
                0.0
            } else {
                f64::from(workload) / f64::from(min_alloc)
            };
            (0, ratio)
        } else {
            let weight = Self::pool_weight(w, p).max(f64::MIN_POSITIVE);
            (1, f64::from(workload) / weight)
        }
    }

    /// Virtual pools with jobs, in the order they are offered a task.
    fn pool_order(&self, w: &World, v: &View, k: TaskKind) -> Vec<usize> {
        let mut pools: Vec<usize> = (0..v.jobs.len())
            .filter(|&p| !v.jobs[p].is_empty())
            .collect();
        let name = |p: usize| self.vpool_name(w, p);
        if self.mech.sorting {
            let keyed: Vec<(u8, f64)> = (0..v.jobs.len())
                .map(|p| self.pool_key(w, v, p, k))
                .collect();
            pools.sort_by(|&a, &b| {
                keyed[a]
                    .0
                    .cmp(&keyed[b].0)
                    .then(keyed[a].1.total_cmp(&keyed[b].1))
                    .then_with(|| name(a).cmp(name(b)))
            });
        } else {
            let key = |p: usize| Key {
                running: f64::from(v.running[p]),
                min_share: f64::from(Self::pool_min(w, p, k)),
                demand: f64::from(v.demand[p]),
                weight: Self::pool_weight(w, p),
            };
            pools.sort_by(|&a, &b| fair_cmp(&key(a), &key(b)).then_with(|| name(a).cmp(name(b))));
        }
        pools
    }

    /// JobPendingRatio and JobOccupiedRatio of job `j` in pool `p`.
    fn job_ratios(&self, w: &World, v: &View, p: usize, j: JobId, k: TaskKind) -> (f64, f64) {
        let pending = self.pending(w, j, k);
        let pending_ratio = if v.pending[p] == 0 {
            0.0
        } else {
            f64::from(pending) / f64::from(v.pending[p])
        };
        let running = Self::running(w, j, k);
        let alloc = self.alloc(p, k);
        let occupied = match (running, alloc) {
            (0, _) => 0.0,
            (_, 0) => f64::INFINITY,
            (r, a) => f64::from(r) / f64::from(a),
        };
        (pending_ratio, occupied)
    }

    /// Is pool `p` served first come first served?
    fn fifo_pool(&self, w: &World, p: usize) -> bool {
        w.pools
            .get(p)
            .is_none_or(|s| s.scheduling_mode == PoolMode::Fifo)
    }

    /// The jobs of pool `p` in the order they are offered a task.
    fn job_order(&self, w: &World, v: &View, p: usize, k: TaskKind) -> Vec<JobId> {
        let mut jobs = v.jobs[p].clone();
        if self.fifo_pool(w, p) {
            jobs.sort_by_key(|&j| (self.prio(w, j), w.job(j).submit, j));
        } else if self.mech.sorting {
            let mut keyed: Vec<(Priority, f64, f64, Ms, JobId)> = jobs
                .iter()
                .map(|&j| {
                    let (pr, or) = self.job_ratios(w, v, p, j, k);
                    (self.prio(w, j), pr, or, w.job(j).submit, j)
                })
                .collect();
            keyed.sort_by(|a, b| {
                a.0.cmp(&b.0)
                    .then(b.1.total_cmp(&a.1))
                    .then(a.2.total_cmp(&b.2))
                    .then(a.3.cmp(&b.3))
                    .then(a.4.cmp(&b.4))
            });
            jobs = keyed.into_iter().map(|x| x.4).collect();
        } else {
            let mut keyed: Vec<(Key, Ms, JobId)> = jobs
                .iter()
                .map(|&j| {
                    let key = Key {
                        running: f64::from(Self::running(w, j, k)),
                        min_share: 0.0,
                        demand: f64::from(self.demand(w, j, k)),
                        weight: self.prio(w, j).fair_factor(),
                    };
                    (key, w.job(j).submit, j)
                })
                .collect();
            keyed.sort_by(|a, b| fair_cmp(&a.0, &b.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2)));
            jobs = keyed.into_iter().map(|x| x.2).collect();
        }
        jobs
    }

    /// The refresh: mechanisms 1, 2, 4 and 5 (3 sorts live on every
    /// assignment, from the allocations fixed here).
    fn refresh(&mut self, w: &World) {
        let n = w.pools.len();
        while w.pools.iter().any(|p| p.name == self.shared_name) {
            self.shared_name.push('*');
        }
        // 1. Classification.
        let min_maps = w.active.iter().map(|&j| w.job(j).n_maps()).min();
        let min_reduces = w
            .active
            .iter()
            .map(|&j| w.job(j).n_reduces())
            .filter(|&r| r > 0)
            .min();
        let total = w.active.len() as u32;
        let small = min_maps.map_or(0, |m| {
            w.active.iter().filter(|&&j| w.job(j).n_maps() <= m).count() as u32
        });
        let (nodes, slots) = (w.cluster.live_nodes, w.cluster.total_map_slots);
        // SmallJobs / TotalJobs ≤ 1 / (slots / nodes), in integers.
        let enabled = self.mech.classification
            && total > 0
            && u64::from(small) * u64::from(slots) <= u64::from(total) * u64::from(nodes);
        for &j in &w.active {
            let size = w.job(j).n_maps();
            let is_small = min_maps.is_some_and(|m| size <= m);
            let s = self.state_mut(w, j);
            s.small = is_small;
            s.shared = enabled && is_small;
        }
        // 2. Allocation, per kind.
        let mut alloc: [Vec<u32>; 2] = [Vec::new(), Vec::new()];
        for k in [TaskKind::Map, TaskKind::Reduce] {
            let v = self.view(w, k);
            let total_slots = Self::total_slots(w, k);
            let max: Vec<u32> = (0..n).map(|p| Self::pool_max(w, p, k)).collect();
            let size = match k {
                TaskKind::Map => min_maps,
                TaskKind::Reduce => min_reduces,
            };
            let (shared, mut pools) = if self.mech.allocation {
                allocate(total_slots, size.filter(|_| enabled), &v.pending[..n], &max)
            } else {
                (
                    total_slots,
                    max.iter().map(|&m| m.min(total_slots)).collect(),
                )
            };
            pools.push(shared);
            alloc[ki(k)] = pools;
        }
        // 4. Delays.
        let (node_delay, rack_delay) = if self.mech.delay {
            (
                self.node_waits.mean().unwrap_or(self.init_node_delay),
                self.rack_waits.mean().unwrap_or(self.init_rack_delay),
            )
        } else {
            (self.init_node_delay, self.init_rack_delay)
        };
        // 5. Priorities.
        let adjust = self.mech.priority;
        for &j in &w.active {
            let s = self.state_mut(w, j);
            if adjust && s.fresh {
                if let (Some(a), Some(b)) = (s.prev, s.last) {
                    s.prio = adjust_priority(s.prio, a, b);
                }
            }
            s.fresh = false;
        }
        self.snap = Snapshot {
            min_job_size: min_maps,
            min_job_size_reduce: min_reduces,
            small_jobs: small,
            total_jobs: total,
            nodes,
            map_slots: slots,
            shared_enabled: enabled,
            alloc,
            node_delay,
            rack_delay,
        };
    }

    /// `getAllowedLocalityLevel` with the current delays.
    fn allowed_level(&self, s: &JobState) -> Locality {
        let (nd, rd) = (self.snap.node_delay, self.snap.rack_delay);
        match s.level {
            Locality::Node if s.waited >= nd.saturating_add(rd) => Locality::OffDc,
            Locality::Node if s.waited >= nd => Locality::Rack,
            Locality::Node => Locality::Node,
            Locality::Rack if s.waited >= rd => Locality::OffDc,
            Locality::Rack => Locality::Rack,
            _ => Locality::OffDc,
        }
    }

    /// `updateLocalityWaitTimes`: jobs skipped at the previous heartbeat
    /// (any node's) have waited the time since it.
    fn update_wait_times(&mut self, now: Ms) {
        let dt = self.last_heartbeat.map_or(0, |t| now.saturating_sub(t));
        self.last_heartbeat = Some(now);
        for s in self.jobs.iter_mut().flatten() {
            if s.skipped {
                s.waited = s.waited.saturating_add(dt);
                s.skipped = false;
            }
        }
    }

    fn try_job(
        &mut self,
        hb: &mut Heartbeat<'_>,
        j: JobId,
        kind: TaskKind,
        borrowed: bool,
        visited: &mut Vec<JobId>,
    ) -> bool {
        let w = hb.world();
        let job = w.job(j);
        if !job.runnable {
            return false;
        }
        match kind {
            TaskKind::Map => {
                visited.push(j);
                let allowed = self.allowed_level(&self.state(w, j));
                let Some((t, loc)) = job.find_map(hb.node, allowed, &w.cluster) else {
                    return false;
                };
                let rule = match loc {
                    _ if borrowed => RULE_BORROWED,
                    Locality::Node => RULE_NODE,
                    Locality::Rack => RULE_RACK,
                    _ => RULE_OFF,
                };
                hb.launch_map(j, t, rule);
                let w = hb.world();
                let s = self.state_mut(w, j);
                let waited = s.waited;
                s.prev = s.last;
                s.last = Some(loc);
                s.fresh = true;
                s.level = loc;
                s.waited = 0;
                match loc {
                    Locality::Node => self.node_waits.add(waited),
                    Locality::Rack => self.rack_waits.add(waited),
                    _ => {}
                }
                true
            }
            TaskKind::Reduce => {
                if !job.reduces_schedulable(self.slowstart) {
                    return false;
                }
                let Some(r) = job.find_reduce() else {
                    return false;
                };
                hb.launch_reduce(j, r, if borrowed { RULE_BORROWED } else { RULE_REDUCE });
                true
            }
        }
    }

    /// One task of `kind`: pools in order, jobs in order, each pool up to
    /// its allocation; if that launches nothing, pools already at their
    /// allocation borrow the slot, up to their max share.
    fn assign_one(
        &mut self,
        hb: &mut Heartbeat<'_>,
        kind: TaskKind,
        launched: &mut Vec<JobId>,
        visited: &mut Vec<JobId>,
    ) -> bool {
        let w = hb.world();
        let v = self.view(w, kind);
        let pools = self.pool_order(w, &v, kind);
        for borrow in [false, true] {
            for &p in &pools {
                let w = hb.world();
                let cap = self.cap(w, p, kind);
                // Pools under their allocation were tried in the first pass.
                let limit = if borrow {
                    if v.running[p] < cap {
                        continue;
                    }
                    Self::pool_max(w, p, kind)
                } else {
                    cap
                };
                if v.running[p] >= limit {
                    continue;
                }
                for j in self.job_order(w, &v, p, kind) {
                    if self.try_job(hb, j, kind, borrow, visited) {
                        if kind == TaskKind::Map {
                            launched.push(j);
                        }
                        return true;
                    }
                }
            }
            if !self.mech.allocation {
                break;
            }
        }
        false
    }

    fn mark_skipped(&mut self, launched: Vec<JobId>, mut visited: Vec<JobId>, w: &World) {
        visited.sort_unstable();
        visited.dedup();
        for j in visited {
            if !launched.contains(&j) {
                self.state_mut(w, j).skipped = true;
            }
        }
    }
}

impl Policy for AdaptiveFair {
    fn label(&self) -> &str {
        &self.label
    }

    fn slowstart(&self) -> f64 {
        self.slowstart
    }

    fn adopt(&mut self, w: &World) {
        self.jobs.clear();
        self.node_waits = WaitMean::default();
        self.rack_waits = WaitMean::default();
        self.last_heartbeat = None;
        self.last_tick = Some(w.now);
        self.refresh(w);
    }

    fn job_arrived(&mut self, w: &World, j: JobId) {
        let i = j as usize;
        if self.jobs.len() <= i {
            self.jobs.resize(i + 1, None);
        }
        self.jobs[i] = Some(JobState::new(w.job(j).priority));
        self.refresh(w);
    }

    fn job_finished(&mut self, w: &World, _j: JobId) {
        self.refresh(w);
    }

    fn maintain(&mut self, hb: &mut Heartbeat<'_>) {
        let now = hb.world().now;
        if self
            .last_tick
            .is_some_and(|t| now < t.saturating_add(self.update_interval))
        {
            return;
        }
        self.last_tick = Some(now);
        self.refresh(hb.world());
    }

    fn heartbeat(&mut self, hb: &mut Heartbeat<'_>) {
        let now = hb.world().now;
        self.update_wait_times(now);
        let w = hb.world();
        let runnable_maps: u32 = self.view(w, TaskKind::Map).demand.iter().sum();
        let runnable_reduces: u32 = self.view(w, TaskKind::Reduce).demand.iter().sum();
        let assign_multiple = self.assign_multiple;
        let (launched, visited) = typed_assign_loop(
            hb,
            assign_multiple,
            (runnable_maps, runnable_reduces),
            |hb, kind, launched, visited| {
                let kind = if kind == FairKind::Map {
                    TaskKind::Map
                } else {
                    TaskKind::Reduce
                };
                self.assign_one(hb, kind, launched, visited)
            },
        );
        self.mark_skipped(launched, visited, hb.world());
    }

    fn inspect(&self, w: &World, _node: NodeId) -> Inspection {
        let mut ins = Inspection::default();
        let s = &self.snap;
        let c = &mut ins.cluster;
        let opt = |x: Option<u32>| x.map_or(Value::Null, Into::into);
        c.insert("min_job_size".into(), opt(s.min_job_size));
        c.insert("min_job_size_reduce".into(), opt(s.min_job_size_reduce));
        c.insert("small_jobs".into(), s.small_jobs.into());
        c.insert("total_jobs".into(), s.total_jobs.into());
        c.insert(
            "small_jobs_ratio".into(),
            if s.total_jobs == 0 {
                Value::Null
            } else {
                num(f64::from(s.small_jobs) / f64::from(s.total_jobs))
            },
        );
        c.insert(
            "small_jobs_threshold".into(),
            if s.map_slots == 0 {
                Value::Null
            } else {
                num(f64::from(s.nodes) / f64::from(s.map_slots))
            },
        );
        c.insert("shared_pool_enabled".into(), s.shared_enabled.into());
        c.insert(
            "node_locality_delay_s".into(),
            num(s.node_delay as f64 / 1000.0),
        );
        c.insert(
            "rack_locality_delay_s".into(),
            num(s.rack_delay as f64 / 1000.0),
        );
        c.insert("node_wait_count".into(), self.node_waits.count.into());
        c.insert(
            "node_wait_total_s".into(),
            num(self.node_waits.total as f64 / 1000.0),
        );
        c.insert("rack_wait_count".into(), self.rack_waits.count.into());
        c.insert(
            "rack_wait_total_s".into(),
            num(self.rack_waits.total as f64 / 1000.0),
        );

        let mv = self.view(w, TaskKind::Map);
        let rv = self.view(w, TaskKind::Reduce);
        let order = self.pool_order(w, &mv, TaskKind::Map);
        for p in 0..mv.jobs.len() {
            let mut v = Values::new();
            let min_alloc = self.min_allocated(w, &mv, p, TaskKind::Map);
            let workload = mv.running[p];
            v.insert("shared".into(), (p == w.pools.len()).into());
            v.insert("allocation_map".into(), self.alloc(p, TaskKind::Map).into());
            v.insert(
                "allocation_reduce".into(),
                self.alloc(p, TaskKind::Reduce).into(),
            );
            v.insert("workload_map".into(), workload.into());
            v.insert("workload_reduce".into(), rv.running[p].into());
            v.insert("pending_map".into(), mv.pending[p].into());
            v.insert("pending_reduce".into(), rv.pending[p].into());
            v.insert("min_allocated_map".into(), min_alloc.into());
            let occupied = match (workload, min_alloc) {
                (0, _) => num(0.0),
                (_, 0) => Value::Null,
                (x, m) => num(f64::from(x) / f64::from(m)),
            };
            v.insert("occupied_ratio_map".into(), occupied);
            v.insert(
                "weighted_workload_map".into(),
                num(f64::from(workload) / Self::pool_weight(w, p).max(f64::MIN_POSITIVE)),
            );
            v.insert("weight".into(), num(Self::pool_weight(w, p)));
            v.insert(
                "order".into(),
                order
                    .iter()
                    .position(|&q| q == p)
                    .map_or(Value::Null, |i| (i as u64).into()),
            );
            ins.pools.insert(self.vpool_name(w, p).to_string(), v);
        }
        // Waits as they will stand once this heartbeat's update has run.
        let dt = self.last_heartbeat.map_or(0, |t| w.now.saturating_sub(t));
        let mut pos = 0u64;
        for &p in &order {
            for j in self.job_order(w, &mv, p, TaskKind::Map) {
                let job = w.job(j);
                let mut st = self.state(w, j);
                if st.skipped {
                    st.waited = st.waited.saturating_add(dt);
                }
                let (pr, or) = self.job_ratios(w, &mv, p, j, TaskKind::Map);
                let mut v = Values::new();
                v.insert("order".into(), pos.into());
                pos += 1;
                v.insert(
                    "class".into(),
                    if st.shared { "shared" } else { "user" }.into(),
                );
                v.insert("small".into(), st.small.into());
                v.insert("pool".into(), self.vpool_name(w, p).into());
                v.insert("priority".into(), priority_name(st.prio).into());
                v.insert("pending_ratio".into(), num(pr));
                v.insert("occupied_ratio".into(), num(or));
                v.insert(
                    "pending_map".into(),
                    self.pending(w, j, TaskKind::Map).into(),
                );
                v.insert("running_map".into(), job.maps_running.into());
                let lvl = match self.allowed_level(&st) {
                    Locality::Node => "node",
                    Locality::Rack => "rack",
                    _ => "any",
                };
                v.insert("locality_level".into(), lvl.into());
                v.insert("waited_s".into(), num(st.waited as f64 / 1000.0));
                v.insert(
                    "last_locality".into(),
                    st.last.map_or(Value::Null, |l| l.as_str().into()),
                );
                ins.jobs.insert(job.name.clone(), v);
            }
        }
        ins
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Locality::{Node, OffRack, Rack};
    use Priority::{High, Low, Normal, VeryHigh, VeryLow};

    /// Table 3 as we read it: rows are the change of locality, columns
    /// the original priority VERY_HIGH, HIGH, NORMAL, LOW, VERY_LOW.
    #[test]
    fn table_3() {
        let cols = [VeryHigh, High, Normal, Low, VeryLow];
        let rows: [(Locality, Locality, [Priority; 5]); 9] = [
            (Node, Node, [High, High, Normal, Low, Low]),
            (Node, Rack, [High, Normal, Low, VeryLow, Low]),
            (Node, OffRack, [Normal, Low, VeryLow, VeryLow, Low]),
            (Rack, Node, [High, VeryHigh, High, Normal, Low]),
            (Rack, Rack, [High, High, Normal, Low, Low]),
            (Rack, OffRack, [High, Normal, Low, VeryLow, Low]),
            (OffRack, Node, [High, VeryHigh, VeryHigh, High, Normal]),
            (OffRack, Rack, [High, VeryHigh, High, Normal, Low]),
            (OffRack, OffRack, [High, High, Normal, Low, Low]),
        ];
        for (a, b, want) in rows {
            for (p, w) in cols.iter().zip(want) {
                assert_eq!(adjust_priority(*p, a, b), w, "{a:?}->{b:?} from {p:?}");
            }
        }
        // Off-datacenter counts as "none", like off-rack.
        assert_eq!(adjust_priority(Normal, Node, Locality::OffDc), VeryLow);
    }

    #[test]
    fn allocation_by_pending_tasks() {
        // 16 slots, shared pool for a 6-map job: 3; 13 left over pending
        // 40/30/20, max 6: ceil(5.78), ceil(4.33), ceil(2.89) = 6, 5, 3.
        let (s, p) = allocate(16, Some(6), &[40, 30, 20], &[6, 6, 6]);
        assert_eq!((s, p), (3, vec![6, 5, 3]));
        // Disabled shared pool, no pending anywhere.
        assert_eq!(allocate(8, None, &[0, 0], &[9, 9]), (0, vec![0, 0]));
        // Ceilings never give a pending pool 0: 2 slots, 1 task each.
        assert_eq!(
            allocate(2, None, &[1, 1, 1], &[9, 9, 9]),
            (0, vec![1, 1, 1])
        );
        // The shared pool never gets more than the cluster.
        assert_eq!(allocate(2, Some(9), &[5], &[9]), (2, vec![0]));
        // Odd sizes round up: ceil(5 / 2) = 3.
        assert_eq!(allocate(10, Some(5), &[1], &[u32::MAX]).0, 3);
    }
}

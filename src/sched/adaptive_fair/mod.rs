//! `adaptive-fair`: the adaptive (modified) fair scheduler of the adaptive
//! fair scheduler paper (an extension of a PlatCon-17 paper; its text
//! names no title), as docs/policies.md settles it.
//! Five mechanisms over Hadoop 1.x's FairScheduler (typed
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
//!    writes the same bracket for both roundings; we settle the
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
//!    paper's "NodeLocalityWaitedTime" echoes). **Settled here:** only
//!    launches that waited (their job was skipped at least once since its
//!    previous map) count. Counting the launches that found a local map at
//!    once puts zeros in the mean; the first launch of a run is such a
//!    launch, the delay drops to 0, with a delay of 0 no job is ever
//!    skipped again, and the mechanism has switched itself off (on the
//!    bundled scenario: 134 node-local and 79 rack-local launches, total
//!    wait 0 s). Until the first counted launch the configured delays
//!    hold.
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

mod mechanisms;
mod schedule;

pub use mechanisms::{adjust_priority, allocate, locality_rank, priority_name};

use super::fair::base::{auto_delay, typed_assign_loop, TaskKind as FairKind};
use super::registry::{Entry, DEFAULT_SLOWSTART};
use super::settings::{ConfigError, Settings};
use crate::model::Models;
use crate::model::{JobId, Ms, NodeId, Priority};
use crate::sim::policy::{
    num, BuildCtx, Event, Inspection, Policy, PoolShare, PoolShares, ShareBasis, Show, Value,
    Values,
};
use crate::sim::{Heartbeat, Locality, RunView};
use crate::units::de_opt_duration;
use mechanisms::WaitMean;

/// `[scheduler.adaptive-fair]`. Every mechanism is on by default; turning
/// all five off leaves Hadoop 1.x's fair scheduler (without fair-share
/// preemption), which is how `tests/it/adaptive_fair.rs` checks the base.
#[derive(Clone, Debug, Default, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    pub slowstart: Option<f64>,
    /// How often classification, allocations, delays and priorities are
    /// refreshed (the paper's 500 ms, Hadoop's `UPDATE_INTERVAL`).
    #[serde(default, deserialize_with = "de_opt_duration")]
    pub update_interval: Option<Ms>,
    /// The delays used until a node-local (rack-local) launch has been
    /// observed; default min(15 s, 1.5 × heartbeat) as in Hadoop.
    #[serde(default, deserialize_with = "de_opt_duration")]
    pub node_locality_delay: Option<Ms>,
    #[serde(default, deserialize_with = "de_opt_duration")]
    pub rack_locality_delay: Option<Ms>,
    /// Fill every free slot of a heartbeat (Hadoop's `assignmultiple`, true).
    pub assign_multiple: Option<bool>,
    /// Mechanism 1: small jobs into the shared pool (default true).
    pub job_classification: Option<bool>,
    /// Mechanism 2: pool allocations by pending tasks (default true).
    pub pool_allocation: Option<bool>,
    /// Mechanism 3: resource-aware job and pool sorting (default true).
    pub job_sorting: Option<bool>,
    /// Mechanism 4: delays from the mean waits of local launches (default true).
    pub delay_adjustment: Option<bool>,
    /// Mechanism 5: Table 3's priority changes (default true).
    pub priority_adjustment: Option<bool>,
}

pub const ADAPTIVE_FAIR: Entry = Entry {
    name: "adaptive-fair",
    summary: "Adaptive fair: small jobs in a shared FIFO pool, pool slots by pending tasks, resource-aware sorting, delays from observed waits, priorities from locality",
    source: "the adaptive fair scheduler paper (extension of a PlatCon-17 paper; its text names no title or authors)",
    runs_on: Models::SLOTS,
    meant_for: Models::SLOTS,
    build: |s, ctx| Ok(Box::new(AdaptiveFair::build(s, ctx)?)),
    check: None,
};

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

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum TaskKind {
    Map,
    Reduce,
}

pub(super) fn ki(k: TaskKind) -> usize {
    usize::from(k == TaskKind::Reduce)
}

/// What the policy keeps per job.
#[derive(Clone, Debug)]
pub(super) struct JobState {
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
    pub(super) fn new(prio: Priority) -> JobState {
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
pub(super) struct View {
    jobs: Vec<Vec<JobId>>,
    pending: Vec<u32>,
    running: Vec<u32>,
    demand: Vec<u32>,
}

#[derive(Clone)]
pub struct AdaptiveFair {
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
    fn build(s: &Settings, ctx: &BuildCtx) -> Result<AdaptiveFair, ConfigError> {
        let own: Config = s.own()?;
        if own.update_interval == Some(0) {
            return Err(ConfigError::new(
                "scheduler.adaptive-fair.update_interval",
                "update_interval must be longer than 0 ms, e.g. \"500ms\"",
            ));
        }
        let auto = auto_delay(ctx);
        let on = |v: Option<bool>| v.unwrap_or(true);
        let init_node_delay = own.node_locality_delay.unwrap_or(auto);
        let init_rack_delay = own.rack_locality_delay.unwrap_or(auto);
        Ok(AdaptiveFair {
            slowstart: s.slowstart_or(own.slowstart, DEFAULT_SLOWSTART)?,
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
        })
    }
}

impl Policy for AdaptiveFair {
    fn slowstart(&self) -> f64 {
        self.slowstart
    }

    fn adopt(&mut self, w: RunView<'_>) {
        self.jobs.clear();
        self.node_waits = WaitMean::default();
        self.rack_waits = WaitMean::default();
        self.last_heartbeat = None;
        self.last_tick = Some(w.now());
        self.refresh(w);
    }

    fn maintain(&mut self, hb: &mut Heartbeat<'_>) {
        let now = hb.view().now();
        if self
            .last_tick
            .is_some_and(|t| now < t.saturating_add(self.update_interval))
        {
            return;
        }
        self.last_tick = Some(now);
        self.refresh(hb.view());
    }

    fn heartbeat(&mut self, hb: &mut Heartbeat<'_>) {
        let now = hb.view().now();
        self.update_wait_times(now);
        let w = hb.view();
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
        self.mark_skipped(launched, visited, hb.view());
    }

    fn hear(&mut self, w: RunView<'_>, e: Event) {
        match e {
            Event::JobArrived(j) => {
                let i = j as usize;
                if self.jobs.len() <= i {
                    self.jobs.resize(i + 1, None);
                }
                self.jobs[i] = Some(JobState::new(w.job(j).priority));
                self.refresh(w);
            }
            Event::JobFinished(_j) => {
                self.refresh(w);
            }
            // A priority set by hand replaces mechanism 5's adjusted one (which
            // goes on adjusting from it); a pool move re-sorts the pools.
            Event::JobUpdated(j) => {
                self.state_mut(w, j).prio = w.job(j).priority;
                self.refresh(w);
            }
            _ => {}
        }
    }
}

impl Show for AdaptiveFair {
    fn inspect(&self, w: RunView<'_>, _node: NodeId) -> Inspection {
        let mut ins = Inspection::default();
        let s = &self.snap;
        let c = &mut ins.cluster;
        c.insert("min_job_size", s.min_job_size);
        c.insert("min_job_size_reduce", s.min_job_size_reduce);
        c.insert("small_jobs", s.small_jobs);
        c.insert("total_jobs", s.total_jobs);
        c.insert(
            "small_jobs_ratio",
            if s.total_jobs == 0 {
                Value::Null
            } else {
                num(f64::from(s.small_jobs) / f64::from(s.total_jobs))
            },
        );
        c.insert(
            "small_jobs_threshold",
            if s.map_slots == 0 {
                Value::Null
            } else {
                num(f64::from(s.nodes) / f64::from(s.map_slots))
            },
        );
        c.insert("shared_pool_enabled", s.shared_enabled);
        c.insert("node_locality_delay_s", num(s.node_delay as f64 / 1000.0));
        c.insert("rack_locality_delay_s", num(s.rack_delay as f64 / 1000.0));
        c.insert("node_wait_count", self.node_waits.count);
        c.insert(
            "node_wait_total_s",
            num(self.node_waits.total as f64 / 1000.0),
        );
        c.insert("rack_wait_count", self.rack_waits.count);
        c.insert(
            "rack_wait_total_s",
            num(self.rack_waits.total as f64 / 1000.0),
        );

        let mv = self.view(w, TaskKind::Map);
        let rv = self.view(w, TaskKind::Reduce);
        let order = self.pool_order(w, &mv, TaskKind::Map);
        for p in 0..mv.jobs.len() {
            let mut v = Values::new();
            let min_alloc = self.min_allocated(w, &mv, p, TaskKind::Map);
            let workload = mv.running[p];
            v.insert("shared", p == w.pools().len());
            v.insert("allocation_map", self.alloc(p, TaskKind::Map));
            v.insert("allocation_reduce", self.alloc(p, TaskKind::Reduce));
            v.insert("workload_map", workload);
            v.insert("workload_reduce", rv.running[p]);
            v.insert("pending_map", mv.pending[p]);
            v.insert("pending_reduce", rv.pending[p]);
            v.insert("min_allocated_map", min_alloc);
            let occupied = match (workload, min_alloc) {
                (0, _) => num(0.0),
                (_, 0) => Value::Null,
                (x, m) => num(f64::from(x) / f64::from(m)),
            };
            v.insert("occupied_ratio_map", occupied);
            v.insert(
                "weighted_workload_map",
                num(f64::from(workload) / Self::pool_weight(w, p).max(f64::MIN_POSITIVE)),
            );
            v.insert("weight", num(Self::pool_weight(w, p)));
            v.insert(
                "order",
                order.iter().position(|&q| q == p).map(|i| i as u64),
            );
            ins.pools.insert(self.vpool_name(w, p).to_string(), v);
        }
        // Waits as they will stand once this heartbeat's update has run.
        let dt = self.last_heartbeat.map_or(0, |t| w.now().saturating_sub(t));
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
                v.insert("order", pos);
                pos += 1;
                v.insert("class", if st.shared { "shared" } else { "user" });
                v.insert("small", st.small);
                v.insert("pool", self.vpool_name(w, p));
                v.insert("priority", priority_name(st.prio));
                v.insert("pending_ratio", num(pr));
                v.insert("occupied_ratio", num(or));
                v.insert("pending_map", self.pending(w, j, TaskKind::Map));
                v.insert("running_map", job.maps_running);
                let lvl = match self.allowed_level(&st) {
                    Locality::Node => "node",
                    Locality::Rack => "rack",
                    _ => "any",
                };
                v.insert("locality_level", lvl);
                v.insert("waited_s", num(st.waited as f64 / 1000.0));
                v.insert("last_locality", st.last.map(|l| l.as_str()));
                ins.jobs.insert(job.name.to_string(), v);
            }
        }
        ins
    }

    /// The policy's own pools (user pools less the jobs it moved, plus the
    /// shared pool), by name, against their allocations.
    fn pool_shares(&self, w: RunView<'_>) -> Option<PoolShares> {
        let mv = self.view(w, TaskKind::Map);
        let rv = self.view(w, TaskKind::Reduce);
        let mut pools: Vec<PoolShare> = (0..mv.jobs.len())
            .map(|p| PoolShare {
                name: self.vpool_name(w, p).to_string(),
                weight: Self::pool_weight(w, p),
                jobs: mv.jobs[p].len(),
                running_maps: mv.running[p],
                running_reduces: rv.running[p],
                share_map: f64::from(self.alloc(p, TaskKind::Map)),
                share_reduce: f64::from(self.alloc(p, TaskKind::Reduce)),
                capacity_pct: None,
            })
            .collect();
        pools.sort_by(|a, b| a.name.cmp(&b.name));
        Some(PoolShares {
            basis: ShareBasis::Allocation,
            pools,
        })
    }
}

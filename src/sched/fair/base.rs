//! The fair scheduler's machinery, shared by `fair`/`fresh` and the
//! policies built on it (OMO's fair base, DynamicMR's DHSA): demands and
//! weights, pool and job shares, pool and job order, one task per pass
//! over the pools (`FairScheduler.assignTasks`), and the heartbeat loops.
//!
//! What differs between those policies goes through [`Hooks`]: which
//! reduces count in a job's demand, whether the base launches reduces at
//! all, and the rule names of its launches. The base knows no policy.
//!
//! It runs past 700 lines because it is one piece of Hadoop 1.x: the
//! demands, shares and orders its heartbeat loops read are computed for
//! those loops and change with them (`FairScheduler.update` and
//! `assignTasks` live in one Java class for the same reason); the share
//! arithmetic, delay scheduling and preemption, which stand alone, are
//! in their own modules.

use super::delay::JobInfo;
use super::preemption::Preemption;
use super::shares::{compute_fair_shares, fair_cmp, Key, Sched};
use crate::model::{JobId, Ms, PoolMode};
use crate::sim::policy::BuildCtx;
use crate::sim::{Heartbeat, Kind, Locality, RunView};

/// Hadoop's `MAX_AUTOCOMPUTED_LOCALITY_DELAY`.
pub const MAX_AUTO_DELAY: Ms = 15_000;

/// Hadoop's default locality delay: min(15 s, 1.5 × heartbeat).
pub fn auto_delay(ctx: &BuildCtx) -> Ms {
    let hb = ctx.heartbeat.unwrap_or(3_000);
    MAX_AUTO_DELAY.min(hb.saturating_mul(3) / 2)
}

/// Fair-scheduler demand of a runnable job (`JobSchedulable.updateDemand`):
/// its maps not running plus its running attempts, so a speculative copy
/// counts.
pub fn map_demand(w: RunView<'_>, j: JobId) -> u32 {
    let job = w.job(j);
    if job.runnable {
        job.maps_pending + job.maps_running
    } else {
        0
    }
}

/// A runnable job's reduces in its demand: once slowstart allows them, its
/// reduces not running plus its running attempts; before, the running
/// ones. Reduces already running count even when slowstart would not allow
/// them now (a node failure re-opened the maps, or a policy with a higher
/// slowstart was switched in): Hadoop would report 0, and on unified
/// containers that lets the running reduces hide the job's remaining maps
/// from the `running < runnable` check for good.
pub fn reduce_demand(w: RunView<'_>, j: JobId) -> u32 {
    let job = w.job(j);
    if !job.runnable {
        0
    } else if w.reduces_schedulable(j) {
        job.reduces_pending + job.reduces_running
    } else {
        job.reduces_running
    }
}

/// What a fair decision counts: map slots, reduce slots, or (unified)
/// containers of either kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TaskKind {
    Map,
    Reduce,
    /// A unified container: either kind.
    Any,
}

/// What a policy built on the fair base changes in it.
pub trait Hooks: Send {
    /// The reduces of runnable job `j` counted in its demand (default: the
    /// engine's slowstart-gated demand).
    fn reduce_demand(&self, w: RunView<'_>, j: JobId) -> u32 {
        reduce_demand(w, j)
    }

    /// Whether the base launches reduces (OMO launches its own).
    fn launches_reduces(&self) -> bool {
        true
    }

    /// The rule of a launch by the base: a map at `loc`, or a reduce (None).
    fn rule(&self, loc: Option<Locality>) -> &'static str;
}

/// The rule names of a policy's launches.
#[derive(Clone, Copy, Debug)]
pub struct Rules {
    pub node: &'static str,
    pub rack: &'static str,
    pub off: &'static str,
    pub reduce: &'static str,
}

impl Hooks for Rules {
    fn rule(&self, loc: Option<Locality>) -> &'static str {
        match loc {
            None => self.reduce,
            Some(Locality::Node) => self.node,
            Some(Locality::Rack) => self.rack,
            Some(_) => self.off,
        }
    }
}

/// The settings of a fair base.
#[derive(Clone, Copy, Debug)]
pub struct BaseSettings {
    pub slowstart: f64,
    pub node_delay: Ms,
    pub rack_delay: Ms,
    /// Fill every free slot of a heartbeat (Hadoop's `assignmultiple`).
    pub assign_multiple: bool,
    pub size_based_weight: bool,
    /// View a unified cluster's containers as typed slots.
    pub typed_slots: bool,
    pub preemption: bool,
    /// Look for a speculative copy inside each job's lookup, after its
    /// pending tasks (Hadoop's `findNewMapTask` / `findNewReduceTask`);
    /// off, the policy leaves copies to the engine's pass over idle slots.
    pub speculate: bool,
}

#[derive(Clone)]
pub struct FairBase<H> {
    pub settings: BaseSettings,
    pub(super) info: Vec<JobInfo>,
    /// `lastHeartbeatTime` (None until the first heartbeat, like Hadoop's 0).
    pub(super) last_heartbeat: Option<Ms>,
    /// Per pool: last time at min share / at half fair share (maps).
    pub(super) last_at_min: Vec<Ms>,
    pub(super) last_at_half: Vec<Ms>,
    /// `preemption = true`: the preemption state.
    pub(super) preemption: Option<Preemption>,
    pub hooks: H,
    /// Scratch for a typed heartbeat's pools (see [`FairBase::typed_view`]).
    views: (Vec<Vec<JobId>>, Vec<u32>, Vec<u32>),
    /// [`FairBase::assign_one`]'s job order of each pool and kind (pool
    /// × 2, + 1 for reduces), and the span an order lasts (`gen`): a
    /// typed heartbeat without speculative copies, where every launch is
    /// `assign_one`'s; else one call (OMO's rules launch between fair
    /// steps).
    orders: Vec<PoolOrder>,
    gen: u64,
    /// The jobs [`FairBase::mark_skipped`] marked since the last
    /// heartbeat's update of the waits.
    pub(super) skipped: Vec<JobId>,
}

/// A job in a pool's order: `FairShareComparator` on its key (all keys
/// equal in a FIFO-mode pool), then priority (FIFO-mode pools only), then
/// submission, then id, as integers compared in that field order: a total
/// order, so any sort gives the same one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Ranked {
    /// [`fair_cmp`]'s order as one integer: needy first (top bit clear),
    /// then the ratio it compares, a non-negative float, whose bits order
    /// as its value does.
    fair: u64,
    priority: Option<crate::model::Priority>,
    submit: Ms,
    id: JobId,
}

impl Ranked {
    fn fair(k: &Key) -> u64 {
        let ms = k.min_share.min(k.demand);
        let (needy, ratio) = if k.running < ms {
            (0, k.running / ms.max(1.0))
        } else {
            (1, k.running / k.weight.max(f64::MIN_POSITIVE))
        };
        debug_assert!(ratio >= 0.0, "a share ratio is never negative");
        needy << 63 | ratio.to_bits()
    }
}

/// A pool's jobs for one kind in a heartbeat: those that may take a
/// task, in a heap by their order, and those that cannot but a map
/// visit marks (see [`FairBase::entry`]); `gen` the span it is for.
#[derive(Clone, Default)]
struct PoolOrder {
    gen: u64,
    heap: std::collections::BinaryHeap<std::cmp::Reverse<Ranked>>,
    idle: Vec<Ranked>,
}

/// A job's place in a [`PoolOrder`] (see [`FairBase::entry`]).
enum Entry {
    Able(Ranked),
    Visited(Ranked),
    Unseen,
}

impl PoolOrder {
    fn place(&mut self, e: Entry) {
        match e {
            Entry::Able(r) => self.heap.push(std::cmp::Reverse(r)),
            Entry::Visited(r) => self.idle.push(r),
            Entry::Unseen => {}
        }
    }
}

/// One heartbeat's assignment loop on a fair base (the locals of
/// `assignTasks`), so that OMO can interleave its rules with fair steps.
pub struct Round {
    kind: TaskKind,
    pool_jobs: Vec<Vec<JobId>>,
    demand: Vec<u32>,
    runnable: u32,
    cap: u32,
    assigned: u32,
    launched: Vec<JobId>,
    visited: Vec<JobId>,
}

pub fn job_running(w: RunView<'_>, j: JobId, k: TaskKind) -> u32 {
    let job = w.job(j);
    match k {
        TaskKind::Map => job.maps_running,
        TaskKind::Reduce => job.reduces_running,
        TaskKind::Any => job.maps_running + job.reduces_running,
    }
}

pub fn pool_running(w: RunView<'_>, p: usize, k: TaskKind) -> u32 {
    let s = &w.pool_stats()[p];
    match k {
        TaskKind::Map => s.running_maps,
        TaskKind::Reduce => s.running_reduces,
        TaskKind::Any => s.running_maps + s.running_reduces,
    }
}

pub fn pool_max(w: RunView<'_>, p: usize, k: TaskKind) -> u32 {
    let s = &w.pools()[p];
    match k {
        TaskKind::Map => s.max_maps,
        TaskKind::Reduce => s.max_reduces,
        TaskKind::Any => s.max_maps.saturating_add(s.max_reduces),
    }
}

pub fn pool_min(w: RunView<'_>, p: usize, k: TaskKind) -> u32 {
    let s = &w.pools()[p];
    match k {
        TaskKind::Map => s.min_maps,
        TaskKind::Reduce => s.min_reduces,
        TaskKind::Any => s.min_maps + s.min_reduces,
    }
}

fn total_slots(w: RunView<'_>, k: TaskKind) -> u32 {
    match k {
        TaskKind::Map => w.cluster().total_map_slots,
        TaskKind::Reduce => w.cluster().total_reduce_slots,
        TaskKind::Any => w.cluster().total_slots(),
    }
}

/// `CapBasedLoadManager.getCap`.
pub fn load_cap(runnable: u32, local_max: u32, total_slots: u32) -> u32 {
    let load = runnable as f64 / total_slots.max(1) as f64;
    (local_max as f64 * load.min(1.0)).ceil() as u32
}

impl<H: Hooks> FairBase<H> {
    pub fn new(settings: BaseSettings, hooks: H) -> FairBase<H> {
        FairBase {
            settings,
            info: Vec::new(),
            last_heartbeat: None,
            last_at_min: Vec::new(),
            last_at_half: Vec::new(),
            preemption: settings.preemption.then(Preemption::default),
            hooks,
            views: Default::default(),
            orders: Vec::new(),
            gen: 0,
            skipped: Vec::new(),
        }
    }

    /// Whether this policy schedules maps and reduces in slots of their
    /// own kind: on typed slots, or on containers seen as typed slots
    /// (`typed_slots`); else both kinds share the containers.
    pub fn typed_view(&self, w: RunView<'_>) -> bool {
        self.settings.typed_slots || !w.capacity().kinds_share()
    }

    pub fn job_demand(&self, w: RunView<'_>, j: JobId, k: TaskKind) -> u32 {
        let base = match k {
            TaskKind::Map => map_demand(w, j),
            TaskKind::Reduce => self.hooks.reduce_demand(w, j),
            TaskKind::Any => map_demand(w, j) + self.hooks.reduce_demand(w, j),
        };
        base + self.speculative_demand(w, j, k)
    }

    /// `JobSchedulable.updateDemand` counts one more slot for every running
    /// task that wants a speculative copy, when this policy launches copies
    /// itself: otherwise a job whose only work left is a straggler's copy
    /// would have its demand met, the heartbeat would reject maps, and the
    /// job would never be visited, skipped and let go to any locality where
    /// Hadoop's lookup finds the copy.
    fn speculative_demand(&self, w: RunView<'_>, j: JobId, k: TaskKind) -> u32 {
        if !self.copies(w) {
            return 0;
        }
        let mode = w.tasks().speculation;
        let job = w.job(j);
        let maps = matches!(k, TaskKind::Map | TaskKind::Any) && job.maps_pending == 0;
        let reduces = matches!(k, TaskKind::Reduce | TaskKind::Any) && job.reduces_pending == 0;
        let mut n = 0;
        if maps && job.maps_running > 0 {
            n += crate::sim::speculation::wanted(w, mode, Kind::Map, j);
        }
        if reduces && job.reduces_running > 0 {
            n += crate::sim::speculation::wanted(w, mode, Kind::Reduce, j);
        }
        n
    }

    /// Whether this policy may launch speculative copies in this run: it
    /// launches them itself (`speculate`) and the run's speculation is on.
    fn copies(&self, w: RunView<'_>) -> bool {
        self.settings.speculate && w.tasks().speculation != crate::model::Speculation::Off
    }

    /// `getJobWeight`: priority factor, × log2(1 + demand) with size-based weight.
    pub fn job_weight(&self, w: RunView<'_>, j: JobId, k: TaskKind) -> f64 {
        let job = w.job(j);
        if !job.runnable {
            return 1.0;
        }
        let mut weight = 1.0;
        if self.settings.size_based_weight {
            weight = (1.0 + self.job_demand(w, j, k) as f64).ln() / 2f64.ln();
        }
        weight * job.priority.fair_factor()
    }

    /// Jobs per pool (active order) and each pool's demand, capped at its max.
    pub fn pools_view(&self, w: RunView<'_>, k: TaskKind) -> (Vec<Vec<JobId>>, Vec<u32>) {
        let mut jobs = vec![Vec::new(); w.pools().len()];
        let mut demand = vec![0u32; w.pools().len()];
        for &j in w.active() {
            let p = w.job(j).pool as usize;
            jobs[p].push(j);
            demand[p] += self.job_demand(w, j, k);
        }
        for (p, d) in demand.iter_mut().enumerate() {
            *d = (*d).min(pool_max(w, p, k));
        }
        (jobs, demand)
    }

    /// [`FairBase::pools_view`] for maps and for reduces at once, into the
    /// buffers the last heartbeat left (hand them back in `views`).
    fn typed_pools(&mut self, w: RunView<'_>) -> (Vec<Vec<JobId>>, Vec<u32>, Vec<u32>) {
        let (mut jobs, mut dm, mut dr) = std::mem::take(&mut self.views);
        self.typed_view_into(w, Some(&mut jobs), &mut dm, &mut dr);
        (jobs, dm, dr)
    }

    /// Each pool's map and reduce demand, capped at its max:
    /// `pools_view(w, Map).1` and `pools_view(w, Reduce).1` without the
    /// pools' job lists.
    pub fn typed_demands(&self, w: RunView<'_>) -> (Vec<u32>, Vec<u32>) {
        let (mut dm, mut dr) = (Vec::new(), Vec::new());
        self.typed_view_into(w, None, &mut dm, &mut dr);
        (dm, dr)
    }

    fn typed_view_into(
        &self,
        w: RunView<'_>,
        mut jobs: Option<&mut Vec<Vec<JobId>>>,
        dm: &mut Vec<u32>,
        dr: &mut Vec<u32>,
    ) {
        let n = w.pools().len();
        if let Some(jobs) = jobs.as_deref_mut() {
            jobs.resize_with(n, Vec::new);
            jobs.iter_mut().for_each(Vec::clear);
        }
        dm.clear();
        dm.resize(n, 0);
        dr.clear();
        dr.resize(n, 0);
        // Without speculative demand, one pass; with it, a second for
        // reduces: a job's speculative demand asks for LATE's threshold
        // of one kind, which the world caches for a kind.
        let one_pass = !self.copies(w);
        for &j in w.active() {
            let p = w.job(j).pool as usize;
            if let Some(jobs) = jobs.as_deref_mut() {
                jobs[p].push(j);
            }
            dm[p] += self.job_demand(w, j, TaskKind::Map);
            if one_pass {
                dr[p] += self.job_demand(w, j, TaskKind::Reduce);
            }
        }
        if !one_pass {
            for &j in w.active() {
                dr[w.job(j).pool as usize] += self.job_demand(w, j, TaskKind::Reduce);
            }
        }
        for p in 0..n {
            dm[p] = dm[p].min(pool_max(w, p, TaskKind::Map));
            dr[p] = dr[p].min(pool_max(w, p, TaskKind::Reduce));
        }
    }

    /// Fair shares of pools, then of jobs inside each pool (FIFO-mode pools
    /// give their jobs share 0), as `update()` + `redistributeShare()` do.
    pub fn fair_shares(&self, w: RunView<'_>, k: TaskKind) -> (Vec<f64>, Vec<(JobId, f64)>) {
        let (jobs, demand) = self.pools_view(w, k);
        let pool_scheds: Vec<Sched> = (0..w.pools().len())
            .map(|p| Sched {
                weight: w.pools()[p].weight,
                min_share: pool_min(w, p, k) as f64,
                demand: demand[p] as f64,
            })
            .collect();
        let pool_shares = compute_fair_shares(&pool_scheds, total_slots(w, k) as f64);
        let mut job_shares = Vec::new();
        for (p, js) in jobs.iter().enumerate() {
            if w.pools()[p].scheduling_mode == PoolMode::Fifo {
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

    /// Tries to launch one task of `kind` from job `j` (`JobSchedulable.assignTask`).
    /// A unified container goes to one of the job's maps (subject to delay
    /// scheduling) and else to a schedulable reduce, so a job's reduces can
    /// never hold every container while its maps wait. With `speculate`,
    /// a job with no pending task of the kind then offers a speculative
    /// copy, as `findNewMapTask` does once its allowed level is ANY (below
    /// it the lookup returns before the running tasks) and
    /// `findNewReduceTask` always does.
    fn try_job(
        &mut self,
        hb: &mut Heartbeat<'_>,
        j: JobId,
        kind: TaskKind,
        visited: &mut Vec<JobId>,
    ) -> bool {
        let w = hb.view();
        let job = w.job(j);
        if !job.runnable {
            return false;
        }
        let mut map_any = false;
        if kind != TaskKind::Reduce {
            visited.push(j);
            let info = self.info_ref(j);
            let allowed = self.allowed_level(w, j, &info);
            map_any = allowed == Locality::OffDc;
            if let Some((t, loc)) = job.find_map(hb.node, allowed, w.cluster()) {
                let rule = self.hooks.rule(Some(loc));
                hb.launch_map(j, t, rule);
                self.map_launched(j, loc);
                return true;
            }
        }
        let reduces = kind != TaskKind::Map
            && self.hooks.launches_reduces()
            && job.reduces_schedulable(self.settings.slowstart)
            && (self.typed_view(w) || w.reduce_allowed(j));
        if reduces {
            if let Some(r) = job.find_reduce() {
                let rule = self.hooks.rule(None);
                hb.launch_reduce(j, r, rule);
                return true;
            }
        }
        if !self.settings.speculate {
            return false;
        }
        if map_any {
            if let Some(a) = hb.speculate(j, Kind::Map) {
                let w = hb.view();
                let loc = w.attempts()[a as usize].locality.unwrap_or(Locality::OffDc);
                self.map_launched(j, loc);
                return true;
            }
        }
        reduces && hb.speculate(j, Kind::Reduce).is_some()
    }

    /// Job `j` of pool `p` in its pool's order for `kind`: able to take a
    /// task, or unable on any node this heartbeat, and then whether
    /// [`FairBase::try_job`] would count it visited: not runnable (not
    /// visited); without speculative copies, no pending map for a map
    /// (visited), no pending reduce slowstart lets start for a reduce (not
    /// visited).
    fn entry(&self, w: RunView<'_>, p: usize, kind: TaskKind, j: JobId) -> Entry {
        let job = w.job(j);
        if !job.runnable {
            return Entry::Unseen;
        }
        if !self.copies(w) {
            match kind {
                TaskKind::Map if job.maps_pending == 0 => {
                    return Entry::Visited(self.ranked_job(w, p, kind, j));
                }
                TaskKind::Reduce
                    if job.reduces_pending == 0
                        || !job.reduces_schedulable(self.settings.slowstart) =>
                {
                    return Entry::Unseen;
                }
                _ => {}
            }
        }
        Entry::Able(self.ranked_job(w, p, kind, j))
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
        if self.copies(hb.view()) {
            // A copy launched moves LATE's threshold and cap for every
            // job: a job that took no task may take one now.
            self.gen += 1;
        }
        let w = hb.view();
        let pools = self.sorted_pools(w, kind, pool_jobs, pool_demand);
        for p in pools {
            let w = hb.view();
            if pool_running(w, p, kind) >= pool_max(w, p, kind) {
                continue;
            }
            // The pool's jobs in `sort_jobs` order, taken one at a time
            // from a heap over keys computed once: a job near the front
            // usually takes the task, so sorting them all (Hadoop sorts
            // them for every task) costs more for the same choice.
            // Jobs that cannot take a task of the kind on any node stay out
            // of the heap (for maps, those past their maps); a map visit
            // would have marked those ranked before the job that takes the
            // task, and they are marked. Through a typed heartbeat (`gen`)
            // the order lasts: a job that took no task takes none later in
            // it (its maps, its locality level and its pool's starvation
            // are as they were; without copies, nothing else decides), and
            // the one that took a task goes back in at its new place, which
            // is where sorting again would put it.
            let slot = p * 2 + (kind == TaskKind::Reduce) as usize;
            if self.orders.len() <= slot {
                self.orders.resize_with(slot + 1, PoolOrder::default);
            }
            let mut order = std::mem::take(&mut self.orders[slot]);
            if order.gen != self.gen {
                // One heapify, not a push each.
                order.gen = self.gen;
                let mut v = std::mem::take(&mut order.heap).into_vec();
                v.clear();
                order.idle.clear();
                for &j in &pool_jobs[p] {
                    match self.entry(w, p, kind, j) {
                        Entry::Able(r) => v.push(std::cmp::Reverse(r)),
                        e => order.place(e),
                    }
                }
                order.heap = std::collections::BinaryHeap::from(v);
            }
            let mut hit = None;
            while let Some(std::cmp::Reverse(r)) = order.heap.pop() {
                if self.try_job(hb, r.id, kind, visited) {
                    hit = Some(r);
                    break;
                }
            }
            visited.extend(
                order
                    .idle
                    .iter()
                    .filter(|i| hit.is_none_or(|h| **i < h))
                    .map(|i| i.id),
            );
            if let Some(h) = hit {
                order.place(self.entry(hb.view(), p, kind, h.id));
            }
            self.orders[slot] = order;
            if let Some(Ranked { id: j, .. }) = hit {
                let w = hb.view();
                let a = *hb.assigned.last().expect("a task was launched");
                if w.attempts()[a as usize].kind == Kind::Map {
                    launched.push(j);
                }
                return true;
            }
        }
        false
    }

    /// Pools with jobs, in `FairShareComparator` order for `kind` (ties
    /// by name: pools all start at time 0).
    pub fn sorted_pools(
        &self,
        w: RunView<'_>,
        kind: TaskKind,
        pool_jobs: &[Vec<JobId>],
        pool_demand: &[u32],
    ) -> Vec<usize> {
        let key = |p: usize| Key {
            running: pool_running(w, p, kind) as f64,
            min_share: pool_min(w, p, kind) as f64,
            demand: pool_demand[p] as f64,
            weight: w.pools()[p].weight,
        };
        let mut pools: Vec<usize> = (0..w.pools().len())
            .filter(|&p| !pool_jobs[p].is_empty())
            .collect();
        pools.sort_by(|&a, &b| {
            fair_cmp(&key(a), &key(b)).then_with(|| w.pools()[a].name.cmp(&w.pools()[b].name))
        });
        pools
    }

    /// Sorts pool `p`'s jobs for `kind`: FIFO-mode pools by priority then
    /// submission, the others in `FairShareComparator` order (ties by
    /// submission, then id).
    pub fn sort_jobs(&self, w: RunView<'_>, p: usize, kind: TaskKind, jobs: &mut Vec<JobId>) {
        // Keys computed once per sort, not once per comparison.
        let mut ranked: Vec<Ranked> = jobs
            .iter()
            .map(|&j| self.ranked_job(w, p, kind, j))
            .collect();
        ranked.sort_unstable();
        jobs.clear();
        jobs.extend(ranked.iter().map(|r| r.id));
    }

    /// Job `j` of pool `p` with what orders it for `kind` (see [`Ranked`]).
    fn ranked_job(&self, w: RunView<'_>, p: usize, kind: TaskKind, j: JobId) -> Ranked {
        let job = w.job(j);
        if w.pools()[p].scheduling_mode == PoolMode::Fifo {
            // One fair key for all: priority, then submission, then id decide.
            return Ranked {
                fair: 0,
                priority: Some(job.priority),
                submit: job.submit,
                id: j,
            };
        }
        let key = Key {
            running: job_running(w, j, kind) as f64,
            min_share: 0.0,
            demand: self.job_demand(w, j, kind) as f64,
            weight: self.job_weight(w, j, kind),
        };
        Ranked {
            fair: Ranked::fair(&key),
            priority: None,
            submit: job.submit,
            id: j,
        }
    }

    /// What `assignTasks` does before its loop: locality waits (and
    /// starvation times) brought up to now.
    pub fn begin_heartbeat(&mut self, w: RunView<'_>) {
        self.update_wait_times(w.now());
        if Self::has_timeouts(w) {
            self.update_starvation(w);
        }
    }

    /// A heartbeat of Hadoop 1.x `FairScheduler.assignTasks`: on unified
    /// containers one round of container steps, on typed slots the loop
    /// that alternates map and reduce slots.
    pub fn heartbeat(&mut self, hb: &mut Heartbeat<'_>) {
        if !self.typed_view(hb.view()) {
            let mut round = self.begin_round(hb);
            while self.step(hb, &mut round) {}
            self.finish_round(round);
            return;
        }
        self.begin_heartbeat(hb.view());
        self.gen += 1;
        let w = hb.view();
        let (mut pool_jobs, map_demand, reduce_demand) = self.typed_pools(w);
        let runnable = (map_demand.iter().sum(), reduce_demand.iter().sum());
        let assign_multiple = self.settings.assign_multiple;
        let (launched, visited) = typed_assign_loop(
            hb,
            assign_multiple,
            runnable,
            |hb, kind, launched, visited| {
                let demand = if kind == TaskKind::Map {
                    &map_demand
                } else {
                    &reduce_demand
                };
                self.assign_one(hb, kind, &mut pool_jobs, demand, launched, visited)
            },
        );
        self.mark_skipped(launched, visited);
        self.views = (pool_jobs, map_demand, reduce_demand);
    }

    /// Starts a heartbeat: updates locality waits (and starvation times)
    /// and fixes the pools' jobs and demands for the loop, as
    /// `assignTasks` does before it. On unified containers every kind may
    /// go in any container; on typed slots a round offers map slots only
    /// (OMO's base; [`FairBase::heartbeat`] alternates kinds there).
    pub fn begin_round(&mut self, hb: &Heartbeat<'_>) -> Round {
        let w = hb.view();
        self.begin_heartbeat(w);
        let kind = if !self.typed_view(w) {
            TaskKind::Any
        } else {
            TaskKind::Map
        };
        let (pool_jobs, demand) = self.pools_view(w, kind);
        let runnable = demand.iter().sum();
        let free = match kind {
            TaskKind::Any => hb.free_maps(),
            _ => hb.node().free_in_view(Kind::Map),
        };
        Round {
            kind,
            pool_jobs,
            demand,
            runnable,
            cap: if self.settings.assign_multiple {
                free
            } else {
                1
            },
            assigned: 0,
            launched: Vec::new(),
            visited: Vec::new(),
        }
    }

    /// One fair assignment in a round, if the round's caps allow one:
    /// `assign_multiple`'s cap, cluster running < runnable demand, and the
    /// node's `CapBasedLoadManager` cap (all counted live, so tasks other
    /// rules launched in the same heartbeat count too).
    pub fn step(&mut self, hb: &mut Heartbeat<'_>, r: &mut Round) -> bool {
        let w = hb.view();
        let node = hb.node();
        let (running, on_node, slots, total, free) = match r.kind {
            TaskKind::Any => (
                w.pool_stats()
                    .iter()
                    .map(|s| s.running_maps + s.running_reduces)
                    .sum::<u32>(),
                node.running(),
                node.map_slots + node.reduce_slots,
                w.cluster().total_slots(),
                hb.free_maps(),
            ),
            _ => (
                w.pool_stats().iter().map(|s| s.running_maps).sum::<u32>(),
                node.running_maps,
                node.map_slots,
                w.cluster().total_map_slots,
                hb.free_maps().min(node.free_in_view(Kind::Map)),
            ),
        };
        if r.assigned >= r.cap
            || running >= r.runnable
            || on_node >= load_cap(r.runnable, slots, total)
            || free == 0
        {
            return false;
        }
        let kind = r.kind;
        // Other rules may launch between steps: each sorts again.
        self.gen += 1;
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
    pub fn note_map(&mut self, r: &mut Round, j: JobId, loc: Locality) {
        self.map_launched(j, loc);
        r.launched.push(j);
    }

    /// Ends a heartbeat: jobs visited for a map and given none wait longer.
    pub fn finish_round(&mut self, r: Round) {
        self.mark_skipped(r.launched, r.visited);
    }

    /// Switched in mid-run: a fresh start, every running job at NODE level
    /// with no wait, as jobs are when the FairScheduler first sees them.
    pub fn adopt(&mut self, w: RunView<'_>) {
        self.info.clear();
        self.skipped.clear();
        self.last_heartbeat = None;
        self.last_at_min = vec![w.now(); w.pools().len()];
        self.last_at_half = vec![w.now(); w.pools().len()];
    }

    pub fn job_arrived(&mut self, j: JobId) {
        *self.info(j) = JobInfo::default();
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
pub fn typed_assign_loop(
    hb: &mut Heartbeat<'_>,
    assign_multiple: bool,
    (runnable_maps, runnable_reduces): (u32, u32),
    mut assign: impl FnMut(&mut Heartbeat<'_>, TaskKind, &mut Vec<JobId>, &mut Vec<JobId>) -> bool,
) -> (Vec<JobId>, Vec<JobId>) {
    let w = hb.view();
    let mut running_maps: u32 = w.pool_stats().iter().map(|s| s.running_maps).sum();
    let mut running_reduces: u32 = w.pool_stats().iter().map(|s| s.running_reduces).sum();
    let node = w.node(hb.node).clone();
    let (map_cap, reduce_cap) = if assign_multiple {
        (
            node.free_in_view(Kind::Map),
            node.free_in_view(Kind::Reduce),
        )
    } else {
        (1, 1)
    };
    let (tm, tr) = (w.cluster().total_map_slots, w.cluster().total_reduce_slots);
    let (mut maps_assigned, mut reduces_assigned) = (0u32, 0u32);
    let (mut map_rej, mut reduce_rej) = (false, false);
    let mut launched = Vec::new();
    let mut visited = Vec::new();
    loop {
        if !map_rej
            && (maps_assigned == map_cap
                || hb.free_maps() == 0
                || running_maps >= runnable_maps
                || node.running_maps + maps_assigned >= load_cap(runnable_maps, node.map_slots, tm))
        {
            map_rej = true;
        }
        if !reduce_rej
            && (reduces_assigned == reduce_cap
                || hb.free_reduces() == 0
                || running_reduces >= runnable_reduces
                || node.running_reduces + reduces_assigned
                    >= load_cap(runnable_reduces, node.reduce_slots, tr))
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

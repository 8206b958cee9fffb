//! How the adaptive fair scheduler orders and assigns: its virtual pools
//! (user pools less the jobs moved to the shared pool, plus that pool),
//! allocations and caps, pool and job order (mechanism 3), the refresh that
//! reclassifies jobs, reallocates and adjusts delays and priorities
//! (mechanisms 1, 2, 4, 5), and the heartbeat's per-task assignment.

use super::mechanisms::{adjust_priority, allocate};
use super::{
    ki, AdaptiveFair, JobState, Snapshot, TaskKind, View, RULE_BORROWED, RULE_NODE, RULE_OFF,
    RULE_RACK, RULE_REDUCE,
};
use crate::model::{JobId, Ms, PoolMode, Priority};
use crate::sched::fair::shares::{fair_cmp, Key};
use crate::sim::{Heartbeat, Locality, RunView};

impl AdaptiveFair {
    pub(super) fn state(&self, w: RunView<'_>, j: JobId) -> JobState {
        match self.jobs.get(j as usize) {
            Some(Some(s)) => s.clone(),
            _ => JobState::new(w.job(j).priority),
        }
    }

    pub(super) fn state_mut(&mut self, w: RunView<'_>, j: JobId) -> &mut JobState {
        let i = j as usize;
        if self.jobs.len() <= i {
            self.jobs.resize(i + 1, None);
        }
        self.jobs[i].get_or_insert_with(|| JobState::new(w.job(j).priority))
    }

    pub(super) fn is_shared(&self, j: JobId) -> bool {
        matches!(self.jobs.get(j as usize), Some(Some(s)) if s.shared)
    }

    pub(super) fn prio(&self, w: RunView<'_>, j: JobId) -> Priority {
        match self.jobs.get(j as usize) {
            Some(Some(s)) => s.prio,
            _ => w.job(j).priority,
        }
    }

    /// Virtual pool of job `j`: its own pool, or the shared pool (index n).
    pub(super) fn vpool(&self, w: RunView<'_>, j: JobId) -> usize {
        if self.is_shared(j) {
            w.pools().len()
        } else {
            w.job(j).pool as usize
        }
    }

    pub(super) fn vpool_name<'a>(&'a self, w: RunView<'a>, p: usize) -> &'a str {
        w.pools()
            .get(p)
            .map_or(self.shared_name.as_str(), |s| &s.name)
    }

    pub(super) fn pending(&self, w: RunView<'_>, j: JobId, k: TaskKind) -> u32 {
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

    pub(super) fn running(w: RunView<'_>, j: JobId, k: TaskKind) -> u32 {
        let job = w.job(j);
        match k {
            TaskKind::Map => job.maps_running,
            TaskKind::Reduce => job.reduces_running,
        }
    }

    /// The fair scheduler's demand: pending + running (reduces only once
    /// slowstart allows them, else the running ones).
    pub(super) fn demand(&self, w: RunView<'_>, j: JobId, k: TaskKind) -> u32 {
        if !w.job(j).runnable {
            return 0;
        }
        self.pending(w, j, k) + Self::running(w, j, k)
    }

    pub(super) fn pool_max(w: RunView<'_>, p: usize, k: TaskKind) -> u32 {
        w.pools().get(p).map_or(u32::MAX, |s| match k {
            TaskKind::Map => s.max_maps,
            TaskKind::Reduce => s.max_reduces,
        })
    }

    pub(super) fn pool_min(w: RunView<'_>, p: usize, k: TaskKind) -> u32 {
        w.pools().get(p).map_or(0, |s| match k {
            TaskKind::Map => s.min_maps,
            TaskKind::Reduce => s.min_reduces,
        })
    }

    pub(super) fn pool_weight(w: RunView<'_>, p: usize) -> f64 {
        w.pools().get(p).map_or(1.0, |s| s.weight)
    }

    pub(super) fn total_slots(w: RunView<'_>, k: TaskKind) -> u32 {
        match k {
            TaskKind::Map => w.cluster().total_map_slots,
            TaskKind::Reduce => w.cluster().total_reduce_slots,
        }
    }

    /// The allocation of virtual pool `p` (the JobOccupiedRatio's denominator).
    pub(super) fn alloc(&self, p: usize, k: TaskKind) -> u32 {
        self.snap.alloc[ki(k)].get(p).copied().unwrap_or(0)
    }

    /// The most tasks of kind `k` pool `p` may run: its allocation with
    /// mechanism 2, else its max share (none for the shared pool).
    pub(super) fn cap(&self, w: RunView<'_>, p: usize, k: TaskKind) -> u32 {
        if self.mech.allocation {
            self.alloc(p, k)
        } else {
            Self::pool_max(w, p, k)
        }
    }

    pub(super) fn view(&self, w: RunView<'_>, k: TaskKind) -> View {
        let n = w.pools().len() + 1;
        let mut v = View {
            jobs: vec![Vec::new(); n],
            pending: vec![0; n],
            running: vec![0; n],
            demand: vec![0; n],
        };
        for &j in w.active() {
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
    pub(super) fn min_allocated(&self, w: RunView<'_>, v: &View, p: usize, k: TaskKind) -> u32 {
        let configured = if p < w.pools().len() {
            Self::pool_min(w, p, k)
        } else {
            self.alloc(p, k)
        };
        configured.min(v.pending[p])
    }

    /// Pool order key of §8.3: (tier, ratio): tier 0 for PoolWorkload ≤
    /// minAllocated, by PoolOccupiedRatio; tier 1 by PoolWorkload / weight.
    pub(super) fn pool_key(&self, w: RunView<'_>, v: &View, p: usize, k: TaskKind) -> (u8, f64) {
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
    pub(super) fn pool_order(&self, w: RunView<'_>, v: &View, k: TaskKind) -> Vec<usize> {
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
    pub(super) fn job_ratios(
        &self,
        w: RunView<'_>,
        v: &View,
        p: usize,
        j: JobId,
        k: TaskKind,
    ) -> (f64, f64) {
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
    pub(super) fn fifo_pool(&self, w: RunView<'_>, p: usize) -> bool {
        w.pools()
            .get(p)
            .is_none_or(|s| s.scheduling_mode == PoolMode::Fifo)
    }

    /// The jobs of pool `p` in the order they are offered a task.
    pub(super) fn job_order(&self, w: RunView<'_>, v: &View, p: usize, k: TaskKind) -> Vec<JobId> {
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
    pub(super) fn refresh(&mut self, w: RunView<'_>) {
        let n = w.pools().len();
        while w.pools().iter().any(|p| p.name == self.shared_name) {
            self.shared_name.push('*');
        }
        // 1. Classification.
        let min_maps = w.active().iter().map(|&j| w.job(j).n_maps()).min();
        let min_reduces = w
            .active()
            .iter()
            .map(|&j| w.job(j).n_reduces())
            .filter(|&r| r > 0)
            .min();
        let total = w.active().len() as u32;
        let small = min_maps.map_or(0, |m| {
            w.active()
                .iter()
                .filter(|&&j| w.job(j).n_maps() <= m)
                .count() as u32
        });
        let (nodes, slots) = (w.cluster().live_nodes, w.cluster().total_map_slots);
        // SmallJobs / TotalJobs ≤ 1 / (slots / nodes), in integers.
        let enabled = self.mech.classification
            && total > 0
            && u64::from(small) * u64::from(slots) <= u64::from(total) * u64::from(nodes);
        for &j in w.active() {
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
        for &j in w.active() {
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
    pub(super) fn allowed_level(&self, s: &JobState) -> Locality {
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
    pub(super) fn update_wait_times(&mut self, now: Ms) {
        let dt = self.last_heartbeat.map_or(0, |t| now.saturating_sub(t));
        self.last_heartbeat = Some(now);
        for s in self.jobs.iter_mut().flatten() {
            if s.skipped {
                s.waited = s.waited.saturating_add(dt);
                s.skipped = false;
            }
        }
    }

    pub(super) fn try_job(
        &mut self,
        hb: &mut Heartbeat<'_>,
        j: JobId,
        kind: TaskKind,
        borrowed: bool,
        visited: &mut Vec<JobId>,
    ) -> bool {
        let w = hb.view();
        let job = w.job(j);
        if !job.runnable {
            return false;
        }
        match kind {
            TaskKind::Map => {
                visited.push(j);
                let allowed = self.allowed_level(&self.state(w, j));
                let Some((t, loc)) = job.find_map(hb.node, allowed, w.cluster()) else {
                    return false;
                };
                let rule = match loc {
                    _ if borrowed => RULE_BORROWED,
                    Locality::Node => RULE_NODE,
                    Locality::Rack => RULE_RACK,
                    _ => RULE_OFF,
                };
                hb.launch_map(j, t, rule);
                let w = hb.view();
                let s = self.state_mut(w, j);
                let waited = s.waited;
                s.prev = s.last;
                s.last = Some(loc);
                s.fresh = true;
                s.level = loc;
                s.waited = 0;
                // Only launches that waited count (see the module doc).
                match loc {
                    Locality::Node if waited > 0 => self.node_waits.add(waited),
                    Locality::Rack if waited > 0 => self.rack_waits.add(waited),
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
    pub(super) fn assign_one(
        &mut self,
        hb: &mut Heartbeat<'_>,
        kind: TaskKind,
        launched: &mut Vec<JobId>,
        visited: &mut Vec<JobId>,
    ) -> bool {
        let w = hb.view();
        let v = self.view(w, kind);
        let pools = self.pool_order(w, &v, kind);
        for borrow in [false, true] {
            for &p in &pools {
                let w = hb.view();
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

    pub(super) fn mark_skipped(
        &mut self,
        launched: Vec<JobId>,
        mut visited: Vec<JobId>,
        w: RunView<'_>,
    ) {
        visited.sort_unstable();
        visited.dedup();
        for j in visited {
            if !launched.contains(&j) {
                self.state_mut(w, j).skipped = true;
            }
        }
    }
}

//! PD-DHSA (DynamicMR's Algorithm 2) and what `dynamicmr` adds to it:
//! Slot PreScheduling (Algorithm 4) and SEPB (Algorithm 3).

use super::*;
use crate::sched::fair::base::load_cap;

impl Dhsa {
    /// Algorithm 2, line 1: (totalSlotsDemand, totalSlotsCapacity,
    /// trackerCurrentSlotsCapacity of `node`).
    pub fn pd_capacity(&self, w: RunView<'_>, node: NodeId) -> (u32, u32, u32) {
        let (dm, dr) = self.fair.typed_demands(w);
        let demand: u32 = dm.iter().sum::<u32>() + dr.iter().sum::<u32>();
        let total = w.cluster().total_slots();
        let n = w.node(node);
        (
            demand,
            total,
            load_cap(demand, n.map_slots + n.reduce_slots, total),
        )
    }

    /// PreScheduling's borrowedReduceSlots: maps it placed in reduce slots
    /// that still run.
    pub(super) fn pre_borrowed_now(&self, w: RunView<'_>) -> u32 {
        self.pre_borrowed
            .iter()
            .filter(|&&a| w.attempts()[a as usize].outcome == Outcome::Running)
            .count() as u32
    }

    /// Pool `p`'s jobs in fair order over both kinds.
    pub(super) fn jobs_of(&self, w: RunView<'_>, p: usize, pool_jobs: &[Vec<JobId>]) -> Vec<JobId> {
        let mut jobs = pool_jobs[p].clone();
        self.fair.sort_jobs(w, p, TaskKind::Any, &mut jobs);
        jobs
    }

    /// One slot's turn of Algorithm 2, with `dynamicmr`'s Slot
    /// PreScheduling placed as Appendix A places it. Pools in fair order
    /// try: (1) a map in a map slot, locality-aware; then, with
    /// PreScheduling, (P1)/(P2) ([`Dhsa::preschedule`]); (2) a reduce in a
    /// reduce slot; then, with PreScheduling and maps it put in reduce
    /// slots still running, (P3) a reduce in an idle map slot; (3) a map in
    /// a reduce slot, locality-aware; (4) a reduce in a map slot. If every
    /// pool fails, (5) a map at any locality. Cases (1)–(5) and (P3) need
    /// an *allowable* idle slot (the node under trackerCurrentSlotsCapacity);
    /// (P1)/(P2) are what may go above that line. Returns whether a task
    /// launched.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn pd_cases(
        &mut self,
        hb: &mut Heartbeat<'_>,
        pools: &[usize],
        pool_jobs: &[Vec<JobId>],
        current_cap: u32,
        launched: &mut Vec<JobId>,
        visited: &mut Vec<JobId>,
    ) -> bool {
        let (map_limit, reduce_limit) = self.limits(hb.view());
        let presched = self.mode == Mode::DynamicMr && self.prescheduling;
        let allow = |hb: &Heartbeat<'_>| current_cap > hb.node().running();
        for &p in pools {
            let jobs = self.jobs_of(hb.view(), p, pool_jobs);
            let (maps_ok, reduces_ok) = {
                let w = hb.view();
                (
                    !Self::pool_full(w, p, Kind::Map),
                    !Self::pool_full(w, p, Kind::Reduce),
                )
            };
            // (1) a map slot for a map, locality-aware.
            if allow(hb) && maps_ok && hb.free_typed(Kind::Map) > 0 {
                for &j in &jobs {
                    let a = self.try_map(
                        hb,
                        j,
                        Kind::Map,
                        MapPick::Allowed,
                        RULE_MAP,
                        launched,
                        visited,
                    );
                    if a.is_some() {
                        return true;
                    }
                }
            }
            // (P1)/(P2): a job of this pool with data on this node and no
            // allowable idle map slot.
            if presched && maps_ok && self.preschedule(hb, &jobs, current_cap, launched) {
                return true;
            }
            // (2) a reduce slot for a reduce.
            if allow(hb) && reduces_ok && hb.free_typed(Kind::Reduce) > 0 {
                for &j in &jobs {
                    if self.try_reduce(hb, j, Kind::Reduce, RULE_REDUCE, launched) {
                        return true;
                    }
                }
            }
            // (P3) give back what P2 took: a reduce in an idle map slot.
            if presched
                && allow(hb)
                && reduces_ok
                && self.pre_borrowed_now(hb.view()) > 0
                && hb.free_typed(Kind::Map) > 0
                && hb.view().cluster().reduces_in_map_slots < map_limit
            {
                for &j in &jobs {
                    if self.launch_pending_reduce(hb, j, Kind::Map, RULE_PRE_REDUCE_IN_MAP_SLOT) {
                        return true;
                    }
                }
            }
            // (3) a reduce slot for a map, locality-aware.
            if allow(hb)
                && maps_ok
                && hb.free_typed(Kind::Reduce) > 0
                && hb.view().cluster().maps_in_reduce_slots < reduce_limit
            {
                for &j in &jobs {
                    let a = self.try_map(
                        hb,
                        j,
                        Kind::Reduce,
                        MapPick::Allowed,
                        RULE_MAP_IN_REDUCE_SLOT,
                        launched,
                        visited,
                    );
                    if a.is_some() {
                        return true;
                    }
                }
            }
            // (4) a map slot for a reduce.
            if allow(hb)
                && reduces_ok
                && hb.free_typed(Kind::Map) > 0
                && hb.view().cluster().reduces_in_map_slots < map_limit
            {
                for &j in &jobs {
                    if self.try_reduce(hb, j, Kind::Map, RULE_REDUCE_IN_MAP_SLOT, launched) {
                        return true;
                    }
                }
            }
        }
        if !allow(hb) {
            return false;
        }
        // (5) every pool failed: a map at any locality, map slot first.
        for &p in pools {
            if Self::pool_full(hb.view(), p, Kind::Map) {
                continue;
            }
            for j in self.jobs_of(hb.view(), p, pool_jobs) {
                let in_reduce = hb.free_typed(Kind::Map) == 0;
                if in_reduce && hb.view().cluster().maps_in_reduce_slots >= reduce_limit {
                    return false;
                }
                let (slot, rule) = if in_reduce {
                    (Kind::Reduce, RULE_NON_LOCAL_IN_REDUCE_SLOT)
                } else {
                    (Kind::Map, RULE_NON_LOCAL)
                };
                if self
                    .try_map(hb, j, slot, MapPick::Any, rule, launched, visited)
                    .is_some()
                {
                    return true;
                }
            }
        }
        false
    }

    /// Algorithm 4 for one pool's `jobs` (fair order): allowableIdleMapSlots
    /// = the node's idle map slots under its load-balancing line (at most
    /// trackerCurrentSlotsCapacity − trackerRunningTasksNum),
    /// extraIdleMapSlots = the idle map slots above it. If there is no
    /// allowable idle map slot, the first job with a pending map whose
    /// block is on this node runs it in an extra idle map slot (P1), or
    /// else in an idle reduce slot (P2) while the maps P2 placed still
    /// running are fewer than `max_borrowed_reduce_slots`.
    pub(super) fn preschedule(
        &mut self,
        hb: &mut Heartbeat<'_>,
        jobs: &[JobId],
        current_cap: u32,
        launched: &mut Vec<JobId>,
    ) -> bool {
        let n = hb.node();
        let idle_map = hb.free_typed(Kind::Map);
        let allowable_map = idle_map.min(current_cap.saturating_sub(n.running()));
        let extra_map = idle_map - allowable_map;
        let p2 = hb.free_typed(Kind::Reduce) > 0
            && self.pre_borrowed_now(hb.view()) < self.max_borrowed_reduce_slots;
        if allowable_map > 0 || (extra_map == 0 && !p2) {
            return false;
        }
        for &j in jobs {
            let w = hb.view();
            let job = w.job(j);
            if !job.runnable {
                continue;
            }
            let Some((t, loc)) = job.find_map(hb.node, Locality::Node, w.cluster()) else {
                continue;
            };
            if loc != Locality::Node {
                continue;
            }
            if extra_map > 0 {
                hb.launch_map(j, t, RULE_PRE_MAP_SLOT);
            } else {
                let a = hb.launch_map_in_reduce_slot(j, t, RULE_PRE_REDUCE_SLOT);
                self.pre_borrowed.push(a);
            }
            self.fair.map_launched(j, loc);
            launched.push(j);
            return true;
        }
        false
    }

    /// PD-DHSA (and dynamicmr): one slot's turn of [`Dhsa::pd_cases`] at a
    /// time while the node has idle slots and a turn launches something.
    /// Speculative copies come from the jobs' lookups inside the cases
    /// (with SEPB first under dynamicmr).
    pub(super) fn heartbeat_pd(&mut self, hb: &mut Heartbeat<'_>) {
        self.fair.begin_heartbeat(hb.view());
        let dynamicmr = self.mode == Mode::DynamicMr;
        if dynamicmr {
            let w = hb.view();
            self.pre_borrowed
                .retain(|&a| w.attempts()[a as usize].outcome == Outcome::Running);
        }
        let presched = dynamicmr && self.prescheduling;
        let w = hb.view();
        let (pool_jobs, demand) = self.fair.pools_view(w, TaskKind::Any);
        let (_, _, current_cap) = self.pd_capacity(w, hb.node);
        let mut launched = Vec::new();
        let mut visited = Vec::new();
        loop {
            let n = hb.node();
            if hb.free_typed(Kind::Map) + hb.free_typed(Kind::Reduce) == 0 {
                break;
            }
            // Algorithm 2, lines 3–5: a node at its line gets nothing,
            // unless PreScheduling may go above it.
            if current_cap <= n.running() && !presched {
                break;
            }
            let pools = self
                .fair
                .sorted_pools(hb.view(), TaskKind::Any, &pool_jobs, &demand);
            if !self.pd_cases(
                hb,
                &pools,
                &pool_jobs,
                current_cap,
                &mut launched,
                &mut visited,
            ) {
                break;
            }
        }
        self.fair.mark_skipped(launched, visited);
    }
}

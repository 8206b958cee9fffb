//! PD-DHSA (DynamicMR's Algorithm 2) and what `dynamicmr` adds to it:
//! Slot PreScheduling (Algorithm 4) and SEPB (Algorithm 3).

use super::*;
use crate::sched::fair::base::load_cap;

impl Dhsa {
    /// Algorithm 2, line 1: (totalSlotsDemand, totalSlotsCapacity,
    /// trackerCurrentSlotsCapacity of `node`).
    pub fn pd_capacity(&self, w: &World, node: NodeId) -> (u32, u32, u32) {
        let (_, dm) = self.fair.pools_view(w, TaskKind::Map);
        let (_, dr) = self.fair.pools_view(w, TaskKind::Reduce);
        let demand: u32 = dm.iter().sum::<u32>() + dr.iter().sum::<u32>();
        let total = w.cluster.total_slots();
        let n = w.node(node);
        (
            demand,
            total,
            load_cap(demand, n.map_slots + n.reduce_slots, total),
        )
    }

    /// PreScheduling's borrowedReduceSlots: maps it placed in reduce slots
    /// that still run.
    pub(super) fn pre_borrowed_now(&self, w: &World) -> u32 {
        self.pre_borrowed
            .iter()
            .filter(|&&a| w.attempts[a as usize].outcome == Outcome::Running)
            .count() as u32
    }

    /// Pool `p`'s jobs in fair order over both kinds.
    pub(super) fn jobs_of(&self, w: &World, p: usize, pool_jobs: &[Vec<JobId>]) -> Vec<JobId> {
        let mut jobs = pool_jobs[p].clone();
        self.fair.sort_jobs(w, p, TaskKind::Any, &mut jobs);
        jobs
    }

    /// Cases (1)–(5) of Algorithm 2 for one slot. Returns whether a task
    /// launched.
    pub(super) fn pd_cases(
        &mut self,
        hb: &mut Heartbeat<'_>,
        pools: &[usize],
        pool_jobs: &[Vec<JobId>],
        launched: &mut Vec<JobId>,
        visited: &mut Vec<JobId>,
    ) -> bool {
        let (map_limit, reduce_limit) = self.limits(hb.world());
        for &p in pools {
            let jobs = self.jobs_of(hb.world(), p, pool_jobs);
            let (maps_ok, reduces_ok) = {
                let w = hb.world();
                (
                    !Self::pool_full(w, p, Kind::Map),
                    !Self::pool_full(w, p, Kind::Reduce),
                )
            };
            // (1) a map slot for a map, locality-aware.
            if maps_ok && hb.node().free_typed(Kind::Map) > 0 {
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
            // (2) a reduce slot for a reduce.
            if reduces_ok && hb.node().free_typed(Kind::Reduce) > 0 {
                for &j in &jobs {
                    if self.try_reduce(hb, j, Kind::Reduce, RULE_REDUCE) {
                        return true;
                    }
                }
            }
            // (3) a reduce slot for a map, locality-aware.
            if maps_ok
                && hb.node().free_typed(Kind::Reduce) > 0
                && hb.world().cluster.maps_in_reduce_slots < reduce_limit
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
            if reduces_ok
                && hb.node().free_typed(Kind::Map) > 0
                && hb.world().cluster.reduces_in_map_slots < map_limit
            {
                for &j in &jobs {
                    if self.try_reduce(hb, j, Kind::Map, RULE_REDUCE_IN_MAP_SLOT) {
                        return true;
                    }
                }
            }
        }
        // (5) every pool failed: a map at any locality, map slot first.
        for &p in pools {
            if Self::pool_full(hb.world(), p, Kind::Map) {
                continue;
            }
            for j in self.jobs_of(hb.world(), p, pool_jobs) {
                let in_reduce = hb.node().free_typed(Kind::Map) == 0;
                if in_reduce && hb.world().cluster.maps_in_reduce_slots >= reduce_limit {
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

    /// Algorithm 4 for one idle slot above the load-balancing line: the
    /// first job in fair order with a map whose block is on this node runs
    /// it in an idle map slot (P1), else in an idle reduce slot (P2).
    pub(super) fn preschedule(
        &mut self,
        hb: &mut Heartbeat<'_>,
        pools: &[usize],
        pool_jobs: &[Vec<JobId>],
        launched: &mut Vec<JobId>,
    ) -> bool {
        let p2_room = self.pre_borrowed_now(hb.world()) < self.max_borrowed_reduce_slots;
        for &p in pools {
            if Self::pool_full(hb.world(), p, Kind::Map) {
                continue;
            }
            for j in self.jobs_of(hb.world(), p, pool_jobs) {
                let w = hb.world();
                let job = w.job(j);
                if !job.runnable {
                    continue;
                }
                let Some((t, loc)) = job.find_map(hb.node, Locality::Node, &w.cluster) else {
                    continue;
                };
                let n = hb.node();
                if n.free_typed(Kind::Map) > 0 {
                    hb.launch_map(j, t, RULE_PRE_MAP_SLOT);
                } else if n.free_typed(Kind::Reduce) > 0 && p2_room {
                    let a = hb.launch_map_in_reduce_slot(j, t, RULE_PRE_REDUCE_SLOT);
                    self.pre_borrowed.push(a);
                } else {
                    continue;
                }
                self.fair.map_launched(j, loc);
                launched.push(j);
                return true;
            }
        }
        false
    }

    /// Algorithm 3 on the slots still idle: where the speculation rule
    /// would launch a copy, a pending task of one of the checked jobs runs
    /// instead.
    pub(super) fn sepb(
        &mut self,
        hb: &mut Heartbeat<'_>,
        pool_jobs: &[Vec<JobId>],
        demand: &[u32],
        launched: &mut Vec<JobId>,
    ) {
        let mode = hb.world().tasks.speculation;
        if mode == Speculation::Off || self.sepb_check_fraction <= 0.0 {
            return;
        }
        for slot in [Kind::Map, Kind::Reduce] {
            loop {
                let w = hb.world();
                let node = hb.node;
                if hb.node().free_typed(slot) == 0
                    || crate::sim::speculation::pick(w, mode, slot, node).is_none()
                {
                    break;
                }
                let pools = self.fair.sorted_pools(w, TaskKind::Any, pool_jobs, demand);
                let order: Vec<(usize, JobId)> = pools
                    .iter()
                    .flat_map(|&p| {
                        self.jobs_of(w, p, pool_jobs)
                            .into_iter()
                            .map(move |j| (p, j))
                    })
                    .collect();
                let checked =
                    (self.sepb_check_fraction * order.len() as f64 - 1e-9).ceil() as usize;
                let mut hit = false;
                for &(p, j) in order.iter().take(checked) {
                    if Self::pool_full(hb.world(), p, slot) {
                        continue;
                    }
                    hit = match slot {
                        Kind::Map => self
                            .try_map(
                                hb,
                                j,
                                Kind::Map,
                                MapPick::Any,
                                RULE_SEPB,
                                launched,
                                &mut Vec::new(),
                            )
                            .is_some(),
                        Kind::Reduce => self.try_reduce(hb, j, Kind::Reduce, RULE_SEPB),
                    };
                    if hit {
                        break;
                    }
                }
                if !hit {
                    break;
                }
            }
        }
    }

    /// PD-DHSA (and dynamicmr): per slot, cases (1)–(5) under the node's
    /// load-balancing line; above it, Slot PreScheduling; then SEPB.
    pub(super) fn heartbeat_pd(&mut self, hb: &mut Heartbeat<'_>) {
        self.fair.begin_heartbeat(hb.world());
        let dynamicmr = self.mode == Mode::DynamicMr;
        if dynamicmr {
            let w = hb.world();
            self.pre_borrowed
                .retain(|&a| w.attempts[a as usize].outcome == Outcome::Running);
        }
        let w = hb.world();
        let (pool_jobs, demand) = self.fair.pools_view(w, TaskKind::Any);
        let (_, _, current_cap) = self.pd_capacity(w, hb.node);
        let mut launched = Vec::new();
        let mut visited = Vec::new();
        loop {
            let n = hb.node();
            if n.free_typed(Kind::Map) + n.free_typed(Kind::Reduce) == 0 {
                break;
            }
            let allowable = current_cap.saturating_sub(n.running());
            let pools = self
                .fair
                .sorted_pools(hb.world(), TaskKind::Any, &pool_jobs, &demand);
            let hit = if allowable > 0 {
                self.pd_cases(hb, &pools, &pool_jobs, &mut launched, &mut visited)
            } else if dynamicmr && self.prescheduling {
                self.preschedule(hb, &pools, &pool_jobs, &mut launched)
            } else {
                false
            };
            if !hit {
                break;
            }
        }
        if dynamicmr {
            self.sepb(hb, &pool_jobs, &demand, &mut launched);
        }
        self.fair.mark_skipped(launched, visited);
    }
}

//! PI-DHSA (DynamicMR's Algorithm 1): load factors per phase, the
//! borrowing cases, and the typed heartbeat with the updated caps.

use super::{
    Dhsa, MapPick, RULE_MAP, RULE_MAP_IN_REDUCE_SLOT, RULE_REDUCE, RULE_REDUCE_IN_MAP_SLOT,
};
use crate::model::JobId;
use crate::sched::fair::base::{load_cap, TaskKind};
use crate::sim::{Heartbeat, Kind, RunView};

/// Algorithm 1's cluster-wide values at a heartbeat.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PiState {
    pub map_demand: u32,
    pub reduce_demand: u32,
    pub map_capacity: u32,
    pub reduce_capacity: u32,
    pub used_map_slots: u32,
    pub used_reduce_slots: u32,
    pub running_maps: u32,
    pub running_reduces: u32,
    pub map_load_factor: f64,
    pub reduce_load_factor: f64,
    /// 1 to 4.
    pub case: u8,
    /// currentBorrowedMapSlots: reduces running in map slots.
    pub borrowed_map_slots: u32,
    /// currentBorrowedReduceSlots: maps running in reduce slots.
    pub borrowed_reduce_slots: u32,
    pub extra_reduce_demand: u32,
    pub extra_map_demand: u32,
    pub updated_map_load_factor: f64,
    pub updated_reduce_load_factor: f64,
}

/// demand / capacity; a phase with no capacity is infinitely loaded as
/// soon as it has demand.
pub(super) fn load_factor(demand: u32, capacity: u32) -> f64 {
    if capacity > 0 {
        demand as f64 / capacity as f64
    } else if demand > 0 {
        f64::INFINITY
    } else {
        0.0
    }
}

/// ⌊capacity × pct⌋ (with a hair of slack so that 100 × 0.29 is 29).
pub(super) fn borrowable(capacity: u32, pct: f64) -> u32 {
    (capacity as f64 * pct + 1e-9).floor() as u32
}

/// extraReduceSlotsDemand (or extraMapSlotsDemand): min(max(⌊capacity ×
/// pct⌋ − borrowed, 0), demand − own capacity).
pub fn extra_demand(
    lender_capacity: u32,
    pct: f64,
    borrowed: u32,
    demand: u32,
    own_capacity: u32,
) -> u32 {
    borrowable(lender_capacity, pct)
        .saturating_sub(borrowed)
        .min(demand.saturating_sub(own_capacity))
}

impl Dhsa {
    /// Algorithm 1, lines 1–21.
    pub fn pi_state(&self, w: RunView<'_>) -> PiState {
        let (dm, dr) = self.fair.typed_demands(w);
        let running_maps: u32 = w.pool_stats().iter().map(|s| s.running_maps).sum();
        let running_reduces: u32 = w.pool_stats().iter().map(|s| s.running_reduces).sum();
        let c = &w.cluster();
        let mut st = PiState {
            map_demand: dm.iter().sum(),
            reduce_demand: dr.iter().sum(),
            map_capacity: c.total_map_slots,
            reduce_capacity: c.total_reduce_slots,
            used_map_slots: running_maps - c.maps_in_reduce_slots + c.reduces_in_map_slots,
            used_reduce_slots: running_reduces - c.reduces_in_map_slots + c.maps_in_reduce_slots,
            running_maps,
            running_reduces,
            borrowed_map_slots: c.reduces_in_map_slots,
            borrowed_reduce_slots: c.maps_in_reduce_slots,
            ..PiState::default()
        };
        st.map_load_factor = load_factor(st.map_demand, st.map_capacity);
        st.reduce_load_factor = load_factor(st.reduce_demand, st.reduce_capacity);
        let (m, r) = (st.map_load_factor, st.reduce_load_factor);
        st.case = if m <= 1.0 && r <= 1.0 {
            1
        } else if m >= 1.0 && r >= 1.0 {
            2
        } else if m < 1.0 {
            3
        } else {
            4
        };
        if st.case == 3 {
            st.extra_reduce_demand = extra_demand(
                st.map_capacity,
                self.borrow_map_pct,
                st.borrowed_map_slots,
                st.reduce_demand,
                st.reduce_capacity,
            );
        }
        if st.case == 4 {
            st.extra_map_demand = extra_demand(
                st.reduce_capacity,
                self.borrow_reduce_pct,
                st.borrowed_reduce_slots,
                st.map_demand,
                st.map_capacity,
            );
        }
        st.updated_map_load_factor =
            load_factor(st.map_demand + st.extra_reduce_demand, st.map_capacity);
        st.updated_reduce_load_factor =
            load_factor(st.reduce_demand + st.extra_map_demand, st.reduce_capacity);
        st
    }

    /// One task of `kind` into a slot of type `slot`, pools and jobs in
    /// fair order for `kind` (PI-DHSA: fairness within each phase).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn assign_phase(
        &mut self,
        hb: &mut Heartbeat<'_>,
        kind: Kind,
        slot: Kind,
        pool_jobs: &[Vec<JobId>],
        demand: &[u32],
        launched: &mut Vec<JobId>,
        visited: &mut Vec<JobId>,
    ) -> bool {
        let tk = match kind {
            Kind::Map => TaskKind::Map,
            Kind::Reduce => TaskKind::Reduce,
        };
        let rule = match (kind, slot) {
            (Kind::Map, Kind::Map) => RULE_MAP,
            (Kind::Reduce, Kind::Reduce) => RULE_REDUCE,
            (Kind::Map, Kind::Reduce) => RULE_MAP_IN_REDUCE_SLOT,
            (Kind::Reduce, Kind::Map) => RULE_REDUCE_IN_MAP_SLOT,
        };
        let pools = self.fair.sorted_pools(hb.view(), tk, pool_jobs, demand);
        for p in pools {
            let w = hb.view();
            if Self::pool_full(w, p, kind) {
                continue;
            }
            let mut jobs = pool_jobs[p].clone();
            self.fair.sort_jobs(w, p, tk, &mut jobs);
            for j in jobs {
                let hit = match kind {
                    Kind::Map => self
                        .try_map(hb, j, slot, MapPick::Allowed, rule, launched, visited)
                        .is_some(),
                    Kind::Reduce => self.try_reduce(hb, j, slot, rule, launched),
                };
                if hit {
                    return true;
                }
            }
        }
        false
    }

    /// PI-DHSA: `fair`'s typed heartbeat with slot caps from the updated
    /// load factors, then the borrowing of case 3 or 4.
    pub(super) fn heartbeat_pi(&mut self, hb: &mut Heartbeat<'_>) {
        self.fair.begin_heartbeat(hb.view());
        let w = hb.view();
        let st = self.pi_state(w);
        let (pool_jobs, map_demand) = self.fair.pools_view(w, TaskKind::Map);
        let (_, reduce_demand) = self.fair.pools_view(w, TaskKind::Reduce);
        let (runnable_maps, runnable_reduces) = (st.map_demand, st.reduce_demand);
        let (mut running_maps, mut running_reduces) = (st.running_maps, st.running_reduces);
        let (tm, tr) = (st.map_capacity, st.reduce_capacity);
        let node = hb.node().clone();
        // availableMapSlots / availableReduceSlots (line 22): the node's
        // slots of each type under the updated load factors.
        let map_cap = load_cap(runnable_maps + st.extra_reduce_demand, node.map_slots, tm);
        let reduce_cap = load_cap(
            runnable_reduces + st.extra_map_demand,
            node.reduce_slots,
            tr,
        );
        let (map_quota, reduce_quota) = (
            node.free_typed(w.capacity(), Kind::Map),
            node.free_typed(w.capacity(), Kind::Reduce),
        );
        let (mut maps_assigned, mut reduces_assigned) = (0u32, 0u32);
        let (mut map_rej, mut reduce_rej) = (false, false);
        let mut launched = Vec::new();
        let mut visited = Vec::new();
        // `fair`'s loop, with slots counted by type.
        loop {
            let n = hb.node();
            if !map_rej
                && (maps_assigned == map_quota
                    || hb.free_typed(Kind::Map) == 0
                    || running_maps >= runnable_maps
                    || n.used_map_slots >= map_cap)
            {
                map_rej = true;
            }
            if !reduce_rej
                && (reduces_assigned == reduce_quota
                    || hb.free_typed(Kind::Reduce) == 0
                    || running_reduces >= runnable_reduces
                    || n.used_reduce_slots >= reduce_cap)
            {
                reduce_rej = true;
            }
            if map_rej && reduce_rej {
                break;
            }
            let kind = if map_rej {
                Kind::Reduce
            } else if reduce_rej || n.running_maps <= n.running_reduces {
                Kind::Map
            } else {
                Kind::Reduce
            };
            let demand = if kind == Kind::Map {
                &map_demand
            } else {
                &reduce_demand
            };
            if self.assign_phase(
                hb,
                kind,
                kind,
                &pool_jobs,
                demand,
                &mut launched,
                &mut visited,
            ) {
                if kind == Kind::Map {
                    maps_assigned += 1;
                    running_maps += 1;
                } else {
                    reduces_assigned += 1;
                    running_reduces += 1;
                }
            } else if kind == Kind::Map {
                map_rej = true;
            } else {
                reduce_rej = true;
            }
        }
        // Case 3: map slots left under the raised map cap take reduces
        // while extraReduceSlotsDemand, recomputed, is positive.
        if st.case == 3 {
            loop {
                let w = hb.view();
                let n = hb.node();
                let extra = extra_demand(
                    tm,
                    self.borrow_map_pct,
                    w.cluster().reduces_in_map_slots,
                    runnable_reduces,
                    tr,
                );
                if extra == 0
                    || hb.free_typed(Kind::Map) == 0
                    || n.used_map_slots >= map_cap
                    || running_reduces >= runnable_reduces
                    || !self.assign_phase(
                        hb,
                        Kind::Reduce,
                        Kind::Map,
                        &pool_jobs,
                        &reduce_demand,
                        &mut launched,
                        &mut visited,
                    )
                {
                    break;
                }
                running_reduces += 1;
            }
        }
        // Case 4: reduce slots left under the raised reduce cap take maps.
        if st.case == 4 {
            loop {
                let w = hb.view();
                let n = hb.node();
                let extra = extra_demand(
                    tr,
                    self.borrow_reduce_pct,
                    w.cluster().maps_in_reduce_slots,
                    runnable_maps,
                    tm,
                );
                if extra == 0
                    || hb.free_typed(Kind::Reduce) == 0
                    || n.used_reduce_slots >= reduce_cap
                    || running_maps >= runnable_maps
                    || !self.assign_phase(
                        hb,
                        Kind::Map,
                        Kind::Reduce,
                        &pool_jobs,
                        &map_demand,
                        &mut launched,
                        &mut visited,
                    )
                {
                    break;
                }
                running_maps += 1;
            }
        }
        self.fair.mark_skipped(launched, visited);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    pub(super) fn extra_demand_is_min_of_room_and_overflow() {
        // 36 map slots, all borrowable, 4 borrowed; 30 reduces for 18 slots.
        assert_eq!(extra_demand(36, 1.0, 4, 30, 18), 12);
        // Room is the bound: ⌊36 × 0.5⌋ − 10 = 8 < 12.
        assert_eq!(extra_demand(36, 0.5, 10, 30, 18), 8);
        // Nothing borrowable: max(…, 0).
        assert_eq!(extra_demand(36, 0.25, 10, 30, 18), 0);
        assert_eq!(extra_demand(36, 0.0, 0, 30, 18), 0);
        // ⌊100 × 0.29⌋ is 29, not 28.
        assert_eq!(extra_demand(100, 0.29, 0, 200, 18), 29);
    }
}

//! `dhsa-pi`, `dhsa-pd` and `dynamicmr`: DynamicMR (seed 001: Tang, Lee,
//! He, "DynamicMR: A Dynamic Slot Allocation Optimization Framework for
//! MapReduce Clusters"), typed slots over the fair scheduler. Our reading
//! is ALGORITHMS §5; where it is silent, the supplement's Algorithms 1–4
//! and Hadoop 1.x's FairScheduler decide.
//!
//! **Dynamic Hadoop Slot Allocation** lets a reduce run in an idle map slot
//! and a map in an idle reduce slot (the engine records which type of slot
//! an attempt occupies). `borrow_map_pct` bounds the reduces in map slots
//! at ⌊map capacity × pct⌋ cluster-wide, `borrow_reduce_pct` the maps in
//! reduce slots likewise (Table 2, Appendix F).
//!
//! - **PI-DHSA** (`dhsa-pi`, Algorithm 1): each phase's slots are shared
//!   fairly across pools within the phase, exactly as `fair` on typed slots
//!   (the same loop, `CapBasedLoadManager` caps, delay scheduling). At each
//!   heartbeat the load factors are demand / capacity per phase. Case 1
//!   (both ≤ 1) and case 2 (both ≥ 1) borrow nothing. Case 3 (maps < 1,
//!   reduces > 1): currentBorrowedMapSlots = reduces running in map slots,
//!   extraReduceSlotsDemand = min(max(⌊mapCapacity × borrow_map_pct⌋ −
//!   currentBorrowedMapSlots, 0), reduceSlotsDemand − reduceCapacity), and
//!   the map load factor becomes (mapSlotsDemand + extra) / mapCapacity, so
//!   the node's map-slot cap ⌈map slots × min(1, factor)⌉ leaves room; once
//!   the fair loop has given map slots to maps, the room left takes reduces
//!   while the extra demand, recomputed after each borrow, is positive.
//!   Case 4 is symmetric (maps in reduce slots). With both percentages 0
//!   it is `fair`.
//! - **PD-DHSA** (`dhsa-pd`, Algorithm 2): a pool's maps and reduces share
//!   its fair share of all slots (fairness over a pool's running tasks of
//!   both kinds, as `FairShareComparator` over total slots). A node may run
//!   trackerCurrentSlotsCapacity = ⌈its slots × min(1, totalSlotsDemand /
//!   totalSlotsCapacity)⌉ tasks. For each slot under that line, pools in
//!   fair order try: (1) a map in a map slot, locality-aware (delay
//!   scheduling's allowed level); (2) a reduce in a reduce slot; (3) a map
//!   in a reduce slot, locality-aware; (4) a reduce in a map slot; the
//!   first that launches ends the slot's turn. If every pool fails, (5) the
//!   first pool with a pending map runs one at any locality, in a map slot
//!   or else a reduce slot. **Settled:** case (5) ignores delay scheduling
//!   ("not considering data locality"; DHSA keeps every slot busy while
//!   tasks are pending), so delay scheduling only decides the order: local
//!   maps and reduces of every pool come before a non-local map.
//! - **dynamicmr** = PD-DHSA + SEPB + Slot PreScheduling.
//!   - *Slot PreScheduling* (Algorithm 4, Appendix A): once the node is at
//!     its load-balancing line (no *allowable* idle slot) but still has
//!     idle slots, the first job in fair order with a pending map whose
//!     block is on this node runs it in an idle map slot above the line
//!     (P1, `prescheduling/extra-map-slot`) or else in an idle reduce slot
//!     (P2, `prescheduling/reduce-slot`) while the maps P2 placed still
//!     running are fewer than `max_borrowed_reduce_slots`; one per turn,
//!     pools re-sorted each time. P3 (reduces into idle map slots to give
//!     back what P2 took) is PD-DHSA's case (4) here.
//!   - *SEPB* (Algorithm 3): the engine offers the slots a policy leaves
//!     idle to speculative copies (LATE, or Hadoop's rule). For each such
//!     slot for which the scenario's speculation rule would launch a copy,
//!     dynamicmr first checks the first ⌈`sepb_check_fraction` × running
//!     jobs⌉ jobs in fair order for a pending task of the slot's kind and
//!     runs it instead (`sepb/pending`); only if none has one is the slot
//!     left to the copy. `sepb_check_fraction = 0` turns SEPB off.
//!
//! **Settled:** a reduce borrows a map slot only if its job has no pending
//! map. Reduces occupy their slot while they wait for their job's maps, so
//! without that guard early reduces (after slowstart) can fill every map
//! slot of the cluster and the maps they wait for never run again (as on
//! unified containers, see `World::reduce_allowed`). Maps in reduce slots
//! never wait for anything.
//!
//! On a unified cluster the three policies view each node's containers as
//! `map_slots` map slots and `reduce_slots` reduce slots, as `fair` with
//! `typed_slots = true`, and borrow between the two.

use super::config::{DhsaConfig, SchedulerConfig};
use super::fair::{Fair, TaskKind};
use super::registry::{BuildCtx, DEFAULT_SLOWSTART};
use super::{num, Inspection, Policy};
use crate::model::{JobId, NodeId, Speculation};
use crate::sim::{AttemptId, Heartbeat, Kind, Locality, Outcome, World};

pub const RULE_MAP: &str = "dhsa/map";
pub const RULE_REDUCE: &str = "dhsa/reduce";
pub const RULE_MAP_IN_REDUCE_SLOT: &str = "dhsa/map-in-reduce-slot";
pub const RULE_REDUCE_IN_MAP_SLOT: &str = "dhsa/reduce-in-map-slot";
pub const RULE_NON_LOCAL: &str = "dhsa/non-local";
pub const RULE_NON_LOCAL_IN_REDUCE_SLOT: &str = "dhsa/non-local-in-reduce-slot";
pub const RULE_PRE_MAP_SLOT: &str = "prescheduling/extra-map-slot";
pub const RULE_PRE_REDUCE_SLOT: &str = "prescheduling/reduce-slot";
pub const RULE_SEPB: &str = "sepb/pending";

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// PI-DHSA.
    Pi,
    /// PD-DHSA.
    Pd,
    /// PD-DHSA + SEPB + Slot PreScheduling.
    DynamicMr,
}

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
fn load_factor(demand: u32, capacity: u32) -> f64 {
    if capacity > 0 {
        demand as f64 / capacity as f64
    } else if demand > 0 {
        f64::INFINITY
    } else {
        0.0
    }
}

/// ⌊capacity × pct⌋ (with a hair of slack so that 100 × 0.29 is 29).
fn borrowable(capacity: u32, pct: f64) -> u32 {
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

/// How a map may be picked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum MapPick {
    /// Delay scheduling's allowed level (the job counts as visited).
    Allowed,
    /// Any locality, best first (case 5, SEPB).
    Any,
}

pub struct Dhsa {
    label: String,
    mode: Mode,
    slowstart: f64,
    borrow_map_pct: f64,
    borrow_reduce_pct: f64,
    sepb_check_fraction: f64,
    prescheduling: bool,
    max_borrowed_reduce_slots: u32,
    fair: Fair,
    /// Maps PreScheduling put in reduce slots (P2), pruned as they end.
    pre_borrowed: Vec<AttemptId>,
}

impl Dhsa {
    pub fn new(label: String, name: &str, cfg: &SchedulerConfig, ctx: &BuildCtx) -> Dhsa {
        let (mode, own, dmr) = match name {
            "dhsa-pi" => (Mode::Pi, cfg.dhsa_pi.clone().unwrap_or_default(), None),
            "dhsa-pd" => (Mode::Pd, cfg.dhsa_pd.clone().unwrap_or_default(), None),
            _ => {
                let d = cfg.dynamicmr.clone().unwrap_or_default();
                (Mode::DynamicMr, d.dhsa(), Some(d))
            }
        };
        let DhsaConfig {
            slowstart,
            borrow_map_pct,
            borrow_reduce_pct,
            node_locality_delay,
            rack_locality_delay,
        } = own;
        let slowstart = slowstart.or(cfg.slowstart).unwrap_or(DEFAULT_SLOWSTART);
        let dmr = dmr.unwrap_or_default();
        Dhsa {
            fair: Fair::dhsa_base(
                label.clone(),
                slowstart,
                node_locality_delay,
                rack_locality_delay,
                ctx,
            ),
            label,
            mode,
            slowstart,
            borrow_map_pct: borrow_map_pct.unwrap_or(1.0),
            borrow_reduce_pct: borrow_reduce_pct.unwrap_or(1.0),
            sepb_check_fraction: dmr.sepb_check_fraction.unwrap_or(1.0),
            prescheduling: dmr.prescheduling.unwrap_or(true),
            max_borrowed_reduce_slots: dmr.max_borrowed_reduce_slots.unwrap_or(u32::MAX),
            pre_borrowed: Vec::new(),
        }
    }

    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// Reduces that may run in map slots, maps that may run in reduce slots.
    fn limits(&self, w: &World) -> (u32, u32) {
        (
            borrowable(w.cluster.total_map_slots, self.borrow_map_pct),
            borrowable(w.cluster.total_reduce_slots, self.borrow_reduce_pct),
        )
    }

    /// Algorithm 1, lines 1–21.
    pub fn pi_state(&self, w: &World) -> PiState {
        let (_, dm) = self.fair.pools_view(w, TaskKind::Map);
        let (_, dr) = self.fair.pools_view(w, TaskKind::Reduce);
        let running_maps: u32 = w.pool_stats.iter().map(|s| s.running_maps).sum();
        let running_reduces: u32 = w.pool_stats.iter().map(|s| s.running_reduces).sum();
        let c = &w.cluster;
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
            Fair::load_cap(demand, n.map_slots + n.reduce_slots, total),
        )
    }

    /// PreScheduling's borrowedReduceSlots: maps it placed in reduce slots
    /// that still run.
    fn pre_borrowed_now(&self, w: &World) -> u32 {
        self.pre_borrowed
            .iter()
            .filter(|&&a| w.attempts[a as usize].outcome == Outcome::Running)
            .count() as u32
    }

    fn pool_full(w: &World, p: usize, kind: Kind) -> bool {
        let k = match kind {
            Kind::Map => TaskKind::Map,
            Kind::Reduce => TaskKind::Reduce,
        };
        Fair::pool_running(w, p, k) >= Fair::pool_max(w, p, k)
    }

    /// Launches a map of job `j` in a slot of type `slot`, if the job has
    /// one it may run here.
    #[allow(clippy::too_many_arguments)]
    fn try_map(
        &mut self,
        hb: &mut Heartbeat<'_>,
        j: JobId,
        slot: Kind,
        pick: MapPick,
        rule: &'static str,
        launched: &mut Vec<JobId>,
        visited: &mut Vec<JobId>,
    ) -> Option<AttemptId> {
        let w = hb.world();
        let job = w.job(j);
        if !job.runnable {
            return None;
        }
        // As `JobSchedulable.assignTask`: a job asked for a map and given
        // none is skipped (its locality wait grows).
        let max = match pick {
            MapPick::Allowed => {
                visited.push(j);
                self.fair.allowed(w, j)
            }
            MapPick::Any => Locality::OffDc,
        };
        if job.maps_pending == 0 || hb.node().free_typed(slot) == 0 {
            return None;
        }
        let (t, loc) = job.find_map(hb.node, max, &w.cluster)?;
        let a = match slot {
            Kind::Map => hb.launch_map(j, t, rule),
            Kind::Reduce => hb.launch_map_in_reduce_slot(j, t, rule),
        };
        self.fair.map_launched(j, loc);
        launched.push(j);
        Some(a)
    }

    /// Launches a schedulable reduce of job `j` in a slot of type `slot`;
    /// in a map slot only if the job has no pending map (see the module doc).
    fn try_reduce(&self, hb: &mut Heartbeat<'_>, j: JobId, slot: Kind, rule: &'static str) -> bool {
        let w = hb.world();
        let job = w.job(j);
        if !job.runnable
            || job.reduces_pending == 0
            || !job.reduces_schedulable(self.slowstart)
            || hb.node().free_typed(slot) == 0
            || (slot == Kind::Map && job.maps_pending > 0)
        {
            return false;
        }
        let Some(r) = job.find_reduce() else {
            return false;
        };
        match slot {
            Kind::Map => hb.launch_reduce_in_map_slot(j, r, rule),
            Kind::Reduce => hb.launch_reduce(j, r, rule),
        };
        true
    }

    /// One task of `kind` into a slot of type `slot`, pools and jobs in
    /// fair order for `kind` (PI-DHSA: fairness within each phase).
    #[allow(clippy::too_many_arguments)]
    fn assign_phase(
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
        let pools = self.fair.sorted_pools(hb.world(), tk, pool_jobs, demand);
        for p in pools {
            let w = hb.world();
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
                    Kind::Reduce => self.try_reduce(hb, j, slot, rule),
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
    fn heartbeat_pi(&mut self, hb: &mut Heartbeat<'_>) {
        self.fair.begin_heartbeat(hb.world());
        let w = hb.world();
        let st = self.pi_state(w);
        let (pool_jobs, map_demand) = self.fair.pools_view(w, TaskKind::Map);
        let (_, reduce_demand) = self.fair.pools_view(w, TaskKind::Reduce);
        let (runnable_maps, runnable_reduces) = (st.map_demand, st.reduce_demand);
        let (mut running_maps, mut running_reduces) = (st.running_maps, st.running_reduces);
        let (tm, tr) = (st.map_capacity, st.reduce_capacity);
        let node = hb.node().clone();
        // availableMapSlots / availableReduceSlots (line 22): the node's
        // slots of each type under the updated load factors.
        let map_cap = Fair::load_cap(runnable_maps + st.extra_reduce_demand, node.map_slots, tm);
        let reduce_cap = Fair::load_cap(
            runnable_reduces + st.extra_map_demand,
            node.reduce_slots,
            tr,
        );
        let (map_quota, reduce_quota) = (node.free_typed(Kind::Map), node.free_typed(Kind::Reduce));
        let (mut maps_assigned, mut reduces_assigned) = (0u32, 0u32);
        let (mut map_rej, mut reduce_rej) = (false, false);
        let mut launched = Vec::new();
        let mut visited = Vec::new();
        // `fair`'s loop, with slots counted by type.
        loop {
            let n = hb.node();
            if !map_rej
                && (maps_assigned == map_quota
                    || n.free_typed(Kind::Map) == 0
                    || running_maps >= runnable_maps
                    || n.used_map_slots >= map_cap)
            {
                map_rej = true;
            }
            if !reduce_rej
                && (reduces_assigned == reduce_quota
                    || n.free_typed(Kind::Reduce) == 0
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
                let w = hb.world();
                let n = hb.node();
                let extra = extra_demand(
                    tm,
                    self.borrow_map_pct,
                    w.cluster.reduces_in_map_slots,
                    runnable_reduces,
                    tr,
                );
                if extra == 0
                    || n.free_typed(Kind::Map) == 0
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
                let w = hb.world();
                let n = hb.node();
                let extra = extra_demand(
                    tr,
                    self.borrow_reduce_pct,
                    w.cluster.maps_in_reduce_slots,
                    runnable_maps,
                    tm,
                );
                if extra == 0
                    || n.free_typed(Kind::Reduce) == 0
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

    /// Pool `p`'s jobs in fair order over both kinds.
    fn jobs_of(&self, w: &World, p: usize, pool_jobs: &[Vec<JobId>]) -> Vec<JobId> {
        let mut jobs = pool_jobs[p].clone();
        self.fair.sort_jobs(w, p, TaskKind::Any, &mut jobs);
        jobs
    }

    /// Cases (1)–(5) of Algorithm 2 for one slot. Returns whether a task
    /// launched.
    fn pd_cases(
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
    fn preschedule(
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
    fn sepb(
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
    fn heartbeat_pd(&mut self, hb: &mut Heartbeat<'_>) {
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

impl Policy for Dhsa {
    fn label(&self) -> &str {
        &self.label
    }

    fn slowstart(&self) -> f64 {
        self.slowstart
    }

    fn adopt(&mut self, w: &World) {
        self.fair.adopt(w);
        self.pre_borrowed = w
            .attempts
            .iter()
            .enumerate()
            .filter(|(_, a)| a.outcome == Outcome::Running && a.rule == RULE_PRE_REDUCE_SLOT)
            .map(|(i, _)| i as AttemptId)
            .collect();
    }

    fn job_arrived(&mut self, w: &World, j: JobId) {
        self.fair.job_arrived(w, j);
    }

    fn heartbeat(&mut self, hb: &mut Heartbeat<'_>) {
        match self.mode {
            Mode::Pi => self.heartbeat_pi(hb),
            Mode::Pd | Mode::DynamicMr => self.heartbeat_pd(hb),
        }
    }

    fn inspect(&self, w: &World, node: NodeId) -> Inspection {
        let mut ins = self.fair.inspect(w, node);
        let c = &mut ins.cluster;
        let st = self.pi_state(w);
        let (map_limit, reduce_limit) = self.limits(w);
        let n = w.node(node);
        c.insert("borrow_map_pct".into(), num(self.borrow_map_pct));
        c.insert("borrow_reduce_pct".into(), num(self.borrow_reduce_pct));
        c.insert("borrowable_map_slots".into(), map_limit.into());
        c.insert("borrowable_reduce_slots".into(), reduce_limit.into());
        c.insert("clusterMapCapacity".into(), st.map_capacity.into());
        c.insert("clusterReduceCapacity".into(), st.reduce_capacity.into());
        c.insert("mapSlotsDemand".into(), st.map_demand.into());
        c.insert("reduceSlotsDemand".into(), st.reduce_demand.into());
        c.insert("clusterUsedMapSlots".into(), st.used_map_slots.into());
        c.insert("clusterUsedReduceSlots".into(), st.used_reduce_slots.into());
        c.insert("clusterRunningMapTasks".into(), st.running_maps.into());
        c.insert(
            "clusterRunningReduceTasks".into(),
            st.running_reduces.into(),
        );
        c.insert(
            "currentBorrowedMapSlots".into(),
            st.borrowed_map_slots.into(),
        );
        c.insert(
            "currentBorrowedReduceSlots".into(),
            st.borrowed_reduce_slots.into(),
        );
        c.insert("mapSlotsLoadFactor".into(), num(st.map_load_factor));
        c.insert("reduceSlotsLoadFactor".into(), num(st.reduce_load_factor));
        c.insert("node_free_map_slots".into(), n.free_typed(Kind::Map).into());
        c.insert(
            "node_free_reduce_slots".into(),
            n.free_typed(Kind::Reduce).into(),
        );
        if self.mode == Mode::Pi {
            c.insert("case".into(), st.case.into());
            c.insert(
                "extraReduceSlotsDemand".into(),
                st.extra_reduce_demand.into(),
            );
            c.insert("extraMapSlotsDemand".into(), st.extra_map_demand.into());
            c.insert(
                "updatedMapSlotsLoadFactor".into(),
                num(st.updated_map_load_factor),
            );
            c.insert(
                "updatedReduceSlotsLoadFactor".into(),
                num(st.updated_reduce_load_factor),
            );
            let map_cap = Fair::load_cap(
                st.map_demand + st.extra_reduce_demand,
                n.map_slots,
                st.map_capacity,
            );
            let reduce_cap = Fair::load_cap(
                st.reduce_demand + st.extra_map_demand,
                n.reduce_slots,
                st.reduce_capacity,
            );
            c.insert(
                "availableMapSlots".into(),
                map_cap.saturating_sub(n.used_map_slots).into(),
            );
            c.insert(
                "availableReduceSlots".into(),
                reduce_cap.saturating_sub(n.used_reduce_slots).into(),
            );
        } else {
            let (demand, total, current) = self.pd_capacity(w, node);
            c.insert("totalSlotsDemand".into(), demand.into());
            c.insert("totalSlotsCapacity".into(), total.into());
            c.insert(
                "trackerSlotsCapacity".into(),
                (n.map_slots + n.reduce_slots).into(),
            );
            c.insert("trackerRunningTasksNum".into(), n.running().into());
            c.insert("trackerCurrentSlotsCapacity".into(), current.into());
            let (pools, jobs) = self.fair.fair_shares(w, TaskKind::Any);
            for (p, s) in pools.iter().enumerate() {
                if let Some(v) = ins.pools.get_mut(&w.pools[p].name) {
                    v.insert("fair_share_slots".into(), num(*s));
                }
            }
            for (j, s) in jobs {
                if let Some(v) = ins.jobs.get_mut(&w.job(j).name) {
                    v.insert("fair_share_slots".into(), num(s));
                }
            }
            if self.mode == Mode::DynamicMr {
                let c = &mut ins.cluster;
                let allowable = current.saturating_sub(n.running());
                let free_map = n.free_typed(Kind::Map);
                c.insert("allowableIdleSlots".into(), allowable.into());
                c.insert(
                    "extraIdleMapSlots".into(),
                    free_map.saturating_sub(allowable).into(),
                );
                c.insert("idleReduceSlots".into(), n.free_typed(Kind::Reduce).into());
                c.insert("prescheduling".into(), self.prescheduling.into());
                c.insert(
                    "borrowedReduceSlots".into(),
                    self.pre_borrowed_now(w).into(),
                );
                c.insert(
                    "maximumBorrowableReduceSlots".into(),
                    if self.max_borrowed_reduce_slots == u32::MAX {
                        serde_json::Value::Null
                    } else {
                        self.max_borrowed_reduce_slots.into()
                    },
                );
                c.insert("sepb_check_fraction".into(), num(self.sepb_check_fraction));
                let jobs = w.active.iter().filter(|&&j| w.job(j).runnable).count();
                c.insert(
                    "sepb_checked_jobs".into(),
                    ((self.sepb_check_fraction * jobs as f64 - 1e-9)
                        .ceil()
                        .max(0.0) as u64)
                        .into(),
                );
            }
        }
        ins
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extra_demand_is_min_of_room_and_overflow() {
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

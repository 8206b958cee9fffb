//! `dhsa-pi`, `dhsa-pd` and `dynamicmr`: DynamicMR (Tang, Lee,
//! He, "DynamicMR: A Dynamic Slot Allocation Optimization Framework for
//! MapReduce Clusters"), typed slots over the fair scheduler. Our reading
//! is in docs/policies.md; where it is silent, the supplement's Algorithms 1–4
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
//! - **Speculative copies** come from a job's own lookup, as Hadoop's
//!   `findNewMapTask` / `findNewReduceTask` give them: in a map slot once
//!   delay scheduling allows the job any locality and it has no pending
//!   map (PI-DHSA's map phase, PD-DHSA's case (1)), in a reduce slot once
//!   it has no pending reduce (the reduce phase, case (2)); never in a
//!   borrowed slot. So under `dhsa-pd`, as under `fair`, a job early in
//!   fair order gets its straggler's copy before a later job's pending task.
//! - **dynamicmr** = PD-DHSA + SEPB + Slot PreScheduling.
//!   - *Slot PreScheduling* (Algorithm 4, placed per pool as Appendix A's
//!     Fig. 1 places it): after case (1) fails for a pool, if the node has
//!     no *allowable* idle map slot (allowableIdleMapSlots = the idle map
//!     slots under the line, at most trackerCurrentSlotsCapacity −
//!     trackerRunningTasksNum), the first of the pool's jobs in fair order
//!     with a pending map whose block is on this node runs it in an idle
//!     map slot above the line (P1, extraIdleMapSlots,
//!     `prescheduling/extra-map-slot`) or else in an idle reduce slot (P2,
//!     `prescheduling/reduce-slot`) while the maps P2 placed still running
//!     are fewer than `max_borrowed_reduce_slots`; only then case (2).
//!     After case (2) fails, while maps P2 placed still run, a reduce may
//!     take an idle map slot (P3, `prescheduling/reduce-in-map-slot`,
//!     within `borrow_map_pct`), before case (3). So P2 fires under the
//!     line on a node whose map slots are full, where case (2) would give
//!     the reduce slot to a reduce; a node at its line (Algorithm 2 would
//!     return at once) runs only P1 and P2, pools re-sorted per slot.
//!   - *SEPB* (Algorithm 3): where a job's lookup would launch a copy,
//!     dynamicmr first checks the first ⌈`sepb_check_fraction` × running
//!     jobs⌉ jobs in fair order (pools, then jobs within each) for a
//!     pending task of the slot's kind and runs it instead at any locality
//!     (`sepb/pending`); only if none has one does the copy run.
//!     `sepb_check_fraction = 0` turns SEPB off (PD-DHSA's choice).
//!
//! **When a reduce takes a map slot**: as the paper says, PI-DHSA's case 3
//! and PD-DHSA's case (4) (cases (1)–(3) failed for its pool and its job
//! has a schedulable pending reduce), up to ⌊map capacity ×
//! `borrow_map_pct`⌋ reduces in map slots. **Settled:** the paper does not
//! say what a reduce that waits for its job's maps does to a borrowed map
//! slot. Reduces occupy their slot while they wait, so early reduces (after
//! slowstart) could fill every map slot and every reduce slot, and the maps
//! they wait for would never run again. Hadoop's typed slots rule that out
//! by construction (a reduce never holds a map slot), and its slowstart is
//! the knob for how early a reduce may hold a slot. We keep Hadoop's
//! guarantee: a reduce borrows a map slot only once its job's maps are all
//! done, i.e. slowstart is 1 for borrowed map slots (a reduce that no
//! longer waits finishes and gives the slot back). Leaving only one map
//! slot free of waiting reduces also avoids the deadlock, but on
//! DynamicMR's own batch workload (ten pools, most with maps held back by
//! delay scheduling on a given node) case (4) then fills the map slots
//! with waiting reduces and maps trickle through the one slot left, a
//! slowdown of several times that the paper's results do not show. Maps in
//! reduce slots never wait for anything.
//!
//! On a unified cluster the three policies view each node's containers as
//! `map_slots` map slots and `reduce_slots` reduce slots, as `fair` with
//! `typed_slots = true`, and borrow between the two.

mod pd;
mod pi;

use pi::borrowable;
pub use pi::{extra_demand, PiState};

use super::fair::base::{auto_delay, load_cap, pool_max, pool_running, BaseSettings, FairBase};
use super::fair::base::{Rules, TaskKind};
use super::registry::{Entry, DEFAULT_SLOWSTART};
use super::settings::{fraction, ConfigError, Settings};
use crate::model::Models;
use crate::model::{JobId, Ms, NodeId};
use crate::sim::policy::{num, BuildCtx, Event, Inspection, Policy, PoolShares, Show, Value};
use crate::sim::{AttemptId, Heartbeat, Kind, Locality, Outcome, RunView};
use crate::units::de_opt_duration;

/// `[scheduler.dhsa-pi]` and `[scheduler.dhsa-pd]`: DHSA's borrowing
/// limits (DynamicMR's Table 2) and the delay-scheduling settings of the
/// fair base.
#[derive(Clone, Debug, Default, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    pub slowstart: Option<f64>,
    /// Fraction of the cluster's map slots that reduces may borrow
    /// (`percentageOfBorrowedMapSlots`, 0–1, default 1).
    pub borrow_map_pct: Option<f64>,
    /// Fraction of the cluster's reduce slots that maps may borrow
    /// (`percentageOfBorrowedReduceSlots`, 0–1, default 1).
    pub borrow_reduce_pct: Option<f64>,
    #[serde(default, deserialize_with = "de_opt_duration")]
    pub node_locality_delay: Option<Ms>,
    #[serde(default, deserialize_with = "de_opt_duration")]
    pub rack_locality_delay: Option<Ms>,
}

/// `[scheduler.dynamicmr]`: PD-DHSA's settings plus SEPB's and Slot
/// PreScheduling's.
#[derive(Clone, Debug, Default, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DynamicMrConfig {
    pub slowstart: Option<f64>,
    pub borrow_map_pct: Option<f64>,
    pub borrow_reduce_pct: Option<f64>,
    #[serde(default, deserialize_with = "de_opt_duration")]
    pub node_locality_delay: Option<Ms>,
    #[serde(default, deserialize_with = "de_opt_duration")]
    pub rack_locality_delay: Option<Ms>,
    /// SEPB: fraction of the running jobs, in fair order, checked for
    /// pending tasks before an idle slot goes to a speculative copy (0–1,
    /// default 1; 0 turns SEPB off).
    pub sepb_check_fraction: Option<f64>,
    /// Slot PreScheduling on or off (default true).
    pub prescheduling: Option<bool>,
    /// PreScheduling's `maximumNumBorrowedReduceSlots`: reduce slots it may
    /// hold with maps at once (default unlimited).
    pub max_borrowed_reduce_slots: Option<u32>,
}

impl DynamicMrConfig {
    /// The PD-DHSA part.
    fn dhsa(&self) -> Config {
        Config {
            slowstart: self.slowstart,
            borrow_map_pct: self.borrow_map_pct,
            borrow_reduce_pct: self.borrow_reduce_pct,
            node_locality_delay: self.node_locality_delay,
            rack_locality_delay: self.rack_locality_delay,
        }
    }
}

const SOURCE: &str = "Tang, Lee, He, DynamicMR: A Dynamic Slot Allocation Optimization Framework for MapReduce Clusters (its supplemental material)";

pub const DHSA_PI: Entry = Entry {
    name: "dhsa-pi",
    summary: "DynamicMR's PI-DHSA: fair per phase on typed slots; when only one phase is overloaded, the other's idle slots take its tasks (up to borrow_map_pct / borrow_reduce_pct)",
    source: SOURCE,
    runs_on: Models::SLOTS,
    meant_for: Models::SLOTS,
    build: |s, ctx| Ok(Box::new(Dhsa::build(s, ctx, Mode::Pi)?)),
    check: None,
};

pub const DHSA_PD: Entry = Entry {
    name: "dhsa-pd",
    summary: "DynamicMR's PD-DHSA: a pool's maps and reduces share its fair share of all slots; each slot tries map, reduce, map in a reduce slot, reduce in a map slot, then a non-local map",
    source: SOURCE,
    runs_on: Models::SLOTS,
    meant_for: Models::SLOTS,
    build: |s, ctx| Ok(Box::new(Dhsa::build(s, ctx, Mode::Pd)?)),
    check: None,
};

pub const DYNAMICMR: Entry = Entry {
    name: "dynamicmr",
    summary: "DynamicMR: PD-DHSA + SEPB (pending tasks before speculative copies) + Slot PreScheduling (local maps in idle slots above the load-balancing line)",
    source: SOURCE,
    runs_on: Models::SLOTS,
    meant_for: Models::SLOTS,
    build: |s, ctx| Ok(Box::new(Dhsa::build(s, ctx, Mode::DynamicMr)?)),
    check: None,
};

/// The DHSA policies use the fair base's orders and delay scheduling but
/// launch every task themselves.
const DHSA_RULES: Rules = Rules {
    node: RULE_MAP,
    rack: RULE_MAP,
    off: RULE_NON_LOCAL,
    reduce: RULE_REDUCE,
};

pub const RULE_MAP: &str = "dhsa/map";
pub const RULE_REDUCE: &str = "dhsa/reduce";
pub const RULE_MAP_IN_REDUCE_SLOT: &str = "dhsa/map-in-reduce-slot";
pub const RULE_REDUCE_IN_MAP_SLOT: &str = "dhsa/reduce-in-map-slot";
pub const RULE_NON_LOCAL: &str = "dhsa/non-local";
pub const RULE_NON_LOCAL_IN_REDUCE_SLOT: &str = "dhsa/non-local-in-reduce-slot";
pub const RULE_PRE_MAP_SLOT: &str = "prescheduling/extra-map-slot";
pub const RULE_PRE_REDUCE_SLOT: &str = "prescheduling/reduce-slot";
pub const RULE_PRE_REDUCE_IN_MAP_SLOT: &str = "prescheduling/reduce-in-map-slot";
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

/// How a map may be picked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum MapPick {
    /// Delay scheduling's allowed level (the job counts as visited).
    Allowed,
    /// Any locality, best first (case 5, SEPB).
    Any,
}

#[derive(Clone)]
pub struct Dhsa {
    mode: Mode,
    slowstart: f64,
    borrow_map_pct: f64,
    borrow_reduce_pct: f64,
    sepb_check_fraction: f64,
    prescheduling: bool,
    max_borrowed_reduce_slots: u32,
    fair: FairBase<Rules>,
    /// Maps PreScheduling put in reduce slots (P2), pruned as they end.
    pre_borrowed: Vec<AttemptId>,
}

impl Dhsa {
    fn build(s: &Settings, ctx: &BuildCtx, mode: Mode) -> Result<Dhsa, ConfigError> {
        let (own, dmr) = match mode {
            Mode::DynamicMr => {
                let d: DynamicMrConfig = s.own()?;
                fraction(
                    "scheduler.dynamicmr.sepb_check_fraction",
                    d.sepb_check_fraction,
                )?;
                (d.dhsa(), d)
            }
            _ => (s.own::<Config>()?, DynamicMrConfig::default()),
        };
        let name = s.name;
        fraction(
            &format!("scheduler.{name}.borrow_map_pct"),
            own.borrow_map_pct,
        )?;
        fraction(
            &format!("scheduler.{name}.borrow_reduce_pct"),
            own.borrow_reduce_pct,
        )?;
        let slowstart = s.slowstart_or(own.slowstart, DEFAULT_SLOWSTART)?;
        let auto = auto_delay(ctx);
        let base = BaseSettings {
            slowstart,
            node_delay: own.node_locality_delay.unwrap_or(auto),
            rack_delay: own.rack_locality_delay.unwrap_or(auto),
            assign_multiple: true,
            size_based_weight: false,
            typed_slots: true,
            preemption: false,
            // DHSA launches its tasks (and copies) itself.
            speculate: false,
        };
        Ok(Dhsa {
            fair: FairBase::new(base, DHSA_RULES),
            mode,
            slowstart,
            borrow_map_pct: own.borrow_map_pct.unwrap_or(1.0),
            borrow_reduce_pct: own.borrow_reduce_pct.unwrap_or(1.0),
            sepb_check_fraction: dmr.sepb_check_fraction.unwrap_or(1.0),
            prescheduling: dmr.prescheduling.unwrap_or(true),
            max_borrowed_reduce_slots: dmr.max_borrowed_reduce_slots.unwrap_or(u32::MAX),
            pre_borrowed: Vec::new(),
        })
    }

    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// Reduces that may run in map slots, maps that may run in reduce slots.
    fn limits(&self, w: RunView<'_>) -> (u32, u32) {
        (
            borrowable(w.cluster().total_map_slots, self.borrow_map_pct),
            borrowable(w.cluster().total_reduce_slots, self.borrow_reduce_pct),
        )
    }

    fn pool_full(w: RunView<'_>, p: usize, kind: Kind) -> bool {
        let k = match kind {
            Kind::Map => TaskKind::Map,
            Kind::Reduce => TaskKind::Reduce,
        };
        pool_running(w, p, k) >= pool_max(w, p, k)
    }

    /// Launches a map of job `j` in a slot of type `slot`, if the job has
    /// one it may run here; with [`MapPick::Allowed`] in a map slot, once
    /// its pending maps are exhausted at delay scheduling's level ANY, a
    /// speculative copy of one of its running maps (as Hadoop's
    /// `findNewMapTask`; see [`Dhsa::speculate`]).
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
        let w = hb.view();
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
        if let Some(a) = self.launch_pending_map(hb, j, slot, max, rule, launched) {
            return Some(a);
        }
        if pick == MapPick::Allowed && slot == Kind::Map && max == Locality::OffDc {
            return self.speculate(hb, j, Kind::Map, launched);
        }
        None
    }

    /// Launches a pending map of job `j` at locality `max` or better in a
    /// slot of type `slot`.
    fn launch_pending_map(
        &mut self,
        hb: &mut Heartbeat<'_>,
        j: JobId,
        slot: Kind,
        max: Locality,
        rule: &'static str,
        launched: &mut Vec<JobId>,
    ) -> Option<AttemptId> {
        let w = hb.view();
        let job = w.job(j);
        if !job.runnable || job.maps_pending == 0 || hb.free_typed(slot) == 0 {
            return None;
        }
        let (t, loc) = job.find_map(hb.node, max, w.cluster())?;
        let a = match slot {
            Kind::Map => hb.launch_map(j, t, rule),
            Kind::Reduce => hb.launch_map_in_reduce_slot(j, t, rule),
        };
        self.fair.map_launched(j, loc);
        launched.push(j);
        Some(a)
    }

    /// Launches a schedulable reduce of job `j` in a slot of type `slot`;
    /// in a reduce slot, once its pending reduces are exhausted, a
    /// speculative copy of one of its running reduces (as Hadoop's
    /// `findNewReduceTask`).
    fn try_reduce(
        &mut self,
        hb: &mut Heartbeat<'_>,
        j: JobId,
        slot: Kind,
        rule: &'static str,
        launched: &mut Vec<JobId>,
    ) -> bool {
        if self.launch_pending_reduce(hb, j, slot, rule) {
            return true;
        }
        let job = hb.view().job(j);
        slot == Kind::Reduce
            && job.runnable
            && job.reduces_schedulable(self.slowstart)
            && self.speculate(hb, j, Kind::Reduce, launched).is_some()
    }

    /// Launches a pending schedulable reduce of job `j` in a slot of type
    /// `slot`; in a map slot only once its job's maps are all done (see the
    /// module doc).
    fn launch_pending_reduce(
        &self,
        hb: &mut Heartbeat<'_>,
        j: JobId,
        slot: Kind,
        rule: &'static str,
    ) -> bool {
        let w = hb.view();
        let job = w.job(j);
        if !job.runnable
            || job.reduces_pending == 0
            || !job.reduces_schedulable(self.slowstart)
            || hb.free_typed(slot) == 0
            || (slot == Kind::Map && !waiting_reduce_fits(w, j))
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

    /// A speculative copy of one of job `j`'s running tasks of `kind`, in
    /// a free slot of that kind, if the scenario's speculation rule picks
    /// one here (the running-task part of Hadoop's lookup, reached only
    /// once the job has no pending task of the kind to give). Under
    /// `dynamicmr` SEPB (Algorithm 3) comes first: the first
    /// ⌈`sepb_check_fraction` × jobs⌉ jobs in fair order are checked for a
    /// pending task of the kind, and one of those runs instead of the copy.
    fn speculate(
        &mut self,
        hb: &mut Heartbeat<'_>,
        j: JobId,
        kind: Kind,
        launched: &mut Vec<JobId>,
    ) -> Option<AttemptId> {
        if hb.free_typed(kind) == 0 {
            return None;
        }
        let task = hb.speculative_task(j, kind)?;
        if self.mode == Mode::DynamicMr && self.sepb_check_fraction > 0.0 {
            if let Some(a) = self.sepb(hb, kind, launched) {
                return Some(a);
            }
        }
        let a = hb.launch_speculative(j, kind, task);
        if kind == Kind::Map {
            let loc = hb.view().attempts()[a as usize].locality;
            self.fair.map_launched(j, loc.unwrap_or(Locality::OffDc));
            launched.push(j);
        }
        Some(a)
    }

    /// SEPB's check (Algorithm 3, lines 3–5): a pending task of `kind`
    /// from the first ⌈`sepb_check_fraction` × jobs⌉ jobs in fair order
    /// (pools, then jobs within each), in a slot of its kind, at any
    /// locality.
    fn sepb(
        &mut self,
        hb: &mut Heartbeat<'_>,
        kind: Kind,
        launched: &mut Vec<JobId>,
    ) -> Option<AttemptId> {
        let w = hb.view();
        let (pool_jobs, demand) = self.fair.pools_view(w, TaskKind::Any);
        let pools = self
            .fair
            .sorted_pools(w, TaskKind::Any, &pool_jobs, &demand);
        let order: Vec<(usize, JobId)> = pools
            .iter()
            .flat_map(|&p| {
                self.jobs_of(w, p, &pool_jobs)
                    .into_iter()
                    .map(move |j| (p, j))
            })
            .collect();
        let checked = sepb_checked(self.sepb_check_fraction, order.len());
        for &(p, j) in order.iter().take(checked) {
            if Self::pool_full(hb.view(), p, kind) {
                continue;
            }
            match kind {
                Kind::Map => {
                    let a = self.launch_pending_map(
                        hb,
                        j,
                        Kind::Map,
                        Locality::OffDc,
                        RULE_SEPB,
                        launched,
                    );
                    if a.is_some() {
                        return a;
                    }
                }
                Kind::Reduce => {
                    if self.launch_pending_reduce(hb, j, Kind::Reduce, RULE_SEPB) {
                        return hb.assigned.last().copied();
                    }
                }
            }
        }
        None
    }
}

/// SEPB's checked jobs: ⌈fraction × jobs⌉ (with a hair of slack so that
/// 0.5 × 4 is 2).
fn sepb_checked(fraction: f64, jobs: usize) -> usize {
    (fraction * jobs as f64 - 1e-9).ceil().max(0.0) as usize
}

/// May a reduce of job `j` take a map slot? Only if it will not wait
/// there: its job's maps are all done (see the module doc).
fn waiting_reduce_fits(w: RunView<'_>, j: JobId) -> bool {
    let job = w.job(j);
    job.maps_done == job.n_maps()
}

impl Policy for Dhsa {
    fn slowstart(&self) -> f64 {
        self.slowstart
    }

    fn speculates(&self) -> bool {
        true
    }

    fn adopt(&mut self, w: RunView<'_>) {
        self.fair.adopt(w);
        self.pre_borrowed = w
            .attempts()
            .iter_ids()
            .filter(|(_, a)| a.outcome == Outcome::Running && w.rule(a) == RULE_PRE_REDUCE_SLOT)
            .map(|(i, _)| i)
            .collect();
    }

    fn heartbeat(&mut self, hb: &mut Heartbeat<'_>) {
        match self.mode {
            Mode::Pi => self.heartbeat_pi(hb),
            Mode::Pd | Mode::DynamicMr => self.heartbeat_pd(hb),
        }
    }

    fn hear(&mut self, _w: RunView<'_>, e: Event) {
        if let Event::JobArrived(j) = e {
            self.fair.job_arrived(j);
        }
    }
}

impl Show for Dhsa {
    fn inspect(&self, w: RunView<'_>, node: NodeId) -> Inspection {
        let mut ins = super::fair::inspect(&self.fair, w);
        let c = &mut ins.cluster;
        let st = self.pi_state(w);
        let (map_limit, reduce_limit) = self.limits(w);
        let n = w.node(node);
        c.insert("borrow_map_pct", num(self.borrow_map_pct));
        c.insert("borrow_reduce_pct", num(self.borrow_reduce_pct));
        c.insert("borrowable_map_slots", map_limit);
        c.insert("borrowable_reduce_slots", reduce_limit);
        c.insert("clusterMapCapacity", st.map_capacity);
        c.insert("clusterReduceCapacity", st.reduce_capacity);
        c.insert("mapSlotsDemand", st.map_demand);
        c.insert("reduceSlotsDemand", st.reduce_demand);
        c.insert("clusterUsedMapSlots", st.used_map_slots);
        c.insert("clusterUsedReduceSlots", st.used_reduce_slots);
        c.insert("clusterRunningMapTasks", st.running_maps);
        c.insert("clusterRunningReduceTasks", st.running_reduces);
        c.insert("currentBorrowedMapSlots", st.borrowed_map_slots);
        c.insert("currentBorrowedReduceSlots", st.borrowed_reduce_slots);
        c.insert("mapSlotsLoadFactor", num(st.map_load_factor));
        c.insert("reduceSlotsLoadFactor", num(st.reduce_load_factor));
        c.insert("node_free_map_slots", n.free_typed(w.capacity(), Kind::Map));
        c.insert(
            "node_free_reduce_slots",
            n.free_typed(w.capacity(), Kind::Reduce),
        );
        if self.mode == Mode::Pi {
            c.insert("case", st.case);
            c.insert("extraReduceSlotsDemand", st.extra_reduce_demand);
            c.insert("extraMapSlotsDemand", st.extra_map_demand);
            c.insert("updatedMapSlotsLoadFactor", num(st.updated_map_load_factor));
            c.insert(
                "updatedReduceSlotsLoadFactor",
                num(st.updated_reduce_load_factor),
            );
            let map_cap = load_cap(
                st.map_demand + st.extra_reduce_demand,
                n.map_slots,
                st.map_capacity,
            );
            let reduce_cap = load_cap(
                st.reduce_demand + st.extra_map_demand,
                n.reduce_slots,
                st.reduce_capacity,
            );
            c.insert(
                "availableMapSlots",
                map_cap.saturating_sub(n.used_map_slots),
            );
            c.insert(
                "availableReduceSlots",
                reduce_cap.saturating_sub(n.used_reduce_slots),
            );
        } else {
            let (demand, total, current) = self.pd_capacity(w, node);
            c.insert("totalSlotsDemand", demand);
            c.insert("totalSlotsCapacity", total);
            c.insert("trackerSlotsCapacity", n.map_slots + n.reduce_slots);
            c.insert("trackerRunningTasksNum", n.running());
            c.insert("trackerCurrentSlotsCapacity", current);
            let (pools, jobs) = self.fair.fair_shares(w, TaskKind::Any);
            for (p, s) in pools.iter().enumerate() {
                if let Some(v) = ins.pools.get_mut(&w.pools()[p].name) {
                    v.insert("fair_share_slots", num(*s));
                }
            }
            for (j, s) in jobs {
                if let Some(v) = ins.jobs.get_mut(&*w.job(j).name) {
                    v.insert("fair_share_slots", num(s));
                }
            }
            if self.mode == Mode::DynamicMr {
                let c = &mut ins.cluster;
                let allowable = current.saturating_sub(n.running());
                let free_map = n.free_typed(w.capacity(), Kind::Map);
                c.insert("allowableIdleSlots", allowable);
                c.insert("extraIdleMapSlots", free_map.saturating_sub(allowable));
                c.insert("idleReduceSlots", n.free_typed(w.capacity(), Kind::Reduce));
                c.insert("prescheduling", self.prescheduling);
                c.insert("borrowedReduceSlots", self.pre_borrowed_now(w));
                c.insert(
                    "maximumBorrowableReduceSlots",
                    if self.max_borrowed_reduce_slots == u32::MAX {
                        Value::Null
                    } else {
                        self.max_borrowed_reduce_slots.into()
                    },
                );
                c.insert("sepb_check_fraction", num(self.sepb_check_fraction));
                let jobs = w.active().iter().filter(|&&j| w.job(j).runnable).count();
                c.insert(
                    "sepb_checked_jobs",
                    sepb_checked(self.sepb_check_fraction, jobs),
                );
            }
        }
        ins
    }

    /// The fair base's shares of map and reduce slots.
    fn pool_shares(&self, w: RunView<'_>) -> Option<PoolShares> {
        Some(super::fair::pool_shares(&self.fair, w))
    }
}

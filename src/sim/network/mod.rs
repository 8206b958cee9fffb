//! Disks and links, and the flows that share them.
//!
//! Every byte a job moves is a *flow* over *resources* (a node's disk, its
//! NIC up and down, a rack's uplink up and down, a datacenter's WAN link up
//! and down), each with a capacity in MB/s. At every instant the active
//! flows share capacities **max-min fairly**, as progressive filling
//! computes it: all rates rise together; when a resource saturates, its
//! flows freeze at the level reached; the others go on rising. A flow may
//! also carry its own rate cap (`max_rate`, the per-transfer bandwidth of
//! the `fixed` model), which acts as a resource of its own.
//!
//! Rates change only when flows start or end (or are cancelled). Changes
//! made at one instant are settled together by [`Network::flush`], which
//! re-solves only the flows they can affect (see [`Network::solve`]); every
//! other flow keeps its rate, as SimGrid's lazy max-min solver does. Each
//! flow's end is kept in an indexed min-heap on (end ms, flow id), the end
//! being the instant its last byte arrives, rounded up to the millisecond.
//!
//! The solver's data is laid out by field (a struct of arrays) so that a
//! solve over thousands of flows touches little memory: it is the engine's
//! main cost on a busy network.
//!
//! Determinism: flows and resources are indexed by dense ids; the solver
//! visits them in an order fixed by the history of starts and ends (never
//! a hash map's), and ties between levels by resource id.

use crate::model::Ms;

pub type FlowId = u32;
pub type ResId = u32;

/// No resource (a flow frozen by its own cap).
const NO_RES: ResId = ResId::MAX;

/// Rates equal but for rounding (relative 1e-12).
fn same_rate(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-12 * a.abs().max(b.abs()).max(1.0)
}

/// Rounds counted apart in [`Network::by_rounds`] (the last: this many or
/// more).
pub const ROUND_BUCKETS: usize = 10;

/// The most resources a flow crosses: a pipeline write to three replicas
/// in three racks of two datacenters crosses 15.
pub const MAX_PATH: usize = 16;

/// A disk or a link. Laid out in declaration order, the fields a fill
/// reads and writes for every flow it freezes first, within one cache line
/// (a fill over a rack link's flows touches thousands of resources).
#[derive(Clone, Debug)]
#[repr(C, align(64))]
pub struct Resource {
    pub capacity: f64,
    /// Solver scratch: in a fill, what the flows frozen so far (and those
    /// outside) use here, and the flows still open.
    frozen_sum: f64,
    open: u32,
    /// Active flows whose bottleneck (where they froze) this is.
    bottlenecked: u32,
    /// In a solve: the flows re-solved that cross it, in the order they
    /// joined (a round freezes them newest first); what the flows outside
    /// use here before the fill (see `Network::solve`); and whether it
    /// joined through an ended flow alone. Scratch: a copy of the run
    /// (a checkpoint) does not copy the row.
    row: Scratch<Vec<FlowId>>,
    base: f64,
    /// Sum of the rates of the flows crossing it.
    pub load: f64,
    /// Solver scratch.
    stamp: u64,
    in_set: u64,
    touched: u64,
    /// Flows crossing it (unordered; each flow keeps its positions).
    flows: Vec<FlowId>,
    by_seed: bool,
    /// Waiting in `Network::pending` for the next exact re-solve.
    pending: bool,
    lazy: bool,
    /// ∫ load dt (MB) since `last`, for utilisation; and its peak.
    pub area: f64,
    pub peak: f64,
    last: Ms,
    /// `coarse`: the level at which flows last froze here; the capacity
    /// changes (MB/s) not yet re-solved here, since `lag_since` (and
    /// whether any is, `lazy` above); and what a started flow may take
    /// here before they are.
    level: f64,
    lag: f64,
    lag_since: Ms,
    allow: f64,
    /// In a `coarse` solve's S: flows above this rate are re-solved here
    /// even if they froze elsewhere.
    cut: f64,
    /// For `SLOTSIM_SOLVER_STATS`: rates a solve changed of flows that
    /// froze here, and the solves that changed any (this level moved).
    changes: u64,
    moves: u64,
}

impl Resource {
    fn new(capacity: f64) -> Resource {
        Resource {
            capacity,
            load: 0.0,
            flows: Vec::new(),
            area: 0.0,
            peak: 0.0,
            last: 0,
            stamp: 0,
            in_set: 0,
            touched: 0,
            frozen_sum: 0.0,
            open: 0,
            bottlenecked: 0,
            row: Scratch::default(),
            base: 0.0,
            by_seed: false,
            pending: false,
            level: 0.0,
            lag: 0.0,
            lag_since: 0,
            lazy: false,
            allow: 0.0,
            cut: f64::INFINITY,
            changes: 0,
            moves: 0,
        }
    }

    /// Brings the utilisation integral up to `now`.
    fn integrate(&mut self, now: Ms) {
        if now > self.last {
            self.area += self.load * (now - self.last) as f64 / 1000.0;
            self.last = now;
        }
    }

    /// ∫ load dt (MB) up to `now`, without changing anything.
    pub fn area_at(&self, now: Ms) -> f64 {
        self.area + self.load * now.saturating_sub(self.last) as f64 / 1000.0
    }

    /// Active flows crossing it.
    pub fn flow_count(&self) -> usize {
        self.flows.len()
    }

    /// Active flows whose bottleneck this is (where they froze).
    pub fn bottlenecked(&self) -> u32 {
        self.bottlenecked
    }

    /// Over the run: the rates solves changed of flows that froze here,
    /// and the solves that changed any (for `SLOTSIM_SOLVER_STATS`).
    pub fn changes(&self) -> (u64, u64) {
        (self.changes, self.moves)
    }
}

/// What the solver reads of a flow, kept together.
#[derive(Clone, Copy, Debug, Default)]
struct Hot {
    rate: f64,
    /// The rate the current solve gives it (valid while `stamp` is the
    /// solve's).
    next: f64,
    max_rate: f64,
    stamp: u64,
    froze_at: ResId,
    len: u8,
    frozen: bool,
}

/// The rest of a flow.
#[derive(Clone, Copy, Debug, Default)]
struct Cold {
    bytes: f64,
    remaining: f64,
    /// When `remaining` was last settled, in exact (fractional) ms.
    last: f64,
    start: Ms,
    /// When the last byte arrives at the current rate: exactly, in
    /// fractional ms, and rounded up to the millisecond (the engine's event).
    end_x: f64,
    end: Ms,
    tag: u64,
    heap_pos: u32,
    active: bool,
}

/// A flow as callers see it.
#[derive(Clone, Copy, Debug)]
pub struct FlowInfo<'a> {
    /// MB requested, MB still to move (as of its last rate change), MB/s now.
    pub bytes: f64,
    pub remaining: f64,
    pub rate: f64,
    pub max_rate: f64,
    pub start: Ms,
    /// When the last byte arrives at the current rate (`Ms::MAX` at rate 0),
    /// as the engine's millisecond and exactly (fractional ms).
    pub end: Ms,
    pub end_x: f64,
    /// Whoever started it.
    pub tag: u64,
    path: &'a [ResId],
}

impl FlowInfo<'_> {
    pub fn path(&self) -> &[ResId] {
        self.path
    }
}

/// Solver scratch that lives in a resource but means nothing between
/// solves (each solve clears it before use): a clone starts it empty, so
/// that copying a run does not copy it.
#[derive(Debug, Default)]
struct Scratch<T>(T);

impl<T: Default> Clone for Scratch<T> {
    fn clone(&self) -> Self {
        Scratch(T::default())
    }
}

impl<T> std::ops::Deref for Scratch<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T> std::ops::DerefMut for Scratch<T> {
    fn deref_mut(&mut self) -> &mut T {
        &mut self.0
    }
}

/// The resources, the flows, and the solver's scratch space.
#[derive(Clone, Debug, Default)]
pub struct Network {
    pub resources: Vec<Resource>,
    hot: Vec<Hot>,
    cold: Vec<Cold>,
    /// Each flow's path, `MAX_PATH` slots per flow.
    paths: Vec<ResId>,
    /// Each flow's position in each path resource's list, likewise.
    pos: Vec<u32>,
    free: Vec<FlowId>,
    free_res: Vec<ResId>,
    /// The latest exact end (fractional ms) of the flows that ended since
    /// the last flush, and when that flush was: the rates a flush sets
    /// apply from the instant the freed capacity really became free.
    released: Option<f64>,
    flushed: f64,
    /// Min-heap of active flows by (end, id).
    heap: Vec<FlowId>,
    stamp: u64,
    // Scratch, reused so a solve allocates nothing once warmed up.
    comp_res: Vec<ResId>,
    comp_flows: Vec<FlowId>,
    /// Changes waiting for a flush: resources whose flows changed, and
    /// started flows that cross no resource.
    seeds: Vec<ResId>,
    seed_flows: Vec<FlowId>,
    /// The resources being re-solved (S).
    in_s: Vec<ResId>,
    levels: std::collections::BinaryHeap<std::cmp::Reverse<Level>>,
    rates: Vec<(FlowId, f64)>,
    /// The resources a solve met as boundary resources, in the order it
    /// met them: through a re-solved flow, or through an ended flow alone
    /// (those that joined S since, or were met through a flow later, are
    /// skipped where these are read).
    by_flow: Vec<ResId>,
    by_seed: Vec<ResId>,
    /// Solves run and the flows and resources they covered (the cost of
    /// keeping rates max-min fair).
    pub solves: u64,
    pub solved_flows: u64,
    pub solved_resources: u64,
    /// Flows whose rate a solve changed, in all.
    pub rate_changes: u64,
    /// Distinct bottlenecks (or caps) whose flows' rate a solve changed,
    /// in all.
    pub levels_changed: u64,
    /// Rounds of the solves (S grown and solved again), and the flows
    /// they filled in all.
    pub solve_rounds: u64,
    pub round_flows: u64,
    /// Solves by their rounds (1, 2, …, [`ROUND_BUCKETS`] or more): how
    /// many, and the flows they filled in all rounds.
    pub by_rounds: [(u64, u64); ROUND_BUCKETS],
    /// `coarse`: solves cut short, exact re-solves of what they left (and
    /// of them, those forced by a flow left at rate 0), and the flows those
    /// filled.
    pub cut_solves: u64,
    pub resyncs: u64,
    pub zero_resyncs: u64,
    pub resync_flows: u64,
    active: usize,
    /// Resources a fill gave no level (see `Network::fill_levels`); fills
    /// that skipped some, and those run again without; and whether fills
    /// skip none (the reference the tests compare with).
    skipped: Vec<ResId>,
    full_fills: bool,
    /// The stamp of the resources the current fill touched.
    touch: u64,
    pub slack_fills: u64,
    pub slack_refills: u64,
    /// `coarse` only.
    coarse: Option<coarse::State>,
}

impl Network {
    pub fn new() -> Network {
        Network::default()
    }

    /// Makes the solver approximate: the `coarse` model (see [`Coarse`]).
    pub fn set_coarse(&mut self, c: Coarse) {
        self.coarse = Some(coarse::State::new(c));
    }

    /// Adds a resource of `capacity` MB/s (> 0), reusing a removed one's id.
    pub fn add_resource(&mut self, capacity: f64) -> ResId {
        match self.free_res.pop() {
            Some(r) => {
                let old = &self.resources[r as usize];
                let (st, changes, moves) = (old.stamp, old.changes, old.moves);
                let res = &mut self.resources[r as usize];
                let row = std::mem::take(&mut res.row);
                *res = Resource::new(capacity);
                res.stamp = st;
                // Its row's room, kept: a solve allocates nothing.
                res.row = row;
                // The statistics count by id over the run (ids reused are
                // of one kind: a reducer's own shuffle limits).
                (res.changes, res.moves) = (changes, moves);
                r
            }
            None => {
                self.resources.push(Resource::new(capacity));
                (self.resources.len() - 1) as ResId
            }
        }
    }

    /// Removes a resource no flow crosses any more (its id may be reused).
    pub fn remove_resource(&mut self, r: ResId) {
        debug_assert!(
            self.resources[r as usize].flows.is_empty(),
            "a resource in use"
        );
        self.free_res.push(r);
    }

    pub fn active_flows(&self) -> usize {
        self.active
    }

    fn path_of(&self, f: FlowId) -> &[ResId] {
        let o = f as usize * MAX_PATH;
        &self.paths[o..o + self.hot[f as usize].len as usize]
    }

    pub fn flow(&self, f: FlowId) -> FlowInfo<'_> {
        let (h, c) = (&self.hot[f as usize], &self.cold[f as usize]);
        FlowInfo {
            bytes: c.bytes,
            remaining: c.remaining,
            rate: h.rate,
            max_rate: h.max_rate,
            start: c.start,
            end: c.end,
            end_x: c.end_x,
            tag: c.tag,
            path: self.path_of(f),
        }
    }

    /// The flows under way, by id.
    pub fn active_ids(&self) -> impl Iterator<Item = FlowId> + '_ {
        self.cold
            .iter()
            .enumerate()
            .filter(|(_, c)| c.active)
            .map(|(i, _)| i as FlowId)
    }

    /// Bytes flow `f` has moved by `now`.
    pub fn moved(&self, f: FlowId, now: Ms) -> f64 {
        let c = &self.cold[f as usize];
        let done = c.bytes - c.remaining;
        let dt = (now as f64 - c.last).max(0.0) / 1000.0;
        (done + self.hot[f as usize].rate * dt).min(c.bytes)
    }

    /// Starts a flow of `bytes` MB over `path` at `now`, capped at
    /// `max_rate` MB/s (`f64::INFINITY` for none). It moves nothing until
    /// the next [`Network::flush`] gives it (and whoever it affects) a rate.
    pub fn start(
        &mut self,
        now: Ms,
        path: &[ResId],
        bytes: f64,
        max_rate: f64,
        tag: u64,
    ) -> FlowId {
        self.start_at(now as f64, path, bytes, max_rate, tag)
    }

    /// As [`Network::start`], at exact time `at` (fractional ms, within the
    /// millisecond before the engine's present): a flow started in
    /// reaction to another's end starts when that one's last byte arrived.
    pub fn start_at(
        &mut self,
        at: f64,
        path: &[ResId],
        bytes: f64,
        max_rate: f64,
        tag: u64,
    ) -> FlowId {
        let now = at.ceil() as Ms;
        if self.released.is_some_and(|r| at > r) {
            // Flows ended earlier in this millisecond: their capacity was
            // free before this one started.
            self.flush(now);
        }
        assert!(
            path.len() <= MAX_PATH,
            "a flow's path is at most {MAX_PATH} resources"
        );
        assert!(
            !path.is_empty() || max_rate.is_finite(),
            "a flow needs a resource or a rate cap"
        );
        let id = match self.free.pop() {
            Some(id) => id,
            None => {
                self.hot.push(Hot::default());
                self.cold.push(Cold::default());
                self.paths.resize(self.paths.len() + MAX_PATH, 0);
                self.pos.resize(self.pos.len() + MAX_PATH, 0);
                (self.hot.len() - 1) as FlowId
            }
        };
        let i = id as usize;
        self.hot[i] = Hot {
            rate: 0.0,
            next: 0.0,
            max_rate,
            stamp: 0,
            froze_at: NO_RES,
            len: path.len() as u8,
            frozen: false,
        };
        let b = bytes.max(0.0);
        self.cold[i] = Cold {
            bytes: b,
            remaining: b,
            last: at.max(self.flushed),
            start: now,
            end_x: f64::INFINITY,
            end: Ms::MAX,
            tag,
            heap_pos: u32::MAX,
            active: true,
        };
        let o = i * MAX_PATH;
        self.paths[o..o + path.len()].copy_from_slice(path);
        for (k, &r) in path.iter().enumerate() {
            let res = &mut self.resources[r as usize];
            self.pos[o + k] = res.flows.len() as u32;
            res.flows.push(id);
        }
        self.active += 1;
        self.heap_push(id);
        self.seed_flows.push(id);
        id
    }

    /// Ends flow `f` at `now` (its last byte arrived, or it was cancelled):
    /// its share is free for the others from the next flush. Returns the MB
    /// it moved.
    pub fn stop(&mut self, now: Ms, f: FlowId) -> f64 {
        let i = f as usize;
        if self.cold[i].end > now && self.released.is_some() {
            // A flow cancelled now, after flows ended within this
            // millisecond: settle those first.
            self.flush(now);
        }
        if self.cold[i].end <= now {
            // Its last byte arrived at `end_x`, within the millisecond
            // before `now`: its share was free from then.
            let x = self.cold[i].end_x;
            self.released = Some(self.released.map_or(x, |r| r.max(x)));
        }
        let moved = self.moved(f, now);
        let old_rate = self.hot[i].rate;
        self.set_rate(now as f64, f, 0.0);
        self.unfreeze(f);
        self.cold[i].active = false;
        self.cold[i].remaining = self.cold[i].bytes - moved;
        let len = self.hot[i].len as usize;
        let o = i * MAX_PATH;
        for k in 0..len {
            let r = self.paths[o + k] as usize;
            let p = self.pos[o + k] as usize;
            let res = &mut self.resources[r];
            res.flows.swap_remove(p);
            if res.flows.is_empty() {
                // No floating-point residue on an idle resource.
                res.integrate(now);
                res.load = 0.0;
            }
            if let Some(&other) = res.flows.get(p) {
                // Fix the position of the flow that took this slot.
                let oo = other as usize * MAX_PATH;
                let ol = self.hot[other as usize].len as usize;
                let k2 = self.paths[oo..oo + ol]
                    .iter()
                    .position(|&x| x as usize == r)
                    .expect("a flow lists the resources it is on");
                self.pos[oo + k2] = p as u32;
            }
            if old_rate > 0.0 && self.may_lag(r as ResId, -old_rate) {
                // A crowded resource: its flows take the freed share at
                // its next re-solve.
                self.add_lag(now, r as ResId, -old_rate);
                continue;
            }
            self.seeds.push(r as ResId);
        }
        self.heap_remove(f);
        self.active -= 1;
        self.free.push(f);
        moved
    }

    /// The next flow to end: (end ms, flow).
    pub fn next_end(&self) -> Option<(Ms, FlowId)> {
        self.heap.first().map(|&f| (self.cold[f as usize].end, f))
    }

    /// Utilisation integrals brought up to `now` (for the report).
    pub fn integrate_all(&mut self, now: Ms) {
        for r in &mut self.resources {
            r.integrate(now);
        }
    }

    /// Changes a flow's rate at `t` (exact ms; a flow started later than
    /// `t` changes from its start): settles what it moved at the old rate,
    /// updates its resources' loads and its end.
    fn set_rate(&mut self, t: f64, f: FlowId, rate: f64) {
        let i = f as usize;
        let old = self.hot[i].rate;
        let c = &mut self.cold[i];
        let t = t.max(c.last);
        let dt = (t - c.last) / 1000.0;
        c.remaining = (c.remaining - old * dt).max(0.0);
        c.last = t;
        if old == rate {
            return;
        }
        self.hot[i].rate = rate;
        c.end_x = if c.remaining <= 0.0 {
            t
        } else if rate > 0.0 {
            t + c.remaining * 1000.0 / rate
        } else {
            f64::INFINITY
        };
        c.end = if c.end_x.is_infinite() {
            Ms::MAX
        } else if c.end_x >= 1e18 {
            Ms::MAX / 2
        } else {
            c.end_x.ceil() as Ms
        };
        // The engine's millisecond (`t` is within the one before it).
        let now = t.ceil() as Ms;
        let active = c.active;
        let o = i * MAX_PATH;
        for k in 0..self.hot[i].len as usize {
            let res = &mut self.resources[self.paths[o + k] as usize];
            res.integrate(now);
            res.load += rate - old;
            let u = res.load / res.capacity;
            if u > res.peak {
                res.peak = u;
            }
        }
        if active {
            self.heap_fix(f);
        }
    }

    /// Settles the rates the changes since the last flush affect (see
    /// [`Network::solve`]). Call before time moves on: `next_end` is only
    /// right after a flush.
    ///
    /// The new rates apply from the latest exact end of the flows that
    /// ended since the last flush (within the millisecond before `now`),
    /// not from `now`: ends are events on the millisecond, but the
    /// capacity a flow held was free from its last byte, and holding it
    /// to the millisecond would delay every flow sharing it, and the
    /// flows after them (a flow started at `now` still starts at `now`).
    pub fn flush(&mut self, now: Ms) {
        if self.coarse.is_some() {
            self.due_lags(now);
        }
        if self.seeds.is_empty() && self.seed_flows.is_empty() {
            return;
        }
        let t = match self.released.take() {
            Some(r) => r.min(now as f64).max(self.flushed),
            None => now as f64,
        };
        match &self.coarse {
            None => {
                self.solve(t, 0);
                self.seeds.clear();
                self.seed_flows.clear();
            }
            Some(c) => {
                let resync = c.resync_due(now);
                self.coarse_flush(t, now, resync);
            }
        }
        self.flushed = t;
    }

    /// Whether flow `f`, the next to end, ends after what ended since the
    /// last flush: the changes so far are to be settled first, at the
    /// exact instant they happened.
    pub fn ends_after_release(&self, f: FlowId) -> bool {
        // (Even far from the flows ended: their capacity reaches it through
        // cascades, and settling those from the latest end of the
        // millisecond instead puts a few flows of swim-fb2009 tens of
        // milliseconds off SimGrid's answer. `coarse` orders them too:
        // settled together, one shuffle of the FB-2009 day took 2.6 times
        // as long as the exact model's and the day's mean turnaround came
        // out 8 % high; ordered, `scale-400` costs about 10 % more under
        // `coarse` and the FB-2009 day no more: docs/performance.md.)
        self.released
            .is_some_and(|r| self.cold[f as usize].end_x > r)
    }

    /// Whether flows ended earlier in the millisecond before `now` than
    /// `now` itself, and their changes wait for a flush.
    /// They are to be settled before the events of `now`: the rates they
    /// bring may end other flows before `now`, and those ends come first.
    pub fn released_before(&self, now: Ms) -> bool {
        self.released.is_some_and(|r| r < now as f64)
    }

    /// Whether changes wait for a flush.
    pub fn dirty(&self) -> bool {
        !self.seeds.is_empty() || !self.seed_flows.is_empty()
    }

    fn bump_stamp(&mut self) -> u64 {
        self.stamp += 1;
        self.stamp
    }
}

mod coarse;
mod heap;
mod solve;
pub use coarse::Coarse;
use solve::Level;
#[cfg(test)]
mod tests;

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

/// The most resources a flow crosses: a pipeline write to three replicas
/// in three racks of two datacenters crosses 15.
pub const MAX_PATH: usize = 16;

#[derive(Clone, Debug)]
pub struct Resource {
    pub capacity: f64,
    /// Sum of the rates of the flows crossing it.
    pub load: f64,
    /// Flows crossing it (unordered; each flow keeps its positions).
    flows: Vec<FlowId>,
    /// ∫ load dt (MB) since `last`, for utilisation; and its peak.
    pub area: f64,
    pub peak: f64,
    last: Ms,
    /// Solver scratch.
    stamp: u64,
    in_set: u64,
    touched: u64,
    frozen_sum: f64,
    open: u32,
    /// Active flows whose bottleneck (where they froze) this is.
    bottlenecked: u32,
    /// Its row in the solve's compressed rows.
    row: u32,
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
            row: 0,
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
    last: Ms,
    start: Ms,
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
    /// When the last byte arrives at the current rate (`Ms::MAX` at rate 0).
    pub end: Ms,
    /// Whoever started it.
    pub tag: u64,
    path: &'a [ResId],
}

impl FlowInfo<'_> {
    pub fn path(&self) -> &[ResId] {
        self.path
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
    /// The solve's flows by resource (compressed rows over `comp_res`):
    /// resource i's flows are `csr_flows[csr_start[i]..csr_start[i + 1]]`.
    csr_start: Vec<u32>,
    csr_flows: Vec<FlowId>,
    /// Solves run and the flows and resources they covered (the cost of
    /// keeping rates max-min fair).
    pub solves: u64,
    pub solved_flows: u64,
    pub solved_resources: u64,
    /// Flows whose rate a solve changed, in all.
    pub rate_changes: u64,
    /// Rounds of the solves (S grown and solved again), and the flows
    /// they filled in all.
    pub solve_rounds: u64,
    pub round_flows: u64,
    active: usize,
}

/// A candidate saturation level of a resource (or of a flow's own cap),
/// packed into one integer so that the solver's heap compares integers:
/// ordered by level (as `f64::total_cmp` orders them), then by which
/// (resources, 0, before caps, 1), then id.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Level(u128);

impl Level {
    fn new(level: f64, which: u8, id: u32) -> Level {
        // `total_cmp`'s order as unsigned integers: flip every bit of a
        // negative number, only the sign bit of a positive one.
        let b = level.to_bits();
        let key = if b >> 63 == 1 { !b } else { b | 1 << 63 };
        Level((key as u128) << 64 | (which as u128) << 32 | id as u128)
    }

    fn level(self) -> f64 {
        let key = (self.0 >> 64) as u64;
        f64::from_bits(if key >> 63 == 1 {
            key & !(1 << 63)
        } else {
            !key
        })
    }

    fn which(self) -> u8 {
        (self.0 >> 32) as u8
    }

    fn id(self) -> u32 {
        self.0 as u32
    }
}

impl Network {
    pub fn new() -> Network {
        Network::default()
    }

    /// Adds a resource of `capacity` MB/s (> 0), reusing a removed one's id.
    pub fn add_resource(&mut self, capacity: f64) -> ResId {
        match self.free_res.pop() {
            Some(r) => {
                let st = self.resources[r as usize].stamp;
                self.resources[r as usize] = Resource::new(capacity);
                self.resources[r as usize].stamp = st;
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
        let dt = now.saturating_sub(c.last) as f64 / 1000.0;
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
            last: now,
            start: now,
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
        let moved = self.moved(f, now);
        self.set_rate(now, f, 0.0);
        let i = f as usize;
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

    /// Changes a flow's rate at `now`: settles what it moved at the old
    /// rate, updates its resources' loads and its end.
    fn set_rate(&mut self, now: Ms, f: FlowId, rate: f64) {
        let i = f as usize;
        let old = self.hot[i].rate;
        let c = &mut self.cold[i];
        let dt = now.saturating_sub(c.last) as f64 / 1000.0;
        c.remaining = (c.remaining - old * dt).max(0.0);
        c.last = now;
        if old == rate {
            return;
        }
        self.hot[i].rate = rate;
        c.end = if c.remaining <= 0.0 {
            now
        } else if rate > 0.0 {
            let ms = (c.remaining * 1000.0 / rate).ceil();
            now.saturating_add(if ms >= 1e18 { Ms::MAX / 2 } else { ms as Ms })
        } else {
            Ms::MAX
        };
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
    pub fn flush(&mut self, now: Ms) {
        if self.seeds.is_empty() && self.seed_flows.is_empty() {
            return;
        }
        self.solve(now);
        self.seeds.clear();
        self.seed_flows.clear();
    }

    /// Whether changes wait for a flush.
    pub fn dirty(&self) -> bool {
        !self.seeds.is_empty() || !self.seed_flows.is_empty()
    }

    fn bump_stamp(&mut self) -> u64 {
        self.stamp += 1;
        self.stamp
    }

    /// The exact max-min rates after a change, computed on as few flows as
    /// possible. The flows re-solved are the started ones and those
    /// crossing a set S of resources, which starts empty; they are solved
    /// with every other
    /// flow's rate fixed (the other resources they cross, the boundary,
    /// keep what those flows use there). Each flow remembers where it froze
    /// (its bottleneck). A boundary resource joins S, and the solve
    /// repeats, when the change touched it (a re-solved flow froze there,
    /// one crossing it changed rate, or an ended flow crossed it) and a
    /// flow's max-min certificate breaks
    /// there ([`Network::certificate_breaks`]). When none does, every
    /// re-solved flow has a certificate (in S, where every flow was
    /// re-solved, or on the boundary, checked) and every other flow keeps
    /// its own (at a resource the change did not touch, or checked): the
    /// whole allocation is max-min fair, since an allocation in which every
    /// flow has a bottleneck is the max-min one.
    fn solve(&mut self, now: Ms) {
        let set = self.bump_stamp();
        self.in_s.clear();
        loop {
            let st = self.bump_stamp();
            self.comp_flows.clear();
            self.comp_res.clear();
            // The started flows and the flows crossing S.
            for i in 0..self.seed_flows.len() {
                let f = self.seed_flows[i] as usize;
                if self.cold[f].active && self.hot[f].stamp != st {
                    self.hot[f].stamp = st;
                    self.comp_flows.push(f as FlowId);
                }
            }
            for i in 0..self.in_s.len() {
                let r = self.in_s[i] as usize;
                self.resources[r].stamp = st;
                self.comp_res.push(r as ResId);
                for k in 0..self.resources[r].flows.len() {
                    let f = self.resources[r].flows[k] as usize;
                    if self.hot[f].stamp != st {
                        self.hot[f].stamp = st;
                        self.comp_flows.push(f as FlowId);
                    }
                }
            }
            // The boundary: other resources those flows cross. What the
            // flows outside use there is fixed.
            let n_s = self.comp_res.len();
            for i in 0..self.comp_flows.len() {
                let f = self.comp_flows[i] as usize;
                let o = f * MAX_PATH;
                for k in 0..self.hot[f].len as usize {
                    let r = self.paths[o + k] as usize;
                    if self.resources[r].stamp != st {
                        self.resources[r].stamp = st;
                        self.comp_res.push(r as ResId);
                    }
                }
            }
            // And the resources ended flows left, where flows outside may
            // now rise.
            for i in 0..self.seeds.len() {
                let r = self.seeds[i] as usize;
                if self.resources[r].stamp != st {
                    self.resources[r].stamp = st;
                    self.comp_res.push(r as ResId);
                }
            }
            for i in 0..self.comp_res.len() {
                let r = self.comp_res[i] as usize;
                let res = &mut self.resources[r];
                res.open = 0;
                res.row = i as u32;
                res.frozen_sum = if i < n_s { 0.0 } else { res.load };
            }
            for i in 0..self.comp_flows.len() {
                let f = self.comp_flows[i] as usize;
                let rate = self.hot[f].rate;
                let o = f * MAX_PATH;
                for k in 0..self.hot[f].len as usize {
                    let res = &mut self.resources[self.paths[o + k] as usize];
                    res.open += 1;
                    if res.in_set != set {
                        res.frozen_sum -= rate;
                    }
                }
            }
            // Rows: each resource's flows in the solve, so that freezing a
            // resource's flows never scans the flows outside it.
            self.csr_start.clear();
            let mut acc = 0u32;
            for i in 0..self.comp_res.len() {
                self.csr_start.push(acc);
                acc += self.resources[self.comp_res[i] as usize].open;
            }
            self.csr_start.push(acc);
            self.csr_flows.clear();
            self.csr_flows.resize(acc as usize, 0);
            for i in 0..self.comp_flows.len() {
                let f = self.comp_flows[i];
                let o = f as usize * MAX_PATH;
                for k in 0..self.hot[f as usize].len as usize {
                    let row = self.resources[self.paths[o + k] as usize].row as usize;
                    // `open` counts down as each row fills (it is reset by `fill`).
                    let res = &mut self.resources[self.paths[o + k] as usize];
                    res.open -= 1;
                    self.csr_flows[self.csr_start[row] as usize + res.open as usize] = f;
                }
            }
            for i in 0..self.comp_res.len() {
                let r = self.comp_res[i] as usize;
                self.resources[r].open = self.csr_start[i + 1] - self.csr_start[i];
            }
            for i in n_s..self.comp_res.len() {
                let r = self.comp_res[i] as usize;
                // What the flows outside use: never below 0 in floating point.
                let res = &mut self.resources[r];
                res.frozen_sum = res.frozen_sum.max(0.0);
            }
            self.fill();
            self.solve_rounds += 1;
            self.round_flows += self.comp_flows.len() as u64;
            // Boundary resources the re-solved flows touch.
            let touch = self.bump_stamp();
            for i in 0..self.seeds.len() {
                self.resources[self.seeds[i] as usize].touched = touch;
            }
            for k in 0..self.rates.len() {
                let (f, rate) = self.rates[k];
                let h = self.hot[f as usize];
                if h.froze_at != NO_RES {
                    self.resources[h.froze_at as usize].touched = touch;
                }
                if !same_rate(h.rate, rate) {
                    let o = f as usize * MAX_PATH;
                    for i in 0..h.len as usize {
                        self.resources[self.paths[o + i] as usize].touched = touch;
                    }
                }
            }
            let mut grew = false;
            for i in n_s..self.comp_res.len() {
                let r = self.comp_res[i] as usize;
                if self.resources[r].touched != touch || !self.certificate_breaks(r, st) {
                    continue;
                }
                self.resources[r].in_set = set;
                self.in_s.push(r as ResId);
                grew = true;
            }
            if !grew {
                break;
            }
        }
        self.solves += 1;
        self.solved_flows += self.comp_flows.len() as u64;
        self.solved_resources += self.comp_res.len() as u64;
        // Lower rates first, so no resource is ever over its capacity on
        // the way (the peak utilisation sees every intermediate load).
        let rates = std::mem::take(&mut self.rates);
        for pass in [true, false] {
            for &(f, rate) in &rates {
                let old = self.hot[f as usize].rate;
                // A rate the re-solve only moved by rounding keeps its
                // value, so that solving the same flows again changes
                // nothing.
                if (rate < old) == pass && !same_rate(old, rate) {
                    self.rate_changes += 1;
                    self.set_rate(now, f, rate);
                }
            }
        }
        self.rates = rates;
    }

    /// Whether boundary resource `r`, after a fill over the flows stamped
    /// `st` (the others' rates fixed), breaks a flow's max-min certificate
    /// (a full resource on which no flow has a higher rate): a re-solved
    /// flow that froze at `r` while a flow outside has a higher rate there,
    /// or a flow outside whose bottleneck is `r` while `r` is no longer
    /// full or a re-solved flow now has a higher rate there. When no
    /// boundary resource does, every flow holds a certificate and the
    /// allocation is max-min fair (it is unique), so `S` need not grow.
    fn certificate_breaks(&self, r: usize, st: u64) -> bool {
        let res = &self.resources[r];
        if res.bottlenecked == 0 {
            // No flow froze here, inside or outside: no certificate here.
            return false;
        }
        let tol = |x: f64| 1e-9 * x.abs().max(1.0);
        let (mut froze_here, mut max_in) = (f64::INFINITY, 0.0f64);
        let (mut max_out, mut bottlenecked) = (0.0f64, f64::INFINITY);
        for &g in &res.flows {
            let h = &self.hot[g as usize];
            if h.stamp == st {
                max_in = max_in.max(h.next);
                if h.froze_at as usize == r {
                    froze_here = froze_here.min(h.next);
                }
            } else {
                max_out = max_out.max(h.rate);
                if h.froze_at as usize == r {
                    bottlenecked = bottlenecked.min(h.rate);
                }
            }
        }
        if froze_here.is_finite() && max_out > froze_here + tol(froze_here) {
            return true;
        }
        if bottlenecked.is_finite() {
            // `frozen_sum` ends the fill as the resource's new load.
            let full = res.frozen_sum >= res.capacity * (1.0 - 1e-9);
            if !full || max_in > bottlenecked + tol(bottlenecked) {
                return true;
            }
        }
        false
    }

    /// Progressive filling over `comp_flows`, their resources' capacities
    /// less each resource's `frozen_sum` (what flows outside use there).
    /// New rates go to `rates`, in the order flows freeze; `frozen_sum`
    /// ends as each resource's new load.
    fn fill(&mut self) {
        self.levels.clear();
        for i in 0..self.comp_res.len() {
            let r = self.comp_res[i] as usize;
            let res = &self.resources[r];
            if res.open > 0 {
                let lvl = (res.capacity - res.frozen_sum) / res.open as f64;
                self.levels
                    .push(std::cmp::Reverse(Level::new(lvl, 0, r as u32)));
            }
        }
        for i in 0..self.comp_flows.len() {
            let f = self.comp_flows[i] as usize;
            self.unfreeze(f as FlowId);
            if self.hot[f].max_rate.is_finite() {
                let m = self.hot[f].max_rate;
                self.levels
                    .push(std::cmp::Reverse(Level::new(m, 1, f as u32)));
            }
        }
        let mut left = self.comp_flows.len();
        let mut rates = std::mem::take(&mut self.rates);
        rates.clear();
        while left > 0 {
            let Some(std::cmp::Reverse(top)) = self.levels.pop() else {
                break;
            };
            let (lvl, which, id) = (top.level(), top.which(), top.id());
            if which == 1 {
                // A flow's own cap.
                if !self.hot[id as usize].frozen {
                    self.freeze(id, lvl, NO_RES, &mut rates);
                    left -= 1;
                }
                continue;
            }
            let r = id as usize;
            let res = &self.resources[r];
            if res.open == 0 {
                continue;
            }
            // Levels only rise as flows freeze elsewhere: a stale entry is
            // put back at its current level.
            let cur = (res.capacity - res.frozen_sum) / res.open as f64;
            if cur.total_cmp(&lvl) == std::cmp::Ordering::Greater {
                self.levels
                    .push(std::cmp::Reverse(Level::new(cur, 0, r as u32)));
                continue;
            }
            let level = cur.max(0.0);
            // Freeze every open flow of this resource at `level`.
            let row = self.resources[r].row as usize;
            for k in self.csr_start[row] as usize..self.csr_start[row + 1] as usize {
                let f = self.csr_flows[k];
                if self.hot[f as usize].frozen {
                    continue;
                }
                self.freeze(f, level, r as ResId, &mut rates);
                left -= 1;
            }
        }
        self.rates = rates;
    }

    /// Forgets where flow `f` froze (it is being solved again, or ends).
    fn unfreeze(&mut self, f: FlowId) {
        let h = &mut self.hot[f as usize];
        h.frozen = false;
        let at = std::mem::replace(&mut h.froze_at, NO_RES);
        if at != NO_RES {
            self.resources[at as usize].bottlenecked -= 1;
        }
    }

    /// Freezes flow `f` at `rate` (at resource `at`, or its own cap):
    /// its resources' open counts drop.
    fn freeze(&mut self, f: FlowId, rate: f64, at: ResId, rates: &mut Vec<(FlowId, f64)>) {
        let i = f as usize;
        let h = &mut self.hot[i];
        h.frozen = true;
        h.froze_at = at;
        h.next = rate;
        let len = h.len as usize;
        if at != NO_RES {
            self.resources[at as usize].bottlenecked += 1;
        }
        rates.push((f, rate));
        let o = i * MAX_PATH;
        for k in 0..len {
            let res = &mut self.resources[self.paths[o + k] as usize];
            res.frozen_sum += rate;
            res.open -= 1;
        }
    }

    // Indexed min-heap on (end, id).

    fn key(&self, f: FlowId) -> (Ms, FlowId) {
        (self.cold[f as usize].end, f)
    }

    fn heap_push(&mut self, f: FlowId) {
        self.cold[f as usize].heap_pos = self.heap.len() as u32;
        self.heap.push(f);
        self.sift_up(self.heap.len() - 1);
    }

    fn heap_remove(&mut self, f: FlowId) {
        let i = self.cold[f as usize].heap_pos as usize;
        let last = self.heap.len() - 1;
        self.heap.swap(i, last);
        self.cold[self.heap[i] as usize].heap_pos = i as u32;
        self.heap.pop();
        self.cold[f as usize].heap_pos = u32::MAX;
        if i < self.heap.len() {
            self.sift_up(i);
            self.sift_down(i);
        }
    }

    fn heap_fix(&mut self, f: FlowId) {
        let i = self.cold[f as usize].heap_pos as usize;
        self.sift_up(i);
        let i = self.cold[f as usize].heap_pos as usize;
        self.sift_down(i);
    }

    fn sift_up(&mut self, mut i: usize) {
        while i > 0 {
            let p = (i - 1) / 2;
            if self.key(self.heap[i]) < self.key(self.heap[p]) {
                self.heap.swap(i, p);
                self.cold[self.heap[i] as usize].heap_pos = i as u32;
                self.cold[self.heap[p] as usize].heap_pos = p as u32;
                i = p;
            } else {
                break;
            }
        }
    }

    fn sift_down(&mut self, mut i: usize) {
        let n = self.heap.len();
        loop {
            let (l, r) = (2 * i + 1, 2 * i + 2);
            let mut m = i;
            if l < n && self.key(self.heap[l]) < self.key(self.heap[m]) {
                m = l;
            }
            if r < n && self.key(self.heap[r]) < self.key(self.heap[m]) {
                m = r;
            }
            if m == i {
                break;
            }
            self.heap.swap(i, m);
            self.cold[self.heap[i] as usize].heap_pos = i as u32;
            self.cold[self.heap[m] as usize].heap_pos = m as u32;
            i = m;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs every flow to its end, returning (flow, end ms) in end order.
    fn drain(n: &mut Network) -> Vec<(FlowId, Ms)> {
        let mut out = Vec::new();
        while let Some((t, f)) = n.next_end() {
            let moved = n.stop(t, f);
            n.flush(t);
            assert!((moved - n.flow(f).bytes).abs() < 1e-6, "moved {moved}");
            out.push((f, t));
        }
        out
    }

    #[test]
    fn four_flows_through_one_disk_end_together() {
        let mut n = Network::new();
        let disk = n.add_resource(100.0);
        for i in 0..4 {
            n.start(0, &[disk], 100.0, f64::INFINITY, i);
        }
        n.flush(0);
        for f in 0..4 {
            assert_eq!(n.flow(f).rate, 25.0);
        }
        let ends = drain(&mut n);
        assert!(ends.iter().all(|&(_, t)| t == 4_000), "{ends:?}");
    }

    #[test]
    fn levels_order_as_total_cmp_then_which_then_id() {
        let xs = [
            -3.5,
            -0.0,
            0.0,
            1e-300,
            0.25,
            0.25,
            7.0,
            1e300,
            f64::INFINITY,
        ];
        for &a in &xs {
            assert_eq!(Level::new(a, 1, 9).level().to_bits(), a.to_bits());
            for &b in &xs {
                for (wa, wb) in [(0, 0), (0, 1), (1, 0)] {
                    for (ia, ib) in [(1, 2), (2, 1), (5, 5)] {
                        let want = a.total_cmp(&b).then(wa.cmp(&wb)).then(ia.cmp(&ib));
                        let got = Level::new(a, wa, ia).cmp(&Level::new(b, wb, ib));
                        assert_eq!(got, want, "{a} {wa} {ia} vs {b} {wb} {ib}");
                    }
                }
            }
        }
    }

    #[test]
    fn textbook_two_link_example() {
        // Link 1 (capacity 1) carries f0 and f1; link 2 (capacity 2)
        // carries f0, f2 and f3: f0 and f1 get 0.5 on link 1, then f2 and
        // f3 share the 1.5 left on link 2.
        let mut n = Network::new();
        let l1 = n.add_resource(1.0);
        let l2 = n.add_resource(2.0);
        let f0 = n.start(0, &[l1, l2], 10.0, f64::INFINITY, 0);
        let f1 = n.start(0, &[l1], 10.0, f64::INFINITY, 1);
        let f2 = n.start(0, &[l2], 10.0, f64::INFINITY, 2);
        let f3 = n.start(0, &[l2], 10.0, f64::INFINITY, 3);
        n.flush(0);
        let r = |f| n.flow(f).rate;
        assert_eq!((r(f0), r(f1), r(f2), r(f3)), (0.5, 0.5, 0.75, 0.75));
        assert_eq!(n.resources[l1 as usize].load, 1.0);
        assert_eq!(n.resources[l2 as usize].load, 2.0);
    }

    #[test]
    fn textbook_three_link_examples() {
        // The parking lot (Bertsekas and Gallager's linear network): three
        // unit links in series, one long flow over all three and one short
        // flow on each. Every link carries two flows: all get 1/2.
        let mut n = Network::new();
        let l: Vec<ResId> = (0..3).map(|_| n.add_resource(1.0)).collect();
        let long = n.start(0, &l, 10.0, f64::INFINITY, 0);
        let short: Vec<FlowId> = l
            .iter()
            .map(|&r| n.start(0, &[r], 10.0, f64::INFINITY, 1))
            .collect();
        n.flush(0);
        assert_eq!(n.flow(long).rate, 0.5);
        assert!(short.iter().all(|&f| n.flow(f).rate == 0.5));
        // Unequal links: A (10) carries f0, f1, f2; B (8) f0, f3; C (4)
        // f1, f3, f4. C fills first at 4/3 (f1, f3, f4); A's 10 − 4/3 goes
        // to f0 and f2 (13/3 each); B then has 8 − 4/3 − 13/3 = 7/3 spare.
        let mut n = Network::new();
        let (a, b, c) = (
            n.add_resource(10.0),
            n.add_resource(8.0),
            n.add_resource(4.0),
        );
        let f: Vec<FlowId> = [&[a, b][..], &[a, c], &[a], &[b, c], &[c]]
            .iter()
            .map(|p| n.start(0, p, 100.0, f64::INFINITY, 0))
            .collect();
        n.flush(0);
        let want = [13.0 / 3.0, 4.0 / 3.0, 13.0 / 3.0, 4.0 / 3.0, 4.0 / 3.0];
        for (k, &w) in want.iter().enumerate() {
            assert!(
                (n.flow(f[k]).rate - w).abs() < 1e-12,
                "f{k}: {}",
                n.flow(f[k]).rate
            );
        }
        assert!((n.resources[b as usize].load - (8.0 - 7.0 / 3.0)).abs() < 1e-12);
    }

    #[test]
    fn a_flow_cap_is_a_resource_of_its_own() {
        let mut n = Network::new();
        let d = n.add_resource(100.0);
        let a = n.start(0, &[d], 10.0, 10.0, 0);
        let b = n.start(0, &[d], 10.0, f64::INFINITY, 1);
        n.flush(0);
        assert_eq!((n.flow(a).rate, n.flow(b).rate), (10.0, 90.0));
        // Capped only: a flow with no resource.
        let c = n.start(0, &[], 5.0, 2.5, 2);
        n.flush(0);
        assert_eq!(n.flow(c).rate, 2.5);
        assert_eq!(n.flow(c).end, 2_000);
    }

    #[test]
    fn rates_rise_when_a_flow_ends_and_ends_round_up() {
        let mut n = Network::new();
        let d = n.add_resource(3.0);
        let a = n.start(0, &[d], 1.0, f64::INFINITY, 0);
        let b = n.start(0, &[d], 10.0, f64::INFINITY, 1);
        n.flush(0);
        // 1.5 MB/s each: a ends at 666.67 ms, rounded up to 667.
        assert_eq!(n.next_end(), Some((667, a)));
        n.stop(667, a);
        n.flush(667);
        assert_eq!(n.flow(b).rate, 3.0);
        // b moved 1.0005 MB by then; 8.9995 MB left at 3 MB/s.
        assert_eq!(n.flow(b).end, 667 + (8.9995f64 * 1000.0 / 3.0).ceil() as Ms);
        let ends = drain(&mut n);
        assert_eq!(ends.len(), 1);
    }

    #[test]
    fn a_cancelled_flow_reports_what_it_moved() {
        let mut n = Network::new();
        let d = n.add_resource(10.0);
        let a = n.start(0, &[d], 100.0, f64::INFINITY, 0);
        n.flush(0);
        assert!((n.stop(2_500, a) - 25.0).abs() < 1e-9);
        n.flush(2_500);
        assert_eq!(n.active_flows(), 0);
        assert_eq!(n.resources[d as usize].load, 0.0);
    }
}

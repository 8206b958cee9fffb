//! Disks and links, and the flows that share them.
//!
//! Every byte a job moves is a *flow* over *resources* (a node's disk, its
//! NIC up and down, a rack's uplink up and down, a datacenter's WAN link up
//! and down), each with a capacity in MB/s. At every instant the active
//! flows share capacities **max-min fairly**, computed by progressive
//! filling: all rates rise together; when a resource saturates, its flows
//! freeze at the level reached; the others go on rising. A flow may also
//! carry its own rate cap (`max_rate`, the per-transfer bandwidth of the
//! `fixed` model), which acts as a resource of its own.
//!
//! Rates change only when a flow starts or ends (or is cancelled), and then
//! only within the *component* of the change: the flows connected to it
//! through shared resources. Those are recomputed from scratch; every other
//! flow keeps its rate, as SimGrid's lazy max-min solver does. Each flow's
//! end is kept up to date in an indexed min-heap on (end ms, flow id), the
//! end being the instant its last byte arrives, rounded up to the
//! millisecond.
//!
//! Determinism: flows and resources are indexed by dense ids; the solver
//! visits them in a fixed order (resources by id within a level, ties by
//! id) and never iterates a hash map.

use crate::model::Ms;

pub type FlowId = u32;
pub type ResId = u32;

/// No resource (a flow frozen by its own cap).
const NO_RES: ResId = ResId::MAX;

/// Rates equal but for rounding (relative 1e-12).
fn same_rate(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-12 * a.abs().max(b.abs()).max(1.0)
}

/// The most resources a flow crosses: a pipeline write through three nodes
/// in three racks of two datacenters stays well under this.
pub const MAX_PATH: usize = 24;

#[derive(Clone, Debug)]
pub struct Resource {
    pub capacity: f64,
    /// Sum of the rates of the flows crossing it.
    pub load: f64,
    /// Flows crossing it (unordered; positions kept in the flows).
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
    base: f64,
    open: u32,
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
            base: 0.0,
            open: 0,
        }
    }

    /// Brings the utilisation integral up to `now`.
    fn integrate(&mut self, now: Ms) {
        if now > self.last {
            self.area += self.load * (now - self.last) as f64 / 1000.0;
            self.last = now;
        }
    }

    /// Active flows crossing it.
    pub fn flow_count(&self) -> usize {
        self.flows.len()
    }
}

#[derive(Clone, Debug)]
pub struct Flow {
    path: [ResId; MAX_PATH],
    /// Position of this flow in each path resource's `flows`.
    pos: [u32; MAX_PATH],
    len: u8,
    pub max_rate: f64,
    /// MB requested, MB still to move (as of `last`), current MB/s.
    pub bytes: f64,
    pub remaining: f64,
    pub rate: f64,
    last: Ms,
    pub start: Ms,
    /// When the last byte arrives at the current rate (`Ms::MAX` at rate 0).
    pub end: Ms,
    /// Whoever started it (the engine's attempt and role).
    pub tag: u64,
    active: bool,
    heap_pos: u32,
    /// Solver scratch.
    stamp: u64,
    frozen: bool,
    froze_at: ResId,
}

impl Flow {
    pub fn path(&self) -> &[ResId] {
        &self.path[..self.len as usize]
    }
}

/// The resources, the active flows, and the solver's scratch space.
#[derive(Clone, Debug, Default)]
pub struct Network {
    pub resources: Vec<Resource>,
    pub flows: Vec<Flow>,
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
    /// Solves run and the flows and resources they covered (the cost of
    /// keeping rates max-min fair).
    pub solves: u64,
    pub solved_flows: u64,
    pub solved_resources: u64,
    /// Flows whose rate a solve changed, in all.
    pub rate_changes: u64,
    /// Iterations of the solves (S grown and solved again).
    pub solve_rounds: u64,
    /// Flows whose rate changed in the last start or stop.
    pub changed: Vec<FlowId>,
    active: usize,
}

/// A candidate saturation level of a resource (or of a flow's own cap):
/// ordered by level, then by which (resources before caps), then id.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Level(f64, u8, u32);

impl Eq for Level {}

impl PartialOrd for Level {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}

impl Ord for Level {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        self.0
            .total_cmp(&o.0)
            .then(self.1.cmp(&o.1))
            .then(self.2.cmp(&o.2))
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
        debug_assert!(self.resources[r as usize].flows.is_empty(), "a resource in use");
        self.free_res.push(r);
    }

    pub fn active_flows(&self) -> usize {
        self.active
    }

    pub fn flow(&self, f: FlowId) -> &Flow {
        &self.flows[f as usize]
    }

    /// The flows under way, by id.
    pub fn active_ids(&self) -> impl Iterator<Item = FlowId> + '_ {
        self.flows
            .iter()
            .enumerate()
            .filter(|(_, f)| f.active)
            .map(|(i, _)| i as FlowId)
    }

    /// Bytes flow `f` has moved by `now`.
    pub fn moved(&self, f: FlowId, now: Ms) -> f64 {
        let fl = &self.flows[f as usize];
        let done = fl.bytes - fl.remaining;
        let dt = now.saturating_sub(fl.last) as f64 / 1000.0;
        (done + fl.rate * dt).min(fl.bytes)
    }

    /// Starts a flow of `bytes` MB over `path` at `now`, capped at
    /// `max_rate` MB/s (`f64::INFINITY` for none). It moves nothing until
    /// the next [`Network::flush`] gives it (and whoever it affects) a rate.
    pub fn start(&mut self, now: Ms, path: &[ResId], bytes: f64, max_rate: f64, tag: u64) -> FlowId {
        assert!(path.len() <= MAX_PATH, "a flow's path is at most {MAX_PATH} resources");
        assert!(
            !path.is_empty() || max_rate.is_finite(),
            "a flow needs a resource or a rate cap"
        );
        let id = match self.free.pop() {
            Some(id) => id,
            None => {
                self.flows.push(Flow {
                    path: [0; MAX_PATH],
                    pos: [0; MAX_PATH],
                    len: 0,
                    max_rate: 0.0,
                    bytes: 0.0,
                    remaining: 0.0,
                    rate: 0.0,
                    last: 0,
                    start: 0,
                    end: Ms::MAX,
                    tag: 0,
                    active: false,
                    heap_pos: u32::MAX,
                    stamp: 0,
                    frozen: false,
                    froze_at: NO_RES,
                });
                (self.flows.len() - 1) as FlowId
            }
        };
        {
            let fl = &mut self.flows[id as usize];
            fl.len = path.len() as u8;
            fl.path[..path.len()].copy_from_slice(path);
            fl.max_rate = max_rate;
            fl.bytes = bytes.max(0.0);
            fl.remaining = fl.bytes;
            fl.rate = 0.0;
            fl.last = now;
            fl.start = now;
            fl.end = Ms::MAX;
            fl.tag = tag;
            fl.active = true;
            fl.stamp = 0;
            fl.frozen = false;
        }
        for (i, &r) in path.iter().enumerate() {
            let res = &mut self.resources[r as usize];
            self.flows[id as usize].pos[i] = res.flows.len() as u32;
            res.flows.push(id);
        }
        self.active += 1;
        self.heap_push(id);
        self.seeds.extend_from_slice(path);
        if path.is_empty() {
            self.seed_flows.push(id);
        }
        id
    }

    /// Ends flow `f` at `now` (its last byte arrived, or it was cancelled):
    /// its share is free for the others from the next flush. Returns the MB
    /// it moved.
    pub fn stop(&mut self, now: Ms, f: FlowId) -> f64 {
        let moved = self.moved(f, now);
        self.set_rate(now, f, 0.0);
        let fl = &mut self.flows[f as usize];
        fl.active = false;
        fl.remaining = fl.bytes - moved;
        let len = fl.len as usize;
        let path = fl.path;
        let pos = fl.pos;
        for i in 0..len {
            let r = path[i] as usize;
            let p = pos[i] as usize;
            let res = &mut self.resources[r];
            res.flows.swap_remove(p);
            if let Some(&moved_flow) = res.flows.get(p) {
                // Fix the position of the flow that took this slot.
                let mf = &mut self.flows[moved_flow as usize];
                let k = mf.path[..mf.len as usize]
                    .iter()
                    .position(|&x| x as usize == r)
                    .expect("a flow lists the resources it is on");
                mf.pos[k] = p as u32;
            }
        }
        self.heap_remove(f);
        self.active -= 1;
        self.free.push(f);
        self.seeds.extend_from_slice(&path[..len]);
        moved
    }

    /// The next flow to end: (end ms, flow).
    pub fn next_end(&self) -> Option<(Ms, FlowId)> {
        self.heap.first().map(|&f| (self.flows[f as usize].end, f))
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
        let fl = &mut self.flows[f as usize];
        let dt = now.saturating_sub(fl.last) as f64 / 1000.0;
        fl.remaining = (fl.remaining - fl.rate * dt).max(0.0);
        fl.last = now;
        let old = fl.rate;
        if old == rate {
            return;
        }
        fl.rate = rate;
        fl.end = if fl.remaining <= 0.0 {
            now
        } else if rate > 0.0 {
            let ms = (fl.remaining * 1000.0 / rate).ceil();
            now.saturating_add(if ms >= 1e18 { Ms::MAX / 2 } else { ms as Ms })
        } else {
            Ms::MAX
        };
        let len = fl.len as usize;
        let path = fl.path;
        for &r in &path[..len] {
            let res = &mut self.resources[r as usize];
            res.integrate(now);
            res.load += rate - old;
            let u = res.load / res.capacity;
            if u > res.peak {
                res.peak = u;
            }
        }
        if self.flows[f as usize].active {
            self.heap_fix(f);
        }
        self.changed.push(f);
    }

    /// Recomputes the rates that the changes since the last flush can
    /// affect (see the module doc). Call before time moves on; `next_end`
    /// is only right after a flush.
    pub fn flush(&mut self, now: Ms) {
        self.changed.clear();
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
    /// possible. The set S of resources to re-solve starts as the changed
    /// flows' paths; the flows crossing S are re-solved with every other
    /// flow's rate fixed (the other resources they cross, the boundary,
    /// keep what those flows use). A boundary resource saturated before or
    /// after joins S, and the solve repeats; when none is, every re-solved
    /// flow has its bottleneck in S (where all flows were re-solved) and
    /// every other flow keeps a bottleneck no re-solved flow touches: the
    /// whole allocation is max-min fair.
    fn solve(&mut self, now: Ms) {
        let set = self.bump_stamp();
        self.in_s.clear();
        for i in 0..self.seeds.len() {
            let r = self.seeds[i];
            if self.resources[r as usize].in_set != set {
                self.resources[r as usize].in_set = set;
                self.in_s.push(r);
            }
        }
        loop {
            let st = self.bump_stamp();
            self.comp_flows.clear();
            self.comp_res.clear();
            // The flows crossing S (and flows with no resource, by cap).
            for i in 0..self.seed_flows.len() {
                let f = self.seed_flows[i];
                let fl = &mut self.flows[f as usize];
                if fl.active && fl.stamp != st {
                    fl.stamp = st;
                    self.comp_flows.push(f);
                }
            }
            for i in 0..self.in_s.len() {
                let r = self.in_s[i] as usize;
                self.resources[r].stamp = st;
                self.comp_res.push(r as ResId);
                for k in 0..self.resources[r].flows.len() {
                    let f = self.resources[r].flows[k];
                    if self.flows[f as usize].stamp != st {
                        self.flows[f as usize].stamp = st;
                        self.comp_flows.push(f);
                    }
                }
            }
            // The boundary: other resources those flows cross. Its base is
            // what flows outside the solve use there.
            let n_s = self.comp_res.len();
            for i in 0..self.comp_flows.len() {
                let f = self.comp_flows[i] as usize;
                for k in 0..self.flows[f].len as usize {
                    let r = self.flows[f].path[k] as usize;
                    if self.resources[r].stamp != st {
                        self.resources[r].stamp = st;
                        self.comp_res.push(r as ResId);
                    }
                }
            }
            for i in 0..self.comp_res.len() {
                let r = self.comp_res[i] as usize;
                let res = &mut self.resources[r];
                res.open = 0;
                res.frozen_sum = if i < n_s { 0.0 } else { res.load };
            }
            for i in 0..self.comp_flows.len() {
                let f = self.comp_flows[i] as usize;
                let rate = self.flows[f].rate;
                for k in 0..self.flows[f].len as usize {
                    let r = self.flows[f].path[k] as usize;
                    let res = &mut self.resources[r];
                    res.open += 1;
                    if res.in_set != set {
                        res.frozen_sum -= rate;
                    }
                }
            }
            for i in n_s..self.comp_res.len() {
                let r = self.comp_res[i] as usize;
                let res = &mut self.resources[r];
                // What the flows outside use: never below 0 in floating point.
                res.base = res.frozen_sum.max(0.0);
                res.frozen_sum = res.base;
            }
            self.fill();
            self.solve_rounds += 1;
            // A boundary resource joins S when the re-solved flows touch it
            // (one froze there, or one crossing it changed rate) and it was
            // saturated before or is after: the flows outside may then
            // have to move too.
            let touch = self.bump_stamp();
            for k in 0..self.rates.len() {
                let (f, rate) = self.rates[k];
                let fl = &self.flows[f as usize];
                if fl.froze_at != NO_RES {
                    self.resources[fl.froze_at as usize].touched = touch;
                }
                if !same_rate(fl.rate, rate) {
                    for i in 0..fl.len as usize {
                        let r = fl.path[i] as usize;
                        self.resources[r].touched = touch;
                    }
                }
            }
            let mut grew = false;
            for i in n_s..self.comp_res.len() {
                let r = self.comp_res[i] as usize;
                let res = &self.resources[r];
                if res.touched != touch {
                    continue;
                }
                let tight = res.capacity * (1.0 - 1e-9);
                let before = res.load >= tight;
                let after = res.frozen_sum >= tight;
                if before || after {
                    self.resources[r].in_set = set;
                    self.in_s.push(r as ResId);
                    grew = true;
                }
            }
            if !grew {
                break;
            }
        }
        self.solves += 1;
        self.solved_flows += self.comp_flows.len() as u64;
        self.solved_resources += self.comp_res.len() as u64;
        let rates = std::mem::take(&mut self.rates);
        for &(f, rate) in &rates {
            // A rate the re-solve only moved by rounding keeps its value,
            // so that solving the same flows again changes nothing.
            if !same_rate(self.flows[f as usize].rate, rate) {
                self.rate_changes += 1;
                self.set_rate(now, f, rate);
            }
        }
        self.rates = rates;
    }

    /// Progressive filling over `comp_flows`, their resources' capacities
    /// less each resource's `frozen_sum` (its base). New rates go to
    /// `rates`, in the order flows freeze; `frozen_sum` ends as each
    /// resource's new load.
    fn fill(&mut self) {
        self.levels.clear();
        for i in 0..self.comp_res.len() {
            let r = self.comp_res[i] as usize;
            let res = &self.resources[r];
            if res.open > 0 {
                let lvl = (res.capacity - res.frozen_sum) / res.open as f64;
                self.levels.push(std::cmp::Reverse(Level(lvl, 0, r as u32)));
            }
        }
        for i in 0..self.comp_flows.len() {
            let f = self.comp_flows[i] as usize;
            self.flows[f].frozen = false;
            if self.flows[f].max_rate.is_finite() {
                let m = self.flows[f].max_rate;
                self.levels.push(std::cmp::Reverse(Level(m, 1, f as u32)));
            }
        }
        let mut left = self.comp_flows.len();
        let mut rates = std::mem::take(&mut self.rates);
        rates.clear();
        while left > 0 {
            let Some(std::cmp::Reverse(Level(lvl, which, id))) = self.levels.pop() else {
                break;
            };
            if which == 1 {
                // A flow's own cap.
                if !self.flows[id as usize].frozen {
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
                self.levels.push(std::cmp::Reverse(Level(cur, 0, r as u32)));
                continue;
            }
            let level = cur.max(0.0);
            // Freeze every open flow of this resource at `level`.
            let n = self.resources[r].flows.len();
            for k in 0..n {
                let f = self.resources[r].flows[k];
                let fl = &self.flows[f as usize];
                if fl.frozen || fl.stamp != self.stamp {
                    continue;
                }
                self.freeze(f, level, r as ResId, &mut rates);
                left -= 1;
            }
        }
        self.rates = rates;
    }

    /// Freezes flow `f` at `rate` (at resource `at`, or its own cap):
    /// its resources' open counts drop.
    fn freeze(&mut self, f: FlowId, rate: f64, at: ResId, rates: &mut Vec<(FlowId, f64)>) {
        let fl = &mut self.flows[f as usize];
        fl.frozen = true;
        fl.froze_at = at;
        rates.push((f, rate));
        let len = fl.len as usize;
        let path = fl.path;
        for &r in &path[..len] {
            let res = &mut self.resources[r as usize];
            res.frozen_sum += rate;
            res.open -= 1;
        }
    }

    // Indexed min-heap on (end, id).

    fn key(&self, f: FlowId) -> (Ms, FlowId) {
        (self.flows[f as usize].end, f)
    }

    fn heap_push(&mut self, f: FlowId) {
        self.flows[f as usize].heap_pos = self.heap.len() as u32;
        self.heap.push(f);
        self.sift_up(self.heap.len() - 1);
    }

    fn heap_remove(&mut self, f: FlowId) {
        let i = self.flows[f as usize].heap_pos as usize;
        let last = self.heap.len() - 1;
        self.heap.swap(i, last);
        self.flows[self.heap[i] as usize].heap_pos = i as u32;
        self.heap.pop();
        self.flows[f as usize].heap_pos = u32::MAX;
        if i < self.heap.len() {
            self.sift_up(i);
            self.sift_down(i);
        }
    }

    fn heap_fix(&mut self, f: FlowId) {
        let i = self.flows[f as usize].heap_pos as usize;
        self.sift_up(i);
        let i = self.flows[f as usize].heap_pos as usize;
        self.sift_down(i);
    }

    fn sift_up(&mut self, mut i: usize) {
        while i > 0 {
            let p = (i - 1) / 2;
            if self.key(self.heap[i]) < self.key(self.heap[p]) {
                self.heap.swap(i, p);
                self.flows[self.heap[i] as usize].heap_pos = i as u32;
                self.flows[self.heap[p] as usize].heap_pos = p as u32;
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
            self.flows[self.heap[i] as usize].heap_pos = i as u32;
            self.flows[self.heap[m] as usize].heap_pos = m as u32;
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

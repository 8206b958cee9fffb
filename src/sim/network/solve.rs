//! The max-min solve: progressive filling over the flows a change can
//! affect, growing that set only where a flow's max-min certificate breaks.

use super::*;

/// Fills over fewer resources than this skip none (see `fill_levels`).
const SLACK_MIN: usize = 32;
/// Where no flow froze and the load is at most this share of the
/// capacity, a resource gets no level in the fill.
const SLACK_LOAD: f64 = 0.9;

/// A candidate saturation level of a resource (or of a flow's own cap),
/// packed into one integer so that the solver's heap compares integers:
/// ordered by level (as `f64::total_cmp` orders them), then by which
/// (resources, 0, before caps, 1), then id.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct Level(u128);

impl Level {
    pub(super) fn new(level: f64, which: u8, id: u32) -> Level {
        // `total_cmp`'s order as unsigned integers: flip every bit of a
        // negative number, only the sign bit of a positive one.
        let b = level.to_bits();
        let key = if b >> 63 == 1 { !b } else { b | 1 << 63 };
        Level((key as u128) << 64 | (which as u128) << 32 | id as u128)
    }

    pub(super) fn level(self) -> f64 {
        let key = (self.0 >> 64) as u64;
        f64::from_bits(if key >> 63 == 1 {
            key & !(1 << 63)
        } else {
            !key
        })
    }

    pub(super) fn which(self) -> u8 {
        (self.0 >> 32) as u8
    }

    pub(super) fn id(self) -> u32 {
        self.0 as u32
    }
}

impl Network {
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
    ///
    /// With `limit` > 0 (the `coarse` model, see [`super::Coarse`]) S
    /// starts with the resources where the change surely breaks a
    /// certificate and the solve stops after `limit` rounds: the touched
    /// resources where a certificate may still break wait for an exact
    /// solve; every rate set is feasible (the re-solved flows only share
    /// what the others leave). Returns whether such a cut solve left a
    /// re-solved flow at rate 0.
    pub(super) fn solve(&mut self, now: f64, limit: u32) -> bool {
        let set = self.bump_stamp();
        self.in_s.clear();
        // `coarse`: of the flows crossing S, only those bottlenecked there
        // and those above the level a started flow brings are re-solved;
        // the others keep their rates (they are limited elsewhere), as on
        // the boundary, and S waits for an exact solve in case one of them
        // should have moved.
        let narrow = limit > 0;
        if limit > 0 {
            self.seed_sure_breaks(set, now);
            for i in 0..self.in_s.len() {
                self.mark_pending(self.in_s[i]);
            }
        }
        let mut rounds = 0;
        let mut cut = false;
        let filled_before = self.round_flows;
        // A round re-solves the flows of the round before and those the
        // resources S gained bring: its set-up only adds theirs (S and the
        // flows only grow within a solve), and each round's fill starts
        // again from what every round's set-up left (`base`, `row`).
        let st = self.bump_stamp();
        self.comp_flows.clear();
        self.comp_res.clear();
        self.by_flow.clear();
        self.by_seed.clear();
        let (mut s_done, mut walked) = (0, 0);
        // The started flows first.
        for i in 0..self.seed_flows.len() {
            let f = self.seed_flows[i] as usize;
            if self.cold[f].active && self.hot[f].stamp != st {
                self.hot[f].stamp = st;
                self.comp_flows.push(f as FlowId);
            }
        }
        loop {
            rounds += 1;
            // The flows crossing the resources S gained.
            for i in s_done..self.in_s.len() {
                let r = self.in_s[i] as usize;
                let res = &mut self.resources[r];
                if res.stamp != st {
                    res.stamp = st;
                    res.row.clear();
                    self.comp_res.push(r as ResId);
                }
                // (A boundary resource that joins S keeps its row: the
                // flows re-solved that cross it still do. What flows
                // outside use here is now nothing, or under `coarse`
                // what every flow crossing it uses, re-solved or not.)
                res.base = if narrow {
                    let mut b = res.load.min(res.capacity);
                    for &f in res.row.iter() {
                        b -= self.hot[f as usize].rate;
                    }
                    b
                } else {
                    0.0
                };
                for k in 0..self.resources[r].flows.len() {
                    let f = self.resources[r].flows[k] as usize;
                    if narrow
                        && self.hot[f].froze_at as usize != r
                        && self.hot[f].rate < self.resources[r].cut
                    {
                        continue;
                    }
                    if self.hot[f].stamp != st {
                        self.hot[f].stamp = st;
                        self.comp_flows.push(f as FlowId);
                    }
                }
            }
            s_done = self.in_s.len();
            // The boundary: other resources the new flows cross, where
            // what the flows outside use is fixed (their load, less the
            // rates of the flows re-solved); and each resource's row.
            for i in walked..self.comp_flows.len() {
                let f = self.comp_flows[i];
                let rate = self.hot[f as usize].rate;
                let o = f as usize * MAX_PATH;
                for k in 0..self.hot[f as usize].len as usize {
                    let r = self.paths[o + k] as usize;
                    self.join_boundary(r, st);
                    let res = &mut self.resources[r];
                    if res.by_seed {
                        // Joined through an ended flow alone: a re-solved
                        // flow crosses it now, and it is met as that one's.
                        res.by_seed = false;
                        self.by_flow.push(r as ResId);
                    }
                    res.row.push(f);
                    if narrow || res.in_set != set {
                        res.base -= rate;
                    }
                }
            }
            walked = self.comp_flows.len();
            if rounds == 1 {
                // And the resources ended flows left, where flows outside
                // may now rise.
                for i in 0..self.seeds.len() {
                    let r = self.seeds[i] as usize;
                    if self.resources[r].stamp != st {
                        self.join_boundary(r, st);
                        // Met through no re-solved flow: listed apart.
                        self.by_flow.pop();
                        self.resources[r].by_seed = true;
                        self.by_seed.push(r as ResId);
                    }
                }
            }
            // The fill marks the resources the re-solved flows touch: where
            // one froze, and every resource of one whose rate changed.
            self.fill();
            self.solve_rounds += 1;
            self.round_flows += self.comp_flows.len() as u64;
            // And those an ended flow left.
            let touch = self.touch;
            for i in 0..self.seeds.len() {
                self.resources[self.seeds[i] as usize].touched = touch;
            }
            let mut grew = false;
            let last = limit > 0 && rounds >= limit;
            // In the order a solve from scratch would meet them: through
            // the re-solved flows, in their order, then through ended flows.
            let (n_flow, n_seed) = (self.by_flow.len(), self.by_seed.len());
            for i in 0..n_flow + n_seed {
                let r = if i < n_flow {
                    self.by_flow[i] as usize
                } else {
                    self.by_seed[i - n_flow] as usize
                };
                let res = &self.resources[r];
                if res.in_set == set || (i >= n_flow && !res.by_seed) {
                    continue;
                }
                if res.touched != touch {
                    continue;
                }
                if last {
                    // A cut solve does not walk the resource's flows to
                    // see whether a certificate broke: it leaves every
                    // touched one where a flow is bottlenecked to the
                    // exact re-solve, which checks each once however many
                    // cut solves touched it since the last (where none
                    // is, no certificate can break).
                    if res.bottlenecked > 0 {
                        cut = true;
                        self.mark_pending(r as ResId);
                    }
                    continue;
                }
                if !self.certificate_breaks(r, st) {
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
        if cut {
            self.cut_solves += 1;
        }
        let b = &mut self.by_rounds[(rounds as usize).min(ROUND_BUCKETS) - 1];
        b.0 += 1;
        b.1 += self.round_flows - filled_before;
        if let Some(c) = self.coarse.as_mut() {
            for &r in &c.allowed {
                self.resources[r as usize].allow = 0.0;
            }
            c.allowed.clear();
        }
        self.solves += 1;
        self.solved_flows += self.comp_flows.len() as u64;
        self.solved_resources += self.comp_res.len() as u64;
        // Lower rates first, so no resource is ever over its capacity on
        // the way (the peak utilisation sees every intermediate load).
        let rates = std::mem::take(&mut self.rates);
        // The bottlenecks whose level moved are counted as their flows'
        // rates change: what any exact solver must update, even one that
        // keeps a rate per bottleneck, not per flow.
        let moved = self.bump_stamp();
        for pass in [true, false] {
            for &(f, rate) in &rates {
                let old = self.hot[f as usize].rate;
                // A rate the re-solve only moved by rounding keeps its
                // value, so that solving the same flows again changes
                // nothing.
                if (rate < old) == pass && !same_rate(old, rate) {
                    self.rate_changes += 1;
                    let at = self.hot[f as usize].froze_at;
                    if at == NO_RES {
                        self.levels_changed += 1;
                    } else {
                        let res = &mut self.resources[at as usize];
                        res.changes += 1;
                        if res.touched != moved {
                            res.touched = moved;
                            res.moves += 1;
                            self.levels_changed += 1;
                        }
                    }
                    self.set_rate(now, f, rate);
                }
            }
        }
        let zero = cut && rates.iter().any(|&(_, r)| r <= 0.0);
        self.rates = rates;
        zero
    }

    /// Puts in S, before the first round, the resources where the change
    /// surely breaks a certificate: those a flow ended on while flows were
    /// bottlenecked there, and the full ones a started flow crosses. The
    /// exact solve finds them in its first round; a solve limited to a
    /// round or two (`coarse`) spends its rounds beyond them instead.
    fn seed_sure_breaks(&mut self, set: u64, now: f64) {
        for i in 0..self.seeds.len() {
            let r = self.seeds[i] as usize;
            let res = &mut self.resources[r];
            if res.bottlenecked > 0 && res.in_set != set {
                // Freed capacity: only the flows bottlenecked here rise.
                res.in_set = set;
                res.cut = f64::INFINITY;
                self.in_s.push(r as ResId);
                self.settled(r);
            }
        }
        for i in 0..self.seed_flows.len() {
            let f = self.seed_flows[i] as usize;
            if !self.cold[f].active {
                continue;
            }
            let o = f * MAX_PATH;
            for k in 0..self.hot[f].len as usize {
                let r = self.paths[o + k] as usize;
                let res = &self.resources[r];
                // The started flow's equal share here (it is among `flows`).
                let share = res.capacity / res.flows.len() as f64;
                let full = res.load >= res.capacity * (1.0 - 1e-9);
                if !full && res.load <= res.capacity - share {
                    // Room enough: the start fills nothing here.
                    continue;
                }
                let level = res.level.max(share);
                // A started flow lowers the level here to about this: the
                // flows above it come down too, wherever they froze. (Where
                // the start only fills the resource, to its share.)
                let nb = res.bottlenecked as f64;
                let lower = if full {
                    level * nb / (nb + 1.0) * (1.0 - 1e-6)
                } else {
                    share * (1.0 - 1e-6)
                };
                if res.in_set == set {
                    let res = &mut self.resources[r];
                    res.cut = res.cut.min(lower);
                    continue;
                }
                if self.may_lag(r as ResId, level) {
                    // A crowded resource: the started flow may take the
                    // level there at once; the others give it back when
                    // the resource is next re-solved.
                    self.add_lag(now.ceil() as Ms, r as ResId, level);
                    self.resources[r].allow += level;
                    if let Some(c) = self.coarse.as_mut() {
                        c.allowed.push(r as ResId);
                    }
                    continue;
                }
                let res = &mut self.resources[r];
                res.in_set = set;
                res.cut = lower;
                self.in_s.push(r as ResId);
                self.settled(r);
            }
        }
    }

    /// Adds resource `r` to the solve stamped `st` as a boundary resource,
    /// unless it is in it already: no flow in its row yet, and what the
    /// flows crossing it use (their rates are taken off as they join).
    #[inline]
    fn join_boundary(&mut self, r: usize, st: u64) {
        let res = &mut self.resources[r];
        if res.stamp != st {
            res.stamp = st;
            res.row.clear();
            res.by_seed = false;
            // A resource over capacity (`coarse` lets a started flow take
            // a share at a crowded one before the others give it back)
            // counts as full, not more: the flows re-solved keep what
            // they had there.
            res.base = res.load.min(res.capacity) - res.allow;
            self.comp_res.push(r as ResId);
            self.by_flow.push(r as ResId);
        }
    }

    /// Whether boundary resource `r`, after a fill over the flows stamped
    /// `st` (the others' rates fixed), breaks a flow's max-min certificate
    /// (a full resource on which no flow has a higher rate): a re-solved
    /// flow that froze at `r` while a flow outside has a higher rate there,
    /// or a flow outside whose bottleneck is `r` while `r` is no longer
    /// full or a re-solved flow now has a higher rate there. When no
    /// boundary resource does, every flow holds a certificate and the
    /// allocation is max-min fair (it is unique), so `S` need not grow.
    pub(super) fn certificate_breaks(&self, r: usize, st: u64) -> bool {
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
            // `frozen_sum` ends the fill as the resource's new load. (An
            // outside flow above one bottlenecked here never happens after
            // exact solves; after a `coarse` one-round solve it may.)
            let full = res.frozen_sum >= res.capacity * (1.0 - 1e-9);
            let above = max_in.max(max_out);
            if !full || above > bottlenecked + tol(bottlenecked) {
                return true;
            }
        }
        false
    }

    /// Progressive filling over `comp_flows`, their resources' capacities
    /// less each resource's `base` (what flows outside use there), each
    /// resource's `row` its flows among them. New rates go to `rates`, in
    /// the order flows freeze; `frozen_sum` ends as each resource's new
    /// load.
    pub(super) fn fill(&mut self) {
        if self.full_fills || self.comp_res.len() < SLACK_MIN || !self.fill_levels(true) {
            self.fill_levels(false);
        }
        if self.coarse.is_some() {
            // `coarse` keeps the level its flows froze at in each
            // resource, written from the fill that stood (the last flow
            // frozen there sets it, as they froze in `rates`' order).
            for &(f, rate) in &self.rates {
                let at = self.hot[f as usize].froze_at;
                if at != NO_RES {
                    self.resources[at as usize].level = rate;
                }
            }
        }
    }

    /// The filling itself. With `skip_slack`, resources far from full
    /// where no flow froze (most NICs and disks a shuffle's flows cross
    /// on their way to a crowded rack link) get no level: they update
    /// their load as flows freeze but are never popped. That gives the
    /// same rates, to the bit, as long as none of them would have frozen
    /// a flow, which is when none ends full: the levels popped are the
    /// same ones in the same order. Returns false, rates unset, when one
    /// ends full or a flow crosses only skipped resources: the fill is to
    /// be run again without skipping.
    fn fill_levels(&mut self, skip_slack: bool) -> bool {
        // Marks from a fill run before this one are left behind.
        self.touch = self.bump_stamp();
        // The first levels in one heapify rather than one push each.
        let mut init = std::mem::take(&mut self.levels).into_vec();
        init.clear();
        self.skipped.clear();
        for i in 0..self.comp_res.len() {
            let r = self.comp_res[i] as usize;
            let res = &mut self.resources[r];
            // What the flows outside use: never below 0 in floating point.
            res.frozen_sum = res.base.max(0.0);
            res.open = res.row.len() as u32;
            if res.open > 0 {
                if skip_slack && res.bottlenecked == 0 && res.load <= SLACK_LOAD * res.capacity {
                    self.skipped.push(r as ResId);
                    continue;
                }
                let lvl = (res.capacity - res.frozen_sum) / res.open as f64;
                init.push(std::cmp::Reverse(Level::new(lvl, 0, r as u32)));
            }
        }
        for i in 0..self.comp_flows.len() {
            let f = self.comp_flows[i] as usize;
            self.unfreeze(f as FlowId);
            if self.hot[f].max_rate.is_finite() {
                let m = self.hot[f].max_rate;
                init.push(std::cmp::Reverse(Level::new(m, 1, f as u32)));
            }
        }
        self.levels = std::collections::BinaryHeap::from(init);
        let mut left = self.comp_flows.len();
        let mut rates = std::mem::take(&mut self.rates);
        rates.clear();
        while left > 0 {
            let Some(mut entry) = self.levels.peek_mut() else {
                break;
            };
            let top = entry.0;
            let (lvl, which, id) = (top.level(), top.which(), top.id());
            if which == 1 {
                // A flow's own cap.
                std::collections::binary_heap::PeekMut::pop(entry);
                if !self.hot[id as usize].frozen {
                    self.freeze(id, lvl, NO_RES, &mut rates);
                    left -= 1;
                }
                continue;
            }
            let r = id as usize;
            let res = &self.resources[r];
            if res.open == 0 {
                std::collections::binary_heap::PeekMut::pop(entry);
                continue;
            }
            // Levels only rise as flows freeze elsewhere: a stale entry is
            // put back at its current level, in place (one sift where a
            // pop and a push take two; the entries, all distinct, pop in
            // the same order).
            let cur = (res.capacity - res.frozen_sum) / res.open as f64;
            if cur.total_cmp(&lvl) == std::cmp::Ordering::Greater {
                *entry = std::cmp::Reverse(Level::new(cur, 0, r as u32));
                continue;
            }
            std::collections::binary_heap::PeekMut::pop(entry);
            let level = cur.max(0.0);
            // Freeze every open flow of this resource at `level`, the
            // newest to join first.
            for k in (0..self.resources[r].row.len()).rev() {
                let f = self.resources[r].row[k];
                if self.hot[f as usize].frozen {
                    continue;
                }
                self.freeze(f, level, r as ResId, &mut rates);
                left -= 1;
            }
        }
        self.rates = rates;
        if !skip_slack {
            return true;
        }
        self.slack_fills += 1;
        let ok = left == 0
            && self.skipped.iter().all(|&r| {
                let res = &self.resources[r as usize];
                res.frozen_sum < res.capacity * (1.0 - 1e-9)
            });
        if !ok {
            self.slack_refills += 1;
        }
        ok
    }

    /// Forgets where flow `f` froze (it is being solved again, or ends).
    pub(super) fn unfreeze(&mut self, f: FlowId) {
        let h = &mut self.hot[f as usize];
        h.frozen = false;
        let at = std::mem::replace(&mut h.froze_at, NO_RES);
        if at != NO_RES {
            self.resources[at as usize].bottlenecked -= 1;
        }
    }

    /// Freezes flow `f` at `rate` (at resource `at`, or its own cap):
    /// its resources' open counts drop. Marks the resources it touches
    /// (`touch`): `at`, and every resource of its path if its rate
    /// changes.
    pub(super) fn freeze(
        &mut self,
        f: FlowId,
        rate: f64,
        at: ResId,
        rates: &mut Vec<(FlowId, f64)>,
    ) {
        let i = f as usize;
        let h = &mut self.hot[i];
        h.frozen = true;
        h.froze_at = at;
        h.next = rate;
        let len = h.len as usize;
        let changed = !same_rate(h.rate, rate);
        let touch = self.touch;
        if at != NO_RES {
            let res = &mut self.resources[at as usize];
            res.bottlenecked += 1;
            res.touched = touch;
        }
        rates.push((f, rate));
        let o = i * MAX_PATH;
        for k in 0..len {
            let res = &mut self.resources[self.paths[o + k] as usize];
            res.frozen_sum += rate;
            res.open -= 1;
            if changed {
                res.touched = touch;
            }
        }
    }
}

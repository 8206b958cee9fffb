//! The `coarse` model: the exact solve's work cut where it is largest,
//! every rate kept feasible or within a bounded overload, and exactness
//! restored at short intervals. Its error against `shared` is measured,
//! not assumed (docs/performance.md).
//!
//! Where the exact solve spends its time (docs/performance.md): cascades,
//! round after round, along chains of full disks and links; and the
//! hundreds of flows of a crowded rack link, every one of which a single
//! start or end there moves by a fraction of a percent. So:
//!
//! - **One round.** A solve re-solves, at the resources where the change
//!   surely breaks a max-min certificate (a resource a started flow fills or
//!   finds full; a resource an ended flow leaves with flows bottlenecked
//!   there), the flows bottlenecked there and those above the level the
//!   start brings, every other flow's rate fixed. The rates it sets are
//!   feasible: re-solved flows only share what the others leave. Where it
//!   leaves a certificate possibly broken (those resources, and the
//!   boundary resources whose flows it touched), the resource waits, and at
//!   most [`Coarse::resync_ms`] later an exact solve from all of them makes
//!   the allocation max-min again.
//! - **Lazy crowded resources.** At a resource where at least
//!   [`Coarse::crowd`] flows are bottlenecked, an ended flow's share stays
//!   unused, and a started flow takes the level of the flows there at once
//!   (they give it back later), until the changes add up to
//!   [`Coarse::lag_share`] of its capacity or are [`Coarse::lag_ms`] old:
//!   then the resource is re-solved. A crowded link is never under or over
//!   its capacity by more than that share, for more than that time.

use super::*;

/// The `coarse` model's settings.
#[derive(Clone, Copy, Debug)]
pub struct Coarse {
    pub resync_ms: Ms,
    pub crowd: u32,
    pub lag_share: f64,
    pub lag_ms: Ms,
}

impl Default for Coarse {
    fn default() -> Self {
        Coarse {
            resync_ms: 1_000,
            crowd: 16,
            lag_share: 0.1,
            lag_ms: 1_000,
        }
    }
}

/// What the `coarse` model keeps between flushes.
#[derive(Clone, Debug)]
pub(super) struct State {
    cfg: Coarse,
    next_resync: Ms,
    /// Resources whose certificates a cut solve may have broken.
    pub(super) pending: Vec<ResId>,
    /// Crowded resources with changes not re-solved yet.
    lazy: Vec<ResId>,
    /// Resources where started flows were allowed a share in this solve.
    pub(super) allowed: Vec<ResId>,
}

impl State {
    pub(super) fn new(cfg: Coarse) -> State {
        State {
            cfg,
            next_resync: 0,
            pending: Vec::new(),
            lazy: Vec::new(),
            allowed: Vec::new(),
        }
    }

    pub(super) fn resync_due(&self, now: Ms) -> bool {
        !self.pending.is_empty() && now >= self.next_resync
    }
}

impl Network {
    fn state(&mut self) -> &mut State {
        self.coarse.as_mut().expect("the coarse model")
    }

    /// Whether a change of `delta` MB/s at `r` may wait (freed capacity
    /// left unused is negative, a share taken before the others give it
    /// back positive): `coarse`, `r` crowded, and its unsettled changes,
    /// which starts and ends largely cancel, small.
    pub(super) fn may_lag(&self, r: ResId, delta: f64) -> bool {
        let Some(c) = &self.coarse else { return false };
        let res = &self.resources[r as usize];
        res.bottlenecked >= c.cfg.crowd && (res.lag + delta).abs() <= c.cfg.lag_share * res.capacity
    }

    /// Records a change of `rate` at crowded resource `r`, left for later.
    pub(super) fn add_lag(&mut self, now: Ms, r: ResId, rate: f64) {
        let res = &mut self.resources[r as usize];
        res.lag += rate;
        if !res.lazy {
            res.lazy = true;
            res.lag_since = now;
            self.state().lazy.push(r);
        }
    }

    /// Resource `r` is being re-solved: nothing of it waits any more.
    pub(super) fn settled(&mut self, r: usize) {
        let res = &mut self.resources[r];
        res.lazy = false;
        res.lag = 0.0;
    }

    /// Resource `r` may have a broken certificate: the next exact solve
    /// starts from it.
    pub(super) fn mark_pending(&mut self, r: ResId) {
        if !self.resources[r as usize].pending {
            self.resources[r as usize].pending = true;
            self.state().pending.push(r);
        }
    }

    /// The crowded resources whose changes are `lag_ms` old are seeds of
    /// this flush.
    pub(super) fn due_lags(&mut self, now: Ms) {
        let c = self.coarse.as_mut().expect("the coarse model");
        let mut k = 0;
        while k < c.lazy.len() {
            let r = c.lazy[k] as usize;
            let res = &mut self.resources[r];
            if !res.lazy {
                c.lazy.swap_remove(k);
            } else if now >= res.lag_since.saturating_add(c.cfg.lag_ms) {
                res.lazy = false;
                res.lag = 0.0;
                self.seeds.push(r as ResId);
                c.lazy.swap_remove(k);
            } else {
                k += 1;
            }
        }
    }

    /// A flush under `coarse`: one round, or an exact solve when one is
    /// due (and when a round left a re-solved flow at rate 0, which would
    /// never end).
    pub(super) fn coarse_flush(&mut self, t: f64, now: Ms, resync: bool) {
        if resync {
            self.take_pending();
        }
        let before = self.round_flows;
        let zero = self.solve(t, if resync { 0 } else { 1 });
        self.seeds.clear();
        self.seed_flows.clear();
        if zero {
            self.zero_resyncs += 1;
            self.take_pending();
            self.solve(t, 0);
            self.seeds.clear();
        }
        if resync || zero {
            self.resyncs += 1;
            self.resync_flows += self.round_flows - before;
            let every = self.state().cfg.resync_ms;
            self.state().next_resync = now.saturating_add(every);
        }
    }

    /// The resources waiting for an exact re-solve, as seeds of the next.
    fn take_pending(&mut self) {
        let c = self.coarse.as_mut().expect("the coarse model");
        for &r in &c.pending {
            self.resources[r as usize].pending = false;
        }
        self.seeds.append(&mut c.pending);
    }
}

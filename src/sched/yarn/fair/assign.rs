//! The assignment walk: `FairScheduler.attemptScheduling`,
//! `FSParentQueue` / `FSLeafQueue.assignContainer` and
//! `FSAppAttempt.assignContainer` (with `FSLeafQueue.canRunAppAM` and
//! `FairScheduler.fitsInMaxShare`).

use super::policies::{cmp_keys, share_key, Sortable};
use super::shares::Shares;
use super::YarnFair;
use crate::model::{JobId, QueuePolicy, Resource};
use crate::sched::yarn::{self, Ask, Level, ASKS};
use crate::sim::{Heartbeat, RunView};

impl YarnFair {
    /// One application's turn on the node (`FSAppAttempt.assignContainer`):
    /// `Some(true)` it took a container, `Some(false)` it reserved the
    /// node, `None` nothing.
    fn assign_app(&mut self, hb: &mut Heartbeat<'_>, j: JobId, shares: &Shares) -> Option<bool> {
        let max = yarn::max_allocation(hb.view());
        for ask in ASKS {
            let w = hb.view();
            if !yarn::wants(w, j, ask) {
                continue;
            }
            let res = yarn::normalize_both(yarn::asked(w, j, ask), max);
            if !res.fits_in(hb.node().capacity) {
                continue;
            }
            self.delay_mut(j, ask).opportunities += 1;
            if ask == Ask::Am && !self.can_run_am(hb.view(), j, res, shares) {
                return None;
            }
            let nodes = hb.view().cluster().nodes.len();
            let allowed = self.allowed_level(j, ask, nodes);
            let level = if ask == Ask::Map && yarn::has_local(hb, j, Level::NodeLocal) {
                Level::NodeLocal
            } else if ask == Ask::Map
                && allowed >= Level::RackLocal
                && yarn::has_local(hb, j, Level::RackLocal)
            {
                Level::RackLocal
            } else if ask != Ask::Map || allowed == Level::OffSwitch {
                Level::OffSwitch
            } else {
                continue;
            };
            return self.assign(hb, j, ask, res, level);
        }
        None
    }

    /// Allocates a container of `res` at `level` (`Some(true)`), or
    /// reserves the node if it does not fit what is free (`Some(false)`),
    /// unless the container would take the queue past its maximum
    /// (`None`: `FairScheduler.fitsInMaxShare`).
    fn assign(
        &mut self,
        hb: &mut Heartbeat<'_>,
        j: JobId,
        ask: Ask,
        res: Resource,
        level: Level,
    ) -> Option<bool> {
        let node = hb.node();
        if !res.fits_in(node.available()) {
            if !fits_in_max_share(hb.view(), j, res) {
                return None;
            }
            self.reserved[hb.node as usize] = Some((j, ask));
            return Some(false);
        }
        self.reserved[hb.node as usize] = None;
        let rule = match (ask, level) {
            (Ask::Reduce, _) => "yarn-fair/reduce",
            (_, Level::NodeLocal) => "yarn-fair/node-local",
            (_, Level::RackLocal) => "yarn-fair/rack-local",
            (_, Level::OffSwitch) => "yarn-fair/off-switch",
        };
        yarn::launch(hb, j, ask, res, level, rule);
        self.allocated_at(j, ask, level);
        Some(true)
    }

    /// `FSLeafQueue.canRunAppAM`: the queue's AMs with this one within
    /// `max_am_share` of its fair share.
    fn can_run_am(&self, w: RunView<'_>, j: JobId, am: Resource, shares: &Shares) -> bool {
        if self.max_am_share < 0.0 {
            return true;
        }
        let pool = w.job(j).pool as usize;
        let fair = shares.fair[pool];
        let limit = Resource::memory(
            (fair.mb() as f64 * self.max_am_share) as i64,
            (fair.vcores() as f64 * self.max_am_share) as i64,
        );
        let after = w.pool_stats()[pool].am_used + am;
        // The queue's policy's `checkIfAMResourceUsageOverLimit`.
        match self.queue_policy(w, pool) {
            QueuePolicy::Fair | QueuePolicy::Fifo => after.mb() <= limit.mb(),
            QueuePolicy::Drf => after.fits_in(limit),
        }
    }

    /// A `drf` queue under root's `fair` policy gets no vcore fair share
    /// (FairSharePolicy computes memory alone), so in Hadoop 2.7.3 its AM
    /// share limit of 0 vcores never lets an AM start: the run would hang.
    /// Said once, as the run's error, unless the limit is off.
    pub(super) fn check_queues(&mut self, w: RunView<'_>) {
        self.checked = true;
        if self.policy != QueuePolicy::Fair
            || self.max_am_share < 0.0
            || w.tasks().am_ask().vcores() == 0
        {
            return;
        }
        if let Some(q) = w
            .pools()
            .iter()
            .find(|p| p.scheduling_policy == Some(QueuePolicy::Drf))
        {
            self.fault = Some(format!(
                "{}: queue \"{}\" orders by drf under root's fair policy, which gives queues no vcore fair share, so no AM of it could start within max_am_share (Hadoop 2.7.3 hangs so); expected scheduling_policy = \"drf\" in [scheduler.yarn-fair], or max_am_share = -1",
                self.label, q.name
            ));
        }
    }

    /// The policy queue `p` orders its applications by: its own, else the
    /// scheduler's.
    pub(super) fn queue_policy(&self, w: RunView<'_>, p: usize) -> QueuePolicy {
        w.pools()[p].scheduling_policy.unwrap_or(self.policy)
    }

    /// Root's walk: queues in order, each one's apps in order; the first
    /// application that takes a container or reserves ends it.
    /// `FairScheduler.attemptScheduling` on this node.
    pub(super) fn serve(&mut self, hb: &mut Heartbeat<'_>, shares: &Shares) {
        if let Some((j, ask)) = self.reserved[hb.node as usize] {
            let w = hb.view();
            let max = yarn::max_allocation(w);
            let res = yarn::normalize_both(yarn::asked(w, j, ask), max);
            if w.job(j).is_done() || !yarn::wants(w, j, ask) || !fits_in_max_share(w, j, res) {
                self.reserved[hb.node as usize] = None;
            } else {
                if res.fits_in(hb.node().available()) {
                    self.assign_app(hb, j, shares);
                }
                return;
            }
        }
        let mut assigned = 0i64;
        while self.reserved[hb.node as usize].is_none() {
            let took = self.assign_root(hb, shares);
            if took != Some(true) {
                break;
            }
            assigned += 1;
            if !self.assign_multiple || (self.max_assign > 0 && assigned >= self.max_assign) {
                break;
            }
        }
    }

    fn assign_root(&mut self, hb: &mut Heartbeat<'_>, shares: &Shares) -> Option<bool> {
        let w = hb.view();
        let at = (w.books_epoch(), w.cluster().live);
        // A queue's demand moves with pending tasks, which the epoch does
        // not follow: with a minimum share in play the order is made anew.
        let demand_counts = w.pools().iter().any(|p| !p.min_resources.is_zero());
        if self.order_at != Some(at) || demand_counts {
            // A walk sorted against another cluster (DRF's keys) goes.
            if self.order_at.is_none_or(|(_, c)| c != at.1) {
                self.walked_at.clear();
            }
            self.sort_queues(w);
            self.order_at = Some(at);
        }
        // Queue by queue, its applications in order: the walk stops at the
        // first that takes a container, so later queues are not sorted.
        let queues = std::mem::take(&mut self.queues);
        let mut took = None;
        for &(_, q) in &queues {
            if self.walked_at[q] != Some(hb.view().pool_stats()[q].epoch) {
                self.sort_apps(hb.view(), q);
            }
            let walk = std::mem::take(&mut self.walks[q]);
            for &j in &walk {
                took = self.assign_app(hb, j, shares);
                if took.is_some() {
                    break;
                }
            }
            self.walks[q] = walk;
            if took.is_some() {
                break;
            }
        }
        self.queues = queues;
        took
    }

    /// Root's queues in order (their sort keys computed once; queues all
    /// start at 0, as FSQueue.getStartTime, so ties go by name). Buffers
    /// are kept between heartbeats.
    fn sort_queues(&mut self, w: RunView<'_>) {
        let cluster = w.cluster().live;
        let mut has_apps = std::mem::take(&mut self.has_apps);
        has_apps.clear();
        has_apps.resize(w.pools().len(), false);
        // The applications in any order: the walk's sort orders them in
        // full (ids break the last ties), and demands are sums.
        self.apps.clear();
        self.apps.extend_from_slice(w.awaiting_am());
        self.apps.extend_from_slice(w.active());
        let mut demand = std::mem::take(&mut self.demand);
        demand.clear();
        demand.resize(w.pools().len(), Resource::ZERO);
        for &j in &self.apps {
            let p = w.job(j).pool as usize;
            has_apps[p] = true;
            // `FSLeafQueue.updateDemand`, needed only against a minimum.
            if !w.pools()[p].min_resources.is_zero() {
                demand[p] += app_demand(w, j);
            }
        }
        let mut queues = std::mem::take(&mut self.queues);
        queues.clear();
        for (p, &here) in has_apps.iter().enumerate() {
            let pool = &w.pools()[p];
            // `assignContainerPreCheck`: a queue at or over its maximum
            // takes nothing.
            if here && w.pool_stats()[p].used.fits_in(pool.max_resources) {
                let s = Sortable {
                    used: w.pool_stats()[p].used,
                    weight: pool.weight,
                    min: pool.min_resources,
                    demand: demand[p].min_each(pool.max_resources),
                };
                queues.push((share_key(self.policy, cluster, s), p));
            }
        }
        queues.sort_by(|a, b| {
            cmp_keys(a.0, b.0).then_with(|| w.pools()[a.1].name.cmp(&w.pools()[b.1].name))
        });
        self.queues = queues;
        self.demand = demand;
        self.has_apps = has_apps;
        self.walked_at.resize(w.pools().len(), None);
        self.walks.resize_with(w.pools().len(), Vec::new);
    }

    /// Queue `q`'s applications in order: by (key, start time, name).
    /// They are listed in the order last walked, the newcomers after, so
    /// the sort meets runs already in order (a container moves one
    /// application): the order is total (ids break the last ties), so the
    /// result is the same whatever order they are listed in.
    fn sort_apps(&mut self, w: RunView<'_>, q: usize) {
        let cluster = w.cluster().live;
        let policy = self.queue_policy(w, q);
        if self.mark.len() < w.jobs().len() {
            self.mark.resize(w.jobs().len(), 0);
        }
        self.marks += 2;
        let (here, placed) = (self.marks, self.marks + 1);
        for &j in &self.apps {
            if w.job(j).pool as usize == q {
                self.mark[j as usize] = here;
            }
        }
        let key = |j: JobId| {
            let job = w.job(j);
            (
                share_key(policy, cluster, Sortable::app(job.used)),
                job.submit,
                j,
            )
        };
        let mut walk = std::mem::take(&mut self.walk);
        walk.clear();
        for &j in &self.walks[q] {
            if self.mark[j as usize] == here {
                self.mark[j as usize] = placed;
                walk.push(key(j));
            }
        }
        for &j in &self.apps {
            if self.mark[j as usize] == here {
                walk.push(key(j));
            }
        }
        walk.sort_by(|a, b| {
            cmp_keys(a.0, b.0)
                .then(a.1.cmp(&b.1))
                .then_with(|| w.job(a.2).name.cmp(&w.job(b.2).name))
                .then(a.2.cmp(&b.2))
        });
        let order = &mut self.walks[q];
        order.clear();
        order.extend(walk.iter().map(|x| x.2));
        self.walk = walk;
        self.walked_at[q] = Some(w.pool_stats()[q].epoch);
    }
}

/// `FSAppAttempt.updateDemand`: what the application holds and what it
/// asks for (its ANY requests, normalised).
fn app_demand(w: RunView<'_>, j: JobId) -> Resource {
    let max = yarn::max_allocation(w);
    let job = w.job(j);
    let mut d = job.used;
    for ask in ASKS {
        if !yarn::wants(w, j, ask) {
            continue;
        }
        let n = match ask {
            Ask::Am => 1,
            Ask::Reduce => job.reduce_asks.min(job.reduces_pending),
            Ask::Map => job.maps_pending,
        };
        let c = yarn::normalize_both(yarn::asked(w, j, ask), max);
        d += c * i64::from(n);
    }
    d
}

/// `FairScheduler.fitsInMaxShare`: job `j`'s queue with `add` more
/// within its maximum (root has none).
fn fits_in_max_share(w: RunView<'_>, j: JobId, add: Resource) -> bool {
    let p = w.job(j).pool as usize;
    (w.pool_stats()[p].used + add).fits_in(w.pools()[p].max_resources)
}

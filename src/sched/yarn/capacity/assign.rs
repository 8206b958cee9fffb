//! The walk: `CapacityScheduler.allocateContainersToNode`'s reserved
//! node (`LeafQueue.assignReservedContainer`), root's
//! `ParentQueue.assignContainers`, `LeafQueue.assignContainers` (queue and
//! user limits), `assignContainersOnNode`, `canAssign` (locality delay)
//! and `assignContainer`.

use super::reserve::Resv;
use super::{step, App, YarnCapacity};
use crate::model::{JobId, Resource};
use crate::sched::yarn::{self, Ask, Level, ASKS};
use crate::sim::{Heartbeat, RunView};

impl YarnCapacity {
    /// Distinct hosts and racks job `j`'s pending maps ask for
    /// (`getLocalityWaitFactor`'s request count, ANY left out).
    fn locations(&mut self, w: RunView<'_>, j: JobId) -> u32 {
        let job = w.job(j);
        let key = (job.maps_pending, w.requeues());
        let cached = self.locations[j as usize];
        if (cached.0, cached.1) == key {
            return cached.2;
        }
        let n = job.pending_locations();
        self.locations[j as usize] = (key.0, key.1, n);
        n
    }

    /// The containers job `j` still needs at `ask` (the ANY request).
    pub(super) fn outstanding(w: RunView<'_>, j: JobId, ask: Ask) -> i64 {
        i64::from(yarn::outstanding(w, j, ask))
    }

    /// `LeafQueue.canAssign` for rack-local and off-switch containers.
    fn can_assign(
        &mut self,
        w: RunView<'_>,
        j: JobId,
        ask: Ask,
        level: Level,
        reserved: bool,
    ) -> bool {
        let nodes = i64::from(w.cluster().live_nodes);
        let missed = self.opportunities[j as usize][ask as usize];
        match level {
            Level::NodeLocal => true,
            Level::RackLocal => nodes.min(self.node_locality_delay) < missed,
            Level::OffSwitch => {
                if reserved {
                    return true;
                }
                let locations = if ask == Ask::Map {
                    self.locations(w, j)
                } else {
                    0
                };
                let factor = (locations as f32 / nodes as f32).min(1.0);
                let wait = (Self::outstanding(w, j, ask) as f32 * factor).min(nodes as f32);
                wait < missed as f32
            }
        }
    }

    /// `LeafQueue.assignContainer`: allocates `cap` for job `j` at `ask` on
    /// the node, or reserves the node; returns what was assigned or
    /// reserved (zero for nothing).
    #[allow(clippy::too_many_arguments)]
    fn assign_container(
        &mut self,
        hb: &mut Heartbeat<'_>,
        j: JobId,
        ask: Ask,
        cap: Resource,
        level: Level,
        reserved: bool,
        unreserve: Resource,
    ) -> Resource {
        let w = hb.view();
        let cluster = Self::cluster(w);
        let node = hb.node();
        if self.calc.gt(cluster, cap, node.capacity) {
            return Resource::ZERO;
        }
        let should = self.should_alloc_or_reserve(w, j, ask, cap);
        let fits = self.calc.fits(node.available(), cap) > 0;
        let need_unreserve = self.calc.gt(cluster, unreserve, Resource::ZERO);
        let n = hb.node;
        if fits {
            if reserved {
                self.unreserve(n);
            } else if (!should || need_unreserve)
                && !self.unreserve_elsewhere(
                    w,
                    j,
                    ask,
                    if need_unreserve { unreserve } else { cap },
                )
            {
                return Resource::ZERO;
            }
            let rule = match (ask, level) {
                (Ask::Reduce, _) => "yarn-capacity/reduce",
                (_, Level::NodeLocal) => "yarn-capacity/node-local",
                (_, Level::RackLocal) => "yarn-capacity/rack-local",
                (_, Level::OffSwitch) => "yarn-capacity/off-switch",
            };
            if yarn::launch(hb, j, ask, cap.floor0(), level, rule) {
                cap
            } else {
                Resource::ZERO
            }
        } else if should || reserved {
            if !reserved && need_unreserve {
                return Resource::ZERO;
            }
            let pool = hb.view().job(j).pool as usize;
            self.reserve(
                n,
                Resv {
                    job: j,
                    ask,
                    res: cap,
                    pool,
                },
            );
            cap
        } else {
            Resource::ZERO
        }
    }

    /// `LeafQueue.assignContainersOnNode`: node-local, rack-local, then
    /// off-switch, each as far as `canAssign` lets it.
    fn assign_on_node(
        &mut self,
        hb: &mut Heartbeat<'_>,
        j: JobId,
        ask: Ask,
        cap: Resource,
        reserved: bool,
        unreserve: Resource,
    ) -> Option<(Resource, Level)> {
        for level in [Level::NodeLocal, Level::RackLocal] {
            if ask == Ask::Map
                && yarn::has_local(hb, j, level)
                && self.can_assign(hb.view(), j, ask, level, reserved)
            {
                let got = self.assign_container(hb, j, ask, cap, level, reserved, unreserve);
                if got != Resource::ZERO {
                    return Some((got, level));
                }
            }
        }
        if self.can_assign(hb.view(), j, ask, Level::OffSwitch, reserved) {
            let got = self.assign_container(hb, j, ask, cap, Level::OffSwitch, reserved, unreserve);
            if got != Resource::ZERO {
                return Some((got, Level::OffSwitch));
            }
        }
        None
    }

    /// `LeafQueue.assignReservedContainer`: the node's reservation is
    /// filled if the node now holds it, kept otherwise, dropped if the
    /// application no longer needs it.
    pub(super) fn serve_reserved(&mut self, hb: &mut Heartbeat<'_>, r: Resv) {
        let w = hb.view();
        if w.job(r.job).is_done() || !yarn::wants(w, r.job, r.ask) {
            self.unreserve(hb.node);
            return;
        }
        self.assign_on_node(hb, r.job, r.ask, r.res, true, Resource::ZERO);
    }

    /// `LeafQueue.assignContainers` on queue `p` within `limit`.
    fn assign_leaf(
        &mut self,
        hb: &mut Heartbeat<'_>,
        p: usize,
        limit: Resource,
    ) -> Option<(Resource, Level)> {
        let active = std::mem::take(&mut self.active[p]);
        let got = self.assign_leaf_apps(hb, p, limit, &active);
        self.active[p] = active;
        got
    }

    fn assign_leaf_apps(
        &mut self,
        hb: &mut Heartbeat<'_>,
        p: usize,
        limit: Resource,
        active: &[JobId],
    ) -> Option<(Resource, Level)> {
        let c = self.calc;
        for &j in active {
            for ask in ASKS {
                let w = hb.view();
                if !yarn::wants(w, j, ask) {
                    continue;
                }
                let cluster = Self::cluster(w);
                let required = self.required(w, j, ask);
                let user_limit = self.user_limit(w, p, required);
                let mut unreserve = Resource::ZERO;
                // canAssignToThisQueue
                let queue_max = c.times_down(cluster, self.abs_max[p], step());
                let current = c.min(cluster, queue_max, limit);
                let total = self.queue_used(w, p) + required;
                let app_reserved = self.job_reserved[j as usize];
                if c.gt(cluster, total, current) {
                    if c.gt(cluster, app_reserved, Resource::ZERO)
                        && c.lt(cluster, total - app_reserved, current)
                    {
                        unreserve = total - current;
                    } else {
                        return None;
                    }
                }
                // assignToUser
                let u = self.user_of(w, j);
                let user_used = self.user_used[u];
                if c.gt(cluster, user_used, user_limit) {
                    if !c.gt(cluster, user_used - app_reserved, user_limit) {
                        unreserve = c.max(cluster, unreserve, user_used - user_limit);
                    } else {
                        break;
                    }
                }
                self.opportunities[j as usize][ask as usize] += 1;
                let Some((got, level)) =
                    self.assign_on_node(hb, j, ask, required, false, unreserve)
                else {
                    break;
                };
                if level == Level::NodeLocal || (level == Level::RackLocal && self.full_reset) {
                    self.opportunities[j as usize][ask as usize] = 0;
                }
                // The user's tally follows (`allocateResource`).
                self.user_used[u] += got;
                return Some((got, level));
            }
        }
        None
    }

    /// `ParentQueue.assignContainers` at root: queues by used capacity
    /// (then path), the first that assigns re-sorted, again and again
    /// until nothing is assigned or an off-switch container was.
    pub(super) fn assign_root(&mut self, hb: &mut Heartbeat<'_>) {
        let c = self.calc;
        loop {
            let w = hb.view();
            let cluster = Self::cluster(w);
            if self.reserved[hb.node as usize].is_some()
                || c.lt(cluster, hb.node().available(), step())
            {
                return;
            }
            // Root's own limit: the cluster.
            let total = self.root_used(w) + step();
            let limit = c.times_down(cluster, 1.0, step());
            if c.gt(cluster, total, limit) {
                let reserved = self
                    .pool_reserved
                    .iter()
                    .fold(Resource::ZERO, |a, &r| a + r);
                if !(c.gt(cluster, reserved, Resource::ZERO)
                    && c.lt(cluster, total - reserved, limit))
                {
                    return;
                }
            }
            let mut order = std::mem::take(&mut self.order);
            order.clear();
            for p in 0..w.pools().len() {
                if self.active[p].is_empty() {
                    continue;
                }
                let guaranteed = cluster.times(self.abs_capacity(p));
                let used = if guaranteed == Resource::ZERO {
                    0.0
                } else {
                    c.divide(cluster, self.queue_used(w, p), guaranteed)
                };
                order.push((used, p));
            }
            order.sort_by(|a, b| {
                a.0.partial_cmp(&b.0)
                    .unwrap_or(std::cmp::Ordering::Equal)
                    .then_with(|| w.pools()[a.1].name.cmp(&w.pools()[b.1].name))
            });
            let mut got = None;
            for &(_, p) in &order {
                let limit = self.queue_limit(hb.view(), p);
                got = self.assign_leaf(hb, p, limit);
                if got.is_some() {
                    break;
                }
            }
            self.order = order;
            match got {
                Some((_, Level::OffSwitch)) | None => return,
                Some(_) => {}
            }
        }
    }

    /// Each queue's active applications, in id order.
    pub(super) fn gather_active(&mut self, w: RunView<'_>) {
        for a in &mut self.active {
            a.clear();
        }
        for &j in &self.apps {
            if self.app[j as usize] == App::Active {
                self.active[w.job(j).pool as usize].push(j);
            }
        }
    }
}

//! Queue and user limits (`LeafQueue`): what root lets a queue hold
//! (`ParentQueue.getResourceLimitsOfChild`, `LeafQueue
//! .updateCurrentResourceLimits`), `LeafQueue.computeUserLimit`, the
//! users' tallies (`ActiveUsersManager`), `LeafQueue.activateApplications`
//! under the AM resource limit, and the headroom
//! (`CapacityHeadroomProvider`).

use super::{step, App, YarnCapacity};
use crate::model::{JobId, Resource};
use crate::sched::yarn::calc::Calc;
use crate::sched::yarn::{self, Ask, ASKS};
use crate::sim::policy::Headroom;
use crate::sim::RunView;

impl YarnCapacity {
    /// The queue's absolute capacity (`capacity / 100` in Java's float).
    pub(super) fn abs_capacity(&self, p: usize) -> f64 {
        self.abs[p]
    }

    pub(super) fn queue_used(&self, w: RunView<'_>, p: usize) -> Resource {
        w.pool_stats()[p].used + self.pool_reserved[p]
    }

    pub(super) fn root_used(&self, w: RunView<'_>) -> Resource {
        let reserved = self
            .pool_reserved
            .iter()
            .fold(Resource::ZERO, |a, &r| a + r);
        w.cluster().used + reserved
    }

    /// `ParentQueue.getResourceLimitsOfChild` under root, capped by the
    /// queue's maximum (100 %) as `LeafQueue.updateCurrentResourceLimits`
    /// does: what the queue may hold now.
    pub(super) fn queue_limit(&self, w: RunView<'_>, p: usize) -> Resource {
        let (c, cluster) = (self.calc, Self::cluster(w));
        let max = c.times_down(cluster, self.abs_max[p], step());
        let limit = cluster - self.root_used(w) + self.queue_used(w, p);
        let limit = c.round_down(c.min(cluster, limit, max), step());
        c.min(cluster, max, limit)
    }

    /// The application's user's index among its queue's users.
    pub(super) fn user_of(&mut self, w: RunView<'_>, j: JobId) -> usize {
        let job = w.job(j);
        let p = job.pool as usize;
        if let Some((pool, u)) = self.job_user[j as usize] {
            if pool == p {
                return u;
            }
        }
        let next = self.user_ix.len();
        let u = *self
            .user_ix
            .entry((p, job.user.to_string()))
            .or_insert(next);
        self.job_user[j as usize] = Some((p, u));
        u
    }

    /// Whether job `j` asks for anything (`ActiveUsersManager`: a user is
    /// active while one of its applications has an outstanding request).
    fn asks(w: RunView<'_>, j: JobId) -> bool {
        ASKS.iter().any(|&a| yarn::wants(w, j, a))
    }

    /// This heartbeat's applications: new ones become pending; users'
    /// usage (reservations included) and which users are active.
    pub(super) fn tally(&mut self, w: RunView<'_>) {
        let mut apps = std::mem::take(&mut self.apps);
        yarn::apps_into(w, &mut apps);
        for p in &mut self.pool_users {
            *p = 0;
        }
        for u in &mut self.user_used {
            *u = Resource::ZERO;
        }
        for a in &mut self.user_active {
            *a = false;
        }
        for &j in &apps {
            if self.app[j as usize] == App::Unseen {
                self.app[j as usize] = App::Pending;
                self.dirty = true;
            }
            let u = self.user_of(w, j);
            if self.user_used.len() <= u {
                self.user_used.resize(u + 1, Resource::ZERO);
                self.user_active.resize(u + 1, false);
            }
            let job = w.job(j);
            self.user_used[u] += job.used + self.job_reserved[j as usize];
            if !self.user_active[u] && Self::asks(w, j) {
                self.user_active[u] = true;
                self.pool_users[job.pool as usize] += 1;
            }
        }
        self.apps = apps;
    }

    /// The normalised container of job `j` at `ask`, as this calculator
    /// normalises it (memory only: 1 vcore).
    pub(super) fn required(&self, w: RunView<'_>, j: JobId, ask: Ask) -> Resource {
        let max = yarn::max_allocation(w);
        let r = yarn::asked(w, j, ask);
        match self.calc {
            Calc::Memory => yarn::normalize_memory(r, max),
            Calc::Dominant => yarn::normalize_both(r, max),
        }
    }

    /// The AM resource an application is charged at activation (none for
    /// jobs run without an AM).
    pub(super) fn am_resource(&self, w: RunView<'_>, j: JobId) -> Resource {
        if w.tasks().am_ask().is_zero() {
            Resource::ZERO
        } else {
            self.required(w, j, Ask::Am)
        }
    }

    /// `LeafQueue.activateApplications` for every queue: pending
    /// applications in id order start while the queue's AMs (and the
    /// user's) stay within `max_am_percent` of the queue's capacity, or
    /// when the queue has no active application.
    pub(super) fn activate(&mut self, w: RunView<'_>) {
        let (c, cluster) = (self.calc, Self::cluster(w));
        for p in 0..w.pools().len() {
            let pool = &w.pools()[p];
            let abs_cap = c.times_up(cluster, self.abs_capacity(p), step());
            let am_limit = c.times_up(
                c.max(cluster, abs_cap, self.queue_limit(w, p)),
                f64::from(self.max_am_percent),
                step(),
            );
            let users = self.pool_users[p].max(1);
            let effective = (pool.min_user_limit as f32 / 100.0).max(1.0 / users as f32);
            let user_am_limit = c.times_up(
                abs_cap,
                f64::from(self.max_am_percent * effective * pool.user_limit_factor as f32),
                step(),
            );
            let mut active = self
                .apps
                .iter()
                .filter(|&&j| w.job(j).pool as usize == p && self.app[j as usize] == App::Active)
                .count();
            for i in 0..self.apps.len() {
                let j = self.apps[i];
                if w.job(j).pool as usize != p || self.app[j as usize] != App::Pending {
                    continue;
                }
                let am = self.am_resource(w, j);
                let over = |used: Resource, limit: Resource| c.gt(cluster, am + used, limit);
                if over(self.pool_am[p], am_limit) && active > 0 {
                    continue;
                }
                let u = self.user_of(w, j);
                let user_am = self
                    .apps
                    .iter()
                    .filter(|&&k| {
                        self.app[k as usize] == App::Active
                            && self.job_user[k as usize] == Some((p, u))
                    })
                    .fold(Resource::ZERO, |a, &k| a + self.am[k as usize].0);
                if over(user_am, user_am_limit) && active > 0 {
                    continue;
                }
                self.app[j as usize] = App::Active;
                self.am[j as usize] = (am, p);
                self.pool_am[p] += am;
                active += 1;
            }
        }
    }

    /// `LeafQueue.computeUserLimit`.
    pub(super) fn user_limit(&self, w: RunView<'_>, p: usize, required: Resource) -> Resource {
        self.user_limit_at(w, p, required, w.pools()[p].user_limit_factor)
    }

    /// [`Self::user_limit`] under a `user_limit_factor` of `factor`.
    fn user_limit_at(&self, w: RunView<'_>, p: usize, required: Resource, factor: f64) -> Resource {
        let (c, cluster) = (self.calc, Self::cluster(w));
        let pool = &w.pools()[p];
        let queue_cap = c.times_up(cluster, self.abs_capacity(p), step());
        let queue_cap = c.max(cluster, queue_cap, required);
        let used = self.queue_used(w, p);
        let current = if c.lt(cluster, used, queue_cap) {
            queue_cap
        } else {
            used + required
        };
        let users = self.pool_users[p];
        let limit = c.max(
            cluster,
            c.div_ceil(current, users),
            c.div_ceil(current.times(pool.min_user_limit), 100),
        );
        let cap = queue_cap.times(f64::from(factor as f32));
        c.round_up(c.min(cluster, limit, cap), step())
    }

    /// `CapacityHeadroomProvider.getHeadroom`: the user's limit less its
    /// usage, within what the queue may still take, rounded down to the
    /// minimum allocation; vcores count under the dominant calculator.
    pub(super) fn user_headroom(&self, w: RunView<'_>, j: JobId) -> Headroom {
        let p = w.job(j).pool as usize;
        let c = self.calc;
        let user = &w.job(j).user;
        let mut used = Resource::ZERO;
        for &k in w.awaiting_setup().iter().chain(w.active()) {
            let job = w.job(k);
            if job.pool as usize == p && &job.user == user {
                let reserved = self
                    .job_reserved
                    .get(k as usize)
                    .copied()
                    .unwrap_or_default();
                used += job.used + reserved;
            }
        }
        let (limit, queue) = if p < self.pool_reserved.len() {
            let required = self.required(w, j, Ask::Map);
            (
                self.user_limit(w, p, required),
                self.queue_limit(w, p) - self.queue_used(w, p),
            )
        } else {
            (Resource::ZERO, Resource::ZERO)
        };
        let room = c.round_down((limit - used).min_each(queue), step());
        Headroom {
            available: room.floor0(),
            cpu: c == Calc::Dominant,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{beats, cluster, job, Run};
    use crate::model::Resource;

    /// Queues `a` and `b` at half the cluster each; `a`'s extra lines.
    fn queues(a: &str) -> String {
        format!(
            "[[pools]]\nname = \"a\"\ncapacity = 50\n{a}[[pools]]\nname = \"b\"\ncapacity = 50\n"
        )
    }

    /// `LeafQueue.computeUserLimit` below the queue's capacity: the
    /// capacity (8 GB of 16) split among the active users, at least
    /// `min_user_limit` percent of it, rounded up to 1 GB.
    #[test]
    fn user_limit_splits_capacity_among_active_users() {
        let limit = |min_user_limit: u32, users: usize| {
            let mut text =
                cluster(2, false, "") + &queues(&format!("min_user_limit = {min_user_limit}\n"));
            for u in 0..users {
                text += &job(&format!("j{u}"), "a", &format!("u{u}"), "1GB", &[0]);
            }
            let run = Run::new(&text, 1);
            let (mut cs, w) = run.parts();
            cs.grow(w);
            cs.tally(w);
            let a = run.pool("a");
            assert_eq!(cs.pool_users[a], users as i64);
            cs.user_limit(w, a, Resource::memory(1024, 1)).mb()
        };
        // max(ceil(8192 / 2), ceil(8192 × 50 / 100)) = 4096.
        assert_eq!(limit(50, 2), 4096);
        // Three users: 2731 each, but min_user_limit keeps 4096.
        assert_eq!(limit(50, 3), 4096);
        // At 25 % the split wins: ceil(8192 / 3) = 2731, rounded up to 3072.
        assert_eq!(limit(25, 3), 3072);
        // One user: the whole capacity (user_limit_factor 1).
        assert_eq!(limit(100, 1), 8192);
    }

    /// `LeafQueue.computeUserLimit` over the queue's capacity: the current
    /// capacity is what the queue uses plus the container asked, a lone
    /// user's limit all of it, within capacity × `user_limit_factor`.
    #[test]
    fn user_limit_over_capacity_follows_use_within_user_limit_factor() {
        // Queue a (8 GB capacity, factor 2) takes 2 GB maps: four on node
        // 0, then two on node 1; the seventh (its block on node 0) waits
        // for locality. 12 GB used, one map pending.
        let mut text = cluster(2, false, "") + &queues("user_limit_factor = 2\n");
        text += &job("j", "a", "u", "2GB", &[0, 0, 0, 0, 1, 1, 0]);
        text += &beats(&[(1000, 0), (2000, 1)]);
        let run = Run::new(&text, 5000);
        let a = run.pool("a");
        let (mut cs, w) = run.parts();
        cs.tally(w);
        assert_eq!(cs.queue_used(w, a).mb(), 12_288);
        assert_eq!(cs.pool_users[a], 1);
        let two_gb = Resource::memory(2048, 1);
        // 12288 + 2048, under 8192 × 2.
        assert_eq!(cs.user_limit(w, a, two_gb).mb(), 14_336);
        // The same state with factors 1.5 and 1: capped at 12288, 8192.
        assert_eq!(cs.user_limit_at(w, a, two_gb, 1.5).mb(), 12_288);
        assert_eq!(cs.user_limit_at(w, a, two_gb, 1.0).mb(), 8192);
    }

    /// `ParentQueue.getResourceLimitsOfChild` with
    /// `LeafQueue.updateCurrentResourceLimits`: what the cluster has free
    /// plus what the queue itself uses, within its `max_capacity`.
    #[test]
    fn queue_limit_is_free_cluster_plus_own_use_within_max_capacity() {
        // a (max 75 %) runs two 2 GB maps on node 0 at 1 s; b three on
        // node 1 at 2 s.
        let mut text = cluster(2, false, "") + &queues("max_capacity = 75\n");
        text += &job("ja", "a", "u", "2GB", &[0, 0]);
        text += &job("jb", "b", "u", "2GB", &[1, 1, 1]);
        text += &beats(&[(1000, 0), (2000, 1)]);
        let mut run = Run::new(&text, 1500);
        let (a, b) = (run.pool("a"), run.pool("b"));
        {
            let (cs, w) = run.parts();
            assert_eq!(cs.queue_used(w, a).mb(), 4096);
            // 16384 free + own: a at its maximum, 75 % (12288); b all of
            // what a leaves (16384 - 4096).
            assert_eq!(cs.queue_limit(w, a).mb(), 12_288);
            assert_eq!(cs.queue_limit(w, b).mb(), 12_288);
        }
        run.to(2500);
        let (cs, w) = run.parts();
        assert_eq!(cs.queue_used(w, b).mb(), 6144);
        // a: 16384 - 10240 + 4096; b: 16384 - 10240 + 6144.
        assert_eq!(cs.queue_limit(w, a).mb(), 10_240);
        assert_eq!(cs.queue_limit(w, b).mb(), 12_288);
    }

    /// `LeafQueue.activateApplications` with `getAMResourceLimit` and
    /// `getUserAMResourceLimit`: one queue of 32 GB, AMs of 2048 MB
    /// (1536 normalised), four applications in id order, u0's three then
    /// u1's, two active users at `min_user_limit` 50.
    #[test]
    fn activation_refuses_ams_past_the_queue_and_user_am_limits() {
        let active = |max_am_percent: f64| {
            let mut text = cluster(4, true, &format!("max_am_percent = {max_am_percent}"));
            text += "[[pools]]\nname = \"a\"\ncapacity = 100\nmin_user_limit = 50\n";
            for (k, user) in ["u0", "u0", "u0", "u1"].iter().enumerate() {
                text += &job(&format!("j{k}"), "a", user, "1GB", &[0]);
            }
            let run = Run::new(&text, 1);
            let (mut cs, w) = run.parts();
            cs.grow(w);
            cs.tally(w);
            cs.activate(w);
            let a = run.pool("a");
            let on: Vec<bool> = (0..4)
                .map(|k| cs.app[run.job(&format!("j{k}")) as usize] == super::super::App::Active)
                .collect();
            (on, cs.pool_am[a].mb())
        };
        // 10 %: the queue's AMs up to 3277 → 4096 MB (two), a user's up to
        // 32768 × 0.1 × max(0.5, 1/2) = 1639 → 2048 (one each): j0 and j3.
        assert_eq!(active(0.1), (vec![true, false, false, true], 4096));
        // 20 %: 6554 → 7168 (three) and 3277 → 4096 (two for u0).
        assert_eq!(active(0.2), (vec![true, true, false, true], 6144));
        // 1 %: 328 → 1024, less than one AM: only the first starts, as the
        // queue had no active application.
        assert_eq!(active(0.01), (vec![true, false, false, false], 2048));
    }
}

//! The engine's side of `slot_model = "yarn"` (docs/yarn.md): containers
//! hold memory and vcores on their node from allocation to release, each
//! job's ApplicationMaster runs in a container of its own (a `jobtask` of
//! kind `Am`), and a task's container sits idle until its AM's next
//! allocate call hands it over.
//!
//! Which containers go where is the YARN policies' business
//! (`sched::yarn`); the engine keeps the books they read: per node, per
//! job and per pool.

use super::job::AttemptId;
use super::world::World;
use crate::model::{yarn_defaults, JobId, Ms, NodeId, Resource};

impl World {
    /// A container of `res` on `node` starts holding for job `j` (an AM's
    /// when `am`).
    pub(super) fn hold(&mut self, j: JobId, node: NodeId, res: Resource, am: bool) {
        self.metrics.advance(self.now);
        self.cluster.hold(node, res, true);
        self.metrics.mem_used = f64::from(self.cluster.used.mb);
        let job = &mut self.jobs[j as usize];
        job.used = job.used.plus(res);
        let p = &mut self.pool_stats[job.pool as usize];
        p.used = p.used.plus(res);
        if am {
            p.am_used = p.am_used.plus(res);
        }
    }

    /// A container `hold` took is released.
    pub(super) fn unhold(&mut self, j: JobId, node: NodeId, res: Resource, am: bool) {
        self.metrics.advance(self.now);
        self.cluster.hold(node, res, false);
        self.metrics.mem_used = f64::from(self.cluster.used.mb);
        let job = &mut self.jobs[j as usize];
        job.used = job.used.minus(res);
        let p = &mut self.pool_stats[job.pool as usize];
        p.used = p.used.minus(res);
        if am {
            p.am_used = p.am_used.minus(res);
        }
    }

    /// Attempt `a` has ended: its container, if it had one, is free.
    pub(super) fn release_container(&mut self, a: AttemptId) {
        let at = &self.attempts[a as usize];
        if at.res.is_zero() {
            return;
        }
        let (j, node, res) = (at.job, at.node, at.res);
        self.attempts[a as usize].res = Resource::ZERO;
        self.unhold(j, node, res, false);
    }

    /// How long a container allocated now for job `j` waits for the job's
    /// AM to take it: until the AM's next allocate call, which comes every
    /// `yarn.app.mapreduce.am.scheduler.heartbeat.interval-ms` from its
    /// first (a call at this very instant came before the NodeManager's
    /// heartbeat that allocated the container). 0 for a job without an AM.
    pub(super) fn am_handoff(&self, j: JobId) -> Ms {
        let Some(ready) = self.jobs[j as usize].am_ready else {
            return 0;
        };
        let every = yarn_defaults::AM_HEARTBEAT;
        let k = self.now.saturating_sub(ready) / every + 1;
        ready + k * every - self.now
    }

    /// ApplicationMasters running now (starting up or managing their job).
    pub fn running_ams(&self) -> usize {
        self.running_job_tasks.len()
    }
}

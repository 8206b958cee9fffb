//! Acting on a submitted job, as Hadoop 1.x lets a person do it:
//! `hadoop job -kill` (every attempt killed, the job done as KILLED),
//! `hadoop job -set-priority` (the queue order and the fair scheduler's job
//! weight follow at the next heartbeat) and the fair scheduler's move of a
//! job to another pool (its web UI's pool menu: the job's running tasks
//! count against the new pool from then on).
//!
//! A moved job keeps its place: a job already running stays running even
//! if the new pool is at its `max_running_jobs`, one held back by its old
//! pool's limit is reconsidered against the new pool's, and the old pool's
//! first held-back job may start in the room the move left.

use super::{Notable, World};
use crate::model::{JobId, PoolId, Priority};
use crate::sim::job::Outcome;

impl World {
    /// Kills job `j`: its attempts and any set-up or clean-up task are
    /// killed, nothing of it is scheduled again, and it is done now.
    pub(in crate::sim) fn kill_job(&mut self, j: JobId) {
        self.metrics.advance(self.now);
        for a in self.live_attempts(j) {
            self.stop_attempt(a, Outcome::Killed);
        }
        self.kill_job_tasks(j);
        self.retire(j, Notable::Killed(j));
        let job = &mut self.jobs[j as usize];
        job.killed = true;
        job.runnable = false;
        job.maps_pending = 0;
        job.reduces_pending = 0;
        self.last_progress = self.now;
    }

    /// Sets job `j`'s priority (Hadoop's five levels).
    pub(in crate::sim) fn set_priority(&mut self, j: JobId, p: Priority) {
        self.jobs[j as usize].priority = p;
        self.note(Notable::Reprioritized(j));
    }

    /// Moves job `j` to pool `to`, its running tasks with it.
    pub(in crate::sim) fn move_job(&mut self, j: JobId, to: PoolId) {
        let from = self.jobs[j as usize].pool;
        if from == to {
            return;
        }
        self.metrics.advance(self.now);
        let held = self.holds_pool_place(j);
        let (maps, reduces) = {
            let job = &self.jobs[j as usize];
            let maps: u32 = job.maps.iter().map(|m| m.live.len() as u32).sum();
            let reduces: u32 = job.reduces.iter().map(|r| r.live.len() as u32).sum();
            (maps, reduces)
        };
        let (f, t) = (from as usize, to as usize);
        let n = i64::from(maps + reduces);
        self.metrics.pool_running[f] -= n;
        self.metrics.pool_running[t] += n;
        // What its tasks hold goes with them (a YARN queue's usage is its
        // applications': FairScheduler.moveApplication), its AM's too.
        let used = self.jobs[j as usize].used;
        let am: crate::model::Resource = self
            .job_tasks
            .running()
            .iter()
            .map(|&id| &self.job_tasks[id as usize])
            .filter(|t| t.job == j && t.kind == crate::sim::jobtask::JobTaskKind::Am)
            .map(|t| t.ask)
            .fold(crate::model::Resource::ZERO, |a, b| a + b);
        self.books.moved(f, t, maps, reduces, used, am, held);
        if held {
            self.metrics.pool_active[f] -= 1;
            self.metrics.pool_active[t] += 1;
        }
        self.jobs[j as usize].pool = to;
        self.note(Notable::Moved(j));
        if held {
            self.admit_waiting(from);
        } else if self.queues.held(j) {
            let limit = self.cfg.pools[t].max_running_jobs.unwrap_or(u32::MAX);
            if self.books.pools()[t].runnable_jobs < limit {
                self.queues.unhold(j);
                self.make_runnable(j);
            }
        }
    }
}

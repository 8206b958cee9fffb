//! Handing out Hadoop 1.x's job set-up and clean-up tasks and placing
//! YARN's ApplicationMasters (`jobtask` says what they are): a job made
//! runnable waits in PREP until a heartbeat hands out its set-up task; its
//! maps and reduces are schedulable once that ends; after its last task a
//! clean-up task runs, and the job finishes when it ends.

use super::World;
use crate::model::{JobId, NodeId};
use crate::sim::calendar::Ev;
use crate::sim::job::{Kind, Outcome};
use crate::sim::jobtask::{JobTaskKind, JobTaskRun};

impl World {
    /// Job `j`, made runnable, runs its ApplicationMaster or its set-up
    /// task first if it has one; else its tasks are schedulable now.
    pub(super) fn prepare(&mut self, j: JobId) {
        let job = &self.jobs[j as usize];
        if job.am_ms.is_some() {
            self.asks_changed(j);
            self.queues.wait_for(JobTaskKind::Am, j);
        } else if job.setup_ms.is_some() {
            self.queues.wait_for(JobTaskKind::Setup, j);
        } else {
            self.activate(j);
        }
    }

    /// Job `j`'s tasks are done: it runs its clean-up task if it has one.
    /// Returns whether it does (the caller finishes the job otherwise).
    pub(super) fn clean_up(&mut self, j: JobId) -> bool {
        if self.jobs[j as usize].cleanup_ms.is_none() {
            return false;
        }
        self.queues.deactivate(j);
        self.asks_changed(j);
        self.queues.wait_for(JobTaskKind::Cleanup, j);
        true
    }

    /// Hands out a waiting set-up or clean-up task on `node`'s heartbeat,
    /// if there is one and a slot for it. Returns whether it did: the
    /// heartbeat then hands out nothing else.
    pub(in crate::sim) fn hand_out_job_task(&mut self, node: NodeId) -> bool {
        let (setup, cleanup) = (
            self.queues.awaiting(JobTaskKind::Setup),
            self.queues.awaiting(JobTaskKind::Cleanup),
        );
        if setup.is_empty() && cleanup.is_empty() {
            return false;
        }
        for slot in [Kind::Map, Kind::Reduce] {
            if self.cluster.nodes[node as usize].free_typed(&self.cluster.capacity, slot) == 0 {
                continue;
            }
            let (j, kind) = match (
                self.queues.awaiting(JobTaskKind::Cleanup).first(),
                self.queues.awaiting(JobTaskKind::Setup).first(),
            ) {
                (Some(&j), _) => (j, JobTaskKind::Cleanup),
                (None, Some(&j)) => (j, JobTaskKind::Setup),
                (None, None) => return false,
            };
            let ask = self.cluster.capacity.slot_ask(slot);
            self.launch_job_task(j, kind, node, slot, ask);
            return true;
        }
        false
    }

    /// Starts job `j`'s ApplicationMaster in a container of `res` on
    /// `node` (a YARN policy's decision). Its job's tasks are schedulable
    /// once it has started and made its first allocate call.
    pub(super) fn launch_am(&mut self, j: JobId, node: NodeId, res: crate::model::Resource) {
        debug_assert!(
            self.queues.awaiting(JobTaskKind::Am).contains(&j),
            "AM launched twice"
        );
        self.launch_job_task(j, JobTaskKind::Am, node, Kind::Map, res);
    }

    fn launch_job_task(
        &mut self,
        j: JobId,
        kind: JobTaskKind,
        node: NodeId,
        slot: Kind,
        ask: crate::model::Resource,
    ) {
        let job = &mut self.jobs[j as usize];
        let (ms, tried) = match kind {
            JobTaskKind::Setup => (job.setup_ms, &mut job.job_task_attempts[0]),
            JobTaskKind::Am => (job.am_ms, &mut job.job_task_attempts[0]),
            JobTaskKind::Cleanup => (job.cleanup_ms, &mut job.job_task_attempts[1]),
        };
        self.queues.done_waiting(kind, j);
        self.books.changed(job.pool as usize);
        let attempt = *tried;
        *tried += 1;
        let n = &mut self.cluster.nodes[node as usize];
        match slot {
            Kind::Map => n.used_map_slots += 1,
            Kind::Reduce => n.used_reduce_slots += 1,
        }
        n.job_tasks += 1;
        let id = self.job_tasks.start(JobTaskRun {
            job: j,
            kind,
            attempt,
            node,
            slot_kind: slot,
            start: self.now,
            end: None,
            outcome: Outcome::Running,
            seq: self.attempts.len() as u32,
            policy: self.records.current(),
            ask,
        });
        self.book_ask(j, node, ask, kind == JobTaskKind::Am);
        self.inbox.job_task_started(id);
        self.last_progress = self.now;
        // An AM is ready at its first allocate call, one AM heartbeat
        // after its start-up.
        let first_call = if kind == JobTaskKind::Am {
            crate::model::yarn_defaults::AM_HEARTBEAT
        } else {
            0
        };
        let end = self.now.saturating_add(ms.unwrap_or(0) + first_call);
        self.schedule(end, Ev::JobTaskEnd(id));
    }

    /// Frees the slot of running job task `id`, which ends with `outcome`.
    fn stop_job_task(&mut self, id: u32, outcome: Outcome) {
        let t = self.job_tasks.stop(id, self.now, outcome);
        let (node, slot, ask, j, am) =
            (t.node, t.slot_kind, t.ask, t.job, t.kind == JobTaskKind::Am);
        self.release_ask(j, node, ask, am);
        let n = &mut self.cluster.nodes[node as usize];
        match slot {
            Kind::Map => n.used_map_slots -= 1,
            Kind::Reduce => n.used_reduce_slots -= 1,
        }
        n.job_tasks -= 1;
        self.inbox.job_task_ended(id);
    }

    /// Job task `id`'s time is up (an end event of a run a node failure
    /// already ended is stale).
    pub(in crate::sim) fn job_task_done(&mut self, id: u32) {
        if self.job_tasks[id as usize].outcome != Outcome::Running {
            return;
        }
        self.metrics.advance(self.now);
        self.last_progress = self.now;
        let t = &self.job_tasks[id as usize];
        let (j, node) = (t.job, t.node);
        if t.kind == JobTaskKind::Am {
            let job = &mut self.jobs[j as usize];
            if job.is_done() {
                // Its job has finished and its JVM exited.
                self.stop_job_task(id, Outcome::Succeeded);
                self.request_oob(node);
            } else {
                // Started and made its first allocate call (a restarted
                // AM finds its job active already).
                self.queues.done_waiting(JobTaskKind::Am, j);
                self.books.changed(job.pool as usize);
                job.am_ready = Some(self.now);
                if !job.runnable {
                    self.activate(j);
                }
                self.am_started(j);
            }
            return;
        }
        self.stop_job_task(id, Outcome::Succeeded);
        match self.job_tasks[id as usize].kind {
            JobTaskKind::Setup => self.activate(j),
            JobTaskKind::Cleanup => self.job_committed(j),
            JobTaskKind::Am => unreachable!("handled above"),
        }
        self.request_oob(node);
    }

    /// Job `j` has finished: its AM exits `AM_LINGER` later.
    pub(super) fn am_exits(&mut self, j: JobId) {
        let am = self.job_tasks.running().iter().copied().find(|&id| {
            let t = &self.job_tasks[id as usize];
            t.job == j && t.kind == JobTaskKind::Am
        });
        if let Some(id) = am {
            let at = self.now + crate::model::yarn_defaults::AM_LINGER;
            self.schedule(at, Ev::JobTaskEnd(id));
        }
    }

    /// Job `j` is killed: its running set-up or clean-up task is killed
    /// and it waits for neither any more.
    pub(super) fn kill_job_tasks(&mut self, j: JobId) {
        let running: Vec<u32> = self
            .job_tasks
            .running()
            .iter()
            .copied()
            .filter(|&id| self.job_tasks[id as usize].job == j)
            .collect();
        for id in running {
            let node = self.job_tasks[id as usize].node;
            self.stop_job_task(id, Outcome::Killed);
            self.request_oob(node);
        }
        for q in [JobTaskKind::Setup, JobTaskKind::Cleanup, JobTaskKind::Am] {
            self.queues.done_waiting(q, j);
        }
        self.asks_changed(j);
    }

    /// Node `n` failed: its set-up and clean-up tasks fail, and their jobs
    /// wait for another heartbeat to run them again.
    pub(super) fn fail_job_tasks(&mut self, n: NodeId) {
        let on_node: Vec<u32> = self
            .job_tasks
            .running()
            .iter()
            .copied()
            .filter(|&id| self.job_tasks[id as usize].node == n)
            .collect();
        for id in on_node {
            self.stop_job_task(id, Outcome::Failed);
            let t = &self.job_tasks[id as usize];
            let j = t.job;
            match t.kind {
                JobTaskKind::Setup => self.queues.wait_for(JobTaskKind::Setup, j),
                JobTaskKind::Cleanup => self.queues.wait_for(JobTaskKind::Cleanup, j),
                // A lost AM is started again elsewhere (its job's finished
                // tasks recovered, `yarn.app.mapreduce.am.job.recovery.
                // enable`); one lingering after its job is done is gone.
                JobTaskKind::Am if !self.jobs[j as usize].is_done() => {
                    // The RM kills the failed attempt's containers (MapReduce
                    // keeps none across attempts): the tasks run again
                    // under the next AM.
                    self.jobs[j as usize].am_ready = None;
                    self.jobs[j as usize].reduce_asks = 0;
                    for a in self.live_attempts(j) {
                        self.stop_attempt(a, Outcome::Killed);
                        let at = &self.attempts[a as usize];
                        let (kind, task) = (at.kind, at.task);
                        self.requeue_if_idle(j, kind, task);
                    }
                    self.asks_changed(j);
                    self.queues.wait_for(JobTaskKind::Am, j)
                }
                JobTaskKind::Am => {}
            }
        }
    }
}

//! The queues a job passes through between its arrival and its finish,
//! each in the order the engine and the policies read it:
//!
//! - `waiting`: arrived, held back by its pool's `max_running_jobs`, in
//!   arrival order (the first of a pool starts when the pool has room);
//! - `setup`, `am`: runnable, waiting for its set-up task or for a
//!   scheduler to place its ApplicationMaster, by id (Hadoop walks its
//!   jobs in id order);
//! - `active`: runnable and unfinished, its tasks schedulable, by (submit
//!   time, id): the queue policies schedule from;
//! - `cleanup`: its tasks done, waiting for its clean-up task, by id;
//! - `committing`: a replayed job past its last task, in its recorded
//!   commit.
//!
//! A job's place in these is the engine's to change (`world/`); policies
//! read them through the view.

use super::jobtask::JobTaskKind as Prep;
use crate::model::{JobId, Ms};

#[derive(Clone, Debug, Default)]
pub struct Queues {
    active: Vec<JobId>,
    waiting: Vec<JobId>,
    setup: Vec<JobId>,
    cleanup: Vec<JobId>,
    am: Vec<JobId>,
    committing: Vec<JobId>,
}

impl Queues {
    /// Runnable unfinished jobs, by (submit, id).
    #[inline]
    pub fn active(&self) -> &[JobId] {
        &self.active
    }

    /// Jobs held back by their pool's limit, in arrival order.
    #[inline]
    pub fn waiting(&self) -> &[JobId] {
        &self.waiting
    }

    /// Jobs waiting for their job task of kind `q` (a set-up or clean-up
    /// task to be handed out, an ApplicationMaster to be placed), by id.
    #[inline]
    pub fn awaiting(&self, q: Prep) -> &[JobId] {
        match q {
            Prep::Setup => &self.setup,
            Prep::Cleanup => &self.cleanup,
            Prep::Am => &self.am,
        }
    }

    /// Replayed jobs in their recorded commit.
    #[inline]
    pub fn committing(&self) -> &[JobId] {
        &self.committing
    }

    /// Nothing is queued anywhere but in a commit.
    #[inline]
    pub fn idle(&self) -> bool {
        self.active.is_empty()
            && self.waiting.is_empty()
            && self.setup.is_empty()
            && self.am.is_empty()
            && self.cleanup.is_empty()
    }

    /// Job `j`'s tasks are schedulable: it joins the active jobs at its
    /// place by `key` (its submit time and id).
    #[inline]
    pub fn activate(&mut self, j: JobId, key: impl Fn(JobId) -> (Ms, JobId)) {
        let k = key(j);
        let pos = self.active.partition_point(|&x| key(x) < k);
        self.active.insert(pos, j);
    }

    /// Job `j` leaves the active jobs (its tasks are done, or it is).
    #[inline]
    pub fn deactivate(&mut self, j: JobId) {
        self.active.retain(|&x| x != j);
    }

    /// Job `j` waits for its pool's room.
    #[inline]
    pub fn hold(&mut self, j: JobId) {
        self.waiting.push(j);
    }

    /// Whether job `j` is held back by its pool's limit.
    #[inline]
    pub fn held(&self, j: JobId) -> bool {
        self.waiting.contains(&j)
    }

    /// Job `j` is no longer held back.
    #[inline]
    pub fn unhold(&mut self, j: JobId) {
        self.waiting.retain(|&x| x != j);
    }

    /// The first held-back job for which `of_pool` holds, taken off the
    /// queue.
    #[inline]
    pub fn take_held(&mut self, of_pool: impl Fn(JobId) -> bool) -> Option<JobId> {
        let pos = self.waiting.iter().position(|&w| of_pool(w))?;
        Some(self.waiting.remove(pos))
    }

    /// Job `j` waits in `q` (once).
    #[inline]
    pub fn wait_for(&mut self, q: Prep, j: JobId) {
        let queue = self.queue(q);
        if let Err(pos) = queue.binary_search(&j) {
            queue.insert(pos, j);
        }
    }

    /// Job `j` no longer waits in `q`.
    #[inline]
    pub fn done_waiting(&mut self, q: Prep, j: JobId) {
        self.queue(q).retain(|&x| x != j);
    }

    /// Job `j`'s tasks are done and it commits for its recorded time.
    #[inline]
    pub fn commit(&mut self, j: JobId) {
        self.deactivate(j);
        self.committing.push(j);
    }

    /// Job `j` is done, finished or killed: it leaves every queue but a
    /// clean-up's (which its clean-up task's end or its kill ends).
    #[inline]
    pub fn retire(&mut self, j: JobId) {
        self.waiting.retain(|&x| x != j);
        self.setup.retain(|&x| x != j);
        self.am.retain(|&x| x != j);
        self.committing.retain(|&x| x != j);
        self.active.retain(|&x| x != j);
    }

    fn queue(&mut self, q: Prep) -> &mut Vec<JobId> {
        match q {
            Prep::Setup => &mut self.setup,
            Prep::Cleanup => &mut self.cleanup,
            Prep::Am => &mut self.am,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_queue_keeps_its_order() {
        let mut q = Queues::default();
        let submit = |j: JobId| ([5, 1, 5, 0][j as usize], j);
        for j in [0, 1, 2, 3] {
            q.activate(j, submit);
        }
        assert_eq!(q.active(), &[3, 1, 0, 2], "by submit, then id");
        for j in [4, 2, 4, 1] {
            q.wait_for(Prep::Am, j);
        }
        assert_eq!(q.awaiting(Prep::Am), &[1, 2, 4], "by id, once each");
        q.hold(9);
        q.hold(7);
        assert_eq!(q.take_held(|j| j < 9), Some(7));
        assert_eq!(q.waiting(), &[9]);
        q.commit(0);
        q.wait_for(Prep::Cleanup, 1);
        q.retire(1);
        assert_eq!(q.active(), &[3, 2]);
        assert_eq!(q.awaiting(Prep::Am), &[2, 4]);
        assert_eq!(q.awaiting(Prep::Cleanup), &[1], "a clean-up is left to end");
        assert_eq!(q.committing(), &[0]);
        q.retire(0);
        assert!(q.committing().is_empty());
    }
}

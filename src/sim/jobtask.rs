//! Hadoop 1.x's job-setup and job-cleanup tasks (`JobInProgress.initTasks`,
//! `JobTracker.getSetupAndCleanupTasks`). A job made runnable waits in PREP
//! until a heartbeat hands out its set-up task; its maps and reduces are
//! schedulable once that ends. After its last task a clean-up task runs,
//! and the job finishes when it ends. Each takes one slot on the
//! heartbeating node, a map slot if one is free, else a reduce slot, and
//! the heartbeat that hands one out hands out nothing else: the JobTracker
//! returns it before asking the scheduler. Clean-up tasks come first, then
//! set-up tasks, each in job-id order, as Hadoop walks its jobs.
//!
//! They are not task attempts: no policy sees them, they move no data, and
//! they are not counted in a job's attempts or the run's utilization; they
//! appear in `--trace` with `kind` "setup" or "cleanup".
//!
//! On YARN each job's ApplicationMaster is a task of this kind too, with
//! an ask of its own (`tasks.am_memory`, `am_vcores`): its job waits in
//! [`World::awaiting_am`] until a scheduler places it
//! (`Heartbeat::launch_am`), starts up, then holds its container until its
//! job has finished and its JVM has exited.

use super::job::{Kind, Outcome};
use super::share::Grows;
use crate::model::{JobId, Ms, NodeId};
use serde::Serialize;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum JobTaskKind {
    Setup,
    Cleanup,
    /// `slot_model = "yarn"`: the job's ApplicationMaster. Its start-up
    /// (`tasks.am_startup`) takes the set-up task's place; it then holds
    /// its container until its job has finished and its JVM has exited
    /// (`yarn_defaults::AM_LINGER` later). A YARN policy places it.
    Am,
}

/// One run of a job's set-up or clean-up task.
#[derive(Clone, Debug)]
pub struct JobTaskRun {
    pub job: JobId,
    pub kind: JobTaskKind,
    /// Its attempt number (a run on a node that failed is run again).
    pub attempt: u16,
    pub node: NodeId,
    /// The type of slot it took (in the typed view).
    pub slot_kind: Kind,
    /// What it asked of its node and holds while it runs (one slot, or an
    /// AM's container).
    pub ask: crate::model::Resource,
    pub start: Ms,
    pub end: Option<Ms>,
    pub outcome: Outcome,
    /// Task attempts launched before it: its place in `--trace`.
    pub seq: u32,
    /// The policy in force when it was handed out (index into the run's
    /// policy labels).
    pub policy: u16,
}

/// Every set-up, clean-up and ApplicationMaster task run so far, by id,
/// and those running now in the order they started.
#[derive(Clone, Debug, Default)]
pub struct JobTasks {
    all: Grows<JobTaskRun>,
    running: Vec<u32>,
}

impl JobTasks {
    /// `t` starts running; returns its id.
    #[inline]
    pub fn start(&mut self, t: JobTaskRun) -> u32 {
        let id = self.all.len() as u32;
        self.all.push(t);
        self.running.push(id);
        id
    }

    /// Running task `id` ends at `now` with `outcome`.
    #[inline]
    pub fn stop(&mut self, id: u32, now: Ms, outcome: Outcome) -> &JobTaskRun {
        self.running.retain(|&x| x != id);
        let t = &mut self.all[id as usize];
        t.end = Some(now);
        t.outcome = outcome;
        t
    }

    #[inline]
    pub fn all(&self) -> &Grows<JobTaskRun> {
        &self.all
    }

    /// Those running now, in the order they started.
    #[inline]
    pub fn running(&self) -> &[u32] {
        &self.running
    }
}

impl std::ops::Index<usize> for JobTasks {
    type Output = JobTaskRun;

    fn index(&self, id: usize) -> &JobTaskRun {
        &self.all[id]
    }
}

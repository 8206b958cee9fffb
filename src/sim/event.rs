//! What a policy hears of (`Policy::hear`): the engine's events as a
//! policy is told them.

use super::job::AttemptId;
use crate::model::{JobId, NodeId};

/// What a policy hears of, after the event that brought it: every arrival
/// and end of the run's jobs and attempts, and every node failure and
/// recovery. A policy that keeps books of its own (an external one, HybSMRP's
/// means) must hear of everything that puts a task back.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// A job became visible to policies: runnable, its set-up task or
    /// ApplicationMaster started.
    JobArrived(JobId),
    /// An attempt succeeded.
    TaskFinished(AttemptId),
    /// An attempt failed or was killed; its task is pending again unless
    /// another attempt of it runs or it is done.
    TaskStopped(AttemptId),
    /// The map `attempt` had finished lost its output with its node and is
    /// pending again.
    MapLost(AttemptId),
    /// A node died (`alive == false`) or came back.
    NodeChanged {
        node: NodeId,
        alive: bool,
    },
    JobFinished(JobId),
    /// A person set the job's priority or moved it to another pool
    /// (`set_priority`, `move_job`): a policy that keeps either of its own
    /// brings it up to date.
    JobUpdated(JobId),
    /// An attempt started, whoever launched it (heard only by a policy
    /// that asks to: [`Policy::hears_starts`]).
    TaskStarted(AttemptId),
    /// A set-up, clean-up or ApplicationMaster task started or ended
    /// (an index into [`super::RunView::job_tasks`]; heard as `TaskStarted`).
    JobTaskStarted(u32),
    JobTaskEnded(u32),
}

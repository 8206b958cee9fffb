//! The assignment context a policy gets on a heartbeat.

use super::view::RunView;
use super::World;
use crate::model::{Capacity, JobId, NodeId, Resource};
use crate::sim::cluster::Node;
use crate::sim::job::{AttemptId, Kind};

/// The assignment context a policy gets on a heartbeat: read access to the
/// world, the heartbeating node, and the ways to launch a task there (in a
/// slot of its own kind, or, for slot-borrowing policies, of the other).
pub struct Heartbeat<'a> {
    pub(super) w: &'a mut World,
    pub node: NodeId,
    pub assigned: Vec<AttemptId>,
    /// Whether this heartbeat's inspection will be asked for (`--inspect`,
    /// the TUI's inspector): a policy that sends its values with its
    /// decisions computes them only then.
    pub inspecting: bool,
}

impl<'a> Heartbeat<'a> {
    /// Node `node`'s heartbeat, nothing launched yet.
    pub(in crate::sim) fn new(w: &'a mut World, node: NodeId, inspecting: bool) -> Heartbeat<'a> {
        Heartbeat {
            w,
            node,
            assigned: Vec::new(),
            inspecting,
        }
    }
}

impl Heartbeat<'_> {
    /// The run as it stands, read-only.
    pub fn view(&self) -> RunView<'_> {
        self.w.view()
    }

    pub fn node(&self) -> &Node {
        &self.w.cluster.nodes[self.node as usize]
    }

    /// The cluster's capacity model.
    pub fn capacity(&self) -> &Capacity {
        &self.w.cluster.capacity
    }

    /// Free map slots (or containers) on this node: how many more maps
    /// in map slots it admits.
    pub fn free_maps(&self) -> u32 {
        self.node().free_slots(self.capacity(), Kind::Map)
    }

    /// Free reduce slots (or containers) on this node.
    pub fn free_reduces(&self) -> u32 {
        self.node().free_slots(self.capacity(), Kind::Reduce)
    }

    /// Free slots of kind `slot` in this node's typed view
    /// ([`Node::free_typed`]).
    pub fn free_typed(&self, slot: Kind) -> u32 {
        self.node().free_typed(self.capacity(), slot)
    }

    /// Launches pending map `task` of `job` in a map slot of this node.
    ///
    /// # Panics
    /// If the node has no free map slot or the task is not pending: both are
    /// policy bugs, which the invariant tests exist to catch.
    pub fn launch_map(&mut self, job: JobId, task: u32, rule: &'static str) -> AttemptId {
        assert!(self.free_maps() > 0, "policy launched a map on a full node");
        self.launch_in(job, Kind::Map, Kind::Map, task, rule)
    }

    /// Under ApplicationMasters (YARN): launches pending `task` of `job` (a
    /// map or a reduce) in a container of `res` on this node, as the
    /// policy normalised it. The container holds `res` from now; the task
    /// starts when the job's AM next calls allocate.
    ///
    /// # Panics
    /// If the node does not admit the container (a policy bug). Vcores are
    /// the policy's to check: Hadoop's FIFO and default Capacity schedulers
    /// do not ([`Capacity::admits`]).
    pub fn launch_container(
        &mut self,
        job: JobId,
        kind: Kind,
        task: u32,
        res: Resource,
        rule: &'static str,
    ) -> AttemptId {
        assert!(
            self.node().admits(self.capacity(), res),
            "policy launched a container that does not fit"
        );
        if kind == Kind::Reduce {
            // The request it answers (an AM-less job asks for none).
            let j = &mut self.w.jobs[job as usize];
            j.reduce_asks = j.reduce_asks.saturating_sub(1);
        }
        self.launch_with(job, kind, kind, task, res, rule)
    }

    /// Under ApplicationMasters (YARN): starts the ApplicationMaster of
    /// `job` (one of `World::awaiting_am`) in a container of `res` on this
    /// node.
    ///
    /// # Panics
    /// As [`Heartbeat::launch_container`], or if the job awaits no AM.
    pub fn launch_am(&mut self, job: JobId, res: Resource) {
        assert!(
            self.node().admits(self.capacity(), res),
            "policy launched an AM that does not fit"
        );
        assert!(
            self.w
                .queues
                .awaiting(crate::sim::jobtask::JobTaskKind::Am)
                .binary_search(&job)
                .is_ok(),
            "policy launched an AM for a job that awaits none"
        );
        self.w.launch_am(job, self.node, res);
    }

    /// Kills a running attempt anywhere in the cluster (fair preemption).
    pub fn preempt(&mut self, attempt: AttemptId) {
        self.w.preempt(attempt);
    }

    /// Launches pending reduce `task` of `job` in a reduce slot of this node.
    ///
    /// # Panics
    /// If the node has no free reduce slot or the task is not pending.
    pub fn launch_reduce(&mut self, job: JobId, task: u32, rule: &'static str) -> AttemptId {
        assert!(
            self.free_reduces() > 0,
            "policy launched a reduce on a full node"
        );
        self.launch_in(job, Kind::Reduce, Kind::Reduce, task, rule)
    }

    /// Launches pending map `task` of `job` in a free *reduce* slot of this
    /// node (DynamicMR's slot borrowing). On unified containers the slot is
    /// a container, counted as a reduce slot in the typed view
    /// ([`Node::free_typed`]).
    ///
    /// # Panics
    /// If the node has no free reduce slot or the task is not pending.
    pub fn launch_map_in_reduce_slot(
        &mut self,
        job: JobId,
        task: u32,
        rule: &'static str,
    ) -> AttemptId {
        assert!(
            self.free_reduces() > 0,
            "policy launched a map in a reduce slot on a node with none free"
        );
        self.launch_in(job, Kind::Map, Kind::Reduce, task, rule)
    }

    /// Launches pending reduce `task` of `job` in a free *map* slot of this
    /// node (DynamicMR's slot borrowing).
    ///
    /// # Panics
    /// If the node has no free map slot or the task is not pending.
    pub fn launch_reduce_in_map_slot(
        &mut self,
        job: JobId,
        task: u32,
        rule: &'static str,
    ) -> AttemptId {
        assert!(
            self.free_maps() > 0,
            "policy launched a reduce in a map slot on a node with none free"
        );
        self.launch_in(job, Kind::Reduce, Kind::Map, task, rule)
    }

    /// The running task of `kind` of `job` that the scenario's speculation
    /// rule would copy on this node, if any (`tasks.speculation`; always
    /// `None` when it is off). Never a task with a pending sibling of its
    /// kind in the job, never one an attempt of which has run here
    /// (`hasRunOnMachine`), a reduce only once its job's maps are done.
    ///
    /// Policies built on Hadoop's schedulers ask this inside each job's
    /// task lookup, once the job's pending tasks of the kind are exhausted
    /// at the allowed locality, as `JobInProgress.findNewMapTask` and
    /// `findNewReduceTask` do, and then do not rely on the engine's pass
    /// over idle slots ([`crate::sim::policy::Policy::speculates`]).
    pub fn speculative_task(&self, job: JobId, kind: Kind) -> Option<u32> {
        crate::sim::speculation::pick_in_job(
            self.w.view(),
            self.w.cfg.tasks.speculation,
            kind,
            self.node,
            job,
        )
    }

    /// Launches a speculative copy of the task [`Heartbeat::speculative_task`]
    /// picks for `job` and `kind`, in a free slot of its own kind on this
    /// node. Returns the copy, or `None` if there is no such task or no free
    /// slot. Its rule is the speculation rule's (`speculate/hadoop`,
    /// `speculate/late`).
    pub fn speculate(&mut self, job: JobId, kind: Kind) -> Option<AttemptId> {
        let free = match kind {
            Kind::Map => self.free_maps(),
            Kind::Reduce => self.free_reduces(),
        };
        if free == 0 {
            return None;
        }
        let task = self.speculative_task(job, kind)?;
        Some(self.launch_speculative(job, kind, task))
    }

    /// Launches a speculative copy of running task `task` of `job` in a
    /// free slot of its own kind on this node.
    ///
    /// # Panics
    /// If the node has no free slot of the kind, or the task is not running
    /// or already has a speculative copy (a task runs at most two attempts
    /// at once, see [`crate::sim::job::Live`]).
    pub fn launch_speculative(&mut self, job: JobId, kind: Kind, task: u32) -> AttemptId {
        let w = &*self.w;
        let (free, running, live) = match kind {
            Kind::Map => {
                let m = &w.job(job).maps[task as usize];
                (self.free_maps(), m.state, m.live.len())
            }
            Kind::Reduce => {
                let r = &w.job(job).reduces[task as usize];
                (self.free_reduces(), r.state, r.live.len())
            }
        };
        let running = running == crate::sim::job::TaskState::Running;
        assert!(
            free > 0,
            "policy launched a speculative copy on a full node"
        );
        assert!(running, "policy speculated a task that is not running");
        assert_eq!(live, 1, "policy speculated a task already speculated");
        let a = self.w.launch_copy(job, kind, task, self.node);
        self.assigned.push(a);
        a
    }

    /// Launches a speculative copy of running task `task` of `job` on this
    /// node, asking `ask` (one slot of its kind, or its container), under
    /// the policy's own `rule`: a copy the policy decided on rather than
    /// the scenario's speculation rule.
    ///
    /// # Panics
    /// As [`Heartbeat::launch_speculative`], or if the node does not admit
    /// `ask`.
    pub fn launch_speculative_with(
        &mut self,
        job: JobId,
        kind: Kind,
        task: u32,
        ask: Resource,
        rule: &'static str,
    ) -> AttemptId {
        let live = match kind {
            Kind::Map => &self.w.job(job).maps[task as usize].live,
            Kind::Reduce => &self.w.job(job).reduces[task as usize].live,
        };
        assert_eq!(live.len(), 1, "policy speculated a task not running alone");
        assert!(
            self.node().admits(self.capacity(), ask),
            "policy launched a speculative copy that does not fit"
        );
        let a = self
            .w
            .launch_copy_with(job, kind, task, self.node, ask, rule);
        self.assigned.push(a);
        a
    }

    /// Launches a task in one slot of kind `slot`.
    fn launch_in(
        &mut self,
        job: JobId,
        kind: Kind,
        slot: Kind,
        task: u32,
        rule: &'static str,
    ) -> AttemptId {
        let ask = self.capacity().slot_ask(slot);
        self.launch_with(job, kind, slot, task, ask, rule)
    }

    fn launch_with(
        &mut self,
        job: JobId,
        kind: Kind,
        slot: Kind,
        task: u32,
        ask: Resource,
        rule: &'static str,
    ) -> AttemptId {
        let a = self
            .w
            .launch(job, kind, slot, task, self.node, ask, rule, false);
        self.assigned.push(a);
        a
    }
}

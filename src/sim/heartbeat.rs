//! The assignment context a policy gets on a heartbeat.

use super::cluster::Node;
use super::job::{AttemptId, Kind};
use super::world::World;
use crate::model::{JobId, NodeId};

/// The assignment context a policy gets on a heartbeat: read access to the
/// world, the heartbeating node, and the ways to launch a task there (in a
/// slot of its own kind, or, for slot-borrowing policies, of the other).
pub struct Heartbeat<'a> {
    pub(super) w: &'a mut World,
    pub node: NodeId,
    pub assigned: Vec<AttemptId>,
}

impl Heartbeat<'_> {
    pub fn world(&self) -> &World {
        self.w
    }

    pub fn node(&self) -> &Node {
        &self.w.cluster.nodes[self.node as usize]
    }

    pub fn free_maps(&self) -> u32 {
        self.node().free_maps(self.w.model())
    }

    pub fn free_reduces(&self) -> u32 {
        self.node().free_reduces(self.w.model())
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
    /// node (DynamicMR's slot borrowing). On a unified cluster the slot is a
    /// container, counted as a reduce slot in the typed view
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

    fn launch_in(
        &mut self,
        job: JobId,
        kind: Kind,
        slot: Kind,
        task: u32,
        rule: &'static str,
    ) -> AttemptId {
        let a = self.w.launch(job, kind, slot, task, self.node, rule, false);
        self.assigned.push(a);
        a
    }
}

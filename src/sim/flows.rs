//! Who each flow is for, and what the run records of the flows: their
//! bytes by kind and, when `--flows` asked, every flow with its exact times
//! and path.

use super::job::AttemptId;
use crate::model::NodeId;

/// What a flow is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FlowKind {
    /// A map reading its block.
    Input,
    /// A map writing its output to its own disk.
    Spill,
    /// A reducer fetching map outputs from one node.
    Shuffle,
    /// A reduce writing its output along the HDFS pipeline.
    Output,
    /// A reducer over its shuffle buffer merging files on its own disk
    /// (`network.io_sort_factor`; `merge.rs`). The outputs count it as a
    /// spill, as Hadoop's Spilled Records counter does.
    Merge,
}

impl FlowKind {
    pub const ALL: [FlowKind; 4] = [
        FlowKind::Input,
        FlowKind::Spill,
        FlowKind::Shuffle,
        FlowKind::Output,
    ];

    /// The kind the outputs give it (a merge is a spill there).
    pub fn as_str(self) -> &'static str {
        self.tally().name()
    }

    /// The kind its bytes are counted under.
    pub fn tally(self) -> FlowKind {
        match self {
            FlowKind::Merge => FlowKind::Spill,
            k => k,
        }
    }

    fn name(self) -> &'static str {
        match self {
            FlowKind::Input => "input",
            FlowKind::Spill | FlowKind::Merge => "spill",
            FlowKind::Shuffle => "shuffle",
            FlowKind::Output => "output",
        }
    }
}

/// Who a flow belongs to and where it goes.
#[derive(Clone, Copy, Debug)]
pub struct FlowMeta {
    pub attempt: AttemptId,
    pub kind: FlowKind,
    pub src: NodeId,
    pub dst: NodeId,
    /// Its number in order of start (the `--flows` id).
    pub seq: u64,
}

/// A flow as `--flows` reports it.
#[derive(Clone, Debug)]
pub struct FlowRecord {
    pub seq: u64,
    pub kind: FlowKind,
    pub attempt: AttemptId,
    pub src: NodeId,
    pub dst: NodeId,
    /// MB moved (requested, unless it was cancelled).
    pub mb: f64,
    /// Exact times, fractional ms (see [`super::network::Network::start_at`]).
    pub start: f64,
    pub end: Option<f64>,
    /// Disks and links, in path order.
    pub links: Vec<u32>,
}

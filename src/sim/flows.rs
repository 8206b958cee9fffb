//! Who each flow is for, and what the run records of the flows: their
//! bytes by kind and, when `--flows` asked, every flow with its exact times
//! and path.

use super::job::AttemptId;
use super::share::Grows;
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
    #[inline]
    pub fn as_str(self) -> &'static str {
        self.tally().name()
    }

    /// The kind its bytes are counted under.
    #[inline]
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

/// Who each flow is for (by flow id, reused as the network reuses ids),
/// what the flows moved by kind, and, when asked, every flow.
#[derive(Clone, Debug, Default)]
pub struct Flows {
    meta: Vec<FlowMeta>,
    /// Flows started so far (the next one's `seq`).
    seq: u64,
    log: Option<Grows<FlowRecord>>,
    /// MB moved by kind, in [`FlowKind::ALL`]'s order.
    mb: [f64; 4],
}

impl Flows {
    /// Keeps every flow from now on; only before the first has started,
    /// so that the record is whole.
    #[inline]
    pub fn record(&mut self) {
        if self.log.is_none() && self.seq == 0 {
            self.log = Some(Grows::default());
        }
    }

    /// Flow `f` started at `start` (exact ms) for attempt `attempt`, to
    /// move `mb` from `src` to `dst` over `links`.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    pub fn started(
        &mut self,
        f: u32,
        attempt: AttemptId,
        kind: FlowKind,
        src: NodeId,
        dst: NodeId,
        mb: f64,
        start: f64,
        links: &[u32],
    ) {
        let seq = self.seq;
        self.seq += 1;
        let meta = FlowMeta {
            attempt,
            kind,
            src,
            dst,
            seq,
        };
        let i = f as usize;
        if self.meta.len() <= i {
            self.meta.resize(i + 1, meta);
        }
        self.meta[i] = meta;
        if let Some(log) = self.log.as_mut() {
            log.push(FlowRecord {
                seq,
                kind,
                attempt,
                src,
                dst,
                mb,
                start,
                end: None,
                links: links.to_vec(),
            });
        }
    }

    /// Flow `f` ended at `end` (exact ms), done or cancelled, having moved
    /// `moved` MB. Returns whom it was for.
    #[inline]
    pub fn ended(&mut self, f: u32, moved: f64, end: f64) -> FlowMeta {
        let meta = self.meta[f as usize];
        let k = FlowKind::ALL
            .iter()
            .position(|&x| x == meta.kind.tally())
            .unwrap_or(0);
        self.mb[k] += moved;
        if let Some(log) = self.log.as_mut() {
            let rec = &mut log[meta.seq as usize];
            rec.end = Some(end);
            rec.mb = moved;
        }
        meta
    }

    /// Whom running flow `f` is for.
    #[inline]
    pub fn meta(&self, f: u32) -> FlowMeta {
        self.meta[f as usize]
    }

    /// Every flow, when recorded.
    #[inline]
    pub fn log(&self) -> Option<&Grows<FlowRecord>> {
        self.log.as_ref()
    }

    /// MB moved by kind (input, spill, shuffle, output).
    #[inline]
    pub fn mb(&self) -> [f64; 4] {
        self.mb
    }

    /// Entries kept (for a footprint).
    #[inline]
    pub fn kept(&self) -> usize {
        self.meta.len()
    }
}

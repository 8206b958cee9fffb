//! A reducer's copy as it stands: what each source node has for it and
//! what it has fetched (`Source`, `Copy`), and its merges on disk
//! (`Merges`, Hadoop 1.x's `ReduceCopier` and local-FS merger). The data
//! and their own rules; the shuffle and merge that move them are the
//! engine's (`world/shuffle.rs`, `world/merge.rs`).

use super::network::{FlowId, ResId};
use crate::model::NodeId;
use std::collections::VecDeque;

/// What a reducer has to fetch from one node, and has fetched: 24 bytes,
/// since a reducer of a job spread over the whole cluster keeps one for
/// every node (thousands of reducers at once, each with thousands).
#[derive(Clone, Debug, Default)]
pub(in crate::sim) struct Source {
    /// MB available, not fetched, not in flight.
    pub(in crate::sim) avail: f64,
    /// MB fetched.
    pub(in crate::sim) fetched: f64,
    /// Map outputs in `avail` (each map's output is a segment of the
    /// reducer's input).
    pub(in crate::sim) segs: u32,
    /// The map outputs in the fetch under way, with two flags in its top
    /// bits: [`Source::QUEUED`] and [`Source::BUSY`].
    pub(in crate::sim) fetching: u32,
}

const _: () = assert!(std::mem::size_of::<Source>() == 24);

impl Source {
    /// In the reducer's queue.
    pub(in crate::sim) const QUEUED: u32 = 1 << 31;
    /// A fetch from it is under way.
    pub(in crate::sim) const BUSY: u32 = 1 << 30;
    pub(in crate::sim) const SEGS: u32 = Source::BUSY - 1;

    pub(in crate::sim) fn queued(&self) -> bool {
        self.fetching & Source::QUEUED != 0
    }

    pub(in crate::sim) fn busy(&self) -> bool {
        self.fetching & Source::BUSY != 0
    }

    pub(in crate::sim) fn set_queued(&mut self, on: bool) {
        if on {
            self.fetching |= Source::QUEUED;
        } else {
            self.fetching &= !Source::QUEUED;
        }
    }

    /// A fetch of `segs` map outputs starts.
    pub(in crate::sim) fn start_fetch(&mut self, segs: u32) {
        debug_assert!(segs <= Source::SEGS, "a node holds fewer outputs");
        self.fetching = (self.fetching & Source::QUEUED) | Source::BUSY | segs;
    }

    /// The fetch under way ended (or did not start after all): the map
    /// outputs it held.
    pub(in crate::sim) fn end_fetch(&mut self) -> u32 {
        let segs = self.fetching & Source::SEGS;
        self.fetching &= Source::QUEUED;
        segs
    }
}

/// A reducer's copy state.
#[derive(Clone, Debug, Default)]
pub struct Copy {
    /// MB fetched so far, and of it from the reducer's own datacenter.
    pub fetched: f64,
    pub fetched_local: f64,
    /// By the node's place among the job's output holders
    /// ([`super::job::Job::source_place`]).
    pub(in crate::sim) sources: Vec<Source>,
    /// Nodes with bytes waiting, in the order they became available.
    pub(in crate::sim) queue: VecDeque<NodeId>,
    /// Fetches under way: (flow, source node).
    pub(in crate::sim) active: Vec<(FlowId, NodeId)>,
    /// Fixed model: the reducer's own copy bandwidths (intra, inter).
    pub(in crate::sim) own: Option<(ResId, ResId)>,
    /// Every fetch ends on the reducer's own disk (its input outgrows
    /// `network.shuffle_buffer`).
    pub(super) to_disk: bool,
    /// Its files on disk and in memory, and its merges (`merge.rs`).
    pub(super) merge: Merges,
}

impl Copy {
    /// Fetches under way.
    pub fn fetches(&self) -> &[(FlowId, NodeId)] {
        &self.active
    }

    /// What it has of the node at `place`.
    pub(in crate::sim) fn source(&mut self, place: usize) -> &mut Source {
        if place >= self.sources.len() {
            self.sources.resize_with(place + 1, Source::default);
        }
        &mut self.sources[place]
    }
}

/// A reducer's files on disk and in memory, and the merge under way.
#[derive(Clone, Debug, Default)]
pub struct Merges {
    /// MB each, smallest first (Hadoop keeps them sorted by length).
    pub(in crate::sim) files: Vec<f64>,
    /// Small segments held in memory, MB.
    pub(in crate::sim) memory: f64,
    /// The size of the file the merge under way writes.
    pub(in crate::sim) merging: Option<f64>,
    /// Every fetch is in: no merge starts but the sort phase's passes.
    pub(in crate::sim) copied: bool,
    /// The sort phase's next pass is its first.
    pub(in crate::sim) first_pass: bool,
}

impl Merges {
    /// A merge is under way.
    pub fn busy(&self) -> bool {
        self.merging.is_some()
    }

    /// The last fetch is in: what memory holds goes to disk as one file,
    /// and the sort phase comes next.
    pub(super) fn copied(&mut self) {
        self.copied = true;
        self.first_pass = true;
        if self.memory > 0.0 {
            let m = std::mem::take(&mut self.memory);
            self.add_file(m);
        }
    }

    pub(in crate::sim) fn add_file(&mut self, mb: f64) {
        let at = self.files.partition_point(|&x| x <= mb);
        self.files.insert(at, mb);
    }

    /// `segs` segments of `mb` MB in all landed: files of their own, or
    /// memory (merged to a file when two-thirds full).
    pub(in crate::sim) fn land(&mut self, mb: f64, segs: u32, buffer: f64) {
        let segs = segs.max(1);
        let each = mb / segs as f64;
        if each > 0.25 * buffer {
            for _ in 0..segs {
                self.add_file(each);
            }
        } else {
            self.memory += mb;
            if self.memory >= 0.66 * buffer {
                let m = std::mem::take(&mut self.memory);
                self.add_file(m);
            }
        }
    }

    /// How many files the next merge takes, if one is due: while copying,
    /// `factor` once `2 × factor − 1` are on disk; in the sort phase,
    /// Merger's pass factor while more than `factor` remain.
    pub(in crate::sim) fn due(&self, factor: u32) -> Option<usize> {
        if self.merging.is_some() {
            return None;
        }
        let (n, f) = (self.files.len(), factor as usize);
        if !self.copied {
            return (n >= 2 * f - 1).then_some(f);
        }
        if n <= f {
            return None;
        }
        let k = if self.first_pass {
            match (n - 1) % (f - 1) {
                0 => f,
                m => m + 1,
            }
        } else {
            f
        };
        Some(k)
    }

    /// Takes the `k` smallest files into a merge: the MB it reads (and
    /// writes).
    pub(in crate::sim) fn take(&mut self, k: usize) -> f64 {
        let mb: f64 = self.files.drain(..k).sum();
        self.merging = Some(mb);
        self.first_pass = false;
        mb
    }

    /// The merge under way wrote its file.
    pub(in crate::sim) fn merged(&mut self) {
        if let Some(mb) = self.merging.take() {
            self.add_file(mb);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Source;

    /// The two flags and the fetch's segment count share a word: setting
    /// one leaves the others as they were.
    #[test]
    fn a_sources_flags_and_fetch_do_not_disturb_one_another() {
        let mut s = Source::default();
        assert!(!s.queued() && !s.busy());
        s.set_queued(true);
        s.start_fetch(Source::SEGS);
        assert!(s.queued() && s.busy(), "a fetch keeps the queued flag");
        s.set_queued(false);
        assert!(!s.queued() && s.busy());
        s.set_queued(true);
        assert_eq!(s.end_fetch(), Source::SEGS, "every segment comes back");
        assert!(s.queued() && !s.busy(), "the end keeps the queued flag");
        assert_eq!(s.end_fetch(), 0, "a fetch's segments are taken once");
        s.start_fetch(3);
        s.end_fetch();
        s.start_fetch(5);
        assert_eq!(
            s.end_fetch(),
            5,
            "a fetch that did not start leaves no count"
        );
        assert!(s.queued());
    }
}

#[cfg(test)]
mod merge_tests {
    use super::*;

    /// 80 map outputs of 125 MB each (terasort-8's reducers: 10 GB in 80
    /// segments) behind a 140 MB buffer, factor 10.
    #[test]
    fn merges_follow_hadoops_local_fs_merger_and_pass_factor() {
        let mut m = Merges::default();
        let mut merged = Vec::new();
        for _ in 0..80 {
            m.land(125.0, 1, 140.0);
            if let Some(k) = m.due(10) {
                // Nineteen files on disk: the ten smallest are merged.
                assert_eq!((m.files.len(), k), (19, 10));
                merged.push(m.take(k));
                m.merged();
            }
        }
        // At 19, 28, …, 73 segments: seven merges of ten 125 MB files
        // (the 1250 MB files are never among the ten smallest), leaving
        // 7 × 1250 + 10 × 125 MB on disk.
        assert_eq!(merged, vec![1250.0; 7]);
        m.copied();
        assert_eq!(m.files.len(), 17);
        // The sort phase: (17 − 1) mod 9 + 1 = 8 files in the first pass,
        // the eight 125 MB ones, leaving ten: the reduce reads those.
        assert_eq!(m.due(10), Some(8));
        assert_eq!(m.take(8), 1000.0);
        m.merged();
        assert_eq!(m.due(10), None);
        let mut want = vec![125.0, 125.0, 1000.0];
        want.extend([1250.0; 7]);
        assert_eq!(m.files, want);
    }

    #[test]
    fn small_segments_gather_in_memory_and_leave_it_two_thirds_full() {
        let mut m = Merges::default();
        // 20 MB segments: under a quarter of 140 MB, held in memory; the
        // fifth brings memory to 100 MB ≥ 92.4 MB: one file of 100 MB.
        for _ in 0..4 {
            m.land(20.0, 1, 140.0);
        }
        assert!(m.files.is_empty());
        m.land(20.0, 1, 140.0);
        assert_eq!(m.files, vec![100.0]);
        // A fetch of three outputs of 40 MB: each over 35 MB, three files.
        m.land(120.0, 3, 140.0);
        assert_eq!(m.files, vec![40.0, 40.0, 40.0, 100.0]);
        // What memory holds at the copy's end is one more file.
        m.land(10.0, 1, 140.0);
        m.copied();
        assert_eq!(m.files, vec![10.0, 40.0, 40.0, 40.0, 100.0]);
    }

    #[test]
    fn the_first_sort_pass_leaves_later_passes_a_full_factor() {
        // 12 files, factor 10: (12 − 1) mod 9 + 1 = 3, leaving 10.
        let mut m = Merges {
            files: vec![1.0; 12],
            copied: true,
            first_pass: true,
            ..Merges::default()
        };
        assert_eq!(m.due(10), Some(3));
        m.take(3);
        m.merged();
        assert_eq!(m.files.len(), 10);
        assert_eq!(m.due(10), None);
        // 28 files: 28 − 1 = 27, a multiple of 9: ten, then ten, leaving 10.
        let mut m = Merges {
            files: vec![1.0; 28],
            copied: true,
            first_pass: true,
            ..Merges::default()
        };
        let mut passes = Vec::new();
        while let Some(k) = m.due(10) {
            passes.push(k);
            m.take(k);
            m.merged();
        }
        assert_eq!(passes, vec![10, 10]);
        assert_eq!(m.files.len(), 10);
    }
}

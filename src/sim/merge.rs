//! The reduce-side merge of Hadoop 1.x, for a reducer whose input outgrows
//! its in-memory shuffle buffer (`network.shuffle_buffer`): every fetch
//! lands on its disk (`shuffle.rs`), and the files there are merged
//! `io.sort.factor` at a time, each merge reading and writing its files'
//! bytes on that disk.
//!
//! As `ReduceTask.ReduceCopier` and `Merger` do it (1.0.3):
//! - Each map's output is one segment of the reducer's input. A segment
//!   over a quarter of the buffer (`maxSingleShuffleLimit`) is written to
//!   disk as a file of its own; smaller ones are held in memory, and each
//!   time memory is two-thirds full (`mapred.job.shuffle.merge.percent`)
//!   they are merged into one file.
//! - While the copy goes on, once `2 × io.sort.factor − 1` files are on
//!   disk, the `LocalFSMerger` merges the `io.sort.factor` smallest into
//!   one, one merge at a time. When the last fetch is in, the copy phase
//!   waits for the merge under way, and starts no other.
//! - Then the sort phase: what memory holds is written out as one more
//!   file, and while more files than `io.sort.factor` remain, a pass
//!   merges the smallest: the first pass `(n − 1) mod (factor − 1) + 1`
//!   of them (when that is not 0), so that every later pass merges exactly
//!   `io.sort.factor` (`Merger.getPassFactor`). The last `io.sort.factor`
//!   files are read by the reduce as it runs, which its compute stands for.
//!
//! Left out: the merges' CPU (the reduce's compute stands for it), the
//! in-memory merge's own timing (a fetch writes its bytes through to disk
//! as it lands), and a failed source's files (they stay on disk, as the
//! bytes the reducer already holds).

use super::job::{AttemptId, Phase};
use super::phases::FlowKind;
use super::world::World;

/// A reducer's files on disk and in memory, and the merge under way.
#[derive(Clone, Debug, Default)]
pub struct Merges {
    /// MB each, smallest first (Hadoop keeps them sorted by length).
    files: Vec<f64>,
    /// Small segments held in memory, MB.
    memory: f64,
    /// The size of the file the merge under way writes.
    merging: Option<f64>,
    /// Every fetch is in: no merge starts but the sort phase's passes.
    copied: bool,
    /// The sort phase's next pass is its first.
    first_pass: bool,
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

    fn add_file(&mut self, mb: f64) {
        let at = self.files.partition_point(|&x| x <= mb);
        self.files.insert(at, mb);
    }

    /// `segs` segments of `mb` MB in all landed: files of their own, or
    /// memory (merged to a file when two-thirds full).
    fn land(&mut self, mb: f64, segs: u32, buffer: f64) {
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
    fn due(&self, factor: u32) -> Option<usize> {
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
    fn take(&mut self, k: usize) -> f64 {
        let mb: f64 = self.files.drain(..k).sum();
        self.merging = Some(mb);
        self.first_pass = false;
        mb
    }

    /// The merge under way wrote its file.
    fn merged(&mut self) {
        if let Some(mb) = self.merging.take() {
            self.add_file(mb);
        }
    }
}

impl World {
    fn merges_mut(&mut self, a: AttemptId) -> Option<&mut Merges> {
        let r = self.attempts[a as usize].run;
        if r == u32::MAX {
            return None;
        }
        self.runs[r as usize]
            .copy
            .as_deref_mut()
            .map(|c| &mut c.merge)
    }

    /// A fetch of `mb` MB in `segs` map outputs landed on reducer `a`'s
    /// disk.
    pub(super) fn landed_on_disk(&mut self, a: AttemptId, mb: f64, segs: u32) {
        let Some(buffer) = self.net_spec.shuffle_buffer_mb else {
            return;
        };
        if let Some(m) = self.merges_mut(a) {
            m.land(mb, segs, buffer);
        }
        self.start_merge_if_due(a);
    }

    /// Starts the merge that is due, if one is: a flow on the reducer's
    /// disk that reads and writes the files' bytes. Returns whether one
    /// started (or ended at once, for files of no bytes).
    fn start_merge_if_due(&mut self, a: AttemptId) -> bool {
        let factor = self.net_spec.io_sort_factor;
        let Some(m) = self.merges_mut(a) else {
            return false;
        };
        let Some(k) = m.due(factor) else {
            return false;
        };
        let mb = m.take(k);
        let node = self.attempts[a as usize].node;
        let cap = self.fixed_cap(self.net_spec.disk_mbps);
        let path = self.links.local(node);
        match self.start_flow(a, FlowKind::Merge, node, node, path, 2.0 * mb, cap) {
            Some(f) => {
                let r = self.attempts[a as usize].run as usize;
                self.runs[r].flow = Some(f);
            }
            None => self.merge_done(a),
        }
        true
    }

    /// Whether reducer `a`, its copy done, has merge passes to make.
    pub(super) fn final_merge_needed(&mut self, a: AttemptId) -> bool {
        let factor = self.net_spec.io_sort_factor;
        self.merges_mut(a).is_some_and(|m| m.due(factor).is_some())
    }

    /// A merge of reducer `a` ended: its file is on disk. While copying,
    /// the next merge if one is due, and the copy's end if it waited for
    /// this one; in the sort phase, the next pass or the reduce.
    pub(super) fn merge_done(&mut self, a: AttemptId) {
        let Some(m) = self.merges_mut(a) else { return };
        m.merged();
        let copied = m.copied;
        if !copied {
            self.start_merge_if_due(a);
            // (The copy may have waited for this merge to end.)
            self.pump(a);
        } else {
            self.next_pass(a);
        }
    }

    /// The sort phase's next merge pass, or the reduce once none is left.
    pub(super) fn next_pass(&mut self, a: AttemptId) {
        debug_assert_eq!(self.attempts[a as usize].phase, Phase::Spill);
        if !self.start_merge_if_due(a) {
            self.start_reduce_work(a);
        }
    }
}

#[cfg(test)]
mod tests {
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

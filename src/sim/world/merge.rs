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

use super::World;
use crate::sim::copy::Merges;
use crate::sim::flows::FlowKind;
use crate::sim::job::{AttemptId, Phase};

impl World {
    fn merges_mut(&mut self, a: AttemptId) -> Option<&mut Merges> {
        let r = self.attempts[a as usize].run;
        if r == u32::MAX {
            return None;
        }
        self.running
            .get_mut(r)
            .copy
            .as_deref_mut()
            .map(|c| &mut c.merge)
    }

    /// A fetch of `mb` MB in `segs` map outputs landed on reducer `a`'s
    /// disk.
    pub(super) fn landed_on_disk(&mut self, a: AttemptId, mb: f64, segs: u32) {
        let Some(buffer) = self.cfg.net_spec.shuffle_buffer_mb else {
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
        let factor = self.cfg.net_spec.io_sort_factor;
        let Some(m) = self.merges_mut(a) else {
            return false;
        };
        let Some(k) = m.due(factor) else {
            return false;
        };
        let mb = m.take(k);
        let node = self.attempts[a as usize].node;
        let cap = self.fixed_cap(self.cfg.net_spec.disk_mbps);
        let path = self.links.local(node);
        match self.start_flow(a, FlowKind::Merge, node, node, path, 2.0 * mb, cap) {
            Some(f) => {
                let r = self.attempts[a as usize].run;
                self.running.get_mut(r).flow = Some(f);
            }
            None => self.merge_done(a),
        }
        true
    }

    /// Whether reducer `a`, its copy done, has merge passes to make.
    pub(super) fn final_merge_needed(&mut self, a: AttemptId) -> bool {
        let factor = self.cfg.net_spec.io_sort_factor;
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

//! The reducer's shuffle, as a fluid copy: bytes of finished map outputs
//! flow to each running reducer at the shuffle bandwidth (from its own
//! datacenter) and the inter-datacenter bandwidth (from the others).

use super::calendar::Ev;
use super::job::{AttemptId, Outcome};
use super::world::World;
use crate::model::Ms;

impl World {
    /// Brings a reducer's copied bytes up to `now` (availability has been
    /// constant since its last update).
    pub(super) fn advance_shuffle(&mut self, a: AttemptId) {
        let at = &self.attempts[a as usize];
        let job = &self.jobs[at.job as usize];
        let r = job.n_reduces().max(1) as f64;
        let dc = self.cluster.nodes[at.node as usize].dc as usize;
        let avail_intra = job.output_by_dc[dc] / r;
        let avail_inter = (job.output_total - job.output_by_dc[dc]) / r;
        let (bi, be) = (self.net.shuffle_mbps, self.net.inter_dc_mbps);
        let now = self.now;
        if let Some(s) = self.attempts[a as usize].shuffle.as_mut() {
            let dt = now.saturating_sub(s.last) as f64 / 1000.0;
            s.copied_intra = avail_intra.min(s.copied_intra + bi * dt);
            s.copied_inter = avail_inter.min(s.copied_inter + be * dt);
            s.last = now;
        }
    }

    /// All maps are done: the reducer's shuffle ends when its backlog drains.
    pub(super) fn schedule_shuffle_done(&mut self, a: AttemptId) {
        self.advance_shuffle(a);
        let at = &self.attempts[a as usize];
        let job = &self.jobs[at.job as usize];
        let r = job.n_reduces().max(1) as f64;
        let dc = self.cluster.nodes[at.node as usize].dc as usize;
        let avail_intra = job.output_by_dc[dc] / r;
        let avail_inter = (job.output_total - job.output_by_dc[dc]) / r;
        let s = at
            .shuffle
            .as_ref()
            .expect("reduce attempt has shuffle state");
        let ti = (avail_intra - s.copied_intra).max(0.0) / self.net.shuffle_mbps;
        let te = (avail_inter - s.copied_inter).max(0.0) / self.net.inter_dc_mbps;
        let done = self.now.saturating_add(
            (ti.max(te) * 1000.0)
                .ceil()
                .min(crate::units::MAX_DURATION_MS as f64) as Ms,
        );
        if let Some(s) = self.attempts[a as usize].shuffle.as_mut() {
            s.done_at = Some(done);
        }
        self.schedule(done, Ev::ShuffleDone(a));
    }

    pub(super) fn shuffle_done(&mut self, a: AttemptId) {
        let at = &self.attempts[a as usize];
        // A node failure can re-open the maps after this was scheduled.
        let current = at.shuffle.as_ref().and_then(|s| s.done_at) == Some(self.now);
        if at.outcome != Outcome::Running || !current {
            return;
        }
        self.advance_shuffle(a);
        let at = &self.attempts[a as usize];
        let s = at
            .shuffle
            .as_ref()
            .expect("reduce attempt has shuffle state");
        let (ci, ce) = (s.copied_intra, s.copied_inter);
        let j = at.job;
        self.metrics.reduce_bytes_local += ci;
        self.metrics.reduce_bytes_total += ci + ce;
        self.metrics.inter_dc_mb += ce;
        let now = self.now;
        let job = &mut self.jobs[j as usize];
        job.shuffle_end = Some(job.shuffle_end.map_or(now, |t| t.max(now)));
        let d = self.reduce_duration(a, ci + ce);
        self.attempts[a as usize].planned_end = Some(now.saturating_add(d));
        self.schedule(now.saturating_add(d), Ev::AttemptDone(a));
    }
}

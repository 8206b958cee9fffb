//! Node failures and recoveries (the command API's `FailNode` and
//! `RecoverNode`): running attempts fail, and map outputs stored on a dead
//! node are lost for jobs whose reducers still need them.

use super::job::{AttemptId, Outcome, TaskState};
use super::world::{Notable, World};
use crate::model::NodeId;

impl World {
    /// A node dies (the command API's `FailNode`).
    pub(super) fn fail_node(&mut self, n: NodeId) {
        if !self.cluster.nodes[n as usize].alive {
            return;
        }
        self.metrics.advance(self.now);
        self.cluster.set_alive(n, false);
        self.metrics.live_slots = self.cluster.total_slots() as f64;
        self.metrics.n_nodes = self.cluster.live_nodes as f64;
        // Its running attempts fail; tasks with no other attempt are pending again.
        let running: Vec<AttemptId> = self.cluster.nodes[n as usize]
            .lanes
            .iter()
            .flatten()
            .copied()
            .collect();
        for &a in &running {
            self.stop_attempt(a, Outcome::Failed);
            let (j, kind, t) = {
                let at = &self.attempts[a as usize];
                (at.job, at.kind, at.task)
            };
            self.requeue_if_idle(j, kind, t);
        }
        // Map outputs stored there are lost for jobs whose reducers still copy.
        let dc = self.cluster.nodes[n as usize].dc as usize;
        let mut rerun = 0u32;
        for j in self.active.clone() {
            let now = self.now;
            let job = &self.jobs[j as usize];
            let still_copying = job.n_reduces() > 0
                && (job.reduces_pending > 0
                    || job.running_reducers.iter().any(|&r| {
                        self.attempts[r as usize]
                            .shuffle
                            .as_ref()
                            .is_some_and(|s| s.done_at.is_none_or(|d| d > now))
                    }));
            let lost: Vec<u32> = (0..job.n_maps())
                .filter(|&t| {
                    let m = &job.maps[t as usize];
                    m.state == TaskState::Done
                        && m.done_by
                            .is_some_and(|a| self.attempts[a as usize].node == n)
                })
                .collect();
            if !still_copying || lost.is_empty() {
                continue;
            }
            let reducers = job.running_reducers.clone();
            for &r in &reducers {
                self.advance_shuffle(r);
            }
            let all_were_done = self.jobs[j as usize].maps_done == self.jobs[j as usize].n_maps();
            let job = &mut self.jobs[j as usize];
            for &t in &lost {
                let m = &mut job.maps[t as usize];
                // As Hadoop reports a lost TaskTracker's finished maps: killed.
                if let Some(a) = m.done_by.take() {
                    let at = &mut self.attempts[a as usize];
                    at.outcome = Outcome::Killed;
                    job.map_time_sum -= at.end.unwrap_or(at.start) - at.start;
                }
                m.state = TaskState::Pending;
                m.finished_at = None;
                job.output_by_dc[dc] -= m.output_mb;
                job.output_total -= m.output_mb;
                job.maps_done -= 1;
                job.maps_pending += 1;
                job.requeue_map(t, &self.cluster);
                rerun += 1;
            }
            job.map_end = None;
            if all_were_done {
                self.early_reduces += job.reduces_running;
            }
            // Reducers lose what they had copied of the lost outputs (the
            // fluid model keeps totals, so copies are capped at what is
            // still available), and a scheduled shuffle end is void.
            let r = job.n_reduces().max(1) as f64;
            for &a in &reducers {
                let rdc = self.cluster.nodes[self.attempts[a as usize].node as usize].dc as usize;
                let job = &self.jobs[j as usize];
                let intra = job.output_by_dc[rdc] / r;
                let inter = (job.output_total - job.output_by_dc[rdc]) / r;
                if let Some(s) = self.attempts[a as usize].shuffle.as_mut() {
                    if s.done_at.is_none_or(|d| d > now) {
                        s.copied_intra = s.copied_intra.min(intra);
                        s.copied_inter = s.copied_inter.min(inter);
                        s.done_at = None;
                    }
                }
            }
        }
        self.notables.push((
            self.now,
            Notable::NodeFailed {
                node: n,
                attempts: running.len() as u32,
                rerun,
            },
        ));
    }

    /// A dead node comes back, empty (the command API's `RecoverNode`).
    pub(super) fn recover_node(&mut self, n: NodeId) {
        if !self.cluster.nodes[n as usize].alive {
            self.metrics.advance(self.now);
            self.cluster.set_alive(n, true);
            self.metrics.live_slots = self.cluster.total_slots() as f64;
            self.metrics.n_nodes = self.cluster.live_nodes as f64;
            self.notables.push((self.now, Notable::NodeRecovered(n)));
        }
    }
}

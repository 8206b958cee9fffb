//! Node failures and recoveries (the command API's `FailNode` and
//! `RecoverNode`): running attempts fail; flows to or from the dead node
//! stop, their bytes accounted (a map reading a replica there reads the
//! rest from another replica; a write pipeline through it goes on without
//! it, as HDFS recovers a pipeline); and map outputs stored there are lost
//! for jobs whose reducers still need them, so those maps run again.

use super::{Notable, World};
use crate::model::NodeId;
use crate::sim::flows::FlowKind;
use crate::sim::job::{AttemptId, Outcome, Phase, TaskState};

impl World {
    /// A node dies (the command API's `FailNode`).
    pub(in crate::sim) fn fail_node(&mut self, n: NodeId) {
        if !self.cluster.nodes[n as usize].alive {
            return;
        }
        self.metrics.advance(self.now);
        self.cluster.set_alive(n, false);
        self.metrics
            .set_live(self.cluster.total_slots() as f64, self.cluster.live);
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
        self.fail_job_tasks(n);
        // Reads from its disk and write pipelines through it, elsewhere.
        self.reroute_around(n);
        // Map outputs stored there are lost for jobs whose reducers still copy.
        let mut rerun = 0u32;
        for j in self.queues.active().to_vec() {
            let job = &self.jobs[j as usize];
            let still_copying = job.n_reduces() > 0
                && (job.reduces_pending > 0
                    || job.running_reducers.iter().any(|&r| {
                        matches!(
                            self.attempts[r as usize].phase,
                            Phase::Startup | Phase::Shuffle
                        )
                    }));
            let lost: Vec<u32> = job
                .outputs
                .iter()
                .copied()
                .filter(|&t| {
                    let m = &job.maps[t as usize];
                    m.done_by()
                        .is_some_and(|a| self.attempts[a as usize].node == n)
                })
                .collect();
            if !still_copying || lost.is_empty() {
                continue;
            }
            let all_were_done = job.maps_done == job.n_maps();
            let reducers = job.running_reducers.clone();
            let job = &mut self.jobs[j as usize];
            for &t in &lost {
                let lost_mb = job.map_output_mb(t);
                let m = &mut job.maps[t as usize];
                // As Hadoop reports a lost TaskTracker's finished maps: killed.
                if let Some(a) = m.done_by() {
                    self.inbox.lost(a);
                    m.set_done_by(None);
                    let at = &mut self.attempts[a as usize];
                    at.outcome = Outcome::Killed;
                    self.metrics.attempts_killed += 1;
                    let ran = at.end().unwrap_or(at.start) - at.start;
                    job.map_time_sum -= ran;
                    self.books.map_lost(at.node, ran);
                }
                m.state = TaskState::Pending;
                m.set_finished_at(None);
                job.output_total -= lost_mb;
                job.maps_done -= 1;
                job.maps_pending += 1;
                job.requeue_map(t, &self.cluster);
                self.books.requeued();
                rerun += 1;
            }
            job.outputs.retain(|t| !lost.contains(t));
            self.sum_waiting_again(j);
            let job = &mut self.jobs[j as usize];
            job.map_end = None;
            if all_were_done {
                self.books.early(job.reduces_running);
            }
            // Reducers still copying drop what they had from the dead node;
            // the re-run maps' outputs reach them anew.
            for a in reducers {
                if self.attempts[a as usize].phase == Phase::Shuffle {
                    self.forget_source(a, n);
                }
            }
        }
        self.inbox.node(n, false);
        self.note(Notable::NodeFailed {
            node: n,
            attempts: running.len() as u32,
            rerun,
        });
    }

    /// Flows of attempts elsewhere that read from `n`'s disk or write
    /// through it: the rest of a read comes from the best live replica; a
    /// write pipeline goes on without `n`. (Shuffle fetches from `n` stop
    /// with the outputs they fetch; see `fail_node`.)
    fn reroute_around(&mut self, n: NodeId) {
        let mut moves: Vec<(AttemptId, FlowKind)> = Vec::new();
        for r in self.running.iter() {
            let a = r.attempt;
            let Some(f) = r.flow else { continue };
            let at = &self.attempts[a as usize];
            if at.run == u32::MAX || at.outcome != Outcome::Running {
                continue;
            }
            let meta = self.flows.meta(f);
            match meta.kind {
                FlowKind::Input if meta.src == n => moves.push((a, FlowKind::Input)),
                FlowKind::Output if self.output_replicas_of(a).contains(&n) => {
                    moves.push((a, FlowKind::Output))
                }
                _ => {}
            }
        }
        for (a, kind) in moves {
            let r = self.attempts[a as usize].run;
            let Some(f) = self.running.get_mut(r).flow.take() else {
                continue;
            };
            let bytes = self.net.flow(f).bytes;
            let moved = self.stop_flow(f);
            let rest = (bytes - moved).max(0.0);
            match kind {
                FlowKind::Input => self.resume_read(a, rest),
                _ => self.resume_write(a, rest, n),
            }
        }
    }

    /// A dead node comes back, empty (the command API's `RecoverNode`).
    pub(in crate::sim) fn recover_node(&mut self, n: NodeId) {
        if !self.cluster.nodes[n as usize].alive {
            self.metrics.advance(self.now);
            self.cluster.set_alive(n, true);
            self.metrics
                .set_live(self.cluster.total_slots() as f64, self.cluster.live);
            self.metrics.n_nodes = self.cluster.live_nodes as f64;
            self.inbox.node(n, true);
            self.note(Notable::NodeRecovered(n));
        }
    }
}

//! An attempt's phases, and the flows and computing they are made of.
//!
//! - A map: start-up (`tasks.startup`), read its block from the closest
//!   replica (a flow), compute (block × the profile's map cost × the
//!   attempt's variance and straggler factors, on the node's shared cores),
//!   spill block × FP to its own disk (a flow).
//! - A reduce: start-up, copy (see `shuffle`), compute (copied bytes × the
//!   profile's reduce cost × the factors, on the shared cores), write
//!   copied × `reduce_output` to HDFS along the replication pipeline (a
//!   flow).
//! - A job with a fixed `map_time` / `reduce_time`, or a job replayed with
//!   its recorded task times: that time over the node speed, times the
//!   straggler factor (a reduce after its copy); no start-up, no variance,
//!   no flows but the copy.
//!
//! The network model decides what a flow shares: under `shared` its path
//! of disks and links; under `fixed` nothing, at its class bandwidth.
//!
//! The file runs past 700 lines because every phase transition of both
//! kinds of attempt is here, next to the others: split by kind, a reader
//! would chase the shared steps (start-up, the timed fallback, failures
//! mid-flow) across files.

use super::World;
use crate::model::{Ms, NetworkModel, NodeId};
use crate::sim::calendar::Ev;
use crate::sim::flows::FlowKind;
use crate::sim::job::{AttemptId, Kind, Locality, Outcome, Phase};
use crate::sim::network::FlowId;
use crate::sim::paths::Path;
use crate::sim::rng;
use crate::sim::running::Run;
use crate::units::MAX_DURATION_MS;

impl World {
    fn run_mut(&mut self, a: AttemptId) -> &mut Run {
        let r = self.attempts[a as usize].run;
        self.running.get_mut(r)
    }

    pub fn run_of(&self, a: AttemptId) -> Option<&Run> {
        let r = self.attempts[a as usize].run;
        (r != u32::MAX).then(|| self.running.get(r))
    }

    /// Gives a just-launched attempt its running state and starts its
    /// first phase.
    pub(super) fn begin(&mut self, a: AttemptId) {
        let r = self.running.begin(a, self.now);
        self.attempts[a as usize].run = r;
        let at = &self.attempts[a as usize];
        let job = &self.jobs[at.job as usize];
        let timed = match at.kind {
            Kind::Map => job.fixed_ms(Kind::Map, at.task).is_some(),
            Kind::Reduce => false,
        };
        let fixed =
            timed || (at.kind == Kind::Reduce && job.fixed_ms(Kind::Reduce, at.task).is_some());
        // Under yarn the container waits for its AM's next allocate call.
        let handoff = self.am_handoff(at.job);
        if fixed && handoff == 0 {
            // No start-up for a fixed-time job: straight to its time or
            // its copy.
            self.after_startup(a);
        } else {
            self.set_phase(a, Phase::Startup);
            let ms = handoff + if fixed { 0 } else { self.cfg.tasks.startup };
            self.start_timer(a, ms);
        }
    }

    /// Frees a finished or stopped attempt's running state: its flows are
    /// cancelled and it leaves its node's cores.
    pub(super) fn release(&mut self, a: AttemptId) {
        let r = self.attempts[a as usize].run;
        if r == u32::MAX {
            return;
        }
        let now = self.now;
        if self.attempts[a as usize].phase == Phase::Compute {
            let node = self.attempts[a as usize].node;
            self.cpus[node as usize].stop(now);
            self.schedule_cpu(node);
        }
        if let Some(f) = self.running.get_mut(r).flow.take() {
            self.stop_flow(f);
        }
        if let Some(copy) = self.running.get_mut(r).copy.take() {
            self.cancel_copy(a, *copy);
        }
        self.close_phase(a);
        self.attempts[a as usize].phase = Phase::Done;
        self.attempts[a as usize].run = u32::MAX;
        self.running.end(r);
    }

    pub(super) fn set_phase(&mut self, a: AttemptId, p: Phase) {
        self.close_phase(a);
        self.attempts[a as usize].phase = p;
        let now = self.now;
        self.run_mut(a).since = now;
    }

    /// Adds the time spent in the current phase to the attempt's totals.
    fn close_phase(&mut self, a: AttemptId) {
        let r = self.attempts[a as usize].run;
        if r == u32::MAX {
            return;
        }
        let since = self.running.get(r).since;
        let dt = u32::try_from(self.now.saturating_sub(since)).unwrap_or(u32::MAX);
        let phase = self.attempts[a as usize].phase;
        let t = &mut self.attempts[a as usize].times;
        let slot = match phase {
            Phase::Startup => &mut t.startup,
            Phase::Read => &mut t.read,
            Phase::Shuffle => &mut t.shuffle,
            Phase::Compute | Phase::Spill | Phase::Write | Phase::Timed => &mut t.compute,
            Phase::Done => return,
        };
        *slot = slot.saturating_add(dt);
    }

    fn start_timer(&mut self, a: AttemptId, ms: Ms) {
        let at = self.now.saturating_add(ms);
        self.run_mut(a).timer = Some(at);
        self.schedule(at, Ev::PhaseEnd(a));
    }

    /// A timer fired: the end of a start-up or of a fixed-time phase.
    pub(in crate::sim) fn timer_done(&mut self, a: AttemptId) {
        let at = &self.attempts[a as usize];
        if at.outcome != Outcome::Running || at.run == u32::MAX {
            return;
        }
        if self.running.get(at.run).timer != Some(self.now) {
            return;
        }
        let phase = at.phase;
        self.run_mut(a).timer = None;
        match phase {
            Phase::Startup => self.after_startup(a),
            Phase::Timed => self.succeed(a),
            _ => {}
        }
    }

    /// The attempt's start-up is over (or it has none): a fixed-time map
    /// runs its time, other maps read their block, reduces copy.
    fn after_startup(&mut self, a: AttemptId) {
        let at = &self.attempts[a as usize];
        match at.kind {
            Kind::Map
                if self.jobs[at.job as usize]
                    .fixed_ms(Kind::Map, at.task)
                    .is_some() =>
            {
                let ms = self.timed_ms(a);
                self.set_phase(a, Phase::Timed);
                self.start_timer(a, ms);
            }
            Kind::Map => self.start_read(a),
            Kind::Reduce => self.start_copy(a),
        }
    }

    /// A fixed-time task's time: `map_time` / `reduce_time` (or a replayed
    /// job's recorded time for the task) over the node's speed, times the
    /// straggler factor.
    fn timed_ms(&self, a: AttemptId) -> Ms {
        let at = &self.attempts[a as usize];
        let job = &self.jobs[at.job as usize];
        let t = job.fixed_ms(at.kind, at.task).unwrap_or(0);
        let speed = self.cluster.nodes[at.node as usize].speed;
        let ms = (t as f64 / speed * self.straggle(at.job, at.kind, at.task, at.attempt)).round();
        (ms.min(MAX_DURATION_MS as f64) as Ms).max(1)
    }

    /// The attempt's factor on its compute time: log-normal variance (mean
    /// 1, `tasks.duration_cv`) times its straggler factor. Drawn from the
    /// attempt's identity alone, so every policy sees the same draws.
    fn compute_factor(&self, a: AttemptId) -> f64 {
        let at = &self.attempts[a as usize];
        let cv = self.cfg.tasks.duration_cv;
        let key = (at.task as u64) << 1 | u64::from(at.kind == Kind::Reduce);
        let noise = if cv > 0.0 {
            rng::lognormal(self.cfg.seed, at.job as u64, key, at.attempt as u64, cv)
        } else {
            1.0
        };
        noise * self.straggle(at.job, at.kind, at.task, at.attempt)
    }

    /// Starts a flow for attempt `a` over `path` (shared by it under the
    /// `shared` model, only reported under `fixed`), capped at `max_rate`;
    /// returns it, or None for zero bytes.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn start_flow(
        &mut self,
        a: AttemptId,
        kind: FlowKind,
        src: NodeId,
        dst: NodeId,
        path: Path,
        mb: f64,
        max_rate: f64,
    ) -> Option<FlowId> {
        let shared = self.cfg.net_spec.model.shares();
        let sharing = if shared { path } else { Path::default() };
        self.start_flow_over(a, kind, src, dst, path, sharing, mb, max_rate)
    }

    /// As [`World::start_flow`], with the resources it shares given apart
    /// from the path it reports.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn start_flow_over(
        &mut self,
        a: AttemptId,
        kind: FlowKind,
        src: NodeId,
        dst: NodeId,
        path: Path,
        sharing: Path,
        mb: f64,
        max_rate: f64,
    ) -> Option<FlowId> {
        if mb <= 0.0 {
            return None;
        }
        let f = self.net.start_at(
            self.exact_now(),
            sharing.as_slice(),
            mb,
            max_rate,
            u64::from(a),
        );
        let start = self.exact_now();
        self.flows
            .started(f, a, kind, src, dst, mb, start, path.as_slice());
        Some(f)
    }

    /// Ends flow `f` now (done or cancelled): accounts its bytes. Returns
    /// the MB it moved.
    pub(super) fn stop_flow(&mut self, f: FlowId) -> f64 {
        let info = self.net.flow(f);
        let end = if info.end <= self.now {
            info.end_x
        } else {
            self.now as f64
        };
        let moved = self.net.stop(self.now, f);
        let meta = self.flows.ended(f, moved, end);
        if meta.kind == FlowKind::Input {
            let (sd, dd) = (self.dc_of(meta.src), self.dc_of(meta.dst));
            if sd != dd {
                self.metrics.inter_dc_mb += moved;
            }
        }
        moved
    }

    pub(super) fn dc_of(&self, n: NodeId) -> u32 {
        self.cluster.nodes[n as usize].dc
    }

    /// The present, exactly (fractional ms).
    fn exact_now(&self) -> f64 {
        self.reaction_at.unwrap_or(self.now as f64)
    }

    /// The network's next flow ended: it is done, and its attempt moves on.
    pub(in crate::sim) fn flow_done(&mut self, f: FlowId) {
        // What the end sets off starts when its last byte arrived.
        self.reaction_at = Some(self.net.flow(f).end_x.min(self.now as f64));
        self.flow_done_exact(f);
        self.reaction_at = None;
    }

    fn flow_done_exact(&mut self, f: FlowId) {
        let meta = self.flows.meta(f);
        let moved = self.stop_flow(f);
        let a = meta.attempt;
        if meta.kind == FlowKind::Shuffle {
            self.fetch_done(a, f, meta.src, moved);
            return;
        }
        if self.attempts[a as usize].run == u32::MAX {
            return;
        }
        if self.run_mut(a).flow == Some(f) {
            self.run_mut(a).flow = None;
        }
        match meta.kind {
            FlowKind::Input => self.start_compute(a),
            FlowKind::Spill | FlowKind::Output => self.succeed(a),
            FlowKind::Merge => self.merge_done(a),
            FlowKind::Shuffle => {}
        }
    }

    /// The replica a map reads: the closest one, the first listed among
    /// equals (HDFS's closest-replica rule), preferring live nodes.
    fn read_source(&self, j: u32, task: u32, node: NodeId) -> (NodeId, Locality) {
        let replicas = self.jobs[j as usize].replicas(task);
        let here = &self.cluster.nodes[node as usize];
        let mut best: Option<(bool, Locality, NodeId)> = None;
        for &r in replicas {
            let rn = &self.cluster.nodes[r as usize];
            let loc = if r == node {
                Locality::Node
            } else if rn.rack == here.rack {
                Locality::Rack
            } else if rn.dc == here.dc {
                Locality::OffRack
            } else {
                Locality::OffDc
            };
            let key = (!rn.alive, loc, r);
            if best.is_none_or(|b| (key.0, key.1) < (b.0, b.1)) {
                best = Some(key);
            }
        }
        best.map_or((node, Locality::Node), |b| (b.2, b.1))
    }

    /// A map starts reading its block.
    pub(super) fn start_read(&mut self, a: AttemptId) {
        self.set_phase(a, Phase::Read);
        let (j, task, node) = {
            let at = &self.attempts[a as usize];
            (at.job, at.task, at.node)
        };
        let mb = self.jobs[j as usize].maps[task as usize].block_mb;
        let (src, loc) = self.read_source(j, task, node);
        let n = &self.cfg.net_spec;
        let cap = match self.cfg.net_spec.model {
            NetworkModel::Shared | NetworkModel::Coarse => f64::INFINITY,
            NetworkModel::Fixed => match loc {
                Locality::Node => n.disk_mbps,
                Locality::Rack => n.rack_mbps,
                Locality::OffRack => n.cross_rack_mbps,
                Locality::OffDc => n.inter_dc_mbps,
            },
        };
        let nominal = mb
            / match loc {
                Locality::Node => n.disk_mbps,
                _ => n.disk_mbps.min(n.nic_mbps),
            };
        self.run_mut(a).nominal_read = nominal;
        let path = self.links.read(src, node);
        match self.start_flow(a, FlowKind::Input, src, node, path, mb, cap) {
            Some(f) => self.run_mut(a).flow = Some(f),
            None => self.start_compute(a),
        }
    }

    /// Starts the compute phase: the work joins the node's cores.
    pub(super) fn start_compute(&mut self, a: AttemptId) {
        self.set_phase(a, Phase::Compute);
        let (j, kind, node) = {
            let at = &self.attempts[a as usize];
            (at.job, at.kind, at.node)
        };
        let job = &self.jobs[j as usize];
        let base = match kind {
            Kind::Map => {
                let t = self.attempts[a as usize].task;
                job.maps[t as usize].block_mb * job.profile.map_s_per_mb
            }
            Kind::Reduce => {
                let copied = self
                    .run_of(a)
                    .and_then(|r| r.copy.as_ref())
                    .map_or(0.0, |c| c.fetched);
                copied * job.profile.reduce_s_per_mb * self.cfg.tasks.reduce_cost_scale
            }
        };
        let work = base * self.compute_factor(a);
        let now = self.now;
        let target = self.cpus[node as usize].start(now, a, work);
        let r = self.run_mut(a);
        r.work = work;
        r.target = target;
        self.schedule_cpu(node);
    }

    /// Puts the node's next compute finish in the calendar.
    pub(super) fn schedule_cpu(&mut self, node: NodeId) {
        let attempts = &self.attempts;
        let live = |a: AttemptId| {
            let at = &attempts[a as usize];
            at.outcome == Outcome::Running && at.phase == Phase::Compute && at.node == node
        };
        if let Some((t, _)) = self.cpus[node as usize].next(live) {
            let gen = self.cpus[node as usize].gen;
            self.schedule(t.max(self.now), Ev::CpuDone { node, gen });
        }
    }

    /// The node's next compute finish is due (unless a later change made
    /// this entry stale).
    pub(in crate::sim) fn cpu_done(&mut self, node: NodeId, gen: u32) {
        if self.cpus[node as usize].gen != gen {
            return;
        }
        let attempts = &self.attempts;
        let live = |a: AttemptId| {
            let at = &attempts[a as usize];
            at.outcome == Outcome::Running && at.phase == Phase::Compute && at.node == node
        };
        let Some((t, a)) = self.cpus[node as usize].next(live) else {
            return;
        };
        if t > self.now {
            // The state moved on since this entry was made.
            self.schedule_cpu(node);
            return;
        }
        let now = self.now;
        self.cpus[node as usize].finish(now, a);
        self.schedule_cpu(node);
        self.compute_done(a);
    }

    fn compute_done(&mut self, a: AttemptId) {
        let (j, kind, task, node) = {
            let at = &self.attempts[a as usize];
            (at.job, at.kind, at.task, at.node)
        };
        let job = &self.jobs[j as usize];
        let spill_mb = match kind {
            Kind::Map => job.maps[task as usize].block_mb * job.fp,
            Kind::Reduce => 0.0,
        };
        let out_ratio = job.profile.reduce_output;
        match kind {
            Kind::Map => {
                self.set_phase(a, Phase::Spill);
                let mb = spill_mb;
                let cap = self.fixed_cap(self.cfg.net_spec.disk_mbps);
                let path = self.links.local(node);
                match self.start_flow(a, FlowKind::Spill, node, node, path, mb, cap) {
                    Some(f) => self.run_mut(a).flow = Some(f),
                    None => self.succeed(a),
                }
            }
            Kind::Reduce => {
                self.set_phase(a, Phase::Write);
                let copied = self
                    .run_of(a)
                    .and_then(|r| r.copy.as_ref())
                    .map_or(0.0, |c| c.fetched);
                let mb = copied * out_ratio;
                let replicas = self.output_replicas(a);
                let n = &self.cfg.net_spec;
                let cap = if replicas.len() > 1 {
                    self.fixed_cap(n.disk_mbps.min(n.cross_rack_mbps).min(n.rack_mbps))
                } else {
                    self.fixed_cap(n.disk_mbps)
                };
                let path = self.links.pipeline(&replicas);
                let last = *replicas.last().unwrap_or(&node);
                match self.start_flow(a, FlowKind::Output, node, last, path, mb, cap) {
                    Some(f) => self.run_mut(a).flow = Some(f),
                    None => self.succeed(a),
                }
            }
        }
    }

    /// The flow's own cap under `fixed` (its class bandwidth); none under
    /// `shared`, where its path decides.
    pub(super) fn fixed_cap(&self, mbps: f64) -> f64 {
        match self.cfg.net_spec.model {
            NetworkModel::Shared | NetworkModel::Coarse => f64::INFINITY,
            NetworkModel::Fixed => mbps,
        }
    }

    /// Where a reduce's output replicas go, as HDFS places a block written
    /// by a node of the cluster: its own disk first, then as for input
    /// blocks (another rack, then that rack). Drawn from the attempt's
    /// identity, so every policy sees the same placement. At most three
    /// replicas are written as flows.
    fn output_replicas(&self, a: AttemptId) -> Vec<NodeId> {
        let at = &self.attempts[a as usize];
        let mut rng = rng::keyed(
            self.cfg.seed,
            rng::STREAM_OUTPUT,
            (at.job as u64) << 32 | at.task as u64,
            at.attempt as u64,
        );
        let n = self.jobs[at.job as usize]
            .output_replication
            .unwrap_or(self.cfg.replication)
            .min(3);
        crate::sim::hdfs::place_from(&self.cluster, at.node, n, &mut rng)
    }

    /// Where attempt `a` writes its output replicas (see `output_replicas`).
    pub(super) fn output_replicas_of(&self, a: AttemptId) -> Vec<NodeId> {
        self.output_replicas(a)
    }

    /// A map reading from a node that died reads the rest, `mb`, from the
    /// best replica left.
    pub(super) fn resume_read(&mut self, a: AttemptId, mb: f64) {
        let (j, task, node) = {
            let at = &self.attempts[a as usize];
            (at.job, at.task, at.node)
        };
        let (src, loc) = self.read_source(j, task, node);
        let n = &self.cfg.net_spec;
        let cap = self.fixed_cap(match loc {
            Locality::Node => n.disk_mbps,
            Locality::Rack => n.rack_mbps,
            Locality::OffRack => n.cross_rack_mbps,
            Locality::OffDc => n.inter_dc_mbps,
        });
        let path = self.links.read(src, node);
        match self.start_flow(a, FlowKind::Input, src, node, path, mb, cap) {
            Some(f) => self.run_mut(a).flow = Some(f),
            None => self.start_compute(a),
        }
    }

    /// A write pipeline through a node that died goes on without it for
    /// the rest, `mb`.
    pub(super) fn resume_write(&mut self, a: AttemptId, mb: f64, dead: NodeId) {
        let node = self.attempts[a as usize].node;
        let replicas: Vec<NodeId> = self
            .output_replicas(a)
            .into_iter()
            .filter(|&r| r != dead)
            .collect();
        let n = &self.cfg.net_spec;
        let cap = if replicas.len() > 1 {
            self.fixed_cap(n.disk_mbps.min(n.cross_rack_mbps).min(n.rack_mbps))
        } else {
            self.fixed_cap(n.disk_mbps)
        };
        let path = self.links.pipeline(&replicas);
        let last = *replicas.last().unwrap_or(&node);
        match self.start_flow(a, FlowKind::Output, node, last, path, mb, cap) {
            Some(f) => self.run_mut(a).flow = Some(f),
            None => self.succeed(a),
        }
    }

    /// A reduce's copy ended: its merge passes start (a reducer over its
    /// shuffle buffer with more files than `io.sort.factor`), else its
    /// compute, or a fixed-time reduce's time.
    pub(super) fn copy_finished(&mut self, a: AttemptId) {
        let now = self.now;
        self.attempts[a as usize].set_shuffle_end(now);
        let (j, job_shuffle_end) = {
            let at = &self.attempts[a as usize];
            (at.job, self.jobs[at.job as usize].shuffle_end)
        };
        self.jobs[j as usize].shuffle_end = Some(job_shuffle_end.map_or(now, |t| t.max(now)));
        if self.final_merge_needed(a) {
            // Hadoop's sort phase: merge passes on the reducer's disk
            // before the reduce reads the last ones' output.
            self.set_phase(a, Phase::Spill);
            self.next_pass(a);
        } else {
            self.start_reduce_work(a);
        }
    }

    /// A reducer's input is ready (copied, and merged where it had to be):
    /// the reduce proper starts.
    pub(super) fn start_reduce_work(&mut self, a: AttemptId) {
        let j = self.attempts[a as usize].job;
        let task = self.attempts[a as usize].task;
        if self.jobs[j as usize].fixed_ms(Kind::Reduce, task).is_some() {
            let ms = self.timed_ms(a);
            self.set_phase(a, Phase::Timed);
            self.start_timer(a, ms);
        } else {
            self.start_compute(a);
        }
    }

    /// What a running attempt moves now, MB/s: its read, spill or write
    /// flow's rate, or the sum of its fetches' (None while it moves
    /// nothing).
    pub fn transfer_rate(&self, a: AttemptId) -> Option<f64> {
        let run = self.run_of(a)?;
        let own = run.flow.map(|f| self.net.flow(f).rate);
        let fetches = run.copy.as_ref().map_or(&[][..], |c| c.fetches());
        if fetches.is_empty() {
            return own;
        }
        // A reducer's fetches, and the merge on its disk while it copies.
        let copying: f64 = fetches.iter().map(|&(f, _)| self.net.flow(f).rate).sum();
        Some(copying + own.unwrap_or(0.0))
    }

    /// Estimated progress in [0, 1] of a running attempt (Hadoop's
    /// progress, for speculation): a map's read and compute count by their
    /// nominal times; a reduce's copy counts 1/3 (bytes copied over the
    /// bytes it will copy), its compute and write the other 2/3.
    pub fn progress(&self, a: AttemptId) -> f64 {
        let at = &self.attempts[a as usize];
        let Some(run) = self.run_of(a) else {
            return 1.0;
        };
        let now = self.now;
        let flow_frac = |f: Option<FlowId>| {
            f.map_or(1.0, |f| {
                let fl = self.net.flow(f);
                if fl.bytes > 0.0 {
                    self.net.moved(f, now) / fl.bytes
                } else {
                    1.0
                }
            })
        };
        let compute_frac = || {
            if run.work <= 0.0 {
                return 1.0;
            }
            let v = self.cpus[at.node as usize].virtual_time(now);
            (1.0 - (run.target - v) / run.work).clamp(0.0, 1.0)
        };
        let timed_frac = || match run.timer {
            Some(end) if end > run.since => {
                (now.saturating_sub(run.since) as f64 / (end - run.since) as f64).clamp(0.0, 1.0)
            }
            _ => 1.0,
        };
        match at.kind {
            Kind::Map => {
                let job = &self.jobs[at.job as usize];
                let compute = job.maps[at.task as usize].block_mb * job.profile.map_s_per_mb;
                let total = (run.nominal_read + compute).max(1e-9);
                let rw = run.nominal_read / total;
                match at.phase {
                    Phase::Startup => 0.0,
                    Phase::Read => rw * flow_frac(run.flow),
                    Phase::Compute => rw + (1.0 - rw) * compute_frac(),
                    Phase::Timed => timed_frac(),
                    _ => 1.0,
                }
            }
            Kind::Reduce => match at.phase {
                Phase::Startup => 0.0,
                Phase::Shuffle => {
                    let job = &self.jobs[at.job as usize];
                    let expected = job.input_mb * job.fp / job.n_reduces().max(1) as f64;
                    let copied = run.copy.as_ref().map_or(0.0, |c| c.fetched);
                    let c = if expected > 0.0 {
                        (copied / expected).min(1.0)
                    } else {
                        job.maps_done as f64 / job.n_maps().max(1) as f64
                    };
                    c / 3.0
                }
                // Merging its copied input on disk (Hadoop's sort phase).
                Phase::Spill => 1.0 / 3.0,
                Phase::Compute => 1.0 / 3.0 + 2.0 / 3.0 * 0.9 * compute_frac(),
                Phase::Write => 1.0 / 3.0 + 2.0 / 3.0 * (0.9 + 0.1 * flow_frac(run.flow)),
                Phase::Timed => 1.0 / 3.0 + 2.0 / 3.0 * timed_frac(),
                _ => 1.0,
            },
        }
    }
}

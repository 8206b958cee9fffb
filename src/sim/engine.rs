//! The run loop, the world state and the command API.

use super::calendar::{Calendar, Ev};
use super::cluster::{Cluster, Node};
use super::hdfs;
use super::job::{Attempt, AttemptId, Job, Kind, Locality, MapTask, Outcome, Shuffle, TaskState};
use super::metrics::Metrics;
use super::rng;
use crate::model::{
    Action, EventSpec, JobId, JobSpec, Ms, NetworkSpec, NodeId, PolicySpec, PoolSpec, Scenario,
    SlotModel, Speculation, TaskSpec,
};
use crate::sched::predictor::Predictor;
use crate::sched::{registry, Inspection, Policy};
use rand_chacha::ChaCha8Rng;

/// Everything that can change a run from outside: scripted `[[events]]`
/// and the TUI both go through [`Sim::command`].
#[derive(Clone, Debug)]
pub enum Command {
    /// Submit a job now (its `submit` is ignored; the current time is used);
    /// it joins the queue immediately.
    Submit(Box<JobSpec>),
    SwitchPolicy(PolicySpec),
    Heartbeat(NodeId),
    /// The node dies: its running attempts fail and are re-queued, and map
    /// outputs it held for reducers still copying are lost (re-run).
    FailNode(NodeId),
    /// The node comes back, empty; its heartbeats resume.
    RecoverNode(NodeId),
}

#[derive(Clone, Debug, serde::Serialize)]
pub struct PolicySwitch {
    pub at_s: f64,
    pub from: String,
    pub to: String,
}

/// Running tasks and runnable jobs per pool.
#[derive(Clone, Debug, Default)]
pub struct PoolStats {
    pub running_maps: u32,
    pub running_reduces: u32,
    pub runnable_jobs: u32,
}

/// Something a person watching the run would want in a log.
#[derive(Clone, Debug, PartialEq)]
pub enum Notable {
    Submitted(JobId),
    Finished(JobId),
    Switched {
        from: String,
        to: String,
    },
    /// A speculative copy of a running task started (attempt id).
    Speculated(AttemptId),
    /// A node failed: attempts failed and maps to re-run.
    NodeFailed {
        node: NodeId,
        attempts: u32,
        rerun: u32,
    },
    NodeRecovered(NodeId),
    /// Fair preemption killed this attempt to give its slot to a starved pool.
    Preempted(AttemptId),
}

/// One `--inspect` line.
#[derive(Clone, Debug)]
pub struct InspectRecord {
    pub t: Ms,
    pub node: NodeId,
    pub policy: String,
    pub inspection: Inspection,
    pub assigned: Vec<String>,
    /// The `rule` of each assignment, in the same order.
    pub rules: Vec<&'static str>,
}

/// The simulated cluster and its jobs: everything but the policy.
pub struct World {
    pub now: Ms,
    pub seed: u64,
    pub cluster: Cluster,
    pub net: NetworkSpec,
    pub tasks: TaskSpec,
    pub block_mb: f64,
    pub replication: u32,
    pub heartbeat_interval: Option<Ms>,
    pub out_of_band: bool,
    pub jobs: Vec<Job>,
    /// Runnable unfinished jobs, ordered by (submit, id).
    pub active: Vec<JobId>,
    /// Arrived jobs held back by their pool's `max_running_jobs`.
    pub waiting: Vec<JobId>,
    pub pools: Vec<PoolSpec>,
    pub pool_stats: Vec<PoolStats>,
    pub attempts: Vec<Attempt>,
    pub slowstart: f64,
    pub labels: Vec<String>,
    pub cur_label: u16,
    pub switches: Vec<PolicySwitch>,
    pub heartbeats: u64,
    pub metrics: Metrics,
    cal: Calendar,
    placement: ChaCha8Rng,
    unfinished: usize,
    pending_submits: usize,
    /// Calendar entries other than heartbeats (completions, arrivals, script).
    pending_other: usize,
    /// Last launch, completion or arrival: to detect a run that cannot go on.
    last_progress: Ms,
    /// The run stopped because nothing could ever run again.
    pub stalled: bool,
    /// Running reduces of jobs whose maps are unfinished.
    pub early_reduces: u32,
    /// Successful map attempts so far over every job, and their summed
    /// durations (a map whose output a failure later lost still counts:
    /// it is an observation of how long maps run). HybSMRP's cluster mean.
    pub maps_finished: u64,
    pub map_time_finished: Ms,
    /// Notable events in order, with their time (for the TUI's log).
    pub notables: Vec<(Ms, Notable)>,
    /// Times of pending non-heartbeat events (a multiset).
    other_times: std::collections::BTreeMap<Ms, u32>,
}

impl World {
    pub fn job(&self, j: JobId) -> &Job {
        &self.jobs[j as usize]
    }

    pub fn node(&self, n: NodeId) -> &Node {
        &self.cluster.nodes[n as usize]
    }

    pub fn model(&self) -> SlotModel {
        self.cluster.model
    }

    pub fn pool_name(&self, j: JobId) -> &str {
        &self.pools[self.jobs[j as usize].pool as usize].name
    }

    pub fn reduces_schedulable(&self, j: JobId) -> bool {
        self.jobs[j as usize].reduces_schedulable(self.slowstart)
    }

    /// Fair-scheduler demand of a runnable job (`JobSchedulable.updateDemand`):
    /// its tasks not running plus its running attempts, so a speculative
    /// copy counts; reduces only once slowstart allows them, else the
    /// running ones.
    pub fn map_demand(&self, j: JobId) -> u32 {
        let job = self.job(j);
        if job.runnable {
            job.maps_pending + job.maps_running
        } else {
            0
        }
    }

    /// Reduces already running count even when slowstart would not allow
    /// them now (a node failure re-opened the maps, or a policy with a
    /// higher slowstart was switched in): Hadoop would report 0, and on
    /// unified containers that lets the running reduces hide the job's
    /// remaining maps from the `running < runnable` check for good.
    pub fn reduce_demand(&self, j: JobId) -> u32 {
        let job = self.job(j);
        if !job.runnable {
            0
        } else if job.reduces_schedulable(self.slowstart) {
            job.reduces_pending + job.reduces_running
        } else {
            job.reduces_running
        }
    }

    /// May a reduce of job `j` start now? Always on typed slots. On unified
    /// containers, reduces of jobs whose maps are unfinished may hold at
    /// most half the containers (YARN's `reduce.rampup.limit`, 0.5): a
    /// reduce waits on its job's maps, so without a bound reduces can take
    /// every container and no map can ever run again.
    pub fn reduce_allowed(&self, j: JobId) -> bool {
        if self.cluster.model == SlotModel::Typed {
            return true;
        }
        let job = self.job(j);
        job.maps_done == job.n_maps() || self.early_reduces < self.cluster.total_slots() / 2
    }

    pub fn t_s(&self) -> f64 {
        self.now as f64 / 1000.0
    }

    pub fn unfinished_jobs(&self) -> usize {
        self.unfinished
    }

    pub fn finished_jobs(&self) -> usize {
        self.jobs.iter().filter(|j| j.is_done()).count()
    }

    /// OMO's *available* containers (ALGORITHMS §4): those running maps,
    /// plus those running reduces of jobs whose maps are all done. A reduce
    /// of a job with unfinished maps frees its container at an unknown
    /// time, so it is left out.
    pub fn available_containers(&self) -> u32 {
        (self.metrics.running.max(0) as u32).saturating_sub(self.early_reduces)
    }

    /// Attempts that have ended so far (launched minus running). Each one
    /// released a container, including the losing copies a speculative win
    /// kills and the attempts a failed node loses, which reach no policy
    /// hook of their own.
    pub fn ended_attempts(&self) -> u64 {
        (self.attempts.len() as u64).saturating_sub(self.metrics.running.max(0) as u64)
    }

    pub fn submitted_jobs(&self) -> usize {
        self.jobs.iter().filter(|j| j.arrived).count()
    }

    fn straggle(&self, job: JobId, kind: Kind, task: u32, attempt: u32) -> f64 {
        let p = self.tasks.straggler_prob;
        if p <= 0.0 {
            return 1.0;
        }
        let key = (task as u64) << 1 | u64::from(kind == Kind::Reduce);
        if rng::unit(self.seed, job as u64, key, attempt as u64) < p {
            let (lo, hi) = self.tasks.straggler_slowdown;
            lo + (hi - lo) * rng::unit(self.seed, job as u64, key, attempt as u64 | 1 << 40)
        } else {
            1.0
        }
    }

    fn read_mbps(&self, loc: Locality) -> f64 {
        match loc {
            Locality::Node => self.net.disk_mbps,
            Locality::Rack => self.net.rack_mbps,
            Locality::OffRack => self.net.cross_rack_mbps,
            Locality::OffDc => self.net.inter_dc_mbps,
        }
    }

    /// Map attempt duration: read the block at its locality class's
    /// bandwidth, compute (profile cost / node speed), write block × FP to
    /// disk; or the job's fixed `map_time` / node speed. Times the attempt's
    /// straggler factor.
    fn map_duration(&self, j: JobId, t: u32, node: NodeId, loc: Locality, attempt: u32) -> Ms {
        let job = self.job(j);
        let speed = self.node(node).speed;
        let secs = match job.map_time {
            Some(mt) => mt as f64 / 1000.0 / speed,
            None => {
                let b = job.maps[t as usize].block_mb;
                b / self.read_mbps(loc)
                    + b * job.profile.map_s_per_mb / speed
                    + b * job.fp / self.net.disk_mbps
            }
        };
        let ms = (secs * self.straggle(j, Kind::Map, t, attempt) * 1000.0).round();
        (ms.min(crate::units::MAX_DURATION_MS as f64) as Ms).max(1)
    }

    fn reduce_duration(&self, a: AttemptId, copied: f64) -> Ms {
        let at = &self.attempts[a as usize];
        let job = self.job(at.job);
        let speed = self.node(at.node).speed;
        let secs = match job.reduce_time {
            Some(rt) => rt as f64 / 1000.0 / speed,
            None => copied * job.profile.reduce_s_per_mb / speed,
        };
        let ms = (secs * self.straggle(at.job, Kind::Reduce, at.task, at.attempt) * 1000.0).round();
        (ms.min(crate::units::MAX_DURATION_MS as f64) as Ms).max(1)
    }

    /// A node's next periodic heartbeat after one at `t`. While nothing is
    /// queued or running, heartbeats find no work, so they skip ahead (on
    /// their phase) to the next arrival or scripted event: a far-future
    /// submit does not cost a heartbeat every few seconds until then.
    fn next_heartbeat(&self, t: Ms, hb: Ms) -> Ms {
        let next = t.saturating_add(hb);
        let idle = self.active.is_empty() && self.waiting.is_empty() && self.metrics.running == 0;
        match self.other_times.keys().next() {
            Some(&other) if idle && other > next => {
                let steps = (other - t).div_ceil(hb);
                t.saturating_add(steps.saturating_mul(hb))
            }
            _ => next,
        }
    }

    /// Every calendar insertion goes through here so the stall check can
    /// count what is pending besides heartbeats.
    fn schedule(&mut self, at: Ms, ev: Ev) {
        if !matches!(ev, Ev::Heartbeat { .. }) {
            self.pending_other += 1;
            *self.other_times.entry(at).or_insert(0) += 1;
        }
        self.cal.push(at, ev);
    }

    /// Starts an attempt in a slot of type `slot` (its own kind unless a
    /// policy borrows). A `speculative` attempt duplicates a running task
    /// (which stays Running); otherwise the task must be pending.
    #[allow(clippy::too_many_arguments)]
    fn launch(
        &mut self,
        j: JobId,
        kind: Kind,
        slot_kind: Kind,
        task: u32,
        node: NodeId,
        rule: &'static str,
        speculative: bool,
    ) -> AttemptId {
        self.metrics.advance(self.now);
        let pool = self.jobs[j as usize].pool as usize;
        let before = self.cluster.nodes[node as usize].running();
        self.metrics.task_delta(pool, before, 1);
        let id = self.attempts.len() as AttemptId;
        let now = self.now;
        let model = self.cluster.model;
        let n = &mut self.cluster.nodes[node as usize];
        let slot = n
            .free_lane(model, slot_kind)
            .expect("launch on a node with a free slot");
        n.lanes[slot] = Some(id);
        match slot_kind {
            Kind::Map => n.used_map_slots += 1,
            Kind::Reduce => n.used_reduce_slots += 1,
        }
        match (kind, slot_kind) {
            (Kind::Reduce, Kind::Map) => {
                n.reduces_in_map_slots += 1;
                self.cluster.reduces_in_map_slots += 1;
            }
            (Kind::Map, Kind::Reduce) => {
                n.maps_in_reduce_slots += 1;
                self.cluster.maps_in_reduce_slots += 1;
            }
            _ => {}
        }
        let job = &mut self.jobs[j as usize];
        job.first_launch.get_or_insert(now);
        let (attempt, locality) = match kind {
            Kind::Map => {
                let m = &mut job.maps[task as usize];
                if !speculative {
                    debug_assert_eq!(m.state, TaskState::Pending, "map launched twice");
                    m.state = TaskState::Running;
                    job.maps_pending -= 1;
                }
                m.attempts += 1;
                m.live.push(id);
                if !m.ran_on.contains(&node) {
                    m.ran_on.push(node);
                }
                let att = m.attempts - 1;
                job.maps_running += 1;
                self.cluster.nodes[node as usize].running_maps += 1;
                self.pool_stats[pool].running_maps += 1;
                (
                    att,
                    Some(self.jobs[j as usize].locality(task, node, &self.cluster)),
                )
            }
            Kind::Reduce => {
                let r = &mut job.reduces[task as usize];
                if !speculative {
                    debug_assert_eq!(r.state, TaskState::Pending, "reduce launched twice");
                    r.state = TaskState::Running;
                    job.reduces_pending -= 1;
                }
                r.attempts += 1;
                r.live.push(id);
                if !r.ran_on.contains(&node) {
                    r.ran_on.push(node);
                }
                let att = r.attempts - 1;
                job.reduces_running += 1;
                job.running_reducers.push(id);
                if job.maps_done < job.n_maps() {
                    self.early_reduces += 1;
                }
                self.cluster.nodes[node as usize].running_reduces += 1;
                self.pool_stats[pool].running_reduces += 1;
                (att, None)
            }
        };
        self.attempts.push(Attempt {
            job: j,
            kind,
            task,
            attempt,
            node,
            start: now,
            end: None,
            speculative,
            outcome: Outcome::Running,
            policy: self.cur_label,
            rule,
            locality,
            shuffle: (kind == Kind::Reduce).then(|| Shuffle {
                last: now,
                ..Default::default()
            }),
            slot: slot as u16,
            slot_kind,
            planned_end: None,
        });
        if speculative {
            self.metrics.speculative_launched += 1;
            self.metrics.speculative_running += 1;
        }
        match kind {
            Kind::Map => {
                let loc = locality.unwrap_or(Locality::OffDc);
                if loc == Locality::OffDc {
                    self.metrics.inter_dc_mb += self.jobs[j as usize].maps[task as usize].block_mb;
                }
                let d = self.map_duration(j, task, node, loc, attempt);
                self.attempts[id as usize].planned_end = Some(now.saturating_add(d));
                self.schedule(now.saturating_add(d), Ev::AttemptDone(id));
            }
            Kind::Reduce => {
                if self.jobs[j as usize].maps_done == self.jobs[j as usize].n_maps() {
                    self.schedule_shuffle_done(id);
                }
            }
        }
        id
    }

    /// Fills the node's remaining free slots with speculative copies, if the
    /// scenario turns speculation on (see `speculation`).
    fn speculate(&mut self, node: NodeId, out: &mut Vec<AttemptId>) {
        let mode = self.tasks.speculation;
        if mode == Speculation::Off {
            return;
        }
        for kind in [Kind::Map, Kind::Reduce] {
            loop {
                let n = &self.cluster.nodes[node as usize];
                let free = match kind {
                    Kind::Map => n.free_maps(self.cluster.model),
                    Kind::Reduce => n.free_reduces(self.cluster.model),
                };
                if free == 0 {
                    break;
                }
                let Some((j, t)) = super::speculation::pick(self, mode, kind, node) else {
                    break;
                };
                let rule = match mode {
                    Speculation::Late => "speculate/late",
                    _ => "speculate/hadoop",
                };
                let a = self.launch(j, kind, kind, t, node, rule, true);
                self.notables.push((self.now, Notable::Speculated(a)));
                out.push(a);
            }
        }
    }

    /// Brings a reducer's copied bytes up to `now` (availability has been
    /// constant since its last update).
    fn advance_shuffle(&mut self, a: AttemptId) {
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
    fn schedule_shuffle_done(&mut self, a: AttemptId) {
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

    fn request_oob(&mut self, node: NodeId) {
        if !self.out_of_band {
            return;
        }
        let n = &mut self.cluster.nodes[node as usize];
        if n.alive && !n.oob_pending {
            n.oob_pending = true;
            self.schedule(
                self.now,
                Ev::Heartbeat {
                    node,
                    periodic: false,
                },
            );
        }
    }

    fn end_attempt(&mut self, a: AttemptId, outcome: Outcome) {
        self.metrics.advance(self.now);
        let (j, node, kind, task) = {
            let at = &mut self.attempts[a as usize];
            at.end = Some(self.now);
            at.outcome = outcome;
            (at.job, at.node, at.kind, at.task)
        };
        if self.attempts[a as usize].speculative {
            self.metrics.speculative_running -= 1;
        }
        let job = &mut self.jobs[j as usize];
        match kind {
            Kind::Map => job.maps[task as usize].live.retain(|&x| x != a),
            Kind::Reduce => job.reduces[task as usize].live.retain(|&x| x != a),
        }
        let slot = self.attempts[a as usize].slot as usize;
        let slot_kind = self.attempts[a as usize].slot_kind;
        let n = &mut self.cluster.nodes[node as usize];
        n.lanes[slot] = None;
        match slot_kind {
            Kind::Map => n.used_map_slots -= 1,
            Kind::Reduce => n.used_reduce_slots -= 1,
        }
        match (kind, slot_kind) {
            (Kind::Reduce, Kind::Map) => {
                n.reduces_in_map_slots -= 1;
                self.cluster.reduces_in_map_slots -= 1;
            }
            (Kind::Map, Kind::Reduce) => {
                n.maps_in_reduce_slots -= 1;
                self.cluster.maps_in_reduce_slots -= 1;
            }
            _ => {}
        }
        let pool = self.jobs[j as usize].pool as usize;
        let before = self.cluster.nodes[node as usize].running();
        self.metrics.task_delta(pool, before, -1);
        match kind {
            Kind::Map => {
                self.cluster.nodes[node as usize].running_maps -= 1;
                self.pool_stats[pool].running_maps -= 1;
            }
            Kind::Reduce => {
                self.cluster.nodes[node as usize].running_reduces -= 1;
                self.pool_stats[pool].running_reduces -= 1;
            }
        }
    }

    /// The other attempts of a task that just succeeded are killed, as
    /// Hadoop kills the losing speculative attempt.
    fn kill_siblings(&mut self, a: AttemptId) {
        let (j, kind, task, spec) = {
            let at = &self.attempts[a as usize];
            (at.job, at.kind, at.task, at.speculative)
        };
        if spec {
            self.metrics.speculative_won += 1;
        }
        let live = match kind {
            Kind::Map => self.jobs[j as usize].maps[task as usize].live.clone(),
            Kind::Reduce => self.jobs[j as usize].reduces[task as usize].live.clone(),
        };
        for b in live {
            self.stop_attempt(b, Outcome::Killed);
        }
    }

    /// Kills a running attempt to free its slot for another pool (fair
    /// preemption); its task goes back to pending unless another attempt
    /// of it still runs.
    fn preempt(&mut self, a: AttemptId) {
        if self.attempts[a as usize].outcome != Outcome::Running {
            return;
        }
        self.stop_attempt(a, Outcome::Killed);
        let (j, kind, t) = {
            let at = &self.attempts[a as usize];
            (at.job, at.kind, at.task)
        };
        self.requeue_if_idle(j, kind, t);
        self.notables.push((self.now, Notable::Preempted(a)));
    }

    /// A task with no attempt left running is pending again.
    fn requeue_if_idle(&mut self, j: JobId, kind: Kind, t: u32) {
        let job = &mut self.jobs[j as usize];
        match kind {
            Kind::Map if job.maps[t as usize].live.is_empty() => {
                job.maps[t as usize].state = TaskState::Pending;
                job.maps_pending += 1;
                job.requeue_map(t, &self.cluster);
            }
            Kind::Reduce if job.reduces[t as usize].live.is_empty() => {
                job.reduces[t as usize].state = TaskState::Pending;
                job.reduces_pending += 1;
                job.requeue_reduce(t);
            }
            _ => {}
        }
    }

    /// Ends a running attempt that did not succeed (killed or failed): frees
    /// its slot, takes it off its job's running counts, and lets its node
    /// ask for work at once when out-of-band heartbeats are on. Whether its
    /// task goes back to pending is the caller's business.
    fn stop_attempt(&mut self, a: AttemptId, outcome: Outcome) {
        self.end_attempt(a, outcome);
        let (j, kind, node) = {
            let at = &self.attempts[a as usize];
            (at.job, at.kind, at.node)
        };
        let job = &mut self.jobs[j as usize];
        match kind {
            Kind::Map => job.maps_running -= 1,
            Kind::Reduce => {
                job.reduces_running -= 1;
                job.running_reducers.retain(|&r| r != a);
                if job.maps_done < job.n_maps() {
                    self.early_reduces -= 1;
                }
            }
        }
        self.request_oob(node);
    }

    fn map_done(&mut self, a: AttemptId) {
        self.end_attempt(a, Outcome::Succeeded);
        self.kill_siblings(a);
        let at = self.attempts[a as usize].clone();
        let j = at.job;
        if let Some(l) = at.locality {
            self.metrics.locality[l as usize] += 1;
        }
        // Reducers first copy what was there before this output appeared.
        let reducers = self.jobs[j as usize].running_reducers.clone();
        for &r in &reducers {
            self.advance_shuffle(r);
        }
        let dc = self.cluster.nodes[at.node as usize].dc as usize;
        let now = self.now;
        let job = &mut self.jobs[j as usize];
        let m = &mut job.maps[at.task as usize];
        m.state = TaskState::Done;
        m.finished_at = Some(now);
        m.done_by = Some(a);
        let out = m.block_mb * job.fp;
        m.output_mb = out;
        job.output_by_dc[dc] += out;
        job.output_total += out;
        job.maps_running -= 1;
        job.maps_done += 1;
        job.map_time_sum += now - at.start;
        self.maps_finished += 1;
        self.map_time_finished += now - at.start;
        let all_done = job.maps_done == job.n_maps();
        if all_done {
            job.map_end = Some(now);
            job.first_map_end.get_or_insert(now);
            self.early_reduces -= job.reduces_running;
            for &r in &reducers {
                // Not for reducers already past their shuffle (possible
                // when maps re-ran after a node failure).
                let done = self.attempts[r as usize]
                    .shuffle
                    .as_ref()
                    .and_then(|s| s.done_at);
                if done.is_none_or(|d| d > now) {
                    self.schedule_shuffle_done(r);
                }
            }
            // Done when its reduces are (a map re-run after a node failure
            // can be the last task to finish, as in Hadoop).
            let job = &self.jobs[j as usize];
            if job.reduces_done == job.n_reduces() {
                self.job_done(j);
            }
        }
        self.request_oob(at.node);
    }

    fn shuffle_done(&mut self, a: AttemptId) {
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

    fn reduce_done(&mut self, a: AttemptId) {
        self.end_attempt(a, Outcome::Succeeded);
        self.kill_siblings(a);
        let (j, task, node) = {
            let at = &self.attempts[a as usize];
            (at.job, at.task, at.node)
        };
        let job = &mut self.jobs[j as usize];
        job.reduces[task as usize].state = TaskState::Done;
        job.reduces_running -= 1;
        job.reduces_done += 1;
        job.running_reducers.retain(|&r| r != a);
        // A reducer already reducing can finish while maps lost to a node
        // failure re-run: it was counted as early again then.
        if job.maps_done < job.n_maps() {
            self.early_reduces -= 1;
        }
        if job.reduces_done == job.n_reduces() && job.maps_done == job.n_maps() {
            self.job_done(j);
        }
        self.request_oob(node);
    }

    /// A node dies (the command API's `FailNode`).
    fn fail_node(&mut self, n: NodeId) {
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

    fn job_done(&mut self, j: JobId) {
        self.metrics.advance(self.now);
        // Whatever of the job still runs is killed, as the JobTracker kills
        // a finished job's leftover attempts (maps re-run after a node
        // failure that a speculative reduce's win made unnecessary).
        let leftovers: Vec<AttemptId> = {
            let job = &self.jobs[j as usize];
            let maps = job.maps.iter().flat_map(|m| m.live.iter().copied());
            maps.chain(job.reduces.iter().flat_map(|r| r.live.iter().copied()))
                .collect()
        };
        for a in leftovers {
            self.stop_attempt(a, Outcome::Killed);
        }
        let pool = self.jobs[j as usize].pool as usize;
        self.jobs[j as usize].finished_at = Some(self.now);
        self.notables.push((self.now, Notable::Finished(j)));
        self.unfinished -= 1;
        self.active.retain(|&x| x != j);
        self.pool_stats[pool].runnable_jobs -= 1;
        self.metrics.pool_active[pool] -= 1;
        // A job waiting on its pool's running-job limit may start now.
        if let Some(pos) = self
            .waiting
            .iter()
            .position(|&w| self.jobs[w as usize].pool as usize == pool)
        {
            let w = self.waiting.remove(pos);
            self.make_runnable(w);
        }
    }

    fn make_runnable(&mut self, j: JobId) {
        let pool = self.jobs[j as usize].pool as usize;
        self.jobs[j as usize].runnable = true;
        self.pool_stats[pool].runnable_jobs += 1;
        self.metrics.pool_active[pool] += 1;
        let key = |w: &World, x: JobId| (w.jobs[x as usize].submit, x);
        let k = key(self, j);
        let pos = self.active.partition_point(|&x| key(self, x) < k);
        self.active.insert(pos, j);
    }

    fn arrive(&mut self, j: JobId) {
        self.metrics.advance(self.now);
        if self.metrics.start.is_none() {
            self.metrics.start = Some(self.now);
        }
        self.jobs[j as usize].arrived = true;
        self.notables.push((self.now, Notable::Submitted(j)));
        let pool = self.jobs[j as usize].pool as usize;
        let limit = self.pools[pool].max_running_jobs.unwrap_or(u32::MAX);
        if self.pool_stats[pool].runnable_jobs >= limit {
            self.waiting.push(j);
        } else {
            self.make_runnable(j);
        }
    }

    /// Creates a job (placing its blocks) and schedules its arrival.
    fn add_job(&mut self, spec: &JobSpec) -> Result<JobId, String> {
        let pool = self
            .pools
            .iter()
            .position(|p| p.name == spec.pool)
            .ok_or_else(|| format!("unknown pool \"{}\"", spec.pool))? as u32;
        if self.jobs.iter().any(|j| j.name == spec.name) {
            return Err(format!("a job named \"{}\" already exists", spec.name));
        }
        if spec.maps == 0 {
            return Err("a job needs at least one map".into());
        }
        let n_nodes = self.cluster.nodes.len() as u32;
        let maps = spec.maps as usize;
        let full = (spec.input_mb / self.block_mb).ceil() as usize == maps;
        let mut tasks = Vec::with_capacity(maps);
        for i in 0..maps {
            let block_mb = if full {
                (spec.input_mb - self.block_mb * i as f64)
                    .min(self.block_mb)
                    .max(0.0)
            } else {
                spec.input_mb / maps as f64
            };
            let replicas = match &spec.blocks {
                Some(b) => {
                    let r = b.get(i).cloned().unwrap_or_default();
                    if r.iter().any(|&n| n >= n_nodes) {
                        return Err(format!("block {i} names a node outside 0..{n_nodes}"));
                    }
                    r
                }
                None => hdfs::place(&self.cluster, self.replication, &mut self.placement),
            };
            tasks.push(MapTask {
                block_mb,
                replicas,
                state: TaskState::Pending,
                attempts: 0,
                output_mb: 0.0,
                finished_at: None,
                live: Vec::new(),
                done_by: None,
                ran_on: Vec::new(),
            });
        }
        let id = self.jobs.len() as JobId;
        let job = Job::new(id, spec, pool, tasks, &self.cluster);
        self.jobs.push(job);
        self.unfinished += 1;
        Ok(id)
    }
}

/// The assignment context a policy gets on a heartbeat: read access to the
/// world, the heartbeating node, and the ways to launch a task there (in a
/// slot of its own kind, or, for slot-borrowing policies, of the other).
pub struct Heartbeat<'a> {
    w: &'a mut World,
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

type InspectSink = Box<dyn FnMut(&InspectRecord) + Send>;

/// A run: the world, the policy driving it, and the scenario's script.
pub struct Sim {
    pub w: World,
    policy: Box<dyn Policy>,
    scheduler: toml::Table,
    events: Vec<EventSpec>,
    pub scenario_name: String,
    inspect: Option<InspectSink>,
    /// See [`Sim::set_inspect_from`].
    inspect_from: Ms,
    /// OMO's release-rate monitor run passively under every policy; see
    /// [`Sim::predictor`].
    monitor: Predictor,
    /// Scripted `heartbeat` events not yet processed.
    scripted_heartbeats: usize,
}

/// What [`Sim::step_heartbeat`] did: the time it reached, and whether it
/// stopped after a heartbeat (else after the one event it processed
/// because no heartbeat was pending).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stepped {
    pub t: Ms,
    pub heartbeat: bool,
}

impl Sim {
    /// Builds a run. The scenario has been validated by the loader; errors
    /// here are only for scenarios built by hand (tests, the TUI).
    pub fn new(sc: &Scenario) -> Result<Sim, String> {
        let mut node_rng = rng::stream(sc.seed, rng::STREAM_NODES);
        let cluster = Cluster::build(&sc.cluster, &mut node_rng);
        let n_nodes = cluster.nodes.len();
        let total_slots = cluster.total_slots() as f64;
        let ctx = registry::BuildCtx {
            heartbeat: sc.cluster.heartbeat,
            model: sc.cluster.slot_model,
        };
        let policy = registry::build(&sc.policy, &sc.scheduler, &ctx)?;
        let mut w = World {
            now: 0,
            seed: sc.seed,
            cluster,
            net: sc.network.clone(),
            tasks: sc.tasks.clone(),
            block_mb: sc.hdfs.block_mb,
            replication: sc.hdfs.replication,
            heartbeat_interval: sc.cluster.heartbeat,
            out_of_band: sc.cluster.out_of_band_heartbeat,
            jobs: Vec::new(),
            active: Vec::new(),
            waiting: Vec::new(),
            pools: sc.pools.clone(),
            pool_stats: vec![PoolStats::default(); sc.pools.len()],
            attempts: Vec::new(),
            slowstart: policy.slowstart(),
            labels: vec![policy.label().to_string()],
            cur_label: 0,
            switches: Vec::new(),
            heartbeats: 0,
            metrics: Metrics::new(n_nodes, sc.pools.len(), total_slots),
            cal: Calendar::default(),
            placement: rng::stream(sc.seed, rng::STREAM_PLACEMENT),
            unfinished: 0,
            pending_submits: 0,
            pending_other: 0,
            last_progress: 0,
            stalled: false,
            early_reduces: 0,
            maps_finished: 0,
            map_time_finished: 0,
            notables: Vec::new(),
            other_times: std::collections::BTreeMap::new(),
        };
        for spec in &sc.jobs {
            let id = w
                .add_job(spec)
                .map_err(|e| format!("job {}: {e}", spec.name))?;
            w.schedule(spec.submit, Ev::JobArrival(id));
        }
        for (i, e) in sc.events.iter().enumerate() {
            if matches!(e.action, Action::Submit(_)) {
                w.pending_submits += 1;
            }
            w.schedule(e.at, Ev::Scripted(i as u32));
        }
        if let Some(hb) = sc.cluster.heartbeat {
            let n = n_nodes as u64;
            for i in 0..n {
                w.schedule(
                    ((hb as u128 * i as u128) / n as u128) as Ms,
                    Ev::Heartbeat {
                        node: i as NodeId,
                        periodic: true,
                    },
                );
            }
        }
        Ok(Sim {
            w,
            policy,
            scheduler: sc.scheduler.clone(),
            events: sc.events.clone(),
            scenario_name: sc.name.clone(),
            inspect: None,
            inspect_from: 0,
            monitor: crate::sched::omo::passive_monitor(&sc.scheduler),
            scripted_heartbeats: sc
                .events
                .iter()
                .filter(|e| matches!(e.action, Action::Heartbeat(_)))
                .count(),
        })
    }

    /// Receive one record per heartbeat on which the policy was asked to
    /// assign work (values computed before its assignments).
    pub fn set_inspector(&mut self, sink: InspectSink) {
        self.inspect = Some(sink);
    }

    /// Heartbeats before `t` skip the inspector (the TUI keeps only the
    /// last few hundred records, so at high speed it asks for those only:
    /// building an inspection is O(jobs) per heartbeat).
    pub fn set_inspect_from(&mut self, t: Ms) {
        self.inspect_from = t;
    }

    pub fn policy(&self) -> &dyn Policy {
        self.policy.as_ref()
    }

    pub fn policy_label(&self) -> &str {
        self.policy.label()
    }

    /// Every known job has finished and no scripted submission is left.
    pub fn is_finished(&self) -> bool {
        self.w.unfinished == 0 && self.w.pending_submits == 0
    }

    /// Nothing runs, nothing is due but heartbeats, and two heartbeat
    /// rounds have launched nothing: unfinished jobs can never run (say a
    /// pool capped at zero slots). Periodic heartbeats would go on forever.
    fn is_stalled(&self) -> bool {
        let w = &self.w;
        let Some(hb) = w.heartbeat_interval else {
            return false;
        };
        w.pending_other == 0
            && w.metrics.running == 0
            && w.now.saturating_sub(w.last_progress) > 2 * hb.max(1)
    }

    pub fn next_event_time(&self) -> Option<Ms> {
        self.w.cal.peek_time()
    }

    /// Processes every event up to and including `limit` (all if `None`),
    /// stopping early once the run is finished. Returns whether events remain.
    pub fn run_until(&mut self, limit: Option<Ms>) -> bool {
        while !self.is_finished() {
            if self.is_stalled() {
                self.w.stalled = true;
                return false;
            }
            match self.w.cal.peek_time() {
                None => return false,
                Some(t) if limit.is_some_and(|l| t > l) => {
                    if let Some(l) = limit {
                        self.w.now = self.w.now.max(l);
                    }
                    return true;
                }
                Some(_) => {
                    self.step();
                }
            }
        }
        false
    }

    /// Processes events up to and including the next heartbeat of any kind
    /// (the TUI's `.` key): a periodic or out-of-band heartbeat, or a
    /// scripted `heartbeat` event. When no heartbeat is pending at all
    /// (manual heartbeats once the script's are done) it processes only the
    /// next event, so one call never skips more than one step of the run.
    /// `None` when the run has finished or can never go on.
    pub fn step_heartbeat(&mut self) -> Option<Stepped> {
        if self.is_finished() || self.is_stalled() {
            return None;
        }
        let any_heartbeat = self.heartbeat_pending();
        loop {
            let heartbeat = match self.w.cal.peek()? {
                Ev::Heartbeat { .. } => true,
                Ev::Scripted(i) => matches!(self.events[i as usize].action, Action::Heartbeat(_)),
                _ => false,
            };
            let t = self.step()?;
            if heartbeat || !any_heartbeat || self.is_finished() || self.is_stalled() {
                return Some(Stepped { t, heartbeat });
            }
        }
    }

    /// A heartbeat of any kind is in the calendar.
    fn heartbeat_pending(&self) -> bool {
        self.w.cal.len() > self.w.pending_other || self.scripted_heartbeats > 0
    }

    /// Processes one event. Returns its time, or `None` if none is left.
    pub fn step(&mut self) -> Option<Ms> {
        let (t, ev) = self.w.cal.pop()?;
        debug_assert!(t >= self.w.now, "time went backwards");
        self.w.now = t;
        if !matches!(ev, Ev::Heartbeat { .. }) {
            self.w.pending_other -= 1;
            self.w.last_progress = t;
            if let Some(c) = self.w.other_times.get_mut(&t) {
                *c -= 1;
                if *c == 0 {
                    self.w.other_times.remove(&t);
                }
            }
        }
        match ev {
            Ev::AttemptDone(a) => {
                if self.w.attempts[a as usize].outcome != Outcome::Running {
                    return Some(t);
                }
                let kind = self.w.attempts[a as usize].kind;
                let job = self.w.attempts[a as usize].job;
                match kind {
                    Kind::Map => self.w.map_done(a),
                    Kind::Reduce => self.w.reduce_done(a),
                }
                self.policy.task_finished(&self.w, a);
                if self.w.jobs[job as usize].is_done() {
                    self.policy.job_finished(&self.w, job);
                }
            }
            Ev::ShuffleDone(a) => self.w.shuffle_done(a),
            Ev::JobArrival(j) => {
                self.w.arrive(j);
                self.policy.job_arrived(&self.w, j);
            }
            Ev::Scripted(i) => {
                let e = self.events[i as usize].clone();
                let cmd = match e.action {
                    Action::SwitchPolicy(p) => Command::SwitchPolicy(p),
                    Action::Heartbeat(n) => {
                        self.scripted_heartbeats -= 1;
                        Command::Heartbeat(n)
                    }
                    Action::FailNode(n) => Command::FailNode(n),
                    Action::RecoverNode(n) => Command::RecoverNode(n),
                    Action::Submit(j) => {
                        self.w.pending_submits -= 1;
                        Command::Submit(j)
                    }
                };
                // Validated at load time; a failure here is reported, not fatal.
                if let Err(e) = self.command(cmd) {
                    eprintln!("warning: scripted event at {} ms: {e}", t);
                }
            }
            Ev::Heartbeat { node, periodic } => {
                if periodic {
                    if let Some(hb) = self.w.heartbeat_interval {
                        let next = self.w.next_heartbeat(t, hb.max(1));
                        self.w.schedule(
                            next,
                            Ev::Heartbeat {
                                node,
                                periodic: true,
                            },
                        );
                    }
                } else {
                    self.w.cluster.nodes[node as usize].oob_pending = false;
                }
                self.heartbeat(node);
            }
        }
        self.observe();
        Some(t)
    }

    /// Brings the passive monitor up to now; it starts with the first job.
    fn observe(&mut self) {
        if self.monitor.started() || !self.w.active.is_empty() {
            let (ended, avail) = (self.w.ended_attempts(), self.w.available_containers());
            self.monitor.observe(self.w.now, ended, avail);
        }
    }

    /// The passive monitor, whatever the policy.
    pub fn monitor(&self) -> &Predictor {
        &self.monitor
    }

    /// The release-rate predictor to report: the policy's own (OMO's, which
    /// its decisions used), else the passive monitor.
    pub fn predictor(&self) -> &Predictor {
        self.policy.predictor().unwrap_or(&self.monitor)
    }

    /// One TaskTracker heartbeat. A node with no free slot does not ask for
    /// work (Hadoop's `askForNewTask`), so the policy is not called: O(1).
    fn heartbeat(&mut self, node: NodeId) {
        self.w.heartbeats += 1;
        if !self.w.cluster.nodes[node as usize].alive || self.w.active.is_empty() {
            return;
        }
        let mut hb = Heartbeat {
            w: &mut self.w,
            node,
            assigned: Vec::new(),
        };
        self.policy.maintain(&mut hb);
        let n = &self.w.cluster.nodes[node as usize];
        if !n.has_free_slot(self.w.cluster.model) {
            return;
        }
        let inspection = self
            .inspect
            .as_ref()
            .filter(|_| self.w.now >= self.inspect_from)
            .map(|_| self.policy.inspect(&self.w, node));
        let mut hb = Heartbeat {
            w: &mut self.w,
            node,
            assigned: Vec::new(),
        };
        self.policy.heartbeat(&mut hb);
        let mut assigned = hb.assigned;
        self.w.speculate(node, &mut assigned);
        if let (Some(sink), Some(inspection)) = (self.inspect.as_mut(), inspection) {
            let rec = InspectRecord {
                t: self.w.now,
                node,
                policy: self.w.labels[self.w.cur_label as usize].clone(),
                inspection,
                rules: assigned
                    .iter()
                    .map(|&a| self.w.attempts[a as usize].rule)
                    .collect(),
                assigned: assigned
                    .iter()
                    .map(|&a| {
                        let at = &self.w.attempts[a as usize];
                        let p = if at.kind == Kind::Map { 'm' } else { 'r' };
                        format!("{}/{}{}", self.w.jobs[at.job as usize].name, p, at.task)
                    })
                    .collect(),
            };
            sink(&rec);
        }
    }

    /// The command API: scripted events and the TUI change a run only here.
    pub fn command(&mut self, cmd: Command) -> Result<(), String> {
        let r = self.apply(cmd);
        self.observe();
        r
    }

    fn apply(&mut self, cmd: Command) -> Result<(), String> {
        match cmd {
            Command::Heartbeat(n) => {
                if n as usize >= self.w.cluster.nodes.len() {
                    return Err(format!("node {n} does not exist"));
                }
                self.heartbeat(n);
            }
            Command::FailNode(n) | Command::RecoverNode(n)
                if n as usize >= self.w.cluster.nodes.len() =>
            {
                return Err(format!("node {n} does not exist"));
            }
            Command::FailNode(n) => self.w.fail_node(n),
            Command::RecoverNode(n) => {
                if !self.w.cluster.nodes[n as usize].alive {
                    self.w.metrics.advance(self.w.now);
                    self.w.cluster.set_alive(n, true);
                    self.w.metrics.live_slots = self.w.cluster.total_slots() as f64;
                    self.w.metrics.n_nodes = self.w.cluster.live_nodes as f64;
                    self.w
                        .notables
                        .push((self.w.now, Notable::NodeRecovered(n)));
                }
            }
            Command::Submit(mut spec) => {
                spec.submit = self.w.now;
                let id = self.w.add_job(&spec)?;
                // Arrives at once: the submitter sees it in the queue now.
                self.w.arrive(id);
                self.policy.job_arrived(&self.w, id);
            }
            Command::SwitchPolicy(spec) => {
                let ctx = registry::BuildCtx {
                    heartbeat: self.w.heartbeat_interval,
                    model: self.w.cluster.model,
                };
                let mut p = registry::build(&spec, &self.scheduler, &ctx)?;
                p.adopt(&self.w);
                let from = self.policy.label().to_string();
                let to = p.label().to_string();
                self.w.switches.push(PolicySwitch {
                    at_s: self.w.t_s(),
                    from: from.clone(),
                    to: to.clone(),
                });
                self.w.notables.push((
                    self.w.now,
                    Notable::Switched {
                        from,
                        to: to.clone(),
                    },
                ));
                self.w.labels.push(to);
                self.w.cur_label = (self.w.labels.len() - 1) as u16;
                self.w.slowstart = p.slowstart();
                self.policy = p;
            }
        }
        Ok(())
    }
}

//! A task attempt's life and a job's: launch, completion, kills, requeues,
//! arrival and finish. Everything here changes the [`World`] and keeps its
//! counters (slots, pools, metrics) in step.

use super::{Notable, World};
use crate::model::{JobId, JobSpec, NodeId, PoolId, Resource, Speculation, Writer};
use crate::sim::calendar::Ev;
use crate::sim::error::SimError;
use crate::sim::hdfs;
use crate::sim::job::{
    Attempt, AttemptId, Job, Kind, MapTask, Outcome, Phase, PhaseTimes, TaskState, NOT_YET,
};

impl World {
    /// What YARN's schedulers order by changed for job `j` (and its pool):
    /// see [`Books::epoch`](crate::sim::books::Books::epoch).
    pub(super) fn asks_changed(&mut self, j: JobId) {
        let p = self.jobs[j as usize].pool as usize;
        self.books.changed(p);
    }

    /// A task of job `j` asking `ask` starts on `node` (an
    /// ApplicationMaster when `am`): the one rule by which the engine books
    /// capacity, on the node, the cluster, the job and its pool.
    pub(super) fn book_ask(&mut self, j: JobId, node: NodeId, ask: Resource, am: bool) {
        self.cluster.book(node, ask);
        self.metrics.set_allocated(self.now, self.cluster.used);
        let job = &mut self.jobs[j as usize];
        job.used += ask;
        self.books.book(job.pool as usize, ask, am);
    }

    /// A task [`World::book_ask`] booked ends: its ask is released.
    pub(super) fn release_ask(&mut self, j: JobId, node: NodeId, ask: Resource, am: bool) {
        self.cluster.release(node, ask);
        self.metrics.set_allocated(self.now, self.cluster.used);
        let job = &mut self.jobs[j as usize];
        job.used -= ask;
        self.books.release(job.pool as usize, ask, am);
    }

    /// Starts an attempt asking `ask` in a slot of type `slot` (its own
    /// kind unless a policy borrows). A `speculative` attempt duplicates a
    /// running task (which stays Running); otherwise the task must be
    /// pending.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn launch(
        &mut self,
        j: JobId,
        kind: Kind,
        slot_kind: Kind,
        task: u32,
        node: NodeId,
        ask: Resource,
        rule: &'static str,
        speculative: bool,
    ) -> AttemptId {
        self.metrics.advance(self.now);
        let rule = self.rule_place(rule);
        let pool = self.jobs[j as usize].pool as usize;
        let before = self.cluster.nodes[node as usize].running();
        self.metrics.task_delta(pool, before, 1);
        let id = self.attempts.len() as AttemptId;
        let now = self.now;
        let n = &mut self.cluster.nodes[node as usize];
        let slot = n
            .free_lane(&self.cluster.capacity, slot_kind)
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
                m.ran_on.insert(node, &mut job.ran_more);
                let att = m.attempts - 1;
                job.maps_running += 1;
                self.cluster.nodes[node as usize].running_maps += 1;
                self.books.started(pool, Kind::Map);
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
                r.ran_on.insert(node, &mut job.ran_more);
                let att = r.attempts - 1;
                job.reduces_running += 1;
                job.running_reducers.push(id);
                if job.maps_done < job.n_maps() {
                    self.books.early(1);
                }
                self.cluster.nodes[node as usize].running_reduces += 1;
                self.books.started(pool, Kind::Reduce);
                (att, None)
            }
        };
        let first = &mut self.jobs[j as usize].first_start[kind as usize];
        first.get_or_insert(now);
        self.attempts.push(Attempt {
            job: j,
            kind,
            task,
            attempt,
            node,
            start: now,
            end_at: NOT_YET,
            speculative,
            outcome: Outcome::Running,
            policy: self.records.current(),
            rule,
            locality,
            slot: slot as u16,
            slot_kind,
            phase: Phase::Startup,
            times: PhaseTimes::default(),
            shuffle_end_at: NOT_YET,
            run: u32::MAX,
            ask,
        });
        self.book_ask(j, node, ask, false);
        if speculative {
            self.metrics.speculative_launched += 1;
            self.metrics.speculative_running += 1;
        }
        self.inbox.started(id);
        self.begin(id);
        id
    }

    /// Fills the node's remaining free slots with speculative copies, if the
    /// scenario turns speculation on (see `speculation`).
    pub(in crate::sim) fn speculate(&mut self, node: NodeId, out: &mut Vec<AttemptId>) {
        let mode = self.cfg.tasks.speculation;
        if mode == Speculation::Off {
            return;
        }
        for kind in [Kind::Map, Kind::Reduce] {
            loop {
                let n = &self.cluster.nodes[node as usize];
                if n.free_slots(&self.cluster.capacity, kind) == 0 {
                    break;
                }
                let Some((j, t)) = crate::sim::speculation::pick(self.view(), mode, kind, node)
                else {
                    break;
                };
                out.push(self.launch_copy(j, kind, t, node));
            }
        }
    }

    /// Launches a speculative copy of running task `t` of job `j` on
    /// `node`, under the rule of the scenario's speculation mode.
    pub(super) fn launch_copy(&mut self, j: JobId, kind: Kind, t: u32, node: NodeId) -> AttemptId {
        let rule = match self.cfg.tasks.speculation {
            Speculation::Late => "speculate/late",
            _ => "speculate/hadoop",
        };
        let ask = self.cluster.capacity.slot_ask(kind);
        self.launch_copy_with(j, kind, t, node, ask, rule)
    }

    /// Launches a speculative copy of running task `t` of job `j` on
    /// `node`, asking `ask`, under `rule` (a policy's own decision).
    pub(super) fn launch_copy_with(
        &mut self,
        j: JobId,
        kind: Kind,
        t: u32,
        node: NodeId,
        ask: Resource,
        rule: &'static str,
    ) -> AttemptId {
        let a = self.launch(j, kind, kind, t, node, ask, rule, true);
        self.note(Notable::Speculated(a));
        a
    }

    pub(super) fn request_oob(&mut self, node: NodeId) {
        if !self.cfg.out_of_band {
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

    pub(super) fn end_attempt(&mut self, a: AttemptId, outcome: Outcome) {
        self.metrics.advance(self.now);
        self.release(a);
        let (j, node, kind, task, ask) = {
            let at = &mut self.attempts[a as usize];
            at.set_end(self.now);
            at.outcome = outcome;
            (at.job, at.node, at.kind, at.task, at.ask)
        };
        match outcome {
            Outcome::Killed => self.metrics.attempts_killed += 1,
            Outcome::Failed => self.metrics.attempts_failed += 1,
            _ => {}
        }
        self.release_ask(j, node, ask, false);
        if self.attempts[a as usize].speculative {
            self.metrics.speculative_running -= 1;
        }
        let job = &mut self.jobs[j as usize];
        match kind {
            Kind::Map => job.maps[task as usize].live.remove(a),
            Kind::Reduce => job.reduces[task as usize].live.remove(a),
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
                self.books.ended(pool, Kind::Map);
            }
            Kind::Reduce => {
                self.cluster.nodes[node as usize].running_reduces -= 1;
                self.books.ended(pool, Kind::Reduce);
            }
        }
    }

    /// The other attempts of a task that just succeeded are killed, as
    /// Hadoop kills the losing speculative attempt.
    pub(super) fn kill_siblings(&mut self, a: AttemptId) {
        let (j, kind, task, spec) = {
            let at = &self.attempts[a as usize];
            (at.job, at.kind, at.task, at.speculative)
        };
        if spec {
            self.metrics.speculative_won += 1;
        }
        let live = match kind {
            Kind::Map => self.jobs[j as usize].maps[task as usize].live,
            Kind::Reduce => self.jobs[j as usize].reduces[task as usize].live,
        };
        for &b in live.iter() {
            self.stop_attempt(b, Outcome::Killed);
        }
    }

    /// Kills a running attempt to free its slot for another pool (fair
    /// preemption); its task goes back to pending unless another attempt
    /// of it still runs.
    pub(super) fn preempt(&mut self, a: AttemptId) {
        if self.attempts[a as usize].outcome != Outcome::Running {
            return;
        }
        self.stop_attempt(a, Outcome::Killed);
        let (j, kind, t) = {
            let at = &self.attempts[a as usize];
            (at.job, at.kind, at.task)
        };
        self.requeue_if_idle(j, kind, t);
        self.note(Notable::Preempted(a));
    }

    /// A task with no attempt left running is pending again.
    pub(super) fn requeue_if_idle(&mut self, j: JobId, kind: Kind, t: u32) {
        let job = &mut self.jobs[j as usize];
        match kind {
            Kind::Map if job.maps[t as usize].live.is_empty() => {
                self.books.requeued();
                job.maps[t as usize].state = TaskState::Pending;
                job.maps_pending += 1;
                job.requeue_map(t, &self.cluster);
            }
            Kind::Reduce if job.reduces[t as usize].live.is_empty() => {
                self.books.requeued();
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
    pub(super) fn stop_attempt(&mut self, a: AttemptId, outcome: Outcome) {
        self.end_attempt(a, outcome);
        self.inbox.stopped(a);
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
                    self.books.not_early(1);
                }
            }
        }
        self.request_oob(node);
    }

    pub(super) fn map_done(&mut self, a: AttemptId) {
        self.end_attempt(a, Outcome::Succeeded);
        self.kill_siblings(a);
        let at = self.attempts[a as usize].clone();
        let j = at.job;
        if let Some(l) = at.locality {
            self.metrics.locality[l as usize] += 1;
        }
        let now = self.now;
        let job = &mut self.jobs[j as usize];
        let m = &mut job.maps[at.task as usize];
        m.state = TaskState::Done;
        m.set_finished_at(Some(now));
        m.set_done_by(Some(a));
        let out = job.map_output_mb(at.task);
        job.output_total += out;
        job.outputs.push(at.task);
        job.maps_running -= 1;
        job.maps_done += 1;
        job.map_time_sum += now - at.start;
        self.books.map_succeeded(at.node, now - at.start);
        let all_done = job.maps_done == job.n_maps();
        if all_done {
            job.map_end = Some(now);
            job.first_map_end.get_or_insert(now);
            self.books.not_early(job.reduces_running);
        }
        self.offer_output(j, at.node, out);
        if all_done {
            self.maps_all_done(j);
            // Done when its reduces are (a map re-run after a node failure
            // can be the last task to finish, as in Hadoop).
            let job = &self.jobs[j as usize];
            if job.reduces_done == job.n_reduces() {
                self.job_done(j);
            }
        }
        self.request_oob(at.node);
    }

    /// Attempt `a`'s last phase ended: its task is done.
    pub(super) fn succeed(&mut self, a: AttemptId) {
        match self.attempts[a as usize].kind {
            Kind::Map => self.map_done(a),
            Kind::Reduce => self.reduce_done(a),
        }
        self.inbox.succeeded(a);
    }

    pub(super) fn reduce_done(&mut self, a: AttemptId) {
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
            self.books.not_early(1);
        }
        if job.reduces_done == job.n_reduces() && job.maps_done == job.n_maps() {
            self.job_done(j);
        }
        self.request_oob(node);
    }

    /// Job `j`'s running attempts, maps first.
    pub(super) fn live_attempts(&self, j: JobId) -> Vec<AttemptId> {
        let job = &self.jobs[j as usize];
        let maps = job.maps.iter().flat_map(|m| m.live.iter().copied());
        maps.chain(job.reduces.iter().flat_map(|r| r.live.iter().copied()))
            .collect()
    }

    pub(super) fn job_done(&mut self, j: JobId) {
        self.metrics.advance(self.now);
        // Whatever of the job still runs is killed, as the JobTracker kills
        // a finished job's leftover attempts (maps re-run after a node
        // failure that a speculative reduce's win made unnecessary).
        for a in self.live_attempts(j) {
            self.stop_attempt(a, Outcome::Killed);
        }
        // A replayed job commits for its recorded time before it finishes:
        // nothing of it runs meanwhile. (Under yarn its AM commits: for the
        // recorded time too, unless the scenario models AMs with its own
        // `am_startup`, whose AMs commit at no cost: docs/yarn.md.)
        let modelled = self.cfg.tasks.am.is_some_and(|am| am.startup_given);
        let commit = self.jobs[j as usize]
            .recorded
            .as_ref()
            .filter(|_| !modelled)
            .map_or(0, |r| r.commit_ms);
        if commit > 0 {
            self.asks_changed(j);
            self.queues.commit(j);
            self.schedule(self.now.saturating_add(commit), Ev::JobCommitted(j));
            return;
        }
        if !self.clean_up(j) {
            self.job_committed(j);
        }
    }

    /// Job `j` finishes (its tasks done, its commit too).
    pub(in crate::sim) fn job_committed(&mut self, j: JobId) {
        if self.jobs[j as usize].is_done() {
            // Killed during its commit.
            return;
        }
        self.metrics.advance(self.now);
        self.retire(j, Notable::Finished(j));
    }

    /// Job `j` is done now, finished or killed: the policy hears of it
    /// (if it had heard of the job), nothing of it stays queued, and its
    /// pool's place goes to the first job its pool holds back.
    pub(super) fn retire(&mut self, j: JobId, notable: Notable) {
        let held = self.holds_pool_place(j);
        let job = &self.jobs[j as usize];
        self.inbox.finished(j, !job.prepares() || job.runnable);
        if !self.attempts.keeps_records() {
            self.inbox.release(j);
        }
        self.queues.retire(j);
        self.asks_changed(j);
        let job = &mut self.jobs[j as usize];
        job.finished_at = Some(self.now);
        job.retire_books();
        if !job.killed {
            self.am_exits(j);
        }
        self.note(notable);
        self.unfinished -= 1;
        if held {
            let pool = self.jobs[j as usize].pool;
            self.books.left(pool as usize);
            self.metrics.pool_active[pool as usize] -= 1;
            self.admit_waiting(pool);
        }
    }

    /// Whether job `j` counts against its pool's running-job limit (arrived,
    /// unfinished and not held back by it).
    pub(super) fn holds_pool_place(&self, j: JobId) -> bool {
        let job = &self.jobs[j as usize];
        job.arrived && !job.is_done() && !self.queues.held(j)
    }

    /// The first job held back by `pool`'s running-job limit starts if
    /// the pool has room for it now.
    pub(super) fn admit_waiting(&mut self, pool: PoolId) {
        let p = pool as usize;
        let limit = self.cfg.pools[p].max_running_jobs.unwrap_or(u32::MAX);
        if self.books.pools()[p].runnable_jobs >= limit {
            return;
        }
        let jobs = &self.jobs;
        if let Some(w) = self.queues.take_held(|w| jobs[w as usize].pool == pool) {
            self.make_runnable(w);
        }
    }

    /// Job `j` is within its pool's running-job limit: it counts against
    /// it from now, and its tasks are schedulable once its set-up task has
    /// run (`jobtask`).
    pub(super) fn make_runnable(&mut self, j: JobId) {
        let pool = self.jobs[j as usize].pool as usize;
        self.books.admitted(pool);
        self.metrics.pool_active[pool] += 1;
        self.prepare(j);
    }

    /// Job `j`'s tasks are schedulable: policies see it.
    pub(super) fn activate(&mut self, j: JobId) {
        self.jobs[j as usize].runnable = true;
        if self.cfg.tasks.am.is_some_and(|am| am.ask.is_zero()) {
            // An AM sized 0 takes no container and no time, but its
            // allocator still schedules the job's reduces.
            self.jobs[j as usize].am_ready = Some(self.now);
            self.am_started(j);
        }
        if self.jobs[j as usize].prepares() {
            self.inbox.arrived(j);
        }
        let jobs = &self.jobs;
        self.queues.activate(j, |x| (jobs[x as usize].submit, x));
        self.asks_changed(j);
    }

    pub(in crate::sim) fn arrive(&mut self, j: JobId) {
        self.metrics.advance(self.now);
        // The first submission (a replayed job may arrive after its
        // recorded start-up).
        let submit = self.jobs[j as usize].submit;
        self.metrics.start = Some(self.metrics.start.map_or(submit, |s| s.min(submit)));
        self.jobs[j as usize].arrived = true;
        self.jobs[j as usize].index_maps(&self.cluster);
        self.note(Notable::Submitted(j));
        if !self.jobs[j as usize].prepares() {
            self.inbox.arrived(j);
        }
        let pool = self.jobs[j as usize].pool as usize;
        let limit = self.cfg.pools[pool].max_running_jobs.unwrap_or(u32::MAX);
        if self.books.pools()[pool].runnable_jobs >= limit {
            self.queues.hold(j);
        } else {
            self.make_runnable(j);
        }
    }

    /// Creates a job (placing its blocks) and schedules its arrival.
    pub(in crate::sim) fn add_job(&mut self, spec: &JobSpec) -> Result<JobId, SimError> {
        let pool = self
            .cfg
            .pools
            .iter()
            .position(|p| p.name == spec.pool)
            .ok_or_else(|| SimError::UnknownPool(spec.pool.clone()))? as u32;
        if self.jobs.iter().any(|j| *j.name == *spec.name) {
            return Err(SimError::DuplicateJob(spec.name.clone()));
        }
        if spec.maps == 0 {
            return Err(SimError::NoMaps);
        }
        let n_nodes = self.cluster.nodes.len() as u32;
        let maps = spec.maps as usize;
        let full = (spec.input_mb / self.cfg.block_mb).ceil() as usize == maps;
        let mut tasks = Vec::with_capacity(maps);
        let mut replica_nodes = Vec::with_capacity(maps * self.cfg.replication as usize);
        for i in 0..maps {
            let block_mb = if full {
                (spec.input_mb - self.cfg.block_mb * i as f64)
                    .min(self.cfg.block_mb)
                    .max(0.0)
            } else {
                spec.input_mb / maps as f64
            };
            let replicas = match &spec.blocks {
                Some(b) => {
                    let r = b.get(i).cloned().unwrap_or_default();
                    if r.iter().any(|&n| n >= n_nodes) {
                        return Err(SimError::BlockOutside {
                            block: i,
                            nodes: n_nodes,
                        });
                    }
                    r
                }
                None => match spec.writer.unwrap_or(self.cfg.writer) {
                    Writer::Client => {
                        hdfs::place(&self.cluster, self.cfg.replication, &mut self.placement)
                    }
                    Writer::Node(w) => hdfs::place_from(
                        &self.cluster,
                        w,
                        self.cfg.replication,
                        &mut self.placement,
                    ),
                    // TeraGen: map i writes block i, the maps spread over
                    // the nodes in turn.
                    Writer::Maps => hdfs::place_from(
                        &self.cluster,
                        i as u32 % n_nodes,
                        self.cfg.replication,
                        &mut self.placement,
                    ),
                    // This job's own writer: its id is its submission index.
                    Writer::Jobs => hdfs::place_from(
                        &self.cluster,
                        (self.jobs.len() % n_nodes as usize) as u32,
                        self.cfg.replication,
                        &mut self.placement,
                    ),
                },
            };
            let at = u32::try_from(replica_nodes.len()).expect("under 2^32 replicas per job");
            let len = u16::try_from(replicas.len()).expect("under 2^16 replicas per block");
            replica_nodes.extend_from_slice(&replicas);
            tasks.push(MapTask::new(block_mb, at, len));
        }
        let id = self.jobs.len() as JobId;
        let mut job = Job::new(id, spec, pool, tasks, replica_nodes);
        // Jobs with fixed or recorded task times have no set-up or clean-up
        // task (a replay has its recorded start-up and commit instead).
        let fixed =
            spec.map_time.is_some() || spec.reduce_time.is_some() || spec.recorded.is_some();
        if let Some(am) = self.cfg.tasks.am {
            // Every job's first container is its AM's (none when the AM
            // is sized 0, as worked examples want); its start-up takes the
            // set-up task's place, and the AM commits.
            // A replayed job's AM starts up for its recorded time (from
            // submission to the job's launch) unless the scenario sets
            // `am_startup` for every AM.
            let recorded = spec.recorded.as_ref().filter(|_| !am.startup_given);
            let startup = recorded.map_or(am.startup, |r| r.prep_ms);
            job.am_ms = (!am.ask.is_zero()).then_some(startup);
            job.map_ask = spec.map_container.unwrap_or(self.cfg.tasks.map_container);
            job.reduce_ask = spec
                .reduce_container
                .unwrap_or(self.cfg.tasks.reduce_container);
        } else if !fixed {
            job.setup_ms = self.cfg.tasks.setup;
            job.cleanup_ms = self.cfg.tasks.cleanup;
        }
        self.jobs.push(job);
        self.unfinished += 1;
        Ok(id)
    }
}

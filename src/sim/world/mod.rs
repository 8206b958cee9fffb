//! The simulated cluster and its jobs: everything a run has but its policy
//! and its script. Queries policies read live here; what changes the world
//! lives in `lifecycle`, `shuffle` and `failure`.

mod allocator;
mod failure;
pub(super) mod heartbeat;
mod jobaction;
mod lifecycle;
mod merge;
mod phases;
mod setup;
mod shuffle;
pub(super) mod step;
pub(super) mod view;

use super::attempts::Attempts;
use super::calendar::{Calendar, Ev};
use super::cluster::{Cluster, Node};
use super::cpu::Cpu;
use super::flows::{FlowMeta, FlowRecord};
use super::job::{Attempt, AttemptId, Job, Kind};
use super::metrics::Metrics;
use super::network::{Coarse, Network};
use super::paths::Links;
use super::rng;
use super::running::Run;
use crate::model::{Capacity, JobId, Ms, NetworkSpec, NodeId, PoolSpec, Scenario, TaskSpec};
use rand_chacha::ChaCha8Rng;

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
    /// What the pool's tasks hold, and of that what its ApplicationMasters
    /// hold.
    pub used: crate::model::Resource,
    pub am_used: crate::model::Resource,
    /// Bumped with [`World::asks_epoch`] when the change is this pool's.
    pub epoch: u64,
}

/// Something a person watching the run would want in a log.
#[derive(Clone, Debug, PartialEq)]
pub enum Notable {
    Submitted(JobId),
    Finished(JobId),
    /// Killed by a person (`kill_job`).
    Killed(JobId),
    /// Its priority was set (`set_priority`).
    Reprioritized(JobId),
    /// Moved to another pool (`move_job`).
    Moved(JobId),
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
    /// A scripted event could not be applied.
    CommandFailed(String),
    /// A line a policy in another process wrote on its stderr (kept when a
    /// terminal shows the run: the TUI).
    PolicySaid(String),
}

/// What LATE's threshold depends on: the instant, the events processed and
/// the attempts launched so far (together they change whenever any task's
/// state or progress can), the kind, and the node asking (a task never
/// counts on a node where it ran).
pub(super) type LateKey = (Ms, u64, usize, bool, NodeId);

/// The simulated cluster and its jobs: everything but the policy.
#[derive(Clone)]
pub struct World {
    /// LATE's slow-task threshold as last computed, with what it depends
    /// on (see `speculation::late_threshold`): policies ask for it for every
    /// job they look at within one heartbeat.
    late_threshold: std::cell::Cell<Option<(LateKey, f64)>>,
    now: Ms,
    /// While a flow's end is handled, the exact instant its last byte
    /// arrived (within the millisecond before `now`: the engine's events
    /// are on the millisecond, the network's are not).
    reaction_at: Option<f64>,
    seed: u64,
    cluster: Cluster,
    /// What the policy is to hear of.
    inbox: super::inbox::Inbox,
    net_spec: NetworkSpec,
    /// Disks and links and the flows on them.
    net: Network,
    links: Links,
    /// Each node's cores.
    cpus: Vec<Cpu>,
    tasks: TaskSpec,
    block_mb: f64,
    replication: u32,
    /// `[failures]` and how many draws each node has had.
    failures: Option<(crate::model::FailureSpec, Vec<u64>)>,
    /// Who wrote the jobs' input (`hdfs.writer`).
    writer: crate::model::Writer,
    heartbeat_interval: Option<Ms>,
    out_of_band: bool,
    jobs: Vec<Job>,
    /// Runnable unfinished jobs, ordered by (submit, id).
    active: Vec<JobId>,
    /// Arrived jobs held back by their pool's `max_running_jobs`.
    waiting: Vec<JobId>,
    /// Runnable jobs waiting for their set-up task, and jobs whose tasks
    /// are done waiting for their clean-up task, by id (`jobtask`).
    awaiting_setup: Vec<JobId>,
    awaiting_cleanup: Vec<JobId>,
    /// Runnable jobs whose ApplicationMaster waits for the scheduler to
    /// place it, by id (`jobtask`).
    awaiting_am: Vec<JobId>,
    /// Bumped (as is the pool's [`PoolStats::epoch`]) whenever what YARN's
    /// schedulers order applications and
    /// queues by may have changed: a container booked or released (an
    /// application's and its queue's usage), an application moved, or the
    /// applications asking ([`World::active`], [`World::awaiting_am`])
    /// changed. A scheduler may keep its order while it stands still.
    asks_epoch: u64,
    /// Every set-up and clean-up task run, and the ones running.
    job_tasks: Vec<super::jobtask::JobTaskRun>,
    /// Replayed jobs past their last task, in their recorded commit.
    committing: Vec<JobId>,
    running_job_tasks: Vec<u32>,
    pools: Vec<PoolSpec>,
    pool_stats: Vec<PoolStats>,
    attempts: Attempts,
    /// Map attempts that succeeded on each node (less those whose output
    /// a failure lost), and their summed durations (ms), over the run.
    maps_succeeded_on: Vec<u32>,
    map_time_succeeded: Ms,
    slowstart: f64,
    labels: Vec<String>,
    cur_label: u16,
    /// The rules policies gave for their launches, in the order they first
    /// did: an attempt keeps its rule's place here (2 bytes, not a 16-byte
    /// `&str`, on each of millions of attempts).
    rules: Vec<&'static str>,
    switches: Vec<PolicySwitch>,
    heartbeats: u64,
    /// Engine events processed: calendar events and flow ends.
    events: u64,
    /// Tasks put back to pending after an attempt of theirs started (failed,
    /// killed, preempted, or a lost map output): a policy that remembers
    /// how far down its queue every task has been launched starts over
    /// when this moves.
    requeues: u64,
    metrics: Metrics,
    cal: Calendar,
    placement: ChaCha8Rng,
    unfinished: usize,
    /// Last launch, completion or arrival: to detect a run that cannot go on.
    last_progress: Ms,
    /// The run stopped because nothing could ever run again.
    stalled: bool,
    /// Running reduces of jobs whose maps are unfinished.
    early_reduces: u32,
    /// What a person watching would want to know, in order, with its time,
    /// when the run keeps a journal (`Sim::keep_journal`); taken by the
    /// TUI for its log.
    journal: Option<Vec<(Ms, Notable)>>,
    /// Running attempts' state (a slab; `Attempt::run` indexes it).
    runs: Vec<Run>,
    free_runs: Vec<u32>,
    /// Who each flow belongs to, by flow id.
    flow_meta: Vec<FlowMeta>,
    flow_seq: u64,
    /// Every flow, when `--flows` asked for them.
    flow_log: Option<Vec<FlowRecord>>,
    /// MB moved by flow kind (input, spill, shuffle, output).
    net_mb: [f64; 4],
}

impl World {
    /// About how many bytes a copy of the world takes: its largest tables
    /// (attempts, tasks, the calendar, transfers) counted, the rest guessed
    /// at a kilobyte a node and a job. A budget for checkpoints needs the
    /// size's order, not its last byte.
    pub fn footprint(&self) -> usize {
        use std::mem::size_of;
        let tasks: usize = self
            .jobs
            .iter()
            .map(|j| {
                j.maps.len() * (size_of::<super::job::MapTask>() + 16)
                    + j.reduces.len() * size_of::<super::job::ReduceTask>()
                    + j.outputs.len() * 4
            })
            .sum();
        size_of::<World>()
            + self.attempts.footprint()
            + tasks
            + self.jobs.len() * (size_of::<super::job::Job>() + 1024)
            + self.cluster.nodes.len() * 1024
            + self.cal.len() * 48
            + self.runs.len() * size_of::<Run>()
            + self.flow_meta.len() * size_of::<FlowMeta>()
    }
}

impl World {
    /// Something a person watching the run would want to know happened
    /// now: kept in the journal, if the run keeps one ([`Sim::keep_journal`]).
    ///
    /// [`Sim::keep_journal`]: super::Sim::keep_journal
    pub(super) fn note(&mut self, n: Notable) {
        if let Some(j) = self.journal.as_mut() {
            j.push((self.now, n));
        }
    }

    /// The rule attempt `at` was launched by.
    pub fn rule(&self, at: &Attempt) -> &'static str {
        self.rules[at.rule as usize]
    }

    /// `rule`'s place in `rules`, given one if it has none. Policies name
    /// their rules with a few dozen constants, so a scan is enough.
    pub(super) fn rule_place(&mut self, rule: &'static str) -> u16 {
        match self.rules.iter().position(|&r| r == rule) {
            Some(i) => i as u16,
            None => {
                self.rules.push(rule);
                (self.rules.len() - 1) as u16
            }
        }
    }

    /// An empty world for `sc`: its cluster (node speeds drawn), pools and
    /// settings; jobs are added by the run.
    pub(super) fn new(sc: &Scenario, slowstart: f64, policy_label: &str) -> World {
        let mut node_rng = rng::stream(sc.seed, rng::STREAM_NODES);
        let cluster = Cluster::build(&sc.cluster, &mut node_rng);
        let n_nodes = cluster.nodes.len();
        let total_slots = cluster.total_slots() as f64;
        let (basis, live) = (cluster.capacity.utilization(), cluster.live);
        let mut net = Network::new();
        if sc.network.model == crate::model::NetworkModel::Coarse {
            net.set_coarse(Coarse::default());
        }
        let links = Links::build(&mut net, &cluster, &sc.network);
        let cpus = cluster
            .nodes
            .iter()
            .map(|n| Cpu::new(sc.cluster.cores, n.speed))
            .collect();
        World {
            now: 0,
            reaction_at: None,
            seed: sc.seed,
            cluster,
            inbox: Default::default(),
            net_spec: sc.network.clone(),
            net,
            links,
            cpus,
            tasks: sc.tasks.clone(),
            block_mb: sc.hdfs.block_mb,
            replication: sc.hdfs.replication,
            failures: None,
            writer: sc.hdfs.writer,
            heartbeat_interval: sc.cluster.heartbeat,
            out_of_band: sc.cluster.out_of_band_heartbeat,
            jobs: Vec::new(),
            active: Vec::new(),
            waiting: Vec::new(),
            pools: sc.pools.clone(),
            pool_stats: vec![PoolStats::default(); sc.pools.len()],
            awaiting_setup: Vec::new(),
            awaiting_cleanup: Vec::new(),
            awaiting_am: Vec::new(),
            asks_epoch: 0,
            job_tasks: Vec::new(),
            committing: Vec::new(),
            running_job_tasks: Vec::new(),
            attempts: Attempts::default(),
            maps_succeeded_on: vec![0; n_nodes],
            map_time_succeeded: 0,
            slowstart,
            labels: vec![policy_label.to_string()],
            rules: Vec::new(),
            late_threshold: std::cell::Cell::new(None),
            cur_label: 0,
            switches: Vec::new(),
            heartbeats: 0,
            events: 0,
            requeues: 0,
            metrics: Metrics::new(n_nodes, sc.pools.len(), total_slots).with_basis(basis, live),
            cal: Calendar::default(),
            placement: rng::stream(sc.seed, rng::STREAM_PLACEMENT),
            unfinished: 0,
            last_progress: 0,
            stalled: false,
            early_reduces: 0,
            journal: None,
            runs: Vec::new(),
            free_runs: Vec::new(),
            flow_meta: Vec::new(),
            flow_seq: 0,
            flow_log: None,
            net_mb: [0.0; 4],
        }
    }

    /// The run as everything above the engine reads it.
    pub fn view(&self) -> super::RunView<'_> {
        super::RunView::new(self)
    }

    pub fn job(&self, j: JobId) -> &Job {
        &self.jobs[j as usize]
    }

    pub fn node(&self, n: NodeId) -> &Node {
        &self.cluster.nodes[n as usize]
    }

    /// The cluster's capacity model.
    pub fn capacity(&self) -> &Capacity {
        &self.cluster.capacity
    }

    pub fn pool_name(&self, j: JobId) -> &str {
        &self.pools[self.jobs[j as usize].pool as usize].name
    }

    pub fn reduces_schedulable(&self, j: JobId) -> bool {
        self.jobs[j as usize].reduces_schedulable(self.slowstart)
    }

    /// May a reduce of job `j` start now? Always where each kind has slots
    /// of its own. Where maps and reduces share containers, reduces of jobs
    /// whose maps are unfinished may hold at most half the containers
    /// (YARN's `reduce.rampup.limit`, 0.5): a reduce waits on its job's
    /// maps, so without a bound reduces can take every container and no
    /// map can ever run again.
    pub fn reduce_allowed(&self, j: JobId) -> bool {
        if !self.cluster.capacity.kinds_share() {
            return true;
        }
        let job = self.job(j);
        job.maps_done == job.n_maps() || self.early_reduces < self.cluster.total_slots() / 2
    }

    /// The set-up, clean-up and ApplicationMaster tasks running now
    /// (indexes into [`World::job_tasks`]), in the order they started.
    pub fn running_job_tasks(&self) -> &[u32] {
        &self.running_job_tasks
    }

    pub fn t_s(&self) -> f64 {
        self.now as f64 / 1000.0
    }

    pub fn unfinished_jobs(&self) -> usize {
        self.unfinished
    }

    /// Jobs no policy sees though they have not finished: those waiting
    /// for or running their set-up task, and those past their last task
    /// (their clean-up task, or a replay's recorded commit), each by id.
    pub fn settling(&self) -> (Vec<JobId>, Vec<JobId>) {
        use super::jobtask::JobTaskKind;
        let mut setup = self.awaiting_setup.clone();
        setup.extend_from_slice(&self.awaiting_am);
        let mut finishing = self.awaiting_cleanup.clone();
        finishing.extend_from_slice(&self.committing);
        for &t in &self.running_job_tasks {
            let t = &self.job_tasks[t as usize];
            match t.kind {
                JobTaskKind::Setup => setup.push(t.job),
                JobTaskKind::Cleanup => finishing.push(t.job),
                JobTaskKind::Am if !self.jobs[t.job as usize].runnable => setup.push(t.job),
                JobTaskKind::Am => {}
            }
        }
        setup.sort_unstable();
        finishing.sort_unstable();
        (setup, finishing)
    }

    pub fn finished_jobs(&self) -> usize {
        self.jobs.iter().filter(|j| j.is_done()).count()
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

    pub(super) fn straggle(&self, job: JobId, kind: Kind, task: u32, attempt: u32) -> f64 {
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

    /// A node's next periodic heartbeat after one at `t`. While nothing is
    /// queued or running, heartbeats find no work, so they skip ahead (on
    /// their phase) to the next arrival or scripted event: a far-future
    /// submit does not cost a heartbeat every few seconds until then.
    pub(super) fn next_heartbeat(&self, t: Ms, hb: Ms) -> Ms {
        let next = t.saturating_add(hb);
        let idle = self.active.is_empty()
            && self.waiting.is_empty()
            && self.awaiting_setup.is_empty()
            && self.awaiting_am.is_empty()
            && self.awaiting_cleanup.is_empty()
            && self.metrics.running == 0;
        match self.cal.next_other() {
            Some(other) if idle && other > next => {
                let steps = (other - t).div_ceil(hb);
                t.saturating_add(steps.saturating_mul(hb))
            }
            _ => next,
        }
    }

    /// Schedules node `n`'s next random failure (`up` false) or recovery:
    /// an exponential time of mean `mtbf` or `mttr` from now, the k-th
    /// draw of that node keyed by (node, k) so every policy sees the same.
    pub(super) fn schedule_failure(&mut self, n: NodeId, up: bool) {
        use rand_distr::{Distribution, Exp1};
        let Some((spec, count)) = self.failures.as_mut() else {
            return;
        };
        let k = count[n as usize];
        count[n as usize] += 1;
        let mut r = rng::keyed(self.seed, rng::STREAM_FAILURES, n as u64, k);
        let x: f64 = Exp1.sample(&mut r);
        let mean = if up { spec.mttr } else { spec.mtbf };
        let dt = (x * mean as f64).round().max(1.0) as Ms;
        let at = self.now.saturating_add(dt);
        self.schedule(at, Ev::Failure { node: n, up });
    }

    pub(super) fn schedule(&mut self, at: Ms, ev: Ev) {
        self.cal.push(at, ev);
    }
}

//! The engine's state: a run's cluster, jobs and attempts, its network
//! and its books, kept in owned parts, each with its own file, data and
//! rules, and the processes that move them, each in a file of this module.
//!
//! The parts (each in `src/sim/`): the event calendar and the counts it
//! keeps of what it holds (`calendar`), the jobs' queues (`queues`), the
//! set-up, clean-up and AM tasks (`jobtask`), the attempts (`attempts`),
//! the books policies are fair by (`books`), the running attempts' phase
//! state (`running`) and a reducer's copy (`copy`), the flows' owners and
//! records (`flows`) over the network (`network`), what the policy is to
//! hear of (`inbox`), the labels, rules, switches and journal the outputs
//! are made of (`records`), the scenario's settings (`settings`), the
//! cluster and its cores (`cluster`, `cpu`), the integrals the summary
//! reports (`metrics`).
//!
//! The processes (here): an attempt's and a job's life (`lifecycle`), its
//! phases (`phases`), a reducer's copy and merges (`shuffle`, `merge`),
//! set-up, clean-up and AM tasks handed out (`setup`), the AM's
//! allocator (`allocator`), node failures (`failure`), a person's job
//! actions (`jobaction`), the engine's side of the loop (`step`). They
//! change the parts through the parts' own methods.
//!
//! `World`'s fields are private: above the engine a run is read through
//! [`view::RunView`] and changed through a policy's [`heartbeat::Heartbeat`]
//! or the command API (`Sim::command`).

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
use super::books::Books;
use super::calendar::{Calendar, Ev};
use super::cluster::{Cluster, Node};
use super::cpu::Cpu;
use super::flows::FlowMeta;
use super::flows::Flows;
use super::inbox::Inbox;
use super::job::{Attempt, Job, Kind};
use super::jobs::Jobs;
use super::jobtask::JobTasks;
use super::metrics::Metrics;
use super::network::{Coarse, Network};
use super::paths::Links;
use super::queues::Queues;
use super::records::Records;
use super::rng;
use super::running::Run;
use super::running::Running;
use super::settings::Settings;
use crate::model::{Capacity, JobId, Ms, NodeId, Scenario};
use rand_chacha::ChaCha8Rng;

pub use super::books::PoolStats;
pub use super::records::{Notable, PolicySwitch};

/// What LATE's threshold depends on: the instant, the events processed and
/// the attempts launched so far (together they change whenever any task's
/// state or progress can), the kind, and the node asking (a task never
/// counts on a node where it ran).
pub(super) type LateKey = (Ms, u64, usize, bool, NodeId);

/// The engine's state: everything a run has but its policy and its
/// script (see the module's documentation).
#[derive(Clone)]
pub struct World {
    // The clock.
    now: Ms,
    /// While a flow's end is handled, the exact instant its last byte
    /// arrived (within the millisecond before `now`: the engine's events
    /// are on the millisecond, the network's are not).
    reaction_at: Option<f64>,
    /// Engine events processed: calendar events and flow ends.
    events: u64,
    heartbeats: u64,
    cal: Calendar,
    /// Last launch, completion or arrival: to detect a run that cannot go
    /// on.
    last_progress: Ms,
    /// The run stopped because nothing could ever run again.
    stalled: bool,

    /// The scenario's settings, as resolved.
    cfg: Settings,
    cluster: Cluster,
    /// Each node's cores.
    cpus: Vec<Cpu>,
    /// `[failures]` and how many draws each node has had.
    failures: Option<(crate::model::FailureSpec, Vec<u64>)>,
    /// HDFS's placement of input blocks.
    placement: ChaCha8Rng,

    // Jobs and their tasks.
    jobs: Jobs,
    /// Jobs submitted or to come, not finished.
    unfinished: usize,
    queues: Queues,
    job_tasks: JobTasks,
    attempts: Attempts,
    running: Running,

    // The network.
    /// Disks and links and the flows on them.
    net: Network,
    links: Links,
    flows: Flows,

    books: Books,
    metrics: Metrics,
    inbox: Inbox,
    records: Records,
    /// LATE's slow-task threshold as last computed, with what it depends
    /// on (`speculation::late_threshold`): the engine's speculation rule
    /// asks for it for every job it looks at within one heartbeat.
    late_threshold: std::cell::Cell<Option<(LateKey, f64)>>,
}

impl World {
    /// About how many bytes a copy of the world takes: its largest tables
    /// (attempts, tasks, the calendar, transfers) counted, the rest guessed
    /// at a kilobyte a node and a job. A budget for checkpoints needs the
    /// size's order, not its last byte.
    pub fn footprint(&self) -> usize {
        use std::mem::size_of;
        let tasks: usize = self.jobs.iter().map(job_bytes).sum();
        size_of::<World>()
            + self.attempts.footprint()
            + tasks
            + self.cluster.nodes.len() * 1024
            + self.cal.len() * 48
            + self.running.places() * size_of::<Run>()
            + self.flows.kept() * size_of::<FlowMeta>()
    }
}

/// About how many bytes job `j` takes (for a footprint).
/// A job's bytes as this world's part: its shared tables (`sim::share`)
/// divided among their holders.
fn job_bytes(j: &Job) -> usize {
    use std::mem::size_of;
    size_of::<Job>()
        + 1024
        + j.maps
            .part(j.maps.len() * (size_of::<super::job::MapTask>() + 16))
        + j.reduces
            .part(j.reduces.len() * size_of::<super::job::ReduceTask>())
        + j.outputs.len() * 4
}

impl World {
    /// Something a person watching the run would want to know happened
    /// now: kept in the journal, if the run keeps one ([`Sim::keep_journal`]).
    ///
    /// [`Sim::keep_journal`]: super::Sim::keep_journal
    pub(super) fn note(&mut self, n: Notable) {
        self.records.note(self.now, n);
    }

    /// The rule attempt `at` was launched by.
    pub fn rule(&self, at: &Attempt) -> &'static str {
        self.records.rule(at)
    }

    /// `rule`'s place in `rules`, given one if it has none. Policies name
    /// their rules with a few dozen constants, so a scan is enough.
    pub(super) fn rule_place(&mut self, rule: &'static str) -> u16 {
        self.records.rule_place(rule)
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
            events: 0,
            heartbeats: 0,
            cal: Calendar::default(),
            last_progress: 0,
            stalled: false,
            cfg: Settings::new(sc, slowstart),
            cluster,
            cpus,
            failures: None,
            placement: rng::stream(sc.seed, rng::STREAM_PLACEMENT),
            jobs: Jobs::default(),
            unfinished: 0,
            queues: Queues::default(),
            job_tasks: JobTasks::default(),
            attempts: Attempts::default(),
            running: Running::default(),
            net,
            links,
            flows: Flows::default(),
            books: Books::new(sc.pools.len(), n_nodes),
            metrics: Metrics::new(n_nodes, sc.pools.len(), total_slots).with_basis(basis, live),
            inbox: Inbox::default(),
            records: Records::new(policy_label),
            late_threshold: std::cell::Cell::new(None),
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
        &self.cfg.pools[self.jobs[j as usize].pool as usize].name
    }

    pub fn reduces_schedulable(&self, j: JobId) -> bool {
        self.jobs[j as usize].reduces_schedulable(self.cfg.slowstart)
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
        job.maps_done == job.n_maps() || self.books.early_reduces() < self.cluster.total_slots() / 2
    }

    /// The set-up, clean-up and ApplicationMaster tasks running now
    /// (indexes into [`World::job_tasks`]), in the order they started.
    pub fn running_job_tasks(&self) -> &[u32] {
        self.job_tasks.running()
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
        let q = &self.queues;
        let mut setup = q.awaiting(JobTaskKind::Setup).to_vec();
        setup.extend_from_slice(q.awaiting(JobTaskKind::Am));
        let mut finishing = q.awaiting(JobTaskKind::Cleanup).to_vec();
        finishing.extend_from_slice(q.committing());
        for &t in self.job_tasks.running() {
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
        let p = self.cfg.tasks.straggler_prob;
        if p <= 0.0 {
            return 1.0;
        }
        let key = (task as u64) << 1 | u64::from(kind == Kind::Reduce);
        if rng::unit(self.cfg.seed, job as u64, key, attempt as u64) < p {
            let (lo, hi) = self.cfg.tasks.straggler_slowdown;
            lo + (hi - lo) * rng::unit(self.cfg.seed, job as u64, key, attempt as u64 | 1 << 40)
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
        let idle = self.queues.idle() && self.metrics.running == 0;
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
        let mut r = rng::keyed(self.cfg.seed, rng::STREAM_FAILURES, n as u64, k);
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

//! A run as everything above the engine sees it: one read-only face.
//!
//! Policies, the TUI, the reports and the run drivers read a run only
//! through a [`RunView`], as Hadoop's schedulers read `SchedulerNode` and
//! `FSAppAttempt` rather than the ResourceManager's tables. What is here is
//! the API a policy may rely on: the clock, the cluster and its nodes, the
//! jobs and the queues the engine keeps them in, the books a policy is fair
//! by (each pool's running tasks and what they hold), the attempts and
//! their progress, the network's flows, and the records the outputs are
//! made of. Everything else the engine keeps (its calendar and the counts
//! that tell a stalled run, the messages queued for the policy, the
//! running attempts' phase state, caches) is its own and may change
//! without notice.
//!
//! A view changes nothing. A policy changes a run through the
//! [`super::Heartbeat`] it is handed; anything else, only through the
//! command API ([`super::Sim::command`], [`super::Sim::schedule`]).
//!
//! A `RunView` is a reference (`Copy`, one pointer), and what it hands out
//! lives as long as the borrow of the run it was made from, so a helper
//! may take a view by value and return references into the run.

use super::{PolicySwitch, PoolStats, World};
use crate::model::{Capacity, JobId, Ms, NetworkSpec, NodeId, PoolSpec, TaskSpec};
use crate::sim::attempts::Attempts;
use crate::sim::cluster::{Cluster, Node};
use crate::sim::flows::FlowRecord;
use crate::sim::job::{Attempt, AttemptId, Job};
use crate::sim::jobs::Jobs;
use crate::sim::jobtask::{JobTaskKind, JobTaskRun};
use crate::sim::metrics::Metrics;
use crate::sim::network::Network;
use crate::sim::paths::Links;
use crate::sim::running::Run;
use crate::sim::share::Grows;

/// A run, read-only: see the module's documentation.
#[derive(Clone, Copy)]
pub struct RunView<'a> {
    w: &'a World,
}

impl<'a> RunView<'a> {
    pub(super) fn new(w: &'a World) -> RunView<'a> {
        RunView { w }
    }

    // --- The clock and the run's counters ---

    /// The simulated instant, ms.
    #[inline]
    pub fn now(self) -> Ms {
        self.w.now
    }

    /// The simulated instant, seconds.
    #[inline]
    pub fn t_s(self) -> f64 {
        self.w.t_s()
    }

    /// The scenario's seed.
    #[inline]
    pub fn seed(self) -> u64 {
        self.w.cfg.seed
    }

    /// Heartbeats processed so far (of live nodes and dead ones).
    #[inline]
    pub fn heartbeats(self) -> u64 {
        self.w.heartbeats
    }

    /// Engine events processed: calendar events and flow ends.
    #[inline]
    pub fn events(self) -> u64 {
        self.w.events
    }

    /// Whether the run stopped because nothing could ever run again.
    #[inline]
    pub fn stalled(self) -> bool {
        self.w.stalled
    }

    // --- The scenario's settings, as resolved ---

    /// `[tasks]`: start-up, variance, stragglers, speculation, containers.
    #[inline]
    pub fn tasks(self) -> &'a TaskSpec {
        &self.w.cfg.tasks
    }

    /// `[network]`.
    #[inline]
    pub fn net_spec(self) -> &'a NetworkSpec {
        &self.w.cfg.net_spec
    }

    /// The period of every node's heartbeat (`None`: heartbeats only as
    /// scripted).
    #[inline]
    pub fn heartbeat_interval(self) -> Option<Ms> {
        self.w.cfg.heartbeat_interval
    }

    /// Whether a node that frees a slot heartbeats at once
    /// (`cluster.out_of_band_heartbeat`).
    #[inline]
    pub fn out_of_band(self) -> bool {
        self.w.cfg.out_of_band
    }

    /// The pools (queues), as the scenario gives them, by pool id.
    #[inline]
    pub fn pools(self) -> &'a [PoolSpec] {
        &self.w.cfg.pools
    }

    // --- The cluster ---

    #[inline]
    pub fn cluster(self) -> &'a Cluster {
        &self.w.cluster
    }

    #[inline]
    pub fn node(self, n: NodeId) -> &'a Node {
        self.w.node(n)
    }

    /// Each node's cores, shared by the attempts computing on it, by node.
    #[inline]
    pub fn cpus(self) -> &'a [crate::sim::cpu::Cpu] {
        &self.w.cpus
    }

    /// The cluster's capacity model.
    #[inline]
    pub fn capacity(self) -> &'a Capacity {
        self.w.capacity()
    }

    // --- Jobs and their queues ---

    /// Every job known so far, by id (submitted or still to come).
    #[inline]
    pub fn jobs(self) -> &'a Jobs {
        &self.w.jobs
    }

    #[inline]
    pub fn job(self, j: JobId) -> &'a Job {
        self.w.job(j)
    }

    /// The pool job `j` is in.
    #[inline]
    pub fn pool_name(self, j: JobId) -> &'a str {
        self.w.pool_name(j)
    }

    /// Runnable unfinished jobs, ordered by (submit, id): the jobs a
    /// policy schedules the tasks of.
    #[inline]
    pub fn active(self) -> &'a [JobId] {
        self.w.queues.active()
    }

    /// Arrived jobs held back by their pool's `max_running_jobs`, in
    /// arrival order.
    #[inline]
    pub fn waiting(self) -> &'a [JobId] {
        self.w.queues.waiting()
    }

    /// Runnable jobs waiting for their set-up task, by id.
    #[inline]
    pub fn awaiting_setup(self) -> &'a [JobId] {
        self.w.queues.awaiting(JobTaskKind::Setup)
    }

    /// Runnable jobs whose ApplicationMaster waits for the scheduler to
    /// place it ([`super::Heartbeat::launch_am`]), by id.
    #[inline]
    pub fn awaiting_am(self) -> &'a [JobId] {
        self.w.queues.awaiting(JobTaskKind::Am)
    }

    /// Jobs no policy sees though they have not finished (waiting for or
    /// running their set-up task or AM; past their last task), each by id.
    pub fn settling(self) -> (Vec<JobId>, Vec<JobId>) {
        self.w.settling()
    }

    pub fn finished_jobs(self) -> usize {
        self.w.finished_jobs()
    }

    pub fn submitted_jobs(self) -> usize {
        self.w.submitted_jobs()
    }

    #[inline]
    pub fn unfinished_jobs(self) -> usize {
        self.w.unfinished_jobs()
    }

    /// Whether job `j`'s reduces may be scheduled under the slowstart of
    /// the policy in force.
    #[inline]
    pub fn reduces_schedulable(self, j: JobId) -> bool {
        self.w.reduces_schedulable(j)
    }

    /// May a reduce of job `j` start now (the bound on early reduces where
    /// maps and reduces share containers)?
    #[inline]
    pub fn reduce_allowed(self, j: JobId) -> bool {
        self.w.reduce_allowed(j)
    }

    /// Every set-up, clean-up and ApplicationMaster task run so far.
    #[inline]
    pub fn job_tasks(self) -> &'a Grows<JobTaskRun> {
        self.w.job_tasks.all()
    }

    /// Those running now (indexes into [`RunView::job_tasks`]), in the order
    /// they started.
    #[inline]
    pub fn running_job_tasks(self) -> &'a [u32] {
        self.w.running_job_tasks()
    }

    /// ApplicationMasters running now.
    pub fn running_ams(self) -> usize {
        self.w.running_ams()
    }

    // --- The books policies are fair by ---

    /// Each pool's running tasks, runnable jobs and what they hold, by
    /// pool id.
    #[inline]
    pub fn pool_stats(self) -> &'a [PoolStats] {
        self.w.books.pools()
    }

    /// A counter that moves whenever the books may have changed in a way
    /// that orders pools and jobs: a task's ask booked or released, a job
    /// moved, the set of jobs asking (runnable, or awaiting their set-up or
    /// ApplicationMaster) changed. A policy that sorts by the books may
    /// keep its order while it stands still (YARN's schedulers do). Each
    /// pool's own moves with it ([`PoolStats::epoch`]).
    #[inline]
    pub fn books_epoch(self) -> u64 {
        self.w.books.epoch()
    }

    /// Running reduces of jobs whose maps are unfinished.
    #[inline]
    pub fn early_reduces(self) -> u32 {
        self.w.books.early_reduces()
    }

    /// Tasks put back to pending after an attempt of theirs started: a
    /// policy that remembers how far down its queue it has launched starts
    /// over when this moves.
    #[inline]
    pub fn requeues(self) -> u64 {
        self.w.books.requeues()
    }

    /// Map attempts that succeeded on each node, by node (less those whose
    /// output a failure lost).
    #[inline]
    pub fn maps_succeeded_on(self) -> &'a [u32] {
        self.w.books.maps_succeeded_on()
    }

    /// The summed durations of those attempts, ms.
    #[inline]
    pub fn map_time_succeeded(self) -> Ms {
        self.w.books.map_time_succeeded()
    }

    /// Attempts that have ended so far (launched minus running).
    pub fn ended_attempts(self) -> u64 {
        self.w.ended_attempts()
    }

    // --- Attempts ---

    /// Every attempt by id (with records dropped, those of finished jobs
    /// read as ended: [`Attempts`]).
    #[inline]
    pub fn attempts(self) -> &'a Attempts {
        &self.w.attempts
    }

    /// The rule attempt `at` was launched by.
    #[inline]
    pub fn rule(self, at: &Attempt) -> &'static str {
        self.w.rule(at)
    }

    /// A running attempt's phase state.
    #[inline]
    pub fn run_of(self, a: AttemptId) -> Option<&'a Run> {
        self.w.run_of(a)
    }

    /// Estimated progress in [0, 1] of a running attempt, as Hadoop
    /// reports it for speculation.
    pub fn progress(self, a: AttemptId) -> f64 {
        self.w.progress(a)
    }

    /// What a running attempt moves now, MB/s (None while it moves
    /// nothing).
    pub fn transfer_rate(self, a: AttemptId) -> Option<f64> {
        self.w.transfer_rate(a)
    }

    // --- The network ---

    /// Disks and links and the flows on them.
    #[inline]
    pub fn net(self) -> &'a Network {
        &self.w.net
    }

    /// The topology's resources by name and role.
    #[inline]
    pub fn links(self) -> &'a Links {
        &self.w.links
    }

    /// MB moved by flow kind (input, spill, shuffle, output).
    #[inline]
    pub fn net_mb(self) -> [f64; 4] {
        self.w.flows.mb()
    }

    /// Every flow, when the run records them (`--flows`).
    #[inline]
    pub fn flow_log(self) -> Option<&'a Grows<FlowRecord>> {
        self.w.flows.log()
    }

    // --- Records ---

    /// Utilisation, locality and the other integrals the summary reports.
    #[inline]
    pub fn metrics(self) -> &'a Metrics {
        &self.w.metrics
    }

    /// The label of every policy the run has had, in order; an attempt's
    /// `policy` indexes it.
    #[inline]
    pub fn labels(self) -> &'a [String] {
        self.w.records.labels()
    }

    /// Every policy switch so far.
    #[inline]
    pub fn switches(self) -> &'a [PolicySwitch] {
        self.w.records.switches()
    }

    /// LATE's slow-task threshold as last computed (`speculation`).
    pub(in crate::sim) fn late_cache(self) -> &'a std::cell::Cell<Option<(super::LateKey, f64)>> {
        &self.w.late_threshold
    }

    /// About how many bytes a copy of the run's state takes.
    pub fn footprint(self) -> usize {
        self.w.footprint()
    }
}

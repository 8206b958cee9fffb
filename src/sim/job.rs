//! Jobs, tasks and attempts (the per-job index of pending maps is
//! `mapindex`).

use super::mapindex::Level;
pub use super::mapindex::{LazyRange, MapIndex};

use super::cluster::Cluster;
use super::share::Fixed;
use crate::model::{JobId, Ms, NodeId, PoolId, Priority, Profile};
use serde::Serialize;

pub type AttemptId = u32;

pub use crate::model::Kind;

/// Locality class of a map attempt, best first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Locality {
    Node,
    Rack,
    OffRack,
    OffDc,
}

impl Locality {
    pub fn as_str(self) -> &'static str {
        match self {
            Locality::Node => "node",
            Locality::Rack => "rack",
            Locality::OffRack => "off_rack",
            Locality::OffDc => "off_dc",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    Running,
    Succeeded,
    Killed,
    Failed,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TaskState {
    Pending,
    Running,
    Done,
}

/// The attempts of a task running now: none, its attempt, or its attempt
/// and one speculative copy. Never more: the engine copies only a task
/// with exactly one live attempt (`speculation::candidates`, and
/// [`crate::sim::heartbeat::Heartbeat::launch_speculative`] asserts it), as
/// Hadoop runs at most one speculative attempt per task. Kept inline
/// (8 bytes, [`Live::NONE`] marking a free place) rather than in a `Vec`
/// (24 bytes), since every task of every job holds one; it reads as a
/// slice, in launch order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Live([AttemptId; 2]);

impl Live {
    const NONE: AttemptId = AttemptId::MAX;

    pub const fn new() -> Live {
        Live([Live::NONE; 2])
    }

    /// Adds a running attempt, after those already there.
    ///
    /// # Panics
    /// If two already run.
    pub fn push(&mut self, a: AttemptId) {
        debug_assert_ne!(a, Live::NONE);
        let free = self.len();
        assert!(free < 2, "a task runs at most two attempts at once");
        self.0[free] = a;
    }

    /// Takes attempt `a` off, keeping the other's place first.
    pub fn remove(&mut self, a: AttemptId) {
        if self.0[0] == a {
            self.0 = [self.0[1], Live::NONE];
        } else if self.0[1] == a {
            self.0[1] = Live::NONE;
        }
    }
}

impl Default for Live {
    fn default() -> Live {
        Live::new()
    }
}

impl std::ops::Deref for Live {
    type Target = [AttemptId];

    fn deref(&self) -> &[AttemptId] {
        let n = self.0.iter().take_while(|&&a| a != Live::NONE).count();
        &self.0[..n]
    }
}

/// The nodes any attempt of a task has run on (Hadoop's
/// `hasRunOnMachine`): the first in place, the others, rare (a
/// speculative copy, a re-run after a failure), in its job's
/// [`Job::ran_more`]. Eight bytes and no allocation for the task that runs
/// on one node, as nearly every task does: a boxed vector took two heap
/// blocks more for each task that ran, all held to the end of the run
/// (235 MiB by the FB-2010 day's eighth hour, docs/performance.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RanOn {
    first: NodeId,
    /// Its list in [`Job::ran_more`], [`RanOn::NONE`] if none.
    more: u32,
}

impl RanOn {
    const NONE: u32 = u32::MAX;

    pub const fn new() -> RanOn {
        RanOn {
            first: RanOn::NONE,
            more: RanOn::NONE,
        }
    }

    /// Notes that an attempt ran on `node` (once per node); `more` is the
    /// task's job's [`Job::ran_more`].
    pub fn insert(&mut self, node: NodeId, more: &mut Vec<Vec<NodeId>>) {
        if self.first == RanOn::NONE {
            self.first = node;
        } else if self.first != node {
            if self.more == RanOn::NONE {
                self.more = more.len() as u32;
                more.push(vec![node]);
            } else {
                let others = &mut more[self.more as usize];
                if !others.contains(&node) {
                    others.push(node);
                }
            }
        }
    }

    /// Whether an attempt has run on `node`; `more` as for
    /// [`RanOn::insert`].
    pub fn contains(&self, node: NodeId, more: &[Vec<NodeId>]) -> bool {
        self.first == node || (self.more != RanOn::NONE && more[self.more as usize].contains(&node))
    }
}

impl Default for RanOn {
    fn default() -> RanOn {
        RanOn::new()
    }
}

/// A map task. Kept small (48 bytes) because a run holds every task of
/// every job from the start, millions for a day of a large trace: its
/// replicas live in its job's arena ([`Job::replicas`]), its output size is
/// computed ([`Job::map_output_mb`]), and its optional times and attempt
/// use sentinels behind accessors.
#[derive(Clone, Debug)]
pub struct MapTask {
    pub block_mb: f64,
    /// When it finished, [`MapTask::NOT_FINISHED`] if it has not (or its
    /// output was lost): see [`MapTask::finished_at`].
    finished: Ms,
    /// Attempts running now (two while speculated).
    pub live: Live,
    /// Nodes any attempt of it has run on (Hadoop's `hasRunOnMachine`).
    pub ran_on: RanOn,
    pub attempts: u32,
    /// The attempt that produced its output, [`MapTask::NO_ATTEMPT`] if
    /// none: see [`MapTask::done_by`].
    done: AttemptId,
    /// Its replicas are `replicas_len` entries of its job's arena from
    /// `replicas_at`.
    replicas_at: u32,
    replicas_len: u16,
    pub state: TaskState,
}

impl MapTask {
    const NOT_FINISHED: Ms = Ms::MAX;
    const NO_ATTEMPT: AttemptId = AttemptId::MAX;

    /// A pending map of `block_mb` whose replicas are `len` entries of its
    /// job's replica arena from `at`.
    pub fn new(block_mb: f64, at: u32, len: u16) -> MapTask {
        MapTask {
            block_mb,
            finished: MapTask::NOT_FINISHED,
            live: Live::new(),
            ran_on: RanOn::default(),
            attempts: 0,
            done: MapTask::NO_ATTEMPT,
            replicas_at: at,
            replicas_len: len,
            state: TaskState::Pending,
        }
    }

    /// When it finished, if it is done.
    pub fn finished_at(&self) -> Option<Ms> {
        (self.finished != MapTask::NOT_FINISHED).then_some(self.finished)
    }

    pub fn set_finished_at(&mut self, at: Option<Ms>) {
        self.finished = at.unwrap_or(MapTask::NOT_FINISHED);
    }

    /// The attempt that produced its output, on whose node the output is
    /// stored (and lost if that node fails).
    pub fn done_by(&self) -> Option<AttemptId> {
        (self.done != MapTask::NO_ATTEMPT).then_some(self.done)
    }

    pub fn set_done_by(&mut self, a: Option<AttemptId>) {
        self.done = a.unwrap_or(MapTask::NO_ATTEMPT);
    }
}

#[derive(Clone, Debug)]
pub struct ReduceTask {
    pub state: TaskState,
    pub attempts: u32,
    /// Attempts running now (two while speculated).
    pub live: Live,
    /// Nodes any attempt of it has run on (Hadoop's `hasRunOnMachine`).
    pub ran_on: RanOn,
}

/// Where a running attempt is in its life. A map goes Startup, Read,
/// Compute, Spill; a reduce Startup, Shuffle, Compute, Write. Attempts of
/// jobs with a fixed `map_time` / `reduce_time` spend that time in `Timed`
/// (a reduce after its shuffle).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Phase {
    Startup,
    Read,
    Compute,
    Spill,
    Shuffle,
    Write,
    Timed,
    Done,
}

impl Phase {
    pub fn as_str(self) -> &'static str {
        match self {
            Phase::Startup => "startup",
            Phase::Read => "read",
            Phase::Compute => "compute",
            Phase::Spill => "spill",
            Phase::Shuffle => "shuffle",
            Phase::Write => "write",
            Phase::Timed => "timed",
            Phase::Done => "done",
        }
    }
}

/// Milliseconds an attempt spent in each kind of phase: start-up, reading
/// its input, computing (with a map's spill, a reduce's output write, and
/// the fixed time of a timed task), and a reduce's copy (its shuffle,
/// waiting for maps included).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PhaseTimes {
    pub startup: u32,
    pub read: u32,
    pub compute: u32,
    pub shuffle: u32,
}

#[derive(Clone, Debug)]
pub struct Attempt {
    pub job: JobId,
    pub kind: Kind,
    pub task: u32,
    pub attempt: u32,
    pub node: NodeId,
    pub start: Ms,
    /// When it ended ([`Attempt::end`]); `NOT_YET` while it runs.
    pub(super) end_at: Ms,
    pub speculative: bool,
    pub outcome: Outcome,
    /// Index into the run's policy labels.
    pub policy: u16,
    /// Index into the run's rules (`World::rules`; see `World::rule`).
    pub rule: u16,
    pub locality: Option<Locality>,
    /// Lane on its node (see `Node::lanes`).
    pub slot: u16,
    /// The type of slot it occupies: its own kind, unless a policy
    /// borrowed a slot of the other type (DynamicMR's DHSA).
    pub slot_kind: Kind,
    pub phase: Phase,
    pub times: PhaseTimes,
    /// When a reduce's copy phase ended ([`Attempt::shuffle_end`]);
    /// `NOT_YET` before. (Sentinels rather than `Option`s keep an attempt
    /// at 72 bytes: a day's trace has millions.)
    pub(super) shuffle_end_at: Ms,
    /// Index of its running state in `World::runs` while it runs.
    pub run: u32,
    /// What it asked of its node and held while it ran: a slot of its
    /// slot's kind, a container, or on YARN its container's memory and
    /// vcores ([`crate::model::Capacity`]).
    pub ask: crate::model::Resource,
}

/// An attempt's time not reached yet.
pub(super) const NOT_YET: Ms = Ms::MAX;

impl Attempt {
    /// An ended attempt of no job (what a released record reads as).
    pub(super) fn placeholder() -> Attempt {
        Attempt {
            job: JobId::MAX,
            kind: Kind::Map,
            task: 0,
            attempt: 0,
            node: 0,
            start: 0,
            end_at: 0,
            speculative: false,
            outcome: Outcome::Killed,
            policy: 0,
            rule: 0,
            locality: None,
            slot: 0,
            slot_kind: Kind::Map,
            phase: Phase::Done,
            times: PhaseTimes::default(),
            shuffle_end_at: NOT_YET,
            run: u32::MAX,
            ask: crate::model::Resource::ZERO,
        }
    }

    /// When it ended (succeeded, failed or was killed).
    pub fn end(&self) -> Option<Ms> {
        (self.end_at != NOT_YET).then_some(self.end_at)
    }

    pub fn set_end(&mut self, at: Ms) {
        self.end_at = at;
    }

    /// When a reduce's copy phase ended.
    pub fn shuffle_end(&self) -> Option<Ms> {
        (self.shuffle_end_at != NOT_YET).then_some(self.shuffle_end_at)
    }

    pub fn set_shuffle_end(&mut self, at: Ms) {
        self.shuffle_end_at = at;
    }
}

#[derive(Clone, Debug)]
pub struct Job {
    pub id: JobId,
    /// Its name and its user's, shared with its copies (never changed).
    pub name: std::sync::Arc<str>,
    pub pool: PoolId,
    pub user: std::sync::Arc<str>,
    pub priority: Priority,
    pub submit: Ms,
    pub profile: Profile,
    pub fp: f64,
    /// Replicas its reduces write (the scenario's `[hdfs]` unless set).
    pub output_replication: Option<u32>,
    pub input_mb: f64,
    pub map_time: Option<Ms>,
    pub reduce_time: Option<Ms>,
    /// A replayed job's recorded task times and completion.
    pub recorded: Option<Box<crate::model::Recorded>>,
    /// Its tasks, shared with the run's checkpoints until the run changes
    /// them (`sim::share`).
    pub maps: Fixed<MapTask>,
    pub reduces: Fixed<ReduceTask>,
    pub arrived: bool,
    /// Arrived and within its pool's running-job limit.
    pub runnable: bool,
    pub first_launch: Option<Ms>,
    /// Its set-up and clean-up tasks' durations (`None`: it has none; see
    /// `jobtask`), and how many times each has been launched.
    pub setup_ms: Option<Ms>,
    pub cleanup_ms: Option<Ms>,
    /// Its ApplicationMaster's start-up (`None`: no AM task, on Hadoop
    /// 1.x's slots or with AMs sized 0).
    pub am_ms: Option<Ms>,
    pub job_task_attempts: [u16; 2],
    /// Under ApplicationMasters (YARN): the containers its maps and
    /// reduces ask for (before the scheduler normalises them). What its
    /// running tasks hold now (its AM's included). When its AM made its
    /// first allocate call (the AM calls every second from then on).
    pub map_ask: crate::model::Resource,
    pub reduce_ask: crate::model::Resource,
    pub used: crate::model::Resource,
    pub am_ready: Option<Ms>,
    /// Its AM's reduce requests the scheduler sees (`scheduledRequests.
    /// reduces`); the rest of `reduces_pending` wait in the AM
    /// (`pendingReduces`) until `RMContainerAllocator.scheduleReduces`
    /// ramps them up. And whether slowstart has let reduces start.
    pub reduce_asks: u32,
    pub reduces_started: bool,
    pub finished_at: Option<Ms>,
    /// Killed (`kill_job`): `finished_at` is when.
    pub killed: bool,
    pub map_end: Option<Ms>,
    /// The first time every map was done (`map_end` moves later if a node
    /// failure loses outputs and maps re-run; this does not).
    pub first_map_end: Option<Ms>,
    pub shuffle_end: Option<Ms>,
    pub maps_pending: u32,
    pub maps_running: u32,
    pub maps_done: u32,
    pub reduces_pending: u32,
    pub reduces_running: u32,
    pub reduces_done: u32,
    /// Completed map output (MB), every map together.
    pub output_total: f64,
    /// Maps whose output is available, in completion order (the order a
    /// reducer fetches in).
    pub outputs: Vec<u32>,
    /// Sum of finished map attempt durations (for policies' T_m).
    pub map_time_sum: Ms,
    /// When its first map and its first reduce attempt started (the
    /// summary's phases; kept here, as attempts' records may not be).
    pub first_start: [Option<Ms>; 2],
    pub running_reducers: Vec<AttemptId>,
    /// Each node's place among the nodes that have held this job's map
    /// outputs, in the order they first did (`u32::MAX`: none yet).
    /// Reducers keep what they fetch from each node in a vector by this
    /// place, not in a map by node: one lookup per map output a reducer
    /// learns of is the shuffle's cost on large clusters.
    source_place: Vec<u32>,
    sources: u32,
    /// What a reducer starting now finds waiting, by place: the output
    /// per reducer of the finished maps there, summed in completion order
    /// (as each reducer copying sums it); and the nodes in the order they
    /// first appear in `outputs` (the order it queues them in). A reducer
    /// starting late then reads one entry per node rather than one per map.
    waiting_mb: Vec<f64>,
    /// How many map outputs make up `waiting_mb` (a reducer's segments).
    waiting_segs: Vec<u32>,
    waiting_listed: Vec<bool>,
    pub waiting_order: Vec<NodeId>,
    pub index: MapIndex,
    reduce_list: LazyRange,
    /// Every map's replicas, one after another (see [`Job::replicas`]):
    /// one allocation per job instead of one per map.
    replica_nodes: Fixed<NodeId>,
    /// The nodes its tasks ran on after their first (see [`RanOn`]), a
    /// list for each task that ran on more than one.
    pub ran_more: Vec<Vec<NodeId>>,
}

impl Job {
    /// Whether a task of its own (a set-up task, an ApplicationMaster)
    /// runs before its tasks are schedulable.
    pub fn prepares(&self) -> bool {
        self.setup_ms.is_some() || self.am_ms.is_some()
    }

    /// A fixed time for task `task` of `kind`: the recorded one of a
    /// replayed job, else the job's `map_time` / `reduce_time`.
    pub fn fixed_ms(&self, kind: Kind, task: u32) -> Option<Ms> {
        let recorded = self.recorded.as_ref().and_then(|r| match kind {
            Kind::Map => r.map_ms.get(task as usize),
            Kind::Reduce => r.reduce_ms.get(task as usize),
        });
        recorded.copied().or(match kind {
            Kind::Map => self.map_time,
            Kind::Reduce => self.reduce_time,
        })
    }

    #[allow(clippy::too_many_arguments)]
    pub fn new(
        id: JobId,
        spec: &crate::model::JobSpec,
        pool: PoolId,
        maps: Vec<MapTask>,
        replica_nodes: Vec<NodeId>,
    ) -> Job {
        let reduce_list = LazyRange::new(spec.reduces);
        Job {
            id,
            name: spec.name.as_str().into(),
            pool,
            user: spec.user.as_str().into(),
            priority: spec.priority,
            submit: spec.submit,
            profile: spec.profile.clone(),
            fp: spec.fp,
            output_replication: spec.output_replication,
            input_mb: spec.input_mb,
            map_time: spec.map_time,
            reduce_time: spec.reduce_time,
            recorded: spec.recorded.clone(),
            maps_pending: maps.len() as u32,
            maps: maps.into(),
            reduces: (0..spec.reduces)
                .map(|_| ReduceTask {
                    state: TaskState::Pending,
                    attempts: 0,
                    live: Live::new(),
                    ran_on: RanOn::default(),
                })
                .collect(),
            arrived: false,
            runnable: false,
            first_launch: None,
            setup_ms: None,
            cleanup_ms: None,
            am_ms: None,
            job_task_attempts: [0; 2],
            map_ask: crate::model::Resource::ZERO,
            reduce_ask: crate::model::Resource::ZERO,
            used: crate::model::Resource::ZERO,
            am_ready: None,
            reduce_asks: 0,
            reduces_started: false,
            finished_at: None,
            killed: false,
            map_end: None,
            first_map_end: None,
            shuffle_end: None,
            maps_running: 0,
            maps_done: 0,
            reduces_pending: spec.reduces,
            reduces_running: 0,
            reduces_done: 0,
            output_total: 0.0,
            outputs: Vec::new(),
            map_time_sum: 0,
            first_start: [None; 2],
            running_reducers: Vec::new(),
            source_place: Vec::new(),
            sources: 0,
            waiting_mb: Vec::new(),
            waiting_segs: Vec::new(),
            waiting_listed: Vec::new(),
            waiting_order: Vec::new(),
            index: MapIndex::default(),
            reduce_list,
            replica_nodes: replica_nodes.into(),
            ran_more: Vec::new(),
        }
    }

    /// Node `node`'s place among the nodes holding this job's map outputs
    /// (see `source_place`), given one if it has none.
    pub fn source_place(&mut self, node: NodeId) -> usize {
        let n = node as usize;
        if n >= self.source_place.len() {
            self.source_place.resize(n + 1, u32::MAX);
        }
        if self.source_place[n] == u32::MAX {
            self.source_place[n] = self.sources;
            self.sources += 1;
        }
        self.source_place[n] as usize
    }

    /// Node `node`'s place, if it has one.
    pub fn source_place_of(&self, node: NodeId) -> Option<usize> {
        match self.source_place.get(node as usize) {
            Some(&p) if p != u32::MAX => Some(p as usize),
            _ => None,
        }
    }

    /// Indexes its pending maps by node, rack and datacenter, once it
    /// arrives: a job not yet submitted is never scheduled, and a day's
    /// trace holds most of its jobs' indexes unbuilt (or freed, below) at
    /// any time. The replicas and the cluster's layout never change, so
    /// the index is the one it would have been at load.
    pub fn index_maps(&mut self, cluster: &Cluster) {
        let (maps, replicas) = (&self.maps, &self.replica_nodes);
        let slice = |m: &MapTask| {
            let at = m.replicas_at as usize;
            &replicas[at..at + m.replicas_len as usize]
        };
        self.index = MapIndex::build(maps.len() as u32, |t| slice(&maps[t as usize]), cluster);
    }

    /// Frees what only an unfinished job needs, once it is done: its
    /// pending maps' index (every map's replica places: a quarter of
    /// what the FB-2010 day's jobs hold at rest), the order of its
    /// outputs (read when a node's loss sends maps back), and its shuffle's
    /// places. A done job is scheduled no more (and a finished one has no
    /// map pending, so the index would find none anyway).
    pub fn retire_books(&mut self) {
        self.index = MapIndex::default();
        self.outputs = Vec::new();
        self.forget_source_places();
    }

    /// Forgets every node's place once no reducer copies any more.
    fn forget_source_places(&mut self) {
        self.source_place = Vec::new();
        self.sources = 0;
        self.forget_waiting();
    }

    /// Adds `mb` per reducer at `node` to what a starting reducer finds;
    /// returns the node's place.
    pub fn add_waiting(&mut self, node: NodeId, mb: f64) -> usize {
        let place = self.source_place(node);
        if place >= self.waiting_mb.len() {
            self.waiting_mb.resize(place + 1, 0.0);
            self.waiting_segs.resize(place + 1, 0);
            self.waiting_listed.resize(place + 1, false);
        }
        self.waiting_mb[place] += mb;
        self.waiting_segs[place] += 1;
        if !self.waiting_listed[place] {
            self.waiting_listed[place] = true;
            self.waiting_order.push(node);
        }
        place
    }

    /// What a starting reducer finds waiting at the node of `place`.
    pub fn waiting_at(&self, place: usize) -> f64 {
        self.waiting_mb[place]
    }

    /// How many map outputs a starting reducer finds at `place`.
    pub fn waiting_segs_at(&self, place: usize) -> u32 {
        self.waiting_segs[place]
    }

    /// Empties what a starting reducer finds (to be summed again).
    pub fn forget_waiting(&mut self) {
        self.waiting_mb = Vec::new();
        self.waiting_segs = Vec::new();
        self.waiting_listed = Vec::new();
        self.waiting_order = Vec::new();
    }

    /// The nodes holding map `t`'s block.
    pub fn replicas(&self, t: u32) -> &[NodeId] {
        let m = &self.maps[t as usize];
        let at = m.replicas_at as usize;
        &self.replica_nodes[at..at + m.replicas_len as usize]
    }

    /// Done map `t`'s output (MB): its block times the job's FP.
    pub fn map_output_mb(&self, t: u32) -> f64 {
        self.maps[t as usize].block_mb * self.fp
    }

    pub fn n_maps(&self) -> u32 {
        self.maps.len() as u32
    }

    pub fn n_reduces(&self) -> u32 {
        self.reduces.len() as u32
    }

    pub fn is_done(&self) -> bool {
        self.finished_at.is_some()
    }

    /// Hadoop's `scheduleReduces()`: finished maps ≥ ceil(slowstart × maps).
    /// (An integer is at least ceil(x) exactly when it is at least x: no
    /// `ceil`, which is a library call on the hot path of every heartbeat.)
    pub fn reduces_schedulable(&self, slowstart: f64) -> bool {
        self.maps_done as f64 >= slowstart * self.n_maps() as f64 - 1e-9
    }

    /// Locality of running map `t` on `node`.
    pub fn locality(&self, t: u32, node: NodeId, cluster: &Cluster) -> Locality {
        let n = &cluster.nodes[node as usize];
        let mut best = Locality::OffDc;
        for &r in self.replicas(t) {
            let rn = &cluster.nodes[r as usize];
            let l = if r == node {
                Locality::Node
            } else if rn.rack == n.rack {
                Locality::Rack
            } else if rn.dc == n.dc {
                Locality::OffRack
            } else {
                Locality::OffDc
            };
            best = best.min(l);
        }
        best
    }

    /// The lowest-index pending map whose locality for `node` is at most
    /// `max`, preferring better locality (node, then rack, then the
    /// datacenter, then anywhere) as Hadoop's `findNewMapTask` does.
    pub fn find_map(
        &self,
        node: NodeId,
        max: Locality,
        cluster: &Cluster,
    ) -> Option<(u32, Locality)> {
        if self.maps_pending == 0 {
            return None;
        }
        let pending = |t: u32| self.maps[t as usize].state == TaskState::Pending;
        let n = &cluster.nodes[node as usize];
        if let Some(t) = self.index.first(Level::Node, node, pending) {
            return Some((t, Locality::Node));
        }
        if max >= Locality::Rack {
            if let Some(t) = self.index.first(Level::Rack, n.rack, pending) {
                return Some((t, Locality::Rack));
            }
        }
        if max >= Locality::OffRack {
            if let Some(t) = self.index.first(Level::Dc, n.dc, pending) {
                return Some((t, Locality::OffRack));
            }
        }
        if max >= Locality::OffDc {
            if let Some(t) = self.index.all.first(pending) {
                return Some((t, self.locality(t, node, cluster)));
            }
        }
        None
    }

    /// The distinct nodes and racks holding a replica of a pending map:
    /// the host and rack entries of the MapReduce AM's map requests.
    pub fn pending_locations(&self) -> u32 {
        if self.maps_pending == 0 {
            return 0;
        }
        let pending = |t: u32| self.maps[t as usize].state == TaskState::Pending;
        self.index.keys_with(Level::Node, pending) + self.index.keys_with(Level::Rack, pending)
    }

    /// The lowest-index pending reduce.
    pub fn find_reduce(&self) -> Option<u32> {
        if self.reduces_pending == 0 {
            return None;
        }
        self.reduce_list
            .first(|r| self.reduces[r as usize].state == TaskState::Pending)
    }

    /// A map whose attempt failed or was lost is pending again.
    pub fn requeue_map(&mut self, t: u32, cluster: &Cluster) {
        let m = &self.maps[t as usize];
        let at = m.replicas_at as usize;
        let replicas = &self.replica_nodes[at..at + m.replicas_len as usize];
        self.index.reinsert(t, replicas, cluster);
    }

    pub fn requeue_reduce(&mut self, r: u32) {
        self.reduce_list.reinsert(r);
    }

    /// Unfinished maps: the fair scheduler's map demand (no speculation).
    pub fn unfinished_maps(&self) -> u32 {
        self.n_maps() - self.maps_done
    }

    pub fn unfinished_reduces(&self) -> u32 {
        self.n_reduces() - self.reduces_done
    }

    /// Mean duration of finished maps in ms, if any finished.
    pub fn mean_map_ms(&self) -> Option<f64> {
        (self.maps_done > 0).then(|| self.map_time_sum as f64 / self.maps_done as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The first node in place, the others in the job's lists, one list a
    /// task, each node once: what `hasRunOnMachine` asks of them.
    #[test]
    fn ran_on_keeps_every_node_once_and_only_them() {
        let mut more: Vec<Vec<NodeId>> = Vec::new();
        let (mut a, mut b) = (RanOn::new(), RanOn::new());
        assert!(!a.contains(0, &more), "a task that never ran ran nowhere");
        a.insert(7, &mut more);
        a.insert(7, &mut more);
        assert!(more.is_empty(), "one node needs no list");
        b.insert(3, &mut more);
        b.insert(9, &mut more);
        a.insert(2, &mut more);
        a.insert(5, &mut more);
        a.insert(2, &mut more);
        assert_eq!(
            more,
            vec![vec![9], vec![2, 5]],
            "a list a task, each node once"
        );
        for n in [7, 2, 5] {
            assert!(a.contains(n, &more), "{n}");
        }
        for n in [3, 9, 0, 6] {
            assert!(!a.contains(n, &more), "{n} is the other task's, or none's");
        }
        assert!(b.contains(3, &more) && b.contains(9, &more) && !b.contains(5, &more));
    }
}

//! The compiled scenario: what the engine runs. Produced by `scenario::load`
//! from TOML (or built directly by tests); independent of the file format so
//! the engine never sees spans, units or defaults.

use std::collections::BTreeMap;

pub mod capacity;
pub mod spec;

pub use capacity::{max_allocation, yarn_defaults, Capacity, Gauge, Models, Resource, SlotModel};
pub use spec::{ExternalSpec, PolicySpec, SpecError};

pub use crate::units::Ms;
pub type NodeId = u32;
pub type JobId = u32;
pub type PoolId = u32;

/// A task's kind, and the kind of slot it takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    Map,
    Reduce,
}

#[derive(Clone, Debug)]
pub struct DatacenterSpec {
    pub name: String,
    pub nodes: u32,
    pub racks: u32,
    /// Nodes per rack when racks differ in size (a cluster read from a
    /// trace); empty: `nodes` split over `racks` as evenly as possible.
    pub rack_sizes: Vec<u32>,
}

#[derive(Clone, Debug)]
pub struct ClusterSpec {
    /// At least one. A plain `nodes = N` cluster is one datacenter named "dc0".
    pub datacenters: Vec<DatacenterSpec>,
    pub map_slots: u32,
    pub reduce_slots: u32,
    pub slot_model: SlotModel,
    /// `slot_model = "yarn"`: each node's memory and vcores (ignored
    /// otherwise).
    pub node_resource: Resource,
    /// Cores per node: attempts computing at once share them (default
    /// `map_slots + reduce_slots`, so typed slots are not over-committed).
    pub cores: u32,
    /// `None` = manual heartbeats (only `[[events]] action = "heartbeat"`);
    /// `"auto"` is resolved by the loader (see [`auto_heartbeat`]).
    pub heartbeat: Option<Ms>,
    pub out_of_band_heartbeat: bool,
    /// Node speed factor drawn uniformly from `[lo, hi]`.
    pub speed: (f64, f64),
    /// The trace whose hosts, racks and slots per host this cluster is,
    /// when a Rumen scenario gives no nodes of its own.
    pub from_trace: Option<String>,
}

impl ClusterSpec {
    /// Hadoop 1.x's typed slots on these datacenters, every node as fast,
    /// with a core per slot and 3 s heartbeats.
    pub fn typed(
        datacenters: Vec<DatacenterSpec>,
        map_slots: u32,
        reduce_slots: u32,
    ) -> ClusterSpec {
        ClusterSpec {
            datacenters,
            map_slots,
            reduce_slots,
            slot_model: SlotModel::Typed,
            node_resource: Resource::ZERO,
            cores: map_slots + reduce_slots,
            heartbeat: Some(3000),
            out_of_band_heartbeat: false,
            speed: (1.0, 1.0),
            from_trace: None,
        }
    }

    /// The cluster's capacity model: what a node offers, what tasks ask.
    pub fn capacity(&self) -> Capacity {
        Capacity::new(
            self.slot_model,
            self.map_slots,
            self.reduce_slots,
            self.node_resource,
        )
    }

    pub fn node_count(&self) -> u32 {
        self.datacenters.iter().map(|d| d.nodes).sum()
    }
}

/// Hadoop 1.0.3's heartbeat interval for `nodes` TaskTrackers
/// (`JobTracker.getNextHeartbeatInterval`): max(3 s, (int)(1000 ms ×
/// `scaling` × ceil(nodes / 100))), 100 being
/// `mapred.heartbeats.in.second`: 3 s up to 300 nodes, 5 s on 450, 30 s
/// on 3,000. (Hadoop 1.1 lowered the minimum and dropped the ceil.)
pub fn auto_heartbeat(nodes: u32, scaling: f64) -> Ms {
    ((1000.0 * scaling * (nodes as f64 / 100.0).ceil()) as Ms).max(3_000)
}

/// How transfers share disks and links.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum NetworkModel {
    /// Flows share disks, NICs, rack uplinks and WAN links max-min fairly.
    Shared,
    /// As `Shared`, approximately: cheaper, within a published error of it
    /// (docs/model.md).
    Coarse,
    /// Each transfer alone at its class bandwidth (the model of the first
    /// versions, for comparison and for tests that pin transfer times).
    Fixed,
}

impl NetworkModel {
    /// As scenarios spell it.
    pub fn name(self) -> &'static str {
        match self {
            NetworkModel::Shared => "shared",
            NetworkModel::Coarse => "coarse",
            NetworkModel::Fixed => "fixed",
        }
    }

    /// Whether flows share disks and links (`shared` and `coarse`).
    pub fn shares(self) -> bool {
        self != NetworkModel::Fixed
    }
}

/// Disks and links, MB/s.
#[derive(Clone, Debug)]
pub struct NetworkSpec {
    pub model: NetworkModel,
    /// Per node, shared by reads, spills, shuffle serving, output writes.
    pub disk_mbps: f64,
    /// Per node, each direction.
    pub nic_mbps: f64,
    /// A rack uplink carries nodes × nic_mbps / this, each direction.
    pub rack_oversubscription: f64,
    /// Per datacenter WAN link, each direction (shared); per transfer (fixed).
    pub inter_dc_mbps: f64,
    /// Shuffle sources a reducer fetches from at once
    /// (`mapred.reduce.parallel.copies`).
    pub parallel_copies: u32,
    /// A reducer whose whole input exceeds this (MB) writes every fetch to
    /// its own disk, as Hadoop 1.x's ReduceCopier does once map outputs
    /// outgrow its in-memory shuffle buffer; `None`: fetches end in memory.
    pub shuffle_buffer_mb: Option<f64>,
    /// Such a reducer merges its files on disk `io.sort.factor` at a time,
    /// as Hadoop 1.x's ReduceCopier and Merger do (default 10).
    pub io_sort_factor: u32,
    /// Fixed model only: per transfer, a rack-local read, an off-rack
    /// read, and a reducer's whole copy within its datacenter.
    pub rack_mbps: f64,
    pub cross_rack_mbps: f64,
    pub shuffle_mbps: f64,
}

impl Default for NetworkSpec {
    fn default() -> Self {
        NetworkSpec {
            model: NetworkModel::Shared,
            disk_mbps: 100.0,
            nic_mbps: 125.0,
            rack_oversubscription: 4.0,
            inter_dc_mbps: 12.0,
            parallel_copies: 5,
            shuffle_buffer_mb: None,
            io_sort_factor: 10,
            rack_mbps: 125.0,
            cross_rack_mbps: 60.0,
            shuffle_mbps: 125.0,
        }
    }
}

#[derive(Clone, Debug)]
pub struct HdfsSpec {
    pub block_mb: f64,
    pub replication: u32,
    /// Who wrote the input, so where first replicas land.
    pub writer: Writer,
}

/// Who wrote a job's input (`hdfs.writer`): HDFS puts a block's first
/// replica on the writer's node when the writer is a DataNode, else on a
/// random node; the others follow its default placement.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Writer {
    /// From outside the cluster: first replicas on random nodes.
    Client,
    /// From one DataNode: every first replica there.
    Node(NodeId),
    /// Generated by the job's maps (as TeraGen): block i's first replica on
    /// the node of the map that wrote it, the maps spread round robin.
    Maps,
    /// Each job's input put from a DataNode of its own, in turn: job k's
    /// (the k-th submitted, from 0) every first replica on node k mod the
    /// nodes.
    Jobs,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Speculation {
    Off,
    Hadoop,
    Late,
}

#[derive(Clone, Debug)]
pub struct TaskSpec {
    /// JVM launch and task set-up, per attempt (not for fixed-time jobs).
    pub startup: Ms,
    /// Coefficient of variation of the log-normal (mean 1) factor on each
    /// attempt's compute time; 0 turns variance off.
    pub duration_cv: f64,
    /// Multiplies every reduce's compute cost (1: as the jobs give it).
    pub reduce_cost_scale: f64,
    pub straggler_prob: f64,
    pub straggler_slowdown: (f64, f64),
    pub speculation: Speculation,
    /// Hadoop 1.x's job-setup and job-cleanup tasks: how long each runs in
    /// its slot, or `None` for none (`tasks.setup`, `tasks.cleanup`). Jobs
    /// with fixed or recorded task times never have them.
    pub setup: Option<Ms>,
    pub cleanup: Option<Ms>,
    /// `slot_model = "yarn"`: each job's ApplicationMaster (none on
    /// Hadoop 1.x's slots, whose JobTracker runs jobs itself); the
    /// container sizes jobs ask for unless they say otherwise.
    pub am: Option<AmSpec>,
    pub map_container: Resource,
    pub reduce_container: Resource,
}

impl TaskSpec {
    /// What each job's ApplicationMaster asks for (zero without AMs).
    pub fn am_ask(&self) -> Resource {
        self.am.map_or(Resource::ZERO, |am| am.ask)
    }
}

/// A job's ApplicationMaster: a task of its own that starts before the
/// job's tasks and runs until the job has finished (docs/yarn.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AmSpec {
    /// Its container (zero: no container, as worked examples have it; its
    /// allocator still runs, the job's tasks schedulable at submission).
    pub ask: Resource,
    /// How long it takes to start before it asks for containers.
    pub startup: Ms,
    /// Whether the scenario gave `am_startup`: a Rumen replay then models
    /// every AM with it instead of replaying the recorded ones.
    pub startup_given: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Priority {
    VeryHigh,
    High,
    Normal,
    Low,
    VeryLow,
}

impl Priority {
    /// Hadoop FairScheduler.getPriorityFactor.
    pub fn fair_factor(self) -> f64 {
        match self {
            Priority::VeryHigh => 4.0,
            Priority::High => 2.0,
            Priority::Normal => 1.0,
            Priority::Low => 0.5,
            Priority::VeryLow => 0.25,
        }
    }
    /// The name scenarios and outputs use: `very_high` … `very_low`.
    pub fn as_str(self) -> &'static str {
        match self {
            Priority::VeryHigh => "very_high",
            Priority::High => "high",
            Priority::Normal => "normal",
            Priority::Low => "low",
            Priority::VeryLow => "very_low",
        }
    }

    pub fn parse(s: &str) -> Option<Priority> {
        Some(match s {
            "very_high" => Priority::VeryHigh,
            "high" => Priority::High,
            "normal" => Priority::Normal,
            "low" => Priority::Low,
            "very_low" => Priority::VeryLow,
            _ => return None,
        })
    }
}

/// How jobs inside a fair-scheduler pool are ordered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PoolMode {
    Fair,
    Fifo,
}

/// `slot_model = "yarn"`: how a FairScheduler queue orders what it holds
/// (`schedulingPolicy`): by memory share (`fair`), by dominant share
/// (`drf`), or by submission (`fifo`, leaf queues only).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QueuePolicy {
    Fair,
    Drf,
    Fifo,
}

impl QueuePolicy {
    pub fn name(self) -> &'static str {
        match self {
            QueuePolicy::Fair => "fair",
            QueuePolicy::Drf => "drf",
            QueuePolicy::Fifo => "fifo",
        }
    }
}

#[derive(Clone, Debug)]
pub struct PoolSpec {
    pub name: String,
    pub weight: f64,
    pub min_maps: u32,
    pub min_reduces: u32,
    pub max_maps: u32,
    pub max_reduces: u32,
    /// Percent of the cluster's slots, for the capacity policy.
    pub capacity: Option<f64>,
    /// yarn-capacity: the most of the cluster the queue may take, percent
    /// (`maximum-capacity`; none: 100).
    pub max_capacity: Option<f64>,
    pub scheduling_mode: PoolMode,
    pub max_running_jobs: Option<u32>,
    /// Fair: a pool below min(min share, demand) this long is starved.
    pub min_share_timeout: Option<Ms>,
    /// Fair: a pool below half its fair share this long is starved.
    pub fair_share_timeout: Option<Ms>,
    /// Capacity: minimum user limit percent (default 100).
    pub min_user_limit: f64,
    /// Capacity: a user may use at most capacity × this (Hadoop 1.x's
    /// `user-limit-factor`, default 1: a lone user stops at the queue's
    /// capacity, as TestCapacityScheduler.testUserLimits3 expects).
    pub user_limit_factor: f64,
    /// yarn-fair: the queue's `minResources` (none by default) and
    /// `maxResources` ([`Resource::UNLIMITED`], Hadoop's
    /// `Integer.MAX_VALUE` of each, by default).
    pub min_resources: Resource,
    pub max_resources: Resource,
    /// yarn-fair: the queue's own `schedulingPolicy` (default: the
    /// scheduler's `scheduling_policy`).
    pub scheduling_policy: Option<QueuePolicy>,
}

impl PoolSpec {
    /// Every key of the pool's table as resolved (defaults filled in), in
    /// the scenario file's keys and units: what `--json`'s `config` and an
    /// external policy's `start` give of it. YARN's keys (`yarn`) only on a
    /// YARN cluster.
    pub fn resolved(&self, yarn: bool) -> serde_json::Value {
        use serde_json::{json, Value};
        let opt_ms = |t: Option<Ms>| t.map_or(Value::Null, |t| Value::String(format!("{t}ms")));
        let mut v = json!({
            "name": self.name,
            "weight": self.weight,
            "min_maps": self.min_maps,
            "min_reduces": self.min_reduces,
            "max_maps": self.max_maps,
            "max_reduces": self.max_reduces,
            "capacity": self.capacity,
            "scheduling_mode": match self.scheduling_mode { PoolMode::Fair => "fair", PoolMode::Fifo => "fifo" },
            "max_running_jobs": self.max_running_jobs,
            "min_share_timeout": opt_ms(self.min_share_timeout),
            "fair_share_timeout": opt_ms(self.fair_share_timeout),
            "min_user_limit": self.min_user_limit,
            "user_limit_factor": self.user_limit_factor,
        });
        if yarn {
            let res = |r: Resource| json!({"memory_mb": r.mb(), "vcores": r.vcores()});
            v["scheduling_policy"] = self
                .scheduling_policy
                .map_or(Value::Null, |q| q.name().into());
            v["min_resources"] = res(self.min_resources);
            v["max_resources"] = if self.max_resources == Resource::UNLIMITED {
                Value::String("unlimited".into())
            } else {
                res(self.max_resources)
            };
        }
        v
    }

    pub fn named(name: &str) -> PoolSpec {
        PoolSpec {
            name: name.to_string(),
            weight: 1.0,
            min_maps: 0,
            min_reduces: 0,
            max_maps: u32::MAX,
            max_reduces: u32::MAX,
            capacity: None,
            scheduling_mode: PoolMode::Fair,
            max_running_jobs: None,
            min_share_timeout: None,
            fair_share_timeout: None,
            min_user_limit: 100.0,
            user_limit_factor: 1.0,
            max_capacity: None,
            min_resources: Resource::ZERO,
            max_resources: Resource::UNLIMITED,
            scheduling_policy: None,
        }
    }
}

/// A built-in job profile (see `scenario::profiles`).
#[derive(Clone, Debug, PartialEq)]
pub struct Profile {
    pub name: &'static str,
    /// Filtering percentage: map output bytes / map input bytes.
    pub fp: f64,
    /// Map compute seconds per MB of input at node speed 1.0.
    pub map_s_per_mb: f64,
    /// Sort+reduce seconds per MB of shuffled input at node speed 1.0.
    pub reduce_s_per_mb: f64,
    /// Reduce output bytes / shuffled bytes (written to HDFS).
    pub reduce_output: f64,
    pub source: &'static str,
}

#[derive(Clone, Debug)]
pub struct JobSpec {
    pub name: String,
    pub profile: Profile,
    pub input_mb: f64,
    pub maps: u32,
    pub reduces: u32,
    pub submit: Ms,
    /// Pool name; must be one of the scenario's pools (`default` always exists).
    pub pool: String,
    pub user: String,
    pub priority: Priority,
    pub map_time: Option<Ms>,
    pub reduce_time: Option<Ms>,
    /// Shuffle bytes / input bytes.
    pub fp: f64,
    /// Explicit replica node ids per block (length = maps when given).
    pub blocks: Option<Vec<Vec<NodeId>>>,
    /// A job replayed from a recorded trace (Rumen): each task's recorded
    /// time and the job's recorded completion.
    pub recorded: Option<Box<Recorded>>,
    /// Overrides of `[hdfs]` for this job: who wrote its input, and how
    /// many replicas its reduces write.
    pub writer: Option<Writer>,
    pub output_replication: Option<u32>,
    /// `slot_model = "yarn"`: the containers this job's maps and reduces
    /// ask for, if not `[tasks]`'.
    pub map_container: Option<Resource>,
    pub reduce_container: Option<Resource>,
}

/// What a job trace recorded of a job, for `replay = "recorded"` and for
/// validating a replay against it.
#[derive(Clone, Debug, PartialEq)]
pub struct Recorded {
    /// Each map's successful attempt, start to finish (ms); empty when the
    /// tasks' times come from the cluster model instead.
    pub map_ms: Vec<Ms>,
    /// Each reduce's successful attempt after its copy (its sort and reduce,
    /// ms), likewise.
    pub reduce_ms: Vec<Ms>,
    /// Submission to finish, as recorded (ms).
    pub completion_ms: Ms,
    /// Submission to the job's launch (the ApplicationMaster's start-up, or
    /// the JobTracker's job initialisation), and its last task's end to its
    /// finish (the job's commit), as recorded: replayed as the job's own
    /// delays before its tasks may run and before it finishes.
    pub prep_ms: Ms,
    pub commit_ms: Ms,
}

/// Everything that can change a run from outside: the engine's command
/// API (`sim::Sim::command`, `Sim::schedule`), which a scenario's
/// `[[events]]` and the TUI's keys both use. Jobs and pools are named.
#[derive(Clone, Debug)]
pub enum Action {
    SwitchPolicy(PolicySpec),
    Heartbeat(NodeId),
    /// Submit a job now (its `submit` is ignored; the current time is
    /// used); it joins the queue immediately.
    Submit(Box<JobSpec>),
    /// The node dies: its running attempts fail and are re-queued, and map
    /// outputs it held for reducers still copying are lost (re-run).
    FailNode(NodeId),
    /// The node comes back, empty; its heartbeats resume.
    RecoverNode(NodeId),
    /// `hadoop job -kill`: the named job's attempts are killed and it is
    /// done now.
    KillJob(String),
    /// `hadoop job -set-priority`.
    SetPriority(String, Priority),
    /// The fair scheduler's move of a job to another pool.
    MoveJob(String, String),
}

#[derive(Clone, Debug)]
pub struct EventSpec {
    pub at: Ms,
    pub action: Action,
    /// A `switch_policy` for one run of a side-by-side session alone
    /// (`run = N`): kept for that run, dropped for the others
    /// (`scenario::side_run`), and refused in a single run.
    pub run: Option<SideRun>,
}

/// An event's `run = N`, with where the scenario says it (for errors).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SideRun {
    /// 1-based: the N-th spec of `--policies`.
    pub n: u8,
    pub origin: String,
    pub line: usize,
    pub col: usize,
}

#[derive(Clone, Debug)]
pub struct Scenario {
    pub name: String,
    pub description: String,
    pub seed: u64,
    pub cluster: ClusterSpec,
    pub network: NetworkSpec,
    pub hdfs: HdfsSpec,
    pub tasks: TaskSpec,
    pub policy: PolicySpec,
    /// The `[scheduler]` table as written (policy-specific sub-tables
    /// included), already validated; policies are built from it with
    /// `sched::registry::build` so a variant or a mid-run switch can
    /// re-read it.
    pub scheduler: toml::Table,
    /// Always contains `default` (first if not declared).
    pub pools: Vec<PoolSpec>,
    /// Sorted by submit time, then definition order.
    pub jobs: Vec<JobSpec>,
    pub events: Vec<EventSpec>,
    /// Random node failures (`[failures]`), if any.
    pub failures: Option<FailureSpec>,
    /// `[[notes]]`: captions for teaching and demos, in order of `at`.
    /// The TUI shows them; the run never reads them.
    pub notes: Vec<Note>,
}

/// A caption shown from `at` to `until` (simulated time).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Note {
    pub at: Ms,
    pub until: Ms,
    pub text: String,
}

impl Scenario {
    /// The caption that holds at `now`: of those that do, the latest to
    /// start.
    pub fn note_at(&self, now: Ms) -> Option<&Note> {
        self.notes
            .iter()
            .rev()
            .find(|n| n.at <= now && now < n.until)
    }
}

/// Random node failures: each node fails after an exponential time of mean
/// `mtbf` and recovers after one of mean `mttr`, drawn from a stream of
/// their own, so every policy sees the same failures.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FailureSpec {
    pub mtbf: Ms,
    pub mttr: Ms,
}

impl Scenario {
    pub fn pool_index(&self) -> BTreeMap<String, PoolId> {
        self.pools
            .iter()
            .enumerate()
            .map(|(i, p)| (p.name.clone(), i as PoolId))
            .collect()
    }
}

//! The scenario file as written: serde structs mirroring the scenario
//! schema of docs/scenarios.md key for key. Every struct denies unknown keys so a
//! typo is an error at its line rather than a silently ignored setting.
//!
//! Values whose semantic checks happen later (in `load`) are wrapped in
//! [`Spanned`] so those checks can still point at the offending value.
//! Counts are read as signed integers on purpose: `nodes = -3` then reaches
//! the loader, which says "must be at least 1" instead of serde's
//! "expected u32". Durations and sizes are parsed during deserialization by
//! [`Dur`], [`Size`] and [`Heartbeat`], so their errors carry the value's span
//! from the TOML deserializer.

use std::collections::BTreeMap;
use std::fmt;

use serde::de::{self, Deserializer, Visitor};
use serde::Deserialize;
use toml::Spanned;

use crate::model::Ms;
use crate::units::{parse_duration, parse_size_mb};

/// The whole file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScenarioFile {
    /// Defaults to the file name without its extension.
    pub name: Option<String>,
    #[serde(default)]
    pub description: String,
    /// Defaults to 1; `--seed` replaces it.
    pub seed: Option<Spanned<i64>>,
    /// Required; an `Option` so its absence gets the loader's message, and
    /// not `Spanned` because `[[cluster.datacenters]]` alone makes it an
    /// implicit table, which has no span.
    pub cluster: Option<ClusterDef>,
    #[serde(default)]
    pub network: NetworkDef,
    #[serde(default)]
    pub hdfs: HdfsDef,
    #[serde(default)]
    pub tasks: TasksDef,
    /// Read as a table here; each policy reads its own sub-table and the
    /// loader points errors at their keys.
    pub scheduler: Option<toml::Table>,
    #[serde(default)]
    pub pools: Vec<PoolDef>,
    #[serde(default)]
    pub jobs: Vec<JobDef>,
    #[serde(default)]
    pub workloads: Vec<WorkloadDef>,
    #[serde(default)]
    pub events: Vec<EventDef>,
    pub failures: Option<FailuresDef>,
    #[serde(default)]
    pub notes: Vec<NoteDef>,
}

/// `[[notes]]`: a caption from `at` to `until` (default: the next note's
/// `at`, or 20 s after its own for the last one).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NoteDef {
    pub at: Spanned<Dur>,
    pub text: Spanned<String>,
    pub until: Option<Spanned<Dur>>,
}

/// `[failures]`: random node failures on their own seeded stream.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FailuresDef {
    /// Mean time between failures, per node.
    pub mtbf: Spanned<Dur>,
    /// Mean time to recovery; default "10m".
    pub mttr: Option<Spanned<Dur>>,
}

/// `[cluster]`: either `nodes`/`racks` or `[[cluster.datacenters]]`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClusterDef {
    pub nodes: Option<Spanned<i64>>,
    /// Default 1.
    pub racks: Option<Spanned<i64>>,
    /// Default 2.
    pub map_slots: Option<Spanned<i64>>,
    /// Default 2.
    pub reduce_slots: Option<Spanned<i64>>,
    /// "typed" (default), "unified" or "yarn".
    pub slot_model: Option<Spanned<String>>,
    /// yarn: each node's memory and vcores (default "8GB", 8).
    pub memory: Option<Spanned<Size>>,
    pub vcores: Option<Spanned<i64>>,
    /// Default map_slots + reduce_slots.
    pub cores: Option<Spanned<i64>>,
    /// Default "auto".
    pub heartbeat: Option<Heartbeat>,
    /// `mapreduce.jobtracker.heartbeats.scaling.factor` for "auto"; default 1.
    pub heartbeat_scaling: Option<Spanned<f64>>,
    #[serde(default)]
    pub out_of_band_heartbeat: bool,
    /// Default [1.0, 1.0].
    pub speed: Option<Spanned<(f64, f64)>>,
    pub datacenters: Option<Vec<DatacenterDef>>,
}

/// `[[cluster.datacenters]]`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DatacenterDef {
    pub name: Spanned<String>,
    pub nodes: Spanned<i64>,
    /// Default 1.
    pub racks: Option<Spanned<i64>>,
}

/// `[network]`, MB/s; absent keys keep `model::NetworkSpec::default()`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NetworkDef {
    /// "shared" (default) or "fixed".
    pub model: Option<Spanned<String>>,
    pub disk_mbps: Option<Spanned<f64>>,
    pub nic_mbps: Option<Spanned<f64>>,
    pub rack_oversubscription: Option<Spanned<f64>>,
    pub inter_dc_mbps: Option<Spanned<f64>>,
    pub parallel_copies: Option<Spanned<i64>>,
    /// "140MB", or "unlimited" (the default).
    pub shuffle_buffer: Option<Spanned<String>>,
    /// Hadoop's `io.sort.factor` for a reducer over its shuffle buffer
    /// (default 10).
    pub io_sort_factor: Option<Spanned<i64>>,
    /// Fixed model only.
    pub rack_mbps: Option<Spanned<f64>>,
    pub cross_rack_mbps: Option<Spanned<f64>>,
    pub shuffle_mbps: Option<Spanned<f64>>,
}

/// `[hdfs]`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HdfsDef {
    /// Default "128MB".
    pub block: Option<Spanned<Size>>,
    /// Default 3 (at most the node count).
    pub replication: Option<Spanned<i64>>,
    /// Default "client".
    pub writer: Option<Spanned<WriterDef>>,
}

/// `writer`: "client", "maps" or a node id.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum WriterDef {
    Node(i64),
    Name(String),
}

/// `[tasks]`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TasksDef {
    /// Default "1s".
    pub startup: Option<Spanned<Dur>>,
    /// Default 0.1.
    pub duration_cv: Option<Spanned<f64>>,
    /// Multiplies every job's reduce cost (default 1).
    pub reduce_cost_scale: Option<Spanned<f64>>,
    /// Default 0.
    pub straggler_prob: Option<Spanned<f64>>,
    /// Default [1.5, 4.0].
    pub straggler_slowdown: Option<Spanned<(f64, f64)>>,
    /// "off" (default), "hadoop" (Hadoop 1.x's rule) or "late" (LATE).
    pub speculation: Option<Spanned<String>>,
    /// Job set-up and clean-up tasks: "auto" (default), "off" or a duration.
    pub setup: Option<Spanned<JobTaskTime>>,
    pub cleanup: Option<Spanned<JobTaskTime>>,
    /// yarn: the ApplicationMaster's container and start-up, and the
    /// containers maps and reduces ask for.
    pub am_memory: Option<Spanned<Size>>,
    pub am_vcores: Option<Spanned<i64>>,
    pub am_startup: Option<Spanned<Dur>>,
    pub map_memory: Option<Spanned<Size>>,
    pub map_vcores: Option<Spanned<i64>>,
    pub reduce_memory: Option<Spanned<Size>>,
    pub reduce_vcores: Option<Spanned<i64>>,
}

/// `tasks.setup` / `tasks.cleanup`: `"auto"`, `"off"` or a duration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JobTaskTime {
    Auto,
    Off,
    Every(Ms),
}

impl<'de> Deserialize<'de> for JobTaskTime {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = JobTaskTime;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("\"auto\", \"off\" or a duration string with a unit, like \"2s\"")
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<JobTaskTime, E> {
                match s.trim() {
                    "auto" => return Ok(JobTaskTime::Auto),
                    "off" => return Ok(JobTaskTime::Off),
                    _ => {}
                }
                parse_duration(s).map(JobTaskTime::Every).map_err(|m| {
                    E::custom(format!(
                        "{m}, \"auto\" (the task start-up) or \"off\" (no such task)"
                    ))
                })
            }
        }
        d.deserialize_str(V)
    }
}

/// `[[pools]]`: the documented keys plus the optional Fair/Capacity settings
/// `model::PoolSpec` carries.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PoolDef {
    pub name: Spanned<String>,
    /// Default 1.0.
    pub weight: Option<Spanned<f64>>,
    pub min_maps: Option<Spanned<i64>>,
    pub min_reduces: Option<Spanned<i64>>,
    /// Default: unlimited.
    pub max_maps: Option<Spanned<i64>>,
    pub max_reduces: Option<Spanned<i64>>,
    /// Percent of the cluster's slots (capacity policy); all pools' sum ≤ 100.
    pub capacity: Option<Spanned<f64>>,
    /// "fair" (default) or "fifo": ordering of jobs inside the pool.
    pub scheduling_mode: Option<Spanned<String>>,
    pub max_running_jobs: Option<Spanned<i64>>,
    pub min_share_timeout: Option<Dur>,
    pub fair_share_timeout: Option<Dur>,
    /// Percent, default 100.
    pub min_user_limit: Option<Spanned<f64>>,
    /// Default 1.
    pub user_limit_factor: Option<Spanned<f64>>,
    /// yarn-capacity: the queue's `maximum-capacity`, percent.
    pub max_capacity: Option<Spanned<f64>>,
    /// yarn-fair: the queue's `schedulingPolicy` ("fair", "drf", "fifo").
    pub scheduling_policy: Option<Spanned<String>>,
    /// yarn-fair: the queue's `minResources` and `maxResources`.
    pub min_resources: Option<Spanned<ResourceDef>>,
    pub max_resources: Option<Spanned<ResourceDef>>,
}

/// A YARN resource amount, `{ memory = "10GB", vcores = 4 }`; a key left
/// out is the default's (none for a minimum, no limit for a maximum).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ResourceDef {
    pub memory: Option<Spanned<Size>>,
    pub vcores: Option<Spanned<i64>>,
}

/// `[[jobs]]`, and the `job = { ... }` of a `submit` event.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JobDef {
    pub name: Spanned<String>,
    pub profile: Spanned<String>,
    pub input: Option<Spanned<Size>>,
    pub maps: Option<Spanned<i64>>,
    /// Default 1; 0 is allowed (a map-only job).
    pub reduces: Option<Spanned<i64>>,
    /// Default "0s". Not allowed inside a `submit` event (its `at` is the submit time).
    pub submit: Option<Spanned<Dur>>,
    /// Default "default".
    pub pool: Option<Spanned<String>>,
    /// Default "user".
    pub user: Option<String>,
    /// Default "normal".
    pub priority: Option<Spanned<String>>,
    pub map_time: Option<Spanned<Dur>>,
    pub reduce_time: Option<Spanned<Dur>>,
    /// Default: the profile's filtering percentage.
    pub fp: Option<Spanned<f64>>,
    /// Default 1.
    pub count: Option<Spanned<i64>>,
    /// Default "0s".
    pub every: Option<Dur>,
    pub blocks: Option<Spanned<Vec<Vec<Spanned<i64>>>>>,
    /// Per-job overrides of the profile: compute s per MB of map input and
    /// of shuffled data, output / shuffled bytes.
    pub map_cost: Option<Spanned<f64>>,
    pub reduce_cost: Option<Spanned<f64>>,
    pub reduce_output: Option<Spanned<f64>>,
    /// Per-job overrides of `[hdfs]`.
    pub output_replication: Option<Spanned<i64>>,
    pub writer: Option<Spanned<WriterDef>>,
    /// yarn: this job's containers, if not `[tasks]`'.
    pub map_memory: Option<Spanned<Size>>,
    pub map_vcores: Option<Spanned<i64>>,
    pub reduce_memory: Option<Spanned<Size>>,
    pub reduce_vcores: Option<Spanned<i64>>,
}

/// `[[workloads]]`: `kind = "poisson"` (generated), `kind = "swim"`
/// (replayed from a SWIM trace) or `kind = "rumen"` (replayed from a Rumen
/// job trace); the loader checks which keys each kind takes.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WorkloadDef {
    /// "poisson", "swim" or "rumen".
    pub kind: Spanned<String>,
    pub jobs: Option<Spanned<i64>>,
    pub mean_interarrival: Option<Spanned<Dur>>,
    /// Profile name → weight; a `BTreeMap` so draws do not depend on file order.
    /// Not `Spanned` itself: a `[workloads.mix]` or dotted-key table has no span.
    pub mix: Option<BTreeMap<Spanned<String>, Spanned<f64>>>,
    /// `[lo, hi]`, drawn log-uniformly.
    pub input: Option<Spanned<(Size, Size)>>,
    /// Default ["default"].
    pub pools: Option<Spanned<Vec<Spanned<String>>>>,
    /// `[lo, hi]` reduces drawn uniformly; default ceil(input / 10 GB).
    pub reduces: Option<Spanned<(i64, i64)>>,
    /// Time of the first arrival, default "0s".
    pub submit_start: Option<Dur>,
    /// kind = "swim" or "rumen": the trace file, relative to the scenario.
    pub trace: Option<Spanned<String>>,
    /// kind = "rumen" only: "recorded" (default) or "model".
    pub replay: Option<Spanned<String>>,
    pub limit: Option<Spanned<i64>>,
    pub time_scale: Option<Spanned<f64>>,
    /// kind = "poisson" only: every job's FP instead of its profile's.
    pub fp: Option<Spanned<f64>>,
}

/// `[[events]]`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EventDef {
    pub at: Dur,
    pub action: Spanned<String>,
    pub policy: Option<Spanned<String>>,
    pub node: Option<Spanned<i64>>,
    /// A job table for `submit`, a job's name for the job actions. Not
    /// `Spanned`: written as dotted keys (`job.name = ...`) the table is an
    /// implicit one without a span; errors point into it instead.
    pub job: Option<JobRef>,
    /// `set_priority` only: very_high | high | normal | low | very_low.
    pub priority: Option<Spanned<String>>,
    /// `move_job` only: the pool to move the job to.
    pub pool: Option<Spanned<String>>,
    /// `switch_policy` only: the side-by-side run (1-based) it is for.
    pub run: Option<Spanned<i64>>,
}

/// An event's `job`: a whole job (`submit`) or a submitted job's name.
#[derive(Debug)]
pub enum JobRef {
    Def(Box<JobDef>),
    Name(String),
}

impl<'de> Deserialize<'de> for JobRef {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = JobRef;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str(
                    "a job table (submit) or a job's name (kill_job, set_priority, move_job)",
                )
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<JobRef, E> {
                Ok(JobRef::Name(s.to_string()))
            }
            fn visit_map<M: de::MapAccess<'de>>(self, m: M) -> Result<JobRef, M::Error> {
                JobDef::deserialize(de::value::MapAccessDeserializer::new(m))
                    .map(|j| JobRef::Def(Box::new(j)))
            }
        }
        d.deserialize_any(V)
    }
}

/// A duration string such as `"20s"`, in milliseconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dur(pub Ms);

/// A size string such as `"20GB"`, in MB.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Size(pub f64);

/// `heartbeat`: `"auto"` (Hadoop 1.x's rule), a positive duration, or
/// `"manual"`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Heartbeat {
    Auto,
    Every(Ms),
    Manual,
}

impl<'de> Deserialize<'de> for Dur {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Dur;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str(
                    "a duration string with a unit, like \"500ms\", \"20s\", \"3m\" or \"1h\"",
                )
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<Dur, E> {
                parse_duration(s).map(Dur).map_err(E::custom)
            }
        }
        d.deserialize_str(V)
    }
}

impl<'de> Deserialize<'de> for Size {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Size;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a size string with a unit, like \"128MB\", \"20GB\" or \"1TB\"")
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<Size, E> {
                parse_size_mb(s).map(Size).map_err(E::custom)
            }
        }
        d.deserialize_str(V)
    }
}

impl<'de> Deserialize<'de> for Heartbeat {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Heartbeat;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("\"auto\", \"manual\" or a duration string with a unit, like \"3s\"")
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<Heartbeat, E> {
                match s.trim() {
                    "manual" => return Ok(Heartbeat::Manual),
                    "auto" => return Ok(Heartbeat::Auto),
                    _ => {}
                }
                let ms = parse_duration(s).map_err(|m| {
                    E::custom(format!(
                        "{m}, \"auto\" for Hadoop's own interval, or \"manual\" for scripted heartbeats only"
                    ))
                })?;
                if ms == 0 {
                    return Err(E::custom(format!(
                        "invalid heartbeat \"{s}\": expected a duration longer than 0, or \"manual\""
                    )));
                }
                Ok(Heartbeat::Every(ms))
            }
        }
        d.deserialize_str(V)
    }
}

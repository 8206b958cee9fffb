//! From TOML text to a validated [`Scenario`].
//!
//! Loading is two passes: serde reads the text into `schema` (syntax
//! errors, unknown keys, wrong types and malformed durations/sizes come out
//! of this pass with the TOML span), then [`compile`] checks meaning (ranges,
//! names that must exist, node ids, duplicates), applies defaults and
//! expands `count`/`every` and workloads. Every error carries the position
//! of the value at fault and says what was expected, so `slotsim` can print
//! `error: FILE:LINE:COL: ...` and exit 2; nothing here panics on input.

use std::cell::OnceCell;
use std::collections::BTreeSet;
use std::ops::Range;
use std::path::Path;

use toml::Spanned;

use super::profiles;
use super::schema::{
    ClusterDef, Dur, EventDef, HdfsDef, JobDef, NetworkDef, PoolDef, ScenarioFile, TasksDef,
    WorkloadDef,
};
use super::spans::SpanNode;
use super::workload::{self, PoissonParams};
use crate::error::InputError;
use crate::model::{
    Action, ClusterSpec, DatacenterSpec, EventSpec, HdfsSpec, JobSpec, Ms, NetworkSpec, NodeId,
    PolicySpec, PoolMode, PoolSpec, Priority, Scenario, SlotModel, Speculation, TaskSpec,
};
use crate::sched::config::{apply_variant, parse_policy_spec, SchedulerConfig};
use crate::sched::registry;

/// The scenario `slotsim` runs with no arguments, compiled into the binary.
pub const DEFAULT_SCENARIO: &str = include_str!("../../scenarios/quickstart.toml");

/// Origin shown in errors about the built-in scenario.
pub const DEFAULT_ORIGIN: &str = "<built-in quickstart.toml>";

/// Policy used when `[scheduler] policy` is absent: Hadoop's Fair
/// Scheduler, the common baseline of the papers this simulator follows.
pub const DEFAULT_POLICY: &str = "fair";

/// Seed used when the file gives none and `--seed` is absent.
pub const DEFAULT_SEED: u64 = 1;

// Upper bounds keep arithmetic in range (node ids are u32, sums must not
// overflow) and stop a typo such as `maps = 8000000000` from exhausting
// memory in the engine; they are far above any cluster the papers study.
const MAX_NODES: i64 = 100_000;
const MAX_SLOTS: i64 = 1_000;
const MAX_TASKS: i64 = 1_000_000;
const MAX_COUNT: i64 = 100_000;
/// Tasks in a whole scenario (jobs, workloads and submit events): a run
/// keeps about 200 bytes per task, so this bounds a run near 2 GB.
const MAX_TOTAL_TASKS: u64 = 10_000_000;
const MAX_SHARE: i64 = 1_000_000_000;
const POLICY_ORIGIN: &str = "--policy";

type R<T> = Result<T, InputError>;

/// Reads and loads a scenario file. `policy_override` (a policy spec,
/// possibly a variant such as `fair[slowstart=1]`) replaces
/// `[scheduler] policy`; `seed_override` replaces `seed`.
pub fn load_file(
    path: &Path,
    policy_override: Option<&str>,
    seed_override: Option<u64>,
) -> Result<Scenario, InputError> {
    let origin = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|e| {
        InputError::new(
            &origin,
            format!("cannot read {origin}: {e}; expected a readable scenario file"),
        )
    })?;
    let text = match String::from_utf8(bytes) {
        Ok(t) => t,
        Err(e) => {
            let valid = e.utf8_error().valid_up_to();
            let bytes = e.as_bytes();
            let prefix = std::str::from_utf8(&bytes[..valid]).unwrap_or_default();
            let bad = bytes.get(valid).copied().unwrap_or_default();
            return Err(InputError::at(
                &origin,
                prefix,
                valid,
                format!(
                    "invalid UTF-8 (byte 0x{bad:02x} at byte offset {valid}); expected a UTF-8 text file"
                ),
            ));
        }
    };
    load_str(&text, &origin, policy_override, seed_override)
}

/// Loads the built-in quickstart scenario ([`DEFAULT_SCENARIO`]).
pub fn load_default(
    policy_override: Option<&str>,
    seed_override: Option<u64>,
) -> Result<Scenario, InputError> {
    load_str(
        DEFAULT_SCENARIO,
        DEFAULT_ORIGIN,
        policy_override,
        seed_override,
    )
}

/// Loads a scenario from `text`; `origin` names it in errors (a file path).
/// Overrides as in [`load_file`]. When neither the file nor the override
/// names a policy, the scenario runs [`DEFAULT_POLICY`] (`fair`).
pub fn load_str(
    text: &str,
    origin: &str,
    policy_override: Option<&str>,
    seed_override: Option<u64>,
) -> Result<Scenario, InputError> {
    let file: ScenarioFile = toml::from_str(text).map_err(|e| de_error(origin, text, &e))?;
    // The raw `[scheduler]` table is kept for the engine (policies are built
    // from it, variants and switches re-read it). The text parsed above, so
    // this parse succeeds; the error path is only for completeness.
    let raw: toml::Table = text.parse().map_err(|e| de_error(origin, text, &e))?;
    let raw_scheduler = match raw.get("scheduler") {
        Some(toml::Value::Table(t)) => t.clone(),
        _ => toml::Table::new(),
    };
    let cx = Cx {
        origin,
        text,
        tree: OnceCell::new(),
    };
    compile(&cx, file, raw_scheduler, policy_override, seed_override)
}

/// Error reporting against one file.
struct Cx<'a> {
    origin: &'a str,
    text: &'a str,
    /// Built only when an error needs a position `schema` did not keep.
    tree: OnceCell<Option<SpanNode>>,
}

impl Cx<'_> {
    fn at_span(&self, span: &Range<usize>, msg: impl Into<String>) -> InputError {
        InputError::at(self.origin, self.text, span.start, msg)
    }

    fn at<T>(&self, value: &Spanned<T>, msg: impl Into<String>) -> InputError {
        self.at_span(&value.span(), msg)
    }

    /// An error at the value of a dotted key path, or its nearest ancestor,
    /// or the start of the file if the document has no spans at all.
    fn at_key(&self, path: &[&str], msg: impl Into<String>) -> InputError {
        let span = self
            .tree
            .get_or_init(|| SpanNode::parse(self.text))
            .as_ref()
            .and_then(|t| t.find(path))
            .unwrap_or(0..0);
        self.at_span(&span, msg)
    }

    /// A whole number in `lo..=hi`, as u32.
    fn int(&self, v: &Spanned<i64>, key: &str, lo: i64, hi: i64) -> R<u32> {
        let x = *v.get_ref();
        if x < lo {
            return Err(self.at(v, format!("{key} must be at least {lo}, got {x}")));
        }
        if x > hi {
            return Err(self.at(v, format!("{key} must be at most {hi}, got {x}")));
        }
        u32::try_from(x).map_err(|_| self.at(v, format!("{key} must be at most {hi}, got {x}")))
    }

    /// A finite number greater than zero.
    fn positive(&self, v: &Spanned<f64>, key: &str) -> R<f64> {
        let x = *v.get_ref();
        if x.is_finite() && x > 0.0 {
            Ok(x)
        } else {
            Err(self.at(v, format!("{key} must be a number greater than 0, got {x}")))
        }
    }

    /// A finite number in `lo..=hi`.
    fn within(&self, v: &Spanned<f64>, key: &str, lo: f64, hi: f64) -> R<f64> {
        let x = *v.get_ref();
        if x.is_finite() && (lo..=hi).contains(&x) {
            Ok(x)
        } else {
            Err(self.at(v, format!("{key} must be between {lo} and {hi}, got {x}")))
        }
    }
}

/// An `fp` key, checked: 0 to 1000 (Permu, the largest filtering
/// percentage in the seeds, is 3).
fn fp_value(cx: &Cx, v: &Option<Spanned<f64>>) -> R<Option<f64>> {
    match v {
        None => Ok(None),
        Some(v) => {
            let x = *v.get_ref();
            if !(x.is_finite() && (0.0..=1000.0).contains(&x)) {
                return Err(cx.at(v, format!("fp must be between 0 and 1000, got {x}")));
            }
            Ok(Some(x))
        }
    }
}

/// A serde/TOML message on one line, in the scenario's terms rather than
/// Rust's (`expected struct ClusterDef` → `expected a table`).
pub fn user_terms(message: &str) -> String {
    let mut msg = message
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join("; ")
        .replace("expected i64", "expected a whole number")
        .replace("expected u64", "expected a whole number")
        .replace("expected u32", "expected a whole number")
        .replace("expected f64", "expected a number")
        .replace("expected a tuple of size 2", "expected a [lo, hi] pair")
        .replace("expected a boolean", "expected true or false");
    while let Some(i) = msg.find("struct ") {
        let rest = &msg[i + "struct ".len()..];
        let end = rest
            .find(|c: char| !c.is_alphanumeric() && c != '_')
            .unwrap_or(rest.len());
        msg = format!("{}a table{}", &msg[..i], &rest[end..]);
    }
    msg
}

/// Turns a serde/TOML error into an `InputError` at its span. Messages from
/// `toml` may span several lines; DESIGN wants one line, and serde's
/// Rust-flavoured type names read better in user terms.
fn de_error(origin: &str, text: &str, e: &toml::de::Error) -> InputError {
    let msg = user_terms(e.message());
    let msg = if msg.starts_with("missing field ") {
        format!("{msg}; expected this required key in the table")
    } else {
        msg
    };
    let offset = e.span().map_or(0, |s| s.start);
    InputError::at(origin, text, offset, msg)
}

fn compile(
    cx: &Cx,
    file: ScenarioFile,
    raw_scheduler: toml::Table,
    policy_override: Option<&str>,
    seed_override: Option<u64>,
) -> R<Scenario> {
    // The file's seed is checked even when `--seed` replaces it: a
    // negative seed is a mistake in the file either way.
    let file_seed = match &file.seed {
        None => None,
        Some(s) => Some(u64::try_from(*s.get_ref()).map_err(|_| {
            cx.at(
                s,
                format!(
                    "seed must be a whole number of at least 0, got {}",
                    s.get_ref()
                ),
            )
        })?),
    };
    let seed = seed_override.or(file_seed).unwrap_or(DEFAULT_SEED);
    let name = file.name.clone().unwrap_or_else(|| {
        Path::new(cx.origin)
            .file_stem()
            .and_then(|s| s.to_str())
            .filter(|s| !s.is_empty() && !s.starts_with('<'))
            .unwrap_or("scenario")
            .to_string()
    });

    let cluster = compile_cluster(cx, file.cluster.as_ref())?;
    let node_count = cluster.node_count();
    let network = compile_network(cx, &file.network)?;
    let hdfs = compile_hdfs(cx, &file.hdfs, node_count)?;
    let tasks = compile_tasks(cx, &file.tasks)?;
    let policy = compile_scheduler(cx, file.scheduler.as_ref(), &raw_scheduler, policy_override)?;
    let pools = compile_pools(cx, &file.pools)?;

    let env = JobEnv {
        cx,
        pools: pools.iter().map(|p| p.name.clone()).collect(),
        block_mb: hdfs.block_mb,
        node_count,
    };
    let mut names = BTreeSet::new();
    let mut jobs = Vec::new();
    let mut total = 0u64;
    let mut count = |n: u64| -> Result<(), String> {
        total += n;
        if total > MAX_TOTAL_TASKS {
            Err(format!(
                "the scenario has more than {MAX_TOTAL_TASKS} tasks in all, more than a run can keep in memory; expected fewer or smaller jobs"
            ))
        } else {
            Ok(())
        }
    };
    for def in &file.jobs {
        let submit = def.submit.as_ref().map_or(0, |s| s.get_ref().0);
        for job in env.job(def, submit)? {
            if !names.insert(job.name.clone()) {
                return Err(cx.at(&def.name, duplicate_job(&job.name)));
            }
            count(u64::from(job.maps) + u64::from(job.reduces)).map_err(|m| cx.at(&def.name, m))?;
            jobs.push(job);
        }
    }
    for (index, w) in file.workloads.iter().enumerate() {
        for job in env.workload(w, index, seed)? {
            if !names.insert(job.name.clone()) {
                return Err(cx.at(&w.kind, duplicate_job(&job.name)));
            }
            count(u64::from(job.maps) + u64::from(job.reduces)).map_err(|m| cx.at(&w.kind, m))?;
            jobs.push(job);
        }
    }
    // Stable: equal submit times keep definition order.
    jobs.sort_by_key(|j| j.submit);

    let mut events = Vec::new();
    for e in &file.events {
        let more = env.event(e, &raw_scheduler, &mut names)?;
        for ev in &more {
            if let Action::Submit(j) = &ev.action {
                count(u64::from(j.maps) + u64::from(j.reduces)).map_err(|m| cx.at(&e.action, m))?;
            }
        }
        events.extend(more);
    }
    events.sort_by_key(|e| e.at);

    Ok(Scenario {
        name,
        description: file.description,
        seed,
        cluster,
        network,
        hdfs,
        tasks,
        policy,
        scheduler: raw_scheduler,
        pools,
        jobs,
        events,
    })
}

fn duplicate_job(name: &str) -> String {
    format!(
        "duplicate job name \"{name}\"; expected every job name to be unique (count = N names copies NAME-1, NAME-2, ...)"
    )
}

fn compile_cluster(cx: &Cx, def: Option<&ClusterDef>) -> R<ClusterSpec> {
    let Some(c) = def else {
        return Err(cx.at_key(
            &[],
            "missing [cluster] table; expected [cluster] with nodes = N (or [[cluster.datacenters]])",
        ));
    };
    let datacenters = match &c.datacenters {
        Some(list) => {
            for (key, v) in [("nodes", &c.nodes), ("racks", &c.racks)] {
                if let Some(v) = v {
                    return Err(cx.at(
                        v,
                        format!(
                            "[cluster] {key} cannot be combined with [[cluster.datacenters]]; expected {key} inside each datacenter"
                        ),
                    ));
                }
            }
            if list.is_empty() {
                return Err(cx.at_key(
                    &["cluster", "datacenters"],
                    "cluster.datacenters is empty; expected at least one [[cluster.datacenters]]",
                ));
            }
            let mut seen = BTreeSet::new();
            let mut total: i64 = 0;
            let mut out = Vec::new();
            for dc in list {
                let name = dc.name.get_ref().trim();
                if name.is_empty() {
                    return Err(cx.at(&dc.name, "datacenter name is empty; expected a name"));
                }
                if !seen.insert(name.to_string()) {
                    return Err(cx.at(
                        &dc.name,
                        format!(
                            "duplicate datacenter \"{name}\"; expected each datacenter name once"
                        ),
                    ));
                }
                let nodes = cx.int(&dc.nodes, "nodes", 1, MAX_NODES)?;
                total += i64::from(nodes);
                if total > MAX_NODES {
                    return Err(cx.at(
                        &dc.nodes,
                        format!(
                            "the cluster has {total} nodes; expected at most {MAX_NODES} in all"
                        ),
                    ));
                }
                let racks = racks_for(cx, dc.racks.as_ref(), nodes)?;
                out.push(DatacenterSpec {
                    name: name.to_string(),
                    nodes,
                    racks,
                });
            }
            out
        }
        None => {
            let Some(n) = &c.nodes else {
                return Err(cx.at_key(
                    &["cluster"],
                    "[cluster] has no nodes; expected nodes = N or [[cluster.datacenters]]",
                ));
            };
            let nodes = cx.int(n, "nodes", 1, MAX_NODES)?;
            let racks = racks_for(cx, c.racks.as_ref(), nodes)?;
            vec![DatacenterSpec {
                name: "dc0".into(),
                nodes,
                racks,
            }]
        }
    };
    let map_slots = c
        .map_slots
        .as_ref()
        .map_or(Ok(2), |v| cx.int(v, "map_slots", 1, MAX_SLOTS))?;
    let reduce_slots = c
        .reduce_slots
        .as_ref()
        .map_or(Ok(2), |v| cx.int(v, "reduce_slots", 1, MAX_SLOTS))?;
    let slot_model = match &c.slot_model {
        None => SlotModel::Typed,
        Some(s) => match s.get_ref().as_str() {
            "typed" => SlotModel::Typed,
            "unified" => SlotModel::Unified,
            other => {
                return Err(cx.at(
                    s,
                    format!("unknown slot_model \"{other}\"; expected \"typed\" or \"unified\""),
                ))
            }
        },
    };
    let heartbeat = c.heartbeat.map_or(Some(3_000), |h| h.0);
    let speed = match &c.speed {
        None => (1.0, 1.0),
        Some(s) => {
            let (lo, hi) = *s.get_ref();
            if !(lo.is_finite() && hi.is_finite() && lo >= 0.01 && lo <= hi && hi <= 100.0) {
                return Err(cx.at(
                    s,
                    format!("invalid speed [{lo}, {hi}]; expected [lo, hi] with 0.01 <= lo <= hi <= 100"),
                ));
            }
            (lo, hi)
        }
    };
    Ok(ClusterSpec {
        datacenters,
        map_slots,
        reduce_slots,
        slot_model,
        heartbeat,
        out_of_band_heartbeat: c.out_of_band_heartbeat,
        speed,
    })
}

/// Racks of a datacenter: default 1, at most one per node.
fn racks_for(cx: &Cx, racks: Option<&Spanned<i64>>, nodes: u32) -> R<u32> {
    let Some(r) = racks else { return Ok(1) };
    let n = cx.int(r, "racks", 1, MAX_NODES)?;
    if n > nodes {
        return Err(cx.at(
            r,
            format!("racks = {n} exceeds nodes = {nodes}; expected at most one rack per node"),
        ));
    }
    Ok(n)
}

fn compile_network(cx: &Cx, n: &NetworkDef) -> R<NetworkSpec> {
    let mut spec = NetworkSpec::default();
    for (key, value, slot) in [
        ("disk_mbps", &n.disk_mbps, &mut spec.disk_mbps),
        ("rack_mbps", &n.rack_mbps, &mut spec.rack_mbps),
        (
            "cross_rack_mbps",
            &n.cross_rack_mbps,
            &mut spec.cross_rack_mbps,
        ),
        ("inter_dc_mbps", &n.inter_dc_mbps, &mut spec.inter_dc_mbps),
        ("shuffle_mbps", &n.shuffle_mbps, &mut spec.shuffle_mbps),
    ] {
        if let Some(v) = value {
            // Bounded so that no transfer of a bounded size outlasts the
            // simulated clock's range.
            *slot = cx.within(v, key, 0.001, 1e7)?;
        }
    }
    Ok(spec)
}

fn compile_hdfs(cx: &Cx, h: &HdfsDef, node_count: u32) -> R<HdfsSpec> {
    let block_mb = match &h.block {
        None => 128.0,
        Some(b) => {
            let mb = b.get_ref().0;
            if !(mb.is_finite() && mb > 0.0) {
                return Err(cx.at(b, "block size must be larger than 0, like \"128MB\""));
            }
            mb
        }
    };
    // HDFS cannot hold more replicas than there are nodes: the default of 3
    // shrinks on tiny clusters, an explicit value that cannot be met is an error.
    let replication = match &h.replication {
        None => 3.min(node_count),
        Some(r) => {
            let n = cx.int(r, "replication", 1, MAX_NODES)?;
            if n > node_count {
                return Err(cx.at(
                    r,
                    format!(
                        "replication = {n} exceeds the {node_count} nodes of the cluster; expected at most {node_count}"
                    ),
                ));
            }
            n
        }
    };
    Ok(HdfsSpec {
        block_mb,
        replication,
    })
}

fn compile_tasks(cx: &Cx, t: &TasksDef) -> R<TaskSpec> {
    let straggler_prob = t
        .straggler_prob
        .as_ref()
        .map_or(Ok(0.0), |v| cx.within(v, "straggler_prob", 0.0, 1.0))?;
    let straggler_slowdown = match &t.straggler_slowdown {
        None => (1.5, 4.0),
        Some(s) => {
            let (lo, hi) = *s.get_ref();
            if !(lo.is_finite() && hi.is_finite() && lo >= 1.0 && lo <= hi && hi <= 1000.0) {
                return Err(cx.at(
                    s,
                    format!(
                        "invalid straggler_slowdown [{lo}, {hi}]; expected [lo, hi] with 1 <= lo <= hi <= 1000"
                    ),
                ));
            }
            (lo, hi)
        }
    };
    let speculation = match &t.speculation {
        None => Speculation::Off,
        Some(s) => match s.get_ref().as_str() {
            "off" => Speculation::Off,
            "hadoop" => Speculation::Hadoop,
            "late" => Speculation::Late,
            other => {
                return Err(cx.at(
                    s,
                    format!(
                        "unknown speculation \"{other}\"; expected \"off\", \"hadoop\" or \"late\""
                    ),
                ))
            }
        },
    };
    Ok(TaskSpec {
        straggler_prob,
        straggler_slowdown,
        speculation,
    })
}

/// Validates a policy spec (`NAME` or `NAME[key=value;...]`) against the
/// registry and the `[scheduler]` table the variant modifies.
fn check_policy(spec: &str, raw_scheduler: &toml::Table) -> Result<PolicySpec, String> {
    let spec = parse_policy_spec(spec)?;
    if registry::lookup(&spec.name).is_none() {
        return Err(format!(
            "unknown policy \"{}\"; expected one of: {}",
            spec.name,
            registry::names().join(", ")
        ));
    }
    apply_variant(raw_scheduler, &spec)?;
    Ok(spec)
}

fn compile_scheduler(
    cx: &Cx,
    cfg: Option<&SchedulerConfig>,
    raw_scheduler: &toml::Table,
    policy_override: Option<&str>,
) -> R<PolicySpec> {
    let mut policy = PolicySpec::plain(DEFAULT_POLICY);
    if let Some(cfg) = cfg {
        cfg.check().map_err(|(key, msg)| {
            let path: Vec<&str> = key.split('.').collect();
            cx.at_key(&path, msg)
        })?;
        if let Some(p) = &cfg.policy {
            policy = check_policy(p, raw_scheduler)
                .map_err(|m| cx.at_key(&["scheduler", "policy"], m))?;
        }
    }
    if let Some(p) = policy_override {
        policy = check_policy(p, raw_scheduler).map_err(|m| InputError::new(POLICY_ORIGIN, m))?;
    }
    Ok(policy)
}

fn compile_pools(cx: &Cx, defs: &[PoolDef]) -> R<Vec<PoolSpec>> {
    let mut pools = Vec::new();
    let mut capacity_total = 0.0;
    for d in defs {
        let name = d.name.get_ref().trim();
        if name.is_empty() {
            return Err(cx.at(&d.name, "pool name is empty; expected a name"));
        }
        if pools.iter().any(|p: &PoolSpec| p.name == name) {
            return Err(cx.at(
                &d.name,
                format!("duplicate pool \"{name}\"; expected each [[pools]] name once"),
            ));
        }
        let mut p = PoolSpec::named(name);
        if let Some(w) = &d.weight {
            p.weight = cx.positive(w, "weight")?;
        }
        let share = |v: &Option<Spanned<i64>>, key: &str, default: u32| -> R<u32> {
            v.as_ref()
                .map_or(Ok(default), |v| cx.int(v, key, 0, MAX_SHARE))
        };
        p.min_maps = share(&d.min_maps, "min_maps", 0)?;
        p.min_reduces = share(&d.min_reduces, "min_reduces", 0)?;
        p.max_maps = share(&d.max_maps, "max_maps", u32::MAX)?;
        p.max_reduces = share(&d.max_reduces, "max_reduces", u32::MAX)?;
        for (min, max, min_key, max_key, min_v) in [
            (p.min_maps, p.max_maps, "min_maps", "max_maps", &d.min_maps),
            (
                p.min_reduces,
                p.max_reduces,
                "min_reduces",
                "max_reduces",
                &d.min_reduces,
            ),
        ] {
            if let (Some(v), true) = (min_v, min > max) {
                return Err(cx.at(
                    v,
                    format!("{min_key} = {min} exceeds {max_key} = {max}; expected {min_key} <= {max_key}"),
                ));
            }
        }
        if let Some(c) = &d.capacity {
            let pct = *c.get_ref();
            if !(pct.is_finite() && pct > 0.0 && pct <= 100.0) {
                return Err(cx.at(
                    c,
                    format!("capacity must be a percentage above 0 and at most 100, got {pct}"),
                ));
            }
            capacity_total += pct;
            if capacity_total > 100.0 + 1e-9 {
                return Err(cx.at(
                    c,
                    format!(
                        "pool capacities add up to {capacity_total}%; expected a total of at most 100%"
                    ),
                ));
            }
            p.capacity = Some(pct);
        }
        if let Some(m) = &d.scheduling_mode {
            p.scheduling_mode = match m.get_ref().as_str() {
                "fair" => PoolMode::Fair,
                "fifo" => PoolMode::Fifo,
                other => {
                    return Err(cx.at(
                        m,
                        format!(
                            "unknown scheduling_mode \"{other}\"; expected \"fair\" or \"fifo\""
                        ),
                    ))
                }
            };
        }
        if let Some(v) = &d.max_running_jobs {
            p.max_running_jobs = Some(cx.int(v, "max_running_jobs", 1, MAX_SHARE)?);
        }
        p.min_share_timeout = d.min_share_timeout.map(|d| d.0);
        p.fair_share_timeout = d.fair_share_timeout.map(|d| d.0);
        if let Some(v) = &d.min_user_limit {
            let x = *v.get_ref();
            if !(x.is_finite() && x > 0.0 && x <= 100.0) {
                return Err(cx.at(
                    v,
                    format!("min_user_limit must be a percentage above 0 and at most 100, got {x}"),
                ));
            }
            p.min_user_limit = x;
        }
        if let Some(v) = &d.user_limit_factor {
            p.user_limit_factor = cx.positive(v, "user_limit_factor")?;
        }
        pools.push(p);
    }
    if !pools.iter().any(|p| p.name == "default") {
        pools.insert(0, PoolSpec::named("default"));
    }
    Ok(pools)
}

/// What job compilation needs from the rest of the scenario.
struct JobEnv<'a> {
    cx: &'a Cx<'a>,
    /// Declared pools plus `default`.
    pools: Vec<String>,
    block_mb: f64,
    node_count: u32,
}

impl JobEnv<'_> {
    fn pool(&self, v: &Spanned<String>) -> R<String> {
        let name = v.get_ref();
        if self.pools.iter().any(|p| p == name) {
            Ok(name.clone())
        } else {
            Err(self.cx.at(
                v,
                format!(
                    "unknown pool \"{name}\"; expected one of: {} (declare it with [[pools]])",
                    self.pools.join(", ")
                ),
            ))
        }
    }

    fn node(&self, v: &Spanned<i64>) -> R<NodeId> {
        let n = *v.get_ref();
        if n < 0 || n >= i64::from(self.node_count) {
            return Err(self.cx.at(
                v,
                format!(
                    "node {n} is out of range; expected a node id from 0 to {} (the cluster has {} nodes)",
                    self.node_count.saturating_sub(1),
                    self.node_count
                ),
            ));
        }
        u32::try_from(n).map_err(|_| self.cx.at(v, format!("node {n} is out of range")))
    }

    /// One `[[jobs]]` entry (or an event's `job`), expanded by `count`:
    /// copies are named `NAME-1`, `NAME-2`, ... and submitted `every` apart
    /// from `submit`.
    fn job(&self, d: &JobDef, submit: Ms) -> R<Vec<JobSpec>> {
        let cx = self.cx;
        let name = d.name.get_ref().trim();
        if name.is_empty() {
            return Err(cx.at(&d.name, "job name is empty; expected a name"));
        }
        if name.contains('/') {
            return Err(cx.at(
                &d.name,
                format!("job name \"{name}\" contains '/'; expected a name without '/' (traces write JOB/TASK)"),
            ));
        }
        let profile = profiles::lookup(d.profile.get_ref()).ok_or_else(|| {
            cx.at(
                &d.profile,
                format!(
                    "unknown profile \"{}\"; expected one of: {}",
                    d.profile.get_ref(),
                    profiles::names_list()
                ),
            )
        })?;
        let pool = match &d.pool {
            None => "default".to_string(),
            Some(p) => self.pool(p)?,
        };
        let priority = match &d.priority {
            None => Priority::Normal,
            Some(p) => Priority::parse(p.get_ref()).ok_or_else(|| {
                cx.at(
                    p,
                    format!(
                        "unknown priority \"{}\"; expected one of: very_high, high, normal, low, very_low",
                        p.get_ref()
                    ),
                )
            })?,
        };
        let input = match &d.input {
            None => None,
            Some(i) => {
                let mb = i.get_ref().0;
                if !(mb.is_finite() && mb > 0.0) {
                    return Err(cx.at(i, "input must be larger than 0, like \"20GB\""));
                }
                Some((mb, i))
            }
        };
        let maps = match (&d.maps, input, &d.blocks) {
            (Some(m), _, _) => cx.int(m, "maps", 1, MAX_TASKS)?,
            (None, Some((mb, span)), _) => {
                let m = (mb / self.block_mb).ceil().max(1.0);
                if m > MAX_TASKS as f64 {
                    return Err(cx.at(
                        span,
                        format!(
                            "input makes {m} maps of {} MB; expected at most {MAX_TASKS} maps per job",
                            self.block_mb
                        ),
                    ));
                }
                m as u32
            }
            (None, None, Some(b)) => {
                let n = b.get_ref().len();
                if n == 0 {
                    return Err(cx.at(b, "blocks is empty; expected one replica list per map"));
                }
                u32::try_from(n)
                    .ok()
                    .filter(|&n| i64::from(n) <= MAX_TASKS)
                    .ok_or_else(|| {
                        cx.at(b, format!("blocks has {n} entries; expected at most {MAX_TASKS}"))
                    })?
            }
            (None, None, None) => {
                return Err(cx.at(
                    &d.name,
                    format!("job \"{name}\" has neither input nor maps; expected input = \"SIZE\", maps = N, or both"),
                ))
            }
        };
        let input_mb = input.map_or(f64::from(maps) * self.block_mb, |(mb, _)| mb);
        let reduces = d
            .reduces
            .as_ref()
            .map_or(Ok(1), |r| cx.int(r, "reduces", 0, MAX_TASKS))?;
        let fixed = |v: &Option<Spanned<Dur>>, key: &str| -> R<Option<Ms>> {
            match v {
                None => Ok(None),
                Some(s) if s.get_ref().0 == 0 => {
                    Err(cx.at(s, format!("{key} must be longer than 0, like \"20s\"")))
                }
                Some(s) => Ok(Some(s.get_ref().0)),
            }
        };
        let map_time = fixed(&d.map_time, "map_time")?;
        let reduce_time = fixed(&d.reduce_time, "reduce_time")?;
        let fp = fp_value(cx, &d.fp)?.unwrap_or(profile.fp);
        let blocks = match &d.blocks {
            None => None,
            Some(b) => Some(self.blocks(b, maps)?),
        };
        let count = d
            .count
            .as_ref()
            .map_or(Ok(1), |c| cx.int(c, "count", 1, MAX_COUNT))?;
        let every = d.every.map_or(0, |e| e.0);
        let spec = JobSpec {
            name: name.to_string(),
            profile,
            input_mb,
            maps,
            reduces,
            submit,
            pool,
            user: d.user.clone().unwrap_or_else(|| "user".into()),
            priority,
            map_time,
            reduce_time,
            fp,
            blocks,
        };
        if count == 1 {
            return Ok(vec![spec]);
        }
        Ok((1..=count)
            .map(|k| JobSpec {
                name: format!("{name}-{k}"),
                submit: submit.saturating_add(every.saturating_mul(Ms::from(k - 1))),
                ..spec.clone()
            })
            .collect())
    }

    /// Explicit replicas: one non-empty list of distinct, valid node ids per map.
    fn blocks(&self, b: &Spanned<Vec<Vec<Spanned<i64>>>>, maps: u32) -> R<Vec<Vec<NodeId>>> {
        let list = b.get_ref();
        if list.len() != maps as usize {
            return Err(self.cx.at(
                b,
                format!(
                    "blocks lists {} blocks but the job has {maps} maps; expected one replica list per map",
                    list.len()
                ),
            ));
        }
        let mut out = Vec::with_capacity(list.len());
        for (i, replicas) in list.iter().enumerate() {
            if replicas.is_empty() {
                return Err(self.cx.at(
                    b,
                    format!("block {i} has no replicas; expected at least one node id"),
                ));
            }
            let mut ids = Vec::with_capacity(replicas.len());
            for r in replicas {
                let id = self.node(r)?;
                if ids.contains(&id) {
                    return Err(self.cx.at(
                        r,
                        format!("node {id} is listed twice for block {i}; expected distinct nodes"),
                    ));
                }
                ids.push(id);
            }
            out.push(ids);
        }
        Ok(out)
    }

    /// A workload's `mix` as (profile, weight) pairs with positive weights.
    fn mix(
        &self,
        w: &WorkloadDef,
        mix_def: &std::collections::BTreeMap<Spanned<String>, Spanned<f64>>,
    ) -> R<Vec<(crate::model::Profile, f64)>> {
        let cx = self.cx;
        let mut mix = Vec::new();
        for (name, weight) in mix_def {
            let profile = profiles::lookup(name.get_ref()).ok_or_else(|| {
                cx.at(
                    name,
                    format!(
                        "unknown profile \"{}\"; expected one of: {}",
                        name.get_ref(),
                        profiles::names_list()
                    ),
                )
            })?;
            let x = *weight.get_ref();
            if !(x.is_finite() && x >= 0.0) {
                return Err(cx.at(
                    weight,
                    format!("mix weight must be a number of at least 0, got {x}"),
                ));
            }
            if x > 0.0 {
                mix.push((profile, x));
            }
        }
        if mix.is_empty() {
            return Err(cx.at(
                &w.kind,
                "mix has no profile with a weight above 0; expected e.g. mix = { wordcount = 1 }",
            ));
        }
        Ok(mix)
    }

    fn workload_pools(&self, w: &WorkloadDef) -> R<Vec<String>> {
        match &w.pools {
            None => Ok(vec!["default".to_string()]),
            Some(list) => {
                if list.get_ref().is_empty() {
                    return Err(self
                        .cx
                        .at(list, "pools is empty; expected at least one pool name"));
                }
                list.get_ref().iter().map(|p| self.pool(p)).collect()
            }
        }
    }

    /// `kind = "swim"`: replays a SWIM trace (path relative to the scenario
    /// file). Compute costs come from `mix` (default wordcount), FP from the
    /// trace's shuffle / input bytes.
    fn swim(&self, w: &WorkloadDef, index: usize, seed: u64) -> R<Vec<JobSpec>> {
        let cx = self.cx;
        for (present, key) in [
            (w.jobs.is_some(), "jobs"),
            (w.mean_interarrival.is_some(), "mean_interarrival"),
            (w.input.is_some(), "input"),
            (w.reduces.is_some(), "reduces"),
            (w.submit_start.is_some(), "submit_start"),
            (w.fp.is_some(), "fp"),
        ] {
            if present {
                return Err(cx.at(
                    &w.kind,
                    format!("{key} belongs to kind = \"poisson\"; a swim workload takes trace, limit, time_scale, mix and pools"),
                ));
            }
        }
        let Some(trace) = &w.trace else {
            return Err(cx.at(
                &w.kind,
                "a swim workload needs trace; expected for example trace = \"traces/FB-2009_samples_24_times_1hr_0.tsv\"",
            ));
        };
        let limit = match &w.limit {
            None => None,
            Some(l) => Some(cx.int(l, "limit", 1, MAX_COUNT)?),
        };
        let time_scale = match &w.time_scale {
            None => 1.0,
            Some(t) => {
                let x = *t.get_ref();
                if !(x.is_finite() && x > 0.0) {
                    return Err(cx.at(t, format!("time_scale must be above 0, got {x}")));
                }
                x
            }
        };
        let mix = match &w.mix {
            None => vec![(
                profiles::lookup("wordcount").expect("built-in profile"),
                1.0,
            )],
            Some(m) => self.mix(w, m)?,
        };
        let pools = self.workload_pools(w)?;
        let base = Path::new(cx.origin)
            .parent()
            .filter(|p| !p.as_os_str().is_empty());
        let path = match base {
            Some(b) if Path::new(trace.get_ref()).is_relative() => b.join(trace.get_ref()),
            _ => Path::new(trace.get_ref()).to_path_buf(),
        };
        let shown = path.display().to_string();
        let text = std::fs::read_to_string(&path).map_err(|e| {
            cx.at(
                trace,
                format!("cannot read trace {shown}: {e}; expected a SWIM .tsv file"),
            )
        })?;
        let params = workload::SwimParams {
            index,
            limit,
            time_scale,
            mix,
            pools,
            block_mb: self.block_mb,
        };
        workload::swim(seed, &text, &params).map_err(|(l, c, m)| InputError {
            origin: shown,
            pos: Some((l, c)),
            message: m,
        })
    }

    fn workload(&self, w: &WorkloadDef, index: usize, seed: u64) -> R<Vec<JobSpec>> {
        let cx = self.cx;
        match w.kind.get_ref().as_str() {
            "poisson" => {}
            "swim" => return self.swim(w, index, seed),
            other => {
                return Err(cx.at(
                    &w.kind,
                    format!("unknown workload kind \"{other}\"; expected \"poisson\" or \"swim\""),
                ))
            }
        }
        if let Some(t) = &w.trace {
            return Err(cx.at(
                t,
                "trace belongs to kind = \"swim\"; a poisson workload does not use it",
            ));
        }
        if let Some(t) = &w.limit {
            return Err(cx.at(
                t,
                "limit belongs to kind = \"swim\"; a poisson workload does not use it",
            ));
        }
        if let Some(t) = &w.time_scale {
            return Err(cx.at(
                t,
                "time_scale belongs to kind = \"swim\"; a poisson workload does not use it",
            ));
        }
        let missing = |key: &str, example: &str| {
            cx.at(
                &w.kind,
                format!("a poisson workload needs {key}; expected for example {key} = {example}"),
            )
        };
        let jobs = match &w.jobs {
            None => return Err(missing("jobs", "100")),
            Some(j) => cx.int(j, "jobs", 1, MAX_COUNT)?,
        };
        let mean_interarrival = match &w.mean_interarrival {
            None => return Err(missing("mean_interarrival", "\"14s\"")),
            Some(m) => m.get_ref().0,
        };
        let Some(mix_def) = &w.mix else {
            return Err(missing("mix", "{ wordcount = 1, terasort = 1 }"));
        };
        let mix = self.mix(w, mix_def)?;
        let input_mb = match &w.input {
            None => return Err(missing("input", "[\"1GB\", \"12GB\"]")),
            Some(i) => {
                let (lo, hi) = (i.get_ref().0 .0, i.get_ref().1 .0);
                if !(lo.is_finite() && hi.is_finite() && lo > 0.0 && lo <= hi) {
                    return Err(cx.at(
                        i,
                        format!("invalid input range [{lo} MB, {hi} MB]; expected [lo, hi] with 0 < lo <= hi"),
                    ));
                }
                if (hi / self.block_mb).ceil() > MAX_TASKS as f64 {
                    return Err(cx.at(
                        i,
                        format!("input up to {hi} MB makes more than {MAX_TASKS} maps per job; expected a smaller upper bound"),
                    ));
                }
                (lo, hi)
            }
        };
        let pools = self.workload_pools(w)?;
        let reduces = match &w.reduces {
            None => None,
            Some(r) => {
                let (lo, hi) = *r.get_ref();
                if !(0 <= lo && lo <= hi && hi <= MAX_TASKS) {
                    return Err(cx.at(
                        r,
                        format!("invalid reduces range [{lo}, {hi}]; expected [lo, hi] with 0 <= lo <= hi <= {MAX_TASKS}"),
                    ));
                }
                // Both fit in u32: 0 <= lo <= hi <= MAX_TASKS.
                Some((lo as u32, hi as u32))
            }
        };
        let params = PoissonParams {
            index,
            jobs,
            mean_interarrival,
            mix,
            input_mb,
            pools,
            reduces,
            submit_start: w.submit_start.map_or(0, |d| d.0),
            block_mb: self.block_mb,
            fp: fp_value(cx, &w.fp)?,
        };
        Ok(workload::poisson(seed, &params))
    }

    fn event(
        &self,
        e: &EventDef,
        raw_scheduler: &toml::Table,
        names: &mut BTreeSet<String>,
    ) -> R<Vec<EventSpec>> {
        let cx = self.cx;
        let action = e.action.get_ref().as_str();
        // Keys that belong to other actions are refused rather than ignored.
        let only = |present: bool, key: &str, owner: &str, span: Option<Range<usize>>| -> R<()> {
            match (present, span) {
                (true, Some(s)) => Err(cx.at_span(
                    &s,
                    format!("{key} is only used by action = \"{owner}\", not by \"{action}\""),
                )),
                _ => Ok(()),
            }
        };
        let policy_span = e.policy.as_ref().map(|p| p.span());
        let node_span = e.node.as_ref().map(|n| n.span());
        let job_span = e.job.as_ref().map(|j| j.name.span());
        let at = e.at.0;
        match action {
            "switch_policy" => {
                only(e.node.is_some(), "node", "heartbeat", node_span)?;
                only(e.job.is_some(), "job", "submit", job_span)?;
                let Some(p) = &e.policy else {
                    return Err(cx.at(
                        &e.action,
                        "switch_policy needs a policy; expected policy = \"NAME\" (see `slotsim policies`)",
                    ));
                };
                let spec = check_policy(p.get_ref(), raw_scheduler).map_err(|m| cx.at(p, m))?;
                Ok(vec![EventSpec {
                    at,
                    action: Action::SwitchPolicy(spec),
                }])
            }
            "heartbeat" => {
                only(e.policy.is_some(), "policy", "switch_policy", policy_span)?;
                only(e.job.is_some(), "job", "submit", job_span)?;
                let Some(n) = &e.node else {
                    return Err(cx.at(
                        &e.action,
                        "heartbeat needs a node; expected node = ID (0-based)",
                    ));
                };
                Ok(vec![EventSpec {
                    at,
                    action: Action::Heartbeat(self.node(n)?),
                }])
            }
            "submit" => {
                only(e.policy.is_some(), "policy", "switch_policy", policy_span)?;
                only(e.node.is_some(), "node", "heartbeat", node_span)?;
                let Some(job) = &e.job else {
                    return Err(cx.at(
                        &e.action,
                        "submit needs a job; expected job = { name = \"...\", profile = \"...\", input = \"...\" }",
                    ));
                };
                if let Some(s) = &job.submit {
                    return Err(cx.at(
                        s,
                        "a submitted job starts at the event's `at`; expected no submit key inside job",
                    ));
                }
                let mut out = Vec::new();
                for spec in self.job(job, at)? {
                    if !names.insert(spec.name.clone()) {
                        return Err(cx.at(&job.name, duplicate_job(&spec.name)));
                    }
                    out.push(EventSpec {
                        at: spec.submit,
                        action: Action::Submit(Box::new(spec)),
                    });
                }
                Ok(out)
            }
            "fail_node" | "recover_node" => {
                only(e.policy.is_some(), "policy", "switch_policy", policy_span)?;
                only(e.job.is_some(), "job", "submit", job_span)?;
                let Some(n) = &e.node else {
                    return Err(cx.at(
                        &e.action,
                        format!("{action} needs a node; expected node = ID (0-based)"),
                    ));
                };
                let node = self.node(n)?;
                Ok(vec![EventSpec {
                    at,
                    action: if action == "fail_node" {
                        Action::FailNode(node)
                    } else {
                        Action::RecoverNode(node)
                    },
                }])
            }
            other => Err(cx.at(
                &e.action,
                format!(
                    "unknown action \"{other}\"; expected one of: switch_policy, heartbeat, submit, fail_node, recover_node"
                ),
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_scenario_loads() {
        let s = load_default(None, None).expect("the built-in scenario is valid");
        assert_eq!(s.name, "quickstart");
        assert_eq!(s.seed, 7);
        assert_eq!(s.cluster.node_count(), 20);
        assert_eq!(s.policy.name, "fair");
        assert!(s.pools.iter().any(|p| p.name == "default"));
        assert!(s
            .pools
            .iter()
            .any(|p| p.name == "research" && p.weight == 2.0));
        assert!(s.jobs.len() >= 14, "{} jobs", s.jobs.len());
        assert!(s.jobs.windows(2).all(|w| w[0].submit <= w[1].submit));
        let s = load_default(Some("fifo"), Some(9)).expect("overrides apply");
        assert_eq!((s.policy.name.as_str(), s.seed), ("fifo", 9));
    }

    #[test]
    fn missing_file_names_it() {
        let e = load_file(Path::new("/nonexistent/x.toml"), None, None).unwrap_err();
        assert_eq!(e.origin, "/nonexistent/x.toml");
        assert!(
            e.message.starts_with("cannot read /nonexistent/x.toml:"),
            "{e}"
        );
    }

    #[test]
    fn scheduler_check_errors_point_at_the_key() {
        let text = "[cluster]\nnodes = 2\n[scheduler.fair]\nslowstart = 2.0\n";
        let e = load_str(text, "s.toml", None, None).unwrap_err();
        assert_eq!(e.pos, Some((4, 13)), "{e}");
        assert!(e.message.contains("slowstart"), "{e}");
    }

    #[test]
    fn default_policy_is_fair() {
        let s = load_str("[cluster]\nnodes = 2\n", "s.toml", None, None).expect("valid");
        assert_eq!(s.policy, PolicySpec::plain("fair"));
        assert_eq!(s.seed, DEFAULT_SEED);
        assert_eq!(s.name, "s");
        assert_eq!(
            s.hdfs.replication, 2,
            "default replication shrinks to the node count"
        );
    }
}

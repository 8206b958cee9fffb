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

mod cluster;
mod events;
mod jobs;
mod pools;
mod scheduler;
mod yarn;
pub use crate::model::max_allocation;

use super::schema::{NoteDef, ScenarioFile};
use super::spans::SpanNode;
use crate::error::InputError;
use crate::model::{Action, JobSpec, Note, Scenario};
use crate::sim::policy::BuildCtx;
use cluster::{compile_cluster, compile_hdfs, compile_network, compile_tasks};
use jobs::JobEnv;
use pools::compile_pools;
use scheduler::compile_scheduler;

/// The scenario `slotsim` runs with no arguments, compiled into the binary.
pub const DEFAULT_SCENARIO: &str = include_str!("../../../scenarios/quickstart.toml");

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
pub(super) const MAX_NODES: i64 = 100_000;
pub(super) const MAX_SLOTS: i64 = 1_000;
pub(super) const MAX_TASKS: i64 = 1_000_000;
pub(super) const MAX_COUNT: i64 = 100_000;
/// Tasks in a whole scenario (jobs, workloads and submit events): attempt
/// ids are 32-bit, and re-runs need room. Below this a scenario is bounded
/// by the memory a run would need ([`memory_limit`]).
pub(super) const MAX_TOTAL_TASKS: u64 = 1_000_000_000;

/// The memory a run may use, in bytes: `SLOTSIM_MEMORY` (bytes, or a size
/// such as `"4GB"`) if set, else the machine's available memory
/// (`MemAvailable` in /proc/meminfo), else no limit; and whether
/// `SLOTSIM_MEMORY` set it (a refusal says which limit it met). Read once
/// per process.
fn memory_limit() -> Option<(u64, bool)> {
    static LIMIT: std::sync::OnceLock<Option<(u64, bool)>> = std::sync::OnceLock::new();
    *LIMIT.get_or_init(|| {
        if let Ok(Some(b)) = memory_env() {
            return Some((b, true));
        }
        let info = std::fs::read_to_string("/proc/meminfo").ok()?;
        let line = info.lines().find(|l| l.starts_with("MemAvailable:"))?;
        let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
        Some((kb * 1024, false))
    })
}

/// Reads at most `max` bytes of a file: an input larger than that (or a
/// device that never ends, such as /dev/zero) is an error rather than an
/// allocation without bound.
pub fn read_bounded(path: &Path, max: u64) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let mut buf = Vec::new();
    std::fs::File::open(path)?
        .take(max + 1)
        .read_to_end(&mut buf)?;
    if buf.len() as u64 > max {
        return Err(std::io::Error::other(format!(
            "larger than {} MB",
            max >> 20
        )));
    }
    Ok(buf)
}

/// The largest scenario file and the largest trace read.
pub const MAX_SCENARIO_BYTES: u64 = 64 << 20;
pub const MAX_TRACE_BYTES: u64 = 1 << 30;

/// A size for messages: "850 MB", "4.2 GB".
fn gb(bytes: u64) -> String {
    if bytes < 1 << 30 {
        format!("{} MB", bytes.div_ceil(1 << 20))
    } else {
        format!("{:.1} GB", bytes as f64 / (1u64 << 30) as f64)
    }
}

/// A scenario too large to run here.
#[derive(Debug, thiserror::Error)]
enum TooLarge {
    #[error(
        "the scenario has more than {MAX_TOTAL_TASKS} tasks in all; expected fewer or smaller jobs"
    )]
    Tasks,
    #[error("with this the scenario has {total} tasks{}, which would need about {} to run, {} more than the {} of memory available{}; expected fewer or smaller jobs", shuffle(*largest, *need), gb(*need), gb(need - have), gb(*have), limit_source(*from_env))]
    Memory {
        total: u64,
        largest: (u64, u64),
        need: u64,
        have: u64,
        from_env: bool,
    },
}

/// Where the limit came from, and the way past it: the estimate errs high
/// (a headless run that keeps no attempts needs about half of it,
/// docs/performance.md), so a machine's own limit names the variable that
/// sets another.
fn limit_source(from_env: bool) -> &'static str {
    if from_env {
        " (SLOTSIM_MEMORY)"
    } else {
        " (an estimate that errs high; SLOTSIM_MEMORY=SIZE sets the limit)"
    }
}

/// Where a job's shuffle is much of the memory a run needs, says so:
/// `largest` is that job's running reducers and the nodes each fetches
/// from.
fn shuffle((reducers, nodes): (u64, u64), need: u64) -> String {
    let bytes = reducers * nodes * crate::sim::BYTES_PER_SOURCE;
    if bytes.saturating_mul(4) < need {
        return String::new();
    }
    format!(
        " and a job of {reducers} reducers at once, each fetching from up to {nodes} nodes ({} of it)",
        gb(bytes)
    )
}

/// `SLOTSIM_MEMORY` set to something that is not a size.
#[derive(Debug, thiserror::Error)]
#[error("SLOTSIM_MEMORY=\"{0}\" is not a size; expected bytes or a size such as \"4GB\"")]
pub struct BadMemory(pub String);

/// `SLOTSIM_MEMORY`, if set, as bytes: a count of bytes or a size such as
/// "4GB"; anything else is an error naming it.
pub fn memory_env() -> Result<Option<u64>, BadMemory> {
    let Ok(v) = std::env::var("SLOTSIM_MEMORY") else {
        return Ok(None);
    };
    if let Ok(b) = v.trim().parse::<u64>() {
        return Ok(Some(b));
    }
    match crate::units::parse_size_mb(v.trim()) {
        Ok(mb) => Ok(Some((mb * 1048576.0) as u64)),
        Err(_) => Err(BadMemory(v)),
    }
}
pub(super) const MAX_SHARE: i64 = 1_000_000_000;
pub(super) const POLICY_ORIGIN: &str = "--policy";

pub(super) type R<T> = Result<T, InputError>;

/// Reads and loads a scenario file. `policy_override` (a policy spec,
/// possibly a variant such as `fair[slowstart=1]`) replaces
/// `[scheduler] policy`; `seed_override` replaces `seed`.
pub fn load_file(
    path: &Path,
    policy_override: Option<&str>,
    seed_override: Option<u64>,
) -> Result<Scenario, InputError> {
    let text = read_file(path)?;
    load_str(
        &text,
        &path.display().to_string(),
        policy_override,
        seed_override,
    )
}

/// A scenario file's text: bounded in size, UTF-8 (an error at the first
/// byte that is not).
pub fn read_file(path: &Path) -> Result<String, InputError> {
    let origin = path.display().to_string();
    let bytes = read_bounded(path, MAX_SCENARIO_BYTES).map_err(|e| {
        InputError::new(
            &origin,
            format!("cannot read {origin}: {e}; expected a readable scenario file"),
        )
    })?;
    String::from_utf8(bytes).map_err(|e| {
        let valid = e.utf8_error().valid_up_to();
        let bytes = e.as_bytes();
        let prefix = std::str::from_utf8(&bytes[..valid]).unwrap_or_default();
        let bad = bytes.get(valid).copied().unwrap_or_default();
        InputError::at(
            &origin,
            prefix,
            valid,
            format!(
                "invalid UTF-8 (byte 0x{bad:02x} at byte offset {valid}); expected a UTF-8 text file"
            ),
        )
    })
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
pub(super) struct Cx<'a> {
    origin: &'a str,
    text: &'a str,
    /// Built only when an error needs a position `schema` did not keep.
    tree: OnceCell<Option<SpanNode>>,
}

impl Cx<'_> {
    pub(super) fn at_span(&self, span: &Range<usize>, msg: impl Into<String>) -> InputError {
        InputError::at(self.origin, self.text, span.start, msg)
    }

    pub(super) fn at<T>(&self, value: &Spanned<T>, msg: impl Into<String>) -> InputError {
        self.at_span(&value.span(), msg)
    }

    /// An error at the value of a dotted key path, or its nearest ancestor,
    /// or the start of the file if the document has no spans at all.
    pub(super) fn at_key(&self, path: &[&str], msg: impl Into<String>) -> InputError {
        let span = self
            .tree
            .get_or_init(|| SpanNode::parse(self.text))
            .as_ref()
            .and_then(|t| t.find(path))
            .unwrap_or(0..0);
        self.at_span(&span, msg)
    }

    /// An error at the key of a dotted path (an unknown key), falling back
    /// as [`Cx::at_key`] does.
    pub(super) fn at_key_name(&self, path: &[&str], msg: impl Into<String>) -> InputError {
        let span = self
            .tree
            .get_or_init(|| SpanNode::parse(self.text))
            .as_ref()
            .and_then(|t| t.find_key(path))
            .unwrap_or(0..0);
        self.at_span(&span, msg)
    }

    /// A whole number in `lo..=hi`, as u32.
    pub(super) fn int(&self, v: &Spanned<i64>, key: &str, lo: i64, hi: i64) -> R<u32> {
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
    pub(super) fn positive(&self, v: &Spanned<f64>, key: &str) -> R<f64> {
        let x = *v.get_ref();
        if x.is_finite() && x > 0.0 {
            Ok(x)
        } else {
            Err(self.at(v, format!("{key} must be a number greater than 0, got {x}")))
        }
    }

    /// A finite number in `lo..=hi`.
    pub(super) fn within(&self, v: &Spanned<f64>, key: &str, lo: f64, hi: f64) -> R<f64> {
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
pub(super) fn fp_value(cx: &Cx, v: &Option<Spanned<f64>>) -> R<Option<f64>> {
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

/// Turns a serde/TOML error into an `InputError` at its span. Messages from
/// `toml` may span several lines; errors are one line, and serde's
/// Rust-flavoured type names read better in user terms.
fn de_error(origin: &str, text: &str, e: &toml::de::Error) -> InputError {
    let msg = crate::error::user_terms(e.message());
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
    let file_seed = file_seed(cx, &file.seed)?;
    let seed = seed_override.or(file_seed).unwrap_or(DEFAULT_SEED);
    let name = file
        .name
        .clone()
        .unwrap_or_else(|| name_from_origin(cx.origin));

    let from_trace = jobs::trace_cluster(cx, file.cluster.as_ref(), &file.workloads)?;
    let cluster = compile_cluster(
        cx,
        file.cluster.as_ref(),
        from_trace.as_ref().map(|(s, p)| (s, p.as_str())),
    )?;
    let node_count = cluster.node_count();
    let network = compile_network(cx, &file.network)?;
    let hdfs = compile_hdfs(cx, &file.hdfs, node_count)?;
    let tasks = compile_tasks(cx, &file.tasks, &cluster)?;
    let ctx = BuildCtx {
        heartbeat: cluster.heartbeat,
        capacity: cluster.capacity(),
    };
    let policy = compile_scheduler(cx, &raw_scheduler, policy_override, &ctx)?;
    let pools = compile_pools(
        cx,
        &file.pools,
        cluster.slot_model == crate::model::SlotModel::Yarn,
    )?;

    let env = JobEnv {
        cx,
        pools: pools.iter().map(|p| p.name.clone()).collect(),
        block_mb: hdfs.block_mb,
        node_count,
        hosts: from_trace.map(|(s, _)| s.node_ids()),
        yarn: (cluster.slot_model == crate::model::SlotModel::Yarn).then_some((
            cluster.node_resource,
            tasks.map_container,
            tasks.reduce_container,
        )),
    };
    let mut names = BTreeSet::new();
    let mut budget = TaskBudget::new(node_count, cluster.capacity());
    let jobs = compile_jobs(&env, &file, seed, &mut names, &mut budget)?;
    let failures = compile_failures(cx, &file.failures)?;
    let mut events = Vec::new();
    for e in &file.events {
        let more = env.event(e, &raw_scheduler, &ctx, &mut names)?;
        for ev in &more {
            if let Action::Submit(j) = &ev.action {
                budget
                    .count(j)
                    .map_err(|m| cx.at(&e.action, m.to_string()))?;
            }
        }
        events.extend(more);
    }
    events.sort_by_key(|e| e.at);
    events::check_job_actions(cx, &file.events, &jobs, &events, &pools)?;
    let notes = compile_notes(cx, &file.notes)?;

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
        failures,
        notes,
    })
}

/// The longest caption: one line of a wide terminal.
const NOTE_MAX_CHARS: usize = 160;
/// How long the last caption holds without an `until`.
const NOTE_DEFAULT_MS: crate::model::Ms = 20_000;

/// `[[notes]]`, in order of `at` (stable): each holds until its `until`,
/// else until the next one starts, the last for 20 s.
fn compile_notes(cx: &Cx, defs: &[NoteDef]) -> R<Vec<Note>> {
    let mut order: Vec<&NoteDef> = defs.iter().collect();
    order.sort_by_key(|n| n.at.get_ref().0);
    let mut notes = Vec::with_capacity(order.len());
    for (i, n) in order.iter().enumerate() {
        let at = n.at.get_ref().0;
        let text = n.text.get_ref().trim();
        if text.is_empty() {
            return Err(cx.at(&n.text, "a note's text is empty"));
        }
        if text.contains('\n') {
            return Err(cx.at(&n.text, "a note's text is one line (a caption)"));
        }
        let chars = text.chars().count();
        if chars > NOTE_MAX_CHARS {
            return Err(cx.at(
                &n.text,
                format!("a note's text is at most {NOTE_MAX_CHARS} characters, this one {chars}"),
            ));
        }
        let until = match &n.until {
            Some(u) if u.get_ref().0 <= at => {
                return Err(cx.at(
                    u,
                    format!(
                        "until ({}) must come after the note's at ({})",
                        crate::units::fmt_secs(u.get_ref().0),
                        crate::units::fmt_secs(at)
                    ),
                ))
            }
            Some(u) => u.get_ref().0,
            None => order
                .get(i + 1)
                .map(|next| next.at.get_ref().0)
                .filter(|&t| t > at)
                .unwrap_or(at + NOTE_DEFAULT_MS),
        };
        notes.push(Note {
            at,
            until,
            text: text.to_string(),
        });
    }
    Ok(notes)
}

/// The file's `seed`, which must be at least 0.
fn file_seed(cx: &Cx, seed: &Option<Spanned<i64>>) -> R<Option<u64>> {
    let Some(s) = seed else {
        return Ok(None);
    };
    let seed = u64::try_from(*s.get_ref()).map_err(|_| {
        cx.at(
            s,
            format!(
                "seed must be a whole number of at least 0, got {}",
                s.get_ref()
            ),
        )
    })?;
    Ok(Some(seed))
}

/// A scenario without a `name`: its file's stem, or "scenario" for the
/// built-in one and text of no file.
fn name_from_origin(origin: &str) -> String {
    Path::new(origin)
        .file_stem()
        .and_then(|s| s.to_str())
        .filter(|s| !s.is_empty() && !s.starts_with('<'))
        .unwrap_or("scenario")
        .to_string()
}

/// The tasks of the scenario so far, held to [`MAX_TOTAL_TASKS`] and to
/// the memory a run of them would need.
struct TaskBudget {
    total: u64,
    /// The largest job's [`crate::sim::job_sources`] so far.
    largest: (u64, u64),
    /// What the cluster runs at once (caps the reducers counted).
    cap: crate::model::Capacity,
    /// The memory limit, and whether `SLOTSIM_MEMORY` set it.
    limit: Option<(u64, bool)>,
    nodes: u64,
}

impl TaskBudget {
    fn new(node_count: u32, cap: crate::model::Capacity) -> TaskBudget {
        TaskBudget {
            total: 0,
            largest: (0, 0),
            cap,
            limit: memory_limit(),
            nodes: u64::from(node_count),
        }
    }

    /// Adds a job's tasks.
    fn count(&mut self, job: &JobSpec) -> Result<(), TooLarge> {
        self.total += u64::from(job.maps) + u64::from(job.reduces);
        let total = self.total;
        if total > MAX_TOTAL_TASKS {
            return Err(TooLarge::Tasks);
        }
        let (reducers, from) =
            crate::sim::job_sources(job.maps.into(), job.reduces.into(), self.nodes, &self.cap);
        if reducers * from > self.largest.0 * self.largest.1 {
            self.largest = (reducers, from);
        }
        let sources = self.largest.0 * self.largest.1;
        let need = crate::sim::memory_estimate(total, self.nodes, sources);
        match self.limit {
            Some((have, from_env)) if need > have => Err(TooLarge::Memory {
                total,
                largest: self.largest,
                need,
                have,
                from_env,
            }),
            _ => Ok(()),
        }
    }
}

/// `[[jobs]]` then `[[workloads]]`, each job's name unique, in submit
/// order (stable: equal submit times keep definition order).
fn compile_jobs(
    env: &JobEnv,
    file: &ScenarioFile,
    seed: u64,
    names: &mut BTreeSet<String>,
    budget: &mut TaskBudget,
) -> R<Vec<JobSpec>> {
    let cx = env.cx;
    let mut jobs = Vec::new();
    for def in &file.jobs {
        let submit = def.submit.as_ref().map_or(0, |s| s.get_ref().0);
        for job in env.job(def, submit)? {
            if !names.insert(job.name.clone()) {
                return Err(cx.at(&def.name, duplicate_job(&job.name)));
            }
            budget
                .count(&job)
                .map_err(|m| cx.at(&def.name, m.to_string()))?;
            jobs.push(job);
        }
    }
    for (index, w) in file.workloads.iter().enumerate() {
        for job in env.workload(w, index, seed)? {
            if !names.insert(job.name.clone()) {
                return Err(cx.at(&w.kind, duplicate_job(&job.name)));
            }
            budget
                .count(&job)
                .map_err(|m| cx.at(&w.kind, m.to_string()))?;
            jobs.push(job);
        }
    }
    jobs.sort_by_key(|j| j.submit);
    Ok(jobs)
}

/// `[failures]`: a mean time between failures and to repair, both longer
/// than 0 (repair 10 minutes unless given).
fn compile_failures(
    cx: &Cx,
    failures: &Option<crate::scenario::schema::FailuresDef>,
) -> R<Option<crate::model::FailureSpec>> {
    let Some(f) = failures else {
        return Ok(None);
    };
    let positive = |v: &Spanned<crate::scenario::schema::Dur>, key: &str| {
        if v.get_ref().0 == 0 {
            Err(cx.at(v, format!("{key} must be longer than 0, like \"24h\"")))
        } else {
            Ok(v.get_ref().0)
        }
    };
    Ok(Some(crate::model::FailureSpec {
        mtbf: positive(&f.mtbf, "mtbf")?,
        mttr: match &f.mttr {
            None => 600_000,
            Some(v) => positive(v, "mttr")?,
        },
    }))
}

pub(super) fn duplicate_job(name: &str) -> String {
    format!(
        "duplicate job name \"{name}\"; expected every job name to be unique (count = N names copies NAME-1, NAME-2, ...)"
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::PolicySpec;

    #[test]
    fn default_scenario_loads() {
        let s = load_default(None, None).expect("the built-in scenario is valid");
        assert_eq!(s.name, "quickstart");
        assert_eq!(s.seed, 7);
        assert_eq!(s.cluster.node_count(), 20);
        assert_eq!(s.policy.name(), "fair");
        assert!(s.pools.iter().any(|p| p.name == "default"));
        assert!(s
            .pools
            .iter()
            .any(|p| p.name == "research" && p.weight == 2.0));
        assert!(s.jobs.len() >= 14, "{} jobs", s.jobs.len());
        assert!(s.jobs.windows(2).all(|w| w[0].submit <= w[1].submit));
        let s = load_default(Some("fifo"), Some(9)).expect("overrides apply");
        assert_eq!((s.policy.name(), s.seed), ("fifo", 9));
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

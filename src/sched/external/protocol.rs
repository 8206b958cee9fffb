//! Protocol version 1, line by line: the messages slotsim writes (typed
//! messages serialised by serde_json into one reused buffer, without a
//! JSON tree on the heartbeat path) and the reply it reads, checked and
//! applied to the heartbeat. Protocol 2 (`v2`) adds to these and reuses
//! the checks of a launch.

use crate::model::{JobId, Ms, NodeId};
use crate::sim::policy::{Inspection, Value, Values};
use crate::sim::{AttemptId, Heartbeat, Kind, Locality, RunView, TaskState};
use serde::{Serialize, Serializer};
use std::time::Duration;

/// A message slotsim writes, in the order of its fields on the wire.
#[derive(Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Message<'a> {
    Start {
        protocol: u32,
        time_ms: Ms,
        slot_model: &'a str,
        slowstart: f64,
        seed: u64,
        nodes: Nodes<'a>,
    },
    JobSubmitted {
        time_ms: Ms,
        job: Submitted<'a>,
    },
    TaskFinished {
        time_ms: Ms,
        job: JobId,
        kind: Kind,
        task: u32,
        node: NodeId,
        outcome: &'a str,
        pending: bool,
        speculative: bool,
    },
    JobFinished {
        time_ms: Ms,
        job: JobId,
        outcome: &'a str,
    },
    JobUpdated {
        time_ms: Ms,
        job: JobId,
        priority: &'a str,
        pool: &'a str,
    },
    NodeFailed {
        time_ms: Ms,
        node: NodeId,
    },
    NodeRecovered {
        time_ms: Ms,
        node: NodeId,
    },
    End {
        time_ms: Ms,
        /// Protocol 2: why the run ended (`finished`, `until`, `stalled`,
        /// `stopped`).
        #[serde(skip_serializing_if = "Option::is_none")]
        reason: Option<&'a str>,
    },
    Heartbeat {
        time_ms: Ms,
        node: NodeId,
        free: Free,
        /// Where maps and reduces share containers: how many more
        /// reduces of jobs whose maps are not all done may start (early
        /// reduces never hold more than half the containers: the engine's
        /// rule against a reduce-held deadlock).
        #[serde(skip_serializing_if = "Option::is_none")]
        early_reduce_room: Option<u32>,
        running: Running,
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        inspect: bool,
    },
}

/// A heartbeating node's free slots: of each kind, or containers.
#[derive(Serialize)]
#[serde(untagged)]
enum Free {
    Typed { map: u32, reduce: u32 },
    Shared { any: u32 },
}

#[derive(Serialize)]
struct Running {
    map: u32,
    reduce: u32,
}

/// The cluster's nodes as `start` lists them, written straight from the
/// world.
struct Nodes<'a>(RunView<'a>);

impl Serialize for Nodes<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Node {
            id: NodeId,
            rack: u32,
            dc: u32,
            map_slots: u32,
            reduce_slots: u32,
            alive: bool,
        }
        s.collect_seq(self.0.cluster().nodes.iter().map(|n| Node {
            id: n.id,
            rack: n.rack,
            dc: n.dc,
            map_slots: n.map_slots,
            reduce_slots: n.reduce_slots,
            alive: n.alive,
        }))
    }
}

/// A job as `job_submitted` gives it, with what is already done or running
/// marked (a policy switched in mid-run hears of the jobs there this way);
/// under protocol 2 (`v2`) with its profile, sizes and, on YARN, asks.
pub(super) struct Submitted<'a> {
    pub w: RunView<'a>,
    pub j: JobId,
    pub v2: bool,
    /// Under `"am":"policy"`, a job whose ApplicationMaster waits for a
    /// container: `"am":"pending"`.
    pub am_pending: bool,
}

impl Serialize for Submitted<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let (w, j) = (self.w, self.j);
        let job = w.job(j);
        let reduces = |state: TaskState| -> Vec<u32> {
            (0..job.n_reduces())
                .filter(|&r| job.reduces[r as usize].state == state)
                .collect()
        };
        let (running, done) = (reduces(TaskState::Running), reduces(TaskState::Done));
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("id", &j)?;
        m.serialize_entry("name", &*job.name)?;
        m.serialize_entry("pool", &w.pools()[job.pool as usize].name)?;
        m.serialize_entry("user", &*job.user)?;
        m.serialize_entry("priority", job.priority.as_str())?;
        m.serialize_entry("submit_ms", &job.submit)?;
        m.serialize_entry("reduces", &job.n_reduces())?;
        if self.v2 {
            m.serialize_entry("profile", job.profile.name)?;
            m.serialize_entry("input_bytes", &bytes(job.input_mb))?;
        }
        m.serialize_entry("maps", &Maps(w, j, self.v2))?;
        if self.v2 && w.capacity().app_masters() {
            m.serialize_entry("asks", &super::v2::Asks(w, j))?;
        }
        if self.am_pending {
            m.serialize_entry("am", "pending")?;
        }
        if !running.is_empty() {
            m.serialize_entry("running_reduces", &running)?;
        }
        if !done.is_empty() {
            m.serialize_entry("done_reduces", &done)?;
        }
        m.end()
    }
}

/// Binary megabytes as bytes.
pub(super) fn bytes(mb: f64) -> u64 {
    (mb * 1_048_576.0).round() as u64
}

/// A job's maps: each one's replicas (and under protocol 2 its input),
/// and its state unless pending.
struct Maps<'a>(RunView<'a>, JobId, bool);

impl Serialize for Maps<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Map<'a> {
            task: u32,
            replicas: &'a [NodeId],
            #[serde(skip_serializing_if = "Option::is_none")]
            input_bytes: Option<u64>,
            #[serde(skip_serializing_if = "Option::is_none")]
            state: Option<&'static str>,
        }
        let job = self.0.job(self.1);
        let v2 = self.2;
        s.collect_seq((0..job.n_maps()).map(|t| Map {
            task: t,
            replicas: job.replicas(t),
            input_bytes: v2.then(|| bytes(job.maps[t as usize].block_mb)),
            state: match job.maps[t as usize].state {
                TaskState::Pending => None,
                TaskState::Running => Some("running"),
                TaskState::Done => Some("done"),
            },
        }))
    }
}

/// Writes `msg` as one JSON line's text into `buf` (reused: no allocation
/// once it has grown).
fn write(buf: &mut Vec<u8>, msg: &Message<'_>) {
    write_any(buf, msg);
}

/// Writes any message as one JSON line's text into `buf`.
pub(super) fn write_any(buf: &mut Vec<u8>, msg: &impl Serialize) {
    buf.clear();
    // Writing into a Vec cannot fail, and every value here serialises.
    let _ = serde_json::to_writer(&mut *buf, msg);
}

pub fn start(buf: &mut Vec<u8>, w: RunView<'_>, slowstart: f64) {
    let msg = Message::Start {
        protocol: 1,
        time_ms: w.now(),
        slot_model: w.capacity().name(),
        slowstart,
        seed: w.seed(),
        nodes: Nodes(w),
    };
    write(buf, &msg);
}

pub fn job_submitted(buf: &mut Vec<u8>, w: RunView<'_>, j: JobId, v2: bool) {
    let msg = Message::JobSubmitted {
        time_ms: w.now(),
        job: Submitted {
            w,
            j,
            v2,
            am_pending: false,
        },
    };
    write(buf, &msg);
}

pub fn task_finished(buf: &mut Vec<u8>, w: RunView<'_>, a: AttemptId, outcome: &str) {
    let at = &w.attempts()[a as usize];
    let job = w.job(at.job);
    let state = match at.kind {
        Kind::Map => job.maps[at.task as usize].state,
        Kind::Reduce => job.reduces[at.task as usize].state,
    };
    let msg = Message::TaskFinished {
        time_ms: w.now(),
        job: at.job,
        kind: at.kind,
        task: at.task,
        node: at.node,
        outcome,
        pending: state == TaskState::Pending,
        speculative: at.speculative,
    };
    write(buf, &msg);
}

pub fn job_finished(buf: &mut Vec<u8>, w: RunView<'_>, j: JobId) {
    let outcome = if w.job(j).killed {
        "killed"
    } else {
        "succeeded"
    };
    let msg = Message::JobFinished {
        time_ms: w.now(),
        job: j,
        outcome,
    };
    write(buf, &msg);
}

pub fn job_updated(buf: &mut Vec<u8>, w: RunView<'_>, j: JobId) {
    let job = w.job(j);
    let msg = Message::JobUpdated {
        time_ms: w.now(),
        job: j,
        priority: job.priority.as_str(),
        pool: &w.pools()[job.pool as usize].name,
    };
    write(buf, &msg);
}

pub fn node_changed(buf: &mut Vec<u8>, w: RunView<'_>, node: NodeId, alive: bool) {
    let time_ms = w.now();
    let msg = if alive {
        Message::NodeRecovered { time_ms, node }
    } else {
        Message::NodeFailed { time_ms, node }
    };
    write(buf, &msg);
}

pub fn end_line(now: Ms, reason: Option<&str>) -> Vec<u8> {
    let mut buf = Vec::new();
    write(
        &mut buf,
        &Message::End {
            time_ms: now,
            reason,
        },
    );
    buf
}

pub fn heartbeat(buf: &mut Vec<u8>, hb: &Heartbeat<'_>) {
    let w = hb.view();
    let n = hb.node();
    let (free, early_reduce_room) = if w.capacity().kinds_share() {
        let room = (w.cluster().total_slots() / 2).saturating_sub(w.early_reduces());
        (
            Free::Shared {
                any: hb.free_maps(),
            },
            Some(room),
        )
    } else {
        let (map, reduce) = (hb.free_maps(), hb.free_reduces());
        (Free::Typed { map, reduce }, None)
    };
    let msg = Message::Heartbeat {
        time_ms: w.now(),
        node: hb.node,
        free,
        early_reduce_room,
        running: Running {
            map: n.running_maps,
            reduce: n.running_reduces,
        },
        inspect: hb.inspecting,
    };
    write(buf, &msg);
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Reply {
    launch: Vec<Launch>,
    #[serde(default)]
    inspect: Option<InspectReply>,
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Launch {
    pub job: u64,
    pub kind: LaunchKind,
    #[serde(default)]
    pub task: Option<u64>,
    #[serde(default)]
    pub rule: Option<String>,
}

#[derive(Clone, Copy, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub(super) enum LaunchKind {
    Map,
    Reduce,
}

impl LaunchKind {
    pub fn kind(self) -> Kind {
        match self {
            LaunchKind::Map => Kind::Map,
            LaunchKind::Reduce => Kind::Reduce,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            LaunchKind::Map => "map",
            LaunchKind::Reduce => "reduce",
        }
    }
}

type JsonMap = serde_json::Map<String, serde_json::Value>;

#[derive(Default, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct InspectReply {
    #[serde(default)]
    cluster: JsonMap,
    #[serde(default)]
    pools: serde_json::Map<String, serde_json::Value>,
    #[serde(default)]
    jobs: serde_json::Map<String, serde_json::Value>,
}

/// A reply line shortened for an error message.
pub fn clip(line: &str) -> String {
    const MAX: usize = 160;
    if line.chars().count() <= MAX {
        return line.to_string();
    }
    let cut: String = line.chars().take(MAX).collect();
    format!("{cut}…")
}

/// What is wrong with a reply, as the error that stops the run says it.
#[derive(Debug, thiserror::Error)]
pub enum ReplyError {
    #[error("the reply is not what protocol {protocol} expects ({detail}): {line}")]
    NotProtocol {
        protocol: u32,
        detail: String,
        line: String,
    },
    #[error("launch {launch} of the reply names job {job}, which it was never told of")]
    UnknownJob { launch: usize, job: u64 },
    #[error("launch {launch} of the reply names job {job} ({name}), which has finished")]
    FinishedJob {
        launch: usize,
        job: JobId,
        name: String,
    },
    #[error("launch {launch} of the reply puts a {kind} of job {job} on node {node}, which has no free {slot}")]
    NoFreeSlot {
        launch: usize,
        kind: &'static str,
        job: JobId,
        node: NodeId,
        slot: &'static str,
    },
    #[error("launch {launch} of the reply starts a reduce of job {job} before its slowstart ({done} of {maps} maps done; slowstart {slowstart})")]
    BeforeSlowstart {
        launch: usize,
        job: JobId,
        done: u32,
        maps: u32,
        slowstart: f64,
    },
    #[error("launch {launch} of the reply: job {job} has no pending {kind}")]
    NonePending {
        launch: usize,
        job: JobId,
        kind: &'static str,
    },
    #[error("launch {launch} of the reply starts a reduce of job {job} before its maps are done while early reduces hold half the containers (early_reduce_room was 0)")]
    NoEarlyReduceRoom { launch: usize, job: JobId },
    #[error(
        "launch {launch} of the reply names {kind} {task} of job {job}, which has no such {kind}"
    )]
    NoSuchTask {
        launch: usize,
        kind: &'static str,
        task: u64,
        job: JobId,
    },
    #[error("launch {launch} of the reply names {kind} {task} of job {job}, which is not pending ({now})")]
    NotPending {
        launch: usize,
        kind: &'static str,
        task: u32,
        job: JobId,
        now: &'static str,
    },
    #[error("a launch's rule must be 1 to {RULE_MAX_CHARS} characters, got {0}")]
    BadRule(String),
    /// Protocol 2: the line read as the reply to message `seq` is not it.
    #[error("the line read as the reply carries no \"seq\" (expected \"seq\":{expected}; only start and heartbeats get a reply, and a line written unasked is never taken for one: log to stderr): {line}")]
    NoSeq { expected: u64, line: String },
    #[error("the line read as the reply carries \"seq\":{got}, expected {expected} (a reply to another message, or a line written unasked: log to stderr): {line}")]
    WrongSeq {
        expected: u64,
        got: String,
        line: String,
    },
    #[error("the reply to start is not the hello protocol 2 expects, {{\"type\":\"hello\",\"seq\":0,\"name\":NAME,\"version\":VERSION}} ({detail}): {line}")]
    NotHello { detail: String, line: String },
    /// Protocol 2: entry `n` (1-based) of one of a reply's lists.
    #[error("{part} {n} of the reply {what}")]
    Entry {
        part: &'static str,
        n: usize,
        what: String,
    },
    #[error("more than {RULES_MAX} distinct rules; a rule names why, not which task")]
    TooManyRules,
    #[error("{0} must be an object of values")]
    NotAnObject(String),
    #[error("{0}: a value must be a number, a string, a boolean or null")]
    BadValue(String),
}

/// Applies one reply to the heartbeat, in order; returns the inspection it
/// carried, or what is wrong with it (the launches before the wrong one
/// stand: the run stops there anyway).
pub fn apply(
    line: &str,
    hb: &mut Heartbeat<'_>,
    slowstart: f64,
    known: impl Fn(JobId) -> bool,
) -> Result<Option<Inspection>, ReplyError> {
    let reply: Reply = serde_json::from_str(line).map_err(|e| ReplyError::NotProtocol {
        protocol: 1,
        detail: e.to_string(),
        line: clip(line),
    })?;
    let inspection = reply.inspect.map(inspection).transpose()?;
    for (i, l) in reply.launch.iter().enumerate() {
        launch(hb, i, l, slowstart, &known)?;
    }
    Ok(inspection)
}

/// The job a launch names, if the policy was told of it and it has not
/// finished.
pub(super) fn launched_job(
    w: RunView<'_>,
    here: usize,
    job: u64,
    known: &impl Fn(JobId) -> bool,
) -> Result<JobId, ReplyError> {
    let j = match JobId::try_from(job) {
        Ok(j) if (j as usize) < w.jobs().len() && known(j) => j,
        _ => return Err(ReplyError::UnknownJob { launch: here, job }),
    };
    let done = w.job(j);
    if done.is_done() {
        return Err(ReplyError::FinishedJob {
            launch: here,
            job: j,
            name: done.name.to_string(),
        });
    }
    Ok(j)
}

/// The rule a launch gives, or the default.
pub(super) fn rule_of(rule: Option<&str>) -> Result<&'static str, ReplyError> {
    Ok(rule.map(intern).transpose()?.unwrap_or("external"))
}

/// Applies launch `i` (0-based) of a reply on a cluster of slots.
pub(super) fn launch(
    hb: &mut Heartbeat<'_>,
    i: usize,
    l: &Launch,
    slowstart: f64,
    known: &impl Fn(JobId) -> bool,
) -> Result<(), ReplyError> {
    let w = hb.view();
    let node = hb.node;
    let here = i + 1;
    let j = launched_job(w, here, l.job, known)?;
    let job = w.job(j);
    let unified = w.capacity().kinds_share();
    let rule = rule_of(l.rule.as_deref())?;
    match l.kind {
        LaunchKind::Map => {
            if hb.free_maps() == 0 {
                return Err(ReplyError::NoFreeSlot {
                    launch: here,
                    kind: "map",
                    job: j,
                    node,
                    slot: if unified { "container" } else { "map slot" },
                });
            }
            let t = match l.task {
                Some(t) => pending_task(here, "map", j, t, |t| {
                    job.maps.get(t as usize).map(|m| m.state)
                })?,
                None => match job.find_map(node, Locality::OffDc, w.cluster()) {
                    Some((t, _)) => t,
                    None => {
                        return Err(ReplyError::NonePending {
                            launch: here,
                            job: j,
                            kind: "map",
                        })
                    }
                },
            };
            hb.launch_map(j, t, rule);
        }
        LaunchKind::Reduce => {
            if hb.free_reduces() == 0 {
                return Err(ReplyError::NoFreeSlot {
                    launch: here,
                    kind: "reduce",
                    job: j,
                    node,
                    slot: if unified { "container" } else { "reduce slot" },
                });
            }
            if !job.reduces_schedulable(slowstart) {
                return Err(ReplyError::BeforeSlowstart {
                    launch: here,
                    job: j,
                    done: job.maps_done,
                    maps: job.n_maps(),
                    slowstart,
                });
            }
            let t = match l.task {
                Some(t) => pending_task(here, "reduce", j, t, |t| {
                    job.reduces.get(t as usize).map(|r| r.state)
                })?,
                None => match job.find_reduce() {
                    Some(t) => t,
                    None => {
                        return Err(ReplyError::NonePending {
                            launch: here,
                            job: j,
                            kind: "reduce",
                        })
                    }
                },
            };
            if !w.reduce_allowed(j) {
                return Err(ReplyError::NoEarlyReduceRoom {
                    launch: here,
                    job: j,
                });
            }
            hb.launch_reduce(j, t, rule);
        }
    }
    Ok(())
}

/// Task `t` of `kind` in job `j`, if it exists (`state` gives its state)
/// and is pending.
pub(super) fn pending_task(
    launch: usize,
    kind: &'static str,
    j: JobId,
    t: u64,
    state: impl Fn(u32) -> Option<TaskState>,
) -> Result<u32, ReplyError> {
    let task = u32::try_from(t).ok();
    match task.and_then(|t| Some((t, state(t)?))) {
        None => Err(ReplyError::NoSuchTask {
            launch,
            kind,
            task: t,
            job: j,
        }),
        Some((t, TaskState::Pending)) => Ok(t),
        Some((t, s)) => Err(ReplyError::NotPending {
            launch,
            kind,
            task: t,
            job: j,
            now: if s == TaskState::Running {
                "it is running"
            } else {
                "it has finished"
            },
        }),
    }
}

/// The longest rule a reply may give, and how many distinct rules a run may
/// use: rules are kept once for the whole process (the trace stores an
/// index into them).
const RULE_MAX_CHARS: usize = 64;
const RULES_MAX: usize = 1024;

static RULES: std::sync::Mutex<Vec<&'static str>> = std::sync::Mutex::new(Vec::new());

fn intern(rule: &str) -> Result<&'static str, ReplyError> {
    if rule.is_empty() || rule.chars().count() > RULE_MAX_CHARS {
        return Err(ReplyError::BadRule(clip(rule)));
    }
    let mut rules = RULES.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(r) = rules.iter().find(|r| **r == rule) {
        return Ok(r);
    }
    if rules.len() >= RULES_MAX {
        return Err(ReplyError::TooManyRules);
    }
    let r: &'static str = Box::leak(rule.to_string().into_boxed_str());
    rules.push(r);
    Ok(r)
}

pub(super) fn inspection(r: InspectReply) -> Result<Inspection, ReplyError> {
    let mut out = Inspection {
        cluster: values("inspect.cluster", r.cluster)?,
        ..Inspection::default()
    };
    for (key, map, into) in [
        ("inspect.pools", r.pools, &mut out.pools),
        ("inspect.jobs", r.jobs, &mut out.jobs),
    ] {
        for (name, v) in map {
            let serde_json::Value::Object(o) = v else {
                return Err(ReplyError::NotAnObject(format!("{key}.{name}")));
            };
            into.insert(name.clone(), values(&format!("{key}.{name}"), o)?);
        }
    }
    Ok(out)
}

fn values(key: &str, m: JsonMap) -> Result<Values, ReplyError> {
    let mut out = Values::new();
    for (k, v) in m {
        let v = value(&v).ok_or_else(|| ReplyError::BadValue(format!("{key}.{k}")))?;
        out.insert(k, v);
    }
    Ok(out)
}

fn value(v: &serde_json::Value) -> Option<Value> {
    Some(match v {
        serde_json::Value::Null => Value::Null,
        serde_json::Value::Bool(b) => Value::Bool(*b),
        serde_json::Value::Number(n) => match n.as_i64() {
            Some(i) => Value::Int(i),
            None => crate::sim::policy::num(n.as_f64()?),
        },
        serde_json::Value::String(s) => Value::Text(s.clone()),
        _ => return None,
    })
}

/// Where the time of an external policy's heartbeats goes
/// (`SLOTSIM_EXTERNAL_STATS`): slotsim's side (writing the request,
/// reading and applying the reply) and the wait for the process.
#[derive(Default)]
pub struct Stats {
    heartbeats: u64,
    ours: Duration,
    waiting: Duration,
    /// Heartbeats the engine answered itself (`"wake":"work"`).
    unasked: u64,
    unasked_time: Duration,
}

impl Stats {
    pub fn unasked(&mut self, ours: Duration) {
        self.unasked += 1;
        self.unasked_time += ours;
    }

    pub fn add(&mut self, ours: Duration, waiting: Duration) {
        self.heartbeats += 1;
        self.ours += ours;
        self.waiting += waiting;
    }

    pub fn report(&self, label: &str) {
        use std::io::Write as _;
        let n = self.heartbeats.max(1) as f64;
        let _ = writeln!(
            std::io::stderr(),
            "external policy {label}: {} heartbeats asked; slotsim's side {:.1} µs each, waiting for the reply {:.1} µs each",
            self.heartbeats,
            self.ours.as_secs_f64() * 1e6 / n,
            self.waiting.as_secs_f64() * 1e6 / n
        );
        if self.unasked > 0 {
            let _ = writeln!(
                std::io::stderr(),
                "external policy {label}: {} heartbeats answered by slotsim (wake = work), {:.2} µs each",
                self.unasked,
                self.unasked_time.as_secs_f64() * 1e6 / self.unasked as f64
            );
        }
    }
}

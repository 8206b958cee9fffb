//! Protocol version 2, line by line: what it adds to protocol 1's messages
//! (the cluster's pools and capacities in `start`, each job's sizes and
//! asks, every attempt's start, a heartbeat's free capacity and running
//! attempts, YARN's requests), the `hello` that answers `start`, the
//! sequence number every request carries and its reply echoes, and the
//! reply's preemptions, speculative copies and containers, checked and
//! applied to the heartbeat.

use super::protocol::{
    clip, inspection, launch as launch_slot, launched_job, pending_task, rule_of, write_any,
    InspectReply, Launch, LaunchKind, ReplyError, Submitted,
};
use crate::model::{yarn_defaults, Capacity, JobId, Ms, NodeId, Resource};
use crate::sched::yarn::{max_allocation, normalize_both};
use crate::sim::jobtask::{JobTaskKind, JobTaskRun};
use crate::sim::policy::Inspection;
use crate::sim::{AttemptId, Heartbeat, Kind, Locality, RunView, TaskState};
use serde::{Serialize, Serializer};

/// An amount in the cluster's shape: `{"map","reduce"}` on typed slots,
/// `{"any"}` on unified containers, `{"memory_mb","vcores"}` on YARN.
struct Amount<'a>(&'a Capacity, Resource);

impl Serialize for Amount<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let parts = self.0.parts(self.1);
        let mut m = s.serialize_map(None)?;
        for (name, v) in parts.iter().filter(|(name, _)| !name.is_empty()) {
            m.serialize_entry(name, v)?;
        }
        m.end()
    }
}

/// A container's size on the wire.
#[derive(Serialize)]
struct Container {
    memory_mb: i64,
    vcores: i64,
}

impl Container {
    fn of(r: Resource) -> Container {
        Container {
            memory_mb: r.mb(),
            vcores: r.vcores(),
        }
    }
}

/// What a task of `ask` takes on YARN: its ask as the minimum allocation
/// rounds it (memory and vcores), at most the largest container; nothing
/// for a task sized 0 (an ApplicationMaster the scenario leaves out).
pub fn normalised(w: RunView<'_>, ask: Resource) -> Resource {
    if ask.is_zero() {
        return Resource::ZERO;
    }
    normalize_both(ask, max_allocation(w))
}

/// A job's asks under YARN: its map, reduce and ApplicationMaster
/// containers, normalised.
pub(super) struct Asks<'a>(pub RunView<'a>, pub JobId);

impl Serialize for Asks<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let (w, job) = (self.0, self.0.job(self.1));
        let mut m = s.serialize_map(Some(3))?;
        m.serialize_entry("map", &Container::of(normalised(w, job.map_ask)))?;
        m.serialize_entry("reduce", &Container::of(normalised(w, job.reduce_ask)))?;
        m.serialize_entry("am", &Container::of(normalised(w, w.tasks().am_ask())))?;
        m.end()
    }
}

/// The cluster's nodes as `start` lists them.
struct Nodes<'a>(RunView<'a>);

impl Serialize for Nodes<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Node<'a> {
            id: NodeId,
            rack: u32,
            dc: u32,
            map_slots: u32,
            reduce_slots: u32,
            alive: bool,
            capacity: Amount<'a>,
        }
        let cap = self.0.capacity();
        s.collect_seq(self.0.cluster().nodes.iter().map(|n| Node {
            id: n.id,
            rack: n.rack,
            dc: n.dc,
            map_slots: n.map_slots,
            reduce_slots: n.reduce_slots,
            alive: n.alive,
            capacity: Amount(cap, n.capacity),
        }))
    }
}

#[derive(Serialize)]
struct Start<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    seq: u64,
    protocol: u32,
    time_ms: Ms,
    slot_model: &'a str,
    slowstart: f64,
    seed: u64,
    heartbeat_ms: Option<Ms>,
    pools: Vec<serde_json::Value>,
    nodes: Nodes<'a>,
}

/// `start`, which asks for the `hello` (sequence number 0).
pub fn start(buf: &mut Vec<u8>, w: RunView<'_>, slowstart: f64) {
    let yarn = w.capacity().app_masters();
    let msg = Start {
        kind: "start",
        seq: 0,
        protocol: 2,
        time_ms: w.now(),
        slot_model: w.capacity().name(),
        slowstart,
        seed: w.seed(),
        heartbeat_ms: w.heartbeat_interval(),
        pools: w.pools().iter().map(|p| p.resolved(yarn)).collect(),
        nodes: Nodes(w),
    };
    write_any(buf, &msg);
}

#[derive(Serialize)]
struct JobSubmitted<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    time_ms: Ms,
    job: Submitted<'a>,
}

pub fn job_submitted(buf: &mut Vec<u8>, w: RunView<'_>, j: JobId) {
    let msg = JobSubmitted {
        kind: "job_submitted",
        time_ms: w.now(),
        job: Submitted { w, j, v2: true },
    };
    write_any(buf, &msg);
}

/// One attempt or job task as `task_started` and `task_finished` name it.
struct Run {
    job: JobId,
    kind: &'static str,
    task: u32,
    attempt: u32,
    node: NodeId,
    start: Ms,
    speculative: bool,
    ask: Resource,
    /// A set-up or clean-up task on typed slots: the kind of slot it took.
    slot: Option<Kind>,
}

impl Run {
    fn attempt(w: RunView<'_>, a: AttemptId) -> Run {
        let at = &w.attempts()[a as usize];
        Run {
            job: at.job,
            kind: kind_name(at.kind),
            task: at.task,
            attempt: at.attempt,
            node: at.node,
            start: at.start,
            speculative: at.speculative,
            ask: at.ask,
            slot: None,
        }
    }

    fn job_task(t: &JobTaskRun) -> Run {
        Run {
            job: t.job,
            kind: job_task_kind(t.kind),
            task: 0,
            attempt: u32::from(t.attempt),
            node: t.node,
            start: t.start,
            speculative: false,
            ask: t.ask,
            slot: (t.kind != JobTaskKind::Am).then_some(t.slot_kind),
        }
    }
}

fn kind_name(k: Kind) -> &'static str {
    match k {
        Kind::Map => "map",
        Kind::Reduce => "reduce",
    }
}

fn job_task_kind(k: JobTaskKind) -> &'static str {
    match k {
        JobTaskKind::Setup => "setup",
        JobTaskKind::Cleanup => "cleanup",
        JobTaskKind::Am => "am",
    }
}

#[derive(Serialize)]
struct TaskStarted {
    #[serde(rename = "type")]
    kind_: &'static str,
    time_ms: Ms,
    job: JobId,
    kind: &'static str,
    task: u32,
    attempt: u32,
    node: NodeId,
    speculative: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    slot: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    container: Option<Container>,
}

fn started(buf: &mut Vec<u8>, w: RunView<'_>, r: Run) {
    let typed = !w.capacity().kinds_share();
    let msg = TaskStarted {
        kind_: "task_started",
        time_ms: w.now(),
        job: r.job,
        kind: r.kind,
        task: r.task,
        attempt: r.attempt,
        node: r.node,
        speculative: r.speculative,
        slot: r.slot.filter(|_| typed).map(kind_name),
        container: w
            .capacity()
            .sized_containers()
            .then(|| Container::of(r.ask)),
    };
    write_any(buf, &msg);
}

/// `task_started` for attempt `a`.
pub fn task_started(buf: &mut Vec<u8>, w: RunView<'_>, a: AttemptId) {
    started(buf, w, Run::attempt(w, a));
}

/// `task_started` for job task `t` (set-up, clean-up, ApplicationMaster).
pub fn job_task_started(buf: &mut Vec<u8>, w: RunView<'_>, t: u32) {
    started(buf, w, Run::job_task(&w.job_tasks()[t as usize]));
}

#[derive(Serialize)]
struct TaskFinished<'a> {
    #[serde(rename = "type")]
    kind_: &'static str,
    time_ms: Ms,
    job: JobId,
    kind: &'static str,
    task: u32,
    node: NodeId,
    outcome: &'a str,
    pending: bool,
    speculative: bool,
    attempt: u32,
    start_ms: Ms,
}

fn finished(buf: &mut Vec<u8>, w: RunView<'_>, r: Run, outcome: &str, pending: bool) {
    let msg = TaskFinished {
        kind_: "task_finished",
        time_ms: w.now(),
        job: r.job,
        kind: r.kind,
        task: r.task,
        node: r.node,
        outcome,
        pending,
        speculative: r.speculative,
        attempt: r.attempt,
        start_ms: r.start,
    };
    write_any(buf, &msg);
}

/// `task_finished` for attempt `a`, which ended with `outcome`.
pub fn task_finished(buf: &mut Vec<u8>, w: RunView<'_>, a: AttemptId, outcome: &str) {
    let at = &w.attempts()[a as usize];
    let job = w.job(at.job);
    let state = match at.kind {
        Kind::Map => job.maps[at.task as usize].state,
        Kind::Reduce => job.reduces[at.task as usize].state,
    };
    finished(
        buf,
        w,
        Run::attempt(w, a),
        outcome,
        state == TaskState::Pending,
    );
}

/// `task_finished` for job task `t`.
pub fn job_task_finished(buf: &mut Vec<u8>, w: RunView<'_>, t: u32) {
    let run = &w.job_tasks()[t as usize];
    let outcome = match run.outcome {
        crate::sim::Outcome::Failed => "failed",
        crate::sim::Outcome::Killed => "killed",
        _ => "succeeded",
    };
    finished(buf, w, Run::job_task(run), outcome, false);
}

/// The attempts running on `node` and the job tasks there: job tasks
/// first, then attempts, each in the order they started.
fn running_on(w: RunView<'_>, node: NodeId) -> Vec<Run> {
    let mut out: Vec<Run> = w
        .running_job_tasks()
        .iter()
        .map(|&t| &w.job_tasks()[t as usize])
        .filter(|t| t.node == node)
        .map(Run::job_task)
        .collect();
    let mut attempts: Vec<AttemptId> = w.node(node).lanes.iter().flatten().copied().collect();
    attempts.sort_unstable();
    out.extend(attempts.into_iter().map(|a| Run::attempt(w, a)));
    out
}

/// Every attempt running now, in the order they started (for a policy
/// switched in mid-run).
pub fn running_attempts(w: RunView<'_>) -> Vec<AttemptId> {
    let mut out: Vec<AttemptId> = w
        .cluster()
        .nodes
        .iter()
        .flat_map(|n| n.lanes.iter().flatten().copied())
        .collect();
    out.sort_unstable();
    out
}

struct Running(Vec<Run>);

impl Serialize for Running {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Entry {
            job: JobId,
            kind: &'static str,
            task: u32,
            attempt: u32,
            start_ms: Ms,
        }
        s.collect_seq(self.0.iter().map(|r| Entry {
            job: r.job,
            kind: r.kind,
            task: r.task,
            attempt: r.attempt,
            start_ms: r.start,
        }))
    }
}

/// On YARN, one job's requests as the ResourceManager sees them: the
/// containers its ApplicationMaster asks for now.
#[derive(Serialize)]
struct Request {
    job: JobId,
    map: u32,
    reduce: u32,
}

/// The requests of job `j`'s ApplicationMaster: none while it is not up
/// (starting, or lost with its node); its pending maps; the reduces it
/// has asked for (`RMContainerAllocator` ramps them up as maps finish and
/// headroom allows).
fn request(w: RunView<'_>, j: JobId) -> Request {
    let job = w.job(j);
    let up = job.runnable && job.am_ready.is_some() && !job.is_done();
    Request {
        job: j,
        map: if up { job.maps_pending } else { 0 },
        reduce: if up {
            job.reduce_asks.min(job.reduces_pending)
        } else {
            0
        },
    }
}

#[derive(Serialize)]
struct HeartbeatMsg<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    seq: u64,
    time_ms: Ms,
    node: NodeId,
    free: Amount<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    early_reduce_room: Option<u32>,
    running: Running,
    #[serde(skip_serializing_if = "Option::is_none")]
    requests: Option<Vec<Request>>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    inspect: bool,
}

/// A heartbeat, request `seq`; on YARN with the requests of the jobs the
/// policy knows (`known`, in id order) that ask for anything.
pub fn heartbeat(buf: &mut Vec<u8>, hb: &Heartbeat<'_>, seq: u64, known: &[JobId]) {
    let w = hb.view();
    let cap = w.capacity();
    let yarn = cap.app_masters();
    let early_reduce_room = (cap.kinds_share() && !yarn)
        .then(|| (w.cluster().total_slots() / 2).saturating_sub(w.early_reduces()));
    let requests = yarn.then(|| {
        known
            .iter()
            .map(|&j| request(w, j))
            .filter(|r| r.map > 0 || r.reduce > 0)
            .collect()
    });
    let msg = HeartbeatMsg {
        kind: "heartbeat",
        seq,
        time_ms: w.now(),
        node: hb.node,
        free: Amount(cap, hb.node().free()),
        early_reduce_room,
        running: Running(running_on(w, hb.node)),
        requests,
        inspect: hb.inspecting,
    };
    write_any(buf, &msg);
}

/// Whether `line` is the reply to request `expected`: a JSON object whose
/// `seq` is it. Checked before anything else in the line, so that a line
/// written unasked is never taken for a reply.
pub fn check_seq(line: &str, expected: u64) -> Result<(), ReplyError> {
    #[derive(serde::Deserialize)]
    struct SeqOnly {
        #[serde(default)]
        seq: Option<serde_json::Value>,
    }
    let got = serde_json::from_str::<SeqOnly>(line)
        .ok()
        .and_then(|s| s.seq);
    match got {
        None => Err(ReplyError::NoSeq {
            expected,
            line: clip(line),
        }),
        Some(v) if v.as_u64() == Some(expected) => Ok(()),
        Some(v) => Err(ReplyError::WrongSeq {
            expected,
            got: v.to_string(),
            line: clip(line),
        }),
    }
}

/// The longest name or version a `hello` may give.
const HELLO_MAX_CHARS: usize = 64;

/// What a policy says of itself in its `hello`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hello {
    pub name: String,
    pub version: String,
}

/// Reads the reply to `start`.
pub fn hello(line: &str) -> Result<Hello, ReplyError> {
    #[derive(serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Line {
        #[serde(rename = "type")]
        kind: String,
        #[allow(dead_code)]
        seq: u64,
        name: String,
        version: String,
    }
    check_seq(line, 0)?;
    let bad = |detail: String| ReplyError::NotHello {
        detail,
        line: clip(line),
    };
    let h: Line = serde_json::from_str(line).map_err(|e| bad(e.to_string()))?;
    if h.kind != "hello" {
        return Err(bad(format!("\"type\" is {:?}", h.kind)));
    }
    for (key, v) in [("name", &h.name), ("version", &h.version)] {
        let n = v.chars().count();
        if n == 0 || n > HELLO_MAX_CHARS || v.chars().any(char::is_control) {
            return Err(bad(format!(
                "{key} must be 1 to {HELLO_MAX_CHARS} printable characters"
            )));
        }
    }
    Ok(Hello {
        name: h.name,
        version: h.version,
    })
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Reply {
    #[allow(dead_code)]
    seq: u64,
    #[serde(default)]
    launch: Vec<Launch2>,
    #[serde(default)]
    preempt: Vec<Preempt>,
    #[serde(default)]
    speculate: Vec<Speculate>,
    #[serde(default)]
    inspect: Option<InspectReply>,
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Launch2 {
    job: u64,
    kind: LaunchKind,
    #[serde(default)]
    task: Option<u64>,
    #[serde(default)]
    rule: Option<String>,
    #[serde(default)]
    container: Option<ContainerReply>,
}

#[derive(Clone, Copy, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct ContainerReply {
    memory_mb: i64,
    vcores: i64,
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Preempt {
    job: u64,
    kind: LaunchKind,
    task: u64,
    attempt: u64,
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Speculate {
    job: u64,
    kind: LaunchKind,
    task: u64,
    #[serde(default)]
    rule: Option<String>,
    #[serde(default)]
    container: Option<ContainerReply>,
}

/// Applies the reply to heartbeat `seq`: its preemptions, then its
/// launches, then its speculative copies, each in order; returns the
/// inspection it carried, or what is wrong with it (what came before the
/// wrong entry stands: the run stops there anyway).
pub fn apply(
    line: &str,
    seq: u64,
    hb: &mut Heartbeat<'_>,
    slowstart: f64,
    known: impl Fn(JobId) -> bool,
) -> Result<Option<Inspection>, ReplyError> {
    check_seq(line, seq)?;
    let reply: Reply = serde_json::from_str(line).map_err(|e| ReplyError::NotProtocol {
        protocol: 2,
        detail: e.to_string(),
        line: clip(line),
    })?;
    let inspection = reply.inspect.map(inspection).transpose()?;
    for (i, p) in reply.preempt.iter().enumerate() {
        preempt(hb, i + 1, p, &known)?;
    }
    let yarn = hb.capacity().app_masters();
    for (i, l) in reply.launch.iter().enumerate() {
        if yarn {
            start_app_masters(hb, Some(l.job));
            launch_container(hb, i + 1, l, &known)?;
        } else {
            if l.container.is_some() {
                return Err(entry(
                    "launch",
                    i + 1,
                    "gives a container, which only slot_model = \"yarn\" has".into(),
                ));
            }
            let slot = Launch {
                job: l.job,
                kind: l.kind,
                task: l.task,
                rule: l.rule.clone(),
            };
            launch_slot(hb, i, &slot, slowstart, &known)?;
        }
    }
    for (i, s) in reply.speculate.iter().enumerate() {
        speculate(hb, i + 1, s, &known)?;
    }
    Ok(inspection)
}

fn entry(part: &'static str, n: usize, what: String) -> ReplyError {
    ReplyError::Entry { part, n, what }
}

/// The job an entry names, if the policy knows it.
fn known_job(
    w: RunView<'_>,
    part: &'static str,
    n: usize,
    job: u64,
    known: &impl Fn(JobId) -> bool,
) -> Result<JobId, ReplyError> {
    match JobId::try_from(job) {
        Ok(j) if (j as usize) < w.jobs().len() && known(j) => Ok(j),
        _ => Err(entry(
            part,
            n,
            format!("names job {job}, which it was never told of"),
        )),
    }
}

/// The running attempts of task `task` of `kind` in job `j`.
fn live(
    w: RunView<'_>,
    part: &'static str,
    n: usize,
    j: JobId,
    kind: LaunchKind,
    task: u64,
) -> Result<(u32, Vec<AttemptId>), ReplyError> {
    let job = w.job(j);
    let k = kind.as_str();
    let t = u32::try_from(task).ok();
    let live = t.and_then(|t| match kind {
        LaunchKind::Map => job.maps.get(t as usize).map(|m| m.live.to_vec()),
        LaunchKind::Reduce => job.reduces.get(t as usize).map(|r| r.live.to_vec()),
    });
    match (t, live) {
        (Some(t), Some(l)) => Ok((t, l)),
        _ => Err(entry(
            part,
            n,
            format!("names {k} {task} of job {j}, which has no such {k}"),
        )),
    }
}

fn preempt(
    hb: &mut Heartbeat<'_>,
    n: usize,
    p: &Preempt,
    known: &impl Fn(JobId) -> bool,
) -> Result<(), ReplyError> {
    let w = hb.view();
    let j = known_job(w, "preempt", n, p.job, known)?;
    let (t, live) = live(w, "preempt", n, j, p.kind, p.task)?;
    let a = live
        .into_iter()
        .find(|&a| u64::from(w.attempts()[a as usize].attempt) == p.attempt)
        .ok_or_else(|| {
            entry(
                "preempt",
                n,
                format!(
                    "names attempt {} of {} {t} of job {j}, which is not running",
                    p.attempt,
                    p.kind.as_str()
                ),
            )
        })?;
    hb.preempt(a);
    Ok(())
}

/// The container a task of `ask` gets on YARN: the reply's, if it gives
/// one and it holds the task, else its ask normalised.
fn container(
    w: RunView<'_>,
    part: &'static str,
    n: usize,
    ask: Resource,
    given: Option<ContainerReply>,
) -> Result<Resource, ReplyError> {
    let Some(c) = given else {
        return Ok(normalised(w, ask));
    };
    let r = Resource::memory(c.memory_mb, c.vcores);
    let max = max_allocation(w);
    let min = yarn_defaults::MIN_ALLOCATION.mb().max(ask.mb());
    if r.mb() < min || r.mb() > max.mb() || r.vcores() < 0 || r.vcores() > max.vcores() {
        return Err(entry(
            part,
            n,
            format!(
                "gives a container of {} MB and {} vcores; expected {min} to {} MB (the task asks {} MB, the smallest container is {} MB) and 0 to {} vcores",
                r.mb(),
                r.vcores(),
                max.mb(),
                ask.mb(),
                yarn_defaults::MIN_ALLOCATION.mb(),
                max.vcores()
            ),
        ));
    }
    Ok(r)
}

/// Starts the ApplicationMasters waiting for a container, in job-id order,
/// each on the heartbeating node if it fits there; with `before`, only
/// those of jobs older than that one. The engine starts every AM itself,
/// in YARN's FifoScheduler's order: an application's AM after the tasks of
/// the applications submitted before it, before those of the applications
/// after it (so an AM started again after a failure comes before a younger
/// job's launches in the same heartbeat), the rest after the reply.
pub(super) fn start_app_masters(hb: &mut Heartbeat<'_>, before: Option<u64>) {
    if hb.view().awaiting_am().is_empty() {
        return;
    }
    let waiting = hb.view().awaiting_am().to_vec();
    for j in waiting {
        if before.is_some_and(|b| u64::from(j) >= b) {
            break;
        }
        let w = hb.view();
        let res = normalised(w, w.tasks().am_ask());
        if hb.node().admits(hb.capacity(), res) {
            hb.launch_am(j, res);
        }
    }
}

/// Applies launch `n` (1-based) of a reply on YARN: a container for a
/// task its job's ApplicationMaster asks for.
fn launch_container(
    hb: &mut Heartbeat<'_>,
    n: usize,
    l: &Launch2,
    known: &impl Fn(JobId) -> bool,
) -> Result<(), ReplyError> {
    let w = hb.view();
    let node = hb.node;
    let j = launched_job(w, n, l.job, known)?;
    let job = w.job(j);
    let k = l.kind.as_str();
    let rule = rule_of(l.rule.as_deref())?;
    if job.am_ready.is_none() {
        return Err(entry(
            "launch",
            n,
            format!("puts a {k} of job {j} while its ApplicationMaster is not running (it was lost with its node and is starting again): the heartbeat's requests list no {k} of it"),
        ));
    }
    let t = match l.kind {
        LaunchKind::Map => match l.task {
            Some(t) => pending_task(n, "map", j, t, |t| {
                job.maps.get(t as usize).map(|m| m.state)
            })?,
            None => match job.find_map(node, Locality::OffDc, w.cluster()) {
                Some((t, _)) => t,
                None => {
                    return Err(ReplyError::NonePending {
                        launch: n,
                        job: j,
                        kind: "map",
                    })
                }
            },
        },
        LaunchKind::Reduce => {
            // The AM asks for reduces once slowstart allows, and keeps
            // asking when a failure later takes finished maps back: its
            // requests are the gate, as for the built-in YARN schedulers.
            if job.reduce_asks.min(job.reduces_pending) == 0 {
                return Err(entry(
                    "launch",
                    n,
                    format!("starts a reduce of job {j}, which its ApplicationMaster has not asked for (it asks for reduces as maps finish and headroom allows: the heartbeat's requests)"),
                ));
            }
            match l.task {
                Some(t) => pending_task(n, "reduce", j, t, |t| {
                    job.reduces.get(t as usize).map(|r| r.state)
                })?,
                None => match job.find_reduce() {
                    Some(t) => t,
                    None => {
                        return Err(ReplyError::NonePending {
                            launch: n,
                            job: j,
                            kind: "reduce",
                        })
                    }
                },
            }
        }
    };
    let kind = l.kind.kind();
    let ask = match kind {
        Kind::Map => job.map_ask,
        Kind::Reduce => job.reduce_ask,
    };
    let res = container(w, "launch", n, ask, l.container)?;
    if !hb.node().admits(hb.capacity(), res) {
        return Err(entry(
            "launch",
            n,
            format!(
                "puts a {k} of job {j} in a container of {} MB on node {node}, which has {} MB free",
                res.mb(),
                hb.node().free().mb()
            ),
        ));
    }
    hb.launch_container(j, kind, t, res, rule);
    Ok(())
}

fn speculate(
    hb: &mut Heartbeat<'_>,
    n: usize,
    s: &Speculate,
    known: &impl Fn(JobId) -> bool,
) -> Result<(), ReplyError> {
    let w = hb.view();
    let node = hb.node;
    let j = known_job(w, "speculate", n, s.job, known)?;
    let job = w.job(j);
    let k = s.kind.as_str();
    let (t, live) = live(w, "speculate", n, j, s.kind, s.task)?;
    let rule = rule_of(s.rule.as_deref())?;
    let fail = |what: String| Err(entry("speculate", n, what));
    match live.as_slice() {
        [] => return fail(format!("names {k} {t} of job {j}, which is not running")),
        [a] if w.attempts()[*a as usize].node == node => {
            return fail(format!(
                "copies {k} {t} of job {j} onto node {node}, where it runs already"
            ))
        }
        [_] => {}
        _ => {
            return fail(format!(
                "names {k} {t} of job {j}, which runs a speculative copy already (a task runs at most two attempts at once)"
            ))
        }
    }
    let kind = s.kind.kind();
    let cap = *hb.capacity();
    let ask = if cap.sized_containers() {
        if job.am_ready.is_none() {
            return fail(format!(
                "copies {k} {t} of job {j} while its ApplicationMaster is not running"
            ));
        }
        let ask = match kind {
            Kind::Map => job.map_ask,
            Kind::Reduce => job.reduce_ask,
        };
        container(w, "speculate", n, ask, s.container)?
    } else {
        if s.container.is_some() {
            return fail("gives a container, which only slot_model = \"yarn\" has".into());
        }
        cap.slot_ask(kind)
    };
    if !hb.node().admits(&cap, ask) {
        return fail(format!(
            "copies {k} {t} of job {j} onto node {node}, which has no room for it"
        ));
    }
    if kind == Kind::Reduce && !cap.sized_containers() && !w.reduce_allowed(j) {
        return fail(format!(
            "copies a reduce of job {j} before its maps are done while early reduces hold half the containers (early_reduce_room was 0)"
        ));
    }
    hb.launch_speculative_with(j, kind, t, ask, rule);
    Ok(())
}

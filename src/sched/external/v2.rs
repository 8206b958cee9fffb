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

/// `job_submitted` for job `j`; under `"am":"policy"` (`am`) marked
/// `"am":"pending"` while its ApplicationMaster waits for a container.
pub fn job_submitted(buf: &mut Vec<u8>, w: RunView<'_>, j: JobId, am: AmMode) {
    let msg = JobSubmitted {
        kind: "job_submitted",
        time_ms: w.now(),
        job: Submitted {
            w,
            j,
            v2: true,
            am_pending: am == AmMode::Policy && w.awaiting_am().binary_search(&j).is_ok(),
        },
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
/// first, then attempts, each in the order they started; each attempt
/// with its progress.
fn running_on(w: RunView<'_>, node: NodeId) -> Vec<(Run, Option<f64>)> {
    let mut out: Vec<(Run, Option<f64>)> = w
        .running_job_tasks()
        .iter()
        .map(|&t| &w.job_tasks()[t as usize])
        .filter(|t| t.node == node)
        .map(|t| (Run::job_task(t), None))
        .collect();
    let mut attempts: Vec<AttemptId> = w.node(node).lanes.iter().flatten().copied().collect();
    attempts.sort_unstable();
    out.extend(
        attempts
            .into_iter()
            .map(|a| (Run::attempt(w, a), Some(progress_of(w, a)))),
    );
    out
}

/// Attempt `a`'s progress as a TaskTracker or NodeManager reports it
/// (the engine's estimate, which speculation reads), to six decimals.
fn progress_of(w: RunView<'_>, a: AttemptId) -> f64 {
    (crate::sim::speculation::progress(w, a) * 1e6).round() / 1e6
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

struct Running(Vec<(Run, Option<f64>)>);

impl Serialize for Running {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Entry {
            job: JobId,
            kind: &'static str,
            task: u32,
            attempt: u32,
            start_ms: Ms,
            #[serde(skip_serializing_if = "Option::is_none")]
            progress: Option<f64>,
        }
        s.collect_seq(self.0.iter().map(|(r, progress)| Entry {
            job: r.job,
            kind: r.kind,
            task: r.task,
            attempt: r.attempt,
            start_ms: r.start,
            progress: *progress,
        }))
    }
}

/// On YARN, one job's requests as the ResourceManager sees them: the
/// containers its ApplicationMaster asks for now.
#[derive(Serialize)]
struct Request {
    job: JobId,
    /// Under `"am":"policy"`: 1 while its ApplicationMaster waits for a
    /// container.
    #[serde(skip_serializing_if = "is_zero")]
    am: u32,
    map: u32,
    reduce: u32,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// The requests of job `j`'s ApplicationMaster: none while it is not up
/// (starting, or lost with its node); its pending maps; the reduces it
/// has asked for (`RMContainerAllocator` ramps them up as maps finish and
/// headroom allows).
fn request(w: RunView<'_>, j: JobId, am: AmMode) -> Request {
    let job = w.job(j);
    let up = job.runnable && job.am_ready.is_some() && !job.is_done();
    Request {
        job: j,
        am: u32::from(am == AmMode::Policy && w.awaiting_am().binary_search(&j).is_ok()),
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
pub fn heartbeat(buf: &mut Vec<u8>, hb: &Heartbeat<'_>, seq: u64, known: &[JobId], am: AmMode) {
    let w = hb.view();
    let cap = w.capacity();
    let yarn = cap.app_masters();
    let early_reduce_room = (cap.kinds_share() && !yarn)
        .then(|| (w.cluster().total_slots() / 2).saturating_sub(w.early_reduces()));
    let requests = yarn.then(|| {
        known
            .iter()
            .map(|&j| request(w, j, am))
            .filter(|r| r.am > 0 || r.map > 0 || r.reduce > 0)
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

/// Under `"wake":"work"`: whether the heartbeating node's free capacity
/// fits some pending ask of a job the policy knows (`known`): a map in a
/// free map slot, a reduce its slowstart lets start in a free reduce slot
/// (typed slots; either in a free container when unified); on YARN a map
/// or reduce its ApplicationMaster asks for in the node's free memory
/// (a launch may size its container's vcores below the ask, as under
/// Hadoop's DefaultResourceCalculator), or under `"am":"policy"` an AM
/// waiting for a container in its normalised ask. A
/// policy that launches only into free capacity has nothing to do on
/// the other heartbeats.
pub fn work_here(hb: &Heartbeat<'_>, known: impl Fn(JobId) -> bool, am: AmMode) -> bool {
    let w = hb.view();
    let cap = w.capacity();
    if cap.app_masters() {
        let node = hb.node();
        // The smallest container a launch may take (`container`): the
        // ask's memory, at least the minimum allocation, and any vcores.
        let free_mb = node.free().mb();
        let fits = |ask: Resource| free_mb >= ask.mb().max(yarn_defaults::MIN_ALLOCATION.mb());
        if am == AmMode::Policy
            && w.awaiting_am().iter().any(|&j| known(j))
            && node.admits(cap, normalised(w, w.tasks().am_ask()))
        {
            return true;
        }
        return w.active().iter().any(|&j| {
            if !known(j) {
                return false;
            }
            let (r, job) = (request(w, j, am), w.job(j));
            (r.map > 0 && fits(job.map_ask)) || (r.reduce > 0 && fits(job.reduce_ask))
        });
    }
    let (maps, reduces) = (hb.free_maps(), hb.free_reduces());
    if maps == 0 && reduces == 0 {
        return false;
    }
    w.active().iter().any(|&j| {
        let job = w.job(j);
        known(j)
            && ((maps > 0 && job.maps_pending > 0)
                || (reduces > 0 && job.reduces_pending > 0 && w.reduces_schedulable(j)))
    })
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
    /// When it wants to be asked (`"wake"`).
    pub wake: Wake,
    /// Who places YARN's ApplicationMasters (`"am"`).
    pub am: AmMode,
    /// Files it depends on, as it names them (`"files"`).
    pub files: Vec<String>,
}

/// `hello`'s `"wake"`: which heartbeats the policy is asked about.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Wake {
    /// Every heartbeat of a live node (protocol 2's default).
    #[default]
    Every,
    /// Only where the node's free capacity fits a pending ask of a job
    /// the policy knows, or at the first heartbeat at or after the
    /// `call_me_at` of its last reply that gave one.
    Work,
}

/// `hello`'s `"am"` (YARN only): who places ApplicationMasters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AmMode {
    /// The engine, as YARN's FifoScheduler orders them; jobs announced
    /// once their AM runs.
    #[default]
    Engine,
    /// The policy, with launches of kind `am`; jobs announced at
    /// submission.
    Policy,
}

/// The most files a `hello` may name.
const HELLO_MAX_FILES: usize = 64;

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
        #[serde(default)]
        wake: Wake,
        #[serde(default)]
        am: AmMode,
        #[serde(default)]
        files: Vec<String>,
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
    if h.files.len() > HELLO_MAX_FILES {
        return Err(bad(format!(
            "\"files\" names {} files; at most {HELLO_MAX_FILES}",
            h.files.len()
        )));
    }
    if let Some(f) = h
        .files
        .iter()
        .find(|f| f.is_empty() || f.chars().any(char::is_control))
    {
        return Err(bad(format!("\"files\" holds {f:?}, which is not a path")));
    }
    Ok(Hello {
        name: h.name,
        version: h.version,
        wake: h.wake,
        am: h.am,
        files: h.files,
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
    /// Under `"wake":"work"`: ask again at the first heartbeat at or
    /// after this instant, whatever the node holds.
    #[serde(default)]
    call_me_at: Option<Ms>,
}

/// What a launch starts: a task, or (on YARN, under `"am":"policy"`) a
/// job's ApplicationMaster.
#[derive(Clone, Copy, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
enum Launch2Kind {
    Map,
    Reduce,
    Am,
}

impl Launch2Kind {
    fn task(self) -> Option<LaunchKind> {
        match self {
            Launch2Kind::Map => Some(LaunchKind::Map),
            Launch2Kind::Reduce => Some(LaunchKind::Reduce),
            Launch2Kind::Am => None,
        }
    }
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Launch2 {
    job: u64,
    kind: Launch2Kind,
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

/// What a reply asked for besides its decisions.
pub struct Applied {
    pub inspection: Option<Inspection>,
    pub call_me_at: Option<Ms>,
}

/// Applies the reply to heartbeat `seq`: its preemptions, then its
/// launches, then its speculative copies, each in order; returns the
/// inspection it carried and its `call_me_at`, or what is wrong with it
/// (what came before the wrong entry stands: the run stops there anyway).
/// Under `AmMode::Engine` the engine places the ApplicationMasters
/// around the launches; under `AmMode::Policy` the reply does.
pub fn apply(
    line: &str,
    seq: u64,
    hb: &mut Heartbeat<'_>,
    slowstart: f64,
    am: AmMode,
    known: impl Fn(JobId) -> bool,
) -> Result<Applied, ReplyError> {
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
            if am == AmMode::Engine {
                start_app_masters(hb, Some(l.job));
            }
            launch_container(hb, i + 1, l, am, &known)?;
        } else {
            let Some(kind) = l.kind.task() else {
                return Err(entry(
                    "launch",
                    i + 1,
                    "is of kind \"am\": only slot_model = \"yarn\" has ApplicationMasters".into(),
                ));
            };
            if l.container.is_some() {
                return Err(entry(
                    "launch",
                    i + 1,
                    "gives a container, which only slot_model = \"yarn\" has".into(),
                ));
            }
            let slot = Launch {
                job: l.job,
                kind,
                task: l.task,
                rule: l.rule.clone(),
            };
            launch_slot(hb, i, &slot, slowstart, &known)?;
        }
    }
    for (i, s) in reply.speculate.iter().enumerate() {
        speculate(hb, i + 1, s, &known)?;
    }
    Ok(Applied {
        inspection,
        call_me_at: reply.call_me_at,
    })
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

/// Applies launch `n` (1-based) of kind `am` on YARN, job `j`'s
/// ApplicationMaster: allowed under `"am":"policy"`, for a job whose AM
/// waits for a container, in a container that fits the node: the AM's
/// ask normalised, or one the launch sizes as a task's.
fn launch_am(
    hb: &mut Heartbeat<'_>,
    n: usize,
    j: JobId,
    l: &Launch2,
    am: AmMode,
) -> Result<(), ReplyError> {
    if am != AmMode::Policy {
        return Err(entry(
            "launch",
            n,
            format!("starts job {j}'s ApplicationMaster, which the engine places unless the policy's hello says \"am\":\"policy\""),
        ));
    }
    if l.task.is_some() || l.rule.is_some() {
        return Err(entry(
            "launch",
            n,
            "of kind \"am\" gives a task or a rule; an ApplicationMaster has neither".into(),
        ));
    }
    let w = hb.view();
    if w.awaiting_am().binary_search(&j).is_err() {
        return Err(entry(
            "launch",
            n,
            format!("starts job {j}'s ApplicationMaster, which does not wait for a container (it runs or has run: the heartbeat's requests list an \"am\" only while it waits)"),
        ));
    }
    let res = container(w, "launch", n, w.tasks().am_ask(), l.container)?;
    if !hb.node().admits(hb.capacity(), res) {
        let free = hb.node().free();
        return Err(entry(
            "launch",
            n,
            format!("puts job {j}'s ApplicationMaster ({} MB, {} vcores) on node {}, which has {} MB and {} vcores free", res.mb(), res.vcores(), hb.node, free.mb(), free.vcores()),
        ));
    }
    hb.launch_am(j, res);
    Ok(())
}

/// Applies launch `n` (1-based) of a reply on YARN: a container for a
/// task its job's ApplicationMaster asks for.
fn launch_container(
    hb: &mut Heartbeat<'_>,
    n: usize,
    l: &Launch2,
    am: AmMode,
    known: &impl Fn(JobId) -> bool,
) -> Result<(), ReplyError> {
    let w = hb.view();
    let node = hb.node;
    let j = launched_job(w, n, l.job, known)?;
    let job = w.job(j);
    let Some(kind) = l.kind.task() else {
        return launch_am(hb, n, j, l, am);
    };
    let k = kind.as_str();
    let rule = rule_of(l.rule.as_deref())?;
    if job.am_ready.is_none() {
        return Err(entry(
            "launch",
            n,
            format!("puts a {k} of job {j} while its ApplicationMaster is not running (not placed or started yet, or lost with its node): the heartbeat's requests list no {k} of it"),
        ));
    }
    let t = match kind {
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
    let kind = kind.kind();
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

//! Protocol version 1, line by line: the messages slotsim writes (into one
//! reused buffer, without a JSON tree on the heartbeat path) and the reply
//! it reads, checked and applied to the heartbeat.

use crate::model::{JobId, Ms, NodeId};
use crate::sim::policy::{Inspection, Value, Values};
use crate::sim::{AttemptId, Heartbeat, Kind, Locality, TaskState, World};
use std::fmt::Write as _;
use std::time::Duration;

/// A JSON string literal.
fn quoted(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into())
}

pub fn start(buf: &mut String, w: &World, slowstart: f64) {
    buf.clear();
    let model = w.capacity().name();
    let _ = write!(
        buf,
        r#"{{"type":"start","protocol":1,"time_ms":{},"slot_model":"{model}","slowstart":{},"seed":{},"nodes":["#,
        w.now,
        serde_json::Value::from(slowstart),
        w.seed
    );
    for (i, n) in w.cluster.nodes.iter().enumerate() {
        if i > 0 {
            buf.push(',');
        }
        let _ = write!(
            buf,
            r#"{{"id":{i},"rack":{},"dc":{},"map_slots":{},"reduce_slots":{},"alive":{}}}"#,
            n.rack, n.dc, n.map_slots, n.reduce_slots, n.alive
        );
    }
    buf.push_str("]}");
}

/// `job_submitted`, with what is already done or running marked (a policy
/// switched in mid-run hears of the jobs there this way).
pub fn job_submitted(buf: &mut String, w: &World, j: JobId) {
    buf.clear();
    let job = w.job(j);
    let _ = write!(
        buf,
        r#"{{"type":"job_submitted","time_ms":{},"job":{{"id":{j},"name":{},"pool":{},"user":{},"priority":"{}","submit_ms":{},"reduces":{},"maps":["#,
        w.now,
        quoted(&job.name),
        quoted(&w.pools[job.pool as usize].name),
        quoted(&job.user),
        job.priority.as_str(),
        job.submit,
        job.n_reduces()
    );
    for t in 0..job.n_maps() {
        if t > 0 {
            buf.push(',');
        }
        let _ = write!(buf, r#"{{"task":{t},"replicas":["#);
        for (i, r) in job.replicas(t).iter().enumerate() {
            if i > 0 {
                buf.push(',');
            }
            let _ = write!(buf, "{r}");
        }
        buf.push(']');
        match job.maps[t as usize].state {
            TaskState::Pending => {}
            TaskState::Running => buf.push_str(r#","state":"running""#),
            TaskState::Done => buf.push_str(r#","state":"done""#),
        }
        buf.push('}');
    }
    buf.push(']');
    for (key, state) in [
        ("running_reduces", TaskState::Running),
        ("done_reduces", TaskState::Done),
    ] {
        let ids: Vec<String> = (0..job.n_reduces())
            .filter(|&r| job.reduces[r as usize].state == state)
            .map(|r| r.to_string())
            .collect();
        if !ids.is_empty() {
            let _ = write!(buf, r#","{key}":[{}]"#, ids.join(","));
        }
    }
    buf.push_str("}}");
}

pub fn task_finished(buf: &mut String, w: &World, a: AttemptId, outcome: &str) {
    buf.clear();
    let at = &w.attempts[a as usize];
    let job = w.job(at.job);
    let (kind, state) = match at.kind {
        Kind::Map => ("map", job.maps[at.task as usize].state),
        Kind::Reduce => ("reduce", job.reduces[at.task as usize].state),
    };
    let _ = write!(
        buf,
        r#"{{"type":"task_finished","time_ms":{},"job":{},"kind":"{kind}","task":{},"node":{},"outcome":"{outcome}","pending":{},"speculative":{}}}"#,
        w.now,
        at.job,
        at.task,
        at.node,
        state == TaskState::Pending,
        at.speculative
    );
}

pub fn job_finished(buf: &mut String, w: &World, j: JobId) {
    buf.clear();
    let outcome = if w.job(j).killed {
        "killed"
    } else {
        "succeeded"
    };
    let _ = write!(
        buf,
        r#"{{"type":"job_finished","time_ms":{},"job":{j},"outcome":"{outcome}"}}"#,
        w.now
    );
}

pub fn job_updated(buf: &mut String, w: &World, j: JobId) {
    buf.clear();
    let job = w.job(j);
    let _ = write!(
        buf,
        r#"{{"type":"job_updated","time_ms":{},"job":{j},"priority":"{}","pool":{}}}"#,
        w.now,
        job.priority.as_str(),
        quoted(&w.pools[job.pool as usize].name)
    );
}

pub fn node_changed(buf: &mut String, w: &World, node: NodeId, alive: bool) {
    buf.clear();
    let ty = if alive {
        "node_recovered"
    } else {
        "node_failed"
    };
    let _ = write!(
        buf,
        r#"{{"type":"{ty}","time_ms":{},"node":{node}}}"#,
        w.now
    );
}

pub fn end_line(now: Ms) -> String {
    format!(r#"{{"type":"end","time_ms":{now}}}"#)
}

pub fn heartbeat(buf: &mut String, hb: &Heartbeat<'_>) {
    buf.clear();
    let w = hb.world();
    let n = hb.node();
    let _ = write!(
        buf,
        r#"{{"type":"heartbeat","time_ms":{},"node":{},"free":"#,
        w.now, hb.node
    );
    if !w.capacity().kinds_share() {
        let _ = write!(
            buf,
            r#"{{"map":{},"reduce":{}}}"#,
            hb.free_maps(),
            hb.free_reduces()
        );
    } else {
        {
            // How many more reduces of jobs whose maps are not all done
            // may start (early reduces never hold more than half the
            // containers: the engine's rule against a reduce-held deadlock).
            let room = (w.cluster.total_slots() / 2).saturating_sub(w.early_reduces);
            let _ = write!(
                buf,
                r#"{{"any":{}}},"early_reduce_room":{room}"#,
                hb.free_maps()
            );
        }
    }
    let _ = write!(
        buf,
        r#","running":{{"map":{},"reduce":{}}}"#,
        n.running_maps, n.running_reduces
    );
    if hb.inspecting {
        buf.push_str(r#","inspect":true"#);
    }
    buf.push('}');
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
struct Launch {
    job: u64,
    kind: LaunchKind,
    #[serde(default)]
    task: Option<u64>,
    #[serde(default)]
    rule: Option<String>,
}

#[derive(Clone, Copy, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
enum LaunchKind {
    Map,
    Reduce,
}

type JsonMap = serde_json::Map<String, serde_json::Value>;

#[derive(Default, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct InspectReply {
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

/// Applies one reply to the heartbeat, in order; returns the inspection it
/// carried, or what is wrong with it (the launches before the wrong one
/// stand: the run stops there anyway).
pub fn apply(
    line: &str,
    hb: &mut Heartbeat<'_>,
    slowstart: f64,
    known: impl Fn(JobId) -> bool,
) -> Result<Option<Inspection>, String> {
    let reply: Reply = serde_json::from_str(line).map_err(|e| {
        format!(
            "the reply is not what protocol 1 expects ({e}): {}",
            clip(line)
        )
    })?;
    let inspection = reply.inspect.map(inspection).transpose()?;
    for (i, l) in reply.launch.iter().enumerate() {
        launch(hb, i, l, slowstart, &known)?;
    }
    Ok(inspection)
}

fn launch(
    hb: &mut Heartbeat<'_>,
    i: usize,
    l: &Launch,
    slowstart: f64,
    known: &impl Fn(JobId) -> bool,
) -> Result<(), String> {
    let w = hb.world();
    let node = hb.node;
    let here = format!("launch {} of the reply", i + 1);
    let j = match JobId::try_from(l.job) {
        Ok(j) if (j as usize) < w.jobs.len() && known(j) => j,
        _ => {
            return Err(format!(
                "{here} names job {}, which it was never told of",
                l.job
            ))
        }
    };
    let job = w.job(j);
    if job.is_done() {
        return Err(format!(
            "{here} names job {j} ({}), which has finished",
            job.name
        ));
    }
    let unified = w.capacity().kinds_share();
    let rule = l
        .rule
        .as_deref()
        .map(intern)
        .transpose()?
        .unwrap_or("external");
    match l.kind {
        LaunchKind::Map => {
            if hb.free_maps() == 0 {
                return Err(format!(
                    "{here} puts a map of job {j} on node {node}, which has no free {}",
                    if unified { "container" } else { "map slot" }
                ));
            }
            let t = match l.task {
                Some(t) => pending_task(&here, "map", j, t, |t| {
                    job.maps.get(t as usize).map(|m| m.state)
                })?,
                None => match job.find_map(node, Locality::OffDc, &w.cluster) {
                    Some((t, _)) => t,
                    None => return Err(format!("{here}: job {j} has no pending map")),
                },
            };
            hb.launch_map(j, t, rule);
        }
        LaunchKind::Reduce => {
            if hb.free_reduces() == 0 {
                return Err(format!(
                    "{here} puts a reduce of job {j} on node {node}, which has no free {}",
                    if unified { "container" } else { "reduce slot" }
                ));
            }
            if !job.reduces_schedulable(slowstart) {
                return Err(format!(
                    "{here} starts a reduce of job {j} before its slowstart ({} of {} maps done; slowstart {slowstart})",
                    job.maps_done,
                    job.n_maps()
                ));
            }
            let t = match l.task {
                Some(t) => pending_task(&here, "reduce", j, t, |t| {
                    job.reduces.get(t as usize).map(|r| r.state)
                })?,
                None => match job.find_reduce() {
                    Some(t) => t,
                    None => return Err(format!("{here}: job {j} has no pending reduce")),
                },
            };
            if !w.reduce_allowed(j) {
                return Err(format!(
                    "{here} starts a reduce of job {j} before its maps are done while early reduces hold half the containers (early_reduce_room was 0)"
                ));
            }
            hb.launch_reduce(j, t, rule);
        }
    }
    Ok(())
}

/// Task `t` of `kind` in job `j`, if it exists (`state` gives its state)
/// and is pending.
fn pending_task(
    here: &str,
    kind: &str,
    j: JobId,
    t: u64,
    state: impl Fn(u32) -> Option<TaskState>,
) -> Result<u32, String> {
    let task = u32::try_from(t).ok();
    match task.and_then(|t| Some((t, state(t)?))) {
        None => Err(format!(
            "{here} names {kind} {t} of job {j}, which has no such {kind}"
        )),
        Some((t, TaskState::Pending)) => Ok(t),
        Some((t, s)) => {
            let now = if s == TaskState::Running {
                "it is running"
            } else {
                "it has finished"
            };
            Err(format!(
                "{here} names {kind} {t} of job {j}, which is not pending ({now})"
            ))
        }
    }
}

/// The longest rule a reply may give, and how many distinct rules a run may
/// use: rules are kept once for the whole process (the trace stores an
/// index into them).
const RULE_MAX_CHARS: usize = 64;
const RULES_MAX: usize = 1024;

static RULES: std::sync::Mutex<Vec<&'static str>> = std::sync::Mutex::new(Vec::new());

fn intern(rule: &str) -> Result<&'static str, String> {
    if rule.is_empty() || rule.chars().count() > RULE_MAX_CHARS {
        return Err(format!(
            "a launch's rule must be 1 to {RULE_MAX_CHARS} characters, got {}",
            clip(rule)
        ));
    }
    let mut rules = RULES.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(r) = rules.iter().find(|r| **r == rule) {
        return Ok(r);
    }
    if rules.len() >= RULES_MAX {
        return Err(format!(
            "more than {RULES_MAX} distinct rules; a rule names why, not which task"
        ));
    }
    let r: &'static str = Box::leak(rule.to_string().into_boxed_str());
    rules.push(r);
    Ok(r)
}

fn inspection(r: InspectReply) -> Result<Inspection, String> {
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
                return Err(format!("{key}.{name} must be an object of values"));
            };
            into.insert(name.clone(), values(&format!("{key}.{name}"), o)?);
        }
    }
    Ok(out)
}

fn values(key: &str, m: JsonMap) -> Result<Values, String> {
    let mut out = Values::new();
    for (k, v) in m {
        let v = value(&v).ok_or_else(|| {
            format!("{key}.{k}: a value must be a number, a string, a boolean or null")
        })?;
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
}

impl Stats {
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
    }
}

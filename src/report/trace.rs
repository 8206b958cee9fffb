//! `--trace` (one JSON line per task attempt) and `--inspect` (one JSON line
//! per heartbeat on which the policy was asked for work).

use crate::sim::jobtask::{JobTaskKind, JobTaskRun};
use crate::sim::policy::{Value, Values};
use crate::sim::{InspectRecord, Kind, Sim};
use serde_json::json;
use std::io::{self, Write};

/// Writes every attempt, in launch order, with each job's set-up and
/// clean-up tasks where they were launched among them.
pub fn write_trace(sim: &Sim, out: &mut dyn Write) -> io::Result<()> {
    let w = sim.view();
    let mut job_tasks = w.job_tasks().iter().peekable();
    for (i, at) in w.attempts().iter().enumerate() {
        while let Some(t) = job_tasks.next_if(|t| t.seq as usize <= i) {
            write_job_task(sim, t, out)?;
        }
        let node = w.node(at.node);
        let job = w.job(at.job);
        let p = if at.kind == Kind::Map { 'm' } else { 'r' };
        let mut line = json!({
            "job": &*job.name,
            "task": format!("{p}{}", at.task),
            "kind": at.kind,
            "attempt": at.attempt,
            "node": at.node,
            "rack": node.rack,
            "dc": w.cluster().dcs[node.dc as usize].name,
            "start_s": at.start as f64 / 1000.0,
            "end_s": at.end().map(|e| e as f64 / 1000.0),
            "locality": at.locality.map(|l| l.as_str()),
            "speculative": at.speculative,
            "outcome": at.outcome,
            "policy": w.labels()[at.policy as usize],
            "rule": w.rule(at),
            "startup_s": at.times.startup as f64 / 1000.0,
            "read_s": at.times.read as f64 / 1000.0,
            "compute_s": at.times.compute as f64 / 1000.0,
            "shuffle_s": at.times.shuffle as f64 / 1000.0,
        });
        with_container(sim, &mut line, at.ask);
        serde_json::to_writer(&mut *out, &line)?;
        out.write_all(b"\n")?;
    }
    for t in job_tasks {
        write_job_task(sim, t, out)?;
    }
    Ok(())
}

/// A set-up or clean-up task's line, with the keys of an attempt's (the
/// trace's contract): the engine runs it, under the policy in force then,
/// its whole time counted as start-up.
fn write_job_task(sim: &Sim, t: &JobTaskRun, out: &mut dyn Write) -> io::Result<()> {
    let w = sim.view();
    let node = w.node(t.node);
    let (task, rule) = match t.kind {
        JobTaskKind::Setup => ("setup", "hadoop/job-setup"),
        JobTaskKind::Cleanup => ("cleanup", "hadoop/job-cleanup"),
        JobTaskKind::Am => ("am", "yarn/application-master"),
    };
    let mut took = t.end.map_or(0, |e| e - t.start) as f64 / 1000.0;
    // An AM's start-up ends at its first allocate call; it then runs its job.
    if let Some(ready) = w.job(t.job).am_ready.filter(|&r| r >= t.start) {
        if t.kind == JobTaskKind::Am && t.end.is_none_or(|e| e >= ready) {
            took = (ready - t.start) as f64 / 1000.0;
        }
    }
    let mut line = json!({
        "job": &*w.job(t.job).name,
        "task": task,
        "kind": t.kind,
        "attempt": t.attempt,
        "node": t.node,
        "rack": node.rack,
        "dc": w.cluster().dcs[node.dc as usize].name,
        "start_s": t.start as f64 / 1000.0,
        "end_s": t.end.map(|e| e as f64 / 1000.0),
        "locality": null,
        "speculative": false,
        "outcome": t.outcome,
        "policy": w.labels()[t.policy as usize],
        "rule": rule,
        "startup_s": took,
        "read_s": 0.0,
        "compute_s": 0.0,
        "shuffle_s": 0.0,
    });
    with_container(sim, &mut line, t.ask);
    serde_json::to_writer(&mut *out, &line)?;
    out.write_all(b"\n")
}

/// On YARN a trace line gives the container its task held, after its
/// `outcome` (the trace's contract: docs/outputs.md).
fn with_container(sim: &Sim, line: &mut serde_json::Value, ask: crate::model::Resource) {
    if !sim.view().capacity().sized_containers() {
        return;
    }
    let Some(old) = line.as_object_mut().map(std::mem::take) else {
        return;
    };
    let mut new = serde_json::Map::with_capacity(old.len() + 1);
    for (k, v) in old {
        let outcome = k == "outcome";
        new.insert(k, v);
        if outcome {
            let c = json!({ "memory_mb": ask.mb(), "vcores": ask.vcores() });
            new.insert("container".into(), c);
        }
    }
    *line = serde_json::Value::Object(new);
}

/// `--flows`: every disk and link with its capacity (MB/s), then one line
/// per flow in order of start, with what it moved (a cancelled flow moved
/// less than it asked for, and ended when it was cancelled).
pub fn write_flows(sim: &Sim, out: &mut dyn Write) -> io::Result<()> {
    let w = sim.view();
    let n = w.links().count() as usize;
    let mut links = serde_json::Map::new();
    for (r, res) in w.net().resources.iter().enumerate().take(n) {
        links.insert(w.links().name(r as u32), json!(res.capacity));
    }
    serde_json::to_writer(&mut *out, &json!({ "links": links }))?;
    out.write_all(b"\n")?;
    for rec in w.flow_log().into_iter().flat_map(|l| l.iter()) {
        let at = &w.attempts()[rec.attempt as usize];
        let p = if at.kind == Kind::Map { 'm' } else { 'r' };
        let line = json!({
            "id": rec.seq,
            "kind": rec.kind.as_str(),
            "job": &*w.job(at.job).name,
            "task": format!("{p}{}", at.task),
            "src": rec.src,
            "dst": rec.dst,
            "bytes": (rec.mb * 1_048_576.0).round() as u64,
            "start_s": rec.start / 1000.0,
            "end_s": rec.end.map(|e| e / 1000.0),
            "links": rec.links.iter().map(|&r| w.links().name(r)).collect::<Vec<_>>(),
        });
        serde_json::to_writer(&mut *out, &line)?;
        out.write_all(b"\n")?;
    }
    Ok(())
}

/// One inspect line.
pub fn inspect_line(rec: &InspectRecord) -> String {
    let v = json!({
        "t_s": rec.t as f64 / 1000.0,
        "node": rec.node,
        "policy": rec.policy,
        "cluster": values_json(&rec.inspection.cluster),
        "pools": named_json(&rec.inspection.pools),
        "jobs": named_json(&rec.inspection.jobs),
        "assigned": rec.assigned,
    });
    v.to_string()
}

/// A policy's value as JSON (numbers that are not finite are null).
pub fn value_json(v: &Value) -> serde_json::Value {
    match v {
        Value::Null => serde_json::Value::Null,
        Value::Bool(b) => (*b).into(),
        Value::Int(i) => (*i).into(),
        Value::Num(x) => serde_json::Number::from_f64(*x)
            .map_or(serde_json::Value::Null, serde_json::Value::Number),
        Value::Text(s) => s.clone().into(),
        Value::List(xs) => xs.iter().map(value_json).collect(),
        Value::Map(m) => values_json(m),
    }
}

/// Named values as a JSON object, in the policy's order.
pub fn values_json(vs: &Values) -> serde_json::Value {
    serde_json::Value::Object(
        vs.iter()
            .map(|(k, v)| (k.to_string(), value_json(v)))
            .collect(),
    )
}

fn named_json(m: &std::collections::BTreeMap<String, Values>) -> serde_json::Value {
    serde_json::Value::Object(m.iter().map(|(k, v)| (k.clone(), values_json(v))).collect())
}

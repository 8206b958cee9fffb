//! Rumen job traces: the JSON Hadoop's Rumen extracts from JobTracker
//! history, which Mumak and YARN's SLS replay. A trace is a sequence of job
//! objects (one after another, not an array); each has its submit and
//! finish times, its map and reduce tasks, and each task's attempts with
//! their host (`/rack/host`), start and finish times and result, and the
//! task's preferred (input split) locations.
//!
//! The trace is read as a stream, one job object at a time, so a history of
//! several GB is never held as text. A malformed job is an error naming the
//! JSON path inside it and its line and column in the file.
//!
//! Hosts become node ids in the order the trace first names them (in a
//! task's preferred locations or an attempt's host); a trace naming more
//! hosts than the cluster has nodes is an error. With `replay = "recorded"`
//! each task runs for its successful attempt's recorded time (a reduce for
//! its time after the copy, which the cluster model simulates); with
//! `"model"` the cluster model derives every time from the job's sizes.
//! Either way the job keeps its recorded completion time, so the summary can
//! put the simulated one beside it.

use crate::model::{JobSpec, Ms, NodeId, Priority, Profile, Recorded};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::io::{self, BufRead, Read};

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RJob {
    #[serde(rename = "jobID", default)]
    job_id: Option<String>,
    #[serde(default)]
    job_name: Option<String>,
    #[serde(default)]
    user: Option<String>,
    #[serde(default)]
    queue: Option<String>,
    submit_time: i64,
    finish_time: i64,
    #[serde(default)]
    map_tasks: Vec<RTask>,
    #[serde(default)]
    reduce_tasks: Vec<RTask>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RTask {
    #[serde(default)]
    attempts: Vec<RAttempt>,
    #[serde(default)]
    preferred_locations: Vec<RLocation>,
    #[serde(default)]
    input_bytes: i64,
    #[serde(default)]
    output_bytes: i64,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RAttempt {
    #[serde(default)]
    host_name: Option<String>,
    start_time: i64,
    finish_time: i64,
    #[serde(default)]
    result: Option<String>,
    #[serde(default = "minus_one")]
    shuffle_finished: i64,
}

#[derive(Deserialize)]
struct RLocation {
    #[serde(default)]
    layers: Vec<String>,
}

fn minus_one() -> i64 {
    -1
}

/// A task's successful attempt, else its last.
fn done(t: &RTask) -> Option<&RAttempt> {
    t.attempts
        .iter()
        .rev()
        .find(|a| a.result.as_deref() == Some("SUCCESS"))
        .or(t.attempts.last())
}

/// How a replayed job's tasks get their times.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Replay {
    /// Each task for its recorded time.
    Recorded,
    /// From sizes and the cluster model.
    Model,
}

/// A validated `kind = "rumen"` workload.
#[derive(Clone, Debug)]
pub struct RumenParams {
    pub replay: Replay,
    pub limit: Option<u32>,
    pub time_scale: f64,
    /// Compute costs for `replay = "model"` (and the shuffle ratio where the
    /// trace has no map output sizes).
    pub profile: Profile,
    /// The scenario's pools: a job goes to the pool named as its queue, if
    /// there is one, else to `default`.
    pub pools: Vec<String>,
    pub node_count: u32,
}

/// A trace position and message.
pub type TraceError = (usize, usize, String);

/// A reader that knows the line and column of the next byte.
struct Counted<R> {
    inner: R,
    line: usize,
    col: usize,
}

impl<R> Counted<R> {
    fn count(&mut self, bytes: &[u8]) {
        for &b in bytes {
            if b == b'\n' {
                self.line += 1;
                self.col = 1;
            } else {
                self.col += 1;
            }
        }
    }
}

impl<R: BufRead> Read for Counted<R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(out)?;
        self.count(&out[..n]);
        Ok(n)
    }
}

const MB: f64 = 1024.0 * 1024.0;

/// Reads a Rumen trace from `r` into jobs.
pub fn read<R: BufRead>(r: R, p: &RumenParams) -> Result<Vec<JobSpec>, TraceError> {
    let mut r = Counted {
        inner: r,
        line: 1,
        col: 1,
    };
    let mut hosts: BTreeMap<String, NodeId> = BTreeMap::new();
    let mut first_submit: Option<i64> = None;
    let mut out = Vec::new();
    loop {
        if p.limit.is_some_and(|l| out.len() as u32 >= l) {
            break;
        }
        // Skip the whitespace between job objects; stop at the end.
        let buf = r
            .inner
            .fill_buf()
            .map_err(|e| (r.line, r.col, format!("cannot read the trace: {e}")))?;
        let Some(&b) = buf.first() else { break };
        if b.is_ascii_whitespace() {
            r.count(&[b]);
            r.inner.consume(1);
            continue;
        }
        let (line, col) = (r.line, r.col);
        let mut de = serde_json::Deserializer::from_reader(&mut r);
        let job: RJob = serde_path_to_error::deserialize(&mut de).map_err(|e| {
            let inner = e.inner();
            let (l, c) = (inner.line(), inner.column());
            let at = (line + l - 1, if l == 1 { col + c - 1 } else { c.max(1) });
            let msg = inner.to_string();
            let msg = msg
                .rfind(" at line ")
                .map_or(msg.as_str(), |i| &msg[..i])
                .replace("expected i64", "expected a whole number (ms or bytes)")
                .replace("struct RJob", "a job object")
                .replace("struct RTask", "a task object")
                .replace("struct RAttempt", "an attempt object")
                .replace("struct RLocation", "a location object");
            let path = e.path().to_string();
            let path = if path == "." { "the job".into() } else { path };
            (
                at.0,
                at.1,
                format!(
                    "job {}: {path}: {msg}; expected a Rumen job object",
                    out.len() + 1
                ),
            )
        })?;
        out.push(convert(
            job,
            p,
            &mut hosts,
            &mut first_submit,
            (line, col),
            out.len(),
        )?);
    }
    Ok(out)
}

fn convert(
    j: RJob,
    p: &RumenParams,
    hosts: &mut BTreeMap<String, NodeId>,
    first_submit: &mut Option<i64>,
    (line, col): (usize, usize),
    index: usize,
) -> Result<JobSpec, TraceError> {
    let err = |m: String| (line, col, format!("job {}: {m}", index + 1));
    let t0 = *first_submit.get_or_insert(j.submit_time);
    if j.submit_time < t0 {
        return Err(err(format!(
            "submitted at {} ms, before the trace's first job ({t0} ms); expected jobs in submission order",
            j.submit_time
        )));
    }
    if j.finish_time < j.submit_time {
        return Err(err("finishes before it is submitted".into()));
    }
    if j.map_tasks.is_empty() {
        return Err(err("has no map tasks".into()));
    }
    if j.map_tasks.len() > 1_000_000 || j.reduce_tasks.len() > 1_000_000 {
        return Err(err("has more than 1000000 tasks of a kind".into()));
    }
    let mut node_of = |host: &str| -> Result<NodeId, TraceError> {
        // `/rack/host` or a bare host name.
        let name = host.rsplit('/').next().unwrap_or(host).to_string();
        let next = hosts.len() as NodeId;
        let id = *hosts.entry(name.clone()).or_insert(next);
        if id >= p.node_count {
            return Err(err(format!(
                "host {name} is the trace's host number {}, but the cluster has {} node{} (give [cluster] at least as many nodes as the trace has hosts)",
                id + 1,
                p.node_count,
                if p.node_count == 1 { "" } else { "s" }
            )));
        }
        Ok(id)
    };
    let mut blocks: Vec<Vec<NodeId>> = Vec::new();
    let mut located = true;
    for t in &j.map_tasks {
        let mut replicas = Vec::new();
        for l in &t.preferred_locations {
            if let Some(h) = l.layers.last() {
                let n = node_of(h)?;
                if !replicas.contains(&n) {
                    replicas.push(n);
                }
            }
        }
        for a in &t.attempts {
            if let Some(h) = &a.host_name {
                node_of(h)?;
            }
        }
        located &= !replicas.is_empty();
        blocks.push(replicas);
    }
    for t in &j.reduce_tasks {
        for a in &t.attempts {
            if let Some(h) = &a.host_name {
                node_of(h)?;
            }
        }
    }
    let ten_years = crate::units::MAX_DURATION_MS as i64;
    let ms = |a: i64, b: i64| -> Result<Ms, TraceError> {
        let d = b.saturating_sub(a);
        if d > ten_years {
            return Err(err(format!(
                "an attempt of {d} ms; expected at most 10 years"
            )));
        }
        Ok(d.max(1) as Ms)
    };
    let (map_ms, reduce_ms) = match p.replay {
        Replay::Model => (Vec::new(), Vec::new()),
        Replay::Recorded => {
            let mut maps = Vec::with_capacity(j.map_tasks.len());
            for (k, t) in j.map_tasks.iter().enumerate() {
                let a = done(t).ok_or_else(|| err(format!("map {k} has no attempt")))?;
                maps.push(ms(a.start_time, a.finish_time)?);
            }
            let mut reduces = Vec::with_capacity(j.reduce_tasks.len());
            for (k, t) in j.reduce_tasks.iter().enumerate() {
                let a = done(t).ok_or_else(|| err(format!("reduce {k} has no attempt")))?;
                // After the copy, which the cluster model simulates.
                let from = if a.shuffle_finished > a.start_time {
                    a.shuffle_finished
                } else {
                    a.start_time
                };
                reduces.push(ms(from, a.finish_time)?);
            }
            (maps, reduces)
        }
    };
    let input: i64 = j.map_tasks.iter().map(|t| t.input_bytes.max(0)).sum();
    let output: i64 = j.map_tasks.iter().map(|t| t.output_bytes.max(0)).sum();
    let input_mb = input as f64 / MB;
    let fp = if j.reduce_tasks.is_empty() {
        0.0
    } else if input > 0 && output > 0 {
        output as f64 / input as f64
    } else {
        p.profile.fp
    };
    let id_tail = j
        .job_id
        .as_deref()
        .and_then(|id| id.rsplit('_').next())
        .unwrap_or("");
    let base = j.job_name.as_deref().unwrap_or("job").replace('/', "_");
    let name = if id_tail.is_empty() {
        format!("{base}-{}", index + 1)
    } else {
        format!("{base}-{id_tail}")
    };
    let pool = j
        .queue
        .filter(|q| p.pools.contains(q))
        .unwrap_or_else(|| "default".into());
    let submit = (j.submit_time.saturating_sub(t0) as f64 * p.time_scale).round();
    if submit > ten_years as f64 {
        return Err(err(format!(
            "submitted {submit:.0} ms after the trace's first job; expected at most 10 years"
        )));
    }
    let submit = submit as Ms;
    Ok(JobSpec {
        name,
        profile: p.profile.clone(),
        input_mb,
        maps: j.map_tasks.len() as u32,
        reduces: j.reduce_tasks.len() as u32,
        submit,
        pool,
        user: j.user.unwrap_or_else(|| "user".into()),
        priority: Priority::Normal,
        map_time: None,
        reduce_time: None,
        fp,
        blocks: located.then_some(blocks),
        recorded: Some(Box::new(Recorded {
            map_ms,
            reduce_ms,
            completion_ms: ms(j.submit_time, j.finish_time)?,
        })),
        writer: None,
        output_replication: None,
    })
}

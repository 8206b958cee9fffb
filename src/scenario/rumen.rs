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
//! put the simulated one beside it, and its two delays of its own, which a
//! slot model does not otherwise have: its start-up (submission to its
//! recorded launch: YARN's ApplicationMaster start, Hadoop 1.x's job
//! initialisation), before any task may run, and its commit (its last
//! attempt's end to its recorded finish), before it finishes.

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
    launch_time: Option<i64>,
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
    /// Host name → node id, when the cluster was read from the trace
    /// (`survey`); else hosts take ids in the order the trace names them.
    pub hosts: Option<BTreeMap<String, NodeId>>,
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
    let mut hosts: BTreeMap<String, NodeId> = p.hosts.clone().unwrap_or_default();
    let mut first_submit: Option<i64> = None;
    let mut out = Vec::new();
    each_job(r, p.limit, |job, at, index| {
        out.push(convert(job, p, &mut hosts, &mut first_submit, at, index)?);
        Ok(())
    })?;
    Ok(out)
}

/// The cluster a trace ran on, as far as it shows it: its hosts by rack
/// (`/rack/host`; a bare host name is in `default-rack`), racks and hosts
/// in the order the trace first names them, and the most map and reduce
/// attempts any host ran at once.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Survey {
    pub racks: Vec<(String, Vec<String>)>,
    pub map_slots: u32,
    pub reduce_slots: u32,
}

impl Survey {
    /// Host name → node id: rack by rack, as the cluster numbers its nodes.
    pub fn node_ids(&self) -> BTreeMap<String, NodeId> {
        self.racks
            .iter()
            .flat_map(|(_, hosts)| hosts)
            .enumerate()
            .map(|(i, h)| (h.clone(), i as NodeId))
            .collect()
    }

    pub fn node_count(&self) -> u32 {
        self.racks.iter().map(|(_, h)| h.len() as u32).sum()
    }
}

/// Reads a trace's hosts, racks and per-host concurrency (see `Survey`),
/// over its first `limit` jobs.
pub fn survey<R: BufRead>(r: R, limit: Option<u32>) -> Result<Survey, TraceError> {
    let mut racks: Vec<(String, Vec<String>)> = Vec::new();
    let mut host_at: BTreeMap<String, usize> = BTreeMap::new();
    // Per host: (time, +1 | -1) for map and for reduce attempts.
    let mut spans: Vec<[Vec<(i64, i8)>; 2]> = Vec::new();
    let mut place = |path: &str| -> usize {
        let mut parts = path.trim_matches('/').rsplitn(2, '/');
        let host = parts.next().unwrap_or(path).to_string();
        let rack = parts.next().unwrap_or("default-rack").to_string();
        if let Some(&i) = host_at.get(&host) {
            return i;
        }
        let i = host_at.len();
        host_at.insert(host.clone(), i);
        match racks.iter_mut().find(|(r, _)| *r == rack) {
            Some((_, hosts)) => hosts.push(host),
            None => racks.push((rack, vec![host])),
        }
        i
    };
    each_job(r, limit, |j, _, _| {
        for t in &j.map_tasks {
            for l in &t.preferred_locations {
                if !l.layers.is_empty() {
                    place(&l.layers.join("/"));
                }
            }
        }
        for (kind, tasks) in [(0, &j.map_tasks), (1, &j.reduce_tasks)] {
            for a in tasks.iter().flat_map(|t| &t.attempts) {
                let Some(h) = &a.host_name else { continue };
                let i = place(h);
                if spans.len() <= i {
                    spans.resize_with(i + 1, Default::default);
                }
                if a.finish_time > a.start_time {
                    spans[i][kind].push((a.start_time, 1));
                    spans[i][kind].push((a.finish_time, -1));
                }
            }
        }
        Ok(())
    })?;
    let mut most = |kind: usize| {
        spans
            .iter_mut()
            .map(|s| {
                // Ends before starts at the same instant: a slot handed on.
                s[kind].sort_unstable();
                let (mut now, mut top) = (0i64, 0i64);
                for &(_, d) in &s[kind] {
                    now += i64::from(d);
                    top = top.max(now);
                }
                top
            })
            .max()
            .unwrap_or(0)
            .clamp(1, i64::from(u32::MAX)) as u32
    };
    let (map_slots, reduce_slots) = (most(0), most(1));
    Ok(Survey {
        racks,
        map_slots,
        reduce_slots,
    })
}

/// Calls `f` with each job object of the trace, its line and column, and
/// its index, until the end or `limit` jobs.
fn each_job<R: BufRead>(
    r: R,
    limit: Option<u32>,
    mut f: impl FnMut(RJob, (usize, usize), usize) -> Result<(), TraceError>,
) -> Result<(), TraceError> {
    let mut r = Counted {
        inner: r,
        line: 1,
        col: 1,
    };
    let mut count = 0usize;
    loop {
        if limit.is_some_and(|l| count as u32 >= l) {
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
                    count + 1
                ),
            )
        })?;
        f(job, (line, col), count)?;
        count += 1;
    }
    Ok(())
}

fn convert(
    j: RJob,
    p: &RumenParams,
    hosts: &mut BTreeMap<String, NodeId>,
    first_submit: &mut Option<i64>,
    (line, col): (usize, usize),
    index: usize,
) -> Result<JobSpec, TraceError> {
    let at = JobAt { line, col, index };
    let t0 = *first_submit.get_or_insert(j.submit_time);
    check_job(&j, t0, &at)?;
    let (blocks, located) = place_tasks(&j, p.node_count, hosts, &at)?;
    let (map_ms, reduce_ms) = match p.replay {
        Replay::Model => (Vec::new(), Vec::new()),
        Replay::Recorded => recorded_times(&j, &at)?,
    };
    // The job's own delays: launch after submission (the AM's start-up),
    // finish after its last attempt (the commit). Absent or out of order:
    // none.
    let prep_ms = j
        .launch_time
        .filter(|&l| l > j.submit_time && l <= j.finish_time)
        .map_or(Ok(0), |l| at.ms(j.submit_time, l))?;
    let last_end = j
        .map_tasks
        .iter()
        .chain(&j.reduce_tasks)
        .flat_map(|t| t.attempts.iter().map(|a| a.finish_time))
        .max();
    let commit_ms = last_end
        .filter(|&e| e < j.finish_time)
        .map_or(Ok(0), |e| at.ms(e, j.finish_time))?;
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
    let name = job_name(&j, index);
    let pool = j
        .queue
        .filter(|q| p.pools.contains(q))
        .unwrap_or_else(|| "default".into());
    let submit = (j.submit_time.saturating_sub(t0) as f64 * p.time_scale).round();
    if submit > TEN_YEARS as f64 {
        return Err(at.err(format!(
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
            completion_ms: at.ms(j.submit_time, j.finish_time)?,
            prep_ms,
            commit_ms,
        })),
        writer: None,
        output_replication: None,
        map_container: None,
        reduce_container: None,
    })
}

/// The longest time a trace may hold, in ms.
const TEN_YEARS: i64 = crate::units::MAX_DURATION_MS as i64;

/// Where a job object starts in the trace and its index: errors about it
/// name both.
struct JobAt {
    line: usize,
    col: usize,
    index: usize,
}

impl JobAt {
    fn err(&self, m: String) -> TraceError {
        (self.line, self.col, format!("job {}: {m}", self.index + 1))
    }

    /// The time from `a` to `b`, at least 1 ms and at most 10 years.
    fn ms(&self, a: i64, b: i64) -> Result<Ms, TraceError> {
        let d = b.saturating_sub(a);
        if d > TEN_YEARS {
            return Err(self.err(format!("an attempt of {d} ms; expected at most 10 years")));
        }
        Ok(d.max(1) as Ms)
    }
}

/// A job submitted in order (not before the trace's first, `t0`), that
/// finishes after its submission, has maps and not too many tasks.
fn check_job(j: &RJob, t0: i64, at: &JobAt) -> Result<(), TraceError> {
    if j.submit_time < t0 {
        return Err(at.err(format!(
            "submitted at {} ms, before the trace's first job ({t0} ms); expected jobs in submission order",
            j.submit_time
        )));
    }
    if j.finish_time < j.submit_time {
        return Err(at.err("finishes before it is submitted".into()));
    }
    if j.map_tasks.is_empty() {
        return Err(at.err("has no map tasks".into()));
    }
    if j.map_tasks.len() > 1_000_000 || j.reduce_tasks.len() > 1_000_000 {
        return Err(at.err("has more than 1000000 tasks of a kind".into()));
    }
    Ok(())
}

/// Every host the job names (its maps' preferred locations, its attempts'
/// hosts) as a node id, numbered in the order the trace first names them;
/// each map's replicas, and whether every map has some.
fn place_tasks(
    j: &RJob,
    node_count: u32,
    hosts: &mut BTreeMap<String, NodeId>,
    at: &JobAt,
) -> Result<(Vec<Vec<NodeId>>, bool), TraceError> {
    let mut node_of = |host: &str| -> Result<NodeId, TraceError> {
        // `/rack/host` or a bare host name.
        let name = host.rsplit('/').next().unwrap_or(host).to_string();
        let next = hosts.len() as NodeId;
        let id = *hosts.entry(name.clone()).or_insert(next);
        if id >= node_count {
            return Err(at.err(format!(
                "host {name} is the trace's host number {}, but the cluster has {} node{} (give [cluster] at least as many nodes as the trace has hosts, or no nodes at all to run on the trace's own)",
                id + 1,
                node_count,
                if node_count == 1 { "" } else { "s" }
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
    Ok((blocks, located))
}

/// `replay = "recorded"`: each map's and reduce's time, its successful
/// attempt's (a reduce's after the copy, which the cluster model
/// simulates).
fn recorded_times(j: &RJob, at: &JobAt) -> Result<(Vec<Ms>, Vec<Ms>), TraceError> {
    let mut maps = Vec::with_capacity(j.map_tasks.len());
    for (k, t) in j.map_tasks.iter().enumerate() {
        let a = done(t).ok_or_else(|| at.err(format!("map {k} has no attempt")))?;
        maps.push(at.ms(a.start_time, a.finish_time)?);
    }
    let mut reduces = Vec::with_capacity(j.reduce_tasks.len());
    for (k, t) in j.reduce_tasks.iter().enumerate() {
        let a = done(t).ok_or_else(|| at.err(format!("reduce {k} has no attempt")))?;
        let from = if a.shuffle_finished > a.start_time {
            a.shuffle_finished
        } else {
            a.start_time
        };
        reduces.push(at.ms(from, a.finish_time)?);
    }
    Ok((maps, reduces))
}

/// A job's name: its name (`/` made `_`, "job" without one) and its id's
/// last part, or its place in the trace without an id.
fn job_name(j: &RJob, index: usize) -> String {
    let id_tail = j
        .job_id
        .as_deref()
        .and_then(|id| id.rsplit('_').next())
        .unwrap_or("");
    let base = j.job_name.as_deref().unwrap_or("job").replace('/', "_");
    if id_tail.is_empty() {
        format!("{base}-{}", index + 1)
    } else {
        format!("{base}-{id_tail}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_survey_reads_racks_hosts_and_the_busiest_hosts_concurrency() {
        // h1 runs maps over [0, 10) and [5, 15) and [10, 20): at most two
        // at once (one ends as the next starts); h2 runs two reduces at once.
        let trace = r#"{ "submitTime": 0, "finishTime": 30,
          "mapTasks": [
            { "preferredLocations": [ { "layers": ["r2", "h3"] } ],
              "attempts": [ { "hostName": "/r1/h1", "startTime": 0, "finishTime": 10 } ] },
            { "attempts": [ { "hostName": "/r1/h1", "startTime": 5, "finishTime": 15 } ] },
            { "attempts": [ { "hostName": "/r1/h1", "startTime": 10, "finishTime": 20 } ] } ],
          "reduceTasks": [
            { "attempts": [ { "hostName": "h2", "startTime": 20, "finishTime": 30 } ] },
            { "attempts": [ { "hostName": "h2", "startTime": 21, "finishTime": 29 } ] } ] }"#;
        let s = survey(io::BufReader::new(trace.as_bytes()), None).unwrap();
        assert_eq!(
            s.racks,
            vec![
                ("r2".to_string(), vec!["h3".to_string()]),
                ("r1".to_string(), vec!["h1".to_string()]),
                ("default-rack".to_string(), vec!["h2".to_string()]),
            ]
        );
        assert_eq!((s.map_slots, s.reduce_slots), (2, 2));
        let ids = s.node_ids();
        assert_eq!((ids["h3"], ids["h1"], ids["h2"]), (0, 1, 2));
        assert_eq!(s.node_count(), 3);
    }
}

//! `[[jobs]]` and `[[workloads]]`: everything that becomes a job, lowered
//! by [`JobEnv`] (which `events` also uses for a submitted job).

use std::path::Path;

use toml::Spanned;

use super::{fp_value, Cx, MAX_COUNT, MAX_TASKS, R};
use crate::error::InputError;
use crate::model::{JobSpec, Ms, NodeId, Priority, Profile, Resource};
use crate::scenario::schema::{Dur, JobDef, Size, WorkloadDef};
use crate::scenario::workload::{self, PoissonParams};
use crate::scenario::{profiles, rumen};

/// The first key of a workload that only a generated (`poisson`) workload
/// takes, if it has one.
fn poisson_key(w: &WorkloadDef) -> Option<&'static str> {
    [
        (w.jobs.is_some(), "jobs"),
        (w.mean_interarrival.is_some(), "mean_interarrival"),
        (w.input.is_some(), "input"),
        (w.reduces.is_some(), "reduces"),
        (w.submit_start.is_some(), "submit_start"),
        (w.fp.is_some(), "fp"),
    ]
    .into_iter()
    .find_map(|(present, key)| present.then_some(key))
}

/// What job compilation needs from the rest of the scenario.
pub(super) struct JobEnv<'a> {
    pub(super) cx: &'a Cx<'a>,
    /// Declared pools plus `default`.
    pub(super) pools: Vec<String>,
    pub(super) block_mb: f64,
    pub(super) node_count: u32,
    /// Host → node id, when the cluster is a trace's (`trace_cluster`).
    pub(super) hosts: Option<std::collections::BTreeMap<String, NodeId>>,
    /// `slot_model = "yarn"`: each node's resources and `[tasks]`' map and
    /// reduce containers, for a job's own.
    pub(super) yarn: Option<(Resource, Resource, Resource)>,
}

/// When `[cluster]` gives no nodes and a Rumen workload is there, the
/// cluster is its trace's: the trace's survey and its path as shown.
pub(super) fn trace_cluster(
    cx: &Cx,
    cluster: Option<&crate::scenario::schema::ClusterDef>,
    workloads: &[WorkloadDef],
) -> R<Option<(rumen::Survey, String)>> {
    if cluster.is_some_and(|c| c.nodes.is_some() || c.datacenters.is_some()) {
        return Ok(None);
    }
    let mut rumen = workloads.iter().filter(|w| w.kind.get_ref() == "rumen");
    let Some(w) = rumen.next() else {
        return Ok(None);
    };
    if let Some(other) = rumen.next() {
        return Err(cx.at(
            &other.kind,
            "a second rumen workload, and [cluster] gives no nodes: the cluster can be read from one trace only; expected [cluster] with nodes = N",
        ));
    }
    let Some(trace) = &w.trace else {
        return Ok(None);
    };
    let limit = match &w.limit {
        None => None,
        Some(l) => Some(cx.int(l, "limit", 1, MAX_COUNT)?),
    };
    let (file, shown) = open_rumen(cx, trace)?;
    let survey =
        rumen::survey(std::io::BufReader::new(file), limit).map_err(|(l, c, m)| InputError {
            origin: shown.clone(),
            pos: Some((l, c)),
            message: m,
        })?;
    if survey.node_count() == 0 {
        return Err(cx.at(
            trace,
            format!("{shown} names no hosts, and [cluster] gives no nodes; expected [cluster] with nodes = N"),
        ));
    }
    Ok(Some((survey, trace.get_ref().clone())))
}

/// Opens a Rumen trace (relative to the scenario file), with its path as
/// errors show it.
fn open_rumen(cx: &Cx, trace: &Spanned<String>) -> R<(std::fs::File, String)> {
    let path = trace_path(cx, trace);
    let shown = path.display().to_string();
    let file = std::fs::File::open(&path).map_err(|e| {
        cx.at(
            trace,
            format!("cannot read trace {shown}: {e}; expected a Rumen job trace (JSON)"),
        )
    })?;
    Ok((file, shown))
}

/// A trace's path: relative to the scenario file unless absolute.
fn trace_path(cx: &Cx, trace: &Spanned<String>) -> std::path::PathBuf {
    let base = Path::new(cx.origin)
        .parent()
        .filter(|p| !p.as_os_str().is_empty());
    match base {
        Some(b) if Path::new(trace.get_ref()).is_relative() => b.join(trace.get_ref()),
        _ => Path::new(trace.get_ref()).to_path_buf(),
    }
}

impl JobEnv<'_> {
    pub(super) fn pool(&self, v: &Spanned<String>) -> R<String> {
        let name = v.get_ref();
        if self.pools.iter().any(|p| p == name) {
            Ok(name.clone())
        } else {
            Err(self.cx.at(
                v,
                format!(
                    "unknown pool \"{name}\"{}; expected one of: {} (declare it with [[pools]])",
                    crate::error::closest(name, self.pools.iter().map(String::as_str))
                        .map(|n| format!("; did you mean \"{n}\"?"))
                        .unwrap_or_default(),
                    self.pools.join(", ")
                ),
            ))
        }
    }

    pub(super) fn node(&self, v: &Spanned<i64>) -> R<NodeId> {
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
    pub(super) fn job(&self, d: &JobDef, submit: Ms) -> R<Vec<JobSpec>> {
        let cx = self.cx;
        let name = job_name(cx, d)?;
        let profile = profiles::lookup(d.profile.get_ref()).ok_or_else(|| {
            cx.at(
                &d.profile,
                format!(
                    "unknown profile \"{}\"{}; expected one of: {}",
                    d.profile.get_ref(),
                    profiles::suggestion(d.profile.get_ref()),
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
            Some(p) => priority(cx, p)?,
        };
        let input = job_input(cx, &d.input)?;
        let maps = self.map_count(d, name, input)?;
        let input_mb = input.map_or(f64::from(maps) * self.block_mb, |(mb, _)| mb);
        let reduces = d
            .reduces
            .as_ref()
            .map_or(Ok(1), |r| cx.int(r, "reduces", 0, MAX_TASKS))?;
        let map_time = fixed_time(cx, &d.map_time, "map_time")?;
        let reduce_time = fixed_time(cx, &d.reduce_time, "reduce_time")?;
        let fp = fp_value(cx, &d.fp)?.unwrap_or(profile.fp);
        let profile = job_costs(cx, d, profile)?;
        let output_replication = match &d.output_replication {
            None => None,
            Some(r) => Some(cx.int(r, "output_replication", 1, i64::from(self.node_count))?),
        };
        let writer = match &d.writer {
            None => None,
            Some(w) => Some(super::cluster::writer(cx, w, self.node_count)?),
        };
        let blocks = match &d.blocks {
            None => None,
            Some(b) => Some(self.blocks(b, maps)?),
        };
        let (map_container, reduce_container) = self.containers(d)?;
        let count = d
            .count
            .as_ref()
            .map_or(Ok(1), |c| cx.int(c, "count", 1, MAX_COUNT))?;
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
            recorded: None,
            writer,
            output_replication,
            map_container,
            reduce_container,
        };
        Ok(copies(spec, count, d.every.map_or(0, |e| e.0)))
    }

    /// A job's maps: `maps`, else one per block of its `input`, else one
    /// per entry of `blocks`.
    fn map_count(&self, d: &JobDef, name: &str, input: Option<(f64, &Spanned<Size>)>) -> R<u32> {
        let cx = self.cx;
        match (&d.maps, input, &d.blocks) {
            (Some(m), _, _) => cx.int(m, "maps", 1, MAX_TASKS),
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
                Ok(m as u32)
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
                    })
            }
            (None, None, None) => Err(cx.at(
                &d.name,
                format!("job \"{name}\" has neither input nor maps; expected input = \"SIZE\", maps = N, or both"),
            )),
        }
    }

    /// A job's own containers (yarn), checked against the largest the
    /// cluster grants.
    fn containers(&self, d: &JobDef) -> R<(Option<Resource>, Option<Resource>)> {
        let cx = self.cx;
        let Some((node, map, reduce)) = self.yarn else {
            let keys = super::yarn::first_set(
                &[
                    ("map_memory", &d.map_memory),
                    ("reduce_memory", &d.reduce_memory),
                ],
                &[
                    ("map_vcores", &d.map_vcores),
                    ("reduce_vcores", &d.reduce_vcores),
                ],
            );
            if let Some((key, at)) = keys {
                return Err(cx.at_span(
                    &at,
                    format!("{key} is a YARN container's; expected slot_model = \"yarn\" in [cluster], or no {key}"),
                ));
            }
            return Ok((None, None));
        };
        let one = |mem: &Option<Spanned<Size>>, vc: &Option<Spanned<i64>>, kind: &str, default| {
            if mem.is_none() && vc.is_none() {
                return Ok(None);
            }
            let mk = format!("{kind}_memory");
            let vk = format!("{kind}_vcores");
            let r = super::yarn::resource(cx, (mem, &mk), (vc, &vk), default)?;
            let at = mem
                .as_ref()
                .map(|v| v.span())
                .or(vc.as_ref().map(|v| v.span()));
            super::yarn::check_container(cx, at.unwrap_or(0..0), &format!("a {kind}"), r, node)?;
            Ok(Some(r))
        };
        Ok((
            one(&d.map_memory, &d.map_vcores, "map", map)?,
            one(&d.reduce_memory, &d.reduce_vcores, "reduce", reduce)?,
        ))
    }

    /// Explicit replicas: one non-empty list of distinct, valid node ids per map.
    pub(super) fn blocks(
        &self,
        b: &Spanned<Vec<Vec<Spanned<i64>>>>,
        maps: u32,
    ) -> R<Vec<Vec<NodeId>>> {
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
    pub(super) fn mix(
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
                        "unknown profile \"{}\"{}; expected one of: {}",
                        name.get_ref(),
                        profiles::suggestion(name.get_ref()),
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

    pub(super) fn workload_pools(&self, w: &WorkloadDef) -> R<Vec<String>> {
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

    /// A trace workload's `limit` (its first N jobs) and `time_scale` (on
    /// submit times).
    fn limit_and_scale(&self, w: &WorkloadDef) -> R<(Option<u32>, f64)> {
        let cx = self.cx;
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
        Ok((limit, time_scale))
    }

    fn trace_path(&self, trace: &Spanned<String>) -> std::path::PathBuf {
        trace_path(self.cx, trace)
    }

    /// `kind = "swim"`: replays a SWIM trace (path relative to the scenario
    /// file). Compute costs come from `mix` (default wordcount), FP from the
    /// trace's shuffle / input bytes.
    pub(super) fn swim(&self, w: &WorkloadDef, index: usize, seed: u64) -> R<Vec<JobSpec>> {
        let cx = self.cx;
        if let Some(key) = poisson_key(w) {
            return Err(cx.at(
                &w.kind,
                format!("{key} belongs to kind = \"poisson\"; a swim workload takes trace, limit, time_scale, mix and pools"),
            ));
        }
        if let Some(t) = &w.replay {
            return Err(cx.at(
                t,
                "replay belongs to kind = \"rumen\"; a swim workload takes trace, limit, time_scale, mix and pools",
            ));
        }
        let Some(trace) = &w.trace else {
            return Err(cx.at(
                &w.kind,
                "a swim workload needs trace; expected for example trace = \"traces/FB-2009_samples_24_times_1hr_0.tsv\"",
            ));
        };
        let (limit, time_scale) = self.limit_and_scale(w)?;
        let mix = match &w.mix {
            None => vec![(
                profiles::lookup("wordcount").expect("built-in profile"),
                1.0,
            )],
            Some(m) => self.mix(w, m)?,
        };
        let pools = self.workload_pools(w)?;
        let path = self.trace_path(trace);
        let shown = path.display().to_string();
        let text = super::read_bounded(&path, super::MAX_TRACE_BYTES)
            .and_then(|b| String::from_utf8(b).map_err(std::io::Error::other))
            .map_err(|e| {
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

    /// `kind = "rumen"`: replays a Rumen job trace (path relative to the
    /// scenario file), streamed; see `scenario::rumen`.
    pub(super) fn rumen(&self, w: &WorkloadDef) -> R<Vec<JobSpec>> {
        let cx = self.cx;
        if let Some(key) = poisson_key(w).or(w.pools.is_some().then_some("pools")) {
            return Err(cx.at(
                &w.kind,
                format!("{key} does not belong to a rumen workload; it takes trace, replay, limit, time_scale and mix (one profile, for replay = \"model\")"),
            ));
        }
        let Some(trace) = &w.trace else {
            return Err(cx.at(
                &w.kind,
                "a rumen workload needs trace; expected for example trace = \"traces/sls-2jobs2min-rumen.json\"",
            ));
        };
        let replay = match w.replay.as_ref().map(|r| (r, r.get_ref().as_str())) {
            None | Some((_, "recorded")) => rumen::Replay::Recorded,
            Some((_, "model")) => rumen::Replay::Model,
            Some((r, other)) => {
                return Err(cx.at(
                    r,
                    format!("unknown replay \"{other}\"; expected \"recorded\" (each task for its recorded time) or \"model\" (times from the cluster model)"),
                ))
            }
        };
        let (limit, time_scale) = self.limit_and_scale(w)?;
        let profile = match &w.mix {
            None => profiles::lookup("terasort").expect("built-in profile"),
            Some(m) => {
                let mix = self.mix(w, m)?;
                if mix.len() != 1 {
                    return Err(cx.at(
                        &w.kind,
                        "a rumen workload takes one profile in mix (its compute costs, for replay = \"model\"), like mix = { terasort = 1 }",
                    ));
                }
                mix[0].0.clone()
            }
        };
        let (file, shown) = open_rumen(cx, trace)?;
        let params = rumen::RumenParams {
            replay,
            limit,
            time_scale,
            profile,
            pools: self.pools.clone(),
            node_count: self.node_count,
            hosts: self.hosts.clone(),
        };
        // Streamed: memory does not grow with the trace's size.
        let reader = std::io::BufReader::new(file);
        rumen::read(reader, &params).map_err(|(l, c, m)| InputError {
            origin: shown,
            pos: Some((l, c)),
            message: m,
        })
    }

    pub(super) fn workload(&self, w: &WorkloadDef, index: usize, seed: u64) -> R<Vec<JobSpec>> {
        let cx = self.cx;
        match w.kind.get_ref().as_str() {
            "poisson" => {}
            "swim" => return self.swim(w, index, seed),
            "rumen" => return self.rumen(w),
            other => {
                return Err(cx.at(
                    &w.kind,
                    format!("unknown workload kind \"{other}\"; expected \"poisson\", \"swim\" or \"rumen\""),
                ))
            }
        }
        if let Some(t) = &w.replay {
            return Err(cx.at(
                t,
                "replay belongs to kind = \"rumen\"; a poisson workload does not use it",
            ));
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
}

/// A job's name: not empty, and without '/'.
fn job_name<'a>(cx: &Cx, d: &'a JobDef) -> R<&'a str> {
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
    Ok(name)
}

/// A job's `input` in MB, larger than 0, and where it is written.
fn job_input<'a>(cx: &Cx, input: &'a Option<Spanned<Size>>) -> R<Option<(f64, &'a Spanned<Size>)>> {
    let Some(i) = input else {
        return Ok(None);
    };
    let mb = i.get_ref().0;
    if !(mb.is_finite() && mb > 0.0) {
        return Err(cx.at(i, "input must be larger than 0, like \"20GB\""));
    }
    Ok(Some((mb, i)))
}

/// `map_time` or `reduce_time` (`key`): a fixed task time, longer than 0.
fn fixed_time(cx: &Cx, v: &Option<Spanned<Dur>>, key: &str) -> R<Option<Ms>> {
    match v {
        None => Ok(None),
        Some(s) if s.get_ref().0 == 0 => {
            Err(cx.at(s, format!("{key} must be longer than 0, like \"20s\"")))
        }
        Some(s) => Ok(Some(s.get_ref().0)),
    }
}

/// The job's profile with its own overrides of the profile's costs and
/// of [hdfs].
fn job_costs(cx: &Cx, d: &JobDef, mut profile: Profile) -> R<Profile> {
    if let Some(v) = &d.map_cost {
        profile.map_s_per_mb = cx.within(v, "map_cost", 0.0, 1e4)?;
    }
    if let Some(v) = &d.reduce_cost {
        profile.reduce_s_per_mb = cx.within(v, "reduce_cost", 0.0, 1e4)?;
    }
    if let Some(v) = &d.reduce_output {
        profile.reduce_output = cx.within(v, "reduce_output", 0.0, 1e3)?;
    }
    Ok(profile)
}

/// `count` copies of a job, named `NAME-1`, `NAME-2`, ... and submitted
/// `every` apart; one copy keeps its name.
fn copies(spec: JobSpec, count: u32, every: Ms) -> Vec<JobSpec> {
    if count == 1 {
        return vec![spec];
    }
    (1..=count)
        .map(|k| JobSpec {
            name: format!("{}-{k}", spec.name),
            submit: spec
                .submit
                .saturating_add(every.saturating_mul(Ms::from(k - 1))),
            ..spec.clone()
        })
        .collect()
}

/// A priority as scenarios write it: `very_high` … `very_low`.
pub(super) fn priority(cx: &Cx, p: &Spanned<String>) -> R<Priority> {
    Priority::parse(p.get_ref()).ok_or_else(|| {
        cx.at(
            p,
            format!(
                "unknown priority \"{}\"; expected one of: very_high, high, normal, low, very_low",
                p.get_ref()
            ),
        )
    })
}

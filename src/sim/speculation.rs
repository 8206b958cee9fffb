//! Speculative execution (docs/model.md): which running task, if any, a
//! node with a free slot should run a second copy of. Read-only: the
//! engine launches what this picks.
//!
//! - `hadoop` (Hadoop 1.x `TaskInProgress.hasSpeculativeTask`): a task with
//!   one running attempt and no success, started at least 60 s ago, whose
//!   progress is at least 0.2 behind its job's mean progress for its kind,
//!   on another node. The first such task in job order, then task order.
//! - `late` (Zaharia et al., OSDI'08): among tasks running at least 60 s
//!   whose progress rate is below the 25th percentile of running tasks'
//!   rates, the one with the longest estimated time left, (1 − progress) /
//!   rate; never on a slow node (speed below the 25th percentile of node
//!   speeds), and only while speculative attempts are fewer than 10 % of
//!   the slots.
//!
//! Where copies are asked for (docs/model.md): policies built on Hadoop's
//! schedulers ask inside each job's task lookup, after the job's pending
//! tasks, as `JobInProgress.findNewMapTask` / `findNewReduceTask` do
//! ([`pick_in_job`] through `Heartbeat::speculate`); for the others the
//! engine offers the slots a heartbeat leaves idle ([`pick`], every job in
//! queue order).
//!
//! Both only consider jobs with no pending task of the kind: a job's own
//! unstarted work goes before a copy of its running work (Hadoop looks for
//! a speculative task only once its lookup of non-running tasks at any
//! locality has failed). Reduces are copied only once their job's maps are
//! all done: before that a reducer's slow progress is its maps' doing, and
//! a copy would wait as long.
//!
//! Progress: see `World::progress` (a map's read and compute by their
//! nominal times; a reduce's copy 1/3, its compute and write 2/3).

use super::job::{AttemptId, Kind, Live, Outcome, TaskState};
use super::world::view::RunView;
use crate::model::{JobId, Ms, NodeId, Speculation};

/// Hadoop's `SPECULATIVE_LAG`.
pub const LAG_MS: Ms = 60_000;
/// Hadoop's `SPECULATIVE_GAP`.
pub const GAP: f64 = 0.2;
/// LATE's `SpeculativeCap`, as a fraction of slots.
pub const LATE_CAP: f64 = 0.1;

/// Estimated progress in [0, 1] of a running attempt at `w.now`.
pub fn progress(w: RunView<'_>, a: AttemptId) -> f64 {
    if w.attempts()[a as usize].outcome != Outcome::Running {
        return 1.0;
    }
    w.progress(a)
}

/// A task that could be speculated: its one running attempt.
#[derive(Clone, Copy, Debug)]
struct Candidate {
    job: JobId,
    task: u32,
    progress: f64,
    elapsed: Ms,
}

fn candidates(w: RunView<'_>, kind: Kind, node: NodeId, only: Option<JobId>) -> Vec<Candidate> {
    let mut out = Vec::new();
    for &j in w.active() {
        if only.is_some_and(|o| o != j) {
            continue;
        }
        let job = w.job(j);
        let (pending, running) = match kind {
            Kind::Map => (job.maps_pending, job.maps_running),
            Kind::Reduce => (job.reduces_pending, job.reduces_running),
        };
        if pending > 0 || running == 0 {
            continue;
        }
        // A reduce still waiting on its job's maps is slow because of them,
        // not because of its node: a copy would wait just the same.
        if kind == Kind::Reduce && job.maps_done < job.n_maps() {
            continue;
        }
        let n = match kind {
            Kind::Map => job.maps.len(),
            Kind::Reduce => job.reduces.len(),
        };
        for t in 0..n {
            let (state, live, ran_on) = match kind {
                Kind::Map => (job.maps[t].state, &job.maps[t].live, &job.maps[t].ran_on),
                Kind::Reduce => (
                    job.reduces[t].state,
                    &job.reduces[t].live,
                    &job.reduces[t].ran_on,
                ),
            };
            // Never where an attempt of it has run (`hasRunOnMachine`).
            if state != TaskState::Running
                || live.len() != 1
                || ran_on.contains(node, &job.ran_more)
            {
                continue;
            }
            let a = live[0];
            let at = &w.attempts()[a as usize];
            out.push(Candidate {
                job: j,
                task: t as u32,
                progress: progress(w, a),
                elapsed: w.now().saturating_sub(at.start),
            });
        }
    }
    out
}

/// Hadoop's mean progress of a job's tasks of a kind (done = 1, pending = 0).
fn job_progress(w: RunView<'_>, j: JobId, kind: Kind) -> f64 {
    let job = w.job(j);
    let (done, tasks): (u32, Vec<&Live>) = match kind {
        Kind::Map => (job.maps_done, job.maps.iter().map(|m| &m.live).collect()),
        Kind::Reduce => (
            job.reduces_done,
            job.reduces.iter().map(|r| &r.live).collect(),
        ),
    };
    let n = tasks.len().max(1) as f64;
    let running: f64 = tasks
        .iter()
        .map(|live| live.iter().map(|&a| progress(w, a)).fold(0.0, f64::max))
        .sum();
    (done as f64 + running) / n
}

/// LATE's progress rate of a candidate, per second.
fn rate(c: &Candidate) -> f64 {
    c.progress / (c.elapsed.max(1) as f64 / 1000.0)
}

/// LATE's slow-task threshold for `kind` as seen from `node`: the 25th
/// percentile of every candidate's progress rate, cluster-wide. Policies
/// that look for a copy job by job ask for it once per job within one
/// heartbeat; it is computed once per state of the world and kept in
/// `World::late_threshold` (the key changes whenever a candidate's
/// state or progress can: a new instant, event or attempt).
fn late_threshold(w: RunView<'_>, kind: Kind, node: NodeId) -> f64 {
    let key = (
        w.now(),
        w.events(),
        w.attempts().len(),
        kind == Kind::Reduce,
        node,
    );
    if let Some((k, t)) = w.late_cache().get() {
        if k == key {
            return t;
        }
    }
    let t = percentile_25(candidates(w, kind, node, None).iter().map(rate).collect());
    w.late_cache().set(Some((key, t)));
    t
}

/// The 25th percentile, linearly interpolated between order statistics,
/// so that with few tasks the slowest can still fall strictly below it.
fn percentile_25(mut xs: Vec<f64>) -> f64 {
    if xs.is_empty() {
        return 0.0;
    }
    xs.sort_by(|a, b| a.total_cmp(b));
    let pos = (xs.len() - 1) as f64 * 0.25;
    let (i, frac) = (pos.floor() as usize, pos.fract());
    match xs.get(i + 1) {
        Some(&next) => xs[i] + (next - xs[i]) * frac,
        None => xs[i],
    }
}

/// How many of job `j`'s running tasks of `kind` want a speculative copy
/// now, on whatever node (Hadoop's `TaskInProgress.hasSpeculativeTask`, or
/// LATE's slow-task rule): what `JobSchedulable.updateDemand` adds to a
/// job's demand, one slot per such task, so that the fair scheduler keeps
/// visiting a job whose only work left is a straggler's copy.
pub fn wanted(w: RunView<'_>, mode: Speculation, kind: Kind, j: JobId) -> u32 {
    match mode {
        Speculation::Off => 0,
        Speculation::Hadoop => {
            let cands = candidates(w, kind, NodeId::MAX, Some(j));
            if cands.is_empty() {
                return 0;
            }
            let m = job_progress(w, j, kind);
            cands
                .iter()
                .filter(|c| c.elapsed >= LAG_MS && m - c.progress >= GAP)
                .count() as u32
        }
        Speculation::Late => {
            let mine = candidates(w, kind, NodeId::MAX, Some(j));
            if mine.is_empty() {
                return 0;
            }
            let threshold = late_threshold(w, kind, NodeId::MAX);
            mine.iter()
                .filter(|c| c.elapsed >= LAG_MS && rate(c) < threshold)
                .count() as u32
        }
    }
}

/// The task of `kind` to speculate on `node`, if any, over every active
/// job (the engine's pass over the slots a policy left idle).
pub fn pick(w: RunView<'_>, mode: Speculation, kind: Kind, node: NodeId) -> Option<(JobId, u32)> {
    pick_among(w, mode, kind, node, None)
}

/// The task of `kind` of job `j` to speculate on `node`, if any: the
/// speculative part of Hadoop's task lookup for one job. Under `hadoop`
/// a map whose block is closer to `node` goes first (`findNewMapTask`
/// scans its running cache from the node up), then task order; under
/// `late` the job's candidate with the longest time left, its slow-task
/// threshold taken over the whole cluster's candidates.
pub fn pick_in_job(
    w: RunView<'_>,
    mode: Speculation,
    kind: Kind,
    node: NodeId,
    j: JobId,
) -> Option<u32> {
    pick_among(w, mode, kind, node, Some(j)).map(|(_, t)| t)
}

fn pick_among(
    w: RunView<'_>,
    mode: Speculation,
    kind: Kind,
    node: NodeId,
    only: Option<JobId>,
) -> Option<(JobId, u32)> {
    match mode {
        Speculation::Off => None,
        Speculation::Hadoop => {
            let mut cands = candidates(w, kind, node, only);
            if let (Some(j), Kind::Map) = (only, kind) {
                let job = w.job(j);
                cands.sort_by_key(|c| (job.locality(c.task, node, w.cluster()), c.task));
            }
            // Each job's mean progress once per call, not once per task.
            let mut mean: Vec<(JobId, f64)> = Vec::new();
            cands.into_iter().find_map(|c| {
                let m = match mean.iter().find(|(j, _)| *j == c.job) {
                    Some(&(_, m)) => m,
                    None => {
                        let m = job_progress(w, c.job, kind);
                        mean.push((c.job, m));
                        m
                    }
                };
                (c.elapsed >= LAG_MS && m - c.progress >= GAP).then_some((c.job, c.task))
            })
        }
        Speculation::Late => {
            if w.metrics().speculative_running as f64 >= LATE_CAP * w.cluster().total_slots() as f64
            {
                return None;
            }
            if w.node(node).speed < w.cluster().speed_p25 {
                return None;
            }
            let threshold = late_threshold(w, kind, node);
            candidates(w, kind, node, only)
                .iter()
                .filter(|c| c.elapsed >= LAG_MS && rate(c) < threshold)
                .map(|c| {
                    let r = rate(c).max(1e-12);
                    ((1.0 - c.progress) / r, c)
                })
                .max_by(|a, b| {
                    a.0.total_cmp(&b.0)
                        .then(b.1.job.cmp(&a.1.job))
                        .then(b.1.task.cmp(&a.1.task))
                })
                .map(|(_, c)| (c.job, c.task))
        }
    }
}

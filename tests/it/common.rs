//! Helpers shared by the integration tests.
#![allow(dead_code)]

use slotsim::model::Scenario;
use slotsim::report::trace::values_json;
use slotsim::report::{summarize, Summary};
use slotsim::scenario;
use slotsim::sim::jobtask::JobTaskKind;
use slotsim::sim::{Kind, Outcome, Sim};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

pub fn scenario_path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("scenarios")
        .join(name)
}

pub fn load(name: &str, policy: Option<&str>) -> Scenario {
    scenario::load_file(&scenario_path(name), policy, None)
        .unwrap_or_else(|e| panic!("{name}: {e}"))
}

pub fn load_text(text: &str, policy: Option<&str>) -> Scenario {
    scenario::load_str(text, "test.toml", policy, None).unwrap_or_else(|e| panic!("{e}"))
}

/// A run of `sc` to its end, its journal kept, and its summary.
pub fn run(sc: &Scenario) -> (Sim, Summary) {
    let mut sim = slotsim::runs::build_sim(sc).expect("sim builds");
    sim.keep_journal();
    sim.run_until(None);
    let s = summarize(&sim);
    (sim, s)
}

/// A policy's inspection as `--inspect` writes it (JSON values), so tests
/// can index it as they read the output.
#[derive(Clone, Debug)]
pub struct JsonInspection {
    pub cluster: serde_json::Value,
    pub pools: BTreeMap<String, serde_json::Value>,
    pub jobs: BTreeMap<String, serde_json::Value>,
}

/// One `--inspect` record with JSON values.
#[derive(Clone, Debug)]
pub struct InspectRecord {
    pub t: u64,
    pub node: u32,
    pub policy: String,
    pub inspection: JsonInspection,
    pub assigned: Vec<String>,
    pub rules: Vec<&'static str>,
}

impl InspectRecord {
    pub fn of(r: &slotsim::sim::InspectRecord) -> InspectRecord {
        let named = |m: &BTreeMap<String, slotsim::sim::policy::Values>| {
            m.iter().map(|(k, v)| (k.clone(), values_json(v))).collect()
        };
        InspectRecord {
            t: r.t,
            node: r.node,
            policy: r.policy.clone(),
            inspection: JsonInspection {
                cluster: values_json(&r.inspection.cluster),
                pools: named(&r.inspection.pools),
                jobs: named(&r.inspection.jobs),
            },
            assigned: r.assigned.clone(),
            rules: r.rules.clone(),
        }
    }

    /// What the heartbeat launched: (job/task, rule), in launch order.
    pub fn launched(&self) -> Vec<(String, &'static str)> {
        self.assigned
            .iter()
            .cloned()
            .zip(self.rules.iter().copied())
            .collect()
    }
}

/// The record of `node`'s heartbeat at `t_ms`.
pub fn record_at(recs: &[InspectRecord], t_ms: u64, node: u32) -> &InspectRecord {
    recs.iter()
        .find(|r| r.t == t_ms && r.node == node)
        .unwrap_or_else(|| panic!("no heartbeat of node {node} at {t_ms} ms"))
}

/// Expected launches written as string slices, to compare with
/// [`InspectRecord::launched`].
pub fn pairs(v: &[(&str, &'static str)]) -> Vec<(String, &'static str)> {
    v.iter().map(|(a, r)| (a.to_string(), *r)).collect()
}

/// Collects every inspect record of `sim` from now on.
pub fn collect_inspect(sim: &mut Sim) -> Arc<Mutex<Vec<InspectRecord>>> {
    let recs = Arc::new(Mutex::new(Vec::new()));
    let r2 = recs.clone();
    sim.set_inspector(Box::new(move |r| {
        r2.lock().unwrap().push(InspectRecord::of(r))
    }));
    recs
}

/// Runs and collects every inspect record.
pub fn run_inspect(sc: &Scenario) -> (Sim, Vec<InspectRecord>) {
    let mut sim = slotsim::runs::build_sim(sc).expect("sim builds");
    let recs = collect_inspect(&mut sim);
    sim.run_until(None);
    let out = recs.lock().unwrap().clone();
    (sim, out)
}

/// `job/task` names of attempts in launch order.
pub fn launches(sim: &Sim) -> Vec<String> {
    sim.view()
        .attempts()
        .iter()
        .map(|a| {
            let p = if a.kind == slotsim::sim::Kind::Map {
                'm'
            } else {
                'r'
            };
            format!("{}/{}{}", sim.view().job(a.job).name, p, a.task)
        })
        .collect()
}

/// Checks the invariants on a finished run; returns a description of the first violation.
pub fn check(sim: &Sim) -> Result<(), String> {
    let w = sim.view();
    if !sim.is_finished() {
        return Err(format!(
            "run did not finish: {} of {} jobs done at {} ms",
            w.finished_jobs(),
            w.jobs().len(),
            w.now()
        ));
    }
    // Every task succeeds exactly once; nothing is left running.
    for job in w.jobs() {
        if job.killed {
            // Killed (`kill_job`): nothing of it runs past the kill.
            let at = job.finished_at.ok_or("a killed job has no kill time")?;
            let runs = w
                .attempts()
                .iter()
                .filter(|a| a.job == job.id)
                .map(|a| (a.start, a.end()));
            let tasks = w
                .job_tasks()
                .iter()
                .filter(|t| t.job == job.id)
                .map(|t| (t.start, t.end));
            for (start, end) in runs.chain(tasks) {
                if start > at || end.is_none_or(|e| e > at) {
                    return Err(format!("{}: a task ran past its kill at {at} ms", job.name));
                }
            }
            continue;
        }
        let mut maps = vec![0u32; job.maps.len()];
        let mut reds = vec![0u32; job.reduces.len()];
        for a in w.attempts().iter().filter(|a| a.job == job.id) {
            if a.outcome == Outcome::Running {
                return Err(format!("{} has an attempt still running", job.name));
            }
            if a.outcome == Outcome::Succeeded {
                match a.kind {
                    Kind::Map => maps[a.task as usize] += 1,
                    Kind::Reduce => reds[a.task as usize] += 1,
                }
            }
        }
        if maps.iter().chain(&reds).any(|&c| c != 1) {
            return Err(format!(
                "{}: success counts maps {maps:?} reduces {reds:?}",
                job.name
            ));
        }
        // A reduce can only finish once every map has (the first time: a
        // node failure may re-run maps after some reduces are done).
        let map_end = job.first_map_end.ok_or("no map end")?;
        for a in w.attempts().iter().filter(|a| {
            a.job == job.id && a.kind == Kind::Reduce && a.outcome == Outcome::Succeeded
        }) {
            if a.end().unwrap() < map_end {
                return Err(format!(
                    "{} r{} ended before the job's maps",
                    job.name, a.task
                ));
            }
        }
        let last = w
            .attempts()
            .iter()
            .filter(|a| a.job == job.id)
            .filter_map(|a| a.end())
            .max();
        // Set-up before every task, clean-up after the last; the job ends
        // with its clean-up, or its last attempt when it has none.
        let runs: Vec<_> = w.job_tasks().iter().filter(|t| t.job == job.id).collect();
        let ok = |k: JobTaskKind| {
            runs.iter()
                .filter(|t| t.kind == k && t.outcome == Outcome::Succeeded)
                .collect::<Vec<_>>()
        };
        // Under yarn the AM takes the set-up task's place and outlives its
        // job by 5 s: the last ones may still run when the run ends.
        let yarn = w.capacity().app_masters();
        let lingering = |t: &&slotsim::sim::jobtask::JobTaskRun| {
            yarn && t.kind == JobTaskKind::Am && t.outcome == Outcome::Running && job.is_done()
        };
        let (setup, cleanup) = if yarn {
            let ams: Vec<_> = runs
                .iter()
                .filter(|t| {
                    // One that saw its job finish: it exited, lingers, or
                    // died with its node while it lingered.
                    let after = t.end.is_some_and(|e| Some(e) > job.finished_at);
                    t.kind == JobTaskKind::Am
                        && (t.outcome == Outcome::Succeeded
                            || lingering(t)
                            || (t.outcome == Outcome::Failed && after))
                })
                .collect();
            for t in ams.iter().filter(|t| t.outcome == Outcome::Succeeded) {
                if t.end != job.finished_at.map(|f| f + 5000) {
                    return Err(format!(
                        "{}: its AM did not exit 5 s after the job",
                        job.name
                    ));
                }
            }
            (ams, Vec::new())
        } else {
            (ok(JobTaskKind::Setup), ok(JobTaskKind::Cleanup))
        };
        let want = (
            usize::from(job.prepares()),
            usize::from(job.cleanup_ms.is_some()),
        );
        if (setup.len(), cleanup.len()) != want
            || runs
                .iter()
                .any(|t| t.outcome == Outcome::Running && !lingering(t))
        {
            return Err(format!("{}: set-up/clean-up runs {runs:?}", job.name));
        }
        let first = w
            .attempts()
            .iter()
            .filter(|a| a.job == job.id)
            .map(|a| a.start)
            .min();
        if let (Some(s), Some(first)) = (setup.first(), first) {
            // Under yarn, the first AM (a lost one's tasks stay).
            let ready = if yarn {
                runs.iter().map(|t| t.start).min().unwrap_or(s.start)
            } else {
                s.end.unwrap()
            };
            if ready > first {
                return Err(format!(
                    "{}: a task started before its set-up ended",
                    job.name
                ));
            }
        }
        let finish = match cleanup.first() {
            Some(c) => {
                if c.start < last.unwrap_or(0) {
                    return Err(format!("{}: clean-up before its last task", job.name));
                }
                c.end
            }
            None => last,
        };
        if job.finished_at != finish {
            return Err(format!(
                "{} finish {:?} != its last attempt's or clean-up's end {:?}",
                job.name, job.finished_at, finish
            ));
        }
    }
    // No node over its slots at any instant: sweep starts (+1) and ends (−1),
    // ends first at equal times (a slot freed at t may be reused at t).
    // Slots are counted by the type of slot an attempt occupies (a
    // slot-borrowing policy runs reduces in map slots and maps in reduce
    // slots), and on a typed cluster an attempt's lane must be of that type.
    for n in &w.cluster().nodes {
        let mut ev: Vec<(u64, i32, Kind)> = Vec::new();
        for a in w.attempts().iter().filter(|a| a.node == n.id) {
            if !w.capacity().kinds_share()
                && (a.slot_kind == Kind::Map) != ((a.slot as u32) < n.map_slots)
            {
                return Err(format!(
                    "node {}: a {:?} attempt in a {:?} slot runs in lane {}",
                    n.id, a.kind, a.slot_kind, a.slot
                ));
            }
            ev.push((a.start, 1, a.slot_kind));
            ev.push((a.end().unwrap(), -1, a.slot_kind));
        }
        for t in w.job_tasks().iter().filter(|t| t.node == n.id) {
            ev.push((t.start, 1, t.slot_kind));
            ev.push((t.end.unwrap_or(u64::MAX), -1, t.slot_kind));
        }
        ev.sort_by_key(|e| (e.0, e.1));
        let (mut m, mut r) = (0i32, 0i32);
        for (t, d, k) in ev {
            match k {
                Kind::Map => m += d,
                Kind::Reduce => r += d,
            }
            let over = if w.capacity().kinds_share() {
                m + r > (n.map_slots + n.reduce_slots) as i32
            } else {
                m > n.map_slots as i32 || r > n.reduce_slots as i32
            };
            if over {
                return Err(format!(
                    "node {} over its slots at {t} ms: {m} map slots, {r} reduce slots in use",
                    n.id
                ));
            }
        }
        // Nothing runs any more (but AMs lingering after their job under
        // yarn), so the engine's slot counts are back to 0.
        let (lingering, held) = w
            .job_tasks()
            .iter()
            .filter(|t| t.node == n.id && t.outcome == Outcome::Running)
            .fold((0, slotsim::model::Resource::ZERO), |(k, r), t| {
                (k + 1, r + t.ask)
            });
        if n.used_map_slots + n.used_reduce_slots + n.running() + n.job_tasks != 2 * lingering
            || n.job_tasks != lingering
            || n.used != held
            || n.reduces_in_map_slots + n.maps_in_reduce_slots != 0
        {
            return Err(format!("node {}: slot counts left over at the end", n.id));
        }
    }
    if w.cluster().reduces_in_map_slots + w.cluster().maps_in_reduce_slots != 0 {
        return Err("cluster: borrowed-slot counts left over at the end".into());
    }
    check_physics(sim)
}

/// The physics at the end of a run: no flow left and no load on any disk
/// or link, no attempt computing, every attempt's phase times within its
/// life, and the map bytes read and spilled are what the maps asked for.
pub fn check_physics(sim: &Sim) -> Result<(), String> {
    let w = sim.view();
    if w.net().active_flows() != 0 {
        return Err(format!("{} flows left at the end", w.net().active_flows()));
    }
    for (r, res) in w.net().resources.iter().enumerate() {
        if res.load.abs() > 1e-6 * res.capacity.max(1.0) {
            return Err(format!("resource {r} still carries {} MB/s", res.load));
        }
        if res.peak > 1.0 + 1e-6 {
            return Err(format!(
                "resource {r} peaked at {} of its capacity",
                res.peak
            ));
        }
    }
    for (i, c) in w.cpus().iter().enumerate() {
        if c.computing() != 0 {
            return Err(format!(
                "node {i}: {} attempts still computing",
                c.computing()
            ));
        }
    }
    for a in w.attempts() {
        let t = a.times;
        let sum = t.startup as u64 + t.read as u64 + t.compute as u64 + t.shuffle as u64;
        let life = a.end().unwrap_or(w.now()) - a.start;
        if sum > life {
            return Err(format!(
                "{}/{:?}{}: phases {sum} ms over a life of {life} ms",
                w.job(a.job).name,
                a.kind,
                a.task
            ));
        }
        if a.outcome == Outcome::Succeeded && sum != life {
            return Err(format!(
                "{}/{:?}{}: phases {sum} ms but it ran {life} ms",
                w.job(a.job).name,
                a.kind,
                a.task
            ));
        }
    }
    Ok(())
}

/// Runs `specs` on `seeds` seeds of the bundled scenario `name` (the
/// scenario's seed, +1, ...; `slotsim compare` runs seeds 1 to N
/// instead): one row per spec.
pub fn compare(name: &str, specs: &[&str], seeds: u64) -> Vec<Vec<Summary>> {
    let path = scenario_path(name);
    let base = scenario::load_file(&path, None, None).unwrap();
    let all: Vec<Vec<Scenario>> = specs
        .iter()
        .map(|p| {
            (0..seeds)
                .map(|k| scenario::load_file(&path, Some(p), Some(base.seed + k)).unwrap())
                .collect()
        })
        .collect();
    slotsim::runs::compare::run_all(all, &|_, _| {})
        .into_iter()
        .map(|row| row.into_iter().map(|r| r.unwrap()).collect())
        .collect()
}

/// The mean of `f` over a row of runs.
pub fn mean(rows: &[Summary], f: impl Fn(&Summary) -> f64) -> f64 {
    slotsim::report::compare::mean_sd(&rows.iter().map(f).collect::<Vec<_>>()).0
}

/// `[[events]]` tables for manual heartbeats: (time in ms, node) each.
pub fn heartbeat_events(beats: &[(u64, u32)]) -> String {
    beats
        .iter()
        .map(|(at, node)| {
            format!("[[events]]\nat = \"{at}ms\"\naction = \"heartbeat\"\nnode = {node}\n")
        })
        .collect()
}

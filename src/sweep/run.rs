//! Running a shard of a plan: its cells in parallel on the local cores, one
//! JSON line per cell appended to `DIR/shard-K-of-N.jsonl`.
//!
//! Crash-safe and resumable: each line is written whole and flushed, in
//! cell order (a finished cell waits for the cells before it, so the file
//! is the same whatever the thread schedule); a re-run skips the cells
//! already there and drops a torn last line. A line of another plan (its
//! `plan` hash differs) stops the run: results of different plans never mix.

use super::error::{CellError, FailedCell, ShardRunError, ShardSpecError};
use super::plan::{Cell, Plan};
pub use super::report::Report;
use crate::report::summary::summarize;
use crate::runs::build_sim;
use rayon::prelude::*;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::Instant;

/// Which slice of the grid: shard K of N (1-based) runs the cells whose
/// index ≡ K − 1 (mod N).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    pub k: u64,
    pub n: u64,
}

impl Shard {
    pub fn whole() -> Shard {
        Shard { k: 1, n: 1 }
    }

    /// Parses `K/N`.
    pub fn parse(s: &str) -> Result<Shard, ShardSpecError> {
        let not_kn = || ShardSpecError::NotKN(s.to_string());
        let (k, n) = s.split_once('/').ok_or_else(not_kn)?;
        let (k, n): (u64, u64) = (
            k.trim().parse().map_err(|_| not_kn())?,
            n.trim().parse().map_err(|_| not_kn())?,
        );
        if n == 0 || k == 0 || k > n {
            return Err(ShardSpecError::OutOfRange(s.to_string()));
        }
        Ok(Shard { k, n })
    }

    pub fn file(&self, dir: &Path) -> PathBuf {
        dir.join(format!("shard-{}-of-{}.jsonl", self.k, self.n))
    }

    pub fn cells(&self, total: u64) -> impl Iterator<Item = u64> + '_ {
        (self.k - 1..total).step_by(self.n as usize)
    }
}

/// Reads the lines already in `file`: the finished cells of `plan`. Drops
/// a torn last line (the file is truncated to its last whole line).
fn resume(file: &Path, plan: &Plan) -> Result<BTreeMap<u64, ()>, ShardRunError> {
    let io = |what: &'static str| {
        move |source| ShardRunError::Io {
            what,
            path: file.to_path_buf(),
            source,
        }
    };
    let at = |line: usize, reason: String| ShardRunError::Resume {
        path: file.to_path_buf(),
        line,
        reason,
    };
    let mut done = BTreeMap::new();
    let Ok(f) = File::open(file) else {
        return Ok(done);
    };
    let mut good = 0u64;
    let mut other_plan = None;
    let mut reader = BufReader::new(f);
    let mut line = String::new();
    let mut n = 0;
    loop {
        line.clear();
        let read = reader.read_line(&mut line).map_err(io("read"))?;
        if read == 0 {
            break;
        }
        n += 1;
        let whole = line.ends_with('\n');
        let parsed: Option<Value> = serde_json::from_str(line.trim_end()).ok();
        let Some(v) = parsed.filter(|_| whole) else {
            // A torn line can only be the last one.
            let rest = reader.fill_buf().map(|b| b.is_empty()).unwrap_or(true);
            if rest {
                break;
            }
            return Err(at(
                n,
                "a damaged line in the middle of the file; expected one JSON object per line"
                    .into(),
            ));
        };
        // A policy whose script changed is the likeliest reason a line is
        // of another plan, and the more useful thing to say.
        if let Some(why) = changed_script(plan, &v) {
            return Err(at(n, why));
        }
        if v["plan"].as_str() != Some(plan.hash.as_str()) {
            other_plan.get_or_insert(n);
            continue;
        }
        let Some(i) = v["cell"]["index"].as_u64() else {
            return Err(at(n, "a line without cell.index".into()));
        };
        done.insert(i, ());
        good += read as u64;
    }
    if let Some(n) = other_plan {
        return Err(at(
            n,
            format!(
                "results of another plan (or of changed scenarios); expected plan {} — use another --out",
                plan.hash
            ),
        ));
    }
    let len = std::fs::metadata(file).map(|m| m.len()).unwrap_or(0);
    if len > good {
        // The whole lines are copied beside the file and renamed over it:
        // the file is never cut in place, so a crash here loses nothing.
        let mut whole = std::fs::read(file).map_err(io("read"))?;
        whole.truncate(good as usize);
        let aside = aside_of(file);
        std::fs::write(&aside, &whole)
            .and_then(|_| std::fs::rename(&aside, file))
            .inspect_err(|_| {
                let _ = std::fs::remove_file(&aside);
            })
            .map_err(io("repair"))?;
    }
    Ok(done)
}

/// Where `file` is rewritten before it is renamed over it: beside it.
fn aside_of(file: &Path) -> PathBuf {
    let name = file
        .file_name()
        .map_or_else(|| "shard".into(), |n| n.to_string_lossy().into_owned());
    file.with_file_name(format!(".{name}.partial"))
}

/// Whether the external policy a finished cell ran has changed since: its
/// script's SHA-256 then (the line's `cell.external.script_sha256`) is not
/// the file's now, or one of the files its hello named (`cell.external.files`)
/// is not what it was. Why, naming both hashes, if so.
fn changed_script(plan: &Plan, line: &Value) -> Option<String> {
    let index = line["cell"]["index"].as_u64()?;
    if index >= plan.cell_count() {
        return None;
    }
    let cell = plan.cell(index);
    if let Some(why) = changed_file(plan, &cell, index, line) {
        return Some(why);
    }
    let then = line["cell"]["external"]["script_sha256"].as_str()?;
    let script = line["cell"]["external"]["script"].as_str().unwrap_or("?");
    let now = plan.policy_script(&cell);
    if now.as_ref().is_some_and(|s| s.sha256 == then) {
        return None;
    }
    let now = match now {
        Some(s) => format!("SHA-256 {} now", s.sha256),
        None => "no readable file now".to_string(),
    };
    Some(format!(
        "cell {index} ran policy {} with script {script} of SHA-256 {then}; it is {now}: the policy changed under a half-finished sweep. Put the script back to finish this sweep, or run the changed policy into another --out",
        plan.policies[cell.policy]
    ))
}

/// Whether a file the policy of finished cell `index` named in its hello
/// has changed since (or gone). Why, naming both hashes, if so.
fn changed_file(plan: &Plan, cell: &Cell, index: u64, line: &Value) -> Option<String> {
    let files = line["cell"]["external"]["files"].as_array()?;
    for f in files {
        let (Some(path), Some(then)) = (f["path"].as_str(), f["sha256"].as_str()) else {
            continue;
        };
        let now = crate::sched::external::Script::read(Path::new(path));
        if now.as_ref().is_some_and(|s| s.sha256 == then) {
            continue;
        }
        let now = match now {
            Some(s) => format!("SHA-256 {} now", s.sha256),
            None => "no readable file now".to_string(),
        };
        return Some(format!(
            "cell {index} ran policy {} with file {path} (named in its hello) of SHA-256 {then}; it is {now}: the policy changed under a half-finished sweep. Put the file back to finish this sweep, or run the changed policy into another --out",
            plan.policies[cell.policy]
        ));
    }
    None
}

/// The JSON line of one cell: the run's summary plus `cell` and `plan`.
pub fn run_cell(plan: &Plan, cell: &Cell) -> Result<String, CellError> {
    let sc = plan.scenario(cell)?;
    let mut sim = build_sim(&sc)?;
    sim.drop_attempt_records();
    sim.run_until(None);
    sim.end(sim.ended_by(None));
    if let Some(why) = sim.halted() {
        return Err(CellError::Policy(why.to_string()));
    }
    let sum = summarize(&sim);
    let mut v = serde_json::to_value(&sum)?;
    let overrides: serde_json::Map<String, Value> = plan
        .combo(cell)
        .into_iter()
        .map(|(k, t)| (k, toml_to_json(&t)))
        .collect();
    // The grid's own overrides, without the variant's: what a cell shares
    // with the same cell of another variant.
    let grid: serde_json::Map<String, Value> = plan
        .overrides
        .iter()
        .zip(&cell.combo)
        .map(|(o, &i)| (o.key.clone(), toml_to_json(&o.values[i])))
        .collect();
    let obj = v.as_object_mut().expect("a summary is an object");
    let mut c = json!({
        "index": cell.index,
        "of": plan.cell_count(),
        "scenario": plan.scenarios[cell.scenario].name,
        // Its label (DESIGN: a label names an external policy in cells),
        // unique in the plan; "" for each scenario's own.
        "policy": cell_policy(&plan.policies[cell.policy]),
        "seed": cell.seed,
        "overrides": overrides,
        "grid": grid,
    });
    if let Some(name) = &plan.variants[cell.variant].name {
        c["variant"] = json!(name);
    }
    // An external policy: what it said it is, and its script's hash.
    let said = &obj["config"]["scheduler"]["external"]["policies"][0];
    let script = plan.policy_script(cell);
    if !said.is_null() || script.is_some() {
        c["external"] = json!({
            "name": said["name"],
            "version": said["version"],
            "script": script.as_ref().map(|s| s.path.as_str()),
            "script_sha256": script.as_ref().map(|s| s.sha256.as_str()),
        });
        if said["files"].is_array() {
            c["external"]["files"] = said["files"].clone();
        }
    }
    obj.insert("cell".into(), c);
    obj.insert("plan".into(), json!(plan.hash));
    Ok(serde_json::to_string(&v)?)
}

fn toml_to_json(t: &toml::Value) -> Value {
    match t {
        toml::Value::String(s) => json!(s),
        toml::Value::Integer(i) => json!(i),
        toml::Value::Float(f) => json!(f),
        toml::Value::Boolean(b) => json!(b),
        toml::Value::Datetime(d) => json!(d.to_string()),
        toml::Value::Array(a) => Value::Array(a.iter().map(toml_to_json).collect()),
        toml::Value::Table(t) => Value::Object(
            t.iter()
                .map(|(k, v)| (k.clone(), toml_to_json(v)))
                .collect(),
        ),
    }
}

/// Runs shard `shard` of `plan` into `dir`, resuming what is there.
/// `progress` is told (done, total) as cells finish. Every cell runs even
/// when one fails ([`ShardRunError::Cells`] names them all), unless
/// `fail_fast`: then no cell starts after the first failure, and the
/// failed cell of lowest index is the error ([`ShardRunError::Cell`]).
/// The file is created with its first line: a shard none of whose cells
/// finished leaves no file.
pub fn run_shard(
    plan: &Plan,
    shard: Shard,
    dir: &Path,
    fail_fast: bool,
    progress: &(dyn Fn(u64, u64) + Sync),
) -> Result<Report, ShardRunError> {
    std::fs::create_dir_all(dir).map_err(|source| ShardRunError::Io {
        what: "create",
        path: dir.to_path_buf(),
        source,
    })?;
    let file = shard.file(dir);
    let done = resume(&file, plan)?;
    let mine: Vec<u64> = shard.cells(plan.cell_count()).collect();
    let todo: Vec<u64> = mine
        .iter()
        .copied()
        .filter(|i| !done.contains_key(i))
        .collect();
    let started = Instant::now();
    // Said now, before any cell runs, whether the file can be written: an
    // existing one is opened for appending (never truncated), a new one is
    // probed and created with the first line.
    let open = || {
        OpenOptions::new()
            .create(true)
            .append(true)
            .open(&file)
            .map_err(|source| ShardRunError::Io {
                what: "write",
                path: file.clone(),
                source,
            })
    };
    let out = if file.exists() {
        Some(open()?)
    } else {
        let probe = aside_of(&file);
        std::fs::write(&probe, b"")
            .and_then(|_| std::fs::remove_file(&probe))
            .map_err(|source| ShardRunError::Io {
                what: "write",
                path: file.clone(),
                source,
            })?;
        None
    };
    // Lines wait here until every cell before them is written (or has
    // failed: a failed cell is skipped, not written, so a resume runs it
    // again).
    struct Writer {
        out: Option<File>,
        next: usize,
        ready: BTreeMap<usize, Option<String>>,
        written: u64,
        failed: Vec<(u64, CellError)>,
        err: Option<ShardRunError>,
    }
    let w = Mutex::new(Writer {
        out,
        next: 0,
        ready: BTreeMap::new(),
        written: 0,
        failed: Vec::new(),
        err: None,
    });
    let stop = AtomicBool::new(false);
    let total = todo.len() as u64;
    progress(0, total);
    todo.par_iter().enumerate().for_each(|(pos, &i)| {
        let line = if stop.load(Ordering::SeqCst) {
            None
        } else {
            Some(run_cell(plan, &plan.cell(i)))
        };
        let mut g = w.lock().expect("the writer lock");
        match line {
            Some(Ok(l)) => {
                g.ready.insert(pos, Some(l));
            }
            Some(Err(source)) => {
                if fail_fast {
                    stop.store(true, Ordering::SeqCst);
                }
                g.failed.push((i, source));
                g.ready.insert(pos, None);
            }
            // Not run (--fail-fast after a failure): a resume runs it.
            None => {
                g.ready.insert(pos, None);
            }
        }
        while let Some(l) = {
            let n = g.next;
            g.ready.remove(&n)
        } {
            let Some(l) = l else {
                g.next += 1;
                continue;
            };
            if g.err.is_some() {
                return;
            }
            if g.out.is_none() {
                match open() {
                    Ok(f) => g.out = Some(f),
                    Err(e) => {
                        g.err = Some(e);
                        return;
                    }
                }
            }
            let out = g.out.as_mut().expect("opened above");
            let r = out
                .write_all(format!("{l}\n").as_bytes())
                .and_then(|_| out.flush());
            if let Err(source) = r {
                g.err.get_or_insert(ShardRunError::Io {
                    what: "write",
                    path: file.clone(),
                    source,
                });
                return;
            }
            g.next += 1;
            g.written += 1;
        }
        let d = g.written;
        drop(g);
        progress(d, total);
    });
    let mut g = w.into_inner().expect("the writer lock");
    if let Some(e) = g.err {
        return Err(e);
    }
    let report = Report {
        file,
        cells: mine.len() as u64,
        skipped: mine.len() as u64 - total,
        ran: total,
        wall_s: started.elapsed().as_secs_f64(),
    };
    if !g.failed.is_empty() {
        g.failed.sort_by_key(|f| f.0);
        let named = |index: u64, source: CellError| {
            let c = plan.cell(index);
            FailedCell {
                index,
                scenario: plan.scenarios[c.scenario].name.clone(),
                policy: plan.policies[c.policy].clone(),
                variant: plan.variants[c.variant].name.clone(),
                seed: c.seed,
                source,
            }
        };
        if fail_fast {
            let (index, source) = g.failed.swap_remove(0);
            return Err(ShardRunError::Cell(Box::new(named(index, source))));
        }
        let failed = g
            .failed
            .into_iter()
            .map(|(index, source)| named(index, source))
            .collect();
        return Err(ShardRunError::Cells { failed, report });
    }
    Ok(report)
}

/// A cell's `policy`: the spec's label (the spec itself for a built-in).
fn cell_policy(spec: &str) -> String {
    spec.parse::<crate::model::PolicySpec>()
        .map(|p| p.label())
        .unwrap_or_else(|_| spec.to_string())
}

//! `compare`'s runs: the same scenario under several policies and seeds,
//! in parallel (the table is `report::compare`'s).

use super::build_sim;
use crate::model::Scenario;
use crate::report::{summarize, Summary};
use crate::sim::SimError;
use rayon::prelude::*;

/// Why one run of a comparison produced no summary.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error("{0}")]
    Build(#[from] SimError),
    /// Its policy stopped the run (a policy process that failed).
    #[error("{0}")]
    Halted(String),
}

/// Runs every (policy, seed) pair, each to its end or its failure (one
/// failing cell stops no other). `scenarios[i][k]` is policy i with seed
/// k, already loaded (and so validated). Results keep that order whatever
/// the thread schedule, so output is deterministic. `progress(done, all)`
/// is called as each run ends, from the thread that ran it.
pub fn run_all(
    scenarios: Vec<Vec<Scenario>>,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Vec<Vec<Result<Summary, RunError>>> {
    let flat: Vec<(usize, usize, Scenario)> = scenarios
        .into_iter()
        .enumerate()
        .flat_map(|(i, v)| v.into_iter().enumerate().map(move |(k, s)| (i, k, s)))
        .collect();
    let all = flat.len();
    let done = std::sync::atomic::AtomicUsize::new(0);
    let results: Vec<(usize, usize, Result<Summary, RunError>)> = flat
        .into_par_iter()
        .map(|(i, k, sc)| {
            let r = run_one(&sc);
            let n = done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
            progress(n, all);
            (i, k, r)
        })
        .collect();
    let n = results.iter().map(|r| r.0 + 1).max().unwrap_or(0);
    let mut out: Vec<Vec<Result<Summary, RunError>>> = (0..n).map(|_| Vec::new()).collect();
    for (i, _k, r) in results {
        out[i].push(r);
    }
    out
}

/// One run to its end, summarised.
fn run_one(sc: &Scenario) -> Result<Summary, RunError> {
    let mut sim = build_sim(sc)?;
    sim.drop_attempt_records();
    sim.run_until(None);
    sim.end(sim.ended_by(None));
    match sim.halted() {
        Some(why) => Err(RunError::Halted(why.to_string())),
        None => Ok(summarize(&sim)),
    }
}

#[cfg(test)]
mod tests {
    use super::run_all;
    use crate::scenario::load_str;
    use std::sync::Mutex;

    #[test]
    fn progress_hears_of_every_run_once_as_it_ends() {
        let text = "[cluster]\nnodes = 4\n[[jobs]]\nname = \"a\"\nprofile = \"wordcount\"\nmaps = 4\nreduces = 1\n";
        let all: Vec<Vec<_>> = ["fifo", "fair"]
            .iter()
            .map(|p| {
                (1..=3)
                    .map(|seed| load_str(text, "t.toml", Some(p), Some(seed)).unwrap())
                    .collect()
            })
            .collect();
        let told = Mutex::new(Vec::new());
        let rows = run_all(all, &|done, of| told.lock().unwrap().push((done, of)));
        assert_eq!(rows.len(), 2);
        assert!(rows
            .iter()
            .all(|r| r.len() == 3 && r.iter().all(Result::is_ok)));
        let mut told = told.into_inner().unwrap();
        told.sort_unstable();
        assert_eq!(told, (1..=6).map(|d| (d, 6)).collect::<Vec<_>>());
    }
}

//! A scenario's `run = N` events: a `switch_policy` for one run of a
//! side-by-side session (`--policies a,b`) alone. A scenario with one is
//! cut to each run's own script before it runs; a single run refuses it.

use crate::error::InputError;
use crate::model::{EventSpec, Scenario, SideRun};

/// The most runs a side-by-side session holds (`--policies a,b,c,d`).
pub const MAX_SIDE_RUNS: usize = 4;

fn at(r: &SideRun, msg: String) -> InputError {
    InputError {
        origin: r.origin.clone(),
        pos: Some((r.line, r.col)),
        message: msg,
    }
}

/// `sc` cut to the script of run `k` (0-based) of `of` side by side: its
/// `run = k + 1` events kept (as its own), the other runs' dropped. An
/// error at the first event naming a run past `of`.
pub fn side_run(sc: &mut Scenario, k: usize, of: usize) -> Result<(), InputError> {
    if let Some(r) = sc
        .events
        .iter()
        .filter_map(|e| e.run.as_ref())
        .find(|r| r.n as usize > of)
    {
        return Err(at(
            r,
            format!(
                "run = {}, but {of} {} side by side; expected a run from 1 to {of}",
                r.n,
                if of == 1 {
                    "policy runs"
                } else {
                    "policies run"
                }
            ),
        ));
    }
    sc.events
        .retain(|e| e.run.as_ref().is_none_or(|r| r.n as usize == k + 1));
    for e in &mut sc.events {
        e.run = None;
    }
    Ok(())
}

/// An error at the first `run = N` event: a single run has no other run
/// to leave it to.
pub fn single_run(sc: &Scenario) -> Result<(), InputError> {
    match sc.events.iter().find_map(|e: &EventSpec| e.run.as_ref()) {
        None => Ok(()),
        Some(r) => Err(at(
            r,
            format!(
                "run = {} is for one run of a side-by-side session, and this is a single run; expected `slotsim compare {} --policies A,B` (or no run key)",
                r.n, r.origin
            ),
        )),
    }
}

//! Helpers shared by the integration tests.
#![allow(dead_code)]

use slotsim::model::Scenario;
use slotsim::report::{summarize, Summary};
use slotsim::scenario;
use slotsim::sim::engine::InspectRecord;
use slotsim::sim::Sim;
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

pub fn run(sc: &Scenario) -> (Sim, Summary) {
    let mut sim = Sim::new(sc).expect("sim builds");
    sim.run_until(None);
    let s = summarize(&sim);
    (sim, s)
}

/// Runs and collects every inspect record.
pub fn run_inspect(sc: &Scenario) -> (Sim, Vec<InspectRecord>) {
    let recs = Arc::new(Mutex::new(Vec::new()));
    let r2 = recs.clone();
    let mut sim = Sim::new(sc).expect("sim builds");
    sim.set_inspector(Box::new(move |r| r2.lock().unwrap().push(r.clone())));
    sim.run_until(None);
    let out = recs.lock().unwrap().clone();
    (sim, out)
}

/// `job/task` names of attempts in launch order.
pub fn launches(sim: &Sim) -> Vec<String> {
    sim.w
        .attempts
        .iter()
        .map(|a| {
            let p = if a.kind == slotsim::sim::Kind::Map {
                'm'
            } else {
                'r'
            };
            format!("{}/{}{}", sim.w.job(a.job).name, p, a.task)
        })
        .collect()
}

//! A checkpoint is the run as it stood: restored, the run goes on exactly as
//! it went on from there, however far the run that took it has gone since
//! (a checkpoint shares the run's jobs, attempts and records until the run
//! changes them, so a change that leaked into a checkpoint would show here).

use super::common::{load, scenario_path};
use slotsim::report::summarize;
use slotsim::report::trace::{write_flows, write_trace};
use slotsim::sim::Sim;

/// What a run leaves: its summary, trace and flows, byte for byte.
fn outputs(sim: &Sim) -> String {
    let sum = summarize(sim);
    let mut out = serde_json::to_vec(&sum).unwrap();
    write_trace(sim, &mut out).unwrap();
    write_flows(sim, &mut out).unwrap();
    String::from_utf8(out).unwrap()
}

fn sim_of(sc: &slotsim::model::Scenario) -> Sim {
    let mut sim = slotsim::runs::build_sim(sc).unwrap();
    sim.record_flows();
    sim.keep_journal();
    sim
}

#[test]
fn a_restored_checkpoint_goes_on_as_the_run_did_whatever_the_run_did_since() {
    let events = scenario_path("../scripts/same-outputs/typed-events.toml");
    let yarn_events = scenario_path("../scripts/same-outputs/yarn-events.toml");
    let cases = [
        load("quickstart.toml", None),
        load("yarn-quickstart.toml", None),
        load("stragglers.toml", None),
        slotsim::scenario::load_file(&events, None, None).unwrap(),
        slotsim::scenario::load_file(&yarn_events, Some("yarn-fair"), None).unwrap(),
    ];
    for sc in cases {
        let whole = {
            let mut sim = sim_of(&sc);
            sim.run_until(None);
            (outputs(&sim), sim.view().now())
        };
        let end = whole.1;
        let mut sim = sim_of(&sc);
        sim.run_until(Some(end / 4));
        let first = sim.checkpoint().expect("a built-in policy is copied");
        sim.run_until(Some(end / 2));
        let second = sim.checkpoint().unwrap();
        // The run goes on past both, changing what they share with it.
        sim.run_until(Some(3 * end / 4));
        for (name, cp) in [("the first", &first), ("the second", &second)] {
            let mut again = sim_of(&sc);
            again.restore(cp).unwrap();
            assert_eq!(again.view().now(), cp.at());
            again.run_until(None);
            assert!(
                outputs(&again) == whole.0,
                "{}: {name} checkpoint restored",
                sc.name
            );
        }
        // Restored into the run that took them, in turn.
        sim.restore(&second).unwrap();
        sim.run_until(Some(3 * end / 4));
        sim.restore(&first).unwrap();
        sim.run_until(None);
        assert!(
            outputs(&sim) == whole.0,
            "{}: the run put back twice",
            sc.name
        );
    }
}

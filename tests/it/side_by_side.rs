//! Runs side by side (`runs::side`): one clock whatever the budget cuts,
//! the same results as each run alone, and commands at one instant.

use crate::common::{load, load_text, run, scenario_path};
use slotsim::model::{Action, Scenario};
use slotsim::report::summarize;
use slotsim::runs::side::{Reached, SideBySide};
use slotsim::scenario;

fn json(s: &slotsim::report::Summary) -> serde_json::Value {
    serde_json::to_value(s).unwrap()
}

fn pair(name: &str, specs: &[&str]) -> Vec<Scenario> {
    specs.iter().map(|p| load(name, Some(p))).collect()
}

/// The top-level keys on which two summaries differ.
fn diff(a: &serde_json::Value, b: &serde_json::Value) -> String {
    let (a, b) = (a.as_object().unwrap(), b.as_object().unwrap());
    let keys: Vec<&String> = a.keys().filter(|k| a.get(*k) != b.get(*k)).collect();
    format!("differ at {keys:?}")
}

#[track_caller]
fn same(a: &slotsim::report::Summary, b: &slotsim::report::Summary, k: usize) {
    let (a, b) = (json(a), json(b));
    assert!(a == b, "run {}: {}", k + 1, diff(&a, &b));
}

#[test]
fn every_advance_leaves_every_run_at_one_clock_and_each_run_as_alone() {
    let scs = pair("quickstart.toml", &["fifo", "fair"]);
    let mut side = SideBySide::new(&scs).unwrap();
    let (mut frames, mut cut) = (0, 0);
    let mut target = 0;
    loop {
        // A frame's budget: 37 events, whatever instant that reaches.
        let mut left = 37;
        target += 2_000;
        let r = side.advance_to(target, || {
            left -= 1;
            left >= 0
        });
        frames += 1;
        cut += usize::from(r == Reached::Budget);
        let clocks: Vec<u64> = side.runs().iter().map(|s| s.view().now()).collect();
        if r == Reached::Target {
            assert_eq!(side.now(), target);
            assert!(
                clocks.iter().all(|&c| c == target),
                "frame {frames}: {clocks:?}"
            );
        } else {
            // Cut by the budget: no run past the instant, none with an
            // event before it left.
            assert!(
                clocks.iter().all(|&c| c <= side.now()),
                "frame {frames}: {clocks:?}"
            );
            for k in 0..clocks.len() {
                let next = side.run_mut(k).next_due();
                assert!(
                    next.is_none_or(|t| t >= side.now()),
                    "frame {frames}: run {k} at {next:?}"
                );
            }
            target = side.now();
        }
        if r == Reached::End {
            break;
        }
        assert!(frames < 100_000, "the runs end");
    }
    assert!(
        cut > 10,
        "budgets cut {cut} of {frames} frames: the test cuts some"
    );
    for (k, sc) in scs.iter().enumerate() {
        let (_, alone) = run(sc);
        same(&summarize(&side.runs()[k]), &alone, k);
    }
}

#[test]
fn a_command_reaches_every_run_at_one_instant_and_a_switch_one_run() {
    let scs = pair("quickstart.toml", &["fifo", "fair"]);
    let mut side = SideBySide::new(&scs).unwrap();
    side.advance_to(30_000, || true);
    assert_eq!(side.schedule_all(30_000, Action::FailNode(1)), 30_001);
    let fifo = slotsim::model::PolicySpec::plain("fifo");
    side.schedule_one(1, 45_000, Action::SwitchPolicy(fifo));
    side.advance_to(u64::MAX, || true);
    // The same as compare's runs of the scenario the session makes.
    let text = std::fs::read_to_string(scenario_path("quickstart.toml")).unwrap();
    let saved = format!(
        "{text}\n[[events]]\nat = \"30001ms\"\naction = \"fail_node\"\nnode = 1\n\n[[events]]\nat = \"45s\"\naction = \"switch_policy\"\npolicy = \"fifo\"\nrun = 2\n"
    );
    let mut want = Vec::new();
    for (k, p) in ["fifo", "fair"].iter().enumerate() {
        let mut sc = scenario::load_str(&saved, "saved.toml", Some(p), None).unwrap();
        scenario::side_run(&mut sc, k, 2).unwrap();
        want.push(json(&run(&sc).1));
    }
    for (k, want) in want.iter().enumerate() {
        let got = json(&summarize(&side.runs()[k]));
        assert!(got == *want, "run {}: {}", k + 1, diff(&got, want));
    }
    let switched = |k: usize| side.runs()[k].policy_specs().len();
    assert_eq!(
        (switched(0), switched(1)),
        (1, 2),
        "the switch is run 2's alone"
    );
    // The failure changed both: neither equals its run without it.
    let plain = load_text(&text, Some("fifo"));
    assert_ne!(json(&summarize(&side.runs()[0])), json(&run(&plain).1));
}

#[test]
fn one_run_or_five_are_not_side_by_side() {
    let one = pair("quickstart.toml", &["fifo"]);
    assert!(SideBySide::new(&one).is_err());
    let five = pair(
        "quickstart.toml",
        &["fifo", "fair", "sjf", "capacity", "fifo"],
    );
    let e = SideBySide::new(&five).err().unwrap().to_string();
    assert_eq!(e, "5 policies given; expected 2 to 4 side by side");
}

//! Hadoop 1.x's job set-up and clean-up tasks (docs/model.md): a job's
//! tasks wait for its set-up task, it finishes when its clean-up task
//! ends, each takes one slot (a map slot if one is free), the heartbeat
//! that hands one out hands out nothing else, a node failure runs it
//! again, and jobs with fixed task times have neither.

use crate::common;
use common::*;
use slotsim::sim::jobtask::JobTaskKind;
use slotsim::sim::{Kind, Outcome};

/// One node, heartbeats every second; job "a" (4 maps, 1 reduce) at 0 s.
const BASE: &str = r#"
name = "jobtasks"
seed = 3
[cluster]
nodes = 1
map_slots = 2
reduce_slots = 1
heartbeat = "1s"
[tasks]
duration_cv = 0
SETUP
[scheduler]
policy = "fifo"
[[jobs]]
name = "a"
profile = "wordcount"
input = "512MB"
reduces = 1
"#;

fn scenario(setup: &str) -> String {
    BASE.replace("SETUP", setup)
}

#[test]
fn a_jobs_tasks_run_between_its_set_up_and_its_clean_up() {
    let (sim, s) = run(&load_text(
        &scenario("setup = \"2s\"\ncleanup = \"3s\""),
        None,
    ));
    assert_eq!(s.jobs_finished, 1);
    let w = sim.view();
    let runs = &w.job_tasks();
    assert_eq!(runs.len(), 2, "one set-up, one clean-up");
    let (setup, cleanup) = (&runs[0], &runs[1]);
    assert_eq!(setup.kind, JobTaskKind::Setup);
    assert_eq!(cleanup.kind, JobTaskKind::Cleanup);
    // The first heartbeat (at 0 s) hands out the set-up task in a map slot
    // and nothing else, though a map slot is still free.
    assert_eq!((setup.start, setup.end), (0, Some(2_000)));
    assert_eq!(setup.slot_kind, Kind::Map);
    let first = w.attempts().iter().map(|a| a.start).min().unwrap();
    assert!(
        first >= 2_000,
        "a map at {first} ms, before the set-up ended"
    );
    assert!(w.attempts().iter().all(|a| a.start != 0));
    // The clean-up starts after the last task and the job ends with it.
    let last = w.attempts().iter().filter_map(|a| a.end()).max().unwrap();
    assert!(cleanup.start >= last && cleanup.start - last <= 1_000);
    assert_eq!(cleanup.end, Some(cleanup.start + 3_000));
    assert_eq!(w.jobs()[0].finished_at, cleanup.end);
    // Off: neither, and the job finishes with its last task.
    let (sim, _) = run(&load_text(
        &scenario("setup = \"off\"\ncleanup = \"off\""),
        None,
    ));
    assert!(sim.view().job_tasks().is_empty());
    let last = sim
        .view()
        .attempts()
        .iter()
        .filter_map(|a| a.end())
        .max()
        .unwrap();
    assert_eq!(sim.view().jobs()[0].finished_at, Some(last));
    // "auto" lasts the task start-up.
    let (sim, _) = run(&load_text(&scenario("startup = \"1.5s\""), None));
    let t = &sim.view().job_tasks()[0];
    assert_eq!(t.end, Some(t.start + 1_500));
}

#[test]
fn a_set_up_on_a_failed_node_runs_again_and_fixed_time_jobs_have_none() {
    let text = scenario("setup = \"5s\"").replace("nodes = 1", "nodes = 2")
        + "[[events]]\nat = \"2s\"\naction = \"fail_node\"\nnode = 0\n";
    let (sim, s) = run(&load_text(&text, None));
    assert_eq!(s.jobs_finished, 1);
    let setups: Vec<_> = sim
        .view()
        .job_tasks()
        .iter()
        .filter(|t| t.kind == JobTaskKind::Setup)
        .collect();
    assert_eq!(setups.len(), 2, "{setups:?}");
    assert_eq!(
        (setups[0].node, setups[0].outcome, setups[0].end),
        (0, Outcome::Failed, Some(2_000))
    );
    assert_eq!((setups[1].node, setups[1].attempt), (1, 1));
    assert_eq!(setups[1].outcome, Outcome::Succeeded);
    let first = sim.view().attempts().iter().map(|a| a.start).min().unwrap();
    assert!(first >= setups[1].end.unwrap());
    // Fixed task times: no set-up, no clean-up, whatever [tasks] says.
    let fixed = scenario("setup = \"5s\"").replace(
        "profile = \"wordcount\"",
        "profile = \"wordcount\"\nmap_time = \"10s\"\nreduce_time = \"10s\"",
    );
    let (sim, _) = run(&load_text(&fixed, None));
    assert!(sim.view().job_tasks().is_empty());
    assert_eq!(sim.view().attempts().iter().map(|a| a.start).min(), Some(0));
}

/// The node whose heartbeat handed out a set-up task keeps heartbeating
/// while the job waits for it (no skipping ahead to the next arrival as on
/// an idle cluster): it runs the job's maps from its next heartbeat.
#[test]
fn the_node_that_ran_a_set_up_keeps_heartbeating() {
    let text = scenario("setup = \"1500ms\"").replace("nodes = 1", "nodes = 2")
        + "[[jobs]]\nname = \"b\"\nprofile = \"wordcount\"\ninput = \"64MB\"\nreduces = 0\nsubmit = \"120s\"\n";
    let (sim, _) = run(&load_text(&text, None));
    let setup = &sim.view().job_tasks()[0];
    assert_eq!((setup.node, setup.start), (0, 0));
    let on_node0 = sim
        .view()
        .attempts()
        .iter()
        .filter(|a| a.node == 0 && a.job == 0)
        .map(|a| a.start)
        .min()
        .unwrap();
    assert!(on_node0 <= 2_000, "node 0's first map at {on_node0} ms");
}

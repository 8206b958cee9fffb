//! Node failures (docs/model.md): a failed node loses its running attempts
//! (re-queued) and the map outputs it stored for jobs whose reduces are
//! still copying (re-run); a recovered node heartbeats again.

use crate::common;
use common::*;
use slotsim::sim::{Kind, Outcome};

const BASE: &str = r#"
name = "failures"
seed = 9
[cluster]
nodes = 8
racks = 2
map_slots = 2
reduce_slots = 2
heartbeat = "3s"
# Job set-up and clean-up tasks off: the failure at 40 s is timed to
# find node 3 busy with maps and reduces.
[tasks]
setup = "off"
cleanup = "off"
[scheduler]
policy = "POLICY"
slowstart = 0.05
[[jobs]]
name = "sort"
profile = "terasort"
input = "6GB"
reduces = 4
[[jobs]]
name = "wc"
profile = "wordcount"
input = "4GB"
reduces = 2
submit = "10s"
"#;

fn scenario(policy: &str, events: bool) -> String {
    let mut t = BASE.replace("POLICY", policy);
    if events {
        t += "[[events]]\nat = \"40s\"\naction = \"fail_node\"\nnode = 3\n";
        t += "[[events]]\nat = \"70s\"\naction = \"recover_node\"\nnode = 3\n";
    }
    t
}

#[test]
fn a_failed_node_loses_its_work_and_the_run_still_completes() {
    for policy in ["fifo", "fair", "capacity", "fresh"] {
        let (clean, base) = run(&load_text(&scenario(policy, false), None));
        let (sim, s) = run(&load_text(&scenario(policy, true), None));
        assert_eq!(s.jobs_finished, 2, "{policy}: every job finishes");
        let failed: Vec<_> = sim
            .view()
            .attempts()
            .iter()
            .filter(|a| a.outcome == Outcome::Failed)
            .collect();
        assert!(
            !failed.is_empty(),
            "{policy}: node 3 was running something at 40 s"
        );
        for a in &failed {
            assert_eq!((a.node, a.end()), (3, Some(40_000)), "{policy}");
        }
        // Nothing starts on the dead node while it is down; it works again after.
        let on3: Vec<_> = sim
            .view()
            .attempts()
            .iter()
            .filter(|a| a.node == 3)
            .collect();
        assert!(
            on3.iter().all(|a| a.start < 40_000 || a.start >= 70_000),
            "{policy}"
        );
        assert!(
            on3.iter().any(|a| a.start >= 70_000),
            "{policy}: node 3 works again after recovering"
        );
        // Every task still succeeds exactly once.
        for job in sim.view().jobs() {
            for (kind, n) in [
                (Kind::Map, job.maps.len()),
                (Kind::Reduce, job.reduces.len()),
            ] {
                for t in 0..n as u32 {
                    let ok = sim
                        .view()
                        .attempts()
                        .iter()
                        .filter(|a| {
                            a.job == job.id
                                && a.kind == kind
                                && a.task == t
                                && a.outcome == Outcome::Succeeded
                        })
                        .count();
                    assert_eq!(ok, 1, "{policy}: {} {kind:?}{t}", job.name);
                }
            }
        }
        // Maps that had finished on node 3 while reducers were still copying
        // lost their output: those attempts now read killed, and ran again.
        let lost = sim
            .view()
            .attempts()
            .iter()
            .filter(|a| {
                a.kind == Kind::Map
                    && a.node == 3
                    && a.outcome == Outcome::Killed
                    && a.end().unwrap() <= 40_000
            })
            .count();
        assert!(
            lost > 0,
            "{policy}: node 3 had finished maps whose output was lost"
        );
        let map_attempts = sim
            .view()
            .attempts()
            .iter()
            .filter(|a| a.kind == Kind::Map)
            .count();
        let maps: usize = sim.view().jobs().iter().map(|j| j.maps.len()).sum();
        assert!(
            map_attempts > maps + failed.len() - 1,
            "{policy}: lost outputs were re-run"
        );
        assert!(
            s.makespan_s.unwrap() >= base.makespan_s.unwrap(),
            "{policy}: a failure does not speed the run up"
        );
        assert!(clean
            .view()
            .attempts()
            .iter()
            .all(|a| a.outcome == Outcome::Succeeded));
        // The log tells of it.
        let log: Vec<_> = sim
            .journal()
            .iter()
            .map(|(_, n)| format!("{n:?}"))
            .collect();
        assert!(
            log.iter().any(|l| l.contains("NodeFailed"))
                && log.iter().any(|l| l.contains("NodeRecovered"))
        );
    }
}

/// `[failures]`: nodes fail and recover at random, on a stream of their
/// own: the same failures (node and instant) under every policy and from
/// run to run, the work on a failed node lost and run again, and a run
/// that still ends when its jobs do.
#[test]
fn random_failures_are_the_same_under_every_policy_and_end_with_the_run() {
    let failures = |policy: &str| {
        let text = BASE.replace("POLICY", policy) + "[failures]\nmtbf = \"60s\"\nmttr = \"20s\"\n";
        let (sim, s) = run(&load_text(&text, None));
        assert_eq!(s.jobs_finished, 2, "{policy}: every job finishes");
        let events: Vec<(u64, u32)> = sim
            .journal()
            .iter()
            .filter_map(|(t, n)| match n {
                slotsim::sim::Notable::NodeFailed { node, .. } => Some((*t, *node)),
                _ => None,
            })
            .collect();
        let lost = sim
            .view()
            .attempts()
            .iter()
            .filter(|a| a.outcome == Outcome::Failed)
            .count();
        (events, lost, sim.view().now())
    };
    let (fifo, lost_fifo, end_fifo) = failures("fifo");
    let (fair, _, end_fair) = failures("fair");
    assert!(fifo.len() >= 3, "{fifo:?}");
    assert!(lost_fifo > 0);
    // Failures before either run ended are the same, node and instant.
    let common = end_fifo.min(end_fair);
    let before = |v: &[(u64, u32)]| {
        v.iter()
            .filter(|e| e.0 <= common)
            .cloned()
            .collect::<Vec<_>>()
    };
    assert_eq!(before(&fifo), before(&fair));
    assert_eq!(failures("fifo").0, fifo, "the same from run to run");
    // A zero mean is one error at its place.
    let bad = BASE.replace("POLICY", "fifo") + "[failures]\nmtbf = \"0s\"\n";
    let e = slotsim::scenario::load_str(&bad, "f.toml", None, None).unwrap_err();
    assert!(e.to_string().contains("mtbf must be longer than 0"), "{e}");
}

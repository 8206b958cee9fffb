//! Speculative execution: copies of slow tasks shorten a straggler-heavy
//! run, the first attempt to finish wins and the other is killed, and every
//! task still succeeds exactly once.

use crate::common;
use common::*;
use slotsim::sim::{Kind, Outcome};

fn with_mode(mode: &str) -> String {
    let text = std::fs::read_to_string(scenario_path("stragglers.toml")).unwrap();
    let out = text.replace(
        "speculation = \"off\"",
        &format!("speculation = \"{mode}\""),
    );
    assert!(mode == "off" || out != text);
    out
}

/// The mean makespan over six seeds: one seed's makespan moves with
/// where the stragglers fall.
fn mean_makespan(mode: &str) -> f64 {
    let text = with_mode(mode);
    let runs: Vec<f64> = (1..=6)
        .map(|seed| {
            let sc = slotsim::scenario::load_str(&text, "test.toml", None, Some(seed)).unwrap();
            run(&sc).1.makespan_s.unwrap()
        })
        .collect();
    runs.iter().sum::<f64>() / runs.len() as f64
}

#[test]
fn speculation_shortens_a_straggler_heavy_run() {
    let (_, off) = run(&load_text(&with_mode("off"), None));
    assert_eq!(off.speculative.launched, 0);
    let off_mean = mean_makespan("off");
    for mode in ["hadoop", "late"] {
        let (sim, s) = run(&load_text(&with_mode(mode), None));
        assert!(
            s.speculative.launched > 0 && s.speculative.won > 0,
            "{mode}: {:?}",
            s.speculative
        );
        let mean = mean_makespan(mode);
        assert!(
            mean < off_mean,
            "{mode}: mean makespan {mean} vs off {off_mean}"
        );
        // Every task succeeds exactly once; losers are killed, never left running.
        for job in sim.view().jobs() {
            for (kind, n) in [
                (Kind::Map, job.maps.len()),
                (Kind::Reduce, job.reduces.len()),
            ] {
                for t in 0..n as u32 {
                    let atts: Vec<_> = sim
                        .view()
                        .attempts()
                        .iter()
                        .filter(|a| a.job == job.id && a.kind == kind && a.task == t)
                        .collect();
                    let won = atts
                        .iter()
                        .filter(|a| a.outcome == Outcome::Succeeded)
                        .count();
                    assert_eq!(won, 1, "{mode}: {} {kind:?} {t}", job.name);
                    assert!(atts.iter().all(|a| a.outcome != Outcome::Running));
                    if atts.len() > 1 {
                        let end = atts
                            .iter()
                            .find(|a| a.outcome == Outcome::Succeeded)
                            .unwrap()
                            .end();
                        for a in atts.iter().filter(|a| a.outcome == Outcome::Killed) {
                            assert_eq!(a.end(), end, "the loser dies when the winner finishes");
                        }
                        assert!(atts.iter().any(|a| a.speculative));
                    }
                }
            }
        }
        let rules: Vec<&str> = sim
            .view()
            .attempts()
            .iter()
            .filter(|a| a.speculative)
            .map(|a| sim.view().rule(a))
            .collect();
        assert!(
            rules.iter().all(|r| *r == format!("speculate/{mode}")),
            "{rules:?}"
        );
        // A speculative copy never runs on the node of the attempt it copies.
        for a in sim.view().attempts().iter().filter(|a| a.speculative) {
            let orig = sim
                .view()
                .attempts()
                .iter()
                .find(|b| b.job == a.job && b.kind == a.kind && b.task == a.task && !b.speculative)
                .unwrap();
            assert_ne!(orig.node, a.node);
        }
    }
}

#[test]
fn speculation_is_deterministic() {
    let sc = load_text(&with_mode("late"), None);
    let (a, _) = run(&sc);
    let (b, _) = run(&sc);
    let key = |s: &slotsim::sim::Sim| {
        s.view()
            .attempts()
            .iter()
            .map(|a| (a.job, a.task, a.node, a.start, a.end(), a.speculative))
            .collect::<Vec<_>>()
    };
    assert_eq!(key(&a), key(&b));
}

/// Three nodes of 3 map + 1 reduce slots in one rack, LATE, manual
/// heartbeats. X (400 s) runs node-local on node 1 and Y (100 s) on node 2
/// from 1 s, one map each; Z (two maps on node 2) arrives at 70 s. At 80 s
/// LATE would copy X on node 0 (rates 0.0025 and 0.01 per s; the 25th
/// percentile is 0.0044), never on node 1. `beats` are (ms, node) heartbeats after
/// those of nodes 1 and 2 at 1 s.
fn queue_with_a_straggler(policy: &str, beats: &[(u64, u32)]) -> String {
    let mut all = vec![(1_000, 1), (1_000, 2)];
    all.extend_from_slice(beats);
    format!(
        r#"
name = "straggler-at-the-head"
seed = 1
[scheduler]
policy = "{policy}"
[cluster]
nodes = 3
racks = 1
map_slots = 3
reduce_slots = 1
heartbeat = "manual"
[hdfs]
block = "64MB"
replication = 1
[tasks]
speculation = "late"
[[jobs]]
name = "X"
profile = "grep"
maps = 1
reduces = 0
map_time = "400s"
blocks = [[1]]
[[jobs]]
name = "Y"
profile = "grep"
maps = 1
reduces = 0
map_time = "100s"
blocks = [[2]]
[[jobs]]
name = "Z"
profile = "grep"
maps = 2
reduces = 0
map_time = "100s"
blocks = [[2], [2]]
submit = "70s"
{}"#,
        heartbeat_events(&all)
    )
}

/// FIFO looks for a speculative map inside each job's lookup, in queue
/// order, as `obtainNewNonLocalMapTask` does: the head job X has nothing
/// pending, so its straggler's copy takes node 0's slot before Z's pending
/// maps, and it is the heartbeat's one off-switch-or-speculative map. Node
/// 1, where X runs, never gets the copy (`hasRunOnMachine`).
#[test]
fn fifo_gives_the_head_jobs_copy_a_slot_before_the_next_jobs_pending_map() {
    let sc = load_text(
        &queue_with_a_straggler("fifo", &[(80_000, 0), (80_000, 1)]),
        None,
    );
    let (_, recs) = run_inspect(&sc);
    assert_eq!(
        record_at(&recs, 1_000, 1).launched(),
        pairs(&[("X/m0", "fifo/local")])
    );
    assert_eq!(
        record_at(&recs, 1_000, 2).launched(),
        pairs(&[("Y/m0", "fifo/local")])
    );
    // Node 1: Z's maps are rack-local, X's copy may not run here.
    assert_eq!(
        record_at(&recs, 80_000, 1).launched(),
        pairs(&[("Z/m0", "fifo/local")])
    );
    assert_eq!(
        record_at(&recs, 80_000, 0).launched(),
        pairs(&[("X/m0", "speculate/late")])
    );
}

/// The fair scheduler asks a job for a speculative map only once delay
/// scheduling allows it ANY locality (`findNewMapTask` returns before its
/// running tasks below that level). X and Y were launched node-local at
/// 1 s and have not waited since: at NODE level, X gets no copy on node 0
/// (and Z, blocks on node 2, waits too). With no locality delay every job
/// is at ANY: Z (fewest running) takes a rack-local map, then X, first of
/// the tied jobs, has nothing pending and gets its copy.
#[test]
fn fair_speculates_only_at_the_allowed_level_any() {
    let text = queue_with_a_straggler("fair", &[(80_000, 0)]);
    let (_, recs) = run_inspect(&load_text(&text, None));
    assert_eq!(record_at(&recs, 80_000, 0).launched(), pairs(&[]));
    let no_delay = text.replace(
        "[cluster]",
        "[scheduler.fair]\nnode_locality_delay = \"0s\"\nrack_locality_delay = \"0s\"\n[cluster]",
    );
    let (_, recs) = run_inspect(&load_text(&no_delay, None));
    assert_eq!(
        record_at(&recs, 80_000, 0).launched(),
        pairs(&[("Z/m0", "fair/rack-local"), ("X/m0", "speculate/late")])
    );
}

/// A job whose only work left is a straggler counts one more slot of
/// demand (`JobSchedulable.updateDemand`), so the fair scheduler keeps
/// visiting it: on node 0's heartbeats X has no local map and is skipped,
/// its wait grows past the node delay (RACK, where the lookup still returns
/// before running tasks) and then the rack delay (ANY), and at 90 s it gets
/// its copy. Without that demand every map slot would be rejected once
/// nothing is pending, and X's copy would never launch.
#[test]
fn fair_visits_a_job_whose_only_work_is_a_straggler_until_it_may_copy_it() {
    let text = queue_with_a_straggler("fair", &[(80_000, 0), (85_000, 0), (90_000, 0)]).replace(
        "[cluster]",
        "[scheduler.fair]\nnode_locality_delay = \"5s\"\nrack_locality_delay = \"5s\"\n[cluster]",
    );
    // Z (which would take node 0's slots) is not there.
    let cut = text.find("[[jobs]]\nname = \"Z\"").unwrap();
    let end = text[cut..].find("submit = \"70s\"\n").unwrap() + cut + "submit = \"70s\"\n".len();
    let text = format!("{}{}", &text[..cut], &text[end..]);
    let (_, recs) = run_inspect(&load_text(&text, None));
    assert_eq!(record_at(&recs, 80_000, 0).launched(), pairs(&[]));
    assert_eq!(record_at(&recs, 85_000, 0).launched(), pairs(&[]));
    assert_eq!(
        record_at(&recs, 90_000, 0).launched(),
        pairs(&[("X/m0", "speculate/late")])
    );
}

//! HybSMRP (docs/policies.md): the localization ID heartbeat by
//! heartbeat, the dynamic priority against hand-computed numbers (FCFS and
//! SJF settings), invariants, and the paper's comparisons on its setting.

use crate::common;
use common::*;
use slotsim::sched::hybsmrp::factor;

fn value(r: &common::InspectRecord, job: &str, k: &str) -> serde_json::Value {
    r.inspection.jobs[job][k].clone()
}

fn close(a: f64, b: f64, what: &str) {
    assert!((a - b).abs() < 1e-9, "{what}: {a} vs {b}");
}

/// Two nodes; job a's blocks only on node 0. Node 1 misses a local map
/// once (ID null → 1, nothing launched), then on its second miss takes a
/// non-local map and resets; node 0 gets its local map; a new job's
/// arrival resets every ID.
const LOCALIZATION: &str = r#"
name = "localization-id"
seed = 1
[cluster]
nodes = 2
racks = 1
map_slots = 1
reduce_slots = 1
heartbeat = "manual"
[hdfs]
block = "64MB"
replication = 1
[scheduler]
policy = "hybsmrp"
[[jobs]]
name = "a"
profile = "grep"
maps = 4
reduces = 0
map_time = "100s"
blocks = [[0], [0], [0], [0]]
[[jobs]]
name = "b"
profile = "grep"
maps = 1
reduces = 0
map_time = "100s"
submit = "3500ms"
blocks = [[0]]
"#;

/// Node 1 misses twice, node 0 takes local maps; the later beats test the
/// reset by job b's arrival.
fn localization() -> String {
    LOCALIZATION.to_string()
        + &heartbeat_events(&[
            (1000, 1),
            (2000, 1),
            (3000, 0),
            (200_000, 1),
            (300_000, 1),
            (301_000, 0),
            (302_000, 0),
            (402_000, 0),
            (503_000, 0),
        ])
}

/// (t, node, localization ID before the heartbeat, assigned, rules).
type Seen = (u64, u32, serde_json::Value, Vec<String>, Vec<&'static str>);

#[test]
fn localization_id_waits_two_misses_then_takes_one_non_local_map() {
    let sc = load_text(&localization(), None);
    let (sim, recs) = run_inspect(&sc);
    let seen: Vec<Seen> = recs
        .iter()
        .map(|r| {
            (
                r.t,
                r.node,
                r.inspection.cluster["localization_id"].clone(),
                r.assigned.clone(),
                r.rules.clone(),
            )
        })
        .collect();
    let null = serde_json::Value::Null;
    let one = serde_json::Value::from(1);
    let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    assert_eq!(
        seen[..4],
        [
            // First miss: nothing, ID null → 1.
            (1000, 1, null.clone(), vec![], vec![]),
            // Second miss: one non-local map, ID reset.
            (
                2000,
                1,
                one.clone(),
                s(&["a/m0"]),
                vec!["hybsmrp/non-local"]
            ),
            (3000, 0, null.clone(), s(&["a/m1"]), vec!["hybsmrp/local"]),
            // Job b arrived at 3.5 s; both slots are busy until 102/103 s.
            (200_000, 1, null.clone(), vec![], vec![]),
        ]
    );
    // At 300 s node 1 misses again from 1 (200 s) and takes a non-local
    // map; job b's arrival had reset it, or the 200 s miss would have been
    // the second.
    assert_eq!(seen[4].0, 300_000);
    assert_eq!(seen[4].2, one);
    assert_eq!(seen[4].4, vec!["hybsmrp/non-local"]);
    // Node 0 keeps taking local maps by priority (a before b: FCFS).
    let local: Vec<&str> = seen[5..].iter().flat_map(|r| r.4.clone()).collect();
    assert!(local.iter().all(|r| *r == "hybsmrp/local"), "{local:?}");
    check(&sim).unwrap();
    assert!(slotsim::report::summarize(&sim).makespan_s.is_some());
}

/// Three nodes with one map slot each; each job's blocks on its own node.
/// At 35 s every job has one finished map: a 30 s, b 10 s, c 20 s.
fn priority_scenario(exps: &str) -> String {
    format!(
        r#"
name = "priority"
seed = 1
[cluster]
nodes = 3
racks = 1
map_slots = 1
reduce_slots = 1
heartbeat = "manual"
[hdfs]
block = "64MB"
replication = 1
[scheduler]
policy = "hybsmrp"
[scheduler.hybsmrp]
{exps}
[[jobs]]
name = "a"
profile = "grep"
maps = 2
reduces = 0
map_time = "30s"
blocks = [[0], [0]]
[[jobs]]
name = "b"
profile = "grep"
maps = 2
reduces = 0
map_time = "10s"
submit = "1s"
blocks = [[1], [1]]
[[jobs]]
name = "c"
profile = "grep"
maps = 2
reduces = 0
map_time = "20s"
submit = "2s"
blocks = [[2], [2]]
"#
    ) + &heartbeat_events(&[
        (2000, 0),
        (2000, 1),
        (2000, 2),
        (35_000, 0),
        (35_000, 1),
        (35_000, 2),
    ])
}

fn order_at_35s(exps: &str) -> (Vec<String>, common::InspectRecord) {
    let (_, recs) = run_inspect(&load_text(&priority_scenario(exps), None));
    let r = recs.iter().find(|r| r.t == 35_000).unwrap().clone();
    let mut jobs: Vec<(u64, String)> = r
        .inspection
        .jobs
        .iter()
        .map(|(k, v)| (v["order"].as_u64().unwrap(), k.clone()))
        .collect();
    jobs.sort();
    (jobs.into_iter().map(|j| j.1).collect(), r)
}

#[test]
fn eq1_with_alpha_1_is_first_come_first_served() {
    let (order, r) = order_at_35s("alpha = 1\nbeta = 0\ngamma = 0");
    assert_eq!(order, ["a", "b", "c"]);
    // td = 35, 34, 33 s; avgWaitTime = 34 s.
    close(
        r.inspection.cluster["avg_wait_s"].as_f64().unwrap(),
        34.0,
        "avg",
    );
    for (j, td) in [("a", 35.0), ("b", 34.0), ("c", 33.0)] {
        close(value(&r, j, "td_s").as_f64().unwrap(), td, "td");
        close(value(&r, j, "priority").as_f64().unwrap(), td / 34.0, j);
    }
}

#[test]
fn eq1_with_beta_minus_1_is_shortest_job_first() {
    let (order, r) = order_at_35s("alpha = 0\nbeta = -1\ngamma = 0");
    assert_eq!(order, ["b", "c", "a"]);
    // r = 30, 10, 20 s; avgRunTime = 20 s; priority = avg / r.
    close(
        r.inspection.cluster["avg_run_s"].as_f64().unwrap(),
        20.0,
        "avg",
    );
    for (j, rs) in [("a", 30.0), ("b", 10.0), ("c", 20.0)] {
        close(value(&r, j, "r_s").as_f64().unwrap(), rs, "r");
        close(value(&r, j, "run_factor").as_f64().unwrap(), 20.0 / rs, j);
        close(value(&r, j, "wait_factor").as_f64().unwrap(), 1.0, j);
        close(value(&r, j, "priority").as_f64().unwrap(), 20.0 / rs, j);
    }
}

#[test]
fn eq1_all_three_factors_multiply() {
    let (order, r) = order_at_35s("alpha = -1\nbeta = 1\ngamma = 1");
    // Each job has n = 1 remaining task (one map done of two), so the size
    // factor is 1; priority = (34 / td) · (r / 20).
    for (j, td, rs) in [("a", 35.0, 30.0), ("b", 34.0, 10.0), ("c", 33.0, 20.0)] {
        close(value(&r, j, "size_factor").as_f64().unwrap(), 1.0, j);
        close(
            value(&r, j, "priority").as_f64().unwrap(),
            (34.0 / td) * (rs / 20.0),
            j,
        );
    }
    assert_eq!(order, ["a", "c", "b"]);
}

#[test]
fn factor_guards() {
    assert_eq!(factor(3.0, 2.0, 1), 1.5);
    assert_eq!(factor(3.0, 2.0, -1), 2.0 / 3.0);
    assert_eq!(factor(3.0, 2.0, 0), 1.0);
    // Every job just submitted: no ratio.
    assert_eq!(factor(0.0, 0.0, 1), 1.0);
    assert_eq!(factor(0.0, 0.0, -1), 1.0);
    // A zero against a positive average: 0, or +inf when inverted.
    assert_eq!(factor(0.0, 2.0, 1), 0.0);
    assert_eq!(factor(0.0, 2.0, -1), f64::INFINITY);
}

#[test]
fn hybsmrp_keeps_the_invariants_on_its_scenarios_and_is_deterministic() {
    for name in ["hybsmrp-wordcount.toml", "hybsmrp-terasort.toml"] {
        for p in ["hybsmrp", "hybsmrp[alpha=0;beta=-1]", "hybsmrp[gamma=-1]"] {
            let (sim, a) = run(&load(name, Some(p)));
            check(&sim).unwrap_or_else(|e| panic!("{name} {p}: {e}"));
            let (_, b) = run(&load(name, Some(p)));
            assert_eq!(
                serde_json::to_string(&a).unwrap(),
                serde_json::to_string(&b).unwrap()
            );
        }
    }
}

//! JoSS (docs/policies.md): the Fig. 3 worked example exactly, the
//! classification (MQ_FIFO until a profile is known, td = k/(k−1), small
//! vs large), policies A, B and C, the round-robin task-driven assigner and
//! the job-driven one's local pick, invariants on multi-datacenter runs
//! with failures and speculation, and the paper's comparisons in direction.

use crate::common;
use common::InspectRecord;
use common::*;
use slotsim::sim::{Kind, Sim};
use std::collections::BTreeMap;

/// The plan the inspector shows for `job` at its first heartbeat.
fn plan(recs: &[InspectRecord], job: &str) -> serde_json::Value {
    recs.iter()
        .find_map(|r| r.inspection.jobs.get(job).cloned())
        .unwrap_or_else(|| panic!("{job} never inspected"))
}

/// Datacenter of each attempt of `job`, by task name.
fn dcs(sim: &Sim, job: &str) -> BTreeMap<String, String> {
    sim.view()
        .attempts()
        .iter()
        .filter(|a| sim.view().job(a.job).name.as_ref() == job)
        .map(|a| {
            let p = if a.kind == Kind::Map { 'm' } else { 'r' };
            let dc = sim.view().node(a.node).dc as usize;
            (
                format!("{p}{}", a.task),
                sim.view().cluster().dcs[dc].name.clone(),
            )
        })
        .collect()
}

#[test]
fn fig3_policy_b_places_maps_by_unique_blocks_and_reduces_with_the_most() {
    for p in ["joss-t", "joss-j"] {
        let (sim, recs) = run_inspect(&load("joss-fig3.toml", Some(p)));
        check(&sim).unwrap();
        let x = plan(&recs, "X");
        assert_eq!(
            (x["policy"].as_str(), x["class"].as_str()),
            (Some("FIFO"), Some("unknown"))
        );
        let y = plan(&recs, "Y");
        assert_eq!(y["policy"], "B", "{p}");
        assert_eq!(y["class"], "small-MH");
        assert_eq!(y["map_dcs"], serde_json::json!({"cen2": 4, "cen3": 2}));
        assert_eq!(y["reduce_dc"], "cen2");
        let ran = dcs(&sim, "Y");
        let want: BTreeMap<String, String> = [
            ("m0", "cen2"),
            ("m1", "cen2"),
            ("m2", "cen2"),
            ("m3", "cen3"),
            ("m4", "cen2"),
            ("m5", "cen3"),
            ("r0", "cen2"),
            ("r1", "cen2"),
        ]
        .into_iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
        assert_eq!(ran, want, "{p}");
        // Every map of Y reads its block within its datacenter.
        let off_dc = sim
            .view()
            .attempts()
            .iter()
            .filter(|a| sim.view().job(a.job).name.as_ref() == "Y" && a.kind == Kind::Map)
            .filter(|a| a.locality == Some(slotsim::sim::Locality::OffDc))
            .count();
        assert_eq!(off_dc, 0);
    }
}

/// Two datacenters of 4 nodes: td = 2, small ≤ 4 maps. A permu job (FP 3,
/// reduce-heavy) known from an earlier permu goes whole to the datacenter
/// with fewer unprocessed tasks (policy A); a 6-map wordcount is large
/// (policy C, its own queues); an unknown profile stays FIFO.
const TWO_DC: &str = r#"
name = "two-dc"
seed = 3
[cluster]
heartbeat = "3s"
map_slots = 1
reduce_slots = 1
[[cluster.datacenters]]
name = "east"
nodes = 4
racks = 1
[[cluster.datacenters]]
name = "west"
nodes = 4
racks = 1
[hdfs]
block = "128MB"
replication = 1
[scheduler]
policy = "joss-t"
[[jobs]]
name = "p1"
profile = "permu"
maps = 2
reduces = 1
submit = "0s"
[[jobs]]
name = "w1"
profile = "wordcount"
maps = 2
reduces = 1
submit = "0s"
[[jobs]]
name = "busy"
profile = "wordcount"
maps = 4
reduces = 1
submit = "200s"
map_time = "300s"
blocks = [[0], [1], [2], [3]]
[[jobs]]
name = "p2"
profile = "permu"
maps = 3
reduces = 1
submit = "210s"
[[jobs]]
name = "big"
profile = "wordcount"
maps = 6
reduces = 1
submit = "220s"
[[jobs]]
name = "g1"
profile = "grep"
maps = 2
reduces = 1
submit = "230s"
"#;

#[test]
fn policies_a_and_c_and_fifo_for_unknown_profiles() {
    let (sim, recs) = run_inspect(&load_text(TWO_DC, None));
    check(&sim).unwrap();
    let td = recs.iter().find(|r| r.t >= 200_000).unwrap();
    assert_eq!(td.inspection.cluster["td"], 2.0);
    assert_eq!(td.inspection.cluster["n_avg_vps"], 4.0);
    // `busy` (small MH, all blocks in east) fills east's queue, so p2 goes
    // to west, the datacenter with fewer unprocessed tasks.
    assert_eq!(
        plan(&recs, "busy")["map_dcs"],
        serde_json::json!({"east": 4})
    );
    let p2 = plan(&recs, "p2");
    assert_eq!(
        (p2["policy"].as_str(), p2["class"].as_str()),
        (Some("A"), Some("small-RH"))
    );
    assert_eq!(p2["map_dcs"], serde_json::json!({"west": 3}));
    assert_eq!(p2["reduce_dc"], "west");
    assert!(dcs(&sim, "p2").values().all(|d| d == "west"));
    let big = plan(&recs, "big");
    assert_eq!(
        (big["policy"].as_str(), big["class"].as_str()),
        (Some("C"), Some("large"))
    );
    let g1 = plan(&recs, "g1");
    assert_eq!(g1["policy"], "FIFO");
    // Policy C: big's maps each run in a datacenter holding their block.
    let job = sim
        .view()
        .jobs()
        .iter()
        .find(|j| j.name.as_ref() == "big")
        .unwrap();
    for a in sim
        .view()
        .attempts()
        .iter()
        .filter(|a| a.job == job.id && a.kind == Kind::Map)
    {
        let here = sim.view().node(a.node).dc;
        let holders: Vec<u32> = job
            .replicas(a.task)
            .iter()
            .map(|&n| sim.view().node(n).dc)
            .collect();
        assert!(
            holders.contains(&here),
            "big/m{} ran off its block's datacenter",
            a.task
        );
    }
}

/// One datacenter node with one map slot, a small job in queue 0 and a
/// large job in a queue of its own: the task-driven assigner alternates
/// between the two queues heartbeat by heartbeat.
#[test]
fn tta_takes_the_queues_in_turn() {
    let text = r#"
name = "rr"
[cluster]
heartbeat = "manual"
map_slots = 1
reduce_slots = 1
[[cluster.datacenters]]
name = "a"
nodes = 2
racks = 1
[[cluster.datacenters]]
name = "b"
nodes = 2
racks = 1
[hdfs]
block = "128MB"
replication = 1
[scheduler]
policy = "joss-t"
[[jobs]]
name = "seed"
profile = "grep"
maps = 1
reduces = 0
map_time = "1s"
blocks = [[0]]
[[jobs]]
name = "small"
profile = "grep"
maps = 2
reduces = 0
map_time = "1s"
submit = "10s"
blocks = [[0], [0]]
[[jobs]]
name = "large"
profile = "grep"
maps = 3
reduces = 0
map_time = "1s"
submit = "10s"
blocks = [[0], [0], [0]]
"#;
    // Heartbeats of node 0 every 2 s from 0 s: one map each, 1 s long.
    let beats: Vec<(u64, u32)> = (0..10).map(|k| (2000 * k, 0)).collect();
    let t = text.to_string() + &heartbeat_events(&beats);
    let (sim, recs) = run_inspect(&load_text(&t, None));
    let order: Vec<String> = recs.iter().flat_map(|r| r.assigned.clone()).collect();
    assert_eq!(
        order,
        ["seed/m0", "small/m0", "large/m0", "small/m1", "large/m1", "large/m2"]
    );
    assert_eq!(plan(&recs, "large")["policy"], "C");
    check(&sim).unwrap();
}

/// Within a queue the job-driven assigner gives a node a task whose block
/// it holds; the task-driven one takes the head.
#[test]
fn jta_prefers_a_task_whose_block_is_on_the_node() {
    let text = r#"
name = "jta"
[cluster]
heartbeat = "manual"
map_slots = 1
reduce_slots = 1
[[cluster.datacenters]]
name = "a"
nodes = 3
racks = 1
[[cluster.datacenters]]
name = "b"
nodes = 3
racks = 1
[hdfs]
block = "128MB"
replication = 1
[[jobs]]
name = "seed"
profile = "grep"
maps = 1
reduces = 0
map_time = "1s"
blocks = [[0]]
[[jobs]]
name = "j"
profile = "grep"
maps = 3
reduces = 0
map_time = "1s"
submit = "5s"
blocks = [[0], [1], [2]]
"#
    .to_string()
        + &heartbeat_events(&[(0, 0), (6000, 2)]);
    for (p, first) in [("joss-t", "j/m0"), ("joss-j", "j/m2")] {
        let (_, recs) = run_inspect(&load_text(&text, Some(p)));
        let got: Vec<String> = recs.iter().flat_map(|r| r.assigned.clone()).collect();
        assert_eq!(got, ["seed/m0", first], "{p}");
    }
}

/// JTA is Hadoop's FIFO over a queue: the earlier job's task goes first
/// even when a later job in the same queue has a block on the node (and
/// within the earlier job, a task on the node would have gone first).
#[test]
fn jta_keeps_fifo_order_between_the_jobs_of_a_queue() {
    let text = r#"
name = "jta-fifo"
[cluster]
heartbeat = "manual"
map_slots = 1
reduce_slots = 1
[[cluster.datacenters]]
name = "a"
nodes = 3
racks = 1
[[cluster.datacenters]]
name = "b"
nodes = 3
racks = 1
[hdfs]
block = "128MB"
replication = 1
[[jobs]]
name = "seed"
profile = "grep"
maps = 1
reduces = 0
map_time = "1s"
blocks = [[0]]
[[jobs]]
name = "early"
profile = "grep"
maps = 2
reduces = 0
map_time = "1s"
submit = "5s"
blocks = [[1], [1]]
[[jobs]]
name = "late"
profile = "grep"
maps = 1
reduces = 0
map_time = "1s"
submit = "5500ms"
blocks = [[2]]
"#
    .to_string()
        + &heartbeat_events(&[(0, 0), (6000, 2), (8000, 2), (10000, 2)]);
    let (sim, recs) = run_inspect(&load_text(&text, Some("joss-j")));
    let got: Vec<String> = recs.iter().flat_map(|r| r.assigned.clone()).collect();
    assert_eq!(got, ["seed/m0", "early/m0", "early/m1", "late/m0"]);
    // Both small jobs share datacenter a's permanent queue, so the order
    // above is JTA's choice within one queue, not the round robin.
    assert_eq!(plan(&recs, "early")["policy"], "B");
    assert_eq!(plan(&recs, "late")["policy"], "B");
    check(&sim).unwrap();
}

/// Three datacenters, a mixed workload, stragglers with speculation and a
/// node failure: both variants keep every invariant, deterministically.
#[test]
fn invariants_on_multi_datacenter_runs_with_failures() {
    let base = r#"
name = "multi"
seed = 11
[cluster]
heartbeat = "3s"
map_slots = 2
reduce_slots = 1
[[cluster.datacenters]]
name = "x"
nodes = 5
racks = 2
[[cluster.datacenters]]
name = "y"
nodes = 4
racks = 1
[[cluster.datacenters]]
name = "z"
nodes = 3
racks = 1
[hdfs]
block = "64MB"
replication = 2
[tasks]
straggler_prob = 0.1
straggler_slowdown = [2.0, 5.0]
speculation = "SPEC"
[[workloads]]
kind = "poisson"
jobs = 60
mean_interarrival = "6s"
mix = { wordcount = 2, permu = 1, grep = 2, terasort = 1 }
input = ["64MB", "2GB"]
[[events]]
at = "60s"
action = "fail_node"
node = 6
[[events]]
at = "200s"
action = "recover_node"
node = 6
"#;
    for spec in ["off", "late", "hadoop"] {
        let text = base.replace("SPEC", spec);
        for p in ["joss-t", "joss-j"] {
            let (sim, a) = run(&load_text(&text, Some(p)));
            check(&sim).unwrap_or_else(|e| panic!("{spec} {p}: {e}"));
            let (_, b) = run(&load_text(&text, Some(p)));
            assert_eq!(
                serde_json::to_string(&a).unwrap(),
                serde_json::to_string(&b).unwrap(),
                "{spec} {p}"
            );
        }
    }
}

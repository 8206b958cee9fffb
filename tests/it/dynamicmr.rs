//! DynamicMR (docs/policies.md): PI-DHSA's four cases heartbeat by
//! heartbeat (extraReduceSlotsDemand's min, max and floor, the borrowing
//! percentages), PD-DHSA's cases (1)–(5) and their order, Slot
//! PreScheduling's P1 and P2 and its cap, SEPB choosing a pending task over
//! a speculative copy, borrowing limits over busy runs, PI-DHSA without
//! borrowing being `fair`, and Appendix F's sort job in direction.

use crate::common;
use common::InspectRecord;
use common::*;
use slotsim::sim::{Kind, Sim};

/// A manual-heartbeat scenario on `nodes` nodes of one rack.
fn manual(nodes: u32, maps: u32, reduces: u32, sched: &str, rest: &str) -> String {
    format!(
        r#"
name = "dhsa-case"
seed = 1
[cluster]
nodes = {nodes}
racks = 1
map_slots = {maps}
reduce_slots = {reduces}
heartbeat = "manual"
[hdfs]
block = "64MB"
replication = 1
[scheduler]
{sched}
{rest}
"#
    )
}

/// `[[events]]` heartbeats: (seconds, node).
fn beats(at: &[(f64, u32)]) -> String {
    at.iter()
        .map(|(t, n)| {
            format!(
                "[[events]]\nat = \"{}ms\"\naction = \"heartbeat\"\nnode = {n}\n",
                (t * 1000.0) as u64
            )
        })
        .collect()
}

/// (t_s, node, assigned, rules) of every inspect record.
fn seen(recs: &[InspectRecord]) -> Vec<(f64, u32, Vec<String>, Vec<&'static str>)> {
    recs.iter()
        .map(|r| {
            (
                r.t as f64 / 1000.0,
                r.node,
                r.assigned.clone(),
                r.rules.clone(),
            )
        })
        .collect()
}

fn at(recs: &[InspectRecord], t: f64, node: u32) -> &InspectRecord {
    record_at(recs, (t * 1000.0) as u64, node)
}

fn c(r: &InspectRecord, k: &str) -> serde_json::Value {
    r.inspection.cluster[k].clone()
}

fn names(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

// ---------------------------------------------------------------- PI-DHSA

/// Two nodes of 2 map + 1 reduce slots (capacity 4 + 2). One job: 1 map of
/// 5 s, 6 reduces, slowstart 0. Once the map is done, mapSlotsLoadFactor is
/// 0 and reduceSlotsLoadFactor 6/2 (case 3). With borrow_map_pct 0.6,
/// ⌊4 × 0.6⌋ = 2 map slots may hold reduces (a reduce borrows a map slot
/// only once its job's maps are done).
fn pi_case3(pct: &str) -> String {
    manual(
        2,
        2,
        1,
        &format!(
            "policy = \"dhsa-pi\"\nslowstart = 0\n[scheduler.dhsa-pi]\nborrow_map_pct = {pct}"
        ),
        &(r#"
[[jobs]]
name = "A"
profile = "terasort"
maps = 1
reduces = 6
map_time = "5s"
reduce_time = "10s"
blocks = [[0]]
[[events]]
at = "13s"
action = "switch_policy"
policy = "dhsa-pi[borrow_map_pct=0.25]"
"#
        .to_string()
            + &beats(&[
                (1.0, 0),
                (10.0, 1),
                (11.0, 0),
                (12.0, 0),
                (14.0, 1),
                (100.0, 0),
                (101.0, 1),
            ])),
    )
}

#[test]
fn pi_case3_lends_map_slots_to_reduces_up_to_the_floor_of_the_percentage() {
    let (sim, recs) = run_inspect(&load_text(&pi_case3("0.6"), None));
    // 1 s: the map and a reduce in the reduce slot; no reduce borrows a map
    // slot while its job's map has not finished.
    let r = at(&recs, 1.0, 0);
    assert_eq!(
        r.launched(),
        pairs(&[("A/m0", "dhsa/map"), ("A/r0", "dhsa/reduce")])
    );
    // 10 s (node 1), the map done at 6 s: extra = min(max(⌊2.4⌋ − 0, 0),
    // 6 − 2) = 2, the map load factor (0 + 2) / 4 = 0.5, so node 1 may fill
    // ⌈2 × 0.5⌉ = 1 map slot: a reduce in its reduce slot, then one in a
    // map slot.
    let r = at(&recs, 10.0, 1);
    assert_eq!(c(r, "case"), 3);
    assert_eq!(c(r, "mapSlotsLoadFactor"), 0.0);
    assert_eq!(c(r, "reduceSlotsLoadFactor"), 3.0);
    assert_eq!(c(r, "borrowable_map_slots"), 2);
    assert_eq!(c(r, "currentBorrowedMapSlots"), 0);
    assert_eq!(c(r, "extraReduceSlotsDemand"), 2);
    assert_eq!(c(r, "updatedMapSlotsLoadFactor"), 0.5);
    assert_eq!(c(r, "availableMapSlots"), 1);
    assert_eq!(
        r.launched(),
        pairs(&[("A/r1", "dhsa/reduce"), ("A/r2", "dhsa/reduce-in-map-slot")])
    );
    // 11 s (node 0, its reduce slot busy with r0): one borrowed, extra =
    // min(2 − 1, 4) = 1, the factor 1 / 4 gives node 0 one map slot.
    let r = at(&recs, 11.0, 0);
    assert_eq!(c(r, "currentBorrowedMapSlots"), 1);
    assert_eq!(c(r, "extraReduceSlotsDemand"), 1);
    assert_eq!(c(r, "updatedMapSlotsLoadFactor"), 0.25);
    assert_eq!(r.launched(), pairs(&[("A/r3", "dhsa/reduce-in-map-slot")]));
    // 12 s: two borrowed = ⌊4 × 0.6⌋: no extra demand; node 0's idle map
    // slot stays idle with reduces pending.
    let r = at(&recs, 12.0, 0);
    assert_eq!(c(r, "currentBorrowedMapSlots"), 2);
    assert_eq!(c(r, "extraReduceSlotsDemand"), 0);
    assert_eq!(c(r, "availableMapSlots"), 0);
    assert!(r.assigned.is_empty());
    // At 13 s the percentage drops to 0.25: ⌊4 × 0.25⌋ − 2 < 0, and the
    // max(…, 0) keeps the extra demand at 0.
    let r = at(&recs, 14.0, 1);
    assert_eq!(r.policy, "dhsa-pi[borrow_map_pct=0.25]");
    assert_eq!(c(r, "borrowable_map_slots"), 1);
    assert_eq!(c(r, "currentBorrowedMapSlots"), 2);
    assert_eq!(c(r, "extraReduceSlotsDemand"), 0);
    assert!(r.assigned.is_empty());
    // At 100 s two reduces are left for two reduce slots: both load
    // factors ≤ 1 (case 1), no borrowing.
    let r = at(&recs, 100.0, 0);
    assert_eq!(c(r, "case"), 1);
    assert_eq!(c(r, "mapSlotsLoadFactor"), 0.0);
    assert_eq!(c(r, "reduceSlotsLoadFactor"), 1.0);
    assert_eq!(r.launched(), pairs(&[("A/r4", "dhsa/reduce")]));
    assert_eq!(
        at(&recs, 101.0, 1).launched(),
        pairs(&[("A/r5", "dhsa/reduce")])
    );
    check(&sim).unwrap();
    // Every borrowed attempt sat in a map lane.
    for a in sim.view().attempts() {
        assert_eq!(a.slot_kind == Kind::Map, (a.slot as u32) < 2, "{a:?}");
    }
}

#[test]
fn pi_case3_extra_demand_is_capped_by_the_reduce_overflow() {
    // With every map slot borrowable, extra = min(4 − 0, 6 − 2) = 4: the
    // overflow is the bound, and node 1 fills both map slots with reduces.
    let (_, recs) = run_inspect(&load_text(&pi_case3("1.0"), None));
    let r = at(&recs, 10.0, 1);
    assert_eq!(c(r, "extraReduceSlotsDemand"), 4);
    assert_eq!(c(r, "updatedMapSlotsLoadFactor"), 1.0);
    assert_eq!(
        r.launched(),
        pairs(&[
            ("A/r1", "dhsa/reduce"),
            ("A/r2", "dhsa/reduce-in-map-slot"),
            ("A/r3", "dhsa/reduce-in-map-slot"),
        ])
    );
    // With 0 the policy is fair: the idle map slots stay idle.
    let (_, recs) = run_inspect(&load_text(&pi_case3("0"), None));
    let r = at(&recs, 10.0, 1);
    assert_eq!(c(r, "extraReduceSlotsDemand"), 0);
    assert_eq!(r.launched(), pairs(&[("A/r1", "dhsa/reduce")]));
    assert!(at(&recs, 11.0, 0).assigned.is_empty());
}

/// Two nodes of 1 map + 2 reduce slots (capacity 2 + 4). One job: 6 maps
/// (every block on both nodes), 1 reduce, slowstart 1: maps 6/2 = 3,
/// reduces 0/4 (case 4). borrow_reduce_pct 0.5: ⌊4 × 0.5⌋ = 2.
#[test]
fn pi_case4_lends_reduce_slots_to_maps() {
    let text = manual(
        2,
        1,
        2,
        "policy = \"dhsa-pi\"\nslowstart = 1\n[scheduler.dhsa-pi]\nborrow_reduce_pct = 0.5",
        &(r#"
[[jobs]]
name = "B"
profile = "terasort"
maps = 6
reduces = 1
map_time = "50s"
reduce_time = "10s"
blocks = [[0, 1], [0, 1], [0, 1], [0, 1], [0, 1], [0, 1]]
"#
        .to_string()
            + &beats(&[(1.0, 0), (2.0, 1), (3.0, 1)])),
    );
    let (_, recs) = run_inspect(&load_text(&text, None));
    // extraMapSlotsDemand = min(max(2 − 0, 0), 6 − 2) = 2; the reduce load
    // factor (0 + 2) / 4 = 0.5 gives node 0 ⌈2 × 0.5⌉ = 1 reduce slot.
    let r = at(&recs, 1.0, 0);
    assert_eq!(c(r, "case"), 4);
    assert_eq!(c(r, "mapSlotsLoadFactor"), 3.0);
    assert_eq!(c(r, "reduceSlotsLoadFactor"), 0.0);
    assert_eq!(c(r, "extraMapSlotsDemand"), 2);
    assert_eq!(c(r, "extraReduceSlotsDemand"), 0);
    assert_eq!(c(r, "updatedReduceSlotsLoadFactor"), 0.5);
    assert_eq!(c(r, "availableReduceSlots"), 1);
    assert_eq!(
        r.launched(),
        pairs(&[("B/m0", "dhsa/map"), ("B/m1", "dhsa/map-in-reduce-slot")])
    );
    // Node 1: extra = 2 − 1 = 1, factor 1/4, one reduce slot.
    let r = at(&recs, 2.0, 1);
    assert_eq!(c(r, "extraMapSlotsDemand"), 1);
    assert_eq!(
        r.launched(),
        pairs(&[("B/m2", "dhsa/map"), ("B/m3", "dhsa/map-in-reduce-slot")])
    );
    // Two maps in reduce slots = ⌊4 × 0.5⌋: the second reduce slot stays idle.
    let r = at(&recs, 3.0, 1);
    assert_eq!(c(r, "currentBorrowedReduceSlots"), 2);
    assert_eq!(c(r, "extraMapSlotsDemand"), 0);
    assert!(r.assigned.is_empty());
}

/// Both phases overloaded (case 2): PI-DHSA borrows nothing, so a map slot
/// stays idle while the job's maps wait for locality; PD-DHSA runs a
/// reduce, then the map non-locally (case 5; a reduce whose job's maps are
/// unfinished would wait in the map slot, so case (4) does not give it one).
#[test]
fn pi_case2_borrows_nothing_where_pd_fills_the_slot() {
    let text = |p: &str| {
        manual(
            2,
            1,
            1,
            &format!("policy = \"{p}\"\nslowstart = 0"),
            &(r#"
[[jobs]]
name = "C"
profile = "terasort"
maps = 4
reduces = 4
map_time = "50s"
reduce_time = "10s"
blocks = [[1], [1], [1], [1]]
"#
            .to_string()
                + &beats(&[(1.0, 0)])),
        )
    };
    let (_, recs) = run_inspect(&load_text(&text("dhsa-pi"), None));
    let r = at(&recs, 1.0, 0);
    assert_eq!(c(r, "case"), 2);
    assert_eq!(c(r, "extraReduceSlotsDemand"), 0);
    assert_eq!(c(r, "extraMapSlotsDemand"), 0);
    assert_eq!(r.launched(), pairs(&[("C/r0", "dhsa/reduce")]));
    let (_, recs) = run_inspect(&load_text(&text("dhsa-pd"), None));
    assert_eq!(
        at(&recs, 1.0, 0).launched(),
        pairs(&[("C/r0", "dhsa/reduce"), ("C/m0", "dhsa/non-local")])
    );
}

// ---------------------------------------------------------------- PD-DHSA

/// Two nodes of 1 map + 1 reduce slot; `jobs` and heartbeats of node 0.
fn pd(sched: &str, jobs: &str, at_s: &[f64]) -> Vec<InspectRecord> {
    let hb: Vec<(f64, u32)> = at_s.iter().map(|&t| (t, 0)).collect();
    let text = manual(
        2,
        1,
        1,
        &format!("policy = \"dhsa-pd\"\nslowstart = 0\n{sched}"),
        &(jobs.to_string() + &beats(&hb)),
    );
    run_inspect(&load_text(&text, None)).1
}

const MAPS_AND_REDUCES: &str = r#"
[[jobs]]
name = "J"
profile = "terasort"
maps = 2
reduces = 2
map_time = "50s"
reduce_time = "10s"
blocks = [[0], [0]]
"#;

#[test]
fn pd_case1_map_slot_for_a_map_then_case2_reduce_slot_for_a_reduce() {
    // Demand 4 of 4 slots: node 0 may run ⌈2 × 1⌉ = 2 tasks.
    let recs = pd("", MAPS_AND_REDUCES, &[1.0]);
    let r = at(&recs, 1.0, 0);
    assert_eq!(c(r, "totalSlotsDemand"), 4);
    assert_eq!(c(r, "totalSlotsCapacity"), 4);
    assert_eq!(c(r, "trackerSlotsCapacity"), 2);
    assert_eq!(c(r, "trackerCurrentSlotsCapacity"), 2);
    // Case (2) before case (3): the reduce slot goes to the reduce, not to
    // the second local map.
    assert_eq!(
        r.launched(),
        pairs(&[("J/m0", "dhsa/map"), ("J/r0", "dhsa/reduce")])
    );
}

const THREE_LOCAL_MAPS: &str = r#"
[[jobs]]
name = "J"
profile = "grep"
maps = 3
reduces = 0
map_time = "50s"
blocks = [[0], [0], [0]]
"#;

#[test]
fn pd_case3_reduce_slot_for_a_map_within_borrow_reduce_pct() {
    // Demand 3 of 4: ⌈2 × 0.75⌉ = 2 tasks; no reduce to run, so the
    // reduce slot takes the second local map.
    let recs = pd("", THREE_LOCAL_MAPS, &[1.0]);
    let r = at(&recs, 1.0, 0);
    assert_eq!(c(r, "trackerCurrentSlotsCapacity"), 2);
    assert_eq!(
        r.launched(),
        pairs(&[("J/m0", "dhsa/map"), ("J/m1", "dhsa/map-in-reduce-slot")])
    );
    // ⌊2 × 0⌋ = 0 reduce slots may be borrowed: not in case (3), nor in
    // case (5).
    let recs = pd(
        "[scheduler.dhsa-pd]\nborrow_reduce_pct = 0",
        THREE_LOCAL_MAPS,
        &[1.0],
    );
    assert_eq!(at(&recs, 1.0, 0).launched(), pairs(&[("J/m0", "dhsa/map")]));
}

const ONE_MAP_THREE_REDUCES: &str = r#"
[[jobs]]
name = "J"
profile = "terasort"
maps = 1
reduces = 3
map_time = "10s"
reduce_time = "100s"
blocks = [[0]]
"#;

#[test]
fn pd_case4_map_slot_for_a_reduce_after_cases_1_to_3_failed() {
    let recs = pd("", ONE_MAP_THREE_REDUCES, &[1.0, 20.0]);
    assert_eq!(
        at(&recs, 1.0, 0).launched(),
        pairs(&[("J/m0", "dhsa/map"), ("J/r0", "dhsa/reduce")])
    );
    // At 20 s the map is done, r0 holds the reduce slot: demand 3 of 4
    // gives node 0 two tasks, one more than it runs; cases (1)–(3) fail.
    let r = at(&recs, 20.0, 0);
    assert_eq!(c(r, "trackerCurrentSlotsCapacity"), 2);
    assert_eq!(c(r, "trackerRunningTasksNum"), 1);
    assert_eq!(r.launched(), pairs(&[("J/r1", "dhsa/reduce-in-map-slot")]));
    let recs = pd(
        "[scheduler.dhsa-pd]\nborrow_map_pct = 0",
        ONE_MAP_THREE_REDUCES,
        &[1.0, 20.0],
    );
    assert!(at(&recs, 20.0, 0).assigned.is_empty());
}

#[test]
fn pd_case5_non_local_map_only_after_every_pool_failed_cases_1_to_4() {
    // Pools a and b tie (no running task) and go by name. Pool a's job has
    // no block on node 0 and may not run a non-local map yet (delay
    // scheduling), so pool b's local map goes first; then case (5) gives
    // pool a a non-local map, in the reduce slot (the map slot is taken).
    let jobs = r#"
[[pools]]
name = "a"
[[pools]]
name = "b"
[[jobs]]
name = "A"
profile = "grep"
maps = 2
reduces = 0
map_time = "50s"
blocks = [[1], [1]]
pool = "a"
[[jobs]]
name = "B"
profile = "grep"
maps = 1
reduces = 0
map_time = "50s"
blocks = [[0]]
pool = "b"
"#;
    let recs = pd("", jobs, &[1.0]);
    let r = at(&recs, 1.0, 0);
    assert_eq!(c(r, "trackerCurrentSlotsCapacity"), 2);
    assert_eq!(
        r.launched(),
        pairs(&[
            ("B/m0", "dhsa/map"),
            ("A/m0", "dhsa/non-local-in-reduce-slot")
        ])
    );
}

// ------------------------------------------------------ Slot PreScheduling

/// Two nodes of 3 map + 1 reduce slots (8 slots). Pool a's job has its
/// block on node 1; pool b's job three blocks on node 0. Demand 4 of 8:
/// node 0's load-balancing line is ⌈4 × 0.5⌉ = 2 tasks.
fn p1(policy: &str) -> Vec<InspectRecord> {
    let text = manual(
        2,
        3,
        1,
        &format!("policy = \"{policy}\""),
        &(r#"
[[pools]]
name = "a"
[[pools]]
name = "b"
[[jobs]]
name = "A"
profile = "grep"
maps = 1
reduces = 0
map_time = "50s"
blocks = [[1]]
pool = "a"
[[jobs]]
name = "B"
profile = "grep"
maps = 3
reduces = 0
map_time = "50s"
blocks = [[0], [0], [0]]
pool = "b"
"#
        .to_string()
            + &beats(&[(1.0, 0)])),
    );
    run_inspect(&load_text(&text, None)).1
}

#[test]
fn prescheduling_p1_runs_a_local_map_in_an_extra_idle_map_slot() {
    let recs = p1("dynamicmr");
    let r = at(&recs, 1.0, 0);
    assert_eq!(c(r, "trackerCurrentSlotsCapacity"), 2);
    assert_eq!(c(r, "allowableIdleSlots"), 2);
    assert_eq!(c(r, "extraIdleMapSlots"), 1);
    // Pool a comes first but has no data here: B's maps fill the two
    // allowable slots, then the idle map slot above the line takes B's
    // third local map (P1). Job A is not given the slot: no local data.
    assert_eq!(
        r.launched(),
        pairs(&[
            ("B/m0", "dhsa/map"),
            ("B/m1", "dhsa/map"),
            ("B/m2", "prescheduling/extra-map-slot"),
        ])
    );
    // Without PreScheduling the node stops at its line.
    for p in ["dhsa-pd", "dynamicmr[prescheduling=false]"] {
        let recs = p1(p);
        assert_eq!(
            at(&recs, 1.0, 0).launched(),
            pairs(&[("B/m0", "dhsa/map"), ("B/m1", "dhsa/map")]),
            "{p}"
        );
    }
}

/// Two nodes of 1 map + 3 reduce slots; one job with 4 blocks on node 0.
/// Demand 4 of 8: two allowable slots on node 0.
fn p2(max: Option<u32>) -> Vec<InspectRecord> {
    let sched = match max {
        Some(m) => format!(
            "policy = \"dynamicmr\"\n[scheduler.dynamicmr]\nmax_borrowed_reduce_slots = {m}"
        ),
        None => "policy = \"dynamicmr\"".to_string(),
    };
    let text = manual(
        2,
        1,
        3,
        &sched,
        &(r#"
[[jobs]]
name = "B"
profile = "grep"
maps = 4
reduces = 0
map_time = "50s"
blocks = [[0], [0], [0], [0]]
"#
        .to_string()
            + &beats(&[(1.0, 0), (2.0, 1)])),
    );
    run_inspect(&load_text(&text, None)).1
}

#[test]
fn prescheduling_p2_borrows_idle_reduce_slots_up_to_its_maximum() {
    // Case (1) fills the map slot. On the next turns the job has data here
    // and no allowable idle map slot, so P2, placed before case (2), puts
    // its local maps in idle reduce slots while fewer than
    // max_borrowed_reduce_slots run there, also above the line. With no
    // room for P2, case (3) takes the second allowable slot.
    let first = |max| at(&p2(max), 1.0, 0).launched();
    assert_eq!(
        first(Some(0)),
        pairs(&[("B/m0", "dhsa/map"), ("B/m1", "dhsa/map-in-reduce-slot")])
    );
    assert_eq!(
        first(Some(1)),
        pairs(&[("B/m0", "dhsa/map"), ("B/m1", "prescheduling/reduce-slot")])
    );
    assert_eq!(
        first(None),
        pairs(&[
            ("B/m0", "dhsa/map"),
            ("B/m1", "prescheduling/reduce-slot"),
            ("B/m2", "prescheduling/reduce-slot"),
            ("B/m3", "prescheduling/reduce-slot"),
        ])
    );
    // borrowedReduceSlots counts only PreScheduling's maps (not case (3)'s).
    let recs = p2(Some(0));
    let r = at(&recs, 2.0, 1);
    assert_eq!(c(r, "borrowedReduceSlots"), 0);
    assert_eq!(c(r, "maximumBorrowableReduceSlots"), 0);
    assert_eq!(c(r, "currentBorrowedReduceSlots"), 1);
    let recs = p2(Some(1));
    assert_eq!(c(at(&recs, 2.0, 1), "borrowedReduceSlots"), 1);
    let recs = p2(None);
    let r = at(&recs, 2.0, 1);
    assert_eq!(c(r, "borrowedReduceSlots"), 3);
    assert_eq!(
        c(r, "maximumBorrowableReduceSlots"),
        serde_json::Value::Null
    );
}

/// Appendix A places P1/P2 per pool between PD-DHSA's cases (1) and (2),
/// not only on a node at its line. Two nodes of 1 map + 1 reduce slot; one
/// job, four blocks on node 0, two reduces, slowstart 0: demand 6 of 4, so
/// both of node 0's slots are allowable. Case (1) runs a local map; then
/// there is no idle map slot (no allowable idle map slot) but the job has
/// data here and a reduce slot is idle: dynamicmr runs the next local map
/// there (P2) where PD-DHSA gives the slot to a reduce (case (2)).
#[test]
fn prescheduling_p2_comes_before_case2_under_the_line() {
    let text = |policy: &str| {
        manual(
            2,
            1,
            1,
            &format!("policy = \"{policy}\"\nslowstart = 0"),
            &(r#"
[[jobs]]
name = "J"
profile = "terasort"
maps = 4
reduces = 2
map_time = "50s"
reduce_time = "10s"
blocks = [[0], [0], [0], [0]]
"#
            .to_string()
                + &beats(&[(1.0, 0)])),
        )
    };
    let recs = run_inspect(&load_text(&text("dynamicmr"), None)).1;
    let r = at(&recs, 1.0, 0);
    assert_eq!(c(r, "trackerCurrentSlotsCapacity"), 2);
    assert_eq!(c(r, "allowableIdleSlots"), 2);
    assert_eq!(
        r.launched(),
        pairs(&[("J/m0", "dhsa/map"), ("J/m1", "prescheduling/reduce-slot")])
    );
    for p in ["dhsa-pd", "dynamicmr[prescheduling=false]"] {
        let recs = run_inspect(&load_text(&text(p), None)).1;
        assert_eq!(
            at(&recs, 1.0, 0).launched(),
            pairs(&[("J/m0", "dhsa/map"), ("J/r0", "dhsa/reduce")]),
            "{p}"
        );
    }
}

// ------------------------------------------------------------------- SEPB

/// Three nodes of 3 map + 1 reduce slots (12 slots), LATE. Pool s: S3's
/// two maps run on node 2 and S1 (100 s) and S2 (400 s) on node 1 from
/// 1 s. A heartbeat of node 0 at 40 s finds nothing to run and skips them,
/// so by 80 s they have waited beyond both locality delays (level ANY).
/// Pool p: P arrives at 70 s with its blocks on node 2. At 80 s node 0 is
/// under its line (demand 6 of 12: ⌈4 × 0.5⌉ = 2 allowable slots). Pool p
/// goes first (nothing running) but P, at NODE level with no data here,
/// may not run yet; in pool s, S1 has nothing pending and is not slow,
/// then S2 has nothing pending and LATE would copy it (rates 0.01, 0.0025
/// and 0.01 twice per s; the 25th percentile is 0.0081).
fn sepb(policy: &str) -> Vec<InspectRecord> {
    let text = manual(
        3,
        3,
        1,
        &format!("policy = \"{policy}\""),
        &(r#"
[tasks]
speculation = "late"
[[pools]]
name = "s"
[[pools]]
name = "p"
[[jobs]]
name = "S1"
profile = "grep"
maps = 1
reduces = 0
map_time = "100s"
blocks = [[1]]
pool = "s"
[[jobs]]
name = "S2"
profile = "grep"
maps = 1
reduces = 0
map_time = "400s"
blocks = [[1]]
pool = "s"
[[jobs]]
name = "S3"
profile = "grep"
maps = 2
reduces = 0
map_time = "100s"
blocks = [[2], [2]]
pool = "s"
[[jobs]]
name = "P"
profile = "grep"
maps = 2
reduces = 0
map_time = "100s"
blocks = [[2], [2]]
pool = "p"
submit = "70s"
"#
        .to_string()
            + &beats(&[(1.0, 2), (1.0, 1), (40.0, 0), (80.0, 0)])),
    );
    run_inspect(&load_text(&text, None)).1
}

/// Algorithm 3 on PD-DHSA: before S2's copy takes the slot, dynamicmr
/// checks ⌈sepb_check_fraction × 4⌉ jobs in fair order (P, S1, S2, S3) for
/// pending maps and runs P's instead, at any locality; P, now at RACK
/// level, takes the second allowable slot. PD-DHSA alone (or
/// sepb_check_fraction = 0) gives the slot to the copy, as Hadoop's job
/// loop does, and P's map comes after it, non-locally, by case (5).
#[test]
fn sepb_runs_a_pending_task_instead_of_a_speculative_copy() {
    let recs = sepb("dynamicmr");
    assert_eq!(
        seen(&recs)[..2],
        [
            (
                1.0,
                2,
                names(&["S3/m0", "S3/m1"]),
                vec!["dhsa/map", "dhsa/map"]
            ),
            (
                1.0,
                1,
                names(&["S1/m0", "S2/m0"]),
                vec!["dhsa/map", "dhsa/map"]
            ),
        ]
    );
    assert!(at(&recs, 40.0, 0).assigned.is_empty());
    let r = at(&recs, 80.0, 0);
    assert_eq!(c(r, "allowableIdleSlots"), 2);
    assert_eq!(c(r, "sepb_checked_jobs"), 4);
    assert_eq!(
        r.launched(),
        pairs(&[("P/m0", "sepb/pending"), ("P/m1", "dhsa/map")])
    );
    // One checked job is enough here: P comes first.
    let recs = sepb("dynamicmr[sepb_check_fraction=0.25]");
    let r = at(&recs, 80.0, 0);
    assert_eq!(c(r, "sepb_checked_jobs"), 1);
    assert_eq!(r.launched()[0], ("P/m0".to_string(), "sepb/pending"));
    // Without SEPB (fraction 0, or PD-DHSA alone) the slot gets LATE's copy.
    for p in ["dynamicmr[sepb_check_fraction=0]", "dhsa-pd"] {
        let recs = sepb(p);
        assert_eq!(
            at(&recs, 80.0, 0).launched(),
            pairs(&[("S2/m0", "speculate/late"), ("P/m0", "dhsa/non-local")]),
            "{p}"
        );
    }
}

// --------------------------------------------- reduces waiting on maps

/// Reduces waiting on their job's maps never take a map slot, so they can
/// never hold every slot. Node 1, holding every block of J, fails at once;
/// node 0 (2 map + 1 reduce slots) is all that is left. J's maps wait for
/// locality, so at 0 s cases (1) and (3) fail: case (2) runs r0, case (4)
/// would put r1 and r2 in the map slots (where they would wait for maps
/// that then could run nowhere) and does not; case (5) runs two maps
/// non-locally. J finishes.
#[test]
fn reduces_waiting_on_maps_never_hold_every_map_slot() {
    let text = |policy: &str| {
        format!(
            r#"
name = "waiting-reduces"
seed = 1
[cluster]
nodes = 2
racks = 1
map_slots = 2
reduce_slots = 1
heartbeat = "3s"
out_of_band_heartbeat = true
[hdfs]
block = "64MB"
replication = 1
[scheduler]
policy = "{policy}"
slowstart = 0
[[jobs]]
name = "J"
profile = "terasort"
maps = 4
reduces = 4
map_time = "10s"
reduce_time = "5s"
blocks = [[1], [1], [1], [1]]
[[events]]
at = "0s"
action = "fail_node"
node = 1
"#
        )
    };
    for policy in ["dhsa-pd", "dynamicmr", "dhsa-pi"] {
        // Bounded: a deadlock would heartbeat forever.
        let mut sim = slotsim::runs::build_sim(&load_text(&text(policy), None)).unwrap();
        let recs = collect_inspect(&mut sim);
        sim.run_until(Some(3_600_000));
        let recs = recs.lock().unwrap().clone();
        let job = &sim.view().jobs()[0];
        assert!(job.finished_at.is_some(), "{policy}: J never finished");
        check(&sim).unwrap_or_else(|e| panic!("{policy}: {e}"));
        // No reduce entered a map slot before J's maps were done.
        for a in sim
            .view()
            .attempts()
            .iter()
            .filter(|a| a.kind == Kind::Reduce)
        {
            assert!(
                a.slot_kind == Kind::Reduce || a.start >= job.map_end.unwrap(),
                "{policy}: a reduce waits in a map slot from {} ms",
                a.start
            );
        }
        if policy != "dhsa-pi" {
            let r = recs.iter().find(|r| r.node == 0).unwrap();
            assert_eq!(r.t, 0);
            assert_eq!(
                r.launched(),
                pairs(&[
                    ("J/r0", "dhsa/reduce"),
                    ("J/m0", "dhsa/non-local"),
                    ("J/m1", "dhsa/map"),
                ]),
                "{policy}"
            );
        }
    }
}

// --------------------------------------------------------- whole runs

const BUSY: &str = r#"
name = "busy"
seed = 5
[cluster]
nodes = 12
racks = 2
map_slots = 3
reduce_slots = 2
heartbeat = "3s"
speed = [0.7, 1.3]
[tasks]
straggler_prob = 0.1
straggler_slowdown = [1.5, 4.0]
speculation = "late"
[[pools]]
name = "research"
weight = 2.0
[[pools]]
name = "default"
[[workloads]]
kind = "poisson"
jobs = 40
mean_interarrival = "10s"
mix = { terasort = 1, wordcount = 2, grep = 2, sequencecount = 1 }
input = ["256MB", "4GB"]
pools = ["research", "default"]
"#;

/// The most slots of each type ever borrowed at once: (reduces in map
/// slots, maps in reduce slots).
fn peak_borrowed(sim: &Sim) -> (i32, i32) {
    let mut ev: Vec<(u64, i32, i32, i32)> = Vec::new();
    for a in sim.view().attempts() {
        let (rm, mr) = match (a.kind, a.slot_kind) {
            (Kind::Reduce, Kind::Map) => (1, 0),
            (Kind::Map, Kind::Reduce) => (0, 1),
            _ => continue,
        };
        ev.push((a.start, 1, rm, mr));
        ev.push((a.end().unwrap(), -1, rm, mr));
    }
    ev.sort_by_key(|e| (e.0, e.1));
    let (mut rm, mut mr, mut peak) = (0, 0, (0, 0));
    for (_, d, a, b) in ev {
        rm += d * a;
        mr += d * b;
        peak = (peak.0.max(rm), peak.1.max(mr));
    }
    peak
}

#[test]
fn borrowing_stays_within_the_percentages_over_a_busy_run() {
    // 36 map and 24 reduce slots.
    for (p, limit) in [
        ("dhsa-pi", (36, 24)),
        ("dhsa-pd", (36, 24)),
        (
            "dhsa-pi[borrow_map_pct=0.5;borrow_reduce_pct=0.25]",
            (18, 6),
        ),
        (
            "dhsa-pd[borrow_map_pct=0.5;borrow_reduce_pct=0.25]",
            (18, 6),
        ),
        (
            "dynamicmr[borrow_map_pct=0.25;borrow_reduce_pct=0.5;max_borrowed_reduce_slots=0]",
            (9, 12),
        ),
        ("dhsa-pi[borrow_map_pct=0;borrow_reduce_pct=0]", (0, 0)),
        ("dhsa-pd[borrow_map_pct=0;borrow_reduce_pct=0]", (0, 0)),
    ] {
        let (sim, _) = run(&load_text(BUSY, Some(p)));
        check(&sim).unwrap_or_else(|e| panic!("{p}: {e}"));
        let peak = peak_borrowed(&sim);
        assert!(
            peak.0 <= limit.0 && peak.1 <= limit.1,
            "{p}: peak {peak:?} over {limit:?}"
        );
        if limit.0 > 0 {
            assert!(peak.0 > 0 || peak.1 > 0, "{p}: never borrowed");
        }
    }
}

/// A summary without the policy label, for comparing runs.
fn launches_of(sim: &Sim) -> Vec<(u32, u32, Kind, u32, u64, Option<u64>)> {
    sim.view()
        .attempts()
        .iter()
        .map(|a| (a.job, a.task, a.kind, a.node, a.start, a.end()))
        .collect()
}

#[test]
fn pi_dhsa_without_borrowing_is_fair_on_typed_slots() {
    // Verified before asserting: with both percentages 0, PI-DHSA's loop
    // is fair's, so every launch matches (quickstart; delay scheduling on
    // 100 nodes; LATE with stragglers; OMO's Set A, whose fair runs view
    // the unified containers as 2 + 2 typed slots).
    for name in [
        "quickstart.toml",
        "delay-scheduling.toml",
        "stragglers.toml",
        "omo-set-a.toml",
    ] {
        let (fair, _) = run(&load(name, Some("fair")));
        let (pi, _) = run(&load(
            name,
            Some("dhsa-pi[borrow_map_pct=0;borrow_reduce_pct=0]"),
        ));
        assert_eq!(launches_of(&fair), launches_of(&pi), "{name}");
        assert!(
            pi.view().attempts().iter().all(|a| a.kind == a.slot_kind),
            "{name}"
        );
    }
}

#[test]
fn batch_scenario_keeps_the_invariants_and_is_deterministic() {
    for p in ["dhsa-pi", "dhsa-pd", "dynamicmr"] {
        let (sim, a) = run(&load("dynamicmr-batch.toml", Some(p)));
        check(&sim).unwrap_or_else(|e| panic!("{p}: {e}"));
        let (_, b) = run(&load("dynamicmr-batch.toml", Some(p)));
        assert_eq!(
            serde_json::to_string(&a).unwrap(),
            serde_json::to_string(&b).unwrap(),
            "{p}"
        );
    }
}

#[test]
fn settings_are_range_checked() {
    for (table, key, v) in [
        ("dhsa-pi", "borrow_map_pct", "1.5"),
        ("dhsa-pd", "borrow_reduce_pct", "-0.1"),
        ("dynamicmr", "sepb_check_fraction", "2"),
        ("dynamicmr", "slowstart", "1.1"),
    ] {
        let text = format!("[cluster]\nnodes = 2\n[scheduler.{table}]\n{key} = {v}\n");
        let e = slotsim::scenario::load_str(&text, "t.toml", None, None)
            .unwrap_err()
            .to_string();
        assert!(e.contains(key) && e.contains("between 0 and 1"), "{e}");
    }
    // SEPB and PreScheduling keys belong to dynamicmr only.
    let text = "[cluster]\nnodes = 2\n[scheduler.dhsa-pd]\nprescheduling = true\n";
    let e = slotsim::scenario::load_str(text, "t.toml", None, None)
        .unwrap_err()
        .to_string();
    assert!(e.contains("unknown field `prescheduling`"), "{e}");
}

//! Fair-scheduler preemption (docs/policies.md, Hadoop 1.x
//! `preemptTasksIfNecessary`): a pool starved below its min share past its
//! timeout gets slots back from pools above their fair share, newest tasks
//! first, and never more than it needs.

use crate::common;
use common::*;
use slotsim::sim::{Kind, Outcome};

fn scenario(preemption: bool) -> String {
    scenario_with(preemption, 0)
}

/// `reduces` > 0 fills the reduce slots too, so no node ever has a free
/// slot: preemption must still run (on every heartbeat, not only those
/// that ask for work).
fn scenario_with(preemption: bool, reduces: u32) -> String {
    format!(
        r#"
name = "preempt"
[cluster]
nodes = 4
racks = 1
map_slots = 2
reduce_slots = 1
heartbeat = "1s"
[hdfs]
replication = 4
[scheduler]
policy = "fair"
slowstart = 0.0
[scheduler.fair]
preemption = {preemption}
[[pools]]
name = "batch"
[[pools]]
name = "prod"
min_maps = 4
min_share_timeout = "10s"
[[jobs]]
name = "big"
profile = "terasort"
maps = 40
reduces = {reduces}
map_time = "1h"
reduce_time = "1h"
pool = "batch"
[[jobs]]
name = "urgent"
profile = "terasort"
maps = 8
reduces = 0
map_time = "30s"
submit = "5s"
pool = "prod"
"#
    )
}

fn first_start(sim: &slotsim::sim::Sim, job: &str) -> u64 {
    sim.view()
        .attempts()
        .iter()
        .filter(|a| sim.view().job(a.job).name.as_ref() == job)
        .map(|a| a.start)
        .min()
        .unwrap()
}

#[test]
fn a_starved_pool_gets_its_min_share_back() {
    let (sim, s) = run(&load_text(&scenario(true), None));
    assert_eq!(s.jobs_finished, 2);
    let killed: Vec<_> = sim
        .view()
        .attempts()
        .iter()
        .filter(|a| a.outcome == Outcome::Killed)
        .collect();
    // prod's min share is 4 of the 8 map slots, batch's fair share is 4:
    // exactly 4 of batch's tasks go, the newest ones.
    assert_eq!(killed.len(), 4, "{killed:?}");
    assert!(killed
        .iter()
        .all(|a| sim.view().job(a.job).name.as_ref() == "big" && a.kind == Kind::Map));
    let t_kill = killed[0].end().unwrap();
    assert!(
        killed.iter().all(|a| a.end() == Some(t_kill)),
        "one preemption round"
    );
    assert!(
        (15_000..=21_000).contains(&t_kill),
        "after the 10 s timeout, at a 15 s check: {t_kill}"
    );
    let newest_kept = sim
        .view()
        .attempts()
        .iter()
        .filter(|a| {
            sim.view().job(a.job).name.as_ref() == "big"
                && a.outcome != Outcome::Killed
                && a.start <= t_kill
        })
        .map(|a| a.start)
        .max()
        .unwrap();
    assert!(
        killed.iter().all(|a| a.start >= newest_kept),
        "newest tasks are the victims"
    );
    let urgent = first_start(&sim, "urgent");
    assert!(
        urgent >= t_kill && urgent <= t_kill + 1_000,
        "prod starts at once: {urgent}"
    );
    // Killed tasks run again later; every task still succeeds once.
    common::check(&sim).unwrap();
}

#[test]
fn without_preemption_the_pool_waits() {
    let (sim, _) = run(&load_text(&scenario(false), None));
    assert!(sim
        .view()
        .attempts()
        .iter()
        .all(|a| a.outcome == Outcome::Succeeded));
    assert!(
        first_start(&sim, "urgent") >= 3_600_000,
        "waits for an hour-long task to end"
    );
}

#[test]
fn preemption_works_on_a_full_cluster() {
    let (sim, _) = run(&load_text(&scenario_with(true, 4), None));
    let urgent = first_start(&sim, "urgent");
    assert!(
        urgent <= 21_000,
        "prod starts within a preemption round: {urgent}"
    );
    common::check(&sim).unwrap();
}

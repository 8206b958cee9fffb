//! The worked examples of docs/policies.md and Hadoop's scheduler tests,
//! replayed exactly.

use crate::common;
use common::*;

fn job_times(sim: &slotsim::sim::Sim, name: &str) -> (u64, u64) {
    let j = sim
        .view()
        .jobs()
        .iter()
        .find(|j| j.name.as_ref() == name)
        .unwrap();
    (j.map_end.unwrap(), j.finished_at.unwrap())
}

#[test]
fn fig45_fifo_makespan_is_80s() {
    let (sim, s) = run(&load("fig45-fifo-vs-fair.toml", Some("fifo")));
    assert_eq!(s.makespan_s, Some(80.0));
    // job 1 maps 0-20, reduces 20-40; job 2 maps 20-40, reduces 40-60; job 3 40-60, 60-80.
    assert_eq!(job_times(&sim, "job1"), (20_000, 40_000));
    assert_eq!(job_times(&sim, "job2"), (40_000, 60_000));
    assert_eq!(job_times(&sim, "job3"), (60_000, 80_000));
}

#[test]
fn fig45_capped_fair_makespan_is_120s() {
    let (sim, s) = run(&load("fig45-fifo-vs-fair.toml", Some("fair")));
    assert_eq!(s.makespan_s, Some(120.0));
    for job in ["job1", "job2", "job3"] {
        // Each job's maps run one at a time over 0-60 s.
        assert_eq!(job_times(&sim, job).0, 60_000, "{job} maps end at 60 s");
    }
    let finishes: Vec<u64> = ["job1", "job2", "job3"]
        .iter()
        .map(|j| job_times(&sim, j).1)
        .collect();
    assert_eq!(finishes.iter().max(), Some(&120_000));
}

#[test]
fn omo_fig4_twelve_maps_take_five_units_thirteen_take_six() {
    let text = std::fs::read_to_string(scenario_path("omo-fig4.toml")).unwrap();
    let (_, s12) = run(&load_text(&text, None));
    assert_eq!(s12.makespan_s, Some(5.0));
    let text13 = text.replace("maps = 12", "maps = 13");
    assert_ne!(text, text13);
    let (_, s13) = run(&load_text(&text13, None));
    assert_eq!(s13.makespan_s, Some(6.0));
    // Fair reaches the same numbers on this one-job cluster.
    let (_, f12) = run(&load_text(&text, Some("fair")));
    let (_, f13) = run(&load_text(&text13, Some("fair")));
    assert_eq!((f12.makespan_s, f13.makespan_s), (Some(5.0), Some(6.0)));
}

/// TestFairScheduler.testSmallJobs: the seven heartbeats launch exactly this.
#[test]
fn hadoop_test_small_jobs_sequence() {
    let sc = load("hadoop-small-jobs.toml", None);
    let mut sim = slotsim::runs::build_sim(&sc).unwrap();
    sim.run_until(Some(7_000));
    assert_eq!(
        launches(&sim),
        ["J1/m0", "J1/r0", "J2/m0", "J2/r0", "J1/m1", "J2/r1"]
    );
    let nodes: Vec<u32> = sim.view().attempts().iter().map(|a| a.node).collect();
    assert_eq!(nodes, [0, 0, 0, 0, 1, 1]);
    let starts: Vec<u64> = sim.view().attempts().iter().map(|a| a.start).collect();
    assert_eq!(
        starts,
        [1_000, 2_000, 3_000, 4_000, 5_000, 6_000],
        "the 7th heartbeat launches nothing"
    );
}

#[test]
fn hadoop_test_small_jobs_fair_shares_in_inspect() {
    let sc = load("hadoop-small-jobs.toml", None);
    let (_, recs) = run_inspect(&sc);
    let first = &recs[0];
    assert_eq!(first.t, 1_000);
    let j1 = &first.inspection.jobs["J1"];
    let j2 = &first.inspection.jobs["J2"];
    assert_eq!(j1["fair_share_map"], 2.0);
    assert_eq!(j1["fair_share_reduce"], 1.0);
    assert_eq!(j2["fair_share_map"], 1.0);
    assert_eq!(j2["fair_share_reduce"], 2.0);
    assert_eq!(j1["demand_map"], 2);
    assert_eq!(j2["demand_reduce"], 2);
    assert_eq!(first.assigned, ["J1/m0"]);
    // The 7th heartbeat considered work and assigned nothing.
    assert_eq!(recs.len(), 7);
    assert!(recs[6].assigned.is_empty());
}

/// A scenario with one job per pool and a manual heartbeat, to read pool
/// fair shares from `--inspect`.
fn pools_scenario(nodes: u32, map_slots: u32, pools: &[(&str, f64, u32)]) -> String {
    let mut t = format!(
        "name = \"shares\"\n[cluster]\nnodes = {nodes}\nmap_slots = {map_slots}\nreduce_slots = 1\nheartbeat = \"manual\"\n[scheduler]\npolicy = \"fair\"\n"
    );
    for (name, weight, _) in pools {
        t += &format!("[[pools]]\nname = \"{name}\"\nweight = {weight}\n");
    }
    for (name, _, maps) in pools {
        t += &format!(
            "[[jobs]]\nname = \"j{name}\"\nprofile = \"grep\"\nmaps = {maps}\nreduces = 0\npool = \"{name}\"\n"
        );
    }
    t += "[[events]]\nat = \"1s\"\naction = \"heartbeat\"\nnode = 0\n";
    t
}

fn pool_shares(text: &str) -> Vec<f64> {
    let (_, recs) = run_inspect(&load_text(text, None));
    let r = &recs[0];
    ["a", "b", "c", "d"]
        .iter()
        .map(|p| r.inspection.pools[*p]["fair_share_map"].as_f64().unwrap())
        .collect()
}

fn close(a: &[f64], b: &[f64]) {
    for (x, y) in a.iter().zip(b) {
        assert!((x - y).abs() < 0.01, "{a:?} vs {b:?}");
    }
}

/// TestComputeFairShares.testLowDemands through the whole stack: 40 slots,
/// demands 100/50/11/3 give 13, 13, 11, 3.
#[test]
fn compute_fair_shares_low_demands_in_inspect() {
    let t = pools_scenario(
        20,
        2,
        &[
            ("a", 1.0, 100),
            ("b", 1.0, 50),
            ("c", 1.0, 11),
            ("d", 1.0, 3),
        ],
    );
    close(&pool_shares(&t), &[13.0, 13.0, 11.0, 3.0]);
}

/// TestComputeFairShares.testWeightedSharingWithLowDemands: 45 slots,
/// weights 2/1/1/0.5, demands 10/11/30/20 give 10, 11, 16, 8.
#[test]
fn compute_fair_shares_weighted_low_demands_in_inspect() {
    let t = pools_scenario(
        15,
        3,
        &[
            ("a", 2.0, 10),
            ("b", 1.0, 11),
            ("c", 1.0, 30),
            ("d", 0.5, 20),
        ],
    );
    close(&pool_shares(&t), &[10.0, 11.0, 16.0, 8.0]);
}

/// Delay scheduling (Zaharia et al., EuroSys'10): on many small jobs with 3
/// replicas, fair with its locality delays reaches far higher node locality
/// than FIFO; with the delays set to zero the advantage disappears, so it
/// is the waiting that buys it.
#[test]
fn delay_scheduling_beats_fifo_on_node_locality() {
    let (_, fifo) = run(&load("delay-scheduling.toml", Some("fifo")));
    let (_, fair) = run(&load("delay-scheduling.toml", Some("fair")));
    let (_, nodelay) = run(&load(
        "delay-scheduling.toml",
        Some("fair[node_locality_delay=0s;rack_locality_delay=0s]"),
    ));
    assert!(
        fair.locality.node > 0.9,
        "fair node locality {}",
        fair.locality.node
    );
    assert!(
        fifo.locality.node < 0.3,
        "fifo node locality {}",
        fifo.locality.node
    );
    assert!(
        nodelay.locality.node < 0.3,
        "no-delay fair {}",
        nodelay.locality.node
    );
    assert!(fair.locality.node - fifo.locality.node > 0.5);
}

/// Hadoop 1.x TestJobQueueTaskScheduler.testDefaultTaskAssignment: two
/// TaskTrackers with 2 map + 2 reduce slots, two running jobs of 10 maps and
/// 10 reduces (reduces schedulable at once). tt1, tt1, tt1, tt2, tt2, tt2,
/// tt1, tt2 heartbeats get: 2 maps + 1 reduce, 1 reduce, nothing, 2 maps +
/// 1 reduce, 1 reduce, nothing, nothing, nothing, all from job 1.
#[test]
fn hadoop_test_default_task_assignment_fifo() {
    let mut t = String::from(
        "name = \"jqts\"\n[cluster]\nnodes = 2\nmap_slots = 2\nreduce_slots = 2\nheartbeat = \"manual\"\n\
         [hdfs]\nreplication = 2\n[scheduler]\npolicy = \"fifo\"\nslowstart = 0.0\n",
    );
    for j in ["J1", "J2"] {
        t += &format!(
            "[[jobs]]\nname = \"{j}\"\nprofile = \"terasort\"\nmaps = 10\nreduces = 10\nmap_time = \"1h\"\nreduce_time = \"1h\"\n"
        );
    }
    for (i, node) in [0, 0, 0, 1, 1, 1, 0, 1].iter().enumerate() {
        t += &format!(
            "[[events]]\nat = \"{}s\"\naction = \"heartbeat\"\nnode = {node}\n",
            i + 1
        );
    }
    let sc = load_text(&t, None);
    let mut sim = slotsim::runs::build_sim(&sc).unwrap();
    sim.run_until(Some(8_000));
    let names = launches(&sim);
    let per_hb: Vec<Vec<String>> = (1..=8u64)
        .map(|s| {
            sim.view()
                .attempts()
                .iter()
                .zip(&names)
                .filter(|(a, _)| a.start == s * 1000)
                .map(|(_, n)| n.clone())
                .collect()
        })
        .collect();
    let expect: Vec<Vec<&str>> = vec![
        vec!["J1/m0", "J1/m1", "J1/r0"],
        vec!["J1/r1"],
        vec![],
        vec!["J1/m2", "J1/m3", "J1/r2"],
        vec!["J1/r3"],
        vec![],
        vec![],
        vec![],
    ];
    assert_eq!(per_hb, expect);
}

/// testAssignMultipleWithUnderloadedCluster (from a FairScheduler test
/// suite whose pools order jobs FIFO, hence `scheduling_mode = "fifo"`):
/// four nodes with 2 map + 2 reduce slots, assign_multiple on, J1 (2 maps,
/// 2 reduces) and J2 (2 maps, 1 reduce). CapBasedLoadManager caps each node
/// at one map and one reduce (4/8 and 3/8 of the cluster is runnable), so
/// tt1..tt3 get a map and a reduce each, tt4 one map, and a second
/// heartbeat on each node gets nothing.
#[test]
fn hadoop_test_assign_multiple_with_underloaded_cluster() {
    let mut t = String::from(
        "name = \"underloaded\"\n[cluster]\nnodes = 4\nracks = 1\nmap_slots = 2\nreduce_slots = 2\nheartbeat = \"manual\"\n\
         [hdfs]\nreplication = 4\n[scheduler]\npolicy = \"fair\"\nslowstart = 0.0\n\
         [[pools]]\nname = \"default\"\nscheduling_mode = \"fifo\"\n",
    );
    for (j, m, r, at) in [("J1", 2, 2, "0s"), ("J2", 2, 1, "100ms")] {
        t += &format!(
            "[[jobs]]\nname = \"{j}\"\nprofile = \"terasort\"\nmaps = {m}\nreduces = {r}\nsubmit = \"{at}\"\nmap_time = \"1h\"\nreduce_time = \"1h\"\n"
        );
    }
    for (i, node) in [0, 0, 1, 1, 2, 2, 3, 3].iter().enumerate() {
        t += &format!(
            "[[events]]\nat = \"{}s\"\naction = \"heartbeat\"\nnode = {node}\n",
            i + 1
        );
    }
    let sc = load_text(&t, None);
    let mut sim = slotsim::runs::build_sim(&sc).unwrap();
    sim.run_until(Some(8_000));
    let got: Vec<(u64, String)> = sim
        .view()
        .attempts()
        .iter()
        .zip(launches(&sim))
        .map(|(a, n)| (a.start / 1000, n))
        .collect();
    let want: Vec<(u64, String)> = [
        (1, "J1/m0"),
        (1, "J1/r0"),
        (3, "J1/m1"),
        (3, "J1/r1"),
        (5, "J2/m0"),
        (5, "J2/r0"),
        (7, "J2/m1"),
    ]
    .iter()
    .map(|(t, n)| (*t, n.to_string()))
    .collect();
    assert_eq!(got, want);
}

/// TestFairScheduler.testDelaySchedulingOffRack, up to the first launches:
/// one job of 8 maps whose only replicas are on rack2.node2 (node 3), node
/// and rack delays of 10 s. Nothing launches off its node until it has
/// waited 10 s, nothing off its rack until 20 s; the waited time counts
/// heartbeat-to-heartbeat across the cluster (11.2 s after the 11.3 s
/// heartbeats), and once allowed anywhere each node fills both map slots,
/// rack-local before off-rack.
#[test]
fn hadoop_test_delay_scheduling_off_rack() {
    let mut t = String::from(
        "name = \"offrack\"\n[cluster]\nnodes = 4\nracks = 2\nmap_slots = 2\nreduce_slots = 2\nheartbeat = \"manual\"\n\
         [scheduler]\npolicy = \"fair\"\n[scheduler.fair]\nnode_locality_delay = \"10s\"\nrack_locality_delay = \"10s\"\n\
         [[pools]]\nname = \"default\"\nmin_maps = 10\nmin_reduces = 10\n\
         [[jobs]]\nname = \"J1\"\nprofile = \"terasort\"\nmaps = 8\nreduces = 0\nmap_time = \"1h\"\n\
         blocks = [[3], [3], [3], [3], [3], [3], [3], [3]]\n",
    );
    let hbs: [(u64, &[u32]); 5] = [
        (100, &[0, 1, 2]),
        (11_100, &[0, 1]),
        (11_200, &[0, 1]),
        (11_300, &[0, 1]),
        (22_300, &[0, 1, 2, 3]),
    ];
    for (at, nodes) in hbs {
        for n in nodes {
            t += &format!("[[events]]\nat = \"{at}ms\"\naction = \"heartbeat\"\nnode = {n}\n");
        }
    }
    let sc = load_text(&t, None);
    let (sim, recs) = run_inspect(&sc);
    // Nine heartbeats assign nothing; the waited time before the 22.3 s round.
    assert!(recs[..9].iter().all(|r| r.assigned.is_empty()));
    let w = |i: usize| recs[i].inspection.jobs["J1"]["waited_s"].as_f64().unwrap();
    let lvl = |i: usize| {
        recs[i].inspection.jobs["J1"]["locality_level"]
            .as_str()
            .unwrap()
            .to_string()
    };
    assert_eq!(
        (w(3), lvl(3)),
        (11.0, "rack".to_string()),
        "first heartbeat after 11 s"
    );
    assert!((w(8) - 11.2).abs() < 1e-9, "waited {} at 11.3 s", w(8));
    assert_eq!(lvl(9), "any");
    let got: Vec<(Vec<String>, u32)> = recs[9..]
        .iter()
        .map(|r| (r.assigned.clone(), r.node))
        .collect();
    assert_eq!(
        got,
        vec![
            (vec!["J1/m0".to_string(), "J1/m1".to_string()], 0),
            (vec!["J1/m2".to_string(), "J1/m3".to_string()], 1),
            (vec!["J1/m4".to_string(), "J1/m5".to_string()], 2),
            (vec!["J1/m6".to_string(), "J1/m7".to_string()], 3),
        ]
    );
    let locs: Vec<&str> = sim
        .view()
        .attempts()
        .iter()
        .map(|a| a.locality.unwrap().as_str())
        .collect();
    assert_eq!(
        locs,
        ["off_rack", "off_rack", "off_rack", "off_rack", "rack", "rack", "node", "node"]
    );
}

fn capacity_scenario(jobs: &[(&str, &str)], heartbeats: &[u32]) -> String {
    let mut t = String::from(
        "name = \"cap\"\n[cluster]\nnodes = 2\nracks = 1\nmap_slots = 2\nreduce_slots = 1\nheartbeat = \"manual\"\n\
         [hdfs]\nreplication = 2\n[scheduler]\npolicy = \"capacity\"\nslowstart = 0.0\n\
         [[pools]]\nname = \"default\"\ncapacity = 50\nmin_user_limit = 25\n\
         [[pools]]\nname = \"q2\"\ncapacity = 50\nmin_user_limit = 25\n",
    );
    for (name, user) in jobs {
        t += &format!(
            "[[jobs]]\nname = \"{name}\"\nprofile = \"terasort\"\nmaps = 10\nreduces = 10\npool = \"q2\"\nuser = \"{user}\"\nmap_time = \"1h\"\nreduce_time = \"1h\"\n"
        );
    }
    for (i, n) in heartbeats.iter().enumerate() {
        t += &format!(
            "[[events]]\nat = \"{}s\"\naction = \"heartbeat\"\nnode = {n}\n",
            i + 1
        );
    }
    t
}

fn launched_by_heartbeat(t: &str, n: usize) -> Vec<Vec<String>> {
    let sc = load_text(t, None);
    let mut sim = slotsim::runs::build_sim(&sc).unwrap();
    sim.run_until(Some(n as u64 * 1000));
    let names = launches(&sim);
    (1..=n as u64)
        .map(|s| {
            sim.view()
                .attempts()
                .iter()
                .zip(&names)
                .filter(|(a, _)| a.start == s * 1000)
                .map(|(_, x)| x.clone())
                .collect()
        })
        .collect()
}

/// TestCapacityScheduler.testUserLimits3, as Hadoop 1.x assigns (several
/// maps and one reduce per heartbeat): queue q2 has 50 % of 4 map and 2
/// reduce slots. A lone user gets the queue's 2 maps and 1 reduce, then
/// nothing more: its limit is capped at capacity × user-limit-factor (1 by
/// default), even with the default queue idle ...
#[test]
fn hadoop_capacity_lone_user_stops_at_its_queue_capacity() {
    let got = launched_by_heartbeat(&capacity_scenario(&[("J1", "u1")], &[0, 1]), 2);
    assert_eq!(got, vec![vec!["J1/m0", "J1/m1", "J1/r0"], vec![]]);
}

/// ... and testUserLimits: a second user who submits later gets the idle
/// capacity beyond the queue's own, since the limit is counted per user
/// (occupied + 1 once over capacity, shared by the users with tasks
/// pending).
#[test]
fn hadoop_capacity_second_user_gets_the_idle_capacity() {
    let t = capacity_scenario(&[("J1", "u1"), ("J2", "u2")], &[0, 1]).replacen(
        "user = \"u2\"\n",
        "user = \"u2\"\nsubmit = \"1500ms\"\n",
        1,
    );
    let got = launched_by_heartbeat(&t, 2);
    assert_eq!(
        got,
        vec![
            vec!["J1/m0", "J1/m1", "J1/r0"],
            vec!["J2/m0", "J2/m1", "J2/r0"]
        ]
    );
}

/// With a user-limit-factor of 2 (as Hadoop's tests set where they want it)
/// the lone user grows into the idle default queue's capacity.
#[test]
fn hadoop_capacity_user_limit_factor_lets_a_lone_user_grow() {
    let t = capacity_scenario(&[("J1", "u1")], &[0, 1]).replace(
        "name = \"q2\"\ncapacity = 50\n",
        "name = \"q2\"\ncapacity = 50\nuser_limit_factor = 2\n",
    );
    let got = launched_by_heartbeat(&t, 2);
    assert_eq!(
        got,
        vec![
            vec!["J1/m0", "J1/m1", "J1/r0"],
            vec!["J1/m2", "J1/m3", "J1/r1"]
        ]
    );
}

/// ... while two users of the queue split it: each user's limit is
/// max(ceil(cur / users), ceil(25 % × cur)), so the second user's job gets
/// the second map of each heartbeat.
#[test]
fn hadoop_capacity_user_limit_splits_a_queue_between_users() {
    let got = launched_by_heartbeat(
        &capacity_scenario(&[("J1", "u1"), ("J2", "u2")], &[0, 1]),
        2,
    );
    assert_eq!(
        got,
        vec![
            vec!["J1/m0", "J2/m0", "J1/r0"],
            vec!["J1/m1", "J2/m1", "J2/r0"]
        ]
    );
}

/// On unified containers capacity gives the heartbeat's reduce its
/// container first (YARN's MapReduce AM ranks reduce requests above maps),
/// then fills the rest with maps: with slowstart 0 the job's first reduce
/// starts on the first heartbeat instead of after its last map launched.
/// A reduce waiting on maps never takes its user's last allowed container:
/// on the second heartbeat the lone user (3 of 6 containers used, limit 4
/// once over capacity, user-limit-factor 2) gets maps only. On typed slots the order stays
/// Hadoop 1.x's: maps, then one reduce.
#[test]
fn capacity_on_unified_containers_does_not_hold_back_reduces() {
    let typed = capacity_scenario(&[("J1", "u1")], &[0, 1]).replace(
        "name = \"q2\"\ncapacity = 50\n",
        "name = \"q2\"\ncapacity = 50\nuser_limit_factor = 2\n",
    );
    let unified = typed.replace(
        "heartbeat = \"manual\"",
        "heartbeat = \"manual\"\nslot_model = \"unified\"",
    );
    let got = launched_by_heartbeat(&unified, 2);
    assert_eq!(
        got,
        vec![
            vec!["J1/r0", "J1/m0", "J1/m1"],
            vec!["J1/m2", "J1/m3", "J1/m4"]
        ]
    );
    assert_eq!(
        launched_by_heartbeat(&typed, 1)[0],
        ["J1/m0", "J1/m1", "J1/r0"]
    );
}

/// One heartbeat with assign_multiple fills a node's four map slots from a
/// fair-mode pool by `FairShareComparator`, re-sorting after each launch:
/// A and B (4 maps each, all blocks on the node) alternate, A first on
/// ties (submitted first). A job that took a task goes back in the order at
/// its new place within the heartbeat, not its old one (A, A, A, A) and not
/// out of it (A, B, B, B).
#[test]
fn fair_reorders_jobs_after_each_launch_in_a_heartbeat() {
    let mut t = String::from(
        "name = \"alternate\"\n[cluster]\nnodes = 1\nracks = 1\nmap_slots = 4\nreduce_slots = 1\nheartbeat = \"manual\"\n\
         [hdfs]\nreplication = 1\n[scheduler]\npolicy = \"fair\"\n",
    );
    for (j, at) in [("A", "0s"), ("B", "100ms")] {
        t += &format!(
            "[[jobs]]\nname = \"{j}\"\nprofile = \"terasort\"\nmaps = 4\nreduces = 1\nsubmit = \"{at}\"\nmap_time = \"1h\"\nreduce_time = \"1h\"\n"
        );
    }
    t += "[[events]]\nat = \"1s\"\naction = \"heartbeat\"\nnode = 0\n";
    let sc = load_text(&t, None);
    let mut sim = slotsim::runs::build_sim(&sc).unwrap();
    sim.run_until(Some(1_000));
    assert_eq!(launches(&sim), ["A/m0", "B/m0", "A/m1", "B/m1"]);
}

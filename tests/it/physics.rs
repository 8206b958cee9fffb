//! The cluster's physics, on runs built for one effect each: cores shared
//! by the attempts computing on a node, flows sharing a disk, a reducer's
//! copy behind its NIC, start-up, variance, Hadoop's heartbeat interval,
//! the fixed model's per-transfer bandwidths, and `--flows` replayed by an
//! independent max-min solver.

use crate::common;

use common::{check, heartbeat_events, load_text, run};
use slotsim::sim::Kind;

fn secs(ms: u32) -> f64 {
    ms as f64 / 1000.0
}

/// `n` grep maps of `block` on one node (`map_slots` = n), no start-up, no
/// variance, nothing to spill; `cores` cores and `disk` MB/s.
fn one_node(n: u32, cores: u32, block: &str, disk: f64) -> String {
    format!(
        r#"
[cluster]
nodes = 1
map_slots = {n}
reduce_slots = 1
cores = {cores}
heartbeat = "manual"
[network]
disk_mbps = {disk}
[hdfs]
block = "{block}"
replication = 1
[tasks]
startup = "0s"
duration_cv = 0
[scheduler]
policy = "fifo"
[[jobs]]
name = "j"
profile = "grep"
maps = {n}
reduces = 0
fp = 0
{}"#,
        heartbeat_events(&[(0, 0)])
    )
}

#[test]
fn four_computing_tasks_on_two_cores_take_twice_as_long_as_one_alone() {
    let alone = run(&load_text(&one_node(1, 2, "64MB", 1e6), None)).0;
    let four = run(&load_text(&one_node(4, 2, "64MB", 1e6), None)).0;
    check(&alone).unwrap();
    check(&four).unwrap();
    let c1 = alone.view().attempts()[0].times.compute;
    assert!(c1 > 1000, "a grep map computes for seconds: {c1} ms");
    assert_eq!(four.view().attempts().len(), 4);
    for a in four.view().attempts() {
        assert_eq!(a.times.compute, 2 * c1, "half a core each");
    }
    // Two on two cores: a core each, as fast as alone.
    let two = run(&load_text(&one_node(2, 2, "64MB", 1e6), None)).0;
    assert!(two.view().attempts().iter().all(|a| a.times.compute == c1));
}

#[test]
fn four_100mb_reads_through_one_100mbs_disk_end_together_at_4s() {
    let (sim, _) = run(&load_text(&one_node(4, 4, "100MB", 100.0), None));
    check(&sim).unwrap();
    for a in sim.view().attempts() {
        assert_eq!((a.start, a.times.read), (0, 4_000), "25 MB/s each for 4 s");
    }
    // Alone, the same read takes 1 s.
    let (one, _) = run(&load_text(&one_node(1, 4, "100MB", 100.0), None));
    assert_eq!(one.view().attempts()[0].times.read, 1_000);
}

/// 20 maps of 50 MB output each, one per node 1..=20 (fixed 5 s maps), and
/// one reduce on node 0, started once they are done: 1000 MB through node
/// 0's 125 MB/s NIC takes at least 8 s.
/// Twenty 50 MB outputs on nodes 1..=20 for one reduce on node 0, with
/// `network` as the `[network]` table.
fn twenty_outputs_one_reduce(network: &str) -> String {
    let blocks: Vec<String> = (1..=20).map(|n| format!("[{n}]")).collect();
    let mut beats: Vec<(u64, u32)> = (1..=20).map(|n| (0, n)).collect();
    beats.push((10_000, 0));
    format!(
        r#"
[cluster]
nodes = 21
racks = 1
map_slots = 1
reduce_slots = 1
heartbeat = "manual"
[network]
{network}
[hdfs]
block = "50MB"
replication = 1
[tasks]
startup = "0s"
duration_cv = 0
[scheduler]
policy = "fifo"
slowstart = 1.0
[[jobs]]
name = "j"
profile = "terasort"
maps = 20
input = "1000MB"
reduces = 1
fp = 1
map_time = "5s"
reduce_time = "1s"
blocks = [{}]
{}"#,
        blocks.join(", "),
        heartbeat_events(&beats)
    )
}

/// The twenty outputs' run to its end, its flows recorded, and its reduce's
/// copy time (s).
fn run_twenty(network: &str) -> (slotsim::sim::run::Sim, f64) {
    let sc = load_text(&twenty_outputs_one_reduce(network), None);
    let mut sim = slotsim::runs::build_sim(&sc).unwrap();
    sim.record_flows();
    sim.run_until(None);
    check(&sim).unwrap();
    let r = sim
        .view()
        .attempts()
        .iter()
        .find(|a| a.kind == Kind::Reduce)
        .expect("the reduce ran");
    assert_eq!(r.node, 0);
    let copy = secs(r.times.shuffle);
    (sim, copy)
}

/// The reduce's copy time (s), its fetches' paths and the bytes shuffled.
fn copy_of(network: &str) -> (f64, Vec<Vec<u32>>, u64) {
    let (sim, copy) = run_twenty(network);
    let paths = sim
        .view()
        .flow_log()
        .into_iter()
        .flat_map(|l| l.iter())
        .filter(|f| f.kind == slotsim::sim::flows::FlowKind::Shuffle)
        .map(|f| f.links.clone())
        .collect();
    let shuffled = slotsim::report::summary::summarize(&sim)
        .network
        .bytes
        .shuffle;
    (copy, paths, shuffled)
}

/// A reducer whose input outgrows `shuffle_buffer` writes every fetch to
/// its own disk: with a 50 MB/s disk behind a 125 MB/s NIC the disk is the
/// bottleneck (1000 MB: 20 s, not 8 s); under the buffer, or by default,
/// the fetches end in memory and cross no disk of node 0 (resource 0).
/// (An `io_sort_factor` over its 20 files: no merge.)
#[test]
fn a_reducer_over_its_shuffle_buffer_writes_its_fetches_to_its_disk() {
    let (spilled, paths, _) =
        copy_of("disk_mbps = 50\nshuffle_buffer = \"140MB\"\nio_sort_factor = 1000");
    assert_eq!(paths.len(), 20);
    assert!(paths.iter().all(|p| p.last() == Some(&0)), "{paths:?}");
    assert!((20.0..20.01).contains(&spilled), "{spilled} s");
    for network in [
        "disk_mbps = 50",
        "disk_mbps = 50\nshuffle_buffer = \"1001MB\"",
    ] {
        let (copy, paths, _) = copy_of(network);
        assert!(
            paths.iter().all(|p| !p.contains(&0)),
            "{network}: {paths:?}"
        );
        assert!((8.0..8.01).contains(&copy), "{network}: {copy} s");
    }
}

/// Hadoop 1.x's reduce-side merge, `io.sort.factor` 10: the twenty 50 MB
/// outputs land as twenty files (each over a quarter of the 140 MB
/// buffer); five fetches at a time share the 50 MB/s disk and land
/// together every 5 s. When the last five land, the nineteenth file starts
/// a merge of the ten smallest (500 MB read and written: 20 s on the
/// disk), which the copy waits for: 40 s. Then 11 files are left, and the
/// sort phase's first pass merges (11 − 1) mod 9 + 1 = 2 of them (100 MB
/// read and written: 4 s) so that the reduce reads ten.
#[test]
fn a_reducer_over_its_shuffle_buffer_merges_its_files_io_sort_factor_at_a_time() {
    let (sim, copy) = run_twenty("disk_mbps = 50\nshuffle_buffer = \"140MB\"");
    assert_eq!(sim.view().net_spec().io_sort_factor, 10, "Hadoop's default");
    assert!((40.0..40.01).contains(&copy), "{copy} s");
    let merges: Vec<_> = sim
        .view()
        .flow_log()
        .into_iter()
        .flat_map(|l| l.iter())
        .filter(|f| f.kind == slotsim::sim::flows::FlowKind::Merge)
        .collect();
    let mb: Vec<f64> = merges.iter().map(|f| f.mb).collect();
    assert_eq!(mb, vec![1000.0, 200.0]);
    // On the reducer's own disk only (resource 0), and a spill in the
    // outputs, as Hadoop's Spilled Records counts it.
    assert!(merges.iter().all(|f| f.links == vec![0]), "{merges:?}");
    assert_eq!(merges[0].kind.as_str(), "spill");
    let pass = merges[1].end.unwrap() - merges[1].start;
    assert!((4000.0..4000.01).contains(&pass), "{pass} ms");
    // The second merge starts as the copy ends, and the reduce after it.
    assert!((merges[1].start - merges[0].end.unwrap()).abs() < 1e-6);
}

#[test]
fn twenty_50mb_outputs_behind_one_125mbs_nic_take_at_least_8s() {
    let (copy, _, shuffled) = copy_of("");
    assert!(copy >= 8.0, "1000 MB through a 125 MB/s NIC took {copy} s");
    // Five fetches at a time share the NIC: exactly 8 s here.
    assert!(copy < 8.01, "{copy} s");
    assert_eq!(shuffled, 1000 << 20);
}

#[test]
fn startup_and_variance_apply_to_profile_tasks_only() {
    let text = |cv: f64, fixed: bool| {
        format!(
            r#"
[cluster]
nodes = 4
heartbeat = "3s"
[tasks]
startup = "2s"
duration_cv = {cv}
[[jobs]]
name = "j"
profile = "grep"
maps = 8
reduces = 1
fp = 0
{}"#,
            if fixed {
                "map_time = \"10s\"\nreduce_time = \"3s\""
            } else {
                ""
            }
        )
    };
    let (sim, _) = run(&load_text(&text(0.0, false), None));
    check(&sim).unwrap();
    assert!(sim
        .view()
        .attempts()
        .iter()
        .all(|a| a.times.startup == 2_000));
    // No variance: every map computes the same (nothing to spill).
    let maps: Vec<u32> = sim
        .view()
        .attempts()
        .iter()
        .filter(|a| a.kind == Kind::Map)
        .map(|a| a.times.compute)
        .collect();
    assert!(maps.windows(2).all(|w| w[0] == w[1]), "{maps:?}");
    // With variance, they differ, and the draws are the attempt's own.
    let (a, _) = run(&load_text(&text(0.3, false), None));
    let (b, _) = run(&load_text(&text(0.3, false), None));
    let va: Vec<u32> = a
        .view()
        .attempts()
        .iter()
        .map(|a| a.times.compute)
        .collect();
    let vb: Vec<u32> = b
        .view()
        .attempts()
        .iter()
        .map(|a| a.times.compute)
        .collect();
    assert_eq!(va, vb, "same seed, same draws");
    let distinct: std::collections::BTreeSet<u32> = va.iter().copied().collect();
    assert!(distinct.len() > 4, "{va:?}");
    // Fixed-time tasks: exactly their time, no start-up, no variance.
    let (f, _) = run(&load_text(&text(0.3, true), None));
    for at in f.view().attempts() {
        assert_eq!(at.times.startup, 0);
        if at.kind == Kind::Map {
            assert_eq!(at.end().unwrap() - at.start, 10_000);
        }
    }
}

#[test]
fn auto_heartbeat_is_hadoops_interval() {
    let hb = |nodes: u32| {
        load_text(&format!("[cluster]\nnodes = {nodes}\nracks = 1\n"), None)
            .cluster
            .heartbeat
    };
    assert_eq!(hb(20), Some(3_000));
    assert_eq!(hb(300), Some(3_000));
    assert_eq!(hb(450), Some(5_000));
    assert_eq!(hb(301), Some(4_000));
    assert_eq!(hb(3_000), Some(30_000));
    let scaled = load_text("[cluster]\nnodes = 450\nheartbeat_scaling = 2.0\n", None);
    assert_eq!(scaled.cluster.heartbeat, Some(10_000));
}

#[test]
fn the_fixed_model_reads_alone_at_the_class_bandwidth() {
    let text =
        one_node(4, 4, "100MB", 100.0).replace("[network]\n", "[network]\nmodel = \"fixed\"\n");
    let (sim, sum) = run(&load_text(&text, None));
    check(&sim).unwrap();
    // Nothing shared: each read alone at 100 MB/s.
    assert!(sim.view().attempts().iter().all(|a| a.times.read == 1_000));
    assert!(sum.network.busiest_links.is_empty());
}

/// The flows of a 50-node, 2-rack terasort, replayed by
/// `scripts/replay_flows.py` (its own max-min solver, no code shared):
/// every flow's end within 10 µs (the script works in whole µs).
#[test]
fn an_independent_max_min_replay_agrees_on_every_flow_end() {
    let said = replayed("scenarios/terasort-50.toml".as_ref());
    let n: usize = said.split_whitespace().next().unwrap().parse().unwrap();
    assert!(n > 1_000, "{said}");
}

/// Runs `scenario` (from the repository's root) with `--flows` and replays
/// the flows through `scripts/replay_flows.py`, which must find every
/// end within 0.01 ms; returns what the replay said.
fn replayed(scenario: &std::path::Path) -> String {
    let dir = tempfile::tempdir().unwrap();
    let flows = dir.path().join("run.flows");
    let root = env!("CARGO_MANIFEST_DIR");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_slotsim"))
        .current_dir(root)
        .arg("run")
        .arg(scenario)
        .args(["--headless", "--flows"])
        .arg(&flows)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let replay = std::process::Command::new("python3")
        .current_dir(root)
        .arg("scripts/replay_flows.py")
        .arg(&flows)
        .args(["--tolerance-ms", "0.01"])
        .output()
        .expect("python3 runs the replay");
    let said = String::from_utf8_lossy(&replay.stdout).into_owned();
    assert!(
        replay.status.success(),
        "{said}{}",
        String::from_utf8_lossy(&replay.stderr)
    );
    assert!(said.contains("0 beyond 0.01 ms"), "{said}");
    said
}

/// Tiny shuffle fetches (classification's outputs) that end within the
/// millisecond they start, beside long reads on the same disks, replayed
/// by the independent solver: a flow that ends earlier in a millisecond
/// than the calendar's events of that millisecond is settled, with the
/// flows its rates end in turn, before those events run, so that what
/// they start moves the others' rates from the millisecond, not from the
/// ends (until that was so, an input read beside such fetches ended
/// 0.03–0.3 ms off on every seed tried here).
#[test]
fn ends_before_a_millisecond_s_events_are_settled_before_them() {
    let dir = tempfile::tempdir().unwrap();
    let scenario = dir.path().join("tiny-fetches.toml");
    std::fs::write(
        &scenario,
        r#"
name = "tiny-fetches"
seed = 1
[cluster]
nodes = 20
racks = 2
map_slots = 2
reduce_slots = 4
heartbeat = "1s"
[hdfs]
block = "64MB"
replication = 2
[scheduler]
policy = "fair"
slowstart = 0.0
[[workloads]]
kind = "poisson"
jobs = 40
mean_interarrival = "300ms"
mix = { classification = 1, grep = 1, terasort = 1 }
input = ["256MB", "2GB"]
reduces = [10, 30]
"#,
    )
    .unwrap();
    replayed(&scenario);
}

/// `hdfs.writer` puts first replicas where HDFS does: on the writing
/// DataNode (with replication 1, every block there), round robin over the
/// nodes for a job's maps (TeraGen), a node per job in turn (`"jobs"`), a
/// job's own `writer` over `[hdfs]`'s.
#[test]
fn writers_place_first_replicas_on_their_node() {
    let text = |hdfs: &str, job: &str| {
        format!(
            "[cluster]\nnodes = 8\nracks = 2\n[hdfs]\nblock = \"64MB\"\n{hdfs}\n\
             [[jobs]]\nname = \"a\"\nprofile = \"terasort\"\nmaps = 16\nreduces = 0\n{job}\n"
        )
    };
    let first = |t: &str| -> Vec<Vec<u32>> {
        let sc = load_text(t, None);
        let mut sim = slotsim::runs::build_sim(&sc).unwrap();
        sim.run_until(Some(1));
        (0..16)
            .map(|i| sim.view().jobs()[0].replicas(i).to_vec())
            .collect()
    };
    let one = first(&text("replication = 1\nwriter = 0", ""));
    assert!(one.iter().all(|r| r == &[0]), "{one:?}");
    let maps = first(&text("replication = 3\nwriter = \"maps\"", ""));
    for (i, r) in maps.iter().enumerate() {
        assert_eq!(r[0], i as u32 % 8, "{maps:?}");
        assert_eq!(r.len(), 3);
    }
    // A job's own writer wins; the client's first replicas are spread.
    let own = first(&text("replication = 2\nwriter = \"client\"", "writer = 5"));
    assert!(own.iter().all(|r| r[0] == 5), "{own:?}");
    let client = first(&text("replication = 2", ""));
    let firsts: std::collections::BTreeSet<u32> = client.iter().map(|r| r[0]).collect();
    assert!(firsts.len() > 2, "{client:?}");
    // "jobs": the k-th job's file from node k mod 8, every block there at
    // replication 1.
    let mut jobs = String::from(
        "[cluster]\nnodes = 8\nracks = 2\n[hdfs]\nblock = \"64MB\"\nreplication = 1\nwriter = \"jobs\"\n",
    );
    for k in 0..10 {
        jobs.push_str(&format!(
            "[[jobs]]\nname = \"j{k}\"\nprofile = \"wordcount\"\nmaps = 3\nreduces = 0\n"
        ));
    }
    let sc = load_text(&jobs, None);
    let mut sim = slotsim::runs::build_sim(&sc).unwrap();
    sim.run_until(Some(1));
    for (k, job) in sim.view().jobs().iter().enumerate() {
        for i in 0..3 {
            assert_eq!(job.replicas(i), &[k as u32 % 8], "job {k}");
        }
    }
    // A writer that is not a node is an error at its place.
    let e = slotsim::scenario::load_str(&text("writer = 8", ""), "t.toml", None, None).unwrap_err();
    assert!(
        e.to_string().contains("t.toml:6:10") && e.to_string().contains("0 to 7"),
        "{e}"
    );
}

/// A job's own costs and output replication override its profile's and
/// `[hdfs]`'s: twice the map cost doubles a map's compute; one output
/// replica writes only the reducer's own disk.
#[test]
fn per_job_costs_and_output_replication_override_the_profile() {
    let text = |job: &str| {
        format!(
            "[cluster]\nnodes = 4\nracks = 2\n[tasks]\nduration_cv = 0.0\n\
             [[jobs]]\nname = \"a\"\nprofile = \"terasort\"\nmaps = 1\nreduces = 1\n{job}\n"
        )
    };
    let compute = |job: &str| {
        let (sim, _) = run(&load_text(&text(job), None));
        let m = sim
            .view()
            .attempts()
            .iter()
            .find(|a| a.kind == Kind::Map)
            .unwrap();
        let r = sim
            .view()
            .attempts()
            .iter()
            .find(|a| a.kind == Kind::Reduce)
            .unwrap();
        (m.times.compute, r.times.compute)
    };
    let (m0, r0) = compute("");
    let (m1, r1) = compute("map_cost = 0.05\nreduce_cost = 0.0");
    let (m2, _) = compute("map_cost = 0.1");
    // 128 MB more at 0.05 s per MB: 6.4 s more.
    assert_eq!(m2 - m1, 6_400, "{m1} {m2}");
    assert_ne!(m0, m1);
    assert!(r1 < r0, "{r0} {r1}");
    let sc = load_text(&text("output_replication = 1\nreduce_output = 1.0"), None);
    let mut sim = slotsim::runs::build_sim(&sc).unwrap();
    sim.record_flows();
    sim.run_until(None);
    let outputs: Vec<_> = sim
        .view()
        .flow_log()
        .into_iter()
        .flat_map(|l| l.iter())
        .filter(|f| f.kind == slotsim::sim::flows::FlowKind::Output)
        .collect();
    assert!(!outputs.is_empty());
    assert!(
        outputs.iter().all(|f| f.links.len() == 1),
        "one replica: the reducer's disk alone"
    );
}

#[test]
fn reduce_cost_scale_multiplies_a_reduce_s_compute_and_nothing_else() {
    let text = |scale: &str| {
        format!(
            r#"
seed = 3
[cluster]
nodes = 4
map_slots = 2
reduce_slots = 1
heartbeat = "3s"
[tasks]
duration_cv = 0.0
{scale}
[[jobs]]
name = "sort"
profile = "terasort"
input = "512MB"
reduces = 1
"#
        )
    };
    let compute = |sim: &slotsim::sim::Sim, kind: Kind| -> Vec<u32> {
        let w = sim.view();
        w.attempts()
            .iter()
            .filter(|a| a.kind == kind)
            .map(|a| a.times.compute)
            .collect()
    };
    let (plain, _) = run(&load_text(&text(""), None));
    let (one, _) = run(&load_text(&text("reduce_cost_scale = 1.0"), None));
    let (three, _) = run(&load_text(&text("reduce_cost_scale = 3.0"), None));
    check(&three).unwrap();
    assert_eq!(compute(&plain, Kind::Reduce), compute(&one, Kind::Reduce));
    assert_eq!(
        compute(&plain, Kind::Map),
        compute(&three, Kind::Map),
        "maps untouched"
    );
    // The reduce's compute (its phase time also holds its output write)
    // grows by twice its work: the bytes it copied times its cost, at
    // speed 1 on a core of its own.
    let (r1, r3) = (
        compute(&plain, Kind::Reduce)[0],
        compute(&three, Kind::Reduce)[0],
    );
    let cost = slotsim::scenario::profiles::lookup("terasort")
        .unwrap()
        .reduce_s_per_mb;
    let work_ms = plain.view().jobs()[0].output_total * cost * 1000.0;
    assert!(
        work_ms > 1_000.0,
        "a terasort reduce computes for seconds: {work_ms} ms"
    );
    let grew = r3 as f64 - r1 as f64;
    assert!(
        (grew - 2.0 * work_ms).abs() <= 2.0,
        "{r1} → {r3} ms, work {work_ms} ms"
    );
}

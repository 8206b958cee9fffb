//! Scenario loading, end to end through the public API: a full scenario
//! compiles into the model with the right numbers, and every class of bad
//! input yields one `FILE:LINE:COL: message` naming the problem.

use slotsim::error::InputError;
use slotsim::model::{Action, PolicySpec, PoolMode, Priority, Scenario, SlotModel, Speculation};
use slotsim::scenario::{load_default, load_file, load_str, DEFAULT_SCENARIO};

const ORIGIN: &str = "test.toml";

/// A small valid prefix most error tests build on (lines 1–3).
const BASE: &str = "[cluster]\nnodes = 4\nracks = 2\n";

fn load(text: &str) -> Scenario {
    match load_str(text, ORIGIN, None, None) {
        Ok(s) => s,
        Err(e) => panic!("expected a valid scenario, got: {e}"),
    }
}

fn load_err(text: &str) -> InputError {
    match load_str(text, ORIGIN, None, None) {
        Ok(_) => panic!("expected an error for:\n{text}"),
        Err(e) => e,
    }
}

/// Asserts the error sits at `line:col` of the test file and its message
/// contains every one of `needles`.
#[track_caller]
fn assert_err(e: &InputError, line: usize, col: usize, needles: &[&str]) {
    assert_eq!(e.origin, ORIGIN, "{e}");
    assert_eq!(e.pos, Some((line, col)), "wrong position: {e}");
    assert!(
        e.to_string()
            .starts_with(&format!("{ORIGIN}:{line}:{col}: ")),
        "{e}"
    );
    for n in needles {
        assert!(e.message.contains(n), "message lacks {n:?}: {e}");
    }
    assert!(!e.message.contains('\n'), "one line only: {e:?}");
}

const FULL: &str = r#"name = "full"
description = "every section"
seed = 42

[cluster]
map_slots = 3
reduce_slots = 1
slot_model = "unified"
heartbeat = "manual"
out_of_band_heartbeat = true
speed = [0.5, 1.5]

[[cluster.datacenters]]
name = "dallas"
nodes = 15

[[cluster.datacenters]]
name = "atlanta"
nodes = 15
racks = 3

[network]
inter_dc_mbps = 10

[hdfs]
block = "64MB"
replication = 2

[tasks]
straggler_prob = 0.1
straggler_slowdown = [2.0, 3.0]
speculation = "off"

[scheduler]
policy = "fair[slowstart=1]"
slowstart = 0.05
[scheduler.fair]
node_locality_delay = "4.5s"
assign_multiple = true

[[pools]]
name = "research"
weight = 2
min_maps = 4
max_maps = 100
capacity = 60
scheduling_mode = "fifo"
max_running_jobs = 3
min_share_timeout = "30s"

[[jobs]]
name = "sort"
profile = "terasort"
input = "1GB"
reduces = 2
submit = "10s"
pool = "research"
user = "alice"
priority = "high"
count = 3
every = "2s"

[[jobs]]
name = "wc"
profile = "wordcount"
maps = 4
reduces = 0
fp = 0.5
map_time = "20s"
reduce_time = "5s"
blocks = [[0], [1, 16], [29], [2, 3]]

[[jobs]]
name = "g"
profile = "grep"
input = "100MB"
maps = 5

[[events]]
at = "120s"
action = "switch_policy"
policy = "fifo"

[[events]]
at = "1s"
action = "heartbeat"
node = 29

[[events]]
at = "30s"
action = "submit"
job = { name = "late", profile = "grep", input = "640MB", count = 2, every = "1m" }
"#;

#[test]
fn full_scenario_compiles_into_the_model() {
    let s = load(FULL);
    assert_eq!(
        (s.name.as_str(), s.description.as_str(), s.seed),
        ("full", "every section", 42)
    );

    // Cluster: two datacenters, node ids 0..15 in dallas and 15..30 in atlanta.
    let c = &s.cluster;
    assert_eq!(c.node_count(), 30);
    let dcs: Vec<(&str, u32, u32)> = c
        .datacenters
        .iter()
        .map(|d| (d.name.as_str(), d.nodes, d.racks))
        .collect();
    assert_eq!(dcs, vec![("dallas", 15, 1), ("atlanta", 15, 3)]);
    assert_eq!((c.map_slots, c.reduce_slots), (3, 1));
    assert_eq!(c.slot_model, SlotModel::Unified);
    assert_eq!(c.heartbeat, None, "\"manual\" means no periodic heartbeat");
    assert!(c.out_of_band_heartbeat);
    assert_eq!(c.speed, (0.5, 1.5));

    // Network keeps defaults for keys not given.
    assert_eq!(s.network.inter_dc_mbps, 10.0);
    assert_eq!(s.network.disk_mbps, 100.0);
    assert_eq!(s.network.shuffle_mbps, 125.0);
    assert_eq!((s.hdfs.block_mb, s.hdfs.replication), (64.0, 2));
    assert_eq!(s.tasks.straggler_prob, 0.1);
    assert_eq!(s.tasks.straggler_slowdown, (2.0, 3.0));
    assert_eq!(s.tasks.speculation, Speculation::Off);

    // Scheduler: the variant is kept as a spec; the raw table as written.
    assert_eq!(s.policy.name(), "fair");
    assert_eq!(
        s.policy,
        PolicySpec::Builtin {
            name: "fair".into(),
            overrides: vec![("slowstart".to_string(), "1".to_string())]
        }
    );
    assert_eq!(s.policy.label(), "fair[slowstart=1]");
    assert!(s.scheduler.get("fair").is_some_and(|v| v.is_table()));
    assert_eq!(
        s.scheduler.get("slowstart").and_then(|v| v.as_float()),
        Some(0.05)
    );

    // Pools: `default` added first since it was not declared.
    let names: Vec<&str> = s.pools.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, vec!["default", "research"]);
    let r = &s.pools[1];
    assert_eq!(
        (r.weight, r.min_maps, r.max_maps, r.max_reduces),
        (2.0, 4, 100, u32::MAX)
    );
    assert_eq!(r.capacity, Some(60.0));
    assert_eq!(r.scheduling_mode, PoolMode::Fifo);
    assert_eq!(r.max_running_jobs, Some(3));
    assert_eq!(r.min_share_timeout, Some(30_000));
    assert_eq!(r.fair_share_timeout, None);
    assert_eq!(s.pools[0].weight, 1.0);

    // Jobs sorted by submit time, then definition order.
    let order: Vec<(&str, u64)> = s.jobs.iter().map(|j| (j.name.as_str(), j.submit)).collect();
    assert_eq!(
        order,
        vec![
            ("wc", 0),
            ("g", 0),
            ("sort-1", 10_000),
            ("sort-2", 12_000),
            ("sort-3", 14_000)
        ]
    );
    let sort = &s.jobs[2];
    assert_eq!(sort.maps, 16, "1 GB in 64 MB blocks");
    assert_eq!(sort.input_mb, 1024.0);
    assert_eq!(
        (sort.reduces, sort.pool.as_str(), sort.user.as_str()),
        (2, "research", "alice")
    );
    assert_eq!(sort.priority, Priority::High);
    assert_eq!(sort.profile.name, "terasort");
    assert_eq!(sort.fp, sort.profile.fp, "fp defaults to the profile's");
    let wc = &s.jobs[0];
    assert_eq!(
        (wc.maps, wc.reduces, wc.input_mb),
        (4, 0, 256.0),
        "input = maps x block"
    );
    assert_eq!((wc.pool.as_str(), wc.user.as_str()), ("default", "user"));
    assert_eq!(wc.priority, Priority::Normal);
    assert_eq!(
        (wc.map_time, wc.reduce_time, wc.fp),
        (Some(20_000), Some(5_000), 0.5)
    );
    assert_eq!(
        wc.blocks,
        Some(vec![vec![0], vec![1, 16], vec![29], vec![2, 3]])
    );
    let g = &s.jobs[1];
    assert_eq!(
        (g.maps, g.input_mb, g.reduces),
        (5, 100.0, 1),
        "both given: both kept"
    );

    // Events sorted by time; the submit event expanded by count/every.
    let ev: Vec<u64> = s.events.iter().map(|e| e.at).collect();
    assert_eq!(ev, vec![1_000, 30_000, 90_000, 120_000]);
    assert!(matches!(s.events[0].action, Action::Heartbeat(29)));
    match &s.events[1].action {
        Action::Submit(j) => {
            assert_eq!((j.name.as_str(), j.submit, j.maps), ("late-1", 30_000, 10));
        }
        other => panic!("expected a submit, got {other:?}"),
    }
    match &s.events[2].action {
        Action::Submit(j) => assert_eq!((j.name.as_str(), j.submit), ("late-2", 90_000)),
        other => panic!("expected a submit, got {other:?}"),
    }
    match &s.events[3].action {
        Action::SwitchPolicy(p) => assert_eq!(p, &PolicySpec::plain("fifo")),
        other => panic!("expected a policy switch, got {other:?}"),
    }
}

#[test]
fn defaults_apply_to_a_minimal_scenario() {
    let s = load("[cluster]\nnodes = 5\n\n[[jobs]]\nname = \"j\"\nprofile = \"wordcount\"\ninput = \"300MB\"\n");
    assert_eq!(s.seed, 1);
    assert_eq!(s.name, "test", "name defaults to the file stem");
    let c = &s.cluster;
    assert_eq!(c.datacenters.len(), 1);
    assert_eq!(
        (c.datacenters[0].name.as_str(), c.datacenters[0].racks),
        ("dc0", 1)
    );
    assert_eq!(
        (c.map_slots, c.reduce_slots, c.slot_model),
        (2, 2, SlotModel::Typed)
    );
    assert_eq!(c.heartbeat, Some(3_000));
    assert!(!c.out_of_band_heartbeat);
    assert_eq!(c.speed, (1.0, 1.0));
    assert_eq!((s.hdfs.block_mb, s.hdfs.replication), (128.0, 3));
    assert_eq!(s.tasks.straggler_prob, 0.0);
    assert_eq!(s.tasks.straggler_slowdown, (1.5, 4.0));
    assert_eq!(s.policy, PolicySpec::plain("fair"));
    assert_eq!(s.pools.len(), 1);
    assert_eq!(s.pools[0].name, "default");
    let j = &s.jobs[0];
    assert_eq!(
        (j.maps, j.reduces, j.submit),
        (3, 1, 0),
        "ceil(300 / 128) = 3 maps"
    );
}

#[test]
fn overrides_replace_policy_and_seed() {
    let text = format!("{BASE}seed = 3\n[scheduler]\npolicy = \"fifo\"\n");
    // `seed` after [cluster] belongs to the cluster table: an unknown key.
    let e = load_err(&text);
    assert_err(&e, 4, 1, &["unknown field `seed`"]);
    let text = format!("seed = 3\n{BASE}[scheduler]\npolicy = \"fifo\"\n");
    let s = load_str(
        &text,
        ORIGIN,
        Some("fair[slowstart=0.5;assign_multiple=false]"),
        Some(99),
    )
    .expect("valid");
    assert_eq!(s.seed, 99);
    assert_eq!(
        s.policy.label(),
        "fair[slowstart=0.5;assign_multiple=false]"
    );
    let s = load(&text);
    assert_eq!((s.seed, s.policy.name()), (3, "fifo"));
}

#[test]
fn default_scenario_is_embedded_and_valid() {
    assert!(DEFAULT_SCENARIO.contains("name = \"quickstart\""));
    let s = load_default(None, None).expect("built-in scenario loads");
    assert_eq!(
        (
            s.seed,
            s.cluster.node_count(),
            s.cluster.datacenters[0].racks
        ),
        (7, 20, 2)
    );
    assert_eq!(s.cluster.heartbeat, Some(3_000));
    assert!(s.jobs.iter().any(|j| j.pool == "research"));
    assert!(s.jobs.iter().any(|j| j.pool == "default"));
    assert_eq!(
        s.jobs.iter().filter(|j| j.name.starts_with("w0-")).count(),
        10
    );
    assert!(s
        .jobs
        .iter()
        .any(|j| j.name == "sort-small-2" && j.submit == 50_000));
}

#[test]
fn poisson_workload_is_deterministic_per_seed() {
    let text = format!(
        "{BASE}[[pools]]\nname = \"a\"\n[[workloads]]\nkind = \"poisson\"\njobs = 30\nmean_interarrival = \"14s\"\nmix = {{ wordcount = 1, terasort = 1 }}\ninput = [\"1GB\", \"12GB\"]\npools = [\"a\", \"default\"]\n"
    );
    let key = |s: &Scenario| -> Vec<(String, u64, u32, u32, String, u64)> {
        s.jobs
            .iter()
            .map(|j| {
                (
                    j.name.clone(),
                    j.submit,
                    j.maps,
                    j.reduces,
                    j.pool.clone(),
                    j.input_mb.to_bits(),
                )
            })
            .collect()
    };
    let a = load_str(&text, ORIGIN, None, Some(5)).expect("valid");
    let b = load_str(&text, ORIGIN, None, Some(5)).expect("valid");
    let c = load_str(&text, ORIGIN, None, Some(6)).expect("valid");
    assert_eq!(a.jobs.len(), 30);
    assert_eq!(key(&a), key(&b), "same seed, same jobs");
    assert_ne!(key(&a), key(&c), "another seed, other jobs");
    // Changing the policy does not reshuffle the workload.
    let d = load_str(&text, ORIGIN, Some("fifo"), Some(5)).expect("valid");
    assert_eq!(key(&a), key(&d));
    for j in &a.jobs {
        assert!((1024.0..=12_288.0).contains(&j.input_mb), "{}", j.input_mb);
        assert_eq!(j.maps, (j.input_mb / 128.0).ceil() as u32);
        assert_eq!(
            j.reduces,
            (j.input_mb / 10_240.0).ceil() as u32,
            "OMO: 10 GB per reduce"
        );
        assert!(j.profile.name == "wordcount" || j.profile.name == "terasort");
    }
    assert!(a.jobs.windows(2).all(|w| w[0].submit <= w[1].submit));
}

// ---- error classes ----

#[test]
fn unknown_key_is_reported_at_its_line() {
    let e = load_err("[cluster]\nnodes = 4\nnodez = 3\n");
    assert_err(
        &e,
        3,
        1,
        &["unknown field `nodez`", "expected one of", "`nodes`"],
    );
}

#[test]
fn unknown_key_in_scheduler_table() {
    let e = load_err(&format!(
        "{BASE}[scheduler.fair]\nnode_locality_dely = \"1s\"\n"
    ));
    assert_err(
        &e,
        5,
        1,
        &["unknown field `node_locality_dely`", "node_locality_delay"],
    );
}

#[test]
fn syntax_error() {
    let e = load_err("[cluster]\nnodes = 4\nracks = = 2\n");
    assert_err(&e, 3, 9, &["invalid string"]);
    let e = load_err("[cluster\nnodes = 4\n");
    assert_err(&e, 1, 9, &["invalid table header", "`]`"]);
}

/// A bare number where a policy setting's duration goes says what was
/// expected, at the value.
#[test]
fn bare_number_for_a_policy_duration() {
    let e = load_err(&format!(
        "{BASE}map_slots = 1\nreduce_slots = 1\n[scheduler.fair]\nnode_locality_delay = 0\n"
    ));
    assert_err(&e, 7, 23, &["expected a duration such as \"3s\""]);
}

#[test]
fn wrong_type() {
    let e = load_err("[cluster]\nnodes = \"4\"\n");
    assert_err(&e, 2, 9, &["invalid type", "expected a whole number"]);
}

#[test]
fn unknown_profile_lists_known_ones() {
    let e = load_err(&format!(
        "{BASE}[[jobs]]\nname = \"x\"\nprofile = \"terasrot\"\nmaps = 2\n"
    ));
    assert_err(
        &e,
        6,
        11,
        &[
            "unknown profile \"terasrot\"",
            "expected one of: terasort, wordcount, grep",
            "kmeans",
        ],
    );
}

#[test]
fn unknown_pool() {
    let text = format!(
        "{BASE}[[pools]]\nname = \"research\"\n[[jobs]]\nname = \"x\"\nprofile = \"grep\"\nmaps = 2\npool = \"reserch\"\n"
    );
    let e = load_err(&text);
    assert_err(
        &e,
        10,
        8,
        &["unknown pool \"reserch\"", "default, research"],
    );
}

#[test]
fn unknown_pool_in_workload() {
    let text = format!(
        "{BASE}[[workloads]]\nkind = \"poisson\"\njobs = 3\nmean_interarrival = \"1s\"\nmix = {{ grep = 1 }}\ninput = [\"1GB\", \"2GB\"]\npools = [\"default\", \"nope\"]\n"
    );
    let e = load_err(&text);
    assert_err(&e, 10, 21, &["unknown pool \"nope\""]);
}

#[test]
fn node_out_of_range_in_event() {
    let e = load_err(&format!(
        "{BASE}[[events]]\nat = \"1s\"\naction = \"heartbeat\"\nnode = 4\n"
    ));
    assert_err(&e, 7, 8, &["node 4 is out of range", "from 0 to 3"]);
}

#[test]
fn node_out_of_range_in_blocks() {
    let text =
        format!("{BASE}[[jobs]]\nname = \"x\"\nprofile = \"grep\"\nblocks = [[0, 1], [2, 9]]\n");
    let e = load_err(&text);
    assert_err(&e, 7, 23, &["node 9 is out of range"]);
}

#[test]
fn blocks_must_match_maps() {
    let text = format!(
        "{BASE}[[jobs]]\nname = \"x\"\nprofile = \"grep\"\nmaps = 3\nblocks = [[0], [1]]\n"
    );
    let e = load_err(&text);
    assert_err(&e, 8, 10, &["lists 2 blocks", "3 maps"]);
}

#[test]
fn duplicate_job_names_after_expansion() {
    let text = format!(
        "{BASE}[[jobs]]\nname = \"a\"\nprofile = \"grep\"\nmaps = 1\ncount = 2\n[[jobs]]\nname = \"a-2\"\nprofile = \"grep\"\nmaps = 1\n"
    );
    let e = load_err(&text);
    assert_err(&e, 10, 8, &["duplicate job name \"a-2\""]);
}

#[test]
fn duplicate_pool_names() {
    let e = load_err(&format!(
        "{BASE}[[pools]]\nname = \"p\"\n[[pools]]\nname = \"p\"\n"
    ));
    assert_err(&e, 7, 8, &["duplicate pool \"p\""]);
}

#[test]
fn bad_duration() {
    let text = format!(
        "{BASE}[[jobs]]\nname = \"x\"\nprofile = \"grep\"\nmaps = 1\nsubmit = \"20 seconds\"\n"
    );
    let e = load_err(&text);
    assert_err(&e, 8, 10, &["invalid duration \"20 seconds\"", "\"20s\""]);
}

#[test]
fn bad_size() {
    let text = format!("{BASE}[[jobs]]\nname = \"x\"\nprofile = \"grep\"\ninput = \"20 gigs\"\n");
    let e = load_err(&text);
    assert_err(&e, 7, 9, &["invalid size \"20 gigs\"", "\"20GB\""]);
}

#[test]
fn zero_count() {
    let text = format!("{BASE}[[jobs]]\nname = \"x\"\nprofile = \"grep\"\nmaps = 1\ncount = 0\n");
    let e = load_err(&text);
    assert_err(&e, 8, 9, &["count must be at least 1, got 0"]);
}

#[test]
fn negative_counts() {
    let e = load_err("[cluster]\nnodes = -3\n");
    assert_err(&e, 2, 9, &["nodes must be at least 1, got -3"]);
    let e = load_err(&format!(
        "{BASE}[[jobs]]\nname = \"x\"\nprofile = \"grep\"\nmaps = -1\n"
    ));
    assert_err(&e, 7, 8, &["maps must be at least 1, got -1"]);
    let e = load_err("[cluster]\nnodes = 4\nmap_slots = 0\n");
    assert_err(&e, 3, 13, &["map_slots must be at least 1, got 0"]);
}

#[test]
fn zero_replication_and_too_many_racks() {
    let e = load_err(&format!("{BASE}[hdfs]\nreplication = 0\n"));
    assert_err(&e, 5, 15, &["replication must be at least 1, got 0"]);
    let e = load_err("[cluster]\nnodes = 2\nracks = 3\n");
    assert_err(&e, 3, 9, &["racks = 3 exceeds nodes = 2"]);
}

#[test]
fn fail_and_recover_node_events() {
    let e = load_err(&format!(
        "{BASE}[[events]]\nat = \"1s\"\naction = \"fail_node\"\n"
    ));
    assert_err(&e, 6, 10, &["fail_node needs a node"]);
    let s = load_str(
        &format!("{BASE}[[events]]\nat = \"1s\"\naction = \"fail_node\"\nnode = 1\n[[events]]\nat = \"9s\"\naction = \"recover_node\"\nnode = 1\n"),
        "t.toml",
        None,
        None,
    )
    .unwrap();
    assert!(matches!(s.events[0].action, Action::FailNode(1)));
    assert!(matches!(s.events[1].action, Action::RecoverNode(1)));
}

#[test]
fn unknown_action() {
    let e = load_err(&format!(
        "{BASE}[[events]]\nat = \"1s\"\naction = \"explode\"\n"
    ));
    assert_err(&e, 6, 10, &["unknown action \"explode\"", "switch_policy"]);
}

#[test]
fn unknown_policy_in_scheduler_table() {
    let e = load_err(&format!("{BASE}[scheduler]\npolicy = \"fiar\"\n"));
    assert_err(&e, 5, 10, &["unknown policy \"fiar\"", "fifo, fair"]);
}

#[test]
fn unknown_policy_in_switch_event() {
    let text = format!("{BASE}[[events]]\nat = \"1m\"\naction = \"switch_policy\"\npolicy = \"fair[slowstrat=1]\"\n");
    let e = load_err(&text);
    assert_err(&e, 7, 10, &["slowstrat"]);
}

#[test]
fn bad_variant_override_uses_the_policy_flag() {
    let e = load_str(BASE, ORIGIN, Some("fair[slowstart=2]"), None).unwrap_err();
    assert_eq!((e.origin.as_str(), e.pos), ("--policy", None), "{e}");
    assert!(e.message.contains("slowstart"), "{e}");
    let e = load_str(BASE, ORIGIN, Some("nosuch"), None).unwrap_err();
    assert_eq!(e.origin, "--policy");
    assert!(e.message.contains("unknown policy \"nosuch\""), "{e}");
    let e = load_str(BASE, ORIGIN, Some("fair[slowstart"), None).unwrap_err();
    assert!(e.message.contains("must end with ']'"), "{e}");
}

#[test]
fn unknown_speculation_and_bad_slot_model() {
    let e = load_err(&format!("{BASE}[tasks]\nspeculation = \"eager\"\n"));
    assert_err(
        &e,
        5,
        15,
        &["unknown speculation \"eager\"", "\"hadoop\" or \"late\""],
    );
    for (mode, want) in [("hadoop", Speculation::Hadoop), ("late", Speculation::Late)] {
        let s = load_str(
            &format!("{BASE}[tasks]\nspeculation = \"{mode}\"\n"),
            "t.toml",
            None,
            None,
        )
        .unwrap();
        assert_eq!(s.tasks.speculation, want);
    }
    let e = load_err("[cluster]\nnodes = 4\nslot_model = \"typless\"\n");
    assert_err(
        &e,
        3,
        14,
        &[
            "unknown slot_model \"typless\"",
            "\"typed\", \"unified\" or \"yarn\"",
        ],
    );
}

#[test]
fn capacities_over_100_percent() {
    let text = format!(
        "{BASE}[[pools]]\nname = \"a\"\ncapacity = 70\n[[pools]]\nname = \"b\"\ncapacity = 40\n"
    );
    let e = load_err(&text);
    assert_err(&e, 9, 12, &["add up to 110%", "at most 100%"]);
}

#[test]
fn straggler_prob_and_speed_ranges() {
    let e = load_err(&format!("{BASE}[tasks]\nstraggler_prob = 1.5\n"));
    assert_err(
        &e,
        5,
        18,
        &["straggler_prob must be between 0 and 1, got 1.5"],
    );
    let e = load_err("[cluster]\nnodes = 4\nspeed = [2.0, 1.0]\n");
    assert_err(
        &e,
        3,
        9,
        &["invalid speed [2, 1]", "0.01 <= lo <= hi <= 100"],
    );
    let e = load_err("[cluster]\nnodes = 4\nspeed = [0, 1.0]\n");
    assert_err(&e, 3, 9, &["invalid speed"]);
}

#[test]
fn swim_workload_needs_a_readable_trace() {
    let text = format!("{BASE}[[workloads]]\nkind = \"swim\"\ntrace = \"no-such-trace.tsv\"\n");
    let e = load_err(&text);
    assert_err(&e, 6, 9, &["cannot read trace", "no-such-trace.tsv"]);
    let e = load_err(&format!("{BASE}[[workloads]]\nkind = \"swim\"\n"));
    assert_err(&e, 5, 8, &["needs trace"]);
}

#[test]
fn event_needs_its_keys() {
    let e = load_err(&format!(
        "{BASE}[[events]]\nat = \"1s\"\naction = \"heartbeat\"\n"
    ));
    assert_err(&e, 6, 10, &["heartbeat needs a node"]);
    let e = load_err(&format!(
        "{BASE}[[events]]\nat = \"1s\"\naction = \"switch_policy\"\n"
    ));
    assert_err(&e, 6, 10, &["switch_policy needs a policy"]);
    let e = load_err(&format!(
        "{BASE}[[events]]\nat = \"1s\"\naction = \"heartbeat\"\nnode = 1\npolicy = \"fifo\"\n"
    ));
    assert_err(
        &e,
        8,
        10,
        &["policy is only used by action = \"switch_policy\""],
    );
}

#[test]
fn job_without_size_and_missing_cluster() {
    let e = load_err(&format!(
        "{BASE}[[jobs]]\nname = \"x\"\nprofile = \"grep\"\n"
    ));
    assert_err(&e, 5, 8, &["neither input nor maps"]);
    let e = load_err("seed = 1\n");
    assert_err(&e, 1, 1, &["missing [cluster]"]);
}

#[test]
fn unreadable_and_non_utf8_files() {
    let e = load_file(std::path::Path::new("/no/such/dir/s.toml"), None, None).unwrap_err();
    assert_eq!(e.origin, "/no/such/dir/s.toml");
    assert!(
        e.message.starts_with("cannot read /no/such/dir/s.toml:"),
        "{e}"
    );

    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("bad.toml");
    std::fs::write(&path, b"[cluster]\nnodes = 4\nname = \"\xff\"\n").expect("write");
    let e = load_file(&path, None, None).unwrap_err();
    assert_eq!(e.pos, Some((3, 9)), "{e}");
    assert!(e.message.contains("UTF-8"), "{e}");
}

#[test]
fn implicit_and_dotted_tables_are_accepted() {
    // No [cluster] header, dotted keys, and a header-less mix table: TOML
    // makes these implicit tables, which carry no span.
    let text = r#"cluster.map_slots = 1
[[cluster.datacenters]]
name = "a"
nodes = 2
[[cluster.datacenters]]
name = "b"
nodes = 3
racks = 3
[[workloads]]
kind = "poisson"
jobs = 4
mean_interarrival = "2s"
input = ["64MB", "1GB"]
mix.grep = 1
mix.kmeans = 0
[[events]]
at = "1s"
action = "submit"
job.name = "dotted"
job.profile = "permu"
job.maps = 2
"#;
    let s = load(text);
    assert_eq!(s.cluster.node_count(), 5);
    assert_eq!(s.cluster.map_slots, 1);
    assert_eq!(s.jobs.len(), 4);
    assert!(
        s.jobs.iter().all(|j| j.profile.name == "grep"),
        "weight 0 is never drawn"
    );
    assert!(matches!(&s.events[0].action, Action::Submit(j) if j.name == "dotted" && j.maps == 2));
    // Errors inside implicit tables still have a position.
    let e = load_err("[scheduler.fifo]\ncapacity_pad = 3\n[cluster]\nnodes = 1\n");
    assert_err(&e, 2, 16, &["capacity_pad must be between 0 and 1"]);
}

#[test]
fn truncated_and_mangled_input_never_panics() {
    // Every prefix of a valid file, and every line dropped in turn, must
    // give Ok or one positioned error: never a panic.
    for (i, _) in FULL.char_indices() {
        if let Err(e) = load_str(&FULL[..i], ORIGIN, None, None) {
            assert!(e.pos.is_some(), "prefix {i}: {e}");
        }
    }
    let lines: Vec<&str> = FULL.lines().collect();
    for skip in 0..lines.len() {
        let text: Vec<&str> = lines
            .iter()
            .enumerate()
            .filter(|(i, _)| *i != skip)
            .map(|(_, l)| *l)
            .collect();
        if let Err(e) = load_str(&text.join("\n"), ORIGIN, None, None) {
            assert!(e.pos.is_some(), "without line {}: {e}", skip + 1);
        }
    }
    // Extreme values are errors, not overflows.
    for bad in [
        "[cluster]\nnodes = 9223372036854775807\n",
        "[cluster]\nnodes = 2\n[[jobs]]\nname = \"x\"\nprofile = \"grep\"\ninput = \"1e300TB\"\n",
        "[cluster]\nnodes = 2\n[hdfs]\nblock = \"0MB\"\n",
        "[cluster]\nnodes = 2\nspeed = [nan, 1.0]\n",
        "[cluster]\nnodes = 2\nheartbeat = \"0s\"\n",
        "seed = -1\n[cluster]\nnodes = 2\n",
    ] {
        let e = load_err(bad);
        assert!(e.pos.is_some(), "{e}");
    }
}

#[test]
fn missing_required_key_names_it() {
    let e = load_err(&format!("{BASE}[[jobs]]\nname = \"a\"\nmaps = 1\n"));
    assert_err(&e, 4, 1, &["missing field `profile`", "required"]);
    let e = load_err(&format!("{BASE}[[pools]]\nweight = 2\n"));
    assert_err(&e, 4, 1, &["missing field `name`"]);
}

/// A scenario too big for memory is bad input, caught before the run:
/// each job alone is within bounds, the total is not (jobs, workloads and
/// submit events all count). 10^11 tasks would need some 60 TB.
#[test]
fn total_task_count_is_bounded() {
    let e = load_err(&format!(
        "{BASE}[[jobs]]\nname = \"j\"\nprofile = \"grep\"\nmaps = 1000000\ncount = 100000\n"
    ));
    assert_err(
        &e,
        5,
        8,
        &[
            "tasks, which would need about",
            "of memory available",
            "fewer or smaller jobs",
        ],
    );
    if std::env::var_os("SLOTSIM_MEMORY").is_none() {
        // The machine's own limit: the error says how to set another.
        assert_err(&e, 5, 8, &["errs high; SLOTSIM_MEMORY=SIZE sets the limit"]);
    }
    let e = load_err(&format!(
        "{BASE}[[jobs]]\nname = \"j\"\nprofile = \"grep\"\nmaps = 1000\ncount = 9\n\
         [[events]]\nat = \"1s\"\naction = \"submit\"\njob = {{ name = \"k\", profile = \"grep\", maps = 1000000, count = 100000 }}\n"
    ));
    assert_err(&e, 11, 10, &["would need about"]);
    // A million tasks (about 0.6 GB) is fine (nothing is allocated per
    // task here).
    load(&format!(
        "{BASE}[[jobs]]\nname = \"j\"\nprofile = \"grep\"\nmaps = 99999\nreduces = 1\ncount = 10\n"
    ));
}

#[test]
fn bad_network_settings_point_at_the_value() {
    // Zero and negative capacities.
    let e = load_err(&format!("{BASE}[network]\ndisk_mbps = 0\n"));
    assert_err(&e, 5, 13, &["disk_mbps", "between"]);
    let e = load_err(&format!("{BASE}[network]\nnic_mbps = -125\n"));
    assert_err(&e, 5, 12, &["nic_mbps"]);
    let e = load_err(&format!("{BASE}[network]\nrack_oversubscription = 0.0\n"));
    assert_err(&e, 5, 25, &["rack_oversubscription"]);
    let e = load_err(&format!("{BASE}[network]\nparallel_copies = 0\n"));
    assert_err(&e, 5, 19, &["parallel_copies", "at least 1"]);
    let e = load_err(&format!("{BASE}[network]\nshuffle_buffer = \"lots\"\n"));
    assert_err(&e, 5, 18, &["shuffle_buffer", "\"140MB\"", "lots"]);
    let e = load_err(&format!("{BASE}[network]\nio_sort_factor = 1\n"));
    assert_err(&e, 5, 18, &["io_sort_factor", "at least 2"]);
    // An unknown model.
    let e = load_err(&format!("{BASE}[network]\nmodel = \"fluid\"\n"));
    assert_err(
        &e,
        5,
        9,
        &[
            "unknown network model",
            "\"shared\", \"coarse\" or \"fixed\"",
        ],
    );
    // Fixed-only keys under the shared model (the default).
    for key in ["rack_mbps", "cross_rack_mbps", "shuffle_mbps"] {
        let e = load_err(&format!("{BASE}[network]\n{key} = 50\n"));
        assert_err(&e, 5, key.len() + 4, &[key, "model = \"fixed\""]);
    }
    // ...which the fixed model takes.
    let s = load(&format!(
        "{BASE}[network]\nmodel = \"fixed\"\nshuffle_mbps = 50\n"
    ));
    assert_eq!(s.network.shuffle_mbps, 50.0);
    assert_eq!(s.network.model, slotsim::model::NetworkModel::Fixed);
}

#[test]
fn bad_task_and_cluster_physics() {
    let e = load_err(&format!("{BASE}[tasks]\nduration_cv = -0.1\n"));
    assert_err(&e, 5, 15, &["duration_cv"]);
    let e = load_err(&format!("{BASE}[tasks]\nstartup = \"soon\"\n"));
    assert_err(&e, 5, 11, &["invalid duration"]);
    let e = load_err("[cluster]\nnodes = 4\ncores = 0\n");
    assert_err(&e, 3, 9, &["cores", "at least 1"]);
    let e = load_err("[cluster]\nnodes = 4\nheartbeat = \"often\"\n");
    assert_err(&e, 3, 13, &["\"auto\""]);
    // Defaults: shared network, 1 s start-up, cv 0.1, cores = slots, auto heartbeat.
    let s = load(BASE);
    assert_eq!(s.network.model, slotsim::model::NetworkModel::Shared);
    assert_eq!((s.tasks.startup, s.tasks.duration_cv), (1_000, 0.1));
    assert_eq!(s.cluster.cores, 4);
    assert_eq!(s.cluster.heartbeat, Some(3_000));
}

/// A scenario or trace that never ends (a device) is refused after a
/// bounded read, not read until memory runs out.
#[cfg(unix)]
#[test]
fn endless_inputs_are_refused_after_a_bounded_read() {
    let e =
        slotsim::scenario::load_file(std::path::Path::new("/dev/zero"), None, None).unwrap_err();
    assert!(e.to_string().contains("larger than 64 MB"), "{e}");
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("endless.toml");
    std::fs::write(
        &p,
        "[cluster]\nnodes = 4\nmap_slots = 1\nreduce_slots = 1\n[[workloads]]\nkind = \"swim\"\ntrace = \"/dev/zero\"\n",
    )
    .unwrap();
    let e = slotsim::scenario::load_file(&p, None, None).unwrap_err();
    assert!(e.to_string().contains("larger than 1024 MB"), "{e}");
    assert!(e.to_string().contains(":7:9:"), "{e}");
}

/// `[[notes]]`: sorted by `at`; each holds to its `until`, else to the
/// next note, the last for 20 s; `note_at` gives the one holding.
#[test]
fn notes_default_their_until_and_hold_in_turn() {
    let sc = load(&format!(
        "{BASE}[[notes]]\nat = \"30s\"\ntext = \"second\"\n\
         [[notes]]\nat = \"10s\"\ntext = \"  first  \"\n\
         [[notes]]\nat = \"50s\"\nuntil = \"55s\"\ntext = \"third\"\n"
    ));
    let spans: Vec<(u64, u64, &str)> = sc
        .notes
        .iter()
        .map(|n| (n.at, n.until, n.text.as_str()))
        .collect();
    assert_eq!(
        spans,
        [
            (10_000, 30_000, "first"),
            (30_000, 50_000, "second"),
            (50_000, 55_000, "third")
        ]
    );
    assert_eq!(sc.note_at(9_999), None);
    assert_eq!(sc.note_at(10_000).map(|n| n.text.as_str()), Some("first"));
    assert_eq!(sc.note_at(49_999).map(|n| n.text.as_str()), Some("second"));
    assert_eq!(sc.note_at(55_000), None);
    let last = load(&format!("{BASE}[[notes]]\nat = \"1m\"\ntext = \"x\"\n"));
    assert_eq!(last.notes[0].until, 80_000);
}

#[test]
fn a_bad_note_is_an_error_at_its_key() {
    let e = load_err(&format!(
        "{BASE}[[notes]]\nat = \"5s\"\nuntil = \"5s\"\ntext = \"x\"\n"
    ));
    assert_err(&e, 6, 9, &["until (5s) must come after the note's at (5s)"]);
    let e = load_err(&format!("{BASE}[[notes]]\nat = \"5s\"\ntext = \" \"\n"));
    assert_err(&e, 6, 8, &["text is empty"]);
    let long = "y".repeat(161);
    let e = load_err(&format!(
        "{BASE}[[notes]]\nat = \"5s\"\ntext = \"{long}\"\n"
    ));
    assert_err(&e, 6, 8, &["at most 160 characters, this one 161"]);
    let e = load_err(&format!("{BASE}[[notes]]\nat = \"soon\"\ntext = \"x\"\n"));
    assert_eq!(e.pos.map(|p| p.0), Some(5), "{e}");
}

/// A misspelt profile or pool names the nearest; IEC sizes are the binary
/// units slotsim uses.
#[test]
fn misspelt_profiles_and_pools_suggest_and_gib_reads() {
    let e = load_err(&format!(
        "{BASE}[[jobs]]\nname = \"a\"\nprofile = \"terasrot\"\ninput = \"1GB\"\n"
    ));
    assert_err(
        &e,
        6,
        11,
        &["unknown profile \"terasrot\"; did you mean \"terasort\"?"],
    );
    let e = load_err(&format!(
        "{BASE}[[pools]]\nname = \"research\"\n[[jobs]]\nname = \"a\"\nprofile = \"terasort\"\ninput = \"1GB\"\npool = \"reserch\"\n"
    ));
    assert_err(
        &e,
        10,
        8,
        &["unknown pool \"reserch\"; did you mean \"research\"?"],
    );
    let sc = load(&format!(
        "{BASE}[[jobs]]\nname = \"a\"\nprofile = \"terasort\"\ninput = \"20 GiB\"\n"
    ));
    assert_eq!(sc.jobs[0].input_mb, 20_480.0);
}

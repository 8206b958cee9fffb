//! Invariants every policy keeps on random scenarios, with the shared
//! network, node failures and recoveries and policy switches mid-run: no
//! node over its slots, every task succeeds exactly once (lost map outputs
//! run again), reduces end after their job's maps, every job finishes,
//! flows of failed nodes are cancelled and leave no load behind, and the
//! same scenario and seed give the same run. Scenarios are generated as
//! TOML text so the loader is exercised too.

use crate::common;
use common::*;
use proptest::prelude::*;
use proptest::test_runner::FileFailurePersistence;

#[derive(Debug, Clone)]
struct Gen {
    nodes: u32,
    racks: u32,
    map_slots: u32,
    reduce_slots: u32,
    unified: bool,
    heartbeat_ms: u32,
    oob: bool,
    replication: u32,
    straggler: f64,
    slow: bool,
    policy: &'static str,
    slowstart: f64,
    max_maps: u32,
    jobs: Vec<(usize, u32, u32, u32, usize, u32)>, // profile, maps, reduces, submit s, pool, priority
    seed: u64,
    speculation: &'static str,
    /// Nodes that fail at `.1` seconds and recover `.2` seconds later.
    failures: Vec<(u32, u32, u32)>,
    /// Policy switches: at `.0` seconds to `policies()[.1]`.
    switches: Vec<(u32, usize)>,
    /// Fair/fresh preemption, with pool b's min share and timeouts.
    preemption: bool,
    /// Job actions: `.1` seconds after job `.0`'s submission (mod the job
    /// count), a kill (`.2` = 0), a priority (1) or a pool move (2), `.3`
    /// picking the priority or the pool.
    actions: Vec<(usize, u32, u8, usize)>,
}

const PROFILES: [&str; 4] = ["terasort", "wordcount", "grep", "sequencecount"];
/// Every registered policy that runs on slots from a scenario alone: the
/// registry's list, so a policy added to it is tested here without an edit
/// (an external policy needs a command no scenario here gives).
fn policies() -> Vec<&'static str> {
    static ALL: std::sync::OnceLock<Vec<&'static str>> = std::sync::OnceLock::new();
    ALL.get_or_init(slot_policies).clone()
}

fn slot_policies() -> Vec<&'static str> {
    use slotsim::model::{Capacity, PolicySpec, Resource, SlotModel};
    let ctx = slotsim::sim::policy::BuildCtx {
        heartbeat: Some(3000),
        capacity: Capacity::new(SlotModel::Typed, 2, 2, Resource::ZERO),
    };
    let table = toml::Table::new();
    let all: Vec<&'static str> = slotsim::sched::registry::for_capacity(&ctx.capacity)
        .iter()
        .map(|e| e.name)
        .filter(|&name| {
            slotsim::sched::registry::build(&PolicySpec::plain(name), &table, &ctx).is_ok()
        })
        .collect();
    assert!(all.len() >= 14, "the registry's slot policies: {all:?}");
    all
}

const PRIOS: [&str; 3] = ["high", "normal", "low"];

fn gen() -> impl Strategy<Value = Gen> {
    (
        (
            1u32..10,
            1u32..4,
            1u32..4,
            1u32..3,
            any::<bool>(),
            500u32..4000,
            any::<bool>(),
            1u32..4,
        ),
        (0.0f64..0.4, any::<bool>(), prop::sample::select(policies())),
        (
            prop::sample::select(vec![0.0, 0.05, 0.5, 1.0]),
            1u32..20,
            any::<u64>(),
        ),
        prop::collection::vec(
            (0usize..4, 1u32..25, 0u32..4, 0u32..60, 0usize..2, 0u32..3),
            1..7,
        ),
        (
            prop::sample::select(vec!["off", "hadoop", "late"]),
            prop::collection::vec((0u32..10, 1u32..120, 1u32..120), 0..3),
            any::<bool>(),
            prop::collection::vec((1u32..240, 0usize..policies().len()), 0..3),
        ),
        prop::collection::vec((0usize..7, 0u32..90, 0u8..3, 0usize..3), 0..3),
    )
        .prop_map(|(c, t, s, jobs, f, actions)| Gen {
            nodes: c.0,
            racks: c.1,
            map_slots: c.2,
            reduce_slots: c.3,
            unified: c.4,
            heartbeat_ms: c.5,
            oob: c.6,
            replication: c.7,
            straggler: t.0,
            slow: t.1,
            policy: t.2,
            slowstart: s.0,
            max_maps: s.1,
            seed: s.2,
            jobs,
            speculation: f.0,
            failures: f.1,
            preemption: f.2,
            switches: f.3,
            actions,
        })
}

fn to_toml(g: &Gen) -> String {
    let mut t = format!(
        "name = \"random\"\nseed = {}\n[cluster]\nnodes = {}\nracks = {}\nmap_slots = {}\nreduce_slots = {}\nslot_model = \"{}\"\nheartbeat = \"{}ms\"\nout_of_band_heartbeat = {}\nspeed = [{}, 1.0]\n",
        g.seed % 1_000_000,
        g.nodes,
        g.racks.min(g.nodes),
        g.map_slots,
        g.reduce_slots,
        if g.unified { "unified" } else { "typed" },
        g.heartbeat_ms,
        g.oob,
        if g.slow { 0.5 } else { 1.0 },
    );
    t += &format!(
        "[hdfs]\nblock = \"64MB\"\nreplication = {}\n",
        g.replication.min(g.nodes)
    );
    t += &format!(
        "[tasks]\nstraggler_prob = {}\nstraggler_slowdown = [1.5, 4.0]\nspeculation = \"{}\"\n",
        g.straggler, g.speculation
    );
    t += &format!(
        "[scheduler]\npolicy = \"{}\"\nslowstart = {}\n",
        g.policy, g.slowstart
    );
    if g.policy == "external" {
        t += &format!("[scheduler.external]\ncommand = {FAIR_PREEMPT}\nprotocol = 2\n");
    }
    if g.preemption {
        t += "[scheduler.fair]\npreemption = true\n[scheduler.fresh]\npreemption = true\n";
    }
    // HybSMRP's exponents, each -1, 0 or 1, from the seed.
    let e = |k: u64| (g.seed / 3u64.pow(k as u32) % 3) as i64 - 1;
    t += &format!(
        "[scheduler.hybsmrp]\nalpha = {}\nbeta = {}\ngamma = {}\n",
        e(1),
        e(2),
        e(3)
    );
    // adaptive-fair: refresh period and one mechanism off, from the seed.
    let mechs = [
        "job_classification",
        "pool_allocation",
        "job_sorting",
        "delay_adjustment",
        "priority_adjustment",
        "none",
    ];
    t += &format!(
        "[scheduler.adaptive-fair]\nupdate_interval = \"{}ms\"\n",
        [500, 1, 7_000][(g.seed / 243 % 3) as usize]
    );
    let off = mechs[(g.seed / 729 % 6) as usize];
    if off != "none" {
        t += &format!("{off} = false\n");
    }
    // DynamicMR's borrowing limits, SEPB and PreScheduling, from the seed.
    let pct = |k: u64| [0.0, 0.5, 1.0][(g.seed / 7u64.pow(k as u32) % 3) as usize];
    for table in ["dhsa-pi", "dhsa-pd"] {
        t += &format!(
            "[scheduler.{table}]\nborrow_map_pct = {}\nborrow_reduce_pct = {}\n",
            pct(1),
            pct(2)
        );
    }
    t += &format!(
        "[scheduler.dynamicmr]\nborrow_map_pct = {}\nborrow_reduce_pct = {}\nsepb_check_fraction = {}\nprescheduling = {}\nmax_borrowed_reduce_slots = {}\n",
        pct(1),
        pct(2),
        pct(3),
        g.seed.is_multiple_of(2),
        g.seed / 5 % 4
    );
    t += &format!(
        "[[pools]]\nname = \"a\"\nweight = 2.0\nmax_maps = {}\ncapacity = 60\n[[pools]]\nname = \"b\"\ncapacity = 40\n",
        g.max_maps
    );
    if g.preemption {
        t += "min_maps = 2\nmin_reduces = 1\nmin_share_timeout = \"5s\"\nfair_share_timeout = \"20s\"\n";
    }
    for (i, (p, maps, reduces, submit, pool, prio)) in g.jobs.iter().enumerate() {
        t += &format!(
            "[[jobs]]\nname = \"j{i}\"\nprofile = \"{}\"\nmaps = {maps}\nreduces = {reduces}\nsubmit = \"{submit}s\"\npool = \"{}\"\npriority = \"{}\"\nuser = \"u{}\"\n",
            PROFILES[*p],
            ["a", "b"][*pool],
            PRIOS[*prio as usize],
            i % 2
        );
    }
    for &(node, at, down) in &g.failures {
        let node = node % g.nodes;
        t += &format!("[[events]]\nat = \"{at}s\"\naction = \"fail_node\"\nnode = {node}\n");
        t += &format!(
            "[[events]]\nat = \"{}s\"\naction = \"recover_node\"\nnode = {node}\n",
            at + down
        );
    }
    for &(j, after, kind, arg) in &g.actions {
        let j = j % g.jobs.len();
        let at = g.jobs[j].3 + after;
        t += &format!("[[events]]\nat = \"{at}s\"\njob = \"j{j}\"\n");
        t += match kind {
            0 => "action = \"kill_job\"\n".to_string(),
            1 => format!(
                "action = \"set_priority\"\npriority = \"{}\"\n",
                PRIOS[arg % 3]
            ),
            _ => format!(
                "action = \"move_job\"\npool = \"{}\"\n",
                ["a", "b"][arg % 2]
            ),
        }
        .as_str();
    }
    for &(at, p) in &g.switches {
        t += &format!(
            "[[events]]\nat = \"{at}s\"\naction = \"switch_policy\"\npolicy = \"{}\"\n",
            policies()[p]
        );
    }
    t
}

proptest! {
    // Failures are saved to (and replayed first from) this file; the
    // default `SourceParallel` cannot find it for an integration test.
    #![proptest_config(ProptestConfig {
        cases: 500,
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct(
            "tests/it/invariants.proptest-regressions"
        ))),
        ..ProptestConfig::default()
    })]

    #[test]
    fn every_policy_keeps_the_invariants(g in gen()) {
        keeps_the_invariants(&g)?;
    }
}

/// Runs `g`'s scenario and checks the invariants, that every switch due
/// happened, and that a second run (keeping no record of finished jobs'
/// attempts, as a headless run with no trace does) gives the same summary.
fn keeps_the_invariants(g: &Gen) -> Result<(), TestCaseError> {
    let text = to_toml(g);
    let sc = load_text(&text, None);
    let mut sim = slotsim::runs::build_sim(&sc).unwrap();
    sim.run_until(Some(2 * 24 * 3_600_000));
    if let Err(e) = check(&sim) {
        return Err(TestCaseError::fail(format!(
            "{e}\n--- scenario ---\n{text}"
        )));
    }
    // The policy switches happened (each one that fell before the end).
    let end_s = sim.view().now() / 1000;
    let due = g
        .switches
        .iter()
        .filter(|(at, _)| (*at as u64) < end_s)
        .count();
    prop_assert!(
        sim.view().switches().len() >= due,
        "{} switches of {due}\n{text}",
        sim.view().switches().len()
    );
    let mut again = slotsim::runs::build_sim(&sc).unwrap();
    again.drop_attempt_records();
    again.run_until(Some(2 * 24 * 3_600_000));
    let (a, b) = (
        slotsim::report::summary::summarize(&sim),
        slotsim::report::summary::summarize(&again),
    );
    prop_assert_eq!(
        serde_json::to_string(&a).unwrap(),
        serde_json::to_string(&b).unwrap(),
        "two runs of one scenario differ (the second kept no attempt records)\n{}",
        text
    );
    Ok(())
}

/// The example preempting policy (Hadoop 1.x fair's min-share preemption,
/// in Python over protocol 2), run from the repository's root.
const FAIR_PREEMPT: &str = r#"["python3", "clients/python/examples/fair_preempt.py"]"#;

proptest! {
    // Each case starts a Python process (twice): fewer cases than above.
    #![proptest_config(ProptestConfig {
        cases: 24,
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct(
            "tests/it/invariants.proptest-regressions"
        ))),
        ..ProptestConfig::default()
    })]

    /// The same invariants with a policy from outside that kills running
    /// attempts (pool `b` below its min share of 2 maps for 5 s): a killed
    /// attempt's task runs again, nothing runs on a slot twice, and the
    /// run is the same twice. Policy switches go to and from built-ins.
    #[test]
    fn a_preempting_external_policy_keeps_the_invariants(g in gen()) {
        keeps_the_invariants(&Gen { policy: "external", preemption: true, ..g })?;
    }
}

/// The preempting policy's kills on a run where they must happen (pool
/// `prod` starved behind hour-long maps), with the invariants: each kill
/// an attempt of the other pool launched by the policy, its task run again
/// to success.
#[test]
fn a_preempting_external_policy_kills_and_the_tasks_run_again() {
    let text = std::fs::read_to_string("tests/external/preemption.toml").unwrap();
    let text = text.replace(
        "policy = \"fair\"",
        &format!(
            "policy = \"external\"\n[scheduler.external]\ncommand = {FAIR_PREEMPT}\nprotocol = 2"
        ),
    );
    let sc = load_text(&text, None);
    let mut sim = slotsim::runs::build_sim(&sc).unwrap();
    sim.run_until(Some(2 * 24 * 3_600_000));
    check(&sim).unwrap();
    let w = sim.view();
    let killed: Vec<_> = w
        .attempts()
        .iter()
        .filter(|a| a.outcome == slotsim::sim::Outcome::Killed)
        .collect();
    assert!(!killed.is_empty(), "no attempt was preempted");
    for a in killed {
        assert_eq!(
            &*w.job(a.job).name,
            "big",
            "only the pool over its share loses"
        );
    }
}

/// A busy mixed workload with stragglers and slow nodes, under every policy.
#[test]
fn busy_mixed_workload_with_stragglers_under_every_policy() {
    let text = r#"
name = "busy"
seed = 11
[cluster]
nodes = 24
racks = 3
map_slots = 3
reduce_slots = 2
heartbeat = "3s"
speed = [0.6, 1.4]
[tasks]
straggler_prob = 0.1
straggler_slowdown = [1.5, 4.0]
[[pools]]
name = "research"
weight = 2.0
capacity = 50
[[pools]]
name = "default"
capacity = 50
[[workloads]]
kind = "poisson"
jobs = 60
mean_interarrival = "8s"
mix = { terasort = 1, wordcount = 2, grep = 2, sequencecount = 1 }
input = ["256MB", "6GB"]
pools = ["research", "default"]
"#;
    for policy in [
        "fifo",
        "fair",
        "fresh",
        "capacity",
        "fair[slowstart=1]",
        "fair[assign_multiple=false]",
        "fair[size_based_weight=true]",
        "hybsmrp",
        "hybsmrp[alpha=0;beta=-1]",
        "hybsmrp[alpha=-1;beta=1;gamma=-1]",
        "joss-t",
        "joss-j",
        "adaptive-fair",
        "adaptive-fair[update_interval=5s;job_sorting=false]",
        "adaptive-fair[pool_allocation=false;assign_multiple=false]",
        "dhsa-pi",
        "dhsa-pd",
        "dynamicmr",
        "dhsa-pi[borrow_map_pct=0.5;borrow_reduce_pct=0.25]",
        "dhsa-pd[borrow_map_pct=0;borrow_reduce_pct=1]",
        "dynamicmr[sepb_check_fraction=0.5;max_borrowed_reduce_slots=2]",
        "dynamicmr[slowstart=1;prescheduling=false]",
    ] {
        let sc = load_text(text, Some(policy));
        let mut sim = slotsim::runs::build_sim(&sc).unwrap();
        sim.run_until(None);
        check(&sim).unwrap_or_else(|e| panic!("{policy}: {e}"));
        assert!(sim.view().attempts().len() > 500, "{policy}: a busy run");
    }
}

/// Found by the property test above: on unified containers a queue whose
/// capacity rounds to zero allows its user one container; capacity used to
/// start the job's reduce there first (reduce-first on unified clusters)
/// and the reduce then waited for ever on a map that had no room.
#[test]
fn capacity_early_reduce_leaves_its_user_room_for_a_map() {
    let text = r#"
name = "random"
[cluster]
nodes = 1
racks = 1
map_slots = 1
reduce_slots = 1
slot_model = "unified"
heartbeat = "500ms"
[hdfs]
block = "64MB"
replication = 1
[scheduler]
policy = "capacity"
slowstart = 0
[[pools]]
name = "a"
capacity = 60
[[pools]]
name = "b"
capacity = 40
[[jobs]]
name = "j0"
profile = "terasort"
maps = 1
reduces = 1
pool = "b"
user = "u0"
"#;
    let sc = load_text(text, None);
    let mut sim = slotsim::runs::build_sim(&sc).unwrap();
    sim.run_until(Some(3_600_000));
    check(&sim).unwrap();
}

/// A switch to capacity finds a job's reduce holding its user's only
/// container (queue `a` has ⌊60 % × 2⌋ = 1) while its maps wait: capacity
/// lets the job run a map beyond the user limit rather than wait for ever.
#[test]
fn capacity_after_a_switch_lets_a_job_blocked_by_its_own_reduce_run_a_map() {
    let text = r#"
name = "switch"
[cluster]
nodes = 1
racks = 1
map_slots = 1
reduce_slots = 1
slot_model = "unified"
heartbeat = "500ms"
[hdfs]
block = "64MB"
replication = 1
[tasks]
setup = "off"
cleanup = "off"
[scheduler]
policy = "adaptive-fair"
slowstart = 0
[scheduler.adaptive-fair]
job_classification = false
[[pools]]
name = "a"
capacity = 60
[[pools]]
name = "b"
capacity = 40
[[jobs]]
name = "j0"
profile = "terasort"
maps = 4
reduces = 1
pool = "a"
user = "u0"
[[events]]
at = "1s"
action = "switch_policy"
policy = "capacity"
"#;
    let sc = load_text(text, None);
    let mut sim = slotsim::runs::build_sim(&sc).unwrap();
    sim.run_until(Some(3_600_000));
    // The state the switch met: the reduce and a map, launched at once.
    let w = sim.view();
    let first: Vec<_> = w.attempts().iter().filter(|a| a.start == 0).collect();
    assert_eq!(
        first.len(),
        2,
        "adaptive-fair launched a map and the reduce"
    );
    assert!(
        w.attempts().iter().skip(2).all(|a| a.policy == 1),
        "capacity launched the rest"
    );
    check(&sim).unwrap();
}

//! `slot_model = "yarn"`: containers by memory and vcores, an
//! ApplicationMaster per job, YARN's FairScheduler and FifoScheduler.
//! Dominant Resource Fairness's worked example (Ghodsi et al., NSDI 2011,
//! §4) and Hadoop 2.7.3's own FairScheduler tests replayed heartbeat by
//! heartbeat, and the books kept: no node over its memory, AMs traced.

use crate::common;
use common::*;
use slotsim::model::Resource;
use slotsim::sim::jobtask::JobTaskKind;
use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};

/// A one-node YARN cluster with manual heartbeats and no AM containers
/// (as the FairScheduler tests ask bare requests), `policy` in force.
fn one_node(
    memory: &str,
    vcores: u32,
    policy: &str,
    jobs: &[(&str, &str, u32, &str, u32)],
    beats: &[(u64, u32)],
) -> String {
    let mut t = format!(
        "name = \"yarn-test\"\nseed = 1\n[cluster]\nnodes = 1\nslot_model = \"yarn\"\nmemory = \"{memory}\"\nvcores = {vcores}\nheartbeat = \"manual\"\n[tasks]\nam_memory = \"0MB\"\nam_vcores = 0\n[scheduler]\npolicy = \"{policy}\"\n"
    );
    let mut pools: Vec<&str> = jobs.iter().map(|j| j.1).collect();
    pools.sort_unstable();
    pools.dedup();
    for p in pools.iter().filter(|p| **p != "default") {
        t += &format!("[[pools]]\nname = \"{p}\"\n");
    }
    for (name, pool, maps, mem, vc) in jobs {
        t += &format!(
            "[[jobs]]\nname = \"{name}\"\npool = \"{pool}\"\nprofile = \"terasort\"\nmaps = {maps}\nreduces = 0\nmap_time = \"100s\"\nmap_memory = \"{mem}\"\nmap_vcores = {vc}\n"
        );
    }
    t + &heartbeat_events(beats)
}

/// Runs `text` to `until_ms`, with every heartbeat's inspection.
fn run_to(text: &str, until_ms: u64) -> (slotsim::sim::Sim, Vec<InspectRecord>) {
    let sc = load_text(text, None);
    let mut sim = slotsim::runs::build_sim(&sc).unwrap();
    let recs = collect_inspect(&mut sim);
    sim.run_until(Some(until_ms));
    let recs = recs.lock().unwrap().clone();
    (sim, recs)
}

/// Each heartbeat's launches, as `job` names.
fn per_beat(recs: &[InspectRecord]) -> Vec<Vec<String>> {
    recs.iter()
        .map(|r| {
            r.assigned
                .iter()
                .map(|a| a.split('/').next().unwrap().to_string())
                .collect()
        })
        .collect()
}

fn beats(n: u64) -> Vec<(u64, u32)> {
    (1..=n).map(|s| (s * 1000, 0)).collect()
}

#[test]
fn drf_worked_example_nsdi_2011() {
    // 9 CPUs and 18 GB; A's tasks need <1 CPU, 4 GB>, B's <3 CPUs, 1 GB>.
    let jobs = [("A", "a", 20, "4GB", 1), ("B", "b", 20, "1GB", 3)];
    let text = one_node(
        "18GB",
        9,
        "yarn-fair[scheduling_policy=drf]",
        &jobs,
        &beats(7),
    );
    let (sim, mut recs) = run_to(&text, 50_000);
    let seventh = recs.pop().unwrap();
    // Progressive filling: A, B, A, B, A; then CPU is exhausted and B, at
    // the same dominant share as A but a smaller second share, reserves.
    let order: Vec<Vec<String>> = per_beat(&recs);
    let want: Vec<Vec<String>> = ["A", "B", "A", "B", "A"]
        .iter()
        .map(|j| vec![j.to_string()])
        .chain([vec![]])
        .collect();
    assert_eq!(order, want);
    let w = sim.view();
    let (a, b) = (w.job(0), w.job(1));
    assert_eq!(
        a.used,
        Resource::memory(12 * 1024, 3),
        "A: 3 tasks, 3 CPUs, 12 GB"
    );
    assert_eq!(
        b.used,
        Resource::memory(2 * 1024, 6),
        "B: 2 tasks, 6 CPUs, 2 GB"
    );
    let cap = w.cluster().live;
    let (da, db) = (
        slotsim::sched::yarn::fair::drf_shares(a.used, cap, 1.0).0,
        slotsim::sched::yarn::fair::drf_shares(b.used, cap, 1.0).0,
    );
    assert_eq!(da, db, "equal dominant shares");
    assert!((f64::from(da) - 2.0 / 3.0).abs() < 1e-6);
    assert_eq!(seventh.assigned.len(), 0);
    assert_eq!(seventh.inspection.cluster["reserved_nodes"], 1);
}

#[test]
fn drf_worked_example_in_one_heartbeat_with_assign_multiple() {
    let jobs = [("A", "a", 20, "4GB", 1), ("B", "b", 20, "1GB", 3)];
    let policy = "yarn-fair[scheduling_policy=drf;assign_multiple=true]";
    let sc = load_text(&one_node("18GB", 9, policy, &jobs, &beats(1)), None);
    let (_, recs) = run_inspect(&sc);
    let first: Vec<String> = recs[0]
        .assigned
        .iter()
        .map(|a| a.split('/').next().unwrap().to_string())
        .collect();
    assert_eq!(first, ["A", "B", "A", "B", "A"]);
}

#[test]
fn hadoop_fair_test_basic_drf_assignment() {
    // TestFairScheduler.testBasicDRFAssignment: node <8192 MB, 5 vcores>,
    // app1 asks <2048, 1>, app2 <1024, 2>, both in queue1 under DRF: app1,
    // app2, then app1 again (2048/8192 = 0.25 < 2/5).
    let jobs = [
        ("app1", "queue1", 2, "2GB", 1),
        ("app2", "queue1", 2, "1GB", 2),
    ];
    let (_, recs) = run_to(
        &one_node(
            "8GB",
            5,
            "yarn-fair[scheduling_policy=drf]",
            &jobs,
            &beats(3),
        ),
        50_000,
    );
    assert_eq!(per_beat(&recs), [vec!["app1"], vec!["app2"], vec!["app1"]]);
}

#[test]
fn hadoop_fair_test_no_more_cpu_on_node() {
    // TestFairScheduler.testNoMoreCpuOnNode: node <2048 MB, 1 vcore>, two
    // <1024, 1> asks: one container, under the fair policy too (it fits
    // both resources).
    let jobs = [("app", "default", 2, "1GB", 1)];
    let (sim, recs) = run_to(&one_node("2GB", 1, "yarn-fair", &jobs, &beats(2)), 50_000);
    assert_eq!(per_beat(&recs), [vec!["app"], vec![]]);
    assert_eq!(sim.view().job(0).used, Resource::memory(1024, 1));
}

#[test]
fn hadoop_fair_test_max_assign() {
    // TestFairScheduler.testMaxAssign: assignmultiple, node <16384, 16>,
    // 8 asks of 1024 MB: max.assign 2 gives 2, then -1 the other 6.
    let mut text = one_node(
        "16GB",
        16,
        "yarn-fair[assign_multiple=true;max_assign=2]",
        &[("app", "default", 8, "1GB", 1)],
        &beats(2),
    );
    text += "[[events]]\nat = \"1500ms\"\naction = \"switch_policy\"\npolicy = \"yarn-fair[assign_multiple=true]\"\n";
    let (_, recs) = run_to(&text, 50_000);
    assert_eq!(recs[0].assigned.len(), 2);
    assert_eq!(recs[1].assigned.len(), 6);
}

#[test]
fn hadoop_fair_test_simple_fair_share_calculation() {
    // TestFairScheduler.testSimpleFairShareCalculation: 10240 MB, three
    // active leaf queues: 3414 MB each (Hadoop's binary search, truncated).
    let jobs = [
        ("j1", "q1", 1, "1GB", 1),
        ("j2", "q2", 1, "1GB", 1),
        ("j3", "q3", 1, "1GB", 1),
    ];
    let (_, recs) = run_to(&one_node("10GB", 8, "yarn-fair", &jobs, &beats(1)), 50_000);
    for q in ["q1", "q2", "q3"] {
        assert_eq!(recs[0].inspection.pools[q]["fair_share_mb"], 3414, "{q}");
    }
}

#[test]
fn yarn_fifo_fills_the_node_in_application_order_memory_only() {
    // FifoScheduler: as many containers as memory holds in one heartbeat,
    // applications in id order; vcores are not checked (1 per container).
    let jobs = [
        ("first", "default", 3, "2GB", 2),
        ("second", "default", 4, "1GB", 1),
    ];
    let (sim, recs) = run_to(&one_node("8GB", 2, "yarn-fifo", &jobs, &beats(1)), 50_000);
    assert_eq!(
        per_beat(&recs),
        [vec!["first", "first", "first", "second", "second"]]
    );
    assert_eq!(sim.view().cluster().used, Resource::memory(8192, 5));
}

#[test]
fn am_containers_run_first_hold_until_the_job_ends_and_are_traced() {
    let text = r#"
name = "ams"
seed = 3
[cluster]
nodes = 4
slot_model = "yarn"
memory = "8GB"
vcores = 8
[tasks]
am_startup = "3s"
[scheduler]
policy = "yarn-fair"
[[jobs]]
name = "a"
profile = "wordcount"
input = "1GB"
reduces = 2
[[jobs]]
name = "b"
profile = "terasort"
input = "512MB"
reduces = 1
submit = "2s"
"#;
    let sc = load_text(text, None);
    let (sim, _) = run(&sc);
    check(&sim).unwrap();
    let w = sim.view();
    for job in w.jobs() {
        let am: Vec<_> = w.job_tasks().iter().filter(|t| t.job == job.id).collect();
        assert_eq!(am.len(), 1);
        assert_eq!(am[0].kind, JobTaskKind::Am);
        // Hadoop's default AM, 1536 MB and 1 vcore, normalised to 2048.
        let ready = job.am_ready.unwrap();
        assert_eq!(
            ready,
            am[0].start + 3000 + 1000,
            "start-up, then the first allocate call"
        );
        let first = w
            .attempts()
            .iter()
            .filter(|a| a.job == job.id)
            .map(|a| a.start)
            .min()
            .unwrap();
        assert!(first >= ready);
    }
    let mut out = Vec::new();
    slotsim::report::trace::write_trace(&sim, &mut out).unwrap();
    let lines: Vec<serde_json::Value> = String::from_utf8(out)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let ams: Vec<_> = lines.iter().filter(|l| l["kind"] == "am").collect();
    assert_eq!(ams.len(), 2);
    assert_eq!(ams[0]["startup_s"], 4.0);
    assert_eq!(ams[0]["task"], "am");
    // Every line gives its container, right after its outcome: the AM's
    // 2048 MB, a task's Hadoop default 1024 MB, a vcore each.
    for l in &lines {
        let want = if l["kind"] == "am" { 2048 } else { 1024 };
        assert_eq!(
            l["container"],
            serde_json::json!({"memory_mb": want, "vcores": 1}),
            "{l}"
        );
        let keys: Vec<&String> = l.as_object().unwrap().keys().collect();
        let at = keys.iter().position(|k| *k == "outcome").unwrap();
        assert_eq!(keys[at + 1], "container", "{l}");
    }
    // On slots, no line has one.
    let (slots, _) = run(&load_text(
        &text
            .replace("slot_model = \"yarn\"\nmemory = \"8GB\"\nvcores = 8\n", "")
            .replace("[tasks]\nam_startup = \"3s\"\n", "")
            .replace("yarn-fair", "fair"),
        None,
    ));
    let mut out = Vec::new();
    slotsim::report::trace::write_trace(&slots, &mut out).unwrap();
    let text = String::from_utf8(out).unwrap();
    assert!(
        text.lines().count() > 10 && !text.contains("container"),
        "{text}"
    );
}

/// Bad YARN input: one `FILE:LINE:COL` error naming the key and what it
/// expects.
#[test]
fn yarn_keys_are_checked_where_they_are_written() {
    let err = |text: &str| {
        slotsim::scenario::load_str(text, "t.toml", None, None)
            .err()
            .unwrap_or_else(|| panic!("accepted:\n{text}"))
            .to_string()
    };
    let typed = "[cluster]\nnodes = 2\nmemory = \"8GB\"\n";
    let e = err(typed);
    assert!(
        e.starts_with("t.toml:3:10:") && e.contains("slot_model = \"yarn\""),
        "{e}"
    );
    let e = err("[cluster]\nnodes = 2\n[tasks]\nam_memory = \"1GB\"\n");
    assert!(
        e.starts_with("t.toml:4:13:") && e.contains("YARN container"),
        "{e}"
    );
    let yarn = "[cluster]\nnodes = 2\nslot_model = \"yarn\"\nmemory = \"4GB\"\n";
    let e = err(&format!("{yarn}[tasks]\nmap_memory = \"6GB\"\n"));
    assert!(
        e.starts_with("t.toml:6:14:") && e.contains("4096 MB"),
        "{e}"
    );
    let e = err(&format!("{yarn}[tasks]\nam_memory = \"1.5KB\"\n"));
    assert!(
        e.starts_with("t.toml:6:13:") && e.contains("whole number of MB"),
        "{e}"
    );
    let e = err("[cluster]\nnodes = 2\nslot_model = \"yarn\"\nmemory = \"512MB\"\n");
    assert!(e.contains("holds no container"), "{e}");
    let job = "[[jobs]]\nname = \"j\"\nprofile = \"grep\"\nmaps = 2\nreduce_vcores = 9\n";
    let e = err(&format!("{yarn}{job}"));
    assert!(
        e.starts_with("t.toml:9:17:") && e.contains("8 vcore(s)"),
        "{e}"
    );
    let e = err(&format!("{yarn}[tasks]\nspeculation = \"hadoop\"\n"));
    assert!(
        e.contains("not modelled under slot_model = \"yarn\""),
        "{e}"
    );
    // A policy for the other model.
    let e = slotsim::scenario::load_str(yarn, "t.toml", Some("fair"), None)
        .unwrap_err()
        .to_string();
    assert!(e.contains("yarn-fifo, yarn-capacity, yarn-fair"), "{e}");
    // A file's slot policy on a yarn cluster is an error, unless --policy
    // names one for yarn: that one runs instead.
    let slot_file = format!("{yarn}[scheduler]\npolicy = \"fair\"\n");
    let e = slotsim::scenario::load_str(&slot_file, "t.toml", None, None)
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("t.toml:6:10:"), "{e}");
    let sc =
        slotsim::scenario::load_str(&slot_file, "t.toml", Some("yarn-capacity"), None).unwrap();
    assert_eq!(sc.policy.name(), "yarn-capacity");
}

#[test]
fn a_job_can_ask_its_own_containers() {
    let text = r#"
[cluster]
nodes = 2
slot_model = "yarn"
memory = "8GB"
[tasks]
am_memory = "0MB"
am_vcores = 0
map_memory = "2GB"
[scheduler]
policy = "yarn-fifo"
[[jobs]]
name = "big"
profile = "grep"
maps = 4
reduces = 1
map_memory = "3GB"
reduce_memory = "5GB"
reduce_vcores = 2
"#;
    let sc = load_text(text, None);
    let mut sim = slotsim::runs::build_sim(&sc).unwrap();
    let seen = Arc::new(Mutex::new(BTreeSet::new()));
    sim.attach(Box::new(Sizes(seen.clone())));
    sim.run_until(None);
    check(&sim).unwrap();
    // FifoScheduler normalises to whole GBs and 1 vcore.
    let want: BTreeSet<_> = [
        ("map", Resource::memory(3072, 1)),
        ("reduce", Resource::memory(5120, 1)),
    ]
    .into();
    assert_eq!(*seen.lock().unwrap(), want);
}

/// Records the container of every running attempt, by kind.
struct Sizes(Arc<Mutex<BTreeSet<(&'static str, Resource)>>>);

impl slotsim::sim::policy::Observer for Sizes {
    fn observe(&mut self, w: slotsim::sim::RunView<'_>) {
        let mut seen = self.0.lock().unwrap();
        for a in w.attempts().iter().filter(|a| a.end().is_none()) {
            let kind = if a.kind == slotsim::sim::Kind::Map {
                "map"
            } else {
                "reduce"
            };
            seen.insert((kind, a.ask));
        }
    }
}

/// Checks the books after every event: no node's containers hold more
/// memory than it has (nor more vcores, unless `memory_only`: Hadoop's
/// FifoScheduler counts memory alone), and what the engine says each node
/// and the cluster hold is the sum of their running containers.
struct Books {
    memory_only: bool,
    broken: Arc<Mutex<Option<String>>>,
}

impl slotsim::sim::policy::Observer for Books {
    fn observe(&mut self, w: slotsim::sim::RunView<'_>) {
        let mut broken = self.broken.lock().unwrap();
        if broken.is_some() {
            return;
        }
        let mut held = vec![Resource::ZERO; w.cluster().nodes.len()];
        for a in w.attempts().iter().filter(|a| a.end().is_none()) {
            held[a.node as usize] += a.ask;
        }
        for t in w.job_tasks().iter().filter(|t| t.end.is_none()) {
            held[t.node as usize] += t.ask;
        }
        let mut total = Resource::ZERO;
        for n in &w.cluster().nodes {
            total += n.used;
            let over = n.used.mb() > n.capacity.mb()
                || (!self.memory_only && n.used.vcores() > n.capacity.vcores());
            if over || n.used != held[n.id as usize] {
                *broken = Some(format!(
                    "node {} at {} ms: holds {:?} of {:?}, its containers {:?}",
                    n.id,
                    w.now(),
                    n.used,
                    n.capacity,
                    held[n.id as usize]
                ));
                return;
            }
        }
        if total != w.cluster().used {
            *broken = Some(format!(
                "cluster at {} ms: {:?} against its nodes' {total:?}",
                w.now(),
                w.cluster().used
            ));
        }
    }
}

/// A random YARN scenario: nodes of random sizes, jobs with random
/// containers (each at most half a node's memory and vcores, so one fits
/// beside an AM), AMs sized or not,
/// random node failures, switches between the YARN policies. The cluster
/// is never so small that the AM share limit alone keeps every AM out (a
/// real YARN deadlock: two 2 GB nodes, two queues).
fn random_yarn(seed: u64, policies: &[&str]) -> String {
    use rand::{Rng, SeedableRng};
    let mut r = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let nodes = r.random_range(3..=6u32);
    let mem_gb = r.random_range(4..=12u32);
    let vcores = r.random_range(2..=8u32);
    let (am_mb, am_vc) = if r.random_bool(0.25) {
        (0, 0)
    } else {
        (r.random_range(1..=2) * 1024 - 512, 1)
    };
    let policy = policies[r.random_range(0..policies.len())];
    let mut t = format!(
        "name = \"random-yarn\"\nseed = {seed}\n[cluster]\nnodes = {nodes}\nracks = {}\nslot_model = \"yarn\"\nmemory = \"{mem_gb}GB\"\nvcores = {vcores}\n[tasks]\nam_memory = \"{am_mb}MB\"\nam_vcores = {am_vc}\n[scheduler]\npolicy = \"{policy}\"\nslowstart = {}\n",
        r.random_range(1..=nodes.min(2)),
        [0.05, 0.5, 1.0][r.random_range(0..3)]
    );
    t += "[[pools]]\nname = \"p\"\nweight = 2.0\n";
    // Queue settings every YARN policy reads its own of: the capacity
    // scheduler's capacity, maximum and user limits, the fair scheduler's
    // minimum and maximum resources and ordering (fair or fifo: a drf
    // queue under a fair root is refused).
    if r.random_bool(0.5) {
        let cap = r.random_range(20..=80u32);
        t += &format!(
            "capacity = {cap}\nmax_capacity = {}\nuser_limit_factor = {}\nmin_user_limit = {}\n",
            r.random_range(cap..=100),
            r.random_range(1..=3),
            [50, 100][r.random_range(0..2)]
        );
    }
    if r.random_bool(0.5) {
        let min_gb = r.random_range(0..=mem_gb);
        t += &format!(
            "min_resources = {{ memory = \"{min_gb}GB\", vcores = {} }}\nmax_resources = {{ memory = \"{}GB\" }}\nscheduling_policy = \"{}\"\n",
            r.random_range(0..=vcores),
            r.random_range(min_gb.max(1)..=mem_gb * nodes),
            ["fair", "fifo"][r.random_range(0..2)]
        );
    }
    for k in 0..r.random_range(1..=6) {
        let mb = |r: &mut rand_chacha::ChaCha8Rng| r.random_range(1..=mem_gb / 2) * 512;
        let vc = |r: &mut rand_chacha::ChaCha8Rng| r.random_range(1..=vcores / 2);
        let (map_mb, map_vc, red_mb, red_vc) = (mb(&mut r), vc(&mut r), mb(&mut r), vc(&mut r));
        t += &format!(
            "[[jobs]]\nname = \"j{k}\"\nprofile = \"{}\"\ninput = \"{}MB\"\nreduces = {}\nsubmit = \"{}s\"\npool = \"{}\"\nmap_memory = \"{map_mb}MB\"\nmap_vcores = {map_vc}\nreduce_memory = \"{red_mb}MB\"\nreduce_vcores = {red_vc}\n",
            ["terasort", "wordcount", "grep"][r.random_range(0..3)],
            r.random_range(64..=2048),
            r.random_range(0..=4),
            r.random_range(0..=60),
            ["p", "default"][r.random_range(0..2)],
        );
    }
    for _ in 0..r.random_range(0..=2) {
        let (node, at) = (r.random_range(0..nodes), r.random_range(5..=120));
        t += &format!("[[events]]\nat = \"{at}s\"\naction = \"fail_node\"\nnode = {node}\n");
        t += &format!(
            "[[events]]\nat = \"{}s\"\naction = \"recover_node\"\nnode = {node}\n",
            at + r.random_range(1..=60)
        );
    }
    if policies.len() > 1 && r.random_bool(0.5) {
        let to = policies[r.random_range(0..policies.len())];
        t += &format!(
            "[[events]]\nat = \"{}s\"\naction = \"switch_policy\"\npolicy = \"{to}\"\n",
            r.random_range(1..=90)
        );
    }
    t
}

fn check_books(text: &str, memory_only: bool) -> Result<(), String> {
    let sc = load_text(text, None);
    let mut sim = slotsim::runs::build_sim(&sc).map_err(|e| e.to_string())?;
    let broken = Arc::new(Mutex::new(None));
    sim.attach(Box::new(Books {
        memory_only,
        broken: broken.clone(),
    }));
    sim.run_until(None);
    if let Some(b) = broken.lock().unwrap().take() {
        return Err(b);
    }
    check(&sim)
}

#[test]
fn no_node_ever_holds_more_than_it_has_over_random_scenarios() {
    let fair = [
        "yarn-fair",
        "yarn-fair[scheduling_policy=drf]",
        "yarn-fair[assign_multiple=true]",
    ];
    for seed in 0..40 {
        let text = random_yarn(seed, &fair);
        check_books(&text, false).unwrap_or_else(|e| panic!("seed {seed}: {e}\n{text}"));
    }
    // Hadoop's FifoScheduler counts memory alone: vcores may be
    // over-committed, memory never.
    for seed in 40..70 {
        let text = random_yarn(seed, &["yarn-fifo", "yarn-fair"]);
        check_books(&text, true).unwrap_or_else(|e| panic!("seed {seed}: {e}\n{text}"));
    }
    // The CapacityScheduler counts vcores only with the dominant
    // calculator; its reservations charge queues, never nodes.
    for seed in 70..100 {
        let text = random_yarn(seed, &["yarn-capacity[resource_calculator=dominant]"]);
        check_books(&text, false).unwrap_or_else(|e| panic!("seed {seed}: {e}\n{text}"));
    }
    // Every YARN policy the registry lists (one added to it is checked
    // here without an edit), switching among them: those that build from
    // the scenario alone (an external policy needs its command).
    let capacity = slotsim::model::Capacity::new(
        slotsim::model::SlotModel::Yarn,
        0,
        0,
        slotsim::model::yarn_defaults::NODE,
    );
    let ctx = slotsim::sim::policy::BuildCtx {
        heartbeat: Some(1000),
        capacity,
    };
    let all: Vec<&str> = slotsim::sched::registry::for_capacity(&capacity)
        .iter()
        .map(|e| e.name)
        .filter(|&name| {
            let spec = slotsim::model::PolicySpec::plain(name);
            slotsim::sched::registry::build(&spec, &toml::Table::new(), &ctx).is_ok()
        })
        .collect();
    assert!(all.len() >= 3, "{all:?}");
    for seed in 100..130 {
        let text = random_yarn(seed, &all);
        check_books(&text, true).unwrap_or_else(|e| panic!("seed {seed}: {e}\n{text}"));
    }
}

/// A YARN cluster of `nodes` in `racks` with manual heartbeats, no AM
/// containers unless `am` (as the CapacityScheduler tests ask bare
/// requests), replication 1, and `extra` appended (jobs, pools, events).
fn capacity_cluster(nodes: u32, racks: u32, memory: &str, policy: &str, am: bool) -> String {
    let am = if am {
        ""
    } else {
        "am_memory = \"0MB\"\nam_vcores = 0\n"
    };
    format!(
        "name = \"yarn-capacity-test\"\nseed = 1\n[cluster]\nnodes = {nodes}\nracks = {racks}\nslot_model = \"yarn\"\nmemory = \"{memory}\"\nvcores = 8\nheartbeat = \"manual\"\n[hdfs]\nreplication = 1\n[tasks]\n{am}[scheduler]\npolicy = \"{policy}\"\n"
    )
}

/// One job of fixed-time 1 GB maps whose blocks are on `blocks` (one node
/// each), no reduces.
fn located_job(name: &str, blocks: &[u32], map_time: &str) -> String {
    let b: Vec<String> = blocks.iter().map(|n| format!("[{n}]")).collect();
    format!(
        "[[jobs]]\nname = \"{name}\"\nprofile = \"terasort\"\nmaps = {}\nreduces = 0\nmap_time = \"{map_time}\"\nblocks = [{}]\n",
        blocks.len(),
        b.join(", ")
    )
}

fn missed(r: &InspectRecord, job: &str) -> f64 {
    r.inspection.jobs[job]["missed_map"].as_f64().unwrap()
}

#[test]
fn hadoop_capacity_test_locality_scheduling_off_switch_delay() {
    // TestLeafQueue.testLocalityScheduling, first part, on 3 nodes in 3
    // racks: 3 maps on host_0, host_1, host_0 (ANY 3, four host and rack
    // entries: wait factor min(4/3, 1) = 1). Offers from node 2 miss three
    // times; the fourth takes an off-switch container and does not reset
    // the count; then node 0 takes its node-local map and resets it.
    let mut text = capacity_cluster(3, 3, "8GB", "yarn-capacity", false);
    text += &located_job("app", &[0, 1, 0], "100s");
    text += &heartbeat_events(&[
        (1000, 2),
        (2000, 2),
        (3000, 2),
        (4000, 2),
        (5000, 0),
        (6000, 1),
    ]);
    let (_, recs) = run_to(&text, 50_000);
    let counts: Vec<f64> = recs.iter().map(|r| missed(r, "app")).collect();
    let rules: Vec<Vec<&str>> = recs.iter().map(|r| r.rules.clone()).collect();
    // Counts before each heartbeat's assignments.
    assert_eq!(counts[..5], [0.0, 1.0, 2.0, 3.0, 4.0]);
    assert_eq!(
        rules[..4],
        [vec![], vec![], vec![], vec!["yarn-capacity/off-switch"]]
    );
    // Node 0: its node-local map resets the count; the root loop then
    // offers the node again, and the last map (host_1 and rack_1: wait
    // min(3, 1 × 2/3) < 1 missed) goes off-switch, the count not reset.
    assert_eq!(
        rules[4],
        ["yarn-capacity/node-local", "yarn-capacity/off-switch"]
    );
    assert_eq!(counts[5], 1.0);
}

#[test]
fn hadoop_capacity_test_locality_scheduling_capped_by_cluster_size() {
    // testLocalityScheduling's last part: 100 maps on host_0 ask more
    // than the cluster has nodes, so the off-switch wait is capped at 3:
    // node 2 misses three offers and takes the fourth, then one off-switch
    // container per heartbeat (the root loop stops after an off-switch).
    let mut text = capacity_cluster(3, 3, "8GB", "yarn-capacity", false);
    text += &located_job("app", &[0; 100], "100s");
    text += &heartbeat_events(&(1..=6).map(|s| (s * 1000, 2)).collect::<Vec<_>>());
    let (_, recs) = run_to(&text, 50_000);
    let n: Vec<usize> = recs.iter().map(|r| r.assigned.len()).collect();
    assert_eq!(n, [0, 0, 0, 1, 1, 1]);
    let counts: Vec<f64> = recs.iter().map(|r| missed(r, "app")).collect();
    assert_eq!(counts, [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]);
}

#[test]
fn hadoop_capacity_rack_locality_waits_node_locality_delay() {
    // testLocalityScheduling's rack part with node-locality-delay 1: 4
    // nodes in 2 racks, 3 maps on node 1 (host_1 and rack_0: wait factor
    // 2/4). Node 0 shares its rack. First offer: 1 missed, not above the
    // delay, and the off-switch wait is 3 × 0.5: nothing. Second: rack-local,
    // the count reset (rack-locality-full-reset) so the root loop's next
    // offer misses again.
    let run = |full_reset: bool| {
        let policy =
            format!("yarn-capacity[node_locality_delay=1;rack_locality_full_reset={full_reset}]");
        let mut text = capacity_cluster(4, 2, "8GB", &policy, false);
        text += &located_job("app", &[1, 1, 1], "100s");
        text += &heartbeat_events(&[(1000, 0), (2000, 0), (3000, 0)]);
        run_to(&text, 50_000).1
    };
    let recs = run(true);
    let rules: Vec<Vec<&str>> = recs.iter().map(|r| r.rules.clone()).collect();
    assert_eq!(rules[0], Vec::<&str>::new());
    assert_eq!(rules[1], ["yarn-capacity/rack-local"]);
    assert_eq!(missed(&recs[2], "app"), 1.0);
    // Without the full reset the count stays above the delay: every
    // offer of the same heartbeat is rack-local.
    let recs = run(false);
    assert_eq!(recs[0].assigned.len(), 0);
    assert_eq!(recs[1].rules, ["yarn-capacity/rack-local"; 3]);
}

#[test]
fn capacity_admits_applications_within_the_am_resource_limit() {
    // LeafQueue.activateApplications: 4 nodes of 8 GB, one queue; AMs ask
    // 1536 MB, normalised to 2048. The AM limit is 10 % of 32 GB rounded
    // (3277 MB) up to the minimum allocation: 4096, two AMs. The third
    // application stays pending until the first finishes; at 20 % (7168
    // MB) all three start together.
    let run = |policy: &str| {
        let mut text = capacity_cluster(4, 1, "8GB", policy, true);
        text = text.replace("heartbeat = \"manual\"", "heartbeat = \"1s\"");
        for k in 0..3 {
            text += &format!(
                "[[jobs]]\nname = \"j{k}\"\nprofile = \"terasort\"\nmaps = 2\nreduces = 0\nmap_time = \"{}s\"\nsubmit = \"{k}ms\"\n",
                [20, 60, 60][k]
            );
        }
        let sc = load_text(&text, None);
        let mut sim = slotsim::runs::build_sim(&sc).unwrap();
        sim.run_until(None);
        let am_start = |j: u32| {
            sim.view()
                .job_tasks()
                .iter()
                .find(|t| t.job == j && t.kind == JobTaskKind::Am)
                .map(|t| t.start)
                .unwrap()
        };
        (
            (0..3).map(am_start).collect::<Vec<_>>(),
            sim.view().job(0).finished_at.unwrap(),
        )
    };
    let (starts, first_done) = run("yarn-capacity");
    assert!(starts[0] < 2_000 && starts[1] < 2_000, "{starts:?}");
    assert!(
        starts[2] >= first_done,
        "{starts:?}, first job done at {first_done}"
    );
    let (starts, _) = run("yarn-capacity[max_am_percent=0.2]");
    assert!(starts.iter().all(|&s| s < 2_000), "{starts:?}");
}

#[test]
fn capacity_queues_keep_to_their_capacity_and_a_user_to_its_limit() {
    // Two queues at 30 % and 70 % of 10 nodes × 8 GB, each one user with
    // more maps than the cluster holds: each queue fills to its capacity.
    // Alone, with user-limit-factor 1, a user stops one container past its
    // queue's capacity (30 % of 80 GB = 24 GB: `computeUserLimit` caps the
    // limit at the capacity and `assignToUser` refuses only above it);
    // with factor 2 it grows to twice that.
    let run = |factor: f64, b_too: bool| {
        let mut text = capacity_cluster(10, 2, "8GB", "yarn-capacity", false);
        text = text.replace("heartbeat = \"manual\"", "heartbeat = \"1s\"");
        text += &format!("[[pools]]\nname = \"a\"\ncapacity = 30\nuser_limit_factor = {factor}\n[[pools]]\nname = \"b\"\ncapacity = 70\n");
        text += "[[jobs]]\nname = \"ja\"\npool = \"a\"\nuser = \"alice\"\nprofile = \"terasort\"\nmaps = 400\nreduces = 0\nmap_time = \"100s\"\n";
        if b_too {
            text += "[[jobs]]\nname = \"jb\"\npool = \"b\"\nuser = \"bob\"\nprofile = \"terasort\"\nmaps = 400\nreduces = 0\nmap_time = \"100s\"\n";
        }
        let sc = load_text(&text, None);
        let mut sim = slotsim::runs::build_sim(&sc).unwrap();
        sim.run_until(Some(30_000));
        let mb = |p: usize| sim.view().pool_stats()[p].used.mb();
        let a = sim
            .view()
            .pools()
            .iter()
            .position(|p| p.name == "a")
            .unwrap();
        let b = sim
            .view()
            .pools()
            .iter()
            .position(|p| p.name == "b")
            .unwrap();
        (mb(a), mb(b))
    };
    // Together the two would pass the cluster by a container each: b,
    // less used relative to its capacity when 1 GB is left, takes it.
    let (a, b) = run(1.0, true);
    assert_eq!((a, b), (24 * 1024, 56 * 1024), "queues a and b");
    let (a, _) = run(1.0, false);
    assert_eq!(
        a,
        24 * 1024 + 1024,
        "a lone user stops at its queue's capacity"
    );
    let (a, _) = run(2.0, false);
    assert_eq!(a, 48 * 1024 + 1024, "factor 2: twice its capacity");
}

#[test]
fn capacity_reserves_a_node_for_a_container_that_does_not_fit() {
    // Two 4 GB nodes in a rack, queues a and b at 50 %. Job A (queue a)
    // runs 2 GB maps of 10 s whose blocks alternate between the nodes in
    // pairs; job B (queue b) asks one 3 GB container. At 10 s A's first
    // four maps end. Node 0 heartbeats: queue a (first by name at equal
    // use) takes 2 GB, then B, in the less used queue, does not fit the
    // 2 GB left and reserves the node, charged to queue b at once. While
    // reserved, node 0 serves only B, whose container waits for A's map to
    // end and starts at 20 s.
    let mut text = capacity_cluster(2, 1, "4GB", "yarn-capacity", false);
    text += "[[pools]]\nname = \"a\"\ncapacity = 50\nuser_limit_factor = 2\n[[pools]]\nname = \"b\"\ncapacity = 50\nuser_limit_factor = 2\n";
    text += &located_job("A", &[0, 0, 1, 1, 0, 0, 1, 1], "10s").replace(
        "reduces = 0",
        "reduces = 0\npool = \"a\"\nmap_memory = \"2GB\"",
    );
    text += &located_job("B", &[0], "10s").replace(
        "reduces = 0",
        "reduces = 0\npool = \"b\"\nmap_memory = \"3GB\"\nsubmit = \"500ms\"",
    );
    let mut beats = vec![(0, 0), (0, 1), (10_000, 0), (10_000, 1)];
    beats.extend((11..=19).map(|s| (s * 1000, 0)));
    beats.extend([(20_000, 0), (20_000, 1)]);
    text += &heartbeat_events(&beats);
    let sc = load_text(&text, None);
    let mut sim = slotsim::runs::build_sim(&sc).unwrap();
    let recs = collect_inspect(&mut sim);
    sim.run_until(None);
    let recs = recs.lock().unwrap().clone();
    let reserved: Vec<u64> = recs
        .iter()
        .filter(|r| r.inspection.cluster["reserved_nodes"].as_f64() == Some(1.0))
        .map(|r| r.t)
        .collect();
    let starts = |j: u32| -> Vec<u64> {
        sim.view()
            .attempts()
            .iter()
            .filter(|a| a.job == j)
            .map(|a| a.start)
            .collect()
    };
    assert_eq!(starts(1), [20_000], "B starts when 3 GB are free");
    // No map of A starts between the reservation and B's start, though
    // node 0 has 2 GB free all along.
    assert_eq!(
        starts(0),
        [0, 0, 0, 0, 10_000, 10_000, 20_000, 20_000],
        "A's maps"
    );
    for t in (11..=19).map(|s| s * 1000) {
        assert!(
            reserved.contains(&t),
            "node 0 reserved at {t}: {reserved:?}"
        );
    }
    assert_eq!(
        sim.view()
            .attempts()
            .iter()
            .find(|a| a.job == 1)
            .unwrap()
            .node,
        0
    );
    check(&sim).unwrap();
}

#[test]
fn capacity_user_limit_splits_a_queue_between_active_users() {
    // LeafQueue.computeUserLimit on one 8 GB node, one queue at 100 %,
    // two users each with eight 1 GB maps. With minimum-user-limit-percent
    // 50 and two active users, each user's limit is 4 GB; the first
    // application's user takes containers until it is above its limit
    // (the test is `>`: 5 GB), then the other user's application gets the
    // rest (3 GB). At 100 % (Hadoop's default) the first user takes all.
    let run = |min_user_limit: u32| {
        let mut text = capacity_cluster(1, 1, "8GB", "yarn-capacity", false);
        text += &format!(
            "[[pools]]\nname = \"q\"\ncapacity = 100\nmin_user_limit = {min_user_limit}\n"
        );
        for (name, user) in [("A", "alice"), ("B", "bob")] {
            text += &located_job(name, &[0; 8], "100s").replace(
                "reduces = 0",
                &format!("reduces = 0\npool = \"q\"\nuser = \"{user}\""),
            );
        }
        text += &heartbeat_events(&[(1000, 0)]);
        let (sim, _) = run_to(&text, 50_000);
        (
            sim.view().job(0).used.mb() / 1024,
            sim.view().job(1).used.mb() / 1024,
        )
    };
    assert_eq!(run(50), (5, 3));
    assert_eq!(run(100), (8, 0));
}

/// A one-node YARN cluster with manual heartbeats, no AM containers, the
/// given `[[pools]]` text and jobs `(name, pool, maps, memory, submit_ms)`.
fn fair_node(
    memory: &str,
    vcores: u32,
    policy: &str,
    pools: &str,
    jobs: &[(&str, &str, u32, &str, u64)],
) -> String {
    let mut t = format!(
        "name = \"yarn-fair-test\"\nseed = 1\n[cluster]\nnodes = 1\nslot_model = \"yarn\"\nmemory = \"{memory}\"\nvcores = {vcores}\nheartbeat = \"manual\"\n[tasks]\nam_memory = \"0MB\"\nam_vcores = 0\n[scheduler]\npolicy = \"{policy}\"\n{pools}"
    );
    for (name, pool, maps, mem, submit) in jobs {
        t += &format!(
            "[[jobs]]\nname = \"{name}\"\npool = \"{pool}\"\nprofile = \"terasort\"\nmaps = {maps}\nreduces = 0\nmap_time = \"100s\"\nmap_memory = \"{mem}\"\nsubmit = \"{submit}ms\"\n"
        );
    }
    t
}

#[test]
fn hadoop_fair_test_fair_share_with_min_alloc() {
    // TestFairScheduler.testFairShareWithMinAlloc: 3 GB, queueA's minimum
    // 1024 MB, queueB's 2048 MB, both asking 2 GB: fair shares 1024 and
    // 2048 (each share is weight × ratio, at least the minimum).
    let pools = "[[pools]]\nname = \"queueA\"\nmin_resources = { memory = \"1024MB\", vcores = 0 }\n[[pools]]\nname = \"queueB\"\nmin_resources = { memory = \"2048MB\", vcores = 0 }\n";
    let jobs = [("a", "queueA", 2, "2GB", 0), ("b", "queueB", 2, "2GB", 0)];
    let mut text = fair_node("3GB", 1, "yarn-fair", pools, &jobs);
    text += &heartbeat_events(&[(1000, 0)]);
    let (_, recs) = run_to(&text, 50_000);
    let share = |q: &str| {
        recs[0].inspection.pools[q]["fair_share_mb"]
            .as_f64()
            .unwrap()
    };
    assert_eq!((share("queueA"), share("queueB")), (1024.0, 2048.0));
}

#[test]
fn hadoop_fair_test_container_reservation_attempt_exceeding_queue_max() {
    // TestFairScheduler.testContainerReservationAttemptExceedingQueueMax:
    // a <3072 MB, 5 vcores> node; queue1's maximum <2048, 5>, queue2's
    // <2048, 10>. queue1 gets 2048, queue2 1024; a second application of
    // queue1 asking 1024 finds the node full and does not reserve it, as
    // queue1 would pass its maximum. With a maximum of 4096 it reserves the
    // full node.
    let run = |max1: &str| {
        let pools = format!("[[pools]]\nname = \"queue1\"\nmax_resources = {{ memory = \"{max1}\", vcores = 5 }}\n[[pools]]\nname = \"queue2\"\nmax_resources = {{ memory = \"2048MB\", vcores = 10 }}\n");
        let jobs = [
            ("app1", "queue1", 1, "2GB", 0),
            ("app2", "queue2", 1, "1GB", 1500),
            ("app3", "queue1", 1, "1GB", 2500),
        ];
        let mut text = fair_node("3GB", 5, "yarn-fair", &pools, &jobs);
        text += &heartbeat_events(&beats(3));
        let (sim, recs) = run_to(&text, 3_500);
        let now = sim.policy().inspect(sim.view(), 0);
        (
            per_beat(&recs),
            now.cluster.get("reserved_nodes").and_then(|v| v.as_f64()),
        )
    };
    let (launched, reserved) = run("2048MB");
    assert_eq!(launched, [vec!["app1"], vec!["app2"]]);
    assert_eq!(reserved, Some(0.0), "queue1 would pass its maximum");
    assert_eq!(
        run("4096MB").1,
        Some(1.0),
        "within its maximum, queue1 reserves"
    );
}

#[test]
fn a_fair_queue_stops_once_past_its_maximum() {
    // FSQueue.assignContainerPreCheck: a queue whose usage is within its
    // maximum may take a container; one past it takes nothing. With 1 GB
    // containers and a 2048 MB maximum the queue holds 3 GB (Hadoop 2.7.3
    // checks usage before, not after, the container), the rest of the node
    // stays free although the queue asks for more.
    let pools = "[[pools]]\nname = \"capped\"\nmax_resources = { memory = \"2048MB\" }\n";
    let jobs = [("greedy", "capped", 8, "1GB", 0)];
    let mut text = fair_node("8GB", 8, "yarn-fair[assign_multiple=true]", pools, &jobs);
    text += &heartbeat_events(&beats(2));
    let (sim, recs) = run_to(&text, 50_000);
    assert_eq!(recs[0].assigned.len(), 3);
    assert!(recs.get(1).is_none_or(|r| r.assigned.is_empty()));
    assert_eq!(sim.view().job(0).used.mb(), 3072);
}

#[test]
fn queue_resources_are_checked_where_they_are_written() {
    let err = |text: &str| {
        slotsim::scenario::load_str(text, "t.toml", None, None)
            .unwrap_err()
            .to_string()
    };
    let yarn = "[cluster]\nnodes = 2\nslot_model = \"yarn\"\n[scheduler]\npolicy = \"yarn-fair\"\n";
    let e = err(&format!("{yarn}[[pools]]\nname = \"q\"\nmin_resources = {{ memory = \"4GB\" }}\nmax_resources = {{ memory = \"2GB\" }}\n"));
    assert!(
        e.starts_with("t.toml:8:17:")
            && e.contains("exceeds max_resources (2048 MB, no limit on vcores)"),
        "{e}"
    );
    let e = err(&format!(
        "{yarn}[[pools]]\nname = \"q\"\nmax_resources = {{ memory = \"2GB\", cores = 3 }}\n"
    ));
    assert!(e.contains("cores"), "{e}");
    let e = err(
        "[cluster]\nnodes = 2\n[[pools]]\nname = \"q\"\nmin_resources = { memory = \"4GB\" }\n",
    );
    assert!(
        e.starts_with("t.toml:5:17:") && e.contains("YARN queue"),
        "{e}"
    );
}

#[test]
fn hadoop_fair_test_fifo_within_queue() {
    // TestFairScheduler.testFifoWithinQueue: a <3072 MB, 3 vcores> node,
    // two applications of two 1024 MB asks in a FIFO queue: the first two
    // containers go to app1, the third to app2. Under the queue's default
    // fair policy they alternate.
    let jobs = [
        ("app1", "queue1", 2, "1GB", 1),
        ("app2", "queue1", 2, "1GB", 1),
    ];
    let run = |policy: &str| {
        let text = one_node("3GB", 3, "yarn-fair", &jobs, &beats(3)).replace(
            "name = \"queue1\"\n",
            &format!("name = \"queue1\"\nscheduling_policy = \"{policy}\"\n"),
        );
        per_beat(&run_to(&text, 50_000).1)
    };
    assert_eq!(run("fifo"), [vec!["app1"], vec!["app1"], vec!["app2"]]);
    assert_eq!(run("fair"), [vec!["app1"], vec!["app2"], vec!["app1"]]);
}

#[test]
fn hadoop_fair_test_basic_drf_with_queues() {
    // TestFairScheduler.testBasicDRFWithQueues: node <8192 MB, 7 vcores>,
    // root and queue1 under DRF; queue1's app1 asks <3072, 1> and app2
    // <2048, 2>, queue2's app3 <1024, 2>: app1, app3, app3, app2.
    let jobs = [
        ("app1", "queue1", 2, "3GB", 1),
        ("app2", "queue1", 2, "2GB", 2),
        ("app3", "queue2", 2, "1GB", 2),
    ];
    let text = one_node(
        "8GB",
        7,
        "yarn-fair[scheduling_policy=drf]",
        &jobs,
        &beats(4),
    )
    .replace(
        "name = \"queue1\"\n",
        "name = \"queue1\"\nscheduling_policy = \"drf\"\n",
    );
    let (_, recs) = run_to(&text, 50_000);
    assert_eq!(
        per_beat(&recs),
        [vec!["app1"], vec!["app3"], vec!["app3"], vec!["app2"]]
    );
}

#[test]
fn a_drf_queue_under_a_fair_root_is_refused_rather_than_hung() {
    // Root's FairSharePolicy computes memory shares only, so a drf queue's
    // AM share limit has 0 vcores and no AM of it could start (Hadoop
    // 2.7.3 hangs so): the run stops with one error naming the queue.
    let jobs = [("app", "queue1", 2, "1GB", 1)];
    let mut text = one_node("8GB", 8, "yarn-fair", &jobs, &beats(2)).replace(
        "name = \"queue1\"\n",
        "name = \"queue1\"\nscheduling_policy = \"drf\"\n",
    );
    text = text.replace("am_memory = \"0MB\"\nam_vcores = 0\n", "");
    let sc = load_text(&text, None);
    let mut sim = slotsim::runs::build_sim(&sc).unwrap();
    sim.run_until(Some(50_000));
    let why = sim.halted().expect("the run stops");
    assert!(why.contains("queue \"queue1\" orders by drf"), "{why}");
    // With the AM share limit off it runs.
    let text = text.replace(
        "policy = \"yarn-fair\"",
        "policy = \"yarn-fair[max_am_share=-1]\"",
    );
    let sc = load_text(&text, None);
    let mut sim = slotsim::runs::build_sim(&sc).unwrap();
    sim.run_until(Some(50_000));
    assert!(sim.halted().is_none());
    assert!(sim.view().job(0).am_ready.is_some());
}

#[test]
fn capacity_max_capacity_bounds_a_queue_s_elasticity() {
    // A queue at 30 % whose user may take up to 4 times that
    // (user_limit_factor 4), alone on 10 nodes × 8 GB: it grows to the
    // whole cluster by default, to its maximum-capacity (50 %: 40 GB) when
    // one is set — the queue's limit, not the user's, stops it.
    let run = |max: &str| {
        let mut text = capacity_cluster(10, 2, "8GB", "yarn-capacity", false);
        text = text.replace("heartbeat = \"manual\"", "heartbeat = \"1s\"");
        text += &format!("[[pools]]\nname = \"a\"\ncapacity = 30\nuser_limit_factor = 4\n{max}");
        text += "[[jobs]]\nname = \"ja\"\npool = \"a\"\nprofile = \"terasort\"\nmaps = 400\nreduces = 0\nmap_time = \"100s\"\n";
        let sc = load_text(&text, None);
        let mut sim = slotsim::runs::build_sim(&sc).unwrap();
        sim.run_until(Some(30_000));
        sim.view().job(0).used.mb() / 1024
    };
    assert_eq!(run(""), 80);
    assert_eq!(run("max_capacity = 50\n"), 40);
    let e = slotsim::scenario::load_str(
        "[cluster]\nnodes = 2\nslot_model = \"yarn\"\n[[pools]]\nname = \"q\"\ncapacity = 40\nmax_capacity = 30\n",
        "t.toml",
        Some("yarn-capacity"),
        None,
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.starts_with("t.toml:7:16:") && e.contains("from the pool's capacity (40)"),
        "{e}"
    );
}

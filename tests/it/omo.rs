//! OMO (docs/policies.md): `omo`, `omo-lazy`, `omo-batch`. The
//! engine's invariants under all three, the predictor's formulas and
//! windows against hand-computed numbers, the rules in the trace, the
//! `--inspect` keys, the JSON metrics, and the paper's headline
//! comparisons in direction on the bundled scenarios.

use crate::common;
use common::*;
use proptest::prelude::*;
use slotsim::report::summary::PredictorReport;
use slotsim::sched::omo::predictor;
use slotsim::sim::{Kind, Sim};
use std::collections::BTreeSet;

const OMO: [&str; 3] = ["omo", "omo-lazy", "omo-batch"];
const RULES: [&str; 4] = [
    "omo/reduce-continue",
    "omo/lazy-start",
    "omo/batch-finish",
    "omo/fair",
];
const CLUSTER_KEYS: [&str; 5] = ["F_o", "A_o", "D", "window_releases", "window_available"];
const JOB_KEYS: [&str; 9] = [
    "T_m",
    "T_s",
    "F_e",
    "x_star",
    "beta",
    "t_fair",
    "t_batch",
    "pending_maps",
    "reduce_started",
];
const SCENARIOS: [&str; 5] = [
    "omo-terasort-8.toml",
    "omo-wordcount-8.toml",
    "omo-set-a.toml",
    "omo-set-b.toml",
    "omo-set-g.toml",
];

fn rules(sim: &Sim) -> Vec<&'static str> {
    sim.view()
        .attempts()
        .iter()
        .map(|a| sim.view().rule(a))
        .collect()
}

fn close(a: f64, b: f64, what: &str) {
    assert!(
        (a - b).abs() <= 1e-9 * (1.0 + b.abs()),
        "{what}: {a} vs {b}"
    );
}

// ------------------------------------------------------------- invariants

#[test]
fn bundled_scenarios_keep_the_invariants_under_every_omo_policy() {
    for name in SCENARIOS {
        for p in OMO {
            let sc = load(name, Some(p));
            let (sim, sum) = run(&sc);
            check(&sim).unwrap_or_else(|e| panic!("{name} {p}: {e}"));
            assert!(sum.makespan_s.is_some(), "{name} {p} finishes");
            for r in rules(&sim) {
                assert!(RULES.contains(&r), "{name} {p}: rule {r}");
            }
        }
    }
}

#[derive(Debug, Clone)]
struct Gen {
    nodes: u32,
    map_slots: u32,
    reduce_slots: u32,
    unified: bool,
    heartbeat_ms: u32,
    oob: bool,
    shuffle_mbps: u32,
    window_s: u32,
    straggler: f64,
    policy: &'static str,
    /// maps, reduces, fp index, submit s, fixed map time s (0 = profile)
    jobs: Vec<(u32, u32, usize, u32, u32)>,
    seed: u64,
}

const FPS: [f64; 4] = [0.0, 0.2, 1.0, 3.0];

fn gen() -> impl Strategy<Value = Gen> {
    (
        (
            1u32..6,
            1u32..4,
            1u32..3,
            prop::sample::select(vec![true, true, true, false]),
            300u32..4000,
            any::<bool>(),
        ),
        (
            prop::sample::select(vec![2u32, 20, 125]),
            prop::sample::select(vec![1u32, 3, 10]),
            prop::sample::select(vec![0.0, 0.2]),
            prop::sample::select(OMO.to_vec()),
            any::<u64>(),
        ),
        prop::collection::vec((1u32..30, 0u32..5, 0usize..4, 0u32..40, 0u32..12), 1..6),
    )
        .prop_map(|(c, s, jobs)| Gen {
            nodes: c.0,
            map_slots: c.1,
            reduce_slots: c.2,
            unified: c.3,
            heartbeat_ms: c.4,
            oob: c.5,
            shuffle_mbps: s.0,
            window_s: s.1,
            straggler: s.2,
            policy: s.3,
            seed: s.4,
            jobs,
        })
}

fn to_toml(g: &Gen) -> String {
    let mut t = format!(
        "name = \"random-omo\"\nseed = {}\n[cluster]\nnodes = {}\nracks = {}\nmap_slots = {}\nreduce_slots = {}\nslot_model = \"{}\"\nheartbeat = \"{}ms\"\nout_of_band_heartbeat = {}\n",
        g.seed % 1_000_000,
        g.nodes,
        g.nodes.min(2),
        g.map_slots,
        g.reduce_slots,
        if g.unified { "unified" } else { "typed" },
        g.heartbeat_ms,
        g.oob,
    );
    t += &format!("[network]\nnic_mbps = {}\n", g.shuffle_mbps);
    t += &format!(
        "[hdfs]\nblock = \"64MB\"\nreplication = {}\n",
        g.nodes.min(3)
    );
    t += &format!(
        "[tasks]\nstraggler_prob = {}\nstraggler_slowdown = [1.5, 4.0]\n",
        g.straggler
    );
    t += &format!(
        "[scheduler]\npolicy = \"{}\"\n[scheduler.{}]\nwindow = \"{}s\"\n",
        g.policy, g.policy, g.window_s
    );
    for (i, (maps, reduces, fp, submit, mt)) in g.jobs.iter().enumerate() {
        t += &format!(
            "[[jobs]]\nname = \"j{i}\"\nprofile = \"terasort\"\nmaps = {maps}\nreduces = {reduces}\nsubmit = \"{submit}s\"\nfp = {}\n",
            FPS[*fp]
        );
        if *mt > 0 {
            t += &format!("map_time = \"{mt}s\"\n");
        }
    }
    t
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// Small clusters, few containers, slow shuffles and many reduces are
    /// where lazy start could let reduces hold every container.
    #[test]
    fn omo_keeps_the_invariants_on_random_clusters(g in gen()) {
        let text = to_toml(&g);
        let sc = load_text(&text, None);
        let mut sim = slotsim::runs::build_sim(&sc).unwrap();
        sim.run_until(Some(30 * 24 * 3_600_000));
        if let Err(e) = check(&sim) {
            return Err(TestCaseError::fail(format!("{e}\n--- scenario ---\n{text}")));
        }
        for r in rules(&sim) {
            prop_assert!(RULES.contains(&r), "rule {}", r);
        }
    }
}

/// One node, 4 unified containers, one job with 3 reduces and a slow
/// shuffle: lazy start fires with maps still pending, and Principle 1
/// then runs all 3 reduces at once although that is more than the
/// engine's ramp-up bound (half the containers) allows other policies.
/// One container stays for the maps, and the job finishes.
const RAMP: &str = r#"
name = "ramp"
[cluster]
nodes = 1
map_slots = 2
reduce_slots = 2
slot_model = "unified"
heartbeat = "manual"
out_of_band_heartbeat = true
[network]
model = "fixed"
shuffle_mbps = 10
[hdfs]
block = "128MB"
replication = 1
[scheduler]
policy = "omo"
slowstart = 0.0
[[jobs]]
name = "big"
profile = "terasort"
maps = 20
reduces = 3
map_time = "10s"
fp = 1.0
[[events]]
at = "0s"
action = "heartbeat"
node = 0
"#;

/// Most reduces of `job` running at once while it still had a map not yet
/// launched.
fn max_early_reduces(sim: &Sim) -> usize {
    let w = sim.view();
    let last_map_start = w
        .attempts()
        .iter()
        .filter(|a| a.kind == Kind::Map)
        .map(|a| a.start)
        .max()
        .unwrap();
    let mut best = 0;
    for a in w.attempts().iter().filter(|a| a.kind == Kind::Reduce) {
        let t = a.start;
        if t >= last_map_start {
            continue;
        }
        let n = w
            .attempts()
            .iter()
            .filter(|b| b.kind == Kind::Reduce && b.start <= t && b.end().is_none_or(|e| e > t))
            .count();
        best = best.max(n);
    }
    best
}

#[test]
fn lazy_start_is_not_cut_by_the_ramp_up_bound_and_keeps_a_container_for_maps() {
    let (sim, _) = run(&load_text(RAMP, Some("omo")));
    check(&sim).unwrap();
    let lazy: Vec<_> = sim
        .view()
        .attempts()
        .iter()
        .filter(|a| sim.view().rule(a) == "omo/lazy-start")
        .collect();
    assert_eq!(lazy.len(), 1);
    assert_eq!(
        max_early_reduces(&sim),
        3,
        "all three reduces before the last map launched"
    );
    // More than World::reduce_allowed lets other policies run early.
    assert!(3 > sim.view().cluster().total_slots() / 2);
}

/// Two containers, a job with 3 reduces: its reduce stage may start only
/// when no map is pending (3 reduces would hold every container).
#[test]
fn lazy_start_waits_when_reduces_would_hold_every_container() {
    let text = RAMP
        .replace(
            "map_slots = 2\nreduce_slots = 2",
            "map_slots = 1\nreduce_slots = 1",
        )
        .replace("maps = 20", "maps = 12");
    for p in OMO {
        let (sim, _) = run(&load_text(&text, Some(p)));
        check(&sim).unwrap_or_else(|e| panic!("{p}: {e}"));
        assert_eq!(max_early_reduces(&sim), 0, "{p}");
    }
}

// -------------------------------------------------------------- predictor

#[test]
fn predictor_formulas_match_hand_computed_numbers() {
    // OMO Table 4's terasort: 80 maps of 256 MB output, 2 reduces, 1 Gb/s.
    close(predictor::t_s(256.0, 80, 125.0, 2), 81.92, "T_s 20 GB");
    close(predictor::t_s(256.0, 40, 125.0, 1), 81.92, "T_s 10 GB");
    // F_o = 2.4/s over A_o = 80, r = 2, D = 8 jobs: 2.4·78/640.
    let fe = predictor::f_e_job(2.4, 80.0, 2, 8).unwrap();
    close(fe, 0.2925, "F_e(i)");
    close(predictor::x_star(81.92, 31.92, fe), 14.625, "x*");
    close(
        predictor::beta(81.92, 31.92, 14, fe).unwrap(),
        81.92 - (14.0 / 0.2925 + 31.92),
        "beta",
    );
    // Batch finish: K = 4, m' = 6, F_o = 2, T_m = 30, A_o = 40, r = 2.
    let tf = predictor::t_fair(4, 6, 2.0, 30.0).unwrap();
    close(tf, 42.0, "t_fair");
    let s = predictor::s_others(4, 6, 2.0, 30.0);
    close(s, 63.0, "s");
    close(
        predictor::t_batch(s, 40.0, 2.0, 2).unwrap(),
        30.0,
        "t_batch",
    );
    // Guards.
    close(
        predictor::f_e_job(2.4, 2.0, 2, 1).unwrap(),
        0.0,
        "A_o <= r_i",
    );
    close(predictor::f_e_job(0.0, 80.0, 2, 8).unwrap(), 0.0, "F_o = 0");
    assert_eq!(predictor::f_e_job(2.4, 0.0, 2, 8), None, "no A_o");
    assert_eq!(predictor::beta(81.92, 31.92, 3, 0.0), None, "F_e = 0");
    assert_eq!(predictor::t_fair(4, 6, 0.0, 30.0), None, "F_o = 0");
}

/// One node with 3 containers and 14 maps of 4 s (no reduces), every
/// container refilled the instant it frees. Releases: 3 at each of 4, 8,
/// 12, 16 s and 2 at 20 s. Window [0, 10): R = 6, f = 0.6/s, a = 3, so
/// F_o = 0.6, A_o = 3. Window [10, 20): R = 6, f = 0.6; 3 available until
/// 16 s and 2 after, a = (3·6 + 2·4)/10 = 2.6; forecast made at 10 s
/// F_o·3/A_o = 0.6, error 0; F_o = 0.6, A_o = (2.6 + 3)/2 = 2.8.
const WINDOWS: &str = r#"
name = "windows"
[cluster]
nodes = 1
map_slots = 2
reduce_slots = 1
slot_model = "unified"
heartbeat = "manual"
out_of_band_heartbeat = true
[hdfs]
replication = 1
[scheduler]
policy = "omo"
[[jobs]]
name = "a"
profile = "terasort"
maps = 14
reduces = 0
map_time = "4s"
fp = 0.0
[[events]]
at = "0s"
action = "heartbeat"
node = 0
"#;

#[test]
fn predictor_windows_match_hand_computed_numbers() {
    let (sim, recs) = run_inspect(&load_text(WINDOWS, None));
    let sum = slotsim::report::summarize(&sim);
    let p = sum.predictor;
    assert_eq!(p.windows.len(), 2);
    let (w0, w1) = (&p.windows[0], &p.windows[1]);
    assert_eq!((w0.start_s, w0.releases, w0.estimated), (0.0, 6, None));
    close(w0.observed, 0.6, "f_1");
    close(w0.available, 3.0, "a_1");
    close(w0.f_o, 0.6, "F_o(1)");
    close(w0.a_o, 3.0, "A_o(1)");
    assert_eq!((w1.start_s, w1.releases), (10.0, 6));
    close(w1.observed, 0.6, "f_2");
    close(w1.available, 2.6, "a_2");
    close(w1.estimated.unwrap(), 0.6, "forecast for window 2");
    close(w1.f_o, 0.6, "F_o(2)");
    close(w1.a_o, 2.8, "A_o(2)");
    close(p.mean_abs_error_pct.unwrap(), 0.0, "error");
    // The heartbeat at 16 s sees window 1's averages and 6 releases so far
    // in window 2, and T_m = 4 s; t_fair = K·m'/F_o + T_m with m' = 2.
    let r = recs.iter().find(|r| r.t == 16_000).unwrap();
    let c = &r.inspection.cluster;
    assert_eq!(c["F_o"], 0.6);
    assert_eq!(c["A_o"], 3.0);
    assert_eq!(c["D"], 1);
    assert_eq!(c["window_releases"], 6);
    assert_eq!(c["window_available"], 0);
    let j = &r.inspection.jobs["a"];
    assert_eq!(j["T_m"], 4.0);
    assert_eq!(j["pending_maps"], 2);
    close(j["t_fair"].as_f64().unwrap(), 2.0 / 0.6 + 4.0, "t_fair");
    assert_eq!(j["t_batch"], 0.0, "one job: nobody else to serve");
}

/// On the bundled terasort set every inspect line's per-job values follow
/// the formulas from its cluster values, and T_s is the hand-computed
/// 81.92 s (256 MB of output per map, 80 maps, 2 reduces, or 40 and 1).
#[test]
fn inspect_values_follow_the_formulas() {
    let (_, recs) = run_inspect(&load("omo-terasort-8.toml", None));
    let mut checked = 0;
    for r in &recs {
        let c = &r.inspection.cluster;
        let (Some(fo), Some(ao)) = (c["F_o"].as_f64(), c["A_o"].as_f64()) else {
            continue;
        };
        let d = c["D"].as_u64().unwrap() as u32;
        for v in r.inspection.jobs.values() {
            let pending = v["pending_maps"].as_u64().unwrap() as u32;
            let fe = v["F_e"].as_f64().unwrap();
            close(fe, fo * (ao - 2.0).max(0.0) / (ao * d as f64), "F_e(i)");
            let (Some(ts), Some(tm)) = (v["T_s"].as_f64(), v["T_m"].as_f64()) else {
                continue;
            };
            close(ts, 81.92, "T_s");
            close(v["x_star"].as_f64().unwrap(), (ts - tm) * fe, "x*");
            if fo > 0.0 {
                let tf = d as f64 * pending as f64 / fo + tm;
                close(v["t_fair"].as_f64().unwrap(), tf, "t_fair");
                let s = (d as f64 - 1.0) * pending as f64 + fo * (d as f64 - 1.0) * tm / d as f64;
                close(
                    v["t_batch"].as_f64().unwrap(),
                    s * ao / (fo * (ao + 2.0)),
                    "t_batch",
                );
            }
            checked += 1;
        }
    }
    assert!(checked > 1000, "checked {checked}");
}

// ----------------------------------------------------- rules and inspect

#[test]
fn rules_say_which_technique_made_each_assignment() {
    let count = |sim: &Sim, r: &str| rules(sim).iter().filter(|&&x| x == r).count();
    let (omo, _) = run(&load("omo-terasort-8.toml", Some("omo")));
    for r in RULES {
        assert!(count(&omo, r) > 0, "omo uses {r}");
    }
    // Lazy start fired with maps of the job still unlaunched.
    let w = omo.view();
    let early = w
        .attempts()
        .iter()
        .filter(|a| w.rule(a) == "omo/lazy-start")
        .any(|r| {
            w.attempts()
                .iter()
                .any(|m| m.job == r.job && m.kind == Kind::Map && m.start > r.start)
        });
    assert!(
        early,
        "omo starts some reduce stage before the last map launches"
    );
    // Every reduce is OMO's; batch finish only runs maps, fair only maps.
    for a in w.attempts() {
        match w.rule(a) {
            "omo/reduce-continue" | "omo/lazy-start" => assert_eq!(a.kind, Kind::Reduce),
            _ => assert_eq!(a.kind, Kind::Map),
        }
    }
    for p in ["omo-lazy", "omo-batch"] {
        let (sim, _) = run(&load("omo-terasort-8.toml", Some(p)));
        assert_eq!(count(&sim, "omo/batch-finish"), 0, "{p}");
    }
    // With lazy start off a reduce stage starts only once every map of
    // the job has been launched: batch finish then has no candidate.
    let (batch, _) = run(&load("omo-set-a.toml", Some("omo-batch")));
    let w = batch.view();
    for r in w
        .attempts()
        .iter()
        .filter(|a| w.rule(a) == "omo/lazy-start")
    {
        assert!(w
            .attempts()
            .iter()
            .filter(|m| m.job == r.job && m.kind == Kind::Map)
            .all(|m| m.start <= r.start));
    }
}

#[test]
fn inspect_has_exactly_the_issue_keys() {
    for p in OMO {
        let (_, recs) = run_inspect(&load("omo-set-a.toml", Some(p)));
        assert!(!recs.is_empty());
        for r in &recs {
            let ck: BTreeSet<&str> = r
                .inspection
                .cluster
                .as_object()
                .unwrap()
                .keys()
                .map(|k| k.as_str())
                .collect();
            assert_eq!(ck, CLUSTER_KEYS.into_iter().collect(), "{p} cluster");
            assert!(r.inspection.pools.is_empty());
            for v in r.inspection.jobs.values() {
                let jk: BTreeSet<&str> =
                    v.as_object().unwrap().keys().map(|k| k.as_str()).collect();
                assert_eq!(jk, JOB_KEYS.into_iter().collect(), "{p} job");
            }
            assert_eq!(r.assigned.len(), r.rules.len());
        }
    }
}

// ------------------------------------------------------------ JSON metrics

#[test]
fn summary_has_phases_last_batch_and_the_predictor() {
    let (_, sum) = run(&load("omo-terasort-8.toml", Some("omo")));
    let v = serde_json::to_value(&sum).unwrap();
    let p = &v["predictor"];
    assert!(!p["windows"].as_array().unwrap().is_empty());
    assert!(p["mean_abs_error_pct"].as_f64().is_some());
    for j in v["jobs"].as_array().unwrap() {
        for k in ["map_only_s", "overlap_s", "shuffle_only_s"] {
            assert!(j[k].as_f64().unwrap() >= 0.0, "{k}: {j}");
        }
        let lb = j["last_batch"].as_u64().unwrap();
        assert!((1..=80).contains(&lb));
    }
    // The three spans partition first map start .. last shuffle end.
    let (sim, sum) = run(&load("omo-set-a.toml", Some("fair[slowstart=0.6]")));
    for (job, js) in sim.view().jobs().iter().zip(&sum.jobs) {
        let m0 = sim
            .view()
            .attempts()
            .iter()
            .filter(|a| a.job == job.id && a.kind == Kind::Map)
            .map(|a| a.start)
            .min()
            .unwrap();
        let total = js.map_only_s.unwrap() + js.overlap_s.unwrap() + js.shuffle_only_s.unwrap();
        close(
            total,
            js.shuffle_end_s.unwrap() - m0 as f64 / 1000.0,
            "spans",
        );
    }
    // Under Fair the key holds the passive monitor's windows.
    let v = serde_json::to_value(&sum).unwrap();
    assert!(v["predictor"]["windows"].as_array().unwrap().len() > 10);
}

/// `typed_slots = true` gives fair the paper's 2 map + 2 reduce slots on a
/// unified cluster: the same run as on a typed cluster.
#[test]
fn fair_typed_slots_on_a_unified_cluster_is_fair_on_typed_slots() {
    let text = std::fs::read_to_string(scenario_path("omo-set-a.toml")).unwrap();
    let typed = text.replace("slot_model = \"unified\"", "slot_model = \"typed\"");
    let spec = "fair[slowstart=0.2]";
    let (a, _) = run(&load_text(&text, Some(spec)));
    let (b, _) = run(&load_text(&typed, Some(spec)));
    check(&a).unwrap();
    let key = |s: &Sim| {
        s.view()
            .attempts()
            .iter()
            .map(|x| (x.job, x.kind, x.task, x.node, x.start, x.end()))
            .collect::<Vec<_>>()
    };
    assert_eq!(key(&a), key(&b));
    // Without the key fair uses the containers dynamically.
    let (c, _) = run(&load_text(
        &text,
        Some("fair[slowstart=0.2;typed_slots=false]"),
    ));
    assert_ne!(key(&a), key(&c));
}

// -------------------------------------------------- the paper's headlines

/// The TUI's policy picker and scripted switches: OMO adopts a run in
/// progress (jobs already running reduces have started their reduce
/// stage) and hands one over, and the invariants hold throughout.
#[test]
fn switching_to_and_from_omo_mid_run_keeps_the_invariants() {
    let text = std::fs::read_to_string(scenario_path("omo-set-a.toml")).unwrap();
    for (first, then) in [
        ("fair[slowstart=0.05;typed_slots=false]", "omo"),
        ("fresh", "omo-lazy"),
        ("omo", "fresh"),
        ("omo-batch", "fair"),
    ] {
        let t = format!(
            "{text}\n[[events]]\nat = \"150s\"\naction = \"switch_policy\"\npolicy = \"{then}\"\n"
        );
        let (sim, sum) = run(&load_text(&t, Some(first)));
        check(&sim).unwrap_or_else(|e| panic!("{first} -> {then}: {e}"));
        assert_eq!(sum.policy_switches.len(), 1);
        // OMO reports the predictor it started when it took over; any
        // other policy the passive monitor, which has run since the first
        // job could run (its set-up task done).
        let first_window = sum.predictor.windows[0].start_s;
        if then.starts_with("omo") {
            assert!(first_window >= 150.0, "{first} -> {then}: {first_window}");
        } else {
            let first_job = sim
                .view()
                .job_tasks()
                .iter()
                .filter_map(|t| t.end)
                .min()
                .unwrap();
            assert_eq!(first_window * 1000.0, first_job as f64, "{first} -> {then}");
        }
    }
}

/// With speculative execution a task's winning attempt kills its other
/// copies, which release containers without a hook of their own: the
/// predictor still counts every ended attempt once.
#[test]
fn speculation_under_omo_keeps_the_invariants_and_counts_every_release() {
    let text = std::fs::read_to_string(scenario_path("stragglers.toml"))
        .unwrap()
        .replace(
            "heartbeat = \"3s\"",
            "heartbeat = \"3s\"\nslot_model = \"unified\"",
        );
    for mode in ["hadoop", "late"] {
        let t = text.replace(
            "speculation = \"off\"",
            &format!("speculation = \"{mode}\""),
        );
        for p in OMO {
            let (sim, sum) = run(&load_text(&t, Some(p)));
            check(&sim).unwrap_or_else(|e| panic!("{mode} {p}: {e}"));
            assert!(sum.speculative.launched > 0, "{mode} {p}");
            assert_counts_every_release(&sim, &sum.predictor, &format!("{mode} {p}"));
        }
    }
}

/// The closed windows' releases are exactly the attempts that ended before
/// the open window (each ended attempt freed one container).
fn assert_counts_every_release(sim: &Sim, pred: &PredictorReport, what: &str) {
    let counted: u32 = pred.windows.iter().map(|w| w.releases).sum();
    let last = pred.windows.last().unwrap();
    let open_from = ((last.start_s + 10.0) * 1000.0) as u64;
    let ended_before = sim
        .view()
        .attempts()
        .iter()
        .filter(|a| a.end().is_some_and(|e| e < open_from))
        .count() as u32;
    assert_eq!(counted, ended_before, "{what}");
}

/// The engine runs OMO's monitor passively under every policy (the paper
/// measures its predictor under Fair, Fig. 7). Fed after every event, it
/// must agree with the one OMO keeps through its own hooks, and under Fair
/// it must count every container release once.
#[test]
fn the_passive_monitor_matches_omos_own_and_counts_every_release_under_fair() {
    for name in ["omo-set-a.toml", "omo-terasort-8.toml"] {
        let (sim, sum) = run(&load(name, Some("omo")));
        let passive = slotsim::sched::omo::observer_windows(sim.observers()[0].as_ref()).unwrap();
        assert_eq!(passive, &sum.predictor.windows[..], "{name}");
        for p in ["fair", "fresh", "fifo"] {
            let (sim, sum) = run(&load(name, Some(p)));
            let pred = &sum.predictor;
            assert!(pred.windows.len() > 10, "{name} {p}");
            assert!(pred.mean_abs_error_pct.is_some(), "{name} {p}");
            assert_counts_every_release(&sim, pred, &format!("{name} {p}"));
        }
    }
}

//! Mutational fuzzing of every input slotsim parses: the scenario loader
//! (with a short run of what it accepts), the policy-spec parser, the sweep
//! plan and the SWIM reader. Each target starts from real inputs (the
//! bundled scenarios, specs, a plan, trace lines), mutates them with a
//! seeded generator (byte flips, deletions, duplications, splices of
//! other inputs' pieces, numbers made huge, negative or fractional) and
//! requires no panic: bad input must come back as an error.
//!
//! CI runs a few hundred cases per target. The long runs are a command:
//!
//!   SLOTSIM_FUZZ_CASES=1000000 cargo test --release --test it fuzz::
//!
//! A failing case prints the target, the case number and the input; add
//! it to the regression inputs below.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;

fn cases() -> u64 {
    std::env::var("SLOTSIM_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(300)
}

const NUMBERS: &[&str] = &[
    "0",
    "-1",
    "1e308",
    "-0",
    "NaN",
    "inf",
    "18446744073709551616",
    "4294967296",
    "0.0000001",
    "999999999999",
    "\"\"",
    "\"0s\"",
    "\"1e9h\"",
    "\"-5s\"",
    "\"99999999TB\"",
    "[]",
    "{}",
];

/// One mutation of `text`, drawing pieces from `corpus`.
fn mutate(rng: &mut ChaCha8Rng, text: &str, corpus: &[String]) -> String {
    let mut b: Vec<u8> = text.as_bytes().to_vec();
    for _ in 0..rng.random_range(1..4) {
        if b.is_empty() {
            b.extend_from_slice(b"x");
        }
        let i = rng.random_range(0..b.len());
        match rng.random_range(0..7) {
            0 => b[i] = rng.random(),
            1 => {
                let j = (i + rng.random_range(1..40)).min(b.len());
                b.drain(i..j);
            }
            2 => {
                let j = (i + rng.random_range(1..80)).min(b.len());
                let piece = b[i..j].to_vec();
                let k = rng.random_range(0..=b.len());
                b.splice(k..k, piece);
            }
            3 => {
                let other = &corpus[rng.random_range(0..corpus.len())];
                let lines: Vec<&str> = other.lines().collect();
                if !lines.is_empty() {
                    let l = lines[rng.random_range(0..lines.len())];
                    let k = rng.random_range(0..=b.len());
                    let mut piece = l.as_bytes().to_vec();
                    piece.push(b'\n');
                    b.splice(k..k, piece);
                }
            }
            _ => {
                // A number or string value replaced by an extreme one.
                let s = String::from_utf8_lossy(&b).into_owned();
                let starts: Vec<usize> = s
                    .char_indices()
                    .filter(|(k, c)| {
                        c.is_ascii_digit()
                            && (*k == 0 || !s.as_bytes()[k - 1].is_ascii_alphanumeric())
                    })
                    .map(|(k, _)| k)
                    .collect();
                if let Some(&k) = starts.get(rng.random_range(0..starts.len().max(1))) {
                    let end = s[k..]
                        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '.'))
                        .map_or(s.len(), |e| k + e);
                    let v = NUMBERS[rng.random_range(0..NUMBERS.len())];
                    b = format!("{}{}{}", &s[..k], v, &s[end..]).into_bytes();
                }
            }
        }
    }
    String::from_utf8_lossy(&b).into_owned()
}

/// Runs `f` on `cases()` mutations of the corpus (`f` says whether the
/// input was accepted); panics name the input. Prints how many cases were
/// accepted (`--nocapture` shows it): a target whose mutants are all
/// rejected tests only the first error path.
fn fuzz(target: &str, seed: u64, corpus: &[String], f: impl Fn(&str) -> bool) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut accepted = 0u64;
    for case in 0..cases() {
        let base = &corpus[rng.random_range(0..corpus.len())];
        let input = mutate(&mut rng, base, corpus);
        let r = catch_unwind(AssertUnwindSafe(|| f(&input)));
        match r {
            Ok(ok) => accepted += u64::from(ok),
            Err(_) => panic!("{target}: case {case} panicked on this input:\n{input}"),
        }
    }
    eprintln!("{target}: {} cases, {accepted} accepted, 0 panics", cases());
}

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn scenarios() -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(root().join("scenarios"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .filter(|p| {
            // The big ones take seconds to load and run: not per case.
            let n = p.file_name().unwrap().to_string_lossy().to_string();
            !n.starts_with("scale") && !n.starts_with("swim")
        })
        .map(|p| std::fs::read_to_string(p).unwrap())
        .collect();
    v.sort();
    v
}

#[test]
fn scenario_loader_and_a_short_run() {
    let corpus = scenarios();
    fuzz("scenario", 1, &corpus, |text| {
        let Ok(sc) = slotsim::scenario::load_str(text, "fuzz.toml", None, None) else {
            return false;
        };
        // Runs stay small: at most 2 s of simulated time, a few thousand
        // events.
        if let Ok(mut sim) = slotsim::runs::build_sim(&sc) {
            let mut n = 0;
            while n < 2_000 && sim.view().now() < 2_000 {
                if sim.step().is_none() {
                    break;
                }
                n += 1;
            }
        }
        true
    });
}

#[test]
fn policy_specs() {
    let corpus: Vec<String> = [
        "fair",
        "fair[slowstart=0.5]",
        "fair[node_locality_delay=0s;rack_locality_delay=0s]",
        "omo[window=\"10s\";ema=0.5]",
        "dhsa-pd[borrow_map_pct=1;borrow_reduce_pct=0]",
        "hybsmrp[alpha=0;beta=-1]",
        "fifo,fair,'fair[slowstart=1]',capacity",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let sc = slotsim::scenario::load_default(None, None).unwrap();
    fuzz("policy spec", 2, &corpus, |s| {
        let mut built = false;
        for part in slotsim::model::spec::split_policy_list(s) {
            if let Ok(spec) = part.parse::<slotsim::model::PolicySpec>() {
                let ctx = slotsim::sim::policy::BuildCtx {
                    heartbeat: sc.cluster.heartbeat,
                    capacity: sc.cluster.capacity(),
                };
                built |= slotsim::sched::registry::build(&spec, &sc.scheduler, &ctx).is_ok();
            }
        }
        built
    });
}

#[test]
fn sweep_plans() {
    let corpus = vec![
        std::fs::read_to_string(root().join("sweeps/quickstart-noise.toml")).unwrap(),
        "scenarios = [\"../scenarios/fig45-fifo-vs-fair.toml\"]\npolicies = [\"fifo\", \"fair[slowstart=1]\"]\nseeds = [3, 7]\n[overrides]\n\"network.nic_mbps\" = [62.5, 125]\n\"cluster.heartbeat\" = [\"3s\", \"auto\"]\n".to_string(),
    ];
    let dir = root().join("sweeps");
    fuzz("sweep plan", 3, &corpus, |text| {
        slotsim::sweep::plan::parse(text, "fuzz-plan.toml", &dir).is_ok()
    });
}

#[test]
fn swim_traces() {
    let text =
        std::fs::read_to_string(root().join("traces/FB-2009_samples_24_times_1hr_0.tsv")).unwrap();
    let head: String = text.lines().take(40).collect::<Vec<_>>().join("\n");
    let corpus = vec![head];
    let params = slotsim::scenario::workload::SwimParams {
        index: 0,
        limit: Some(50),
        time_scale: 1.0,
        mix: vec![(
            slotsim::scenario::profiles::lookup("wordcount").unwrap(),
            1.0,
        )],
        pools: vec!["default".into()],
        block_mb: 128.0,
    };
    fuzz("swim", 4, &corpus, |t| {
        slotsim::scenario::workload::swim(1, t, &params).is_ok()
    });
}

#[test]
fn rumen_traces() {
    // The first job of Hadoop SLS's sample, shortened to a dozen maps, and
    // a small job with reduces and preferred locations.
    let text = std::fs::read_to_string(root().join("traces/sls-2jobs2min-rumen.json")).unwrap();
    let mut job: serde_json::Value = serde_json::Deserializer::from_str(&text)
        .into_iter::<serde_json::Value>()
        .next()
        .unwrap()
        .unwrap();
    job["mapTasks"].as_array_mut().unwrap().truncate(12);
    job.as_object_mut().unwrap().remove("jobProperties");
    let small = r#"{ "jobID": "job_1_0001", "jobName": "sort", "user": "u", "queue": "default",
  "submitTime": 1000, "launchTime": 1500, "finishTime": 9000,
  "mapTasks": [ { "inputBytes": 67108864, "outputBytes": 1048576,
    "preferredLocations": [ { "layers": [ "r1", "h1" ] }, { "layers": [ "r1", "h2" ] } ],
    "attempts": [ { "hostName": "/r1/h3", "startTime": 2000, "finishTime": 3000, "result": "FAILED" },
                  { "hostName": "/r1/h1", "startTime": 3000, "finishTime": 5000, "result": "SUCCESS" } ] } ],
  "reduceTasks": [ { "attempts": [ { "hostName": "/r1/h2", "startTime": 5000, "shuffleFinished": 6000,
    "finishTime": 8000, "result": "SUCCESS" } ] } ] }"#;
    let corpus = vec![
        serde_json::to_string_pretty(&job).unwrap(),
        small.to_string(),
        format!("{small}\n{small}"),
    ];
    let params = |replay| slotsim::scenario::rumen::RumenParams {
        replay,
        limit: Some(20),
        time_scale: 1.0,
        profile: slotsim::scenario::profiles::lookup("terasort").unwrap(),
        pools: vec!["default".into()],
        node_count: 8,
        hosts: None,
    };
    let (rec, model) = (
        params(slotsim::scenario::rumen::Replay::Recorded),
        params(slotsim::scenario::rumen::Replay::Model),
    );
    fuzz("rumen", 5, &corpus, |t| {
        let a = slotsim::scenario::rumen::read(t.as_bytes(), &rec).is_ok();
        let b = slotsim::scenario::rumen::read(t.as_bytes(), &model).is_ok();
        // The survey of a trace without a cluster reads the same jobs.
        let c = slotsim::scenario::rumen::survey(t.as_bytes(), Some(20)).is_ok();
        a && b && c
    });
}

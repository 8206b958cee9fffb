//! End-to-end tests of the `slotsim` binary: the command line, output
//! formats and exit codes that docs/cli.md and docs/outputs.md fix as contracts. Every test runs
//! the real executable (`CARGO_BIN_EXE_slotsim`) and reads only what a user
//! or a script would see: exit status, stdout, stderr and written files.

use serde_json::{Map, Value};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const FIG45: &str = "scenarios/fig45-fifo-vs-fair.toml";
const QUICKSTART: &str = "scenarios/quickstart.toml";
const SMALL_JOBS: &str = "scenarios/hadoop-small-jobs.toml";

/// docs/outputs.md: keys every `--json` summary has.
const SUMMARY_KEYS: &[&str] = &[
    "scenario",
    "policy",
    "seed",
    "makespan_s",
    "mean_turnaround_s",
    "locality",
    "reduce_locality",
    "inter_dc_gb",
    "utilization",
    "unbalanced_degree",
    "unfairness_degree",
    "speculative",
    "policy_switches",
    "jobs",
];
const LOCALITY_KEYS: &[&str] = &["node", "rack", "off_rack", "off_dc"];
const SPECULATIVE_KEYS: &[&str] = &["launched", "won"];
const JOB_KEYS: &[&str] = &[
    "name",
    "pool",
    "submit_s",
    "finish_s",
    "turnaround_s",
    "maps",
    "reduces",
    "map_end_s",
    "shuffle_end_s",
];
/// docs/outputs.md: keys of every `--trace` line.
const TRACE_KEYS: &[&str] = &[
    "job",
    "task",
    "kind",
    "attempt",
    "node",
    "rack",
    "dc",
    "start_s",
    "end_s",
    "locality",
    "speculative",
    "outcome",
    "policy",
    "rule",
];
/// docs/outputs.md: keys of every `--inspect` line.
const INSPECT_KEYS: &[&str] = &[
    "t_s", "node", "policy", "cluster", "pools", "jobs", "assigned",
];
/// docs/outputs.md: the fair policy's per-job and per-pool inspect values.
const FAIR_KEYS: &[&str] = &[
    "fair_share_map",
    "fair_share_reduce",
    "demand_map",
    "demand_reduce",
    "running_map",
    "running_reduce",
    "weight",
    "locality_level",
    "waited_s",
];
const POLICIES: &[&str] = &["fifo", "fair", "fresh", "capacity"];
const PROFILES: &[&str] = &[
    "terasort",
    "wordcount",
    "grep",
    "sequencecount",
    "invertedindex",
    "histogrammovies",
    "histogramratings",
    "classification",
    "selfjoin",
    "permu",
    "kmeans",
];

// ---------------------------------------------------------------- helpers

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The binary, with backtraces on so that any panic is loud in stderr.
fn cmd(dir: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_slotsim"));
    c.current_dir(dir).env("RUST_BACKTRACE", "1");
    c
}

/// Runs slotsim from the crate root, so `scenarios/...` paths work as in the README.
fn slotsim(args: &[&str]) -> Output {
    slotsim_in(root(), args)
}

fn slotsim_in(dir: &Path, args: &[&str]) -> Output {
    cmd(dir)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("cannot start slotsim {args:?}: {e}"))
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).expect("stdout is UTF-8")
}

fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).expect("stderr is UTF-8")
}

/// Asserts exit status 0 and returns (stdout, stderr).
#[track_caller]
fn ok(o: &Output) -> (String, String) {
    let (out, err) = (stdout(o), stderr(o));
    assert_eq!(
        o.status.code(),
        Some(0),
        "expected success\n--- stdout\n{out}\n--- stderr\n{err}"
    );
    assert_no_panic(&err);
    (out, err)
}

#[track_caller]
fn assert_no_panic(err: &str) {
    for bad in ["panicked", "stack backtrace", "RUST_BACKTRACE"] {
        assert!(!err.contains(bad), "stderr shows a panic ({bad}):\n{err}");
    }
}

/// Asserts the bad-input contract (docs/cli.md): exit status 2, nothing on stdout,
/// exactly one stderr line starting with `prefix`, no panic. Returns the line.
#[track_caller]
fn assert_input_error(o: &Output, prefix: &str) -> String {
    let err = stderr(o);
    assert_eq!(o.status.code(), Some(2), "exit status; stderr:\n{err}");
    assert_no_panic(&err);
    assert!(
        o.stdout.is_empty(),
        "nothing on stdout expected, got:\n{}",
        stdout(o)
    );
    assert!(err.ends_with('\n'), "stderr ends with a newline: {err:?}");
    assert_eq!(err.lines().count(), 1, "exactly one stderr line: {err:?}");
    assert!(
        err.starts_with(prefix),
        "stderr should start with {prefix:?}, got {err:?}"
    );
    err.trim_end().to_string()
}

/// Parses `error: FILE:LINE:COL: message` and returns (line, col, message).
#[track_caller]
fn file_error_position(line: &str, file: &str) -> (usize, usize, String) {
    let rest = line
        .strip_prefix(&format!("error: {file}:"))
        .unwrap_or_else(|| panic!("expected `error: {file}:LINE:COL: ...`, got {line:?}"));
    let mut parts = rest.splitn(3, ':');
    let l = parts.next().and_then(|s| s.parse().ok());
    let c = parts.next().and_then(|s| s.parse().ok());
    let msg = parts.next().unwrap_or("");
    match (l, c) {
        (Some(l), Some(c)) if msg.starts_with(' ') && msg.len() > 1 => {
            (l, c, msg.trim().to_string())
        }
        _ => panic!("expected `error: {file}:LINE:COL: message`, got {line:?}"),
    }
}

#[track_caller]
fn parse_json(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("not JSON ({e}):\n{text}"))
}

#[track_caller]
fn parse_lines(text: &str) -> Vec<Value> {
    text.lines().map(parse_json).collect()
}

#[track_caller]
fn obj<'a>(v: &'a Value, what: &str) -> &'a Map<String, Value> {
    v.as_object()
        .unwrap_or_else(|| panic!("{what} should be an object, got {v}"))
}

#[track_caller]
fn assert_keys(v: &Value, keys: &[&str], what: &str) {
    let o = obj(v, what);
    for k in keys {
        assert!(o.contains_key(*k), "{what} lacks key {k:?}: {v}");
    }
}

fn f64_of(v: &Value, key: &str) -> Option<f64> {
    v[key].as_f64()
}

/// A scratch directory, removed when dropped.
fn tempdir() -> tempfile::TempDir {
    tempfile::tempdir().expect("temp dir")
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, bytes).expect("write temp file");
    p
}

fn run_json(args: &[&str]) -> Value {
    let mut a = vec!["run"];
    a.extend_from_slice(args);
    a.extend_from_slice(&["--headless", "--json", "-"]);
    let (out, _) = ok(&slotsim(&a));
    parse_json(&out)
}

fn job<'a>(summary: &'a Value, name: &str) -> &'a Value {
    summary["jobs"]
        .as_array()
        .expect("jobs array")
        .iter()
        .find(|j| j["name"] == name)
        .unwrap_or_else(|| panic!("no job {name} in {summary}"))
}

// ------------------------------------------------------------ run --json

#[test]
fn run_json_to_stdout_has_every_design_key_and_fifo_makespan_80() {
    let o = slotsim(&["run", FIG45, "--headless", "--json", "-"]);
    let (out, err) = ok(&o);
    // stdout is exactly one JSON document: the table went to stderr.
    let s = parse_json(&out);
    assert_keys(&s, SUMMARY_KEYS, "summary");
    assert_keys(&s["locality"], LOCALITY_KEYS, "locality");
    assert_keys(&s["speculative"], SPECULATIVE_KEYS, "speculative");
    assert!(s["policy_switches"].is_array(), "policy_switches: {s}");
    assert_eq!(s["scenario"], "fig45-fifo-vs-fair");
    assert_eq!(s["policy"], "fifo");
    assert_eq!(s["seed"], 1);
    assert_eq!(f64_of(&s, "makespan_s"), Some(80.0));
    assert_eq!(f64_of(&s, "mean_turnaround_s"), Some(60.0));
    let jobs = s["jobs"].as_array().expect("jobs array");
    assert_eq!(jobs.len(), 3);
    for j in jobs {
        assert_keys(j, JOB_KEYS, "job");
        assert_eq!(j["maps"], 3);
        assert_eq!(j["reduces"], 3);
    }
    // FIFO: job k maps end at 20k s, the job at 20(k+1) s.
    for (k, name) in ["job1", "job2", "job3"].iter().enumerate() {
        let j = job(&s, name);
        assert_eq!(j["pool"], format!("p{}", k + 1));
        assert_eq!(f64_of(j, "submit_s"), Some(0.0));
        assert_eq!(f64_of(j, "map_end_s"), Some(20.0 * (k + 1) as f64));
        assert_eq!(f64_of(j, "finish_s"), Some(20.0 * (k + 2) as f64));
        assert_eq!(f64_of(j, "turnaround_s"), Some(20.0 * (k + 2) as f64));
    }
    // Every locality rate is a fraction and they add up to one.
    let sum: f64 = LOCALITY_KEYS
        .iter()
        .map(|k| s["locality"][*k].as_f64().expect("locality rate"))
        .sum();
    assert!((sum - 1.0).abs() < 1e-9, "locality rates sum to {sum}");
    // The human table is on stderr.
    assert!(
        err.contains("fig45-fifo-vs-fair") && err.contains("makespan 80.0 s"),
        "summary table expected on stderr, got:\n{err}"
    );
}

#[test]
fn run_json_with_policy_fair_gives_120() {
    let s = run_json(&[FIG45, "--policy", "fair"]);
    assert_eq!(s["policy"], "fair");
    assert_eq!(f64_of(&s, "makespan_s"), Some(120.0));
    for name in ["job1", "job2", "job3"] {
        assert_eq!(f64_of(job(&s, name), "map_end_s"), Some(60.0), "{name}");
    }
}

#[test]
fn run_json_to_a_file_keeps_the_table_on_stdout() {
    let dir = tempdir();
    let path = dir.path().join("sum.json");
    let o = slotsim(&["run", FIG45, "--headless", "--json", path.to_str().unwrap()]);
    let (out, _) = ok(&o);
    assert!(
        out.contains("makespan 80.0 s"),
        "table expected on stdout:\n{out}"
    );
    assert!(
        serde_json::from_str::<Value>(&out).is_err(),
        "stdout should be the table, not JSON"
    );
    let s = parse_json(&std::fs::read_to_string(&path).expect("json file written"));
    assert_eq!(f64_of(&s, "makespan_s"), Some(80.0));
}

#[test]
fn run_policy_variant_is_applied_and_labels_the_run() {
    let s = run_json(&[FIG45, "--policy", "fair[slowstart=1]"]);
    assert_eq!(s["policy"], "fair[slowstart=1]");
    assert_eq!(f64_of(&s, "makespan_s"), Some(120.0));
}

// ----------------------------------------------------------------- --trace

#[test]
fn trace_has_every_design_key_and_one_line_per_attempt() {
    let dir = tempdir();
    let trace = dir.path().join("t.jsonl");
    let json = dir.path().join("s.json");
    ok(&slotsim(&[
        "run",
        FIG45,
        "--headless",
        "--trace",
        trace.to_str().unwrap(),
        "--json",
        json.to_str().unwrap(),
    ]));
    let text = std::fs::read_to_string(&trace).expect("trace written");
    assert!(text.ends_with('\n'), "JSON Lines end with a newline");
    let lines = parse_lines(&text);
    // 3 jobs × (3 maps + 3 reduces), nothing fails or is speculated.
    assert_eq!(lines.len(), 18, "one line per attempt:\n{text}");
    let summary = parse_json(&std::fs::read_to_string(&json).unwrap());
    let mut seen = BTreeSet::new();
    for l in &lines {
        assert_keys(l, TRACE_KEYS, "trace line");
        let (jname, task, kind) = (
            l["job"].as_str().unwrap(),
            l["task"].as_str().unwrap(),
            l["kind"].as_str().unwrap(),
        );
        assert!(
            seen.insert((
                jname.to_string(),
                task.to_string(),
                l["attempt"].as_u64().expect("attempt number")
            )),
            "attempt listed twice: {l}"
        );
        match kind {
            "map" => {
                assert!(task.starts_with('m'), "{l}");
                let loc = l["locality"].as_str().expect("maps have a locality");
                assert!(LOCALITY_KEYS.contains(&loc), "{l}");
            }
            "reduce" => {
                assert!(task.starts_with('r'), "{l}");
                assert!(l["locality"].is_null(), "reduces have locality null: {l}");
            }
            other => panic!("kind {other:?} in {l}"),
        }
        assert_eq!(l["outcome"], "succeeded", "{l}");
        assert_eq!(l["speculative"], false, "{l}");
        assert_eq!(l["policy"], "fifo", "{l}");
        assert!(
            !l["rule"].as_str().expect("rule is a string").is_empty(),
            "{l}"
        );
        assert!(l["node"].as_u64().unwrap() < 3, "{l}");
        assert!(l["dc"].is_string(), "{l}");
        let (start, end) = (l["start_s"].as_f64().unwrap(), l["end_s"].as_f64().unwrap());
        assert_eq!(end - start, 20.0, "every task takes 20 s: {l}");
        // The job's last reduce ends when the summary says the job finished.
        if kind == "reduce" {
            let fin = f64_of(job(&summary, jname), "finish_s").unwrap();
            assert!(end <= fin, "{l} ends after its job ({fin})");
        }
    }
    for j in ["job1", "job2", "job3"] {
        for t in ["m0", "m1", "m2", "r0", "r1", "r2"] {
            assert!(
                seen.iter().any(|(a, b, _)| a == j && b == t),
                "no attempt of {j}/{t}"
            );
        }
    }
}

#[test]
fn trace_to_stdout_sends_the_table_to_stderr() {
    let o = slotsim(&["run", FIG45, "--headless", "--trace", "-"]);
    let (out, err) = ok(&o);
    assert_eq!(parse_lines(&out).len(), 18);
    assert!(err.contains("makespan 80.0 s"), "{err}");
}

// --------------------------------------------------------------- --inspect

#[test]
fn inspect_replays_hadoop_test_small_jobs() {
    let dir = tempdir();
    let path = dir.path().join("insp.jsonl");
    ok(&slotsim(&[
        "run",
        SMALL_JOBS,
        "--headless",
        "--inspect",
        path.to_str().unwrap(),
    ]));
    let text = std::fs::read_to_string(&path).expect("inspect written");
    let lines = parse_lines(&text);
    assert_eq!(lines.len(), 7, "one line per heartbeat:\n{text}");
    for (i, l) in lines.iter().enumerate() {
        assert_keys(l, INSPECT_KEYS, "inspect line");
        assert_eq!(l["policy"], "fair");
        assert!(l["cluster"].is_object(), "{l}");
        // Heartbeats at 1..7 s, tt1 (node 0) four times then tt2 three times.
        assert_eq!(l["t_s"].as_f64(), Some((i + 1) as f64), "{l}");
        assert_eq!(l["node"], if i < 4 { 0 } else { 1 }, "{l}");
        let pools = obj(&l["pools"], "pools");
        assert!(pools.contains_key("default"), "{l}");
        for (name, v) in pools {
            assert_keys(v, FAIR_KEYS, &format!("pool {name}"));
        }
        let jobs = obj(&l["jobs"], "jobs");
        assert!(jobs.contains_key("J1") && jobs.contains_key("J2"), "{l}");
        for (name, v) in jobs {
            assert_keys(v, FAIR_KEYS, &format!("job {name}"));
        }
    }
    let assigned: Vec<Vec<String>> = lines
        .iter()
        .map(|l| {
            l["assigned"]
                .as_array()
                .expect("assigned is an array")
                .iter()
                .map(|t| t.as_str().expect("job/task string").to_string())
                .collect()
        })
        .collect();
    let want: Vec<Vec<&str>> = vec![
        vec!["J1/m0"],
        vec!["J1/r0"],
        vec!["J2/m0"],
        vec!["J2/r0"],
        vec!["J1/m1"],
        vec!["J2/r1"],
        vec![],
    ];
    assert_eq!(assigned, want);
    // Values are computed before the heartbeat's assignments: TestFairScheduler's
    // shares, J1 2 maps / 1 reduce and J2 1 map / 2 reduces, nothing running yet.
    let first = &lines[0]["jobs"];
    let num = |j: &str, k: &str| first[j][k].as_f64().unwrap_or(f64::NAN);
    assert_eq!(num("J1", "fair_share_map"), 2.0);
    assert_eq!(num("J1", "fair_share_reduce"), 1.0);
    assert_eq!(num("J2", "fair_share_map"), 1.0);
    assert_eq!(num("J2", "fair_share_reduce"), 2.0);
    assert_eq!(num("J1", "running_map"), 0.0);
    assert_eq!(num("J2", "demand_reduce"), 2.0);
    // The second heartbeat sees the map launched by the first.
    assert_eq!(lines[1]["jobs"]["J1"]["running_map"].as_f64(), Some(1.0));
}

// ----------------------------------------------------------------- --until

#[test]
fn until_stops_early_and_reports_unfinished_jobs_as_null() {
    let s = run_json(&[FIG45, "--until", "30s"]);
    assert!(s["makespan_s"].is_null(), "makespan null: {s}");
    assert!(s["mean_turnaround_s"].is_null(), "no job finished: {s}");
    for name in ["job1", "job2", "job3"] {
        let j = job(&s, name);
        assert!(j["finish_s"].is_null(), "{j}");
        assert!(j["turnaround_s"].is_null(), "{j}");
    }
    // job1's maps ended at 20 s; job3 has not run a map yet.
    assert_eq!(f64_of(job(&s, "job1"), "map_end_s"), Some(20.0));
    assert!(job(&s, "job3")["map_end_s"].is_null());

    // At 50 s job1 (done at 40 s) has finished and the others have not.
    let s = run_json(&[FIG45, "--until", "50s"]);
    assert!(s["makespan_s"].is_null(), "{s}");
    assert_eq!(f64_of(job(&s, "job1"), "finish_s"), Some(40.0));
    assert_eq!(f64_of(&s, "mean_turnaround_s"), Some(40.0));
    assert!(job(&s, "job2")["finish_s"].is_null());
    assert!(job(&s, "job3")["finish_s"].is_null());
}

#[test]
fn until_leaves_running_attempts_in_the_trace_with_null_end() {
    let (out, _) = ok(&slotsim(&[
        "run",
        FIG45,
        "--headless",
        "--until",
        "30s",
        "--trace",
        "-",
    ]));
    let lines = parse_lines(&out);
    // Job1's 3 maps finished; job1's 3 reduces and job2's 3 maps run at 30 s.
    assert_eq!(lines.len(), 9, "{out}");
    let running: Vec<&Value> = lines.iter().filter(|l| l["outcome"] == "running").collect();
    assert_eq!(running.len(), 6, "{out}");
    for l in &running {
        assert!(
            l["end_s"].is_null(),
            "running attempts have end_s null: {l}"
        );
    }
    for l in lines.iter().filter(|l| l["outcome"] != "running") {
        assert_eq!(l["outcome"], "succeeded");
        assert_eq!(l["end_s"].as_f64(), Some(20.0), "{l}");
    }
}

// ------------------------------------------------------------- determinism

fn run_to_files(dir: &Path, tag: &str, extra: &[&str]) -> (Vec<u8>, Vec<u8>) {
    let json = dir.join(format!("{tag}.json"));
    let trace = dir.join(format!("{tag}.jsonl"));
    let mut args = vec![
        "run",
        QUICKSTART,
        "--headless",
        "--json",
        json.to_str().unwrap(),
        "--trace",
        trace.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    ok(&slotsim(&args));
    (std::fs::read(json).unwrap(), std::fs::read(trace).unwrap())
}

#[test]
fn same_seed_gives_byte_identical_json_and_trace() {
    let dir = tempdir();
    let a = run_to_files(dir.path(), "a", &[]);
    let b = run_to_files(dir.path(), "b", &[]);
    assert!(!a.1.is_empty(), "trace is not empty");
    assert!(a.0 == b.0, "--json differs between two identical runs");
    assert!(a.1 == b.1, "--trace differs between two identical runs");
    // The scenario's own seed, given explicitly, is the same run.
    let c = run_to_files(dir.path(), "c", &["--seed", "7"]);
    assert!(
        a.0 == c.0 && a.1 == c.1,
        "--seed 7 should equal the file's seed 7"
    );
}

#[test]
fn a_different_seed_gives_a_different_trace() {
    let dir = tempdir();
    let a = run_to_files(dir.path(), "a", &[]);
    let b = run_to_files(dir.path(), "b", &["--seed", "8"]);
    assert!(a.1 != b.1, "--seed 8 should change the trace");
    assert_eq!(parse_json(std::str::from_utf8(&b.0).unwrap())["seed"], 8);
}

#[test]
fn compare_runs_are_the_same_runs_as_run_with_that_seed() {
    let (out, _) = ok(&slotsim(&[
        "compare",
        QUICKSTART,
        "--policies",
        "fifo,fair",
        "--seeds",
        "2",
        "--json",
        "-",
    ]));
    let all = parse_json(&out);
    let all = all.as_array().expect("array");
    // Row order: policy by policy, seed by seed: seeds 1 and 2 (as a
    // sweep's `seeds = 2`), not the scenario's own seed 7.
    let single = run_json(&[QUICKSTART, "--policy", "fair", "--seed", "2"]);
    assert_eq!(all[3], single);
    let single = run_json(&[QUICKSTART, "--policy", "fifo", "--seed", "1"]);
    assert_eq!(all[0], single);
    let seeds: Vec<u64> = all.iter().map(|s| s["seed"].as_u64().unwrap()).collect();
    assert_eq!(seeds, [1, 2, 1, 2]);
}

// --------------------------------------------------------------- bad input

#[test]
fn unknown_key_is_reported_at_its_line_and_column() {
    let dir = tempdir();
    write(
        dir.path(),
        "unk.toml",
        b"name = \"x\"\n[cluster]\nnodes = 4\n  bogus_key = 3\n",
    );
    for sub in [
        &["validate", "unk.toml"][..],
        &["run", "unk.toml", "--headless"],
    ] {
        let o = slotsim_in(dir.path(), sub);
        let line = assert_input_error(&o, "error: unk.toml:4:3: ");
        assert!(line.contains("bogus_key"), "names the key: {line}");
        assert!(line.contains("nodes"), "lists the expected keys: {line}");
    }
}

#[test]
fn toml_syntax_error_is_reported_with_its_position() {
    let dir = tempdir();
    write(
        dir.path(),
        "syn.toml",
        b"name = \"x\"\n[cluster\nnodes = 4\n",
    );
    let o = slotsim_in(dir.path(), &["validate", "syn.toml"]);
    let line = assert_input_error(&o, "error: syn.toml:");
    let (l, c, _) = file_error_position(&line, "syn.toml");
    assert_eq!(l, 2, "{line}");
    assert!(c >= 1, "{line}");
}

#[test]
fn bad_value_is_reported_at_the_value() {
    let dir = tempdir();
    write(
        dir.path(),
        "prof.toml",
        b"[cluster]\nnodes = 2\n[[jobs]]\nname = \"a\"\nprofile = \"nope\"\nmaps = 2\n",
    );
    let o = slotsim_in(dir.path(), &["run", "prof.toml", "--headless"]);
    let line = assert_input_error(&o, "error: prof.toml:5:");
    assert!(line.contains("nope") && line.contains("terasort"), "{line}");
}

#[test]
fn missing_scenario_file_names_the_file() {
    let dir = tempdir();
    for sub in [
        &["validate", "missing.toml"][..],
        &["run", "missing.toml", "--headless"],
        &["compare", "missing.toml", "--policies", "fifo"],
    ] {
        let o = slotsim_in(dir.path(), sub);
        let line = assert_input_error(&o, "error: ");
        assert!(line.contains("missing.toml"), "{line}");
    }
}

#[test]
fn non_utf8_scenario_is_an_input_error() {
    let dir = tempdir();
    write(dir.path(), "bin.toml", b"name = \"\xff\xfe\"\n");
    let o = slotsim_in(dir.path(), &["validate", "bin.toml"]);
    let line = assert_input_error(&o, "error: bin.toml:1:");
    let (l, _, msg) = file_error_position(&line, "bin.toml");
    assert_eq!(l, 1);
    assert!(msg.contains("UTF-8"), "{line}");
}

#[test]
fn unknown_policy_names_it_and_lists_the_known_ones() {
    let o = slotsim(&["run", FIG45, "--headless", "--policy", "nosuch"]);
    let line = assert_input_error(&o, "error: ");
    assert!(line.contains("nosuch"), "{line}");
    for p in POLICIES {
        assert!(line.contains(p), "lists {p}: {line}");
    }
}

#[test]
fn bad_policy_variants_are_input_errors() {
    for (spec, needle) in [
        ("fair[nosuchkey=1]", "nosuchkey"),
        ("fair[slowstart", "]"),
        ("fair[slowstart=2]", "slowstart"),
        ("fair[slowstart=abc]", "slowstart"),
        ("[slowstart=1]", "name"),
        ("fifo[node_locality_delay=1s]", "node_locality_delay"),
    ] {
        let o = slotsim(&["run", FIG45, "--headless", "--policy", spec]);
        let line = assert_input_error(&o, "error: ");
        assert!(line.contains(needle), "{spec}: {line}");
    }
}

#[test]
fn bad_until_is_an_input_error() {
    for flag in ["--until=30x", "--until=abc", "--until=30", "--until=-5s"] {
        let o = slotsim(&["run", FIG45, "--headless", flag]);
        let line = assert_input_error(&o, "error: ");
        assert!(line.contains("until"), "{flag}: {line}");
    }
}

#[test]
fn compare_with_an_unknown_policy_fails_before_running() {
    let o = slotsim(&[
        "compare",
        FIG45,
        "--policies",
        "fifo,nosuch",
        "--seeds",
        "1",
    ]);
    let line = assert_input_error(&o, "error: ");
    assert!(line.contains("nosuch") && line.contains("fair"), "{line}");
    let o = slotsim(&["compare", FIG45, "--policies", "fifo,fair[nosuchkey=1]"]);
    let line = assert_input_error(&o, "error: ");
    assert!(line.contains("nosuchkey"), "{line}");
    let o = slotsim(&["compare", FIG45, "--policies", "fifo", "--seeds", "0"]);
    assert_input_error(&o, "error: ");
    // Rows told apart by their labels: a repeated policy, or two under
    // one label, are refused before anything runs.
    let o = slotsim(&["compare", FIG45, "--policies", "fifo,fair,fifo"]);
    let line = assert_input_error(&o, "error: --policies: ");
    assert!(line.contains("policy 3 repeats policy 1"), "{line}");
    let o = slotsim(&[
        "compare",
        FIG45,
        "--policy",
        "external[label=mine]:python3 clients/python/examples/fifo.py",
        "--policy",
        "external[label=mine]:python3 clients/python/examples/sjf.py",
    ]);
    let line = assert_input_error(&o, "error: --policies: ");
    assert!(line.contains("both labelled \"external:mine\""), "{line}");
}

#[test]
fn usage_errors_exit_2_without_a_panic() {
    for args in [
        &["run", "--bogus"][..],
        &["frobnicate"],
        &["compare", FIG45],
        &["run", FIG45, "--headless", "--seed", "abc"],
        &["compare", FIG45, "--policies", "fifo", "--seeds", "x"],
        &["validate"],
    ] {
        let o = slotsim(args);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.starts_with("error: "), "{args:?}: {err}");
        assert!(o.stdout.is_empty(), "{args:?}");
        assert_no_panic(&err);
    }
}

#[test]
fn help_and_version_exit_0() {
    let (out, _) = ok(&slotsim(&["--help"]));
    for sub in ["run", "compare", "validate", "policies", "profiles"] {
        assert!(out.contains(sub), "--help lists {sub}:\n{out}");
    }
    let (out, _) = ok(&slotsim(&["--version"]));
    assert!(out.starts_with("slotsim "), "{out}");
}

#[test]
fn unwritable_output_path_is_an_error_not_a_panic() {
    let dir = tempdir();
    let bad = dir.path().join("no-such-dir").join("x.json");
    for flag in ["--json", "--trace", "--inspect"] {
        let o = slotsim(&["run", FIG45, "--headless", flag, bad.to_str().unwrap()]);
        let err = stderr(&o);
        assert!(
            matches!(o.status.code(), Some(1 | 2)),
            "{flag}: status {:?}, {err}",
            o.status
        );
        assert_no_panic(&err);
        assert_eq!(err.lines().count(), 1, "{flag}: {err}");
        assert!(
            err.starts_with("error: ") && err.contains("x.json"),
            "{err}"
        );
    }
}

/// Writing to a full disk (or a closed pipe) is not a panic: the documented
/// "anything else" is exit 1 with one `error:` line.
#[cfg(target_os = "linux")]
#[test]
fn stdout_write_failure_is_an_error_not_a_panic() {
    let Ok(full) = std::fs::OpenOptions::new().write(true).open("/dev/full") else {
        return;
    };
    for args in [
        &["policies"][..],
        &["profiles"],
        &["validate", QUICKSTART],
        &["run", FIG45, "--headless"],
        &["run", FIG45, "--headless", "--json", "-"],
        &["compare", FIG45, "--policies", "fifo", "--seeds", "1"],
    ] {
        let o = cmd(root())
            .args(args)
            .stdout(full.try_clone().unwrap())
            .output()
            .unwrap();
        let err = stderr(&o);
        assert_no_panic(&err);
        assert_eq!(o.status.code(), Some(1), "{args:?}: {err}");
        assert_eq!(
            err.lines().last().map(|l| l.starts_with("error: ")),
            Some(true),
            "{args:?}: {err}"
        );
    }
}

// ----------------------------------------------------------------- compare

/// The rows of a compare table: every line but the header and the footnote.
fn compare_rows(table: &str) -> Vec<Vec<String>> {
    table
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with("policy") && !l.starts_with('('))
        .map(|l| l.split_whitespace().map(str::to_string).collect())
        .collect()
}

#[test]
fn compare_prints_one_row_per_policy_in_order() {
    let (out, _) = ok(&slotsim(&[
        "compare",
        FIG45,
        "--policies",
        "fifo,fair",
        "--seeds",
        "2",
    ]));
    let rows = compare_rows(&out);
    assert_eq!(rows.len(), 2, "{out}");
    assert_eq!(rows[0][0], "fifo", "{out}");
    assert_eq!(rows[1][0], "fair", "{out}");
    // First number after the label is the mean makespan.
    assert_eq!(rows[0][1], "80.0", "{out}");
    assert_eq!(rows[1][1], "120.0", "{out}");
    let first_pct = |r: &Vec<String>| r.iter().find(|t| t.ends_with('%')).cloned();
    assert_eq!(first_pct(&rows[0]).as_deref(), Some("+0.0%"), "{out}");
    assert_eq!(first_pct(&rows[1]).as_deref(), Some("+50.0%"), "{out}");
    assert!(out.contains("2 seeds"), "{out}");
}

#[test]
fn compare_json_is_an_array_of_summaries() {
    let o = slotsim(&[
        "compare",
        FIG45,
        "--policies",
        "fifo,fair",
        "--seeds",
        "2",
        "--json",
        "-",
    ]);
    let (out, err) = ok(&o);
    let v = parse_json(&out);
    let arr = v.as_array().expect("compare --json writes an array");
    assert_eq!(arr.len(), 4, "2 policies × 2 seeds");
    let got: Vec<(String, u64, f64)> = arr
        .iter()
        .map(|s| {
            assert_keys(s, SUMMARY_KEYS, "compare summary");
            (
                s["policy"].as_str().unwrap().to_string(),
                s["seed"].as_u64().unwrap(),
                s["makespan_s"].as_f64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        got,
        vec![
            ("fifo".into(), 1, 80.0),
            ("fifo".into(), 2, 80.0),
            ("fair".into(), 1, 120.0),
            ("fair".into(), 2, 120.0),
        ]
    );
    // The table moved to stderr.
    assert!(err.contains("+50.0%"), "{err}");
}

#[test]
fn compare_accepts_bracketed_variants_in_the_list() {
    let specs = [
        "fifo",
        "fair[slowstart=1]",
        "fair[slowstart=0.5;assign_multiple=false]",
    ];
    let list = specs.join(",");
    let (out, _) = ok(&slotsim(&[
        "compare",
        FIG45,
        "--policies",
        &list,
        "--seeds",
        "1",
        "--json",
        "-",
    ]));
    let v = parse_json(&out);
    let labels: Vec<&str> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["policy"].as_str().unwrap())
        .collect();
    assert_eq!(labels, specs);
    let (out, _) = ok(&slotsim(&[
        "compare",
        FIG45,
        "--policies",
        &list,
        "--seeds",
        "1",
    ]));
    let rows = compare_rows(&out);
    let row_labels: Vec<&str> = rows.iter().map(|r| r[0].as_str()).collect();
    assert_eq!(row_labels, specs, "{out}");
}

// ------------------------------------------- validate, policies, profiles

#[test]
fn validate_describes_the_scenario() {
    let (out, _) = ok(&slotsim(&["validate", QUICKSTART]));
    // What a run of the same scenario reports.
    let s = run_json(&[QUICKSTART]);
    let jobs = s["jobs"].as_array().unwrap();
    let tasks: u64 = jobs
        .iter()
        .map(|j| j["maps"].as_u64().unwrap() + j["reduces"].as_u64().unwrap())
        .sum();
    assert!(out.contains("quickstart"), "{out}");
    assert!(out.contains("20 nodes"), "{out}");
    assert!(
        out.contains(&format!("{tasks} tasks")),
        "{tasks} tasks:\n{out}"
    );
    let jobs_line = out
        .lines()
        .find(|l| l.trim_start().starts_with("jobs"))
        .unwrap_or_else(|| panic!("a jobs line:\n{out}"));
    assert_eq!(
        jobs_line.split_whitespace().nth(1),
        Some(jobs.len().to_string().as_str()),
        "{jobs_line}"
    );
}

#[test]
fn every_bundled_scenario_validates() {
    let mut n = 0;
    for p in shipped_scenarios() {
        ok(&slotsim(&["validate", p.to_str().unwrap()]));
        n += 1;
    }
    assert!(
        n >= 4 + 7,
        "expected the bundled scenarios and lessons, found {n}"
    );
}

#[test]
fn policies_lists_every_policy_and_each_one_runs() {
    let (out, _) = ok(&slotsim(&["policies"]));
    let names: Vec<&str> = out
        .lines()
        .filter(|l| !l.starts_with(char::is_whitespace))
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    for p in POLICIES {
        assert!(names.contains(p), "policies lists {p}:\n{out}");
    }
    for name in names {
        // A policy in another process needs its command.
        let spec = if name == "external" {
            "external:python3 clients/python/examples/fifo.py"
        } else {
            name
        };
        // The YARN schedulers run on a YARN cluster, the others on slots.
        let on = if name.starts_with("yarn-") {
            "scenarios/yarn-quickstart.toml"
        } else {
            FIG45
        };
        let s = run_json(&[on, "--policy", spec]);
        assert_eq!(s["policy"], spec);
        assert!(s["makespan_s"].as_f64().is_some(), "{name} finishes: {s}");
    }
    // Named alone, it says what is missing.
    let o = slotsim(&["run", FIG45, "--headless", "--policy", "external"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("scheduler.external.command: missing"));
}

#[test]
fn profiles_lists_all_eleven_and_each_one_runs() {
    let (out, _) = ok(&slotsim(&["profiles"]));
    let names: Vec<&str> = out
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    for p in PROFILES {
        assert!(names.contains(p), "profiles lists {p}:\n{out}");
    }
    let mut toml = String::from("[cluster]\nnodes = 4\n");
    for p in PROFILES {
        toml += &format!(
            "\n[[jobs]]\nname = \"{p}\"\nprofile = \"{p}\"\ninput = \"512MB\"\nreduces = 1\n"
        );
    }
    let dir = tempdir();
    write(dir.path(), "profiles.toml", toml.as_bytes());
    let (out, _) = ok(&slotsim_in(
        dir.path(),
        &["run", "profiles.toml", "--headless", "--json", "-"],
    ));
    let s = parse_json(&out);
    assert!(
        s["makespan_s"].as_f64().is_some(),
        "every job finishes: {s}"
    );
    assert_eq!(s["jobs"].as_array().unwrap().len(), PROFILES.len());
}

// ------------------------------------------------------ embedded default

#[test]
fn run_without_a_scenario_uses_the_embedded_quickstart() {
    let dir = tempdir();
    assert!(!dir.path().join("scenarios").exists());
    let (out, _) = ok(&slotsim_in(
        dir.path(),
        &["run", "--headless", "--json", "-"],
    ));
    let embedded = parse_json(&out);
    assert_eq!(embedded["scenario"], "quickstart");
    let file = run_json(&[QUICKSTART]);
    assert_eq!(
        embedded, file,
        "the embedded default is scenarios/quickstart.toml"
    );
    // And the plain table form works too.
    let (out, _) = ok(&slotsim_in(dir.path(), &["run", "--headless"]));
    assert!(
        out.contains("quickstart") && out.contains("makespan"),
        "{out}"
    );
}

// ------------------------------------------------------ bundled examples

#[test]
fn omo_fig4_takes_five_units() {
    let s = run_json(&["scenarios/omo-fig4.toml"]);
    assert_eq!(f64_of(&s, "makespan_s"), Some(5.0));
}

// ------------------------------------------------------------------- TUI

#[test]
fn tui_without_a_terminal_says_so() {
    // Test processes have no terminal on stdout: the TUI refuses cleanly,
    // as a usage error.
    for args in [&[][..], &["run", FIG45]] {
        let o = slotsim(args);
        let err = stderr(&o);
        assert_no_panic(&err);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.contains("needs a terminal") && err.contains("--headless"),
            "{err}"
        );
    }
}

#[test]
fn headless_only_flags_without_headless_are_input_errors() {
    // The TUI draws on stdout: --json and --trace take a file there.
    for flag in ["--json", "--trace"] {
        let o = slotsim(&["run", FIG45, flag, "-"]);
        assert_input_error(&o, &format!("error: {flag}: "));
        assert!(stderr(&o).contains("give a file"), "{}", stderr(&o));
    }
    for flag in ["--inspect", "--flows"] {
        let o = slotsim(&["run", FIG45, flag, "x.jsonl"]);
        assert_input_error(&o, &format!("error: {flag}: "));
    }
    let o = slotsim(&["run", FIG45, "--headless", "--record", "x.cast"]);
    assert_input_error(&o, "error: --record: ");
}

/// `slotsim validate SCENARIO` (a path from the crate's root) with
/// `SLOTSIM_MEMORY` set to `memory`.
fn validate_within(scenario: &str, memory: &str) -> Output {
    Command::new(env!("CARGO_BIN_EXE_slotsim"))
        .args(["validate", scenario])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("SLOTSIM_MEMORY", memory)
        .output()
        .unwrap()
}

#[test]
fn a_bad_memory_budget_is_one_error() {
    let o = validate_within(FIG45, "lots");
    assert_input_error(&o, "error: SLOTSIM_MEMORY=\"lots\" is not a size");
    // A budget under a gigabyte reads in megabytes, not "0.0 GB".
    let o = validate_within("scenarios/fb2009-day.toml", "5MB");
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("the 5 MB of memory available") && !err.contains("0.0 GB"),
        "{err}"
    );
    // The limit set names where it came from, not how to set it.
    assert!(
        err.contains("available (SLOTSIM_MEMORY); expected") && !err.contains("errs high"),
        "{err}"
    );
}

#[test]
fn a_shuffle_too_large_for_memory_is_refused() {
    // 3,600 tasks, but 1,800 reducers each fetching from 910 nodes: about
    // 92 MB by the estimate, where the tasks alone would need 17 MB.
    let o = validate_within("scenarios/terasort-1tb-910.toml", "60MB");
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains(
            "3600 tasks and a job of 1800 reducers at once, each fetching from up to 910 nodes"
        ) && err.contains("60 MB of memory available"),
        "{err}"
    );
    let o = validate_within("scenarios/terasort-1tb-910.toml", "120MB");
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("memory     about 92 MB"),
        "{}",
        stdout(&o)
    );
}

#[test]
fn tui_json_and_trace_without_a_terminal_write_nothing() {
    let dir = tempdir();
    let json = dir.path().join("s.json");
    let o = slotsim(&["run", FIG45, "--json", json.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("needs a terminal"), "{}", stderr(&o));
    assert!(!json.exists(), "no empty file left behind");
}

#[test]
fn record_writes_a_deterministic_cast() {
    let dir = tempdir();
    let a = dir.path().join("a.cast");
    let b = dir.path().join("b.cast");
    for p in [&a, &b] {
        let (out, _) = ok(&slotsim(&[
            "record",
            FIG45,
            "--out",
            p.to_str().unwrap(),
            "--size",
            "80x24",
            "--fps",
            "4",
            "--speed",
            "10",
            "--keys",
            "Tab,p,Up,Enter",
        ]));
        assert!(out.contains("wrote") && out.contains("frames"), "{out}");
    }
    assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
    let text = std::fs::read_to_string(&a).unwrap();
    let header: Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    assert_eq!(
        (
            header["version"].as_u64(),
            header["width"].as_u64(),
            header["height"].as_u64()
        ),
        (Some(2), Some(80), Some(24))
    );
}

#[test]
fn record_rejects_bad_options() {
    let dir = tempdir();
    let out = dir.path().join("x.cast");
    let out = out.to_str().unwrap();
    for (args, prefix) in [
        (vec!["--size", "huge"], "error: --size: "),
        (vec!["--fps", "0"], "error: --fps: "),
        (vec!["--speed", "3"], "error: --speed: "),
        (vec!["--keys", "Hyper"], "error: --keys: "),
        (vec!["--until", "soon"], "error: --until: "),
    ] {
        let mut all = vec!["record", FIG45, "--out", out];
        all.extend(args);
        assert_input_error(&slotsim(&all), prefix);
    }
}

#[test]
fn two_outputs_to_stdout_are_an_input_error() {
    let o = slotsim(&["run", FIG45, "--headless", "--json", "-", "--trace", "-"]);
    assert_input_error(&o, "error: --json: only one of");
}

#[test]
fn a_stalled_run_says_so() {
    let dir = tempdir();
    let p = dir.path().join("stall.toml");
    std::fs::write(
        &p,
        "name = \"stall\"\n[cluster]\nnodes = 2\n[[pools]]\nname = \"p\"\nmax_maps = 0\n[[jobs]]\nname = \"j\"\nprofile = \"grep\"\nmaps = 2\npool = \"p\"\n",
    )
    .unwrap();
    let (out, _) = ok(&slotsim(&[
        "run",
        p.to_str().unwrap(),
        "--headless",
        "--json",
        "-",
    ]));
    let v = parse_json(&out);
    assert_eq!(v["stalled"], true);
    assert_eq!(v["makespan_s"], Value::Null);
    let (table, _) = ok(&slotsim(&["run", p.to_str().unwrap(), "--headless"]));
    assert!(table.contains("stalled: 1 job(s) can never run"), "{table}");
    // Its lines, like the rest of the table, fit 80 columns (the engine's
    // timing line aside).
    for l in table.lines().filter(|l| !l.starts_with("engine:")) {
        assert!(l.chars().count() <= 80, "{l}");
    }
}

/// `record --until` stops the simulated clock there and the recording with
/// it, and a run that can never progress ends the recording at once
/// instead of filling the 30-minute guard.
#[test]
fn record_until_stops_the_clock_and_a_stalled_run_ends_the_recording() {
    let dir = tempdir();
    let out = dir.path().join("q.cast");
    let o = slotsim(&[
        "record",
        QUICKSTART,
        "--out",
        out.to_str().unwrap(),
        "--until",
        "5s",
    ]);
    ok(&o);
    let cast = std::fs::read_to_string(&out).unwrap();
    assert!(cast.contains("00:00:05.0"), "reaches 5 s");
    assert!(!cast.contains("00:00:05.1"), "never passes 5 s");
    // It lasts what --until says (at speed 1), and its last screen says
    // why it stopped, with no speed kept.
    assert!(stdout(&o).contains("5.0s)"), "{}", stdout(&o));
    let last: serde_json::Value = serde_json::from_str(cast.lines().last().unwrap()).unwrap();
    assert_eq!(last[0].as_f64(), Some(5.0));
    let header = cast.lines().rev().find(|l| l.contains("policy: ")).unwrap();
    assert!(header.contains("stopped at --until"), "{header}");
    assert!(!header.contains("(got "), "{header}");
    let stall = dir.path().join("stall.toml");
    std::fs::write(
        &stall,
        "name = \"stall\"\n[cluster]\nnodes = 2\n[[pools]]\nname = \"p\"\nmax_maps = 0\n\
         [[jobs]]\nname = \"a\"\nprofile = \"grep\"\nmaps = 2\npool = \"p\"\n",
    )
    .unwrap();
    for speed in ["1", "1000"] {
        let cast = dir.path().join("s.cast");
        let o = slotsim(&[
            "record",
            stall.to_str().unwrap(),
            "--out",
            cast.to_str().unwrap(),
            "--speed",
            speed,
        ]);
        ok(&o);
        let frames = std::fs::read_to_string(&cast).unwrap().lines().count();
        assert!(frames < 200, "speed {speed}: {frames} lines");
    }
}

/// With `--until`, `--json` lists every job of the scenario, the ones not
/// yet submitted with `finish_s: null`, so `jobs` agrees with `tasks`.
#[test]
fn until_reports_unsubmitted_jobs_too() {
    let o = slotsim(&[
        "run",
        QUICKSTART,
        "--headless",
        "--until",
        "1s",
        "--json",
        "-",
    ]);
    let (out, _) = ok(&o);
    let v: Value = serde_json::from_str(&out).unwrap();
    let jobs = v["jobs"].as_array().unwrap();
    assert_eq!(jobs.len(), 16);
    assert_eq!(v["jobs_submitted"], 1);
    let tasks: u64 = jobs
        .iter()
        .map(|j| j["maps"].as_u64().unwrap() + j["reduces"].as_u64().unwrap())
        .sum();
    assert_eq!(v["tasks"].as_u64(), Some(tasks));
    assert!(jobs.iter().all(|j| j["finish_s"].is_null()));
}

/// Usage errors are one line with exit 2, negative values included, and
/// `compare` checks its `--json` path before running anything.
#[test]
fn usage_errors_are_one_line() {
    for args in [
        vec!["run", QUICKSTART, "--headless", "--seed", "abc"],
        vec!["run", QUICKSTART, "--headless", "--until", "-1s"],
        vec!["run", QUICKSTART, "--headless", "--seed", "-1"],
        vec!["compare", QUICKSTART],
        vec!["bogus"],
        vec!["run", "--frobnicate"],
        vec![
            "compare",
            FIG45,
            "--policies",
            "fifo",
            "--json",
            "/nonexistent/dir/x.json",
        ],
    ] {
        let o = slotsim(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        let err = stderr(&o);
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(err.starts_with("error: "), "{args:?}: {err}");
        assert!(stdout(&o).is_empty(), "{args:?}");
    }
}

/// `docs/demo.cast` and `docs/demo.gif` are what the README's `slotsim
/// record` commands make today: regenerating them gives the same bytes, so
/// the demo never shows a TUI that no longer exists. The keys are the
/// README's `--keys @FILE`.
#[test]
fn the_bundled_demo_recordings_are_current() {
    let dir = tempdir();
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let keys = readme
        .split("--keys @")
        .nth(1)
        .and_then(|s| s.split_whitespace().next())
        .expect("the README's record command has --keys @FILE");
    assert_eq!(keys, "docs/demo.keys");
    for name in ["demo.cast", "demo.gif"] {
        assert!(
            readme.contains(&format!("--out {name}")),
            "the README records {name}"
        );
        let out = dir.path().join(name);
        let keys = format!("@{}", root().join(keys).display());
        ok(&slotsim(&[
            "record",
            QUICKSTART,
            "--out",
            out.to_str().unwrap(),
            "--size",
            "110x32",
            "--fps",
            "10",
            "--speed",
            "5",
            "--until",
            "200s",
            "--keys",
            &keys,
        ]));
        let fresh = std::fs::read(&out).unwrap();
        let bundled = std::fs::read(root().join("docs").join(name)).unwrap();
        assert!(
            fresh == bundled,
            "docs/{name} is stale: regenerate it with the README's `slotsim record` command"
        );
    }
    // The GIF is a GIF, small enough for a README.
    let gif = std::fs::read(root().join("docs/demo.gif")).unwrap();
    assert!(gif.starts_with(b"GIF89a") && gif.ends_with(b";"));
    assert!(gif.len() < 3 << 20, "docs/demo.gif is {} bytes", gif.len());
}

/// `--keys @FILE` reads a key or a pause a line with `#` comments; an
/// unknown key is an error at its line and column with the nearest name.
#[test]
fn record_keys_from_a_file_and_key_errors_suggest() {
    let dir = tempdir();
    let keys = dir.path().join("k.keys");
    std::fs::write(&keys, "# a demo\n2s\nDown   # select\n\n  Dwn\n").unwrap();
    let out = dir.path().join("k.cast");
    let o = slotsim(&[
        "record",
        QUICKSTART,
        "--out",
        out.to_str().unwrap(),
        "--until",
        "3s",
        "--keys",
        &format!("@{}", keys.display()),
    ]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(
        err.starts_with(&format!(
            "error: {}:5:3: unknown key \"Dwn\"; did you mean Down?",
            keys.display()
        )),
        "{err}"
    );
    for name in ["PageUp", "PageDown", "Home", "End", "Backspace"] {
        assert!(err.contains(name), "{err}");
    }
    std::fs::write(&keys, "# a demo\n2s\nDown   # select\n").unwrap();
    ok(&slotsim(&[
        "record",
        QUICKSTART,
        "--out",
        out.to_str().unwrap(),
        "--until",
        "3s",
        "--keys",
        &format!("@{}", keys.display()),
    ]));
    let o = slotsim(&[
        "record",
        QUICKSTART,
        "--out",
        out.to_str().unwrap(),
        "--keys",
        "PageDwn",
    ]);
    assert!(
        stderr(&o).contains("did you mean PageDown?"),
        "{}",
        stderr(&o)
    );
}

/// A GIF recording: the same bytes twice, a GIF of the size the cells
/// make (9 × 18 pixels each).
#[test]
fn record_out_gif_is_a_gif_and_repeats() {
    let dir = tempdir();
    let a = dir.path().join("a.gif");
    let b = dir.path().join("b.GIF");
    for p in [&a, &b] {
        ok(&slotsim(&[
            "record",
            QUICKSTART,
            "--out",
            p.to_str().unwrap(),
            "--size",
            "80x24",
            "--until",
            "10s",
        ]));
    }
    let (x, y) = (std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
    assert_eq!(x, y);
    assert!(x.starts_with(b"GIF89a"));
    assert_eq!(u16::from_le_bytes([x[6], x[7]]), 80 * 9);
    assert_eq!(u16::from_le_bytes([x[8], x[9]]), 24 * 18);
}

#[test]
fn every_positional_argument_is_described_in_help() {
    for sub in [
        vec!["run"],
        vec!["compare"],
        vec!["validate"],
        vec!["record"],
        vec!["sweep"],
        vec!["merge"],
        vec!["import", "hadoop"],
    ] {
        let mut args = sub.clone();
        args.push("--help");
        let (out, _) = ok(&slotsim(&args));
        let section = out
            .split("Arguments:")
            .nth(1)
            .and_then(|s| s.split("Options:").next())
            .unwrap_or_else(|| panic!("{sub:?}: no Arguments section\n{out}"));
        for line in section.lines().filter(|l| !l.trim().is_empty()) {
            let words: Vec<&str> = line.split_whitespace().collect();
            assert!(
                words.len() > 1,
                "{sub:?}: positional argument without a description: {line:?}"
            );
        }
    }
}

#[test]
fn record_falls_back_to_the_embedded_quickstart() {
    let d = tempfile::tempdir().unwrap();
    let cast = d.path().join("q.cast");
    let (out, _) = ok(&slotsim(&[
        "record",
        "--out",
        cast.to_str().unwrap(),
        "--until",
        "3s",
        "--size",
        "80x24",
    ]));
    assert!(out.starts_with("wrote "), "{out}");
    let text = std::fs::read_to_string(&cast).unwrap();
    assert!(text.contains("quickstart"), "the header names the scenario");
}

#[test]
fn a_petabyte_is_the_largest_size_and_is_accepted_as_written() {
    let d = tempfile::tempdir().unwrap();
    let base = std::fs::read_to_string(root().join(QUICKSTART)).unwrap();
    let at = |block: &str| {
        let text = base.replace("block = \"128MB\"", &format!("block = \"{block}\""));
        let p = d.path().join("s.toml");
        std::fs::write(&p, text).unwrap();
        slotsim(&["validate", p.to_str().unwrap()])
    };
    assert!(
        base.contains("block = \"128MB\""),
        "the quickstart sets its block size"
    );
    let o = at("1PB");
    assert!(o.status.success(), "{}", stderr(&o));
    let err = assert_input_error(&at("2PB"), "");
    assert!(err.contains("expected at most \"1PB\""), "{err}");
}

#[test]
fn a_container_policy_on_typed_slots_is_noted() {
    let o = slotsim(&["run", QUICKSTART, "--headless", "--policy", "fresh"]);
    assert!(o.status.success());
    assert!(
        stderr(&o).contains("note: fresh is meant for unified containers"),
        "{}",
        stderr(&o)
    );
    let o = slotsim(&["run", QUICKSTART, "--headless", "--policy", "fair"]);
    assert!(!stderr(&o).contains("note:"), "{}", stderr(&o));
}

/// `slotsim policies` cites each paper as its own text names it: title and
/// authors as the paper gives them (docs/policies.md lists them), never
/// from memory.
#[test]
fn policy_sources_cite_the_papers_as_their_text_names_them() {
    let out = slotsim(&["policies"]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout).to_lowercase();
    // (system, authors, title), as the papers' own texts give them.
    let papers = [
        (
            "omo",
            "yang, wang, mao, yao, mi, sheng",
            "optimizing internal overlaps by self-adjusting resource allocation in multi-stage computing systems",
        ),
        (
            "dynamicmr",
            "tang, lee, he",
            "a dynamic slot allocation optimization framework for mapreduce clusters",
        ),
        (
            "hybsmrp",
            "gandomi, reshadi, movaghar, khademzadeh",
            "a hybrid scheduling algorithm in hadoop mapreduce framework",
        ),
        (
            "joss",
            "lee, lin, yahyapour",
            "hybrid job-driven scheduling for virtual mapreduce clusters",
        ),
    ];
    let sources: Vec<&str> = text
        .lines()
        .filter_map(|l| l.trim().strip_prefix("source: "))
        .collect();
    assert!(sources.len() >= 14, "{text}");
    // No title the papers do not have: JoSS's has no "JoSS:", the
    // adaptive fair scheduler paper's text names none.
    assert!(!sources.iter().any(|s| s.contains("joss:")), "{text}");
    assert!(
        !text.contains("an adaptive (modified) fair scheduler for hadoop"),
        "{text}"
    );
    assert!(
        text.contains("source: the adaptive fair scheduler paper (extension of a platcon-17 paper"),
        "{text}"
    );
    for (system, authors, title) in papers {
        let citing: Vec<&&str> = sources
            .iter()
            .filter(|s| {
                [
                    format!("{system}:"),
                    format!("{system} ("),
                    format!("({system})"),
                ]
                .iter()
                .any(|k| s.contains(k.as_str()))
            })
            .collect();
        assert!(!citing.is_empty(), "no policy cites {system}:\n{text}");
        // The first time a line names the paper it gives authors and title
        // (the variants' lines may name the system alone).
        assert!(
            citing
                .iter()
                .any(|s| s.contains(authors) && s.contains(title)),
            "{system} is not cited as its text names it:\n{citing:?}"
        );
        for s in &citing {
            if s.contains(", ") && !s.starts_with(system) {
                assert!(s.contains(authors), "{system}: {s}");
            }
        }
    }
    // Names the papers' texts do not give.
    for wrong in ["nezhad", "shirvani", "ghasemi", "trans. cloud computing"] {
        assert!(!text.contains(wrong), "{wrong}:\n{text}");
    }
}

/// A policy that fails stops no other: `compare` runs every cell, the
/// table and `--json` hold the good ones, the failed cells are named with
/// their seed (exit 2); `--policy` repeats; a `--json` file is written
/// aside and replaced whole.
#[test]
fn compare_runs_every_cell_when_a_policy_fails_and_never_truncates_its_json() {
    let d = tempfile::tempdir().unwrap();
    let bad = d.path().join("bad.py");
    std::fs::write(
        &bad,
        "import sys\nfor l in sys.stdin:\n    print('garbage')\n    sys.stdout.flush()\n",
    )
    .unwrap();
    let json = d.path().join("cmp.json");
    std::fs::write(&json, "[\"old\"]\n").unwrap();
    let ext = format!("external:python3 {}", bad.display());
    let o = slotsim(&[
        "compare",
        FIG45,
        "--policies",
        "fifo",
        "--policy",
        &ext,
        "--policy",
        "fair",
        "--seeds",
        "2",
        "--json",
        json.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    let out = String::from_utf8_lossy(&o.stdout);
    let err = String::from_utf8_lossy(&o.stderr);
    let rows = compare_rows(&out);
    assert_eq!(rows.len(), 3, "{out}");
    assert!(out.contains(" failed "), "{out}");
    assert!(err.contains("2 of 6 runs failed"), "{err}");
    for seed in [1, 2] {
        assert!(err.contains(&format!("seed {seed}: policy")), "{err}");
    }
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let policies: Vec<&str> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["policy"].as_str().unwrap())
        .collect();
    assert_eq!(policies, ["fifo", "fifo", "fair", "fair"]);
    assert!(!d.path().join("cmp.json.partial").exists());
    // A --json that cannot be written is bad input, said before any run.
    let o = slotsim(&[
        "compare",
        FIG45,
        "--policies",
        "fifo",
        "--json",
        d.path().join("missing/dir/x.json").to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.starts_with("error: --json: cannot create"), "{err}");
    assert!(
        !String::from_utf8_lossy(&o.stdout).contains("policy"),
        "no run"
    );
}

/// A scenario file's header: its command (continuation lines joined) and
/// what the line after it says of the time it takes.
fn header_command(text: &str) -> Option<(String, String)> {
    let head: Vec<&str> = text.lines().take_while(|l| l.starts_with('#')).collect();
    // The first `slotsim` command (continuation lines joined) whose next
    // line is its time, "(…)": a lesson's header names the TUI's command
    // first.
    let mut first = None;
    for i in 0..head.len() {
        let starts = head[i]
            .trim_start_matches('#')
            .trim_start()
            .starts_with("slotsim ");
        if !starts {
            continue;
        }
        let mut cmd = String::new();
        let mut j = i;
        loop {
            let part = head[j].trim_start_matches('#').trim();
            match part.strip_suffix('\\') {
                Some(p) if j + 1 < head.len() => {
                    cmd.push_str(p.trim());
                    cmd.push(' ');
                    j += 1;
                }
                _ => {
                    cmd.push_str(part);
                    break;
                }
            }
        }
        let time: String = head[j + 1..]
            .iter()
            .map(|l| l.trim_start_matches('#').trim())
            .take_while(|l| !l.is_empty())
            .collect::<Vec<_>>()
            .join(" ");
        if time.starts_with('(') {
            return Some((cmd, time));
        }
        first.get_or_insert((cmd, time));
    }
    first
}

/// The shipped scenarios: scenarios/*.toml and the lessons,
/// scenarios/lessons/*.toml.
fn shipped_scenarios() -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for dir in ["scenarios", "scenarios/lessons"] {
        for f in std::fs::read_dir(root().join(dir)).unwrap() {
            let p = f.unwrap().path();
            if p.extension().is_some_and(|x| x == "toml") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// Every shipped scenario's header gives a command and, on the line after
/// it, the time that command takes (docs/performance.md for the big ones);
/// those said to take under a second are run here, each to its end.
#[test]
fn every_scenario_header_gives_its_command_and_its_time() {
    let dir = tempfile::tempdir().unwrap();
    let mut run = 0;
    for p in shipped_scenarios() {
        let name = p.file_name().unwrap().to_string_lossy().to_string();
        let text = std::fs::read_to_string(&p).unwrap();
        let (cmd, time) =
            header_command(&text).unwrap_or_else(|| panic!("{name}: no command in its header"));
        assert!(
            time.starts_with('(') && time.contains("here") && time.contains("2-core machine"),
            "{name}: no time after `{cmd}`: {time:?}"
        );
        if !time.starts_with("(under a second here") {
            continue;
        }
        // (A pipe ends the command: what it pipes into is not run.)
        let piped = cmd.split(" | ").next().unwrap_or(&cmd);
        let words: Vec<String> = crate::readme::words(piped)
            .into_iter()
            .skip(1)
            .map(|w| match w.strip_prefix("scenarios/") {
                Some(rest) => root().join("scenarios").join(rest).display().to_string(),
                None => w,
            })
            .collect();
        let out = Command::new(env!("CARGO_BIN_EXE_slotsim"))
            .current_dir(dir.path())
            .args(&words)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{name}: `{cmd}`: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        run += 1;
    }
    assert!(run >= 25, "{run} commands run");
}

/// `validate` gives the container asks the jobs make: each job's own when
/// every job sets them (DRF's worked example), the default otherwise.
#[test]
fn validate_reports_the_jobs_own_container_asks() {
    let o = slotsim(&["validate", "scenarios/drf.toml"]);
    let (out, _) = ok(&o);
    assert!(
        out.contains("every job asks its own: maps 1024 MB 3 vcores or 4096 MB 1 vcore"),
        "{out}"
    );
    // The reduce asks no job sets are `[tasks]`', said as figures.
    assert!(
        out.contains("reduces 1024 MB 1 vcore (no job sets its own) (before normalisation)"),
        "{out}"
    );
    let o = slotsim(&["validate", "scenarios/yarn-quickstart.toml"]);
    let (out, _) = ok(&o);
    assert!(out.contains("maps ask 1024 MB, 1 vcore;"), "{out}");
}

/// A policy whose process fails at once (`external:false`) beside two good
/// ones: every other run finishes into the table and `--json`, each failed
/// run is one `error:` line naming the scenario, the policy and the seed,
/// then one line saying what became of the rest (exit 2).
#[test]
fn compare_names_each_failed_run_by_scenario_policy_and_seed() {
    let d = tempfile::tempdir().unwrap();
    let json = d.path().join("cmp.json");
    let o = slotsim(&[
        "compare",
        FIG45,
        "--policies",
        "fifo,external:false,fair",
        "--seeds",
        "2",
        "--json",
        json.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert_no_panic(&err);
    let errors: Vec<&str> = err.lines().filter(|l| l.starts_with("error: ")).collect();
    assert_eq!(errors.len(), 3, "{err}");
    for (line, seed) in errors.iter().zip([1, 2]) {
        let want = format!("error: {FIG45}: policy external:false, seed {seed}: policy \"false\"");
        assert!(line.starts_with(&want), "{line}");
    }
    assert!(
        errors[2].contains("2 of 6 runs failed; the table and outputs hold the other 4"),
        "{}",
        errors[2]
    );
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let cells: Vec<(String, u64)> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            assert!(s.get("partial").is_none_or(|p| p == false), "{s}");
            (
                s["policy"].as_str().unwrap().to_string(),
                s["seed"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        cells,
        [("fifo", 1), ("fifo", 2), ("fair", 1), ("fair", 2)]
            .map(|(p, s)| (p.to_string(), s as u64))
    );
    // Nothing but the file itself is left in its directory.
    let names: Vec<String> = std::fs::read_dir(d.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["cmp.json"]);
}

/// A `compare` none of whose runs finishes writes nothing: a `--json` file
/// and a `--plot` figure already there keep their bytes, and nothing is
/// left beside them.
#[test]
fn compare_whose_every_run_fails_leaves_existing_outputs_untouched() {
    let d = tempfile::tempdir().unwrap();
    let json = d.path().join("cmp.json");
    let plots = d.path().join("plots");
    std::fs::create_dir(&plots).unwrap();
    let svg = plots.join("turnaround_cdf.svg");
    std::fs::write(&json, "[\"results of yesterday\"]\n").unwrap();
    std::fs::write(&svg, "<svg>yesterday</svg>\n").unwrap();
    let o = slotsim(&[
        "compare",
        FIG45,
        "--policy",
        "external:false",
        "--policy",
        "external[label=nope]:false",
        "--seeds",
        "2",
        "--json",
        json.to_str().unwrap(),
        "--plot",
        plots.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    let errors: Vec<&str> = err.lines().filter(|l| l.starts_with("error: ")).collect();
    assert_eq!(errors.len(), 5, "{err}");
    assert!(
        errors[4].starts_with("error: every run failed (4 of 4)"),
        "{err}"
    );
    assert_eq!(
        std::fs::read_to_string(&json).unwrap(),
        "[\"results of yesterday\"]\n"
    );
    assert_eq!(
        std::fs::read_to_string(&svg).unwrap(),
        "<svg>yesterday</svg>\n"
    );
    assert_eq!(std::fs::read_dir(d.path()).unwrap().count(), 2);
    assert_eq!(std::fs::read_dir(&plots).unwrap().count(), 1);
}

/// Two external policies that differ only at the end of their command
/// keep apart in the plot's legend (shortened in the middle, never losing
/// the job count), and a label names a policy in the table, the legend
/// and `--json`.
#[test]
fn compare_labels_external_policies_apart_in_the_table_and_the_legend() {
    let d = tempfile::tempdir().unwrap();
    let plots = d.path().join("plots");
    let long = "external:python3 clients/python/examples/fifo.py";
    let v2 = "external[protocol=2;timeout=2s]:python3 clients/python/examples/fifo.py --protocol 2";
    let (out, _) = ok(&slotsim(&[
        "compare",
        FIG45,
        "--policy",
        long,
        "--policy",
        v2,
        "--policy",
        "external[label=fifo-py;timeout=5s]:python3 clients/python/examples/fifo.py",
        "--seeds",
        "1",
        "--plot",
        plots.to_str().unwrap(),
        "--json",
        d.path().join("c.json").to_str().unwrap(),
    ]));
    let rows = compare_rows(&out);
    assert_eq!(rows.len(), 3, "{out}");
    assert!(out.contains(&format!("{long} --protocol 2 ")), "{out}");
    assert!(out.contains("\nexternal:fifo-py "), "{out}");
    let svg = std::fs::read_to_string(plots.join("turnaround_cdf.svg")).unwrap();
    let legend: Vec<&str> = svg
        .split('>')
        .filter_map(|t| t.strip_suffix("</text"))
        .map(str::trim)
        .filter(|t| t.ends_with("(3 jobs)"))
        .collect();
    assert_eq!(legend.len(), 3, "{legend:?}");
    assert_ne!(legend[0], legend[1], "{legend:?}");
    assert!(
        legend[1].contains('…') && legend[1].ends_with("2 (3 jobs)"),
        "{legend:?}"
    );
    assert_eq!(legend[2], "external:fifo-py (3 jobs)");
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.path().join("c.json")).unwrap()).unwrap();
    assert_eq!(v[2]["policy"], "external:fifo-py");
}

/// `SLOTSIM_SOLVER_STATS=1`: the solves by their rounds add up to the
/// solves counted, and their shares of the flows filled to 100 %
/// (docs/performance.md's cascades table reads these lines).
#[test]
fn solver_stats_split_the_solves_by_their_rounds() {
    let o = cmd(root())
        .args(["run", "scenarios/quickstart.toml", "--headless"])
        .env("SLOTSIM_SOLVER_STATS", "1")
        .output()
        .unwrap();
    let err = stderr(&o);
    assert!(o.status.success(), "{err}");
    let total: u64 = err
        .lines()
        .find_map(|l| {
            l.strip_prefix("solver: ")?
                .split(" solves,")
                .next()?
                .parse()
                .ok()
        })
        .unwrap_or_else(|| panic!("no solver line: {err}"));
    let (mut solves, mut share, mut rows) = (0u64, 0.0f64, 0);
    for l in err.lines().filter(|l| l.contains(" rounds: ")) {
        let (_, rest) = l.split_once(" rounds: ").unwrap();
        solves += rest.split(' ').next().unwrap().parse::<u64>().unwrap();
        let pct = rest.rsplit_once("each (").unwrap().1;
        share += pct.split(" %").next().unwrap().parse::<f64>().unwrap();
        rows += 1;
    }
    assert!(total > 0 && rows > 1, "{err}");
    assert_eq!(solves, total, "{err}");
    assert!((share - 100.0).abs() < 0.1 * rows as f64, "{share}: {err}");
}

#[test]
fn solver_stats_place_every_rate_change_and_the_bottlenecks_by_kind() {
    let o = cmd(root())
        .args([
            "run",
            "scenarios/quickstart.toml",
            "--headless",
            "--until",
            "30s",
        ])
        .env("SLOTSIM_SOLVER_STATS", "1")
        .output()
        .unwrap();
    let err = stderr(&o);
    assert!(o.status.success(), "{err}");
    // Every rate a solve changed is counted once, at the kind of resource
    // its flow froze at (or its own cap): the rows' shares add to 100 %.
    let (mut share, mut rows) = (0.0f64, 0);
    for l in err
        .lines()
        .filter(|l| l.contains("rates changed of flows frozen at "))
    {
        let pct = l.split_once("a solve (").unwrap().1;
        share += pct.split(" %").next().unwrap().parse::<f64>().unwrap();
        rows += 1;
    }
    assert!(rows >= 2, "{err}");
    assert!((share - 100.0).abs() < 0.1 * rows as f64, "{share}: {err}");
    // Under `shared` no flow has a cap of its own: a change counted at no
    // resource would show as one.
    assert!(!err.contains("own caps"), "{err}");
    // Mid-run, flows are bottlenecked somewhere, each row at resources of
    // a kind the cluster has, holding at least one flow each.
    let held: Vec<_> = err
        .lines()
        .filter(|l| l.starts_with("solver: at 30.0 s, "))
        .collect();
    assert!(!held.is_empty(), "{err}");
    for l in held {
        let words: Vec<&str> = l.split(' ').collect();
        let (n, flows): (u32, u32) = (
            words[4].parse().unwrap(),
            words[words.len() - 5].parse().unwrap(),
        );
        assert!(n > 0 && flows >= n, "{l}");
        assert!(["disks", "NIC", "rack"].contains(&words[5]), "{l}");
    }
}

/// A `switch_policy` with `run = N` is the N-th policy's alone in
/// `compare` (as side by side): that run equals a headless run of its
/// policy with the switch, the other a headless run with no switch at all,
/// and the switch did change its run.
#[test]
fn compare_applies_a_run_n_switch_to_that_run_alone() {
    let dir = tempdir();
    let base = std::fs::read_to_string(root().join(FIG45)).unwrap();
    let event = "\n[[events]]\nat = \"10s\"\naction = \"switch_policy\"\npolicy = \"fair\"\n";
    let tagged = write(
        dir.path(),
        "tagged.toml",
        format!("{base}{event}run = 2\n").as_bytes(),
    );
    let plain = write(
        dir.path(),
        "plain.toml",
        format!("{base}{event}").as_bytes(),
    );
    let path = |p: &Path| p.display().to_string();
    let (out, _) = ok(&slotsim(&[
        "compare",
        &path(&tagged),
        "--policies",
        "fifo,sjf",
        "--seeds",
        "1",
        "--json",
        "-",
    ]));
    let cells = parse_json(&out);
    let cells = cells.as_array().unwrap();
    let headless = |file: &str, policy: &str| {
        let mut v = run_json(&[file, "--policy", policy, "--seed", "1"]);
        v.as_object_mut().unwrap().remove("version");
        v
    };
    let cell = |i: usize| {
        let mut v = cells[i].clone();
        v.as_object_mut().unwrap().remove("version");
        v
    };
    assert_eq!(cell(0), headless(FIG45, "fifo"), "run 1 never switches");
    assert_eq!(cell(1), headless(&path(&plain), "sjf"), "run 2 switches");
    assert_ne!(
        cell(1)["mean_turnaround_s"],
        headless(FIG45, "sjf")["mean_turnaround_s"],
        "the switch changes run 2"
    );
}

#[test]
fn a_run_n_event_is_refused_where_it_has_no_run_to_go_to() {
    let dir = tempdir();
    let base = std::fs::read_to_string(root().join(FIG45)).unwrap();
    let lines = base.lines().count();
    let with = |extra: &str| {
        let text = format!("{base}\n[[events]]\nat = \"10s\"\n{extra}\n");
        path_of(&write(dir.path(), "s.toml", text.as_bytes()))
    };
    fn path_of(p: &Path) -> String {
        p.display().to_string()
    }
    // A single run: the run key's place.
    let f = with("action = \"switch_policy\"\npolicy = \"fair\"\nrun = 2");
    let line = assert_input_error(&slotsim(&["run", &f, "--headless"]), "error: ");
    let (l, c, msg) = file_error_position(&line, &f);
    assert_eq!((l, c), (lines + 6, 7), "{line}");
    assert!(
        msg.contains("single run") && msg.contains("compare"),
        "{msg}"
    );
    // More runs named than policies compared.
    let line = assert_input_error(
        &slotsim(&["compare", &f, "--policies", "fifo", "--seeds", "1"]),
        "error: ",
    );
    assert!(line.contains("run = 2, but 1 policy runs"), "{line}");
    // Out of range, and on an action that takes no run.
    let f = with("action = \"switch_policy\"\npolicy = \"fair\"\nrun = 5");
    let line = assert_input_error(&slotsim(&["validate", &f]), "error: ");
    assert!(line.contains("runs 1 to 4"), "{line}");
    let f = with("action = \"fail_node\"\nnode = 1\nrun = 1");
    let line = assert_input_error(&slotsim(&["validate", &f]), "error: ");
    assert!(
        line.contains("run is only used by action = \"switch_policy\""),
        "{line}"
    );
}

/// `--set KEY=VALUE` is a sweep override from the command line: the same
/// run as the file with the key edited, on run, compare and validate, and
/// its mistakes one line each.
#[test]
fn set_overrides_a_key_as_editing_the_file_would() {
    let dir = tempdir();
    const QS: &str = "scenarios/quickstart.toml";
    let text = std::fs::read_to_string(root().join(QS)).unwrap();
    let edited = text.replacen("\nseed = 7\n", "\nseed = 11\n", 1);
    assert_ne!(edited, text, "the edit took");
    let edited = write(dir.path(), "edited.toml", edited.as_bytes());
    let mut by_set = run_json(&[QS, "--set", "seed=11"]);
    let mut by_file = run_json(&[&edited.display().to_string()]);
    let plain = run_json(&[QS]);
    for v in [&mut by_set, &mut by_file] {
        v.as_object_mut().unwrap().remove("version");
    }
    assert_eq!(by_set["config"], by_file["config"]);
    assert_eq!(by_set["makespan_s"], by_file["makespan_s"]);
    assert_ne!(
        by_set["heartbeats"], plain["heartbeats"],
        "the key changed the run"
    );
    let (out, _) = ok(&slotsim(&[
        "compare",
        QS,
        "--policies",
        "fifo",
        "--seeds",
        "1",
        "--json",
        "-",
        "--set",
        "network.nic_mbps=62.5",
    ]));
    let cell = &parse_json(&out)[0];
    assert_eq!(cell["config"]["network"]["nic_mbps"], 62.5);
    let (out, _) = ok(&slotsim(&["validate", QS, "--set", "cluster.nodes=7"]));
    assert!(out.contains("7 nodes"), "{out}");
    for (bad, says) in [
        ("nokey", "is not KEY=VALUE"),
        ("cluster.nodes=0", "cluster.nodes=0: "),
        ("jobs.99.maps=3", "index 99 is out of range"),
    ] {
        let line = assert_input_error(
            &slotsim(&["run", QS, "--headless", "--set", bad]),
            "error: --set: ",
        );
        assert!(line.contains(says), "{bad}: {line}");
    }
}

/// A name that is no policy but a variant of one (or the engine's own
/// speculation) is told what runs it, not a name spelt alike; the spec
/// it is told runs.
#[test]
fn an_unknown_policy_that_is_a_variant_is_told_its_spec() {
    let line = assert_input_error(
        &slotsim(&[
            "compare",
            "scenarios/yarn-quickstart.toml",
            "--policies",
            "drf",
        ]),
        "error: --policies: ",
    );
    assert!(
        line.contains("it is a variant: yarn-fair[scheduling_policy=drf];"),
        "{line}"
    );
    assert!(!line.contains("did you mean"), "{line}");
    ok(&slotsim(&[
        "run",
        "scenarios/yarn-quickstart.toml",
        "--headless",
        "--policy",
        "yarn-fair[scheduling_policy=drf]",
    ]));
    let line = assert_input_error(
        &slotsim(&["run", "--headless", "--policy", "late"]),
        "error: ",
    );
    assert!(line.contains("--set tasks.speculation=late"), "{line}");
    let line = assert_input_error(
        &slotsim(&["run", "--headless", "--policy", "fiffo"]),
        "error: ",
    );
    assert!(line.contains("did you mean \"fifo\""), "{line}");
}

/// Side by side (`run --policies a,b`): every mistake one line, exit 2,
/// before any terminal is needed.
#[test]
fn side_by_side_mistakes_are_one_line_each() {
    for (args, needle) in [
        (
            vec!["run", QUICKSTART, "--policies", "fifo,nosuch"],
            "nosuch",
        ),
        (
            vec![
                "run",
                QUICKSTART,
                "--policies",
                "fifo,fair,sjf,fair[slowstart=1],capacity",
            ],
            "5 policies given; expected 2 to 4 side by side",
        ),
        (
            vec!["run", QUICKSTART, "--headless", "--policies", "fifo,fair"],
            "slotsim compare",
        ),
        (
            vec!["run", QUICKSTART, "--policy", "fifo", "--policy", "fifo"],
            "repeats policy 1",
        ),
        (
            vec![
                "record",
                QUICKSTART,
                "--policies",
                "fifo,fair,a,b,c",
                "--out",
                "x.cast",
            ],
            "5 policies given",
        ),
        (
            vec![
                "run",
                QUICKSTART,
                "--policies",
                "fifo,fair",
                "--trace",
                "t.jsonl",
            ],
            "side by side",
        ),
    ] {
        let o = slotsim(&args);
        let line = assert_input_error(&o, "error: ");
        assert!(line.contains(needle), "{args:?}: {line}");
    }
}

/// `record --policies fifo,fair` draws the runs side by side, the same
/// bytes every time: `docs/side-by-side.cast` is what the README's
/// command makes today.
#[test]
fn a_side_by_side_recording_is_deterministic_and_current() {
    let dir = tempdir();
    let args = [
        "--policies",
        "fifo,fair",
        "--size",
        "100x30",
        "--fps",
        "10",
        "--speed",
        "20",
        "--until",
        "300s",
        "--keys",
        "6s,3,5s,1",
    ];
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    assert!(
        readme.contains("--policies fifo,fair --out side-by-side.cast")
            && readme
                .contains("--size 100x30 --fps 10 --speed 20 --until 300s --keys \"6s,3,5s,1\""),
        "the README's side-by-side record command is the one checked here"
    );
    let rec = |name: &str| {
        let out = dir.path().join(name);
        let mut all = vec!["record", QUICKSTART, "--out", out.to_str().unwrap()];
        all.extend(args);
        ok(&slotsim(&all));
        std::fs::read(out).unwrap()
    };
    let (a, b) = (rec("a.cast"), rec("b.cast"));
    assert!(a == b, "two recordings differ");
    let text = String::from_utf8(a.clone()).unwrap();
    assert!(text.contains("2 runs side by side") && text.contains("Jobs side by side"));
    let bundled = std::fs::read(root().join("docs/side-by-side.cast")).unwrap();
    assert!(
        a == bundled,
        "docs/side-by-side.cast is stale: regenerate it with the README's command"
    );
}

/// Every lesson's GIF in docs/img/lessons/ is what docs/lessons.md's
/// `slotsim record` command for it writes today (as for the README's demo),
/// and every lesson has one.
#[test]
fn every_lessons_gif_is_current() {
    let dir = tempdir();
    let page = std::fs::read_to_string(root().join("docs/lessons.md")).unwrap();
    let mut n = 0;
    for line in page
        .lines()
        .filter(|l| l.starts_with("slotsim record scenarios/lessons/"))
    {
        let mut words = crate::readme::words(line);
        let at = words.iter().position(|w| w == "--out").unwrap();
        let gif = words[at + 1].clone();
        assert!(
            gif.starts_with("docs/img/lessons/") && gif.ends_with(".gif"),
            "{line}"
        );
        let fresh = dir.path().join(format!("{n}.gif"));
        words[at + 1] = fresh.display().to_string();
        let out = Command::new(env!("CARGO_BIN_EXE_slotsim"))
            .current_dir(root())
            .args(&words[1..])
            .output()
            .unwrap();
        assert!(out.status.success(), "`{line}`: {}", stderr(&out));
        assert!(
            std::fs::read(&fresh).unwrap() == std::fs::read(root().join(&gif)).unwrap(),
            "{gif} is stale: regenerate it with `{line}`"
        );
        assert!(
            page.contains(&format!("]({})", gif.trim_start_matches("docs/"))),
            "{gif} is not shown"
        );
        n += 1;
    }
    let lessons = std::fs::read_dir(root().join("scenarios/lessons"))
        .unwrap()
        .count();
    assert_eq!(n, lessons, "one GIF per lesson");
}

/// The summary a headless run (and a quit) prints keeps to 80 columns,
/// a long policy label cut in the middle.
#[test]
fn the_summary_keeps_to_80_columns() {
    let long = "external[protocol=2;label=a-very-long-label-for-an-external-policy-that-goes-on]:python3 clients/python/examples/fifo.py --protocol 2";
    for policy in ["fair", long] {
        let (out, _) = ok(&slotsim(&[
            "run",
            QUICKSTART,
            "--headless",
            "--policy",
            policy,
        ]));
        for line in out.lines() {
            assert!(
                line.chars().count() <= 80,
                "{} chars: {line}",
                line.chars().count()
            );
        }
    }
}

/// Under the capacity schedulers `validate` says what surprises: an unused
/// `default` queue that takes its share, and a user limit of 1.
#[test]
fn validate_notes_capacitys_default_queue_and_user_limit() {
    let dir = tempdir();
    let p = dir.path().join("cap.toml");
    std::fs::write(
        &p,
        "[cluster]\nnodes = 4\nracks = 1\nmap_slots = 2\nreduce_slots = 1\n\
         [scheduler]\npolicy = \"capacity\"\n\
         [[pools]]\nname = \"a\"\n[[pools]]\nname = \"b\"\nuser_limit_factor = 4\n\
         [[jobs]]\nname = \"x\"\nprofile = \"grep\"\nmaps = 4\npool = \"a\"\n\
         [[jobs]]\nname = \"y\"\nprofile = \"grep\"\nmaps = 4\npool = \"b\"\n",
    )
    .unwrap();
    let (out, _) = ok(&slotsim(&["validate", p.to_str().unwrap()]));
    assert!(
        out.contains("note       no job is in the pool default, yet capacity keeps it as a queue"),
        "{out}"
    );
    assert!(
        out.contains("note       user_limit_factor = 1 in a:"),
        "{out}"
    );
    // Under fair, no such notes.
    let fair = std::fs::read_to_string(&p)
        .unwrap()
        .replace("\"capacity\"", "\"fair\"");
    std::fs::write(&p, fair).unwrap();
    let (out, _) = ok(&slotsim(&["validate", p.to_str().unwrap()]));
    assert!(!out.contains("  note "), "{out}");
}

//! Policies in another process (`--policy "external:CMD"`, protocol 1):
//! Hadoop's FIFO written in Python reproduces the built-in `fifo` byte for
//! byte, a policy switched in mid-run adopts the jobs there, its values
//! reach `--inspect`, and every way a policy process can go wrong stops the
//! run with exit 2, one error naming the message, and partial outputs.

use super::same_run::{assert_same_run, without_policy};
use serde_json::Value;
use std::path::Path;
use std::process::{Command, Output};

const FIFO_PY: &str = "external:python3 clients/python/examples/fifo.py";

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn slotsim(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_slotsim"))
        .current_dir(root())
        .env("RUST_BACKTRACE", "1")
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("cannot start slotsim {args:?}: {e}"))
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Runs `scenario` headless under `policy` with `--json` and `--trace`
/// (plus `extra`); returns the summary and the trace lines.
fn run(dir: &Path, scenario: &str, policy: &str, extra: &[&str]) -> (Value, Vec<Value>) {
    let json = dir.join("out.json");
    let trace = dir.join("out.trace");
    let mut args = vec![
        "run",
        scenario,
        "--headless",
        "--policy",
        policy,
        "--json",
        json.to_str().unwrap(),
        "--trace",
        trace.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    let o = slotsim(&args);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{policy} on {scenario}\n--- stderr\n{}",
        text(&o.stderr)
    );
    let sum: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let lines = std::fs::read_to_string(&trace)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    (sum, lines)
}

#[test]
fn fifo_py_reproduces_the_builtin_fifo_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    for scenario in [
        "scenarios/quickstart.toml",
        "scenarios/delay-scheduling.toml",
        "tests/external/poisson-failures.toml",
    ] {
        let builtin = run(dir.path(), scenario, "fifo", &[]);
        let external = run(dir.path(), scenario, FIFO_PY, &[]);
        assert_eq!(external.0["policy"], FIFO_PY);
        assert!(external.1.iter().all(|l| l["policy"] == FIFO_PY));
        assert!(
            external.1.iter().any(|l| l["rule"] == "fifo/local"),
            "the reply's rules reach the trace"
        );
        assert_same_run(&builtin, &external, scenario);
        if scenario.contains("failures") {
            // The comparison covers what failures do: attempts that fail,
            // finished maps that lose their output and run again.
            let count = |o: &str| builtin.1.iter().filter(|l| l["outcome"] == o).count();
            assert!(count("failed") >= 5, "failed attempts: {}", count("failed"));
            assert!(
                count("killed") >= 3,
                "lost map outputs: {}",
                count("killed")
            );
            assert_eq!(builtin.0["jobs"].as_array().unwrap().len(), 100);
            // The summary counts them as the trace shows them.
            assert_eq!(builtin.0["attempts_failed"], count("failed"));
            assert_eq!(builtin.0["attempts_killed"], count("killed"));
        }
    }
}

/// The built-in `sjf` — added as docs/policies.md's "Adding a policy" says,
/// one file and one registry line — and the Python client's `sjf.py` make
/// the same decisions: typed slots, unified containers, and failures that
/// put tasks back.
#[test]
fn sjf_py_and_the_builtin_sjf_make_the_same_run() {
    const SJF_PY: &str = "external:python3 clients/python/examples/sjf.py";
    let dir = tempfile::tempdir().unwrap();
    let unified = dir.path().join("unified.toml");
    let text = std::fs::read_to_string(root().join("scenarios/quickstart.toml"))
        .unwrap()
        .replace("slot_model = \"typed\"", "slot_model = \"unified\"");
    std::fs::write(&unified, text).unwrap();
    for scenario in [
        "scenarios/quickstart.toml",
        unified.to_str().unwrap(),
        "tests/external/poisson-failures.toml",
    ] {
        let builtin = run(dir.path(), scenario, "sjf", &[]);
        let external = run(dir.path(), scenario, SJF_PY, &[]);
        assert!(
            builtin.1.iter().any(|l| l["rule"] == "sjf/node"),
            "{scenario}: node-local maps"
        );
        assert_same_run(&builtin, &external, scenario);
        let rules = |r: &(Value, Vec<Value>)| -> Vec<Value> {
            r.1.iter().map(|l| l["rule"].clone()).collect()
        };
        assert_eq!(rules(&builtin), rules(&external), "{scenario}: the rules");
    }
}

/// A switch to Python's FIFO mid-run and back gives the run the built-in
/// FIFO gives with the same switches: the policy switched in hears of the
/// jobs there with what is done and running marked.
#[test]
fn a_policy_switched_in_mid_run_adopts_the_jobs_there() {
    let dir = tempfile::tempdir().unwrap();
    let base =
        std::fs::read_to_string(root().join("tests/external/poisson-failures.toml")).unwrap();
    let with = |to: &str| {
        let path = dir.path().join(format!("switch-{}.toml", to.len()));
        let text = format!(
            "{base}\n[[events]]\nat = \"150s\"\naction = \"switch_policy\"\npolicy = \"{to}\"\n\n[[events]]\nat = \"400s\"\naction = \"switch_policy\"\npolicy = \"fifo\"\n"
        );
        std::fs::write(&path, text).unwrap();
        path
    };
    let builtin = with("fifo");
    let external = with(FIFO_PY);
    let a = run(dir.path(), builtin.to_str().unwrap(), "fifo", &[]);
    let b = run(dir.path(), external.to_str().unwrap(), "fifo", &[]);
    let switches = b.0["policy_switches"].as_array().unwrap();
    assert_eq!(switches.len(), 2);
    assert_eq!(switches[0]["to"], FIFO_PY);
    assert_eq!(switches[1]["from"], FIFO_PY);
    let by_external = b.1.iter().filter(|l| l["policy"] == FIFO_PY).count();
    assert!(
        by_external > 100,
        "{by_external} attempts launched by the switched-in policy"
    );
    assert_same_run(&a, &b, "switched to fifo.py at 150 s and back at 400 s");
}

#[test]
fn the_external_policys_values_reach_inspect() {
    let dir = tempfile::tempdir().unwrap();
    let ins = dir.path().join("inspect.jsonl");
    let (sum, _) = run(
        dir.path(),
        "scenarios/quickstart.toml",
        FIFO_PY,
        &["--inspect", ins.to_str().unwrap()],
    );
    assert!(sum["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .all(|j| !j["finish_s"].is_null()));
    let lines: Vec<Value> = std::fs::read_to_string(&ins)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(lines.len() > 50);
    let with_jobs: Vec<&Value> = lines
        .iter()
        .filter(|l| l["jobs"].as_object().is_some_and(|j| !j.is_empty()))
        .collect();
    assert!(!with_jobs.is_empty());
    for l in &with_jobs {
        assert_eq!(l["policy"], FIFO_PY);
        assert!(l["cluster"]["map_load_factor"].is_number(), "{l}");
        for (_, v) in l["jobs"].as_object().unwrap() {
            assert!(v["order"].is_u64() && v["pending_maps"].is_u64(), "{v}");
        }
    }
    // The head of the queue is the job first in order.
    let first = with_jobs[0]["jobs"].as_object().unwrap();
    assert!(first.values().any(|v| v["order"] == 0));
}

#[test]
fn a_policy_written_from_the_protocol_alone_runs() {
    let dir = tempfile::tempdir().unwrap();
    let (sum, trace) = run(
        dir.path(),
        "scenarios/quickstart.toml",
        "external:python3 clients/python/examples/minimal.py",
        &[],
    );
    let jobs = sum["jobs"].as_array().unwrap();
    assert_eq!(jobs.len(), 16);
    assert!(jobs.iter().all(|j| !j["finish_s"].is_null()));
    let tasks: Vec<&Value> = trace
        .iter()
        .filter(|l| l["kind"] == "map" || l["kind"] == "reduce")
        .collect();
    assert!(tasks.len() > 300);
    assert!(
        tasks.iter().all(|l| l["rule"] == "external"),
        "default rule"
    );
}

/// Runs quickstart under a Python policy whose heartbeat handling is
/// `body` (it has `m`, the message, `jobs` announced so far and `n`, the
/// heartbeat's number), with a timeout of 1 s; returns the run's output
/// and its `--json`, if written.
fn bad_policy(dir: &Path, name: &str, body: &str) -> (Output, Option<Value>) {
    let script = dir.join(format!("{name}.py"));
    std::fs::write(
        &script,
        format!(
            "import json, sys, time\njobs = []\nn = 0\nfor line in sys.stdin:\n    m = json.loads(line)\n    if m['type'] == 'job_submitted':\n        jobs.append(m['job'])\n    if m['type'] != 'heartbeat':\n        continue\n    n += 1\n{body}\n    sys.stdout.flush()\n"
        ),
    )
    .unwrap();
    let quickstart = std::fs::read_to_string(root().join("scenarios/quickstart.toml")).unwrap();
    let scenario = dir.join(format!("{name}.toml"));
    std::fs::write(
        &scenario,
        quickstart.replace(
            "[scheduler.fair]",
            &format!(
                "[scheduler.external]\ncommand = [\"python3\", \"{}\"]\ntimeout = \"1s\"\n\n[scheduler.fair]",
                script.display()
            ),
        ),
    )
    .unwrap();
    let json = dir.join(format!("{name}.json"));
    let o = slotsim(&[
        "run",
        scenario.to_str().unwrap(),
        "--headless",
        "--policy",
        "external",
        "--json",
        json.to_str().unwrap(),
    ]);
    let sum = std::fs::read_to_string(&json)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok());
    (o, sum)
}

#[test]
fn every_way_a_policy_process_goes_wrong_stops_the_run_with_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let cases: &[(&str, &str, &str)] = &[
        (
            "full",
            "    free = m['free']['map']\n    print(json.dumps({'launch': [{'job': jobs[0]['id'], 'kind': 'map'}] * (free + 1) if jobs else []}))",
            "which has no free map slot",
        ),
        (
            "unknown",
            "    print(json.dumps({'launch': [{'job': 4242, 'kind': 'map'}]}))",
            "names job 4242, which it was never told of",
        ),
        (
            "garbage",
            "    print('launching everything now')",
            "the reply is not what protocol 1 expects",
        ),
        (
            "misspelt",
            "    print(json.dumps({'lanch': []}))",
            "unknown field `lanch`",
        ),
        (
            "twice",
            "    if jobs and n in (3, 4):\n        print(json.dumps({'launch': [{'job': jobs[0]['id'], 'kind': 'map', 'task': 0}]}))\n    else:\n        print(json.dumps({'launch': []}))",
            "names map 0 of job 0, which is not pending (it is running)",
        ),
        (
            "flood",
            "    while True:\n        sys.stdout.write('x' * (1 << 20))",
            "a reply line longer than 64 MB",
        ),
        (
            "sleeper",
            "    if n == 4:\n        time.sleep(30)\n    print(json.dumps({'launch': []}))",
            "no reply within 1s",
        ),
        (
            "quitter",
            "    if n == 6:\n        sys.stderr.write('policy: giving up\\n')\n        sys.exit(3)\n    print(json.dumps({'launch': []}))",
            "the process exited with status 3 before replying",
        ),
    ];
    for (name, body, want) in cases {
        let started = std::time::Instant::now();
        let (o, sum) = bad_policy(dir.path(), name, body);
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{name}: exit status\n{err}");
        assert!(!err.contains("panicked"), "{name}: {err}");
        let errors: Vec<&str> = err.lines().filter(|l| l.starts_with("error: ")).collect();
        assert_eq!(errors.len(), 1, "{name}: one error\n{err}");
        let e = errors[0];
        assert!(
            e.starts_with("error: policy \"python3 ") && e.contains(": message "),
            "{name}: {e}"
        );
        assert!(e.contains("(heartbeat at "), "{name}: {e}");
        assert!(e.contains(want), "{name}: expected {want:?} in {e}");
        let sum = sum.unwrap_or_else(|| panic!("{name}: no --json written"));
        assert_eq!(sum["partial"], true, "{name}");
        assert!(sum["stopped_at_s"].is_number(), "{name}");
        assert!(
            started.elapsed().as_secs() < 20,
            "{name}: took {:?}",
            started.elapsed()
        );
    }
}

/// The policies docs/write-a-policy.md shows are the files that run: each
/// ```python block opening with `# PATH` is that file, whole.
#[test]
fn the_pages_python_blocks_are_the_example_files() {
    let page = std::fs::read_to_string(root().join("docs/write-a-policy.md")).unwrap();
    let mut shown = 0;
    let mut lines = page.lines();
    while let Some(l) = lines.next() {
        if l.trim() != "```python" {
            continue;
        }
        let block: Vec<&str> = lines.by_ref().take_while(|l| l.trim() != "```").collect();
        let Some(path) = block.first().and_then(|f| f.strip_prefix("# ")) else {
            continue;
        };
        let file = std::fs::read_to_string(root().join(path))
            .unwrap_or_else(|e| panic!("{path}, shown on the page: {e}"));
        let body = block[1..].join("\n");
        assert_eq!(
            body.trim_end(),
            file.trim_end(),
            "{path} as the page shows it"
        );
        shown += 1;
    }
    assert_eq!(shown, 2, "sjf.py and minimal.py");
    let minimal =
        std::fs::read_to_string(root().join("clients/python/examples/minimal.py")).unwrap();
    assert!(
        minimal.lines().count() <= 30,
        "the protocol alone, in 30 lines"
    );
}

/// The Python client's own tests. The Gymnasium environment's need
/// gymnasium and numpy: where `python3` cannot import them (and
/// SLOTSIM_REQUIRE_GYM=1, as CI sets it, is not set) they are the only
/// tests allowed to skip; every other test must run.
#[test]
fn the_python_clients_tests_pass() {
    let has_gym = Command::new("python3")
        .args(["-c", "import gymnasium, numpy"])
        .output()
        .is_ok_and(|o| o.status.success());
    let mut cmd = Command::new("python3");
    cmd.args([
        "-m",
        "unittest",
        "discover",
        "-v",
        "-s",
        "clients/python/tests",
    ])
    .env("SLOTSIM", env!("CARGO_BIN_EXE_slotsim"))
    .current_dir(root());
    if has_gym {
        cmd.env("SLOTSIM_REQUIRE_GYM", "1");
    }
    let o = cmd
        .output()
        .expect("python3 runs (the external policy tests need it)");
    let err = text(&o.stderr);
    assert!(
        o.status.success(),
        "python3 -m unittest discover -s clients/python/tests\n{err}"
    );
    assert!(err.contains("OK"));
    // The serve tests ran (they need the binary, which this test names);
    // only the environment's may skip, and only without gymnasium.
    for line in err.lines().filter(|l| l.contains(" ... skipped")) {
        assert!(
            !has_gym && line.contains("(test_gym."),
            "a test skipped: {line}\n{err}"
        );
    }
}

/// `validate` names the command and starts nothing: a command that would
/// fail to start does not make the scenario invalid.
#[test]
fn validate_names_the_command_and_starts_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let quickstart = std::fs::read_to_string(root().join("scenarios/quickstart.toml")).unwrap();
    let path = dir.path().join("ext.toml");
    std::fs::write(
        &path,
        quickstart
            .replace("policy = \"fair\"", "policy = \"external\"")
            .replace(
                "[scheduler.fair]",
                "[scheduler.external]\ncommand = [\"no-such-program\", \"--flag\"]\n\n[scheduler.fair]",
            ),
    )
    .unwrap();
    let o = slotsim(&["validate", path.to_str().unwrap()]);
    let out = text(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert!(
        out.contains("policy     external:no-such-program --flag ")
            && out.contains("not by validate"),
        "{out}"
    );
    // A run does start it, and says why it cannot.
    let o = slotsim(&["run", path.to_str().unwrap(), "--headless"]);
    assert_eq!(o.status.code(), Some(2));
    let err = text(&o.stderr);
    assert!(
        err.starts_with("error: policy \"no-such-program --flag\": cannot start it: "),
        "{err}"
    );
}

/// A sweep plan names an external policy like any other: its cells run
/// it (each cell its own process, cells in parallel) and give the
/// built-in's results; a policy that fails fails its cells alone (exit 2,
/// each named with its seed), and a rerun retries them.
#[test]
fn a_sweep_runs_external_policies_in_its_cells() {
    let dir = tempfile::tempdir().unwrap();
    let fifo_py = root().join("clients/python/examples/fifo.py");
    let spec = format!("external:python3 {}", fifo_py.display());
    let plan = dir.path().join("plan.toml");
    std::fs::write(
        &plan,
        format!(
            "scenarios = [\"{}\"]\npolicies = [\"fifo\", \"{spec}\"]\nseeds = 2\n",
            root().join("scenarios/quickstart.toml").display()
        ),
    )
    .unwrap();
    let out = dir.path().join("out");
    let o = slotsim(&[
        "sweep",
        plan.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let shard = std::fs::read_to_string(out.join("shard-1-of-1.jsonl")).unwrap();
    let cells: Vec<Value> = shard
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(cells.len(), 4);
    for seed in [1, 2] {
        let of = |policy: &str| {
            let mut c = cells
                .iter()
                .find(|c| c["cell"]["policy"] == policy && c["cell"]["seed"] == seed)
                .unwrap_or_else(|| panic!("{policy}, seed {seed}"))
                .clone();
            let o = c.as_object_mut().unwrap();
            o.remove("cell");
            o.remove("plan");
            without_policy(c)
        };
        assert_eq!(of("fifo"), of(&spec), "seed {seed}");
    }
    // A policy that cannot start fails its cells, and the sweep says which.
    std::fs::write(
        &plan,
        format!(
            "scenarios = [\"{}\"]\npolicies = [\"external:no-such-program\"]\nseeds = 1\n",
            root().join("scenarios/quickstart.toml").display()
        ),
    )
    .unwrap();
    let o = slotsim(&[
        "sweep",
        plan.to_str().unwrap(),
        "--out",
        dir.path().join("out2").to_str().unwrap(),
    ]);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("policy \"no-such-program\": cannot start it"),
        "{err}"
    );
    // Beside a good policy: every other cell is run and written, each
    // failed one named with its seed; running again retries only those.
    std::fs::write(
        &plan,
        format!(
            "scenarios = [\"{}\"]\npolicies = [\"fifo\", \"external:no-such-program\", \"fair\"]\nseeds = 2\n",
            root().join("scenarios/quickstart.toml").display()
        ),
    )
    .unwrap();
    let out3 = dir.path().join("out3");
    let args = [
        "sweep",
        plan.to_str().unwrap(),
        "--out",
        out3.to_str().unwrap(),
    ];
    let o = slotsim(&args);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("2 of 6 cells failed"), "{err}");
    for seed in [1, 2] {
        assert!(
            err.contains(&format!("external:no-such-program, seed {seed}): policy")),
            "{err}"
        );
    }
    let written = |d: &std::path::Path| -> Vec<(String, u64)> {
        std::fs::read_to_string(d.join("shard-1-of-1.jsonl"))
            .unwrap()
            .lines()
            .map(|l| {
                let v: Value = serde_json::from_str(l).unwrap();
                (
                    v["cell"]["policy"].as_str().unwrap().to_string(),
                    v["cell"]["seed"].as_u64().unwrap(),
                )
            })
            .collect()
    };
    let cells = written(&out3);
    assert_eq!(cells.len(), 4, "{cells:?}");
    assert!(cells.iter().all(|c| c.0 != "external:no-such-program"));
    let o = slotsim(&args);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("every cell run failed (2 of 2)"), "{err}");
    assert_eq!(written(&out3).len(), 4);
}

/// Ctrl-C at a terminal signals the whole foreground process group: the
/// run stops as any run does (exit 130, outputs partial), and the policy,
/// in a group of its own, is not killed mid-reply but ended by the run.
#[cfg(unix)]
#[test]
fn ctrl_c_stops_the_run_not_the_policy() {
    use nix::sys::signal::{killpg, Signal};
    use nix::unistd::Pid;
    use std::os::unix::process::CommandExt;
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("out.json");
    let child = Command::new(env!("CARGO_BIN_EXE_slotsim"))
        .current_dir(root())
        .args([
            "run",
            "scenarios/scale-400.toml",
            "--headless",
            "--policy",
            FIFO_PY,
            "--json",
            json.to_str().unwrap(),
        ])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .process_group(0)
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(2500));
    killpg(Pid::from_raw(child.id() as i32), Signal::SIGINT).unwrap();
    let o = child.wait_with_output().unwrap();
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(130), "{err}");
    assert!(err.contains("stopped by SIGINT"), "{err}");
    assert!(!err.contains("error: policy"), "{err}");
    let sum: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(sum["partial"], true);
}

/// `compare` runs policies in parallel: each stderr line a policy writes
/// is passed through whole, after the run it came from.
#[test]
fn compare_names_the_run_on_each_stderr_line() {
    let dir = tempfile::tempdir().unwrap();
    let talk = dir.path().join("talk.py");
    std::fs::write(
        &talk,
        "import sys, json\nfor line in sys.stdin:\n    m = json.loads(line)\n    if m['type'] == 'start':\n        print('hello', m['seed'], file=sys.stderr, flush=True)\n    if m['type'] == 'heartbeat':\n        print(json.dumps({'launch': []}), flush=True)\n    if m['type'] == 'end':\n        break\n",
    )
    .unwrap();
    let spec = format!("external[label=talk]:python3 {}", talk.display());
    let o = slotsim(&[
        "compare",
        root()
            .join("scenarios/fig45-fifo-vs-fair.toml")
            .to_str()
            .unwrap(),
        "--policy",
        &spec,
        "--seeds",
        "2",
    ]);
    let err = text(&o.stderr);
    for seed in [1, 2] {
        assert!(
            err.lines()
                .any(|l| l == format!("[external:talk, seed {seed}] hello {seed}")),
            "{err}"
        );
    }
}

//! External policies speaking protocol 2 (docs/write-a-policy.md): the
//! hello and the sequence numbers (a line written unasked fails at the same
//! message every run), what `start`, `job_submitted`, `task_started`,
//! `task_finished` and heartbeats carry, books a policy keeps from them
//! matching the engine's at every heartbeat, preemption and speculation
//! from a reply, YARN, the errors, and a stalled run naming the policy.

use super::same_run::assert_same_run;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Output};

/// Hadoop's FIFO in Python, speaking protocol 2.
const FIFO_PY2: &str = "external[protocol=2]:python3 clients/python/examples/fifo.py --protocol 2";

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// slotsim with `args`, from the repository's root; policies written with
/// the Python client check their books against every heartbeat.
fn slotsim(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_slotsim"))
        .current_dir(root())
        .env("RUST_BACKTRACE", "1")
        .env("SLOTSIM_CHECK_BOOKS", "1")
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("cannot start slotsim {args:?}: {e}"))
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Runs `scenario` headless under `policy` with `--json` and `--trace`;
/// returns the summary and the trace lines. The run must succeed.
fn run(dir: &Path, scenario: &str, policy: &str) -> (Value, Vec<Value>) {
    let json = dir.join("out.json");
    let trace = dir.join("out.trace");
    let o = slotsim(&[
        "run",
        scenario,
        "--headless",
        "--policy",
        policy,
        "--json",
        json.to_str().unwrap(),
        "--trace",
        trace.to_str().unwrap(),
    ]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{policy} on {scenario}\n--- stderr\n{}",
        text(&o.stderr)
    );
    let sum: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    (sum, lines(&trace))
}

/// Writes `scenario` with its slot model set to unified containers.
fn unified(dir: &Path, scenario: &str) -> String {
    let path = dir.join("unified.toml");
    let text = std::fs::read_to_string(root().join(scenario))
        .unwrap()
        .replace("slot_model = \"typed\"", "slot_model = \"unified\"");
    assert!(text.contains("slot_model = \"unified\""));
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

/// fifo.py speaking protocol 2 — asked on every heartbeat, full nodes
/// included, told of every attempt — makes the built-in `fifo`'s run on
/// typed slots, unified containers and with failures; the books the
/// client keeps from protocol 2's messages (each node's free capacity and
/// running attempts) are the engine's at every heartbeat
/// (`SLOTSIM_CHECK_BOOKS`).
#[test]
fn fifo_py_under_protocol_2_makes_the_builtin_fifos_run_and_keeps_its_books() {
    let dir = tempfile::tempdir().unwrap();
    let unified = unified(dir.path(), "scenarios/quickstart.toml");
    for scenario in [
        "scenarios/quickstart.toml",
        unified.as_str(),
        "tests/external/poisson-failures.toml",
    ] {
        let builtin = run(dir.path(), scenario, "fifo");
        // Asked only where a free slot fits a pending task, it makes the
        // same run.
        let woken = run(dir.path(), scenario, &format!("{FIFO_PY2} --wake work"));
        assert_same_run(&builtin, &woken, &format!("{scenario} --wake work"));
        let external = run(dir.path(), scenario, FIFO_PY2);
        assert_same_run(&builtin, &external, scenario);
        // Its hello and its script are in the run's config.
        let rec = &external.0["config"]["scheduler"]["external"]["policies"];
        assert_eq!(rec.as_array().map(Vec::len), Some(1), "{rec}");
        let rec = &rec[0];
        assert_eq!(rec["name"], "hadoop-fifo");
        assert_eq!(rec["version"], "1.0.3");
        assert_eq!(rec["protocol"], 2);
        assert_eq!(rec["script"], "clients/python/examples/fifo.py");
        let script =
            slotsim::sched::external::Script::read(&root().join("clients/python/examples/fifo.py"))
                .unwrap();
        assert_eq!(rec["script_sha256"], script.sha256.as_str());
    }
}

/// A switch to fifo.py under protocol 2 in the middle of a run and back:
/// the policy switched in hears of the jobs there and of every attempt
/// running (its books hold from its first heartbeat), and the run is the
/// built-in's with the same switches.
#[test]
fn a_protocol_2_policy_switched_in_mid_run_hears_what_runs() {
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
    let external = with(FIFO_PY2);
    let a = run(dir.path(), builtin.to_str().unwrap(), "fifo");
    let b = run(dir.path(), external.to_str().unwrap(), "fifo");
    let by_external = b.1.iter().filter(|l| l["rule"] == "fifo/local").count();
    assert!(by_external > 100, "{by_external} launched by fifo.py");
    assert_same_run(&a, &b, "switched to fifo.py (protocol 2) at 150 s and back");
    // The policy switched out is on the record too.
    let rec = &b.0["config"]["scheduler"]["external"]["policies"][0];
    assert_eq!(rec["name"], "hadoop-fifo", "{}", b.0["config"]);
}

/// fifo.py with every message it reads written to a file (its first
/// argument), speaking protocol 2.
const LOGGED_FIFO: &str = "import json, sys\nsys.path.insert(0, 'clients/python')\nsys.path.insert(0, 'clients/python/examples')\nimport slotsim_policy as sp\nfrom fifo import Fifo\nlog = open(sys.argv[1], 'w')\nclass Logged(Fifo):\n    protocol = 2\n    def handle(self, msg):\n        log.write(json.dumps(msg) + '\\n')\n        log.flush()\n        return super().handle(msg)\nsp.run(Logged())\n";

/// What protocol 2's messages carry, against the run's own outputs: the
/// pools and capacities in `start`, the sizes in `job_submitted`, one
/// `task_started` and one `task_finished` per trace line (job tasks
/// included) with the trace's attempt, node and times, heartbeats numbered
/// 1, 2, 3… whose `running` lists what the trace has running then.
#[test]
fn protocol_2_messages_carry_the_runs_facts() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("logged.py");
    std::fs::write(&script, LOGGED_FIFO).unwrap();
    let log = dir.path().join("messages.jsonl");
    let policy = format!(
        "external[protocol=2]:python3 {} {}",
        script.display(),
        log.display()
    );
    let (sum, trace) = run(dir.path(), "scenarios/quickstart.toml", &policy);
    let msgs = lines(&log);
    let of = |t: &str| -> Vec<&Value> { msgs.iter().filter(|m| m["type"] == t).collect() };

    let start = &msgs[0];
    assert_eq!(start["type"], "start");
    assert_eq!(start["protocol"], 2);
    assert_eq!(start["seq"], 0);
    assert_eq!(start["heartbeat_ms"], 3000);
    let pools: Vec<&str> = start["pools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(pools, ["research", "default"]);
    // Every key of the pool as resolved, as --json's config has it.
    assert_eq!(start["pools"], sum["config"]["pools"]);
    assert_eq!(start["pools"][0]["weight"], 2.0);
    for n in start["nodes"].as_array().unwrap() {
        assert_eq!(n["capacity"], serde_json::json!({"map": 2, "reduce": 2}));
    }

    // Sizes: a job's input is its maps' (8 GB of 128 MB blocks).
    let sort = of("job_submitted")
        .into_iter()
        .find(|m| m["job"]["name"] == "sort-big")
        .unwrap();
    assert_eq!(sort["job"]["profile"], "terasort");
    assert_eq!(sort["job"]["input_bytes"], 8u64 << 30);
    let maps = sort["job"]["maps"].as_array().unwrap();
    assert_eq!(maps.len(), 64);
    assert!(maps.iter().all(|m| m["input_bytes"] == 128u64 << 20));
    assert!(sort["job"].get("asks").is_none(), "asks are YARN's");

    // One task_started and one task_finished per trace line, with its
    // attempt, node and times.
    let key = |job: &str, kind: &str, task: &str, attempt: &Value| {
        format!("{job}/{kind}/{task}/{attempt}")
    };
    let names: std::collections::BTreeMap<u64, String> = of("job_submitted")
        .iter()
        .map(|m| {
            (
                m["job"]["id"].as_u64().unwrap(),
                m["job"]["name"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let task_of = |m: &Value| -> String {
        match m["kind"].as_str().unwrap() {
            "map" => format!("m{}", m["task"]),
            "reduce" => format!("r{}", m["task"]),
            other => other.to_string(),
        }
    };
    let mut traced: Vec<(String, f64, f64, u64)> = trace
        .iter()
        .map(|l| {
            (
                key(
                    l["job"].as_str().unwrap(),
                    l["kind"].as_str().unwrap(),
                    l["task"].as_str().unwrap(),
                    &l["attempt"],
                ),
                l["start_s"].as_f64().unwrap(),
                l["end_s"].as_f64().unwrap(),
                l["node"].as_u64().unwrap(),
            )
        })
        .collect();
    let mut told: Vec<(String, f64, f64, u64)> = of("task_finished")
        .iter()
        .map(|m| {
            let job = &names[&m["job"].as_u64().unwrap()];
            (
                key(job, m["kind"].as_str().unwrap(), &task_of(m), &m["attempt"]),
                m["start_ms"].as_f64().unwrap() / 1000.0,
                m["time_ms"].as_f64().unwrap() / 1000.0,
                m["node"].as_u64().unwrap(),
            )
        })
        .collect();
    traced.sort_by(|a, b| a.0.cmp(&b.0));
    told.sort_by(|a, b| a.0.cmp(&b.0));
    assert!(traced.iter().any(|t| t.0.contains("/setup/")));
    assert_eq!(told, traced, "task_finished against the trace");
    assert_eq!(of("task_started").len(), trace.len());

    // Heartbeats: numbered from 1 in order, asked on full nodes too; each
    // node's running attempts are those the trace has running there.
    let beats = of("heartbeat");
    for (i, b) in beats.iter().enumerate() {
        assert_eq!(b["seq"], i as u64 + 1);
    }
    let mut compared = 0;
    for b in beats.iter().step_by(7) {
        let (t, node) = (b["time_ms"].as_f64().unwrap() / 1000.0, b["node"].as_u64());
        let here: Vec<&Value> = trace
            .iter()
            .filter(|l| l["node"].as_u64() == node)
            .collect();
        // What starts or ends at the heartbeat's instant may come before or
        // after it: such heartbeats are left out.
        if here
            .iter()
            .any(|l| l["start_s"].as_f64() == Some(t) || l["end_s"].as_f64() == Some(t))
        {
            continue;
        }
        let mut want: Vec<String> = here
            .iter()
            .filter(|l| l["start_s"].as_f64().unwrap() < t && l["end_s"].as_f64().unwrap() > t)
            .map(|l| {
                key(
                    l["job"].as_str().unwrap(),
                    l["kind"].as_str().unwrap(),
                    l["task"].as_str().unwrap(),
                    &l["attempt"],
                )
            })
            .collect();
        let mut got: Vec<String> = b["running"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                let job = &names[&r["job"].as_u64().unwrap()];
                key(job, r["kind"].as_str().unwrap(), &task_of(r), &r["attempt"])
            })
            .collect();
        want.sort();
        got.sort();
        assert_eq!(got, want, "running on node {node:?} at {t} s");
        compared += 1;
    }
    assert!(compared > 50, "{compared} heartbeats compared");

    // Each running attempt's progress: in [0, 1], never falling from one
    // heartbeat of its node to the next, the set-up and clean-up tasks
    // without one.
    let mut last: BTreeMap<String, f64> = BTreeMap::new();
    let mut rising = 0;
    for b in &beats {
        for r in b["running"].as_array().unwrap() {
            let kind = r["kind"].as_str().unwrap();
            let Some(p) = r["progress"].as_f64() else {
                assert!(kind == "setup" || kind == "cleanup", "{r}");
                continue;
            };
            assert!((0.0..=1.0).contains(&p), "{r}");
            let k = key(
                &names[&r["job"].as_u64().unwrap()],
                kind,
                &task_of(r),
                &r["attempt"],
            );
            if let Some(&before) = last.get(&k) {
                assert!(p >= before, "{k}: progress {before} then {p}");
                rising += usize::from(p > before);
            }
            last.insert(k, p);
        }
    }
    assert!(rising > 100, "{rising} rises seen");
}

/// Runs quickstart under the Python program `script` (protocol 2 unless
/// the spec says otherwise), with a timeout of 2 s; returns the output and
/// the `--json`, if written.
fn bad_run(dir: &Path, name: &str, script: &str, spec: &str) -> (Output, Option<Value>) {
    let path = dir.join(format!("{name}.py"));
    std::fs::write(&path, script).unwrap();
    let json = dir.join(format!("{name}.json"));
    let policy = format!("{spec}:python3 {}", path.display());
    let o = slotsim(&[
        "run",
        "scenarios/quickstart.toml",
        "--headless",
        "--policy",
        &policy,
        "--json",
        json.to_str().unwrap(),
    ]);
    let sum = std::fs::read_to_string(&json)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok());
    (o, sum)
}

/// A policy from the protocol alone: answers start with `hello`, then
/// every heartbeat with `reply(m)` (Python: `m` the heartbeat, `jobs` the
/// jobs announced, `n` the heartbeat's number), after running `on(m)`
/// for every message.
fn protocol_policy(on: &str, reply: &str) -> String {
    protocol_policy_saying("", on, reply)
}

/// [`protocol_policy`] whose hello adds `hello` (Python dict entries, as
/// `, 'am': 'policy'`).
fn protocol_policy_saying(hello: &str, on: &str, reply: &str) -> String {
    format!(
        "import json, sys\njobs = []\nn = 0\nfor line in sys.stdin:\n    m = json.loads(line)\n{on}\n    if m['type'] == 'start':\n        print(json.dumps({{'type': 'hello', 'seq': 0, 'name': 't', 'version': '1'{hello}}}), flush=True)\n    if m['type'] == 'job_submitted':\n        jobs.append(m['job'])\n    if m['type'] != 'heartbeat':\n        continue\n    n += 1\n    r = {reply}\n    r.setdefault('seq', m['seq'])\n    r.setdefault('launch', [])\n    print(json.dumps(r), flush=True)\n"
    )
}

/// A policy that writes a line nobody asked for after each job_submitted
/// fails at the same message every run: the line is read before the reply
/// to the next heartbeat and refused for its missing `seq`, whatever the
/// pipes' timing.
#[test]
fn a_line_written_unasked_fails_at_the_same_message_every_run() {
    let dir = tempfile::tempdir().unwrap();
    for (name, stray, want) in [
        (
            "noted",
            "'job noted'",
            "carries no \"seq\" (expected \"seq\":",
        ),
        (
            "eager",
            "json.dumps({'seq': 5, 'launch': []})",
            "carries \"seq\":5, expected ",
        ),
    ] {
        let on =
            format!("    if m['type'] == 'job_submitted':\n        print({stray}, flush=True)");
        let script = protocol_policy(&on, "{}");
        let mut errors = Vec::new();
        for _ in 0..10 {
            let (o, sum) = bad_run(dir.path(), name, &script, "external[protocol=2]");
            let err = text(&o.stderr);
            assert_eq!(o.status.code(), Some(2), "{name}: {err}");
            let e: Vec<&str> = err.lines().filter(|l| l.starts_with("error: ")).collect();
            assert_eq!(e.len(), 1, "{name}: {err}");
            assert!(e[0].contains(want), "{name}: {}", e[0]);
            assert!(e[0].contains("(heartbeat at "), "{name}: {}", e[0]);
            assert_eq!(sum.map(|s| s["partial"].clone()), Some(Value::Bool(true)));
            errors.push(e[0].to_string());
        }
        assert!(
            errors.iter().all(|e| *e == errors[0]),
            "{name}: the same error every run: {errors:#?}"
        );
    }
}

/// Every way a protocol 2 reply or hello can be wrong stops the run: exit
/// 2, one error naming the message, partial outputs.
#[test]
fn protocol_2_replies_that_cannot_be_applied_stop_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let plain = |reply: &str| protocol_policy("", reply);
    let cases: Vec<(&str, String, &str)> = vec![
        (
            "silent",
            // No hello: the first line it writes answers a heartbeat.
            "import json, sys\nfor line in sys.stdin:\n    m = json.loads(line)\n    if m['type'] == 'heartbeat':\n        print(json.dumps({'seq': m['seq'], 'launch': []}), flush=True)\n".into(),
            "): no reply within 2s",
        ),
        (
            "rude",
            "import json, sys\nfor line in sys.stdin:\n    print(json.dumps({'type': 'hi', 'seq': 0, 'name': 'x', 'version': '1'}), flush=True)\n".into(),
            "): the reply to start is not the hello protocol 2 expects",
        ),
        (
            "nameless",
            "import json, sys\nfor line in sys.stdin:\n    print(json.dumps({'type': 'hello', 'seq': 0, 'name': '', 'version': '1'}), flush=True)\n".into(),
            "name must be 1 to 64 printable characters",
        ),
        (
            "ghost",
            plain("{'preempt': [{'job': jobs[0]['id'], 'kind': 'map', 'task': 0, 'attempt': 3}]} if jobs else {}"),
            "preempt 1 of the reply names attempt 3 of map 0 of job 0, which is not running",
        ),
        (
            "copycat",
            plain("{'speculate': [{'job': jobs[0]['id'], 'kind': 'map', 'task': 63}]} if jobs else {}"),
            "speculate 1 of the reply names map 63 of job 0, which is not running",
        ),
        (
            "sized",
            plain("{'launch': [{'job': jobs[0]['id'], 'kind': 'map', 'container': {'memory_mb': 1024, 'vcores': 1}}]} if jobs else {}"),
            "launch 1 of the reply gives a container, which only slot_model = \"yarn\" has",
        ),
        (
            "misspelt",
            plain("{'preemt': []}"),
            "the reply is not what protocol 2 expects (unknown field `preemt`",
        ),
        (
            "full",
            plain("{'launch': [{'job': jobs[0]['id'], 'kind': 'map'}] * (m['free']['map'] + 1) if jobs else []}"),
            "which has no free map slot",
        ),
        (
            "master",
            plain("{'launch': [{'job': jobs[0]['id'], 'kind': 'am'}]} if jobs else {}"),
            "launch 1 of the reply is of kind \"am\": only slot_model = \"yarn\" has ApplicationMasters",
        ),
        (
            "placer",
            protocol_policy_saying(", 'am': 'policy'", "", "{}"),
            "its hello says \"am\":\"policy\", but only slot_model = \"yarn\" has ApplicationMasters to place",
        ),
        (
            "forgetful",
            protocol_policy_saying(", 'files': ['no/such/params.py']", "", "{}"),
            "its hello names file \"no/such/params.py\" in \"files\", which is not a readable file",
        ),
        (
            "sleepy",
            protocol_policy_saying(", 'wake': 'never'", "", "{}"),
            "unknown variant `never`, expected `every` or `work`",
        ),
    ];
    for (name, script, want) in &cases {
        let (o, sum) = bad_run(dir.path(), name, script, "external[protocol=2;timeout=2s]");
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{name}: {err}");
        assert!(!err.contains("panicked"), "{name}: {err}");
        let e: Vec<&str> = err.lines().filter(|l| l.starts_with("error: ")).collect();
        assert_eq!(e.len(), 1, "{name}: {err}");
        assert!(
            e[0].starts_with("error: policy \"python3 ") && e[0].contains(": message "),
            "{name}: {}",
            e[0]
        );
        assert!(e[0].contains(want), "{name}: expected {want:?} in {}", e[0]);
        let hello = [
            "silent",
            "rude",
            "nameless",
            "placer",
            "forgetful",
            "sleepy",
        ]
        .contains(name);
        assert_eq!(e[0].contains("(start at "), hello, "{name}: {}", e[0]);
        assert_eq!(e[0].contains("(heartbeat at "), !hello, "{name}: {}", e[0]);
        let sum = sum.unwrap_or_else(|| panic!("{name}: no --json"));
        assert_eq!(sum["partial"], true, "{name}");
    }
    // A protocol 1 policy told protocol 2 by the client: its error names
    // the mismatch (the client refuses a start it does not speak).
    let (o, _) = bad_run(
        dir.path(),
        "mismatch",
        "import os, sys\nsys.path.insert(0, 'clients/python/examples')\nsys.path.insert(0, 'clients/python')\nfrom fifo import Fifo\nimport slotsim_policy as sp\nsp.run(Fifo())\n",
        "external[protocol=2;timeout=2s]",
    );
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("slotsim speaks protocol 2 but this policy speaks protocol 1"),
        "{err}"
    );
}

/// Hadoop 1.x fair-scheduler min-share preemption in Python (simplified):
/// the pool starved past its timeout takes 4 map slots back from the big
/// job, whose killed attempts show in `--trace` with the rule they were
/// launched by, run again later, and the urgent job finishes in minutes
/// rather than after the hour-long maps. The big job's maps and reduces
/// fill every slot: the policy preempts from heartbeats of full nodes,
/// which protocol 2 asks it about too.
#[test]
fn fair_preempt_py_takes_a_starved_pools_min_share_back() {
    let dir = tempfile::tempdir().unwrap();
    let policy = "external[protocol=2]:python3 clients/python/examples/fair_preempt.py";
    let (sum, trace) = run(dir.path(), "tests/external/preemption.toml", policy);
    let killed: Vec<&Value> = trace.iter().filter(|l| l["outcome"] == "killed").collect();
    assert_eq!(killed.len(), 4, "prod's min share");
    for k in &killed {
        assert_eq!(k["job"], "big");
        assert_eq!(
            k["policy"],
            "external:python3 clients/python/examples/fair_preempt.py"
        );
        assert_eq!(k["rule"], "fair-preempt/fair-share");
        // Past the 10 s timeout (urgent came at 5 s), at the 15 s check.
        assert_eq!(k["end_s"], 15.0, "{k}");
        // Its task runs again.
        assert!(
            trace
                .iter()
                .any(|l| l["task"] == k["task"] && l["job"] == "big" && l["attempt"] == 1),
            "{k}"
        );
    }
    let urgent: Vec<&Value> = trace.iter().filter(|l| l["job"] == "urgent").collect();
    assert_eq!(urgent.len(), 8);
    assert!(urgent
        .iter()
        .all(|l| l["rule"] == "fair-preempt/min-share" || l["rule"] == "fair-preempt/fair-share"));
    let jobs = sum["jobs"].as_array().unwrap();
    let u = jobs.iter().find(|j| j["name"] == "urgent").unwrap();
    assert!(u["turnaround_s"].as_f64().unwrap() < 120.0, "{u}");
    assert_eq!(
        sum["config"]["scheduler"]["external"]["policies"][0]["name"],
        "fair-preempt"
    );
}

/// A policy copies running maps onto idle nodes with `speculate`: each
/// copy is a speculative attempt with the policy's rule, counted in
/// `speculative.launched`, and where a copy wins its original is killed.
#[test]
fn a_speculate_reply_launches_copies_with_the_policys_rule() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("copier.py");
    std::fs::write(
        &script,
        "import os, sys\nsys.path.insert(0, 'clients/python')\nimport slotsim_policy as sp\n\nclass Copier(sp.Policy):\n    protocol = 2\n    def heartbeat(self, node, free, running):\n        for job in self.queue():\n            while free.map and job.pending_maps:\n                self.launch(job, sp.MAP, job.find_map(node)[0], 'copier/map')\n            while (free.reduce and job.pending_reduces and job.reduces_schedulable(self.slowstart)):\n                self.launch(job, sp.REDUCE, rule='copier/reduce')\n        # Idle map slots copy the oldest lone map attempts elsewhere.\n        for a in sorted(self.attempts.values(), key=lambda a: (a.start_ms, a.job, a.task)):\n            if not free.map:\n                break\n            if a.kind != sp.MAP or a.node == node.id or a.job not in self.jobs:\n                continue\n            if len(self.attempts_of(a.job, a.kind, a.task)) == 1:\n                self.speculate(a.job, sp.MAP, a.task, rule='copier/copy')\n\nsp.run(Copier())\n",
    )
    .unwrap();
    let policy = format!("external[protocol=2]:python3 {}", script.display());
    let (sum, trace) = run(dir.path(), "scenarios/quickstart.toml", &policy);
    let copies: Vec<&Value> = trace.iter().filter(|l| l["speculative"] == true).collect();
    assert!(copies.len() > 5, "{} copies", copies.len());
    assert!(copies.iter().all(|l| l["rule"] == "copier/copy"));
    assert_eq!(sum["speculative"]["launched"], copies.len());
    let won = sum["speculative"]["won"].as_u64().unwrap();
    assert!(won > 0, "some copies win");
    // Where a copy won, its original was killed.
    let killed = trace
        .iter()
        .filter(|l| l["outcome"] == "killed" && l["speculative"] == false)
        .count() as u64;
    assert!(killed >= won, "{killed} originals killed, {won} copies won");
    // Never on the node of the attempt it copies.
    for c in &copies {
        assert!(!trace.iter().any(|l| l["job"] == c["job"]
            && l["task"] == c["task"]
            && l["speculative"] == false
            && l["node"] == c["node"]
            && l["start_s"].as_f64() <= c["start_s"].as_f64()
            && l["end_s"].as_f64() >= c["start_s"].as_f64()));
    }
}

/// A policy that launches nothing: the run ends stalled, and the summary
/// names the external policy rather than the pools.
#[test]
fn a_stalled_run_names_the_external_policy() {
    let dir = tempfile::tempdir().unwrap();
    let (o, sum) = bad_run(
        dir.path(),
        "idle",
        &protocol_policy("", "{}"),
        "external[protocol=2;label=idle]",
    );
    let out = text(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert!(
        out.contains("stalled: 16 job(s) can never run")
            && out.contains("(the external policy external:idle left their tasks unlaunched)"),
        "{out}"
    );
    assert!(!out.contains("pools' max shares"), "{out}");
    assert_eq!(sum.unwrap()["stalled"], true);
}

/// How a run is told the protocol: the spec, `[scheduler.external]
/// protocol`, protocol 1 refused on YARN with why, other versions refused.
#[test]
fn the_protocol_is_chosen_by_spec_or_table_and_checked() {
    let dir = tempfile::tempdir().unwrap();
    let quickstart = std::fs::read_to_string(root().join("scenarios/quickstart.toml")).unwrap();
    let path = dir.path().join("table.toml");
    std::fs::write(
        &path,
        quickstart.replace(
            "[scheduler.fair]",
            "[scheduler.external]\ncommand = [\"python3\", \"clients/python/examples/fifo.py\", \"--protocol\", \"2\"]\nprotocol = 2\n\n[scheduler.fair]",
        ),
    )
    .unwrap();
    let a = run(dir.path(), path.to_str().unwrap(), "external");
    let b = run(dir.path(), "scenarios/quickstart.toml", "fifo");
    assert_same_run(&b, &a, "protocol = 2 in [scheduler.external]");

    let o = slotsim(&[
        "run",
        "scenarios/yarn-quickstart.toml",
        "--headless",
        "--policy",
        "external[protocol=1]:python3 clients/python/examples/fifo.py",
    ]);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("on slot_model = \"yarn\" an external policy speaks protocol 2"),
        "{err}"
    );
    let o = slotsim(&[
        "run",
        "scenarios/quickstart.toml",
        "--headless",
        "--policy",
        "external[protocol=3]:python3 x.py",
    ]);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("expected protocol=1 or protocol=2"), "{err}");
}

/// yarn_fifo.py — Hadoop 2.7.3's FifoScheduler in Python, the engine
/// starting each job's ApplicationMaster after its launches — makes the
/// built-in `yarn-fifo`'s runs: its books (memory and vcores free on each
/// node, AMs included) hold at every heartbeat.
#[test]
fn yarn_fifo_py_reproduces_the_builtin_yarn_fifo_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    for (scenario, options) in [
        ("scenarios/yarn-quickstart.toml", ""),
        ("scenarios/yarn-quickstart.toml", " --am policy"),
        ("scenarios/yarn-quickstart.toml", " --am policy --wake work"),
        ("scenarios/sls-sample-yarn.toml", ""),
        ("scenarios/sls-sample-yarn.toml", " --am policy --wake work"),
        // 100 Poisson jobs on NodeManagers that fail and come back: AMs
        // started again (by the policy under --am policy), reduces asked
        // for while their maps run again.
        ("tests/external/poisson-failures-yarn.toml", ""),
        ("tests/external/poisson-failures-yarn.toml", " --am policy"),
        ("tests/external/poisson-failures-yarn.toml", " --wake work"),
    ] {
        let policy = format!("external:python3 clients/python/examples/yarn_fifo.py{options}");
        let policy = policy.as_str();
        let scenario_ = format!("{scenario}{options}");
        let builtin = run(dir.path(), scenario, "yarn-fifo");
        let external = run(dir.path(), scenario, policy);
        assert!(external.1.iter().any(|l| l["kind"] == "am"), "{scenario}");
        if scenario.contains("failures") {
            // The failures happened: attempts failed, AMs among them.
            let failed = |kind: &str| {
                builtin
                    .1
                    .iter()
                    .any(|l| l["outcome"] == "failed" && l["kind"] == kind)
            };
            assert!(failed("am") && failed("map"), "{scenario}");
        }
        assert!(
            external
                .1
                .iter()
                .filter(|l| l["kind"] == "map")
                .all(|l| l["policy"] == policy),
            "{scenario}"
        );
        assert_same_run(&builtin, &external, &scenario_);
        // The rules too: the trace differs in its policy field alone.
        let rules = |r: &(Value, Vec<Value>)| -> Vec<Value> {
            r.1.iter().map(|l| l["rule"].clone()).collect()
        };
        assert_eq!(rules(&builtin), rules(&external), "{scenario}: the rules");
        let rec = &external.0["config"]["scheduler"]["external"]["policies"][0];
        assert_eq!(rec["name"], "yarn-fifo");
        assert_eq!(rec["protocol"], 2, "protocol 2 by default on YARN");
        assert_eq!(
            rec["am"].as_str(),
            options.contains("--am policy").then_some("policy")
        );
        assert_eq!(
            rec["wake"].as_str(),
            options.contains("--wake work").then_some("work")
        );
    }
}

/// drf.py makes the built-in `yarn-fair` with `drf` ordering's run of
/// DRF's worked example: A, B, A, B, A, each in its ask's container.
#[test]
fn drf_py_reproduces_yarn_fair_drf_on_the_worked_example() {
    let dir = tempfile::tempdir().unwrap();
    let builtin = run(dir.path(), "scenarios/drf.toml", "yarn-fair");
    let external = run(
        dir.path(),
        "scenarios/drf.toml",
        "external:python3 clients/python/examples/drf.py",
    );
    assert_same_run(&builtin, &external, "drf.toml");
    for (a, b) in builtin.1.iter().zip(&external.1) {
        assert_eq!(a["rule"], b["rule"]);
    }
    let order: Vec<&str> = external
        .1
        .iter()
        .map(|l| l["job"].as_str().unwrap())
        .collect();
    assert_eq!(order, ["A", "B", "A", "B", "A"]);
    assert_eq!(
        external.1[1]["container"],
        serde_json::json!({"memory_mb": 1024, "vcores": 3})
    );
}

/// drf.py, placing the ApplicationMasters itself (`am = "policy"`, its
/// default), makes the built-in's run of the SLS sample and of the YARN
/// quickstart too, rules included, asked on every heartbeat or only where
/// a container fits; left to the engine's order (`--am engine`) its run
/// of the quickstart parts from the built-in's.
#[test]
fn drf_py_reproduces_yarn_fair_drf_on_the_sls_sample_and_the_quickstart() {
    let dir = tempfile::tempdir().unwrap();
    for scenario in [
        "scenarios/sls-sample-yarn.toml",
        "scenarios/yarn-quickstart.toml",
        "scenarios/drf.toml",
    ] {
        let builtin = run(dir.path(), scenario, "yarn-fair[scheduling_policy=drf]");
        for options in ["", " --wake work"] {
            let external = run(
                dir.path(),
                scenario,
                &format!("external:python3 clients/python/examples/drf.py{options}"),
            );
            // drf.toml's worked example leaves the AMs out.
            let ams = external.1.iter().any(|l| l["kind"] == "am");
            assert_eq!(ams, !scenario.ends_with("drf.toml"), "{scenario}");
            assert_same_run(&builtin, &external, &format!("{scenario}{options}"));
            for (a, b) in builtin.1.iter().zip(&external.1) {
                assert_eq!(a["rule"], b["rule"], "{scenario}{options}");
            }
        }
        if scenario.contains("quickstart") {
            let engine = run(
                dir.path(),
                scenario,
                "external:python3 clients/python/examples/drf.py --am engine",
            );
            let strip = |r: &(Value, Vec<Value>)| -> Vec<Value> {
                r.1.iter()
                    .map(|l| {
                        let mut l = l.clone();
                        let o = l.as_object_mut().unwrap();
                        o.remove("policy");
                        o.remove("rule");
                        l
                    })
                    .collect()
            };
            assert_ne!(
                strip(&builtin),
                strip(&engine),
                "the AMs' order matters here"
            );
        }
    }
}

/// The heartbeats asked of a policy (`SLOTSIM_EXTERNAL_STATS`) on a run of
/// `scenario`, with its trace.
fn asked(dir: &Path, scenario: &str, policy: &str) -> (u64, Vec<Value>) {
    let trace = dir.join("asked.trace");
    let o = Command::new(env!("CARGO_BIN_EXE_slotsim"))
        .current_dir(root())
        .env("SLOTSIM_EXTERNAL_STATS", "1")
        .args(["run", scenario, "--headless", "--policy", policy, "--trace"])
        .arg(&trace)
        .output()
        .unwrap();
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{err}");
    let n = err
        .lines()
        .find_map(|l| {
            l.split(": ")
                .nth(1)?
                .strip_suffix(" heartbeats asked")?
                .parse()
                .ok()
        })
        .or_else(|| {
            err.lines().find_map(|l| {
                l.split(": ")
                    .nth(1)?
                    .split(" heartbeats asked;")
                    .next()?
                    .parse()
                    .ok()
            })
        })
        .unwrap_or_else(|| panic!("no count of heartbeats asked in {err}"));
    let mut trace = lines(&trace);
    for l in &mut trace {
        l.as_object_mut().unwrap().remove("policy");
    }
    (n, trace)
}

/// Under `wake = "work"` a policy is asked only where a container fits:
/// yarn_fifo.py's round trips on the YARN quickstart fall more than 30×
/// and its trace stays the same; a policy that asks `call_me_at` its
/// heartbeat's own instant is asked at every heartbeat again.
#[test]
fn wake_work_asks_only_where_there_is_work_and_call_me_at_wakes_it() {
    let dir = tempfile::tempdir().unwrap();
    let sc = "scenarios/yarn-quickstart.toml";
    let py = "external:python3 clients/python/examples/yarn_fifo.py";
    let (every, t_every) = asked(dir.path(), sc, py);
    let (work, t_work) = asked(dir.path(), sc, &format!("{py} --wake work"));
    assert_eq!(t_every, t_work, "the same trace");
    assert!(work * 30 <= every, "asked {every} heartbeats, then {work}");
    let script = dir.path().join("alarm.py");
    std::fs::write(
        &script,
        format!(
            "import sys\nsys.path.insert(0, '{0}/clients/python/examples')\nsys.path.insert(0, '{0}/clients/python')\nimport slotsim_policy as sp\nfrom yarn_fifo import YarnFifo\nclass Alarm(YarnFifo):\n    wake = 'work'\n    def heartbeat(self, node, free, running):\n        self.call_me_at(self.now_ms)\n        super().heartbeat(node, free, running)\nsp.run(Alarm())\n",
            root().display()
        ),
    )
    .unwrap();
    let (alarm, t_alarm) = asked(
        dir.path(),
        sc,
        &format!("external:python3 {}", script.display()),
    );
    assert_eq!(t_alarm, t_every, "the same trace");
    // Asked where there is work until its first reply, then at every
    // heartbeat.
    assert!(
        alarm + 5 >= every && alarm <= every,
        "asked {alarm} of {every}"
    );
}

/// On YARN, protocol 2 tells of each job's asks (normalised), of its
/// ApplicationMaster's container as an attempt of kind "am" (before the
/// job is submitted to the policy: the AM runs first), and in each
/// heartbeat of memory and vcores free and of what each AM asks for.
#[test]
fn on_yarn_protocol_2_tells_of_asks_containers_and_requests() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("logged.py");
    std::fs::write(
        &script,
        LOGGED_FIFO
            .replace("from fifo import Fifo", "from yarn_fifo import YarnFifo")
            .replace("class Logged(Fifo):", "class Logged(YarnFifo):"),
    )
    .unwrap();
    let log = dir.path().join("messages.jsonl");
    let policy = format!("external:python3 {} {}", script.display(), log.display());
    let (_, trace) = run(dir.path(), "scenarios/yarn-quickstart.toml", &policy);
    let msgs = lines(&log);
    assert_eq!(msgs[0]["slot_model"], "yarn");
    for n in msgs[0]["nodes"].as_array().unwrap() {
        assert_eq!(
            n["capacity"],
            serde_json::json!({"memory_mb": 8192, "vcores": 8})
        );
    }
    let submitted: Vec<&Value> = msgs
        .iter()
        .filter(|m| m["type"] == "job_submitted")
        .collect();
    assert_eq!(submitted.len(), 16);
    let c = |mb: u64, vc: u64| serde_json::json!({"memory_mb": mb, "vcores": vc});
    for s in &submitted {
        assert_eq!(
            s["job"]["asks"],
            serde_json::json!({"map": c(1024, 1), "reduce": c(1024, 1), "am": c(2048, 1)})
        );
        // Its AM started before, in its container.
        let id = &s["job"]["id"];
        let pos = |m: &&Value| std::ptr::eq(*m, *s);
        let before: Vec<&Value> = msgs.iter().take_while(|m| !pos(m)).collect();
        assert!(
            before.iter().any(|m| m["type"] == "task_started"
                && m["kind"] == "am"
                && m["job"] == *id
                && m["container"] == c(2048, 1)),
            "{id}"
        );
    }
    let beats: Vec<&Value> = msgs.iter().filter(|m| m["type"] == "heartbeat").collect();
    assert!(beats
        .iter()
        .all(|b| b["free"]["memory_mb"].is_i64() && b["free"]["vcores"].is_i64()));
    let asking: Vec<&Value> = beats
        .iter()
        .flat_map(|b| b["requests"].as_array().unwrap())
        .collect();
    assert!(asking.iter().any(|r| r["map"].as_u64() > Some(0)));
    assert!(asking.iter().any(|r| r["reduce"].as_u64() > Some(0)));
    // An AM's container is among its node's running attempts.
    assert!(beats.iter().any(|b| b["running"]
        .as_array()
        .unwrap()
        .iter()
        .any(|r| r["kind"] == "am")));
    // Every attempt's container is in the trace as it was started.
    let started = msgs.iter().filter(|m| m["type"] == "task_started").count();
    assert_eq!(started, trace.len());
}

/// On YARN a launch must answer its job's ApplicationMaster's requests and
/// fit its node's memory; a container must hold its task.
#[test]
fn on_yarn_a_launch_beyond_the_requests_or_the_memory_stops_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        (
            "",
            "eager",
            "{'launch': [{'job': jobs[0]['id'], 'kind': 'reduce'}]} if jobs else {}",
            "which its ApplicationMaster has not asked for",
        ),
        (
            "",
            "placing",
            "{'launch': [{'job': jobs[0]['id'], 'kind': 'am'}]} if jobs else {}",
            "launch 1 of the reply starts job 0's ApplicationMaster, which the engine places unless the policy's hello says \"am\":\"policy\"",
        ),
        (
            ", 'am': 'policy'",
            "twice",
            "{'launch': [{'job': jobs[0]['id'], 'kind': 'am'}] * 2} if jobs else {}",
            "launch 2 of the reply starts job 0's ApplicationMaster, which does not wait for a container",
        ),
        (
            ", 'am': 'policy'",
            "hasty",
            "{'launch': [{'job': jobs[0]['id'], 'kind': 'am'}, {'job': jobs[0]['id'], 'kind': 'map'}]} if jobs else {}",
            "launch 2 of the reply puts a map of job 0 while its ApplicationMaster is not running",
        ),
        (
            "",
            "tiny",
            "{'launch': [{'job': jobs[0]['id'], 'kind': 'map', 'container': {'memory_mb': 512, 'vcores': 1}}]} if jobs else {}",
            "gives a container of 512 MB and 1 vcores; expected 1024 to 8192 MB",
        ),
        (
            "",
            "greedy",
            "{'launch': [{'job': jobs[0]['id'], 'kind': 'map', 'container': {'memory_mb': 8192, 'vcores': 1}}] * 2} if jobs else {}",
            "in a container of 8192 MB on node",
        ),
    ];
    for (hello, name, reply, want) in cases {
        let path = dir.path().join(format!("{name}.py"));
        std::fs::write(&path, protocol_policy_saying(hello, "", reply)).unwrap();
        let policy = format!("external[timeout=2s]:python3 {}", path.display());
        let o = slotsim(&[
            "run",
            "scenarios/yarn-quickstart.toml",
            "--headless",
            "--policy",
            &policy,
        ]);
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{name}: {err}");
        let e: Vec<&str> = err.lines().filter(|l| l.starts_with("error: ")).collect();
        assert_eq!(e.len(), 1, "{name}: {err}");
        assert!(e[0].contains(want), "{name}: expected {want:?} in {}", e[0]);
    }
}

/// A sweep cell of an external policy says which policy it ran: the name
/// and version of its hello and the SHA-256 of its script. A policy whose
/// script changed under a half-finished sweep is refused, naming both
/// hashes; put back, the sweep goes on.
#[test]
fn a_sweep_cell_names_its_policys_script_and_refuses_a_changed_one() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("mine.py");
    // A file it imports, named in its hello's files.
    let params = dir.path().join("params.py");
    std::fs::write(&params, "PAD = 0.01\n").unwrap();
    let body = format!(
        "import sys\nsys.path.insert(0, '{0}/clients/python')\nsys.path.insert(0, '{0}/clients/python/examples')\nsys.path.insert(0, '{1}')\nimport slotsim_policy as sp\nimport params\nfrom fifo import Fifo\nclass Mine(Fifo):\n    protocol = 2\n    name = 'mine'\n    version = '0.1'\n    files = ['{2}']\nsp.run(Mine(params.PAD))\n",
        root().display(),
        dir.path().display(),
        params.display()
    );
    std::fs::write(&script, &body).unwrap();
    let plan = dir.path().join("plan.toml");
    let spec = format!(
        "external[protocol=2;label=mine]:python3 {}",
        script.display()
    );
    std::fs::write(
        &plan,
        format!(
            "scenarios = [\"{}\"]\npolicies = [\"fifo\", \"{spec}\"]\nseeds = 2\n",
            root().join("scenarios/quickstart.toml").display()
        ),
    )
    .unwrap();
    let out = dir.path().join("out");
    let sweep = |shard: &str| {
        slotsim(&[
            "sweep",
            plan.to_str().unwrap(),
            "--shard",
            shard,
            "--out",
            out.to_str().unwrap(),
        ])
    };
    let o = sweep("1/2");
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let shard = out.join("shard-1-of-2.jsonl");
    let cells = lines(&shard);
    assert_eq!(cells.len(), 2);
    let sha = slotsim::sched::external::Script::read(&script)
        .unwrap()
        .sha256;
    let mine = cells
        .iter()
        .find(|c| c["cell"]["policy"] == "external:mine")
        .expect("a cell of the external policy, named by its label");
    let hash = |p: &Path| slotsim::sched::external::Script::read(p).unwrap().sha256;
    let client = "clients/python/slotsim_policy.py";
    let params_sha = hash(&params);
    assert_eq!(
        mine["cell"]["external"],
        serde_json::json!({"name": "mine", "version": "0.1", "script": script.display().to_string(), "script_sha256": sha,
            "files": [{"path": client, "sha256": hash(&root().join(client))},
                      {"path": params.display().to_string(), "sha256": params_sha}]})
    );
    let fifo = cells
        .iter()
        .find(|c| c["cell"]["policy"] == "fifo")
        .unwrap();
    assert!(fifo["cell"].get("external").is_none());
    assert_eq!(
        mine["config"]["scheduler"]["external"]["policies"][0]["script_sha256"],
        sha.as_str()
    );

    // The script changes: the next shard into the same directory is refused.
    std::fs::write(&script, format!("{body}# changed\n")).unwrap();
    let changed = slotsim::sched::external::Script::read(&script)
        .unwrap()
        .sha256;
    let o = sweep("1/2");
    let err = text(&o.stderr);
    assert_ne!(o.status.code(), Some(0), "{err}");
    assert!(
        err.contains(&sha)
            && err.contains(&changed)
            && err.contains("the policy changed under a half-finished sweep"),
        "{err}"
    );
    assert_eq!(lines(&shard).len(), 2, "nothing written");
    std::fs::write(&script, &body).unwrap();
    // A file it named changes: refused too, naming it and both hashes.
    std::fs::write(&params, "PAD = 0.02\n").unwrap();
    let o = sweep("1/2");
    let err = text(&o.stderr);
    assert_ne!(o.status.code(), Some(0), "{err}");
    assert!(
        err.contains(&format!(
            "with file {} (named in its hello) of SHA-256 {params_sha}",
            params.display()
        )) && err.contains(&hash(&params))
            && err.contains("the policy changed under a half-finished sweep"),
        "{err}"
    );
    assert_eq!(lines(&shard).len(), 2, "nothing written");
    // Put back, the sweep goes on and finishes.
    std::fs::write(&params, "PAD = 0.01\n").unwrap();
    let o = sweep("2/2");
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let o = slotsim(&["merge", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
}

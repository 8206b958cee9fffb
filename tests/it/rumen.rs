//! Rumen job traces: Hadoop SLS's sample replays with its recorded task
//! times (each attempt lasts exactly what the trace recorded) and with the
//! cluster model; the summary carries each job's recorded completion and
//! the error; a malformed trace is one error naming the JSON path, its line
//! and column.

use std::path::Path;
use std::process::Command;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn slotsim(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_slotsim"))
        .current_dir(root())
        .args(args)
        .output()
        .unwrap()
}

/// The trace's jobs as (name-tail, [(map duration ms)], completion ms).
fn recorded() -> Vec<(String, Vec<i64>, i64)> {
    let text = std::fs::read_to_string(root().join("traces/sls-2jobs2min-rumen.json")).unwrap();
    serde_json::Deserializer::from_str(&text)
        .into_iter::<serde_json::Value>()
        .map(|j| {
            let j = j.unwrap();
            let maps = j["mapTasks"]
                .as_array()
                .unwrap()
                .iter()
                .map(|t| {
                    let a = &t["attempts"][0];
                    a["finishTime"].as_i64().unwrap() - a["startTime"].as_i64().unwrap()
                })
                .collect();
            let id = j["jobID"].as_str().unwrap().rsplit('_').next().unwrap();
            (
                format!("TeraGen-{id}"),
                maps,
                j["finishTime"].as_i64().unwrap() - j["submitTime"].as_i64().unwrap(),
            )
        })
        .collect()
}

#[test]
fn the_sls_sample_replays_each_attempt_for_its_recorded_time() {
    let d = tempfile::tempdir().unwrap();
    let trace = d.path().join("t.jsonl");
    let json = d.path().join("s.json");
    let o = slotsim(&[
        "run",
        "scenarios/sls-sample.toml",
        "--headless",
        "--trace",
        trace.to_str().unwrap(),
        "--json",
        json.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let want = recorded();
    assert_eq!(want.len(), 2);
    let sum: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let attempts: Vec<serde_json::Value> = std::fs::read_to_string(&trace)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    for (k, (name, maps, completion)) in want.iter().enumerate() {
        let job = &sum["jobs"][k];
        assert_eq!(job["name"], name.as_str());
        assert_eq!(job["maps"], maps.len());
        // The recorded completion, and the error against it.
        let rec = job["recorded_s"].as_f64().unwrap();
        assert!((rec - *completion as f64 / 1000.0).abs() < 1e-9);
        let turn = job["turnaround_s"].as_f64().unwrap();
        let err = job["error_pct"].as_f64().unwrap();
        assert!((err - 100.0 * (turn - rec) / rec).abs() < 1e-9);
        // Every map attempt lasted its recorded time, to the millisecond.
        for (t, ms) in maps.iter().enumerate() {
            let a = attempts
                .iter()
                .find(|a| a["job"] == name.as_str() && a["task"] == format!("m{t}"))
                .unwrap();
            let took = a["end_s"].as_f64().unwrap() - a["start_s"].as_f64().unwrap();
            assert!(
                (took * 1000.0 - *ms as f64).abs() < 0.5,
                "{name} m{t}: {took} s, recorded {ms} ms"
            );
        }
    }
    // The table a person reads.
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("recorded"), "{out}");
    assert!(out.contains("TeraGen-1205"), "{out}");
}

#[test]
fn the_model_replay_derives_times_and_keeps_the_recorded_completion() {
    let d = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(root().join("scenarios/sls-sample.toml"))
        .unwrap()
        .replace("replay = \"recorded\"", "replay = \"model\"")
        .replace("../traces/", &format!("{}/traces/", root().display()));
    let sc = d.path().join("m.toml");
    std::fs::write(&sc, text).unwrap();
    let json = d.path().join("s.json");
    let o = slotsim(&[
        "run",
        sc.to_str().unwrap(),
        "--headless",
        "--json",
        json.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let sum: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let want = recorded();
    for (k, (_, _, completion)) in want.iter().enumerate() {
        let job = &sum["jobs"][k];
        assert!((job["recorded_s"].as_f64().unwrap() - *completion as f64 / 1000.0).abs() < 1e-9);
        // TeraGen reads nothing: the model's maps are start-up and little
        // else, far shorter than recorded.
        assert!(job["turnaround_s"].as_f64().unwrap() < *completion as f64 / 1000.0 / 2.0);
    }
}

fn scenario_with_trace(d: &Path, trace: &str, nodes: u32) -> String {
    std::fs::write(d.join("t.json"), trace).unwrap();
    let sc = format!(
        "name = \"r\"\n[cluster]\nnodes = {nodes}\nmap_slots = 2\nreduce_slots = 1\n[[workloads]]\nkind = \"rumen\"\ntrace = \"t.json\"\n"
    );
    let p = d.join("s.toml");
    std::fs::write(&p, sc).unwrap();
    p.display().to_string()
}

const GOOD_JOB: &str = r#"{ "jobID": "job_1_0001", "jobName": "sort", "submitTime": 1000, "finishTime": 9000,
  "mapTasks": [ { "attempts": [ { "hostName": "/r1/h1", "startTime": 2000, "finishTime": 5000, "result": "SUCCESS" } ] } ],
  "reduceTasks": [] }
"#;

#[test]
fn a_malformed_trace_is_one_error_with_the_json_path_and_line() {
    let d = tempfile::tempdir().unwrap();
    let bad = format!(
        "{GOOD_JOB}{{ \"jobID\": \"job_1_0002\", \"submitTime\": 3000, \"finishTime\": 9000,\n  \"mapTasks\": [ {{ \"attempts\": [ {{ \"startTime\": \"soon\", \"finishTime\": 5000 }} ] }} ] }}\n"
    );
    let p = scenario_with_trace(d.path(), &bad, 4);
    let o = slotsim(&["validate", &p]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with(&format!("error: {}:5:", d.path().join("t.json").display())),
        "{err}"
    );
    assert!(
        err.contains("job 2: mapTasks[0].attempts[0].startTime"),
        "{err}"
    );
    // More hosts than nodes.
    let two_hosts = GOOD_JOB.replace(
        "\"reduceTasks\": []",
        "\"reduceTasks\": [ { \"attempts\": [ { \"hostName\": \"/r1/h2\", \"startTime\": 5000, \"finishTime\": 8000, \"result\": \"SUCCESS\" } ] } ]",
    );
    let p = scenario_with_trace(d.path(), &two_hosts, 1);
    let o = slotsim(&["validate", &p]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("host h2") && err.contains("the cluster has 1 node "),
        "{err}"
    );
    // And with enough nodes it loads: one job of 1 map and 1 reduce.
    let p = scenario_with_trace(d.path(), &two_hosts, 2);
    let o = slotsim(&["validate", &p]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

/// A trace of one job on two racks of different sizes: three hosts in
/// `/r1`, one in `/r2`; host h1 runs two maps at once. Submitted at 1 s,
/// launched at 4 s, its last map ends at 9 s and it finishes at 14 s.
const TWO_RACKS: &str = r#"{ "jobID": "job_1_0001", "jobName": "sort", "submitTime": 1000, "launchTime": 4000, "finishTime": 14000,
  "mapTasks": [
    { "preferredLocations": [ { "layers": ["r1", "h3"] } ],
      "attempts": [ { "hostName": "/r1/h1", "startTime": 5000, "finishTime": 8000, "result": "SUCCESS" } ] },
    { "attempts": [ { "hostName": "/r1/h1", "startTime": 5000, "finishTime": 9000, "result": "SUCCESS" } ] },
    { "attempts": [ { "hostName": "/r2/h4", "startTime": 5000, "finishTime": 7000, "result": "SUCCESS" } ] },
    { "attempts": [ { "hostName": "/r1/h2", "startTime": 5000, "finishTime": 6000, "result": "SUCCESS" } ] } ],
  "reduceTasks": [] }
"#;

#[test]
fn without_nodes_the_cluster_is_the_traces_and_start_up_and_commit_are_replayed() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join("t.json"), TWO_RACKS).unwrap();
    let sc = d.path().join("s.toml");
    std::fs::write(
        &sc,
        "name = \"r\"\n[scheduler]\npolicy = \"fifo\"\n[[workloads]]\nkind = \"rumen\"\ntrace = \"t.json\"\n",
    )
    .unwrap();
    let sc = sc.to_str().unwrap();
    let o = slotsim(&["validate", sc]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains("1 datacenter, 2 racks, 4 nodes, 2 map + 1 reduce slots per node"),
        "{out}"
    );
    assert!(
        out.contains("from t.json: its hosts in their racks"),
        "{out}"
    );
    let trace = d.path().join("a.jsonl");
    let json = d.path().join("s.json");
    let o = slotsim(&[
        "run",
        sc,
        "--headless",
        "--trace",
        trace.to_str().unwrap(),
        "--json",
        json.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let attempts: Vec<serde_json::Value> = std::fs::read_to_string(&trace)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(attempts.len(), 4);
    // Nodes rack by rack: h3, h1, h2 in rack 0, h4 alone in rack 1.
    let mut racks: Vec<(u64, u64)> = attempts
        .iter()
        .map(|a| (a["node"].as_u64().unwrap(), a["rack"].as_u64().unwrap()))
        .collect();
    racks.sort();
    racks.dedup();
    assert!(
        racks.iter().all(|&(n, r)| r == u64::from(n == 3)),
        "{racks:?}"
    );
    // Nothing starts before the recorded launch (3 s after submission),
    // and the job finishes the recorded 5 s after its last map.
    let first = attempts
        .iter()
        .map(|a| a["start_s"].as_f64().unwrap())
        .fold(f64::MAX, f64::min);
    let last = attempts
        .iter()
        .map(|a| a["end_s"].as_f64().unwrap())
        .fold(0.0, f64::max);
    assert!(first >= 3.0, "first map at {first} s");
    let sum: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let turn = sum["jobs"][0]["turnaround_s"].as_f64().unwrap();
    assert!((turn - (last + 5.0)).abs() < 1e-9, "{turn} vs {last} + 5");
    // Racks without nodes are refused: the trace has the racks.
    std::fs::write(
        d.path().join("bad.toml"),
        "[cluster]\nracks = 2\n[[workloads]]\nkind = \"rumen\"\ntrace = \"t.json\"\n",
    )
    .unwrap();
    let o = slotsim(&["validate", d.path().join("bad.toml").to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains(":2:9: racks without nodes"), "{err}");
}

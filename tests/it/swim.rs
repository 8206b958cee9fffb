//! SWIM trace replay: `[[workloads]] kind = "swim"`.

use crate::common;
use common::*;
use slotsim::scenario::load_file;

fn write(dir: &std::path::Path, name: &str, text: &str) -> std::path::PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

const SCEN: &str =
    "name = \"s\"\n[cluster]\nnodes = 10\n[[workloads]]\nkind = \"swim\"\ntrace = \"t.tsv\"\n";

#[test]
fn replays_jobs_sizes_and_times_from_the_trace() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "t.tsv",
        "job0\t0\t0\t1073741824\t536870912\t1000\njob1\t5\t5\t0\t0\t0\njob2\t7\t2\t3221225472\t3221225472\t10\n",
    );
    let p = write(d.path(), "s.toml", &format!("{SCEN}time_scale = 2.0\n"));
    let sc = load_file(&p, None, None).unwrap();
    let j: Vec<_> = sc
        .jobs
        .iter()
        .map(|j| (j.name.as_str(), j.submit, j.maps, j.reduces))
        .collect();
    assert_eq!(
        j,
        [
            ("w0-job0", 0, 8, 1),
            ("w0-job1", 10_000, 1, 0),
            ("w0-job2", 14_000, 24, 3)
        ],
        "1 GB / 128 MB = 8 maps; no shuffle, no reduces; 3 GB shuffle = 3 reduces; times × 2"
    );
    assert!((sc.jobs[0].fp - 0.5).abs() < 1e-9 && (sc.jobs[2].fp - 1.0).abs() < 1e-9);
    let (_, s) = run(&sc);
    assert_eq!(s.jobs_finished, 3);
}

#[test]
fn limit_and_bad_traces() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "t.tsv",
        "job0\t0\t0\t100\t0\t0\njob1\t1\t1\t100\t0\t0\njob2\t2\t1\tlots\t0\t0\n",
    );
    let p = write(d.path(), "s.toml", &format!("{SCEN}limit = 2\n"));
    assert_eq!(load_file(&p, None, None).unwrap().jobs.len(), 2);
    // Line 3 has a bad input size: the error names the trace, its line and column.
    let p = write(d.path(), "s.toml", SCEN);
    let e = load_file(&p, None, None).unwrap_err();
    assert!(e.origin.ends_with("t.tsv"), "{e}");
    assert_eq!(e.pos, Some((3, 10)), "{e}");
    assert!(
        e.message.contains("input bytes \"lots\" is not a number"),
        "{e}"
    );
    // A missing trace is reported at the scenario's `trace` value.
    let p = write(d.path(), "s.toml", &SCEN.replace("t.tsv", "nope.tsv"));
    let e = load_file(&p, None, None).unwrap_err();
    assert_eq!(e.pos, Some((6, 9)), "{e}");
    assert!(e.message.contains("cannot read trace"), "{e}");
    // Poisson keys do not belong to a swim workload.
    let p = write(d.path(), "s.toml", &format!("{SCEN}jobs = 3\n"));
    assert!(load_file(&p, None, None)
        .unwrap_err()
        .message
        .contains("jobs belongs to kind = \"poisson\""));
}

/// The bundled Facebook 2009 replay: fair's short-job turnaround is a small
/// fraction of FIFO's on a heavy-tailed mix, the reason Facebook wrote it.
/// A direction over two seeds, on the per-transfer network (a scheduling
/// claim: the shared network's cost would add nothing to it).
#[test]
fn facebook_2009_fair_beats_fifo_on_turnaround() {
    let runs: Vec<_> = [1u64, 2]
        .into_iter()
        .flat_map(|seed| ["fifo", "fair"].map(|p| (seed, p)))
        .map(|(seed, p)| {
            std::thread::spawn(move || {
                let mut sc =
                    load_file(&scenario_path("swim-fb2009.toml"), Some(p), Some(seed)).unwrap();
                sc.network.model = slotsim::model::NetworkModel::Fixed;
                run(&sc).1
            })
        })
        .collect();
    let s: Vec<_> = runs.into_iter().map(|h| h.join().unwrap()).collect();
    for pair in s.chunks(2) {
        let (fifo, fair) = (&pair[0], &pair[1]);
        assert_eq!((fifo.jobs_finished, fair.jobs_finished), (1000, 1000));
        assert!(
            fair.mean_turnaround_s.unwrap() * 3.0 < fifo.mean_turnaround_s.unwrap(),
            "fair {:?} vs fifo {:?}",
            fair.mean_turnaround_s,
            fifo.mean_turnaround_s
        );
    }
}

/// A `/` in a trace's job name would make `job/task` ambiguous in traces
/// and `--inspect`; it becomes `_`.
#[test]
fn slash_in_a_trace_job_name_becomes_underscore() {
    let d = tempfile::tempdir().unwrap();
    write(d.path(), "t.tsv", "a/b\t1\t1\t100\t100\t100\n");
    let p = write(d.path(), "s.toml", SCEN);
    let sc = load_file(&p, None, None).unwrap();
    assert_eq!(sc.jobs[0].name, "w0-a_b");
    let (sim, _) = run(&sc);
    assert_eq!(launches(&sim)[0], "w0-a_b/m0");
}

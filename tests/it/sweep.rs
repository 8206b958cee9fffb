//! `slotsim sweep` and `slotsim merge`, through the binary: shards merge
//! to what the whole grid gives, a killed shard resumes without gaps or
//! duplicates, results of different plans never mix, and bad plans are one
//! error at their place.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn slotsim(args: &[&str], dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_slotsim"))
        .current_dir(dir)
        .args(args)
        .output()
        .unwrap()
}

fn ok(o: &Output) -> String {
    assert!(
        o.status.success(),
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// A plan on two bundled scenarios in `dir` (paths relative to it).
fn plan(dir: &Path, extra: &str) -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = format!(
        "scenarios = [\"{}\", \"{}\"]\npolicies = [\"fair\", \"fifo\"]\nseeds = 3\n{extra}",
        root.join("scenarios/quickstart.toml").display(),
        root.join("scenarios/omo-wordcount-8.toml").display(),
    );
    let p = dir.join("plan.toml");
    std::fs::write(&p, text).unwrap();
    p
}

const GRID: &str = "[overrides]\n\"tasks.duration_cv\" = [0.0, 0.2]\n";

#[test]
fn three_shards_merge_to_what_the_whole_grid_gives() {
    let d = tempfile::tempdir().unwrap();
    let p = plan(d.path(), GRID);
    let p = p.to_str().unwrap();
    let said = ok(&slotsim(&["sweep", p, "--out", "whole"], d.path()));
    assert!(said.contains("24 of 24 cells"), "{said}");
    for k in 1..=3 {
        ok(&slotsim(
            &["sweep", p, "--shard", &format!("{k}/3"), "--out", "sharded"],
            d.path(),
        ));
    }
    let a = ok(&slotsim(&["merge", "whole"], d.path()));
    let b = ok(&slotsim(&["merge", "sharded"], d.path()));
    assert_eq!(a, b, "merged tables differ");
    assert!(a.contains("24 cells · 8 groups"), "{a}");
    // CSV: a header and a row per group and metric.
    let csv = ok(&slotsim(&["merge", "sharded", "--csv", "-"], d.path()));
    assert!(csv.contains("scenario,policy,variant,overrides,metric,n,mean,sd,ci95_low,ci95_high"));
    // Every line is a whole run summary plus its cell.
    let lines = std::fs::read_to_string(d.path().join("sharded/shard-2-of-3.jsonl")).unwrap();
    let first: serde_json::Value = serde_json::from_str(lines.lines().next().unwrap()).unwrap();
    assert_eq!(first["cell"]["index"], 1);
    assert_eq!(first["cell"]["of"], 24);
    assert!(first["makespan_s"].is_number() && first["plan"].is_string());
    // Deterministic: the same shard run again gives the same file.
    ok(&slotsim(
        &["sweep", p, "--shard", "2/3", "--out", "again"],
        d.path(),
    ));
    let again = std::fs::read_to_string(d.path().join("again/shard-2-of-3.jsonl")).unwrap();
    assert_eq!(lines, again);
    // Every line says which slotsim wrote it; shards of two versions are
    // refused, naming both.
    assert_eq!(first["version"], env!("CARGO_PKG_VERSION"));
    let old = lines.replacen(
        &format!("\"version\":\"{}\"", env!("CARGO_PKG_VERSION")),
        "\"version\":\"0.0.9\"",
        1,
    );
    assert_ne!(old, lines);
    std::fs::write(d.path().join("sharded/shard-2-of-3.jsonl"), old).unwrap();
    let o = slotsim(&["merge", "sharded"], d.path());
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("slotsim 0.0.9")
            && err.contains(&format!("slotsim {}", env!("CARGO_PKG_VERSION"))),
        "{err}"
    );
}

#[test]
fn a_torn_shard_resumes_without_gaps_or_duplicates() {
    let d = tempfile::tempdir().unwrap();
    let p = plan(d.path(), "");
    let p = p.to_str().unwrap();
    ok(&slotsim(&["sweep", p, "--out", "whole"], d.path()));
    ok(&slotsim(
        &["sweep", p, "--shard", "1/2", "--out", "s"],
        d.path(),
    ));
    // As if killed while writing its fourth line: three whole lines and a
    // torn one.
    let f = d.path().join("s/shard-1-of-2.jsonl");
    let text = std::fs::read_to_string(&f).unwrap();
    let keep: usize = text.lines().take(3).map(|l| l.len() + 1).sum();
    std::fs::write(&f, format!("{}{{\"makespan_s\": 12", &text[..keep])).unwrap();
    // Merging now lists the missing cells.
    let o = slotsim(&["merge", "s"], d.path());
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("not a sweep line") || err.contains("missing"),
        "{err}"
    );
    let said = ok(&slotsim(
        &["sweep", p, "--shard", "1/2", "--out", "s"],
        d.path(),
    ));
    assert!(said.contains("(3 already there, 3 run"), "{said}");
    ok(&slotsim(
        &["sweep", p, "--shard", "2/2", "--out", "s"],
        d.path(),
    ));
    assert_eq!(
        ok(&slotsim(&["merge", "s"], d.path())),
        ok(&slotsim(&["merge", "whole"], d.path()))
    );
    // A shard of another plan in the same directory is refused.
    let other = d.path().join("other");
    std::fs::create_dir(&other).unwrap();
    let p2 = plan(&other, GRID);
    let o = slotsim(
        &[
            "sweep",
            p2.to_str().unwrap(),
            "--shard",
            "1/2",
            "--out",
            "s",
        ],
        d.path(),
    );
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("another plan"));
    // Duplicates are refused.
    ok(&slotsim(
        &["sweep", p, "--shard", "1/2", "--out", "dup"],
        d.path(),
    ));
    let o = slotsim(&["merge", "s", "dup"], d.path());
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("expected each cell once"));
    // Missing cells are listed.
    let o = slotsim(&["merge", "dup"], d.path());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("6 of 12 cells missing: 1, 3, 5, 7, 9, 11"),
        "{err}"
    );
}

#[test]
fn bad_plans_point_at_the_value() {
    let d = tempfile::tempdir().unwrap();
    let cases: [(&str, &str, &str); 4] = [
        (
            "[overrides]\n\"network.nic_mbs\" = [125]\n",
            "plan.toml:5:1:",
            "unknown field `nic_mbs`",
        ),
        (
            "[overrides]\n\"tasks.duration_cv\" = [0.1, -3]\n",
            "plan.toml:5:29:",
            "duration_cv must be between 0 and 10",
        ),
        ("colour = 1\n", "plan.toml:4:1:", "unknown key `colour`"),
        (
            "[overrides]\n\"jobs.99.maps\" = [3]\n",
            "plan.toml:5:1:",
            "index 99 is out of range",
        ),
    ];
    for (extra, at, what) in cases {
        let p = plan(d.path(), extra);
        let o = slotsim(&["sweep", p.to_str().unwrap(), "--out", "x"], d.path());
        assert_eq!(o.status.code(), Some(2), "{extra}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            err.starts_with(&format!("error: {}", d.path().join(at).display())),
            "{err}"
        );
        assert!(err.contains(what), "{err}");
        assert_eq!(err.lines().count(), 1, "{err}");
    }
    let p = plan(d.path(), "").to_str().unwrap().to_string();
    let text = std::fs::read_to_string(&p)
        .unwrap()
        .replace("\"fifo\"", "\"fifo\", \"nosuch\"");
    std::fs::write(&p, text).unwrap();
    let o = slotsim(&["sweep", &p, "--out", "x"], d.path());
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("unknown policy \"nosuch\""));
    // Two cells' policies under one label: refused at the second.
    let text = std::fs::read_to_string(&p)
        .unwrap()
        .replace("\"fifo\", \"nosuch\"", "\"fifo\", \"fifo\"");
    std::fs::write(&p, text).unwrap();
    let o = slotsim(&["sweep", &p, "--out", "x"], d.path());
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.starts_with(&format!("error: {p}:2:")), "{err}");
    assert!(
        err.contains("policies[1] and policies[2] are both labelled \"fifo\""),
        "{err}"
    );
}

#[test]
fn emitted_jobs_run_every_shard() {
    let d = tempfile::tempdir().unwrap();
    let p = plan(d.path(), GRID);
    let p = p.to_str().unwrap();
    let s = ok(&slotsim(
        &[
            "sweep", p, "--emit", "slurm", "--shards", "5", "--out", "res",
        ],
        d.path(),
    ));
    assert!(s.starts_with("#!/bin/bash"));
    assert!(s.contains("#SBATCH --array=1-5"));
    assert!(s.contains("--shard \"${SLURM_ARRAY_TASK_ID}/5\" --out res"));
    let k = ok(&slotsim(
        &["sweep", p, "--emit", "k8s", "--shards", "5"],
        d.path(),
    ));
    assert!(k.contains("completionMode: Indexed") && k.contains("completions: 5"));
    assert!(k.contains("--shard \"$((JOB_COMPLETION_INDEX + 1))/5\""));
    let o = slotsim(&["sweep", p, "--emit", "lsf", "--shards", "5"], d.path());
    assert_eq!(o.status.code(), Some(2));
    let o = slotsim(&["sweep", p, "--emit", "slurm"], d.path());
    assert!(String::from_utf8_lossy(&o.stderr).contains("--shards"));
}

const VARIANTS: &str = "[[variants]]\nname = \"baseline\"\n[[variants]]\nname = \"no noise\"\n\"tasks.duration_cv\" = 0.0\n[[variants]]\nname = \"slow NIC\"\n\"network.nic_mbps\" = 62.5\n\"tasks.duration_cv\" = 0.0\n";

#[test]
fn variants_are_one_at_a_time_rows_and_the_markdown_table_pairs_seeds() {
    let d = tempfile::tempdir().unwrap();
    let p = plan(d.path(), VARIANTS);
    let p = p.to_str().unwrap();
    // 2 scenarios x 2 policies x 3 variants x 3 seeds.
    let said = ok(&slotsim(&["sweep", p, "--out", "v"], d.path()));
    assert!(said.contains("36 of 36 cells"), "{said}");
    let lines = std::fs::read_to_string(d.path().join("v/shard-1-of-1.jsonl")).unwrap();
    let cells: Vec<serde_json::Value> = lines
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    // Cell order: scenario, policy, variant, seed.
    let c = &cells[3]["cell"];
    assert_eq!(
        (c["variant"].as_str(), c["seed"].as_u64()),
        (Some("no noise"), Some(1))
    );
    assert_eq!(c["overrides"]["tasks.duration_cv"], 0.0);
    let c = &cells[6]["cell"];
    assert_eq!(c["variant"], "slow NIC");
    assert_eq!(c["overrides"]["network.nic_mbps"], 62.5);
    // Each line's `config` is the scenario as that cell ran it: its
    // variant's overrides, its seed and policy applied.
    assert_eq!(cells[3]["config"]["tasks"]["duration_cv"], 0.0);
    assert_eq!(cells[0]["config"]["tasks"]["duration_cv"], 0.1);
    assert_eq!(cells[6]["config"]["network"]["nic_mbps"], 62.5);
    assert_eq!(cells[0]["config"]["network"]["nic_mbps"], 125.0);
    assert_eq!(cells[4]["config"]["seed"], 2);
    assert_eq!(cells[0]["config"]["scheduler"]["policy"], "fair");
    assert_eq!(cells[9]["config"]["scheduler"]["policy"], "fifo");
    assert!(cells[0]["cell"]["overrides"]
        .as_object()
        .unwrap()
        .is_empty());
    // The variant reached the run: its summary differs from the baseline's.
    assert_ne!(cells[0]["makespan_s"], cells[6]["makespan_s"]);

    let t = ok(&slotsim(
        &["merge", "v", "--table", "makespan_s", "--versus", "fair"],
        d.path(),
    ));
    let rows: Vec<&str> = t.lines().filter(|l| l.starts_with('|')).collect();
    assert_eq!(rows[0], "| scenario | variant | fair | fifo |", "{t}");
    assert_eq!(rows.len(), 2 + 2 * 3, "{t}");
    assert!(rows[2].contains("| baseline |") && rows[4].contains("| slow NIC |"));
    // The paired difference, recomputed from the cells.
    let makespan = |policy: &str, variant: Option<&str>, seed: u64| {
        cells
            .iter()
            .find(|v| {
                let c = &v["cell"];
                c["policy"] == policy
                    && c["variant"].as_str() == variant
                    && c["seed"] == seed
                    && c["scenario"].as_str().unwrap().ends_with("quickstart.toml")
            })
            .unwrap()["makespan_s"]
            .as_f64()
            .unwrap()
    };
    let d3: Vec<f64> = (1..=3)
        .map(|s| {
            let b = makespan("fair", Some("baseline"), s);
            100.0 * (makespan("fifo", Some("baseline"), s) - b) / b
        })
        .collect();
    let mean = d3.iter().sum::<f64>() / 3.0;
    assert!(
        rows[2].contains(&format!("| {mean:+.1} ± ")),
        "{} should hold {mean:+.1}",
        rows[2]
    );
    assert!(t.contains("paired difference from fair"), "{t}");

    // Unknown metric or baseline: one error, exit 2.
    let o = slotsim(&["merge", "v", "--table", "speed"], d.path());
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("unknown metric \"speed\""));
    let o = slotsim(
        &["merge", "v", "--table", "makespan_s", "--versus", "omo"],
        d.path(),
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("expected one of: fair, fifo"));
}

#[test]
fn a_bad_variant_is_an_error_at_its_key() {
    let d = tempfile::tempdir().unwrap();
    let p = plan(
        d.path(),
        "[[variants]]\nname = \"a\"\n\n[[variants]]\nname = \"b\"\n\"network.nic_mbps\" = -5\n",
    );
    let o = slotsim(&["sweep", p.to_str().unwrap(), "--out", "x"], d.path());
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("plan.toml:9:"), "{err}");
    assert!(err.contains("variant \"b\""), "{err}");
    let p = plan(
        d.path(),
        "[[variants]]\nname = \"a\"\n[[variants]]\nname = \"a\"\n",
    );
    let o = slotsim(&["sweep", p.to_str().unwrap(), "--out", "x"], d.path());
    assert!(String::from_utf8_lossy(&o.stderr).contains("a second variant named \"a\""));
    let p = plan(d.path(), "[[variants]]\n\"tasks.duration_cv\" = 0.1\n");
    let o = slotsim(&["sweep", p.to_str().unwrap(), "--out", "x"], d.path());
    assert!(String::from_utf8_lossy(&o.stderr).contains("has no name"));
}

/// The coarse network model's error against the exact one, printed by the
/// command `scripts/coarse-error.sh` runs, on a small part of the
/// validation set (docs/validation/): every row within the contract or
/// within what the exact model does against itself under a 0.1 % change
/// of bandwidth.
#[test]
fn the_coarse_model_keeps_its_error_contract_on_a_subset() {
    let d = tempfile::tempdir().unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let scen = |n: &str| root.join("scenarios").join(n).display().to_string();
    let floor = |name: &str, k: f64| {
        format!(
            "[[variants]]\nname = \"floor: bandwidth {name}\"\n\"network.model\" = \"shared\"\n\"network.disk_mbps\" = {}\n\"network.nic_mbps\" = {}\n\"network.inter_dc_mbps\" = {}\n",
            100.0 * k,
            125.0 * k,
            12.0 * k
        )
    };
    let text = format!(
        "scenarios = [\"{}\", \"{}\", \"{}\"]\nseeds = 2\n\
         [[variants]]\nname = \"shared\"\n\"network.model\" = \"shared\"\n\
         [[variants]]\nname = \"coarse\"\n\"network.model\" = \"coarse\"\n{}{}",
        scen("adaptive-fair.toml"),
        scen("terasort-50.toml"),
        scen("hybsmrp-wordcount.toml"),
        floor("-0.1%", 0.999),
        floor("+0.1%", 1.001),
    );
    std::fs::write(d.path().join("plan.toml"), text).unwrap();
    ok(&slotsim(&["sweep", "plan.toml", "--out", "v"], d.path()));
    let table = ok(&slotsim(&["merge", "v", "--job-error", "shared"], d.path()));
    let rows: Vec<&str> = table.lines().filter(|l| l.contains("| coarse |")).collect();
    assert_eq!(rows.len(), 3, "{table}");
    assert!(
        rows.iter()
            .all(|r| r.ends_with("| holds |") || r.ends_with("| within the floor |")),
        "{table}"
    );
    // Each scenario ran under its own policy (the plan names none).
    assert!(table.contains("| hybsmrp |"), "{table}");
    // The KS distance column, next to last: a distance, in [0, 1], and 0
    // where no job moved (median, p95 and max all 0).
    for r in &rows {
        let cols: Vec<&str> = r.split('|').map(str::trim).collect();
        let ks: f64 = cols[cols.len() - 3].parse().expect(r);
        assert!((0.0..=1.0).contains(&ks), "{r}");
        if cols[7] == "0.0 %" {
            assert_eq!(ks, 0.0, "{r}");
        }
    }
    // A variant that is not in the results is an error naming those there.
    let o = slotsim(&["merge", "v", "--job-error", "exact"], d.path());
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("\"exact\"") && err.contains("\"coarse\""),
        "{err}"
    );
}

/// A plan with a policy whose process fails at once, `external:false`,
/// between two good ones, in `dir`.
fn failing_plan(dir: &Path, policies: &str) -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = format!(
        "scenarios = [\"{}\"]\npolicies = [{policies}]\nseeds = 2\n",
        root.join("scenarios/fig45-fifo-vs-fair.toml").display(),
    );
    let p = dir.join("plan.toml");
    std::fs::write(&p, text).unwrap();
    p
}

fn lines_of(file: &Path) -> Vec<(u64, u64)> {
    std::fs::read_to_string(file)
        .unwrap()
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            (
                v["cell"]["index"].as_u64().unwrap(),
                v["cell"]["seed"].as_u64().unwrap(),
            )
        })
        .collect()
}

/// Every cell runs by default, each failed one an `error:` line with its
/// seed; `--fail-fast` starts no cell after the first failure, names that
/// one, and a run without it then finishes the rest.
#[test]
fn a_sweep_names_failed_cells_by_seed_and_fail_fast_stops_at_the_first() {
    let d = tempfile::tempdir().unwrap();
    let p = failing_plan(d.path(), "\"fifo\", \"external:false\", \"fair\"");
    let o = slotsim(&["sweep", "plan.toml", "--out", "all"], d.path());
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert_eq!(o.status.code(), Some(2), "{err}");
    let errors: Vec<&str> = err.lines().filter(|l| l.starts_with("error: ")).collect();
    assert_eq!(errors.len(), 3, "{err}");
    for (line, (cell, seed)) in errors.iter().zip([(2, 1), (3, 2)]) {
        assert!(line.starts_with(&format!("error: cell {cell} (")), "{line}");
        assert!(
            line.contains(&format!("external:false, seed {seed}): policy \"false\"")),
            "{line}"
        );
    }
    assert!(errors[2].contains("2 of 6 cells failed"), "{err}");
    let all = d.path().join("all/shard-1-of-1.jsonl");
    assert_eq!(
        lines_of(&all),
        [(0, 1), (1, 2), (4, 1), (5, 2)],
        "the good cells, in order"
    );

    // --fail-fast: one error for the first failed cell, then why it
    // stopped; on one thread no cell starts after it.
    let o = Command::new(env!("CARGO_BIN_EXE_slotsim"))
        .current_dir(d.path())
        .env("RAYON_NUM_THREADS", "1")
        .args(["sweep", "plan.toml", "--out", "ff", "--fail-fast"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert_eq!(o.status.code(), Some(2), "{err}");
    let errors: Vec<&str> = err.lines().filter(|l| l.starts_with("error: ")).collect();
    assert_eq!(errors.len(), 2, "{err}");
    assert!(
        errors[0].starts_with("error: cell 2 (") && errors[0].contains("seed 1)"),
        "{err}"
    );
    assert!(errors[1].contains("--fail-fast"), "{err}");
    let ff = d.path().join("ff/shard-1-of-1.jsonl");
    assert_eq!(lines_of(&ff), [(0, 1), (1, 2)]);
    // Without it, the rest runs: the same good cells as the full run.
    let o = slotsim(&["sweep", "plan.toml", "--out", "ff"], d.path());
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(lines_of(&ff), lines_of(&all));
    drop(p);
}

/// A shard none of whose cells finishes leaves no file (an empty one
/// would read as a shard with nothing to do); a shard file already there
/// is appended to, never cut.
#[test]
fn a_sweep_whose_every_cell_fails_writes_no_file() {
    let d = tempfile::tempdir().unwrap();
    failing_plan(d.path(), "\"external:false\"");
    let o = slotsim(&["sweep", "plan.toml", "--out", "out"], d.path());
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("every cell run failed (2 of 2)"), "{err}");
    let out = d.path().join("out");
    assert_eq!(std::fs::read_dir(&out).unwrap().count(), 0, "{err}");
}

/// `compare --seeds N` and a sweep's `seeds = N` run the same seeds (1 to
/// N, not the scenario's own seed 7 onward): the same runs, figure for
/// figure.
#[test]
fn compare_and_a_sweep_draw_the_same_seeds() {
    let d = tempfile::tempdir().unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let quickstart = root.join("scenarios/quickstart.toml");
    std::fs::write(
        d.path().join("plan.toml"),
        format!(
            "scenarios = [\"{}\"]\npolicies = [\"fair\"]\nseeds = 3\n",
            quickstart.display()
        ),
    )
    .unwrap();
    ok(&slotsim(&["sweep", "plan.toml", "--out", "out"], d.path()));
    let swept: Vec<serde_json::Value> =
        std::fs::read_to_string(d.path().join("out/shard-1-of-1.jsonl"))
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
    let out = ok(&slotsim(
        &[
            "compare",
            quickstart.to_str().unwrap(),
            "--policies",
            "fair",
            "--seeds",
            "3",
            "--json",
            "-",
        ],
        d.path(),
    ));
    let start = out.find('[').unwrap();
    let compared: Vec<serde_json::Value> = serde_json::from_str(&out[start..]).unwrap();
    assert_eq!(compared.len(), 3);
    for (c, s) in compared.iter().zip(&swept) {
        for key in ["seed", "makespan_s", "mean_turnaround_s", "events", "jobs"] {
            assert_eq!(c[key], s[key], "{key}");
        }
    }
    let seeds: Vec<&serde_json::Value> = compared.iter().map(|c| &c["seed"]).collect();
    assert_eq!(seeds, [1, 2, 3]);
}

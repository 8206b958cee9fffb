//! `slotsim sweep` and `slotsim merge`.

use super::{emit, open_out, Failure, MergeArgs, SweepArgs};
use slotsim::error::InputError;
use slotsim::sweep::error::{CellError, ShardRunError};
use slotsim::sweep::{emit as emitters, load_plan, merge, run_shard, Shard};
use std::io::Write;
use std::path::PathBuf;

pub fn cmd_sweep(a: SweepArgs) -> Result<(), Failure> {
    if let Some(kind) = &a.emit {
        let Some(n) = a.shards else {
            return Err(InputError::new(
                "--shards",
                "--emit needs --shards N, the number of tasks to split the sweep into",
            )
            .into());
        };
        if n == 0 || n > 100_000 {
            return Err(
                InputError::new("--shards", format!("{n} is not between 1 and 100000")).into(),
            );
        }
        if a.shard.is_some() {
            return Err(InputError::new(
                "--shard",
                "--emit prints a job for every shard; drop --shard",
            )
            .into());
        }
        // Checked now, so that the job does not fail on every node.
        let plan = load_plan(&a.plan)?;
        let cells = plan.cell_count();
        let plan_path = a.plan.display().to_string();
        let out = a
            .out
            .clone()
            .unwrap_or_else(|| PathBuf::from("sweep-results"));
        let text = match kind.as_str() {
            "slurm" => emitters::slurm(&plan_path, n, &out.display().to_string(), a.cpus),
            "k8s" => emitters::k8s(&plan_path, n, &a.image, a.cpus),
            other => {
                return Err(InputError::new(
                    "--emit",
                    format!("unknown target \"{other}\"; expected slurm or k8s"),
                )
                .into())
            }
        };
        emit(&text, false)?;
        eprintln!(
            "{cells} cells in {n} shards of about {} cells each",
            cells.div_ceil(n)
        );
        return Ok(());
    }
    for (flag, given) in [("--shards", a.shards.is_some())] {
        if given {
            return Err(InputError::new(flag, "only with --emit slurm|k8s").into());
        }
    }
    let Some(out) = a.out.clone() else {
        return Err(
            InputError::new("--out", "expected --out DIR, where the shard's results go").into(),
        );
    };
    let shard = match &a.shard {
        None => Shard::whole(),
        Some(s) => Shard::parse(s).map_err(|e| InputError::new("--shard", e.to_string()))?,
    };
    let plan = load_plan(&a.plan)?;
    let total = shard.cells(plan.cell_count()).count() as u64;
    let bar = super::CountBar::new(total, "cells");
    let progress = |done: u64, _todo: u64| bar.set(done);
    // Cells run in parallel: a policy's stderr lines each say whose they are.
    slotsim::sched::external::prefix_stderr(true);
    let report = match run_shard(&plan, shard, &out, a.fail_fast, &progress) {
        Ok(r) => r,
        Err(e) => {
            bar.clear();
            return Err(cells_failed(e));
        }
    };
    bar.clear();
    let per = if report.ran > 0 {
        format!(
            ", {:.3} s per cell on {} threads",
            report.wall_s / report.ran as f64,
            rayon::current_num_threads()
        )
    } else {
        String::new()
    };
    emit(
        &format!(
            "{}: {} of {} cells of plan {} ({} already there, {} run in {:.2} s{per})\n",
            report.file.display(),
            report.cells,
            plan.cell_count(),
            plan.hash,
            report.skipped,
            report.ran,
            report.wall_s
        ),
        false,
    )
}

/// A shard's failure as the user reads it: one `error:` line per failed
/// cell (its index, scenario, policy, variant and seed, and why), then
/// what became of the others. Exit status 2 when a policy or a scenario
/// failed (bad input), else 1.
fn cells_failed(e: ShardRunError) -> Failure {
    let code = |c: &CellError| match c {
        CellError::Policy(_) | CellError::Scenario(_) => 2,
        CellError::Sim(_) | CellError::Json(_) => 1,
    };
    match e {
        ShardRunError::Cell(f) => {
            let text = format!(
                "error: {f}\nerror: --fail-fast: stopped at the first failed cell (no cell started after it); the cells that finished are written, running the sweep again runs the rest\n"
            );
            let _ = emit(&text, true);
            Failure::Reported(code(&f.source))
        }
        ShardRunError::Cells { failed, report } => {
            let mut text: String = failed.iter().map(|f| format!("error: {f}\n")).collect();
            if failed.len() as u64 == report.ran {
                text.push_str(&format!(
                    "error: every cell run failed ({} of {}); nothing was written to {}\n",
                    failed.len(),
                    report.ran,
                    report.file.display()
                ));
            } else {
                text.push_str(&format!(
                    "error: {} of {} cells failed; the others are written to {}, running the sweep again retries only the failed ones\n",
                    failed.len(),
                    report.ran,
                    report.file.display()
                ));
            }
            let _ = emit(&text, true);
            Failure::Reported(failed.iter().map(|f| code(&f.source)).max().unwrap_or(1))
        }
        e => Failure::Other(e.to_string()),
    }
}

pub fn cmd_merge(a: MergeArgs) -> Result<(), Failure> {
    if let Some(base) = &a.job_error {
        let (text, _) = slotsim::sweep::job_error::job_error(&a.dirs, base)
            .map_err(|e| InputError::new("merge", e.to_string()))?;
        emit(&text, false)?;
        return Ok(());
    }
    let mut csv_out = a.csv.as_deref().map(|p| open_out(p, "--csv")).transpose()?;
    let m = merge::merge(&a.dirs).map_err(|e| InputError::new("merge", e.to_string()))?;
    let text = match &a.table {
        Some(metric) => merge::markdown(&m, metric, a.versus.as_deref(), &a.policies, &a.scenario)
            .map_err(|e| InputError::new("--table", e.to_string()))?,
        None => merge::table(&m),
    };
    emit(&text, a.csv.as_deref() == Some("-"))?;
    if let Some(out) = csv_out.as_mut() {
        out.write_all(merge::csv(&m).as_bytes())?;
        out.flush()?;
    }
    Ok(())
}

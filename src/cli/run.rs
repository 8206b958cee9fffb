//! `slotsim run` (headless and TUI), `slotsim record`, `slotsim compare`.

use super::{emit, load, open_out, scenario_origin, Failure};
use super::{CompareArgs, RecordArgs, RunArgs};
use slotsim::error::InputError;
use slotsim::model::spec::split_policy_list;
use slotsim::report::{compare, plot, summary, trace};
use slotsim::runs::build_sim;
use slotsim::scenario;
use slotsim::sim::Sim;
use slotsim::units::parse_duration;
use std::fs::File;
use std::io::{self, IsTerminal, Write};
use std::path::Path;
use std::time::{Duration, Instant};

pub fn cmd_run(a: RunArgs) -> Result<(), Failure> {
    let until = a
        .until
        .as_deref()
        .map(|u| parse_duration(u).map_err(|e| InputError::new("--until", e.to_string())))
        .transpose()?;
    check_outputs(&a)?;
    let specs = specs_of(a.policies.as_deref(), &a.policy);
    if a.headless && specs.len() > 1 {
        return Err(InputError::new(
            "--policies",
            format!(
                "{} policies side by side is the TUI's; expected one policy with --headless, or `slotsim compare SCENARIO --policies {}` for a table of them",
                specs.len(),
                specs.join(",")
            ),
        )
        .into());
    }
    if !a.headless {
        check_tui_flags(&a)?;
        return cmd_tui(
            a.scenario.as_deref(),
            &specs,
            a.seed,
            &a.set,
            TuiOutputs {
                record: a.record.as_deref(),
                json: a.json.as_deref(),
                trace: a.trace.as_deref(),
            },
        );
    }
    if a.record.is_some() {
        return Err(InputError::new(
            "--record",
            "records the TUI; drop --headless, or use `slotsim record`",
        )
        .into());
    }
    run_headless(&a, specs.first().map(String::as_str), until)
}

/// The policies of `--policies`, then those of each `--policy`, in order.
fn specs_of(policies: Option<&str>, policy: &[String]) -> Vec<String> {
    let mut specs = policies.map(split_policy_list).unwrap_or_default();
    specs.extend(policy.iter().map(|p| p.trim().to_string()));
    specs
}

/// The scenario once per policy side by side (2 to 4), each cut to its
/// own `run = N` events; every spec loaded (and so checked) first.
fn load_side(
    path: Option<&Path>,
    specs: &[String],
    seed: Option<u64>,
    set: &[String],
) -> Result<Vec<slotsim::model::Scenario>, InputError> {
    let max = scenario::MAX_SIDE_RUNS;
    if specs.len() > max {
        return Err(InputError::new(
            "--policies",
            format!(
                "{} policies given; expected 2 to {max} side by side",
                specs.len()
            ),
        ));
    }
    let sets = super::sets::parse(set)?;
    let mut all = Vec::with_capacity(specs.len());
    for (i, spec) in specs.iter().enumerate() {
        let mut sc = super::sets::load(path, &sets, Some(spec), seed).map_err(|mut e| {
            if e.pos.is_none() && e.origin != "--set" {
                e.origin = "--policies".into();
            }
            e
        })?;
        scenario::side_run(&mut sc, i, specs.len())?;
        if i == 0 {
            super::note_slot_model(&sc);
        }
        all.push(sc);
    }
    let labels: Vec<String> = all.iter().map(|s| s.policy.label()).collect();
    distinct_labels(specs, &labels)?;
    Ok(all)
}

/// Each policy its own label: two under one name would read as one in
/// tables, plots and the JSON.
fn distinct_labels(specs: &[String], labels: &[String]) -> Result<(), InputError> {
    for (i, l) in labels.iter().enumerate() {
        if let Some(k) = labels[..i].iter().position(|x| x == l) {
            let what = if specs[k] == specs[i] {
                format!(
                    "policy {} repeats policy {} (\"{l}\"); expected each once",
                    i + 1,
                    k + 1
                )
            } else {
                format!(
                    "policies {} and {} are both labelled \"{l}\" ({} and {}); expected each its own, e.g. external[label=NAME]:CMD",
                    k + 1,
                    i + 1,
                    specs[k],
                    specs[i]
                )
            };
            return Err(InputError::new("--policies", what));
        }
    }
    Ok(())
}

/// At most one output on stdout, and no two outputs into one file (they
/// would interleave into neither format).
fn check_outputs(a: &RunArgs) -> Result<(), Failure> {
    let to_stdout = [&a.json, &a.trace, &a.inspect, &a.flows]
        .iter()
        .filter(|p| p.as_deref() == Some("-"))
        .count();
    if to_stdout > 1 {
        return Err(InputError::new(
            "--json",
            "only one of --json, --trace, --inspect and --flows can write to stdout (-); give the others a file",
        )
        .into());
    }
    let files: Vec<(&str, &str)> = [
        ("--json", &a.json),
        ("--trace", &a.trace),
        ("--inspect", &a.inspect),
        ("--flows", &a.flows),
    ]
    .into_iter()
    .filter_map(|(f, p)| p.as_deref().filter(|p| *p != "-").map(|p| (f, p)))
    .collect();
    for (i, (f1, p1)) in files.iter().enumerate() {
        if let Some((f2, _)) = files[i + 1..]
            .iter()
            .find(|(_, p2)| Path::new(p1) == Path::new(p2))
        {
            return Err(InputError::new(
                *f2,
                format!("{p1} is also the {f1} file; expected a different file for each output"),
            )
            .into());
        }
    }
    Ok(())
}

/// The TUI draws on stdout, so its --json and --trace go to files; the
/// flags of a headless run only are refused.
fn check_tui_flags(a: &RunArgs) -> Result<(), Failure> {
    for (flag, p) in [("--json", &a.json), ("--trace", &a.trace)] {
        if p.as_deref() == Some("-") {
            return Err(InputError::new(
                flag,
                "- (stdout) is where the TUI draws; give a file, or add --headless",
            )
            .into());
        }
    }
    let only_headless = [
        ("--inspect", a.inspect.is_some()),
        ("--flows", a.flows.is_some()),
        ("--until", a.until.is_some()),
        ("--plot", a.plot.is_some()),
    ];
    if let Some((flag, _)) = only_headless.iter().find(|(_, given)| *given) {
        return Err(
            InputError::new(*flag, "only with --headless (the TUI runs until you quit)").into(),
        );
    }
    Ok(())
}

/// A headless run: the scenario run to its end, `until` or a signal, its
/// summary printed and every output asked for written.
fn run_headless(a: &RunArgs, policy: Option<&str>, until: Option<u64>) -> Result<(), Failure> {
    let sc = load(a.scenario.as_deref(), policy, a.seed, &a.set)?;
    // Open every output before running, so a bad path costs no simulation.
    let outs = Outputs::open(a)?;
    if let Some(dir) = &a.plot {
        super::check_plot_dir(dir)?;
    }
    // One run: a policy process shares its CPU (see `share_cpu`).
    slotsim::sched::external::share_cpu(true);
    let mut sim =
        build_sim(&sc).map_err(|e| InputError::new(scenario_origin(&a.scenario), e.to_string()))?;
    if outs.flows.is_some() {
        sim.record_flows();
    }
    if outs.trace.is_none() && outs.flows.is_none() && a.plot.is_none() {
        // Nothing reads an ended job's attempts (the trace, the flows'
        // tasks and the plots do): the summary counts what it needs as
        // they end.
        sim.drop_attempt_records();
    }
    let inspect_err = inspect(&mut sim, a.inspect.as_deref())?;
    let wall = Instant::now();
    let mut links = a.plot.as_ref().map(|_| plot::LinkSampler::default());
    let stop = stop_on_signals();
    let stopped = run_with_progress(&mut sim, until, links.as_mut(), &stop);
    let wall = wall.elapsed().as_secs_f64();
    // The policy hears why the run is over before the outputs are written.
    sim.end(if stopped.is_some() {
        slotsim::sim::EndReason::Stopped
    } else {
        sim.ended_by(until)
    });
    // Drop the inspector (flushing its writer) before writing anything else.
    sim.set_inspector(Box::new(|_| {}));
    if let Some(e) = inspect_err.lock().ok().and_then(|mut e| e.take()) {
        return Err(e.into());
    }
    if std::env::var_os("SLOTSIM_SOLVER_STATS").is_some() {
        print_solver_stats(&sim);
        print_bottleneck_stats(&sim);
    }
    let mut sum = summary::summarize(&sim);
    if stopped.is_some() || sim.halted().is_some() {
        sum.partial = true;
        sum.stopped_at_s = Some(sim.view().t_s());
    }
    let any_stdout = [&a.json, &a.trace, &a.inspect, &a.flows]
        .iter()
        .any(|p| p.as_deref() == Some("-"));
    let mut table = summary::table(&sum);
    // The only output that depends on the wall clock; not in the JSON.
    outln!(
        table,
        "engine: {} events in {:.2} s ({:.0} events/s)",
        sum.events,
        wall,
        sum.events as f64 / wall.max(1e-9)
    );
    emit(&table, any_stdout)?;
    outs.write(&sim, &sum)?;
    if let Some(dir) = &a.plot {
        let series = [(sum.policy.clone(), vec![&sum])];
        super::write_plot(dir, "turnaround_cdf.svg", plot::turnaround_cdf(&series))?;
        super::write_plot(dir, "utilization.svg", plot::utilization(&sim))?;
        super::write_plot(dir, "gantt.svg", plot::gantt(&sim))?;
        if let Some(l) = &links {
            super::write_plot(dir, "links.svg", l.svg(&sim))?;
        }
    }
    if let Some(why) = sim.halted() {
        return Err(Failure::Policy(format!(
            "{why}\n  the run stopped at {:.1} s simulated; the outputs asked for hold it up to then (\"partial\": true)",
            sim.view().t_s()
        )));
    }
    match stopped {
        None => Ok(()),
        Some(name) => Err(Failure::Interrupted(format!(
            "stopped by {name} at {:.1} s simulated; the outputs asked for hold the run up to then (\"partial\": true)",
            sim.view().t_s()
        ))),
    }
}

/// The outputs of a headless run written after it: --trace, --json and
/// --flows.
struct Outputs {
    trace: Option<Box<dyn Write + Send>>,
    json: Option<Box<dyn Write + Send>>,
    flows: Option<Box<dyn Write + Send>>,
}

impl Outputs {
    fn open(a: &RunArgs) -> Result<Outputs, Failure> {
        let open =
            |p: &Option<String>, flag: &str| p.as_deref().map(|p| open_out(p, flag)).transpose();
        Ok(Outputs {
            trace: open(&a.trace, "--trace")?,
            json: open(&a.json, "--json")?,
            flows: open(&a.flows, "--flows")?,
        })
    }

    /// The flows, the trace, then the summary.
    fn write(self, sim: &Sim, sum: &summary::Summary) -> Result<(), Failure> {
        if let Some(mut out) = self.flows {
            trace::write_flows(sim, &mut out)?;
            out.flush()?;
        }
        if let Some(mut out) = self.trace {
            trace::write_trace(sim, &mut out)?;
            out.flush()?;
        }
        if let Some(mut out) = self.json {
            serde_json::to_writer_pretty(&mut out, sum).map_err(io::Error::from)?;
            writeln!(out)?;
            out.flush()?;
        }
        Ok(())
    }
}

/// The first write error of the inspect stream, reported after the run.
type InspectError = std::sync::Arc<std::sync::Mutex<Option<io::Error>>>;

/// With --inspect, a line per scheduling heartbeat written to its file as
/// the run goes.
fn inspect(sim: &mut Sim, path: Option<&str>) -> Result<InspectError, Failure> {
    let inspect_err: InspectError = Default::default();
    if let Some(p) = path {
        let mut out = open_out(p, "--inspect")?;
        let err = inspect_err.clone();
        sim.set_inspector(Box::new(move |rec| {
            if let Ok(mut e) = err.lock() {
                if e.is_none() {
                    if let Err(x) = writeln!(out, "{}", trace::inspect_line(rec)) {
                        *e = Some(x);
                    }
                }
            }
        }));
    }
    Ok(inspect_err)
}

/// `SLOTSIM_SOLVER_STATS`: what the network solver did, per solve.
fn print_solver_stats(sim: &Sim) {
    let n = sim.view().net();
    eprintln!(
        "solver: {} solves, {:.1} flows and {:.1} resources each, {:.2} rounds ({:.1} flows filled), {:.1} rates changed at {:.1} bottlenecks; {} cut short, {} exact re-solves ({} for a zero rate, {} flows filled)",
        n.solves,
        n.solved_flows as f64 / n.solves.max(1) as f64,
        n.solved_resources as f64 / n.solves.max(1) as f64,
        n.solve_rounds as f64 / n.solves.max(1) as f64,
        n.round_flows as f64 / n.solves.max(1) as f64,
        n.rate_changes as f64 / n.solves.max(1) as f64,
        n.levels_changed as f64 / n.solves.max(1) as f64,
        n.cut_solves,
        n.resyncs,
        n.zero_resyncs,
        n.resync_flows
    );
    eprintln!(
        "solver: {} fills skipped slack resources, {} of them filled again without",
        n.slack_fills, n.slack_refills
    );
    // Where the fill work goes: solves by their rounds (each round fills
    // its whole set again), the share of solves and of all flows filled.
    let filled = n.round_flows.max(1) as f64;
    for (i, &(solves, flows)) in n.by_rounds.iter().enumerate() {
        if solves == 0 {
            continue;
        }
        let more = if i + 1 == n.by_rounds.len() { "+" } else { "" };
        eprintln!(
            "solver: {}{more} rounds: {solves} solves ({:.1} %), {:.1} flows filled each ({:.1} % of all)",
            i + 1,
            100.0 * solves as f64 / n.solves.max(1) as f64,
            flows as f64 / solves as f64,
            100.0 * flows as f64 / filled
        );
    }
}

/// `SLOTSIM_SOLVER_STATS`: where the rates a solve changes froze, by kind
/// of resource, and where flows are bottlenecked when the run stops.
fn print_bottleneck_stats(sim: &Sim) {
    use slotsim::sim::paths::Links;
    let (n, links) = (sim.view().net(), sim.view().links());
    let mut by = [(0u64, 0u64, 0u64, 0u64); Links::KINDS.len()];
    for (r, res) in n.resources.iter().enumerate() {
        let k = links.kind(r as u32);
        let (changes, moves) = res.changes();
        by[k].0 += changes;
        by[k].1 += moves;
        if res.bottlenecked() > 0 {
            by[k].2 += 1;
            by[k].3 += res.bottlenecked() as u64;
        }
    }
    let solves = n.solves.max(1) as f64;
    let all = n.rate_changes.max(1) as f64;
    let at_res: u64 = by.iter().map(|b| b.0).sum();
    let moved_res: u64 = by.iter().map(|b| b.1).sum();
    let caps = (n.rate_changes - at_res, n.levels_changed - moved_res);
    let rows = Links::KINDS.iter().zip(&by).map(|(k, b)| (*k, b.0, b.1));
    for (kind, changes, moves) in rows.chain([("flows' own caps", caps.0, caps.1)]) {
        if changes == 0 {
            continue;
        }
        eprintln!(
            "solver: rates changed of flows frozen at {kind}: {:.1} a solve ({:.1} %), at {:.2} of them a solve, {:.1} each",
            changes as f64 / solves,
            100.0 * changes as f64 / all,
            moves as f64 / solves,
            changes as f64 / moves.max(1) as f64
        );
    }
    for (kind, b) in Links::KINDS.iter().zip(&by) {
        if b.2 > 0 {
            eprintln!(
                "solver: at {:.1} s, {} {kind} hold {} flows bottlenecked ({:.1} each)",
                sim.view().t_s(),
                b.2,
                b.3,
                b.3 as f64 / b.2 as f64
            );
        }
    }
}

/// The name of the signal (SIGINT, SIGTERM, SIGHUP) that asked a headless
/// run to stop, once one has: the handlers are installed before the run,
/// and the run checks between slices so that it can write its outputs.
pub(super) type StopFlag = std::sync::Arc<std::sync::Mutex<Option<&'static str>>>;

pub(super) fn stop_on_signals() -> StopFlag {
    let flag: StopFlag = Default::default();
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        let Ok(rt) = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
        else {
            return flag;
        };
        let installed = {
            let _guard = rt.enter();
            (
                signal(SignalKind::interrupt()),
                signal(SignalKind::terminate()),
                signal(SignalKind::hangup()),
            )
        };
        if let (Ok(mut int), Ok(mut term), Ok(mut hup)) = installed {
            let f = flag.clone();
            std::thread::spawn(move || {
                rt.block_on(async move {
                    let name = tokio::select! {
                        _ = int.recv() => "SIGINT",
                        _ = term.recv() => "SIGTERM",
                        _ = hup.recv() => "SIGHUP",
                    };
                    if let Ok(mut g) = f.lock() {
                        *g = Some(name);
                    }
                });
            });
        }
    }
    flag
}

/// What a TUI session writes: the recording as it goes, and the summary
/// (`--json`) and trace (`--trace`) of the run as it stands when the
/// session ends (by `q`, Ctrl-C or a signal).
#[derive(Clone, Copy, Default)]
pub struct TuiOutputs<'a> {
    pub record: Option<&'a Path>,
    pub json: Option<&'a str>,
    pub trace: Option<&'a str>,
}

pub fn cmd_tui(
    path: Option<&Path>,
    specs: &[String],
    seed: Option<u64>,
    set: &[String],
    outs: TuiOutputs<'_>,
) -> Result<(), Failure> {
    let scenarios = if specs.len() > 1 {
        load_side(path, specs, seed, set)?
    } else {
        vec![load(path, specs.first().map(String::as_str), seed, set)?]
    };
    let side = scenarios.len() > 1;
    if side && outs.trace.is_some() {
        return Err(InputError::new(
            "--trace",
            "writes one run's attempts; side by side, expected --json (one summary per run) or a single --policy",
        )
        .into());
    }
    let origin = path.map_or_else(
        || "quickstart (embedded)".to_string(),
        |p| p.display().to_string(),
    );
    // Without a terminal there is no session to hold: a usage error (exit
    // 2), before any output is opened.
    if !std::io::IsTerminal::is_terminal(&io::stdout()) {
        return Err(Failure::Input(InputError::new(
            origin,
            "the TUI needs a terminal on stdout; expected one, or --headless to run without it",
        )));
    }
    let trace_out = outs.trace.map(|p| open_out(p, "--trace")).transpose()?;
    let json_out = outs.json.map(|p| open_out(p, "--json")).transpose()?;
    // A policy process's stderr would scribble over the screen: kept, and
    // its last lines quoted if it stops the run.
    slotsim::sched::external::keep_stderr(true);
    slotsim::sched::external::share_cpu(true);
    let mut app = slotsim::tui::App::side_by_side(scenarios)
        .map_err(|e| InputError::new(origin, e.to_string()))?;
    app.source = path.map(Path::to_path_buf);
    // However the session ended (a quit, a signal, a terminal gone from
    // under it), its outputs are written before anything else is said.
    let ended = slotsim::tui::term::run(&mut app, outs.record);
    let sums: Vec<summary::Summary> = app
        .panes()
        .iter()
        .map(|p| {
            let mut sum = summary::summarize(&p.sim);
            if !p.sim.is_finished() {
                sum.partial = true;
                sum.stopped_at_s = Some(p.sim.view().t_s());
            }
            sum
        })
        .collect();
    // The run as it stands now, keyboard submissions and switches included.
    if let Some(mut out) = trace_out {
        trace::write_trace(app.sim(), &mut out)?;
        out.flush()?;
    }
    if let Some(mut out) = json_out {
        // Side by side an array, one summary per run, as `compare --json`.
        if side {
            serde_json::to_writer_pretty(&mut out, &sums).map_err(io::Error::from)?;
        } else {
            serde_json::to_writer_pretty(&mut out, &sums[0]).map_err(io::Error::from)?;
        }
        writeln!(out)?;
        out.flush()?;
    }
    let exit = ended.map_err(|e| Failure::Other(format!("the terminal: {e}")))?;
    app.end_runs();
    // What the session came to, printed where the terminal is back (the
    // outputs are written first: a vanished terminal cannot take them).
    let table = if side {
        summary::side_table(&sums)
    } else {
        summary::table(&sums[0])
    };
    let _ = emit(&table, false);
    let halted = app.panes().iter().enumerate().find_map(|(k, p)| {
        p.sim
            .halted()
            .map(|why| (k, why.to_string(), p.sim.view().t_s()))
    });
    let ended = if let Some((k, why, t)) = halted {
        let whose = if side {
            format!("run {} ", k + 1)
        } else {
            String::new()
        };
        Err(Failure::Policy(format!(
            "{why}\n  the {whose}run stopped at {t:.1} s simulated; the outputs asked for hold it up to then (\"partial\": true)"
        )))
    } else {
        match exit {
            slotsim::tui::term::Exit::Quit => Ok(()),
            // Say why the session ended; exit status 130, as headless.
            slotsim::tui::term::Exit::Signal(name) => Err(Failure::Interrupted(format!(
                "stopped by {name}; outputs written up to {}",
                slotsim::units::fmt_secs(app.sim().view().now())
            ))),
        }
    };
    // Everything is written and the process ends: freeing a big session
    // (its records, its checkpoints for seeking back) would hold the
    // shell a quarter of a second for nothing, so it is left to the
    // operating system. A policy in another process is dropped as usual:
    // it is told `end` and waited for.
    let builtin = app.panes().iter().all(|p| {
        p.sim
            .policy_specs()
            .iter()
            .all(|s| matches!(s, slotsim::model::spec::PolicySpec::Builtin { .. }))
    });
    if builtin {
        std::mem::forget(app);
    }
    ended
}

pub fn cmd_record(a: RecordArgs) -> Result<(), Failure> {
    use slotsim::tui::offscreen::{keys_arg, record, RecordOpts};
    let (w, h) = a
        .size
        .split_once(['x', 'X'])
        .and_then(|(w, h)| Some((w.trim().parse::<u16>().ok()?, h.trim().parse::<u16>().ok()?)))
        .filter(|&(w, h)| (40..=500).contains(&w) && (10..=200).contains(&h))
        .ok_or_else(|| {
            InputError::new(
                "--size",
                format!(
                    "\"{}\" is not COLSxROWS between 40x10 and 500x200, like 100x30",
                    a.size
                ),
            )
        })?;
    let until = a
        .until
        .as_deref()
        .map(|u| parse_duration(u).map_err(|e| InputError::new("--until", e.to_string())))
        .transpose()?;
    if !(1..=60).contains(&a.fps) {
        return Err(InputError::new("--fps", format!("{} is not between 1 and 60", a.fps)).into());
    }
    if !slotsim::tui::app::SPEEDS
        .iter()
        .any(|s| (*s - a.speed).abs() < 1e-9 && s.is_finite())
    {
        return Err(InputError::new("--speed", format!("{} is not a TUI speed step (0.1, 0.25, 0.5, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000)", a.speed)).into());
    }
    let keys = keys_arg(&a.keys)?;
    let specs = specs_of(a.policies.as_deref(), &a.policy);
    let scenarios = if specs.len() > 1 {
        load_side(a.scenario.as_deref(), &specs, a.seed, &a.set)?
    } else {
        vec![super::load(
            a.scenario.as_deref(),
            specs.first().map(String::as_str),
            a.seed,
            &a.set,
        )?]
    };
    let mut app = slotsim::tui::App::side_by_side(scenarios)
        .map_err(|e| InputError::new(super::scenario_origin(&a.scenario), e.to_string()))?;
    // A `W` among the keys writes the session into the current directory, as live.
    app.source = a.scenario.clone();
    let opts = RecordOpts {
        width: w,
        height: h,
        fps: a.fps,
        until,
        speed: a.speed,
        keys,
        stop: Some(stop_on_signals()),
    };
    // A path that cannot be written is bad input (exit 2), found before
    // any rendering; a failure later on is an I/O error (exit 1).
    File::create(&a.out)
        .map_err(|e| InputError::new("--out", format!("cannot create {}: {e}", a.out.display())))?;
    let (frames, ms, stopped) = record(app, &a.out, &opts)
        .map_err(|e| Failure::Other(format!("cannot write {}: {e}", a.out.display())))?;
    if let Some(signal) = stopped {
        return Err(Failure::Interrupted(format!(
            "stopped by {signal}: wrote {} up to then ({frames} frames, {:.1}s)",
            a.out.display(),
            ms as f64 / 1000.0
        )));
    }
    emit(
        &format!(
            "wrote {} ({frames} frames, {:.1}s)\n",
            a.out.display(),
            ms as f64 / 1000.0
        ),
        false,
    )
}

/// Runs to the end (or `until`), showing progress on stderr when it is a
/// terminal and the run takes more than a moment; returns the signal that
/// stopped it first, if one did.
fn run_with_progress(
    sim: &mut Sim,
    until: Option<u64>,
    mut links: Option<&mut plot::LinkSampler>,
    stop: &StopFlag,
) -> Option<&'static str> {
    let mut progress = Progress::new(until);
    if let Some(l) = links.as_deref_mut() {
        l.sample(sim);
    }
    loop {
        // Advance in slices of simulated time so progress can be shown.
        let next = sim.next_event_time().map(|t| t + 5_000);
        let limit = match (next, until) {
            (Some(n), Some(u)) => Some(n.min(u)),
            (Some(n), None) => Some(n),
            (None, u) => u,
        };
        let more = sim.run_until(limit);
        if let Some(l) = links.as_deref_mut() {
            l.sample(sim);
        }
        let done = sim.is_finished() || !more || until.is_some_and(|u| sim.view().now() >= u);
        progress.show(sim, false);
        let signal = stop.lock().ok().and_then(|g| *g);
        if done || signal.is_some() {
            progress.end(sim);
            return signal.filter(|_| !done);
        }
    }
}

/// A long headless run's progress on a terminal: a bar over the simulated
/// time to `--until` when it is given, else over the jobs finished (rough,
/// since jobs differ in size), with its ETA, and what the run has reached.
/// indicatif redraws it in place and cuts it to the terminal's width, so
/// that it stays one line at 80 columns.
struct Progress {
    tty: bool,
    until: Option<u64>,
    started: Instant,
    last: Instant,
    bar: Option<indicatif::ProgressBar>,
}

impl Progress {
    fn new(until: Option<u64>) -> Progress {
        Progress {
            tty: io::stderr().is_terminal(),
            until,
            started: Instant::now(),
            last: Instant::now(),
            bar: None,
        }
    }

    /// Redraws at most five times a second, from half a second in (or,
    /// `last`, once more if it has been drawn).
    fn show(&mut self, sim: &Sim, last: bool) {
        let due = if last {
            self.bar.is_some()
        } else {
            self.tty
                && (self.bar.is_some() || self.started.elapsed() >= Duration::from_millis(500))
                && self.last.elapsed() >= Duration::from_millis(200)
        };
        if !due {
            return;
        }
        self.last = Instant::now();
        let w = sim.view();
        let jobs = (w.finished_jobs(), w.submitted_jobs().max(w.jobs().len()));
        let (pos, len) = progress_position(self.until, w.now(), jobs);
        let bar = self.bar.get_or_insert_with(|| {
            let b = indicatif::ProgressBar::new(len);
            b.set_style(
                indicatif::ProgressStyle::with_template(
                    "  {bar:20} {percent:>3}% {prefix}  {wide_msg}",
                )
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
            );
            b
        });
        bar.set_length(len);
        bar.set_position(pos);
        let wall = self.started.elapsed().as_secs_f64();
        let of = if self.until.is_some() {
            "of --until"
        } else {
            "of jobs"
        };
        // The time left at the rate so far, once there is one (and not
        // on the last line drawn, where nothing is left to wait for).
        bar.set_prefix(match (last, eta_secs(wall, pos, len)) {
            (false, Some(s)) => format!("{of}, ETA {}", slotsim::units::human_secs(s)),
            _ => of.to_string(),
        });
        bar.set_message(format!(
            "{:.1} s simulated · jobs {}/{} finished · {} events/s",
            w.t_s(),
            jobs.0,
            jobs.1,
            slotsim::units::human_count(w.events() as f64 / wall.max(1e-9)),
        ));
    }

    /// Draws where the run ended and leaves that line above the summary.
    fn end(mut self, sim: &Sim) {
        self.show(sim, true);
        if let Some(b) = self.bar {
            b.abandon();
        }
    }
}

/// What the progress bar measures, as (position, length): the simulated
/// milliseconds to `--until` when it is given, else the jobs finished of
/// those in the run (`jobs`, finished and all). The length is never 0, so
/// that a run with nothing to do reads 0 %, not a division by zero.
fn progress_position(until: Option<u64>, now: u64, jobs: (usize, usize)) -> (u64, u64) {
    match until {
        Some(u) => (now.min(u), u.max(1)),
        None => (jobs.0 as u64, (jobs.1 as u64).max(1)),
    }
}

/// The wall seconds left if the rest goes at the rate so far (`wall`
/// seconds for `pos` of `len`): none before there is a rate, or once
/// nothing is left.
fn eta_secs(wall: f64, pos: u64, len: u64) -> Option<f64> {
    (pos > 0 && pos < len).then(|| wall * (len - pos) as f64 / pos as f64)
}

pub fn cmd_compare(a: CompareArgs) -> Result<(), Failure> {
    let specs = specs_of(a.policies.as_deref(), &a.policy);
    if specs.is_empty() {
        return Err(InputError::new(
            "--policies",
            "expected at least one policy, e.g. --policies fifo,fair or --policy fifo --policy fair",
        )
        .into());
    }
    if a.seeds == 0 || a.seeds > 1000 {
        return Err(
            InputError::new("--seeds", format!("{} is not between 1 and 1000", a.seeds)).into(),
        );
    }
    // Load (and so validate) everything before running anything.
    let sets = super::sets::parse(&a.set)?;
    let mut all = Vec::new();
    for (i, spec) in specs.iter().enumerate() {
        let mut per_seed = Vec::new();
        for k in 0..a.seeds {
            // Seeds 1 to N, as a sweep's `seeds = N`: the same N-seed row
            // whichever command produced it (docs/cli.md).
            let mut sc = super::sets::load(Some(&a.scenario), &sets, Some(spec), Some(k + 1))
                .map_err(|mut e| {
                    if e.pos.is_none() && e.origin != "--set" {
                        e.origin = "--policies".into();
                    }
                    e
                })?;
            // A `run = N` switch is the N-th policy's alone, as side by side.
            scenario::side_run(&mut sc, i, specs.len())?;
            if k == 0 {
                super::note_slot_model(&sc);
            }
            per_seed.push(sc);
        }
        all.push(per_seed);
    }
    // Each row its own name: two policies under one label would read as
    // one in the table, the plots and the JSON.
    let labels: Vec<String> = all.iter().map(|v| v[0].policy.label()).collect();
    distinct_labels(&specs, &labels)?;
    // Open the output before the runs, so a bad path costs nothing: a
    // file is written aside and renamed over PATH once whole, so a run that
    // fails or is stopped leaves PATH as it was.
    let json = a.json.as_deref().map(Aside::open).transpose()?;
    // Runs in parallel: a policy's stderr lines each say whose they are.
    slotsim::sched::external::prefix_stderr(true);
    let total_runs: usize = all.iter().map(Vec::len).sum();
    let seeds: Vec<Vec<u64>> = all
        .iter()
        .map(|v| v.iter().map(|s| s.seed).collect())
        .collect();
    // Its progress on a terminal, as a sweep's: the runs ended of all.
    let bar = super::CountBar::new(total_runs as u64, "runs");
    let cells = slotsim::runs::compare::run_all(all, &|done, _| bar.set(done as u64));
    bar.clear();
    // Every cell ran: the failed ones are named with their scenario,
    // policy and seed, the others make the table and the outputs.
    let origin = a.scenario.display().to_string();
    let mut failed = Vec::new();
    let results: Vec<Vec<summary::Summary>> = cells
        .into_iter()
        .enumerate()
        .map(|(i, row)| {
            row.into_iter()
                .enumerate()
                .filter_map(|(k, r)| {
                    r.map_err(|e| {
                        failed.push(format!(
                            "{origin}: policy {}, seed {}: {e}",
                            labels[i], seeds[i][k]
                        ))
                    })
                    .ok()
                })
                .collect()
        })
        .collect();
    let total = total_runs;
    let table = compare::table(&labels, &results, a.seeds);
    emit(&table, a.json.as_deref() == Some("-"))?;
    let finished = total - failed.len();
    // Nothing finished: no output is written, a file already there stays
    // as it was (the aside copy goes with `json`).
    if finished > 0 {
        if let Some(mut out) = json {
            let flat: Vec<&summary::Summary> = results.iter().flatten().collect();
            out.write_json(&flat)?;
            out.finish()?;
        }
        if let Some(dir) = &a.plot {
            let series: Vec<(String, Vec<&summary::Summary>)> = labels
                .iter()
                .cloned()
                .zip(results.iter().map(|r| r.iter().collect()))
                .collect();
            super::write_plot(dir, "turnaround_cdf.svg", plot::turnaround_cdf(&series))?;
        }
    }
    if !failed.is_empty() {
        // One `error:` line per failed run, then what became of the rest.
        let mut text: String = failed.iter().map(|f| format!("error: {f}\n")).collect();
        if finished == 0 {
            text.push_str(&format!(
                "error: every run failed ({total} of {total}); no output was written, files already there are as they were\n"
            ));
        } else {
            text.push_str(&format!(
                "error: {} of {total} runs failed; the table and outputs hold the other {finished}\n",
                failed.len()
            ));
        }
        let _ = emit(&text, true);
        return Err(Failure::Reported(2));
    }
    Ok(())
}

/// `--json PATH` written aside (`PATH.partial` beside it) and renamed over
/// PATH once whole; `-` is stdout.
struct Aside {
    out: Box<dyn Write + Send>,
    rename: Option<(std::path::PathBuf, std::path::PathBuf)>,
}

impl Aside {
    fn open(path: &str) -> Result<Aside, Failure> {
        if path == "-" {
            return Ok(Aside {
                out: open_out(path, "--json")?,
                rename: None,
            });
        }
        let aside = format!("{path}.partial");
        let out = open_out(&aside, "--json").map_err(|_| {
            InputError::new(
                "--json",
                format!("cannot create {aside} (written, then renamed to {path})"),
            )
        })?;
        Ok(Aside {
            out,
            rename: Some((aside.into(), path.into())),
        })
    }

    fn write_json<T: serde::Serialize>(&mut self, v: &T) -> Result<(), Failure> {
        serde_json::to_writer_pretty(&mut self.out, v).map_err(io::Error::from)?;
        writeln!(self.out)?;
        self.out.flush()?;
        Ok(())
    }

    fn finish(mut self) -> Result<(), Failure> {
        self.out.flush()?;
        if let Some((from, to)) = self.rename.take() {
            std::fs::rename(&from, &to).map_err(|e| {
                Failure::Other(format!(
                    "cannot rename {} to {}: {e}",
                    from.display(),
                    to.display()
                ))
            })?;
        }
        Ok(())
    }
}

impl Drop for Aside {
    /// Not renamed (an error on the way): the half-written file goes, the
    /// original stays.
    fn drop(&mut self) {
        if let Some((from, _)) = &self.rename {
            let _ = std::fs::remove_file(from);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{eta_secs, progress_position};

    #[test]
    fn the_progress_bar_measures_until_when_given_else_the_jobs() {
        // `--until 3h` on a day's trace: the bar is the simulated time,
        // whatever share of the day's jobs have finished.
        assert_eq!(
            progress_position(Some(10_800_000), 2_700_000, (500, 24_442)),
            (2_700_000, 10_800_000)
        );
        // The last slice may step past `until`: the bar stops at its end.
        assert_eq!(
            progress_position(Some(1_000), 1_200, (0, 3)),
            (1_000, 1_000)
        );
        assert_eq!(
            progress_position(None, 2_700_000, (500, 24_442)),
            (500, 24_442)
        );
        // Nothing to do: 0 of 1, not 0 of 0.
        assert_eq!(progress_position(None, 0, (0, 0)), (0, 1));
        assert_eq!(progress_position(Some(0), 0, (0, 5)), (0, 1));
    }

    #[test]
    fn the_eta_goes_by_the_rate_so_far_and_only_once_there_is_one() {
        // A quarter done in 10 s: 30 s left.
        assert_eq!(eta_secs(10.0, 250, 1_000), Some(30.0));
        assert_eq!(eta_secs(2.0, 0, 1_000), None);
        assert_eq!(eta_secs(40.0, 1_000, 1_000), None);
    }
}

//! The `slotsim` command line: parse, dispatch, map errors to exit codes
//! (0 success, 2 bad input with one `error: FILE:LINE:COL: ...` line, 1 anything else).
#![forbid(unsafe_code)]

use clap::{Args, Parser, Subcommand};
use slotsim::error::InputError;
use slotsim::model::Scenario;
use slotsim::report::{compare, summary, trace};
use slotsim::scenario;
use slotsim::sched::settings::split_policy_list;
use slotsim::sched::{build_sim, POLICIES};
use slotsim::sim::Sim;
use slotsim::units::parse_duration;
use slotsim::units::plural;
use std::fs::File;
use std::io::{self, BufWriter, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

#[derive(Parser)]
#[command(
    name = "slotsim",
    version,
    about = "A terminal playground for MapReduce cluster scheduling",
    long_about = "slotsim simulates a Hadoop-MRv1-style cluster deterministically and runs \
                  FIFO, Fair, Capacity and research scheduling policies on it."
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Cmd>,
}

#[derive(Subcommand)]
enum Cmd {
    /// Run a scenario (the embedded quickstart if none is given)
    Run(RunArgs),
    /// Run one scenario under several policies and seeds, in parallel
    Compare(CompareArgs),
    /// Check a scenario and print what it describes
    Validate { scenario: PathBuf },
    /// List the scheduling policies, with the paper or code each follows
    Policies,
    /// List the built-in job profiles and where their numbers come from
    Profiles,
    /// Render the TUI offscreen into an asciinema v2 recording
    Record(RecordArgs),
}

#[derive(Args)]
struct RecordArgs {
    /// Scenario file (TOML)
    scenario: PathBuf,
    /// The .cast file to write
    #[arg(long, value_name = "FILE.cast")]
    out: PathBuf,
    /// Terminal size, COLSxROWS
    #[arg(long, default_value = "100x30")]
    size: String,
    /// Stop once the simulated clock reaches this (e.g. '5m')
    #[arg(long, value_name = "DUR", allow_hyphen_values = true)]
    until: Option<String>,
    /// Frames per second of the recording
    #[arg(long, default_value_t = 10, allow_negative_numbers = true)]
    fps: u32,
    /// Keys to press, one second apart, e.g. 's,Enter,p,Down,Enter'; a
    /// duration such as '3s' waits
    #[arg(long, default_value = "")]
    keys: String,
    /// Simulated seconds per recorded second (a TUI speed step: 0.1 … 1000)
    #[arg(long, default_value_t = 1.0, allow_negative_numbers = true)]
    speed: f64,
    /// Policy, or a variant such as 'fair[slowstart=0.05]'
    #[arg(long)]
    policy: Option<String>,
    /// Seed (overrides the scenario's)
    #[arg(long, allow_negative_numbers = true)]
    seed: Option<u64>,
}

#[derive(Args)]
struct RunArgs {
    /// Scenario file (TOML); the embedded quickstart when omitted
    scenario: Option<PathBuf>,
    /// Policy, or a variant such as 'fair[slowstart=0.05]'
    #[arg(long)]
    policy: Option<String>,
    /// Seed (overrides the scenario's)
    #[arg(long, allow_negative_numbers = true)]
    seed: Option<u64>,
    /// Run to completion as fast as possible and print a summary
    #[arg(long)]
    headless: bool,
    /// Write the JSON summary here ('-' for stdout)
    #[arg(long, value_name = "PATH")]
    json: Option<String>,
    /// Write one JSON line per task attempt here ('-' for stdout)
    #[arg(long, value_name = "PATH")]
    trace: Option<String>,
    /// Write one JSON line per scheduling heartbeat here ('-' for stdout)
    #[arg(long, value_name = "PATH")]
    inspect: Option<String>,
    /// Write every disk and link, then one JSON line per flow, here ('-' for stdout)
    #[arg(long, value_name = "PATH")]
    flows: Option<String>,
    /// Stop at this simulated time (e.g. '10m')
    #[arg(long, value_name = "DUR", allow_hyphen_values = true)]
    until: Option<String>,
    /// Record the live TUI session into an asciinema v2 file
    #[arg(long, value_name = "FILE.cast")]
    record: Option<PathBuf>,
}

#[derive(Args)]
struct CompareArgs {
    scenario: PathBuf,
    /// Comma-separated policies or variants, e.g. 'fifo,fair,fair[slowstart=1]'
    #[arg(long)]
    policies: String,
    /// Number of seeds per policy: the scenario's seed, seed+1, ...
    #[arg(long, default_value_t = 3, allow_negative_numbers = true)]
    seeds: u64,
    /// Write an array of JSON summaries here ('-' for stdout)
    #[arg(long, value_name = "PATH")]
    json: Option<String>,
}

enum Failure {
    Input(InputError),
    Other(String),
    /// The reader of our output went away (`slotsim ... | head`): stop quietly.
    ClosedPipe,
}

/// Appends one formatted line to a `String`.
macro_rules! line {
    ($o:expr, $($t:tt)*) => {{
        $o.push_str(&format!($($t)*));
        $o.push('\n');
    }};
}

/// Writes `text` to stdout or stderr, turning failures into errors rather
/// than the panic `print!` would raise.
fn emit(text: &str, to_stderr: bool) -> Result<(), Failure> {
    let r = if to_stderr {
        let mut e = io::stderr().lock();
        e.write_all(text.as_bytes()).and_then(|_| e.flush())
    } else {
        let mut o = io::stdout().lock();
        o.write_all(text.as_bytes()).and_then(|_| o.flush())
    };
    r.map_err(Failure::from)
}

impl From<InputError> for Failure {
    fn from(e: InputError) -> Self {
        Failure::Input(e)
    }
}

impl From<io::Error> for Failure {
    fn from(e: io::Error) -> Self {
        if e.kind() == io::ErrorKind::BrokenPipe {
            Failure::ClosedPipe
        } else {
            Failure::Other(format!("cannot write output: {e}"))
        }
    }
}

/// Clap's error text as one line: its first paragraph (`error: ...`,
/// with any indented continuation such as a missing flag's name), and a
/// pointer to the help of the subcommand that was given.
fn usage_error(rendered: &str, sub: Option<&str>) -> String {
    let para: Vec<&str> = rendered
        .lines()
        .skip_while(|l| l.trim().is_empty())
        .take_while(|l| !l.trim().is_empty())
        .map(str::trim)
        .collect();
    let text = if para.is_empty() {
        "error: invalid arguments".to_string()
    } else {
        para.join(" ")
    };
    let known = [
        "run", "compare", "validate", "record", "policies", "profiles",
    ];
    match sub.filter(|s| known.contains(s)) {
        Some(s) => format!("{text} (see 'slotsim {s} --help')"),
        None => format!("{text} (see 'slotsim --help')"),
    }
}

fn main() -> ExitCode {
    // A bug must still end in one line and exit status 1, never a backtrace
    // (the TUI's own hook restores the terminal first, then calls this one).
    std::panic::set_hook(Box::new(|info| {
        let msg = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".into());
        let at = info
            .location()
            .map_or(String::new(), |l| format!(" at {}:{}", l.file(), l.line()));
        eprintln!("error: internal error (a bug in slotsim; please report it): {msg}{at}");
        std::process::exit(1);
    }));
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) if !e.use_stderr() => {
            // --help, --version.
            let _ = e.print();
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            // Usage errors are bad input: one line, exit 2 (clap's own
            // rendering adds a usage block and a tip).
            let sub = std::env::args().nth(1);
            eprintln!("{}", usage_error(&e.render().to_string(), sub.as_deref()));
            return ExitCode::from(2);
        }
    };
    let result = match cli.command {
        None => cmd_tui(None, None, None, None),
        Some(Cmd::Run(a)) => cmd_run(a),
        Some(Cmd::Compare(a)) => cmd_compare(a),
        Some(Cmd::Validate { scenario }) => cmd_validate(&scenario),
        Some(Cmd::Record(a)) => cmd_record(a),
        Some(Cmd::Policies) => emit(&cmd_policies(), false),
        Some(Cmd::Profiles) => emit(&cmd_profiles(), false),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Input(e)) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
        Err(Failure::Other(e)) => {
            eprintln!("error: {e}");
            ExitCode::from(1)
        }
        Err(Failure::ClosedPipe) => ExitCode::SUCCESS,
    }
}

fn load(
    path: Option<&Path>,
    policy: Option<&str>,
    seed: Option<u64>,
) -> Result<Scenario, InputError> {
    match path {
        Some(p) => scenario::load_file(p, policy, seed),
        None => scenario::load_default(policy, seed),
    }
}

/// An output destination: a file, or stdout for `-`.
fn open_out(path: &str, flag: &str) -> Result<Box<dyn Write + Send>, Failure> {
    if path == "-" {
        Ok(Box::new(BufWriter::new(io::stdout())))
    } else {
        let f = File::create(path)
            .map_err(|e| InputError::new(flag, format!("cannot create {path}: {e}")))?;
        Ok(Box::new(BufWriter::new(f)))
    }
}

fn cmd_run(a: RunArgs) -> Result<(), Failure> {
    let until = a
        .until
        .as_deref()
        .map(|u| parse_duration(u).map_err(|e| InputError::new("--until", e.to_string())))
        .transpose()?;
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
    // Two outputs into one file would interleave into neither format.
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
    if !a.headless {
        let only_headless = [
            ("--json", a.json.is_some()),
            ("--trace", a.trace.is_some()),
            ("--inspect", a.inspect.is_some()),
            ("--flows", a.flows.is_some()),
            ("--until", a.until.is_some()),
        ];
        if let Some((flag, _)) = only_headless.iter().find(|(_, given)| *given) {
            return Err(InputError::new(
                *flag,
                "only with --headless (the TUI runs until you quit)",
            )
            .into());
        }
        return cmd_tui(
            a.scenario.as_deref(),
            a.policy.as_deref(),
            a.seed,
            a.record.as_deref(),
        );
    }
    if a.record.is_some() {
        return Err(InputError::new(
            "--record",
            "records the TUI; drop --headless, or use `slotsim record`",
        )
        .into());
    }
    let sc = load(a.scenario.as_deref(), a.policy.as_deref(), a.seed)?;
    // Open every output before running, so a bad path costs no simulation.
    let trace_out = a
        .trace
        .as_deref()
        .map(|p| open_out(p, "--trace"))
        .transpose()?;
    let json_out = a
        .json
        .as_deref()
        .map(|p| open_out(p, "--json"))
        .transpose()?;
    let flows_out = a
        .flows
        .as_deref()
        .map(|p| open_out(p, "--flows"))
        .transpose()?;
    let mut sim =
        build_sim(&sc).map_err(|e| InputError::new(scenario_origin(&a.scenario), e.to_string()))?;
    if flows_out.is_some() {
        sim.record_flows();
    }
    // The first write error of the inspect stream, reported after the run.
    let inspect_err: std::sync::Arc<std::sync::Mutex<Option<io::Error>>> = Default::default();
    if let Some(p) = &a.inspect {
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
    let wall = Instant::now();
    run_with_progress(&mut sim, until);
    let wall = wall.elapsed().as_secs_f64();
    // Drop the inspector (flushing its writer) before writing anything else.
    sim.set_inspector(Box::new(|_| {}));
    if let Some(e) = inspect_err.lock().ok().and_then(|mut e| e.take()) {
        return Err(e.into());
    }
    if std::env::var_os("SLOTSIM_SOLVER_STATS").is_some() {
        let n = &sim.w.net;
        eprintln!(
            "solver: {} solves, {:.1} flows and {:.1} resources each, {:.2} rounds ({:.1} flows filled), {:.1} rates changed",
            n.solves,
            n.solved_flows as f64 / n.solves.max(1) as f64,
            n.solved_resources as f64 / n.solves.max(1) as f64,
            n.solve_rounds as f64 / n.solves.max(1) as f64,
            n.round_flows as f64 / n.solves.max(1) as f64,
            n.rate_changes as f64 / n.solves.max(1) as f64
        );
    }
    let sum = summary::summarize(&sim);
    let any_stdout = [&a.json, &a.trace, &a.inspect, &a.flows]
        .iter()
        .any(|p| p.as_deref() == Some("-"));
    let mut table = summary::table(&sum);
    // The only output that depends on the wall clock; not in the JSON.
    line!(
        table,
        "engine: {} events in {:.2} s ({:.0} events/s)",
        sum.events,
        wall,
        sum.events as f64 / wall.max(1e-9)
    );
    emit(&table, any_stdout)?;
    if let Some(mut out) = flows_out {
        trace::write_flows(&sim, &mut out)?;
        out.flush()?;
    }
    if let Some(mut out) = trace_out {
        trace::write_trace(&sim, &mut out)?;
        out.flush()?;
    }
    if let Some(mut out) = json_out {
        serde_json::to_writer_pretty(&mut out, &sum).map_err(io::Error::from)?;
        writeln!(out)?;
        out.flush()?;
    }
    Ok(())
}

fn cmd_tui(
    path: Option<&Path>,
    policy: Option<&str>,
    seed: Option<u64>,
    record: Option<&Path>,
) -> Result<(), Failure> {
    let sc = load(path, policy, seed)?;
    let origin = path.map_or_else(
        || "quickstart (embedded)".to_string(),
        |p| p.display().to_string(),
    );
    let app = slotsim::tui::App::new(sc).map_err(|e| InputError::new(origin, e.to_string()))?;
    slotsim::tui::term::run(app, record).map_err(|e| Failure::Other(e.to_string()))
}

fn cmd_record(a: RecordArgs) -> Result<(), Failure> {
    use slotsim::tui::offscreen::{parse_keys, record, RecordOpts};
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
    let keys = parse_keys(&a.keys).map_err(|e| InputError::new("--keys", e))?;
    let sc = scenario::load_file(&a.scenario, a.policy.as_deref(), a.seed)?;
    let app = slotsim::tui::App::new(sc)
        .map_err(|e| InputError::new(a.scenario.display().to_string(), e.to_string()))?;
    let opts = RecordOpts {
        width: w,
        height: h,
        fps: a.fps,
        until,
        speed: a.speed,
        keys,
    };
    // A path that cannot be written is bad input (exit 2), found before
    // any rendering; a failure later on is an I/O error (exit 1).
    File::create(&a.out)
        .map_err(|e| InputError::new("--out", format!("cannot create {}: {e}", a.out.display())))?;
    let (frames, ms) = record(app, &a.out, &opts)
        .map_err(|e| Failure::Other(format!("cannot write {}: {e}", a.out.display())))?;
    emit(
        &format!(
            "wrote {} ({frames} frames, {:.1}s)\n",
            a.out.display(),
            ms as f64 / 1000.0
        ),
        false,
    )
}

fn scenario_origin(p: &Option<PathBuf>) -> String {
    p.as_ref().map_or_else(
        || "quickstart (embedded)".to_string(),
        |p| p.display().to_string(),
    )
}

/// Runs to the end, showing progress on stderr when it is a terminal and
/// the run takes more than a moment.
fn run_with_progress(sim: &mut Sim, until: Option<u64>) {
    let tty = io::stderr().is_terminal();
    let started = Instant::now();
    let mut last = Instant::now();
    let mut shown = false;
    loop {
        // Advance in slices of simulated time so progress can be shown.
        let next = sim.next_event_time().map(|t| t + 60_000);
        let limit = match (next, until) {
            (Some(n), Some(u)) => Some(n.min(u)),
            (Some(n), None) => Some(n),
            (None, u) => u,
        };
        let more = sim.run_until(limit);
        let done = sim.is_finished() || !more || until.is_some_and(|u| sim.w.now >= u);
        if tty
            && (shown || started.elapsed() > Duration::from_millis(500))
            && last.elapsed() > Duration::from_millis(200)
        {
            let w = &sim.w;
            eprint!(
                "\r  simulated {:>9.1}s   jobs {}/{} finished   {:.1}s wall   ",
                w.t_s(),
                w.finished_jobs(),
                w.submitted_jobs().max(w.jobs.len()),
                started.elapsed().as_secs_f64()
            );
            last = Instant::now();
            shown = true;
        }
        if done {
            break;
        }
    }
    if shown {
        eprintln!();
    }
}

fn cmd_compare(a: CompareArgs) -> Result<(), Failure> {
    let specs = split_policy_list(&a.policies);
    if specs.is_empty() {
        return Err(InputError::new(
            "--policies",
            "expected at least one policy, e.g. --policies fifo,fair",
        )
        .into());
    }
    if a.seeds == 0 || a.seeds > 1000 {
        return Err(
            InputError::new("--seeds", format!("{} is not between 1 and 1000", a.seeds)).into(),
        );
    }
    // Load (and so validate) everything before running anything.
    let base = scenario::load_file(&a.scenario, None, None)?;
    let mut all = Vec::new();
    for spec in &specs {
        let mut per_seed = Vec::new();
        for k in 0..a.seeds {
            let sc = scenario::load_file(&a.scenario, Some(spec), Some(base.seed.wrapping_add(k)))
                .map_err(|mut e| {
                    if e.pos.is_none() {
                        e.origin = "--policies".into();
                    }
                    e
                })?;
            per_seed.push(sc);
        }
        all.push(per_seed);
    }
    // Open the output before the runs, so a bad path costs nothing.
    let mut json = a
        .json
        .as_deref()
        .map(|p| open_out(p, "--json"))
        .transpose()?;
    let labels: Vec<String> = all.iter().map(|v| v[0].policy.label()).collect();
    let results = compare::run_all(all)?;
    let table = compare::table(&labels, &results);
    emit(&table, a.json.as_deref() == Some("-"))?;
    if let Some(out) = json.as_mut() {
        let flat: Vec<&summary::Summary> = results.iter().flatten().collect();
        serde_json::to_writer_pretty(&mut *out, &flat).map_err(io::Error::from)?;
        writeln!(out)?;
        out.flush()?;
    }
    Ok(())
}

fn cmd_validate(path: &Path) -> Result<(), Failure> {
    let sc = scenario::load_file(path, None, None)?;
    let mut o = String::new();
    let nodes = sc.cluster.node_count();
    let racks: u32 = sc
        .cluster
        .datacenters
        .iter()
        .map(|d| d.racks.min(d.nodes))
        .sum();
    // Jobs of the scenario and of its `submit` events alike.
    let submitted: Vec<&slotsim::model::JobSpec> = sc
        .events
        .iter()
        .filter_map(|e| match &e.action {
            slotsim::model::Action::Submit(j) => Some(j.as_ref()),
            _ => None,
        })
        .collect();
    let all_jobs: Vec<&slotsim::model::JobSpec> = sc.jobs.iter().chain(submitted).collect();
    let maps: u64 = all_jobs.iter().map(|j| j.maps as u64).sum();
    let reduces: u64 = all_jobs.iter().map(|j| j.reduces as u64).sum();
    // `+ 0.0`: an empty f64 sum is -0.0.
    let input_gb: f64 = all_jobs.iter().map(|j| j.input_mb).sum::<f64>() / 1024.0 + 0.0;
    line!(o, "{}: ok", path.display());
    line!(
        o,
        "  scenario   {}{}",
        sc.name,
        if sc.description.is_empty() {
            String::new()
        } else {
            format!(" — {}", sc.description)
        }
    );
    line!(
        o,
        "  cluster    {}, {}, {}, {} map + {} reduce {} per node ({})",
        plural(sc.cluster.datacenters.len() as u64, "datacenter"),
        plural(racks as u64, "rack"),
        plural(nodes as u64, "node"),
        sc.cluster.map_slots,
        sc.cluster.reduce_slots,
        match sc.cluster.slot_model {
            slotsim::model::SlotModel::Typed => "slots",
            slotsim::model::SlotModel::Unified => "containers",
        },
        match sc.cluster.heartbeat {
            Some(h) => format!("heartbeat {}", slotsim::units::fmt_secs(h)),
            None => "manual heartbeats".into(),
        }
    );
    line!(o, "  policy     {}   seed {}", sc.policy.label(), sc.seed);
    line!(
        o,
        "  pools      {}",
        sc.pools
            .iter()
            .map(|p| p.name.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    );
    line!(
        o,
        "  jobs       {}{} ({} + {} = {}, {:.1} GB input)",
        sc.jobs.len(),
        match all_jobs.len() - sc.jobs.len() {
            0 => String::new(),
            n => format!(" + {n} by submit events"),
        },
        plural(maps, "map"),
        plural(reduces, "reduce"),
        plural(maps + reduces, "task"),
        input_gb
    );
    if !sc.events.is_empty() {
        line!(o, "  events     {}", sc.events.len());
    }
    emit(&o, false)
}

fn cmd_policies() -> String {
    let mut o = String::new();
    let w = POLICIES.iter().map(|p| p.name.len()).max().unwrap_or(0);
    for p in POLICIES {
        line!(o, "{:<w$} {}", p.name, p.summary);
        line!(o, "{:<w$} source: {}", "", p.source);
    }
    o
}

fn cmd_profiles() -> String {
    let mut o = String::new();
    line!(
        o,
        "{:<18} {:>8} {:>12} {:>14} {:>12}  source",
        "profile",
        "FP",
        "map s/MB",
        "reduce s/MB",
        "64MB map s"
    );
    let net = slotsim::model::NetworkSpec::default();
    for p in scenario::profiles::all() {
        let t64 = 64.0 / net.disk_mbps + 64.0 * p.map_s_per_mb + 64.0 * p.fp / net.disk_mbps;
        line!(
            o,
            "{:<18} {:>8.4} {:>12.4} {:>14.4} {:>12.2}  {}",
            p.name,
            p.fp,
            p.map_s_per_mb,
            p.reduce_s_per_mb,
            t64,
            p.source
        );
    }
    o
}

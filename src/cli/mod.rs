//! The `slotsim` command line: parse, dispatch, map errors to exit codes
//! (0 success, 2 bad input with one `error: FILE:LINE:COL: ...` line, 1
//! anything else). One module per group of commands.

/// Appends one formatted line to a `String`.
macro_rules! outln {
    ($o:expr, $($t:tt)*) => {{
        $o.push_str(&format!($($t)*));
        $o.push('\n');
    }};
}

mod import;
mod info;
mod run;
mod serve;
mod sets;
mod sweep;

use clap::{Args, Parser, Subcommand};
use slotsim::error::InputError;
use slotsim::model::Scenario;
use slotsim::scenario;
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "slotsim",
    version,
    about = "A terminal playground for MapReduce cluster scheduling",
    long_about = "slotsim simulates a Hadoop cluster (MRv1 slots or YARN containers) \
                  deterministically and runs FIFO, Fair, Capacity, YARN's schedulers and \
                  research scheduling policies on it."
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
    Validate {
        /// Scenario file (TOML)
        scenario: PathBuf,
        /// Override one scenario key by its dotted path, as a sweep plan's
        /// [overrides] do (repeatable): --set network.nic_mbps=1250
        #[arg(long = "set", value_name = "KEY=VALUE")]
        set: Vec<String>,
    },
    /// List the scheduling policies, with the paper or code each follows
    Policies,
    /// List the built-in job profiles and where their numbers come from
    Profiles,
    /// Render the TUI offscreen into an asciinema v2 recording
    Record(RecordArgs),
    /// Runs driven by their caller: episodes reset and stepped over JSON
    /// Lines on stdin and stdout, the caller in the policy's place
    /// (protocol 2)
    Serve,
    /// Run a grid of scenarios x policies x overrides x seeds (or one shard
    /// of it), or print a Slurm / Kubernetes job that runs its shards
    Sweep(SweepArgs),
    /// Merge the shard outputs of a sweep into one table
    Merge(MergeArgs),
    /// Turn another tool's configuration into a scenario
    Import {
        #[command(subcommand)]
        what: ImportCmd,
    },
}

#[derive(Subcommand)]
enum ImportCmd {
    /// Hadoop 1.x's mapred-site.xml, hdfs-site.xml, slaves and
    /// fair-scheduler.xml or capacity-scheduler.xml, into scenario TOML
    Hadoop {
        /// Hadoop's configuration directory
        conf_dir: PathBuf,
        /// Write the scenario here instead of stdout
        #[arg(long, value_name = "PATH")]
        out: Option<String>,
    },
}

#[derive(Args)]
pub struct SweepArgs {
    /// The sweep plan (TOML: scenarios, policies, seeds, [overrides])
    pub plan: PathBuf,
    /// Run only shard K of N (1-based), e.g. '2/8'
    #[arg(long, value_name = "K/N")]
    pub shard: Option<String>,
    /// Directory for the shard's results (DIR/shard-K-of-N.jsonl)
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Print a job that runs the shards on a cluster instead of running them
    #[arg(long, value_name = "slurm|k8s")]
    pub emit: Option<String>,
    /// Shards of the emitted job
    #[arg(long, value_name = "N")]
    pub shards: Option<u64>,
    /// Container image of the emitted Kubernetes job
    #[arg(long, default_value = "slotsim:latest")]
    pub image: String,
    /// CPUs each emitted task asks for
    #[arg(long, default_value_t = 1)]
    pub cpus: u32,
    /// Stop at the first cell that fails (by default every cell runs and
    /// each failed one is named at the end)
    #[arg(long)]
    pub fail_fast: bool,
}

#[derive(Args)]
pub struct MergeArgs {
    /// Directories holding shard-K-of-N.jsonl files of one sweep
    #[arg(required = true)]
    pub dirs: Vec<PathBuf>,
    /// Also write the merged table as CSV here ('-' for stdout)
    #[arg(long, value_name = "PATH")]
    pub csv: Option<String>,
    /// Print one metric as a Markdown table instead (a row per variant, a
    /// column per policy), e.g. 'mean_turnaround_s'
    #[arg(long, value_name = "METRIC")]
    pub table: Option<String>,
    /// With --table: show the other policies as their paired per-seed
    /// difference from this one, in percent
    #[arg(long, value_name = "POLICY", requires = "table")]
    pub versus: Option<String>,
    /// With --table: only these policies' columns, in this order
    #[arg(
        long,
        value_name = "P1,P2,...",
        requires = "table",
        value_delimiter = ','
    )]
    pub policies: Vec<String>,
    /// With --table: only the rows of these scenarios (file name without
    /// .toml, or the path as the plan gives it)
    #[arg(
        long,
        value_name = "NAME,...",
        requires = "table",
        value_delimiter = ','
    )]
    pub scenario: Vec<String>,
    /// Instead of the table: for each other variant, its per-job turnaround
    /// error against this variant's cells (paired by scenario, policy,
    /// overrides and seed), with makespan and mean turnaround; e.g. the
    /// coarse network model against 'shared'
    #[arg(long, value_name = "VARIANT", conflicts_with_all = ["table", "csv"])]
    pub job_error: Option<String>,
}

#[derive(Args)]
pub struct RecordArgs {
    /// Scenario file (TOML); the embedded quickstart when omitted
    scenario: Option<PathBuf>,
    /// The file to write: FILE.cast, an asciinema recording; FILE.gif, a
    /// GIF that slotsim draws itself
    #[arg(long, value_name = "FILE.cast|FILE.gif")]
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
    /// duration such as '3s' waits; '@FILE' reads them from FILE, one a
    /// line, '#' comments
    #[arg(long, default_value = "")]
    keys: String,
    /// Simulated seconds per recorded second (a TUI speed step: 0.1 … 1000)
    #[arg(long, default_value_t = 1.0, allow_negative_numbers = true)]
    speed: f64,
    /// Policy, or a variant such as 'fair[slowstart=0.05]'; repeated,
    /// the runs side by side (the form for a spec whose arguments hold
    /// commas)
    #[arg(long = "policy", value_name = "SPEC")]
    policy: Vec<String>,
    /// Two to four policies side by side on one clock, comma-separated:
    /// 'fifo,fair' (after them, those of --policy)
    #[arg(long, value_name = "A,B[,C,D]")]
    policies: Option<String>,
    /// Seed (overrides the scenario's)
    #[arg(long, allow_negative_numbers = true)]
    seed: Option<u64>,
    /// Override one scenario key by its dotted path, as a sweep plan's
    /// [overrides] do (repeatable): --set network.nic_mbps=1250
    #[arg(long = "set", value_name = "KEY=VALUE")]
    set: Vec<String>,
}

#[derive(Args)]
pub struct RunArgs {
    /// Scenario file (TOML); the embedded quickstart when omitted
    scenario: Option<PathBuf>,
    /// Policy, or a variant such as 'fair[slowstart=0.05]'; repeated,
    /// the runs side by side (the form for a spec whose arguments hold
    /// commas)
    #[arg(long = "policy", value_name = "SPEC")]
    policy: Vec<String>,
    /// Two to four policies side by side on one clock, comma-separated:
    /// 'fifo,fair' (after them, those of --policy)
    #[arg(long, value_name = "A,B[,C,D]")]
    policies: Option<String>,
    /// Seed (overrides the scenario's)
    #[arg(long, allow_negative_numbers = true)]
    seed: Option<u64>,
    /// Override one scenario key by its dotted path, as a sweep plan's
    /// [overrides] do (repeatable): --set network.nic_mbps=1250
    #[arg(long = "set", value_name = "KEY=VALUE")]
    set: Vec<String>,
    /// Run to completion as fast as possible and print a summary
    #[arg(long)]
    headless: bool,
    /// Write the JSON summary here ('-' for stdout); with the TUI, a file written when the session ends
    #[arg(long, value_name = "PATH")]
    json: Option<String>,
    /// Write one JSON line per task attempt here ('-' for stdout); with the TUI, a file written when the session ends
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
    /// Write SVG plots here (turnaround CDF, tasks running, slot Gantt chart)
    #[arg(long, value_name = "DIR")]
    plot: Option<PathBuf>,
    /// Record the live TUI session into an asciinema v2 file
    #[arg(long, value_name = "FILE.cast")]
    record: Option<PathBuf>,
}

#[derive(Args)]
pub struct CompareArgs {
    /// Scenario file (TOML)
    scenario: PathBuf,
    /// Comma-separated policies or variants, e.g. 'fifo,fair,fair[slowstart=1]'
    #[arg(long, required_unless_present = "policy")]
    policies: Option<String>,
    /// One policy or variant, repeatable (the form for a spec whose
    /// arguments hold commas); after those of --policies
    #[arg(long = "policy", value_name = "SPEC")]
    policy: Vec<String>,
    /// Number of seeds per policy: seeds 1 to N (as a sweep's 'seeds = N'),
    /// whatever the scenario's own seed
    #[arg(long, default_value_t = 3, allow_negative_numbers = true)]
    seeds: u64,
    /// Write an array of JSON summaries here ('-' for stdout)
    #[arg(long, value_name = "PATH")]
    json: Option<String>,
    /// Write an SVG of the turnaround CDF per policy here
    #[arg(long, value_name = "DIR")]
    plot: Option<PathBuf>,
    /// Override one scenario key by its dotted path, as a sweep plan's
    /// [overrides] do (repeatable): --set network.nic_mbps=1250
    #[arg(long = "set", value_name = "KEY=VALUE")]
    set: Vec<String>,
}

pub enum Failure {
    Input(InputError),
    Other(String),
    /// The reader of our output went away (`slotsim ... | head`): stop quietly.
    ClosedPipe,
    /// A signal stopped a headless run; its outputs were written as partial
    /// (exit status 130).
    Interrupted(String),
    /// A policy in another process stopped the run (exit status 2); its
    /// outputs were written as partial.
    Policy(String),
    /// Its errors are on stderr already, one `error:` line each (cells of a
    /// `compare` or a `sweep` that failed): exit with this status.
    Reported(u8),
}

/// Writes `text` to stdout or stderr, turning failures into errors rather
/// than the panic `print!` would raise.
pub fn emit(text: &str, to_stderr: bool) -> Result<(), Failure> {
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
        "run", "compare", "validate", "record", "policies", "profiles", "serve", "sweep", "merge",
    ];
    // clap's own tip is in a later paragraph: say it here, in one line.
    let text = match text
        .split_once("unrecognized subcommand '")
        .and_then(|(_, r)| r.split_once('\''))
        .and_then(|(w, _)| slotsim::error::closest(w, known))
    {
        Some(c) if !text.contains("did you mean") => format!("{text}; did you mean '{c}'?"),
        _ => text,
    };
    match sub.filter(|s| known.contains(s)) {
        Some(s) => format!("{text} (see 'slotsim {s} --help')"),
        None => format!("{text} (see 'slotsim --help')"),
    }
}

pub fn main() -> ExitCode {
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
    if let Err(m) = slotsim::scenario::memory_env() {
        eprintln!("error: {m}");
        return ExitCode::from(2);
    }
    let result = match cli.command {
        None => run::cmd_tui(None, &[], None, &[], Default::default()),
        Some(Cmd::Run(a)) => run::cmd_run(a),
        Some(Cmd::Compare(a)) => run::cmd_compare(a),
        Some(Cmd::Validate { scenario, set }) => info::cmd_validate(&scenario, &set),
        Some(Cmd::Record(a)) => run::cmd_record(a),
        Some(Cmd::Policies) => emit(&info::cmd_policies(), false),
        Some(Cmd::Profiles) => emit(&info::cmd_profiles(), false),
        Some(Cmd::Serve) => serve::cmd_serve(),
        Some(Cmd::Sweep(a)) => sweep::cmd_sweep(a),
        Some(Cmd::Merge(a)) => sweep::cmd_merge(a),
        Some(Cmd::Import {
            what: ImportCmd::Hadoop { conf_dir, out },
        }) => import::cmd_import_hadoop(&conf_dir, out.as_deref()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        // Written, not `eprintln!`ed: stderr may be gone with the terminal
        // (a closed TUI session), and that is no reason to panic.
        Err(Failure::Input(e)) => {
            let _ = writeln!(std::io::stderr(), "error: {e}");
            ExitCode::from(2)
        }
        Err(Failure::Other(e)) => {
            let _ = writeln!(std::io::stderr(), "error: {e}");
            ExitCode::from(1)
        }
        Err(Failure::Policy(e)) => {
            let _ = writeln!(std::io::stderr(), "error: {e}");
            ExitCode::from(2)
        }
        Err(Failure::Reported(code)) => ExitCode::from(code),
        Err(Failure::ClosedPipe) => ExitCode::SUCCESS,
        Err(Failure::Interrupted(e)) => {
            let _ = writeln!(std::io::stderr(), "{e}");
            ExitCode::from(130)
        }
    }
}

pub fn load(
    path: Option<&Path>,
    policy: Option<&str>,
    seed: Option<u64>,
    set: &[String],
) -> Result<Scenario, InputError> {
    let sc = sets::load(path, &sets::parse(set)?, policy, seed)?;
    scenario::single_run(&sc)?;
    note_slot_model(&sc);
    Ok(sc)
}

/// Says on stderr when the policy was written for another slot model.
pub fn note_slot_model(sc: &Scenario) {
    let entry = slotsim::sched::registry::lookup(sc.policy.name());
    if let Some(n) =
        entry.and_then(|e| slotsim::sched::registry::model_note(e, &sc.cluster.capacity()))
    {
        eprintln!("note: {n}");
    }
}

/// An output destination: a file, or stdout for `-`.
pub fn open_out(path: &str, flag: &str) -> Result<Box<dyn Write + Send>, Failure> {
    if path == "-" {
        Ok(Box::new(BufWriter::new(io::stdout())))
    } else {
        let f = File::create(path)
            .map_err(|e| InputError::new(flag, format!("cannot create {path}: {e}")))?;
        Ok(Box::new(BufWriter::new(f)))
    }
}

pub fn scenario_origin(p: &Option<PathBuf>) -> String {
    p.as_ref().map_or_else(
        || "quickstart (embedded)".to_string(),
        |p| p.display().to_string(),
    )
}

/// A bar on stderr, when it is a terminal, counting what has ended of
/// `total` (a compare's runs, a sweep's cells). Its elapsed time moves
/// while the first are still going; it shows an estimate of the time left
/// once one has ended and there is a rate to go by (before that it would
/// read 0 s).
pub struct CountBar {
    bar: Option<indicatif::ProgressBar>,
    unit: &'static str,
    eta: std::sync::atomic::AtomicBool,
}

impl CountBar {
    pub fn new(total: u64, unit: &'static str) -> CountBar {
        use std::io::IsTerminal;
        let bar = io::stderr().is_terminal().then(|| {
            let b = indicatif::ProgressBar::new(total);
            b.set_style(Self::style(unit, ""));
            b.enable_steady_tick(std::time::Duration::from_secs(1));
            b
        });
        CountBar {
            bar,
            unit,
            eta: false.into(),
        }
    }

    fn style(unit: &str, eta: &str) -> indicatif::ProgressStyle {
        indicatif::ProgressStyle::with_template(&format!(
            "  {{bar:30}} {{pos}}/{{len}} {unit}  {{elapsed_precise}} elapsed{eta}"
        ))
        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
    }

    /// `done` have ended (from any thread).
    pub fn set(&self, done: u64) {
        let Some(b) = &self.bar else { return };
        if done > 0 && !self.eta.swap(true, std::sync::atomic::Ordering::Relaxed) {
            b.set_style(Self::style(self.unit, "  ETA {eta}"));
        }
        b.set_position(done);
    }

    /// Takes the bar off the terminal, before what the command prints.
    pub fn clear(&self) {
        if let Some(b) = &self.bar {
            b.finish_and_clear();
        }
    }
}

/// Checks before a run that the `--plot` directory can be created and
/// written to, so a bad path costs no simulation.
pub fn check_plot_dir(dir: &Path) -> Result<(), Failure> {
    if dir.exists() && !dir.is_dir() {
        return Err(InputError::new(
            "--plot",
            format!(
                "{} is a file; expected a directory for the SVG figures (created if missing)",
                dir.display()
            ),
        )
        .into());
    }
    std::fs::create_dir_all(dir)
        .map_err(|e| InputError::new("--plot", format!("cannot create {}: {e}", dir.display())))?;
    let probe = dir.join(".slotsim-write-check");
    std::fs::write(&probe, b"")
        .and_then(|_| std::fs::remove_file(&probe))
        .map_err(|e| {
            InputError::new("--plot", format!("cannot write in {}: {e}", dir.display()))
        })?;
    Ok(())
}

/// Writes `name` into the `--plot` directory (created if need be).
pub fn write_plot(
    dir: &Path,
    name: &str,
    svg: Result<String, slotsim::report::plot::PlotError>,
) -> Result<(), Failure> {
    let svg = svg.map_err(|e| Failure::Other(e.to_string()))?;
    std::fs::create_dir_all(dir)
        .map_err(|e| InputError::new("--plot", format!("cannot create {}: {e}", dir.display())))?;
    let p = dir.join(name);
    write_whole(&p, svg.as_bytes())
        .map_err(|e| InputError::new("--plot", format!("cannot write {}: {e}", p.display())))?;
    Ok(())
}

/// Writes `bytes` to `path` whole or not at all: into a file beside it
/// (`.NAME.partial`), then renamed over it, so a reader never sees half a
/// file and a failure leaves what was there.
pub fn write_whole(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let name = path
        .file_name()
        .map_or_else(|| "out".into(), |n| n.to_string_lossy().into_owned());
    let aside = path.with_file_name(format!(".{name}.partial"));
    let r = std::fs::write(&aside, bytes).and_then(|_| std::fs::rename(&aside, path));
    if r.is_err() {
        let _ = std::fs::remove_file(&aside);
    }
    r
}

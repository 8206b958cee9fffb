//! What can go wrong reading a sweep's results and overriding a scenario,
//! as types: the CLI prints them as one `error:` line each.

use std::path::PathBuf;

/// Reading shard files (`merge`, `merge --job-error`).
#[derive(Debug, thiserror::Error)]
pub enum ShardsError {
    #[error("cannot read {}: {source}", path.display())]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("no shard-*.jsonl files in the given directories")]
    NoShards,
    #[error("the shard files are empty")]
    Empty,
    /// A line that is not a cell's JSON, or lacks its cell's place.
    #[error("{}:{line}: {reason}", path.display())]
    BadLine {
        path: PathBuf,
        line: usize,
        reason: String,
    },
    /// A line of another plan or slotsim version than the first.
    #[error("{}:{line}: {what}", path.display())]
    Mixed {
        path: PathBuf,
        line: usize,
        what: String,
    },
    #[error("cell {cell} is in {} and in {}; expected each cell once", first.display(), second.display())]
    Duplicate {
        cell: u64,
        first: PathBuf,
        second: PathBuf,
    },
    #[error("{count} of {total} cells missing: {list}; run their shards (again) before merging")]
    Missing {
        count: usize,
        total: u64,
        list: String,
    },
    /// `--job-error`: no such variant, or a cell without its base.
    #[error("{0}")]
    NoBase(String),
}

/// Setting a plan's override in a scenario's text.
#[derive(Debug, thiserror::Error)]
pub enum OverrideError {
    #[error("not TOML: {0}")]
    NotToml(String),
    #[error("\"{0}\" is not a dotted path such as \"network.nic_mbps\"")]
    NotAPath(String),
    #[error("\"{list}\" is a list; expected an index after it, as in \"{list}.0.{next}\"")]
    NeedsIndex { list: String, next: String },
    #[error("\"{list}\" has {len} entries; index {index} is out of range")]
    OutOfRange {
        list: String,
        len: usize,
        index: usize,
    },
    #[error("\"{key}\" names a whole entry of \"{list}\"; expected one of its keys")]
    WholeEntry { key: String, list: String },
    #[error("\"{0}\" is not a table")]
    NotATable(String),
    #[error("{0}")]
    Write(#[from] toml::ser::Error),
}

/// `--shard K/N`.
#[derive(Debug, thiserror::Error)]
pub enum ShardSpecError {
    #[error("\"{0}\" is not K/N, like 2/8")]
    NotKN(String),
    #[error("\"{0}\": expected 1 <= K <= N")]
    OutOfRange(String),
}

/// One cell of a sweep.
#[derive(Debug, thiserror::Error)]
pub enum CellError {
    #[error("{0}")]
    Scenario(#[from] crate::error::InputError),
    #[error("{0}")]
    Sim(#[from] crate::sim::SimError),
    #[error("cannot write the cell's line: {0}")]
    Json(#[from] serde_json::Error),
    /// A policy in another process stopped the cell's run.
    #[error("{0}")]
    Policy(String),
}

/// Running a shard of a sweep (`sweep`).
#[derive(Debug, thiserror::Error)]
pub enum ShardRunError {
    /// `what`: create, read, write or repair.
    #[error("cannot {what} {}: {source}", path.display())]
    Io {
        what: &'static str,
        path: PathBuf,
        source: std::io::Error,
    },
    /// A line of the shard file already there that cannot be resumed from.
    #[error("{}:{line}: {reason}", path.display())]
    Resume {
        path: PathBuf,
        line: usize,
        reason: String,
    },
    /// The first cell that failed under `--fail-fast` (no cell started
    /// after it).
    #[error("{0}")]
    Cell(Box<FailedCell>),
    /// Cells that failed; every other cell ran and was written (a resume
    /// runs the failed ones again).
    #[error("{} of {} cells failed (the others are written; running the sweep again retries them):{}", failed.len(), report.ran, failed.iter().map(|f| format!("\n  {f}")).collect::<String>())]
    Cells {
        failed: Vec<FailedCell>,
        report: super::report::Report,
    },
}

/// A cell that failed, named as a person finds it: its index, scenario,
/// policy, variant and seed, and why.
#[derive(Debug)]
pub struct FailedCell {
    pub index: u64,
    pub scenario: String,
    pub policy: String,
    pub variant: Option<String>,
    pub seed: u64,
    pub source: CellError,
}

impl std::fmt::Display for FailedCell {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "cell {} ({}, {}", self.index, self.scenario, self.policy)?;
        if let Some(v) = &self.variant {
            write!(f, ", {v}")?;
        }
        write!(f, ", seed {}): {}", self.seed, self.source)
    }
}

/// A `merge --table` that names what the sweep does not have.
#[derive(Debug, thiserror::Error)]
pub enum TableError {
    #[error("unknown metric \"{metric}\"; expected one of: {}", known.join(", "))]
    Metric {
        metric: String,
        known: Vec<&'static str>,
    },
    #[error("--scenario {scenario}: no such scenario in this sweep; expected one of: {}", known.join(", "))]
    Scenario {
        scenario: String,
        known: Vec<String>,
    },
    #[error("--policies: no policy {policy} in this sweep; expected some of: {}", known.join(", "))]
    Policies { policy: String, known: Vec<String> },
    #[error("--versus {policy}: no such policy in this sweep; expected one of: {}", known.join(", "))]
    Versus { policy: String, known: Vec<String> },
}

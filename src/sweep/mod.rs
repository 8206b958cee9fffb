//! Sweeps: grids of runs (scenarios × policy specs × override
//! combinations × seeds), run in shards on local cores or on a cluster
//! (Slurm, Kubernetes), then merged into one table. See docs/sweeps.md.

pub mod emit;
pub mod error;
pub mod job_error;
pub mod merge;
pub mod plan;
pub mod report;
pub mod run;

pub use plan::{load as load_plan, Plan};
pub use run::{run_shard, Shard};

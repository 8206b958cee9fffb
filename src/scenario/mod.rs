//! Scenario loading: the TOML schema (`schema`), validation and defaults
//! (`load`), built-in job profiles (`profiles`) and workload generators
//! (`workload`), and a side-by-side run's own script (`side`).
pub mod import;
pub mod load;
pub mod profiles;
mod resolved;
pub mod rumen;
pub mod schema;
mod side;
pub mod spans;
pub mod workload;

pub use load::{load_default, load_file, load_str, memory_env, DEFAULT_SCENARIO, DEFAULT_SEED};
pub use resolved::resolved;
pub use side::{side_run, single_run, MAX_SIDE_RUNS};

//! What a run of a shard did (also carried by the error of one that
//! stopped part-way).

use std::path::PathBuf;

/// What a run of a shard did.
#[derive(Clone, Debug)]
pub struct Report {
    pub file: PathBuf,
    /// Cells of the shard, found done already, and run now.
    pub cells: u64,
    pub skipped: u64,
    pub ran: u64,
    pub wall_s: f64,
}

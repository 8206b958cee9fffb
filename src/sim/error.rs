//! What can go wrong building a run or applying a command to one.

use super::policy::BuildError;
use crate::model::NodeId;

/// What can go wrong building a run or applying a command.
#[derive(Debug, thiserror::Error)]
pub enum SimError {
    #[error("node {0} does not exist")]
    NoSuchNode(NodeId),
    #[error("unknown pool \"{0}\"")]
    UnknownPool(String),
    #[error("no job named \"{0}\" has been submitted")]
    NoSuchJob(String),
    #[error("job \"{0}\" has already finished")]
    JobFinished(String),
    #[error("a job named \"{0}\" already exists")]
    DuplicateJob(String),
    #[error("a job needs at least one map")]
    NoMaps,
    #[error("block {block} names a node outside 0..{nodes}")]
    BlockOutside { block: usize, nodes: u32 },
    #[error("job {job}: {source}")]
    Job {
        job: String,
        #[source]
        source: Box<SimError>,
    },
    /// The scenario cannot run as asked (a side-by-side event in a single
    /// run): the whole message.
    #[error("{0}")]
    Refused(String),
    /// The policy factory refused a spec.
    #[error("{0}")]
    Policy(BuildError),
}

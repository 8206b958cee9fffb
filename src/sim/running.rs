//! The running attempts' state beyond their phase: when the phase began,
//! its timer, its flow, its compute work, a reducer's copy. A slab whose
//! places an attempt holds while it runs (`Attempt::run`), reused once it
//! ends.

use super::copy::Copy;
use super::job::AttemptId;
use super::network::FlowId;
use crate::model::Ms;

/// A running attempt's state beyond its [`Phase`].
#[derive(Clone, Debug, Default)]
pub struct Run {
    pub attempt: AttemptId,
    /// When the current phase began.
    pub since: Ms,
    /// The end of a timed phase (start-up, fixed-time), to tell a stale
    /// calendar entry from the live one.
    pub timer: Option<Ms>,
    /// The read, spill or write flow under way.
    pub flow: Option<FlowId>,
    /// Compute: the work, and the node's virtual time it finishes at.
    pub work: f64,
    pub target: f64,
    /// Nominal seconds of reading and computing (for progress).
    pub nominal_read: f64,
    /// A reducer's copy.
    pub copy: Option<Box<Copy>>,
}
